/* Rung h2d: the copy of one input array from page-locked host memory
 * (seed 001's cudaMemcpy(..., cudaMemcpyHostToDevice)), timed apart from
 * the kernels: the transfer a GPU vector add pays before it starts. */
#include "vecadd_rungs.cuh"

namespace
{

/* The page-locked array, filled untimed with input a's values. */
warplab_status staging_setup(wl_backend *backend, const wl_launch *launch, void **state)
{
    staging *s = (staging *)calloc(1, sizeof *s);
    if (!s)
        return wl_fail(backend, WARPLAB_ERROR_HOST_OUT_OF_MEMORY, "cannot allocate staging");
    *state = s;
    cudaError_t e = cudaMallocHost((void **)&s->host, wl_launch_count(launch) * sizeof(float) + 16);
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(s->host, view_of(launch, VECADD_A),
                            wl_launch_count(launch) * sizeof(float), cudaMemcpyDeviceToHost,
                            wl_cuda_stream(backend));
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(wl_cuda_stream(backend));
    return wl_cuda_check(backend, e, "allocating page-locked host memory");
}

warplab_status launch_h2d(wl_backend *backend, const wl_launch *launch, void *state)
{
    return copy_array(backend, view_of(launch, VECADD_C), ((staging *)state)->host,
                      wl_launch_count(launch), cudaMemcpyHostToDevice, "copy host to device");
}

const wl_impl h2d_impl = {.ladder = "vecadd",
                          .rung = "h2d",
                          .setup = staging_setup,
                          .launch = launch_h2d,
                          .teardown = staging_teardown};

} // namespace
