/* warplab_gemm_ex's one GEMV / skinny family (the planner's "gemv"
 * candidate, src/kernels/gemm_plan.h), for every input type (FP32, BF16,
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
 * - gemv_tiled_k (x_q = 1, FP32 compute, small side 9 to 32): as
 *   gemv_along_k, on register tiles (below).
 * - gemv_staged_k (x_q = 1, FP32 compute, small side 2 to 8): as
 *   gemv_along_k, with 8 rows of X a warp and Y staged in shared memory
 *   (below).
 * - gemv_mma (x_q = 1 and y_q = 1, 16-bit inputs or TF32 compute, small
 *   side up to 32; the planner takes it to WL_GEMV_MMA_SMALL_MAX): gemv_along_k's problem on tensor
 *   cores (below).
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

#include "../../kernels/gemm_plan.h"
#include "gemm_device.cuh"
#include "mma_kernel.cuh"

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
        wl_pdl_release();
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

/* X along big: TX threads along big (VEC columns each: 16 bytes; a warp
 * reads 512 bytes of a row) times GROUPS groups along k, by the element's
 * bytes (gemm_plan.h: 64 x 4 for 16-bit inputs, 32 x 8 for FP32). */
template <int KIND, int S>
__global__ void __launch_bounds__(WL_GEMV_THREADS) gemv_along_big(wl_gemv_params p)
{
    typedef gemv_elem<KIND> E;
    typedef typename E::storage T;
    constexpr int VEC = E::VEC, TX = WL_GEMV_ALONG_BIG_THREADS((int)sizeof(T)),
                  GROUPS = WL_GEMV_ALONG_BIG_GROUPS((int)sizeof(T));
    if (p.splits > 1) /* wl_splitk_finish follows */
        wl_pdl_release();
    __shared__ float sums[GROUPS - 1][TX * VEC];
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
                /* 16-bit: plain read-only loads, as the 16-bit columns
                 * kernel whose geometry and split this one took (measured
                 * there); FP32: evict-first. */
                const uint4 *v = reinterpret_cast<const uint4 *>(row);
                E::widen_vec(sizeof(T) == 2 ? __ldg(v) : __ldcs(v), xv);
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
                for (int g = 0; g < GROUPS - 1; g++)
                    v += sums[g][tx * VEC + e];
                if (j0 + e < p.big)
                    gemv_emit(p, split, i, j0 + e, v);
            }
        }
        __syncthreads();
    }
}

/* gemv_tiled_k: X along k, exact FP32 (FMAs), small side 9 to 32.
 *
 * Over gemv_along_k: there each lane sums all S columns for COLS rows of
 * X, so every 16 bytes of X cost S loads of Y (from L2: Y is read by every
 * warp) for S x COLS x 4 FMAs; the loads of Y, not the FMAs, bound it, and
 * from S = 17 the registers allow COLS = 2 at most (exact FP32 at m =
 * 24-32 fell to the 64 x 64 tile fallback, 0.03-0.35x cuBLAS, H200). Here
 * a block's 8 warps own 64 rows of X (8 a warp) and work on the same k:
 * X and Y come through shared memory in stages of WL_GEMV_TILED_STAGE_K,
 * WL_GEMV_TILED_STAGES deep (cp.async: the next stages' bytes in flight
 * while one is multiplied, 16-byte copies where the rows are 16-byte
 * aligned, zeros past k, small and big), so each Y element is fetched once
 * a block. A lane keeps an 8 x SC tile of sums (SC = S / 4 columns): its
 * 8 lanes walk k, 16 bytes a lane a step, the 4 groups of 8 lanes take a
 * quarter of the columns each and read the same X words (a broadcast):
 * 8 + SC shared loads a step for 32 x SC FMAs. The 8 lanes of a group add
 * their sums with shuffles and lane r stores row r; k splits across blocks
 * (blockIdx.y) as for the other kernels. Only FP32 inputs are
 * instantiated: 16-bit inputs have the tensor-core kernel. */
template <int S> struct gemv_tiled_shape {
    enum {
        SC = S / 4,                               /* columns a lane */
        PITCH = WL_GEMV_TILED_STAGE_K + 4,        /* floats a shared row (+4: banks) */
        STAGE = (WL_GEMV_TILED_ROWS + S) * PITCH, /* floats a stage: X rows, then Y rows */
        BYTES = WL_GEMV_TILED_STAGES * STAGE * 4  /* dynamic shared memory */
    };
};

/* One stage of X (rows j0.., WL_GEMV_TILED_ROWS) and Y (S rows) at k q
 * (elements before q_end) into shared memory, as cp.async copies. */
template <int S>
__device__ __forceinline__ void gemv_tiled_stage(const wl_gemv_params &p, float *stage, int j0,
                                                 int q, int q_end)
{
    typedef gemv_tiled_shape<S> G;
    const float *x = (const float *)p.x, *y = (const float *)p.y;
    const int CHUNKS = WL_GEMV_TILED_STAGE_K / 4; /* 16-byte chunks a row */
    for (int c = threadIdx.x; c < (WL_GEMV_TILED_ROWS + S) * CHUNKS; c += WL_GEMV_THREADS) {
        const int row = c / CHUNKS, qq = q + 4 * (c % CHUNKS);
        float *dst = stage + row * G::PITCH + 4 * (c % CHUNKS);
        const int k_valid = q_end - qq < 0 ? 0 : min(q_end - qq, 4);
        if (row < WL_GEMV_TILED_ROWS) {
            const int j = j0 + row;
            const int valid = j < p.big ? k_valid : 0;
            const float *src = x + (size_t)min(j, p.big - 1) * p.x_j + qq;
            if (p.x_vec) {
                cp_async_16_edge(dst, src, valid);
            } else {
#pragma unroll
                for (int e = 0; e < 4; e++)
                    cp_async_4(dst + e, src + e, e < valid);
            }
        } else {
            const int i = row - WL_GEMV_TILED_ROWS;
            const int valid = i < p.small ? k_valid : 0;
            const float *src = y + (size_t)min(i, p.small - 1) * p.y_i + (size_t)qq * p.y_q;
            if (p.y_vec) {
                cp_async_16_edge(dst, src, valid);
            } else {
#pragma unroll
                for (int e = 0; e < 4; e++)
                    cp_async_4(dst + e, src + (size_t)e * p.y_q, e < valid);
            }
        }
    }
}

