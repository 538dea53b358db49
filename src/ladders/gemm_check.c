/* Verification of the matrix-multiply ladder: every C element the check
 * looks at is recomputed in double precision and must lie within a bound
 * that grows with k.
 *
 * The bound (Higham, "Accuracy and Stability of Numerical Algorithms", 3.1):
 * a dot product of k terms summed in floating point with unit roundoff u, in
 * any order, is off by at most gamma_k * sum |a_p| |b_p|, gamma_k =
 * k u / (1 - k u). The alpha and beta steps add two roundings:
 *
 *   |C - C_exact| <= gamma_{k+2} * (|alpha| * sum_p |a_ip| |b_pj| + |beta| |c0_ij|)
 *                    + (k + 2) * FLT_MIN * (|alpha| + 1)     (flushed subnormals)
 *
 * FP32 rungs: u = 2^-24 (round to nearest). Tensor-core rungs: their
 * operands are first rounded to TF32 or BF16 and the reference rounds them
 * the same way, so the products are exact and only the accumulation errs;
 * tensor cores may truncate while they accumulate, so u = 2^-23 there.
 * BF16 operands are rounded to nearest even (by the rung's setup, for the
 * rung and for cuBLAS alike). TF32 rounding is up to the hardware or the
 * library (cvt.rna, truncation, or nearest even): an element passes when it
 * is within the bound of any of the three. cuBLAS's TF32 mode is not tied to
 * one of them (WL_GEMM_TF32_ANY): there the unrounded operands are the
 * reference and each product may be off by its operands' rounding, at most
 * 2^-10 each (truncation), so gamma gains 2 * 2^-10 + 2^-20 = 2^-9 + 2^-20.
 * The double-precision reference's own error (u = 2^-53) is added to u.
 *
 * NaN never passes unless the reference is NaN (a NaN planted in A).
 * Small problems (m*n*k <= 2^27) are checked in full. Larger ones: every
 * element must be finite (outputs are poisoned with NaN, so an unwritten
 * element fails), and whole rows (first, last and random), whole columns
 * (first, last and random) and random elements are checked against the
 * reference. With ldc > n, the gaps between C's rows must be untouched. */
#include "gemm.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FULL_CHECK_MACS ((double)(1u << 27))
#define SAMPLE_ROWS 8
#define SAMPLE_COLUMNS 8
#define SAMPLE_POINTS 2048
#define MAX_MODELS 3
/* Non-finite elements outside the samples are recomputed (to report the
 * expected value) up to this many; the rest are counted as they are. */
#define MAX_RECOMPUTED 64

/* Rounds away the low `drop` bits of a float's significand. */
typedef enum rounding { ROUND_NEAREST_EVEN = 0, ROUND_NEAREST_AWAY, ROUND_TOWARD_ZERO } rounding;

static float round_significand(float x, int drop, rounding mode)
{
    if (isnan(x) || isinf(x))
        return x;
    uint32_t bits = wl_float_bits(x);
    const uint32_t mask = (1u << drop) - 1u, half = 1u << (drop - 1);
    switch (mode) {
    case ROUND_NEAREST_EVEN: bits += half - 1u + ((bits >> drop) & 1u); break;
    case ROUND_NEAREST_AWAY: bits += half; break;
    case ROUND_TOWARD_ZERO: break;
    }
    return wl_bits_float(bits & ~mask);
}

float wl_gemm_round_bf16(float x)
{
    return round_significand(x, 16, ROUND_NEAREST_EVEN);
}

static float round_fp16(float x)
{
    return wl_fp16_to_float(wl_float_to_fp16(x));
}

/* ------------------------------------------------------------------------ */

typedef struct reference {
    size_t m, n, k, lda, ldb, ldc;
    /* Element steps of op(A) along i and p, of op(B) along p and j (the
     * stored layout: transposes swap them). */
    size_t a_i, a_p, b_p, b_j;
    double alpha, beta;
    const float *c;  /* the result */
    const float *c0; /* C before the run (beta != 0), else NULL */
    int models;      /* rounding models of the operands; an element may match any */
    const float *a[MAX_MODELS], *b[MAX_MODELS];
    double gamma; /* gamma_{k+2} */
    double tiny;  /* the subnormal allowance */
    double c_u;   /* C's own rounding to a narrower type (relative), 0 = none */
} reference;

/* Expected value and bound of C[i][j] under each model from the dot
 * products and their absolute sums, then the closest model decides. */
