/* The bandwidth-bound FP32 kernels: GEMV and skinny products, where m or n
 * is small (1 to 16) and the time is the time to stream the big operand
 * once.
 *
 * Split-K layout: split s of the k range writes its m x n partial sums,
 * row-major and tight, at partial + s * m * n (the rung's workspace, from
 * wl_impl.scratch_bytes); wl_splitk_finish (gemv.cuh, the one split-K
 * reduction) adds them in the order s = 0, 1, ... and applies alpha and
 * beta. No float atomics: a shape always gives
 * the same bits.
 *
 * Every 16-byte load stays inside its matrix: it is issued only when all
 * four floats are inside the row, element loads otherwise. */
/* warplab:rung gemm skinny_m skinny_n tile_32x128 tile_64x64 tile_32x64 dispatch */
#ifndef WARPLAB_GEMM_SKINNY_KERNELS_CUH
#define WARPLAB_GEMM_SKINNY_KERNELS_CUH

#include "gemm_device.cuh"

/* ------------------------------------------------------------------------ */
/* skinny_m: C (m x n) = A (m x k, m small) * B (k x n): B streams once.     */

/* A block: SKINNY_M_COL_THREADS threads across 4 * that many columns of C
 * (each thread 4 consecutive columns: one 16-byte load of a row of B), and
 * THREADS / SKINNY_M_COL_THREADS groups that walk k interleaved, one row of
 * B each: a warp reads 4 rows x 128 contiguous bytes. MR rows of C at once
 * (blockIdx.z walks row groups for m > MR); each row of B read feeds MR x 4
 * multiply-adds. */
#define SKINNY_M_COL_THREADS 8
#define SKINNY_M_COLS (4 * SKINNY_M_COL_THREADS)

/* Threads a block for MR rows: more k groups (more loads in flight) while
 * the accumulators are few. */
__host__ __device__ constexpr int skinny_m_threads(int mr)
{
    return mr <= 2 ? 1024 : mr <= 4 ? 512 : 256;
}
/* Rows of B a k group has in flight per step. */
__host__ __device__ constexpr int skinny_m_unroll(int mr)
{
    return mr <= 2 ? 8 : mr <= 4 ? 4 : 2;
}

/* Writes one sum: into C through the epilogue when the k range is not
 * split (gridDim.y == 1), else into this split's partial sums. */
__device__ __forceinline__ void skinny_store(const gemm_params &p, float *partial, int row, int col,
                                             float sum)
{
    if (gridDim.y == 1) {
        float *c = p.c + (size_t)row * p.ldc + col;
        *c = gemm_epilogue(sum, c, p.alpha, p.beta);
    } else {
        partial[((size_t)blockIdx.y * (size_t)p.m + (size_t)row) * (size_t)p.n + col] = sum;
    }
}

/* Grid: (ceil(n / SKINNY_M_COLS), splits, ceil(m / MR)); blockIdx.y takes
 * rows [y * k_chunk, (y + 1) * k_chunk) of k. Dynamic shared memory:
 * (THREADS / 32) * MR * SKINNY_M_COLS floats. VEC: B's rows are 16-byte
 * aligned. */
