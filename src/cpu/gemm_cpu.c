/* The cpu backend's matrix-multiply rungs: the course's host loop, and a
 * blocked, multithreaded version (the "GPU vs CPU" row).
 *
 * Contents: the gemm rungs this file implements, in ladder order (number =
 * place on the ladder, as `warplab ladders gemm` lists it):
 *   1. cpu_loop -- CPU triple loop, one core
 *   2. cpu_blocked -- CPU blocked, all cores
 * (ex_tf32, ex_bf16 and ex_fp16: gemm_ex_cpu.c) */
#include "kernels/gemm_problem.h"
#include "cpu.h"

#include <string.h>

/* warplab:rung gemm cpu_loop cpu_blocked */
typedef struct gemm_args {
    const float *a, *b;
    float *c;
    size_t m, n, k, lda, ldb, ldc;
    float alpha, beta;
} gemm_args;

static gemm_args make_args(const wl_launch *launch)
{
    const wl_problem *p = launch->problem;
    gemm_args g = {wl_view_ptr(launch->buf[GEMM_A]),
                   wl_view_ptr(launch->buf[GEMM_B]),
                   wl_view_ptr(launch->buf[GEMM_C]),
                   wl_gemm_m(p),
                   wl_gemm_n(p),
                   wl_gemm_k(p),
                   wl_gemm_lda(p),
                   wl_gemm_ldb(p),
                   wl_gemm_ldc(p),
                   (float)p->alpha,
                   (float)p->beta};
    return g;
}

/* C = alpha*sum + beta*C, never reading C when beta = 0 (BLAS semantics). */
static inline float epilogue(float sum, float alpha, float beta, const float *c)
{
    return beta == 0.0f ? alpha * sum : alpha * sum + beta * *c;
}
/* warplab:end */

/* warplab:rung gemm cpu_loop */
/* Rung cpu_loop: seed 002's MatrixMulOnHost, with row strides, alpha and
 * beta. The inner loop walks a column of B, one cache line per element. */
static warplab_status gemm_loop(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)backend;
    (void)state;
    const gemm_args g = make_args(launch);
    for (size_t i = 0; i < g.m; i++)
        for (size_t j = 0; j < g.n; j++) {
            float sum = 0.0f;
            for (size_t p = 0; p < g.k; p++)
                sum += g.a[i * g.lda + p] * g.b[p * g.ldb + j];
            float *c = &g.c[i * g.ldc + j];
            *c = epilogue(sum, g.alpha, g.beta, c);
        }
    return WARPLAB_OK;
}
/* warplab:end */

/* warplab:rung gemm cpu_blocked */
/* Rung cpu_blocked: C in 64 x 256 blocks, one block per task over every core.
 * A block's sums live in a task-local tile while k advances in panels of 256
 * rows of B (64 KB of B per 16 columns of micro-tiles: it stays in L2), and
 * the micro-kernel keeps a 4 x 8 piece of C in registers, which the compiler
 * turns into vector multiply-adds along the rows of B. */
#define BLOCK_ROWS 64
#define BLOCK_COLS 256
#define PANEL_DEPTH 256
#define MICRO_ROWS 4
#define MICRO_COLS 8

/* acc[MICRO_ROWS][MICRO_COLS] (stride ldacc) += A[4 rows][depth] * B[depth][8 cols]. */
static void micro_kernel(const float *a, size_t lda, const float *b, size_t ldb, size_t depth,
                         float *acc, size_t ldacc)
{
    float sum[MICRO_ROWS][MICRO_COLS];
    for (int r = 0; r < MICRO_ROWS; r++)
        for (int j = 0; j < MICRO_COLS; j++)
            sum[r][j] = acc[r * ldacc + j];
    for (size_t p = 0; p < depth; p++) {
        const float *row = b + p * ldb;
        for (int r = 0; r < MICRO_ROWS; r++) {
            const float value = a[r * lda + p];
            for (int j = 0; j < MICRO_COLS; j++)
                sum[r][j] += value * row[j];
        }
    }
    for (int r = 0; r < MICRO_ROWS; r++)
        for (int j = 0; j < MICRO_COLS; j++)
            acc[r * ldacc + j] = sum[r][j];
}

