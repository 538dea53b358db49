/* Rung vectorized_flat: the float4 accesses of vectorized, one quad of each
 * array per thread and a grid that covers them all (no loop). The misaligned
 * head and the tail, fewer than 4 elements each, go to the first threads of
 * the grid, as in vectorized. */
#include "vecadd_rungs.cuh"

namespace
{

__global__ void vecadd_vectorized_flat(const float *a, const float *b, float *c, size_t n,
                                       size_t head, size_t quads)
{
    const size_t q = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (q < quads) {
        const float4 x = reinterpret_cast<const float4 *>(a + head)[q];
        const float4 y = reinterpret_cast<const float4 *>(b + head)[q];
        reinterpret_cast<float4 *>(c + head)[q] =
            make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
    }
    const size_t tail = head + quads * 4;
    if (q < head)
        c[q] = a[q] + b[q];
    if (q < n - tail)
        c[tail + q] = a[tail + q] + b[tail + q];
}

warplab_status launch_vectorized_flat(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    const float *a = view_of(launch, VECADD_A), *b = view_of(launch, VECADD_B);
    float *c = view_of(launch, VECADD_C);
    const size_t n = wl_launch_count(launch);
    if (n == 0)
        return WARPLAB_OK;
    size_t head = 0;
    if (!float4_head(a, b, c, n, &head))
        return grid_stride_on(backend, a, b, c, n);
    const unsigned block = 256;
    const size_t quads = (n - head) / 4;
    /* Threads for the quads, and at least 4 for the head and the tail. */
    const size_t threads = quads > 4 ? quads : 4;
    const size_t blocks = (threads + block - 1) / block;
    if (blocks > (size_t)backend->info.max_grid_dim[0])
        return launch_vectorized(backend, launch, state);
    vecadd_vectorized_flat<<<(unsigned)blocks, block, 0, wl_cuda_stream(backend)>>>(a, b, c, n,
                                                                                    head, quads);
    return WL_CUDA_LAUNCHED(backend, "vecadd vectorized_flat");
}

const wl_impl vectorized_flat_impl = {
    .ladder = "vecadd", .rung = "vectorized_flat", .launch = launch_vectorized_flat};

} // namespace
