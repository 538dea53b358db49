/* Rung one_block: the course's first kernel, vectoradd<<<1, N>>> (seed 001).
 * One thread per element in a single block, so one SM does all the work; the
 * rung's limit (n <= max threads per block) is checked before the launch. */
#include "vecadd_rungs.cuh"

namespace
{

__global__ void vecadd_one_block(const float *a, const float *b, float *c)
{
    int i = threadIdx.x;
    c[i] = a[i] + b[i];
}

warplab_status launch_one_block(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    if (wl_launch_count(launch) == 0)
        return WARPLAB_OK;
    vecadd_one_block<<<1, (unsigned)wl_launch_count(launch), 0, wl_cuda_stream(backend)>>>(
        view_of(launch, VECADD_A), view_of(launch, VECADD_B), view_of(launch, VECADD_C));
    return WL_CUDA_LAUNCHED(backend, "vecadd one_block");
}

const wl_impl one_block_impl = {
    .ladder = "vecadd", .rung = "one_block", .launch = launch_one_block};

} // namespace
