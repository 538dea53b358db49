/* The tiles probe's OpenCL series (kernel in kernels/probe_tiles.cl): the
 * tile side and the work-group's shape are launch arguments. */
#include "probe_opencl.h"

static warplab_status launch_tiles(wl_backend *backend, const wl_launch *launch, cl_uint step)
{
    const size_t rows = launch->problem->dim[0], cols = launch->problem->dim[1];
    const cl_uint tile = (cl_uint)launch->problem->param;
    probe_args a;
    args_views(&a, launch, 2);
    arg_u64(&a, 0, rows);
    arg_u64(&a, 1, cols);
    arg_u32(&a, 0, tile);
    arg_u32(&a, 1, step);
    a.list[a.count++] = WL_CL_LOCAL((size_t)tile * (tile + 1) * sizeof(float));
    const size_t local[2] = {tile, step};
    const size_t global[2] = {(cols + tile - 1) / tile * tile, (rows + tile - 1) / tile * step};
    return wl_opencl_launch(backend, "probe_tiles", "probe_tiles", 2, global, local, a.count,
                            a.list);
}

static warplab_status launch_square_block(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    return launch_tiles(backend, launch, (cl_uint)launch->problem->param);
}

static warplab_status launch_eight_rows(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    const long tile = launch->problem->param;
    return launch_tiles(backend, launch, (cl_uint)(tile < 8 ? tile : 8));
}

const wl_impl wl_opencl_probe_square_block = {
    .ladder = "tiles", .rung = "square_block", .launch = launch_square_block};
const wl_impl wl_opencl_probe_eight_rows = {
    .ladder = "tiles", .rung = "eight_rows", .launch = launch_eight_rows};
