/* The opencl backend's reduction rungs: the CUDA ladder's tree rungs, each
 * of seed 004's attempts #1-#7 also at its 128-item groups (the <rung>_128
 * rows), brent and cascade, and the atomic rungs, with the kernels in
 * kernels/reduce.cl. The shuffle rung, the one-pass rung and CUB have no
 * OpenCL form here (no subgroups in OpenCL 1.2 or PoCL 3.1). The host side
 * mirrors the cuda one: one launch per level of the tree, partials in two
 * regions of the rung's scratch. */
/*
 * Contents: the reduce rungs this file implements, in ladder order
 * (number = place on the ladder, as `warplab ladders reduce` lists it):
 *    3. naive -- naive: one launch per level
 *   21. atomic_warp -- shuffles, one atomic per warp
 *   22. atomic_block -- shuffles, one atomic per block
 */
#include "opencl_backend.h"

#include <stdbool.h>

#define GROUP 256 /* work-items per group; reduce.cl requires it where fixed */

/* A place in a buffer: the cl_mem and an offset in elements. */
typedef struct cl_place {
    cl_mem mem;
    cl_ulong offset;
} cl_place;

static cl_place view_place(wl_view view, size_t element)
{
    cl_place place = {wl_cl_mem(view), wl_cl_offset(view, element)};
    return place;
}

/* Enqueues "<base>_<type>" of the reduce program. */
static warplab_status enqueue(wl_backend *backend, const char *base, warplab_dtype dtype,
                              size_t global, const size_t *local, int arg_count,
                              const wl_cl_arg *args)
{
    static const char *const suffix[WARPLAB_DTYPE_COUNT] = {"int", "float", "double"};
    char name[64];
    wl_format(name, sizeof name, "%s_%s", base, suffix[dtype]);
    return wl_opencl_launch(backend, "reduce", name, 1, &global, local, arg_count, args);
}

/* The result of an empty input, and the atomic rungs' starting value. */
static warplab_status write_identity(wl_backend *backend, const wl_launch *launch)
{
    const wl_problem *p = launch->problem;
    cl_place out = view_place(launch->buf[1], warplab_dtype_size(p->dtype));
    cl_int op = (cl_int)p->op;
    const wl_cl_arg args[] = {WL_CL_VALUE(out.mem), WL_CL_VALUE(out.offset), WL_CL_VALUE(op)};
    const size_t one = 1;
    return enqueue(backend, "write_identity", p->dtype, 1, &one, 3, args);
}

/* ------------------------------------------------------------------------ */
/* warplab:rung reduce naive */
/* Rung naive: one launch per level, stride 1, 2, 4, ...; level 1 reads the  */
/* input and writes scratch, later levels work in place in scratch, the last */
/* (2 * stride >= n) writes the result.                                      */

static size_t naive_scratch(wl_backend *backend, const wl_problem *problem)
{
    (void)backend;
    return problem->dim[0] > 2 ? problem->dim[0] * warplab_dtype_size(problem->dtype) : 0;
}

static warplab_status launch_naive(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    const wl_problem *p = launch->problem;
    const size_t n = wl_launch_count(launch), element = warplab_dtype_size(p->dtype);
    if (n == 0)
        return write_identity(backend, launch);
    cl_place src = view_place(launch->buf[0], element);
    const cl_place out = view_place(launch->buf[1], element);
    const cl_place scratch = {wl_cl_mem(launch->scratch), 0};
    cl_ulong count = n;
    cl_int op = (cl_int)p->op;
    for (cl_ulong stride = 1;; stride *= 2) {
        const bool last = 2 * stride >= n;
        cl_place dst = last ? out : scratch;
        const wl_cl_arg args[] = {WL_CL_VALUE(src.mem), WL_CL_VALUE(src.offset),
                                  WL_CL_VALUE(dst.mem), WL_CL_VALUE(dst.offset),
                                  WL_CL_VALUE(count),   WL_CL_VALUE(stride),
                                  WL_CL_VALUE(op)};
        warplab_status status = enqueue(backend, "naive_level", p->dtype,
                                        (n + 2 * stride - 1) / (2 * stride), NULL, 7, args);
        if (status != WARPLAB_OK || last)
            return status;
        src = scratch;
    }
}
/* warplab:end */

static const wl_impl naive_impl = {
    .ladder = "reduce", .rung = "naive", .scratch_bytes = naive_scratch, .launch = launch_naive};

/* ------------------------------------------------------------------------ */
/* The tree rungs: each group writes one partial; the level with one group   */
/* writes the result.                                                         */