static void judge(const reference *r, wl_check *check, size_t i, size_t j, const double *dot,
                  const double *abs_sum)
{
    const size_t index = i * r->ldc + j;
    const double got = (double)r->c[index];
    const double c0 = r->c0 ? (double)r->c0[index] : 0.0;
    double best_expected = 0.0, best_bound = 0.0, best_ratio = INFINITY;
    for (int model = 0; model < r->models; model++) {
        double expected = r->alpha * dot[model] + (r->c0 ? r->beta * c0 : 0.0);
        /* C rounded once more: off by c_u of the FP32 result, itself
         * within the first bound of expected. */
        double bound =
            r->gamma * (fabs(r->alpha) * abs_sum[model] + fabs(r->beta * c0)) * (1.0 + r->c_u) +
            r->c_u * fabs(expected) + r->tiny;
        double diff = fabs(got - expected);
        double ratio = isnan(expected) ? (isnan(got) ? 0.0 : INFINITY)
                       : isnan(diff)   ? INFINITY
                                       : diff / bound;
        if (model == 0 || ratio < best_ratio) {
            best_ratio = ratio;
            best_expected = expected;
            best_bound = bound;
        }
    }
    wl_check_value(check, index, got, best_expected, best_bound);
}

/* One element from scratch: a row of A against a (strided) column of B. */
static void check_point(const reference *r, wl_check *check, size_t i, size_t j)
{
    double dot[MAX_MODELS], abs_sum[MAX_MODELS];
    for (int model = 0; model < r->models; model++) {
        const float *a = r->a[model] + i * r->a_i, *b = r->b[model] + j * r->b_j;
        double sum = 0.0, magnitude = 0.0;
        for (size_t p = 0; p < r->k; p++) {
            double product = (double)a[p * r->a_p] * (double)b[p * r->b_p];
            sum += product;
            magnitude += fabs(product);
        }
        dot[model] = sum;
        abs_sum[model] = magnitude;
    }
    judge(r, check, i, j, dot, abs_sum);
}

/* A whole row of C: row i of A times B, accumulated a row of B at a time. */
static void check_row(const reference *r, wl_check *check, size_t i, double *work)
{
    const size_t n = r->n;
    double *dot = work, *abs_sum = work + (size_t)r->models * n;
    for (int model = 0; model < r->models; model++) {
        double *d = dot + (size_t)model * n, *s = abs_sum + (size_t)model * n;
        memset(d, 0, n * sizeof *d);
        memset(s, 0, n * sizeof *s);
        const float *a = r->a[model] + i * r->a_i;
        for (size_t p = 0; p < r->k; p++) {
            const double ap = (double)a[p * r->a_p];
            const float *b = r->b[model] + p * r->b_p;
            for (size_t j = 0; j < n; j++) {
                double product = ap * (double)b[j * r->b_j];
                d[j] += product;
                s[j] += fabs(product);
            }
        }
    }
    for (size_t j = 0; j < n; j++) {
        double dj[MAX_MODELS], sj[MAX_MODELS];
        for (int model = 0; model < r->models; model++) {
            dj[model] = dot[(size_t)model * n + j];
            sj[model] = abs_sum[(size_t)model * n + j];
        }
        judge(r, check, i, j, dj, sj);
    }
}

/* Folds a task's check into the total, keeping the first bad element of
 * the earliest task that had one. */
static void merge(wl_check *total, const wl_check *part)
{
    if (part->bad && !total->bad) {
        total->first_bad = part->first_bad;
        total->got = part->got;
        total->expected = part->expected;
    }
    total->checked += part->checked;
    total->bad += part->bad;
    if (part->worst_ratio > total->worst_ratio)
        total->worst_ratio = part->worst_ratio;
}

/* Parallel work: rows, columns or points, each task with its own check. */
typedef struct job {
    const reference *r;
    const size_t *rows; /* full rows to check */
    size_t row_count;
    const size_t *columns; /* full columns (every row) */
    size_t column_count;
    const size_t *points; /* (i, j) pairs */
    size_t point_count;
    wl_check *checks; /* one per task */
    bool out_of_memory;
} job;

#define POINTS_PER_TASK 64

static size_t job_tasks(const job *w)
{
    return w->row_count + (w->column_count ? w->r->m : 0) +
           (w->point_count + POINTS_PER_TASK - 1) / POINTS_PER_TASK;
}

static void run_task(size_t task, void *user)
{
    job *w = user;
    const reference *r = w->r;
    wl_check *check = &w->checks[task];
    wl_check_init(check);
    if (task < w->row_count) {
        double *work = malloc(2 * (size_t)r->models * r->n * sizeof *work);
        if (!work) {
            w->out_of_memory = true;
            return;
        }
        check_row(r, check, w->rows[task], work);
        free(work);
        return;
    }
    task -= w->row_count;
    if (w->column_count) {
        if (task < r->m) {
            for (size_t c = 0; c < w->column_count; c++)
                check_point(r, check, task, w->columns[c]);
            return;
        }
        task -= r->m;
    }
    size_t begin = task * POINTS_PER_TASK;
    size_t end =
        begin + POINTS_PER_TASK < w->point_count ? begin + POINTS_PER_TASK : w->point_count;
    for (size_t q = begin; q < end; q++)
        check_point(r, check, w->points[2 * q], w->points[2 * q + 1]);
}

