/* warplab_gemm_ex on BF16 / FP16 inputs, FP32 sums, without operand copies
 * (m and n past the GEMV family's small sides: the planner, src/ops/
 * gemm_plan.h, sends m or n of 1 with the big operand along its rows, and
 * every small side along k, to gemv.cuh):
 *
 * - ex16_mma: mma.sync m16n8k16 tiles (128 x 128 with 8 warps or 64 x 64
 *   with 4), fed by a 4-stage cp.async ring. Row-major A and B are read as
 *   stored for either op: the shared tile keeps the stored layout, and
 *   ldmatrix (contiguous along k) or ldmatrix.trans (contiguous along m or
 *   n) builds the fragments, so no transposed copy is made. k is split
 *   over blockIdx.z when the tiles alone leave SMs idle (large k, small m
 *   and n); the splits' partial sums go to the workspace and ex16_finish
 *   adds them in order.
 * - ex16_thin (ex16_thin.cuh; planned for a small side of at most 16 read
 *   along k from rows 8 or 4 bytes off 16, gemm_tiles16.c): m or n of
 *   at most 64, mma.sync fragments loaded straight from global memory, 16
 *   bytes a load, split k; partial sums always, ex16_finish writes C.
 * A 16-byte global access is issued only when its whole window lies inside
 * the matrix row and is 16-byte aligned; edges and unaligned rows take
 * element loads. The workspace (launch->scratch) is not zeroed: every
 * partial a finish reads is written first by the split kernel. */
/* warplab:rung gemm ex16_mma ex16_tma */
#include "ex16.h"
#include "ex16_thin.cuh"
#include "gemv.h"
#include "stream_k.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <math.h>

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

/* ------------------------------------------------------------------------ */
/* Tensor-core tiles: mma.sync m16n8k16 with ldmatrix                        */

/* ex16_mma_16816 (m16n8k16, BF16 or FP16): ex16_thin.cuh. */

/* Four 8 x 8 matrices of 16-bit elements from shared memory: lanes 8q..8q+7
 * give the row addresses of matrix q. Plain: lane l receives row l / 4,
 * columns 2 (l % 4), +1 of each; TRANS: rows 2 (l % 4), +1 of column l / 4. */
template <bool TRANS> __device__ __forceinline__ void ex16_ldmatrix4(unsigned r[4], const void *row)
{
#if WL_SM80_BODY
    const unsigned address = (unsigned)__cvta_generic_to_shared(row);
    if (TRANS)
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                     : "r"(address));
    else
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                     : "r"(address));
#endif
}

__device__ __forceinline__ void ex16_cp_async_16(void *dst, const void *src)
{
#if WL_SM80_BODY
    const unsigned address = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(address), "l"(src));
#endif
}

/* Rows [r0, r0 + ROWS) x columns [c0, c0 + COLS) of a row-major matrix
 * (row r at src + r * ld) into shared memory (pitch elements a row); rows
 * from r_end and columns from c_end are zeros. VEC: rows 16-byte aligned;
 * a chunk of 8 wholly inside is one 16-byte cp.async, other chunks are
 * element loads (plain stores, ordered by the barrier that orders the
 * copies). */
template <int ROWS, int COLS, int THREADS, bool VEC>
__device__ __forceinline__ void ex16_load_block(uint16_t *dst, int pitch, const uint16_t *src,
                                                int ld, int r0, int r_end, int c0, int c_end,
                                                int tid)
{
    constexpr int PER_ROW = COLS / 8, CHUNKS = ROWS * PER_ROW;
    static_assert(CHUNKS % THREADS == 0, "whole chunks a thread");
#pragma unroll
    for (int l = 0; l < CHUNKS / THREADS; l++) {
        const int chunk = tid + l * THREADS;
        const int r = chunk / PER_ROW, c = (chunk % PER_ROW) * 8;
        const int gr = r0 + r, gc = c0 + c;
        uint16_t *d = dst + r * pitch + c;
        if (gr < r_end && VEC && gc + 8 <= c_end) {
            ex16_cp_async_16(d, src + (size_t)gr * ld + gc);
        } else {
            unsigned words[4] = {0u, 0u, 0u, 0u};
            if (gr < r_end && gc < c_end) {
                const uint16_t *row = src + (size_t)gr * ld + gc;
#pragma unroll
                for (int e = 0; e < 8; e++)
                    if (gc + e < c_end)
                        words[e / 2] |= (unsigned)row[e] << (16 * (e % 2));
            }
            *reinterpret_cast<uint4 *>(d) = make_uint4(words[0], words[1], words[2], words[3]);
        }
    }
}

#define EX16_STAGES 4
#define EX16_PAD                                                                                   \
    8 /* elements a shared row: ldmatrix's 8 rows hit 8 distinct 16-byte bank groups               \
       */

template <int BM, int BN, int WARPS_M, int WARPS_N, bool TA, bool TB> struct ex16_tiles {
    static constexpr int THREADS = 32 * WARPS_M * WARPS_N;
    static constexpr int WTM = BM / WARPS_M, WTN = BN / WARPS_N;
    static constexpr int MI = WTM / 16, NI = WTN / 8;
    /* A stored m x k: [BM][BK]; stored k x m (op T): [BK][BM]. B stored
     * k x n: [BK][BN]; stored n x k (op T): [BN][BK]. */
    static constexpr int A_PITCH = (TA ? BM : EX16_BK) + EX16_PAD;
    static constexpr int B_PITCH = (TB ? EX16_BK : BN) + EX16_PAD;
    static constexpr int A_STAGE = (TA ? EX16_BK : BM) * A_PITCH;
    static constexpr int B_STAGE = (TB ? BN : EX16_BK) * B_PITCH;
    static constexpr size_t SMEM_BYTES = (size_t)EX16_STAGES * (A_STAGE + B_STAGE) * 2;
    static_assert(NI % 2 == 0, "B fragments load in pairs of n8 tiles");
};

