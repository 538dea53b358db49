/* BF16 copies of A and B for the BF16 rows (the rung and cuBLAS): made in
 * setup, never timed, so that both time the same work from BF16 operands in
 * device memory. Rounding is to nearest even, as the verification models. */
#include "gemm_launch.h"

#include <cuda_bf16.h>

/* dst[r][c] = bf16(src[r][c]) for r < rows, c < cols; dst's padding was
 * zeroed before. */
__global__ void convert_to_bf16(const float *src, int ld, __nv_bfloat16 *dst, int dst_ld, int rows,
                                int cols)
{
    const size_t count = (size_t)rows * cols;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count;
         i += (size_t)gridDim.x * blockDim.x) {
        const size_t r = i / (size_t)cols, c = i % (size_t)cols;
        dst[r * dst_ld + c] = __float2bfloat16_rn(src[r * ld + c]);
    }
}

static int round_up8(int x)
{
    return x < 8 ? 8 : (x + 7) / 8 * 8;
}

static cudaError_t make_copy(wl_backend *backend, const float *src, int ld, int rows, int cols,
                             int dst_ld, void **dst)
{
    const size_t bytes = (size_t)(rows > 0 ? rows : 1) * dst_ld * sizeof(__nv_bfloat16);
    cudaError_t e = cudaMalloc(dst, bytes);
    cudaStream_t stream = wl_cuda_stream(backend);
    if (e == cudaSuccess)
        e = cudaMemsetAsync(*dst, 0, bytes, stream);
    if (e == cudaSuccess && rows > 0 && cols > 0) {
        const unsigned block = 256;
        convert_to_bf16<<<wl_cuda_grid_for(backend, (size_t)rows * cols, block), block, 0,
                          stream>>>(src, ld, (__nv_bfloat16 *)*dst, dst_ld, rows, cols);
        e = cudaGetLastError();
    }
    return e;
}

extern "C" warplab_status wl_gemm_bf16_make(wl_backend *backend, const wl_launch *launch,
                                            wl_gemm_bf16 *out)
{
    const gemm_params g = wl_gemm_params(launch);
    out->a = out->b = NULL;
    out->lda = round_up8(g.k);
    out->ldb = round_up8(g.n);
    cudaError_t e = make_copy(backend, g.a, g.lda, g.m, g.k, out->lda, &out->a);
    if (e == cudaSuccess)
        e = make_copy(backend, g.b, g.ldb, g.k, g.n, out->ldb, &out->b);
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(wl_cuda_stream(backend));
    if (e != cudaSuccess) {
        wl_gemm_bf16_free(out);
        return wl_cuda_check(backend, e, "making BF16 copies of A and B");
    }
    return WARPLAB_OK;
}

extern "C" void wl_gemm_bf16_free(wl_gemm_bf16 *operands)
{
    if (operands->a)
        cudaFree(operands->a);
    if (operands->b)
        cudaFree(operands->b);
    operands->a = operands->b = NULL;
}
