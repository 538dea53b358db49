/* The opencl backend's scan rungs: reduce-then-scan (the library's scan on
 * opencl; kernels/scan.cl) and a copy of the same bytes as the reference.
 * The single-pass rungs need forward-progress guarantees between work-groups
 * that OpenCL 1.2 does not give (a group spinning on a flag of a group not
 * yet scheduled never finishes), and the one-block and shuffle rungs are
 * the CUDA ladder's lessons: they have no OpenCL form here. */
/*
 * Contents: the scan rungs this file implements, in ladder order
 * (number = place on the ladder, as `warplab ladders scan` lists it):
 *    7. reduce_then_scan -- reduce then scan (3n)
 *   12. copy -- device-to-device copy (reference)
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

const wl_impl *const wl_opencl_scan_impls[] = {&reduce_then_scan_impl, &copy_impl, NULL};
