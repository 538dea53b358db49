/* The shape-aware FP32 rungs: GEMV / skinny kernels, small tiles, split-K,
 * and the dispatcher that picks among them (and frag_256x128_s6) by m, n, k,
 * the views' alignment and the SM count. The rule is wl_gemm_choose
 * (src/kernels/gemm_dispatch.c), which the planner runs and carries in its
 * route (gemm_plan.h, wl_gemm_fp32_plan); here each plan is launched.
 *
 * No launch allocates or synchronizes: split-K partial sums go to the
 * rung's workspace (wl_impl.scratch_bytes, the same plan computed again),
 * which every split writes in full before the reduction reads it. */
#include "dispatch_tiles.cuh"
#include "gemm_launch.h"
#include "gemv.h"
#include "skinny_kernels.cuh"

#include <string.h>

static wl_gemm_device gemm_device_of(const wl_backend *backend)
{
    wl_gemm_device device;
    device.sms = backend->info.multiprocessors;
    device.fp32_gflops = backend->info.fp32_peak_gflops;
    device.bandwidth_gbs = backend->info.theoretical_bandwidth_gbs;
    return device;
}

/* The plan a rung runs on a problem: the dispatcher's (kernel -1), or its
 * own kernel with the best split (tail: with the last wave's tiles split,
 * see wl_gemm_plan_tail_split). Alignment from the views when there are
 * views, else from the problem (the harness misaligns by whole elements).
 * The dispatcher's plan is the planner's: the route of its row
 * (fp32_dispatch on N, N; fp32_tiles, the tile kernels, on a transposed
 * layout) carries it, made and cached once a descriptor
 * (wl_gemm_fp32_plan, gemm_plan.h); where that row does not take the
 * problem (a batch, k = 0 transposed), the same function plans it
 * uncached. */
static wl_gemm_plan plan_of(const wl_backend *backend, const wl_problem *problem,
                            const gemm_params *g, int kernel, bool tail = false)
{
    if (kernel < 0) {
        const wl_gemm_desc desc = g ? wl_gemm_desc_of(problem, g->a, g->b, g->c)
                                    : wl_gemm_desc_of(problem, NULL, NULL, NULL);
        const wl_gemm_target target = wl_gemm_target_for(backend);
        const bool trans = (problem->variant & (WL_GEMM_TRANS_A | WL_GEMM_TRANS_B)) != 0;
        const wl_gemm_route route =
            wl_gemm_plan_cached(&desc, &target, trans ? "fp32_tiles" : "fp32_dispatch");
        return route.candidate >= 0 ? route.fp32 : wl_gemm_fp32_plan(&desc, &target);
    }
    const wl_gemm_device device = gemm_device_of(backend);
    const size_t m = wl_gemm_m(problem), n = wl_gemm_n(problem), k = wl_gemm_k(problem);
    int a_aligned, b_aligned;
    if (g) {
        a_aligned = wl_gemm_rows_aligned(g->a, g->lda);
        b_aligned = wl_gemm_rows_aligned(g->b, g->ldb);
    } else {
        a_aligned = problem->misalign % 4 == 0 && wl_gemm_lda(problem) % 4 == 0;
        b_aligned = problem->misalign % 4 == 0 && wl_gemm_ldb(problem) % 4 == 0;
    }
    if (tail)
        return wl_gemm_plan_tail_split((wl_gemm_kernel)kernel, m, n, k, a_aligned, b_aligned,
                                       &device);
    return wl_gemm_plan_for((wl_gemm_kernel)kernel, m, n, k, a_aligned, b_aligned, &device);
}

/* warplab:rung gemm skinny_m skinny_n tile_32x128 tile_64x64 tile_32x64 dispatch tail_128x128
 * tail_256x128 */
/* ------------------------------------------------------------------------ */
/* Launches                                                                 */

template <int MR, bool VEC>
static cudaError_t launch_skinny_m_as(const gemm_params &g, const wl_gemm_plan &plan,
                                      float *partial, cudaStream_t stream)
{
    constexpr int threads = skinny_m_threads(MR);
    const dim3 grid((unsigned)((g.n + SKINNY_M_COLS - 1) / SKINNY_M_COLS), (unsigned)plan.splits,
                    (unsigned)((g.m + MR - 1) / MR));
    const size_t smem = (size_t)(threads / 32) * MR * SKINNY_M_COLS * sizeof(float);
    gemm_skinny_m<MR, VEC><<<grid, threads, smem, stream>>>(g, partial, plan.k_chunk);
    return cudaGetLastError();
}

