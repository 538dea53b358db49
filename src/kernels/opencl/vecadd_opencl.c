/* The opencl backend's vector-add rungs: the CUDA ladder's kernels in
 * OpenCL C, and the copies through the OpenCL queue. */
/*
 * Contents: the vecadd rungs this file implements, in ladder order
 * (number = place on the ladder, as `warplab ladders vecadd` lists it):
 *    3. one_block -- one block of n threads
 *    4. grid -- grid of 1024-thread blocks
 *    5. grid_stride -- grid-stride loop
 *    6. vectorized -- 16-byte vector loads and stores
 *    8. h2d -- explicit copy in (1 array)
 *    9. d2h -- explicit copy out (1 array)
 *   12. copy -- device-to-device copy (reference)
 */
#include "kernels/vecadd.h"
#include "opencl_backend.h"

#include <stdlib.h>

/* Arguments shared by every vecadd kernel: (a, off, b, off, c, off, n). */
typedef struct vecadd_args {
    cl_mem mem[3];
    cl_ulong off[3];
    cl_ulong n;
    wl_cl_arg list[7];
} vecadd_args;

static void make_args(const wl_launch *launch, vecadd_args *args)
{
    for (int i = 0; i < 3; i++) {
        args->mem[i] = wl_cl_mem(launch->buf[i]);
        args->off[i] = wl_cl_offset(launch->buf[i], sizeof(float));
        args->list[2 * i] = WL_CL_VALUE(args->mem[i]);
        args->list[2 * i + 1] = WL_CL_VALUE(args->off[i]);
    }
    args->n = wl_launch_count(launch);
    args->list[6] = WL_CL_VALUE(args->n);
}

static size_t group_size(const wl_backend *backend, size_t wanted)
{
    size_t most = (size_t)backend->info.max_threads_per_block;
    return most && wanted > most ? most : wanted;
}

/* A device-sized range for the grid-stride kernels: 8 work-groups per
 * compute unit, never more work-items than the work. */
static size_t device_range(const wl_backend *backend, size_t work, size_t group)
{
    size_t full =
        (size_t)(backend->info.multiprocessors > 0 ? backend->info.multiprocessors : 1) * 8 * group;
    return work < full ? work : full;
}

/* warplab:rung vecadd one_block */
static warplab_status launch_one_block(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    vecadd_args args;
    make_args(launch, &args);
    size_t size = wl_launch_count(launch);
    return wl_opencl_launch(backend, "vecadd", "vecadd_one_block", 1, &size, &size, 7, args.list);
}
/* warplab:end */

static const wl_impl one_block_impl = {
    .ladder = "vecadd", .rung = "one_block", .launch = launch_one_block};

/* warplab:rung vecadd grid */
static warplab_status launch_grid(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    vecadd_args args;
    make_args(launch, &args);
    size_t global = wl_launch_count(launch), local = group_size(backend, 1024);
    return wl_opencl_launch(backend, "vecadd", "vecadd_grid", 1, &global, &local, 7, args.list);
}
/* warplab:end */

static const wl_impl grid_impl = {.ladder = "vecadd", .rung = "grid", .launch = launch_grid};

/* warplab:rung vecadd grid_stride */
static warplab_status launch_grid_stride(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    vecadd_args args;
    make_args(launch, &args);
    size_t local = group_size(backend, 256),
           global = device_range(backend, wl_launch_count(launch), local);
    return wl_opencl_launch(backend, "vecadd", "vecadd_grid_stride", 1, &global, &local, 7,
                            args.list);
}
/* warplab:end */

static const wl_impl grid_stride_impl = {
    .ladder = "vecadd", .rung = "grid_stride", .launch = launch_grid_stride};

/* warplab:rung vecadd vectorized */
static warplab_status launch_vectorized(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    vecadd_args args;
    make_args(launch, &args);
    /* At least 3 work-items so the tail (n % 4 elements) is covered. */
    size_t quads = wl_launch_count(launch) / 4, local = group_size(backend, 256);
    size_t global =
        device_range(backend, quads > 3 ? quads : (wl_launch_count(launch) ? 3 : 0), local);
    return wl_opencl_launch(backend, "vecadd", "vecadd_vectorized", 1, &global, &local, 7,
                            args.list);
}
/* warplab:end */