/* How a level's grid is sized. */
typedef enum tree_grid {
    GRID_PER_ITEM, /* per_item elements a work-item: the grid grows with n */
    GRID_LOG2,     /* brent: about log2(n) elements a work-item (O(n / log n) items) */
    GRID_DEVICE    /* cascade: a grid that fills the device; work-items loop */
} tree_grid;

typedef struct tree_rung {
    const char *kernel; /* base name in reduce.cl */
    size_t per_item;    /* elements each work-item loads: 1, or 2 (first add) */
    bool fixed_group;   /* requires `group` work-items; no __local argument */
    tree_grid grid;     /* how many groups a level takes */
    size_t least_group; /* the kernel's smallest group */
    size_t group;       /* its group: GROUP, or seed 004's 128 (the <rung>_128 rows) */
} tree_rung;

/* warplab:rung reduce interleaved */
static const tree_rung interleaved_rung = {"interleaved", 1, false, GRID_PER_ITEM, 1, GROUP};
/* warplab:end */
/* warplab:rung reduce interleaved_128 */
static const tree_rung interleaved_128_rung = {"interleaved", 1, false, GRID_PER_ITEM, 1, 128};
/* warplab:end */
/* warplab:rung reduce strided_index */
static const tree_rung strided_index_rung = {"strided_index", 1, false, GRID_PER_ITEM, 1, GROUP};
/* warplab:end */
/* warplab:rung reduce strided_index_128 */
static const tree_rung strided_index_128_rung = {"strided_index", 1, false, GRID_PER_ITEM, 1, 128};
/* warplab:end */
/* warplab:rung reduce sequential */
static const tree_rung sequential_rung = {"sequential", 1, false, GRID_PER_ITEM, 1, GROUP};
/* warplab:end */
/* warplab:rung reduce sequential_128 */
static const tree_rung sequential_128_rung = {"sequential", 1, false, GRID_PER_ITEM, 1, 128};
/* warplab:end */
/* warplab:rung reduce first_add */
static const tree_rung first_add_rung = {"first_add", 2, false, GRID_PER_ITEM, 1, GROUP};
/* warplab:end */
/* warplab:rung reduce first_add_128 */
static const tree_rung first_add_128_rung = {"first_add", 2, false, GRID_PER_ITEM, 1, 128};
/* warplab:end */
/* warplab:rung reduce warp_volatile */
static const tree_rung warp_volatile_rung = {"warp_volatile", 2, false, GRID_PER_ITEM, 64, GROUP};
/* warplab:end */
/* warplab:rung reduce warp_volatile_128 */
static const tree_rung warp_volatile_128_rung = {"warp_volatile", 2, false, GRID_PER_ITEM, 64, 128};
/* warplab:end */
/* warplab:rung reduce warp_syncwarp */
static const tree_rung warp_barrier_rung = {"warp_barrier", 2, false, GRID_PER_ITEM, 64, GROUP};
/* warplab:end */
/* warplab:rung reduce complete_unroll */
static const tree_rung complete_unroll_rung = {"complete_unroll", 2,     true,
                                               GRID_PER_ITEM,     GROUP, GROUP};
/* warplab:end */
/* warplab:rung reduce complete_unroll_128 */
static const tree_rung complete_unroll_128_rung = {"complete_unroll_128", 2,   true,
                                                   GRID_PER_ITEM,         128, 128};
/* warplab:end */
/* warplab:rung reduce brent */
static const tree_rung brent_rung = {"grid_slice", 2, true, GRID_LOG2, GROUP, GROUP};
/* warplab:end */
/* warplab:rung reduce brent_128 */
static const tree_rung brent_128_rung = {"grid_slice_128", 2, true, GRID_LOG2, 128, 128};
/* warplab:end */
/* warplab:rung reduce cascade */
static const tree_rung cascade_rung = {"grid_slice", 2, true, GRID_DEVICE, GROUP, GROUP};
/* warplab:end */

/* The rung's group, or the largest power of two the device takes when it
 * takes less. */
static size_t group_size(const wl_backend *backend, const tree_rung *rung)
{
    const size_t most = backend->info.max_threads_per_block > 0
                            ? (size_t)backend->info.max_threads_per_block
                            : GROUP;
    size_t group = 1;
    while (group * 2 <= most && group * 2 <= rung->group)
        group *= 2;
    return group;
}

/* Brent's elements a work-item: ceil(log2(count)), even (the kernel takes two
 * a trip), at least 2 -- as the cuda brent rung. */
