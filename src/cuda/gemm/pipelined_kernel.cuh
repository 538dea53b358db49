/* The pipelined FP32 kernel behind double_buffered, warptile and the tuned
 * sm_90 shapes: one template, configured by a tile shape.
 *
 * A block computes a BM x BN tile of C with THREADS threads, in groups of
 * LANES threads (a warp, or the whole block) that each own a WM x WN piece.
 * A thread owns TM x TN outputs as (TM/4) x (TN/4) blocks of 4 x 4, LM*4 rows
 * and LN*4 columns apart across its group's piece: a group's 16-byte shared
 * reads are then LM (A) and LN (B) consecutive float4s, broadcast across the
 * lanes that share them, with no bank hit twice.
 *
 * k advances in tiles of BK through a ring of STAGES shared buffers filled
 * by cp.async (global -> shared, no registers in between): while the block
 * computes tile t, tiles t+1 .. t+STAGES-1 are in flight. One barrier per
 * tile: at the top of iteration t every copy of tile t has landed and every
 * thread has finished tile t-1, whose buffer the copy issued next reuses.
 *
 * Shared memory holds both operands k-major: as[k][m], padded by 4 floats a
 * row, and bs[k][n]. An operand whose stored rows run along k (A of op N,
 * B of op T) is copied transposed, 4 bytes at a time (cp.async cannot
 * transpose 16 bytes): 32 consecutive threads copy 8 k by 4 rows, 32-byte
 * pieces of global rows into 32 distinct banks (bs is then padded by 4
 * floats a row too). An operand whose stored rows run along m or n (B of
 * op N, A of op T) is copied row by row, 16 bytes at a time when its rows
 * are 16-byte aligned (VEC for B, A_VEC for A), with 4-byte copies and zeros at the right edge
 * (cp_async_16_edge: no 16-byte window ever leaves the operand); else 4
 * bytes at a time. So every layout (TA, TB: op T) is read in place, with
 * no copy of an operand before the kernel. Out of bounds, cp.async writes
 * zeros without reading. The N, N mapping mirrors generic_tiled in gemm.cl. */
/* warplab:rung gemm double_buffered warptile tuned tuned_128x128 tuned_256x128 frag_128x256
 * frag_128x128 frag_128x128_w64 frag_128x128_k8 frag_256x128 frag_256x128_s6 tail_128x128
 * tail_256x128 */
#ifndef WARPLAB_GEMM_PIPELINED_KERNEL_CUH
#define WARPLAB_GEMM_PIPELINED_KERNEL_CUH

#include "gemm_device.cuh"

template <int BM_, int BN_, int BK_, int WM_, int WN_, int TM_, int TN_, int STAGES_,
          int MIN_BLOCKS_, int GROUP_M_, bool FRAGMENTS_ = false>
