/* small_mma: a small GEMM (m, n, k up to a few hundred) on tensor cores in
 * one launch, whatever the alignment of the operands' rows: BF16 and FP16
 * (mma.sync m16n8k16) and TF32 (m16n8k8) from one template, every layout
 * (op_a, op_b) read as stored, C in FP32 or the input type, alpha and beta.
 *
 * Lesson (over ex16_chooser's re-strided copies + wgmma and tf32_chooser's
 * tiles on small products; docs/DECISIONS.md, "Operands with rows off 16
 * bytes are re-strided in one launch" and "The re-strided copies walk their
 * pieces; the wgmma kernel after them is their dependent"): at 100^3 the
 * time is launches and latency. The wgmma kernel needs 16-byte rows, so
 * 16-bit operands with rows off 16 bytes (lda = 91: 182 bytes) are first
 * copied by ex16_restride: two launches, 11 us flushed for FP16 103^3 on
 * the H200, where cuBLAS runs one 32 x 32 "align1" tensor-core kernel in
 * 6.4 us. cp.async needs 4-byte aligned sources, which 2-byte aligned
 * 16-bit rows are not. Here the operands go global -> registers -> shared
 * memory by plain element loads (2 or 4 bytes, any alignment): nothing is
 * copied first and k is not split (no finish launch), one launch as
 * cuBLAS's.
 *
 * Over ex16_mma's element path (one launch too, but 10.0-24.2 us on those
 * shapes, the same DECISIONS.md record: 64 x 64 or 128 x 128 tiles, whose
 * element loads are stored to shared memory as they arrive, a memory
 * round trip a k stage): tiles of 32 x 32 (4 warps of 16 x 16), up to 9x
 * more blocks on a 100^3 product, and a ring of DEPTH k stages in
 * registers (3 at 32 x 32, 2 at 64 x 64: WL_SMALL_MMA_DEPTH): each thread
 * has the loads of the next DEPTH stages in flight while the tensor cores
 * work on the current one, so a k loop of s stages waits about s / DEPTH
 * memory round trips, not s (k <= 96 at 32 x 32: one). 64 x 64 tiles
 * (warps of 32 x 32) where the small ones would make more than 4 blocks an
 * SM (wl_small_mma_tile).
 *
 * Each operand's tile is loaded along its contiguous dimension (lanes on
 * consecutive elements: one or two 32-byte sectors a warp request at any
 * alignment) and stored k-contiguous in shared memory ([mn][k], padded so
 * that the fragment loads of a warp hit 32 distinct banks: 20 words a row
 * for 16-bit, 36 for TF32). Elements past m, n or k are zeros, so a NaN
 * stays in its own row and column. TF32 operands are rounded once as they
 * are staged (cvt.rna, to nearest), not truncated by the mma. */
/* warplab:rung gemm ex_tf32 ex_bf16 ex_fp16 */
#ifndef WARPLAB_GEMM_SMALL_MMA_CUH
#define WARPLAB_GEMM_SMALL_MMA_CUH

#include "../../kernels/gemm_small_mma.h"
#include "mma_kernel.cuh"

#ifndef WL_EMULATE
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#endif

struct small_mma_params {
    const void *a, *b; /* row-major, as stored: A m x k (op N) or k x m; B k x n or n x k */
    void *c;           /* row-major m x n: float, or the 16-bit input type (narrow) */
    int m, n, k;
    long long lda, ldb, ldc;
    float alpha, beta;
    bool narrow;
};

/* The element types of a kind: in memory (G), staged in shared memory (S),
 * k an mma takes, and the padded row of a shared tile (elements). */
template <int KIND> struct small_mma_kind {
    typedef uint16_t G;
    typedef uint16_t S;
    static constexpr int K_STEP = 16;
    static constexpr int PITCH = WL_SMALL_MMA_BK + 8;
    static __device__ __forceinline__ S stage(G x) { return x; }
    /* The 32-bit word of two consecutive k at element `at` of a row. */
    static __device__ __forceinline__ unsigned pair(const S *row, int at)
    {
        return *reinterpret_cast<const unsigned *>(row + at);
    }
};
template <> struct small_mma_kind<MMA_TF32> {
    typedef float G;
    typedef unsigned S;
    static constexpr int K_STEP = 8;
    static constexpr int PITCH = WL_SMALL_MMA_BK + 4;
    static __device__ __forceinline__ S stage(G x) { return to_tf32(x); }
};

/* The tile: BM x BN of C, 2 x 2 warps of WM x WN, MI x NI mma tiles a warp. */
template <int BM, int BN> struct small_mma_tile {
    static constexpr int WM = BM / 2, WN = BN / 2;
    static constexpr int MI = WM / 16, NI = WN / 8;
};