template <int MR>
static cudaError_t launch_skinny_m_rows(const gemm_params &g, const wl_gemm_plan &plan,
                                        float *partial, cudaStream_t stream)
{
    return wl_gemm_rows_aligned(g.b, g.ldb)
               ? launch_skinny_m_as<MR, true>(g, plan, partial, stream)
               : launch_skinny_m_as<MR, false>(g, plan, partial, stream);
}

static cudaError_t launch_skinny_m(const gemm_params &g, const wl_gemm_plan &plan, float *partial,
                                   cudaStream_t stream)
{
    switch (plan.group) {
    case 1: return launch_skinny_m_rows<1>(g, plan, partial, stream);
    case 2: return launch_skinny_m_rows<2>(g, plan, partial, stream);
    case 4: return launch_skinny_m_rows<4>(g, plan, partial, stream);
    case 8: return launch_skinny_m_rows<8>(g, plan, partial, stream);
    default: return launch_skinny_m_rows<16>(g, plan, partial, stream);
    }
}

template <int NR, bool VEC>
static cudaError_t launch_skinny_n_as(const gemm_params &g, const wl_gemm_plan &plan,
                                      float *partial, cudaStream_t stream)
{
    constexpr int rows = SKINNY_N_WARPS * skinny_n_rows_per_warp(NR);
    const dim3 grid((unsigned)((g.m + rows - 1) / rows), (unsigned)plan.splits,
                    (unsigned)((g.n + NR - 1) / NR));
    const size_t smem = (size_t)NR * SKINNY_N_KC * sizeof(float);
    gemm_skinny_n<NR, VEC><<<grid, SKINNY_N_THREADS, smem, stream>>>(g, partial, plan.k_chunk);
    return cudaGetLastError();
}

template <int NR>
static cudaError_t launch_skinny_n_cols(const gemm_params &g, const wl_gemm_plan &plan,
                                        float *partial, cudaStream_t stream)
{
    return wl_gemm_rows_aligned(g.a, g.lda)
               ? launch_skinny_n_as<NR, true>(g, plan, partial, stream)
               : launch_skinny_n_as<NR, false>(g, plan, partial, stream);
}

static cudaError_t launch_skinny_n(const gemm_params &g, const wl_gemm_plan &plan, float *partial,
                                   cudaStream_t stream)
{
    switch (plan.group) {
    case 1: return launch_skinny_n_cols<1>(g, plan, partial, stream);
    case 2: return launch_skinny_n_cols<2>(g, plan, partial, stream);
    case 4: return launch_skinny_n_cols<4>(g, plan, partial, stream);
    case 8: return launch_skinny_n_cols<8>(g, plan, partial, stream);
    default: return launch_skinny_n_cols<16>(g, plan, partial, stream);
    }
}

/* B with rows that are not 16-byte aligned costs the tile kernels their
 * 16-byte copies (4-byte cp.async a float: 3001x2999x1001 ran 14% slower
 * than 3000x3000x1000 on the H100). Where the plan is long enough, B is
 * first copied into the workspace with rows of whole 16-byte units (one
 * read and one write of B, at about 70% of the bandwidth) and the aligned
 * kernel runs on the copy. Decided from the problem (deterministic; the
 * workspace is sized for it), used when the views are unaligned too. */
#define RESTRIDE_GAIN 0.12
static bool restride_b(const wl_backend *backend, const wl_gemm_plan &plan, size_t n, size_t k,
                       bool b_aligned)
{
    if (b_aligned || plan.kernel == WL_GEMM_KERNEL_SKINNY_M ||
        plan.kernel == WL_GEMM_KERNEL_SKINNY_N || n == 0 || k == 0)
        return false;
    const double bandwidth = backend->info.theoretical_bandwidth_gbs > 0
                                 ? backend->info.theoretical_bandwidth_gbs
                                 : 3350.0;
    const double copy_us = 2.5 + 8.0 * (double)n * (double)k / (0.7 * bandwidth * 1e3);
    return copy_us < RESTRIDE_GAIN * plan.predicted_us;
}

static size_t restride_ld(size_t n)
{
    return (n + 3) / 4 * 4;
}

