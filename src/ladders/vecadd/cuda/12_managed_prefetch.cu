/* Rung managed_prefetch: the managed rung with one bulk prefetch of the
 * three arrays to the GPU before the kernel, both timed. Over managed: the
 * pages move in large transfers instead of one fault at a time. The setup,
 * the untimed move of every page back to the host before each run, and the
 * read of the result are managed's (11_managed.cu). */
#include "vecadd_rungs.cuh"

namespace
{

warplab_status launch_managed_prefetch(wl_backend *backend, const wl_launch *launch, void *state)
{
    staging *s = (staging *)state;
    cudaMemLocation device;
    device.type = cudaMemLocationTypeDevice;
    int ordinal = 0;
    cudaGetDevice(&ordinal);
    device.id = ordinal;
    cudaError_t e = cudaSuccess;
    for (int i = 0; i < 3 && e == cudaSuccess && wl_launch_count(launch) > 0; i++)
        e = cudaMemPrefetchAsync(s->managed[i], wl_launch_count(launch) * sizeof(float), device, 0,
                                 wl_cuda_stream(backend));
    if (e != cudaSuccess)
        return wl_cuda_check(backend, e, "prefetching managed memory");
    return grid_on(backend, s->managed[0], s->managed[1], s->managed[2], wl_launch_count(launch));
}

const wl_impl managed_prefetch_impl = {.ladder = "vecadd",
                                       .rung = "managed_prefetch",
                                       .setup = managed_setup,
                                       .prepare = managed_prepare,
                                       .launch = launch_managed_prefetch,
                                       .finish = managed_finish,
                                       .teardown = staging_teardown};

} // namespace
