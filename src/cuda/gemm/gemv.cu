/* The GEMV family's launches (gemv.cuh): the small side's template, the
 * layout's kernel, and the split-K reduction after it. */
/* warplab:rung gemm ex_tf32 ex_bf16 ex_fp16 */
#include "gemv.cuh"
#include "gemv.h"

template <int KIND, int S>
static void launch_gemv(bool along_k, dim3 grid, const wl_gemv_params &params, cudaStream_t stream)
{
    if (along_k)
        gemv_along_k<KIND, S, WL_GEMV_ALONG_K_COLS(S, KIND == WL_GEMV_F32 ? 4 : 2)>
            <<<grid, WL_GEMV_THREADS, 0, stream>>>(params);
    else
        gemv_along_big<KIND, S><<<grid, WL_GEMV_THREADS, 0, stream>>>(params);
}

template <int KIND>
static void launch_kind(int small, bool along_k, dim3 grid, const wl_gemv_params &params,
                        cudaStream_t stream)
{
    if (small <= 1)
        launch_gemv<KIND, 1>(along_k, grid, params, stream);
    else if (small <= 2)
        launch_gemv<KIND, 2>(along_k, grid, params, stream);
    else if (small <= 4)
        launch_gemv<KIND, 4>(along_k, grid, params, stream);
    else if (small <= 8)
        launch_gemv<KIND, 8>(along_k, grid, params, stream);
    else
        launch_gemv<KIND, 16>(along_k, grid, params, stream);
}

/* The tensor-core kernel (gemv_mma) for a small side: NT 8-column tiles. */
template <int KIND, int NT>
static void launch_mma_sized(dim3 grid, const wl_gemv_params &params, cudaStream_t stream)
{
    gemv_mma<KIND, NT, WL_GEMV_MMA_TILES(8 * NT), WL_GEMV_MMA_DEPTH(8 * NT),
             WL_GEMV_MMA_GROUPS(8 * NT)><<<grid, 32 * WL_GEMV_MMA_WARPS, 0, stream>>>(params);
}

template <int KIND>
static void launch_mma(int small, dim3 grid, const wl_gemv_params &params, cudaStream_t stream)
{
    /* The rows stop at WL_GEMV_MMA_SMALL_MAX = 16: two column tiles at most. */
    if (small <= 8)
        launch_mma_sized<KIND, 1>(grid, params, stream);
    else
        launch_mma_sized<KIND, 2>(grid, params, stream);
}

/* The tensor-core kernel with X along its rows (gemv_mma_rows) for an
 * element kind and a small side: NT 8-column tiles, the geometry of
 * gemm_plan.h (WL_GEMV_MMA_ROWS_* for TF32, WL_GEMV_MMA_ROWS16_* for BF16
 * and FP16). */
template <int KIND, int NT>
static void launch_mma_rows_sized(dim3 grid, const wl_gemv_params &params, cudaStream_t stream)
{
    if constexpr (KIND == WL_GEMV_F32)
        gemv_mma_rows<KIND, NT, WL_GEMV_MMA_ROWS_STRIPS(8 * NT), WL_GEMV_MMA_ROWS_DEPTH(8 * NT),
                      WL_GEMV_MMA_ROWS_GROUPS(8 * NT), WL_GEMV_MMA_ROWS_MIN_BLOCKS>
            <<<grid, 32 * WL_GEMV_MMA_WARPS, 0, stream>>>(params);
    else
        gemv_mma_rows<KIND, NT, WL_GEMV_MMA_ROWS16_STRIPS(8 * NT), WL_GEMV_MMA_ROWS16_DEPTH(8 * NT),
                      WL_GEMV_MMA_ROWS16_GROUPS(8 * NT), WL_GEMV_MMA_ROWS16_MIN_BLOCKS(8 * NT)>
            <<<grid, 32 * WL_GEMV_MMA_WARPS, 0, stream>>>(params);
}