/* Bytes of the split's partial sums, rounded to 256 (the B copy follows). */
static size_t partial_bytes(const wl_gemm_plan &plan, size_t m, size_t n)
{
    return (wl_gemm_plan_scratch_bytes(&plan, m, n) + 255) / 256 * 256;
}

static size_t plan_scratch(const wl_backend *backend, const wl_problem *problem,
                           const wl_gemm_plan &plan)
{
    const size_t m = wl_gemm_m(problem), n = wl_gemm_n(problem), k = wl_gemm_k(problem);
    /* Only a B of op N is re-strided (op T: copied transposed, 4 bytes at a time, anyway). */
    const bool b_aligned = (problem->misalign % 4 == 0 && wl_gemm_ldb(problem) % 4 == 0) ||
                           wl_gemm_trans_b(problem) || wl_gemm_trans_a(problem);
    size_t bytes = partial_bytes(plan, m, n);
    if (restride_b(backend, plan, n, k, b_aligned))
        bytes += k * restride_ld(n) * sizeof(float);
    return bytes;
}

/* dst (rows x cols, dst_ld apart) = src (ld apart): rows along y. */
__global__ void gemm_restride_rows(const float *src, int ld, float *dst, int dst_ld, int rows,
                                   int cols)
{
    for (int r = blockIdx.y; r < rows; r += gridDim.y)
        for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < cols; c += gridDim.x * blockDim.x)
            dst[(size_t)r * dst_ld + c] = src[(size_t)r * ld + c];
}

/* Runs a plan: the kernel, then (split) the reduction in fixed order. */
const wl_gemm_tile_launcher wl_gemm_launch_tiles[2][2] = {
    {wl_gemm_launch_tiles_nn, wl_gemm_launch_tiles_nt},
    {wl_gemm_launch_tiles_tn, wl_gemm_launch_tiles_tt}};

static warplab_status run_plan(wl_backend *backend, const wl_launch *launch,
                               const wl_gemm_plan &plan)
{
    const gemm_params g = wl_gemm_params(launch);
    if (g.m == 0 || g.n == 0)
        return WARPLAB_OK;
    /* op T operands (warplab_gemm_ex's fp32_tiles row) are read in place by
     * the tile kernels; the skinny kernels read N, N only. */
    const bool trans_a = wl_gemm_trans_a(launch->problem),
               trans_b = wl_gemm_trans_b(launch->problem);
    if ((trans_a || trans_b) &&
        (plan.kernel == WL_GEMM_KERNEL_SKINNY_M || plan.kernel == WL_GEMM_KERNEL_SKINNY_N))
        return wl_fail(backend, WARPLAB_ERROR_UNSUPPORTED, "gemm %s: reads op N, N operands only",
                       wl_gemm_kernel_name(plan.kernel));
    float *partial = NULL;
    if (plan.splits > 1) {
        const size_t need = wl_gemm_plan_scratch_bytes(&plan, (size_t)g.m, (size_t)g.n);
        if (launch->scratch.bytes < need || !launch->scratch.handle)
            return wl_fail(backend, WARPLAB_ERROR_BACKEND,
                           "gemm %s: the workspace holds %zu bytes, the split needs %zu",
                           wl_gemm_kernel_name(plan.kernel), launch->scratch.bytes, need);
        partial = (float *)wl_view_ptr(launch->scratch);
    }
    /* The skinny kernels walk row (column) groups in gridDim.z. */
    const int groups = plan.kernel == WL_GEMM_KERNEL_SKINNY_M ? (g.m + plan.group - 1) / plan.group
                       : plan.kernel == WL_GEMM_KERNEL_SKINNY_N
                           ? (g.n + plan.group - 1) / plan.group
                           : 1;
    if (backend->info.max_grid_dim[2] > 0 && groups > backend->info.max_grid_dim[2])
        return wl_fail(backend, WARPLAB_ERROR_UNSUPPORTED,
                       "gemm %s: %d groups of %d is past this device's grid limit of %d",
                       wl_gemm_kernel_name(plan.kernel), groups, plan.group,
                       backend->info.max_grid_dim[2]);
    cudaStream_t stream = wl_cuda_stream(backend);
    cudaError_t e = cudaSuccess;
    gemm_params g_run = g;
    const size_t b_copy_at = partial_bytes(plan, (size_t)g.m, (size_t)g.n);
    const size_t b_copy_bytes = (size_t)g.k * restride_ld((size_t)g.n) * sizeof(float);
    if (!trans_a && !trans_b &&
        restride_b(backend, plan, (size_t)g.n, (size_t)g.k, wl_gemm_rows_aligned(g.b, g.ldb)) &&
        launch->scratch.handle && launch->scratch.bytes >= b_copy_at + b_copy_bytes) {
        float *b_copy = (float *)((char *)wl_view_ptr(launch->scratch) + b_copy_at);
        const unsigned threads = 256;
        const unsigned columns = (unsigned)((g.n + threads - 1) / threads);
        const unsigned rows = g.k < 65535 ? (unsigned)g.k : 65535u;
        gemm_restride_rows<<<dim3(columns, rows), threads, 0, stream>>>(
            g.b, g.ldb, b_copy, (int)restride_ld((size_t)g.n), g.k, g.n);
        g_run.b = b_copy;
        g_run.ldb = (int)restride_ld((size_t)g.n);
        e = cudaGetLastError();
    }
    if (e == cudaSuccess)
        switch (plan.kernel) {
        case WL_GEMM_KERNEL_SKINNY_M: e = launch_skinny_m(g_run, plan, partial, stream); break;
        case WL_GEMM_KERNEL_SKINNY_N: e = launch_skinny_n(g_run, plan, partial, stream); break;
        default:
            /* The tile kernels, one translation unit per layout
             * (dispatch_tiles_<layout>.cu), so that they build in parallel. */
            e = wl_gemm_launch_tiles[trans_a][trans_b](plan.kernel, g_run, plan, partial, stream);
            break;
        }
    char what[96];
    wl_format(what, sizeof what, "gemm %s launch", wl_gemm_kernel_name(plan.kernel));
    const warplab_status status = wl_cuda_check(backend, e, what);
    if (status != WARPLAB_OK || plan.splits == 1 || plan.tail_tiles > 0)
        return status;
    /* The splits' partial sums (partial[s][m][n], tight) added in order by
     * the one split-K reduction (gemv.cuh), alpha and beta applied. */
    return wl_splitk_finish_launch(backend, partial, plan.splits, g.m, g.n, g.c, g.ldc, 1,
                                   WL_GEMV_F32, g.alpha, g.beta);
}

