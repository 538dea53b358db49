/* The TF32 small-tile kernel (tf32_tiles.cuh) on the host: its launch
 * (workspace for the partial sums only through scratch_bytes) of the plan
 * (tile and split of k, from a model of waves of tiles on the SMs:
 * wl_tf32_tiles_choose, src/kernels/gemm_tiles_tf32.c), and its
 * rungs: tf32_tiles (the planned tile) and tf32_tile_64x64 / _128x64 /
 * _128x128 (one tile each, the best split). warplab_gemm_ex's TF32 path
 * (gemm_ex.cu) runs the same plan through wl_tf32_tiles_run. */
/* warplab:rung gemm tf32_tile_64x64 tf32_tile_128x64 tf32_tile_128x128 tf32_tiles */
#include "gemm_launch.h"
#include "gemv.h"
#include "tf32_tiles.cuh"

template <int BM, int BN, int WM, int WN, bool TA, bool TB>
static cudaError_t launch_tiles(const tf32_tiles_params &p, unsigned splits, cudaStream_t stream)
{
    typedef tf32_tiles_layout<BM, BN, WM, WN, TA, TB> L;
    const size_t smem = L::SMEM_BYTES;
    static unsigned smem_set = 0;
    const cudaError_t e = wl_cuda_allow_smem(
        reinterpret_cast<const void *>(gemm_tf32_tiles<BM, BN, WM, WN, TA, TB>), smem, &smem_set);
    if (e != cudaSuccess)
        return e;
    const dim3 grid((unsigned)((p.n + BN - 1) / BN), (unsigned)((p.m + BM - 1) / BM), splits);
    gemm_tf32_tiles<BM, BN, WM, WN, TA, TB>
        <<<grid, tf32_tiles_shape<BM, BN, WM, WN>::THREADS, smem, stream>>>(p);
    return cudaGetLastError();
}

template <int BM, int BN, int WM, int WN>
static cudaError_t launch_ops(const tf32_tiles_params &p, bool ta, bool tb, unsigned splits,
                              cudaStream_t stream)
{
    if (ta)
        return tb ? launch_tiles<BM, BN, WM, WN, true, true>(p, splits, stream)
                  : launch_tiles<BM, BN, WM, WN, true, false>(p, splits, stream);
    return tb ? launch_tiles<BM, BN, WM, WN, false, true>(p, splits, stream)
              : launch_tiles<BM, BN, WM, WN, false, false>(p, splits, stream);
}

extern "C" warplab_status wl_tf32_tiles_run(wl_backend *backend, const wl_tf32_tiles_call *call,
                                            const wl_tf32_tiles_plan *plan, void *scratch,
                                            size_t scratch_bytes)
{
    if (call->m == 0 || call->n == 0)
        return WARPLAB_OK;
    const size_t needed = wl_tf32_tiles_scratch(plan, (size_t)call->m, (size_t)call->n);
    if (scratch_bytes < needed)
        return wl_fail(backend, WARPLAB_ERROR_INVALID_ARGUMENT,
                       "gemm tf32 tiles: a workspace of %zu bytes, %zu needed", scratch_bytes,
                       needed);
    const wl_tf32_tile_kind *t = &wl_tf32_tile_kinds[plan->tile];
    const long long rows = (call->m + t->bm - 1) / t->bm;
    if (backend->info.max_grid_dim[1] > 0 && rows > backend->info.max_grid_dim[1])
        return wl_fail(backend, WARPLAB_ERROR_UNSUPPORTED,
                       "gemm tf32 tiles: %lld block rows is past this device's grid limit of %d",
                       rows, backend->info.max_grid_dim[1]);
    tf32_tiles_params p;
    p.a = call->a;
    p.b = call->b;
    p.c = call->c;
    p.part = (float *)scratch;
    p.m = call->m;
    p.n = call->n;
    p.k = call->k;
    p.lda = call->lda;
    p.ldb = call->ldb;
    p.ldc = call->ldc;
    p.k_chunk = plan->k_chunk;
    p.alpha = call->alpha;
    p.beta = call->beta;
    p.a_vec = wl_gemm_rows_aligned(call->a, call->lda);
    p.b_vec = wl_gemm_rows_aligned(call->b, call->ldb);
    const unsigned splits = (unsigned)(plan->splits > 1 ? plan->splits : 1);
    cudaStream_t stream = wl_cuda_stream(backend);
    cudaError_t e;
    switch (plan->tile) {
    case WL_TF32_TILE_64X64:
        e = launch_ops<64, 64, 32, 32>(p, call->trans_a, call->trans_b, splits, stream);
        break;
    case WL_TF32_TILE_128X64:
        e = launch_ops<128, 64, 32, 32>(p, call->trans_a, call->trans_b, splits, stream);
        break;
    default:
        e = launch_ops<128, 128, 64, 32>(p, call->trans_a, call->trans_b, splits, stream);
        break;
    }
    warplab_status status = wl_cuda_check(backend, e, "gemm tf32 tiles launch");
    if (status != WARPLAB_OK || splits == 1)
        return status;
    /* The one split-K reduction (gemv.cuh): the chunks' sums in order. */
    return wl_splitk_finish_launch(backend, p.part, (int)splits, p.m, p.n, p.c, p.ldc, 1,
                                   WL_GEMV_F32, p.alpha, p.beta);
}

