/* Rung vectorized: float4 loads and stores, two of each in flight per loop
 * trip. Over grid_stride: a quarter of the memory instructions for the same
 * bytes, and more bytes in flight per thread, which is what HBM needs to
 * approach a copy's bandwidth. The first `head` elements (until the pointers
 * reach a 16-byte boundary) and the last n % 4 are done one at a time. */
#include "vecadd_rungs.cuh"

namespace
{

__global__ void vecadd_vectorized(const float *a, const float *b, float *c, size_t n, size_t head)
{
    const size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    const size_t quads = (n - head) / 4;
    const float4 *a4 = reinterpret_cast<const float4 *>(a + head);
    const float4 *b4 = reinterpret_cast<const float4 *>(b + head);
    float4 *c4 = reinterpret_cast<float4 *>(c + head);
    size_t q = tid;
    for (; q + stride < quads; q += 2 * stride) {
        float4 x0 = a4[q], y0 = b4[q];
        float4 x1 = a4[q + stride], y1 = b4[q + stride];
        c4[q] = make_float4(x0.x + y0.x, x0.y + y0.y, x0.z + y0.z, x0.w + y0.w);
        c4[q + stride] = make_float4(x1.x + y1.x, x1.y + y1.y, x1.z + y1.z, x1.w + y1.w);
    }
    if (q < quads) {
        float4 x = a4[q], y = b4[q];
        c4[q] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
    }
    const size_t tail = head + quads * 4;
    if (tid < head)
        c[tid] = a[tid] + b[tid];
    if (tid < n - tail)
        c[tail + tid] = a[tail + tid] + b[tail + tid];
}

warplab_status launch_vectorized(wl_backend *backend, const wl_launch *launch, void *state)
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
    size_t quads = (n - head) / 4;
    vecadd_vectorized<<<wl_cuda_grid_for(backend, quads > 4 ? quads : 4, block), block, 0,
                        wl_cuda_stream(backend)>>>(a, b, c, n, head);
    return WL_CUDA_LAUNCHED(backend, "vecadd vectorized");
}

const wl_impl vectorized_impl = {
    .ladder = "vecadd", .rung = "vectorized", .launch = launch_vectorized};

} // namespace
