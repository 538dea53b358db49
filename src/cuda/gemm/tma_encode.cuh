/* Tensor maps for the copy engine (TMA), host side, shared by the sm_90a
 * kernels' files: cuTensorMapEncodeTiled found through the runtime (no link
 * against libcuda), and a row-major 2-D matrix described as boxes in the
 * 128-byte swizzle with zeros outside; FP32 C for the copy engine's stores. */
#ifndef WARPLAB_TMA_ENCODE_CUH
#define WARPLAB_TMA_ENCODE_CUH

#include "gemm_launch.h"

#include <cuda.h>

typedef CUresult (*encode_tiled_fn)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *,
                                    const cuuint64_t *, const cuuint64_t *, const cuuint32_t *,
                                    const cuuint32_t *, CUtensorMapInterleave, CUtensorMapSwizzle,
                                    CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

static inline warplab_status find_encoder(wl_backend *backend, encode_tiled_fn *encode)
{
    void *fn = NULL;
    cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
    const cudaError_t e = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000,
                                                           cudaEnableDefault, &found);
    if (e != cudaSuccess)
        return wl_cuda_check(backend, e, "looking up cuTensorMapEncodeTiled");
    if (found != cudaDriverEntryPointSuccess || !fn)
        return wl_fail(backend, WARPLAB_ERROR_UNSUPPORTED,
                       "the CUDA driver has no cuTensorMapEncodeTiled (needs CUDA 12 or newer)");
    *encode = (encode_tiled_fn)fn;
    return WARPLAB_OK;
}

/* A row-major matrix of `type` (rows x cols, rows ld elements apart) as
 * boxes of box_cols x box_rows, 128-byte swizzle, zeros outside. */
static inline warplab_status tma_encode_2d(wl_backend *backend, encode_tiled_fn encode,
                                           CUtensorMap *map, const void *base, warplab_dtype type,
                                           int rows, int cols, int ld, int box_cols, int box_rows)
{
    const size_t element_bytes = warplab_dtype_size(type);
    const CUtensorMapDataType map_type = type == WARPLAB_BFLOAT16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                                         : type == WARPLAB_FLOAT16
                                             ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
                                             : CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
    const cuuint64_t dims[2] = {(cuuint64_t)(cols > 0 ? cols : 1), (cuuint64_t)rows};
    const cuuint64_t strides[1] = {(cuuint64_t)ld * element_bytes};
    const cuuint32_t box[2] = {(cuuint32_t)box_cols, (cuuint32_t)box_rows};
    const cuuint32_t element_strides[2] = {1, 1};
    const CUresult r =
        encode(map, map_type, 2, (void *)base, dims, strides, box, element_strides,
               CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
               CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS)
        return wl_fail(backend, WARPLAB_ERROR_BACKEND,
                       "cuTensorMapEncodeTiled refused a %d x %d operand (row stride %d): error %d",
                       rows, cols, ld, (int)r);
    return WARPLAB_OK;
}

/* FP32 C (or a split's partial sums: planes of rows x cols, one a split) as
 * boxes of 32 columns x 64 rows, 128-byte swizzle, for the copy engine's
 * stores (store_c_tile in wgmma_ops.cuh): rows and the base 16-byte
 * aligned. */
static inline warplab_status tma_encode_c(wl_backend *backend, encode_tiled_fn encode,
                                          CUtensorMap *map, void *base, int rows, int cols, int ld,
                                          int planes)
{
    const cuuint64_t dims[3] = {(cuuint64_t)cols, (cuuint64_t)rows, (cuuint64_t)planes};
    const cuuint64_t strides[2] = {(cuuint64_t)ld * 4, (cuuint64_t)ld * 4 * (cuuint64_t)rows};
    const cuuint32_t box[3] = {32, 64, 1};
    const cuuint32_t element_strides[3] = {1, 1, 1};
    const CUresult r =
        encode(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 3, base, dims, strides, box, element_strides,
               CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
               CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS)
        return wl_fail(backend, WARPLAB_ERROR_BACKEND,
                       "cuTensorMapEncodeTiled refused C of %d x %d (row stride %d, %d planes): "
                       "error %d",
                       rows, cols, ld, planes, (int)r);
    return WARPLAB_OK;
}

/* A 16-bit C (BF16 or FP16, rows x cols, rows ld elements apart) as boxes
 * of 32 columns x 64 rows, 64-byte swizzle (a box row is 64 bytes), for
 * the copy engine's stores (store_c_tile<T16> in wgmma_ops.cuh): rows and the
 * base 16-byte aligned. */
static inline warplab_status tma_encode_c16(wl_backend *backend, encode_tiled_fn encode,
                                            CUtensorMap *map, void *base, warplab_dtype type,
                                            int rows, int cols, int ld)
{
    const cuuint64_t dims[3] = {(cuuint64_t)cols, (cuuint64_t)rows, 1};
    const cuuint64_t strides[2] = {(cuuint64_t)ld * 2, (cuuint64_t)ld * 2 * (cuuint64_t)rows};
    const cuuint32_t box[3] = {32, 64, 1};
    const cuuint32_t element_strides[3] = {1, 1, 1};
    const CUresult r = encode(map,
                              type == WARPLAB_BFLOAT16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                                                       : CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
                              3, base, dims, strides, box, element_strides,
                              CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_64B,
                              CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS)
        return wl_fail(backend, WARPLAB_ERROR_BACKEND,
                       "cuTensorMapEncodeTiled refused a 16-bit C of %d x %d (row stride %d): "
                       "error %d",
                       rows, cols, ld, (int)r);
    return WARPLAB_OK;
}

#endif
