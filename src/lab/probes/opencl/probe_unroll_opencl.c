/* The unroll probe's OpenCL series (kernels in kernels/probe_unroll.cl). */
#include "probe_opencl.h"

/* ------------------------------------------------------------------------ */
/* unroll */

static warplab_status launch_poly(wl_backend *backend, const wl_launch *launch, const char *kernel)
{
    probe_args a;
    args_views(&a, launch, 3);
    arg_u64(&a, 0, launch->problem->dim[0]);
    arg_u32(&a, 0, (cl_uint)launch->problem->dim[1]);
    arg_u32(&a, 1, WL_UNROLL_DEGREE);
    a.list[a.count++] = WL_CL_LOCAL(WL_UNROLL_DEGREE * sizeof(cl_float));
    return wl_probe_cl_launch(backend, "probe_unroll", kernel, launch->problem->dim[0], &a);
}

static warplab_status launch_rolled(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    return launch_poly(backend, launch, "probe_poly_rolled");
}
static warplab_status launch_compiler(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    return launch_poly(backend, launch, "probe_poly_compiler");
}
static warplab_status launch_pragma(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    return launch_poly(backend, launch, "probe_poly_pragma");
}
static warplab_status launch_by_hand(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    return launch_poly(backend, launch, "probe_poly_by_hand");
}

/* ------------------------------------------------------------------------ */
#define SERIES(ladder_, rung_, launch_)                                                            \
    {                                                                                              \
        .ladder = ladder_, .rung = rung_, .launch = launch_                                        \
    }

const wl_impl wl_opencl_probe_rolled = SERIES("unroll", "rolled", launch_rolled);
const wl_impl wl_opencl_probe_compiler = SERIES("unroll", "compiler", launch_compiler);
const wl_impl wl_opencl_probe_pragma = SERIES("unroll", "pragma", launch_pragma);
const wl_impl wl_opencl_probe_by_hand = SERIES("unroll", "by_hand", launch_by_hand);
