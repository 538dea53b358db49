/* Past the course: register blocking, 16-byte loads and conflict-free
 * shared layouts, one lesson per kernel. Each is correct for any m, n, k:
 * tile elements outside A or B load as 0, only elements inside C are
 * written. A block computes the BM x BN tile of C at (blockIdx.y,
 * blockIdx.x). The OpenCL mirrors are in src/opencl/kernels/gemm.cl. */
#ifndef WARPLAB_GEMM_BLOCKED_KERNELS_CUH
#define WARPLAB_GEMM_BLOCKED_KERNELS_CUH

#include "gemm_device.cuh"

/* warplab:rung gemm regblock_1d */
/* Rung regblock_1d: 64 x 64 tiles of C, BK = 8, 512 threads; each thread
 * computes a column of RB1_TM = 8 outputs. Over tiled_bounds: one B value
 * read from shared memory feeds 8 multiply-adds whose sums stay in
 * registers (shared loads per FMA / 8), and the tile's global traffic is
 * shared by 64 x 64 outputs. */
#define RB1_BM 64
#define RB1_BN 64
#define RB1_BK 8
#define RB1_TM 8
#define RB1_THREADS (RB1_BM * RB1_BN / RB1_TM)
__global__ void __launch_bounds__(RB1_THREADS) gemm_regblock_1d(gemm_params p)
{
    __shared__ float as[RB1_BM][RB1_BK];
    __shared__ float bs[RB1_BK][RB1_BN];
    const int tid = threadIdx.x;
    const int row0 = blockIdx.y * RB1_BM, col0 = blockIdx.x * RB1_BN;
    const int tc = tid % RB1_BN, tr = tid / RB1_BN;
    const int ar = tid / RB1_BK, ac = tid % RB1_BK, br = tid / RB1_BN, bc = tid % RB1_BN;
    float acc[RB1_TM] = {};
    for (int k0 = 0; k0 < p.k; k0 += RB1_BK) {
        as[ar][ac] = load_or_zero(p.a, p.lda, p.m, p.k, row0 + ar, k0 + ac);
        bs[br][bc] = load_or_zero(p.b, p.ldb, p.k, p.n, k0 + br, col0 + bc);
        __syncthreads();
#pragma unroll
        for (int d = 0; d < RB1_BK; d++) {
            const float b = bs[d][tc];
#pragma unroll
            for (int i = 0; i < RB1_TM; i++)
                acc[i] += as[tr * RB1_TM + i][d] * b;
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < RB1_TM; i++) {
        const int row = row0 + tr * RB1_TM + i, col = col0 + tc;
        if (row < p.m && col < p.n) {
            float *c = p.c + (size_t)row * p.ldc + col;
            *c = gemm_epilogue(acc[i], c, p.alpha, p.beta);
        }
    }
}
/* warplab:end */

/* warplab:rung gemm regblock_2d vectorized conflict_free */
/* The 128 x 128 x 8 tiles of the next rungs, 256 threads, 8 x 8 outputs a
 * thread. */
#define RB2_BM 128
#define RB2_BN 128
#define RB2_BK 8
#define RB2_T 8
#define RB2_THREADS (RB2_BM * RB2_BN / (RB2_T * RB2_T))

/* Writes a thread's RB2_T x RB2_T outputs at rows row(i), columns col(j). */
#define RB2_STORE(row_of, col_of)                                                                  \
    _Pragma("unroll") for (int i = 0; i < RB2_T; i++)                                              \
    {                                                                                              \
        _Pragma("unroll") for (int j = 0; j < RB2_T; j++)                                          \
        {                                                                                          \
            const int row = (row_of), col = (col_of);                                              \
            if (row < p.m && col < p.n) {                                                          \
                float *c = p.c + (size_t)row * p.ldc + col;                                        \
                *c = gemm_epilogue(acc[i][j], c, p.alpha, p.beta);                                 \
            }                                                                                      \
        }                                                                                          \
    }
/* warplab:end */

/* warplab:rung gemm regblock_2d */
/* Rung regblock_2d: each thread an 8 x 8 block of C (rows tr*8.., columns
 * tc*8..). Over regblock_1d: per k, 8 values of A and 8 of B from shared
 * memory feed 64 multiply-adds (4 FMAs a load instead of 1), and 128 x 128
 * tiles halve the global traffic again. */
__global__ void __launch_bounds__(RB2_THREADS) gemm_regblock_2d(gemm_params p)
{
    __shared__ float as[RB2_BM][RB2_BK];
    __shared__ float bs[RB2_BK][RB2_BN];
    const int tid = threadIdx.x;
    const int row0 = blockIdx.y * RB2_BM, col0 = blockIdx.x * RB2_BN;
    const int tr = tid / (RB2_BN / RB2_T), tc = tid % (RB2_BN / RB2_T);
    float acc[RB2_T][RB2_T] = {};
    for (int k0 = 0; k0 < p.k; k0 += RB2_BK) {
#pragma unroll
        for (int l = 0; l < RB2_BM * RB2_BK / RB2_THREADS; l++) {
            const int e = tid + l * RB2_THREADS;
            as[e / RB2_BK][e % RB2_BK] =
                load_or_zero(p.a, p.lda, p.m, p.k, row0 + e / RB2_BK, k0 + e % RB2_BK);
        }
#pragma unroll
        for (int l = 0; l < RB2_BK * RB2_BN / RB2_THREADS; l++) {
            const int e = tid + l * RB2_THREADS;
            bs[e / RB2_BN][e % RB2_BN] =
                load_or_zero(p.b, p.ldb, p.k, p.n, k0 + e / RB2_BN, col0 + e % RB2_BN);
        }
        __syncthreads();
#pragma unroll
        for (int d = 0; d < RB2_BK; d++) {
            float am[RB2_T], bn[RB2_T];
#pragma unroll
            for (int i = 0; i < RB2_T; i++)
                am[i] = as[tr * RB2_T + i][d];
#pragma unroll
            for (int j = 0; j < RB2_T; j++)
                bn[j] = bs[d][tc * RB2_T + j];
#pragma unroll
            for (int i = 0; i < RB2_T; i++)
#pragma unroll
                for (int j = 0; j < RB2_T; j++)
                    acc[i][j] += am[i] * bn[j];
        }
        __syncthreads();
    }
    RB2_STORE(row0 + tr * RB2_T + i, col0 + tc * RB2_T + j)
}
/* warplab:end */

/* warplab:rung gemm vectorized */
/* Rung vectorized: as regblock_2d, with 16-byte global loads (one float4 of
 * A and one of B a thread a tile) and A stored transposed (as[k][m]), so a
 * thread's 8 values of A are contiguous: the inner loop reads shared memory
 * with 16-byte loads only (4 LDS.128 per 64 FMAs). ALIGNED: A's and B's rows
 * start on 16-byte boundaries (else the loads go element by element). */
template <bool ALIGNED>
__global__ void __launch_bounds__(RB2_THREADS) gemm_vectorized(gemm_params p)
{
    __shared__ __align__(16) float as[RB2_BK][RB2_BM];
    __shared__ __align__(16) float bs[RB2_BK][RB2_BN];
    const int tid = threadIdx.x;
    const int row0 = blockIdx.y * RB2_BM, col0 = blockIdx.x * RB2_BN;
    const int tr = tid / (RB2_BN / RB2_T), tc = tid % (RB2_BN / RB2_T);
    const int ar = tid / (RB2_BK / 4), ac = (tid % (RB2_BK / 4)) * 4;
    const int br = tid / (RB2_BN / 4), bc = (tid % (RB2_BN / 4)) * 4;
    float acc[RB2_T][RB2_T] = {};
    for (int k0 = 0; k0 < p.k; k0 += RB2_BK) {
        const float4 a = load4_or_zero<ALIGNED>(p.a, p.lda, p.m, p.k, row0 + ar, k0 + ac);
        as[ac + 0][ar] = a.x;
        as[ac + 1][ar] = a.y;
        as[ac + 2][ar] = a.z;
        as[ac + 3][ar] = a.w;
        *reinterpret_cast<float4 *>(&bs[br][bc]) =
            load4_or_zero<ALIGNED>(p.b, p.ldb, p.k, p.n, k0 + br, col0 + bc);
        __syncthreads();
#pragma unroll
        for (int d = 0; d < RB2_BK; d++) {
            float am[RB2_T], bn[RB2_T];
#pragma unroll
            for (int u = 0; u < RB2_T / 4; u++) {
                const float4 x = *reinterpret_cast<const float4 *>(&as[d][tr * RB2_T + u * 4]);
                const float4 y = *reinterpret_cast<const float4 *>(&bs[d][tc * RB2_T + u * 4]);
                am[u * 4 + 0] = x.x, am[u * 4 + 1] = x.y, am[u * 4 + 2] = x.z, am[u * 4 + 3] = x.w;
                bn[u * 4 + 0] = y.x, bn[u * 4 + 1] = y.y, bn[u * 4 + 2] = y.z, bn[u * 4 + 3] = y.w;
            }
#pragma unroll
            for (int i = 0; i < RB2_T; i++)
#pragma unroll
                for (int j = 0; j < RB2_T; j++)
                    acc[i][j] += am[i] * bn[j];
        }
        __syncthreads();
    }
    RB2_STORE(row0 + tr * RB2_T + i, col0 + tc * RB2_T + j)
}
/* warplab:end */

/* warplab:rung gemm conflict_free */
/* Rung conflict_free: as vectorized, with two layout fixes.
 * - The transposing stores of A (as[ac+i][ar]): rows 128 floats apart all
 *   start in bank 0, so the two halves of a warp (ac = 0 and 4) collide;
 *   padding each row of the A tile by 4 floats shifts the second half by 16
 *   banks: 32 distinct banks.
 * - A thread's 8 x 8 outputs as 2 x 2 blocks of 4 x 4, 64 rows and columns
 *   apart: the 16 threads of a half-warp then read 16 consecutive float4 of
 *   B (every 8 lanes 128 contiguous bytes, no bank twice) instead of float4s
 *   32 bytes apart (two lanes a bank). */
#define CF_PAD 4
template <bool ALIGNED>
__global__ void __launch_bounds__(RB2_THREADS) gemm_conflict_free(gemm_params p)
{
    __shared__ __align__(16) float as[RB2_BK][RB2_BM + CF_PAD];
    __shared__ __align__(16) float bs[RB2_BK][RB2_BN];
    const int tid = threadIdx.x;
    const int row0 = blockIdx.y * RB2_BM, col0 = blockIdx.x * RB2_BN;
    const int tr = tid / (RB2_BN / RB2_T), tc = tid % (RB2_BN / RB2_T);
    const int ar = tid / (RB2_BK / 4), ac = (tid % (RB2_BK / 4)) * 4;
    const int br = tid / (RB2_BN / 4), bc = (tid % (RB2_BN / 4)) * 4;
    float acc[RB2_T][RB2_T] = {};
    for (int k0 = 0; k0 < p.k; k0 += RB2_BK) {
        const float4 a = load4_or_zero<ALIGNED>(p.a, p.lda, p.m, p.k, row0 + ar, k0 + ac);
        as[ac + 0][ar] = a.x;
        as[ac + 1][ar] = a.y;
        as[ac + 2][ar] = a.z;
        as[ac + 3][ar] = a.w;
        *reinterpret_cast<float4 *>(&bs[br][bc]) =
            load4_or_zero<ALIGNED>(p.b, p.ldb, p.k, p.n, k0 + br, col0 + bc);
        __syncthreads();
#pragma unroll
        for (int d = 0; d < RB2_BK; d++) {
            float am[RB2_T], bn[RB2_T];
#pragma unroll
            for (int u = 0; u < 2; u++) {
                const float4 x =
                    *reinterpret_cast<const float4 *>(&as[d][u * (RB2_BM / 2) + tr * 4]);
                const float4 y =
                    *reinterpret_cast<const float4 *>(&bs[d][u * (RB2_BN / 2) + tc * 4]);
                am[u * 4 + 0] = x.x, am[u * 4 + 1] = x.y, am[u * 4 + 2] = x.z, am[u * 4 + 3] = x.w;
                bn[u * 4 + 0] = y.x, bn[u * 4 + 1] = y.y, bn[u * 4 + 2] = y.z, bn[u * 4 + 3] = y.w;
            }
#pragma unroll
            for (int i = 0; i < RB2_T; i++)
#pragma unroll
                for (int j = 0; j < RB2_T; j++)
                    acc[i][j] += am[i] * bn[j];
        }
        __syncthreads();
    }
    RB2_STORE(row0 + (i / 4) * (RB2_BM / 2) + tr * 4 + i % 4,
              col0 + (j / 4) * (RB2_BN / 2) + tc * 4 + j % 4)
}
/* warplab:end */

#endif
