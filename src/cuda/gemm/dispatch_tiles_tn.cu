/* The FP32 tile kernels for op(A) = T, op(B) = N (dispatch_tiles.cuh). */
#include "dispatch_tiles.cuh"

cudaError_t wl_gemm_launch_tiles_tn(wl_gemm_kernel kernel, const gemm_params &g,
                                    const wl_gemm_plan &plan, float *partial, cudaStream_t stream)
{
    return launch_tile_kernel<true, false>(kernel, g, plan, partial, stream);
}
