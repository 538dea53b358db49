/*
 * The C side of the Python layer's overhead measurement (overhead.py): the
 * host time of one call of warplab_vecadd, warplab_reduce_to_buffer,
 * warplab_transpose and warplab_gemm_ex on the cuda backend, buffers wrapped
 * once, the stream synchronised every 32 calls so the launch queue never
 * fills. Prints one line per call: "NAME median_us p10_us p90_us".
 * Exits 77 without a CUDA device.
 */
#define _POSIX_C_SOURCE 200809L
#include "warplab.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { CALLS = 3000, WARMUP = 200, BATCH = 32, N = 64 };

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec * 1e-3;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static warplab_context *ctx;
static warplab_buffer *a, *b, *c, *r;

static warplab_status call(int which)
{
    switch (which) {
    case 0: return warplab_vecadd(ctx, a, b, c, N * N);
    case 1:
        return warplab_reduce_to_buffer(ctx, WARPLAB_FLOAT32, WARPLAB_REDUCE_SUM, a, N * N, r, 0);
    case 2: return warplab_transpose(ctx, WARPLAB_FLOAT32, N, N, a, N, c, N);
    default:
        return warplab_gemm_ex(ctx, WARPLAB_OP_N, WARPLAB_OP_N, N, N, N, 1.0f, a, WARPLAB_FLOAT32,
                               N, b, WARPLAB_FLOAT32, N, 0.0f, c, WARPLAB_FLOAT32, N,
                               WARPLAB_COMPUTE_FP32);
    }
}

int main(void)
{
    static const char *names[] = {"vecadd", "reduce_to_buffer", "transpose", "gemm"};
    if (warplab_context_create(WARPLAB_BACKEND_CUDA, 0, &ctx) != WARPLAB_OK) {
        printf("SKIPPED: no CUDA device: %s\n", warplab_last_error(NULL));
        return 77;
    }
    size_t bytes = sizeof(float) * N * N;
    if (warplab_buffer_create(ctx, bytes, &a) || warplab_buffer_create(ctx, bytes, &b) ||
        warplab_buffer_create(ctx, bytes, &c) || warplab_buffer_create(ctx, 4, &r)) {
        printf("buffers: %s\n", warplab_last_error(ctx));
        return 1;
    }
    float *host = calloc(N * N, sizeof *host);
    warplab_buffer_write(a, 0, host, bytes);
    warplab_buffer_write(b, 0, host, bytes);
    free(host);
    static double times[CALLS];
    for (int which = 0; which < 4; which++) {
        for (int i = 0; i < WARMUP; i++)
            if (call(which) != WARPLAB_OK) {
                printf("%s: %s\n", names[which], warplab_last_error(ctx));
                return 1;
            }
        warplab_context_synchronize(ctx);
        for (int i = 0; i < CALLS; i++) {
            double t0 = now_us();
            call(which);
            times[i] = now_us() - t0;
            if (i % BATCH == BATCH - 1)
                warplab_context_synchronize(ctx);
        }
        warplab_context_synchronize(ctx);
        qsort(times, CALLS, sizeof times[0], by_value);
        printf("%s %.3f %.3f %.3f\n", names[which], times[CALLS / 2], times[CALLS / 10],
               times[CALLS * 9 / 10]);
    }
    warplab_buffer_destroy(a);
    warplab_buffer_destroy(b);
    warplab_buffer_destroy(c);
    warplab_buffer_destroy(r);
    warplab_context_destroy(ctx);
    return 0;
}