struct ex16_mma_params {
    const uint16_t *a, *b;
    void *c;
    float *part; /* [split][m][n] when split */
    int m, n, k, lda, ldb, ldc, k_chunk;
    float alpha, beta;
    bool narrow;
};

template <bool BF16, int BM, int BN, int WARPS_M, int WARPS_N, bool TA, bool TB, bool VEC>
__global__ void __launch_bounds__(32 * WARPS_M * WARPS_N) ex16_mma(ex16_mma_params p)
{
#if WL_SM80_BODY
    if (gridDim.z > 1) /* split: wl_splitk_finish follows */
        wl_pdl_release();
    typedef ex16_tiles<BM, BN, WARPS_M, WARPS_N, TA, TB> T;
    WL_DYNAMIC_SMEM(uint4, smem);
    uint16_t *const as = reinterpret_cast<uint16_t *>(smem);
    uint16_t *const bs = as + EX16_STAGES * T::A_STAGE;
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    const int wm = (warp / WARPS_N) * T::WTM, wn = (warp % WARPS_N) * T::WTN;
    const int k_begin = blockIdx.z * p.k_chunk, k_end = min(p.k, k_begin + p.k_chunk);
    const int tiles = (k_end - k_begin + EX16_BK - 1) / EX16_BK;

    auto load_tile = [&](int tile, int stage) {
        const int k0 = k_begin + tile * EX16_BK;
        uint16_t *a_tile = as + stage * T::A_STAGE, *b_tile = bs + stage * T::B_STAGE;
        if (TA)
            ex16_load_block<EX16_BK, BM, T::THREADS, VEC>(a_tile, T::A_PITCH, p.a, p.lda, k0, k_end,
                                                          row0, p.m, tid);
        else
            ex16_load_block<BM, EX16_BK, T::THREADS, VEC>(a_tile, T::A_PITCH, p.a, p.lda, row0, p.m,
                                                          k0, k_end, tid);
        if (TB)
            ex16_load_block<BN, EX16_BK, T::THREADS, VEC>(b_tile, T::B_PITCH, p.b, p.ldb, col0, p.n,
                                                          k0, k_end, tid);
        else
            ex16_load_block<EX16_BK, BN, T::THREADS, VEC>(b_tile, T::B_PITCH, p.b, p.ldb, k0, k_end,
                                                          col0, p.n, tid);
    };

    float acc[T::MI][T::NI][4];
#pragma unroll
    for (int i = 0; i < T::MI; i++)
#pragma unroll
        for (int j = 0; j < T::NI; j++)
#pragma unroll
            for (int r = 0; r < 4; r++)
                acc[i][j][r] = 0.0f;

#pragma unroll
    for (int s = 0; s < EX16_STAGES - 1; s++) {
        if (s < tiles)
            load_tile(s, s);
        cp_async_commit();
    }
    /* The lane's row address inside each 8 x 8 matrix of an x4 load. */
    const int quad = lane / 8, lrow = lane % 8;
    int stage = 0;
    for (int tile = 0; tile < tiles; tile++) {
        cp_async_wait<EX16_STAGES - 2>();
        __syncthreads();
        const int next = tile + EX16_STAGES - 1;
        if (next < tiles)
            load_tile(next, next % EX16_STAGES);
        cp_async_commit();
        const uint16_t *a_tile = as + stage * T::A_STAGE, *b_tile = bs + stage * T::B_STAGE;
#pragma unroll
        for (int ks = 0; ks < EX16_BK; ks += 16) {
            unsigned af[T::MI][4], bf[T::NI][2];
#pragma unroll
            for (int i = 0; i < T::MI; i++) {
                /* a0: m 0-7, k 0-7; a1: m 8-15, k 0-7; a2: m 0-7, k 8-15; a3: m 8-15, k 8-15.
                 * Stored [m][k]: the lane's row is an m; stored [k][m]: a k. */
                const int m0 = wm + i * 16 + (quad % 2) * 8, k0 = ks + (quad / 2) * 8;
                if (TA)
                    ex16_ldmatrix4<true>(af[i], a_tile + (k0 + lrow) * T::A_PITCH + m0);
                else
                    ex16_ldmatrix4<false>(af[i], a_tile + (m0 + lrow) * T::A_PITCH + k0);
            }
#pragma unroll
            for (int j = 0; j < T::NI; j += 2) {
                /* b0, b1 of n tile j (k 0-7, 8-15), then of n tile j + 1. Stored
                 * [n][k]: the lane's row is an n; stored [k][n]: a k. */
                const int n0 = wn + j * 8 + (quad / 2) * 8, k0 = ks + (quad % 2) * 8;
                unsigned r[4];
                if (TB)
                    ex16_ldmatrix4<false>(r, b_tile + (n0 + lrow) * T::B_PITCH + k0);
                else
                    ex16_ldmatrix4<true>(r, b_tile + (k0 + lrow) * T::B_PITCH + n0);
                bf[j][0] = r[0];
                bf[j][1] = r[1];
                bf[j + 1][0] = r[2];
                bf[j + 1][1] = r[3];
            }
#pragma unroll
            for (int i = 0; i < T::MI; i++)
#pragma unroll
                for (int j = 0; j < T::NI; j++)
                    ex16_mma_16816<BF16>(acc[i][j], af[i], bf[j]);
        }
        stage = stage + 1 == EX16_STAGES ? 0 : stage + 1;
    }
    cp_async_wait<0>();

    const int g = lane / 4, t = lane % 4;
    const bool split = gridDim.z > 1;
#pragma unroll
    for (int i = 0; i < T::MI; i++)
#pragma unroll
        for (int j = 0; j < T::NI; j++)
#pragma unroll
            for (int r = 0; r < 4; r++) {
                const int row = row0 + wm + i * 16 + g + (r / 2) * 8;
                const int col = col0 + wn + j * 8 + 2 * t + r % 2;
                if (row >= p.m || col >= p.n)
                    continue;
                if (split)
                    p.part[((size_t)blockIdx.z * p.m + row) * p.n + col] = acc[i][j][r];
                else
                    ex16_store<BF16>(p.c, (size_t)row * p.ldc + col, p.narrow, acc[i][j][r],
                                     p.alpha, p.beta);
            }
#endif
}

