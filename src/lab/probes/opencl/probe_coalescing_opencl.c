/* The coalescing probe's OpenCL series (kernels in kernels/probe_coalescing.cl). */
#include "probe_opencl.h"

/* ------------------------------------------------------------------------ */
/* coalescing */

static warplab_status launch_offset(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    probe_args a;
    args_views(&a, launch, 2);
    const size_t n = launch->problem->dim[0] - 32;
    arg_u64(&a, 0, n);
    arg_u64(&a, 1, (cl_ulong)launch->problem->param);
    return wl_probe_cl_launch(backend, "probe_coalescing", "probe_offset_copy", n, &a);
}

static warplab_status launch_stride(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    probe_args a;
    args_views(&a, launch, 2);
    const size_t n = launch->problem->dim[0] / (size_t)launch->problem->param;
    arg_u64(&a, 0, n);
    arg_u64(&a, 1, (cl_ulong)launch->problem->param);
    return wl_probe_cl_launch(backend, "probe_coalescing", "probe_stride_copy", n, &a);
}
#define SERIES(ladder_, rung_, launch_)                                                            \
    {                                                                                              \
        .ladder = ladder_, .rung = rung_, .launch = launch_                                        \
    }

const wl_impl wl_opencl_probe_offset = SERIES("coalescing", "offset", launch_offset);
const wl_impl wl_opencl_probe_stride = SERIES("coalescing", "stride", launch_stride);
