/* Programmatic dependent launch (sm_90; CUDA Programming Guide,
 * "Programmatic Dependent Launch and Synchronization") for operations of two
 * kernels (a reset of a workspace and the main kernel; a split-K product and
 * its sum; a copy of the operands and the GEMM): the first, launched
 * plainly, releases its dependent (wl_pdl_release), and the second, launched
 * as its dependent (wl_pdl_launch), is placed on the SMs while the first
 * runs and waits in wl_pdl_wait, before it touches what the first writes,
 * until the first has finished and its writes are visible.
 * Launched plainly, a kernel starts only after the one before it has
 * drained and its own launch has been processed: an idle GPU for a few
 * microseconds, as long as a small operation's whole work (the split-K sum,
 * src/cuda/gemm/gemm_device.cuh, measured it). Work queued before the reset
 * is finished before the reset starts, so the dependent may read it before
 * its wait. Before sm_90 the device calls are no-ops and the runtime treats
 * the attribute as a permission: an ordinary launch. Captured into a CUDA
 * graph, the pair keeps its programmatic edge. */
#ifndef WARPLAB_DEPENDENT_LAUNCH_CUH
#define WARPLAB_DEPENDENT_LAUNCH_CUH

namespace
{

__device__ __forceinline__ void wl_pdl_release()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

__device__ __forceinline__ void wl_pdl_wait()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

/* The kernels and launches: nvcc only (the emulated tests,
 * tests/emulate/, compile the device calls above as plain C++). */
#ifdef __CUDACC__
} // namespace

#include <cuda_runtime.h>

namespace
{

/* words 32-bit zeros from p, the dependent released first. */
__global__ void wl_pdl_zero_words(unsigned *p, size_t words)
{
    wl_pdl_release();
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < words;
         i += (size_t)gridDim.x * blockDim.x)
        p[i] = 0;
}

/* Zeroes bytes (a multiple of 4, p on 4 bytes) on stream with
 * wl_pdl_zero_words: up to 256 blocks of 256 threads. */
inline cudaError_t wl_pdl_zero(void *p, size_t bytes, cudaStream_t stream)
{
    const size_t words = bytes / 4;
    size_t blocks = (words + 255) / 256;
    blocks = blocks < 1 ? 1 : blocks > 256 ? 256 : blocks;
    wl_pdl_zero_words<<<(unsigned)blocks, 256, 0, stream>>>(static_cast<unsigned *>(p), words);
    return cudaGetLastError();
}

/* kernel<<<grid, block, shared, stream>>>(args...) as the dependent of the
 * kernel before it on the stream. */
template <typename... Params, typename... Args>
inline cudaError_t wl_pdl_launch(void (*kernel)(Params...), dim3 grid, dim3 block, size_t shared,
                                 cudaStream_t stream, Args... args)
{
    cudaLaunchAttribute attribute[1];
    attribute[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attribute[0].val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t config = {};
    config.gridDim = grid;
    config.blockDim = block;
    config.dynamicSmemBytes = shared;
    config.stream = stream;
    config.attrs = attribute;
    config.numAttrs = 1;
    return cudaLaunchKernelEx(&config, kernel, static_cast<Params>(args)...);
}

/* The pair of a reset and the kernel that reads it, either way: with
 * dependent (sm_90), wl_pdl_zero and then wl_launch_after launches the
 * kernel as its dependent; else cudaMemsetAsync and a plain launch. */
inline cudaError_t wl_zero_before(void *p, size_t bytes, cudaStream_t stream, bool dependent)
{
    return dependent ? wl_pdl_zero(p, bytes, stream) : cudaMemsetAsync(p, 0, bytes, stream);
}

/* kernel<<<grid, block, shared, stream>>>(args...): with dependent, as the
 * dependent of the kernel before it on the stream (wl_pdl_launch). */
template <typename... Params, typename... Args>
inline cudaError_t wl_launch_after(bool dependent, void (*kernel)(Params...), dim3 grid, dim3 block,
                                   size_t shared, cudaStream_t stream, Args... args)
{
    if (dependent)
        return wl_pdl_launch(kernel, grid, block, shared, stream, args...);
    kernel<<<grid, block, shared, stream>>>(static_cast<Params>(args)...);
    return cudaGetLastError();
}
#endif

} // namespace

#endif
