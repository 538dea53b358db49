/* warplab_gemm_ex's 16-bit skinny kernels (m or n of at most EX16_SKINNY,
 * src/cuda/gemm/ex16_gemm.cu's plans and launches), in a header so that
 * the CUDA emulator (tests/emulate) runs them on the CPU. Their splits'
 * partial sums are added by gemv.cuh's wl_splitk_finish, the one split-K
 * reduction.
 * The element conversions go through CUDA's intrinsics, which
 * tests/emulate/cuda_emulate.h provides on the host. */
/* warplab:rung gemm ex16_skinny */
#ifndef WARPLAB_GEMM_EX16_SKINNY_CUH
#define WARPLAB_GEMM_EX16_SKINNY_CUH

#include "ex16_thin.cuh"

#ifndef WL_EMULATE
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#endif

/* ------------------------------------------------------------------------ */
/* Element conversions                                                      */

template <bool BF16> __device__ __forceinline__ float ex16_float(uint16_t bits)
{
    if (BF16)
        return __uint_as_float((unsigned)bits << 16);
    return __half2float(__ushort_as_half(bits));
}

template <bool BF16> __device__ __forceinline__ uint16_t ex16_bits(float x)
{
    if (BF16)
        return __bfloat16_as_ushort(__float2bfloat16_rn(x));
    return __half_as_ushort(__float2half_rn(x));
}

/* C = alpha * sum + beta * C (C float, or 16-bit when narrow); with
 * beta = 0, C is not read. */
template <bool BF16>
__device__ __forceinline__ void ex16_store(void *c, size_t index, bool narrow, float sum,
                                           float alpha, float beta)
{
    float value = alpha * sum;
    if (narrow) {
        uint16_t *out = (uint16_t *)c + index;
        if (beta != 0.0f)
            value += beta * ex16_float<BF16>(*out);
        *out = ex16_bits<BF16>(value);
    } else {
        float *out = (float *)c + index;
        if (beta != 0.0f)
            value += beta * *out;
        *out = value;
    }
}

