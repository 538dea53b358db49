/* warplab_gemm_batched_ex through the public API: every argument check
 * (a clear status and message, nothing written, overflow of every size
 * product), then results against a double-precision reference on fresh
 * random inputs, C poisoned first, on every backend with a device (cpu
 * always; opencl with PoCL in CI; cuda on a GPU), or the one named:
 * test_gemm_batched [cpu|opencl|cuda]. Exact-size buffers; strides of 0
 * (broadcast A or B), padded strides and rows, C's matrices side by side in
 * one row pitch, alpha and beta, odd sizes, every type and output type. */
#include "../check.h"
#include "ladders/gemm.h"
#include "warplab.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define N WARPLAB_OP_N
#define T WARPLAB_OP_T

static uint64_t rng_state = 0x243F6A8885A308D3ull;

static float random_value(void)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (float)((rng_state >> 40) & 0xFFFFFF) / 8388608.0f - 1.0f;
}

/* Element `at` of a host array of type t, as a double; and stores. */
static double get(const unsigned char *bytes, warplab_dtype t, size_t at)
{
    if (t == WARPLAB_FLOAT32) {
        float v;
        memcpy(&v, bytes + at * 4, 4);
        return v;
    }
    uint16_t h;
    memcpy(&h, bytes + at * 2, 2);
    return t == WARPLAB_BFLOAT16 ? wl_bf16_to_float(h) : wl_fp16_to_float(h);
}

static void set(unsigned char *bytes, warplab_dtype t, size_t at, float v)
{
    if (t == WARPLAB_FLOAT32) {
        memcpy(bytes + at * 4, &v, 4);
        return;
    }
    const uint16_t h = t == WARPLAB_BFLOAT16 ? wl_float_to_bf16(v) : wl_float_to_fp16(v);
    memcpy(bytes + at * 2, &h, 2);
}

static double tf32(double v)
{
    float f = (float)v;
    uint32_t bits;
    memcpy(&bits, &f, 4);
    bits &= ~0x1FFFu;
    memcpy(&f, &bits, 4);
    return f;
}

typedef struct batched_case {
    warplab_dtype ab, c;
    warplab_compute compute;
    warplab_op op_a, op_b;
    size_t m, n, k, batch;
    size_t pad_a, pad_b, pad_c; /* elements past each stored row */
    long gap_a, gap_b, gap_c;   /* elements past each matrix; -1: stride 0 (A, B) */
    bool side_by_side;          /* C's matrices in one row pitch (stride_c = n) */
    float alpha, beta;
} batched_case;

static size_t span(size_t rows, size_t cols, size_t ld)
{
    return rows && cols ? (rows - 1) * ld + cols : 0;
}

