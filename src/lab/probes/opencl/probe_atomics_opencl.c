/* The atomics probe's OpenCL series (kernels in kernels/probe_atomics.cl). */
#include "probe_opencl.h"

/* ------------------------------------------------------------------------ */
/* atomics: counters zeroed before every run, untimed */

static warplab_status launch_atomics(wl_backend *backend, const wl_launch *launch,
                                     const char *kernel, bool local_slots)
{
    probe_args a;
    args_views(&a, launch, 2);
    const size_t addresses = launch->problem->dim[0] / (size_t)launch->problem->param;
    arg_u64(&a, 0, launch->problem->dim[0]);
    arg_u64(&a, 1, addresses);
    arg_u32(&a, 0, (cl_uint)launch->problem->dim[1]);
    if (local_slots)
        a.list[a.count++] = WL_CL_LOCAL(WL_PROBE_BLOCK * sizeof(cl_int));
    return wl_probe_cl_launch(backend, "probe_atomics", kernel, launch->problem->dim[0], &a);
}

static warplab_status launch_global_int(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    return launch_atomics(backend, launch, "probe_atomic_global_int", false);
}
static warplab_status launch_shared_int(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    return launch_atomics(backend, launch, "probe_atomic_local_int", true);
}
static warplab_status launch_cas_float(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    return launch_atomics(backend, launch, "probe_atomic_cas_float", false);
}
#define ATOMIC(rung_, launch_)                                                                     \
    {                                                                                              \
        .ladder = "atomics", .rung = rung_, .prepare = wl_probe_zero_last_buffer,                  \
        .launch = launch_                                                                          \
    }

const wl_impl wl_opencl_probe_global_int = ATOMIC("global_int", launch_global_int);
const wl_impl wl_opencl_probe_shared_int = ATOMIC("shared_int", launch_shared_int);
const wl_impl wl_opencl_probe_cas_float = ATOMIC("cas_float", launch_cas_float);

/* The atomic functions: one kernel each, probe_atomic_<rung>. */
#define FUNCTION_LAUNCH(name)                                                                      \
    static warplab_status launch_##name(wl_backend *backend, const wl_launch *launch, void *state) \
    {                                                                                              \
        (void)state;                                                                               \
        return launch_atomics(backend, launch, "probe_atomic_" #name, false);                      \
    }
FUNCTION_LAUNCH(add)
FUNCTION_LAUNCH(sub)
FUNCTION_LAUNCH(exch)
FUNCTION_LAUNCH(min)
FUNCTION_LAUNCH(max)
FUNCTION_LAUNCH(inc)
FUNCTION_LAUNCH(dec)
FUNCTION_LAUNCH(and)
FUNCTION_LAUNCH(or)
FUNCTION_LAUNCH(xor)

#define FUNCTION(rung_, prepare_)                                                                  \
    {                                                                                              \
        .ladder = "atomic_functions", .rung = #rung_, .prepare = prepare_,                         \
        .launch = launch_##rung_                                                                   \
    }
const wl_impl wl_opencl_probe_atomic_functions[10] = {
    FUNCTION(add, wl_probe_zero_last_buffer),  FUNCTION(sub, wl_probe_zero_last_buffer),
    FUNCTION(exch, wl_probe_zero_last_buffer), FUNCTION(min, wl_probe_zero_last_buffer),
    FUNCTION(max, wl_probe_zero_last_buffer),  FUNCTION(inc, wl_probe_zero_last_buffer),
    FUNCTION(dec, wl_probe_zero_last_buffer),  FUNCTION(and, wl_probe_ones_last_buffer),
    FUNCTION(or, wl_probe_zero_last_buffer),   FUNCTION(xor, wl_probe_zero_last_buffer),
};
