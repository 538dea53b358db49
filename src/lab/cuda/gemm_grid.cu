/* The cuda side of the GEMM grid (gemm_grid_cuda.h): what a CUDA program
 * that calls warplab_gemm_ex holds (a stream of its own, operands from
 * cudaMalloc) and the cuBLAS call with the same contract on them. */
#include "gemm_grid_cuda.h"

#include "kernels/cuda/cuda_backend.h"
#include "kernels/cuda/vendor_libs.h"

#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdlib.h>
#include <string.h>

struct wl_cuda_grid {
    wl_backend *device;
    cudaStream_t stream;
    const wl_cublas_api *blas; /* cuBLAS, opened at first use (vendor_libs.h) */
    cublasHandle_t handle;
    wl_cuda_gemm_call call;
    void *ptr[WL_GRID_OPERANDS];
    size_t bytes[WL_GRID_OPERANDS];
};

namespace
{

/* Values in [-1, 1) from the index and the seed, in the operand's type
 * (16-bit: rounded to nearest even, as a user's conversion does). */
template <typename T> __device__ T from_float(float x);
template <> __device__ float from_float<float>(float x)
{
    return x;
}
template <> __device__ __nv_bfloat16 from_float<__nv_bfloat16>(float x)
{
    return __float2bfloat16_rn(x);
}
template <> __device__ __half from_float<__half>(float x)
{
    return __float2half_rn(x);
}

template <typename T> __global__ void fill_random(T *data, size_t n, unsigned long long seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        unsigned long long h = (i + 1) * 0x9E3779B97F4A7C15ull ^ seed;
        h ^= h >> 31;
        h *= 0xBF58476D1CE4E5B9ull;
        h ^= h >> 29;
        data[i] = from_float<T>((float)(h >> 40) / 8388608.0f - 1.0f);
    }
}

cudaDataType_t cuda_type(warplab_dtype type)
{
    return type == WARPLAB_BFLOAT16  ? CUDA_R_16BF
           : type == WARPLAB_FLOAT16 ? CUDA_R_16F
                                     : CUDA_R_32F;
}

warplab_status cublas_status(const wl_cuda_grid *grid, cublasStatus_t status, const char *what)
{
    if (status == CUBLAS_STATUS_SUCCESS)
        return WARPLAB_OK;
    return wl_fail(grid->device,
                   status == CUBLAS_STATUS_ALLOC_FAILED ? WARPLAB_ERROR_DEVICE_OUT_OF_MEMORY
                                                        : WARPLAB_ERROR_BACKEND,
                   "%s: %s", what, grid->blas->status_string(status));
}

} // namespace

extern "C" warplab_status wl_cuda_grid_open(wl_backend *device, wl_cuda_grid **out, void **stream)
{
    *out = NULL;
    wl_cuda_grid *grid = static_cast<wl_cuda_grid *>(calloc(1, sizeof *grid));
    if (!grid)
        return wl_fail(device, WARPLAB_ERROR_HOST_OUT_OF_MEMORY, "the grid's state");
    grid->device = device;
    char reason[256];
    grid->blas = wl_cublas_load(reason, sizeof reason);
    warplab_status status =
        grid->blas ? WARPLAB_OK : wl_fail(device, WARPLAB_ERROR_UNSUPPORTED, "%s", reason);
    if (status == WARPLAB_OK)
        status = wl_cuda_check(device, cudaStreamCreate(&grid->stream), "cudaStreamCreate");
    if (status == WARPLAB_OK)
        status = cublas_status(grid, grid->blas->create(&grid->handle), "cublasCreate");
    if (status == WARPLAB_OK)
        status = cublas_status(grid, grid->blas->set_stream(grid->handle, grid->stream),
                               "cublasSetStream");
    if (status != WARPLAB_OK) {
        wl_cuda_grid_close(grid);
        return status;
    }
    *out = grid;
    *stream = grid->stream;
    return WARPLAB_OK;
}

extern "C" void wl_cuda_grid_close(wl_cuda_grid *grid)
{
    if (!grid)
        return;
    wl_cuda_grid_release(grid);
    if (grid->handle)
        grid->blas->destroy(grid->handle);
    if (grid->stream)
        cudaStreamDestroy(grid->stream);
    free(grid);
}