/* A 16-bit value as a float (BF16 or FP16 bits). */
template <int KIND> __device__ __forceinline__ float small_mma_widen(uint16_t bits)
{
    if (KIND == MMA_BF16)
        return __uint_as_float((unsigned)bits << 16);
    return __half2float(__ushort_as_half(bits));
}

template <int KIND> __device__ __forceinline__ uint16_t small_mma_narrow(float x)
{
    if (KIND == MMA_BF16)
        return __bfloat16_as_ushort(__float2bfloat16_rn(x));
    return __half_as_ushort(__float2half_rn(x));
}

/* One operand's stage: an MN x BK tile of op(X) (MN of m or n), held in
 * memory either k-contiguous (K_CONTIG: element (i, q) at i * ld + q) or
 * mn-contiguous ((i, q) at q * ld + i). A thread loads COUNT elements: the
 * lanes run along the contiguous dimension (W elements wide), the thread's
 * elements step along the other by THREADS / W. */
template <int KIND, int MN, bool K_CONTIG> struct small_mma_operand {
    typedef small_mma_kind<KIND> K;
    static constexpr int W = K_CONTIG ? WL_SMALL_MMA_BK : MN;
    static constexpr int STEP = WL_SMALL_MMA_THREADS / W;
    static constexpr int COUNT = MN * WL_SMALL_MMA_BK / WL_SMALL_MMA_THREADS;
    static_assert(WL_SMALL_MMA_THREADS % W == 0 &&
                      COUNT * WL_SMALL_MMA_THREADS == MN * WL_SMALL_MMA_BK,
                  "whole rows of lanes");

    /* The stage whose tile starts at (i0, q0), rows and k past (i_end,
     * q_end) zeros. */
    static __device__ __forceinline__ void fetch(typename K::G v[COUNT], const typename K::G *x,
                                                 long long ld, int i0, int i_end, int q0, int q_end,
                                                 int tid)
    {
        const int c = tid % W, s = tid / W;
        const int c_at = (K_CONTIG ? q0 : i0) + c, c_end = K_CONTIG ? q_end : i_end;
        const int s_at = (K_CONTIG ? i0 : q0) + s, s_end = K_CONTIG ? i_end : q_end;
        const typename K::G *from = x + (long long)s_at * ld + c_at;
#pragma unroll
        for (int j = 0; j < COUNT; j++)
            v[j] = c_at < c_end && s_at + j * STEP < s_end ? from[(long long)j * STEP * ld]
                                                           : static_cast<typename K::G>(0);
    }

    /* The values of fetch into the shared tile [MN][PITCH]. */
    static __device__ __forceinline__ void stage(typename K::S *tile, const typename K::G v[COUNT],
                                                 int tid)
    {
        const int c = tid % W, s = tid / W;
#pragma unroll
        for (int j = 0; j < COUNT; j++) {
            const int i = K_CONTIG ? s + j * STEP : c, q = K_CONTIG ? c : s + j * STEP;
            tile[i * K::PITCH + q] = K::stage(v[j]);
        }
    }
};

/* KIND: MMA_TF32, MMA_BF16 or MMA_FP16; TA, TB: A, B stored transposed
 * (op T). Dynamic shared memory: small_mma_smem<KIND, BM, BN>() bytes. */
template <int KIND, int BM, int BN> constexpr size_t small_mma_smem()
{
    return 2 * (size_t)(BM + BN) * small_mma_kind<KIND>::PITCH *
           sizeof(typename small_mma_kind<KIND>::S);
}