static void run_case(warplab_context *ctx, const char *backend, const batched_case *s)
{
    const bool ta = s->op_a == T, tb = s->op_b == T;
    const size_t a_rows = ta ? s->k : s->m, a_cols = ta ? s->m : s->k;
    const size_t b_rows = tb ? s->n : s->k, b_cols = tb ? s->k : s->n;
    const size_t lda = a_cols + s->pad_a, ldb = b_cols + s->pad_b;
    const size_t ldc = s->side_by_side ? s->batch * s->n + s->pad_c : s->n + s->pad_c;
    const size_t sa = span(a_rows, a_cols, lda), sb = span(b_rows, b_cols, ldb);
    const size_t sc = span(s->m, s->n, ldc);
    const size_t stride_a = s->gap_a < 0 ? 0 : sa + (size_t)s->gap_a;
    const size_t stride_b = s->gap_b < 0 ? 0 : sb + (size_t)s->gap_b;
    const size_t stride_c = s->side_by_side ? s->n : sc + (size_t)s->gap_c;
    const size_t ea = (s->batch - 1) * stride_a + sa, eb = (s->batch - 1) * stride_b + sb;
    const size_t ec = (s->batch - 1) * stride_c + sc;
    const size_t in = warplab_dtype_size(s->ab), out = warplab_dtype_size(s->c);
    unsigned char *ha = malloc(ea * in), *hb = malloc(eb * in), *hc = malloc(ec * out),
                  *before = malloc(ec * out);
    if (!ha || !hb || !hc || !before) {
        CHECK(!"host memory");
        free(ha), free(hb), free(hc), free(before);
        return;
    }
    for (size_t i = 0; i < ea; i++)
        set(ha, s->ab, i, random_value());
    for (size_t i = 0; i < eb; i++)
        set(hb, s->ab, i, random_value());
    /* C: NaN where beta = 0 (every element must be written), random else. */
    for (size_t i = 0; i < ec; i++)
        set(hc, s->c, i, s->beta == 0.0f ? NAN : random_value());
    memcpy(before, hc, ec * out);
    warplab_buffer *a = NULL, *b = NULL, *c = NULL;
    CHECK(warplab_buffer_create(ctx, ea * in, &a) == WARPLAB_OK);
    CHECK(warplab_buffer_create(ctx, eb * in, &b) == WARPLAB_OK);
    CHECK(warplab_buffer_create(ctx, ec * out, &c) == WARPLAB_OK);
    if (!a || !b || !c)
        goto done;
    CHECK(warplab_buffer_write(a, 0, ha, ea * in) == WARPLAB_OK);
    CHECK(warplab_buffer_write(b, 0, hb, eb * in) == WARPLAB_OK);
    CHECK(warplab_buffer_write(c, 0, hc, ec * out) == WARPLAB_OK);
    const warplab_status st = warplab_gemm_batched_ex(
        ctx, s->op_a, s->op_b, s->m, s->n, s->k, s->alpha, a, s->ab, lda, stride_a, b, s->ab, ldb,
        stride_b, s->beta, c, s->c, ldc, stride_c, s->batch, s->compute);
    CHECK_MSG(st == WARPLAB_OK, "%s: %s", backend, warplab_last_error(ctx));
    CHECK(warplab_context_synchronize(ctx) == WARPLAB_OK);
    CHECK(warplab_buffer_read(c, 0, hc, ec * out) == WARPLAB_OK);
    const double out_u = s->c == WARPLAB_BFLOAT16 ? 0x1p-8 : s->c == WARPLAB_FLOAT16 ? 0x1p-11 : 0;
    const bool use_tf32 = s->compute == WARPLAB_COMPUTE_TF32;
    size_t bad = 0, written = 0;
    for (size_t q = 0; q < s->batch; q++)
        for (size_t i = 0; i < s->m; i++)
            for (size_t j = 0; j < s->n; j++) {
                double sum = 0.0, magnitude = 0.0;
                for (size_t p = 0; p < s->k; p++) {
                    double x = get(ha, s->ab, q * stride_a + (ta ? p * lda + i : i * lda + p));
                    double y = get(hb, s->ab, q * stride_b + (tb ? j * ldb + p : p * ldb + j));
                    if (use_tf32) {
                        x = tf32(x);
                        y = tf32(y);
                    }
                    sum += x * y;
                    magnitude += fabs(x * y);
                }
                const size_t at = q * stride_c + i * ldc + j;
                const double old = s->beta != 0.0f ? get(before, s->c, at) : 0.0;
                const double want = s->alpha * sum + s->beta * old;
                const double scale = fabs(s->alpha) * magnitude + fabs(s->beta * old);
                const double bound = ((double)s->k + 2) * 1.2e-7 * scale +
                                     (use_tf32 ? 2.0 * 9.8e-4 * scale : 0.0) + out_u * fabs(want) +
                                     1e-30;
                const double got = get(hc, s->c, at);
                written++;
                if (!(fabs(got - want) <= bound)) {
                    if (bad < 3)
                        fprintf(stderr, "  %s matrix %zu C[%zu][%zu] = %g, want %g\n", backend, q,
                                i, j, got, want);
                    bad++;
                }
            }
    /* Everything else of C (padding, gaps) as it was. */
    size_t stray = 0;
    for (size_t at = 0; at < ec; at++) {
        bool inside = false;
        for (size_t q = 0; q < s->batch && !inside; q++)
            if (at >= q * stride_c) {
                const size_t r = at - q * stride_c;
                inside = r / ldc < s->m && r % ldc < s->n;
            }
        if (!inside && memcmp(hc + at * out, before + at * out, out) != 0)
            stray++;
    }
    CHECK_MSG(bad == 0 && stray == 0,
              "%s %s->%s %zux%zux%zu batch %zu op %c%c strides %zu/%zu/%zu: %zu of %zu wrong, "
              "%zu stray",
              backend, warplab_dtype_name(s->ab), warplab_dtype_name(s->c), s->m, s->n, s->k,
              s->batch, ta ? 'T' : 'N', tb ? 'T' : 'N', stride_a, stride_b, stride_c, bad, written,
              stray);
done:
    warplab_buffer_destroy(a);
    warplab_buffer_destroy(b);
    warplab_buffer_destroy(c);
    free(ha), free(hb), free(hc), free(before);
}