template <int KIND, int S>
__global__ void __launch_bounds__(WL_GEMV_THREADS, 2) gemv_tiled_k(wl_gemv_params p)
{
    static_assert(KIND == WL_GEMV_F32, "gemv_tiled_k: FP32 inputs");
    typedef gemv_tiled_shape<S> G;
    const int SC = G::SC, LANES = 8, STAGES = WL_GEMV_TILED_STAGES;
    const int STAGE_K = WL_GEMV_TILED_STAGE_K;
    if (p.splits > 1) /* wl_splitk_finish follows */
        wl_pdl_release();
    WL_DYNAMIC_SMEM(float, smem);
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, kl = lane % LANES;
    const int group = lane / LANES;
    const int j0 = blockIdx.x * WL_GEMV_TILED_ROWS, split = blockIdx.y;
    const int q0 = split * p.k_chunk, q1 = min(p.k, q0 + p.k_chunk);
    const int stages = q1 > q0 ? (q1 - q0 + STAGE_K - 1) / STAGE_K : 0;
    float acc[8][SC];
#pragma unroll
    for (int r = 0; r < 8; r++)
#pragma unroll
        for (int c = 0; c < SC; c++)
            acc[r][c] = 0.0f;
            /* The first STAGES - 1 stages in flight (one commit group each, empty
             * past the end, so that the wait below counts the same everywhere). */
#pragma unroll
    for (int st = 0; st < STAGES - 1; st++) {
        if (st < stages)
            gemv_tiled_stage<S>(p, smem + st * G::STAGE, j0, q0 + st * STAGE_K, q1);
        cp_async_commit();
    }
    for (int st = 0; st < stages; st++) {
        cp_async_wait<STAGES - 2>();
        __syncthreads(); /* stage st landed; stage st - 1's buffer is free */
        const int next = st + STAGES - 1;
        if (next < stages)
            gemv_tiled_stage<S>(p, smem + (next % STAGES) * G::STAGE, j0, q0 + next * STAGE_K, q1);
        cp_async_commit();
        const float *xs = smem + (st % STAGES) * G::STAGE + warp * 8 * G::PITCH;
        const float *ys =
            smem + (st % STAGES) * G::STAGE + (WL_GEMV_TILED_ROWS + group * SC) * G::PITCH;
#pragma unroll
        for (int d = 0; d < STAGE_K / (4 * LANES); d++) {
            const int kk = d * 4 * LANES + 4 * kl;
            float4 xv[8];
#pragma unroll
            for (int r = 0; r < 8; r++)
                xv[r] = *reinterpret_cast<const float4 *>(xs + r * G::PITCH + kk);
#pragma unroll
            for (int c = 0; c < SC; c++) {
                const float4 yv = *reinterpret_cast<const float4 *>(ys + c * G::PITCH + kk);
#pragma unroll
                for (int r = 0; r < 8; r++) {
                    acc[r][c] = fmaf(yv.x, xv[r].x, acc[r][c]);
                    acc[r][c] = fmaf(yv.y, xv[r].y, acc[r][c]);
                    acc[r][c] = fmaf(yv.z, xv[r].z, acc[r][c]);
                    acc[r][c] = fmaf(yv.w, xv[r].w, acc[r][c]);
                }
            }
        }
    }
    cp_async_wait<0>();
    /* The group's 8 lanes add their sums; lane r emits row r of the warp. */
#pragma unroll
    for (int r = 0; r < 8; r++)
#pragma unroll
        for (int c = 0; c < SC; c++) {
            float v = acc[r][c];
#pragma unroll
            for (int offset = 1; offset < LANES; offset *= 2)
                v += __shfl_xor_sync(0xFFFFFFFFu, v, offset);
            const int j = j0 + warp * 8 + r, i = group * SC + c;
            if (r == kl && j < p.big && i < p.small)
                gemv_emit(p, split, i, j, v);
        }
}

/* gemv_staged_k: X along k, exact FP32 (FMAs), small side 2 to
 * WL_GEMV_STAGED_SMALL_MAX (gemm_plan.h).
 *
 * Over gemv_along_k: there each lane loads all S rows of Y from L1 for
 * every COLS = 2 rows of X (FP32, S <= 8: the registers of 3 blocks an SM),
 * so a warp step of 2 x 512 bytes of X costs S + 2 loads of 512 bytes
 * through the SM's 128 bytes a clock of L1 and shared memory: 40 clocks
 * for 256 elements at S = 8, 6.4 elements a clock where the H200's
 * bandwidth asks 4.6 an SM (4.8 TB/s over 132 SMs at 1.98 GHz): bound by
 * the loads of Y (m = 7-16 at 9% of the FP32 peak, gemm_plan.c's gemv_k
 * row). Over gemv_tiled_k: its small sides start at 9 (S = 16 pads 2-8
 * columns 2-8x) and X passes through shared memory. Here a warp owns R
 * rows of X and loads them straight into registers (16 bytes a lane a row,
 * a warp's load 512 contiguous bytes of one row, evict-first: X is read
 * once), R x D loads in flight a lane; Y, read by every warp, is staged in
 * shared memory once a block (cp.async, WL_GEMV_STAGED_CHUNK(S) of k a
 * stage, two stages: the next one in flight while one is multiplied), and
 * each 16 bytes of Y a lane reads from it serve R rows of X. A warp step
 * costs R + S loads of 512 bytes for 4 x R x S FMAs a lane: at R = S = 8
 * 64 clocks of loads and 64 of FMAs an SM for 1024 elements of X, 16 a
 * clock (3.5x the bandwidth's). Rows of Y past small are neither staged
 * nor multiplied (no FMAs on padding). Each lane adds its k positions in
 * order, shuffles add the lanes (deterministic), k splits across blocks
 * (blockIdx.y) with wl_splitk_finish, as for the other kernels. The tail
 * of k, and X off 16 bytes, load element by element (zeros past the end);
 * Y off 16 bytes or strided stages 4 bytes a copy; rows of X past big
 * repeat the last and are never stored. Not yet measured: the geometry
 * (R, D, the stage) is modelled, scripts/gemv_variants.cu times it. */

