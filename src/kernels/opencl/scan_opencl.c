/* The opencl backend's scan rungs (kernels/scan.cl): the one-group rungs
 * (Hillis-Steele, Blelloch's tree, plain and padded), scan then propagate,
 * reduce-then-scan (the library's scan on opencl) and a copy of the same
 * bytes as the reference. The single-pass rungs need forward-progress
 * guarantees between work-groups that OpenCL 1.2 does not give (a group
 * spinning on a flag of a group not yet scheduled never finishes), and the
 * warp-shuffle rung needs sub-group shuffles, past OpenCL 1.2: they have no
 * OpenCL form here. */
/*
 * Contents: the scan rungs this file implements, in ladder order
 * (number = place on the ladder, as `warplab ladders scan` lists it):
 *    2. hillis_steele -- Hillis-Steele, one block
 *    3. blelloch -- Blelloch up-sweep / down-sweep
 *    4. conflict_free -- Blelloch without bank conflicts
 *    6. scan_then_propagate -- scan then propagate, any n (3 kernels)
 *    7. reduce_then_scan -- reduce then scan (3n)
 *   13. copy -- device-to-device copy (reference)
 */
#include "opencl_backend.h"

#define GROUP 256      /* work-items per group; scan.cl requires it */
#define MAX_GROUPS 256 /* the partials one group scans in pass 2 */

static warplab_status enqueue(wl_backend *backend, const char *base, warplab_dtype dtype,
                              size_t groups, int arg_count, const wl_cl_arg *args)
{
    static const char *const suffix[WARPLAB_DTYPE_COUNT] = {"int", "float", "double"};
    char name[64];
    wl_format(name, sizeof name, "%s_%s", base, suffix[dtype]);
    const size_t local = GROUP, global = groups * GROUP;
    return wl_opencl_launch(backend, "scan", name, 1, &global, &local, arg_count, args);
}

/* warplab:rung scan hillis_steele */
/* One group walks the whole array tile by tile (GROUP elements, Hillis-Steele
 * in local memory: log2(GROUP) steps over every element), carrying the
 * running total: reduce-then-scan's tile kernel over one stretch. */
static warplab_status launch_hillis_steele(wl_backend *backend, const wl_launch *launch,
                                           void *state)
{
    (void)state;
    const wl_problem *p = launch->problem;
    const size_t element = warplab_dtype_size(p->dtype);
    cl_ulong n = wl_launch_count(launch);
    if (n == 0)
        return WARPLAB_OK;
    const cl_mem in = wl_cl_mem(launch->buf[0]), out = wl_cl_mem(launch->buf[1]);
    const cl_ulong in_off = wl_cl_offset(launch->buf[0], element);
    const cl_ulong out_off = wl_cl_offset(launch->buf[1], element);
    cl_int op = (cl_int)p->op, no = 0, exclusive = p->variant == WARPLAB_SCAN_EXCLUSIVE;
    /* No carries (has_carries = 0): the input stands in for the unread array. */
    const wl_cl_arg args[] = {WL_CL_VALUE(in),      WL_CL_VALUE(in_off), WL_CL_VALUE(out),
                              WL_CL_VALUE(out_off), WL_CL_VALUE(n),      WL_CL_VALUE(n),
                              WL_CL_VALUE(in),      WL_CL_VALUE(no),     WL_CL_VALUE(exclusive),
                              WL_CL_VALUE(op)};
    return enqueue(backend, "scan_tiles", p->dtype, 1, 10, args);
}
/* warplab:end */

/* warplab:rung scan blelloch conflict_free */
/* One group: the tree kernel (scan_blelloch, or scan_conflict_free with one
 * padding word every 32 local-memory words). */
static warplab_status launch_tree(wl_backend *backend, const wl_launch *launch, const char *kernel)
{
    const wl_problem *p = launch->problem;
    const size_t element = warplab_dtype_size(p->dtype);
    cl_ulong n = wl_launch_count(launch);
    if (n == 0)
        return WARPLAB_OK;
    const cl_mem in = wl_cl_mem(launch->buf[0]), out = wl_cl_mem(launch->buf[1]);
    const cl_ulong in_off = wl_cl_offset(launch->buf[0], element);
    const cl_ulong out_off = wl_cl_offset(launch->buf[1], element);
    cl_int op = (cl_int)p->op, exclusive = p->variant == WARPLAB_SCAN_EXCLUSIVE;
    const wl_cl_arg args[] = {WL_CL_VALUE(in),      WL_CL_VALUE(in_off), WL_CL_VALUE(out),
                              WL_CL_VALUE(out_off), WL_CL_VALUE(n),      WL_CL_VALUE(exclusive),
                              WL_CL_VALUE(op)};
    return enqueue(backend, kernel, p->dtype, 1, 7, args);
}

static warplab_status launch_blelloch(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    return launch_tree(backend, launch, "scan_blelloch");
}

static warplab_status launch_conflict_free(wl_backend *backend, const wl_launch *launch,
                                           void *state)
{
    (void)state;
    return launch_tree(backend, launch, "scan_conflict_free");
}
/* warplab:end */