static const batched_case cases[] = {
    /* Q K^T (op_b = T) and P V (op_b = N), odd sizes, 16-bit. */
    {WARPLAB_BFLOAT16, WARPLAB_BFLOAT16, WARPLAB_COMPUTE_FP32, N, T, 33, 17, 24, 3, 0, 0, 0, 0, 0,
     0, false, 1.0f, 0.0f},
    {WARPLAB_FLOAT16, WARPLAB_FLOAT32, WARPLAB_COMPUTE_FP32, N, N, 17, 16, 33, 4, 8, 0, 3, 5, 0, 1,
     false, 0.5f, 0.0f},
    /* Broadcast B (stride 0), padded A, beta != 0. */
    {WARPLAB_BFLOAT16, WARPLAB_FLOAT32, WARPLAB_COMPUTE_FP32, N, T, 9, 13, 40, 3, 1, 0, 2, 7, -1, 0,
     false, 1.0f, 0.5f},
    /* Broadcast A, C side by side (heads in one row). */
    {WARPLAB_FLOAT16, WARPLAB_FLOAT16, WARPLAB_COMPUTE_FP32, T, N, 12, 8, 19, 3, 0, 0, 1, -1, 0, 0,
     true, 1.0f, 0.0f},
    /* FP32 and TF32, every layout. */
    {WARPLAB_FLOAT32, WARPLAB_FLOAT32, WARPLAB_COMPUTE_FP32, T, T, 7, 11, 13, 2, 0, 1, 0, 0, 3, 0,
     false, -1.0f, 0.25f},
    {WARPLAB_FLOAT32, WARPLAB_FLOAT32, WARPLAB_COMPUTE_TF32, N, T, 21, 5, 30, 5, 0, 0, 0, 2, 0, 0,
     false, 1.0f, 0.0f},
    {WARPLAB_FLOAT32, WARPLAB_FLOAT32, WARPLAB_COMPUTE_FP32, N, N, 16, 16, 16, 2, 0, 0, 0, 0, 0, 0,
     false, 1.0f, 0.0f},
    /* k = 0: C = beta C. Batch 1. */
    {WARPLAB_BFLOAT16, WARPLAB_FLOAT32, WARPLAB_COMPUTE_FP32, N, N, 5, 6, 0, 3, 0, 0, 0, 0, 0, 2,
     false, 1.0f, 2.0f},
    {WARPLAB_FLOAT16, WARPLAB_FLOAT16, WARPLAB_COMPUTE_FP32, N, T, 31, 29, 27, 1, 0, 0, 0, 0, 0, 0,
     false, 1.0f, 0.0f},
};

