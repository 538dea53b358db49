/* The cuda side of the GEMM grid (warplab_gemm_grid_run): the caller's
 * stream and cudaMalloc'd operands of one cell, and cuBLAS on the same
 * contract. C linkage; the grid's loop, timing and checks are the lab's. */
#ifndef WARPLAB_LAB_CUDA_GEMM_GRID_H
#define WARPLAB_LAB_CUDA_GEMM_GRID_H

#include "internal.h"
#include "warplab_lab.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One call of warplab_gemm_ex, tight leading dimensions; batch > 1:
 * warplab_gemm_batched_ex, each operand's matrices one after the other. */
typedef struct wl_cuda_gemm_call {
    warplab_op op_a, op_b;
    size_t m, n, k;
    warplab_dtype ab_type, c_type;
    warplab_compute compute;
    size_t batch;
} wl_cuda_gemm_call;

enum { WL_GRID_A = 0, WL_GRID_B, WL_GRID_C, WL_GRID_C_VENDOR, WL_GRID_OPERANDS };

typedef struct wl_cuda_grid wl_cuda_grid;

/* A stream of the caller's own (cudaStreamCreate) and a cuBLAS handle on
 * it; *stream: the stream, to bind to the context. */
warplab_status wl_cuda_grid_open(wl_backend *device, wl_cuda_grid **grid, void **stream);
void wl_cuda_grid_close(wl_cuda_grid *grid);

/* The cell's operands, each its own cudaMalloc of exactly its span: A and
 * B random in [-1, 1) in their type (seeded), both Cs poisoned with NaN.
 * ptr[WL_GRID_*]: the device addresses; bytes: their sizes. */
warplab_status wl_cuda_grid_operands(wl_cuda_grid *grid, const wl_cuda_gemm_call *call,
                                     uint64_t seed, void *ptr[WL_GRID_OPERANDS],
                                     size_t bytes[WL_GRID_OPERANDS]);
/* cublasGemmEx on the operands, C = op(A) op(B) into the vendor's C:
 * pedantic FP32, TF32 tensor cores (CUBLAS_COMPUTE_32F_FAST_TF32), 16-bit
 * inputs with FP32 sums; a batch: cublasGemmStridedBatchedEx. */
warplab_status wl_cuda_grid_vendor(wl_cuda_grid *grid);
/* bytes of an operand from byte offset on, as stored, into host. */
warplab_status wl_cuda_grid_download(wl_cuda_grid *grid, int operand, size_t offset, size_t bytes,
                                     void *host);
/* Frees the cell's operands (after the stream's work). */
void wl_cuda_grid_release(wl_cuda_grid *grid);

#ifdef __cplusplus
}
#endif

#endif