static size_t log2_per_item(size_t count)
{
    size_t log2 = 0;
    while (log2 < 63 && ((size_t)1 << log2) < count)
        log2++;
    const size_t even = (log2 + 1) / 2 * 2;
    return even < 2 ? 2 : even;
}

static size_t groups_for(const wl_backend *backend, const tree_rung *rung, size_t count)
{
    const size_t per_item = rung->grid == GRID_LOG2 ? log2_per_item(count) : rung->per_item;
    const size_t per_group = per_item * group_size(backend, rung);
    size_t groups = count / per_group + (count % per_group != 0);
    if (rung->grid == GRID_DEVICE) {
        /* As vecadd's grid-stride rungs: 8 groups per compute unit. */
        size_t full =
            (size_t)(backend->info.multiprocessors > 0 ? backend->info.multiprocessors : 1) * 8;
        groups = groups < full ? groups : full;
    }
    return groups ? groups : 1;
}

static warplab_status tree_supports(const wl_backend *backend, const tree_rung *rung, char *reason,
                                    size_t len)
{
    if (group_size(backend, rung) < rung->least_group) {
        wl_format(reason, len, "the %s kernel needs work-groups of %zu items; %s takes %d",
                  rung->kernel, rung->least_group, backend->info.name,
                  backend->info.max_threads_per_block);
        return WARPLAB_ERROR_UNSUPPORTED;
    }
    return WARPLAB_OK;
}

/* Scratch: the first two levels' partials. */
static size_t tree_scratch(const wl_backend *backend, const tree_rung *rung,
                           const wl_problem *problem)
{
    const size_t first = groups_for(backend, rung, problem->dim[0]);
    if (first <= 1)
        return 0;
    const size_t second = groups_for(backend, rung, first);
    return (first + (second > 1 ? second : 0)) * warplab_dtype_size(problem->dtype);
}

/* warplab:rung reduce interleaved interleaved_128 strided_index strided_index_128 sequential
 * sequential_128 first_add first_add_128 warp_volatile warp_volatile_128 warp_syncwarp
 * complete_unroll complete_unroll_128 brent brent_128 cascade */
static warplab_status run_tree(wl_backend *backend, const wl_launch *launch, const tree_rung *rung)
{
    const wl_problem *p = launch->problem;
    const size_t element = warplab_dtype_size(p->dtype);
    const size_t group = group_size(backend, rung);
    cl_place src = view_place(launch->buf[0], element);
    const cl_place out = view_place(launch->buf[1], element);
    const cl_mem scratch = wl_cl_mem(launch->scratch);
    const size_t first = groups_for(backend, rung, wl_launch_count(launch));
    cl_ulong count = wl_launch_count(launch);
    cl_int op = (cl_int)p->op;
    for (int level = 0;; level++) {
        const size_t groups = groups_for(backend, rung, (size_t)count);
        cl_place dst = out;
        if (groups > 1) {
            dst.mem = scratch;
            dst.offset = level % 2 ? first : 0;
        }
        const wl_cl_arg args[] = {WL_CL_VALUE(src.mem),        WL_CL_VALUE(src.offset),
                                  WL_CL_VALUE(dst.mem),        WL_CL_VALUE(dst.offset),
                                  WL_CL_VALUE(count),          WL_CL_VALUE(op),
                                  WL_CL_LOCAL(group * element)};
        warplab_status status = enqueue(backend, rung->kernel, p->dtype, groups * group, &group,
                                        rung->fixed_group ? 6 : 7, args);
        if (status != WARPLAB_OK || groups == 1)
            return status;
        src = dst;
        count = groups;
    }
}
/* warplab:end */

