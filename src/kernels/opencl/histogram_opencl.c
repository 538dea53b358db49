/* The opencl backend's histogram rungs, with the kernels in
 * kernels/histogram.cl: global atomics, a sub-histogram per work-group in
 * local memory (what warplab_histogram runs on opencl), and a copy per 32
 * work-items with scalar or 16-byte loads (the per-warp rungs: a copy per
 * 32 items needs no sub-groups). The warp match, the library's dispatch and
 * CUB have no OpenCL form here (no sub-group functions in OpenCL 1.2 or
 * PoCL). Each launch first zeroes the counts, in order on the queue. */
/*
 * Contents: the histogram rungs this file implements, in ladder order
 * (number = place on the ladder, as `warplab ladders histogram` lists it):
 *    2. global_atomics -- one global atomic per sample
 *    3. block_shared -- a sub-histogram per block in shared memory
 *    4. warp_shared -- a sub-histogram per warp in shared memory
 *    5. vector_loads -- per-warp copies, 16-byte loads
 */
#include "kernels/histogram_bins.h"
#include "opencl_backend.h"

#define GROUP 256

static const char *const type_names[] = {"uchar", "int", "float"};

static size_t sample_bytes(const wl_problem *p)
{
    return p->variant == WL_HISTOGRAM_UINT8 ? 1 : 4;
}

/* A group of GROUP work-items, or the device's largest below it. */
static size_t group_size(const wl_backend *backend)
{
    const int most = backend->info.max_threads_per_block;
    return most > 0 && most < GROUP ? (size_t)most : GROUP;
}

/* Enough groups to fill the device (8 per compute unit), fewer for small n. */
static size_t groups_for(const wl_backend *backend, size_t n)
{
    const size_t group = group_size(backend);
    const size_t full =
        (size_t)(backend->info.multiprocessors > 0 ? backend->info.multiprocessors : 1) * 8;
    size_t groups = (n + group - 1) / group;
    groups = groups < full ? groups : full;
    return groups ? groups : 1;
}

static warplab_status zero_counts(wl_backend *backend, const wl_launch *launch)
{
    const cl_mem counts = wl_cl_mem(launch->buf[1]);
    const cl_ulong counts_off = wl_cl_offset(launch->buf[1], 4);
    const cl_uint bins = (cl_uint)launch->problem->dim[1];
    const size_t group = group_size(backend);
    const size_t global = ((size_t)bins + group - 1) / group * group;
    const wl_cl_arg args[] = {WL_CL_VALUE(counts), WL_CL_VALUE(counts_off), WL_CL_VALUE(bins)};
    return wl_opencl_launch(backend, "histogram", "histogram_zero", 1, &global, &group, 3, args);
}

/* The kernel "<base>_<type>" over the samples; private_bins > 0: with
 * `copies` __local copies of that many words. */
static warplab_status run(wl_backend *backend, const wl_launch *launch, const char *base,
                          cl_uint private_bins, size_t copies)
{
    const wl_problem *p = launch->problem;
    warplab_status status = zero_counts(backend, launch);
    if (status != WARPLAB_OK || p->dim[0] == 0)
        return status;
    const wl_histogram_rule rule = wl_histogram_rule_of(p);
    const cl_mem in = wl_cl_mem(launch->buf[0]), counts = wl_cl_mem(launch->buf[1]);
    const cl_ulong in_off = wl_cl_offset(launch->buf[0], sample_bytes(p));
    const cl_ulong counts_off = wl_cl_offset(launch->buf[1], 4);
    const cl_ulong n = p->dim[0];
    const cl_uint bins = rule.bins, range_int = rule.range_int;
    const cl_int lower_int = rule.lower_int, upper_int = rule.upper_int;
    const cl_float lower_float = rule.lower_float, upper_float = rule.upper_float,
                   scale_float = rule.scale_float;
    const size_t group = group_size(backend);
    const size_t global = groups_for(backend, p->dim[0]) * group;
    char name[64];
    wl_format(name, sizeof name, "%s_%s", base, type_names[p->variant % 3]);
    const wl_cl_arg args[] = {WL_CL_VALUE(in),
                              WL_CL_VALUE(in_off),
                              WL_CL_VALUE(n),
                              WL_CL_VALUE(counts),
                              WL_CL_VALUE(counts_off),
                              WL_CL_VALUE(bins),
                              WL_CL_VALUE(lower_int),
                              WL_CL_VALUE(upper_int),
                              WL_CL_VALUE(range_int),
                              WL_CL_VALUE(lower_float),
                              WL_CL_VALUE(upper_float),
                              WL_CL_VALUE(scale_float),
                              WL_CL_LOCAL((size_t)private_bins * 4 * copies),
                              WL_CL_VALUE(private_bins)};
    return wl_opencl_launch(backend, "histogram", name, 1, &global, &group, private_bins ? 14 : 12,
                            args);
}