struct tile_shape {
    static constexpr int BM = BM_, BN = BN_, BK = BK_, WM = WM_, WN = WN_, TM = TM_, TN = TN_;
    static constexpr int STAGES = STAGES_;
    /* Resident blocks per SM the register budget must allow. */
    static constexpr int MIN_BLOCKS = MIN_BLOCKS_;
    /* Tiles of C are visited in bands of GROUP_M tile rows, column by column
     * inside a band (0: row by row): consecutive blocks then share B's
     * columns and A's rows in L2. */
    static constexpr int GROUP_M = GROUP_M_;
    /* The main loop (see gemm_pipelined): false, the plain one; true,
     * fragments in two register sets, the barrier one k step early and the
     * copies spread over the tile. */
    static constexpr bool FRAGMENTS = FRAGMENTS_;
    static constexpr int LM = WM / TM, LN = WN / TN, LANES = LM * LN;
    static constexpr int THREADS = (BM / WM) * (BN / WN) * LANES;
    static constexpr int AS_STRIDE = BM + 4;
    static constexpr int AS_STAGE = BK * AS_STRIDE, BS_STAGE = BK * BN;
    static constexpr int A_PER_THREAD = BM * BK / THREADS;
    static constexpr int A_ROW_STEP = THREADS / BK;
    static constexpr int B_VEC_PER_THREAD = BK * BN / 4 / THREADS;
    static constexpr int B_VEC_ROW_STEP = 4 * THREADS / BN;
    static constexpr int B_PER_THREAD = BK * BN / THREADS;
    static constexpr int B_ROW_STEP = THREADS / BN;
    static constexpr size_t SMEM_BYTES = (size_t)STAGES * (AS_STAGE + BS_STAGE) * sizeof(float);
    /* B of op T (copied transposed): bs rows padded by 4 floats, as as's. */
    static constexpr int bs_stride(bool transposed_b) { return transposed_b ? BN + 4 : BN; }
    static constexpr size_t smem_bytes(bool transposed_b)
    {
        return (size_t)STAGES * (AS_STAGE + BK * bs_stride(transposed_b)) * sizeof(float);
    }
    /* Unaligned C can go out through shared memory: BM x (BN + 1) floats
     * in the stages' space. The small tiles (the few-tile kernels, whose
     * epilogue no other block's work hides) take that path whenever C is
     * unaligned. A large tile keeps it out of the kernel that aligned C
     * runs: with the path in it, frag_256x128_s6 (255 registers, no spills
     * either way) ran aligned 4096^3 8% slower on the H100 (2.93 -> 3.18
     * ms). C_STAGED_VARIANT: a staged kernel of its own, launched where C is
     * unaligned (gemm_stage_c), for a large tile alone on its SM
     * (frag_256x128_s6: 1999x777x555 101 -> 88 us). frag_128x128 has two
     * blocks an SM, one computing while the other stores, and its staged
     * variant ran no faster (4097x4095x1025: 860 -> 870 us). */
    static constexpr bool C_STAGE_FITS = BM * (BN + 1) <= STAGES * (AS_STAGE + BS_STAGE);
    static constexpr bool C_STAGED = C_STAGE_FITS && BM * BN <= 64 * 128;
    static constexpr bool C_STAGED_VARIANT = C_STAGE_FITS && !C_STAGED && MIN_BLOCKS == 1;

    static_assert(TM % 4 == 0 && TN % 4 == 0, "4 x 4 blocks");
    static_assert(WM % TM == 0 && WN % TN == 0 && BM % WM == 0 && BN % WN == 0, "tiling");
    static_assert(LANES == 32 || (WM == BM && WN == BN), "a group is a warp or the block");
    static_assert(BK % 8 == 0 && THREADS % 32 == 0, "A copies: 8 k x 4 rows per warp");
    static_assert((THREADS / 32) % (BK / 8) == 0 && BM % A_ROW_STEP == 0, "A copy rows");
    static_assert((4 * THREADS) % BN == 0 && BK % B_VEC_ROW_STEP == 0, "B copies (16 B)");
    static_assert(THREADS % BN == 0 && BK % B_ROW_STEP == 0, "B copies (4 B)");
    static_assert(STAGES >= 2, "a pipeline");
};

/* One operand's row copies into a stage: the operand stored with rows along
 * the tile's k (B of op N: k x n; A of op T: k x m), EXT of the tile's
 * columns (n or m) a row. A thread copies rows row + l * STEP of the tile's
 * k, columns col (.. + 3 with VEC: 16-byte copies, 4-byte ones and zeros at
 * the right edge); offsets in unsigned arithmetic (a row past k wraps
 * harmlessly: its copy reads nothing). */
