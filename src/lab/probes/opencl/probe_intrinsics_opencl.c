/* The intrinsics probe's OpenCL series (kernels in kernels/probe_intrinsics.cl). */
#include "probe_opencl.h"

/* ------------------------------------------------------------------------ */
/* intrinsics: the integer pair (buffers: cells, w, first, sum) */

static warplab_status launch_integers(wl_backend *backend, const wl_launch *launch,
                                      const char *kernel, cl_uint divisor_or_shift)
{
    probe_args a;
    args_views(&a, launch, 1);    /* cells */
    for (int i = 2; i < 4; i++) { /* first, sum */
        a.mem[i] = wl_cl_mem(launch->buf[i]);
        a.off[i] = wl_cl_offset(launch->buf[i], 4);
        a.list[a.count++] = WL_CL_VALUE(a.mem[i]);
        a.list[a.count++] = WL_CL_VALUE(a.off[i]);
    }
    arg_u64(&a, 0, launch->problem->dim[0]);
    arg_u32(&a, 0, (cl_uint)launch->problem->dim[1]);
    arg_u32(&a, 1, divisor_or_shift);
    arg_u32(&a, 2, WL_INT_STEP);
    return wl_probe_cl_launch(backend, "probe_intrinsics", kernel, launch->problem->dim[0], &a);
}

static warplab_status launch_div_mod(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    return launch_integers(backend, launch, "probe_div_mod", WL_INT_DIVISOR);
}
static warplab_status launch_shift_mask(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    return launch_integers(backend, launch, "probe_shift_mask", WL_INT_SHIFT);
}
#define SERIES(ladder_, rung_, launch_)                                                            \
    {                                                                                              \
        .ladder = ladder_, .rung = rung_, .launch = launch_                                        \
    }

const wl_impl wl_opencl_probe_div_mod = SERIES("intrinsics", "div_mod", launch_div_mod);
const wl_impl wl_opencl_probe_shift_mask = SERIES("intrinsics", "shift_mask", launch_shift_mask);
