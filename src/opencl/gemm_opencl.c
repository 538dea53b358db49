/* The opencl backend's matrix-multiply rungs: the CUDA ladder's kernels in
 * OpenCL C (src/opencl/kernels/gemm.cl), with the same tiles and index
 * mappings. OpenCL has no cp.async, warp shuffles or tensor cores: the
 * pipelined rungs stage the next tile in registers instead, and the
 * tensor-core and cuBLAS rows are cuda only. */
/*
 * Contents: the gemm rungs this file implements, in ladder order (number =
 * place on the ladder, as `warplab ladders gemm` lists it):
 *   3. one_block -- one block, one thread per element
 *   4. many_blocks -- grid of 16x16 blocks, global memory
 *   5. tiled16 -- shared-memory tiles, TILE_WIDTH 16
 *   6. tiled32 -- shared-memory tiles, TILE_WIDTH 32
 *   7. tiled_bounds -- tiles with boundary checks, any size
 *   8. regblock_1d -- 1-D register blocking (8 outputs/thread)
 *   9. regblock_2d -- 2-D register blocking (8x8 outputs/thread)
 *  10. vectorized -- float4 loads, transposed A tile
 *  11. conflict_free -- bank-conflict-free shared layouts
 *  12. double_buffered -- double-buffered tiles (cp.async)
 *  13. warptile -- warp tiling
 *  14. tuned -- tuned for sm_90: 128x256x16, 4 stages
 *  15. tuned_128x128 -- sm_90 alternative: 128x128x16, 4 stages
 *  16. tuned_256x128 -- sm_90 alternative: 256x128x16, 4 stages
 *  38. ex_tf32 -- warplab_gemm_ex, TF32 compute
 *  39. ex_bf16 -- warplab_gemm_ex, BF16 inputs
 *  40. ex_fp16 -- warplab_gemm_ex, FP16 inputs
 */
#include "kernels/gemm_problem.h"
#include "opencl_backend.h"

/* Arguments shared by every gemm kernel (see GEMM_ARGS in gemm.cl). */
typedef struct gemm_args {
    cl_mem mem[3];
    cl_ulong off[3];
    cl_int ld[3];
    cl_int m, n, k;
    cl_float alpha, beta;
    wl_cl_arg list[14];
} gemm_args;

static void make_args(const wl_launch *launch, gemm_args *g)
{
    const wl_problem *p = launch->problem;
    const size_t ld[3] = {wl_gemm_lda(p), wl_gemm_ldb(p), wl_gemm_ldc(p)};
    for (int i = 0; i < 3; i++) {
        g->mem[i] = wl_cl_mem(launch->buf[i]);
        g->off[i] = wl_cl_offset(launch->buf[i], sizeof(float));
        g->ld[i] = (cl_int)ld[i];
        g->list[3 * i] = WL_CL_VALUE(g->mem[i]);
        g->list[3 * i + 1] = WL_CL_VALUE(g->off[i]);
        g->list[3 * i + 2] = WL_CL_VALUE(g->ld[i]);
    }
    g->m = (cl_int)wl_gemm_m(p);
    g->n = (cl_int)wl_gemm_n(p);
    g->k = (cl_int)wl_gemm_k(p);
    g->alpha = (cl_float)p->alpha;
    g->beta = (cl_float)p->beta;
    g->list[9] = WL_CL_VALUE(g->m);
    g->list[10] = WL_CL_VALUE(g->n);
    g->list[11] = WL_CL_VALUE(g->k);
    g->list[12] = WL_CL_VALUE(g->alpha);
    g->list[13] = WL_CL_VALUE(g->beta);
}

/* A kernel's launch shape: work-groups of `threads` work-items (tx x ty) in
 * 2-D, each computing a tile_m x tile_n tile of C, with `local_bytes` of
 * local memory. The grid is one work-group per tile. */
typedef struct kernel_shape {
    const char *name;
    size_t tx, ty;
    size_t tile_m, tile_n;
    size_t local_bytes;
} kernel_shape;