/* ------------------------------------------------------------------------ */
/* Host side: the workspace (the choice among the kernels, wl_ex16_choose,  */
/* is host C in the kernels layer: src/kernels/gemm_tiles16.c)              */

static size_t round_up_256(size_t bytes)
{
    return (bytes + 255) / 256 * 256;
}

/* An operand's copy on 128-byte lines: stored rows x cols, cols rounded up
 * to 64 elements (each copy-engine box row one line of L2). */
static size_t restrided_ld(size_t cols)
{
    return wl_gemm_line_elements(cols, 2);
}

/* The workspace of a plan: the split's partial sums (or stream-K's flags
 * and slots), then the re-strided copies of A and B (WL_EX16_WGMMA), each
 * on a 256-byte boundary. */
typedef struct ex16_workspace {
    size_t part, sk, a, b, total; /* byte offsets, and the whole */
} ex16_workspace;

static ex16_workspace workspace_of(const wl_problem *p, const wl_ex16_plan *plan)
{
    ex16_workspace w;
    const size_t m = wl_gemm_m(p), n = wl_gemm_n(p), k = wl_gemm_k(p);
    w.part = w.sk = 0;
    /* ex16_thin writes partial sums with one split too. */
    const bool partials = plan->splits > 1 || plan->kind == WL_EX16_THIN;
    const bool wgmma = plan->kind == WL_EX16_WGMMA;
    const size_t sk_bytes = wgmma && plan->sk_workers > 0
                                ? wl_sk_flag_bytes(2 * plan->sk_workers) +
                                      (size_t)plan->sk_workers * 128 * plan->tile * sizeof(float)
                                : 0;
    w.a = partials ? round_up_256((size_t)plan->splits * m * n * sizeof(float))
                   : round_up_256(sk_bytes);
    const size_t a_rows = wl_gemm_trans_a(p) ? k : m, a_cols = wl_gemm_trans_a(p) ? m : k;
    const size_t b_rows = wl_gemm_trans_b(p) ? n : k, b_cols = wl_gemm_trans_b(p) ? k : n;
    w.b =
        w.a + (wgmma && (plan->restride & 1) ? round_up_256(a_rows * restrided_ld(a_cols) * 2) : 0);
    w.total =
        w.b + (wgmma && (plan->restride & 2) ? round_up_256(b_rows * restrided_ld(b_cols) * 2) : 0);
    return w;
}

extern "C" size_t wl_ex16_scratch(wl_backend *backend, const wl_problem *p,
                                  const wl_ex16_plan *plan)
{
    (void)backend;
    return workspace_of(p, plan).total;
}

extern "C" void wl_ex16_describe(const wl_ex16_plan *plan, char *text, size_t len)
{
    switch (plan->kind) {
    case WL_EX16_MMA:
        wl_format(text, len, "ex16 mma.sync %s tiles, %d split%s (%.0f us modelled)",
                  plan->tile == 0 ? "128x128" : "64x64", plan->splits, plan->splits == 1 ? "" : "s",
                  plan->predicted_us);
        break;
    case WL_EX16_TMA:
        wl_format(text, len, "TMA + wgmma 128x256 tiles (%.0f us modelled)", plan->predicted_us);
        break;
    case WL_EX16_THIN:
        wl_format(text, len, "ex16 thin mma.sync, %d row tile%s, %d split%s (%.0f us modelled)",
                  plan->tile, plan->tile == 1 ? "" : "s", plan->splits,
                  plan->splits == 1 ? "" : "s", plan->predicted_us);
        break;
    case WL_EX16_WGMMA: {
        char shares[64] = "";
        if (plan->sk_workers > 0)
            wl_format(shares, sizeof shares, ", last wave in %d stream-K shares", plan->sk_workers);
        wl_format(text, len, "ex16 wgmma as stored%s, %dx%d tiles, %d split%s%s (%.0f us modelled)",
                  plan->transposed == WL_EX16_SWAPPED ? ", swapped (C^T = op(B)^T op(A)^T)"
                  : plan->transposed                  ? ", transposed (C^T = B^T A^T)"
                  : plan->restride == 3               ? ", A and B re-strided"
                  : plan->restride == 1               ? ", A re-strided"
                  : plan->restride == 2               ? ", B re-strided"
                                                      : "",
                  plan->rows, plan->tile, plan->splits, plan->splits == 1 ? "" : "s", shares,
                  plan->predicted_us);
        break;
    }
    default: wl_format(text, len, "tiled CUDA-core fallback"); break;
    }
}

/* ------------------------------------------------------------------------ */
/* Host side: the launches                                                  */

/* A row of 16-bit elements whose base and pitch are multiples of bytes. */
static bool aligned_to(const void *base, long long stride_elements, int bytes)
{
    return (uintptr_t)base % bytes == 0 && stride_elements * 2 % bytes == 0;
}

static bool aligned_16(const void *base, long long stride_elements)
{
    return aligned_to(base, stride_elements, 16);
}