template <class T, int EXT, bool VEC> struct pipelined_row_copies {
    static constexpr int COPIES = VEC ? T::BK * EXT / 4 / T::THREADS : T::BK * EXT / T::THREADS;
    static constexpr int STEP = VEC ? 4 * T::THREADS / EXT : T::THREADS / EXT;
    static_assert(VEC ? (4 * T::THREADS) % EXT == 0 && T::BK % STEP == 0
                      : T::THREADS % EXT == 0 && T::BK % STEP == 0,
                  "row copies cover the tile");
    int row, col, cols_valid, ld;
    unsigned offset0;
    /* extent: the tile's columns inside the operand; first: its first column. */
    __device__ __forceinline__ pipelined_row_copies(int tid, int extent, int first, int ld_)
    {
        col = VEC ? (tid % (EXT / 4)) * 4 : tid % EXT;
        row = VEC ? tid / (EXT / 4) : tid / EXT;
        cols_valid = extent - col < 4 ? extent - col : 4;
        ld = ld_;
        offset0 = (unsigned)row * (unsigned)ld + (unsigned)(first + col);
    }
    /* Rows k0 .. k0 + BK - 1 of x into stage (row pitch floats apart). */
    __device__ __forceinline__ void copy(const float *x, float *stage, int pitch, int k0,
                                         int k) const
    {
        const unsigned offset = offset0 + (unsigned)k0 * (unsigned)ld;
        float *dst = stage + row * pitch + col;
#pragma unroll
        for (int l = 0; l < COPIES; l++) {
            const bool ok = k0 + row + l * STEP < k && cols_valid > 0;
            const float *src = ok ? x + (offset + (unsigned)l * (unsigned)STEP * (unsigned)ld) : x;
            if (VEC)
                cp_async_16_edge(dst + l * STEP * pitch, src, ok ? cols_valid : 0);
            else
                cp_async_4(dst + l * STEP * pitch, src, ok);
        }
    }
};

/* One block's tile (block-th in the 1-D tile order of gemm_tile_of_block):
 * the body of gemm_pipelined and gemm_pipelined_split. TILE_OUT: p.c is the
 * tile's own BM x BN piece of a workspace (rows p.ldc apart) instead of C.
 * TA: A stored k x m (op T, lda >= m); TB: B stored n x k (op T, ldb >= k).
 * VEC: B of op N has 16-byte aligned rows (copied 16 bytes at a time);
 * A_VEC: A of op T does. */
template <class T, bool VEC, bool TILE_OUT = false, bool STAGE_C = T::C_STAGED, bool TA = false,
          bool TB = false, bool A_VEC = false>
