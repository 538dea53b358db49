/* The banks probe's OpenCL series (kernels in kernels/probe_banks.cl). */
#include "probe_opencl.h"

/* ------------------------------------------------------------------------ */
/* banks */

static warplab_status launch_banks(wl_backend *backend, const wl_launch *launch, const char *kernel,
                                   size_t word)
{
    probe_args a;
    args_views(&a, launch, 2);
    arg_u64(&a, 0, launch->problem->dim[0]);
    arg_u32(&a, 0, (cl_uint)launch->problem->param);
    arg_u32(&a, 1, (cl_uint)launch->problem->dim[1]);
    arg_u32(&a, 2, WL_BANKS_WORDS);
    a.list[a.count++] = WL_CL_LOCAL(WL_BANKS_WORDS * word);
    return wl_probe_cl_launch(backend, "probe_banks", kernel, launch->problem->dim[0], &a);
}

static warplab_status launch_word4(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    return launch_banks(backend, launch, "probe_banks_word4", 4);
}

static warplab_status launch_word8(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    return launch_banks(backend, launch, "probe_banks_word8", 8);
}
#define SERIES(ladder_, rung_, launch_)                                                            \
    {                                                                                              \
        .ladder = ladder_, .rung = rung_, .launch = launch_                                        \
    }

const wl_impl wl_opencl_probe_word4 = SERIES("banks", "word4", launch_word4);
const wl_impl wl_opencl_probe_word8 = SERIES("banks", "word8", launch_word8);
