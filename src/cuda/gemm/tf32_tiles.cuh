/* TF32 tensor cores (mma.sync.m16n8k8) on the caller's row-major float A
 * and B in either op, small tiles, deterministic split-K: the kernel of
 * warplab_gemm_ex's TF32 path where the TMA + wgmma kernel has too few
 * 128 x 256 tiles or would first have to copy an operand K-major.
 *
 * Over tf32_mma (128 x 128, op N, N, one k range): the shared tile of each
 * operand keeps the layout it has in memory, so no operand is copied or
 * transposed: op(A) = A is held as[m][k] (k contiguous, +8 pad), op(A) =
 * A^T as[k][m] (+4 pad); op(B) = B as bs[k][n] (+4), op(B) = B^T as
 * bs[n][k] (+8). Each thread's two k slots of an mma step take adjacent k
 * (tf32_fragment_pair), so a k-contiguous tile gives both in one 8-byte
 * load, and with those pads every fragment load of a warp is free of bank
 * conflicts in all four layouts. The words go to the tensor cores as
 * stored (the TF32 mma reads their top 19 bits: truncation, as the TMA +
 * wgmma path), which leaves the inner loop loads and mma alone (rounding
 * each fragment with cvt.rna cost as many instructions as the loads).
 * Tiles of 64 x 64, 128 x 64 and 128 x 128 (warps of 32 x 32 or 64 x 32),
 * BK = 32 through a 3-stage cp.async ring, 16-byte copies where the rows
 * are 16-byte aligned (cp_async_16_edge: no window leaves the matrix), else
 * 4-byte copies. blockIdx.z takes one chunk of k; with several chunks each
 * block writes its partial tile to the workspace, which a second kernel
 * adds in chunk order (deterministic)
 * before alpha and beta. */
/* warplab:rung gemm tf32_tile_64x64 tf32_tile_128x64 tf32_tile_128x128 tf32_tiles */
#ifndef WARPLAB_GEMM_TF32_TILES_CUH
#define WARPLAB_GEMM_TF32_TILES_CUH

#include "../../kernels/gemm_tiles_tf32.h"
#include "mma_kernel.cuh"

/* TF32T_BK: gemm_tiles_tf32.h. */
#define TF32T_STAGES 3

struct tf32_tiles_params {
    const float *a, *b;
    float *c;
    float *part; /* splits > 1: splits x m x n partial sums */
    int m, n, k, lda, ldb, ldc;
    int k_chunk; /* multiple of TF32T_BK */
    float alpha, beta;
    bool a_vec, b_vec; /* rows 16-byte aligned: 16-byte copies */
};

/* The shared layout of one operand tile: MN rows (of m or n) by BK, stored
 * either k-contiguous ([mn][k], KC) or mn-contiguous ([k][mn]). */
template <int MN, bool KC_> struct tf32_operand_tile {
    static constexpr bool KC = KC_;
    static constexpr int STRIDE = KC ? TF32T_BK + 8 : MN + 4;
    static constexpr int ELEMENTS = KC ? MN * STRIDE : TF32T_BK * STRIDE;
    static __device__ __forceinline__ int at(int mn, int q)
    {
        return KC ? mn * STRIDE + q : q * STRIDE + mn;
    }
};

template <int BM, int BN, int WM, int WN> struct tf32_tiles_shape {
    static constexpr int THREADS = (BM / WM) * (BN / WN) * 32;
    static constexpr int MI = WM / 16, NI = WN / 8;
    /* The blocks an SM holds at 128 registers a thread (the tiles'
     * `resident` in gemm_tiles_tf32.c): the launch bound keeps them. */
    static constexpr int MIN_BLOCKS = 65536 / (THREADS * 128);
};

template <int BM, int BN, int WM, int WN, bool TA, bool TB> struct tf32_tiles_layout {
    typedef tf32_operand_tile<BM, !TA> A;
    typedef tf32_operand_tile<BN, TB> B;
    static constexpr size_t SMEM_BYTES =
        (size_t)TF32T_STAGES * (A::ELEMENTS + B::ELEMENTS) * sizeof(float);
};

/* The two operand values a thread gives one mma for k slots t and t + 4.
 * The sum over k does not care which k sits in which slot as long as A and
 * B agree, so slot t takes k = 2t and slot t + 4 takes k = 2t + 1 of the
 * 8-wide step: adjacent in a k-contiguous tile (one 8-byte load), and with
 * the pads above conflict-free in both layouts. The words go to the tensor
 * cores as they are: the TF32 mma reads the top 19 bits (truncation). */
