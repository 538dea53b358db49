/* warplab_gemm_ex's one GEMV / skinny family (the planner's "gemv"
 * candidate, src/ops/gemm_plan.h), for every input type (FP32, BF16,
 * FP16), every output type (FP32 or the input type) and every layout, read
 * in place; in a header so that the CUDA emulator (tests/emulate) runs it
 * on the CPU.
 *
 * The problem, seen from its small side (min(m, n) <= WL_GEMV_SMALL_MAX):
 * C' (small x big) = Y (small x k) X^T, X (big x k) the big operand, read
 * once. X[j][q] sits at j * x_j + q * x_q, Y[i][q] at i * y_i + q * y_q,
 * C'[i][j] at i * c_i + j * c_j. With m small, X = op(B) and Y = op(A);
 * with n small, X = op(A)^T and Y = op(B)^T, and C is written transposed.
 * Two kernels, by the way X is stored:
 * - gemv_along_k (x_q = 1: op_b = T, PyTorch nn.Linear's weights, for m
 *   small): a thread owns a row of X and reads it in whole 128-byte lines,
 *   Y's piece is staged in shared memory (FP32) and read by broadcast. The
 *   warp-per-column kernels it replaces loaded m 16-byte Y vectors from L1
 *   per 16-byte X vector (0.12-0.31x cuBLAS at 7-8 tokens, H200); a warp
 *   over 4 rows with lanes along k, tried first, kept S x 4 sums a thread
 *   and fell to half the speed from m = 2 to m = 7.
 * - gemv_along_big (x_j = 1): a thread owns 16 bytes of neighbouring
 *   columns, GROUPS groups of threads walk the rows of X in turn, shared
 *   memory adds the groups.
 * k is split (blockIdx.y) so that every SM has blocks; the splits' partial
 * sums (part[split][i][j], FP32) are added in split order by
 * wl_splitk_finish, the one split-K reduction (deterministic), which also
 * applies alpha and beta and writes C in its type. With one split the
 * kernels write C themselves. Sums are FP32 fused multiply-adds of the
 * inputs widened exactly (TF32 compute runs these FP32 products: within its
 * bound). A 16-byte load is issued only where the view's base and pitch are
 * 16-byte aligned (x_vec, y_vec) and the window lies in the row and the
 * split; elsewhere elements load one at a time. X, read once, is loaded
 * evict-first (__ldcs) so that it does not push Y, read by every warp of
 * the split, out of L1: with plain loads the H200 ran 7 x 4096 x 4096 TF32
 * (op_b = T) at twice the time of 2 x 4096 x 4096. */
/* warplab:rung gemm ex_tf32 ex_bf16 ex_fp16 */
#ifndef WARPLAB_GEMM_GEMV_CUH
#define WARPLAB_GEMM_GEMV_CUH

#include "../../ops/gemm_plan.h"
#include "gemm_device.cuh"

#ifndef WL_EMULATE
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>
#endif

/* Element kinds: what a 16-byte vector holds and how an element widens. */
enum { WL_GEMV_F32 = 0, WL_GEMV_BF16 = 1, WL_GEMV_F16 = 2 };

