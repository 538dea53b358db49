/* warplab_gemm_ex() as a user calls it: buffers of exactly the size each
 * view needs (no guard zones), odd shapes (GEMV-like, several tensor-core
 * tiles with partial edges, k = 0), every op(A) x op(B), every input type
 * and output type, FP32 and TF32 compute, tight and padded leading
 * dimensions, beta = 0 (C holds NaN and must not be read) and beta != 0,
 * NaN in A and B propagating to their row and column. Each result is
 * compared with a double-precision reference under the header's bound for
 * its precision; the gaps between C's rows must stay untouched. Bad
 * arguments are refused before any work, C untouched.
 *
 * The inputs are generated as the user holds them (float, or 16-bit words)
 * and decoded here independently of the library. Usage: test_gemm_ex_api
 * [backend] [--ex-only | --tf32-only | --sanitizer | --lines | --tall | --tall-short |
 * --swapped | --swapped-short | --thin | --thin-short | --fp32-copy [--sanitizer] |
 * --small-mma]
 * (all compiled backends by default). --ex-only leaves out the FP32 op N, N
 * float cases, which run warplab_gemm's own path; --sanitizer is the GPU check's short
 * list under compute-sanitizer (see sanitizer_keeps); --lines the large
 * cases alone (TF32 operands copied onto 128-byte lines, 16-bit over many
 * tiles: the GPU check runs them under memcheck and initcheck); --tall the
 * 192 x 128 wgmma tile's cases alone (tall_cases; --tall-short fewer);
 * --swapped the swapped 16-bit product's (swapped_cases; --swapped-short
 * fewer); --thin ex16_thin's as planned (thin_cases; --thin-short fewer);
 * --fp32-copy
 * (cuda alone, 77 without a GPU) FP32 compute on N, T / T, N / T, T float
 * operands, as planned and with the planner's fp32_dispatch_copy row forced
 * (the op T operands transposed into the workspace, the FP32 dispatcher on
 * N, N); --small-mma (cuda alone, 77 without a GPU) the small_mma rows
 * forced (small_mma_cases). */
#include "../check.h"

#include <warplab.h>
#include <warplab_lab.h>

#include <float.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

static uint32_t rng_state = 12345u;

static uint32_t next_random(void)
{
    rng_state = rng_state * 1664525u + 1013904223u;
    return rng_state >> 8;
}

static double decode_fp16(uint16_t h)
{
    const int exponent = (h >> 10) & 0x1F, mantissa = h & 0x3FF;
    double value = exponent == 0    ? ldexp(mantissa, -24)
                   : exponent == 31 ? (mantissa ? NAN : INFINITY)
                                    : ldexp(1024 + mantissa, exponent - 25);
    return (h & 0x8000) ? -value : value;
}