extern "C" warplab_status wl_gemm_fp32_run(wl_backend *backend, const wl_launch *launch,
                                           const wl_gemm_plan *plan)
{
    return run_plan(backend, launch, *plan);
}

extern "C" size_t wl_gemm_fp32_scratch(wl_backend *backend, const wl_problem *problem,
                                       const wl_gemm_plan *plan)
{
    return plan_scratch(backend, problem, *plan);
}

/* warplab:end */
/* ------------------------------------------------------------------------ */
/* The rungs                                                                */

/* Every rung here needs cp.async (the tile kernels) or runs anywhere (the
 * skinny kernels); the dispatcher may pick a tile kernel on any problem. */
static warplab_status needs_sm80(wl_backend *backend, const wl_problem *problem, char *reason,
                                 size_t len)
{
    warplab_status status = wl_gemm_needs_sm80(backend, reason, len, "cp.async");
    if (status != WARPLAB_OK)
        return status;
    const size_t most = backend->info.shared_memory_per_block_optin;
    const size_t need = frag_256x128_s6_shape::smem_bytes(problem && wl_gemm_trans_b(problem));
    if (most > 0 && need > most) {
        wl_format(reason, len,
                  "the large tiles need %zu bytes of shared memory a block; %s has %zu", need,
                  backend->info.name, most);
        return WARPLAB_ERROR_UNSUPPORTED;
    }
    return WARPLAB_OK;
}

/* warplab:rung gemm skinny_m skinny_n tile_32x128 tile_64x64 tile_32x64 dispatch tail_128x128
 * tail_256x128 */
