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
 *   small): a warp owns COLS rows of X, its lanes read 16 bytes of each
 *   row a step (COLS independent loads in flight), every Y vector it loads
 *   serves COLS rows, and shuffles add the lanes at the end. The warp-per-
 *   column kernels it replaces loaded each Y vector for one row of X only,
 *   so a step was m Y loads per X load (0.10-0.43x cuBLAS at 1-7 tokens
 *   with B stored n x k).
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

/* What a 16-byte vector of each element kind (WL_GEMV_*, gemm_plan.h)
 * holds and how an element widens. */
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
        gemv_store(p.c, (size_t)((long long)i * p.c_i + (long long)j * p.c_j), p.c_kind, v, p.alpha,
                   p.beta);
    else
        p.part[((size_t)split * p.small + i) * p.big + j] = v;
}

/* X along k. S: the small side rounded up (1, 2, 4, 8 or 16); COLS: rows of
 * X a warp. */
template <int KIND, int S, int COLS>
__global__ void __launch_bounds__(WL_GEMV_THREADS,
                                  WL_GEMV_ALONG_K_MIN_BLOCKS(S, KIND == WL_GEMV_F32 ? 4 : 2))
    gemv_along_k(wl_gemv_params p)
{
    typedef gemv_elem<KIND> E;
    typedef typename E::storage T;
    const int VEC = E::VEC, STEP = 32 * E::VEC;
    if (p.splits > 1) /* wl_splitk_finish follows */
        wl_release_dependents();
    const int lane = threadIdx.x % 32;
    const int j0 = (blockIdx.x * (WL_GEMV_THREADS / 32) + threadIdx.x / 32) * COLS;
    const int split = blockIdx.y;
    const int q0 = split * p.k_chunk, q1 = min(p.k, q0 + p.k_chunk);
    if (j0 >= p.big)
        return; /* whole warps leave together */
    const T *x = (const T *)p.x, *y = (const T *)p.y;
    const T *rows[COLS];
#pragma unroll
    for (int c = 0; c < COLS; c++) /* rows past big repeat the last; never stored */
        rows[c] = x + (size_t)min(j0 + c, p.big - 1) * p.x_j;
    float acc[S][COLS];
#pragma unroll
    for (int i = 0; i < S; i++)
#pragma unroll
        for (int c = 0; c < COLS; c++)
            acc[i][c] = 0.0f;
    /* Whole vectors (q0 is a multiple of VEC: k_chunk is of 256), then the
     * tail an element a lane. */
    int q_tail = q0;
    if (p.x_vec && p.y_vec) {
        const int q_vec = q0 + (q1 - q0) / VEC * VEC;
#pragma unroll 2
        for (int q = q0 + lane * VEC; q < q_vec; q += STEP) {
            float xv[COLS][E::VEC];
#pragma unroll
            for (int c = 0; c < COLS; c++)
                E::widen_vec(__ldcs(reinterpret_cast<const uint4 *>(rows[c] + q)), xv[c]);
#pragma unroll
            for (int i = 0; i < S; i++)
                if (i < p.small) {
                    float yv[E::VEC];
                    E::widen_vec(__ldg(reinterpret_cast<const uint4 *>(y + (size_t)i * p.y_i + q)),
                                 yv);
#pragma unroll
                    for (int c = 0; c < COLS; c++)
#pragma unroll
                        for (int e = 0; e < E::VEC; e++)
                            acc[i][c] = fmaf(yv[e], xv[c][e], acc[i][c]);
                }
        }
        q_tail = q_vec;
    }
    for (int q = q_tail + lane; q < q1; q += 32) {
        float xv[COLS];
#pragma unroll
        for (int c = 0; c < COLS; c++)
            xv[c] = E::widen(rows[c][q]);
#pragma unroll
        for (int i = 0; i < S; i++)
            if (i < p.small) {
                const float yv = E::widen(y[(size_t)i * p.y_i + (size_t)q * p.y_q]);
#pragma unroll
                for (int c = 0; c < COLS; c++)
                    acc[i][c] = fmaf(yv, xv[c], acc[i][c]);
            }
    }
#pragma unroll
    for (int i = 0; i < S; i++) {
        if (i >= p.small)
            break;
#pragma unroll
        for (int c = 0; c < COLS; c++) {
            float v = acc[i][c];
#pragma unroll
            for (int offset = 16; offset > 0; offset /= 2)
                v += __shfl_xor_sync(0xFFFFFFFFu, v, offset);
            if (lane == 0 && j0 + c < p.big)
                gemv_emit(p, split, i, j0 + c, v);
        }
    }
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