/* Y's rows i < min(small, S), k from q (before q_end, zeros after), into
 * the stage dst[S][CHUNK]. */
template <int S, int CHUNK>
__device__ __forceinline__ void gemv_staged_y(const wl_gemv_params &p, float (*dst)[CHUNK], int q,
                                              int q_end)
{
    const float *y = (const float *)p.y;
    const int PIECES = CHUNK / 4; /* 16 bytes each */
    const int rows = p.small < S ? p.small : S;
    for (int c = threadIdx.x; c < rows * PIECES; c += WL_GEMV_THREADS) {
        const int i = c / PIECES, qq = q + 4 * (c % PIECES);
        float *to = dst[i] + 4 * (c % PIECES);
        const int valid = q_end - qq < 0 ? 0 : min(q_end - qq, 4);
        const float *src = y + (size_t)i * p.y_i + (size_t)qq * p.y_q;
        if (p.y_vec) {
            cp_async_16_edge(to, src, valid);
        } else {
#pragma unroll
            for (int e = 0; e < 4; e++)
                cp_async_4(to + e, src + (size_t)e * p.y_q, e < valid);
        }
    }
}

/* A lane's 16 bytes of a row of X at q: one evict-first load where vec and
 * all 4 elements are before q_end, else element by element, zeros past it. */
__device__ __forceinline__ void gemv_staged_x(const float *row, int q, int q_end, bool vec,
                                              float out[4])
{
    if (vec && q + 4 <= q_end) {
        gemv_elem<WL_GEMV_F32>::widen_vec(__ldcs(reinterpret_cast<const uint4 *>(row + q)), out);
        return;
    }
#pragma unroll
    for (int e = 0; e < 4; e++)
        out[e] = q + e < q_end ? row[q + e] : 0.0f;
}

/* S: the small side rounded up (2, 4 or 8; 16, which the planner does not
 * run, is timed by scripts/gemv_variants.cu); R: rows of X a warp; D: warp
 * steps (128 k) a lane loads before it multiplies. */
template <int S, int R, int D>
__global__ void __launch_bounds__(WL_GEMV_THREADS, WL_GEMV_STAGED_MIN_BLOCKS)
    gemv_staged_k(wl_gemv_params p)
{
    const int STEP = 128, CHUNK = WL_GEMV_STAGED_CHUNK(S);
    static_assert(CHUNK % (STEP * D) == 0, "gemv_staged_k: whole groups of steps a stage");
    if (p.splits > 1) /* wl_splitk_finish follows */
        wl_pdl_release();
    __shared__ __align__(16) float ys[2][S][CHUNK];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int j0 = (blockIdx.x * (WL_GEMV_THREADS / 32) + warp) * R, split = blockIdx.y;
    const int q0 = split * p.k_chunk, q1 = min(p.k, q0 + p.k_chunk);
    const int stages = q1 > q0 ? (q1 - q0 + CHUNK - 1) / CHUNK : 0;
    /* Warps past big stage Y and meet the barriers, nothing more. */
    const bool rows_here = j0 < p.big;
    const float *x = (const float *)p.x;
    const float *rows[R];
#pragma unroll
    for (int r = 0; r < R; r++) /* rows past big repeat the last; never stored */
        rows[r] = x + (size_t)min(j0 + r, p.big - 1) * p.x_j;
    float acc[S][R];
#pragma unroll
    for (int i = 0; i < S; i++)
#pragma unroll
        for (int r = 0; r < R; r++)
            acc[i][r] = 0.0f;
    if (stages > 0)
        gemv_staged_y<S, CHUNK>(p, ys[0], q0, q1);
    cp_async_commit();
    for (int st = 0; st < stages; st++) {
        const int qs = q0 + st * CHUNK;
        if (st + 1 < stages) /* its buffer was freed by the last barrier */
            gemv_staged_y<S, CHUNK>(p, ys[(st + 1) % 2], qs + CHUNK, q1);
        cp_async_commit();
        cp_async_wait<1>();
        __syncthreads(); /* stage st landed */
        if (rows_here) {
            const float(*yc)[CHUNK] = ys[st % 2];
            for (int s0 = 0; s0 < CHUNK / STEP && qs + s0 * STEP < q1; s0 += D) {
                float xv[D][R][4];
#pragma unroll
                for (int d = 0; d < D; d++)
#pragma unroll
                    for (int r = 0; r < R; r++)
                        gemv_staged_x(rows[r], qs + (s0 + d) * STEP + 4 * lane, q1, p.x_vec,
                                      xv[d][r]);
#pragma unroll
                for (int d = 0; d < D; d++)
#pragma unroll
                    for (int i = 0; i < S; i++)
                        if (i < p.small) {
                            const float4 yv = *reinterpret_cast<const float4 *>(
                                &yc[i][(s0 + d) * STEP + 4 * lane]);
#pragma unroll
                            for (int r = 0; r < R; r++) {
                                acc[i][r] = fmaf(yv.x, xv[d][r][0], acc[i][r]);
                                acc[i][r] = fmaf(yv.y, xv[d][r][1], acc[i][r]);
                                acc[i][r] = fmaf(yv.z, xv[d][r][2], acc[i][r]);
                                acc[i][r] = fmaf(yv.w, xv[d][r][3], acc[i][r]);
                            }
                        }
            }
        }
        __syncthreads(); /* stage st read: its buffer is free */
    }
    cp_async_wait<0>();
    if (!rows_here)
        return;
        /* Shuffles add the lanes; output (i, r) is stored by lane (i R + r) % 32. */
#pragma unroll
    for (int i = 0; i < S; i++) {
        if (i >= p.small)
            break;
#pragma unroll
        for (int r = 0; r < R; r++) {
            float v = acc[i][r];
#pragma unroll
            for (int offset = 16; offset > 0; offset /= 2)
                v += __shfl_xor_sync(0xFFFFFFFFu, v, offset);
            if (lane == (i * R + r) % 32 && j0 + r < p.big)
                gemv_emit(p, split, i, j0 + r, v);
        }
    }
}