__device__ __forceinline__ void gemm_pipelined_tile(const gemm_params &p, int block)
{
    static_assert(!STAGE_C || T::C_STAGE_FITS, "the staged C tile fits in the stages");
    static_assert(!TB || T::BN % (T::THREADS / T::BK) == 0, "B (op T) transposed copies");
#if WL_SM80_BODY
    constexpr int BS_STRIDE = TB ? T::BN + 4 : T::BN, BS_STAGE = T::BK * BS_STRIDE; /* bs_stride */
    WL_DYNAMIC_SMEM(float4, smem4);
    float *const as = reinterpret_cast<float *>(smem4); /* [STAGES][BK][BM + 4] */
    float *const bs = as + T::STAGES * T::AS_STAGE;     /* [STAGES][BK][BS_STRIDE] */

    const int tiles_m = (p.m + T::BM - 1) / T::BM, tiles_n = (p.n + T::BN - 1) / T::BN;
    int tile_m, tile_n;
    gemm_tile_of_block(block, tiles_m, tiles_n, T::GROUP_M, &tile_m, &tile_n);
    const int row0 = tile_m * T::BM, col0 = tile_n * T::BN;
    const int tid = threadIdx.x;
    const int group = tid / T::LANES, lane = tid % T::LANES;
    const int gm = group / (T::BN / T::WN), gn = group % (T::BN / T::WN);
    const int lm = lane / T::LN, ln = lane % T::LN;

    /* The transposed copies (A of op N, B of op T): this thread copies k
     * column t_kk of the tile, of rows (of A) or columns (of B) t_row + l *
     * (THREADS / BK); those past m (n) are clamped to the last (their
     * copies read nothing, but the address stays inside the operand). */
    const int t_kk = ((tid / 32) % (T::BK / 8)) * 8 + tid % 8;
    const int t_row = ((tid / 32) / (T::BK / 8)) * 4 + (tid / 8) % 4;
    constexpr int T_STEP = T::THREADS / T::BK;
    constexpr int A_T_COPIES = TA ? 1 : T::BM / T_STEP;
    constexpr int B_T_COPIES = TB ? T::BN / T_STEP : 1;
    int a_offset[A_T_COPIES];
    unsigned a_rows_ok = 0;
    if (!TA) {
#pragma unroll
        for (int l = 0; l < A_T_COPIES; l++) {
            const int row = row0 + t_row + l * T_STEP;
            a_rows_ok |= (row < p.m ? 1u : 0u) << l;
            a_offset[l] = (row < p.m ? row : p.m - 1) * p.lda;
        }
    }
    int b_offset_t[B_T_COPIES];
    unsigned b_cols_ok = 0;
    if (TB) {
#pragma unroll
        for (int l = 0; l < B_T_COPIES; l++) {
            const int col = col0 + t_row + l * T_STEP;
            b_cols_ok |= (col < p.n ? 1u : 0u) << l;
            b_offset_t[l] = (col < p.n ? col : p.n - 1) * p.ldb;
        }
    }
    /* The row copies (B of op N, A of op T). */
    const pipelined_row_copies<T, T::BM, A_VEC> a_rows(tid, p.m - row0, row0, p.lda);
    const pipelined_row_copies<T, T::BN, VEC> b_rows(tid, p.n - col0, col0, p.ldb);

    const int tiles = (p.k + T::BK - 1) / T::BK;
    auto load_tile = [&](int t, int stage) {
        const int k0 = t * T::BK;
        /* Past k the column is clamped too: every address stays inside. */
        const bool t_k_ok = k0 + t_kk < p.k;
        const int t_col = t_k_ok ? k0 + t_kk : p.k - 1;
        if (TA) {
            a_rows.copy(p.a, as + stage * T::AS_STAGE, T::AS_STRIDE, k0, p.k);
        } else {
            float *a_dst = as + stage * T::AS_STAGE + t_kk * T::AS_STRIDE + t_row;
#pragma unroll
            for (int l = 0; l < A_T_COPIES; l++) {
                const bool ok = t_k_ok && ((a_rows_ok >> l) & 1u);
                cp_async_4(a_dst + l * T_STEP, p.a + (a_offset[l] + t_col), ok);
            }
        }
        if (TB) {
            float *b_dst = bs + stage * BS_STAGE + t_kk * BS_STRIDE + t_row;
#pragma unroll
            for (int l = 0; l < B_T_COPIES; l++) {
                const bool ok = t_k_ok && ((b_cols_ok >> l) & 1u);
                cp_async_4(b_dst + l * T_STEP, p.b + (b_offset_t[l] + t_col), ok);
            }
        } else {
            b_rows.copy(p.b, bs + stage * BS_STAGE, BS_STRIDE, k0, p.k);
        }
    };

    float acc[T::TM][T::TN];
#pragma unroll
    for (int i = 0; i < T::TM; i++)
#pragma unroll
        for (int j = 0; j < T::TN; j++)
            acc[i][j] = 0.0f;

            /* Prologue: the first STAGES-1 tiles in flight, one commit group each
             * (empty past the last tile, so the group count stays uniform). */
#pragma unroll
    for (int s = 0; s < T::STAGES - 1; s++) {
        if (s < tiles)
            load_tile(s, s);
        cp_async_commit();
    }
    const float *a_read = as + gm * T::WM + lm * 4;
    const float *b_read = bs + gn * T::WN + ln * 4;
    /* This thread's A and B fragments of k step d of a tile. */
    auto load_fragments = [&](float(&am)[T::TM], float(&bn)[T::TN], const float *a_tile,
                              const float *b_tile, int d) {
#pragma unroll
        for (int u = 0; u < T::TM / 4; u++) {
            const float4 x =
                *reinterpret_cast<const float4 *>(a_tile + d * T::AS_STRIDE + u * T::LM * 4);
            am[u * 4 + 0] = x.x, am[u * 4 + 1] = x.y, am[u * 4 + 2] = x.z, am[u * 4 + 3] = x.w;
        }
#pragma unroll
        for (int u = 0; u < T::TN / 4; u++) {
            const float4 y =
                *reinterpret_cast<const float4 *>(b_tile + d * BS_STRIDE + u * T::LN * 4);
            bn[u * 4 + 0] = y.x, bn[u * 4 + 1] = y.y, bn[u * 4 + 2] = y.z, bn[u * 4 + 3] = y.w;
        }
    };
    auto multiply = [&](const float(&am)[T::TM], const float(&bn)[T::TN]) {
#pragma unroll
        for (int i = 0; i < T::TM; i++)
#pragma unroll
            for (int j = 0; j < T::TN; j++)
                acc[i][j] = fmaf(am[i], bn[j], acc[i][j]);
    };
    if (!T::FRAGMENTS) {
        int stage = 0;
        for (int t = 0; t < tiles; t++) {
            cp_async_wait<T::STAGES - 2>(); /* this thread's copies of tile t have landed */
            __syncthreads();                /* everyone's have; everyone is done with t-1 */
            const int next = t + T::STAGES - 1;
            if (next < tiles)
                load_tile(next, next % T::STAGES);
            cp_async_commit();
            const float *a_tile = a_read + stage * T::AS_STAGE;
            const float *b_tile = b_read + stage * BS_STAGE;
#pragma unroll
            for (int d = 0; d < T::BK; d++) {
                float am[T::TM], bn[T::TN];
#pragma unroll
                for (int u = 0; u < T::TM / 4; u++) {
                    const float4 x = *reinterpret_cast<const float4 *>(a_tile + d * T::AS_STRIDE +
                                                                       u * T::LM * 4);
                    am[u * 4 + 0] = x.x, am[u * 4 + 1] = x.y, am[u * 4 + 2] = x.z,
                               am[u * 4 + 3] = x.w;
                }
#pragma unroll
                for (int u = 0; u < T::TN / 4; u++) {
                    const float4 y =
                        *reinterpret_cast<const float4 *>(b_tile + d * BS_STRIDE + u * T::LN * 4);
                    bn[u * 4 + 0] = y.x, bn[u * 4 + 1] = y.y, bn[u * 4 + 2] = y.z,
                               bn[u * 4 + 3] = y.w;
                }
#pragma unroll
                for (int i = 0; i < T::TM; i++)
#pragma unroll
                    for (int j = 0; j < T::TN; j++)
                        acc[i][j] = fmaf(am[i], bn[j], acc[i][j]);
            }
            stage = stage + 1 == T::STAGES ? 0 : stage + 1;
        }
    } else {
        /* FRAGMENTS (over the plain loop): the barrier moves before a tile's
         * last k step. By then every thread holds that step's fragments, so
         * the whole tile's stage is free: the copies issued after the barrier
         * refill it (STAGES tiles in flight, one more than the plain loop
         * with the same shared memory), and the first fragments of tile t+1
         * load while tile t's last FMAs run. The copies' address arithmetic
         * and the shared-memory latency at a tile boundary now hide behind
         * those FMAs instead of stalling every warp after the barrier.
         *
         * The prologue fills all STAGES stages. The wait in iteration t
         * counts STAGES + t groups: leaving STAGES-2 in flight means tile
         * t+1 has landed. */
        if (T::STAGES - 1 < tiles)
            load_tile(T::STAGES - 1, T::STAGES - 1);
        cp_async_commit();
        float am[T::TM], bn[T::TN];
        cp_async_wait<T::STAGES - 1>(); /* tile 0 */
        __syncthreads();
        if (tiles > 0)
            load_fragments(am, bn, a_read, b_read, 0);
        int stage = 0;
        for (int t = 0; t < tiles; t++) {
            const float *a_tile = a_read + stage * T::AS_STAGE;
            const float *b_tile = b_read + stage * BS_STAGE;
#pragma unroll
            for (int d = 0; d < T::BK - 1; d++) {
                multiply(am, bn);
                load_fragments(am, bn, a_tile, b_tile, d + 1);
            }
            cp_async_wait<T::STAGES - 2>(); /* this thread's copies of tile t+1 */
            __syncthreads();                /* everyone's; everyone has read tile t */
            const int next = t + T::STAGES;
            if (next < tiles)
                load_tile(next, stage);
            cp_async_commit();
            float am_last[T::TM], bn_last[T::TN];
#pragma unroll
            for (int i = 0; i < T::TM; i++)
                am_last[i] = am[i];
#pragma unroll
            for (int j = 0; j < T::TN; j++)
                bn_last[j] = bn[j];
            stage = stage + 1 == T::STAGES ? 0 : stage + 1;
            if (t + 1 < tiles)
                load_fragments(am, bn, a_read + stage * T::AS_STAGE, b_read + stage * BS_STAGE, 0);
            multiply(am_last, bn_last);
        }
    }
    cp_async_wait<0>(); /* nothing may be left in flight at exit */

    /* Epilogue: 4 consecutive columns at a time, one 16-byte access when C's
     * rows are 16-byte aligned and all four are inside. */
    const bool c_vec = ((uintptr_t)p.c % 16 == 0) && (p.ldc % 4 == 0);
    if (STAGE_C && !c_vec) {
        /* C's rows not 16-byte aligned (odd n): the tile goes through shared
         * memory, and each warp then stores whole runs of 32 consecutive
         * columns, 4-byte stores that cover their sectors. Stored from the
         * registers, a warp's 4-byte store would write 4 floats 16 bytes apart
         * in each of 8 rows: 16 sectors for 128 bytes, all blocks at once
         * when the tiles make one wave (777x555x333 through warplab_gemm,
         * tile_64x64: 24.9 -> 23.9 us on the H100). */
        __syncthreads();        /* every thread is done with the last tile's stage */
        float *const tile = as; /* [BM][BN + 1] */
#pragma unroll
        for (int u = 0; u < T::TM / 4; u++)
#pragma unroll
            for (int i = 0; i < 4; i++)
#pragma unroll
                for (int v = 0; v < T::TN / 4; v++)
#pragma unroll
                    for (int j = 0; j < 4; j++)
                        tile[(gm * T::WM + u * T::LM * 4 + lm * 4 + i) * (T::BN + 1) + gn * T::WN +
                             v * T::LN * 4 + ln * 4 + j] = acc[u * 4 + i][v * 4 + j];
        __syncthreads();
        const int c_col0 = TILE_OUT ? col0 : 0;
        for (int e = tid; e < T::BM * T::BN; e += T::THREADS) {
            const int r = e / T::BN, col = col0 + e % T::BN, row = row0 + r;
            if (row < p.m && col < p.n) {
                float *c = (TILE_OUT ? p.c + (size_t)r * p.ldc : p.c + (size_t)row * p.ldc) +
                           (col - c_col0);
                *c = gemm_epilogue(tile[r * (T::BN + 1) + e % T::BN], c, p.alpha, p.beta);
            }
        }
        return;
    }
#pragma unroll
    for (int u = 0; u < T::TM / 4; u++)
#pragma unroll
        for (int i = 0; i < 4; i++) {
            const int row = row0 + gm * T::WM + u * T::LM * 4 + lm * 4 + i;
            if (row >= p.m)
                continue;
            /* TILE_OUT: the tile's row, its columns from col0. */
            float *c_row =
                TILE_OUT ? p.c + (size_t)(row - row0) * p.ldc : p.c + (size_t)row * p.ldc;
            const int c_col0 = TILE_OUT ? col0 : 0;
#pragma unroll
            for (int v = 0; v < T::TN / 4; v++) {
                const int col = col0 + gn * T::WN + v * T::LN * 4 + ln * 4;
                const float sum[4] = {acc[u * 4 + i][v * 4 + 0], acc[u * 4 + i][v * 4 + 1],
                                      acc[u * 4 + i][v * 4 + 2], acc[u * 4 + i][v * 4 + 3]};
                if (c_vec && col + 3 < p.n) {
                    float4 *c4 = reinterpret_cast<float4 *>(c_row + (col - c_col0));
                    float4 out = make_float4(p.alpha * sum[0], p.alpha * sum[1], p.alpha * sum[2],
                                             p.alpha * sum[3]);
                    if (p.beta != 0.0f) {
                        const float4 old = *c4;
                        out.x += p.beta * old.x;
                        out.y += p.beta * old.y;
                        out.z += p.beta * old.z;
                        out.w += p.beta * old.w;
                    }
                    *c4 = out;
                } else {
#pragma unroll
                    for (int j = 0; j < 4; j++)
                        if (col + j < p.n)
                            c_row[col - c_col0 + j] =
                                gemm_epilogue(sum[j], c_row + (col - c_col0 + j), p.alpha, p.beta);
                }
            }
        }
#endif
}

