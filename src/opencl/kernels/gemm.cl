/* The opencl backend's matrix-multiply kernels (seeds 000 and 002), mirroring
 * the CUDA rungs with the same tiles and the same index mappings, so that
 * PoCL checks those mappings on machines without a GPU.
 *
 * C = alpha*A*B + beta*C, row-major: A is m x k (row stride lda), B is k x n
 * (ldb), C is m x n (ldc). Views arrive as a buffer and an element offset.
 * With beta = 0, C is never read. Every kernel is correct for any m, n, k
 * (except the course's tiled kernels, multiples of the tile only): loads
 * outside A or B read as 0, and only elements inside C are written. */

#define GEMM_ARGS                                                                                  \
    __global const float *A, ulong a_off, int lda, __global const float *B, ulong b_off, int ldb,  \
        __global float *C, ulong c_off, int ldc, int m, int n, int k, float alpha, float beta

#define GEMM_VIEWS                                                                                 \
    A += a_off;                                                                                    \
    B += b_off;                                                                                    \
    C += c_off

/* C[row][col] = alpha*sum + beta*C[row][col]; C is read only when beta != 0. */
inline void store_c(__global float *C, int ldc, int row, int col, float sum, float alpha,
                    float beta)
{
    __global float *c = C + (long)row * ldc + col;
    *c = beta == 0.0f ? alpha * sum : alpha * sum + beta * *c;
}

inline float load_a(__global const float *A, int lda, int m, int k, int row, int col)
{
    return row < m && col < k ? A[(long)row * lda + col] : 0.0f;
}

inline float load_b(__global const float *B, int ldb, int k, int n, int row, int col)
{
    return row < k && col < n ? B[(long)row * ldb + col] : 0.0f;
}

/* warplab:rung gemm one_block */
/* Rung one_block: one work-group of n x m work-items, one per element of C. */
__kernel void gemm_one_block(GEMM_ARGS)
{
    GEMM_VIEWS;
    int col = get_local_id(0), row = get_local_id(1);
    if (row >= m || col >= n)
        return;
    float sum = 0.0f;
    for (int p = 0; p < k; p++)
        sum += A[(long)row * lda + p] * B[(long)p * ldb + col];
    store_c(C, ldc, row, col, sum, alpha, beta);
}
/* warplab:end */

/* warplab:rung gemm many_blocks */
/* Rung many_blocks: 16 x 16 work-groups over C, one element each. */
__kernel void gemm_many_blocks(GEMM_ARGS)
{
    GEMM_VIEWS;
    int col = get_global_id(0), row = get_global_id(1);
    if (row >= m || col >= n)
        return;
    float sum = 0.0f;
    for (int p = 0; p < k; p++)
        sum += A[(long)row * lda + p] * B[(long)p * ldb + col];
    store_c(C, ldc, row, col, sum, alpha, beta);
}
/* warplab:end */

/* warplab:rung gemm tiled16 tiled32 */
/* Rungs tiled16 / tiled32: the course's kernel (lecture 2.6); m, n and k are
 * multiples of the tile. */
#define COURSE_TILED(NAME, TILE)                                                                   \
    __kernel __attribute__((reqd_work_group_size(TILE, TILE, 1))) void NAME(GEMM_ARGS)             \
    {                                                                                              \
        GEMM_VIEWS;                                                                                \
        __local float ds_a[TILE][TILE], ds_b[TILE][TILE];                                          \
        int tx = get_local_id(0), ty = get_local_id(1);                                            \
        int row = get_group_id(1) * TILE + ty, col = get_group_id(0) * TILE + tx;                  \
        float sum = 0.0f;                                                                          \
        for (int t = 0; t < k / TILE; t++) {                                                       \
            ds_a[ty][tx] = A[(long)row * lda + t * TILE + tx];                                     \
            ds_b[ty][tx] = B[(long)(t * TILE + ty) * ldb + col];                                   \
            barrier(CLK_LOCAL_MEM_FENCE);                                                          \
            for (int i = 0; i < TILE; i++)                                                         \
                sum += ds_a[ty][i] * ds_b[i][tx];                                                  \
            barrier(CLK_LOCAL_MEM_FENCE);                                                          \
        }                                                                                          \
        store_c(C, ldc, row, col, sum, alpha, beta);                                               \
    }
