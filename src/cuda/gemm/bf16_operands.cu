/* BF16 copies of A and of B transposed for the BF16 rows (the rungs and
 * cuBLAS): made in setup, never timed, so that all time the same work from
 * BF16 operands in device memory. Rounding is to nearest even, as the
 * verification models. */
#include "gemm_launch.h"

#include <cuda_bf16.h>

/* dst[r][c] = bf16(src[r][c]) for r < rows, c < cols, or transposed
 * (dst[c][r]); dst's padding was zeroed before. Setup only: simple, not
 * fast. */
__global__ void convert_to_bf16(const float *src, int ld, __nv_bfloat16 *dst, int dst_ld, int rows,
                                int cols, bool transpose)
{
    const size_t count = (size_t)rows * cols;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count;
         i += (size_t)gridDim.x * blockDim.x) {
        const size_t r = i / (size_t)cols, c = i % (size_t)cols;
        const __nv_bfloat16 value = __float2bfloat16_rn(src[r * ld + c]);
        if (transpose)
            dst[c * dst_ld + r] = value;
        else
            dst[r * dst_ld + c] = value;
    }
}

static int round_up8(int x)
{
    return x < 8 ? 8 : (x + 7) / 8 * 8;
}

/* A rows x cols float matrix as BF16 (transposed: cols x rows), rows of
 * dst_ld elements. */
static cudaError_t make_copy(wl_backend *backend, const float *src, int ld, int rows, int cols,
                             bool transpose, int dst_ld, void **dst)
{
    const int dst_rows = transpose ? cols : rows;
    const size_t bytes = (size_t)(dst_rows > 0 ? dst_rows : 1) * dst_ld * sizeof(__nv_bfloat16);
    cudaError_t e = cudaMalloc(dst, bytes);
    cudaStream_t stream = wl_cuda_stream(backend);
    if (e == cudaSuccess)
        e = cudaMemsetAsync(*dst, 0, bytes, stream);
    if (e == cudaSuccess && rows > 0 && cols > 0) {
        const unsigned block = 256;
        convert_to_bf16<<<wl_cuda_grid_for(backend, (size_t)rows * cols, block), block, 0,
                          stream>>>(src, ld, (__nv_bfloat16 *)*dst, dst_ld, rows, cols, transpose);
        e = cudaGetLastError();
    }
    return e;
}

extern "C" warplab_status wl_gemm_bf16_make(wl_backend *backend, const wl_launch *launch,
                                            wl_gemm_bf16 *out)
{
    const gemm_params g = wl_gemm_params(launch);
    out->a = out->bt = NULL;
    out->lda = round_up8(g.k);
    out->ldbt = round_up8(g.k);
    cudaError_t e = make_copy(backend, g.a, g.lda, g.m, g.k, false, out->lda, &out->a);
    if (e == cudaSuccess)
        e = make_copy(backend, g.b, g.ldb, g.k, g.n, true, out->ldbt, &out->bt);
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
    if (operands->bt)
        cudaFree(operands->bt);
    operands->a = operands->bt = NULL;
}