/* gemv_mma: X along k on tensor cores (mma.sync, sm_80+), FP32 sums.
 *
 * Over gemv_along_k: from m = 2 that kernel is bound by the issue of its
 * FP32 FMAs (each 16 bytes of X loaded cost S x 8 FMAs and S loads of Y:
 * 0.35-0.63x cuBLAS at m = 7-8 with 16-bit inputs, H200), not by the bytes
 * of X. Here the products go to the tensor cores: the problem is computed
 * as D (big x small) = X (big x k) Y^T, so that X, the weights, is the
 * mma's 16-row A operand (row-major: X's rows run along k) and Y, the
 * tokens, the 8-wide B operand (column-major: Y's rows run along k too).
 * Nothing is staged in shared memory on the way in: each lane loads 16
 * bytes of a row straight into an A (or B) fragment, because k is permuted
 * inside a warp step (PTX ISA, "Matrix Fragments for mma.m16n8k16 /
 * m16n8k8"; g = lane / 4, t = lane % 4): the lane's 16 bytes at k = q + t
 * x VEC hold the k slots of two mma steps, words 2s and 2s + 1 of step s:
 * - BF16 / FP16 (m16n8k16, VEC = 8, a step of 32 k): slots 2t, 2t + 1 are
 *   elements 4s, 4s + 1 and slots 2t + 8, 2t + 9 are 4s + 2, 4s + 3;
 * - TF32 (m16n8k8, VEC = 4, a step of 16 k): slot t is element 2s, slot
 *   t + 4 element 2s + 1 (the FP32 words as stored: the mma reads their
 *   top 19 bits, truncation, as the TF32 tile kernels).
 * X rows g and g + 8 of each 16-row tile and Y row g of each 8-column tile
 * are loaded the same way, so A and B agree on the permutation and the sum
 * over k is the product's. A warp owns MT 16-row tiles of X and all NT =
 * ceil(small / 8) column tiles; it loads DEPTH steps of X (16 bytes a
 * lane a row, evict-first: X is read once) before it multiplies, 4 KB of
 * X in flight a warp at MT = 1, DEPTH = 4, and Y (read by every strip:
 * __ldg) with them, or a step at a time where NT > 2 leaves no registers.
 * The block's warps form RG row groups on neighbouring strips at the same
 * k (each Y fragment fetched from L2 once for the groups); the
 * WL_GEMV_MMA_WARPS / RG warps of a group take neighbouring runs of DEPTH
 * steps (each row's bytes of a run contiguous) and add their sums in
 * shared memory, every warp a share of the outputs, in warp order
 * (deterministic). The geometry the library runs (MT, DEPTH, RG:
 * gemm_plan.h) was measured with scripts/gemv_variants.cu. The grid's y
 * splits k only where the strips alone leave most SMs idle: on the H200
 * one split beat 2-16 even at n = 1024 (the second launch and the partial
 * sums cost more than the idle SMs); wl_splitk_finish adds the splits as
 * for the other kernels. Steps past the last whole round of the block,
 * the tail of k and views off 16 bytes load element by element (zeros
 * past the end of k); rows past big and columns past small repeat the
 * last one and are never stored. */
template <int KIND>
__device__ __forceinline__ void gemv_mma_step(float d[4], const unsigned a[4], const unsigned b[2])
{
    if (KIND == WL_GEMV_BF16)
        mma_bf16_m16n8k16(d, a, b);
    else if (KIND == WL_GEMV_F16)
        mma_f16_m16n8k16(d, a, b);
    else
        mma_tf32_m16n8k8(d, a, b);
}

/* A lane's 16 bytes of a row from src (k contiguous) as 4 words: one
 * 16-byte load (STREAM: evict-first) where vec and all VEC elements are
 * before the end of k (valid), else element by element, zeros past it. */
template <int KIND, bool STREAM>
__device__ __forceinline__ void gemv_mma_load(const typename gemv_elem<KIND>::storage *src,
                                              int valid, bool vec, unsigned w[4])
{
    const int VEC = gemv_elem<KIND>::VEC;
    if (vec && valid >= VEC) {
        const uint4 v = STREAM ? __ldcs(reinterpret_cast<const uint4 *>(src))
                               : __ldg(reinterpret_cast<const uint4 *>(src));
        w[0] = v.x;
        w[1] = v.y;
        w[2] = v.z;
        w[3] = v.w;
        return;
    }
#pragma unroll
    for (int i = 0; i < 4; i++)
        w[i] = 0u;
#pragma unroll
    for (int e = 0; e < VEC; e++)
        if (e < valid) {
            if (KIND == WL_GEMV_F32)
                w[e] = __float_as_uint((float)src[e]);
            else
                w[e / 2] |= (unsigned)src[e] << (16 * (e % 2));
        }
}

/* One warp step: acc[mt][nt] += the 16 x 8 products of x[mt] (rows g, g +
 * 8) and y[nt] over the step's k, as two mma. */
template <int KIND, int NT, int MT>
__device__ __forceinline__ void gemv_mma_multiply(float acc[MT][NT][4], const unsigned x[MT][2][4],
                                                  const unsigned y[NT][4])
{
#pragma unroll
    for (int s = 0; s < 2; s++)
#pragma unroll
        for (int mt = 0; mt < MT; mt++) {
            const unsigned a[4] = {x[mt][0][2 * s], x[mt][1][2 * s], x[mt][0][2 * s + 1],
                                   x[mt][1][2 * s + 1]};
#pragma unroll
            for (int nt = 0; nt < NT; nt++) {
                const unsigned b[2] = {y[nt][2 * s], y[nt][2 * s + 1]};
                gemv_mma_step<KIND>(acc[mt][nt], a, b);
            }
        }
}

/* NT: 8-column tiles of the small side (1 to 4); MT: 16-row tiles of X a
 * warp; DEPTH: steps a warp loads before it multiplies. */