static warplab_status shape_fits(wl_backend *backend, const kernel_shape *shape, char *reason,
                                 size_t len)
{
    const warplab_device_info *info = &backend->info;
    size_t threads = shape->tx * shape->ty;
    if (info->max_threads_per_block > 0 && threads > (size_t)info->max_threads_per_block) {
        wl_format(reason, len, "%s needs work-groups of %zu work-items; %s allows %d", shape->name,
                  threads, info->name, info->max_threads_per_block);
        return WARPLAB_ERROR_UNSUPPORTED;
    }
    if (info->shared_memory_per_block > 0 && shape->local_bytes > info->shared_memory_per_block) {
        wl_format(reason, len, "%s needs %zu bytes of local memory; %s has %zu", shape->name,
                  shape->local_bytes, info->name, info->shared_memory_per_block);
        return WARPLAB_ERROR_UNSUPPORTED;
    }
    return WARPLAB_OK;
}

static warplab_status run_shape(wl_backend *backend, const wl_launch *launch,
                                const kernel_shape *shape)
{
    gemm_args g;
    make_args(launch, &g);
    if (g.m == 0 || g.n == 0)
        return WARPLAB_OK;
    char reason[256];
    if (shape_fits(backend, shape, reason, sizeof reason) != WARPLAB_OK)
        return wl_fail(backend, WARPLAB_ERROR_UNSUPPORTED, "%s", reason);
    const size_t tiles_n = ((size_t)g.n + shape->tile_n - 1) / shape->tile_n;
    const size_t tiles_m = ((size_t)g.m + shape->tile_m - 1) / shape->tile_m;
    size_t global[2] = {tiles_n * shape->tx, tiles_m * shape->ty};
    size_t local[2] = {shape->tx, shape->ty};
    return wl_opencl_launch(backend, "gemm", shape->name, 2, global, local, 14, g.list);
}

/* The rungs' shapes, as gemm.cl declares them. */
#define GENERIC_THREADS(BM, BN, WM, WN, TM, TN) ((BM / WM) * (BN / WN) * (WM / TM) * (WN / TN))
#define GENERIC_LOCAL(STAGES, BM, BN, BK) ((size_t)(STAGES) * (BK) * ((BM) + 4 + (BN)) * 4)
static const kernel_shape many_blocks_shape = {"gemm_many_blocks", 16, 16, 16, 16, 0};
static const kernel_shape tiled16_shape = {"gemm_tiled16", 16, 16, 16, 16, 2 * 16 * 16 * 4};
static const kernel_shape tiled32_shape = {"gemm_tiled32", 32, 32, 32, 32, 2 * 32 * 32 * 4};
static const kernel_shape tiled_bounds_shape = {"gemm_tiled_bounds", 32, 32, 32, 32,
                                                2 * 32 * 32 * 4};
static const kernel_shape regblock_1d_shape = {"gemm_regblock_1d", 512, 1, 64, 64, 2 * 64 * 8 * 4};
static const kernel_shape regblock_2d_shape = {"gemm_regblock_2d", 256, 1, 128, 128,
                                               2 * 128 * 8 * 4};
static const kernel_shape vectorized_shape = {"gemm_vectorized", 256, 1, 128, 128, 2 * 128 * 8 * 4};
static const kernel_shape conflict_free_shape = {"gemm_conflict_free",           256, 1, 128, 128,
                                                 (size_t)8 * (128 + 4 + 128) * 4};
static const kernel_shape double_buffered_shape = {
    "gemm_double_buffered",       GENERIC_THREADS(128, 128, 128, 128, 8, 8), 1, 128, 128,
    GENERIC_LOCAL(2, 128, 128, 8)};
static const kernel_shape warptile_shape = {"gemm_warptile",
                                            GENERIC_THREADS(128, 128, 64, 32, 8, 8),
                                            1,
                                            128,
                                            128,
                                            GENERIC_LOCAL(2, 128, 128, 8)};