static void mark_bad(wl_check *check, size_t index, double got, double expected)
{
    if (check->bad == 0) {
        check->first_bad = index;
        check->got = got;
        check->expected = expected;
    }
    check->checked++;
    check->bad++;
    check->worst_ratio = INFINITY;
}

/* Between C's rows (ldc > n) nothing may change: the poison stays (beta = 0,
 * C only written) or the values that were there stay. */
static void check_gaps(const reference *r, wl_check *check)
{
    for (size_t i = 0; i + 1 < r->m; i++)
        for (size_t j = r->n; j < r->ldc; j++) {
            size_t index = i * r->ldc + j;
            uint32_t want = r->c0 ? wl_float_bits(r->c0[index]) : WL_POISON_PATTERN;
            if (wl_float_bits(r->c[index]) != want)
                mark_bad(check, index, (double)r->c[index], (double)wl_bits_float(want));
        }
}

/* Rounded copies of an operand (rows x cols, stride ld) for one model;
 * drop = 0: to IEEE half. */
static float *rounded_copy(const float *x, size_t count, int drop, rounding mode)
{
    float *copy = malloc((count ? count : 1) * sizeof *copy);
    if (!copy)
        return NULL;
    for (size_t i = 0; i < count; i++)
        copy[i] = drop ? round_significand(x[i], drop, mode) : round_fp16(x[i]);
    return copy;
}

static size_t pick(wl_rng *rng, size_t below)
{
    return (size_t)(wl_rng_next(rng) % below);
}

/* Distinct sample indices below `count`: first, last, then random ones
 * (also what the GPU reference samples, src/lab/cuda/reference.cu). */
size_t wl_gemm_sample_lines(wl_rng *rng, size_t count, size_t *out, size_t want)
{
    size_t used = 0;
    if (count == 0)
        return 0;
    out[used++] = 0;
    if (count > 1)
        out[used++] = count - 1;
    for (size_t tries = 0; used < want && used < count && tries < 16 * want; tries++) {
        size_t candidate = pick(rng, count);
        bool seen = false;
        for (size_t u = 0; u < used; u++)
            seen = seen || out[u] == candidate;
        if (!seen)
            out[used++] = candidate;
    }
    return used;
}

warplab_status wl_gemm_verify(const wl_problem *problem, const void *const *host, wl_check *check,
                              wl_gemm_precision precision)
{
    return wl_gemm_verify_rounded(problem, host, check, precision, 0.0, 0.0);
}