extern "C" warplab_status wl_ex16_finish(wl_backend *backend, bool bf16, const float *part,
                                         int splits, int rows, int cols, void *c, long long c_i,
                                         long long c_j, bool narrow, float alpha, float beta)
{
    /* The one split-K reduction (gemv.cuh's wl_splitk_finish). */
    const int c_kind = !narrow ? WL_GEMV_F32 : bf16 ? WL_GEMV_BF16 : WL_GEMV_F16;
    return wl_splitk_finish_launch(backend, part, splits, rows, cols, c, c_i, c_j, c_kind, alpha,
                                   beta);
}

/* ex16_thin's loads along a contiguous row whose base and pitch (16-bit
 * elements) are aligned: 16, 8 or 4 bytes, or 0 (element by element). */
static int thin_vector_bytes(const void *base, long long stride_elements)
{
    for (int bytes = 16; bytes >= 4; bytes /= 2)
        if (aligned_to(base, stride_elements, bytes))
            return bytes;
    return 0;
}

/* The thin kernel's parameters: X, Y and C of a problem (see
 * ex16_thin_params), the plan's split of k. */
static ex16_thin_params thin_params_of(const wl_launch *launch, const wl_ex16_plan *plan)
{
    const wl_problem *p = launch->problem;
    const wl_ex16_thin_shape sh = wl_ex16_thin_shape_of(p);
    const long long lda = (long long)wl_gemm_lda(p), ldb = (long long)wl_gemm_ldb(p);
    const long long ldc = (long long)wl_gemm_ldc(p);
    const bool ta = wl_gemm_trans_a(p), tb = wl_gemm_trans_b(p);
    const uint16_t *a = (const uint16_t *)wl_view_ptr(launch->buf[GEMM_A]);
    const uint16_t *b = (const uint16_t *)wl_view_ptr(launch->buf[GEMM_B]);
    ex16_thin_params params;
    if (sh.small_m) { /* X = op(B): [q][j]; Y = op(A): [i][q] */
        params.x = b;
        params.x_q = tb ? 1 : ldb;
        params.x_j = tb ? ldb : 1;
        params.y = a;
        params.y_i = ta ? 1 : lda;
        params.y_q = ta ? lda : 1;
    } else { /* X = op(A)^T: [q][i]; Y = op(B)^T: [j][q] */
        params.x = a;
        params.x_q = ta ? lda : 1;
        params.x_j = ta ? 1 : lda;
        params.y = b;
        params.y_i = tb ? ldb : 1;
        params.y_q = tb ? 1 : ldb;
    }
    /* Columns: X's rows (x_q apart) start aligned; warps: X's columns (x_j
     * apart) do, and Y's rows (y_i apart) when contiguous: the widest load
     * that keeps them so. */
    params.x_vec = thin_vector_bytes(params.x, sh.columns ? params.x_q : params.x_j);
    /* A single row of Y (small = 1) has no stride to keep aligned. */
    params.y_vec =
        params.y_q == 1 ? thin_vector_bytes(params.y, sh.small == 1 ? 0 : params.y_i) : 0;
    params.big = sh.big;
    params.small = sh.small;
    params.k = (int)wl_gemm_k(p);
    params.k_chunk = plan->k_chunk;
    params.splits = plan->splits;
    params.part = (float *)wl_view_ptr(launch->scratch);
    params.c = wl_view_ptr(launch->buf[GEMM_C]);
    params.c_i = sh.small_m ? ldc : 1;
    params.c_j = sh.small_m ? 1 : ldc;
    params.alpha = (float)p->alpha;
    params.beta = (float)p->beta;
    params.narrow = (p->variant & WL_GEMM_C_INPUT_TYPE) != 0;
    return params;
}

/* ex16_thin: MI 16-row tiles of the small side; 2 k steps in flight a
 * warp with 1 or 2 tiles, 1 with 4 (its sums take 128 registers). */
template <bool BF16, int MI>
static void launch_thin_tiles(const ex16_thin_params &params, bool along_k, dim3 grid,
                              cudaStream_t stream)
{
    constexpr int depth = MI <= 2 ? 2 : 1;
    if (along_k)
        ex16_thin<BF16, MI, true, depth><<<grid, 32 * EX16_THIN_WARPS, 0, stream>>>(params);
    else
        ex16_thin<BF16, MI, false, depth><<<grid, 32 * EX16_THIN_WARPS, 0, stream>>>(params);
}

template <bool BF16>
static void launch_thin(const ex16_thin_params &params, int tiles, bool along_k, dim3 grid,
                        cudaStream_t stream)
{
    if (tiles <= 1)
        launch_thin_tiles<BF16, 1>(params, along_k, grid, stream);
    else if (tiles <= 2)
        launch_thin_tiles<BF16, 2>(params, along_k, grid, stream);
    else
        launch_thin_tiles<BF16, 4>(params, along_k, grid, stream);
}

/* ex16_thin's partial sums (always: the kernel never writes C), then
 * ex16_finish writes C. */
