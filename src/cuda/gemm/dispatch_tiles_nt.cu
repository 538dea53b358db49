/* The FP32 tile kernels for op(A) = N, op(B) = T (dispatch_tiles.cuh). */
#include "dispatch_tiles.cuh"

cudaError_t wl_gemm_launch_tiles_nt(wl_gemm_kernel kernel, const gemm_params &g,
                                    const wl_gemm_plan &plan, float *partial, cudaStream_t stream)
{
    return launch_tile_kernel<false, true>(kernel, g, plan, partial, stream);
}
