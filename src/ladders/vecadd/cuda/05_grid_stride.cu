/* Rung grid_stride: a grid that just fills the GPU (SMs x resident blocks),
 * each thread looping with stride gridDim x blockDim. Over grid: far fewer
 * blocks to schedule, and one launch shape for any n. The float4 rungs fall
 * back to it when their arrays cannot share a 16-byte boundary. */
#include "vecadd_rungs.cuh"

namespace
{

__global__ void vecadd_grid_stride(const float *a, const float *b, float *c, size_t n)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        c[i] = a[i] + b[i];
}

warplab_status grid_stride_on(wl_backend *backend, const float *a, const float *b, float *c,
                              size_t n)
{
    if (n == 0)
        return WARPLAB_OK;
    const unsigned block = 256;
    vecadd_grid_stride<<<wl_cuda_grid_for(backend, n, block), block, 0, wl_cuda_stream(backend)>>>(
        a, b, c, n);
    return WL_CUDA_LAUNCHED(backend, "vecadd grid_stride");
}

warplab_status launch_grid_stride(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    return grid_stride_on(backend, view_of(launch, VECADD_A), view_of(launch, VECADD_B),
                          view_of(launch, VECADD_C), wl_launch_count(launch));
}

const wl_impl grid_stride_impl = {
    .ladder = "vecadd", .rung = "grid_stride", .launch = launch_grid_stride};

} // namespace