static warplab_status run_thin(wl_backend *backend, const wl_launch *launch,
                               const wl_ex16_plan *plan)
{
    const wl_problem *p = launch->problem;
    const wl_ex16_thin_shape sh = wl_ex16_thin_shape_of(p);
    if (sh.small > EX16_THIN_SMALL || 16 * plan->tile < sh.small)
        return wl_fail(backend, WARPLAB_ERROR_INVALID_ARGUMENT,
                       "gemm_ex: ex16_thin takes at most %d rows of the small side (%d, tile %d)",
                       EX16_THIN_SMALL, sh.small, plan->tile);
    const unsigned strips = (unsigned)((sh.big + EX16_THIN_COLS - 1) / EX16_THIN_COLS);
    const int *most = backend->info.max_grid_dim;
    if ((most[0] > 0 && strips > (unsigned)most[0]) || (most[1] > 0 && plan->splits > most[1]))
        return wl_fail(backend, WARPLAB_ERROR_UNSUPPORTED,
                       "gemm_ex: a grid of %u x %d blocks is past this device's", strips,
                       plan->splits);
    const ex16_thin_params params = thin_params_of(launch, plan);
    const bool bf16 = p->dtype == WARPLAB_BFLOAT16;
    cudaStream_t stream = wl_cuda_stream(backend);
    const dim3 grid(strips, (unsigned)plan->splits);
    if (bf16)
        launch_thin<true>(params, plan->tile, !sh.columns, grid, stream);
    else
        launch_thin<false>(params, plan->tile, !sh.columns, grid, stream);
    warplab_status status = WL_CUDA_LAUNCHED(backend, "gemm_ex 16-bit thin kernel");
    if (status != WARPLAB_OK)
        return status;
    return wl_ex16_finish(backend, bf16, params.part, plan->splits, sh.small, sh.big, params.c,
                          params.c_i, params.c_j, params.narrow, params.alpha, params.beta);
}

template <bool BF16, int BM, int BN, int WARPS_M, int WARPS_N, bool TA, bool TB, bool VEC>
static warplab_status launch_mma_kernel(wl_backend *backend, const ex16_mma_params &params,
                                        dim3 grid)
{
    typedef ex16_tiles<BM, BN, WARPS_M, WARPS_N, TA, TB> T;
    auto kernel = ex16_mma<BF16, BM, BN, WARPS_M, WARPS_N, TA, TB, VEC>;
    /* The opt-in above 48 KiB: a host-side attribute, once per
     * instantiation and process (no synchronisation). */
    static bool raised = false;
    if (!raised) {
        const cudaError_t error = cudaFuncSetAttribute(
            kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)T::SMEM_BYTES);
        if (error != cudaSuccess)
            return wl_fail(backend, WARPLAB_ERROR_BACKEND, "gemm_ex: shared memory opt-in: %s",
                           cudaGetErrorString(error));
        raised = true;
    }
    kernel<<<grid, T::THREADS, T::SMEM_BYTES, wl_cuda_stream(backend)>>>(params);
    return WL_CUDA_LAUNCHED(backend, "gemm_ex 16-bit mma.sync kernel");
}

template <bool BF16, int BM, int BN, int WARPS_M, int WARPS_N>
static warplab_status launch_mma_ops(wl_backend *backend, const ex16_mma_params &params, dim3 grid,
                                     bool ta, bool tb, bool vec)
{
#define EX16_OPS(TA, TB)                                                                           \
    if (ta == TA && tb == TB)                                                                      \
        return vec ? launch_mma_kernel<BF16, BM, BN, WARPS_M, WARPS_N, TA, TB, true>(backend,      \
                                                                                     params, grid) \
                   : launch_mma_kernel<BF16, BM, BN, WARPS_M, WARPS_N, TA, TB, false>(             \
                         backend, params, grid);
    EX16_OPS(false, false)
    EX16_OPS(false, true)
    EX16_OPS(true, false)
    EX16_OPS(true, true)
#undef EX16_OPS
    return WARPLAB_ERROR_UNSUPPORTED;
}

static warplab_status run_mma(wl_backend *backend, const wl_launch *launch,
                              const wl_ex16_plan *plan)
{
    const wl_problem *p = launch->problem;
    ex16_mma_params params;
    params.a = (const uint16_t *)wl_view_ptr(launch->buf[GEMM_A]);
    params.b = (const uint16_t *)wl_view_ptr(launch->buf[GEMM_B]);
    params.c = wl_view_ptr(launch->buf[GEMM_C]);
    params.part = (float *)wl_view_ptr(launch->scratch);
    params.m = (int)wl_gemm_m(p);
    params.n = (int)wl_gemm_n(p);
    params.k = (int)wl_gemm_k(p);
    params.lda = (int)wl_gemm_lda(p);
    params.ldb = (int)wl_gemm_ldb(p);
    params.ldc = (int)wl_gemm_ldc(p);
    params.k_chunk = plan->k_chunk;
    params.alpha = (float)p->alpha;
    params.beta = (float)p->beta;
    params.narrow = (p->variant & WL_GEMM_C_INPUT_TYPE) != 0;
    const int bm = wl_ex16_configs[plan->tile].bm, bn = wl_ex16_configs[plan->tile].bn;
    const dim3 grid((unsigned)((params.n + bn - 1) / bn), (unsigned)((params.m + bm - 1) / bm),
                    (unsigned)plan->splits);
    const int *most = backend->info.max_grid_dim;
    if ((most[0] > 0 && grid.x > (unsigned)most[0]) ||
        (most[1] > 0 && grid.y > (unsigned)most[1]) || (most[2] > 0 && grid.z > (unsigned)most[2]))
        return wl_fail(backend, WARPLAB_ERROR_UNSUPPORTED,
                       "gemm_ex: a grid of %u x %u x %u blocks is past this device's", grid.x,
                       grid.y, grid.z);
    const bool ta = wl_gemm_trans_a(p), tb = wl_gemm_trans_b(p);
    const bool vec = aligned_16(params.a, params.lda) && aligned_16(params.b, params.ldb);
    const bool bf16 = p->dtype == WARPLAB_BFLOAT16;
    warplab_status status;
    if (plan->tile == 0)
        status = bf16 ? launch_mma_ops<true, 128, 128, 2, 4>(backend, params, grid, ta, tb, vec)
                      : launch_mma_ops<false, 128, 128, 2, 4>(backend, params, grid, ta, tb, vec);
    else
        status = bf16 ? launch_mma_ops<true, 64, 64, 2, 2>(backend, params, grid, ta, tb, vec)
                      : launch_mma_ops<false, 64, 64, 2, 2>(backend, params, grid, ta, tb, vec);
    if (status != WARPLAB_OK || plan->splits == 1)
        return status;
    return wl_ex16_finish(backend, bf16, params.part, plan->splits, params.m, params.n, params.c,
                          params.ldc, 1, params.narrow, params.alpha, params.beta);
}

