/* Tensor cores through mma.sync (sm_80+): the Volta slide's D = A*B + C on
 * small tiles, issued by a warp. TF32: mma.m16n8k8 on float inputs rounded
 * to TF32 (cvt.rna) after they leave shared memory. BF16 and FP16:
 * mma.m16n8k16 on the 16-bit copies of A and B made in setup (one kernel,
 * the instruction's type alone differs). FP32 sums either way.
 *
 * A block computes 128 x 128 of C with 8 warps (2 x 4), each warp 64 x 32:
 * 4 x 4 tiles of m16 x n8. k advances in tiles of 32 through a 3-stage
 * cp.async ring (16-byte copies, zero-filled outside the matrices), one
 * barrier a tile, as in the FP32 pipeline. Shared tiles are row-major with
 * padding chosen so that a warp's fragment loads hit 32 distinct banks: A
 * as[m][k] (+4 floats / +8 bf16 a row); B bs[k][n] (TF32, +8 a row), or for
 * 16-bit operands the K-major B^T copy as bs[n][k] (+8), whose fragment pairs are
 * contiguous.
 *
 * Fragment layouts (PTX ISA, "Matrix Fragments for mma.m16n8k8 / k16"),
 * g = lane / 4, t = lane % 4:
 *   TF32 A: a0 (g, t), a1 (g+8, t), a2 (g, t+4), a3 (g+8, t+4);
 *        B: b0 (k=t, n=g), b1 (k=t+4, n=g).
 *   BF16 and FP16 (one layout for both types in the ISA's table):
 *        A: a0 (g, 2t..2t+1), a1 (g+8, 2t..), a2 (g, 2t+8..), a3 (g+8, 2t+8..);
 *        B: b0 (k=2t..2t+1, n=g), b1 (k=2t+8..2t+9, n=g) (low half: lower k).
 *   C: c0, c1 (g, 2t..2t+1), c2, c3 (g+8, 2t..2t+1). */
/* warplab:rung gemm tf32_mma bf16_mma fp16_mma */
#ifndef WARPLAB_GEMM_MMA_KERNEL_CUH
#define WARPLAB_GEMM_MMA_KERNEL_CUH

#include "gemm_device.cuh"

#ifndef WL_EMULATE
__device__ __forceinline__ void mma_tf32_m16n8k8(float d[4], const unsigned a[4],
                                                 const unsigned b[2])
{
#if WL_SM80_BODY
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, "
                 "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#endif
}

__device__ __forceinline__ void mma_bf16_m16n8k16(float d[4], const unsigned a[4],
                                                  const unsigned b[2])
{
#if WL_SM80_BODY
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, "
                 "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#endif
}

__device__ __forceinline__ void mma_f16_m16n8k16(float d[4], const unsigned a[4],
                                                 const unsigned b[2])
{
#if WL_SM80_BODY
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, "
                 "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#endif
}
#endif

/* What the kernel multiplies: FP32 words rounded to TF32, or 16-bit copies
 * (BF16 or FP16, the same tiles and fragments). */
enum { MMA_TF32 = 0, MMA_BF16 = 1, MMA_FP16 = 2 };

/* The two operand widths (4 bytes: TF32; 2 bytes: BF16 or FP16): element
 * type in memory, k per mma, shared padding. */
template <bool SIXTEEN_BIT> struct mma_precision;
template <> struct mma_precision<false> {
    typedef float element;
    static constexpr int K_STEP = 8;
    static constexpr int A_PAD = 4, B_PAD = 8;
    static constexpr int PER_CHUNK = 4; /* elements a 16-byte copy */
};
template <> struct mma_precision<true> {
    typedef uint16_t element; /* BF16 or FP16 bits */
    static constexpr int K_STEP = 16;
    static constexpr int A_PAD = 8, B_PAD = 8;
    static constexpr int PER_CHUNK = 8;
};

#define MMA_BM 128
#define MMA_BN 128
#define MMA_BK 32
#define MMA_STAGES 3
#define MMA_THREADS 256
#define MMA_WM 64
#define MMA_WN 32
#define MMA_MI (MMA_WM / 16)
#define MMA_NI (MMA_WN / 8)