/* warplab:rung histogram global_atomics */
static warplab_status launch_global(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    return run(backend, launch, "histogram_global", 0, 0);
}
/* warplab:end */

static const wl_impl global_impl = {
    .ladder = "histogram", .rung = "global_atomics", .launch = launch_global};

/* The words of the group's copy: the 256 values of 8-bit samples (mapped to
 * bins at the merge), the bins otherwise. */
static cl_uint private_bins(const wl_problem *p)
{
    return p->variant == WL_HISTOGRAM_UINT8 ? 256u : (cl_uint)p->dim[1];
}

static warplab_status local_supports(wl_backend *backend, const wl_problem *problem, char *reason,
                                     size_t len)
{
    const size_t need = (size_t)private_bins(problem) * 4;
    const size_t local = backend->info.shared_memory_per_block;
    if (local && need > local) {
        wl_format(reason, len,
                  "a copy of %zu bins needs %zu bytes of local memory (the device "
                  "has %zu a group)",
                  (size_t)private_bins(problem), need, local);
        return WARPLAB_ERROR_UNSUPPORTED;
    }
    return WARPLAB_OK;
}

/* warplab:rung histogram block_shared */
static warplab_status launch_local(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    return run(backend, launch, "histogram_local", private_bins(launch->problem), 1);
}
/* warplab:end */

static const wl_impl local_impl = {.ladder = "histogram",
                                   .rung = "block_shared",
                                   .supports = local_supports,
                                   .launch = launch_local};

/* A copy per 32 work-items: the group must be a multiple of 32 and its
 * copies must fit in local memory. */
static warplab_status warps_supports(wl_backend *backend, const wl_problem *problem, char *reason,
                                     size_t len)
{
    const size_t group = group_size(backend);
    if (group % 32) {
        wl_format(reason, len, "per-32-item copies need groups of a multiple of 32 (%s: %zu)",
                  backend->info.name, group);
        return WARPLAB_ERROR_UNSUPPORTED;
    }
    const size_t need = (size_t)private_bins(problem) * 4 * (group / 32);
    const size_t local = backend->info.shared_memory_per_block;
    if (local && need > local) {
        wl_format(reason, len,
                  "%zu copies of %zu bins need %zu bytes of local memory (the device has %zu "
                  "a group)",
                  group / 32, (size_t)private_bins(problem), need, local);
        return WARPLAB_ERROR_UNSUPPORTED;
    }
    return WARPLAB_OK;
}

/* warplab:rung histogram warp_shared */
static warplab_status launch_warps(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    return run(backend, launch, "histogram_warps", private_bins(launch->problem),
               group_size(backend) / 32);
}
/* warplab:end */

/* warplab:rung histogram vector_loads */
static warplab_status launch_vectors(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    return run(backend, launch, "histogram_vectors", private_bins(launch->problem),
               group_size(backend) / 32);
}
/* warplab:end */

static const wl_impl warps_impl = {.ladder = "histogram",
                                   .rung = "warp_shared",
                                   .supports = warps_supports,
                                   .launch = launch_warps};
static const wl_impl vectors_impl = {.ladder = "histogram",
                                     .rung = "vector_loads",
                                     .supports = warps_supports,
                                     .launch = launch_vectors};

const wl_impl *const wl_opencl_histogram_impls[] = {&global_impl, &local_impl, &warps_impl,
                                                    &vectors_impl, NULL};
