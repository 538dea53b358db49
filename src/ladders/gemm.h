/* The matrix-multiply ladder: how its rungs are verified (gemm_check.c).
 * The problem's layout, the 16-bit types, the FP32 dispatcher and the
 * planner are the kernels' (src/kernels/gemm_problem.h, gemm_dispatch.h,
 * gemm_plan.h), included here for the ladder and the lab. */
#ifndef WARPLAB_LADDERS_GEMM_H
#define WARPLAB_LADDERS_GEMM_H

#include "kernels/gemm_problem.h"

#include "warplab_lab.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How a rung's inputs reach the multiplier, for its verification. */
typedef enum wl_gemm_precision {
    WL_GEMM_FP32 = 0, /* float inputs, float accumulation */
    WL_GEMM_TF32,     /* inputs rounded to TF32 (10-bit mantissa), float accumulation */
    WL_GEMM_BF16,     /* inputs rounded to BF16 (7-bit mantissa, nearest even) */
    /* cuBLAS's TF32 mode: the library chooses per shape whether and how the
     * inputs are rounded (seen on an H200: plain FP32 at k = 1, and elements
     * matching none of nearest-away, nearest-even or truncation at k = 257).
     * Checked against a bound that covers any rounding to a 10-bit mantissa. */
    WL_GEMM_TF32_ANY,
    WL_GEMM_FP16 /* inputs rounded to IEEE half (nearest even), float accumulation */
} wl_gemm_precision;

/* Checks C against the double-precision reference (gemm_check.c). */
warplab_status wl_gemm_verify(const wl_problem *problem, const void *const *host, wl_check *check,
                              wl_gemm_precision precision);

/* The same for a C that was rounded once more, to a narrower type (a 16-bit
 * C): each element may also be off by c_u times its value (BF16 2^-8,
 * FP16 2^-11) plus c_tiny (half the type's smallest subnormal: FP16
 * 2^-25). The check reads C widened to float. */
warplab_status wl_gemm_verify_rounded(const wl_problem *problem, const void *const *host,
                                      wl_check *check, wl_gemm_precision precision, double c_u,
                                      double c_tiny);

/* The rows or columns the check samples: 0, count - 1, then distinct random
 * indices, up to `want` (the GPU reference samples the same ones). */
size_t wl_gemm_sample_lines(wl_rng *rng, size_t count, size_t *out, size_t want);

/* Rounds a float to BF16 (nearest, ties to even), returned as the float it
 * represents; what the BF16 rungs' setup does on the device. */
float wl_gemm_round_bf16(float x);

#ifdef __cplusplus
}
#endif

#endif