#define KERNEL_RUNG(name, kernel) PLAN_RUNG(name, kernel, false)
/* tail: the kernel with the last wave's tiles split (wl_gemm_plan_tail_split). */
#define PLAN_RUNG(name, kernel, tail)                                                              \
    static size_t name##_scratch(wl_backend *backend, const wl_problem *problem)                   \
    {                                                                                              \
        return plan_scratch(backend, problem, plan_of(backend, problem, NULL, (kernel), (tail)));  \
    }                                                                                              \
    static warplab_status name##_launch(wl_backend *backend, const wl_launch *launch, void *state) \
    {                                                                                              \
        (void)state;                                                                               \
        const gemm_params g = wl_gemm_params(launch);                                              \
        return run_plan(backend, launch, plan_of(backend, launch->problem, &g, (kernel), (tail))); \
    }                                                                                              \
    static void name##_describe(wl_backend *backend, const wl_launch *launch, char *text,          \
                                size_t len)                                                        \
    {                                                                                              \
        const gemm_params g = wl_gemm_params(launch);                                              \
        const wl_gemm_plan plan = plan_of(backend, launch->problem, &g, (kernel), (tail));         \
        wl_gemm_plan_describe(&plan, text, len);                                                   \
    }                                                                                              \
    extern "C" const wl_impl wl_gemm_##name##_impl = {.ladder = "gemm",                            \
                                                      .rung = #name,                               \
                                                      .supports = needs_sm80,                      \
                                                      .scratch_bytes = name##_scratch,             \
                                                      .launch = name##_launch,                     \
                                                      .describe = name##_describe};

/* warplab:end */
/* warplab:rung gemm skinny_m */
KERNEL_RUNG(skinny_m, WL_GEMM_KERNEL_SKINNY_M)
/* warplab:end */
/* warplab:rung gemm skinny_n */
KERNEL_RUNG(skinny_n, WL_GEMM_KERNEL_SKINNY_N)
/* warplab:end */
/* warplab:rung gemm tile_32x128 */
KERNEL_RUNG(tile_32x128, WL_GEMM_KERNEL_TILE_32X128)
/* warplab:end */
/* warplab:rung gemm tile_64x64 */
KERNEL_RUNG(tile_64x64, WL_GEMM_KERNEL_TILE_64X64)
/* warplab:end */
/* warplab:rung gemm tile_32x64 */
KERNEL_RUNG(tile_32x64, WL_GEMM_KERNEL_TILE_32X64)
/* warplab:end */
/* warplab:rung gemm dispatch */
/* The dispatcher: kernel -1 asks wl_gemm_choose. */
KERNEL_RUNG(dispatch, -1)
/* warplab:end */
/* warplab:rung gemm tail_128x128 */
PLAN_RUNG(tail_128x128, WL_GEMM_KERNEL_TILE_128X128, true)
/* warplab:end */
/* warplab:rung gemm tail_256x128 */
PLAN_RUNG(tail_256x128, WL_GEMM_KERNEL_TILE_256X128, true)
/* warplab:end */

/* warplab:rung gemm copy_ab */
/* ------------------------------------------------------------------------ */
/* The copy reference: A and B copied device to device into the workspace,
 * C's view set to 0. Its GB/s is what a bandwidth-bound product can reach. */

static size_t copy_ab_scratch(wl_backend *backend, const wl_problem *problem)
{
    (void)backend;
    const size_t m = wl_gemm_m(problem), n = wl_gemm_n(problem), k = wl_gemm_k(problem);
    return (wl_gemm_span(m, k, wl_gemm_lda(problem)) + wl_gemm_span(k, n, wl_gemm_ldb(problem))) *
           sizeof(float);
}

static warplab_status copy_ab_launch(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    cudaStream_t stream = wl_cuda_stream(backend);
    char *to = (char *)wl_view_ptr(launch->scratch);
    const wl_view a = launch->buf[GEMM_A], b = launch->buf[GEMM_B], c = launch->buf[GEMM_C];
    cudaError_t e = cudaSuccess;
    if (a.bytes)
        e = cudaMemcpyAsync(to, wl_view_ptr(a), a.bytes, cudaMemcpyDeviceToDevice, stream);
    if (e == cudaSuccess && b.bytes)
        e = cudaMemcpyAsync(to + a.bytes, wl_view_ptr(b), b.bytes, cudaMemcpyDeviceToDevice,
                            stream);
    const wl_problem *p = launch->problem;
    if (e == cudaSuccess && wl_gemm_m(p) > 0 && wl_gemm_n(p) > 0)
        e = cudaMemset2DAsync(wl_view_ptr(c), wl_gemm_ldc(p) * sizeof(float), 0,
                              wl_gemm_n(p) * sizeof(float), wl_gemm_m(p), stream);
    return wl_cuda_check(backend, e, "gemm copy_ab");
}

extern "C" const wl_impl wl_gemm_copy_ab_impl = {.ladder = "gemm",
                                                 .rung = "copy_ab",
                                                 .scratch_bytes = copy_ab_scratch,
                                                 .launch = copy_ab_launch};
/* warplab:end */