/* The wgmma kernel on the operands as stored; views whose rows turn out not
 * 16-byte aligned at the call (the plan assumed they were) run ex16_mma with
 * 64 x 64 tiles and the same split, which needs the same workspace. */
/* One operand's re-strided copy: dst (rows x dst_ld 16-bit words) = src
 * (rows x cols, ld apart); pieces: its 16-byte pieces of dst (rows x dst_ld
 * / 8). */
struct ex16_restride_copy {
    const uint16_t *src;
    long long ld;
    uint16_t *dst;
    long long dst_ld;
    int rows, cols;
    unsigned pieces;
};
/* The copies of one call (count of them), one launch. */
struct ex16_restride_copies {
    ex16_restride_copy copy[2];
    int count;
};

/* dst (rows x restrided_ld(cols) 16-bit words) = src (rows x cols, ld
 * apart), the row tails zeroed (no uninitialised word near a TMA box). A
 * thread a 16-byte piece of a row of dst at a time, the pieces of both
 * copies numbered in one sequence (the first copy's, then the second's)
 * and walked by the whole grid: a warp writes 512 contiguous bytes whatever
 * the rows' length. The source's rows have no alignment: a piece on a
 * 16-byte boundary is one 16-byte load; one off it, the two aligned 16-byte
 * words around it (both inside its row) and a funnel shift, where 8-, 4-
 * and 2-byte loads took 2, 4 or 8 loads a piece; element by element only at
 * a row's two ends (a word would reach past the row: memcheck and initcheck
 * stay clean on any view). Each field of a copy is selected by value:
 * indexing the parameter's copy[] by a runtime index put the 104-byte
 * parameter on every thread's stack (ptxas -v: a 104-byte stack frame, 0
 * with the selection), loaded back at every piece. A and B in one launch: a
 * second launch of this kernel before the wgmma kernel cost ~4.5 us on the
 * small shapes (H200: 61 x 200 x 97, A re-strided, 8.9 us; 200 x 61 x 97, A
 * and B in two launches, 13.5 us). Blocks over rows x columns of the larger
 * copy's extent, an element a load, took 2.1 ms on 79 x 375 x 21635 with A
 * and B copied (22 x 21635 x 2 blocks, nearly all of them empty) and ran at
 * ~0.3 of the bandwidth on 63039 x 2703 (H200, `warplab bench gemm --grid
 * --seed 29`, FP16 N,N). */
__global__ void ex16_restride(const ex16_restride_copies copies)
{
    /* The wgmma kernel after it is launched as its dependent: placed while
     * this one runs, it waits for it before its first load. */
    wl_pdl_release();
    const ex16_restride_copy &c0 = copies.copy[0], &c1 = copies.copy[1];
    const unsigned first = c0.pieces;
    const unsigned total = first + (copies.count > 1 ? c1.pieces : 0u);
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < total;
         i += gridDim.x * blockDim.x) {
        const bool second = i >= first;
        const uint16_t *const src = second ? c1.src : c0.src;
        uint16_t *const dst = second ? c1.dst : c0.dst;
        const long long ld = second ? c1.ld : c0.ld, dst_ld = second ? c1.dst_ld : c0.dst_ld;
        const int cols = second ? c1.cols : c0.cols;
        const unsigned piece = second ? i - first : i;
        const unsigned per_row = (unsigned)(dst_ld / 8);
        const unsigned r = piece / per_row;
        const int col = 8 * (int)(piece - r * per_row);
        const uint16_t *const row = src + (long long)r * ld, *const from = row + col;
        const uintptr_t at = (uintptr_t)from, below = at & ~(uintptr_t)15;
        const unsigned shift = (unsigned)(at & 15); /* bytes past a 16-byte boundary */
        uint32_t w[4];
        if (col + 8 <= cols && shift == 0) {
            const uint4 x = *(const uint4 *)from;
            w[0] = x.x, w[1] = x.y, w[2] = x.z, w[3] = x.w;
        } else if (col + 8 <= cols && below >= (uintptr_t)row &&
                   below + 32 <= (uintptr_t)(row + cols)) {
            const uint4 x0 = ((const uint4 *)below)[0], x1 = ((const uint4 *)below)[1];
            const uint32_t x[8] = {x0.x, x0.y, x0.z, x0.w, x1.x, x1.y, x1.z, x1.w};
            const unsigned word = shift / 4;
            uint32_t y[5]; /* x from the piece's first word (selects: no local array) */
#pragma unroll
            for (int j = 0; j < 5; j++)
                y[j] = word == 0 ? x[j] : word == 1 ? x[j + 1] : word == 2 ? x[j + 2] : x[j + 3];
#pragma unroll
            for (int j = 0; j < 4; j++)
                w[j] = (shift & 2) ? __funnelshift_r(y[j], y[j + 1], 16) : y[j];
        } else {
#pragma unroll
            for (int j = 0; j < 4; j++) {
                const int e = col + 2 * j;
                const uint32_t lo = e < cols ? from[2 * j] : 0u,
                               hi = e + 1 < cols ? from[2 * j + 1] : 0u;
                w[j] = lo | hi << 16;
            }
        }
        *(uint4 *)(dst + (long long)r * dst_ld + col) = make_uint4(w[0], w[1], w[2], w[3]);
    }
}

/* An operand *src (rows x cols, *ld apart) to be copied to dst on 128-byte
 * lines; *src and *ld then name the copy. */
