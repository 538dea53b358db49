/* ex16_thin: 16-bit GEMM with one small side (m or n up to EX16_THIN_SMALL),
 * bandwidth-bound, on tensor cores (mma.sync m16n8k16, FP32 sums).
 *
 * Lesson (over the CUDA-core GEMV kernels and ex16_mma): a product with m (or n) of 1 to
 * 64 and large k and n is bound by the bytes of the big operand X (k x
 * big), not by arithmetic; it is fast when every SM keeps many bytes in
 * flight and each byte is loaded once, 16 bytes at a time. The CUDA-core
 * GEMV kernels sum on FP32 FMAs (8 to 64 FMAs per loaded pair of bytes: compute
 * bound from m = 8), ex16_mma stages 128 x 128 tiles through shared memory
 * (mostly zero rows at m <= 64, and too few tiles for 132 SMs). Here each
 * lane loads X straight into registers as mma fragments, no shared memory
 * on the way: k is permuted inside a 32-wide k step so that a lane's 8
 * consecutive k (one 16-byte load along k) are its fragment pairs of two
 * m16n8k16 steps; along big, a lane's 8 consecutive columns (one 16-byte
 * load along big) become 8 n8 tiles (mma e takes columns e, 8 + e, ...,
 * 56 + e of the warp's 64). The small operand Y (small x k) is the mma's A
 * (16-row tiles, up to 4), loaded the same way. A block's warps take
 * interleaved k steps of one 64-column strip and add their sums in shared
 * memory; the grid's y splits k so that about 4 blocks an SM are resident,
 * each warp with 4 KB (or 8 KB) of X in flight. The kernel always writes
 * FP32 partial sums part[split][small][big]; ex16_finish adds the splits
 * in order and writes C (any type, alpha, beta).
 *
 * Geometry as ex16_thin_params: X[q][j] at q * x_q + j * x_j with x_q = 1
 * (X_ALONG_K) or x_j = 1, Y[i][q] at i * y_i + q * y_q. A 16-byte load is
 * issued only when its window lies inside the row (column) and the split
 * and is 16-byte aligned (x_vec, y_vec say the base and the stride are;
 * 8- and 4-byte aligned rows load the window in 2 or 4 pieces); every
 * other element is loaded alone, and elements past an edge are
 * zeros (their products land in sums that are not written). */
/* warplab:rung gemm ex16_thin */
#ifndef WARPLAB_GEMM_EX16_THIN_CUH
#define WARPLAB_GEMM_EX16_THIN_CUH

#include "../../kernels/gemm_tiles16.h" /* EX16_THIN_SMALL, _WARPS, _COLS, _STEP */
#include "mma_kernel.cuh"

/* The big operand X (k x big) times the small one Y (small x k). For m
 * small, X = op(B) and Y = op(A); for n small, X = op(A)^T and Y = op(B)^T,
 * and C is written transposed (c_i, c_j). */
struct ex16_thin_params {
    const uint16_t *x, *y;
    long long x_q, x_j, y_i, y_q;
    int big, small, k, k_chunk, splits;
    /* The widest load of 8 elements of X (Y) along its contiguous dimension
     * that its base and stride allow: 16, 8 or 4 bytes, 0 element by
     * element. */
    int x_vec, y_vec;
    float *part; /* [split][small][big] */
    void *c;
    long long c_i, c_j;
    float alpha, beta;
    bool narrow;
};

/* D += A * B, m16n8k16, BF16 or FP16 inputs, FP32 sums (mma_kernel.cuh's
 * wrappers, emulated under WL_EMULATE). */
template <bool BF16>
__device__ __forceinline__ void ex16_mma_16816(float d[4], const unsigned a[4], const unsigned b[2])
{
    if (BF16)
        mma_bf16_m16n8k16(d, a, b);
    else
        mma_f16_m16n8k16(d, a, b);
}

/* 8 elements src[e * stride], e < valid (others zero), as 4 words (the
 * lower element in the low half). vec: the bytes a load where src is that
 * aligned and stride is 1 (16: one load; 8: two; 4: four), 8 valid
 * elements; 0, or fewer valid, loads element by element. Rows of 16-bit
 * elements whose pitch is 8 bytes off 16 (k = 4 mod 8) keep 8-byte loads
 * instead of 2-byte ones. */
__device__ __forceinline__ void ex16_thin_load8(const uint16_t *src, long long stride, int valid,
                                                int vec, unsigned w[4])
{
    if (vec >= 4 && valid >= 8) {
#ifdef WL_EMULATE
        std::memcpy(w, src, 16);
#else
        if (vec == 16) {
            const uint4 v = __ldg(reinterpret_cast<const uint4 *>(src));
            w[0] = v.x;
            w[1] = v.y;
            w[2] = v.z;
            w[3] = v.w;
        } else if (vec == 8) {
            const uint2 lo = __ldg(reinterpret_cast<const uint2 *>(src));
            const uint2 hi = __ldg(reinterpret_cast<const uint2 *>(src) + 1);
            w[0] = lo.x;
            w[1] = lo.y;
            w[2] = hi.x;
            w[3] = hi.y;
        } else {
#pragma unroll
            for (int i = 0; i < 4; i++)
                w[i] = __ldg(reinterpret_cast<const unsigned *>(src) + i);
        }
#endif
        return;
    }
#pragma unroll
    for (int i = 0; i < 4; i++)
        w[i] = 0u;
#pragma unroll
    for (int e = 0; e < 8; e++)
        if (e < valid)
            w[e / 2] |= (unsigned)src[e * stride] << (16 * (e % 2));
}

/* The k pair (2w, 2w + 1) of column e from 8 rows of 8 columns: the halves
 * e of rows[2w] and rows[2w + 1]. */