/* Shared tiles: A as[m][k]; B as bs[k][n] (TF32: B itself) or bs[n][k]
 * (16-bit: the K-major copy of B transposed, same shape as A's tile). */
template <bool SIXTEEN_BIT> struct mma_tiles {
    typedef mma_precision<SIXTEEN_BIT> P;
    static constexpr int AS_STRIDE = MMA_BK + P::A_PAD;
    static constexpr int BS_STRIDE = SIXTEEN_BIT ? MMA_BK + P::A_PAD : MMA_BN + P::B_PAD;
    static constexpr int AS_STAGE = MMA_BM * AS_STRIDE;
    static constexpr int BS_STAGE = (SIXTEEN_BIT ? MMA_BN : MMA_BK) * BS_STRIDE;
    static constexpr size_t SMEM_BYTES =
        (size_t)MMA_STAGES * (AS_STAGE + BS_STAGE) * sizeof(typename P::element);
    static constexpr int A_CHUNKS = MMA_BM * MMA_BK / P::PER_CHUNK / MMA_THREADS;
    static constexpr int B_CHUNKS = MMA_BK * MMA_BN / P::PER_CHUNK / MMA_THREADS;
};

/* The operands as this kernel reads them: A (m x k, lda) and B (TF32: k x n
 * floats, ldb) or B^T (16-bit: n x k, ldb its row stride); C float. VEC: A's and B's rows are
 * 16-byte aligned (always so for the 16-bit copies), else 4-byte copies (TF32). */
struct mma_params {
    const void *a;
    const void *b;
    float *c;
    int m, n, k, lda, ldb, ldc;
    float alpha, beta;
};

