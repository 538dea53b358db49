/* warplab_reduce(): argument checks (nothing written on failure), the
 * identity for n = 0, and results against host loops on every backend with
 * a device: int32 sums that wrap, float min and max with and without a NaN,
 * double sums, and n not a multiple of anything. */
#include "../check.h"
#include "warplab.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A fixed, non-trivial sequence: values in [-2^31, 2^31) for ints. */
static uint64_t next_random(uint64_t *state)
{
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    return *state >> 11;
}

static void check_arguments(warplab_context *context)
{
    warplab_buffer *buffer = NULL;
    CHECK(warplab_buffer_create(context, 64, &buffer) == WARPLAB_OK);
    int32_t result = 12345;
    CHECK(warplab_reduce(NULL, WARPLAB_INT32, WARPLAB_REDUCE_SUM, buffer, 4, &result) ==
          WARPLAB_ERROR_INVALID_ARGUMENT);
    CHECK(warplab_reduce(context, WARPLAB_INT32, WARPLAB_REDUCE_SUM, NULL, 4, &result) ==
          WARPLAB_ERROR_INVALID_ARGUMENT);
    CHECK(warplab_reduce(context, WARPLAB_INT32, WARPLAB_REDUCE_SUM, buffer, 4, NULL) ==
          WARPLAB_ERROR_INVALID_ARGUMENT);
    CHECK(warplab_reduce(context, WARPLAB_DTYPE_COUNT, WARPLAB_REDUCE_SUM, buffer, 4, &result) ==
          WARPLAB_ERROR_INVALID_ARGUMENT);
    /* The 16-bit types are warplab_gemm_ex's alone. */
    CHECK(warplab_reduce(context, WARPLAB_BFLOAT16, WARPLAB_REDUCE_SUM, buffer, 4, &result) ==
          WARPLAB_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(warplab_last_error(context), "bf16") != NULL);
    CHECK(warplab_reduce(context, WARPLAB_FLOAT16, WARPLAB_REDUCE_MAX, buffer, 4, &result) ==
          WARPLAB_ERROR_INVALID_ARGUMENT);
    CHECK(warplab_reduce(context, WARPLAB_INT32, WARPLAB_REDUCE_OP_COUNT, buffer, 4, &result) ==
          WARPLAB_ERROR_INVALID_ARGUMENT);
    /* 17 ints are 68 bytes: one past the 64-byte buffer. */
    CHECK(warplab_reduce(context, WARPLAB_INT32, WARPLAB_REDUCE_SUM, buffer, 17, &result) ==
          WARPLAB_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(warplab_last_error(context), "64 bytes") != NULL);
    CHECK(warplab_reduce(context, WARPLAB_FLOAT64, WARPLAB_REDUCE_SUM, buffer, SIZE_MAX / 4,
                         &result) == WARPLAB_ERROR_INVALID_ARGUMENT);
    CHECK(result == 12345);
    warplab_buffer_destroy(buffer);
}

static void check_empty(warplab_context *context)
{
    warplab_buffer *buffer = NULL;
    CHECK(warplab_buffer_create(context, 0, &buffer) == WARPLAB_OK);
    int32_t i = 7;
    float f = 7.0f;
    double d = 7.0;
    CHECK(warplab_reduce(context, WARPLAB_INT32, WARPLAB_REDUCE_SUM, buffer, 0, &i) == WARPLAB_OK);
    CHECK(i == 0);
    CHECK(warplab_reduce(context, WARPLAB_INT32, WARPLAB_REDUCE_MIN, buffer, 0, &i) == WARPLAB_OK);
    CHECK(i == INT32_MAX);
    CHECK(warplab_reduce(context, WARPLAB_INT32, WARPLAB_REDUCE_MAX, buffer, 0, &i) == WARPLAB_OK);
    CHECK(i == INT32_MIN);
    CHECK(warplab_reduce(context, WARPLAB_FLOAT32, WARPLAB_REDUCE_MIN, buffer, 0, &f) ==
          WARPLAB_OK);
    CHECK(isinf(f) && f > 0);
    CHECK(warplab_reduce(context, WARPLAB_FLOAT64, WARPLAB_REDUCE_MAX, buffer, 0, &d) ==
          WARPLAB_OK);
    CHECK(isinf(d) && d < 0);
    warplab_buffer_destroy(buffer);
}

static void check_int32(warplab_context *context, size_t n)
{
    int32_t *x = malloc(n * sizeof *x);
    warplab_buffer *buffer = NULL;
    CHECK(x && warplab_buffer_create(context, n * sizeof *x, &buffer) == WARPLAB_OK);
    if (!x || !buffer)
        goto done;
    uint64_t state = n;
    int64_t sum = 0;
    int32_t lo = INT32_MAX, hi = INT32_MIN;
    for (size_t i = 0; i < n; i++) {
        x[i] = (int32_t)(uint32_t)next_random(&state);
        sum += x[i];
        lo = x[i] < lo ? x[i] : lo;
        hi = x[i] > hi ? x[i] : hi;
    }
    CHECK(warplab_buffer_write(buffer, 0, x, n * sizeof *x) == WARPLAB_OK);
    int32_t got = 0;
    CHECK_MSG(warplab_reduce(context, WARPLAB_INT32, WARPLAB_REDUCE_SUM, buffer, n, &got) ==
                  WARPLAB_OK,
              "%s", warplab_last_error(context));
    CHECK_MSG(got == (int32_t)(uint32_t)(uint64_t)sum, "n=%zu: sum %d, expected %d", n, got,
              (int32_t)(uint32_t)(uint64_t)sum);
    CHECK(warplab_reduce(context, WARPLAB_INT32, WARPLAB_REDUCE_MIN, buffer, n, &got) ==
          WARPLAB_OK);
    CHECK_MSG(got == lo, "n=%zu: min %d, expected %d", n, got, lo);
    CHECK(warplab_reduce(context, WARPLAB_INT32, WARPLAB_REDUCE_MAX, buffer, n, &got) ==
          WARPLAB_OK);
    CHECK_MSG(got == hi, "n=%zu: max %d, expected %d", n, got, hi);
    /* A prefix of the buffer: n - 1 elements. */
    if (n > 1) {
        CHECK(warplab_reduce(context, WARPLAB_INT32, WARPLAB_REDUCE_SUM, buffer, n - 1, &got) ==
              WARPLAB_OK);
        CHECK(got == (int32_t)(uint32_t)(uint64_t)(sum - x[n - 1]));
    }
done:
    warplab_buffer_destroy(buffer);
    free(x);
}

