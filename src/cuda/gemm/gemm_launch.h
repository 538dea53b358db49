/* Host-side helpers shared by the CUDA gemm files, and the impls each file
 * contributes to the rung table in src/cuda/gemm.cu. */
#ifndef WARPLAB_GEMM_LAUNCH_H
#define WARPLAB_GEMM_LAUNCH_H

#include "../../kernels/gemm_problem.h"
#include "../../kernels/gemm_tiles_tf32.h"
#include "../cuda_backend.h"
#include "gemm_device.cuh"

/* The problem and views of a launch as kernel parameters. The ladder keeps
 * every matrix under 2^31 elements, so int sizes and strides suffice. */
static inline gemm_params wl_gemm_params(const wl_launch *launch)
{
    const wl_problem *p = launch->problem;
    gemm_params g;
    g.a = (const float *)wl_view_ptr(launch->buf[GEMM_A]);
    g.b = (const float *)wl_view_ptr(launch->buf[GEMM_B]);
    g.c = (float *)wl_view_ptr(launch->buf[GEMM_C]);
    g.m = (int)wl_gemm_m(p);
    g.n = (int)wl_gemm_n(p);
    g.k = (int)wl_gemm_k(p);
    g.lda = (int)wl_gemm_lda(p);
    g.ldb = (int)wl_gemm_ldb(p);
    g.ldc = (int)wl_gemm_ldc(p);
    g.alpha = (float)p->alpha;
    g.beta = (float)p->beta;
    return g;
}

/* Rows start on 16-byte boundaries: the base is and the stride keeps it. */
static inline bool wl_gemm_rows_aligned(const float *base, int ld)
{
    return (uintptr_t)base % 16 == 0 && ld % 4 == 0;
}

/* The device runs sm_80 instructions (cp.async, mma.sync). */
static inline warplab_status wl_gemm_needs_sm80(wl_backend *backend, char *reason, size_t len,
                                                const char *what)
{
    if (backend->info.cc_major < 8) {
        wl_format(reason, len, "%s needs compute capability 8.0 or newer; %s is %d.%d", what,
                  backend->info.name, backend->info.cc_major, backend->info.cc_minor);
        return WARPLAB_ERROR_UNSUPPORTED;
    }
    return WARPLAB_OK;
}

/* The device runs the sm_90a build (wgmma, setmaxnreg: compute capability
 * 9.0 exactly) and gives a block smem_bytes of shared memory. */
static inline warplab_status wl_gemm_needs_sm90a(wl_backend *backend, size_t smem_bytes,
                                                 const char *what, char *reason, size_t len)
{
    const warplab_device_info *info = &backend->info;
    if (info->cc_major != 9 || info->cc_minor != 0) {
        wl_format(reason, len,
                  "%s is compiled for sm_90a (Hopper, compute capability 9.0) alone; %s is %d.%d",
                  what, info->name, info->cc_major, info->cc_minor);
        return WARPLAB_ERROR_UNSUPPORTED;
    }
    if (info->shared_memory_per_block_optin > 0 &&
        smem_bytes > info->shared_memory_per_block_optin) {
        wl_format(reason, len, "%s needs %zu bytes of shared memory a block; %s has %zu", what,
                  smem_bytes, info->name, info->shared_memory_per_block_optin);
        return WARPLAB_ERROR_UNSUPPORTED;
    }
    return WARPLAB_OK;
}

/* Lets `kernel` take `bytes` of dynamic shared memory (past the default
 * 48 KiB) on the current device, once a device: cudaFuncSetAttribute costs
 * host time that a small product's launch would otherwise pay every call.
 * `done` is the kernel's own mask of the devices (0..31) already set;
 * racing callers set it twice, harmlessly; devices past 31 set it every
 * call. */
static inline cudaError_t wl_cuda_allow_smem(const void *kernel, size_t bytes, unsigned *done)
{
    if (bytes <= 48 * 1024)
        return cudaSuccess;
    int device = 0;
    cudaError_t e = cudaGetDevice(&device);
    if (e != cudaSuccess)
        return e;
    const unsigned bit = device >= 0 && device < 32 ? 1u << device : 0u;
    if (bit && (__atomic_load_n(done, __ATOMIC_ACQUIRE) & bit))
        return cudaSuccess;
    e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
    if (e == cudaSuccess && bit)
        __atomic_fetch_or(done, bit, __ATOMIC_RELEASE);
    return e;
}

/* K-major copies of A (m x k) and of B transposed (n x k): the layout the
 * tensor cores read without transposing, in the precision they multiply
 * (BF16 or FP16 nearest even, or FP32 words rounded to TF32), rows padded to
 * multiples of 16 bytes and the padding zeroed; made once in setup
 * (untimed) for the rungs and cuBLAS alike. */
