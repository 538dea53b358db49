/* K-major copies of A and of B transposed for the tensor-core rows that read
 * their operands by descriptor or through the copy engine (the rungs and
 * cuBLAS alike): made in setup, never timed, so that all time the same work
 * from operands already in device memory in the precision they multiply.
 * BF16 and FP16: rounded to nearest even. TF32: FP32 words rounded to TF32 (cvt.rna,
 * nearest, ties away), the low 13 bits zero. Both as the verification
 * models. */
#include "gemm_launch.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <type_traits>

/* dst[r][c] = rounded(src[r][c]) for r < rows, c < cols, or transposed
 * (dst[c][r]); dst's padding was zeroed before. Setup only: simple, not
 * fast. */
template <typename T>
__global__ void convert_operand(const float *src, int ld, T *dst, int dst_ld, int rows, int cols,
                                bool transpose)
{
    const size_t count = (size_t)rows * cols;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count;
         i += (size_t)gridDim.x * blockDim.x) {
        const size_t r = i / (size_t)cols, c = i % (size_t)cols;
        T value;
        if constexpr (std::is_same<T, __half>::value)
            value = __float2half_rn(src[r * ld + c]);
        else if constexpr (sizeof(T) == 2)
            value = __float2bfloat16_rn(src[r * ld + c]);
        else
            value = __uint_as_float(to_tf32(src[r * ld + c]));
        if (transpose)
            dst[c * dst_ld + r] = value;
        else
            dst[r * dst_ld + c] = value;
    }
}

/* Rows of whole 16-byte units (what cp.async, TMA and cuBLAS's fast paths
 * want), at least one. */
static int padded_row(int elements, int element_bytes)
{
    const int per_16_bytes = 16 / element_bytes;
    return elements < per_16_bytes ? per_16_bytes
                                   : (elements + per_16_bytes - 1) / per_16_bytes * per_16_bytes;
}

/* A rows x cols float matrix as T (transposed: cols x rows), rows of dst_ld
 * elements. */
template <typename T>
static cudaError_t make_copy(wl_backend *backend, const float *src, int ld, int rows, int cols,
                             bool transpose, int dst_ld, void **dst)
{
    const int dst_rows = transpose ? cols : rows;
    const size_t bytes = (size_t)(dst_rows > 0 ? dst_rows : 1) * dst_ld * sizeof(T);
    cudaError_t e = cudaMalloc(dst, bytes);
    cudaStream_t stream = wl_cuda_stream(backend);
    if (e == cudaSuccess)
        e = cudaMemsetAsync(*dst, 0, bytes, stream);
    if (e == cudaSuccess && rows > 0 && cols > 0) {
        const unsigned block = 256;
        convert_operand<T>
            <<<wl_cuda_grid_for(backend, (size_t)rows * cols, block), block, 0, stream>>>(
                src, ld, (T *)*dst, dst_ld, rows, cols, transpose);
        e = cudaGetLastError();
    }
    return e;
}

extern "C" warplab_status wl_gemm_kmajor_make(wl_backend *backend, const wl_launch *launch,
                                              wl_gemm_operand_type type, wl_gemm_kmajor *out)
{
    const gemm_params g = wl_gemm_params(launch);
    const int element_bytes = type == WL_GEMM_OPERANDS_TF32 ? 4 : 2;
    out->a = out->bt = NULL;
    out->lda = padded_row(g.k, element_bytes);
    out->ldbt = padded_row(g.k, element_bytes);
    cudaError_t e;
    if (type == WL_GEMM_OPERANDS_BF16) {
        e = make_copy<__nv_bfloat16>(backend, g.a, g.lda, g.m, g.k, false, out->lda, &out->a);
        if (e == cudaSuccess)
            e = make_copy<__nv_bfloat16>(backend, g.b, g.ldb, g.k, g.n, true, out->ldbt, &out->bt);
    } else if (type == WL_GEMM_OPERANDS_FP16) {
        e = make_copy<__half>(backend, g.a, g.lda, g.m, g.k, false, out->lda, &out->a);
        if (e == cudaSuccess)
            e = make_copy<__half>(backend, g.b, g.ldb, g.k, g.n, true, out->ldbt, &out->bt);
    } else {
        e = make_copy<float>(backend, g.a, g.lda, g.m, g.k, false, out->lda, &out->a);
        if (e == cudaSuccess)
            e = make_copy<float>(backend, g.b, g.ldb, g.k, g.n, true, out->ldbt, &out->bt);
    }
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(wl_cuda_stream(backend));
    if (e != cudaSuccess) {
        wl_gemm_kmajor_free(out);
        return wl_cuda_check(backend, e,
                             type == WL_GEMM_OPERANDS_BF16   ? "making BF16 copies of A and B"
                             : type == WL_GEMM_OPERANDS_FP16 ? "making FP16 copies of A and B"
                                                             : "making TF32 copies of A and B");
    }
    return WARPLAB_OK;
}

extern "C" void wl_gemm_kmajor_free(wl_gemm_kmajor *operands)
{
    if (operands->a)
        cudaFree(operands->a);
    if (operands->bt)
        cudaFree(operands->bt);
    operands->a = operands->bt = NULL;
}