template <int KIND, int NT, int MT, int DEPTH, int RG>
__global__ void __launch_bounds__(32 * WL_GEMV_MMA_WARPS, 2) gemv_mma(wl_gemv_params p)
{
#if WL_SM80_BODY
    typedef gemv_elem<KIND> E;
    typedef typename E::storage T;
    const int VEC = E::VEC, STEP = 4 * E::VEC, OUTS = MT * NT * 4;
    const int KW = WL_GEMV_MMA_WARPS / RG; /* warps along k a row group */
    if (p.splits > 1)                      /* wl_splitk_finish follows */
        wl_pdl_release();
    __shared__ float sums[WL_GEMV_MMA_WARPS][OUTS][32];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, g = lane / 4, t = lane % 4;
    const int group = warp % RG, kw = warp / RG; /* the warp's row group, its place along k */
    const int j0 = (blockIdx.x * RG + group) * 16 * MT, split = blockIdx.y;
    const int q_begin = split * p.k_chunk, q_end = min(p.k, q_begin + p.k_chunk);
    const T *x = (const T *)p.x, *y = (const T *)p.y;
    /* The lane's rows, at its 16 bytes of a step (k = VEC t). */
    const T *x_rows[MT][2], *y_rows[NT];
#pragma unroll
    for (int mt = 0; mt < MT; mt++)
#pragma unroll
        for (int h = 0; h < 2; h++)
            x_rows[mt][h] = x + (size_t)min(j0 + 16 * mt + 8 * h + g, p.big - 1) * p.x_j + VEC * t;
#pragma unroll
    for (int nt = 0; nt < NT; nt++)
        y_rows[nt] = y + (size_t)min(8 * nt + g, p.small - 1) * p.y_i + VEC * t;
    float acc[MT][NT][4];
#pragma unroll
    for (int mt = 0; mt < MT; mt++)
#pragma unroll
        for (int nt = 0; nt < NT; nt++)
#pragma unroll
            for (int r = 0; r < 4; r++)
                acc[mt][nt][r] = 0.0f;
    const int length = q_end > q_begin ? q_end - q_begin : 0;
    const int steps = (length + STEP - 1) / STEP;
    /* Whole rounds (KW x DEPTH whole steps, 16-byte views): no checks. */
    const int rounds = p.x_vec && p.y_vec ? length / STEP / (KW * DEPTH) : 0;
    for (int round = 0; round < rounds; round++) {
        const int q0 = q_begin + (round * KW + kw) * DEPTH * STEP;
        /* X of all DEPTH steps first (the bytes in flight); Y with them
         * where it fits the registers (NT <= 2), else a step at a time. */
        const bool Y_AHEAD = NT <= 2;
        unsigned xw[DEPTH][MT][2][4], yw[Y_AHEAD ? DEPTH : 1][NT][4];
#pragma unroll
        for (int d = 0; d < DEPTH; d++) {
#pragma unroll
            for (int mt = 0; mt < MT; mt++)
#pragma unroll
                for (int h = 0; h < 2; h++)
                    gemv_mma_load<KIND, true>(x_rows[mt][h] + q0 + d * STEP, VEC, true,
                                              xw[d][mt][h]);
            if (Y_AHEAD)
#pragma unroll
                for (int nt = 0; nt < NT; nt++)
                    gemv_mma_load<KIND, false>(y_rows[nt] + q0 + d * STEP, VEC, true,
                                               yw[Y_AHEAD ? d : 0][nt]);
        }
#pragma unroll
        for (int d = 0; d < DEPTH; d++) {
            if (!Y_AHEAD)
#pragma unroll
                for (int nt = 0; nt < NT; nt++)
                    gemv_mma_load<KIND, false>(y_rows[nt] + q0 + d * STEP, VEC, true, yw[0][nt]);
            gemv_mma_multiply<KIND, NT, MT>(acc, xw[d], yw[Y_AHEAD ? d : 0]);
        }
    }
    /* The rest, a step a warp in turn: checked loads. */
    for (int s = rounds * KW * DEPTH + kw; s < steps; s += KW) {
        const int q = q_begin + s * STEP;
        const int valid = q_end - q - VEC * t; /* the lane's elements before the end */
        unsigned xw[MT][2][4], yw[NT][4];
#pragma unroll
        for (int mt = 0; mt < MT; mt++)
#pragma unroll
            for (int h = 0; h < 2; h++)
                gemv_mma_load<KIND, true>(x_rows[mt][h] + q, valid, p.x_vec, xw[mt][h]);
#pragma unroll
        for (int nt = 0; nt < NT; nt++)
            gemv_mma_load<KIND, false>(y_rows[nt] + q, valid, p.y_vec, yw[nt]);
        gemv_mma_multiply<KIND, NT, MT>(acc, xw, yw);
    }
    /* acc[mt][nt][r]: X row j0 + 16 mt + g (+ 8 for r >= 2), small column
     * 8 nt + 2t + r % 2. Every warp posts its sums; the block's warps
     * share the outputs (output o of row group o / OUTS to warp o % WARPS)
     * and add the group's KW warps in order. */
#pragma unroll
    for (int mt = 0; mt < MT; mt++)
#pragma unroll
        for (int nt = 0; nt < NT; nt++)
#pragma unroll
            for (int r = 0; r < 4; r++)
                sums[warp][(mt * NT + nt) * 4 + r][lane] = acc[mt][nt][r];
    __syncthreads();
    for (int o = warp; o < RG * OUTS; o += WL_GEMV_MMA_WARPS) {
        const int rg = o / OUTS, out = o % OUTS;
        float v = 0.0f;
#pragma unroll
        for (int w = 0; w < KW; w++)
            v += sums[rg + RG * w][out][lane];
        const int mt = out / (NT * 4), nt = out / 4 % NT, r = out % 4;
        const int j = (blockIdx.x * RG + rg) * 16 * MT + 16 * mt + g + 8 * (r / 2);
        const int i = 8 * nt + 2 * t + r % 2;
        if (j < p.big && i < p.small)
            gemv_emit(p, split, i, j, v);
    }
#endif
}

