/* What a ladder asks of the device references (src/lab/reference.h): which
 * check verifies a rung's outputs on the device, with the rule and tolerance
 * of the ladder's CPU reference. A ladder names the check (its
 * wl_ladder.device_reference sets kind and precision); the lab fills in the
 * rest of the request and runs it. C11, and includable from CUDA. */
#ifndef WARPLAB_LADDERS_DEVICE_REFERENCE_H
#define WARPLAB_LADDERS_DEVICE_REFERENCE_H

#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a device reference checks. */
typedef enum wl_reference_kind {
    WL_REFERENCE_NONE = 0,       /* no device reference: the CPU's */
    WL_REFERENCE_VECADD,         /* c = a + b (float), |error| <= |c| * FLT_EPSILON */
    WL_REFERENCE_COPY,           /* buffer 1 = buffer 0 (1-D), exactly */
    WL_REFERENCE_TRANSPOSE,      /* out = in^T exactly, pitch padding untouched */
    WL_REFERENCE_TRANSPOSE_COPY, /* out (tight rows x cols) = in exactly, the rest untouched */
    WL_REFERENCE_REDUCE,         /* one value: sum (bounded), min, max */
    WL_REFERENCE_GEMM            /* C = alpha op(A) op(B) + beta C0, sampled, Higham bound */
} wl_reference_kind;

/* How an input buffer was generated: element i is
 * wl_random_element_bits(dtype, seed, i, lo, hi), except a planted NaN. */
typedef struct wl_reference_input {
    uint64_t seed;
    size_t nan_at; /* SIZE_MAX: none */
} wl_reference_input;

typedef struct wl_reference_request {
    wl_reference_kind kind;
    int precision; /* gemm: a wl_gemm_precision */
    const wl_problem *problem;
    const wl_buffer_spec *spec; /* the ladder's buffers */
    int buffers;
    const wl_launch *launch; /* their views */
    wl_reference_input input[WL_MAX_BUFFERS];
    uint64_t sample_seed; /* gemm: which rows, columns and points are recomputed */
} wl_reference_request;

/* Per-ladder parts (in each ladder's file, its wl_ladder.device_reference). */
void wl_vecadd_device_reference(const wl_rung *rung, const wl_problem *problem,
                                wl_reference_request *request);
void wl_transpose_device_reference(const wl_rung *rung, const wl_problem *problem,
                                   wl_reference_request *request);
void wl_reduce_device_reference(const wl_rung *rung, const wl_problem *problem,
                                wl_reference_request *request);
void wl_gemm_device_reference(const wl_rung *rung, const wl_problem *problem,
                              wl_reference_request *request);

#ifdef __cplusplus
}
#endif

#endif
