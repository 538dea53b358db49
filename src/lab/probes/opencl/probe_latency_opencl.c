/* The latency probe's OpenCL series (kernels in kernels/probe_latency.cl). */
#include "probe_opencl.h"

static warplab_status launch_dependent(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    probe_args a;
    args_views(&a, launch, 2);
    arg_u64(&a, 0, launch->problem->dim[0] - 1);
    arg_u32(&a, 0, (cl_uint)launch->problem->dim[1]);
    const size_t one = 1;
    return wl_opencl_launch(backend, "probe_latency", "probe_chase", 1, &one, &one, a.count,
                            a.list);
}

static warplab_status launch_flight(wl_backend *backend, const wl_launch *launch,
                                    const char *kernel)
{
    probe_args a;
    args_views(&a, launch, 2);
    arg_u64(&a, 0, launch->problem->dim[0]);
    const size_t threads = (size_t)launch->problem->param, local = WL_FLIGHT_BLOCK;
    return wl_opencl_launch(backend, "probe_latency", kernel, 1, &threads, &local, a.count, a.list);
}

static warplab_status launch_loads_1(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    return launch_flight(backend, launch, "probe_flight_1");
}
static warplab_status launch_loads_4(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    return launch_flight(backend, launch, "probe_flight_4");
}
static warplab_status launch_loads_16(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    return launch_flight(backend, launch, "probe_flight_16");
}

const wl_impl wl_opencl_probe_dependent = {
    .ladder = "latency_chase", .rung = "dependent", .launch = launch_dependent};
const wl_impl wl_opencl_probe_loads_1 = {
    .ladder = "latency_flight", .rung = "loads_1", .launch = launch_loads_1};
const wl_impl wl_opencl_probe_loads_4 = {
    .ladder = "latency_flight", .rung = "loads_4", .launch = launch_loads_4};
const wl_impl wl_opencl_probe_loads_16 = {
    .ladder = "latency_flight", .rung = "loads_16", .launch = launch_loads_16};