template <int KIND>
static void launch_mma_rows(int small, dim3 grid, const wl_gemv_params &params, cudaStream_t stream)
{
    if (small <= 8)
        launch_mma_rows_sized<KIND, 1>(grid, params, stream);
    else if (small <= 16)
        launch_mma_rows_sized<KIND, 2>(grid, params, stream);
    else if (small <= 24)
        launch_mma_rows_sized<KIND, 3>(grid, params, stream);
    else
        launch_mma_rows_sized<KIND, 4>(grid, params, stream);
}

/* The register-tiled kernel (gemv_tiled_k) for S columns: its shared
 * memory past 48 KB opted in (idempotent), then the launch. */
template <int S>
static cudaError_t launch_tiled(dim3 grid, const wl_gemv_params &params, cudaStream_t stream)
{
    const int bytes = gemv_tiled_shape<S>::BYTES;
    const cudaError_t e = cudaFuncSetAttribute(gemv_tiled_k<WL_GEMV_F32, S>,
                                               cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
    if (e != cudaSuccess)
        return e;
    gemv_tiled_k<WL_GEMV_F32, S><<<grid, WL_GEMV_THREADS, bytes, stream>>>(params);
    return cudaSuccess;
}

/* The kernel with Y staged (gemv_staged_k) for a small side (2 to 8): S,
 * rows a warp and steps in flight of gemm_plan.h. */
template <int S>
static void launch_staged_sized(dim3 grid, const wl_gemv_params &params, cudaStream_t stream)
{
    gemv_staged_k<S, WL_GEMV_STAGED_R(S), WL_GEMV_STAGED_D(S)>
        <<<grid, WL_GEMV_THREADS, 0, stream>>>(params);
}

static void launch_staged(int small, dim3 grid, const wl_gemv_params &params, cudaStream_t stream)
{
    if (small <= 2)
        launch_staged_sized<2>(grid, params, stream);
    else if (small <= 4)
        launch_staged_sized<4>(grid, params, stream);
    else
        launch_staged_sized<8>(grid, params, stream);
}

static int kind_of(warplab_dtype type)
{
    return type == WARPLAB_BFLOAT16  ? WL_GEMV_BF16
           : type == WARPLAB_FLOAT16 ? WL_GEMV_F16
                                     : WL_GEMV_F32;
}

/* 16-byte loads along a row: the base and the pitch are 16-byte aligned. */
static bool vec_ok(const void *base, long long pitch, size_t element)
{
    return (uintptr_t)base % 16 == 0 && (size_t)pitch * element % 16 == 0;
}

extern "C" warplab_status wl_gemv_run(wl_backend *backend, const wl_launch *launch,
                                      const wl_gemm_route *plan)
{
    const wl_problem *p = launch->problem;
    const bool rows_kernel = plan->gemv_kernel == WL_GEMV_KERNEL_MMA_ROWS;
    if (plan->schedule != WL_GEMM_SCHEDULE_GEMV ||
        plan->small > (plan->gemv_kernel == WL_GEMV_KERNEL_MMA      ? WL_GEMV_MMA_SMALL_MAX
                       : plan->gemv_kernel == WL_GEMV_KERNEL_TILED  ? WL_GEMV_TILED_SMALL_MAX
                       : plan->gemv_kernel == WL_GEMV_KERNEL_STAGED ? WL_GEMV_STAGED_SMALL_MAX
                       : rows_kernel                                ? WL_GEMV_MMA_ROWS_SMALL_MAX
                                                                    : WL_GEMV_SMALL_MAX) ||
        (plan->gemv_kernel != WL_GEMV_KERNEL_FMA && plan->x_along_k == rows_kernel))
        return wl_fail(backend, WARPLAB_ERROR_INVALID_ARGUMENT, "gemv: not a GEMV plan");
    if (plan->splits > 1 && launch->scratch.bytes < plan->scratch)
        return wl_fail(backend, WARPLAB_ERROR_INVALID_ARGUMENT,
                       "gemv: a workspace of %zu bytes, %zu needed", launch->scratch.bytes,
                       plan->scratch);
    const int *most = backend->info.max_grid_dim;
    if ((most[0] > 0 && plan->blocks_big > most[0]) || (most[1] > 0 && plan->splits > most[1]))
        return wl_fail(backend, WARPLAB_ERROR_UNSUPPORTED,
                       "gemv: a grid of %d x %d blocks is past this device's %d x %d",
                       plan->blocks_big, plan->splits, most[0], most[1]);
    const size_t element = warplab_dtype_size(p->dtype);
    const long long lda = (long long)wl_gemm_lda(p), ldb = (long long)wl_gemm_ldb(p);
    const long long ldc = (long long)wl_gemm_ldc(p);
    const bool ta = wl_gemm_trans_a(p), tb = wl_gemm_trans_b(p);
    const void *a = wl_view_ptr(launch->buf[GEMM_A]), *b = wl_view_ptr(launch->buf[GEMM_B]);
    wl_gemv_params params;
    if (plan->small_m) {
        /* X = op(B): X[j][q] = B[q][j] (op N) or B[j][q] (op T); Y = op(A). */
        params.x = b;
        params.x_q = tb ? 1 : ldb;
        params.x_j = tb ? ldb : 1;
        params.y = a;
        params.y_i = ta ? 1 : lda;
        params.y_q = ta ? lda : 1;
    } else {
        /* X = op(A)^T: X[i][q] = A[i][q] (op N) or A[q][i] (op T); Y = op(B)^T. */
        params.x = a;
        params.x_q = ta ? lda : 1;
        params.x_j = ta ? 1 : lda;
        params.y = b;
        params.y_i = tb ? ldb : 1;
        params.y_q = tb ? 1 : ldb;
    }
    const bool along_k = plan->x_along_k; /* x_q = 1; else x_j = 1 */
    /* X's contiguous dimension: along k, rows x_j apart; along big, rows x_q apart. */
    /* A single row's pitch does not matter. */
    params.x_vec = vec_ok(params.x,
                          plan->big == 1 && along_k ? 0
                          : along_k                 ? params.x_j
                                                    : params.x_q,
                          element);
    params.y_vec = params.y_q == 1 && vec_ok(params.y, plan->small == 1 ? 0 : params.y_i, element);
    params.big = plan->big;
    params.small = plan->small;
    params.k = (int)wl_gemm_k(p);
    params.k_chunk = plan->k_chunk;
    params.splits = plan->splits;
    params.part = plan->splits > 1 ? (float *)wl_view_ptr(launch->scratch) : NULL;
    params.c = wl_view_ptr(launch->buf[GEMM_C]);
    /* C'[i][j] is C[i][j] (small m) or C[j][i] (small n). */
    params.c_i = plan->small_m ? ldc : 1;
    params.c_j = plan->small_m ? 1 : ldc;
    params.alpha = (float)p->alpha;
    params.beta = (float)p->beta;
    params.c_kind = (p->variant & WL_GEMM_C_INPUT_TYPE) ? kind_of(p->dtype) : WL_GEMV_F32;
    cudaStream_t stream = wl_cuda_stream(backend);
    const dim3 grid((unsigned)plan->blocks_big, (unsigned)plan->splits);
    if (plan->gemv_kernel == WL_GEMV_KERNEL_TILED) {
        /* FP32 only (the row's input type). */
        if (p->dtype != WARPLAB_FLOAT32)
            return wl_fail(backend, WARPLAB_ERROR_INVALID_ARGUMENT,
                           "gemv: the register-tiled kernel takes FP32 inputs");
        const int s = WL_GEMV_TILED_S(plan->small);
        const cudaError_t e = s == 16   ? launch_tiled<16>(grid, params, stream)
                              : s == 24 ? launch_tiled<24>(grid, params, stream)
                                        : launch_tiled<32>(grid, params, stream);
        if (e != cudaSuccess)
            return wl_cuda_check(backend, e, "gemv: the register-tiled kernel's shared memory");
    } else if (plan->gemv_kernel == WL_GEMV_KERNEL_STAGED) {
        /* FP32 only (the row's input type). */
        if (p->dtype != WARPLAB_FLOAT32)
            return wl_fail(backend, WARPLAB_ERROR_INVALID_ARGUMENT,
                           "gemv: the kernel with Y staged takes FP32 inputs");
        launch_staged(plan->small, grid, params, stream);
    } else if (rows_kernel) {
        /* FP32 inputs on TF32 compute (the rows' input and compute types). */
        if (p->dtype == WARPLAB_FLOAT32 && !(p->variant & WL_GEMM_COMPUTE_TF32))
            return wl_fail(backend, WARPLAB_ERROR_INVALID_ARGUMENT,
                           "gemv: the tensor-core kernel takes FP32 inputs on TF32 compute");
        switch (kind_of(p->dtype)) {
        case WL_GEMV_BF16: launch_mma_rows<WL_GEMV_BF16>(plan->small, grid, params, stream); break;
        case WL_GEMV_F16: launch_mma_rows<WL_GEMV_F16>(plan->small, grid, params, stream); break;
        default: launch_mma_rows<WL_GEMV_F32>(plan->small, grid, params, stream); break;
        }
    } else if (plan->gemv_kernel == WL_GEMV_KERNEL_MMA) {
        /* Y read along k by the tensor-core kernel (its row takes op N, T only). */
        if (params.y_q != 1)
            return wl_fail(backend, WARPLAB_ERROR_INVALID_ARGUMENT,
                           "gemv: the tensor-core kernel reads Y along k");
        switch (kind_of(p->dtype)) {
        case WL_GEMV_BF16: launch_mma<WL_GEMV_BF16>(plan->small, grid, params, stream); break;
        case WL_GEMV_F16: launch_mma<WL_GEMV_F16>(plan->small, grid, params, stream); break;
        default: launch_mma<WL_GEMV_F32>(plan->small, grid, params, stream); break;
        }
    } else
        switch (kind_of(p->dtype)) {
        case WL_GEMV_BF16:
            launch_kind<WL_GEMV_BF16>(plan->small, along_k, grid, params, stream);
            break;
        case WL_GEMV_F16:
            launch_kind<WL_GEMV_F16>(plan->small, along_k, grid, params, stream);
            break;
        default: launch_kind<WL_GEMV_F32>(plan->small, along_k, grid, params, stream); break;
        }
    warplab_status status = WL_CUDA_LAUNCHED(backend, "gemv kernel");
    if (status != WARPLAB_OK || plan->splits == 1)
        return status;
    return wl_splitk_finish_launch(backend, params.part, plan->splits, plan->small, plan->big,
                                   params.c, params.c_i, params.c_j, params.c_kind, params.alpha,
                                   params.beta);
}

extern "C" warplab_status wl_splitk_finish_launch(wl_backend *backend, const float *part,
                                                  int splits, int rows, int cols, void *c,
                                                  long long c_i, long long c_j, int c_kind,
                                                  float alpha, float beta)
{
    const unsigned block = 256;
    const size_t count = (size_t)rows * (size_t)cols;
    /* Eight elements a thread where there are many and few splits
     * (wl_splitk_finish). */
    const bool wide = splits < 8 && count >= ((size_t)1 << 18);
    const size_t per_thread = wide ? 8 : 1;
    return wl_cuda_check(
        backend,
        wl_pdl_launch(wide ? wl_splitk_finish<8> : wl_splitk_finish<1>,
                      dim3(wl_cuda_grid_for(backend, (count + per_thread - 1) / per_thread, block)),
                      dim3(block), 0, wl_cuda_stream(backend), part, splits, rows, cols, c, c_i,
                      c_j, c_kind, alpha, beta),
        "gemm split-K sums");
}
/* warplab:end */
