/* warplab_gemm() as a user calls it: buffers of exactly the bytes each view
 * needs (no guard zones, so a kernel that reads past a view is caught by
 * compute-sanitizer memcheck on the GPU check), at shapes that reach every
 * path of the FP32 dispatcher (src/kernels/gemm_dispatch.c):
 *   GEMV m = 1 and n = 1, skinny m and n with and without split-K, small
 *   tiles (tiny problems, one launch), split-K over 64x64, 32x128, 128x128
 *   and 256x128 tiles, the big tiles, B with rows not 16-byte aligned
 *   re-strided into the workspace, k = 0, beta != 0, padded (and thus
 *   misaligned) leading dimensions, and NaN in A and in B, which must
 *   reach exactly the row and the column they touch.
 * Each result is checked against a double-precision reference within
 * gamma_{k+2} (u = 2^-24) of the sums of magnitudes.
 *
 *   test_gemm_exact [--backend cuda|opencl|cpu]
 * Without --backend, every compiled backend with a device. Exit 77 only
 * when the requested backend has no device. */
#include "../check.h"

#include <warplab.h>

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

typedef struct exact_case {
    size_t m, n, k;
    size_t lda, ldb, ldc; /* 0 = tight */
    float alpha, beta;
    int nan_a, nan_b; /* plant a NaN in A (row m/2) / B (column n/3) */
    const char *what;
} exact_case;

static const exact_case cases[] = {
    {1, 1, 1, 0, 0, 0, 1.0f, 0.0f, 0, 0, "1x1x1, 4-byte buffers"},
    {1, 300, 257, 0, 0, 0, 1.0f, 0.0f, 0, 0, "GEMV m = 1"},
    {1, 1027, 2049, 2051, 1029, 0, -0.5f, 0.75f, 1, 1, "GEMV m = 1, padded, NaN"},
    {301, 1, 129, 0, 0, 0, 1.0f, 0.0f, 0, 0, "GEMV n = 1"},
    {1000, 1, 3000, 3001, 3, 2, 1.0f, 0.5f, 1, 1, "GEMV n = 1, split-K, padded, NaN"},
    {3, 256, 8192, 0, 0, 0, 1.0f, 0.0f, 0, 0, "skinny m, split-K"},
    {7, 1001, 515, 0, 0, 0, 2.0f, -1.0f, 1, 0, "skinny m = 7"},
    {12, 12, 12, 0, 0, 0, 1.0f, 0.0f, 0, 0, "tiny"},
    {40, 5, 1500, 1503, 7, 9, -1.0f, 0.25f, 0, 1, "skinny n = 5, split-K"},
    {200, 9, 2100, 0, 0, 0, 1.0f, 0.0f, 0, 0, "skinny n = 9"},
    {37, 29, 53, 56, 31, 33, 1.5f, -0.5f, 0, 0, "small tiles, padded"},
    {100, 100, 100, 0, 0, 0, 1.0f, 0.0f, 1, 1, "small square, NaN"},
    {257, 255, 129, 0, 0, 0, 1.0f, 0.0f, 0, 0, "small tiles, odd"},
    {24, 700, 2000, 0, 0, 0, 1.0f, 0.0f, 0, 0, "small m, split-K"},
    {64, 64, 20000, 0, 0, 0, 1.0f, 0.0f, 0, 0, "large k, split-K"},
    {130, 120, 9000, 9001, 121, 125, 1.0f, 2.0f, 1, 1, "large k, split-K, padded, NaN"},
    {520, 530, 1500, 0, 0, 0, 1.0f, 0.0f, 0, 0, "128x128 tiles, split-K"},
    {700, 600, 4000, 0, 0, 0, 1.0f, 0.0f, 0, 0, "256x128 tiles, split-K"},
    {1999, 777, 555, 0, 0, 0, 1.0f, 0.5f, 0, 1,
     "256x128 tiles, split-K, odd n: partial rows through shared memory (staged variant), NaN"},
    {2048, 2048, 128, 0, 0, 2049, -1.0f, 0.25f, 0, 0,
     "256x128 tiles whole, C's rows not 16-byte aligned (staged variant)"},
    {2000, 1498, 200, 2001, 1500, 1502, 1.0f, -1.0f, 0, 0,
     "large tiles, B rows 16-byte aligned, n % 4 = 2: the last row's 16-byte window leaves B"},
    {70, 30, 45, 0, 32, 0, 1.0f, 0.0f, 0, 0, "small tiles, aligned B rows, n % 4 = 2"},
    {3, 30, 45, 0, 32, 0, 1.0f, 0.0f, 0, 0, "skinny m, aligned B rows, n % 4 = 2"},
    {70, 3, 45, 48, 0, 0, 1.0f, 0.0f, 0, 0, "skinny n, aligned A rows, k % 4 = 1"},
    {900, 803, 700, 0, 0, 0, 1.0f, 0.0f, 1, 1,
     "B rows not 16-byte aligned: B re-strided into the workspace after the split's sums, NaN"},
    {900, 803, 700, 900, 806, 805, -1.0f, 0.5f, 0, 1, "B re-strided, padded leading dimensions"},
    {2175, 2047, 509, 2177, 2049, 2051, 1.0f, -0.5f, 1, 0,
     "128x128 tiles, 8 past a wave of 132 SMs (the tail split's shape, not yet dispatched), "
     "padded, NaN"},
    {33, 47, 0, 0, 0, 0, 1.0f, 0.5f, 0, 0, "k = 0: C = beta C"},
    {5, 3, 0, 0, 0, 0, 2.0f, 0.0f, 0, 0, "k = 0, beta = 0"},
};