/* gemv_mma_rows: X along big (x_j = 1: op_b = N, the weights stored k x n
 * row-major, for m small) on tensor cores, FP32 sums: TF32 (FP32 inputs,
 * mma.sync m16n8k8) or BF16 / FP16 (mma.sync m16n8k16), one kernel over
 * the element kind; Y along k (y_q = 1: op_a = N) loads 16 bytes at a
 * time, other Y strides element by element.
 *
 * Over gemv_along_big (FP32 FMAs): there every 16 bytes of X cost S x VEC
 * FMAs and S loads of Y, so from a few columns the FMAs' issue, not the
 * bytes of X, bound the kernel (TF32 op N, N decode at 0.67-0.79x cuBLAS,
 * which runs it on tensor cores). Over gemv_mma: X's rows run along big,
 * so X is the mma's 16-row A operand transposed (A[row][kk] = X[j][q] =
 * x[q * x_q + j]). Nothing is staged in shared memory on the way in: a
 * lane loads 16 bytes of one row of x (VEC neighbouring j at one k; VEC =
 * 4 FP32 or 8 16-bit elements) and they fill A fragments directly,
 * because both the mma's rows (j) and its k slots are permuted (PTX ISA,
 * "Matrix Fragments for mma.m16n8k8 / mma.m16n8k16"; g = lane / 4, t =
 * lane % 4):
 * - k: a step is 4 VEC k at q (16 TF32, 32 16-bit); lane t loads rows q +
 *   VEC t + e (e < VEC) of x, and Y's 16 bytes at k = q + VEC t; mma step
 *   s (0, 1) takes the lane's elements of gemv_mma's permutation, so that
 *   A and B agree and the sum over the step's k is the product's. TF32
 *   (a0 (row g, slot t), a1 (g + 8, t), a2 (g, t + 4), a3 (g + 8, t + 4);
 *   b0 (t, column g), b1 (t + 4, g)): element 2s in slot t, 2s + 1 in slot
 *   t + 4. 16-bit (a register holds two neighbouring k slots of one row:
 *   a0 (row g, slots 2t, 2t + 1), a1 (g + 8, 2t..), a2 (g, 2t + 8..), a3
 *   (g + 8, 2t + 8..); b0 (2t.., g), b1 (2t + 8.., g); the lower k in the
 *   low half): elements 4s, 4s + 1 in slots 2t, 2t + 1 and 4s + 2, 4s + 3
 *   in 2t + 8, 2t + 9;
 * - j: lane g's 16 bytes hold j = jv + VEC g + c (c < VEC) of an 8 VEC
 *   column strip; tile h (h < VEC / 2) takes c = 2h as its row g and c =
 *   2h + 1 as its row g + 8, so the strip's VEC / 2 tiles use all 16
 *   bytes. C's fragment comes back in the same order: lane (g, t) holds j
 *   = jv + VEC g + 2h (c0, c1) and + 1 (c2, c3) of small columns 8 nt +
 *   2t, + 1.
 * What changes for 16-bit over the TF32 rung: a 16-byte load along a row
 * of x is 8 columns at ONE k, while an A register holds one column (mma
 * row) at TWO neighbouring k; so each register is built from the words of
 * two rows (k, k + 1) by one byte permute (__byte_perm: the low halves of
 * the two words for column 2h, the high halves for 2h + 1), four a tile
 * and step, shared by the NT column tiles. It helps because the mma then
 * runs the 16-bit products at the tensor cores' rate with the same 8 KB of
 * X in flight a warp and no shared memory on the way in, where the 16-bit
 * candidates ran on CUDA-core FMAs (gemv_along_big) or on 128-row tiles
 * mostly empty at m <= 32 (ex16_chooser). A lane's step is VEC rows of 16
 * bytes, twice the TF32 bytes, so the 16-bit geometry (gemm_plan.h,
 * WL_GEMV_MMA_ROWS16_*) halves DEPTH or P for the same bytes in flight.
 * A warp's load of one row of x is 8 lanes x 16 bytes, 128 contiguous
 * bytes (a line), for 4 rows at once. A warp owns P strips (8 VEC P
 * columns) and all NT = ceil(small / 8) column tiles; it loads DEPTH steps
 * of X (VEC rows x P strips x 16 bytes a lane a step, evict-first) before
 * it multiplies: 8 KB in flight a warp at P = 1 and DEPTH = 4 (TF32) or 2
 * (16-bit). Y (read by every strip, __ldg) comes with them where NT x
 * DEPTH <= 8 leaves the registers, else a step at a time. The block's
 * warps form RG row groups on neighbouring strips at the same k; the
 * WL_GEMV_MMA_WARPS / RG warps of a group take neighbouring runs of DEPTH
 * steps and add their sums in shared memory in warp order
 * (deterministic), as gemv_mma. The grid's y splits k where the strips
 * alone leave SMs idle (gemm_plan.c), and wl_splitk_finish adds the
 * splits. Steps past the last whole round, the tail of k, columns past
 * big and views off 16 bytes load element by element (zeros past k and
 * big); columns of the small side past small repeat the last one and are
 * never stored. TF32: the mma reads the FP32 words' top 19 bits
 * (truncation), as the other TF32 kernels; 16-bit: the products are exact
 * in the FP32 sums. */

/* A lane's 16 bytes of X's row q (VEC columns at j) as 4 words: one
 * 16-byte load (evict-first) where whole (16-byte view, all VEC columns
 * before big) and the row is before the end of k, else element by
 * element, zeros past k and big. */
template <int KIND>
__device__ __forceinline__ void gemv_rows_load_x(const typename gemv_elem<KIND>::storage *x,
                                                 long long x_q, int q, int q_end, int j, int big,
                                                 bool whole, unsigned w[4])
{
    const int VEC = gemv_elem<KIND>::VEC;
    const typename gemv_elem<KIND>::storage *src = x + (long long)q * x_q + j;
    if (whole && q < q_end) {
        const uint4 v = __ldcs(reinterpret_cast<const uint4 *>(src));
        w[0] = v.x;
        w[1] = v.y;
        w[2] = v.z;
        w[3] = v.w;
        return;
    }
#pragma unroll
    for (int i = 0; i < 4; i++)
        w[i] = 0u;
#pragma unroll
    for (int c = 0; c < VEC; c++)
        if (q < q_end && j + c < big) {
            if constexpr (KIND == WL_GEMV_F32)
                w[c] = __float_as_uint((float)src[c]);
            else
                w[c / 2] |= (unsigned)src[c] << (16 * (c % 2));
        }
}

/* Y's VEC elements of row i at k = q..q + VEC - 1: one 16-byte load where
 * vec (y_q = 1, 16-byte view) and all VEC are before the end of k, else
 * element by element at any stride, zeros past k. */