/* 8 elements at src (16-byte aligned) as floats. */
template <bool BF16> __device__ __forceinline__ void ex16_load8(const uint16_t *src, float out[8])
{
    const uint4 v = __ldg(reinterpret_cast<const uint4 *>(src));
    const unsigned words[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
    for (int i = 0; i < 4; i++) {
        out[2 * i] = ex16_float<BF16>((uint16_t)(words[i] & 0xFFFFu));
        out[2 * i + 1] = ex16_float<BF16>((uint16_t)(words[i] >> 16));
    }
}

/* ------------------------------------------------------------------------ */
/* Skinny problems                                                          */

/* The big operand X (k x big) times the small one Y (small x k):
 * ex16_skinny_params, in ex16_thin.cuh. */

#define EX16_COL_THREADS 64 /* threads along big, 8 columns each */
#define EX16_COL_GROUPS 4   /* groups along k, summed in shared memory */

/* X contiguous along big (x_j = 1): a thread owns 8 neighbouring columns,
 * EX16_COL_GROUPS groups of threads walk the split's rows of X in turn,
 * and shared memory adds the groups. */
template <bool BF16, int S>
__global__ void __launch_bounds__(EX16_COL_THREADS *EX16_COL_GROUPS)
    ex16_skinny_columns(ex16_skinny_params p)
{
    if (gridDim.y > 1) /* split: wl_splitk_finish follows */
        wl_release_dependents();
    __shared__ float sums[EX16_COL_GROUPS - 1][EX16_COL_THREADS * 8];
    const int tx = threadIdx.x % EX16_COL_THREADS, group = threadIdx.x / EX16_COL_THREADS;
    const int j0 = (blockIdx.x * EX16_COL_THREADS + tx) * 8, split = blockIdx.y;
    const int q0 = split * p.k_chunk, q1 = min(p.k, q0 + p.k_chunk);
    const bool whole = p.x_vec && j0 + 8 <= p.big;
    float acc[S][8];
#pragma unroll
    for (int i = 0; i < S; i++)
#pragma unroll
        for (int e = 0; e < 8; e++)
            acc[i][e] = 0.0f;
    if (j0 < p.big) {
#pragma unroll 4
        for (int q = q0 + group; q < q1; q += EX16_COL_GROUPS) {
            const uint16_t *row = p.x + (size_t)q * p.x_q + j0;
            float xv[8];
            if (whole) {
                ex16_load8<BF16>(row, xv);
            } else {
#pragma unroll
                for (int e = 0; e < 8; e++)
                    xv[e] = j0 + e < p.big ? ex16_float<BF16>(row[e]) : 0.0f;
            }
#pragma unroll
            for (int i = 0; i < S; i++)
                if (i < p.small) {
                    const float yv = ex16_float<BF16>(p.y[(size_t)i * p.y_i + (size_t)q * p.y_q]);
#pragma unroll
                    for (int e = 0; e < 8; e++)
                        acc[i][e] = fmaf(yv, xv[e], acc[i][e]);
                }
        }
    }
#pragma unroll
    for (int i = 0; i < S; i++) {
        if (i >= p.small)
            break;
        if (group > 0)
#pragma unroll
            for (int e = 0; e < 8; e++)
                sums[group - 1][tx * 8 + e] = acc[i][e];
        __syncthreads();
        if (group == 0 && j0 < p.big) {
#pragma unroll
            for (int e = 0; e < 8; e++) {
                float v = acc[i][e];
#pragma unroll
                for (int g = 0; g < EX16_COL_GROUPS - 1; g++)
                    v += sums[g][tx * 8 + e];
                const int j = j0 + e;
                if (j >= p.big)
                    break;
                if (p.splits == 1)
                    ex16_store<BF16>(p.c, (size_t)(i * p.c_i + j * p.c_j), p.narrow, v, p.alpha,
                                     p.beta);
                else
                    p.part[((size_t)split * p.small + i) * p.big + j] = v;
            }
        }
        __syncthreads();
    }
}

#define EX16_WARP_THREADS 256

/* X contiguous along k (x_q = 1): a warp owns one column j, its lanes read
 * 8 neighbouring k each (256 k a step), and a shuffle adds the lanes. */
template <bool BF16, int S>
__global__ void __launch_bounds__(EX16_WARP_THREADS) ex16_skinny_warps(ex16_skinny_params p)
{
    if (gridDim.y > 1) /* split: wl_splitk_finish follows */
        wl_release_dependents();
    const int lane = threadIdx.x % 32;
    const int j = blockIdx.x * (EX16_WARP_THREADS / 32) + threadIdx.x / 32, split = blockIdx.y;
    const int q0 = split * p.k_chunk, q1 = min(p.k, q0 + p.k_chunk);
    if (j >= p.big)
        return; /* whole warps leave together */
    float acc[S];
#pragma unroll
    for (int i = 0; i < S; i++)
        acc[i] = 0.0f;
    const uint16_t *col = p.x + (size_t)j * p.x_j;
#pragma unroll 2
    for (int q = q0 + lane * 8; q < q1; q += 256) {
        float xv[8];
        const bool whole = q + 8 <= q1;
        if (whole && p.x_vec) {
            ex16_load8<BF16>(col + q, xv);
        } else {
#pragma unroll
            for (int e = 0; e < 8; e++)
                xv[e] = q + e < q1 ? ex16_float<BF16>(col[q + e]) : 0.0f;
        }
#pragma unroll
        for (int i = 0; i < S; i++)
            if (i < p.small) {
                const uint16_t *yrow = p.y + (size_t)i * p.y_i;
                float yv[8];
                if (whole && p.y_vec) {
                    ex16_load8<BF16>(yrow + q, yv);
                } else {
#pragma unroll
                    for (int e = 0; e < 8; e++)
                        yv[e] = q + e < q1 ? ex16_float<BF16>(yrow[(size_t)(q + e) * p.y_q]) : 0.0f;
                }
#pragma unroll
                for (int e = 0; e < 8; e++)
                    acc[i] = fmaf(yv[e], xv[e], acc[i]);
            }
    }
#pragma unroll
    for (int i = 0; i < S; i++) {
        if (i >= p.small)
            break;
        float v = acc[i];
#pragma unroll
        for (int offset = 16; offset > 0; offset /= 2)
            v += __shfl_xor_sync(0xFFFFFFFFu, v, offset);
        if (lane == 0) {
            if (p.splits == 1)
                ex16_store<BF16>(p.c, (size_t)(i * p.c_i + j * p.c_j), p.narrow, v, p.alpha,
                                 p.beta);
            else
                p.part[((size_t)split * p.small + i) * p.big + j] = v;
        }
    }
}

#endif
/* warplab:end */