template <int MR, bool VEC>
__global__ void __launch_bounds__(skinny_m_threads(MR))
    gemm_skinny_m(gemm_params p, float *partial, int k_chunk)
{
    if (gridDim.y > 1) /* split: wl_splitk_finish follows */
        wl_pdl_release();
    constexpr int THREADS = skinny_m_threads(MR), U = skinny_m_unroll(MR);
    constexpr int GROUPS = THREADS / SKINNY_M_COL_THREADS, WARPS = THREADS / 32;
    WL_DYNAMIC_SMEM(float, warp_sums); /* [WARPS][MR][SKINNY_M_COLS] */
    const int tid = threadIdx.x;
    const int ct = tid % SKINNY_M_COL_THREADS, group = tid / SKINNY_M_COL_THREADS;
    const int col = blockIdx.x * SKINNY_M_COLS + ct * 4;
    const int row0 = blockIdx.z * MR;
    const int rows = p.m - row0 < MR ? p.m - row0 : MR;
    const int k_begin = blockIdx.y * k_chunk;
    const int k_end = p.k - k_begin < k_chunk ? p.k : k_begin + k_chunk;
    const float *a = p.a + (size_t)row0 * p.lda;

    float acc[MR][4];
#pragma unroll
    for (int i = 0; i < MR; i++)
        acc[i][0] = acc[i][1] = acc[i][2] = acc[i][3] = 0.0f;
    for (int k0 = k_begin + group; k0 < k_end; k0 += GROUPS * U) {
        float4 b[U];
        float av[U][MR];
#pragma unroll
        for (int u = 0; u < U; u++) {
            const int kr = k0 + u * GROUPS;
            const bool in = kr < k_end;
            /* 0 past k's range and past n; one 16-byte load when VEC and
             * all four columns are inside (gemm_device.cuh). */
            b[u] = load4_or_zero<VEC>(p.b, p.ldb, k_end, p.n, kr, col);
#pragma unroll
            for (int i = 0; i < MR; i++)
                av[u][i] = in && i < rows ? a[(size_t)i * p.lda + kr] : 0.0f;
        }
#pragma unroll
        for (int u = 0; u < U; u++)
#pragma unroll
            for (int i = 0; i < MR; i++) {
                acc[i][0] = fmaf(av[u][i], b[u].x, acc[i][0]);
                acc[i][1] = fmaf(av[u][i], b[u].y, acc[i][1]);
                acc[i][2] = fmaf(av[u][i], b[u].z, acc[i][2]);
                acc[i][3] = fmaf(av[u][i], b[u].w, acc[i][3]);
            }
    }
    /* The 4 k groups of a warp (lanes 8 and 16 apart), then the warps, in a
     * fixed order. */
#pragma unroll
    for (int i = 0; i < MR; i++)
#pragma unroll
        for (int j = 0; j < 4; j++) {
            float v = acc[i][j];
            v += __shfl_xor_sync(0xffffffffu, v, 8);
            v += __shfl_xor_sync(0xffffffffu, v, 16);
            acc[i][j] = v;
        }
    const int warp = tid / 32, lane = tid % 32;
    if (lane < SKINNY_M_COL_THREADS)
#pragma unroll
        for (int i = 0; i < MR; i++)
#pragma unroll
            for (int j = 0; j < 4; j++)
                warp_sums[(warp * MR + i) * SKINNY_M_COLS + ct * 4 + j] = acc[i][j];
    __syncthreads();
    for (int o = tid; o < MR * SKINNY_M_COLS; o += THREADS) {
        const int i = o / SKINNY_M_COLS, c = blockIdx.x * SKINNY_M_COLS + o % SKINNY_M_COLS;
        if (i >= rows || c >= p.n)
            continue;
        float sum = 0.0f;
        for (int w = 0; w < WARPS; w++)
            sum += warp_sums[w * MR * SKINNY_M_COLS + o];
        skinny_store(p, partial, row0 + i, c, sum);
    }
}

/* ------------------------------------------------------------------------ */
/* skinny_n: C (m x n, n small) = A (m x k) * B (k x n): A streams once.     */

/* A block: 8 warps, each RW rows of A at once; a lane takes 4 consecutive k
 * (one 16-byte load of each row when A's rows are 16-byte aligned) or, when
 * not, 4 k 32 apart (4-byte loads, still 128 contiguous bytes a warp). The
 * block stages NR columns of B for SKINNY_N_KC values of k in shared memory,
 * transposed (bt[j][k]), so a lane's B values are one conflict-free 16-byte
 * read per column, shared by the RW rows. */
#define SKINNY_N_THREADS 256
#define SKINNY_N_WARPS (SKINNY_N_THREADS / 32)
#define SKINNY_N_KC 512

__host__ __device__ constexpr int skinny_n_rows_per_warp(int nr)
{
    return nr <= 2 ? 2 : 4;
}

/* Grid: (ceil(m / (8 * RW)), splits, ceil(n / NR)); dynamic shared memory
 * NR * SKINNY_N_KC floats. k_chunk is a multiple of SKINNY_N_KC. VEC: A's
 * rows are 16-byte aligned. */