/* warplab:rung scan scan_then_propagate */
#define STP_MAX_LEVELS 16

/* Scratch: the tile totals of every level (each level's tiles, while more
 * than one). */
static size_t stp_scratch(wl_backend *backend, const wl_problem *problem)
{
    (void)backend;
    size_t elements = 0;
    for (size_t count = problem->dim[0]; count > 1;) {
        count = (count + GROUP - 1) / GROUP;
        if (count > 1)
            elements += count;
    }
    return elements * warplab_dtype_size(problem->dtype);
}

/* Up the levels: each group scans its tile and writes its total into the
 * scratch, whose totals the next level scans in place; then down the
 * levels, tile b + 1 of each level takes element b of the level above. */
static warplab_status launch_scan_then_propagate(wl_backend *backend, const wl_launch *launch,
                                                 void *state)
{
    (void)state;
    const wl_problem *p = launch->problem;
    const size_t element = warplab_dtype_size(p->dtype);
    if (wl_launch_count(launch) == 0)
        return WARPLAB_OK;
    const cl_mem scratch = wl_cl_mem(launch->scratch);
    const cl_ulong scratch_off = wl_cl_offset(launch->scratch, element);
    cl_mem data[STP_MAX_LEVELS], dest[STP_MAX_LEVELS];
    cl_ulong data_off[STP_MAX_LEVELS], dest_off[STP_MAX_LEVELS], count[STP_MAX_LEVELS];
    data[0] = wl_cl_mem(launch->buf[0]);
    dest[0] = wl_cl_mem(launch->buf[1]);
    data_off[0] = wl_cl_offset(launch->buf[0], element);
    dest_off[0] = wl_cl_offset(launch->buf[1], element);
    count[0] = wl_launch_count(launch);
    cl_ulong sums_off = scratch_off;
    cl_int op = (cl_int)p->op;
    int levels = 0;
    warplab_status status = WARPLAB_OK;
    for (;;) {
        const size_t tiles = (size_t)((count[levels] + GROUP - 1) / GROUP);
        cl_int has_sums = tiles > 1;
        cl_int exclusive = levels == 0 && p->variant == WARPLAB_SCAN_EXCLUSIVE;
        /* One tile: no sums; the scratch (maybe empty) stands in for them. */
        const cl_mem sums = has_sums ? scratch : data[levels];
        const wl_cl_arg args[] = {WL_CL_VALUE(data[levels]),  WL_CL_VALUE(data_off[levels]),
                                  WL_CL_VALUE(dest[levels]),  WL_CL_VALUE(dest_off[levels]),
                                  WL_CL_VALUE(count[levels]), WL_CL_VALUE(sums),
                                  WL_CL_VALUE(sums_off),      WL_CL_VALUE(has_sums),
                                  WL_CL_VALUE(exclusive),     WL_CL_VALUE(op)};
        status = enqueue(backend, "scan_tile_sums", p->dtype, tiles, 10, args);
        if (status != WARPLAB_OK || tiles == 1)
            break;
        if (levels + 1 >= STP_MAX_LEVELS)
            return wl_fail(backend, WARPLAB_ERROR_UNSUPPORTED,
                           "scan scan_then_propagate: more than %d levels", STP_MAX_LEVELS);
        levels++;
        data[levels] = dest[levels] = scratch;
        data_off[levels] = dest_off[levels] = sums_off;
        count[levels] = tiles;
        sums_off += tiles;
    }
    for (int l = levels - 1; l >= 0 && status == WARPLAB_OK; l--) {
        const size_t tiles = (size_t)((count[l] + GROUP - 1) / GROUP);
        const wl_cl_arg args[] = {WL_CL_VALUE(dest[l]),         WL_CL_VALUE(dest_off[l]),
                                  WL_CL_VALUE(count[l]),        WL_CL_VALUE(dest[l + 1]),
                                  WL_CL_VALUE(dest_off[l + 1]), WL_CL_VALUE(op)};
        status = enqueue(backend, "scan_propagate", p->dtype, tiles - 1, 6, args);
    }
    return status;
}
/* warplab:end */

/* warplab:rung scan reduce_then_scan */
/* Each group owns a stretch of whole tiles: at most MAX_GROUPS groups, so
 * that one group scans their totals. */
static cl_ulong stretch_for(size_t n, size_t *groups)
{
    size_t tiles = (n + GROUP - 1) / GROUP;
    size_t per_group = (tiles + MAX_GROUPS - 1) / MAX_GROUPS;
    per_group = per_group ? per_group : 1;
    const cl_ulong chunk = (cl_ulong)per_group * GROUP;
    *groups = (size_t)((n + chunk - 1) / chunk);
    return chunk;
}

static warplab_status scan_supports(wl_backend *backend, const wl_problem *problem, char *reason,
                                    size_t len)
{
    (void)problem;
    if (backend->info.max_threads_per_block > 0 && backend->info.max_threads_per_block < GROUP) {
        wl_format(reason, len, "the scan kernels need work-groups of %d items; %s takes %d", GROUP,
                  backend->info.name, backend->info.max_threads_per_block);
        return WARPLAB_ERROR_UNSUPPORTED;
    }
    return WARPLAB_OK;
}

