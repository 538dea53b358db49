/* The small mma.sync kernel (small_mma.cuh) on the host: the route's tile
 * (the planner's, wl_small_mma_tile: src/kernels/gemm_small_mma.h), its
 * grid and its instantiation for the problem's kind and layout. */
/* warplab:rung gemm ex_tf32 ex_bf16 ex_fp16 */
#include "small_mma.cuh"
#include "small_mma.h"

#include <limits.h>

template <int KIND, int BM, int BN, bool TA, bool TB>
static void launch_layout(const small_mma_params &p, dim3 grid, cudaStream_t stream)
{
    small_mma<KIND, BM, BN, TA, TB>
        <<<grid, WL_SMALL_MMA_THREADS, small_mma_smem<KIND, BM, BN>(), stream>>>(p);
}

template <int KIND, int BM, int BN>
static void launch_tile(const small_mma_params &p, bool ta, bool tb, cudaStream_t stream)
{
    const dim3 grid((unsigned)((p.n + BN - 1) / BN), (unsigned)((p.m + BM - 1) / BM));
    if (ta)
        tb ? launch_layout<KIND, BM, BN, true, true>(p, grid, stream)
           : launch_layout<KIND, BM, BN, true, false>(p, grid, stream);
    else
        tb ? launch_layout<KIND, BM, BN, false, true>(p, grid, stream)
           : launch_layout<KIND, BM, BN, false, false>(p, grid, stream);
}

template <int KIND>
static void launch_kind(const small_mma_params &p, int tile, bool ta, bool tb, cudaStream_t stream)
{
    if (tile == WL_SMALL_MMA_TILE_64)
        launch_tile<KIND, 64, 64>(p, ta, tb, stream);
    else
        launch_tile<KIND, 32, 32>(p, ta, tb, stream);
}

extern "C" warplab_status wl_small_mma_run(wl_backend *backend, const wl_launch *launch,
                                           const wl_gemm_route *route)
{
    const wl_problem *p = launch->problem;
    const bool tf32 = p->dtype == WARPLAB_FLOAT32;
    if (tf32 && !(p->variant & WL_GEMM_COMPUTE_TF32))
        return wl_fail(backend, WARPLAB_ERROR_INVALID_ARGUMENT,
                       "gemm_ex: the small mma.sync kernel takes float inputs with TF32 compute "
                       "only");
    char reason[160];
    if (wl_gemm_needs_sm80(backend, reason, sizeof reason, "the small mma.sync kernel") !=
        WARPLAB_OK)
        return wl_fail(backend, WARPLAB_ERROR_UNSUPPORTED, "gemm_ex: %s", reason);
    const size_t m = wl_gemm_m(p), n = wl_gemm_n(p), k = wl_gemm_k(p);
    if (m == 0 || n == 0)
        return WARPLAB_OK;
    if (m > INT_MAX || n > INT_MAX || k > INT_MAX || k == 0)
        return wl_fail(backend, WARPLAB_ERROR_UNSUPPORTED,
                       "gemm_ex: the small mma.sync kernel takes 0 < k and m, n, k < 2^31 "
                       "(%zu x %zu x %zu)",
                       m, n, k);
    if (route->tile_m != route->tile_n || (route->tile_m != 32 && route->tile_m != 64))
        return wl_fail(backend, WARPLAB_ERROR_INVALID_ARGUMENT,
                       "gemm_ex: the small mma.sync kernel runs 32 x 32 or 64 x 64 tiles, not "
                       "%d x %d",
                       route->tile_m, route->tile_n);
    const int tile = route->tile_m == 64 ? WL_SMALL_MMA_TILE_64 : WL_SMALL_MMA_TILE_32;
    const size_t side = (size_t)route->tile_m;
    const size_t rows = (m + side - 1) / side, cols = (n + side - 1) / side;
    const int *most = backend->info.max_grid_dim;
    if ((most[0] > 0 && cols > (size_t)most[0]) || (most[1] > 0 && rows > (size_t)most[1]) ||
        cols > UINT_MAX || rows > UINT_MAX)
        return wl_fail(backend, WARPLAB_ERROR_UNSUPPORTED,
                       "gemm_ex: a grid of %zu x %zu blocks is past this device's", cols, rows);
    small_mma_params params;
    params.a = wl_view_ptr(launch->buf[GEMM_A]);
    params.b = wl_view_ptr(launch->buf[GEMM_B]);
    params.c = wl_view_ptr(launch->buf[GEMM_C]);
    params.m = (int)m;
    params.n = (int)n;
    params.k = (int)k;
    params.lda = (long long)wl_gemm_lda(p);
    params.ldb = (long long)wl_gemm_ldb(p);
    params.ldc = (long long)wl_gemm_ldc(p);
    params.alpha = (float)p->alpha;
    params.beta = (float)p->beta;
    params.narrow = !tf32 && (p->variant & WL_GEMM_C_INPUT_TYPE) != 0;
    const bool ta = wl_gemm_trans_a(p), tb = wl_gemm_trans_b(p);
    cudaStream_t stream = wl_cuda_stream(backend);
    if (tf32)
        launch_kind<MMA_TF32>(params, tile, ta, tb, stream);
    else if (p->dtype == WARPLAB_BFLOAT16)
        launch_kind<MMA_BF16>(params, tile, ta, tb, stream);
    else
        launch_kind<MMA_FP16>(params, tile, ta, tb, stream);
    return WL_CUDA_LAUNCHED(backend, "gemm_ex small mma.sync kernel");
}

extern "C" void wl_small_mma_describe(const wl_launch *launch, const wl_gemm_route *route,
                                      char *text, size_t len)
{
    wl_format(text, len, "small mma.sync %s, %dx%d tiles, operands read as stored, one launch",
              launch->problem->dtype == WARPLAB_FLOAT32 ? "tf32" : "16-bit", route->tile_m,
              route->tile_n);
}
/* warplab:end */