template <class T, bool VEC, bool STAGE_C = T::C_STAGED, bool TA = false, bool TB = false,
          bool A_VEC = false>
__global__ void __launch_bounds__(T::THREADS, T::MIN_BLOCKS) gemm_pipelined(gemm_params p)
{
    gemm_pipelined_tile<T, VEC, false, STAGE_C, TA, TB, A_VEC>(p, (int)blockIdx.x);
}

/* The views of a k range from k0: A's columns and B's rows start there
 * (op N), or A's rows and B's columns (op T). */
template <bool TA, bool TB> __device__ __forceinline__ void gemm_shift_k(gemm_params &q, int k0)
{
    q.a += TA ? (size_t)k0 * (size_t)q.lda : (size_t)k0;
    q.b += TB ? (size_t)k0 : (size_t)k0 * (size_t)q.ldb;
}

/* Whether a launch of a large tile takes its variant that stages C through
 * shared memory (C_STAGED_VARIANT): where C's rows, or a split's partial
 * rows (n apart), are not 16-byte aligned. The small tiles have the path in
 * every variant. */
template <class T> inline bool gemm_stage_c(const gemm_params &p)
{
    return T::C_STAGED_VARIANT && ((uintptr_t)p.c % 16 != 0 || p.ldc % 4 != 0 || p.n % 4 != 0);
}