static const wl_impl vectorized_impl = {
    .ladder = "vecadd", .rung = "vectorized", .launch = launch_vectorized};

/* warplab:rung vecadd copy */
static warplab_status launch_copy(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    if (wl_launch_count(launch) == 0)
        return WARPLAB_OK;
    return wl_opencl_check(
        backend,
        clEnqueueCopyBuffer(wl_opencl_queue(backend), wl_cl_mem(launch->buf[VECADD_A]),
                            wl_cl_mem(launch->buf[VECADD_C]), launch->buf[VECADD_A].offset,
                            launch->buf[VECADD_C].offset, wl_launch_count(launch) * sizeof(float),
                            0, NULL, NULL),
        "clEnqueueCopyBuffer");
}
/* warplab:end */

static const wl_impl copy_impl = {.ladder = "vecadd", .rung = "copy", .launch = launch_copy};

/* warplab:rung vecadd h2d d2h */
/* Transfers: a host array holding a's values, copied in (h2d, into c) or
 * out (d2h, from a; finish puts it into c for the check). */
static warplab_status staging_setup(wl_backend *backend, const wl_launch *launch, void **state)
{
    float *host = malloc(wl_launch_count(launch) * sizeof(float) + 16);
    if (!host)
        return wl_fail(backend, WARPLAB_ERROR_HOST_OUT_OF_MEMORY, "cannot allocate staging");
    *state = host;
    return backend->ops->download(backend, launch->buf[VECADD_A].handle,
                                  launch->buf[VECADD_A].offset, host,
                                  wl_launch_count(launch) * sizeof(float));
}

static void staging_teardown(wl_backend *backend, void *state)
{
    (void)backend;
    free(state);
}
/* warplab:end */

/* warplab:rung vecadd h2d */
static warplab_status launch_h2d(wl_backend *backend, const wl_launch *launch, void *state)
{
    if (wl_launch_count(launch) == 0)
        return WARPLAB_OK;
    return wl_opencl_check(
        backend,
        clEnqueueWriteBuffer(wl_opencl_queue(backend), wl_cl_mem(launch->buf[VECADD_C]), CL_FALSE,
                             launch->buf[VECADD_C].offset, wl_launch_count(launch) * sizeof(float),
                             state, 0, NULL, NULL),
        "clEnqueueWriteBuffer");
}
/* warplab:end */

static const wl_impl h2d_impl = {.ladder = "vecadd",
                                 .rung = "h2d",
                                 .setup = staging_setup,
                                 .launch = launch_h2d,
                                 .teardown = staging_teardown};

/* warplab:rung vecadd d2h */
static warplab_status launch_d2h(wl_backend *backend, const wl_launch *launch, void *state)
{
    if (wl_launch_count(launch) == 0)
        return WARPLAB_OK;
    return wl_opencl_check(
        backend,
        clEnqueueReadBuffer(wl_opencl_queue(backend), wl_cl_mem(launch->buf[VECADD_A]), CL_FALSE,
                            launch->buf[VECADD_A].offset, wl_launch_count(launch) * sizeof(float),
                            state, 0, NULL, NULL),
        "clEnqueueReadBuffer");
}

static warplab_status finish_d2h(wl_backend *backend, const wl_launch *launch, void *state)
{
    warplab_status status = backend->ops->synchronize(backend);
    if (status != WARPLAB_OK || wl_launch_count(launch) == 0)
        return status;
    return backend->ops->upload(backend, launch->buf[VECADD_C].handle, launch->buf[VECADD_C].offset,
                                state, wl_launch_count(launch) * sizeof(float));
}
/* warplab:end */

static const wl_impl d2h_impl = {.ladder = "vecadd",
                                 .rung = "d2h",
                                 .setup = staging_setup,
                                 .launch = launch_d2h,
                                 .finish = finish_d2h,
                                 .teardown = staging_teardown};

const wl_impl *const wl_opencl_vecadd_impls[] = {&one_block_impl,  &grid_impl, &grid_stride_impl,
                                                 &vectorized_impl, &h2d_impl,  &d2h_impl,
                                                 &copy_impl,       NULL};