/* The edges (fewer than 4 rows or 8 columns left): the same sums, scalar. */
static void edge_kernel(const float *a, size_t lda, const float *b, size_t ldb, size_t depth,
                        float *acc, size_t ldacc, size_t rows, size_t cols)
{
    for (size_t r = 0; r < rows; r++)
        for (size_t p = 0; p < depth; p++) {
            const float value = a[r * lda + p];
            const float *row = b + p * ldb;
            for (size_t j = 0; j < cols; j++)
                acc[r * ldacc + j] += value * row[j];
        }
}

typedef struct blocked_job {
    gemm_args g;
    size_t column_blocks;
} blocked_job;

static void blocked_task(size_t task, void *user)
{
    const blocked_job *job = user;
    const gemm_args *g = &job->g;
    const size_t row0 = (task / job->column_blocks) * BLOCK_ROWS;
    const size_t col0 = (task % job->column_blocks) * BLOCK_COLS;
    const size_t rows = g->m - row0 < BLOCK_ROWS ? g->m - row0 : BLOCK_ROWS;
    const size_t cols = g->n - col0 < BLOCK_COLS ? g->n - col0 : BLOCK_COLS;
    float acc[BLOCK_ROWS * BLOCK_COLS];
    memset(acc, 0, sizeof acc);
    for (size_t p0 = 0; p0 < g->k; p0 += PANEL_DEPTH) {
        const size_t depth = g->k - p0 < PANEL_DEPTH ? g->k - p0 : PANEL_DEPTH;
        for (size_t j = 0; j < cols; j += MICRO_COLS) {
            const size_t micro_cols = cols - j < MICRO_COLS ? cols - j : MICRO_COLS;
            const float *b = g->b + p0 * g->ldb + col0 + j;
            for (size_t i = 0; i < rows; i += MICRO_ROWS) {
                const size_t micro_rows = rows - i < MICRO_ROWS ? rows - i : MICRO_ROWS;
                const float *a = g->a + (row0 + i) * g->lda + p0;
                float *tile = acc + i * BLOCK_COLS + j;
                if (micro_rows == MICRO_ROWS && micro_cols == MICRO_COLS)
                    micro_kernel(a, g->lda, b, g->ldb, depth, tile, BLOCK_COLS);
                else
                    edge_kernel(a, g->lda, b, g->ldb, depth, tile, BLOCK_COLS, micro_rows,
                                micro_cols);
            }
        }
    }
    for (size_t i = 0; i < rows; i++)
        for (size_t j = 0; j < cols; j++) {
            float *c = &g->c[(row0 + i) * g->ldc + col0 + j];
            *c = epilogue(acc[i * BLOCK_COLS + j], g->alpha, g->beta, c);
        }
}

static warplab_status gemm_blocked(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    blocked_job job = {make_args(launch), 0};
    if (job.g.m == 0 || job.g.n == 0)
        return WARPLAB_OK;
    job.column_blocks = (job.g.n + BLOCK_COLS - 1) / BLOCK_COLS;
    const size_t row_blocks = (job.g.m + BLOCK_ROWS - 1) / BLOCK_ROWS;
    wl_parallel_for(backend->info.multiprocessors, row_blocks * job.column_blocks, blocked_task,
                    &job);
    return WARPLAB_OK;
}
/* warplab:end */

static const wl_impl loop_impl = {.ladder = "gemm", .rung = "cpu_loop", .launch = gemm_loop};
static const wl_impl blocked_impl = {
    .ladder = "gemm", .rung = "cpu_blocked", .launch = gemm_blocked};

/* warplab_gemm_ex (gemm_ex_cpu.c) and the ladder's rungs that run it. */
extern const wl_impl wl_cpu_gemm_ex_impl;

const wl_impl *const wl_cpu_gemm_impls[] = {&loop_impl,
                                            &blocked_impl,
                                            &wl_cpu_gemm_ex_impl,
                                            &wl_gemm_ex_tf32_impl,
                                            &wl_gemm_ex_bf16_impl,
                                            &wl_gemm_ex_fp16_impl,
                                            NULL};