static size_t span(size_t rows, size_t cols, size_t ld)
{
    return rows == 0 || cols == 0 ? 0 : (rows - 1) * ld + cols;
}

static void fill(float *x, size_t count, unsigned seed)
{
    for (size_t i = 0; i < count; i++) {
        seed = seed * 1664525u + 1013904223u;
        x[i] = (float)((double)(seed >> 8) / (double)(1u << 24) * 2.0 - 1.0);
    }
}

/* Counts C elements outside their bound; NaN is expected exactly in the
 * planted row and column. */
static size_t count_wrong(const exact_case *c, size_t lda, size_t ldb, size_t ldc, const float *a,
                          const float *b, const float *c0, const float *got, size_t nan_row,
                          size_t nan_col, char *first, size_t first_len)
{
    size_t wrong = 0;
    const double u = 0x1p-24, gamma = ((double)c->k + 2) * u / (1 - ((double)c->k + 2) * u);
    double *dot = calloc(c->n ? c->n : 1, sizeof *dot), *mag = calloc(c->n ? c->n : 1, sizeof *mag);
    for (size_t i = 0; i < c->m; i++) {
        for (size_t j = 0; j < c->n; j++)
            dot[j] = mag[j] = 0.0;
        for (size_t p = 0; p < c->k; p++) {
            const double x = a[i * lda + p];
            const float *brow = b + p * ldb;
            for (size_t j = 0; j < c->n; j++) {
                const double product = x * brow[j];
                dot[j] += product;
                mag[j] += fabs(product);
            }
        }
        for (size_t j = 0; j < c->n; j++) {
            const double old = c->beta != 0.0f ? c0[i * ldc + j] : 0.0;
            const double expected = c->alpha * dot[j] + c->beta * old;
            const double bound = gamma * (fabs(c->alpha) * mag[j] + fabs(c->beta * old)) + 1e-30;
            const double value = got[i * ldc + j];
            const bool want_nan =
                (c->nan_a && i == nan_row && c->k > 0) || (c->nan_b && j == nan_col && c->k > 0);
            const bool ok = want_nan ? isnan(value) : fabs(value - expected) <= bound;
            if (!ok && wrong++ == 0)
                snprintf(first, first_len, "C[%zu][%zu] = %.9g, expected %.9g%s", i, j, value,
                         expected, want_nan ? " (NaN)" : "");
        }
    }
    /* The padding between C's rows is never written. */
    for (size_t i = 0; i + 1 < c->m; i++)
        for (size_t j = c->n; j < ldc; j++)
            if (got[i * ldc + j] != c0[i * ldc + j] && wrong++ == 0)
                snprintf(first, first_len, "padding C[%zu][%zu] written", i, j);
    free(dot);
    free(mag);
    return wrong;
}

