/* The blocksize probe: one grid-stride copy launched with block sizes
 * 32..1024 and various grids. */
#include "probe_cuda.h"

enum { COPY_IN = 0, COPY_OUT };

/* ------------------------------------------------------------------------ */
/* blocksize: the same kernel for every series; only the grid differs.      */

/* Isolates the launch shape: a plain grid-stride copy, one float per trip. */
__global__ void probe_grid_stride_copy(const float *in, float *out, size_t n)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        out[i] = in[i];
}

extern "C" warplab_status wl_cuda_probe_copy_attributes(int *registers, size_t *shared_bytes)
{
    cudaFuncAttributes attributes;
    cudaError_t e = cudaFuncGetAttributes(&attributes, probe_grid_stride_copy);
    if (e != cudaSuccess) {
        cudaGetLastError();
        return WARPLAB_ERROR_BACKEND;
    }
    *registers = attributes.numRegs;
    *shared_bytes = attributes.sharedSizeBytes;
    return WARPLAB_OK;
}

extern "C" int wl_cuda_probe_copy_blocks_per_sm(int block)
{
    int blocks = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, probe_grid_stride_copy, block, 0) !=
        cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return blocks;
}

/* blocks_per_sm > 0: that many blocks per SM; 0: one element per thread;
 * < 0: as many as CUDA's occupancy calculator says fit. */
static warplab_status launch_copy_grid(wl_backend *backend, const wl_launch *launch,
                                       long blocks_per_sm)
{
    const size_t n = launch->problem->dim[0];
    const unsigned block = (unsigned)launch->problem->param;
    const size_t sms =
        (size_t)(backend->info.multiprocessors > 0 ? backend->info.multiprocessors : 1);
    size_t grid = (n + block - 1) / block;
    if (blocks_per_sm < 0) {
        int fit = wl_cuda_probe_copy_blocks_per_sm((int)block);
        if (fit <= 0)
            return wl_fail(backend, WARPLAB_ERROR_BACKEND,
                           "the occupancy calculator found no room for a block of %u", block);
        grid = sms * (size_t)fit;
    } else if (blocks_per_sm > 0) {
        grid = sms * (size_t)blocks_per_sm;
    }
    if (grid == 0)
        grid = 1;
    probe_grid_stride_copy<<<(unsigned)grid, block, 0, wl_cuda_stream(backend)>>>(
        view_of<const float>(launch, COPY_IN), view_of<float>(launch, COPY_OUT), n);
    return WL_CUDA_LAUNCHED(backend, "probe grid-stride copy");
}

static warplab_status launch_per_element(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    return launch_copy_grid(backend, launch, 0);
}
static warplab_status launch_sm_x1(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    return launch_copy_grid(backend, launch, 1);
}
static warplab_status launch_sm_x4(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    return launch_copy_grid(backend, launch, 4);
}
static warplab_status launch_resident(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    return launch_copy_grid(backend, launch, -1);
}

extern "C" {
const wl_impl wl_cuda_probe_per_element = {
    .ladder = "blocksize", .rung = "per_element", .launch = launch_per_element};
const wl_impl wl_cuda_probe_sm_x1 = {
    .ladder = "blocksize", .rung = "sm_x1", .launch = launch_sm_x1};
const wl_impl wl_cuda_probe_sm_x4 = {
    .ladder = "blocksize", .rung = "sm_x4", .launch = launch_sm_x4};
const wl_impl wl_cuda_probe_resident = {
    .ladder = "blocksize", .rung = "resident", .launch = launch_resident};
}