template <int KIND, bool VEC> __global__ void __launch_bounds__(MMA_THREADS) gemm_mma(mma_params p)
{
    constexpr bool SIXTEEN_BIT = KIND != MMA_TF32; /* 16-bit operands: BF16 or FP16 */
    static_assert(VEC || !SIXTEEN_BIT, "the 16-bit copies are always 16-byte aligned");
#if WL_SM80_BODY
    typedef mma_precision<SIXTEEN_BIT> P;
    typedef mma_tiles<SIXTEEN_BIT> T;
    typedef typename P::element element;
    WL_DYNAMIC_SMEM(float4, smem4);
    element *const as = reinterpret_cast<element *>(smem4);
    element *const bs = as + MMA_STAGES * T::AS_STAGE;
    const element *const a = static_cast<const element *>(p.a);
    const element *const b = static_cast<const element *>(p.b);

    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    const int row0 = blockIdx.y * MMA_BM, col0 = blockIdx.x * MMA_BN;
    const int wm = (warp / (MMA_BN / MMA_WN)) * MMA_WM, wn = (warp % (MMA_BN / MMA_WN)) * MMA_WN;
    const int g = lane / 4, t = lane % 4;
    const int tiles = (p.k + MMA_BK - 1) / MMA_BK;

    /* One chunk of P::PER_CHUNK elements, `valid` of them inside. FP32
     * operands are the caller's matrices: cp_async_16_edge never lets a
     * 16-byte window leave them. The 16-bit operands are the rung's own copies,
     * rows padded to 16 bytes, so a partial 16-byte copy stays inside. */
    auto copy_chunk = [](element *dst, const element *src, int valid) {
        if (SIXTEEN_BIT)
            cp_async_16(reinterpret_cast<float *>(dst), reinterpret_cast<const float *>(src),
                        valid * (int)sizeof(element));
        else
            cp_async_16_edge(reinterpret_cast<float *>(dst), reinterpret_cast<const float *>(src),
                             valid);
    };
    /* Copies of one k tile: 16 bytes at a time (VEC), else element by
     * element; zeros outside the matrices. */
    auto load_tile = [&](int tile, int stage) {
        const int k0 = tile * MMA_BK;
        element *a_tile = as + stage * T::AS_STAGE;
        element *b_tile = bs + stage * T::BS_STAGE;
        if (VEC) {
#pragma unroll
            for (int l = 0; l < T::A_CHUNKS; l++) {
                const int chunk = tid + l * MMA_THREADS;
                const int r = chunk / (MMA_BK / P::PER_CHUNK);
                const int c = (chunk % (MMA_BK / P::PER_CHUNK)) * P::PER_CHUNK;
                const int left = p.k - (k0 + c);
                const int valid =
                    row0 + r < p.m && left > 0 ? (left < P::PER_CHUNK ? left : P::PER_CHUNK) : 0;
                const element *src = valid ? a + (size_t)(row0 + r) * p.lda + k0 + c : a;
                copy_chunk(a_tile + r * T::AS_STRIDE + c, src, valid);
            }
#pragma unroll
            for (int l = 0; l < T::B_CHUNKS; l++) {
                const int chunk = tid + l * MMA_THREADS;
                if (SIXTEEN_BIT) { /* rows of B^T: n, k along the row */
                    const int r = chunk / (MMA_BK / P::PER_CHUNK);
                    const int c = (chunk % (MMA_BK / P::PER_CHUNK)) * P::PER_CHUNK;
                    const int left = p.k - (k0 + c);
                    const int valid = col0 + r < p.n && left > 0
                                          ? (left < P::PER_CHUNK ? left : P::PER_CHUNK)
                                          : 0;
                    const element *src = valid ? b + (size_t)(col0 + r) * p.ldb + k0 + c : b;
                    copy_chunk(b_tile + r * T::BS_STRIDE + c, src, valid);
                } else { /* rows of B: k, n along the row */
                    const int r = chunk / (MMA_BN / P::PER_CHUNK);
                    const int c = (chunk % (MMA_BN / P::PER_CHUNK)) * P::PER_CHUNK;
                    const int left = p.n - (col0 + c);
                    const int valid =
                        k0 + r < p.k && left > 0 ? (left < P::PER_CHUNK ? left : P::PER_CHUNK) : 0;
                    const element *src = valid ? b + (size_t)(k0 + r) * p.ldb + col0 + c : b;
                    copy_chunk(b_tile + r * T::BS_STRIDE + c, src, valid);
                }
            }
        } else {
#pragma unroll 4
            for (int l = 0; l < MMA_BM * MMA_BK / MMA_THREADS; l++) {
                const int e = tid + l * MMA_THREADS;
                const int r = e / MMA_BK, c = e % MMA_BK;
                const bool ok = row0 + r < p.m && k0 + c < p.k;
                cp_async_4(reinterpret_cast<float *>(a_tile + r * T::AS_STRIDE + c),
                           reinterpret_cast<const float *>(
                               ok ? a + (size_t)(row0 + r) * p.lda + k0 + c : a),
                           ok);
            }
#pragma unroll 4
            for (int l = 0; l < MMA_BK * MMA_BN / MMA_THREADS; l++) {
                const int e = tid + l * MMA_THREADS;
                const int r = e / MMA_BN, c = e % MMA_BN;
                const bool ok = k0 + r < p.k && col0 + c < p.n;
                cp_async_4(reinterpret_cast<float *>(b_tile + r * T::BS_STRIDE + c),
                           reinterpret_cast<const float *>(
                               ok ? b + (size_t)(k0 + r) * p.ldb + col0 + c : b),
                           ok);
            }
        }
    };

    float acc[MMA_MI][MMA_NI][4];
#pragma unroll
    for (int i = 0; i < MMA_MI; i++)
#pragma unroll
        for (int j = 0; j < MMA_NI; j++)
#pragma unroll
            for (int r = 0; r < 4; r++)
                acc[i][j][r] = 0.0f;

#pragma unroll
    for (int s = 0; s < MMA_STAGES - 1; s++) {
        if (s < tiles)
            load_tile(s, s);
        cp_async_commit();
    }
    int stage = 0;
    for (int tile = 0; tile < tiles; tile++) {
        cp_async_wait<MMA_STAGES - 2>();
        __syncthreads();
        const int next = tile + MMA_STAGES - 1;
        if (next < tiles)
            load_tile(next, next % MMA_STAGES);
        cp_async_commit();
        const element *a_tile = as + stage * T::AS_STAGE + (wm + g) * T::AS_STRIDE;
        const element *b_tile = SIXTEEN_BIT ? bs + stage * T::BS_STAGE + (wn + g) * T::BS_STRIDE
                                            : bs + stage * T::BS_STAGE + wn + g;
#pragma unroll
        for (int ks = 0; ks < MMA_BK; ks += P::K_STEP) {
            unsigned af[MMA_MI][4], bf[MMA_NI][2];
            if (SIXTEEN_BIT) {
                const uint16_t *a16 = reinterpret_cast<const uint16_t *>(a_tile) + ks + 2 * t;
                const uint16_t *b16 = reinterpret_cast<const uint16_t *>(b_tile) + ks + 2 * t;
#pragma unroll
                for (int i = 0; i < MMA_MI; i++) {
                    const uint16_t *rowp = a16 + i * 16 * T::AS_STRIDE;
                    af[i][0] = *reinterpret_cast<const unsigned *>(rowp);
                    af[i][1] = *reinterpret_cast<const unsigned *>(rowp + 8 * T::AS_STRIDE);
                    af[i][2] = *reinterpret_cast<const unsigned *>(rowp + 8);
                    af[i][3] = *reinterpret_cast<const unsigned *>(rowp + 8 * T::AS_STRIDE + 8);
                }
#pragma unroll
                for (int j = 0; j < MMA_NI; j++) {
                    const uint16_t *colp = b16 + j * 8 * T::BS_STRIDE; /* row n of B^T */
                    bf[j][0] = *reinterpret_cast<const unsigned *>(colp);
                    bf[j][1] = *reinterpret_cast<const unsigned *>(colp + 8);
                }
#pragma unroll
                for (int i = 0; i < MMA_MI; i++)
#pragma unroll
                    for (int j = 0; j < MMA_NI; j++)
                        if (KIND == MMA_FP16)
                            mma_f16_m16n8k16(acc[i][j], af[i], bf[j]);
                        else
                            mma_bf16_m16n8k16(acc[i][j], af[i], bf[j]);
            } else {
                const float *a32 = reinterpret_cast<const float *>(a_tile) + ks + t;
                const float *b32 =
                    reinterpret_cast<const float *>(b_tile) + (ks + t) * T::BS_STRIDE;
#pragma unroll
                for (int i = 0; i < MMA_MI; i++) {
                    const float *rowp = a32 + i * 16 * T::AS_STRIDE;
                    af[i][0] = to_tf32(rowp[0]);
                    af[i][1] = to_tf32(rowp[8 * T::AS_STRIDE]);
                    af[i][2] = to_tf32(rowp[4]);
                    af[i][3] = to_tf32(rowp[8 * T::AS_STRIDE + 4]);
                }
#pragma unroll
                for (int j = 0; j < MMA_NI; j++) {
                    bf[j][0] = to_tf32(b32[j * 8]);
                    bf[j][1] = to_tf32(b32[4 * T::BS_STRIDE + j * 8]);
                }
#pragma unroll
                for (int i = 0; i < MMA_MI; i++)
#pragma unroll
                    for (int j = 0; j < MMA_NI; j++)
                        mma_tf32_m16n8k8(acc[i][j], af[i], bf[j]);
            }
        }
        stage = stage + 1 == MMA_STAGES ? 0 : stage + 1;
    }
    cp_async_wait<0>();

#pragma unroll
    for (int i = 0; i < MMA_MI; i++)
#pragma unroll
        for (int j = 0; j < MMA_NI; j++)
#pragma unroll
            for (int r = 0; r < 4; r++) {
                const int row = row0 + wm + i * 16 + g + (r / 2) * 8;
                const int col = col0 + wn + j * 8 + 2 * t + r % 2;
                if (row < p.m && col < p.n) {
                    float *c = p.c + (size_t)row * p.ldc + col;
                    *c = gemm_epilogue(acc[i][j][r], c, p.alpha, p.beta);
                }
            }
#endif
}

#endif
/* warplab:end */