template <class L>
__device__ __forceinline__ void tf32_fragment_pair(const float *tile, int mn, int q, unsigned &lo,
                                                   unsigned &hi)
{
    if (L::KC) {
        const float2 v = *reinterpret_cast<const float2 *>(tile + L::at(mn, q));
        lo = __float_as_uint(v.x);
        hi = __float_as_uint(v.y);
    } else {
        lo = __float_as_uint(tile[L::at(mn, q)]);
        hi = __float_as_uint(tile[L::at(mn, q + 1)]);
    }
}

/* One operand's k tile (k0 .. k0 + BK) into shared memory. The operand is
 * stored row-major with leading dimension ld; KC: its rows run along k
 * (rows = mn, columns = k), else along mn (rows = k, columns = mn). mn0 and
 * mn_extent bound the mn side, k_end the k side (the chunk's end). vec:
 * rows 16-byte aligned, 16-byte copies, four floats a thread a copy
 * (cp_async_16_edge: zeros past the edge, no window leaves the matrix). Else
 * 4-byte copies, element by element, and neighbouring lanes take
 * neighbouring floats of a row: a warp's copy reads 128 contiguous bytes
 * (one or two lines), where four floats a lane (lanes 16 bytes apart)
 * spread each of the four copies over four lines and sent 16 line
 * accesses for every 512 bytes (the element path of mma_kernel.cuh's
 * load_tile reads the same way). */
template <int MN, bool KC, int THREADS>
__device__ __forceinline__ void tf32_load_operand(float *tile, const float *x, int ld, int mn0,
                                                  int mn_extent, int k0, int k_end, bool vec)
{
    typedef tf32_operand_tile<MN, KC> L;
    constexpr int ROW_LEN = KC ? TF32T_BK : MN; /* stored elements a tile row */
    constexpr int ROWS = KC ? MN : TF32T_BK;
    constexpr int CHUNKS = ROWS * ROW_LEN / 4;
    static_assert(CHUNKS % THREADS == 0, "whole chunks a thread");
    const int row_end = KC ? mn_extent : k_end, col_end = KC ? k_end : mn_extent;
    const int row_base = KC ? mn0 : k0, col_base = KC ? k0 : mn0;
    if (vec) {
#pragma unroll
        for (int l = 0; l < CHUNKS / THREADS; l++) {
            const int chunk = threadIdx.x + l * THREADS;
            const int r = chunk / (ROW_LEN / 4), c = (chunk % (ROW_LEN / 4)) * 4;
            /* Stored row index and column index of the first element. */
            const int row = row_base + r, col = col_base + c;
            const int left = col_end - col;
            const int valid = row < row_end && left > 0 ? (left < 4 ? left : 4) : 0;
            const float *src = valid ? x + (size_t)row * ld + col : x;
            cp_async_16_edge(tile + r * L::STRIDE + c, src, valid);
        }
        return;
    }
    /* A thread's column stays; its row steps by THREADS / ROW_LEN (one
     * pointer, so that the copies' addresses are not all kept live). */
    static_assert(THREADS % ROW_LEN == 0, "whole rows a round of threads");
    constexpr int ROW_STEP = THREADS / ROW_LEN;
    const int c = threadIdx.x % ROW_LEN, col = col_base + c;
    int r = threadIdx.x / ROW_LEN;
    const float *src = x + (size_t)(row_base + r) * ld + col;
#pragma unroll 2
    for (int l = 0; l < ROWS / ROW_STEP; l++, r += ROW_STEP, src += (size_t)ROW_STEP * ld) {
        const bool ok = row_base + r < row_end && col < col_end;
        cp_async_4(tile + r * L::STRIDE + c, ok ? src : x, ok);
    }
}