typedef enum wl_gemm_operand_type {
    WL_GEMM_OPERANDS_BF16,
    WL_GEMM_OPERANDS_TF32,
    WL_GEMM_OPERANDS_FP16
} wl_gemm_operand_type;

typedef struct wl_gemm_kmajor {
    void *a, *bt; /* __nv_bfloat16, __half or float, device memory */
    int lda, ldbt;
} wl_gemm_kmajor;

#ifdef __cplusplus
extern "C" {
#endif
/* The FP32 dispatcher's kernels (dispatch.cu) on a plan, the route's
 * (wl_gemm_route.fp32): the launch (the kernel, the reduction of a split,
 * B re-strided first where the plan's time pays for it) and its
 * workspace (the split's partial sums and that copy of B). */
warplab_status wl_gemm_fp32_run(wl_backend *backend, const wl_launch *launch,
                                const wl_gemm_plan *plan);
size_t wl_gemm_fp32_scratch(wl_backend *backend, const wl_problem *problem,
                            const wl_gemm_plan *plan);
warplab_status wl_gemm_kmajor_make(wl_backend *backend, const wl_launch *launch,
                                   wl_gemm_operand_type type, wl_gemm_kmajor *out);
void wl_gemm_kmajor_free(wl_gemm_kmajor *operands);

/* warplab_gemm_ex's tensor-core path (wgmma_tma.sm90a.cu): K-major A
 * (m x k) and B^T (n x k) in device memory, 16-byte aligned rows, in the
 * type the tensor cores read (TF32: FP32 words, truncated by the hardware). */
typedef struct wl_gemm_ex_operands {
    const void *a, *bt;
    int lda, ldbt; /* elements */
    void *c;
    int ldc;
    int m, n, k;
    float alpha, beta;
    warplab_dtype type; /* of a and bt: FLOAT32 (TF32), BFLOAT16 or FLOAT16 */
    bool c_narrow;      /* C has the 16-bit input type, else float */
} wl_gemm_ex_operands;
bool wl_gemm_ex_tma_available(wl_backend *backend);
warplab_status wl_gemm_ex_tma_run(wl_backend *backend, const wl_gemm_ex_operands *operands);

/* warplab_gemm_ex's TMA + wgmma kernel on the operands as stored, split k
 * (wgmma_ex.sm90a.cu). A is m x k (a_m_major: stored k x m), B is n x k
 * (b_n_major: stored k x n); 16-byte aligned base and rows; TF32 (FLOAT32)
 * takes K-major operands only. bn: 128 or 256 columns a tile of 128 rows (or
 * of bm rows), or 64 (16-bit only): 64 x 64 tiles, one consumer; k in splits
 * of k_chunk (a multiple of 64), partial sums to part (splits x m x n
 * floats) when splits > 1, to be added by wl_ex16_finish; else C. */
typedef struct wl_gemm_ex_wgmma_call {
    const void *a, *b;
    int lda, ldb; /* elements */
    bool a_m_major, b_n_major;
    void *c;
    int ldc;
    int m, n, k;
    float alpha, beta;
    warplab_dtype type; /* of a and b */
    bool c_narrow;
    int bn, splits, k_chunk; /* bn: 64, 128 or 256; 96 swapped (c_transposed) */
    /* The tile's rows: 0 for the width's (64 for the narrow tile, else 128),
     * or 192 (16-bit, bn 128, no stream-K shares: three consumers). */
    int bm;
    float *part;
    /* The product is C^T (the swapped product: m and n the caller's n and
     * m): written to C transposed, c[j * ldc + i], or with splits to part
     * as [split][n][m], the caller's C, for its finish. The 128 x 96 tile,
     * and only it, runs this. */
    bool c_transposed;
    /* Stream-K (one split, 128-row tiles; stream_k.cuh): the last wave's k
     * tiles in sk_workers shares over the SMs, the hand-over in sk_space
     * (wl_sk_flag_bytes(2 sk_workers), then sk_workers x 128 x bn floats).
     * NULL: whole tiles. */
    void *sk_space;
    int sk_workers;
    /* The kernel follows a copy kernel of the same call on the stream (an
     * operand re-strided, ex16_restride) that calls wl_pdl_release:
     * launched as its dependent (wl_pdl_launch), its blocks are placed
     * and set up while the copy runs and wait for it (wl_pdl_wait)
     * before their first load. Ignored with stream-K shares (a memset of
     * their flags comes between). */
    bool after_copy;
} wl_gemm_ex_wgmma_call;
bool wl_gemm_ex_wgmma_available(wl_backend *backend);
warplab_status wl_gemm_ex_wgmma_run(wl_backend *backend, const wl_gemm_ex_wgmma_call *call);
/* The same kernel over a batch (warplab_gemm_batched_ex): `count` matrices,
 * each operand's elements between consecutive ones (0: one matrix for the
 * whole batch, A and B only; A's and B's a multiple of 16 bytes); 16-bit
 * inputs, one split. The matrix is one more index of the kernel's units.
 * WARPLAB_ERROR_UNSUPPORTED, with nothing launched, where the driver
 * refuses a 3-D tensor map of A or B (the caller loops instead). */
typedef struct wl_gemm_ex_wgmma_batch {
    int count;
    long long stride_a, stride_b, stride_c;
} wl_gemm_ex_wgmma_batch;
warplab_status wl_gemm_ex_wgmma_run_batched(wl_backend *backend, const wl_gemm_ex_wgmma_call *call,
                                            const wl_gemm_ex_wgmma_batch *batch);

/* cuBLAS rows (cublas.cu). */
extern const wl_impl wl_gemm_cublas_fp32_impl;
extern const wl_impl wl_gemm_cublas_tf32_impl;
extern const wl_impl wl_gemm_cublas_bf16_impl;
extern const wl_impl wl_gemm_cublas_tf32_kmajor_impl;
extern const wl_impl wl_gemm_cublas_ex_tf32_impl;
extern const wl_impl wl_gemm_cublas_ex_bf16_impl;
extern const wl_impl wl_gemm_cublas_ex_fp16_impl;
/* warplab_gemm_ex (gemm_ex.cu). */
extern const wl_impl wl_gemm_ex_cuda_impl;
/* warplab_gemm_batched_ex's one-launch batches (gemm_batched.cu). */
extern const wl_impl wl_gemm_batched_cuda_impl;
/* Tensor-core rungs (mma.cu; wgmma_bf16.sm90a.cu; wgmma_tma.sm90a.cu). */
extern const wl_impl wl_gemm_tf32_mma_impl;
extern const wl_impl wl_gemm_bf16_mma_impl;
extern const wl_impl wl_gemm_fp16_mma_impl;
extern const wl_impl wl_gemm_bf16_wgmma_impl;
extern const wl_impl wl_gemm_bf16_wgmma_tma_impl;
extern const wl_impl wl_gemm_tf32_wgmma_tma_impl;
extern const wl_impl wl_gemm_bf16_wgmma_tma_store_impl;
extern const wl_impl wl_gemm_bf16_wgmma_cluster_impl;
extern const wl_impl wl_gemm_fp16_wgmma_tma_store_impl;
extern const wl_impl wl_gemm_fp16_wgmma_cluster_impl;
extern const wl_impl wl_gemm_tf32_wgmma_tma_store_impl;
extern const wl_impl wl_gemm_tf32_wgmma_cluster_impl;
extern const wl_impl wl_gemm_bf16_wgmma_streamk_impl;
extern const wl_impl wl_gemm_fp16_wgmma_streamk_impl;
extern const wl_impl wl_gemm_tf32_wgmma_streamk_impl;
/* The shape-aware FP32 rungs (dispatch.cu). */
extern const wl_impl wl_gemm_skinny_m_impl;
extern const wl_impl wl_gemm_skinny_n_impl;
extern const wl_impl wl_gemm_tile_32x128_impl;
extern const wl_impl wl_gemm_tile_64x64_impl;
extern const wl_impl wl_gemm_tile_32x64_impl;
extern const wl_impl wl_gemm_dispatch_impl;
extern const wl_impl wl_gemm_tail_128x128_impl;
extern const wl_impl wl_gemm_tail_256x128_impl;
extern const wl_impl wl_gemm_copy_ab_impl;

/* The TF32 small-tile kernel on row-major float A and B in either op, with
 * a deterministic split of k (tf32_tiles.cu): its launch of a plan
 * (wl_tf32_tiles_plan, src/kernels/gemm_tiles_tf32.h). */
typedef struct wl_tf32_tiles_call {
    const float *a, *b; /* as stored, row-major */
    float *c;
    int m, n, k, lda, ldb, ldc;
    float alpha, beta;
    bool trans_a, trans_b;
} wl_tf32_tiles_call;
warplab_status wl_tf32_tiles_run(wl_backend *backend, const wl_tf32_tiles_call *call,
                                 const wl_tf32_tiles_plan *plan, void *scratch,
                                 size_t scratch_bytes);
extern const wl_impl wl_gemm_tf32_tile_64x64_impl;
extern const wl_impl wl_gemm_tf32_tile_128x64_impl;
extern const wl_impl wl_gemm_tf32_tile_128x128_impl;
extern const wl_impl wl_gemm_tf32_tiles_impl;
#ifdef __cplusplus
}
#endif

#endif
