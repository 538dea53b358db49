/* What the cuda backend's probe files share: the series they define (listed
 * in probe.cu's table), the FMA chain, and launch helpers. */
#ifndef WARPLAB_PROBE_CUDA_H
#define WARPLAB_PROBE_CUDA_H

#include "../probe.h"
#include "../probe_kernels.h"
#include "kernels/cuda/cuda_backend.h"

/* The launch's buffer i, as an array of T. */
template <typename T> static inline T *view_of(const wl_launch *launch, int i)
{
    return static_cast<T *>(wl_view_ptr(launch->buf[i]));
}

/* Blocks of WL_PROBE_BLOCK threads covering `work` threads (at least 1). */
static inline unsigned wl_probe_blocks(size_t work)
{
    size_t blocks = (work + WL_PROBE_BLOCK - 1) / WL_PROBE_BLOCK;
    return blocks ? (unsigned)blocks : 1u;
}

/* The FMA chain of the divergence and overlap probes: y <- fma(y, a, b),
 * steps times, each step depending on the last. */
static __device__ __forceinline__ float wl_probe_chain(float y, float b, unsigned steps)
{
    for (unsigned k = 0; k < steps; k++)
        y = __fmaf_rn(y, WL_CHAIN_A, b);
    return y;
}

extern "C" {
/* probe_coalescing.cu */
extern const wl_impl wl_cuda_probe_offset, wl_cuda_probe_stride;
/* probe_blocksize.cu */
extern const wl_impl wl_cuda_probe_per_element, wl_cuda_probe_sm_x1, wl_cuda_probe_sm_x4,
    wl_cuda_probe_resident;
/* probe_banks.cu */
extern const wl_impl wl_cuda_probe_word4, wl_cuda_probe_word8;
/* probe_divergence.cu */
extern const wl_impl wl_cuda_probe_lane, wl_cuda_probe_warp, wl_cuda_probe_block;
/* probe_atomics.cu */
extern const wl_impl wl_cuda_probe_global_int, wl_cuda_probe_global_float, wl_cuda_probe_shared_int,
    wl_cuda_probe_shared_float, wl_cuda_probe_cas_float;
/* the atomic_functions section's series, in wl_atomic_function order */
extern const wl_impl wl_cuda_probe_atomic_functions[10];
/* probe_intrinsics.cu */
extern const wl_impl wl_cuda_probe_sinf, wl_cuda_probe_fast_sin, wl_cuda_probe_expf,
    wl_cuda_probe_fast_exp, wl_cuda_probe_div, wl_cuda_probe_fast_div, wl_cuda_probe_div_mod,
    wl_cuda_probe_shift_mask;
/* probe_unroll.cu */
extern const wl_impl wl_cuda_probe_rolled, wl_cuda_probe_compiler, wl_cuda_probe_pragma,
    wl_cuda_probe_by_hand;
/* probe_memories.cu */
extern const wl_impl wl_cuda_probe_constant, wl_cuda_probe_global_table, wl_cuda_probe_registers,
    wl_cuda_probe_local;
/* memories_readonly: plain, ldg, restrict */
extern const wl_impl wl_cuda_probe_gather[3];
/* probe_latency.cu */
extern const wl_impl wl_cuda_probe_dependent, wl_cuda_probe_loads_1, wl_cuda_probe_loads_4,
    wl_cuda_probe_loads_16;
/* probe_tiles.cu */
extern const wl_impl wl_cuda_probe_square_block, wl_cuda_probe_eight_rows;
/* probe_transfers.cu */
extern const wl_impl wl_cuda_probe_pageable_h2d, wl_cuda_probe_pinned_h2d,
    wl_cuda_probe_pageable_d2h, wl_cuda_probe_pinned_d2h, wl_cuda_probe_serial,
    wl_cuda_probe_chunked;
/* intensity and latency_bound: pinned, pageable, resident, small_pinned,
 * small_resident */
extern const wl_impl wl_cuda_probe_end_to_end[5];
}

#endif