template <int BM, int BN, int WM, int WN, bool TA, bool TB>
__global__ void __launch_bounds__(tf32_tiles_shape<BM, BN, WM, WN>::THREADS,
                                  tf32_tiles_shape<BM, BN, WM, WN>::MIN_BLOCKS)
    gemm_tf32_tiles(tf32_tiles_params p)
{
#if WL_SM80_BODY
    if (gridDim.z > 1) /* split: wl_splitk_finish follows */
        wl_pdl_release();
    typedef tf32_tiles_shape<BM, BN, WM, WN> S;
    typedef tf32_tiles_layout<BM, BN, WM, WN, TA, TB> L;
    typedef typename L::A LA;
    typedef typename L::B LB;
    constexpr int THREADS = S::THREADS;
    WL_DYNAMIC_SMEM(float4, smem4);
    float *const as = reinterpret_cast<float *>(smem4);
    float *const bs = as + TF32T_STAGES * LA::ELEMENTS;

    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    const int wm = (warp / (BN / WN)) * WM, wn = (warp % (BN / WN)) * WN;
    const int g = lane / 4, t = lane % 4;
    const int k_begin = blockIdx.z * p.k_chunk;
    const int k_end = p.k - k_begin < p.k_chunk ? p.k : k_begin + p.k_chunk;
    const int tiles = (k_end - k_begin + TF32T_BK - 1) / TF32T_BK;

    auto load_tile = [&](int tile, int stage) {
        const int k0 = k_begin + tile * TF32T_BK;
        tf32_load_operand<BM, !TA, THREADS>(as + stage * LA::ELEMENTS, p.a, p.lda, row0, p.m, k0,
                                            k_end, p.a_vec);
        tf32_load_operand<BN, TB, THREADS>(bs + stage * LB::ELEMENTS, p.b, p.ldb, col0, p.n, k0,
                                           k_end, p.b_vec);
    };

    float acc[S::MI][S::NI][4];
#pragma unroll
    for (int i = 0; i < S::MI; i++)
#pragma unroll
        for (int j = 0; j < S::NI; j++)
#pragma unroll
            for (int r = 0; r < 4; r++)
                acc[i][j][r] = 0.0f;

#pragma unroll
    for (int s = 0; s < TF32T_STAGES - 1; s++) {
        if (s < tiles)
            load_tile(s, s);
        cp_async_commit();
    }
    int stage = 0;
    for (int tile = 0; tile < tiles; tile++) {
        cp_async_wait<TF32T_STAGES - 2>();
        __syncthreads();
        const int next = tile + TF32T_STAGES - 1;
        if (next < tiles)
            load_tile(next, next % TF32T_STAGES);
        cp_async_commit();
        const float *a_tile = as + stage * LA::ELEMENTS;
        const float *b_tile = bs + stage * LB::ELEMENTS;
#pragma unroll
        for (int ks = 0; ks < TF32T_BK; ks += 8) {
            unsigned af[S::MI][4], bf[S::NI][2];
#pragma unroll
            for (int i = 0; i < S::MI; i++) {
                const int r = wm + i * 16 + g;
                tf32_fragment_pair<LA>(a_tile, r, ks + 2 * t, af[i][0], af[i][2]);
                tf32_fragment_pair<LA>(a_tile, r + 8, ks + 2 * t, af[i][1], af[i][3]);
            }
#pragma unroll
            for (int j = 0; j < S::NI; j++)
                tf32_fragment_pair<LB>(b_tile, wn + j * 8 + g, ks + 2 * t, bf[j][0], bf[j][1]);
#pragma unroll
            for (int i = 0; i < S::MI; i++)
#pragma unroll
                for (int j = 0; j < S::NI; j++)
                    mma_tf32_m16n8k8(acc[i][j], af[i], bf[j]);
        }
        stage = stage + 1 == TF32T_STAGES ? 0 : stage + 1;
    }
    cp_async_wait<0>();

    /* One chunk: the epilogue. Several: this chunk's partial tile. */
    const bool partial = gridDim.z > 1;
    float *const part = p.part + (size_t)blockIdx.z * p.m * p.n;
#pragma unroll
    for (int i = 0; i < S::MI; i++)
#pragma unroll
        for (int j = 0; j < S::NI; j++)
#pragma unroll
            for (int r = 0; r < 4; r++) {
                const int row = row0 + wm + i * 16 + g + (r / 2) * 8;
                const int col = col0 + wn + j * 8 + 2 * t + r % 2;
                if (row < p.m && col < p.n) {
                    if (partial) {
                        part[(size_t)row * p.n + col] = acc[i][j][r];
                    } else {
                        float *c = p.c + (size_t)row * p.ldc + col;
                        *c = gemm_epilogue(acc[i][j][r], c, p.alpha, p.beta);
                    }
                }
            }
#endif
}

#endif
/* warplab:end */