static double decode_bf16(uint16_t h)
{
    uint32_t bits = (uint32_t)h << 16;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/* Element index of a stored matrix in the type's units -> value. */
static double value_at(const void *data, warplab_dtype type, size_t index)
{
    switch (type) {
    case WARPLAB_BFLOAT16: return decode_bf16(((const uint16_t *)data)[index]);
    case WARPLAB_FLOAT16: return decode_fp16(((const uint16_t *)data)[index]);
    default: return ((const float *)data)[index];
    }
}

/* A random value in about [-1, 1], exactly representable in the type. */
static void random_element(void *data, warplab_dtype type, size_t index)
{
    const uint32_t r = next_random();
    if (type == WARPLAB_FLOAT32) {
        ((float *)data)[index] = (float)((double)r / (double)(1u << 24) * 2.0 - 1.0);
    } else if (type == WARPLAB_BFLOAT16) {
        /* sign, exponent 2^-6 .. 2^0, 7 mantissa bits */
        const uint16_t exponent = (uint16_t)(121 + r % 7), mantissa = (uint16_t)((r >> 4) & 0x7F);
        ((uint16_t *)data)[index] = (uint16_t)(((r >> 12) & 1u) << 15 | exponent << 7 | mantissa);
    } else {
        const uint16_t exponent = (uint16_t)(9 + r % 7), mantissa = (uint16_t)((r >> 4) & 0x3FF);
        ((uint16_t *)data)[index] = (uint16_t)(((r >> 15) & 1u) << 15 | exponent << 10 | mantissa);
    }
}

static void put_nan(void *data, warplab_dtype type, size_t index)
{
    if (type == WARPLAB_FLOAT32)
        ((float *)data)[index] = NAN;
    else
        ((uint16_t *)data)[index] = type == WARPLAB_BFLOAT16 ? 0x7FC0 : 0x7E00;
}

static size_t span(size_t rows, size_t cols, size_t ld)
{
    return rows == 0 || cols == 0 ? 0 : (rows - 1) * ld + cols;
}

typedef struct gemm_case {
    size_t m, n, k;
    warplab_op op_a, op_b;
    warplab_dtype in, out;
    warplab_compute compute;
    int padded; /* 1: leading dimensions padded off 16 bytes; 2: by 16 bytes */
    float alpha, beta;
    int nan; /* plant a NaN in A and one in B */
} gemm_case;

static char describe_buffer[256];
static bool ex_only = false;
static bool tf32_only = false;     /* --tf32-only: the TF32 cases alone */
static bool sanitizer = false;     /* --sanitizer: the short list (sanitizer_keeps) */
static bool lines_only = false;    /* --lines: the line-copy shapes alone */
static bool tall_only = false;     /* --tall: the 192 x 128 tile's cases alone (tall_cases) */
static bool tall_short = false;    /* --tall-short: those of N, N and T, T on 539 x 4096 x 256 */
static bool swapped_only = false;  /* --swapped: the swapped product's cases (swapped_cases) */
static bool swapped_short = false; /* --swapped-short: its first shape alone */
static bool thin_only = false;     /* --thin: ex16_thin as planned (thin_cases) */
static bool thin_short = false;    /* --thin-short: its first shape alone */
/* Views one element past the start of their allocation (bases off 16
 * bytes: 2-byte aligned for 16-bit); 0: the allocation itself. */
static bool views_off = false;

/* A buffer of bytes: the allocation, or (views_off) a view of one
 * element's bytes past its start. */
static warplab_status make_buffer(warplab_context *context, size_t bytes, size_t element,
                                  warplab_buffer **buffer)
{
    if (!views_off)
        return warplab_buffer_create(context, bytes, buffer);
    warplab_buffer *parent = NULL;
    warplab_status status = warplab_buffer_create(context, bytes + element, &parent);
    if (status == WARPLAB_OK)
        status = warplab_buffer_view(parent, element, bytes, buffer);
    warplab_buffer_destroy(parent); /* the view keeps the storage */
    return status;
}

/* --sanitizer: the full list takes minutes on the GPU (the double-precision
 * reference of the large shapes) and far longer under compute-sanitizer's
 * racecheck and initcheck. The short list keeps every shape (so every path
 * of the cost models: skinny columns and warps, mma.sync whole and split,
 * the TMA path's copies, wgmma as stored with ragged edges, split k and
 * 128 x 256 tiles and the narrow 64 x 64 tile, the tiled fallback, k = 0,
 * TF32's FP32-dispatcher, small tile and wgmma routes) and every op
 * combination for TF32 and BF16, and
 * rotates the rest over the ops: BF16's output type and tight/padded
 * variant through the four ops; FP16 (the same kernels, another type) and
 * FP32 (the dispatcher at N, N; the tiled fallback at T, T) at N, N and T, T
 * alone; TF32 tight at N, N and T, N, padded at N, T and T, T. C of more than
 * a million elements (1104 x 4104 x 16, 256 x 512 x 1024) once or twice. */
static bool sanitizer_keeps(const gemm_case *t, int ops)
{
    if (!sanitizer)
        return true;
    const bool large = t->m * t->n > ((size_t)1 << 20) || t->m * t->n * t->k > ((size_t)1 << 26);
    if (t->in == WARPLAB_FLOAT32 && t->compute == WARPLAB_COMPUTE_TF32)
        return t->padded == (ops == 2 || ops == 3) && (!large || ops == 1);
    if (t->in == WARPLAB_FLOAT32)
        return (ops == 0 || ops == 3) && t->padded == (ops == 3) && !large;
    const bool narrow = t->out != WARPLAB_FLOAT32;
    if (t->in == WARPLAB_FLOAT16)
        return (ops == 0 || ops == 3) && t->padded == (ops == 3) && narrow == (ops == 3) && !large;
    return t->padded == ((ops & 1) != 0) && narrow == ((ops & 2) != 0) && (!large || ops == 0);
}

static const char *describe(const gemm_case *t)
{
    snprintf(describe_buffer, sizeof describe_buffer,
             "%zux%zux%zu op=%c%c %s->%s %s ld%s alpha=%g beta=%g%s", t->m, t->n, t->k,
             t->op_a == WARPLAB_OP_T ? 'T' : 'N', t->op_b == WARPLAB_OP_T ? 'T' : 'N',
             warplab_dtype_name(t->in), warplab_dtype_name(t->out),
             t->compute == WARPLAB_COMPUTE_TF32 ? "tf32" : "fp32", t->padded ? "+pad" : "",
             (double)t->alpha, (double)t->beta, t->nan ? " NaN" : "");
    return describe_buffer;
}

/* A case: the shape, op(A) and op(B) from the bits of ops (1: A, 2: B
 * transposed), the types; variant 0 tight with beta = 0 and a NaN in A and
 * B (where there is more than one row and column), 1 padded with beta != 0. */
static gemm_case case_of(size_t m, size_t n, size_t k, int ops, warplab_dtype in, warplab_dtype out,
                         warplab_compute compute, int variant)
{
    gemm_case t;
    memset(&t, 0, sizeof t);
    t.m = m;
    t.n = n;
    t.k = k;
    t.op_a = (ops & 1) ? WARPLAB_OP_T : WARPLAB_OP_N;
    t.op_b = (ops & 2) ? WARPLAB_OP_T : WARPLAB_OP_N;
    t.in = in;
    t.out = out;
    t.compute = compute;
    t.padded = variant;
    t.alpha = variant ? -1.5f : 1.0f;
    t.beta = variant ? 0.5f : 0.0f;
    t.nan = !variant && m > 1 && n > 1 && k > 0;
    return t;
}

/* Runs one case with exact-size buffers and checks every element of C (of
 * every 40th row, the NaN's row and the last, past 2^31 multiply-adds: the
 * reference's time). */
static void run_case(warplab_context *context, const char *backend, const gemm_case *t)
{
    const size_t a_rows = t->op_a == WARPLAB_OP_T ? t->k : t->m;
    const size_t a_cols = t->op_a == WARPLAB_OP_T ? t->m : t->k;
    const size_t b_rows = t->op_b == WARPLAB_OP_T ? t->n : t->k;
    const size_t b_cols = t->op_b == WARPLAB_OP_T ? t->k : t->n;
    const size_t lda = a_cols + (t->padded == 2 ? 8
                                 : t->padded    ? 3
                                                : 0),
                 ldb = b_cols + (t->padded == 2 ? 8
                                 : t->padded    ? 5
                                                : 0);
    const size_t ldc = t->n + (t->padded ? 2 : 0);
    const size_t in_size = warplab_dtype_size(t->in), out_size = warplab_dtype_size(t->out);
    const size_t a_count = span(a_rows, a_cols, lda), b_count = span(b_rows, b_cols, ldb);
    const size_t c_count = span(t->m, t->n, ldc);
    void *a = calloc(a_count + 1, in_size), *b = calloc(b_count + 1, in_size);
    void *c0 = calloc(c_count + 1, out_size), *c = calloc(c_count + 1, out_size);
    for (size_t i = 0; i < a_count; i++)
        random_element(a, t->in, i);
    for (size_t i = 0; i < b_count; i++)
        random_element(b, t->in, i);
    for (size_t i = 0; i < c_count; i++) {
        if (t->beta != 0.0f)
            random_element(c0, t->out, i);
        else
            put_nan(c0, t->out, i); /* beta = 0: C must not be read */
    }
    /* op(A)[i][p] and op(B)[p][j] as stored. */
#define A_INDEX(i, p) (t->op_a == WARPLAB_OP_T ? (p)*lda + (i) : (i)*lda + (p))
#define B_INDEX(p, j) (t->op_b == WARPLAB_OP_T ? (j)*ldb + (p) : (p)*ldb + (j))
    const size_t nan_row = t->m / 2, nan_col = t->n / 3;
    if (t->nan && t->k > 0) {
        put_nan(a, t->in, A_INDEX(nan_row, t->k / 2));
        put_nan(b, t->in, B_INDEX(t->k / 3, nan_col));
    }
    warplab_buffer *ba = NULL, *bb = NULL, *bc = NULL;
    double *a_rows_k = NULL, *b_cols_k = NULL; /* the reference's decoded operands */
    CHECK(make_buffer(context, a_count * in_size, in_size, &ba) == WARPLAB_OK);
    CHECK(make_buffer(context, b_count * in_size, in_size, &bb) == WARPLAB_OK);
    CHECK(make_buffer(context, c_count * out_size, out_size, &bc) == WARPLAB_OK);
    if (!ba || !bb || !bc)
        goto done;
    CHECK(warplab_buffer_write(ba, 0, a, a_count * in_size) == WARPLAB_OK);
    CHECK(warplab_buffer_write(bb, 0, b, b_count * in_size) == WARPLAB_OK);
    CHECK(warplab_buffer_write(bc, 0, c0, c_count * out_size) == WARPLAB_OK);
    warplab_status status = warplab_gemm_ex(
        context, t->op_a, t->op_b, t->m, t->n, t->k, t->alpha, ba, t->in, t->padded ? lda : 0, bb,
        t->in, t->padded ? ldb : 0, t->beta, bc, t->out, t->padded ? ldc : 0, t->compute);
    CHECK_MSG(status == WARPLAB_OK, "%s %s: %s", backend, describe(t), warplab_last_error(context));
    const bool sampled = (double)t->m * (double)t->n * (double)t->k > 0x1p31;
    if (sampled) /* the large cases take seconds each: say which runs */
        fprintf(stderr, "  %s %s: computed, checking sampled rows\n", backend, describe(t));
    CHECK(warplab_buffer_read(bc, 0, c, c_count * out_size) == WARPLAB_OK);

    /* The bound of the header: u = 2^-24 for FP32, 2^-23 (truncating sums)
     * for tensor-core precisions; TF32 adds the operands' truncation. */
    const bool fp32 = t->in == WARPLAB_FLOAT32 && t->compute == WARPLAB_COMPUTE_FP32;
    const double u = (fp32 ? 0x1p-24 : 0x1p-23) + 0x1p-53, steps = (double)t->k + 2.0;
    const double gamma = steps * u / (1.0 - steps * u);
    const double operand = t->compute == WARPLAB_COMPUTE_TF32 ? 0x1p-9 + 0x1p-20 : 0.0;
    const double output = t->out == WARPLAB_BFLOAT16  ? 0x1p-8
                          : t->out == WARPLAB_FLOAT16 ? 0x1p-11
                                                      : 0.0;
    /* op(A) by rows and op(B) by columns, decoded once (the reference's
     * inner loop then reads both contiguously). */
    a_rows_k = malloc((t->m * t->k + 1) * sizeof(double));
    b_cols_k = malloc((t->n * t->k + 1) * sizeof(double));
    CHECK(a_rows_k != NULL && b_cols_k != NULL);
    if (!a_rows_k || !b_cols_k)
        goto done;
    for (size_t i = 0; i < t->m; i++)
        for (size_t p = 0; p < t->k; p++)
            a_rows_k[i * t->k + p] = value_at(a, t->in, A_INDEX(i, p));
    for (size_t p = 0; p < t->k; p++)
        for (size_t j = 0; j < t->n; j++)
            b_cols_k[j * t->k + p] = value_at(b, t->in, B_INDEX(p, j));
    size_t wrong = 0, first_i = 0, first_j = 0;
    double first_got = 0.0, first_expected = 0.0;
    for (size_t i = 0; i < t->m; i++)
        for (size_t j = 0; j < t->n; j++) {
            if (sampled && i % 40 != 0 && i != nan_row && i + 1 != t->m)
                break;
            double dot = 0.0, magnitude = 0.0;
            const double *a_row = a_rows_k + i * t->k, *b_col = b_cols_k + j * t->k;
            for (size_t p = 0; p < t->k; p++) {
                const double product = a_row[p] * b_col[p];
                dot += product;
                magnitude += fabs(product);
            }
            const size_t index = i * ldc + j;
            const double old = t->beta != 0.0f ? value_at(c0, t->out, index) : 0.0;
            const double expected = (double)t->alpha * dot + (double)t->beta * old;
            const double sums = (gamma + operand) * fabs((double)t->alpha) * magnitude +
                                gamma * fabs((double)t->beta * old) + steps * FLT_MIN * 4.0;
            /* A 16-bit C: one more rounding of the FP32 result. */
            const double bound =
                sums + output * (fabs(expected) + sums) + (output ? ldexp(1.0, -24) : 0.0);
            const double got = value_at(c, t->out, index);
            const bool ok = isnan(expected) ? isnan(got) : fabs(got - expected) <= bound;
            if (!ok && wrong++ == 0) {
                first_i = i;
                first_j = j;
                first_got = got;
                first_expected = expected;
            }
        }
    CHECK_MSG(wrong == 0, "%s %s: %zu wrong, first C[%zu][%zu] = %.9g, expected %.9g", backend,
              describe(t), wrong, first_i, first_j, first_got, first_expected);
    /* Between C's rows: untouched. */
    size_t touched = 0;
    for (size_t i = 0; i + 1 < t->m; i++)
        for (size_t j = t->n; j < ldc; j++)
            touched += memcmp((const char *)c + (i * ldc + j) * out_size,
                              (const char *)c0 + (i * ldc + j) * out_size, out_size) != 0;
    CHECK_MSG(touched == 0, "%s %s: %zu padding elements written", backend, describe(t), touched);
    if (t->nan && t->k > 0) {
        /* The NaNs reach their row and column, and only those. */
        size_t nans = 0;
        for (size_t i = 0; i < t->m; i++)
            for (size_t j = 0; j < t->n; j++)
                nans += isnan(value_at(c, t->out, i * ldc + j)) != 0;
        CHECK_MSG(nans == t->m + t->n - 1, "%s %s: %zu NaN, want %zu", backend, describe(t), nans,
                  t->m + t->n - 1);
    }
#undef A_INDEX
#undef B_INDEX
done:
    free(a_rows_k);
    free(b_cols_k);
    warplab_buffer_destroy(ba);
    warplab_buffer_destroy(bb);
    warplab_buffer_destroy(bc);
    free(a);
    free(b);
    free(c0);
    free(c);
}

/* Invalid calls: refused, with a message, C untouched. */
static void bad_arguments(warplab_context *context, const char *backend)
{
    enum { M = 5, N = 6, K = 7 };
    warplab_buffer *a = NULL, *b = NULL, *c = NULL, *a16 = NULL, *b16 = NULL;
    CHECK(warplab_buffer_create(context, M * K * 4, &a) == WARPLAB_OK);
    CHECK(warplab_buffer_create(context, K * N * 4, &b) == WARPLAB_OK);
    CHECK(warplab_buffer_create(context, M * N * 4, &c) == WARPLAB_OK);
    CHECK(warplab_buffer_create(context, M * K * 2, &a16) == WARPLAB_OK);
    CHECK(warplab_buffer_create(context, K * N * 2, &b16) == WARPLAB_OK);
    float c_host[M * N], c_after[M * N];
    for (int i = 0; i < M * N; i++)
        c_host[i] = (float)i;
    CHECK(warplab_buffer_write(c, 0, c_host, sizeof c_host) == WARPLAB_OK);
    const warplab_status invalid = WARPLAB_ERROR_INVALID_ARGUMENT;
    const warplab_op N_ = WARPLAB_OP_N, T_ = WARPLAB_OP_T;
    const warplab_dtype F = WARPLAB_FLOAT32, H = WARPLAB_FLOAT16, BF = WARPLAB_BFLOAT16;
    const warplab_compute FP32 = WARPLAB_COMPUTE_FP32, TF32 = WARPLAB_COMPUTE_TF32;
    /* Types: int32 and double inputs, mixed inputs, a C type that is neither
     * float nor the input's, TF32 on 16-bit inputs, out-of-range enums. */
    CHECK(warplab_gemm_ex(context, N_, N_, M, N, K, 1, a, WARPLAB_INT32, 0, b, WARPLAB_INT32, 0, 0,
                          c, F, 0, FP32) == invalid);
    CHECK(warplab_gemm_ex(context, N_, N_, M, N, K, 1, a, WARPLAB_FLOAT64, 0, b, WARPLAB_FLOAT64, 0,
                          0, c, F, 0, FP32) == invalid);
    CHECK(warplab_gemm_ex(context, N_, N_, M, N, K, 1, a16, H, 0, b16, BF, 0, 0, c, F, 0, FP32) ==
          invalid);
    CHECK(warplab_gemm_ex(context, N_, N_, M, N, K, 1, a16, H, 0, b16, H, 0, 0, c, BF, 0, FP32) ==
          invalid);
    CHECK(warplab_gemm_ex(context, N_, N_, M, N, K, 1, a16, BF, 0, b16, BF, 0, 0, c, F, 0, TF32) ==
          invalid);
    CHECK(warplab_gemm_ex(context, (warplab_op)2, N_, M, N, K, 1, a, F, 0, b, F, 0, 0, c, F, 0,
                          FP32) == invalid);
    CHECK(warplab_gemm_ex(context, N_, N_, M, N, K, 1, a, F, 0, b, F, 0, 0, c, F, 0,
                          (warplab_compute)7) == invalid);
    /* Strides: op T needs lda >= m, not k. */
    CHECK(warplab_gemm_ex(context, T_, N_, M, N, K, 1, a, F, M - 1, b, F, 0, 0, c, F, 0, FP32) ==
          invalid);
    CHECK(warplab_gemm_ex(context, N_, T_, M, N, K, 1, a, F, 0, b, F, K - 1, 0, c, F, 0, FP32) ==
          invalid);
    /* Sizes: a 16-bit buffer is too small for float, and one element short. */
    CHECK(warplab_gemm_ex(context, N_, N_, M, N, K, 1, a16, F, 0, b, F, 0, 0, c, F, 0, FP32) ==
          invalid);
    CHECK(warplab_gemm_ex(context, N_, N_, M, N, K + 1, 1, a, F, 0, b, F, 0, 0, c, F, 0, FP32) ==
          invalid);
    /* C is A; alpha NaN; NULL buffers and context. */
    CHECK(warplab_gemm_ex(context, N_, N_, M, N, K, 1, a, F, 0, b, F, 0, 0, a, F, 0, FP32) ==
          invalid);
    CHECK(warplab_gemm_ex(context, N_, N_, M, N, K, NAN, a, F, 0, b, F, 0, 0, c, F, 0, FP32) ==
          invalid);
    CHECK(warplab_gemm_ex(context, N_, N_, M, N, K, 1, NULL, F, 0, b, F, 0, 0, c, F, 0, FP32) ==
          invalid);
    CHECK(warplab_gemm_ex(NULL, N_, N_, M, N, K, 1, a, F, 0, b, F, 0, 0, c, F, 0, FP32) == invalid);
    CHECK(warplab_last_error(context)[0] != '\0');
    CHECK(warplab_buffer_read(c, 0, c_after, sizeof c_after) == WARPLAB_OK);
    CHECK_MSG(memcmp(c_host, c_after, sizeof c_host) == 0, "%s: C written by a refused call",
              backend);
    /* m = 0 does nothing, even with no room for C. */
    CHECK(warplab_gemm_ex(context, T_, T_, 0, N, K, 1, a, F, 0, b, F, 0, 0, c, F, 0, FP32) ==
          WARPLAB_OK);
    warplab_buffer_destroy(a);
    warplab_buffer_destroy(b);
    warplab_buffer_destroy(c);
    warplab_buffer_destroy(a16);
    warplab_buffer_destroy(b16);
}

/* On cuda, the 16-bit wgmma kernel's 192 x 128 tile (three consumer
 * warpgroups; the cost model's pick on 132 SMs, which
 * tests/unit/test_gemm_tiles16.c pins for these shapes): 539 x 4096 x 256
 * (3 tile rows, the last with 155 rows: its third consumer has none) in
 * every op, FP32 C through the copy engine with a NaN in A and B (tight,
 * BF16) and 16-bit C through it (tight, FP16), 16-bit C (BF16) and FP32 C
 * (FP16) with beta != 0 from the registers on padded, re-strided
 * operands; 577 x 4096 x 1024 (a last tile row of one row) N, N and T, N;
 * 191 x 3072 x 4096 (one tile row, the third consumer's last row past m)
 * with k split in 5, the partial sums through the copy engine (tight), and
 * 191 x 3070 x 4096 (padded: rows of partial sums not on 16 bytes, stored
 * from the registers), N, T (--tall); --tall-short, the first shape's
 * N, N and T, T alone, is racecheck's list. */
static int tall_cases(warplab_context *context, const char *backend)
{
    int cases = 0;
    for (int ops = 0; ops < 4; ops += tall_short ? 3 : 1)
        for (int v = 0; v < 4; v++) {
            const warplab_dtype in = v % 2 ? WARPLAB_FLOAT16 : WARPLAB_BFLOAT16;
            const warplab_dtype out = v == 1 || v == 2 ? in : WARPLAB_FLOAT32;
            const gemm_case t =
                case_of(539, 4096, 256, ops, in, out, WARPLAB_COMPUTE_FP32, v >= 2 ? 1 : 0);
            run_case(context, backend, &t);
            cases++;
        }
    static const struct {
        size_t m, n, k;
        int ops, variant;
        warplab_dtype out;
    } more[] = {{577, 4096, 1024, 0, 0, WARPLAB_FLOAT32},
                {577, 4096, 1024, 1, 1, WARPLAB_BFLOAT16},
                {191, 3072, 4096, 2, 0, WARPLAB_FLOAT32},
                {191, 3070, 4096, 2, 1, WARPLAB_BFLOAT16}};
    for (size_t i = 0; !tall_short && i < sizeof more / sizeof more[0]; i++) {
        const gemm_case t = case_of(more[i].m, more[i].n, more[i].k, more[i].ops, WARPLAB_BFLOAT16,
                                    more[i].out, WARPLAB_COMPUTE_FP32, more[i].variant);
        run_case(context, backend, &t);
        cases++;
    }
    return cases;
}

/* A planned path's cases: each shape with op(A) = N and op(B) from
 * first_ops (0: N, 2: T) to T, in four variants: tight with beta = 0 and a
 * NaN in A and B (BF16 -> FP32 C; FP16 -> FP16 C), padded by 16 bytes with
 * beta != 0 (BF16 -> BF16 C; FP16 -> FP32 C), its rows kept on their
 * alignment so that the plan holds. */
typedef struct planned_shape {
    size_t m, n, k;
    int first_ops;
} planned_shape;

static int planned_cases(warplab_context *context, const char *backend, const planned_shape *shapes,
                         size_t count)
{
    int cases = 0;
    for (size_t s = 0; s < count; s++)
        for (int ops = shapes[s].first_ops; ops < 4; ops += 2)
            for (int v = 0; v < 4; v++) {
                const warplab_dtype in = v % 2 ? WARPLAB_FLOAT16 : WARPLAB_BFLOAT16;
                const warplab_dtype out = v == 1 || v == 2 ? in : WARPLAB_FLOAT32;
                gemm_case t = case_of(shapes[s].m, shapes[s].n, shapes[s].k, ops, in, out,
                                      WARPLAB_COMPUTE_FP32, v >= 2 ? 1 : 0);
                if (v >= 2)
                    t.padded = 2;
                run_case(context, backend, &t);
                cases++;
            }
    return cases;
}

/* On cuda, the swapped 16-bit product (C^T = op(B)^T op(A)^T in 128 x 96
 * tiles, C written transposed; the cost model's pick on 132 SMs, which
 * tests/unit/test_gemm_tiles16.c pins for these shapes): 261 x 4096 x 2048
 * (one split; m past 256 and off 8: a last 96-wide tile of 69 columns),
 * 263 x 3000 x 2048 (one split, a last 128-row tile of n of 56 rows) and
 * 270 x 2000 x 4096 (two splits, the sums through the workspace), op(B) = N
 * (B^T M-major) and T (K-major). --swapped-short: the first shape alone,
 * racecheck's list. */
static int swapped_cases(warplab_context *context, const char *backend)
{
    static const planned_shape shapes[] = {
        {261, 4096, 2048, 0}, {263, 3000, 2048, 0}, {270, 2000, 4096, 0}};
    return planned_cases(context, backend, shapes,
                         swapped_short ? 1 : sizeof shapes / sizeof shapes[0]);
}

/* On cuda, ex16_thin as the planner takes it (the big operand read along
 * k from rows 8 or 4 bytes off 16, at most 16 rows of the small side; the
 * cost model's pick on 132 SMs, which tests/unit/test_gemm_tiles16.c pins):
 * 4000 x 12 x 1020 (rows of A 8 bytes off: 8-byte loads; a last strip of 32
 * columns), 2000 x 16 x 1004 (4 bytes off) with op(B) = N (B^T strided
 * along k, loaded element by element) and T; 10 x 6144 x 2020 with op(B) =
 * T (m small: B is the big operand); 30000 x 12 x 1020 (two splits of
 * 360000 sums: the finish eight elements a thread, wl_splitk_finish_launch).
 * --thin-short: the first shape alone, racecheck's list. */
static int thin_cases(warplab_context *context, const char *backend)
{
    static const planned_shape shapes[] = {
        {4000, 12, 1020, 0}, {2000, 16, 1004, 0}, {10, 6144, 2020, 2}, {30000, 12, 1020, 0}};
    return planned_cases(context, backend, shapes,
                         thin_short ? 1 : sizeof shapes / sizeof shapes[0]);
}

static void on_backend(warplab_backend_kind kind)
{
    const char *backend = warplab_backend_name(kind);
    warplab_context *context = NULL;
    if (warplab_context_create(kind, 0, &context) != WARPLAB_OK) {
        printf("  %s: no device, skipped\n", backend);
        return;
    }
    /* One cuda list alone (--thin, --swapped, --tall). */
    int (*const list)(warplab_context *, const char *) = thin_only      ? thin_cases
                                                         : swapped_only ? swapped_cases
                                                         : tall_only    ? tall_cases
                                                                        : NULL;
    if (list) {
        const int cases = kind == WARPLAB_BACKEND_CUDA ? list(context, backend) : 0;
        printf("  %s: %d cases\n", backend, cases);
        warplab_context_destroy(context);
        return;
    }
    if (!lines_only)
        bad_arguments(context, backend);
    /* GEMV-like, small odd, k = 0, and (on sm_90a) several tensor-core
     * tiles with partial edges and k not a multiple of a k tile. The 16-bit
     * cuda paths of the planner and the cost model (ex16.h): the GEMV
     * family (1 x 67 x 45 and 45 x 1 x 33: X along its rows or along k; 3 x
     * 136 x 264 with op(B) = T and 136 x 5 x 520 with op(A) = N: along k),
     * mma.sync
     * on the other layouts of those two, with 16-byte rows (72 x 136 x 96)
     * and with k split (40 x 48 x 2048), TMA + wgmma on rows that are not
     * 16-byte aligned (300 x 400 x 300); the tight variant has aligned rows
     * where the sizes allow, the padded one not. With 16-byte rows the TMA +
     * wgmma kernel on the operands as stored (every op: M- and N-major
     * boxes) takes most of the others: 128 x 128 tiles with ragged edges
     * and a partial k tile (136 x 264 x 200, 72 x 136 x 96), k split in
     * whole k tiles, partial sums added by a second kernel (96 x 80 x 4096,
     * 40 x 48 x 2048), 128 x 256 tiles (1104 x 4104 x 16: k under one k
     * tile); TF32 with op(B) = T takes it on K-major operands, split too.
     * 33 x 200 x 517 (three 16-row tiles, a ragged 64-column strip, k not
     * a multiple of 8): ex16_thin's class (m or n <= 64), for when the cost
     * model picks it; until then the ex16_thin row runs it forced.
     * 48 x 520 x 1000: the wgmma kernel's narrow 64 x 64 tile (m <= 64,
     * one consumer, k whole): rows past m and a ragged last 8 columns
     * (zero-filled boxes, clipped stores), a partial k tile.
     * 4000 x 1 x 2048: y = A x through the same kernel on the transposed
     * problem (C^T = x^T A^T) where C and x are contiguous (the tight
     * variant); the padded one the tiles or the GEMV family.
     * 256 x 264 x 256: narrow tiles in more than one tile row (A's box not
     * trimmed), a ragged last strip of 8 columns.
     * 7 x 300 x 1100, 16 x 129 x 777, 2 x 1030 x 2049, 1000 x 9 x 600: the
     * GEMV family (gemv.cuh) with k split and summed by wl_splitk_finish,
     * small sides of 2 to 16 on either side, X along k or along its rows
     * (16-bit operands with rows off 16 bytes and X along k take the
     * wgmma tiles on re-strided copies from a small side of 2: 7 x 300 x
     * 1100 and 2 x 1030 x 2049 op N, T);
     * 1 x 1300 x 3000: the 16-bit GEMV with X along its rows (gemv_rows16),
     * k split in 94, 3 blocks of 512 columns, the last ragged. The shapes
     * after the first gpu_first run on cuda alone (the CPU and PoCL
     * backends compute every shape with the same code; the reference of
     * these is the bulk of the test's time). */
    static const size_t shapes[][3] = {
        {1, 1, 1},       {1, 67, 45},     {45, 1, 33},      {37, 29, 53},     {5, 7, 0},
        {130, 257, 70},  {3, 136, 264},   {136, 5, 520},    {72, 136, 96},    {40, 48, 2048},
        {300, 400, 300}, {136, 264, 200}, {96, 80, 4096},   {1104, 4104, 16}, {33, 200, 517},
        {48, 520, 1000}, {4000, 1, 2048}, {256, 264, 256},  {7, 300, 1100},   {16, 129, 777},
        {2, 1030, 2049}, {1000, 9, 600},  {25, 1028, 1540}, {1, 1300, 3000}};
    const size_t gpu_first = 12;
    static const struct {
        warplab_dtype in;
        warplab_compute compute;
    } precisions[] = {{WARPLAB_FLOAT32, WARPLAB_COMPUTE_FP32},
                      {WARPLAB_FLOAT32, WARPLAB_COMPUTE_TF32},
                      {WARPLAB_BFLOAT16, WARPLAB_COMPUTE_FP32},
                      {WARPLAB_FLOAT16, WARPLAB_COMPUTE_FP32}};
    int cases = 0;
    const size_t shape_count = lines_only                     ? 0
                               : kind == WARPLAB_BACKEND_CUDA ? sizeof shapes / sizeof shapes[0]
                                                              : gpu_first;
    for (size_t s = 0; s < shape_count; s++)
        for (int ops = 0; ops < 4; ops++)
            for (size_t q = 0; q < sizeof precisions / sizeof precisions[0]; q++)
                for (int out = 0; out < (precisions[q].in == WARPLAB_FLOAT32 ? 1 : 2); out++)
                    for (int variant = 0; variant < 2; variant++) {
                        const gemm_case t =
                            case_of(shapes[s][0], shapes[s][1], shapes[s][2], ops, precisions[q].in,
                                    out ? precisions[q].in : WARPLAB_FLOAT32, precisions[q].compute,
                                    variant);
                        if (ex_only && t.in == WARPLAB_FLOAT32 &&
                            t.compute == WARPLAB_COMPUTE_FP32 && ops == 0)
                            continue;
                        if ((tf32_only && t.compute != WARPLAB_COMPUTE_TF32) ||
                            !sanitizer_keeps(&t, ops))
                            continue;
                        run_case(context, backend, &t);
                        cases++;
                    }
    /* TF32 in each op on the shapes the small-tile tensor-core kernel takes
     * on a GPU (tf32_tiles.cu): few tiles and large k (split-K, the partial
     * sums reduced in order), a few 64 x 64 to 128 x 128 tiles with ragged
     * edges, k not a multiple of the 32-wide k tile; rows 16-byte aligned
     * (16-byte copies) and not (4-byte copies). On sm_90a, op(B) = N with
     * 16-byte rows takes the wgmma kernel that reads B as stored, from
     * registers (C^T = B^T A^T): 256 x 512 x 1024 with k split in 4 (N, N),
     * 136 x 264 x 200 above (N, N, one split) and 1104 x 4104 x 16 (T, N: A
     * copied K-major; 256 x 128 tiles, ragged in m and n). */
    static const size_t tf32_shapes[][3] = {
        {40, 36, 3001}, {203, 150, 517}, {129, 261, 97}, {96, 200, 1024}, {256, 512, 1024}};
    const size_t tf32_count =
        lines_only ? 0
                   : sizeof tf32_shapes / sizeof tf32_shapes[0] -
                         (kind == WARPLAB_BACKEND_CUDA ? 0 : 1); /* the last: cuda alone */
    for (size_t s = 0; s < tf32_count; s++)
        for (int ops = 0; ops < 4; ops++)
            for (int variant = 0; variant < 2; variant++) {
                const gemm_case t =
                    case_of(tf32_shapes[s][0], tf32_shapes[s][1], tf32_shapes[s][2], ops,
                            WARPLAB_FLOAT32, WARPLAB_FLOAT32, WARPLAB_COMPUTE_TF32, variant);
                if (!sanitizer_keeps(&t, ops))
                    continue;
                run_case(context, backend, &t);
                cases++;
            }
    /* On cuda, the 16-bit wgmma kernel with its last wave in stream-K shares
     * (stream_k.cuh; the cost model's pick on 132 SMs, in every variant):
     * 1792 x 2560 x 3072, 140 tiles of 128 x 256, 8 past a wave, in 32
     * shares of 12 k tiles (a tile's tail adds three other pieces' sums).
     * N, N and T, T: tight (FP32 C through the copy engine, a NaN in A and
     * in B that the hand-over must carry) and padded (operands re-strided,
     * 16-bit C with beta != 0 from the registers); FP16 at N, N. In the
     * --sanitizer list. 1000 x 2600 x 8192 padded: 128 x 128 tiles in
     * shares (of 384 problems tried, the one where the model picks that
     * width with shares), a ragged last tile row; not in the --sanitizer
     * list (its reference's time), in --lines (the GPU check's memcheck and
     * initcheck). */
    for (int s = 0; kind == WARPLAB_BACKEND_CUDA && !lines_only && s < 5; s++) {
        const int ops = s < 2 ? 0 : s < 4 ? 3 : 0, variant = s % 2;
        const warplab_dtype in = s == 4 ? WARPLAB_FLOAT16 : WARPLAB_BFLOAT16;
        const gemm_case t = case_of(1792, 2560, 3072, ops, in, variant ? in : WARPLAB_FLOAT32,
                                    WARPLAB_COMPUTE_FP32, variant);
        run_case(context, backend, &t);
        cases++;
    }
    if (kind == WARPLAB_BACKEND_CUDA && !sanitizer && !lines_only)
        cases += tall_cases(context, backend);
    if (kind == WARPLAB_BACKEND_CUDA && !sanitizer) {
        const gemm_case t = case_of(1000, 2600, 8192, 0, WARPLAB_BFLOAT16, WARPLAB_BFLOAT16,
                                    WARPLAB_COMPUTE_FP32, 1);
        run_case(context, backend, &t);
        cases++;
    }
    /* On cuda, where rows off the 128-byte lines cost the copy engine's
     * kernel more than a copy onto them (gemm_ex.cu, tf32_line_cost): TF32
     * 2500^3 (rows of 10000 bytes) copies A (op N) and B (either op) as
     * they are laid out, or K-major where the op asks; TF32 256 x 8192 x
     * 1500, A alone. The padded variant's rows are not 16-byte aligned: the
     * copies the layout needs anyway, onto lines too. BF16 and FP16 2200^3:
     * the 16-bit wgmma kernel over several tiles an SM, read in place
     * (tight) and re-strided (padded: 16-bit C, beta != 0, the register
     * epilogue; m % 128 <= 64, so the last tile row's second consumer has
     * no rows and skips the tile: the case that hung before each consumer
     * warp released its stages: docs/DECISIONS.md, "A consumer with no rows
     * never branches around wgmma, and every warp releases its stages").
     * Not in the --sanitizer list (minutes under racecheck, whose shared
     * memory these kernels use as on the list's shapes). */
    static const struct {
        size_t m, n, k;
        warplab_dtype in;
        warplab_compute compute;
        int ops;
    } line_cases[] = {{2500, 2500, 2500, WARPLAB_FLOAT32, WARPLAB_COMPUTE_TF32, 4},
                      {256, 8192, 1500, WARPLAB_FLOAT32, WARPLAB_COMPUTE_TF32, 1},
                      {2200, 2200, 2200, WARPLAB_BFLOAT16, WARPLAB_COMPUTE_FP32, 4},
                      {2200, 2200, 2200, WARPLAB_FLOAT16, WARPLAB_COMPUTE_FP32, 1}};
    for (size_t s = 0;
         kind == WARPLAB_BACKEND_CUDA && !sanitizer && s < sizeof line_cases / sizeof line_cases[0];
         s++)
        for (int ops = 0; ops < line_cases[s].ops; ops++)
            for (int variant = 0; variant < (ops == 0 ? 2 : 1); variant++) {
                /* 16-bit: N, N (both variants) and T, T (the reference's
                 * time). */
                if (line_cases[s].in != WARPLAB_FLOAT32 && (ops == 1 || ops == 2))
                    continue;
                const warplab_dtype in = line_cases[s].in;
                const gemm_case t =
                    case_of(line_cases[s].m, line_cases[s].n, line_cases[s].k, ops, in,
                            variant && in != WARPLAB_FLOAT32 ? in : WARPLAB_FLOAT32,
                            line_cases[s].compute, variant);
                run_case(context, backend, &t);
                cases++;
            }
    printf("  %s: %d cases\n", backend, cases);
    warplab_context_destroy(context);
}

/* --fp32-copy: FP32 compute on the transposed layouts, every case three
 * times: as the planner picks, with fp32_dispatch_copy forced and with
 * fp32_tiles forced (that one under TF32 compute too). Shapes: odd
 * sizes on both sides of the dispatcher's kernels (a ragged tile, 17 rows
 * with k split, k split over many chunks, tall with 19 columns, several
 * 128 x 128 tiles), and (T, N alone: the row takes a small m only where
 * the big operand runs along its rows) m = 1 and 5. Each in both variants:
 * tight with beta = 0 (C all NaN: never read) and a NaN in A and B, padded
 * leading dimensions (rows off 16 bytes) with alpha = -1.5, beta = 0.5.
 * short_list (--fp32-copy --sanitizer, racecheck's form in the GPU check):
 * without the largest shape, whose many tiles take racecheck past any
 * device call (more than 360 s on an H200); the other tools run it.
 * Returns 77 without a cuda device. */
static int fp32_copy_cases(bool short_list)
{
    warplab_context *context = NULL;
    if (warplab_context_create(WARPLAB_BACKEND_CUDA, 0, &context) != WARPLAB_OK) {
        printf("test_gemm_ex_api --fp32-copy: skipped: no cuda device (%s)\n",
               warplab_last_error(NULL));
        return TEST_SKIP;
    }
    static const struct {
        size_t m, n, k;
        int ops; /* 0: N, T, T, N and T, T; 1: T, N alone (case_of: bit 0 A, bit 1 B) */
    } shapes[] = {{37, 29, 53, 0},
                  {130, 257, 70, 0},
                  {17, 1030, 2049, 0},
                  {300, 400, 300, 0},
                  {513, 65, 4099, 0},
                  {2000, 19, 777, 0},
                  {1, 1000, 333, 1},
                  {5, 300, 700, 1},
                  /* 256 x 128 tiles past one wave of SMs (a tail to split), sampled */
                  {2600, 2300, 1100, 0}};
    /* The planner's pick, then each FP32 row for transposed operands forced:
     * the copies (fp32_dispatch_copy) and the tiles reading op T in place
     * (fp32_tiles, also under TF32 compute, whose bound FP32 meets). */
    static const char *const forced_rows[] = {NULL, "fp32_dispatch_copy", "fp32_tiles"};
    int cases = 0;
    for (int forced = 0; forced < 3; forced++) {
        const char *row = forced_rows[forced];
        CHECK(warplab_gemm_force_candidate(context, row) == WARPLAB_OK);
        char label[64];
        snprintf(label, sizeof label, row ? "cuda (%s forced)" : "cuda", row);
        const size_t shape_count = sizeof shapes / sizeof shapes[0] - (short_list ? 1 : 0);
        for (size_t s = 0; s < shape_count; s++)
            for (int ops = 1; ops < 4; ops++)
                for (int variant = 0; variant < 2; variant++)
                    for (int tf32 = 0; tf32 < (forced == 2 ? 2 : 1); tf32++) {
                        if (shapes[s].ops && ops != shapes[s].ops)
                            continue;
                        const gemm_case t =
                            case_of(shapes[s].m, shapes[s].n, shapes[s].k, ops, WARPLAB_FLOAT32,
                                    WARPLAB_FLOAT32,
                                    tf32 ? WARPLAB_COMPUTE_TF32 : WARPLAB_COMPUTE_FP32, variant);
                        run_case(context, label, &t);
                        cases++;
                    }
    }
    /* The forced rows refuse what they cannot take, with why: k = 0. */
    CHECK(warplab_gemm_force_candidate(context, "fp32_dispatch_copy") == WARPLAB_OK);
    warplab_buffer *c = NULL, *a = NULL;
    CHECK(warplab_buffer_create(context, 16 * 4, &a) == WARPLAB_OK);
    CHECK(warplab_buffer_create(context, 16 * 4, &c) == WARPLAB_OK);
    CHECK(warplab_gemm_ex(context, WARPLAB_OP_T, WARPLAB_OP_T, 4, 4, 0, 1.0f, a, WARPLAB_FLOAT32, 4,
                          a, WARPLAB_FLOAT32, 1, 0.0f, c, WARPLAB_FLOAT32, 0,
                          WARPLAB_COMPUTE_FP32) == WARPLAB_ERROR_UNSUPPORTED);
    CHECK(strstr(warplab_last_error(context), "fp32_dispatch_copy") != NULL);
    CHECK(warplab_gemm_force_candidate(context, "fp32_tiles") == WARPLAB_OK);
    CHECK(warplab_gemm_ex(context, WARPLAB_OP_N, WARPLAB_OP_T, 4, 4, 0, 1.0f, a, WARPLAB_FLOAT32, 4,
                          a, WARPLAB_FLOAT32, 1, 0.0f, c, WARPLAB_FLOAT32, 0,
                          WARPLAB_COMPUTE_FP32) == WARPLAB_ERROR_UNSUPPORTED);
    CHECK(strstr(warplab_last_error(context), "fp32_tiles") != NULL);
    warplab_buffer_destroy(a);
    warplab_buffer_destroy(c);
    printf("  cuda: %d cases of FP32 rows on transposed operands\n", cases);
    warplab_context_destroy(context);
    return check_report("test_gemm_ex_api --fp32-copy");
}

/* --small-mma: the planner's small_mma rows (one launch, the operands read
 * as stored at any alignment: src/cuda/gemm/small_mma.cuh) forced on every
 * layout, BF16 and FP16 into FP32 and the input type (small_mma) and TF32
 * (small_mma_tf32), each in both variants of case_of: tight leading
 * dimensions (k = 91, 77, 123: rows of 2-byte or 4-byte alignment, off 16
 * bytes) with beta = 0, C all NaN and a NaN in A and B; padded ones with
 * alpha = -1.5, beta = 0.5; every other case on views one element past
 * their allocation (bases 2- or 4-byte aligned). Shapes: the small
 * squares, odd sides of 1 and 7 (forced: the planner keeps those for the
 * GEMV family), a side of 1000, k of one stage, and 800 x 800 (the 64 x 64
 * tile). Then
 * the planner's own pick on 91^3 and 123^3 (small_mma there), and the
 * forced rows' refusals (k = 0, FP32 compute). Returns 77 without a cuda
 * device. */
static int small_mma_cases(void)
{
    warplab_context *context = NULL;
    if (warplab_context_create(WARPLAB_BACKEND_CUDA, 0, &context) != WARPLAB_OK) {
        printf("test_gemm_ex_api --small-mma: skipped: no cuda device (%s)\n",
               warplab_last_error(NULL));
        return TEST_SKIP;
    }
    static const size_t shapes[][3] = {{91, 91, 91},   {75, 65, 77}, {123, 123, 123},
                                       {7, 123, 300},  {1, 91, 123}, {300, 300, 300},
                                       {65, 1000, 77}, {33, 40, 1},  {800, 800, 40}};
    static const struct {
        warplab_dtype in, out;
        warplab_compute compute;
        const char *row;
    } types[] = {{WARPLAB_BFLOAT16, WARPLAB_FLOAT32, WARPLAB_COMPUTE_FP32, "small_mma"},
                 {WARPLAB_BFLOAT16, WARPLAB_BFLOAT16, WARPLAB_COMPUTE_FP32, "small_mma"},
                 {WARPLAB_FLOAT16, WARPLAB_FLOAT32, WARPLAB_COMPUTE_FP32, "small_mma"},
                 {WARPLAB_FLOAT16, WARPLAB_FLOAT16, WARPLAB_COMPUTE_FP32, "small_mma"},
                 {WARPLAB_FLOAT32, WARPLAB_FLOAT32, WARPLAB_COMPUTE_TF32, "small_mma_tf32"}};
    int cases = 0;
    for (size_t ty = 0; ty < sizeof types / sizeof types[0]; ty++) {
        CHECK(warplab_gemm_force_candidate(context, types[ty].row) == WARPLAB_OK);
        char label[64];
        snprintf(label, sizeof label, "cuda (%s forced)", types[ty].row);
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
            for (int ops = 0; ops < 4; ops++)
                for (int variant = 0; variant < 2; variant++) {
                    const gemm_case t =
                        case_of(shapes[s][0], shapes[s][1], shapes[s][2], ops, types[ty].in,
                                types[ty].out, types[ty].compute, variant);
                    /* Every other case on views one element off (A, B, C). */
                    views_off = (s + (size_t)ops + (size_t)variant) % 2 == 1;
                    run_case(context, label, &t);
                    views_off = false;
                    cases++;
                }
    }
    /* The planner's pick on the small squares with rows off 16 bytes. */
    CHECK(warplab_gemm_force_candidate(context, NULL) == WARPLAB_OK);
    for (int ops = 0; ops < 4; ops++)
        for (int variant = 0; variant < 2; variant++) {
            const gemm_case t = case_of(91, 91, 91, ops, WARPLAB_FLOAT16, WARPLAB_FLOAT16,
                                        WARPLAB_COMPUTE_FP32, variant);
            run_case(context, "cuda", &t);
            const gemm_case u = case_of(123, 123, 123, ops, WARPLAB_BFLOAT16, WARPLAB_FLOAT32,
                                        WARPLAB_COMPUTE_FP32, variant);
            run_case(context, "cuda", &u);
            cases += 2;
        }
    /* Refusals, with the row's name: k = 0; FP32 compute on small_mma_tf32. */
    warplab_buffer *c = NULL, *a = NULL;
    CHECK(warplab_buffer_create(context, 16 * 4, &a) == WARPLAB_OK);
    CHECK(warplab_buffer_create(context, 16 * 4, &c) == WARPLAB_OK);
    CHECK(warplab_gemm_force_candidate(context, "small_mma") == WARPLAB_OK);
    CHECK(warplab_gemm_ex(context, WARPLAB_OP_N, WARPLAB_OP_N, 4, 4, 0, 1.0f, a, WARPLAB_BFLOAT16,
                          0, a, WARPLAB_BFLOAT16, 0, 0.0f, c, WARPLAB_FLOAT32, 0,
                          WARPLAB_COMPUTE_FP32) == WARPLAB_ERROR_UNSUPPORTED);
    CHECK(strstr(warplab_last_error(context), "small_mma") != NULL);
    CHECK(warplab_gemm_force_candidate(context, "small_mma_tf32") == WARPLAB_OK);
    CHECK(warplab_gemm_ex(context, WARPLAB_OP_N, WARPLAB_OP_T, 4, 4, 3, 1.0f, a, WARPLAB_FLOAT32, 0,
                          a, WARPLAB_FLOAT32, 0, 0.0f, c, WARPLAB_FLOAT32, 0,
                          WARPLAB_COMPUTE_FP32) == WARPLAB_ERROR_UNSUPPORTED);
    CHECK(strstr(warplab_last_error(context), "small_mma_tf32") != NULL);
    warplab_buffer_destroy(a);
    warplab_buffer_destroy(c);
    printf("  cuda: %d cases of the small_mma rows\n", cases);
    warplab_context_destroy(context);
    return check_report("test_gemm_ex_api --small-mma");
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--small-mma") == 0)
        return small_mma_cases();
    if (argc > 1 && strcmp(argv[1], "--fp32-copy") == 0)
        return fp32_copy_cases(argc > 2 && strcmp(argv[2], "--sanitizer") == 0);
    ex_only = argc > 2 && strcmp(argv[2], "--ex-only") == 0;
    tf32_only = argc > 2 && strcmp(argv[2], "--tf32-only") == 0;
    sanitizer = argc > 2 && strcmp(argv[2], "--sanitizer") == 0;
    lines_only = argc > 2 && strcmp(argv[2], "--lines") == 0;
    tall_short = argc > 2 && strcmp(argv[2], "--tall-short") == 0;
    tall_only = tall_short || (argc > 2 && strcmp(argv[2], "--tall") == 0);
    swapped_short = argc > 2 && strcmp(argv[2], "--swapped-short") == 0;
    swapped_only = swapped_short || (argc > 2 && strcmp(argv[2], "--swapped") == 0);
    thin_short = argc > 2 && strcmp(argv[2], "--thin-short") == 0;
    thin_only = thin_short || (argc > 2 && strcmp(argv[2], "--thin") == 0);
    if (swapped_only || thin_only) { /* cuda cases alone: skipped (77) without a device */
        warplab_context *probe = NULL;
        if (warplab_context_create(WARPLAB_BACKEND_CUDA, 0, &probe) != WARPLAB_OK) {
            printf("test_gemm_ex_api %s: skipped: no cuda device (%s)\n", argv[2],
                   warplab_last_error(NULL));
            return TEST_SKIP;
        }
        warplab_context_destroy(probe);
    }
    if (argc > 1) {
        warplab_backend_kind kind;
        if (warplab_backend_parse(argv[1], &kind) != WARPLAB_OK) {
            fprintf(stderr, "unknown backend '%s'\n", argv[1]);
            return 2;
        }
        on_backend(kind);
    } else {
        for (int kind = WARPLAB_BACKEND_CUDA; kind < WARPLAB_BACKEND_COUNT; kind++)
            if (warplab_backend_compiled((warplab_backend_kind)kind))
                on_backend((warplab_backend_kind)kind);
    }
    return check_report("test_gemm_ex_api");
}
