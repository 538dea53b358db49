/* warplab_gemm_ex on the cpu backend: the reference form of its function.
 * op(A) and op(B) are first widened to float in the workspace (TF32:
 * truncated to TF32, as the tensor cores read FP32 words), op(A) as m x k
 * and op(B) as k x n rows; then each task computes rows of C with FP32
 * sums, a row of B at a time, and stores them in C's type (16-bit: rounded
 * to nearest even). The products of 16-bit or TF32 values are exact in
 * FP32, so their sums are the only rounding, as on the GPU. */
#include "cpu.h"
#include "kernels/gemm_problem.h"

#include <math.h>
#include <string.h>

/* warplab:rung gemm ex_tf32 ex_bf16 ex_fp16 */
/* Columns of C a task sums at once (on its stack). */
#define EX_COLUMNS 512

static float truncate_tf32(float x)
{
    if (isnan(x))
        return x;
    return wl_bits_float(wl_float_bits(x) & 0xFFFFE000u);
}

static float load_value(const void *base, warplab_dtype type, size_t index, bool tf32)
{
    switch (type) {
    case WARPLAB_BFLOAT16: return wl_bf16_to_float(((const uint16_t *)base)[index]);
    case WARPLAB_FLOAT16: return wl_fp16_to_float(((const uint16_t *)base)[index]);
    default: {
        const float x = ((const float *)base)[index];
        return tf32 ? truncate_tf32(x) : x;
    }
    }
}

typedef struct ex_job {
    const wl_problem *p;
    const void *a, *b;
    void *c;
    warplab_dtype c_type;
    float *af, *bf; /* op(A) m x k, op(B) k x n, in the workspace */
    size_t m, n, k, lda, ldb, ldc;
    bool tf32;
} ex_job;

/* Row i of op(A), widened. */
static void widen_a(size_t i, void *user)
{
    const ex_job *j = user;
    const bool trans = wl_gemm_trans_a(j->p);
    for (size_t p = 0; p < j->k; p++)
        j->af[i * j->k + p] =
            load_value(j->a, j->p->dtype, trans ? p * j->lda + i : i * j->lda + p, j->tf32);
}

/* Row p of op(B), widened. */
static void widen_b(size_t p, void *user)
{
    const ex_job *j = user;
    const bool trans = wl_gemm_trans_b(j->p);
    for (size_t col = 0; col < j->n; col++)
        j->bf[p * j->n + col] =
            load_value(j->b, j->p->dtype, trans ? col * j->ldb + p : p * j->ldb + col, j->tf32);
}

static void store_c(const ex_job *j, size_t index, float sum)
{
    const float alpha = (float)j->p->alpha, beta = (float)j->p->beta;
    if (j->c_type == WARPLAB_FLOAT32) {
        float *c = (float *)j->c + index;
        *c = beta == 0.0f ? alpha * sum : alpha * sum + beta * *c;
        return;
    }
    uint16_t *c = (uint16_t *)j->c + index;
    float value = alpha * sum;
    if (beta != 0.0f)
        value += beta * load_value(j->c, j->c_type, index, false);
    *c = j->c_type == WARPLAB_BFLOAT16 ? wl_float_to_bf16(value) : wl_float_to_fp16(value);
}

static void row_task(size_t i, void *user)
{
    const ex_job *j = user;
    float acc[EX_COLUMNS];
    for (size_t j0 = 0; j0 < j->n; j0 += EX_COLUMNS) {
        const size_t cols = j->n - j0 < EX_COLUMNS ? j->n - j0 : EX_COLUMNS;
        memset(acc, 0, cols * sizeof acc[0]);
        for (size_t p = 0; p < j->k; p++) {
            const float a = j->af[i * j->k + p];
            const float *b = j->bf + p * j->n + j0;
            for (size_t col = 0; col < cols; col++)
                acc[col] += a * b[col];
        }
        for (size_t col = 0; col < cols; col++)
            store_c(j, i * j->ldc + j0 + col, acc[col]);
    }
}

/* Workspace: op(A) and op(B) as floats. The public call keeps every matrix
 * under 2^31 elements, so the products do not overflow. */
static size_t ex_scratch(wl_backend *backend, const wl_problem *p)
{
    (void)backend;
    return (wl_gemm_m(p) * wl_gemm_k(p) + wl_gemm_k(p) * wl_gemm_n(p)) * sizeof(float);
}

static warplab_status ex_launch(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    const wl_problem *p = launch->problem;
    ex_job job;
    memset(&job, 0, sizeof job);
    job.p = p;
    job.a = wl_view_ptr(launch->buf[GEMM_A]);
    job.b = wl_view_ptr(launch->buf[GEMM_B]);
    job.c = wl_view_ptr(launch->buf[GEMM_C]);
    job.c_type = (p->variant & WL_GEMM_C_INPUT_TYPE) ? p->dtype : WARPLAB_FLOAT32;
    job.m = wl_gemm_m(p);
    job.n = wl_gemm_n(p);
    job.k = wl_gemm_k(p);
    job.lda = wl_gemm_lda(p);
    job.ldb = wl_gemm_ldb(p);
    job.ldc = wl_gemm_ldc(p);
    job.tf32 = (p->variant & WL_GEMM_COMPUTE_TF32) != 0;
    if (job.m == 0 || job.n == 0)
        return WARPLAB_OK;
    if (launch->scratch.bytes < ex_scratch(backend, p))
        return wl_fail(backend, WARPLAB_ERROR_INVALID_ARGUMENT, "gemm_ex: workspace too small");
    job.af = wl_view_ptr(launch->scratch);
    job.bf = job.af + job.m * job.k;
    const int threads = backend->info.multiprocessors;
    wl_parallel_for(threads, job.k ? job.m : 0, widen_a, &job);
    wl_parallel_for(threads, job.k, widen_b, &job);
    wl_parallel_for(threads, job.m, row_task, &job);
    return WARPLAB_OK;
}
/* warplab:end */

const wl_impl wl_cpu_gemm_ex_impl = {
    .ladder = "gemm", .rung = WL_GEMM_EX_IMPL, .scratch_bytes = ex_scratch, .launch = ex_launch};