static void run_case(warplab_context *context, const char *backend, const exact_case *c,
                     unsigned seed)
{
    const size_t lda = c->lda ? c->lda : c->k, ldb = c->ldb ? c->ldb : c->n,
                 ldc = c->ldc ? c->ldc : c->n;
    const size_t sa = span(c->m, c->k, lda), sb = span(c->k, c->n, ldb), sc = span(c->m, c->n, ldc);
    float *a = malloc((sa ? sa : 1) * sizeof *a), *b = malloc((sb ? sb : 1) * sizeof *b);
    float *c0 = malloc((sc ? sc : 1) * sizeof *c0), *got = malloc((sc ? sc : 1) * sizeof *got);
    CHECK(a && b && c0 && got);
    if (!a || !b || !c0 || !got)
        goto done;
    fill(a, sa, seed);
    fill(b, sb, seed + 1);
    fill(c0, sc, seed + 2);
    const size_t nan_row = c->m / 2, nan_col = c->n / 3;
    if (c->nan_a && c->k > 0)
        a[nan_row * lda + c->k / 2] = NAN;
    if (c->nan_b && c->k > 0)
        b[(c->k / 3) * ldb + nan_col] = NAN;
    /* Exactly the view's bytes (a zero-byte view still gets a buffer). */
    warplab_buffer *ba = NULL, *bb = NULL, *bc = NULL;
    CHECK(warplab_buffer_create(context, sa * sizeof(float), &ba) == WARPLAB_OK);
    CHECK(warplab_buffer_create(context, sb * sizeof(float), &bb) == WARPLAB_OK);
    CHECK(warplab_buffer_create(context, sc * sizeof(float), &bc) == WARPLAB_OK);
    if (ba && bb && bc) {
        CHECK(warplab_buffer_write(ba, 0, a, sa * sizeof(float)) == WARPLAB_OK);
        CHECK(warplab_buffer_write(bb, 0, b, sb * sizeof(float)) == WARPLAB_OK);
        CHECK(warplab_buffer_write(bc, 0, c0, sc * sizeof(float)) == WARPLAB_OK);
        warplab_status status = warplab_gemm(context, c->m, c->n, c->k, c->alpha, ba, c->lda, bb,
                                             c->ldb, c->beta, bc, c->ldc);
        CHECK_MSG(status == WARPLAB_OK, "%s %zux%zux%zu (%s): %s", backend, c->m, c->n, c->k,
                  c->what, warplab_last_error(context));
        if (status == WARPLAB_OK) {
            CHECK(warplab_buffer_read(bc, 0, got, sc * sizeof(float)) == WARPLAB_OK);
            char first[160] = "";
            const size_t wrong =
                count_wrong(c, lda, ldb, ldc, a, b, c0, got, nan_row, nan_col, first, sizeof first);
            CHECK_MSG(wrong == 0, "%s %zux%zux%zu (%s): %zu wrong, first %s", backend, c->m, c->n,
                      c->k, c->what, wrong, first);
            /* The same shape gives the same bits (deterministic split-K). */
            if (wrong == 0 && c->beta == 0.0f) {
                float *again = malloc((sc ? sc : 1) * sizeof *again);
                if (again &&
                    warplab_gemm(context, c->m, c->n, c->k, c->alpha, ba, c->lda, bb, c->ldb,
                                 c->beta, bc, c->ldc) == WARPLAB_OK &&
                    warplab_buffer_read(bc, 0, again, sc * sizeof(float)) == WARPLAB_OK)
                    CHECK_MSG(memcmp(again, got, sc * sizeof(float)) == 0,
                              "%s %zux%zux%zu: a second run gave other bits", backend, c->m, c->n,
                              c->k);
                free(again);
            }
        }
    }
    warplab_buffer_destroy(ba);
    warplab_buffer_destroy(bb);
    warplab_buffer_destroy(bc);
done:
    free(a);
    free(b);
    free(c0);
    free(got);
}

/* 0: ran; 77: no device. */
static int on_backend(warplab_backend_kind kind)
{
    warplab_context *context = NULL;
    if (warplab_context_create(kind, 0, &context) != WARPLAB_OK) {
        printf("  %s: no device\n", warplab_backend_name(kind));
        return 77;
    }
    const int before = check_failures;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_case(context, warplab_backend_name(kind), &cases[i], 17u + 3u * (unsigned)i);
    printf("  %s (%s): %s\n", warplab_backend_name(kind), warplab_context_device(context)->name,
           check_failures == before ? "ok" : "FAILED");
    warplab_context_destroy(context);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--backend") == 0) {
        warplab_backend_kind kind;
        if (warplab_backend_parse(argv[2], &kind) != WARPLAB_OK) {
            fprintf(stderr, "test_gemm_exact: unknown backend '%s'\n", argv[2]);
            return 2;
        }
        if (!warplab_backend_compiled(kind) || on_backend(kind) == 77)
            return 77;
        return check_report("test_gemm_exact");
    }
    if (argc != 1) {
        fprintf(stderr, "usage: test_gemm_exact [--backend cuda|opencl|cpu]\n");
        return 2;
    }
    for (int kind = WARPLAB_BACKEND_CUDA; kind < WARPLAB_BACKEND_COUNT; kind++)
        if (warplab_backend_compiled((warplab_backend_kind)kind))
            on_backend((warplab_backend_kind)kind);
    return check_report("test_gemm_exact");
}