/* Each tree rung's launcher, scratch and limits around its descriptor. */
#define TREE_IMPL(NAME, RUNG_ID)                                                                   \
    static warplab_status launch_##NAME(wl_backend *backend, const wl_launch *launch, void *state) \
    {                                                                                              \
        (void)state;                                                                               \
        return run_tree(backend, launch, &NAME##_rung);                                            \
    }                                                                                              \
    static size_t scratch_##NAME(wl_backend *backend, const wl_problem *problem)                   \
    {                                                                                              \
        return tree_scratch(backend, &NAME##_rung, problem);                                       \
    }                                                                                              \
    static warplab_status supports_##NAME(wl_backend *backend, const wl_problem *problem,          \
                                          char *reason, size_t len)                                \
    {                                                                                              \
        (void)problem;                                                                             \
        return tree_supports(backend, &NAME##_rung, reason, len);                                  \
    }                                                                                              \
    static const wl_impl NAME##_impl = {.ladder = "reduce",                                        \
                                        .rung = RUNG_ID,                                           \
                                        .supports = supports_##NAME,                               \
                                        .scratch_bytes = scratch_##NAME,                           \
                                        .launch = launch_##NAME};

TREE_IMPL(interleaved, "interleaved")
TREE_IMPL(strided_index, "strided_index")
TREE_IMPL(sequential, "sequential")
TREE_IMPL(first_add, "first_add")
TREE_IMPL(warp_volatile, "warp_volatile")
TREE_IMPL(interleaved_128, "interleaved_128")
TREE_IMPL(strided_index_128, "strided_index_128")
TREE_IMPL(sequential_128, "sequential_128")
TREE_IMPL(first_add_128, "first_add_128")
TREE_IMPL(warp_volatile_128, "warp_volatile_128")
TREE_IMPL(warp_barrier, "warp_syncwarp")
TREE_IMPL(complete_unroll, "complete_unroll")
TREE_IMPL(complete_unroll_128, "complete_unroll_128")
TREE_IMPL(brent, "brent")
TREE_IMPL(brent_128, "brent_128")
TREE_IMPL(cascade, "cascade")

/* ------------------------------------------------------------------------ */
/* warplab:rung reduce atomic_warp atomic_block */
/* The atomic rungs: the result starts as the identity (timed: part of the  */
/* work), then seed 004's grid (one item per element, at most 1024 groups)   */
/* combines into it atomically.                                              */

static warplab_status run_atomic(wl_backend *backend, const wl_launch *launch, const char *kernel)
{
    const wl_problem *p = launch->problem;
    warplab_status status = write_identity(backend, launch);
    if (status != WARPLAB_OK || wl_launch_count(launch) == 0)
        return status;
    const size_t element = warplab_dtype_size(p->dtype);
    const cl_place in = view_place(launch->buf[0], element);
    const cl_place out = view_place(launch->buf[1], element);
    cl_ulong count = wl_launch_count(launch);
    cl_int op = (cl_int)p->op;
    size_t groups = (wl_launch_count(launch) + GROUP - 1) / GROUP;
    groups = groups < 1024 ? groups : 1024;
    const size_t group = GROUP;
    const wl_cl_arg args[] = {WL_CL_VALUE(in.mem),     WL_CL_VALUE(in.offset), WL_CL_VALUE(out.mem),
                              WL_CL_VALUE(out.offset), WL_CL_VALUE(count),     WL_CL_VALUE(op)};
    return enqueue(backend, kernel, p->dtype, groups * GROUP, &group, 6, args);
}
/* warplab:end */

static warplab_status atomic_supports(wl_backend *backend, const wl_problem *problem, char *reason,
                                      size_t len)
{
    (void)problem;
    return tree_supports(backend, &complete_unroll_rung, reason, len);
}

/* warplab:rung reduce atomic_warp */
static warplab_status launch_atomic_slice(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    return run_atomic(backend, launch, "atomic_slice");
}
/* warplab:end */

static const wl_impl atomic_warp_impl = {.ladder = "reduce",
                                         .rung = "atomic_warp",
                                         .supports = atomic_supports,
                                         .launch = launch_atomic_slice};

/* warplab:rung reduce atomic_block */
static warplab_status launch_atomic_group(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    return run_atomic(backend, launch, "atomic_group");
}
/* warplab:end */

static const wl_impl atomic_block_impl = {.ladder = "reduce",
                                          .rung = "atomic_block",
                                          .supports = atomic_supports,
                                          .launch = launch_atomic_group};

const wl_impl *const wl_opencl_reduce_impls[] = {&naive_impl,
                                                 &interleaved_impl,
                                                 &interleaved_128_impl,
                                                 &strided_index_impl,
                                                 &strided_index_128_impl,
                                                 &sequential_impl,
                                                 &sequential_128_impl,
                                                 &first_add_impl,
                                                 &first_add_128_impl,
                                                 &warp_volatile_impl,
                                                 &warp_volatile_128_impl,
                                                 &warp_barrier_impl,
                                                 &complete_unroll_impl,
                                                 &complete_unroll_128_impl,
                                                 &brent_impl,
                                                 &brent_128_impl,
                                                 &cascade_impl,
                                                 &atomic_warp_impl,
                                                 &atomic_block_impl,
                                                 NULL};