static size_t scan_scratch(wl_backend *backend, const wl_problem *problem)
{
    (void)backend;
    return MAX_GROUPS * warplab_dtype_size(problem->dtype);
}

/* Pass 1 reduces each stretch into the scratch, pass 2 scans those totals
 * in place (one group, exclusive), pass 3 scans each stretch from its total. */
static warplab_status launch_reduce_then_scan(wl_backend *backend, const wl_launch *launch,
                                              void *state)
{
    (void)state;
    const wl_problem *p = launch->problem;
    const size_t element = warplab_dtype_size(p->dtype);
    if (wl_launch_count(launch) == 0)
        return WARPLAB_OK;
    size_t groups = 0;
    cl_ulong chunk = stretch_for(wl_launch_count(launch), &groups);
    const cl_mem in = wl_cl_mem(launch->buf[0]), out = wl_cl_mem(launch->buf[1]);
    const cl_mem partials = wl_cl_mem(launch->scratch);
    const cl_ulong in_off = wl_cl_offset(launch->buf[0], element);
    const cl_ulong out_off = wl_cl_offset(launch->buf[1], element);
    const cl_ulong zero = 0;
    cl_ulong n = wl_launch_count(launch), g = groups;
    cl_int op = (cl_int)p->op, yes = 1, no = 0, exclusive = p->variant == WARPLAB_SCAN_EXCLUSIVE;
    warplab_status status = WARPLAB_OK;
    if (groups > 1) {
        const wl_cl_arg reduce_args[] = {WL_CL_VALUE(in),       WL_CL_VALUE(in_off),
                                         WL_CL_VALUE(n),        WL_CL_VALUE(chunk),
                                         WL_CL_VALUE(partials), WL_CL_VALUE(op)};
        status = enqueue(backend, "scan_reduce", p->dtype, groups, 6, reduce_args);
        const wl_cl_arg totals_args[] = {
            WL_CL_VALUE(partials), WL_CL_VALUE(zero), WL_CL_VALUE(partials), WL_CL_VALUE(zero),
            WL_CL_VALUE(g),        WL_CL_VALUE(g),    WL_CL_VALUE(partials), WL_CL_VALUE(no),
            WL_CL_VALUE(yes),      WL_CL_VALUE(op)};
        if (status == WARPLAB_OK)
            status = enqueue(backend, "scan_tiles", p->dtype, 1, 10, totals_args);
    }
    cl_int carries = groups > 1;
    const wl_cl_arg tiles_args[] = {
        WL_CL_VALUE(in),        WL_CL_VALUE(in_off), WL_CL_VALUE(out),      WL_CL_VALUE(out_off),
        WL_CL_VALUE(n),         WL_CL_VALUE(chunk),  WL_CL_VALUE(partials), WL_CL_VALUE(carries),
        WL_CL_VALUE(exclusive), WL_CL_VALUE(op)};
    if (status == WARPLAB_OK)
        status = enqueue(backend, "scan_tiles", p->dtype, groups, 10, tiles_args);
    return status;
}
/* warplab:end */

static const wl_impl reduce_then_scan_impl = {.ladder = "scan",
                                              .rung = "reduce_then_scan",
                                              .supports = scan_supports,
                                              .scratch_bytes = scan_scratch,
                                              .launch = launch_reduce_then_scan};

/* warplab:rung scan copy */
static warplab_status launch_copy(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    const size_t bytes = wl_launch_count(launch) * warplab_dtype_size(launch->problem->dtype);
    if (bytes == 0)
        return WARPLAB_OK;
    return wl_opencl_check(backend,
                           clEnqueueCopyBuffer(wl_opencl_queue(backend), wl_cl_mem(launch->buf[0]),
                                               wl_cl_mem(launch->buf[1]), launch->buf[0].offset,
                                               launch->buf[1].offset, bytes, 0, NULL, NULL),
                           "clEnqueueCopyBuffer");
}
/* warplab:end */

static const wl_impl copy_impl = {.ladder = "scan", .rung = "copy", .launch = launch_copy};

static const wl_impl hillis_steele_impl = {.ladder = "scan",
                                           .rung = "hillis_steele",
                                           .supports = scan_supports,
                                           .launch = launch_hillis_steele};
static const wl_impl blelloch_impl = {
    .ladder = "scan", .rung = "blelloch", .supports = scan_supports, .launch = launch_blelloch};
static const wl_impl conflict_free_impl = {.ladder = "scan",
                                           .rung = "conflict_free",
                                           .supports = scan_supports,
                                           .launch = launch_conflict_free};
static const wl_impl scan_then_propagate_impl = {.ladder = "scan",
                                                 .rung = "scan_then_propagate",
                                                 .supports = scan_supports,
                                                 .scratch_bytes = stp_scratch,
                                                 .launch = launch_scan_then_propagate};

const wl_impl *const wl_opencl_scan_impls[] = {&hillis_steele_impl,
                                               &blelloch_impl,
                                               &conflict_free_impl,
                                               &scan_then_propagate_impl,
                                               &reduce_then_scan_impl,
                                               &copy_impl,
                                               NULL};
