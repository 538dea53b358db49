/* The memories probe's OpenCL series (kernels in kernels/probe_memories.cl). */
#include "probe_opencl.h"

#include <stdio.h>

static warplab_status launch_table(wl_backend *backend, const wl_launch *launch, const char *kernel)
{
    probe_args a;
    args_views(&a, launch, 2);
    arg_u64(&a, 0, launch->problem->dim[0]);
    arg_u32(&a, 0, (cl_uint)launch->problem->param);
    arg_u32(&a, 1, (cl_uint)launch->problem->dim[1]);
    return wl_probe_cl_launch(backend, "probe_memories", kernel, launch->problem->dim[0], &a);
}

static warplab_status launch_constant(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    return launch_table(backend, launch, "probe_table_constant");
}
static warplab_status launch_global_table(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    return launch_table(backend, launch, "probe_table_global");
}

static warplab_status launch_array(wl_backend *backend, const wl_launch *launch, const char *form)
{
    char kernel[64];
    snprintf(kernel, sizeof kernel, "probe_array_%ld_%s", launch->problem->param, form);
    probe_args a;
    args_views(&a, launch, 2);
    arg_u64(&a, 0, launch->problem->dim[0]);
    arg_u32(&a, 0, (cl_uint)launch->problem->dim[1]);
    return wl_probe_cl_launch(backend, "probe_memories", kernel, launch->problem->dim[0], &a);
}

static warplab_status launch_registers(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    return launch_array(backend, launch, "registers");
}
static warplab_status launch_local(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    return launch_array(backend, launch, "local");
}

const wl_impl wl_opencl_probe_constant = {
    .ladder = "memories_constant", .rung = "constant", .launch = launch_constant};
const wl_impl wl_opencl_probe_global_table = {
    .ladder = "memories_constant", .rung = "global", .launch = launch_global_table};
const wl_impl wl_opencl_probe_registers = {
    .ladder = "memories_local", .rung = "registers", .launch = launch_registers};
const wl_impl wl_opencl_probe_local = {
    .ladder = "memories_local", .rung = "local", .launch = launch_local};
