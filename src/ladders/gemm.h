/* The matrix-multiply ladder's problem layout, shared by the ladder, its
 * verification and the backends (C and CUDA).
 *
 * C = alpha * A * B + beta * C, float32, row-major:
 *   A is m x k with row stride lda >= k, B is k x n with ldb >= n,
 *   C is m x n with ldc >= n; strides in elements (problem.ld[], 0 = tight).
 * problem.dim[] = {m, n, k}. With beta = 0, C is only written (BLAS
 * semantics: it may hold anything, NaN included, and is never read). */
#ifndef WARPLAB_GEMM_H
#define WARPLAB_GEMM_H

#include "../internal.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { GEMM_A = 0, GEMM_B, GEMM_C, GEMM_BUFFERS };

static inline size_t wl_gemm_m(const wl_problem *p)
{
    return p->dim[0];
}
static inline size_t wl_gemm_n(const wl_problem *p)
{
    return p->dim[1];
}
static inline size_t wl_gemm_k(const wl_problem *p)
{
    return p->dim[2];
}
static inline size_t wl_gemm_lda(const wl_problem *p)
{
    return p->ld[0] ? p->ld[0] : p->dim[2];
}
static inline size_t wl_gemm_ldb(const wl_problem *p)
{
    return p->ld[1] ? p->ld[1] : p->dim[1];
}
static inline size_t wl_gemm_ldc(const wl_problem *p)
{
    return p->ld[2] ? p->ld[2] : p->dim[1];
}

/* Elements a view of a rows x cols matrix with row stride ld spans: the last
 * row ends at its last column (no padding after it). */
static inline size_t wl_gemm_span(size_t rows, size_t cols, size_t ld)
{
    return rows == 0 || cols == 0 ? 0 : (rows - 1) * ld + cols;
}

/* How a rung's inputs reach the multiplier, for its verification. */
typedef enum wl_gemm_precision {
    WL_GEMM_FP32 = 0, /* float inputs, float accumulation */
    WL_GEMM_TF32,     /* inputs rounded to TF32 (10-bit mantissa), float accumulation */
    WL_GEMM_BF16,     /* inputs rounded to BF16 (7-bit mantissa, nearest even) */
    /* cuBLAS's TF32 mode: the library chooses per shape whether and how the
     * inputs are rounded (seen on an H200: plain FP32 at k = 1, and elements
     * matching none of nearest-away, nearest-even or truncation at k = 257).
     * Checked against a bound that covers any rounding to a 10-bit mantissa. */
    WL_GEMM_TF32_ANY
} wl_gemm_precision;

/* Checks C against the double-precision reference (gemm_check.c). */
warplab_status wl_gemm_verify(const wl_problem *problem, const void *const *host, wl_check *check,
                              wl_gemm_precision precision);

/* Rounds a float to BF16 (nearest, ties to even), returned as the float it
 * represents; what the BF16 rungs' setup does on the device. */
float wl_gemm_round_bf16(float x);

#ifdef __cplusplus
}
#endif

#endif