/* Every refusal: its status, its message, nothing written. */
static void check_arguments(warplab_context *ctx)
{
    const size_t m = 4, n = 5, k = 3, batch = 3;
    const size_t sa = m * k, sb = k * n, sc = m * n;
    warplab_buffer *a = NULL, *b = NULL, *c = NULL, *small = NULL;
    CHECK(warplab_buffer_create(ctx, batch * sa * 4, &a) == WARPLAB_OK);
    CHECK(warplab_buffer_create(ctx, batch * sb * 4, &b) == WARPLAB_OK);
    CHECK(warplab_buffer_create(ctx, batch * sc * 4, &c) == WARPLAB_OK);
    CHECK(warplab_buffer_create(ctx, (batch * sc - 1) * 4, &small) == WARPLAB_OK);
    if (!a || !b || !c || !small)
        goto done;
    float poison[3 * 4 * 5];
    for (size_t i = 0; i < batch * sc; i++)
        poison[i] = 12345.0f;
    float zeros[3 * 5 * 3] = {0};
    CHECK(warplab_buffer_write(a, 0, zeros, batch * sa * 4) == WARPLAB_OK);
    CHECK(warplab_buffer_write(b, 0, zeros, batch * sb * 4) == WARPLAB_OK);
    CHECK(warplab_buffer_write(c, 0, poison, sizeof poison) == WARPLAB_OK);
    const warplab_dtype F = WARPLAB_FLOAT32;
    const warplab_compute FP32 = WARPLAB_COMPUTE_FP32;
#define CALL(context, op_a, a_, sa_, b_, sb_, c_, ctype, sc_, batch_)                              \
    warplab_gemm_batched_ex(context, op_a, N, m, n, k, 1.0f, a_, F, 0, sa_, b_, F, 0, sb_, 0.0f,   \
                            c_, ctype, 0, sc_, batch_, FP32)
#define REFUSED(call, status, text)                                                                \
    do {                                                                                           \
        CHECK((call) == (status));                                                                 \
        const char *e_ = warplab_last_error(ctx);                                                  \
        CHECK_MSG(strncmp(e_, "warplab_gemm_batched_ex: ", 25) == 0 && strstr(e_, text),           \
                  "message '%s' lacks '%s'", e_, text);                                            \
    } while (0)
    /* The happy call works (and the ones below differ from it in one thing). */
    CHECK(CALL(ctx, N, a, sa, b, sb, c, F, sc, batch) == WARPLAB_OK);
    CHECK(warplab_buffer_write(c, 0, poison, sizeof poison) == WARPLAB_OK);
    CHECK(CALL(NULL, N, a, sa, b, sb, c, F, sc, batch) == WARPLAB_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(warplab_last_error(NULL), "warplab_gemm_batched_ex") != NULL);
    REFUSED(CALL(ctx, N, NULL, sa, b, sb, c, F, sc, batch), WARPLAB_ERROR_INVALID_ARGUMENT,
            "is NULL");
    REFUSED(CALL(ctx, (warplab_op)7, a, sa, b, sb, c, F, sc, batch), WARPLAB_ERROR_INVALID_ARGUMENT,
            "op_a");
    REFUSED(CALL(ctx, N, a, sa, b, sb, c, WARPLAB_FLOAT16, sc, batch),
            WARPLAB_ERROR_INVALID_ARGUMENT, "C is float or the input type");
    /* stride_c 0 with more than one matrix; overlapping C matrices. */
    REFUSED(CALL(ctx, N, a, sa, b, sb, c, F, 0, batch), WARPLAB_ERROR_INVALID_ARGUMENT, "stride 0");
    REFUSED(CALL(ctx, N, a, sa, b, sb, c, F, sc - 1, batch), WARPLAB_ERROR_INVALID_ARGUMENT,
            "overlap");
    /* The last element of the last matrix past the buffer, by one. */
    REFUSED(CALL(ctx, N, a, sa + 1, b, sb, c, F, sc, batch), WARPLAB_ERROR_INVALID_ARGUMENT,
            "buffer A holds");
    REFUSED(CALL(ctx, N, a, sa, b, sb, small, F, sc, batch), WARPLAB_ERROR_INVALID_ARGUMENT,
            "buffer C holds");
    /* Overflow: (batch - 1) * stride past 2^64; the elements' bytes past it. */
    REFUSED(CALL(ctx, N, a, SIZE_MAX / 2, b, sb, c, F, sc, batch), WARPLAB_ERROR_INVALID_ARGUMENT,
            "2^64");
    REFUSED(CALL(ctx, N, a, SIZE_MAX / 4, b, sb, c, F, sc, batch), WARPLAB_ERROR_INVALID_ARGUMENT,
            "do not fit");
    REFUSED(CALL(ctx, N, a, sa, b, sb, c, F, sc, (size_t)1 << 40), WARPLAB_ERROR_INVALID_ARGUMENT,
            "batch is at most");
    REFUSED(warplab_gemm_batched_ex(ctx, N, N, m, n, k, 1.0f, a, F, 0, sa, b, F, 0, sb, NAN, c, F,
                                    0, sc, batch, FP32),
            WARPLAB_ERROR_INVALID_ARGUMENT, "finite");
    REFUSED(warplab_gemm_batched_ex(ctx, N, N, m, n, k, 1.0f, a, F, 2, sa, b, F, 0, sb, 0.0f, c, F,
                                    0, sc, batch, FP32),
            WARPLAB_ERROR_INVALID_ARGUMENT, "row strides too small");
    /* C overlapping A (the same buffer). */
    REFUSED(CALL(ctx, N, c, sa, b, sb, c, F, sc, batch), WARPLAB_ERROR_INVALID_ARGUMENT,
            "C overlaps buffer A");
    /* batch 0: nothing to do, nothing written. */
    CHECK(CALL(ctx, N, a, sa, b, sb, c, F, sc, 0) == WARPLAB_OK);
    CHECK(warplab_last_error(ctx)[0] == '\0');
    float after[3 * 4 * 5];
    CHECK(warplab_buffer_read(c, 0, after, sizeof after) == WARPLAB_OK);
    CHECK(memcmp(after, poison, sizeof poison) == 0);
#undef CALL
#undef REFUSED
done:
    warplab_buffer_destroy(a);
    warplab_buffer_destroy(b);
    warplab_buffer_destroy(c);
    warplab_buffer_destroy(small);
}

int main(int argc, char **argv)
{
    const char *only = argc > 1 ? argv[1] : NULL;
    int ran = 0;
    for (int kind = WARPLAB_BACKEND_CUDA; kind < WARPLAB_BACKEND_COUNT; kind++) {
        const char *name = warplab_backend_name((warplab_backend_kind)kind);
        if (only && strcmp(only, name) != 0)
            continue;
        warplab_context *ctx = NULL;
        if (warplab_context_create((warplab_backend_kind)kind, 0, &ctx) != WARPLAB_OK) {
            printf("%s: no device, skipped (%s)\n", name, warplab_last_error(NULL));
            continue;
        }
        ran++;
        if (kind == WARPLAB_BACKEND_CPU)
            check_arguments(ctx);
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
            run_case(ctx, name, &cases[i]);
        warplab_context_destroy(ctx);
        printf("%s: %zu cases\n", name, sizeof cases / sizeof cases[0]);
    }
    if (!ran)
        return TEST_SKIP;
    return check_report("test_gemm_batched");
}
