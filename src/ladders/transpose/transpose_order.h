/* The order in which the transpose ladder's ordered 16-byte rungs
 * (vectorized_out, vectorized_grouped, grouped_strip, persistent) hand work
 * items to blocks: shared by the CUDA kernels and the unit test that checks
 * it is a bijection (src/kernels/opencl/kernels/transpose.cl spells the same
 * arithmetic in OpenCL C).
 *
 * A work item is one block's strip of tiles: items_x items across the input
 * (its tile columns, which are the output's tile rows) by items_y down it.
 * Items are dealt in bands of `group` item rows; inside a band, consecutive
 * linear indices go down one item column (next input tile row: the next
 * output tile along the same output rows), then on to the next column:
 *   group = 1        the input's row-major order (the vectorized rung's grid);
 *   group = items_y  the output's row-major order (write-major);
 *   in between       a band group item rows tall, whose resident blocks fill
 *                    a near-square patch: both the rows they read and the
 *                    rows they write stay few and long.
 * The last band may be shorter (items_y % group rows); it is walked the same
 * way. 32-bit arithmetic: the launchers use it only for fewer than 2^32
 * items, and clamp group to 1..items_y. */
#ifndef WARPLAB_TRANSPOSE_ORDER_H
#define WARPLAB_TRANSPOSE_ORDER_H

#include <stdint.h>

#ifdef __CUDACC__
#define WL_TRANSPOSE_HD __host__ __device__
#else
#define WL_TRANSPOSE_HD
#endif

static inline WL_TRANSPOSE_HD void wl_transpose_item(uint32_t linear, uint32_t items_x,
                                                     uint32_t items_y, uint32_t group, uint32_t *ix,
                                                     uint32_t *iy)
{
    const uint32_t band_items = group * items_x;
    const uint32_t band = linear / band_items;
    const uint32_t first = band * group;
    const uint32_t tall = items_y - first < group ? items_y - first : group;
    const uint32_t local = linear - band * band_items;
    *iy = first + local % tall;
    *ix = local / tall;
}

#endif