template <int KIND, int BM, int BN, bool TA, bool TB>
__global__ void __launch_bounds__(WL_SMALL_MMA_THREADS) small_mma(small_mma_params p)
{
#if WL_SM80_BODY
    typedef small_mma_kind<KIND> K;
    typedef small_mma_tile<BM, BN> T;
    typedef small_mma_operand<KIND, BM, !TA> OA;
    typedef small_mma_operand<KIND, BN, TB> OB;
    typedef typename K::G G;
    typedef typename K::S S;
    constexpr int BK = WL_SMALL_MMA_BK, PITCH = K::PITCH;
    /* k stages in flight a thread (WL_SMALL_MMA_DEPTH). */
    constexpr int DEPTH = WL_SMALL_MMA_DEPTH(BM);
    WL_DYNAMIC_SMEM(uint4, smem);
    S *const as = reinterpret_cast<S *>(smem); /* [2][BM][PITCH] */
    S *const bs = as + 2 * BM * PITCH;         /* [2][BN][PITCH] */
    const G *const a = static_cast<const G *>(p.a), *const b = static_cast<const G *>(p.b);
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32, g = lane / 4, t = lane % 4;
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    const int wm = (warp / 2) * T::WM, wn = (warp % 2) * T::WN;
    const int tiles = (p.k + BK - 1) / BK;

    float acc[T::MI][T::NI][4];
#pragma unroll
    for (int i = 0; i < T::MI; i++)
#pragma unroll
        for (int j = 0; j < T::NI; j++)
#pragma unroll
            for (int r = 0; r < 4; r++)
                acc[i][j][r] = 0.0f;

    auto fetch = [&](int tile, G(&va)[OA::COUNT], G(&vb)[OB::COUNT]) {
        const int q0 = tile * BK;
        OA::fetch(va, a, p.lda, row0, p.m, q0, p.k, tid);
        OB::fetch(vb, b, p.ldb, col0, p.n, q0, p.k, tid);
    };
    auto compute = [&](int buf) {
        const S *const at = as + buf * BM * PITCH, *const bt = bs + buf * BN * PITCH;
#pragma unroll
        for (int ks = 0; ks < BK; ks += K::K_STEP) {
            unsigned af[T::MI][4], bf[T::NI][2];
            /* 16-bit: a0 (g, 2t..), a1 (g+8, 2t..), a2 (g, 2t+8..), a3 (g+8, 2t+8..);
             * b0 (k 2t.., n g), b1 (k 2t+8.., n g). TF32: the same with k t and t+4. */
            constexpr int HALF = K::K_STEP / 2;
            const int kk = ks + (KIND == MMA_TF32 ? t : 2 * t);
#pragma unroll
            for (int i = 0; i < T::MI; i++) {
                const S *const r0 = at + (wm + i * 16 + g) * PITCH, *const r1 = r0 + 8 * PITCH;
                if constexpr (KIND == MMA_TF32) {
                    af[i][0] = r0[kk];
                    af[i][1] = r1[kk];
                    af[i][2] = r0[kk + HALF];
                    af[i][3] = r1[kk + HALF];
                } else {
                    af[i][0] = K::pair(r0, kk);
                    af[i][1] = K::pair(r1, kk);
                    af[i][2] = K::pair(r0, kk + HALF);
                    af[i][3] = K::pair(r1, kk + HALF);
                }
            }
#pragma unroll
            for (int j = 0; j < T::NI; j++) {
                const S *const r = bt + (wn + j * 8 + g) * PITCH;
                if constexpr (KIND == MMA_TF32) {
                    bf[j][0] = r[kk];
                    bf[j][1] = r[kk + HALF];
                } else {
                    bf[j][0] = K::pair(r, kk);
                    bf[j][1] = K::pair(r, kk + HALF);
                }
            }
#pragma unroll
            for (int i = 0; i < T::MI; i++)
#pragma unroll
                for (int j = 0; j < T::NI; j++) {
                    if constexpr (KIND == MMA_TF32)
                        mma_tf32_m16n8k8(acc[i][j], af[i], bf[j]);
                    else if constexpr (KIND == MMA_BF16)
                        mma_bf16_m16n8k16(acc[i][j], af[i], bf[j]);
                    else
                        mma_f16_m16n8k16(acc[i][j], af[i], bf[j]);
                }
        }
    };
    /* A stage: the registers into shared buffer buf, the barrier, the loads
     * of the stage DEPTH ahead into the same registers, the products. One
     * barrier a stage, two buffers: a buffer is written again two stages
     * later, after the next stage's barrier, which every thread reaches
     * only once done with this stage's products. */
    auto step = [&](int tile, G(&va)[OA::COUNT], G(&vb)[OB::COUNT], int buf) {
        OA::stage(as + buf * BM * PITCH, va, tid);
        OB::stage(bs + buf * BN * PITCH, vb, tid);
        __syncthreads();
        if (tile + DEPTH < tiles)
            fetch(tile + DEPTH, va, vb);
        compute(buf);
    };

    /* The register ring: stage tile + d in ra[d], rb[d] (indices fixed by
     * the unrolled loops: registers, not local memory). */
    G ra[DEPTH][OA::COUNT], rb[DEPTH][OB::COUNT];
#pragma unroll
    for (int d = 0; d < DEPTH; d++)
        if (d < tiles)
            fetch(d, ra[d], rb[d]);
    for (int tile = 0; tile < tiles; tile += DEPTH) {
#pragma unroll
        for (int d = 0; d < DEPTH; d++)
            if (tile + d < tiles)
                step(tile + d, ra[d], rb[d], (tile + d) % 2);
    }

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
                const long long at = (long long)row * p.ldc + col;
                float value = p.alpha * acc[i][j][r];
                if constexpr (KIND != MMA_TF32) {
                    if (p.narrow) { /* with beta = 0, C is not read */
                        uint16_t *const out = static_cast<uint16_t *>(p.c) + at;
                        if (p.beta != 0.0f)
                            value += p.beta * small_mma_widen<KIND>(*out);
                        *out = small_mma_narrow<KIND>(value);
                        continue;
                    }
                }
                float *const out = static_cast<float *>(p.c) + at;
                if (p.beta != 0.0f)
                    value += p.beta * *out;
                *out = value;
            }
#endif
}
/* warplab:end */

#endif