template <int NR, bool VEC>
__global__ void __launch_bounds__(SKINNY_N_THREADS)
    gemm_skinny_n(gemm_params p, float *partial, int k_chunk)
{
    if (gridDim.y > 1) /* split: wl_splitk_finish follows */
        wl_pdl_release();
    constexpr int RW = skinny_n_rows_per_warp(NR);
    WL_DYNAMIC_SMEM(float4, bt4);
    float *const bt = reinterpret_cast<float *>(bt4); /* [NR][SKINNY_N_KC] */
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int row0 = (blockIdx.x * SKINNY_N_WARPS + warp) * RW;
    const int col0 = blockIdx.z * NR;
    const int cols = p.n - col0 < NR ? p.n - col0 : NR;
    const int k_begin = blockIdx.y * k_chunk;
    const int k_end = p.k - k_begin < k_chunk ? p.k : k_begin + k_chunk;

    float acc[RW][NR];
#pragma unroll
    for (int r = 0; r < RW; r++)
#pragma unroll
        for (int j = 0; j < NR; j++)
            acc[r][j] = 0.0f;
    for (int kc = k_begin; kc < k_end; kc += SKINNY_N_KC) {
        const int kn = k_end - kc < SKINNY_N_KC ? k_end - kc : SKINNY_N_KC;
        __syncthreads(); /* everyone is done with the previous chunk */
        for (int e = tid; e < NR * SKINNY_N_KC; e += SKINNY_N_THREADS) {
            const int kk = e / NR, j = e % NR;
            bt[j * SKINNY_N_KC + kk] =
                kk < kn && j < cols ? p.b[(size_t)(kc + kk) * p.ldb + col0 + j] : 0.0f;
        }
        __syncthreads();
        /* Two steps of 128 k per iteration: every row's loads of both are
         * issued before their multiply-adds (2 * RW loads in flight a lane). */
        for (int s = 0; s < kn; s += 256) {
            float x[2][RW][4];
#pragma unroll
            for (int h = 0; h < 2; h++) {
                /* This lane's 4 values of k in [kc + s + 128 h, ... + 128). */
                const int base = (VEC ? 4 * lane : lane) + s + 128 * h;
                const int step = VEC ? 1 : 32;
#pragma unroll
                for (int r = 0; r < RW; r++) {
                    const int row = row0 + r;
                    x[h][r][0] = x[h][r][1] = x[h][r][2] = x[h][r][3] = 0.0f;
                    if (row >= p.m)
                        continue;
                    const float *a = p.a + (size_t)row * p.lda + kc;
                    if (VEC && base + 3 < kn) {
                        const float4 v = *reinterpret_cast<const float4 *>(a + base);
                        x[h][r][0] = v.x, x[h][r][1] = v.y, x[h][r][2] = v.z, x[h][r][3] = v.w;
                    } else {
#pragma unroll
                        for (int q = 0; q < 4; q++)
                            if (base + q * step < kn)
                                x[h][r][q] = a[base + q * step];
                    }
                }
            }
#pragma unroll
            for (int h = 0; h < 2; h++) {
                const int base = (VEC ? 4 * lane : lane) + s + 128 * h;
                const int step = VEC ? 1 : 32;
#pragma unroll
                for (int j = 0; j < NR; j++) {
                    float y[4];
                    if (VEC) {
                        const float4 w =
                            *reinterpret_cast<const float4 *>(bt + j * SKINNY_N_KC + base);
                        y[0] = w.x, y[1] = w.y, y[2] = w.z, y[3] = w.w;
                    } else {
#pragma unroll
                        for (int q = 0; q < 4; q++)
                            y[q] = bt[j * SKINNY_N_KC + base + q * step];
                    }
#pragma unroll
                    for (int r = 0; r < RW; r++)
#pragma unroll
                        for (int q = 0; q < 4; q++)
                            acc[r][j] = fmaf(x[h][r][q], y[q], acc[r][j]);
                }
            }
        }
    }
    /* Across the warp's lanes, a butterfly in a fixed order. */
#pragma unroll
    for (int r = 0; r < RW; r++)
#pragma unroll
        for (int j = 0; j < NR; j++) {
            float v = acc[r][j];
#pragma unroll
            for (int mask = 16; mask > 0; mask /= 2)
                v += __shfl_xor_sync(0xffffffffu, v, mask);
            acc[r][j] = v;
        }
    if (lane == 0)
#pragma unroll
        for (int r = 0; r < RW; r++)
#pragma unroll
            for (int j = 0; j < NR; j++)
                if (row0 + r < p.m && j < cols)
                    skinny_store(p, partial, row0 + r, col0 + j, acc[r][j]);
}

#endif
/* warplab:end */
