/* What the CUDA rung launchers (.cu files) need from the cuda backend. */
#ifndef WARPLAB_CUDA_BACKEND_H
#define WARPLAB_CUDA_BACKEND_H

#include "internal.h"

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The stream every rung launches on (CUB and cuBLAS are given it too). */
cudaStream_t wl_cuda_stream(wl_backend *backend);

/* Turns a CUDA error into a status, recording "what: message" as the detail.
 * Out-of-memory errors map to WARPLAB_ERROR_DEVICE_OUT_OF_MEMORY. */
warplab_status wl_cuda_check(wl_backend *backend, cudaError_t error, const char *what);

/* After a kernel launch: the launch's own error, if any. */
#define WL_CUDA_LAUNCHED(backend, what) wl_cuda_check((backend), cudaGetLastError(), (what))

/* Reads bytes of a buffer with a kernel so that L2 holds clean lines of it and
 * nothing of what the next timed run touches (defined in common.cu). */
cudaError_t wl_cuda_flush_l2(cudaStream_t stream, const void *buffer, size_t bytes, unsigned *sink);

/* Writes a 32-bit pattern into words consecutive words (defined in common.cu). */
cudaError_t wl_cuda_fill32_async(cudaStream_t stream, void *destination, uint32_t pattern,
                                 size_t words);

/* A grid for grid-stride kernels: enough resident blocks to fill every SM,
 * never more than the work needs (at least 1). */
unsigned wl_cuda_grid_for(const wl_backend *backend, size_t work_items, unsigned block);

/* Rung tables, one per ladder (each in its ladder's .cu file). */
#define WL_LADDER(name) extern const wl_impl *const wl_cuda_##name##_impls[];
#include "core/ladders.def"
#undef WL_LADDER
extern const wl_impl *const wl_cuda_probe_impls[];

#ifdef __cplusplus
}
#endif

#endif
