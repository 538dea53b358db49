/* warplab_gemm(): bad arguments are refused before any work (C untouched),
 * and on every backend present the result matches a double-precision
 * product, with padded rows, beta != 0, k = 0 and empty C. */
#include "../check.h"

#include <warplab.h>

#include <float.h>
#include <stdlib.h>

enum { M = 37, N = 29, K = 53, LDA = 56, LDB = 31, LDC = 33 };

static float a_host[M * LDA], b_host[K * LDB], c_host[M * LDC], c0_host[M * LDC];

static void fill(float *x, size_t count, unsigned seed)
{
    for (size_t i = 0; i < count; i++) {
        seed = seed * 1664525u + 1013904223u;
        x[i] = (float)((double)(seed >> 8) / (double)(1u << 24) * 2.0 - 1.0);
    }
}

/* |C - (alpha*A*B + beta*C0)| within gamma_{k+2} (u = 2^-24) of the sums of
 * magnitudes: the bound the ladder's check uses. */
static int count_wrong(float alpha, float beta, int k)
{
    int wrong = 0;
    const double u = 0x1p-24, gamma = (k + 2) * u / (1 - (k + 2) * u);
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double dot = 0.0, magnitude = 0.0;
            for (int p = 0; p < k; p++) {
                double product = (double)a_host[i * LDA + p] * (double)b_host[p * LDB + j];
                dot += product;
                magnitude += fabs(product);
            }
            double c0 = c0_host[i * LDC + j];
            double expected = alpha * dot + beta * c0;
            double bound = gamma * (fabs(alpha) * magnitude + fabs(beta * c0)) + 1e-30;
            if (!(fabs(c_host[i * LDC + j] - expected) <= bound))
                wrong++;
        }
    return wrong;
}

static void on_backend(warplab_backend_kind kind)
{
    warplab_context *context = NULL;
    if (warplab_context_create(kind, 0, &context) != WARPLAB_OK) {
        printf("  %s: no device, skipped\n", warplab_backend_name(kind));
        return;
    }
    warplab_buffer *a = NULL, *b = NULL, *c = NULL, *small = NULL;
    CHECK(warplab_buffer_create(context, sizeof a_host, &a) == WARPLAB_OK);
    CHECK(warplab_buffer_create(context, sizeof b_host, &b) == WARPLAB_OK);
    CHECK(warplab_buffer_create(context, sizeof c_host, &c) == WARPLAB_OK);
    CHECK(warplab_buffer_create(context, 16, &small) == WARPLAB_OK);
    fill(a_host, M * LDA, 1);
    fill(b_host, K * LDB, 2);
    fill(c0_host, M * LDC, 3);
    CHECK(warplab_buffer_write(a, 0, a_host, sizeof a_host) == WARPLAB_OK);
    CHECK(warplab_buffer_write(b, 0, b_host, sizeof b_host) == WARPLAB_OK);
    CHECK(warplab_buffer_write(c, 0, c0_host, sizeof c0_host) == WARPLAB_OK);

    /* Refused, C untouched. */
    CHECK(warplab_gemm(context, M, N, K, 1.0f, a, K - 1, b, LDB, 0.0f, c, LDC) ==
          WARPLAB_ERROR_INVALID_ARGUMENT);
    CHECK(warplab_gemm(context, M, N, K, 1.0f, a, LDA, b, N - 1, 0.0f, c, LDC) ==
          WARPLAB_ERROR_INVALID_ARGUMENT);
    CHECK(warplab_gemm(context, M, N, K, 1.0f, small, LDA, b, LDB, 0.0f, c, LDC) ==
          WARPLAB_ERROR_INVALID_ARGUMENT);
    CHECK(warplab_gemm(context, M, N, K, 1.0f, a, LDA, b, LDB, 0.0f, a, LDC) ==
          WARPLAB_ERROR_INVALID_ARGUMENT);
    CHECK(warplab_gemm(context, M, N, K, NAN, a, LDA, b, LDB, 0.0f, c, LDC) ==
          WARPLAB_ERROR_INVALID_ARGUMENT);
    CHECK(warplab_gemm(NULL, M, N, K, 1.0f, a, LDA, b, LDB, 0.0f, c, LDC) ==
          WARPLAB_ERROR_INVALID_ARGUMENT);
    CHECK(warplab_last_error(context)[0] != '\0');
    CHECK(warplab_buffer_read(c, 0, c_host, sizeof c_host) == WARPLAB_OK);
    CHECK(memcmp(c_host, c0_host, sizeof c_host) == 0);

    /* C = 1.5 A B - 0.5 C0, padded rows. */
    warplab_status status = warplab_gemm(context, M, N, K, 1.5f, a, LDA, b, LDB, -0.5f, c, LDC);
    CHECK_MSG(status == WARPLAB_OK, "%s: %s", warplab_backend_name(kind),
              warplab_last_error(context));
    CHECK(warplab_buffer_read(c, 0, c_host, sizeof c_host) == WARPLAB_OK);
    CHECK_MSG(count_wrong(1.5f, -0.5f, K) == 0, "%s: %d wrong", warplab_backend_name(kind),
              count_wrong(1.5f, -0.5f, K));

    /* beta = 0: C's old values (NaN here) do not matter. */
    for (size_t i = 0; i < M * LDC; i++)
        c_host[i] = NAN;
    CHECK(warplab_buffer_write(c, 0, c_host, sizeof c_host) == WARPLAB_OK);
    CHECK(warplab_gemm(context, M, N, K, 1.0f, a, LDA, b, LDB, 0.0f, c, LDC) == WARPLAB_OK);
    CHECK(warplab_buffer_read(c, 0, c_host, sizeof c_host) == WARPLAB_OK);
    for (size_t i = 0; i < M * LDC; i++)
        c0_host[i] = 0.0f; /* beta = 0 in the reference */
    CHECK(count_wrong(1.0f, 0.0f, K) == 0);

    /* k = 0: C = beta * C; m = 0: nothing. */
    fill(c0_host, M * LDC, 4);
    CHECK(warplab_buffer_write(c, 0, c0_host, sizeof c0_host) == WARPLAB_OK);
    CHECK(warplab_gemm(context, M, N, 0, 1.0f, a, 0, b, LDB, 2.0f, c, LDC) == WARPLAB_OK);
    CHECK(warplab_buffer_read(c, 0, c_host, sizeof c_host) == WARPLAB_OK);
    CHECK(count_wrong(1.0f, 2.0f, 0) == 0);
    CHECK(warplab_gemm(context, 0, N, K, 1.0f, a, LDA, b, LDB, 0.0f, c, LDC) == WARPLAB_OK);

    printf("  %s: ok\n", warplab_backend_name(kind));
    warplab_buffer_destroy(a);
    warplab_buffer_destroy(b);
    warplab_buffer_destroy(c);
    warplab_buffer_destroy(small);
    warplab_context_destroy(context);
}

int main(void)
{
    for (int kind = WARPLAB_BACKEND_CUDA; kind < WARPLAB_BACKEND_COUNT; kind++)
        if (warplab_backend_compiled((warplab_backend_kind)kind))
            on_backend((warplab_backend_kind)kind);
    return check_report("test_gemm_api");
}
