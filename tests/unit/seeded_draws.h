/* Seeded draws for the unit tests' random gemm problems: xorshift64 from a
 * fixed seed (the same draws every run), sides log-uniform in [1, most],
 * and leading dimensions tight or padded. One copy a test program
 * (static). */
#ifndef WARPLAB_TEST_SEEDED_DRAWS_H
#define WARPLAB_TEST_SEEDED_DRAWS_H

#include "kernels/gemm_problem.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>

static uint64_t draw_state = 0x2545f4914f6cdd1dull;
static inline uint64_t draw(void)
{
    draw_state ^= draw_state << 13;
    draw_state ^= draw_state >> 7;
    draw_state ^= draw_state << 17;
    return draw_state;
}

/* Log-uniform in [1, most]. */
static inline size_t draw_side(size_t most)
{
    const double u = (double)(draw() >> 11) / 9007199254740992.0;
    const size_t v = (size_t)exp(u * log((double)most + 1.0));
    return v < 1 ? 1 : v > most ? most : v;
}

/* A gemm problem's leading dimensions (A, B, C): each tight (0), or, where
 * bit j of pad is set, its tight count plus 0 to most_pad elements. */
static inline void draw_gemm_lds(wl_problem *p, unsigned pad, size_t most_pad)
{
    for (int j = 0; j < 3; j++) {
        const size_t cols = j == 0 ? wl_gemm_a_cols(p) : j == 1 ? wl_gemm_b_cols(p) : p->dim[1];
        p->ld[j] = (pad >> j & 1) ? cols + draw() % (most_pad + 1) : 0;
    }
}

#endif
