/* The divergence probe's OpenCL series (kernels in kernels/probe_divergence.cl). */
#include "probe_opencl.h"

/* ------------------------------------------------------------------------ */
/* divergence */

static warplab_status launch_divergence(wl_backend *backend, const wl_launch *launch,
                                        cl_uint selector)
{
    probe_args a;
    args_views(&a, launch, 2);
    arg_u64(&a, 0, launch->problem->dim[0]);
    arg_u32(&a, 0, (cl_uint)launch->problem->param);
    arg_u32(&a, 1, (cl_uint)launch->problem->dim[1]);
    arg_u32(&a, 2, selector);
    return wl_probe_cl_launch(backend, "probe_divergence", "probe_divergence",
                              launch->problem->dim[0], &a);
}

static warplab_status launch_lane(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    return launch_divergence(backend, launch, 0);
}
static warplab_status launch_warp(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    return launch_divergence(backend, launch, 1);
}
static warplab_status launch_block(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    return launch_divergence(backend, launch, 2);
}
#define SERIES(ladder_, rung_, launch_)                                                            \
    {                                                                                              \
        .ladder = ladder_, .rung = rung_, .launch = launch_                                        \
    }

const wl_impl wl_opencl_probe_lane = SERIES("divergence", "lane", launch_lane);
const wl_impl wl_opencl_probe_warp = SERIES("divergence", "warp", launch_warp);
const wl_impl wl_opencl_probe_block = SERIES("divergence", "block", launch_block);
