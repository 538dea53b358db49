/* The vendor libraries the cuda backend compares with (cuBLAS, NCCL),
 * loaded on first use rather than at start-up, so that a program on the cpu
 * or opencl backend starts where they are absent and stays small, and one
 * build serves GPU and non-GPU machines. (The CUDA runtime is linked
 * statically; it opens the driver, libcuda.so.1, at the first CUDA call.)
 *
 * Each library is looked for once per process, thread-safely, and kept for
 * the process (handles made from it live past any one call). The file is
 * WARPLAB_CUBLAS_LIBRARY or WARPLAB_NCCL_LIBRARY where set (a name for the
 * dynamic loader or a path; nothing else is tried), else the library's
 * SONAME through the dynamic loader's search (LD_LIBRARY_PATH, the cache),
 * then the same name in the directory where the build found it. The calls
 * go through a table of the few entry points warplab uses. */
#ifndef WARPLAB_VENDOR_LIBS_H
#define WARPLAB_VENDOR_LIBS_H

#include <cublas_v2.h>
#include <stddef.h>
#ifdef WARPLAB_HAVE_NCCL
#include <nccl.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* cuBLAS's entry points, under the names the library exports
 * (cublas_v2.h maps cublasCreate to cublasCreate_v2 and so on). */
typedef struct wl_cublas_api {
    cublasStatus_t (*create)(cublasHandle_t *handle);
    cublasStatus_t (*destroy)(cublasHandle_t handle);
    cublasStatus_t (*set_stream)(cublasHandle_t handle, cudaStream_t stream);
    cublasStatus_t (*set_math_mode)(cublasHandle_t handle, cublasMath_t mode);
    const char *(*status_string)(cublasStatus_t status);
    cublasStatus_t (*sgemm)(cublasHandle_t handle, cublasOperation_t transa,
                            cublasOperation_t transb, int m, int n, int k, const float *alpha,
                            const float *a, int lda, const float *b, int ldb, const float *beta,
                            float *c, int ldc);
    cublasStatus_t (*gemm_ex)(cublasHandle_t handle, cublasOperation_t transa,
                              cublasOperation_t transb, int m, int n, int k, const void *alpha,
                              const void *a, cudaDataType a_type, int lda, const void *b,
                              cudaDataType b_type, int ldb, const void *beta, void *c,
                              cudaDataType c_type, int ldc, cublasComputeType_t compute,
                              cublasGemmAlgo_t algo);
    cublasStatus_t (*gemm_strided_batched_ex)(cublasHandle_t handle, cublasOperation_t transa,
                                              cublasOperation_t transb, int m, int n, int k,
                                              const void *alpha, const void *a, cudaDataType a_type,
                                              int lda, long long stride_a, const void *b,
                                              cudaDataType b_type, int ldb, long long stride_b,
                                              const void *beta, void *c, cudaDataType c_type,
                                              int ldc, long long stride_c, int batch,
                                              cublasComputeType_t compute, cublasGemmAlgo_t algo);
    cublasStatus_t (*sgeam)(cublasHandle_t handle, cublasOperation_t transa,
                            cublasOperation_t transb, int m, int n, const float *alpha,
                            const float *a, int lda, const float *beta, const float *b, int ldb,
                            float *c, int ldc);
    cublasStatus_t (*dgeam)(cublasHandle_t handle, cublasOperation_t transa,
                            cublasOperation_t transb, int m, int n, const double *alpha,
                            const double *a, int lda, const double *beta, const double *b, int ldb,
                            double *c, int ldc);
} wl_cublas_api;

/* cuBLAS, loaded at the first call: its table, or NULL with why in reason
 * ("cuBLAS cannot be loaded: libcublas.so.13: cannot open shared object
 * file: ..."). reason may be NULL. */
const wl_cublas_api *wl_cublas_load(char *reason, size_t reason_len);

/* The SONAME looked for (libcublas.so.<major of the headers built with>). */
const char *wl_cublas_soname(void);

#ifdef WARPLAB_HAVE_NCCL
typedef struct wl_nccl_api {
    ncclResult_t (*get_unique_id)(ncclUniqueId *id);
    ncclResult_t (*comm_init_rank)(ncclComm_t *comm, int ranks, ncclUniqueId id, int rank);
    ncclResult_t (*comm_init_all)(ncclComm_t *comms, int devices, const int *device_list);
    ncclResult_t (*comm_destroy)(ncclComm_t comm);
    ncclResult_t (*all_reduce)(const void *send, void *recv, size_t count, ncclDataType_t type,
                               ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream);
    ncclResult_t (*group_start)(void);
    ncclResult_t (*group_end)(void);
    const char *(*error_string)(ncclResult_t result);
} wl_nccl_api;

/* NCCL, loaded at the first call, as wl_cublas_load. */
const wl_nccl_api *wl_nccl_load(char *reason, size_t reason_len);

/* The SONAME looked for (libnccl.so.<NCCL_MAJOR of the headers>). */
const char *wl_nccl_soname(void);
#endif

#ifdef __cplusplus
}
#endif

#endif
