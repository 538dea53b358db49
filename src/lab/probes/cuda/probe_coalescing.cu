/* The coalescing probe (seed 003, 'Sdružený přístup do paměti'): a copy shifted by an offset, a
 * copy reading with a stride. */
#include "probe_cuda.h"

enum { COPY_IN = 0, COPY_OUT };

/* Series offset: isolates misalignment. Reads and writes start `offset`
 * floats past a 256-byte boundary; the work is the same at every offset. */
__global__ void probe_offset_copy(const float *in, float *out, size_t n, unsigned offset)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[offset + i] = in[offset + i];
}

/* Series stride: isolates strided reads; the writes stay coalesced. */
__global__ void probe_stride_copy(const float *in, float *out, size_t n, unsigned stride)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i * stride];
}

static warplab_status launch_offset(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    const size_t n = launch->problem->dim[0] - 32;
    probe_offset_copy<<<wl_probe_blocks(n), WL_PROBE_BLOCK, 0, wl_cuda_stream(backend)>>>(
        view_of<const float>(launch, COPY_IN), view_of<float>(launch, COPY_OUT), n,
        (unsigned)launch->problem->param);
    return WL_CUDA_LAUNCHED(backend, "probe offset copy");
}

static warplab_status launch_stride(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    const size_t n = launch->problem->dim[0] / (size_t)launch->problem->param;
    if (n == 0)
        return WARPLAB_OK;
    probe_stride_copy<<<wl_probe_blocks(n), WL_PROBE_BLOCK, 0, wl_cuda_stream(backend)>>>(
        view_of<const float>(launch, COPY_IN), view_of<float>(launch, COPY_OUT), n,
        (unsigned)launch->problem->param);
    return WL_CUDA_LAUNCHED(backend, "probe stride copy");
}

extern "C" {
const wl_impl wl_cuda_probe_offset = {
    .ladder = "coalescing", .rung = "offset", .launch = launch_offset};
const wl_impl wl_cuda_probe_stride = {
    .ladder = "coalescing", .rung = "stride", .launch = launch_stride};
}