static void restride_add(ex16_restride_copies *copies, int *count, const void **src, int *ld,
                         char *dst, size_t rows, size_t cols)
{
    ex16_restride_copy *c = &copies->copy[(*count)++];
    c->src = (const uint16_t *)*src;
    c->ld = *ld;
    c->dst = (uint16_t *)dst;
    c->dst_ld = (long long)restrided_ld(cols);
    c->rows = (int)rows;
    c->cols = (int)cols;
    c->pieces = 0;
    *src = dst;
    *ld = (int)c->dst_ld;
}

/* The count copies of restride_add, one launch: enough blocks of 256
 * threads for every piece, at most 8 an SM (the grid walks the rest). */
static warplab_status restride(wl_backend *backend, ex16_restride_copies *copies, int count)
{
    const unsigned block = 256;
    size_t total = 0;
    for (int i = 0; i < count; i++) {
        ex16_restride_copy *c = &copies->copy[i];
        const size_t pieces = (size_t)c->rows * (size_t)(c->dst_ld / 8);
        total += pieces;
        if (total > 0x7fffffffu)
            return wl_fail(backend, WARPLAB_ERROR_UNSUPPORTED,
                           "gemm_ex: re-strided copies of %zu 16-byte pieces exceed the copy "
                           "kernel's 32-bit count",
                           total);
        c->pieces = (unsigned)pieces;
    }
    copies->count = count;
    const size_t most = 8 * (size_t)wl_gemm_model_sms(&backend->info);
    const size_t wanted = (total + block - 1) / block;
    const unsigned blocks = (unsigned)(wanted < most ? (wanted > 0 ? wanted : 1) : most);
    ex16_restride<<<blocks, block, 0, wl_cuda_stream(backend)>>>(*copies);
    return WL_CUDA_LAUNCHED(backend, "gemm_ex: operands re-strided onto 128-byte lines");
}

/* The rest of a call (C, sizes, scalars, the plan's tiles and split),
 * the kernel, and the sum of a split. */
static warplab_status launch_wgmma(wl_backend *backend, const wl_launch *launch,
                                   const wl_ex16_plan *plan, wl_gemm_ex_wgmma_call *call,
                                   float *part, void *sk_space)
{
    const wl_problem *p = launch->problem;
    call->alpha = (float)p->alpha;
    call->beta = (float)p->beta;
    call->type = p->dtype;
    call->c_narrow = (p->variant & WL_GEMM_C_INPUT_TYPE) != 0;
    call->bn = plan->tile;
    call->bm = plan->rows == EX16_WGMMA_TALL ? EX16_WGMMA_TALL : 0;
    call->splits = plan->splits;
    call->k_chunk = plan->k_chunk;
    const bool swapped = plan->transposed == WL_EX16_SWAPPED;
    call->c_transposed = swapped;
    call->part = plan->splits > 1 ? part : NULL;
    call->sk_space = plan->sk_workers > 0 ? sk_space : NULL;
    call->sk_workers = plan->sk_workers;
    const warplab_status status = wl_gemm_ex_wgmma_run(backend, call);
    if (status != WARPLAB_OK || plan->splits == 1)
        return status;
    /* The swapped product's sums lie in part as the caller's C (m x n). */
    const int rows = swapped ? call->n : call->m, cols = swapped ? call->m : call->n;
    return wl_ex16_finish(backend, p->dtype == WARPLAB_BFLOAT16, call->part, plan->splits, rows,
                          cols, call->c, call->ldc, 1, call->c_narrow, call->alpha, call->beta);
}

/* The swapped product (transposed == WL_EX16_SWAPPED): C^T (n x m) = op(B)^T
 * op(A)^T, so that a small m is the tiles' width (96 columns of m against
 * 128 rows of n: wgmma's n is any multiple of 8, its m 64 a consumer; 284
 * rows in three 96-wide tiles compute 288, in 128- or 192-row tiles 384).
 * op(B)^T is the kernel's A: B stored k x n (op N) M-major, n x k (op T)
 * K-major; op(A)^T its B, K-major with A stored m x k (op N, the only
 * layout planned). The kernel writes C transposed (split, its sums into
 * the workspace as C, m x n, which the finish adds). Views less aligned
 * than planned: mma.sync. */
static warplab_status run_wgmma_swapped(wl_backend *backend, const wl_launch *launch,
                                        const wl_ex16_plan *plan)
{
    const wl_problem *p = launch->problem;
    const void *a = wl_view_ptr(launch->buf[GEMM_A]), *b = wl_view_ptr(launch->buf[GEMM_B]);
    const int lda = (int)wl_gemm_lda(p), ldb = (int)wl_gemm_ldb(p);
    float *part = (float *)wl_view_ptr(launch->scratch);
    if (wl_gemm_trans_a(p) || !aligned_16(a, lda) || !aligned_16(b, ldb) ||
        (uintptr_t)part % 16 != 0) {
        wl_ex16_plan mma = *plan;
        mma.kind = WL_EX16_MMA;
        mma.tile = 1;
        mma.transposed = 0;
        return run_mma(backend, launch, &mma);
    }
    wl_gemm_ex_wgmma_call call;
    call.a = b;
    call.lda = ldb;
    call.a_m_major = !wl_gemm_trans_b(p);
    call.b = a;
    call.ldb = lda;
    call.b_n_major = false;
    call.c = wl_view_ptr(launch->buf[GEMM_C]);
    call.ldc = (int)wl_gemm_ldc(p);
    call.m = (int)wl_gemm_n(p);
    call.n = (int)wl_gemm_m(p);
    call.k = (int)wl_gemm_k(p);
    call.after_copy = false;
    return launch_wgmma(backend, launch, plan, &call, part, NULL);
}