static const kernel_shape tuned_shape = {"gemm_tuned",
                                         GENERIC_THREADS(128, 256, 64, 64, 8, 16),
                                         1,
                                         128,
                                         256,
                                         GENERIC_LOCAL(2, 128, 256, 16)};
static const kernel_shape tuned_128x128_shape = {
    "gemm_tuned_128x128",          GENERIC_THREADS(128, 128, 64, 32, 8, 8), 1, 128, 128,
    GENERIC_LOCAL(2, 128, 128, 16)};
static const kernel_shape tuned_256x128_shape = {
    "gemm_tuned_256x128",          GENERIC_THREADS(256, 128, 64, 64, 16, 8), 1, 256, 128,
    GENERIC_LOCAL(2, 256, 128, 16)};

/* Rung one_block: a single work-group of n x m work-items. */
static warplab_status launch_one_block(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    const kernel_shape shape = {"gemm_one_block",           wl_gemm_n(launch->problem),
                                wl_gemm_m(launch->problem), wl_gemm_m(launch->problem),
                                wl_gemm_n(launch->problem), 0};
    return run_shape(backend, launch, &shape);
}

#define SHAPED_RUNG(fn, shape_var)                                                                 \
    static warplab_status fn(wl_backend *backend, const wl_launch *launch, void *state)            \
    {                                                                                              \
        (void)state;                                                                               \
        return run_shape(backend, launch, &shape_var);                                             \
    }                                                                                              \
    static warplab_status fn##_supports(wl_backend *backend, const wl_problem *problem,            \
                                        char *reason, size_t len)                                  \
    {                                                                                              \
        (void)problem;                                                                             \
        return shape_fits(backend, &shape_var, reason, len);                                       \
    }

SHAPED_RUNG(launch_many_blocks, many_blocks_shape)
SHAPED_RUNG(launch_tiled16, tiled16_shape)
SHAPED_RUNG(launch_tiled32, tiled32_shape)
SHAPED_RUNG(launch_tiled_bounds, tiled_bounds_shape)
SHAPED_RUNG(launch_regblock_1d, regblock_1d_shape)
SHAPED_RUNG(launch_regblock_2d, regblock_2d_shape)
SHAPED_RUNG(launch_vectorized, vectorized_shape)
SHAPED_RUNG(launch_conflict_free, conflict_free_shape)
SHAPED_RUNG(launch_double_buffered, double_buffered_shape)
SHAPED_RUNG(launch_warptile, warptile_shape)
SHAPED_RUNG(launch_tuned, tuned_shape)
SHAPED_RUNG(launch_tuned_128x128, tuned_128x128_shape)
SHAPED_RUNG(launch_tuned_256x128, tuned_256x128_shape)