template <int KIND>
__device__ __forceinline__ void gemv_rows_load_y(const wl_gemv_params &p,
                                                 const typename gemv_elem<KIND>::storage *row,
                                                 int q, int q_end, unsigned w[4])
{
    const int VEC = gemv_elem<KIND>::VEC;
    if (p.y_vec && q + VEC <= q_end) {
        const uint4 v = __ldg(reinterpret_cast<const uint4 *>(row + q));
        w[0] = v.x;
        w[1] = v.y;
        w[2] = v.z;
        w[3] = v.w;
        return;
    }
#pragma unroll
    for (int i = 0; i < 4; i++)
        w[i] = 0u;
#pragma unroll
    for (int e = 0; e < VEC; e++)
        if (q + e < q_end) {
            const typename gemv_elem<KIND>::storage v = row[(long long)(q + e) * p.y_q];
            if constexpr (KIND == WL_GEMV_F32)
                w[e] = __float_as_uint((float)v);
            else
                w[e / 2] |= (unsigned)v << (16 * (e % 2));
        }
}

/* One step: acc[pp][h][nt] += the products of x (x[e][pp]: row q + VEC t
 * + e, strip pp) and y (y[nt]: k = q + VEC t..), as two mma a tile. */
template <int KIND, int NT, int P>
__device__ __forceinline__ void gemv_rows_multiply(float acc[P][gemv_elem<KIND>::VEC / 2][NT][4],
                                                   const unsigned x[gemv_elem<KIND>::VEC][P][4],
                                                   const unsigned y[NT][4])
{
    const int H = gemv_elem<KIND>::VEC / 2;
#pragma unroll
    for (int s = 0; s < 2; s++)
#pragma unroll
        for (int pp = 0; pp < P; pp++)
#pragma unroll
            for (int h = 0; h < H; h++) {
                unsigned a[4];
                if constexpr (KIND == WL_GEMV_F32) {
                    /* Words 2h, 2h + 1: columns 2h (row g), 2h + 1 (row g + 8). */
                    a[0] = x[2 * s][pp][2 * h];
                    a[1] = x[2 * s][pp][2 * h + 1];
                    a[2] = x[2 * s + 1][pp][2 * h];
                    a[3] = x[2 * s + 1][pp][2 * h + 1];
                } else {
                    /* Word h of rows 4s..4s + 3: column 2h in the low
                     * halves (row g), 2h + 1 in the high (row g + 8);
                     * each register pairs rows k, k + 1, the lower k low. */
                    const unsigned *r0 = x[4 * s][pp], *r1 = x[4 * s + 1][pp];
                    const unsigned *r2 = x[4 * s + 2][pp], *r3 = x[4 * s + 3][pp];
                    a[0] = __byte_perm(r0[h], r1[h], 0x5410u);
                    a[1] = __byte_perm(r0[h], r1[h], 0x7632u);
                    a[2] = __byte_perm(r2[h], r3[h], 0x5410u);
                    a[3] = __byte_perm(r2[h], r3[h], 0x7632u);
                }
#pragma unroll
                for (int nt = 0; nt < NT; nt++) {
                    const unsigned b[2] = {y[nt][2 * s], y[nt][2 * s + 1]};
                    gemv_mma_step<KIND>(acc[pp][h][nt], a, b);
                }
            }
}

/* KIND: WL_GEMV_F32 (TF32), WL_GEMV_BF16 or WL_GEMV_F16; NT: 8-column
 * tiles of the small side (1 to 4); P: strips of X (8 VEC columns) a
 * warp; DEPTH: steps a warp loads before it multiplies; RG: row groups a
 * block; MINB: blocks an SM the registers are bounded for. */