warplab_status wl_gemm_verify_rounded(const wl_problem *problem, const void *const *host,
                                      wl_check *check, wl_gemm_precision precision, double c_u,
                                      double c_tiny)
{
    reference r;
    memset(&r, 0, sizeof r);
    r.c_u = c_u;
    r.m = wl_gemm_m(problem);
    r.n = wl_gemm_n(problem);
    r.k = wl_gemm_k(problem);
    r.lda = wl_gemm_lda(problem);
    r.ldb = wl_gemm_ldb(problem);
    r.ldc = wl_gemm_ldc(problem);
    r.a_i = wl_gemm_trans_a(problem) ? 1 : r.lda;
    r.a_p = wl_gemm_trans_a(problem) ? r.lda : 1;
    r.b_p = wl_gemm_trans_b(problem) ? 1 : r.ldb;
    r.b_j = wl_gemm_trans_b(problem) ? r.ldb : 1;
    r.alpha = (double)(float)problem->alpha;
    r.beta = (double)(float)problem->beta;
    r.c = host[GEMM_C];
    r.c0 = problem->beta != 0.0 ? host[GEMM_BUFFERS + GEMM_C] : NULL;
    if (problem->beta != 0.0 && !r.c0)
        return WARPLAB_ERROR_INVALID_ARGUMENT; /* the harness keeps C's input */
    if (r.m == 0 || r.n == 0)
        return WARPLAB_OK;

    const float *a = host[GEMM_A], *b = host[GEMM_B];
    const size_t a_count = wl_gemm_span(wl_gemm_a_rows(problem), wl_gemm_a_cols(problem), r.lda),
                 b_count = wl_gemm_span(wl_gemm_b_rows(problem), wl_gemm_b_cols(problem), r.ldb);
    float *owned[2 * MAX_MODELS] = {NULL};
    int owned_count = 0;
    double u = 0x1p-24, operand_rounding = 0.0;
    if (precision == WL_GEMM_FP32 || precision == WL_GEMM_TF32_ANY) {
        r.models = 1;
        r.a[0] = a;
        r.b[0] = b;
        if (precision == WL_GEMM_TF32_ANY) {
            u = 0x1p-23;
            operand_rounding = 0x1p-9 + 0x1p-20;
        }
    } else {
        u = 0x1p-23;
        static const rounding tf32_modes[] = {ROUND_NEAREST_AWAY, ROUND_TOWARD_ZERO,
                                              ROUND_NEAREST_EVEN};
        r.models = precision == WL_GEMM_TF32 ? 3 : 1;
        int drop = precision == WL_GEMM_TF32 ? 13 : precision == WL_GEMM_FP16 ? 0 : 16;
        for (int model = 0; model < r.models; model++) {
            rounding mode = precision == WL_GEMM_TF32 ? tf32_modes[model] : ROUND_NEAREST_EVEN;
            float *ra = rounded_copy(a, a_count, drop, mode);
            float *rb = rounded_copy(b, b_count, drop, mode);
            owned[owned_count++] = ra;
            owned[owned_count++] = rb;
            if (!ra || !rb) {
                for (int i = 0; i < owned_count; i++)
                    free(owned[i]);
                return WARPLAB_ERROR_HOST_OUT_OF_MEMORY;
            }
            r.a[model] = ra;
            r.b[model] = rb;
        }
    }
    u += 0x1p-53;
    double steps = (double)r.k + 2.0;
    r.gamma = steps * u / (1.0 - steps * u) + operand_rounding;
    r.tiny = steps * FLT_MIN * (fabs(r.alpha) + 1.0) + c_tiny;

    check_gaps(&r, check);

    job w;
    memset(&w, 0, sizeof w);
    w.r = &r;
    size_t *rows = NULL, *columns = NULL, *points = NULL;
    const bool full = (double)r.m * (double)r.n * (double)r.k <= FULL_CHECK_MACS;
    wl_check outside;
    wl_check_init(&outside);
    if (full) {
        rows = malloc(r.m * sizeof *rows);
        if (rows)
            for (size_t i = 0; i < r.m; i++)
                rows[i] = i;
        w.row_count = r.m;
    } else {
        /* Reproducible samples: seeded by the shape and the first inputs. */
        wl_rng rng;
        wl_rng_seed(&rng, (uint64_t)r.m * 0x9E3779B97F4A7C15ull ^ (uint64_t)r.n << 21 ^
                              (uint64_t)r.k ^ wl_float_bits(a[0]) ^
                              (uint64_t)wl_float_bits(b[0]) << 32);
        rows = malloc(SAMPLE_ROWS * sizeof *rows);
        columns = malloc(SAMPLE_COLUMNS * sizeof *columns);
        points = malloc(2 * SAMPLE_POINTS * sizeof *points);
        if (rows && columns && points) {
            w.row_count = wl_gemm_sample_lines(&rng, r.m, rows, SAMPLE_ROWS);
            w.column_count = wl_gemm_sample_lines(&rng, r.n, columns, SAMPLE_COLUMNS);
            w.point_count = SAMPLE_POINTS;
            for (size_t q = 0; q < SAMPLE_POINTS; q++) {
                points[2 * q] = pick(&rng, r.m);
                points[2 * q + 1] = pick(&rng, r.n);
            }
        }
        /* Everything else must at least be finite (written, not poison). */
        size_t recomputed = 0;
        for (size_t i = 0; i < r.m && !problem->nan_input; i++)
            for (size_t j = 0; j < r.n; j++) {
                float got = r.c[i * r.ldc + j];
                if (isfinite(got))
                    continue;
                if (recomputed++ < MAX_RECOMPUTED)
                    check_point(&r, &outside, i, j);
                else
                    mark_bad(&outside, i * r.ldc + j, (double)got, 0.0);
            }
    }
    w.rows = rows;
    w.columns = columns;
    w.points = points;
    warplab_status status = WARPLAB_OK;
    size_t tasks = job_tasks(&w);
    w.checks = calloc(tasks ? tasks : 1, sizeof *w.checks);
    if (!rows || (!full && (!columns || !points)) || !w.checks) {
        status = WARPLAB_ERROR_HOST_OUT_OF_MEMORY;
    } else {
        wl_parallel_for(wl_cpu_threads(), tasks, run_task, &w);
        if (w.out_of_memory)
            status = WARPLAB_ERROR_HOST_OUT_OF_MEMORY;
        for (size_t t = 0; t < tasks; t++)
            merge(check, &w.checks[t]);
        merge(check, &outside);
    }
    free(w.checks);
    free(rows);
    free(columns);
    free(points);
    for (int i = 0; i < owned_count; i++)
        free(owned[i]);
    if (status != WARPLAB_OK)
        return status;
    return check->bad ? WARPLAB_ERROR_VERIFICATION_FAILED : WARPLAB_OK;
}