/* warplab:end */
/* warplab:rung gemm tiled16 */
COURSE_TILED(gemm_tiled16, 16)
/* warplab:end */
/* warplab:rung gemm tiled32 */
COURSE_TILED(gemm_tiled32, 32)
/* warplab:end */

/* warplab:rung gemm tiled_bounds */
/* Rung tiled_bounds: lecture 2.8, TILE_WIDTH 32, any size. */
#define BOUNDS_TILE 32
__kernel __attribute__((reqd_work_group_size(BOUNDS_TILE, BOUNDS_TILE, 1))) void
gemm_tiled_bounds(GEMM_ARGS)
{
    GEMM_VIEWS;
    __local float ds_a[BOUNDS_TILE][BOUNDS_TILE], ds_b[BOUNDS_TILE][BOUNDS_TILE];
    int tx = get_local_id(0), ty = get_local_id(1);
    int row = get_group_id(1) * BOUNDS_TILE + ty, col = get_group_id(0) * BOUNDS_TILE + tx;
    float sum = 0.0f;
    for (int t = 0; t < (k + BOUNDS_TILE - 1) / BOUNDS_TILE; t++) {
        ds_a[ty][tx] = load_a(A, lda, m, k, row, t * BOUNDS_TILE + tx);
        ds_b[ty][tx] = load_b(B, ldb, k, n, t * BOUNDS_TILE + ty, col);
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int i = 0; i < BOUNDS_TILE; i++)
            sum += ds_a[ty][i] * ds_b[i][tx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (row < m && col < n)
        store_c(C, ldc, row, col, sum, alpha, beta);
}
/* warplab:end */

/* warplab:rung gemm regblock_1d */
/* Rung regblock_1d: 64 x 64 tiles, BK 8, 512 work-items, each a column of 8
 * outputs (one B value from local memory feeds 8 multiply-adds). Work-group
 * (x, y) computes C's tile (row y, column x). */
#define R1_BM 64
#define R1_BN 64
#define R1_BK 8
#define R1_TM 8
__kernel __attribute__((reqd_work_group_size(512, 1, 1))) void gemm_regblock_1d(GEMM_ARGS)
{
    GEMM_VIEWS;
    __local float as[R1_BM][R1_BK], bs[R1_BK][R1_BN];
    const int tid = get_local_id(0);
    const int row0 = get_group_id(1) * R1_BM, col0 = get_group_id(0) * R1_BN;
    const int tc = tid % R1_BN, tr = tid / R1_BN;
    const int ar = tid / R1_BK, ac = tid % R1_BK, br = tid / R1_BN, bc = tid % R1_BN;
    float acc[R1_TM];
    for (int i = 0; i < R1_TM; i++)
        acc[i] = 0.0f;
    for (int k0 = 0; k0 < k; k0 += R1_BK) {
        as[ar][ac] = load_a(A, lda, m, k, row0 + ar, k0 + ac);
        bs[br][bc] = load_b(B, ldb, k, n, k0 + br, col0 + bc);
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int d = 0; d < R1_BK; d++) {
            const float b = bs[d][tc];
            for (int i = 0; i < R1_TM; i++)
                acc[i] += as[tr * R1_TM + i][d] * b;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    for (int i = 0; i < R1_TM; i++) {
        int row = row0 + tr * R1_TM + i, col = col0 + tc;
        if (row < m && col < n)
            store_c(C, ldc, row, col, acc[i], alpha, beta);
    }
}
/* warplab:end */

/* warplab:rung gemm regblock_2d */
/* Rung regblock_2d: 128 x 128 tiles, BK 8, 256 work-items, each an 8 x 8
 * block of C (rows tr*8.., columns tc*8..). */
#define R2_BM 128
#define R2_BN 128
#define R2_BK 8
#define R2_T 8
#define R2_THREADS 256
__kernel __attribute__((reqd_work_group_size(R2_THREADS, 1, 1))) void gemm_regblock_2d(GEMM_ARGS)
{
    GEMM_VIEWS;
    __local float as[R2_BM][R2_BK], bs[R2_BK][R2_BN];
    const int tid = get_local_id(0);
    const int row0 = get_group_id(1) * R2_BM, col0 = get_group_id(0) * R2_BN;
    const int tr = tid / (R2_BN / R2_T), tc = tid % (R2_BN / R2_T);
    float acc[R2_T][R2_T], am[R2_T], bn[R2_T];
    for (int i = 0; i < R2_T; i++)
        for (int j = 0; j < R2_T; j++)
            acc[i][j] = 0.0f;
    for (int k0 = 0; k0 < k; k0 += R2_BK) {
        for (int l = 0; l < R2_BM * R2_BK / R2_THREADS; l++) {
            int e = tid + l * R2_THREADS;
            as[e / R2_BK][e % R2_BK] = load_a(A, lda, m, k, row0 + e / R2_BK, k0 + e % R2_BK);
        }
        for (int l = 0; l < R2_BK * R2_BN / R2_THREADS; l++) {
            int e = tid + l * R2_THREADS;
            bs[e / R2_BN][e % R2_BN] = load_b(B, ldb, k, n, k0 + e / R2_BN, col0 + e % R2_BN);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int d = 0; d < R2_BK; d++) {
            for (int i = 0; i < R2_T; i++)
                am[i] = as[tr * R2_T + i][d];
            for (int j = 0; j < R2_T; j++)
                bn[j] = bs[d][tc * R2_T + j];
            for (int i = 0; i < R2_T; i++)
                for (int j = 0; j < R2_T; j++)
                    acc[i][j] += am[i] * bn[j];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    for (int i = 0; i < R2_T; i++)
        for (int j = 0; j < R2_T; j++) {
            int row = row0 + tr * R2_T + i, col = col0 + tc * R2_T + j;
            if (row < m && col < n)
                store_c(C, ldc, row, col, acc[i][j], alpha, beta);
        }
}
/* warplab:end */

/* warplab:rung gemm vectorized conflict_free */
/* Four consecutive elements of a row, 0 outside the matrix: one vload4 when
 * all four are inside (vload4 needs only element alignment). */
inline float4 load4(__global const float *X, int ld, int rows, int cols, int row, int col)
{
    if (row >= rows)
        return (float4)(0.0f);
    __global const float *p = X + (long)row * ld + col;
    if (col + 3 < cols)
        return vload4(0, p);
    return (float4)(col < cols ? p[0] : 0.0f, col + 1 < cols ? p[1] : 0.0f,
                    col + 2 < cols ? p[2] : 0.0f, 0.0f);
}
/* warplab:end */

/* warplab:rung gemm vectorized */
/* Rung vectorized: as regblock_2d, with 16-byte loads, and A stored
 * transposed (as[k][m]) so that a work-item's 8 values of A are contiguous. */
__kernel __attribute__((reqd_work_group_size(R2_THREADS, 1, 1))) void gemm_vectorized(GEMM_ARGS)
{
    GEMM_VIEWS;
    __local float as[R2_BK][R2_BM], bs[R2_BK][R2_BN];
    const int tid = get_local_id(0);
    const int row0 = get_group_id(1) * R2_BM, col0 = get_group_id(0) * R2_BN;
    const int tr = tid / (R2_BN / R2_T), tc = tid % (R2_BN / R2_T);
    const int ar = tid / (R2_BK / 4), ac = (tid % (R2_BK / 4)) * 4;
    const int br = tid / (R2_BN / 4), bc = (tid % (R2_BN / 4)) * 4;
    float acc[R2_T][R2_T], am[R2_T], bn[R2_T];
    for (int i = 0; i < R2_T; i++)
        for (int j = 0; j < R2_T; j++)
            acc[i][j] = 0.0f;
    for (int k0 = 0; k0 < k; k0 += R2_BK) {
        float4 a = load4(A, lda, m, k, row0 + ar, k0 + ac);
        as[ac + 0][ar] = a.x;
        as[ac + 1][ar] = a.y;
        as[ac + 2][ar] = a.z;
        as[ac + 3][ar] = a.w;
        vstore4(load4(B, ldb, k, n, k0 + br, col0 + bc), 0, &bs[br][bc]);
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int d = 0; d < R2_BK; d++) {
            for (int i = 0; i < R2_T; i++)
                am[i] = as[d][tr * R2_T + i];
            for (int j = 0; j < R2_T; j++)
                bn[j] = bs[d][tc * R2_T + j];
            for (int i = 0; i < R2_T; i++)
                for (int j = 0; j < R2_T; j++)
                    acc[i][j] += am[i] * bn[j];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    for (int i = 0; i < R2_T; i++)
        for (int j = 0; j < R2_T; j++) {
            int row = row0 + tr * R2_T + i, col = col0 + tc * R2_T + j;
            if (row < m && col < n)
                store_c(C, ldc, row, col, acc[i][j], alpha, beta);
        }
}
/* warplab:end */

/* warplab:rung gemm conflict_free */
/* Rung conflict_free: as vectorized, with A's rows padded by 4 floats (the
 * transposing stores hit 32 distinct banks) and a work-item's 8 x 8 outputs
 * as 2 x 2 blocks of 4 x 4, 64 rows and columns apart (neighbours read
 * neighbouring float4s). The CUDA kernel gemm_conflict_free, line for line. */
#define CF_PAD 4
__kernel __attribute__((reqd_work_group_size(R2_THREADS, 1, 1))) void gemm_conflict_free(GEMM_ARGS)
{
    GEMM_VIEWS;
    __local float as[R2_BK][R2_BM + CF_PAD], bs[R2_BK][R2_BN];
    const int tid = get_local_id(0);
    const int row0 = get_group_id(1) * R2_BM, col0 = get_group_id(0) * R2_BN;
    const int tr = tid / (R2_BN / R2_T), tc = tid % (R2_BN / R2_T);
    const int ar = tid / (R2_BK / 4), ac = (tid % (R2_BK / 4)) * 4;
    const int br = tid / (R2_BN / 4), bc = (tid % (R2_BN / 4)) * 4;
    float acc[R2_T][R2_T], am[R2_T], bn[R2_T];
    for (int i = 0; i < R2_T; i++)
        for (int j = 0; j < R2_T; j++)
            acc[i][j] = 0.0f;
    for (int k0 = 0; k0 < k; k0 += R2_BK) {
        float4 a = load4(A, lda, m, k, row0 + ar, k0 + ac);
        as[ac + 0][ar] = a.x;
        as[ac + 1][ar] = a.y;
        as[ac + 2][ar] = a.z;
        as[ac + 3][ar] = a.w;
        vstore4(load4(B, ldb, k, n, k0 + br, col0 + bc), 0, &bs[br][bc]);
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int d = 0; d < R2_BK; d++) {
            for (int u = 0; u < 2; u++) {
                vstore4(vload4(0, &as[d][u * (R2_BM / 2) + tr * 4]), 0, &am[u * 4]);
                vstore4(vload4(0, &bs[d][u * (R2_BN / 2) + tc * 4]), 0, &bn[u * 4]);
            }
            for (int i = 0; i < R2_T; i++)
                for (int j = 0; j < R2_T; j++)
                    acc[i][j] += am[i] * bn[j];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    for (int i = 0; i < R2_T; i++)
        for (int j = 0; j < R2_T; j++) {
            int row = row0 + (i / 4) * (R2_BM / 2) + tr * 4 + i % 4;
            int col = col0 + (j / 4) * (R2_BN / 2) + tc * 4 + j % 4;
            if (row < m && col < n)
                store_c(C, ldc, row, col, acc[i][j], alpha, beta);
        }
}
/* warplab:end */

/* warplab:rung gemm double_buffered warptile tuned tuned_128x128 tuned_256x128 */
/* ------------------------------------------------------------------------ */
/* The generic tiled kernel behind conflict_free, double_buffered, warptile  */
/* and the tuned shapes, mirroring the CUDA template sgemm_pipelined:        */
/*                                                                           */
/* - a BM x BN tile of C per work-group of THREADS work-items, split into    */
/*   groups of LANES work-items (a warp on CUDA) that own WM x WN pieces;    */
/* - a work-item owns TM x TN outputs as (TM/4) x (TN/4) blocks of 4 x 4,    */
/*   strided by LM*4 rows and LN*4 columns across its group's piece, so that */
/*   neighbouring work-items read neighbouring 16-byte vectors;              */
/* - A is stored transposed with 4 floats of padding a row (as[BK][BM+4]);   */
/*   each work-item copies single floats of A such that 32 consecutive       */
/*   work-items cover 8 k by 4 rows (distinct banks, 32-byte global pieces); */
/* - B is copied 4 floats at a time (bs[BK][BN]).                            */
/* OpenCL has no cp.async: the next tile is staged in registers while the    */
/* current one is computed (two local buffers, one barrier a tile).          */

#define MAX_A_PER_ITEM 16
#define MAX_B_PER_ITEM 8

inline void tile_coords(int e, int bk, int *kk, int *row)
{
    const int chunk = e / 32;
    *kk = (chunk % (bk / 8)) * 8 + e % 8;
    *row = (chunk / (bk / 8)) * 4 + (e / 8) % 4;
}

/* The shape of a generic tiled kernel, and where a work-item sits in it. */
typedef struct shape {
    int BM, BN, BK, WM, WN, TM, TN;
    int LM, LN, THREADS, A_PER, B_PER;
    int tid, row0, col0, gm, gn, lm, ln;
} shape;

inline shape make_shape(int BM, int BN, int BK, int WM, int WN, int TM, int TN)
{
    shape s;
    s.BM = BM, s.BN = BN, s.BK = BK, s.WM = WM, s.WN = WN, s.TM = TM, s.TN = TN;
    s.LM = WM / TM;
    s.LN = WN / TN;
    const int lanes = s.LM * s.LN;
    s.THREADS = (BM / WM) * (BN / WN) * lanes;
    s.A_PER = BM * BK / s.THREADS;
    s.B_PER = BK * BN / 4 / s.THREADS;
    s.tid = get_local_id(0);
    s.row0 = get_group_id(1) * BM;
    s.col0 = get_group_id(0) * BN;
    const int group = s.tid / lanes, lane = s.tid % lanes;
    s.gm = group / (BN / WN);
    s.gn = group % (BN / WN);
    s.lm = lane / s.LN;
    s.ln = lane % s.LN;
    return s;
}

/* Tile t of A and B from global memory into registers (0 outside). */
inline void stage_tile(const shape *s, __global const float *A, int lda, __global const float *B,
                       int ldb, int m, int n, int k, int t, float *a_stage, float4 *b_stage)
{
    const int k0 = t * s->BK;
    for (int l = 0; l < s->A_PER; l++) {
        int kk, row;
        tile_coords(s->tid + l * s->THREADS, s->BK, &kk, &row);
        a_stage[l] = load_a(A, lda, m, k, s->row0 + row, k0 + kk);
    }
    for (int l = 0; l < s->B_PER; l++) {
        int v = s->tid + l * s->THREADS;
        b_stage[l] = load4(B, ldb, k, n, k0 + v / (s->BN / 4), s->col0 + (v % (s->BN / 4)) * 4);
    }
}

/* Registers into local memory: A transposed and padded, B as it is. */
inline void store_tile(const shape *s, const float *a_stage, const float4 *b_stage,
                       __local float *a_tile, __local float *b_tile)
{
    for (int l = 0; l < s->A_PER; l++) {
        int kk, row;
        tile_coords(s->tid + l * s->THREADS, s->BK, &kk, &row);
        a_tile[kk * (s->BM + 4) + row] = a_stage[l];
    }
    for (int l = 0; l < s->B_PER; l++) {
        int v = s->tid + l * s->THREADS;
        vstore4(b_stage[l], 0, b_tile + (v / (s->BN / 4)) * s->BN + (v % (s->BN / 4)) * 4);
    }
}

/* acc += the tile's A x B for this work-item's TM x TN outputs. */
inline void compute_tile(const shape *s, __local const float *a_tile, __local const float *b_tile,
                         float acc[16][16])
{
    for (int d = 0; d < s->BK; d++) {
        float am[16], bn[16];
        for (int u = 0; u < s->TM / 4; u++)
            vstore4(vload4(0, a_tile + d * (s->BM + 4) + s->gm * s->WM + u * s->LM * 4 + s->lm * 4),
                    0, &am[u * 4]);
        for (int u = 0; u < s->TN / 4; u++)
            vstore4(vload4(0, b_tile + d * s->BN + s->gn * s->WN + u * s->LN * 4 + s->ln * 4), 0,
                    &bn[u * 4]);
        for (int i = 0; i < s->TM; i++)
            for (int j = 0; j < s->TN; j++)
                acc[i][j] += am[i] * bn[j];
    }
}

inline void generic_tiled(GEMM_ARGS, __local float *as, __local float *bs, const int BM,
                          const int BN, const int BK, const int WM, const int WN, const int TM,
                          const int TN)
{
    GEMM_VIEWS;
    const shape s = make_shape(BM, BN, BK, WM, WN, TM, TN);
    const int a_stage_size = BK * (BM + 4), b_stage_size = BK * BN;
    float acc[16][16];
    for (int i = 0; i < TM; i++)
        for (int j = 0; j < TN; j++)
            acc[i][j] = 0.0f;
    float a_stage[MAX_A_PER_ITEM];
    float4 b_stage[MAX_B_PER_ITEM];
    const int tiles = (k + BK - 1) / BK;
    /* Two buffers: tile t is fetched into registers while tile t-1 is
     * computed, then stored into the buffer tile t-2 used (read before the
     * previous barrier): one barrier a tile. */
    for (int t = 0; t <= tiles; t++) {
        if (t < tiles)
            stage_tile(&s, A, lda, B, ldb, m, n, k, t, a_stage, b_stage);
        if (t > 0)
            compute_tile(&s, as + ((t - 1) % 2) * a_stage_size, bs + ((t - 1) % 2) * b_stage_size,
                         acc);
        if (t < tiles)
            store_tile(&s, a_stage, b_stage, as + (t % 2) * a_stage_size,
                       bs + (t % 2) * b_stage_size);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    for (int u = 0; u < TM / 4; u++)
        for (int i = 0; i < 4; i++) {
            const int row = s.row0 + s.gm * WM + u * s.LM * 4 + s.lm * 4 + i;
            for (int v = 0; v < TN / 4; v++)
                for (int j = 0; j < 4; j++) {
                    const int col = s.col0 + s.gn * WN + v * s.LN * 4 + s.ln * 4 + j;
                    if (row < m && col < n)
                        store_c(C, ldc, row, col, acc[u * 4 + i][v * 4 + j], alpha, beta);
                }
        }
}

#define GENERIC_TILED(NAME, STAGES, BM, BN, BK, WM, WN, TM, TN)                                    \
    __kernel __attribute__((                                                                       \
        reqd_work_group_size((BM / WM) * (BN / WN) * (WM / TM) * (WN / TN), 1, 1))) void           \
    NAME(GEMM_ARGS)                                                                                \
    {                                                                                              \
        __local float as[STAGES * BK * (BM + 4)];                                                  \
        __local float bs[STAGES * BK * BN];                                                        \
        generic_tiled(A, a_off, lda, B, b_off, ldb, C, c_off, ldc, m, n, k, alpha, beta, as, bs,   \
                      BM, BN, BK, WM, WN, TM, TN);                                                 \
    }
/* warplab:end */

/* warplab:rung gemm double_buffered */
/* double_buffered: one group of 16 x 16 work-items over the whole 128 x 128
 * tile, 8 x 8 outputs each as 2 x 2 blocks of 4 x 4 (conflict_free's
 * mapping), with the pipelined kernel's copy mapping. */
GENERIC_TILED(gemm_double_buffered, 2, 128, 128, 8, 128, 128, 8, 8)
/* warplab:end */
/* warplab:rung gemm warptile */
/* warptile: 8 groups of 32 (warps on CUDA) own 64 x 32 pieces. */
GENERIC_TILED(gemm_warptile, 2, 128, 128, 8, 64, 32, 8, 8)
/* warplab:end */
/* The sm_90 shapes. */
/* warplab:rung gemm tuned */
GENERIC_TILED(gemm_tuned, 2, 128, 256, 16, 64, 64, 8, 16)
/* warplab:end */
/* warplab:rung gemm tuned_128x128 */
GENERIC_TILED(gemm_tuned_128x128, 2, 128, 128, 16, 64, 32, 8, 8)
/* warplab:end */
/* warplab:rung gemm tuned_256x128 */
GENERIC_TILED(gemm_tuned_256x128, 2, 256, 128, 16, 64, 64, 16, 8)
/* warplab:end */