/* Split-K: blockIdx.y takes rows [y * k_chunk, (y + 1) * k_chunk) of k and
 * writes its tile's sums (alpha 1, beta 0) into its m x n slice of partial
 * (tight rows); wl_splitk_finish (gemv.cuh) adds the slices in
 * order and applies alpha and beta. The same tile code, on views shifted to
 * the k range: A's columns and B's rows start at the range. */
template <class T, bool VEC, bool STAGE_C = T::C_STAGED, bool TA = false, bool TB = false,
          bool A_VEC = false>
__global__ void __launch_bounds__(T::THREADS, T::MIN_BLOCKS)
    gemm_pipelined_split(gemm_params p, float *partial, int k_chunk)
{
    wl_pdl_release(); /* wl_splitk_finish follows */
    const int k0 = (int)blockIdx.y * k_chunk;
    gemm_params q = p;
    gemm_shift_k<TA, TB>(q, k0);
    q.k = p.k - k0 < k_chunk ? p.k - k0 : k_chunk;
    q.c = partial + (size_t)blockIdx.y * (size_t)p.m * (size_t)p.n;
    q.ldc = p.n;
    q.alpha = 1.0f;
    q.beta = 0.0f;
    gemm_pipelined_tile<T, VEC, false, STAGE_C, TA, TB, A_VEC>(q, (int)blockIdx.x);
}