#define IMPL(var, rung_id, fn)                                                                     \
    static const wl_impl var = {                                                                   \
        .ladder = "gemm", .rung = rung_id, .supports = fn##_supports, .launch = fn}

static const wl_impl one_block_impl = {
    .ladder = "gemm", .rung = "one_block", .launch = launch_one_block};
IMPL(many_blocks_impl, "many_blocks", launch_many_blocks);
IMPL(tiled16_impl, "tiled16", launch_tiled16);
IMPL(tiled32_impl, "tiled32", launch_tiled32);
IMPL(tiled_bounds_impl, "tiled_bounds", launch_tiled_bounds);
IMPL(regblock_1d_impl, "regblock_1d", launch_regblock_1d);
IMPL(regblock_2d_impl, "regblock_2d", launch_regblock_2d);
IMPL(vectorized_impl, "vectorized", launch_vectorized);
IMPL(conflict_free_impl, "conflict_free", launch_conflict_free);
IMPL(double_buffered_impl, "double_buffered", launch_double_buffered);
IMPL(warptile_impl, "warptile", launch_warptile);
IMPL(tuned_impl, "tuned", launch_tuned);
IMPL(tuned_128x128_impl, "tuned_128x128", launch_tuned_128x128);
IMPL(tuned_256x128_impl, "tuned_256x128", launch_tuned_256x128);

const wl_impl *const wl_opencl_gemm_impls[] = {
    &one_block_impl,       &many_blocks_impl,   &tiled16_impl,
    &tiled32_impl,         &tiled_bounds_impl,  &regblock_1d_impl,
    &regblock_2d_impl,     &vectorized_impl,    &conflict_free_impl,
    &double_buffered_impl, &warptile_impl,      &tuned_impl,
    &tuned_128x128_impl,   &tuned_256x128_impl, NULL};

/* warplab:rung gemm ex_tf32 ex_bf16 ex_fp16 */
/* ------------------------------------------------------------------------ */
/* warplab_gemm_ex (src/opencl/kernels/gemm_ex.cl)                          */

static cl_int type_code(warplab_dtype type)
{
    return type == WARPLAB_BFLOAT16 ? 1 : type == WARPLAB_FLOAT16 ? 2 : 0;
}

static warplab_status launch_ex(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    const wl_problem *p = launch->problem;
    const warplab_dtype c_type = (p->variant & WL_GEMM_C_INPUT_TYPE) ? p->dtype : WARPLAB_FLOAT32;
    const size_t in_size = warplab_dtype_size(p->dtype), out_size = warplab_dtype_size(c_type);
    cl_mem mem[3];
    cl_ulong off[3];
    cl_int ld[3] = {(cl_int)wl_gemm_lda(p), (cl_int)wl_gemm_ldb(p), (cl_int)wl_gemm_ldc(p)};
    for (int i = 0; i < 3; i++) {
        mem[i] = wl_cl_mem(launch->buf[i]);
        off[i] = wl_cl_offset(launch->buf[i], i == GEMM_C ? out_size : in_size);
    }
    cl_int m = (cl_int)wl_gemm_m(p), n = (cl_int)wl_gemm_n(p), k = (cl_int)wl_gemm_k(p);
    cl_float alpha = (cl_float)p->alpha, beta = (cl_float)p->beta;
    cl_int type = type_code(p->dtype), out_type = type_code(c_type);
    cl_int trans_a = wl_gemm_trans_a(p), trans_b = wl_gemm_trans_b(p);
    cl_int tf32 = (p->variant & WL_GEMM_COMPUTE_TF32) != 0;
    const wl_cl_arg args[19] = {
        WL_CL_VALUE(mem[0]),  WL_CL_VALUE(off[0]),  WL_CL_VALUE(ld[0]),  WL_CL_VALUE(mem[1]),
        WL_CL_VALUE(off[1]),  WL_CL_VALUE(ld[1]),   WL_CL_VALUE(mem[2]), WL_CL_VALUE(off[2]),
        WL_CL_VALUE(ld[2]),   WL_CL_VALUE(m),       WL_CL_VALUE(n),      WL_CL_VALUE(k),
        WL_CL_VALUE(alpha),   WL_CL_VALUE(beta),    WL_CL_VALUE(type),   WL_CL_VALUE(out_type),
        WL_CL_VALUE(trans_a), WL_CL_VALUE(trans_b), WL_CL_VALUE(tf32)};
    if (m == 0 || n == 0)
        return WARPLAB_OK;
    const size_t global[2] = {(size_t)n, (size_t)m}, local[2] = {16, 16};
    return wl_opencl_launch(backend, "gemm_ex", "gemm_ex", 2, global, local, 19, args);
}
/* warplab:end */

static const wl_impl ex_impl = {.ladder = "gemm", .rung = WL_GEMM_EX_IMPL, .launch = launch_ex};

const wl_impl *const wl_opencl_gemm_ex_impls[] = {
    &ex_impl, &wl_gemm_ex_tf32_impl, &wl_gemm_ex_bf16_impl, &wl_gemm_ex_fp16_impl, NULL};