template <int KIND, int NT, int P, int DEPTH, int RG, int MINB>
__global__ void __launch_bounds__(32 * WL_GEMV_MMA_WARPS, MINB) gemv_mma_rows(wl_gemv_params p)
{
#if WL_SM80_BODY
    typedef gemv_elem<KIND> E;
    typedef typename E::storage T;
    const int VEC = E::VEC, H = VEC / 2, STEP = 4 * VEC, COLS = 8 * VEC;
    const int OUTS = P * H * NT * 4;
    const int KW = WL_GEMV_MMA_WARPS / RG; /* warps along k a row group */
    /* The block's sums in shared memory, CHUNK outputs at a time. */
    const int CHUNK = OUTS < 32 ? OUTS : 32;
    if (p.splits > 1) /* wl_splitk_finish follows */
        wl_pdl_release();
    __shared__ float sums[WL_GEMV_MMA_WARPS][CHUNK][32];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, g = lane / 4, t = lane % 4;
    const int group = warp % RG, kw = warp / RG;
    const int j_warp = (blockIdx.x * RG + group) * COLS * P, split = blockIdx.y;
    const int q_begin = split * p.k_chunk, q_end = min(p.k, q_begin + p.k_chunk);
    const T *x = (const T *)p.x, *y = (const T *)p.y;
    int jv[P];
    bool whole[P];
#pragma unroll
    for (int pp = 0; pp < P; pp++) {
        jv[pp] = j_warp + COLS * pp + VEC * g;
        whole[pp] = p.x_vec && jv[pp] + VEC <= p.big;
    }
    const T *y_rows[NT];
#pragma unroll
    for (int nt = 0; nt < NT; nt++)
        y_rows[nt] = y + (long long)min(8 * nt + g, p.small - 1) * p.y_i;
    float acc[P][H][NT][4];
#pragma unroll
    for (int pp = 0; pp < P; pp++)
#pragma unroll
        for (int h = 0; h < H; h++)
#pragma unroll
            for (int nt = 0; nt < NT; nt++)
#pragma unroll
                for (int r = 0; r < 4; r++)
                    acc[pp][h][nt][r] = 0.0f;
    const int length = q_end > q_begin ? q_end - q_begin : 0;
    const int steps = (length + STEP - 1) / STEP;
    /* Whole rounds (KW x DEPTH whole steps): rows inside the split. */
    const int rounds = length / STEP / (KW * DEPTH);
    for (int round = 0; round < rounds; round++) {
        const int q0 = q_begin + (round * KW + kw) * DEPTH * STEP + VEC * t;
        const bool Y_AHEAD = NT * DEPTH <= 8;
        unsigned xw[DEPTH][VEC][P][4], yw[Y_AHEAD ? DEPTH : 1][NT][4];
#pragma unroll
        for (int d = 0; d < DEPTH; d++) {
#pragma unroll
            for (int e = 0; e < VEC; e++)
#pragma unroll
                for (int pp = 0; pp < P; pp++)
                    gemv_rows_load_x<KIND>(x, p.x_q, q0 + d * STEP + e, q_end, jv[pp], p.big,
                                           whole[pp], xw[d][e][pp]);
            if (Y_AHEAD)
#pragma unroll
                for (int nt = 0; nt < NT; nt++)
                    gemv_rows_load_y<KIND>(p, y_rows[nt], q0 + d * STEP, q_end,
                                           yw[Y_AHEAD ? d : 0][nt]);
        }
#pragma unroll
        for (int d = 0; d < DEPTH; d++) {
            if (!Y_AHEAD)
#pragma unroll
                for (int nt = 0; nt < NT; nt++)
                    gemv_rows_load_y<KIND>(p, y_rows[nt], q0 + d * STEP, q_end, yw[0][nt]);
            gemv_rows_multiply<KIND, NT, P>(acc, xw[d], yw[Y_AHEAD ? d : 0]);
        }
    }
    /* The rest, a step a warp in turn. */
    for (int s = rounds * KW * DEPTH + kw; s < steps; s += KW) {
        const int q = q_begin + s * STEP + VEC * t;
        unsigned xw[VEC][P][4], yw[NT][4];
#pragma unroll
        for (int e = 0; e < VEC; e++)
#pragma unroll
            for (int pp = 0; pp < P; pp++)
                gemv_rows_load_x<KIND>(x, p.x_q, q + e, q_end, jv[pp], p.big, whole[pp], xw[e][pp]);
#pragma unroll
        for (int nt = 0; nt < NT; nt++)
            gemv_rows_load_y<KIND>(p, y_rows[nt], q, q_end, yw[nt]);
        gemv_rows_multiply<KIND, NT, P>(acc, xw, yw);
    }
    /* acc[pp][h][nt][r]: column jv[pp] + 2h + r / 2 of X, small column 8
     * nt + 2t + r % 2. Every warp posts CHUNK sums at a time; the block's
     * warps share those outputs (output o of row group o / CHUNK to warp o
     * % WARPS) and add the group's KW warps in order. */
#pragma unroll
    for (int base = 0; base < OUTS; base += CHUNK) {
#pragma unroll
        for (int o = 0; o < CHUNK; o++) {
            const int out = base + o;
            if (out < OUTS) /* the last chunk may be partial */
                sums[warp][o][lane] =
                    acc[out / (H * NT * 4)][out / (NT * 4) % H][out / 4 % NT][out % 4];
        }
        __syncthreads();
        for (int o = warp; o < RG * CHUNK; o += WL_GEMV_MMA_WARPS) {
            const int rg = o / CHUNK, out = base + o % CHUNK;
            if (out >= OUTS)
                continue;
            float v = 0.0f;
#pragma unroll
            for (int w = 0; w < KW; w++)
                v += sums[rg + RG * w][o % CHUNK][lane];
            const int pp = out / (H * NT * 4), h = out / (NT * 4) % H, nt = out / 4 % NT;
            const int r = out % 4;
            const int j = (blockIdx.x * RG + rg) * COLS * P + COLS * pp + VEC * g + 2 * h + r / 2;
            const int i = 8 * nt + 2 * t + r % 2;
            if (j < p.big && i < p.small)
                gemv_emit(p, split, i, j, v);
        }
        __syncthreads();
    }
#endif
}

/* The split-K reduction: C[i * c_i + j * c_j] = alpha * (sum over s of
 * part[s][i][j], in split order) + beta * C, for i < rows, j < cols; C of
 * c_kind. E: the elements a thread takes at a time, a grid's threads apart
 * (coalesced), every split's loads of all E issued before their adds: with
 * fewer than 8 splits one element keeps too few loads in flight (past 8,
 * wl_split_sum's batches of 8 do). Timed alone on an H200 (FP32 sums, L2
 * flushed): 4096 x 4096 in 2 splits 90.4 -> 54.7 us with E = 8, 380 x 4096
 * 11.9 -> 8.9, 14 x 63405 in 1 7.0 -> 5.4; but 48 x 33 in 45 splits 6.2 ->
 * 26.9 and 17 x 4096 in 2 4.5 -> 5.0, from a grid 8 times smaller:
 * wl_splitk_finish_launch takes E = 8 for at least 2^18 elements and fewer
 * than 8 splits. The same sums, in the same order, either way. A tight C
 * (c_j 1, c_i cols) is indexed without a division. */
template <int E = 1>
__global__ void wl_splitk_finish(const float *part, int splits, int rows, int cols, void *c,
                                 long long c_i, long long c_j, int c_kind, float alpha, float beta)
{
    wl_pdl_wait();
    const size_t count = (size_t)rows * cols, step = (size_t)gridDim.x * blockDim.x;
    const bool tight = c_j == 1 && c_i == cols;
    for (size_t e0 = blockIdx.x * (size_t)blockDim.x + threadIdx.x; e0 < count; e0 += step * E) {
        float sum[E];
        if (E == 1 || splits >= 8) {
#pragma unroll
            for (int x = 0; x < E; x++) {
                const size_t e = e0 + x * step;
                sum[x] = e < count ? wl_split_sum(part, splits, count, e) : 0.0f;
            }
        } else {
#pragma unroll
            for (int x = 0; x < E; x++)
                sum[x] = 0.0f;
            for (int s = 0; s < splits; s++) {
                float v[E];
#pragma unroll
                for (int x = 0; x < E; x++) {
                    const size_t e = e0 + x * step;
                    v[x] = e < count ? part[(size_t)s * count + e] : 0.0f;
                }
#pragma unroll
                for (int x = 0; x < E; x++)
                    sum[x] += v[x];
            }
        }
#pragma unroll
        for (int x = 0; x < E; x++) {
            const size_t e = e0 + x * step;
            if (e >= count)
                break;
            const size_t index = tight ? e : e / cols * c_i + e % cols * c_j;
            gemv_store(c, index, c_kind, sum[x], alpha, beta);
        }
    }
}

#endif
/* warplab:end */