/* ------------------------------------------------------------------------ */
/* Rungs: the ladder's float problem, TF32 products, either op.             */

static wl_tf32_tiles_plan rung_plan(const wl_backend *backend, const wl_problem *p, int tile)
{
    const size_t m = wl_gemm_m(p), n = wl_gemm_n(p), k = wl_gemm_k(p);
    const int sms = backend->info.multiprocessors;
    const double bw = backend->info.theoretical_bandwidth_gbs;
    const int aligned = p->misalign % 4 == 0 && wl_gemm_lda(p) % 4 == 0 && wl_gemm_ldb(p) % 4 == 0;
    return tile < 0 ? wl_tf32_tiles_choose(m, n, k, sms, bw, aligned)
                    : wl_tf32_tiles_plan_for(tile, m, n, k, sms, bw, aligned);
}

static wl_tf32_tiles_call call_of(const wl_launch *launch)
{
    const gemm_params g = wl_gemm_params(launch);
    wl_tf32_tiles_call call;
    call.a = g.a;
    call.b = g.b;
    call.c = g.c;
    call.m = g.m;
    call.n = g.n;
    call.k = g.k;
    call.lda = g.lda;
    call.ldb = g.ldb;
    call.ldc = g.ldc;
    call.alpha = g.alpha;
    call.beta = g.beta;
    call.trans_a = wl_gemm_trans_a(launch->problem);
    call.trans_b = wl_gemm_trans_b(launch->problem);
    return call;
}

static warplab_status tiles_supports(wl_backend *backend, const wl_problem *problem, char *reason,
                                     size_t len)
{
    (void)problem;
    return wl_gemm_needs_sm80(backend, reason, len, "mma.sync with TF32");
}

#define TF32_TILE_RUNG(name, tile)                                                                 \
    static size_t name##_scratch(wl_backend *backend, const wl_problem *problem)                   \
    {                                                                                              \
        const wl_tf32_tiles_plan plan = rung_plan(backend, problem, (tile));                       \
        return wl_tf32_tiles_scratch(&plan, wl_gemm_m(problem), wl_gemm_n(problem));               \
    }                                                                                              \
    static warplab_status name##_launch(wl_backend *backend, const wl_launch *launch, void *state) \
    {                                                                                              \
        (void)state;                                                                               \
        const wl_tf32_tiles_plan plan = rung_plan(backend, launch->problem, (tile));               \
        const wl_tf32_tiles_call call = call_of(launch);                                           \
        return wl_tf32_tiles_run(backend, &call, &plan, wl_view_ptr(launch->scratch),              \
                                 launch->scratch.bytes);                                           \
    }                                                                                              \
    static void name##_describe(wl_backend *backend, const wl_launch *launch, char *text,          \
                                size_t len)                                                        \
    {                                                                                              \
        const wl_tf32_tiles_plan plan = rung_plan(backend, launch->problem, (tile));               \
        wl_tf32_tiles_describe(&plan, text, len);                                                  \
    }                                                                                              \
    extern "C" const wl_impl wl_gemm_##name##_impl = {.ladder = "gemm",                            \
                                                      .rung = #name,                               \
                                                      .supports = tiles_supports,                  \
                                                      .scratch_bytes = name##_scratch,             \
                                                      .launch = name##_launch,                     \
                                                      .describe = name##_describe};

TF32_TILE_RUNG(tf32_tile_64x64, WL_TF32_TILE_64X64)
TF32_TILE_RUNG(tf32_tile_128x64, WL_TF32_TILE_128X64)
TF32_TILE_RUNG(tf32_tile_128x128, WL_TF32_TILE_128X128)
TF32_TILE_RUNG(tf32_tiles, -1)
/* warplab:end */
