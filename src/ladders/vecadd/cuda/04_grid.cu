/* Rung grid: ceil(n / 1024) blocks of 1024 threads, the course's
 * thread_block_size (seed 001). Over one_block: every SM gets blocks, n is
 * unlimited. The bounds check is ours; the course's kernel writes past the
 * end when n is not a multiple of the block size. The managed rungs
 * (11_managed.cu, 12_managed_prefetch.cu) launch this kernel too, as the
 * course's managed program does. */
#include "vecadd_rungs.cuh"

namespace
{

__global__ void vecadd_grid(const float *a, const float *b, float *c, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}

warplab_status grid_on(wl_backend *backend, const float *a, const float *b, float *c, size_t n)
{
    if (n == 0)
        return WARPLAB_OK;
    const unsigned block = 1024;
    size_t blocks = (n + block - 1) / block;
    if (blocks > (size_t)backend->info.max_grid_dim[0])
        return wl_fail(backend, WARPLAB_ERROR_UNSUPPORTED,
                       "n=%zu needs %zu blocks, past the grid limit of %d", n, blocks,
                       backend->info.max_grid_dim[0]);
    vecadd_grid<<<(unsigned)blocks, block, 0, wl_cuda_stream(backend)>>>(a, b, c, n);
    return WL_CUDA_LAUNCHED(backend, "vecadd grid");
}

warplab_status launch_grid(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    return grid_on(backend, view_of(launch, VECADD_A), view_of(launch, VECADD_B),
                   view_of(launch, VECADD_C), wl_launch_count(launch));
}

const wl_impl grid_impl = {.ladder = "vecadd", .rung = "grid", .launch = launch_grid};

} // namespace