/* Tail split (tail_128x128, tail_256x128; over split-K on every tile): a
 * grid of whole tiles leaves its last wave part full (3001x2999x1001: 576
 * tiles of 128x128 are 2.18 waves of 264 resident blocks; the third wave
 * runs 48 blocks on 48 of 132 SMs). Here the first full_tiles tiles (whole
 * waves) run whole, and only the last tail_tiles are split over k into
 * chunks of k_chunk: the last wave becomes tail_tiles x splits short
 * blocks that fill the SMs. The grid is 1-D, whole tiles first (blocks
 * start about in index order, so the short ones make the last wave). A
 * piece writes its tile's sums (alpha 1, beta 0) to its own BM x BN slot
 * of partial, [split][tail tile][BM][BN], rows BN apart; gemm_tail_reduce
 * adds the splits in order. Unlike split-K on every tile, only the tail's
 * partial sums cross memory (2048x11008x4096: 28 tiles' instead of all of
 * C's twice). */
template <class T, bool VEC, bool STAGE_C = T::C_STAGED, bool TA = false, bool TB = false,
          bool A_VEC = false>
__global__ void __launch_bounds__(T::THREADS, T::MIN_BLOCKS)
    gemm_pipelined_tail_split(gemm_params p, float *partial, int full_tiles, int tail_tiles,
                              int k_chunk)
{
    /* The tile body twice (whole, piece): one call with the output kind
     * chosen at run time needs more registers (128x128: 20 bytes of spills
     * under its 128-register cap). */
    wl_pdl_release(); /* gemm_tail_reduce follows */
    const int block = (int)blockIdx.x;
    if (block < full_tiles) {
        gemm_pipelined_tile<T, VEC, false, STAGE_C, TA, TB, A_VEC>(p, block);
        return;
    }
    const int split = (block - full_tiles) / tail_tiles;
    const int tail = (block - full_tiles) % tail_tiles;
    const int k0 = split * k_chunk;
    gemm_params q = p;
    gemm_shift_k<TA, TB>(q, k0);
    q.k = p.k - k0 < k_chunk ? p.k - k0 : k_chunk;
    q.c = partial + ((size_t)split * (size_t)tail_tiles + (size_t)tail) * (size_t)(T::BM * T::BN);
    q.ldc = T::BN;
    q.alpha = 1.0f;
    q.beta = 0.0f;
    gemm_pipelined_tile<T, VEC, true, STAGE_C, TA, TB, A_VEC>(q, full_tiles + tail);
}