__device__ __forceinline__ unsigned ex16_thin_pair(const unsigned lo_row[4],
                                                   const unsigned hi_row[4], int e)
{
    const unsigned shift = 16 * (e % 2);
    return ((lo_row[e / 2] >> shift) & 0xFFFFu) | (((hi_row[e / 2] >> shift) & 0xFFFFu) << 16);
}

/* MI: 16-row tiles of the small side (1, 2 or 4); DEPTH: k steps a warp
 * loads before it multiplies (bytes in flight against registers). */
template <bool BF16, int MI, bool X_ALONG_K, int DEPTH>
__global__ void __launch_bounds__(32 * EX16_THIN_WARPS) ex16_thin(ex16_thin_params p)
{
#if WL_SM80_BODY
    /* wl_splitk_finish follows */
    wl_pdl_release();
    __shared__ float sums[EX16_THIN_WARPS - 1][32][32]; /* [warp - 1][e * 4 + r][lane] */
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, g = lane / 4, t = lane % 4;
    const int j0 = blockIdx.x * EX16_THIN_COLS, split = blockIdx.y;
    const int q_begin = split * p.k_chunk;
    const int q_end = p.k < q_begin + p.k_chunk ? p.k : q_begin + p.k_chunk;
    const int jl = j0 + 8 * g; /* the lane's first column */
    const int big_valid = p.big - jl < 8 ? p.big - jl : 8;
    float acc[MI][8][4];
#pragma unroll
    for (int i = 0; i < MI; i++)
#pragma unroll
        for (int e = 0; e < 8; e++)
#pragma unroll
            for (int r = 0; r < 4; r++)
                acc[i][e][r] = 0.0f;

    for (int q0 = q_begin + warp * EX16_THIN_STEP; q0 < q_end;
         q0 += EX16_THIN_STEP * EX16_THIN_WARPS * DEPTH) {
        /* xw[d][e][w]: column jl + e, k q + 2w and q + 2w + 1 (q = the
         * step's k + 8t); yw[d][i][h][w]: row 16i + g + 8h, the same k. */
        unsigned xw[DEPTH][8][4], yw[DEPTH][MI][2][4];
#pragma unroll
        for (int d = 0; d < DEPTH; d++) {
            const int q = q0 + d * EX16_THIN_STEP * EX16_THIN_WARPS + 8 * t;
            const int k_valid = q_end - q < 8 ? q_end - q : 8; /* may be <= 0 */
            if (X_ALONG_K) {
#pragma unroll
                for (int e = 0; e < 8; e++)
                    ex16_thin_load8(p.x + (size_t)(jl + e) * p.x_j + q, 1,
                                    e < big_valid ? k_valid : 0, p.x_vec, xw[d][e]);
            } else {
                unsigned rows[8][4];
#pragma unroll
                for (int r = 0; r < 8; r++)
                    ex16_thin_load8(p.x + (size_t)(q + r) * p.x_q + jl, 1,
                                    r < k_valid ? big_valid : 0, p.x_vec, rows[r]);
#pragma unroll
                for (int e = 0; e < 8; e++)
#pragma unroll
                    for (int w = 0; w < 4; w++)
                        xw[d][e][w] = ex16_thin_pair(rows[2 * w], rows[2 * w + 1], e);
            }
#pragma unroll
            for (int i = 0; i < MI; i++)
#pragma unroll
                for (int h = 0; h < 2; h++) {
                    const int row = 16 * i + g + 8 * h;
                    ex16_thin_load8(p.y + (size_t)row * p.y_i + (size_t)q * p.y_q, p.y_q,
                                    row < p.small ? k_valid : 0, p.y_vec, yw[d][i][h]);
                }
        }
#pragma unroll
        for (int d = 0; d < DEPTH; d++)
#pragma unroll
            for (int s = 0; s < 2; s++) {
                /* The step's k slots 2t, 2t + 1 are k q + 4s + 0, 1; slots
                 * 2t + 8, 2t + 9 are q + 4s + 2, 3: words 2s and 2s + 1. */
#pragma unroll
                for (int i = 0; i < MI; i++) {
                    const unsigned a[4] = {yw[d][i][0][2 * s], yw[d][i][1][2 * s],
                                           yw[d][i][0][2 * s + 1], yw[d][i][1][2 * s + 1]};
#pragma unroll
                    for (int e = 0; e < 8; e++) {
                        const unsigned b[2] = {xw[d][e][2 * s], xw[d][e][2 * s + 1]};
                        ex16_mma_16816<BF16>(acc[i][e], a, b);
                    }
                }
            }
    }

    /* acc[i][e][r]: row 16i + g (+8 for r >= 2), column j0 + 8 (2t + r % 2)
     * + e. The warps' sums added in shared memory, one 16-row tile at a
     * time; warp 0 writes the split's partial sums. */
#pragma unroll
    for (int i = 0; i < MI; i++) {
        if (warp > 0)
#pragma unroll
            for (int e = 0; e < 8; e++)
#pragma unroll
                for (int r = 0; r < 4; r++)
                    sums[warp - 1][e * 4 + r][lane] = acc[i][e][r];
        __syncthreads();
        if (warp == 0)
#pragma unroll
            for (int e = 0; e < 8; e++)
#pragma unroll
                for (int r = 0; r < 4; r++) {
                    float v = acc[i][e][r];
#pragma unroll
                    for (int w = 0; w < EX16_THIN_WARPS - 1; w++)
                        v += sums[w][e * 4 + r][lane];
                    const int row = 16 * i + g + 8 * (r / 2);
                    const int col = j0 + 8 * (2 * t + r % 2) + e;
                    if (row < p.small && col < p.big)
                        p.part[((size_t)split * p.small + row) * p.big + col] = v;
                }
        __syncthreads();
    }
#endif
}
/* warplab:end */

#endif