/* y = A x (n = 1, x and C contiguous) as C^T = x^T A^T: x is the one row of
 * a K-major A operand, A the B operand as stored (n' = m rows of k, or k x
 * m with op(A) = T), C^T one row. A row's stride is never used; the tensor
 * maps only need one that is a multiple of 16 bytes. */
static warplab_status run_wgmma_transposed(wl_backend *backend, const wl_launch *launch,
                                           const wl_ex16_plan *plan)
{
    const wl_problem *p = launch->problem;
    const void *a = wl_view_ptr(launch->buf[GEMM_A]), *x = wl_view_ptr(launch->buf[GEMM_B]);
    const int lda = (int)wl_gemm_lda(p), m = (int)wl_gemm_m(p), k = (int)wl_gemm_k(p);
    float *part = (float *)wl_view_ptr(launch->scratch);
    if (!aligned_16(x, 8) || !aligned_16(a, lda) || (uintptr_t)part % 16 != 0) {
        wl_ex16_plan mma = *plan; /* views less aligned than the problem said */
        mma.kind = WL_EX16_MMA;
        mma.tile = 1;
        mma.transposed = false;
        return run_mma(backend, launch, &mma);
    }
    wl_gemm_ex_wgmma_call call;
    call.a = x;
    call.lda = (k + 7) / 8 * 8;
    call.a_m_major = false;
    call.b = a;
    call.ldb = lda;
    call.b_n_major = wl_gemm_trans_a(p);
    call.c = wl_view_ptr(launch->buf[GEMM_C]);
    call.ldc = (m + 7) / 8 * 8;
    call.m = 1;
    call.n = m;
    call.k = k;
    call.after_copy = false;
    return launch_wgmma(backend, launch, plan, &call, part,
                        (char *)part + workspace_of(p, plan).sk);
}

static warplab_status run_wgmma(wl_backend *backend, const wl_launch *launch,
                                const wl_ex16_plan *plan)
{
    if (plan->transposed == WL_EX16_SWAPPED)
        return run_wgmma_swapped(backend, launch, plan);
    if (plan->transposed)
        return run_wgmma_transposed(backend, launch, plan);
    const wl_problem *p = launch->problem;
    wl_gemm_ex_wgmma_call call;
    call.a = wl_view_ptr(launch->buf[GEMM_A]);
    call.b = wl_view_ptr(launch->buf[GEMM_B]);
    call.lda = (int)wl_gemm_lda(p);
    call.ldb = (int)wl_gemm_ldb(p);
    /* Rows that are not 16-byte aligned: re-strided into the room the plan
     * kept for them; without room (views less aligned than the problem
     * said), mma.sync, which reads any row. */
    const bool a_copy = !aligned_16(call.a, call.lda) || (plan->restride & 1),
               b_copy = !aligned_16(call.b, call.ldb) || (plan->restride & 2);
    char *workspace = (char *)wl_view_ptr(launch->scratch);
    if ((a_copy && !(plan->restride & 1)) || (b_copy && !(plan->restride & 2)) ||
        ((a_copy || b_copy) && (uintptr_t)workspace % 16 != 0)) {
        wl_ex16_plan mma = *plan;
        mma.kind = WL_EX16_MMA;
        mma.tile = 1;
        mma.restride = 0;
        return run_mma(backend, launch, &mma);
    }
    const ex16_workspace w = workspace_of(p, plan);
    const size_t m = wl_gemm_m(p), n = wl_gemm_n(p), k = wl_gemm_k(p);
    ex16_restride_copies copies = {};
    int count = 0;
    if (a_copy) /* A as stored: m x k, or k x m (op T) */
        restride_add(&copies, &count, &call.a, &call.lda, workspace + w.a,
                     wl_gemm_trans_a(p) ? k : m, wl_gemm_trans_a(p) ? m : k);
    if (b_copy) /* B as stored: k x n, or n x k (op T) */
        restride_add(&copies, &count, &call.b, &call.ldb, workspace + w.b,
                     wl_gemm_trans_b(p) ? n : k, wl_gemm_trans_b(p) ? k : n);
    if (count > 0) {
        const warplab_status status = restride(backend, &copies, count);
        if (status != WARPLAB_OK)
            return status;
    }
    call.a_m_major = wl_gemm_trans_a(p);
    call.b_n_major = !wl_gemm_trans_b(p);
    call.c = wl_view_ptr(launch->buf[GEMM_C]);
    call.ldc = (int)wl_gemm_ldc(p);
    call.m = (int)wl_gemm_m(p);
    call.n = (int)wl_gemm_n(p);
    call.k = (int)wl_gemm_k(p);
    call.after_copy = count > 0;
    return launch_wgmma(backend, launch, plan, &call, (float *)(workspace + w.part),
                        workspace + w.sk);
}

extern "C" warplab_status wl_ex16_run(wl_backend *backend, const wl_launch *launch,
                                      const wl_ex16_plan *plan)
{
    if (launch->scratch.bytes < wl_ex16_scratch(backend, launch->problem, plan))
        return wl_fail(backend, WARPLAB_ERROR_INVALID_ARGUMENT,
                       "gemm_ex: a workspace of %zu bytes, %zu needed", launch->scratch.bytes,
                       wl_ex16_scratch(backend, launch->problem, plan));
    if (plan->kind == WL_EX16_MMA)
        return run_mma(backend, launch, plan);
    if (plan->kind == WL_EX16_WGMMA)
        return run_wgmma(backend, launch, plan);
    if (plan->kind == WL_EX16_THIN)
        return run_thin(backend, launch, plan);
    return wl_fail(backend, WARPLAB_ERROR_INVALID_ARGUMENT, "gemm_ex: no 16-bit kernel for plan %d",
                   (int)plan->kind);
}
/* warplab:end */