/* C of the tail's tiles = alpha * (the splits' partial sums, added in split
 * order) + beta * C: a thread an element of a tail tile, inside C only (the
 * elements the pieces wrote). */
template <int BM, int BN>
__global__ void gemm_tail_reduce(gemm_params p, const float *partial, int full_tiles,
                                 int tail_tiles, int splits, int group_m)
{
    wl_pdl_wait();
    const size_t tile_elements = (size_t)BM * BN;
    const size_t e = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= (size_t)tail_tiles * tile_elements)
        return;
    const int tail = (int)(e / tile_elements);
    const int local = (int)(e % tile_elements);
    const int tiles_m = (p.m + BM - 1) / BM, tiles_n = (p.n + BN - 1) / BN;
    int tile_m, tile_n;
    gemm_tile_of_block(full_tiles + tail, tiles_m, tiles_n, group_m, &tile_m, &tile_n);
    const int row = tile_m * BM + local / BN, col = tile_n * BN + local % BN;
    if (row >= p.m || col >= p.n)
        return;
    const float sum = wl_split_sum(partial + (size_t)tail * tile_elements, splits,
                                   (size_t)tail_tiles * tile_elements, (size_t)local);
    float *c = p.c + (size_t)row * p.ldc + col;
    *c = gemm_epilogue(sum, c, p.alpha, p.beta);
}

#endif

/* warplab:end */