template <int KIND> struct gemv_elem {
    typedef uint16_t storage;
    enum { VEC = 8 };
    static __device__ __forceinline__ float widen(uint16_t bits)
    {
        if (KIND == WL_GEMV_BF16)
            return __uint_as_float((unsigned)bits << 16);
        return __half2float(__ushort_as_half(bits));
    }
    static __device__ __forceinline__ void widen_vec(const uint4 &v, float out[8])
    {
        const unsigned words[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
        for (int i = 0; i < 4; i++) {
            out[2 * i] = widen((uint16_t)(words[i] & 0xFFFFu));
            out[2 * i + 1] = widen((uint16_t)(words[i] >> 16));
        }
    }
};
template <> struct gemv_elem<WL_GEMV_F32> {
    typedef float storage;
    enum { VEC = 4 };
    static __device__ __forceinline__ float widen(float x) { return x; }
    static __device__ __forceinline__ void widen_vec(const uint4 &v, float out[4])
    {
        out[0] = __uint_as_float(v.x);
        out[1] = __uint_as_float(v.y);
        out[2] = __uint_as_float(v.z);
        out[3] = __uint_as_float(v.w);
    }
};

struct wl_gemv_params {
    const void *x, *y;
    long long x_q, x_j, y_i, y_q;
    int big, small, k, k_chunk, splits;
    bool x_vec, y_vec; /* 16-byte loads of X (Y) along its contiguous dimension */
    float *part;       /* [split][small][big], splits > 1 */
    void *c;
    long long c_i, c_j;
    float alpha, beta;
    int c_kind; /* WL_GEMV_F32, or the 16-bit kind of C */
};

/* C[index] = alpha * sum + beta * C[index], C of c_kind; with beta = 0, C
 * is not read. */
__device__ __forceinline__ void gemv_store(void *c, size_t index, int c_kind, float sum,
                                           float alpha, float beta)
{
    float value = alpha * sum;
    if (c_kind == WL_GEMV_F32) {
        float *out = (float *)c + index;
        if (beta != 0.0f)
            value += beta * *out;
        *out = value;
    } else if (c_kind == WL_GEMV_BF16) {
        uint16_t *out = (uint16_t *)c + index;
        if (beta != 0.0f)
            value += beta * gemv_elem<WL_GEMV_BF16>::widen(*out);
        *out = __bfloat16_as_ushort(__float2bfloat16_rn(value));
    } else {
        uint16_t *out = (uint16_t *)c + index;
        if (beta != 0.0f)
            value += beta * gemv_elem<WL_GEMV_F16>::widen(*out);
        *out = __half_as_ushort(__float2half_rn(value));
    }
}

/* The split's sum of C'[i][j]: written to C (one split) or to its partial. */
__device__ __forceinline__ void gemv_emit(const wl_gemv_params &p, int split, int i, int j, float v)
{
    if (p.splits == 1)
        gemv_store(p.c, (size_t)((long long)i * p.c_i + (long long)j * p.c_j), p.c_kind, v,
                   p.alpha, p.beta);
    else
        p.part[((size_t)split * p.small + i) * p.big + j] = v;
}

/* X along k. A thread owns one row j of X (lanes on neighbouring rows)
 * and its S sums: no shuffles, S accumulators a thread. The block stages
 * Y's piece of WL_GEMV_ALONG_K_PIECE k, widened to FP32, in shared memory
 * (every thread then reads it by broadcast), and each thread streams its
 * row in whole 128-byte lines (8 x 16 bytes a step, every byte of a line
 * used at once). S: the small side rounded up (1, 2, 4, 8 or 16). */
template <int KIND, int S>
__global__ void __launch_bounds__(WL_GEMV_ALONG_K_THREADS) gemv_along_k(wl_gemv_params p)
{
    typedef gemv_elem<KIND> E;
    typedef typename E::storage T;
    const int VEC = E::VEC, PIECE = WL_GEMV_ALONG_K_PIECE, LINE = 8 * E::VEC;
    if (p.splits > 1) /* wl_splitk_finish follows */
        wl_release_dependents();
    __shared__ __align__(16) float ys[S][WL_GEMV_ALONG_K_PIECE];
    const int tid = threadIdx.x;
    const int j = blockIdx.x * WL_GEMV_ALONG_K_THREADS + tid, split = blockIdx.y;
    const int q0 = split * p.k_chunk, q1 = min(p.k, q0 + p.k_chunk);
    const T *x = (const T *)p.x, *y = (const T *)p.y;
    const T *row = x + (size_t)min(j, p.big - 1) * p.x_j; /* rows past big: never stored */
    float acc[S];
#pragma unroll
    for (int i = 0; i < S; i++)
        acc[i] = 0.0f;
    for (int base = q0; base < q1; base += PIECE) {
        const int count = min(PIECE, q1 - base);
        const bool whole = count == PIECE;
        /* Y[i][base .. base + count) into ys[i][...], zeros past q1. */
        if (whole && p.y_vec) {
            for (int e = tid; e < p.small * (PIECE / VEC); e += WL_GEMV_ALONG_K_THREADS) {
                const int i = e / (PIECE / VEC), qq = e % (PIECE / VEC) * VEC;
                float v[E::VEC];
                E::widen_vec(__ldg(reinterpret_cast<const uint4 *>(y + (size_t)i * p.y_i + base +
                                                                   qq)),
                             v);
#pragma unroll
                for (int t = 0; t < E::VEC; t++)
                    ys[i][qq + t] = v[t];
            }
        } else {
            for (int e = tid; e < p.small * PIECE; e += WL_GEMV_ALONG_K_THREADS) {
                const int i = e / PIECE, qq = e % PIECE;
                ys[i][qq] =
                    qq < count ? E::widen(y[(size_t)i * p.y_i + (size_t)(base + qq) * p.y_q]) : 0.0f;
            }
        }
        __syncthreads();
        if (whole && p.x_vec) {
#pragma unroll 1
            for (int step = 0; step < PIECE; step += LINE) {
                uint4 raw[8];
#pragma unroll
                for (int v = 0; v < 8; v++)
                    raw[v] = __ldcs(reinterpret_cast<const uint4 *>(row + base + step + v * VEC));
#pragma unroll
                for (int v = 0; v < 8; v++) {
                    float xv[E::VEC];
                    E::widen_vec(raw[v], xv);
#pragma unroll
                    for (int i = 0; i < S; i++)
                        if (i < p.small)
#pragma unroll
                            for (int t = 0; t < E::VEC; t += 4) {
                                const float4 yv =
                                    *reinterpret_cast<const float4 *>(&ys[i][step + v * VEC + t]);
                                acc[i] = fmaf(yv.x, xv[t], acc[i]);
                                acc[i] = fmaf(yv.y, xv[t + 1], acc[i]);
                                acc[i] = fmaf(yv.z, xv[t + 2], acc[i]);
                                acc[i] = fmaf(yv.w, xv[t + 3], acc[i]);
                            }
                }
            }
        } else {
            for (int qq = 0; qq < count; qq++) {
                const float xv = E::widen(row[base + qq]);
#pragma unroll
                for (int i = 0; i < S; i++)
                    if (i < p.small)
                        acc[i] = fmaf(ys[i][qq], xv, acc[i]);
            }
        }
        __syncthreads();
    }
    if (j < p.big)
#pragma unroll
        for (int i = 0; i < S; i++)
            if (i < p.small)
                gemv_emit(p, split, i, j, acc[i]);
}

/* X along big: threads WL_GEMV_ALONG_BIG_THREADS along big (VEC columns
 * each: a warp reads 512 bytes of a row) times WL_GEMV_ALONG_BIG_GROUPS
 * groups along k. */
template <int KIND, int S>
__global__ void __launch_bounds__(WL_GEMV_THREADS) gemv_along_big(wl_gemv_params p)
{
    typedef gemv_elem<KIND> E;
    typedef typename E::storage T;
    const int VEC = E::VEC, TX = WL_GEMV_ALONG_BIG_THREADS, GROUPS = WL_GEMV_ALONG_BIG_GROUPS;
    if (p.splits > 1) /* wl_splitk_finish follows */
        wl_release_dependents();
    __shared__ float sums[WL_GEMV_ALONG_BIG_GROUPS - 1][WL_GEMV_ALONG_BIG_THREADS * 8];
    const int tx = threadIdx.x % TX, group = threadIdx.x / TX;
    const int j0 = (blockIdx.x * TX + tx) * VEC, split = blockIdx.y;
    const int q0 = split * p.k_chunk, q1 = min(p.k, q0 + p.k_chunk);
    const bool whole = p.x_vec && j0 + VEC <= p.big;
    const T *x = (const T *)p.x, *y = (const T *)p.y;
    float acc[S][E::VEC];
#pragma unroll
    for (int i = 0; i < S; i++)
#pragma unroll
        for (int e = 0; e < E::VEC; e++)
            acc[i][e] = 0.0f;
    if (j0 < p.big) {
#pragma unroll 4
        for (int q = q0 + group; q < q1; q += GROUPS) {
            const T *row = x + (size_t)q * p.x_q + j0;
            float xv[E::VEC];
            if (whole) {
                E::widen_vec(__ldcs(reinterpret_cast<const uint4 *>(row)), xv);
            } else {
#pragma unroll
                for (int e = 0; e < E::VEC; e++)
                    xv[e] = j0 + e < p.big ? E::widen(row[e]) : 0.0f;
            }
#pragma unroll
            for (int i = 0; i < S; i++)
                if (i < p.small) {
                    const float yv = E::widen(y[(size_t)i * p.y_i + (size_t)q * p.y_q]);
#pragma unroll
                    for (int e = 0; e < E::VEC; e++)
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
            for (int e = 0; e < E::VEC; e++)
                sums[group - 1][tx * VEC + e] = acc[i][e];
        __syncthreads();
        if (group == 0 && j0 < p.big) {
#pragma unroll
            for (int e = 0; e < E::VEC; e++) {
                float v = acc[i][e];
#pragma unroll
                for (int g = 0; g < WL_GEMV_ALONG_BIG_GROUPS - 1; g++)
                    v += sums[g][tx * VEC + e];
                if (j0 + e < p.big)
                    gemv_emit(p, split, i, j0 + e, v);
            }
        }
        __syncthreads();
    }
}

/* The split-K reduction: C[i * c_i + j * c_j] = alpha * (sum over s of
 * part[s][i][j], in split order) + beta * C, for i < rows, j < cols; C of
 * c_kind. */
__global__ void wl_splitk_finish(const float *part, int splits, int rows, int cols, void *c,
                                 long long c_i, long long c_j, int c_kind, float alpha, float beta)
{
    wl_wait_for_producer();
    const size_t count = (size_t)rows * cols;
    for (size_t e = blockIdx.x * (size_t)blockDim.x + threadIdx.x; e < count;
         e += (size_t)gridDim.x * blockDim.x) {
        const float sum = wl_split_sum(part, splits, count, e);
        const size_t i = e / cols, j = e % cols;
        gemv_store(c, i * c_i + j * c_j, c_kind, sum, alpha, beta);
    }
}

#endif
/* warplab:end */
