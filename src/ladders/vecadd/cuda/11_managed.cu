/* Rung managed: the course's managed-memory program (seed 001,
 * cudaMallocManaged): its launch (the grid rung's kernel, 04_grid.cu:
 * ceil(n / 1024) blocks of 1024) on managed arrays whose pages start on the
 * host and fault over on first touch, inside the timed kernel. Unlike the
 * course's program, the result is read after the stream's work is done
 * (the course reads c without a synchronise: an erratum). */
#include "vecadd_rungs.cuh"

namespace
{

/* Managed memory: never ask for more than the card has free (on these
 * machines, oversubscribing managed memory can hang the GPU). */
warplab_status managed_setup(wl_backend *backend, const wl_launch *launch, void **state)
{
    if (!backend->info.managed_memory)
        return wl_fail(backend, WARPLAB_ERROR_UNSUPPORTED, "%s has no managed memory",
                       backend->info.name);
    size_t free_bytes = 0, total = 0;
    warplab_status status =
        wl_cuda_check(backend, cudaMemGetInfo(&free_bytes, &total), "cudaMemGetInfo");
    if (status != WARPLAB_OK)
        return status;
    const size_t bytes = wl_launch_count(launch) * sizeof(float) + 16;
    const size_t spare = (size_t)512 << 20;
    if (3 * bytes + spare > free_bytes)
        return wl_fail(backend, WARPLAB_ERROR_DEVICE_OUT_OF_MEMORY,
                       "managed memory: 3 arrays of %.2f GB need more than the %.2f GB free; "
                       "refusing to oversubscribe",
                       bytes / 1e9, free_bytes / 1e9);
    staging *s = (staging *)calloc(1, sizeof *s);
    if (!s)
        return wl_fail(backend, WARPLAB_ERROR_HOST_OUT_OF_MEMORY, "cannot allocate staging");
    *state = s;
    cudaStream_t stream = wl_cuda_stream(backend);
    cudaError_t e = cudaSuccess;
    for (int i = 0; i < 3 && e == cudaSuccess; i++)
        e = cudaMallocManaged((void **)&s->managed[i], bytes, cudaMemAttachGlobal);
    for (int i = 0; i < 2 && e == cudaSuccess; i++)
        e = cudaMemcpyAsync(s->managed[i], view_of(launch, i),
                            wl_launch_count(launch) * sizeof(float), cudaMemcpyDefault, stream);
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(stream);
    return wl_cuda_check(backend, e, "allocating managed memory");
}

/* Before each run, untimed: every page back on the host, as if the host had
 * just written the inputs. */
warplab_status managed_prepare(wl_backend *backend, const wl_launch *launch, void *state)
{
    staging *s = (staging *)state;
    if (wl_launch_count(launch) == 0)
        return WARPLAB_OK; /* a zero-byte prefetch is an invalid argument */
    cudaMemLocation host;
    host.type = cudaMemLocationTypeHost;
    host.id = 0;
    cudaError_t e = cudaSuccess;
    for (int i = 0; i < 3 && e == cudaSuccess; i++)
        e = cudaMemPrefetchAsync(s->managed[i], wl_launch_count(launch) * sizeof(float), host, 0,
                                 wl_cuda_stream(backend));
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(wl_cuda_stream(backend));
    return wl_cuda_check(backend, e, "moving managed pages to the host");
}

/* After the checked run: the managed result into the harness's output. */
warplab_status managed_finish(wl_backend *backend, const wl_launch *launch, void *state)
{
    return copy_array(backend, view_of(launch, VECADD_C), ((staging *)state)->managed[2],
                      wl_launch_count(launch), cudaMemcpyDefault, "reading managed memory");
}

warplab_status launch_managed(wl_backend *backend, const wl_launch *launch, void *state)
{
    staging *s = (staging *)state;
    return grid_on(backend, s->managed[0], s->managed[1], s->managed[2], wl_launch_count(launch));
}

const wl_impl managed_impl = {.ladder = "vecadd",
                              .rung = "managed",
                              .setup = managed_setup,
                              .prepare = managed_prepare,
                              .launch = launch_managed,
                              .finish = managed_finish,
                              .teardown = staging_teardown};

} // namespace