static void check_floating(warplab_context *context, size_t n)
{
    float *f = malloc(n * sizeof *f);
    double *d = malloc(n * sizeof *d);
    warplab_buffer *fb = NULL, *db = NULL;
    CHECK(f && d && warplab_buffer_create(context, n * sizeof *f, &fb) == WARPLAB_OK &&
          warplab_buffer_create(context, n * sizeof *d, &db) == WARPLAB_OK);
    if (!f || !d || !fb || !db)
        goto done;
    uint64_t state = 3 * n + 1;
    double exact = 0.0, magnitude = 0.0;
    float lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        f[i] = (float)((double)next_random(&state) / 0x1p53 * 2.0 - 1.0);
        d[i] = f[i];
        exact += f[i];
        magnitude += fabs(f[i]);
        lo = f[i] < lo ? f[i] : lo;
        hi = f[i] > hi ? f[i] : hi;
    }
    CHECK(warplab_buffer_write(fb, 0, f, n * sizeof *f) == WARPLAB_OK);
    CHECK(warplab_buffer_write(db, 0, d, n * sizeof *d) == WARPLAB_OK);
    float got = 0.0f;
    double got_double = 0.0;
    CHECK(warplab_reduce(context, WARPLAB_FLOAT32, WARPLAB_REDUCE_SUM, fb, n, &got) == WARPLAB_OK);
    CHECK_MSG(fabs(got - exact) <= (double)n * FLT_EPSILON * magnitude, "n=%zu: %.9g vs %.9g", n,
              got, exact);
    CHECK(warplab_reduce(context, WARPLAB_FLOAT64, WARPLAB_REDUCE_SUM, db, n, &got_double) ==
          WARPLAB_OK);
    CHECK_MSG(fabs(got_double - exact) <= (double)n * DBL_EPSILON * magnitude + 1e-9,
              "n=%zu: %.17g vs %.17g", n, got_double, exact);
    CHECK(warplab_reduce(context, WARPLAB_FLOAT32, WARPLAB_REDUCE_MIN, fb, n, &got) == WARPLAB_OK);
    CHECK(got == lo);
    CHECK(warplab_reduce(context, WARPLAB_FLOAT32, WARPLAB_REDUCE_MAX, fb, n, &got) == WARPLAB_OK);
    CHECK(got == hi);
    /* A NaN anywhere gives NaN, for min and max as for the sum. */
    const float nan_value = NAN;
    CHECK(warplab_buffer_write(fb, (n / 2) * sizeof *f, &nan_value, sizeof nan_value) ==
          WARPLAB_OK);
    for (int op = 0; op < WARPLAB_REDUCE_OP_COUNT; op++) {
        got = 0.0f;
        CHECK(warplab_reduce(context, WARPLAB_FLOAT32, (warplab_reduce_op)op, fb, n, &got) ==
              WARPLAB_OK);
        CHECK_MSG(isnan(got), "n=%zu %s with a NaN gave %g", n,
                  warplab_reduce_op_name((warplab_reduce_op)op), got);
    }
done:
    warplab_buffer_destroy(fb);
    warplab_buffer_destroy(db);
    free(f);
    free(d);
}

int main(void)
{
    warplab_reduce_op op;
    CHECK(warplab_reduce_op_parse("MAX", &op) == WARPLAB_OK && op == WARPLAB_REDUCE_MAX);
    CHECK(warplab_reduce_op_parse("product", &op) == WARPLAB_ERROR_UNKNOWN_NAME);
    CHECK_STR(warplab_reduce_op_name(WARPLAB_REDUCE_MIN), "min");

    static const size_t sizes[] = {1, 2, 3, 33, 1000, 65537, (1u << 20) + 3};
    int backends = 0;
    for (int kind = WARPLAB_BACKEND_CUDA; kind < WARPLAB_BACKEND_COUNT; kind++) {
        warplab_context *context = NULL;
        if (warplab_context_create((warplab_backend_kind)kind, 0, &context) != WARPLAB_OK)
            continue; /* not compiled in, or no device */
        printf("%s: %s\n", warplab_backend_name((warplab_backend_kind)kind),
               warplab_context_device(context)->name);
        backends++;
        check_arguments(context);
        check_empty(context);
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            check_int32(context, sizes[i]);
            check_floating(context, sizes[i]);
        }
        warplab_context_destroy(context);
    }
    CHECK(backends > 0);
    return check_report("test_reduce_api");
}