extern "C" warplab_status wl_cuda_grid_operands(wl_cuda_grid *grid, const wl_cuda_gemm_call *call,
                                                uint64_t seed, void *ptr[WL_GRID_OPERANDS],
                                                size_t bytes[WL_GRID_OPERANDS])
{
    wl_cuda_grid_release(grid);
    grid->call = *call;
    const size_t in = warplab_dtype_size(call->ab_type), out = warplab_dtype_size(call->c_type);
    const size_t batch = call->batch > 1 ? call->batch : 1;
    const size_t count[WL_GRID_OPERANDS] = {batch * call->m * call->k, batch * call->k * call->n,
                                            batch * call->m * call->n, batch * call->m * call->n};
    warplab_status status = WARPLAB_OK;
    for (int i = 0; i < WL_GRID_OPERANDS && status == WARPLAB_OK; i++) {
        grid->bytes[i] = count[i] * (i < WL_GRID_C ? in : out);
        status = wl_cuda_check(grid->device, cudaMalloc(&grid->ptr[i], grid->bytes[i]),
                               "cudaMalloc of an operand");
    }
    for (int i = 0; i < WL_GRID_C && status == WARPLAB_OK; i++) {
        const unsigned long long s = seed * 2 + (unsigned long long)i;
        switch (call->ab_type) {
        case WARPLAB_BFLOAT16:
            fill_random<<<1024, 256, 0, grid->stream>>>(static_cast<__nv_bfloat16 *>(grid->ptr[i]),
                                                        count[i], s);
            break;
        case WARPLAB_FLOAT16:
            fill_random<<<1024, 256, 0, grid->stream>>>(static_cast<__half *>(grid->ptr[i]),
                                                        count[i], s);
            break;
        default:
            fill_random<<<1024, 256, 0, grid->stream>>>(static_cast<float *>(grid->ptr[i]),
                                                        count[i], s);
            break;
        }
        status = WL_CUDA_LAUNCHED(grid->device, "filling an operand");
    }
    /* All ones: NaN in every type, so an element never written fails. */
    for (int i = WL_GRID_C; i < WL_GRID_OPERANDS && status == WARPLAB_OK; i++)
        status = wl_cuda_check(grid->device,
                               cudaMemsetAsync(grid->ptr[i], 0xFF, grid->bytes[i], grid->stream),
                               "poisoning C");
    if (status == WARPLAB_OK)
        status = wl_cuda_check(grid->device, cudaStreamSynchronize(grid->stream), "the operands");
    if (status != WARPLAB_OK) {
        wl_cuda_grid_release(grid);
        return status;
    }
    for (int i = 0; i < WL_GRID_OPERANDS; i++) {
        ptr[i] = grid->ptr[i];
        bytes[i] = grid->bytes[i];
    }
    return WARPLAB_OK;
}

extern "C" warplab_status wl_cuda_grid_vendor(wl_cuda_grid *grid)
{
    const wl_cuda_gemm_call &c = grid->call;
    /* Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: B
     * first, each operand's op as stored, leading dimensions its rows. */
    const int lda = (int)(c.op_a == WARPLAB_OP_T ? c.m : c.k);
    const int ldb = (int)(c.op_b == WARPLAB_OP_T ? c.k : c.n);
    const float alpha = 1.0f, beta = 0.0f;
    const cublasComputeType_t compute =
        c.compute == WARPLAB_COMPUTE_TF32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
    if (c.batch > 1)
        return cublas_status(
            grid,
            grid->blas->gemm_strided_batched_ex(
                grid->handle, c.op_b == WARPLAB_OP_T ? CUBLAS_OP_T : CUBLAS_OP_N,
                c.op_a == WARPLAB_OP_T ? CUBLAS_OP_T : CUBLAS_OP_N, (int)c.n, (int)c.m, (int)c.k,
                &alpha, grid->ptr[WL_GRID_B], cuda_type(c.ab_type), ldb, (long long)(c.k * c.n),
                grid->ptr[WL_GRID_A], cuda_type(c.ab_type), lda, (long long)(c.m * c.k), &beta,
                grid->ptr[WL_GRID_C_VENDOR], cuda_type(c.c_type), (int)c.n, (long long)(c.m * c.n),
                (int)c.batch, compute, CUBLAS_GEMM_DEFAULT),
            "cublasGemmStridedBatchedEx");
    return cublas_status(
        grid,
        grid->blas->gemm_ex(grid->handle, c.op_b == WARPLAB_OP_T ? CUBLAS_OP_T : CUBLAS_OP_N,
                            c.op_a == WARPLAB_OP_T ? CUBLAS_OP_T : CUBLAS_OP_N, (int)c.n, (int)c.m,
                            (int)c.k, &alpha, grid->ptr[WL_GRID_B], cuda_type(c.ab_type), ldb,
                            grid->ptr[WL_GRID_A], cuda_type(c.ab_type), lda, &beta,
                            grid->ptr[WL_GRID_C_VENDOR], cuda_type(c.c_type), (int)c.n, compute,
                            CUBLAS_GEMM_DEFAULT),
        "cublasGemmEx");
}

extern "C" warplab_status wl_cuda_grid_download(wl_cuda_grid *grid, int operand, size_t offset,
                                                size_t bytes, void *host)
{
    if (offset > grid->bytes[operand] || bytes > grid->bytes[operand] - offset)
        return wl_fail(grid->device, WARPLAB_ERROR_INVALID_ARGUMENT,
                       "reading %zu bytes at %zu of an operand of %zu", bytes, offset,
                       grid->bytes[operand]);
    cudaError_t e = cudaMemcpyAsync(host, (const char *)grid->ptr[operand] + offset, bytes,
                                    cudaMemcpyDeviceToHost, grid->stream);
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(grid->stream);
    return wl_cuda_check(grid->device, e, "reading an operand back");
}

extern "C" void wl_cuda_grid_release(wl_cuda_grid *grid)
{
    bool any = false;
    for (int i = 0; i < WL_GRID_OPERANDS; i++)
        any = any || grid->ptr[i];
    if (!any)
        return;
    cudaStreamSynchronize(grid->stream);
    for (int i = 0; i < WL_GRID_OPERANDS; i++) {
        if (grid->ptr[i])
            cudaFree(grid->ptr[i]);
        grid->ptr[i] = NULL;
        grid->bytes[i] = 0;
    }
}
