/* warplab as a drop-in library, on one backend (--backend cpu|opencl|cuda):
 * the caller's memory (warplab_buffer_wrap of a native handle, at aligned
 * and unaligned addresses, exact-size, inside a larger allocation whose
 * bytes around the view must stay untouched), views, the device-result
 * reduction at an offset, asynchronous operations in order on the bound
 * stream, the workspace reused across sizes, types and operations, and
 * (opencl) a command queue of the caller's.
 *
 * Exits 77 (CTest's skip) when the backend has no device. */
#include "check.h"
#include "warplab.h"

#ifdef WARPLAB_TEST_OPENCL
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#endif

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SENTINEL 0x5Au

static warplab_backend_kind backend_kind;

/* A parent buffer of parent_bytes filled with SENTINEL, and a wrapper of the
 * caller's kind over bytes of it from offset on: on cuda and cpu the native
 * address + offset is wrapped (as a caller wraps base + offset); on opencl
 * the cl_mem is wrapped and a view taken at the offset. */
typedef struct wrapped {
    warplab_buffer *parent; /* stands for the caller's allocation */
    warplab_buffer *whole;  /* the wrapper of the native handle (opencl) */
    warplab_buffer *buffer; /* what the operations get */
    size_t offset, bytes, parent_bytes;
} wrapped;

static void wrap_at(warplab_context *ctx, size_t offset, size_t bytes, wrapped *w)
{
    memset(w, 0, sizeof *w);
    w->offset = offset;
    w->bytes = bytes;
    w->parent_bytes = offset + bytes + 64;
    CHECK(warplab_buffer_create(ctx, w->parent_bytes, &w->parent) == WARPLAB_OK);
    unsigned char *fill = malloc(w->parent_bytes);
    memset(fill, SENTINEL, w->parent_bytes);
    CHECK(warplab_buffer_write(w->parent, 0, fill, w->parent_bytes) == WARPLAB_OK);
    free(fill);
    void *handle = NULL;
    size_t base = 0;
    CHECK(warplab_buffer_native(w->parent, &handle, &base) == WARPLAB_OK);
    CHECK(base == 0);
    if (backend_kind == WARPLAB_BACKEND_OPENCL) {
        CHECK(warplab_buffer_wrap(ctx, handle, w->parent_bytes, &w->whole) == WARPLAB_OK);
        CHECK(warplab_buffer_view(w->whole, offset, bytes, &w->buffer) == WARPLAB_OK);
    } else {
        CHECK(warplab_buffer_wrap(ctx, (char *)handle + offset, bytes, &w->buffer) == WARPLAB_OK);
    }
    CHECK(warplab_buffer_size(w->buffer) == bytes);
}

/* The bytes outside the view are still the sentinel; the view's are copied
 * into data (may be NULL). Then everything is freed: the wrappers first, and
 * the parent must still be whole after them (wrapped memory is not freed). */
static void unwrap(wrapped *w, void *data)
{
    unsigned char *all = malloc(w->parent_bytes);
    warplab_buffer_destroy(w->buffer);
    warplab_buffer_destroy(w->whole);
    CHECK(warplab_buffer_read(w->parent, 0, all, w->parent_bytes) == WARPLAB_OK);
    size_t touched = 0;
    for (size_t i = 0; i < w->parent_bytes; i++)
        if ((i < w->offset || i >= w->offset + w->bytes) && all[i] != SENTINEL)
            touched++;
    CHECK_MSG(touched == 0, "%zu bytes outside a %zu-byte view at offset %zu were written", touched,
              w->bytes, w->offset);
    if (data)
        memcpy(data, all + w->offset, w->bytes);
    free(all);
    warplab_buffer_destroy(w->parent);
}

static float value_at(size_t i, unsigned salt)
{
    uint32_t h = (uint32_t)i * 2654435761u ^ salt * 40503u;
    h ^= h >> 13;
    return (float)(h % 2001) / 1000.0f - 1.0f;
}

static void upload_floats(warplab_buffer *buffer, size_t n, unsigned salt, float *copy)
{
    for (size_t i = 0; i < n; i++)
        copy[i] = value_at(i, salt);
    CHECK(warplab_buffer_write(buffer, 0, copy, n * sizeof(float)) == WARPLAB_OK);
}

/* vecadd with each array at its own offset: equal and unequal 16-byte
 * misalignments, n below, at and past a vector. */
static void check_vecadd(warplab_context *ctx)
{
    static const size_t sizes[] = {1, 3, 4, 1000, 4097, 100003};
    static const size_t offsets[][3] = {{0, 0, 0}, {4, 4, 4}, {12, 12, 12}, {4, 8, 0}, {8, 0, 12}};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (size_t o = 0; o < sizeof offsets / sizeof offsets[0]; o++) {
            const size_t n = sizes[s], bytes = n * sizeof(float);
            wrapped w[3];
            for (int i = 0; i < 3; i++)
                wrap_at(ctx, offsets[o][i], bytes, &w[i]);
            float *a = malloc(bytes), *b = malloc(bytes), *c = malloc(bytes);
            upload_floats(w[0].buffer, n, 1, a);
            upload_floats(w[1].buffer, n, 2, b);
            CHECK(warplab_vecadd(ctx, w[0].buffer, w[1].buffer, w[2].buffer, n) == WARPLAB_OK);
            CHECK(warplab_context_synchronize(ctx) == WARPLAB_OK);
            unwrap(&w[0], NULL);
            unwrap(&w[1], NULL);
            unwrap(&w[2], c);
            size_t bad = 0;
            for (size_t i = 0; i < n; i++)
                bad += c[i] != a[i] + b[i];
            CHECK_MSG(bad == 0, "vecadd n=%zu offsets %zu/%zu/%zu: %zu wrong", n, offsets[o][0],
                      offsets[o][1], offsets[o][2], bad);
            free(a);
            free(b);
            free(c);
        }
}

/* The host reference of warplab_scan for element type dtype: y[i] and the
 * bound it is held to (m * eps * sum of the m |x| it covers, 0 for exact
 * results), from x as uploaded. */
static void scan_reference(warplab_dtype dtype, warplab_reduce_op op, warplab_scan_kind kind,
                           const unsigned char *x, size_t n, double *expect, double *bound)
{
    const size_t element = warplab_dtype_size(dtype);
    const double eps = dtype == WARPLAB_FLOAT32 ? FLT_EPSILON : DBL_EPSILON;
    uint32_t int_acc = op == WARPLAB_REDUCE_MIN   ? (uint32_t)INT32_MAX
                       : op == WARPLAB_REDUCE_MAX ? (uint32_t)INT32_MIN
                                                  : 0u;
    double acc = op == WARPLAB_REDUCE_MIN ? INFINITY : op == WARPLAB_REDUCE_MAX ? -INFINITY : 0.0;
    double magnitude = 0.0;
    for (size_t i = 0; i < n; i++) {
        const size_t terms = kind == WARPLAB_SCAN_EXCLUSIVE ? i : i + 1;
        if (kind == WARPLAB_SCAN_EXCLUSIVE) {
            expect[i] = dtype == WARPLAB_INT32 ? (double)(int32_t)int_acc : acc;
            bound[i] = op == WARPLAB_REDUCE_SUM && dtype != WARPLAB_INT32
                           ? (double)terms * eps * magnitude
                           : 0.0;
        }
        if (dtype == WARPLAB_INT32) {
            int32_t v;
            memcpy(&v, x + i * 4, 4);
            const int32_t a = (int32_t)int_acc;
            int_acc = op == WARPLAB_REDUCE_SUM   ? int_acc + (uint32_t)v
                      : op == WARPLAB_REDUCE_MIN ? (uint32_t)(v < a ? v : a)
                                                 : (uint32_t)(v > a ? v : a);
        } else {
            double v;
            if (dtype == WARPLAB_FLOAT32) {
                float f;
                memcpy(&f, x + i * element, 4);
                v = f;
            } else {
                memcpy(&v, x + i * element, 8);
            }
            magnitude += fabs(v);
            if (op == WARPLAB_REDUCE_SUM)
                acc += v;
            else if (isnan(v) || isnan(acc))
                acc = NAN;
            else
                acc = op == WARPLAB_REDUCE_MIN ? (v < acc ? v : acc) : (v > acc ? v : acc);
        }
        if (kind == WARPLAB_SCAN_INCLUSIVE) {
            expect[i] = dtype == WARPLAB_INT32 ? (double)(int32_t)int_acc : acc;
            bound[i] = op == WARPLAB_REDUCE_SUM && dtype != WARPLAB_INT32
                           ? (double)terms * eps * magnitude
                           : 0.0;
        }
    }
}

/* warplab_scan over wrapped exact-size views at unaligned offsets, every
 * type, operation and kind, in place and out of place, the output filled
 * with the sentinel first (every element must be written, nothing past
 * it); sizes alternate so that the workspace grows and is reused; a NaN is
 * planted in some float inputs. */
static void check_scan(warplab_context *ctx, bool gpu)
{
    static const size_t sizes[] = {1, 5,     33,      4096, 4097, 100003,
                                   7, 65537, 3000001, 1025, 2,    1048579};
    static const size_t offsets[] = {0, 4, 8, 12};
    const size_t count = sizeof sizes / sizeof sizes[0];
    for (size_t s = 0; s < 2 * count; s++) {
        size_t n = sizes[s % count];
        if (gpu && s == 2 * count - 1)
            n = ((size_t)1 << 24) + 11; /* thousands of look-back tiles */
        const warplab_dtype dtype = (warplab_dtype)(s % 3);
        const warplab_reduce_op op = (warplab_reduce_op)((s / 3) % 3);
        const warplab_scan_kind kind = (warplab_scan_kind)((s / 2) % 2);
        const bool in_place = s % 5 == 1;
        const bool plant_nan = dtype != WARPLAB_INT32 && s % 7 == 3;
        const size_t element = warplab_dtype_size(dtype);
        const size_t in_offset = dtype == WARPLAB_FLOAT64 ? offsets[s % 2] * 2 : offsets[s % 4];
        const size_t out_offset =
            dtype == WARPLAB_FLOAT64 ? offsets[(s + 1) % 2] * 2 : offsets[(s + 3) % 4];
        unsigned char *host = malloc(n * element), *got = malloc(n * element);
        double *expect = malloc(n * sizeof(double)), *bound = malloc(n * sizeof(double));
        for (size_t i = 0; i < n; i++) {
            const double v = value_at(i, (unsigned)s + 11);
            if (dtype == WARPLAB_INT32) {
                const int32_t x = (int32_t)(v * 2147483000.0); /* sums wrap */
                memcpy(host + i * 4, &x, 4);
            } else if (dtype == WARPLAB_FLOAT32) {
                const float f = (float)v;
                memcpy(host + i * 4, &f, 4);
            } else {
                memcpy(host + i * 8, &v, 8);
            }
        }
        if (plant_nan) {
            const size_t at = n / 2;
            if (dtype == WARPLAB_FLOAT32) {
                const float f = NAN;
                memcpy(host + at * 4, &f, 4);
            } else {
                const double d = NAN;
                memcpy(host + at * 8, &d, 8);
            }
        }
        scan_reference(dtype, op, kind, host, n, expect, bound);
        wrapped in, out;
        wrap_at(ctx, in_offset, n * element, &in);
        CHECK(warplab_buffer_write(in.buffer, 0, host, n * element) == WARPLAB_OK);
        if (!in_place)
            wrap_at(ctx, out_offset, n * element, &out);
        warplab_status status =
            warplab_scan(ctx, dtype, op, kind, in.buffer, in_place ? in.buffer : out.buffer, n);
        CHECK_MSG(status == WARPLAB_OK, "warplab_scan: %s", warplab_last_error(ctx));
        CHECK(warplab_context_synchronize(ctx) == WARPLAB_OK);
        if (in_place) {
            unwrap(&in, got);
        } else {
            unsigned char *unchanged = malloc(n * element);
            unwrap(&in, unchanged);
            CHECK_MSG(memcmp(unchanged, host, n * element) == 0, "scan n=%zu changed its input", n);
            free(unchanged);
            unwrap(&out, got);
        }
        size_t bad = 0, first = 0;
        for (size_t i = 0; i < n; i++) {
            double x;
            if (dtype == WARPLAB_INT32) {
                int32_t v;
                memcpy(&v, got + i * 4, 4);
                x = v;
            } else if (dtype == WARPLAB_FLOAT32) {
                float f;
                memcpy(&f, got + i * 4, 4);
                x = f;
            } else {
                memcpy(&x, got + i * 8, 8);
            }
            const bool ok =
                isnan(expect[i]) ? isnan(x) : x == expect[i] || fabs(x - expect[i]) <= bound[i];
            if (!ok && bad++ == 0)
                first = i;
        }
        CHECK_MSG(bad == 0, "scan %s %s %s n=%zu offsets %zu/%zu%s%s: %zu wrong, first at %zu",
                  warplab_dtype_name(dtype), kind ? "exclusive" : "inclusive",
                  warplab_reduce_op_name(op), n, in_offset, out_offset, in_place ? " in place" : "",
                  plant_nan ? " NaN" : "", bad, first);
        free(host);
        free(got);
        free(expect);
        free(bound);
    }
}

/* Sums, minima and maxima of floats, ints and doubles from unaligned wrapped
 * inputs, to the host and into a buffer at an offset; sizes alternate so
 * that the workspace is grown, reused and reused after other operations. */
static void check_reduce(warplab_context *ctx)
{
    static const size_t sizes[] = {5, 3000001, 1, 100, 3000001, 65537, 4096, 3000001};
    static const size_t offsets[] = {0, 4, 8, 12};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        const size_t n = sizes[s];
        const warplab_dtype dtype = (warplab_dtype)(s % 3);
        const warplab_reduce_op op = (warplab_reduce_op)((s / 3 + s) % 3);
        const size_t element = warplab_dtype_size(dtype);
        /* doubles need 8-byte alignment: offsets 0 and 8 */
        const size_t offset = dtype == WARPLAB_FLOAT64 ? offsets[s % 2] * 2 : offsets[s % 4];
        wrapped in;
        wrap_at(ctx, offset, n * element, &in);
        unsigned char *host = malloc(n * element);
        double expect_d = op == WARPLAB_REDUCE_SUM ? 0.0 : NAN, sum_abs = 0.0;
        int32_t expect_i = op == WARPLAB_REDUCE_MIN   ? INT32_MAX
                           : op == WARPLAB_REDUCE_MAX ? INT32_MIN
                                                      : 0;
        for (size_t i = 0; i < n; i++) {
            const double v = value_at(i, (unsigned)s + 7);
            if (dtype == WARPLAB_INT32) {
                const int32_t x = (int32_t)(v * 1000.0);
                memcpy(host + i * 4, &x, 4);
                if (op == WARPLAB_REDUCE_SUM)
                    expect_i = (int32_t)((uint32_t)expect_i + (uint32_t)x);
                else if (op == WARPLAB_REDUCE_MIN)
                    expect_i = x < expect_i ? x : expect_i;
                else
                    expect_i = x > expect_i ? x : expect_i;
                continue;
            }
            double x = v;
            if (dtype == WARPLAB_FLOAT32) {
                const float f = (float)v;
                memcpy(host + i * 4, &f, 4);
                x = f;
            } else {
                memcpy(host + i * 8, &x, 8);
            }
            sum_abs += fabs(x);
            if (op == WARPLAB_REDUCE_SUM)
                expect_d += x;
            else if (op == WARPLAB_REDUCE_MIN)
                expect_d = isnan(expect_d) || x < expect_d ? x : expect_d;
            else
                expect_d = isnan(expect_d) || x > expect_d ? x : expect_d;
        }
        CHECK(warplab_buffer_write(in.buffer, 0, host, n * element) == WARPLAB_OK);
        unsigned char got_host[8], got_device[8];
        CHECK(warplab_reduce(ctx, dtype, op, in.buffer, n, got_host) == WARPLAB_OK);
        /* The device result at an odd place of an exact-size wrapped output. */
        wrapped out;
        wrap_at(ctx, 8, 3 * element, &out); /* 8: not 16-aligned */
        CHECK(warplab_reduce_to_buffer(ctx, dtype, op, in.buffer, n, out.buffer, element) ==
              WARPLAB_OK);
        unsigned char result_area[24];
        CHECK(warplab_context_synchronize(ctx) == WARPLAB_OK);
        unwrap(&in, NULL);
        memset(result_area, 0, sizeof result_area);
        /* The elements around the result keep what they held (the
         * sentinel): unwrap checks outside the view; inside, only the
         * result element may change. */
        unwrap(&out, result_area);
        memcpy(got_device, result_area + element, element);
        for (size_t i = 0; i < 3 * element; i++)
            if (i < element || i >= 2 * element)
                CHECK(result_area[i] == SENTINEL);
        const double eps = dtype == WARPLAB_FLOAT32 ? FLT_EPSILON : DBL_EPSILON;
        for (int which = 0; which < 2; which++) {
            const unsigned char *got = which ? got_device : got_host;
            if (dtype == WARPLAB_INT32) {
                int32_t x;
                memcpy(&x, got, 4);
                CHECK_MSG(x == expect_i, "int32 %s n=%zu (%s): %d vs %d",
                          warplab_reduce_op_name(op), n, which ? "device" : "host", (int)x,
                          (int)expect_i);
            } else {
                double x;
                if (dtype == WARPLAB_FLOAT32) {
                    float f;
                    memcpy(&f, got, 4);
                    x = f;
                } else {
                    memcpy(&x, got, 8);
                }
                const double bound = op == WARPLAB_REDUCE_SUM ? (double)n * eps * sum_abs : 0.0;
                CHECK_MSG(fabs(x - expect_d) <= bound, "%s %s n=%zu (%s): %.17g vs %.17g",
                          warplab_dtype_name(dtype), warplab_reduce_op_name(op), n,
                          which ? "device" : "host", x, expect_d);
            }
        }
        free(host);
        /* A transpose between reductions: other work between uses of the
         * reduction's workspace. */
        if (s % 2 == 0) {
            warplab_buffer *a = NULL, *b = NULL;
            CHECK(warplab_buffer_create(ctx, 33 * 17 * 4, &a) == WARPLAB_OK);
            CHECK(warplab_buffer_create(ctx, 33 * 17 * 4, &b) == WARPLAB_OK);
            float values[33 * 17];
            upload_floats(a, 33 * 17, 8, values);
            CHECK(warplab_transpose(ctx, WARPLAB_FLOAT32, 33, 17, a, 0, b, 0) == WARPLAB_OK);
            CHECK(warplab_context_synchronize(ctx) == WARPLAB_OK);
            warplab_buffer_destroy(a);
            warplab_buffer_destroy(b);
        }
    }
}

/* Transposes of wrapped, exact-size, unaligned matrices (odd shapes, a
 * skinny one, pitches that are not multiples of 4). */
static void check_transpose(warplab_context *ctx, bool gpu)
{
    const size_t shapes[][2] = {
        {301, 40}, {41, 3}, {64, 64}, {3, 1001}, {gpu ? 3001 : 301, gpu ? 4000 : 400}};
    static const size_t offsets[][2] = {{0, 0}, {4, 8}, {12, 12}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (size_t o = 0; o < sizeof offsets / sizeof offsets[0]; o++) {
            const size_t rows = shapes[s][0], cols = shapes[s][1], n = rows * cols;
            wrapped in, out;
            wrap_at(ctx, offsets[o][0], n * 4, &in);
            wrap_at(ctx, offsets[o][1], n * 4, &out);
            float *a = malloc(n * 4), *t = malloc(n * 4);
            upload_floats(in.buffer, n, 9, a);
            CHECK(warplab_transpose(ctx, WARPLAB_FLOAT32, rows, cols, in.buffer, 0, out.buffer,
                                    0) == WARPLAB_OK);
            CHECK(warplab_context_synchronize(ctx) == WARPLAB_OK);
            unwrap(&in, NULL);
            unwrap(&out, t);
            size_t bad = 0;
            for (size_t r = 0; r < rows; r++)
                for (size_t c = 0; c < cols; c++)
                    bad += t[c * rows + r] != a[r * cols + c];
            CHECK_MSG(bad == 0, "transpose %zux%zu offsets %zu/%zu: %zu wrong", rows, cols,
                      offsets[o][0], offsets[o][1], bad);
            free(a);
            free(t);
        }
}

/* A chain of asynchronous operations, each reading what the one before
 * wrote, with no synchronisation between them: c = a + b, t = c^T, the sum
 * of t into r[1]; then a synchronous read must see all of it. */
static void check_ordering(warplab_context *ctx)
{
    const size_t rows = 1000, cols = 999, n = rows * cols;
    warplab_buffer *a, *b, *c, *t, *r;
    CHECK(warplab_buffer_create(ctx, n * 4, &a) == WARPLAB_OK);
    CHECK(warplab_buffer_create(ctx, n * 4, &b) == WARPLAB_OK);
    CHECK(warplab_buffer_create(ctx, n * 4, &c) == WARPLAB_OK);
    CHECK(warplab_buffer_create(ctx, n * 4, &t) == WARPLAB_OK);
    CHECK(warplab_buffer_create(ctx, 16, &r) == WARPLAB_OK);
    const float zeros[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    CHECK(warplab_buffer_write(r, 0, zeros, sizeof zeros) == WARPLAB_OK);
    float *ha = malloc(n * 4), *hb = malloc(n * 4), *ht = malloc(n * 4);
    upload_floats(a, n, 3, ha);
    upload_floats(b, n, 4, hb);
    for (int round = 0; round < 3; round++) {
        CHECK(warplab_vecadd(ctx, a, b, c, n) == WARPLAB_OK);
        CHECK(warplab_transpose(ctx, WARPLAB_FLOAT32, rows, cols, c, 0, t, 0) == WARPLAB_OK);
        CHECK(warplab_reduce_to_buffer(ctx, WARPLAB_FLOAT32, WARPLAB_REDUCE_MAX, t, n, r, 4) ==
              WARPLAB_OK);
        float result[4];
        CHECK(warplab_buffer_read(r, 0, result, sizeof result) == WARPLAB_OK);
        CHECK(warplab_buffer_read(t, 0, ht, n * 4) == WARPLAB_OK);
        float most = -INFINITY;
        size_t bad = 0;
        for (size_t i = 0; i < rows; i++)
            for (size_t j = 0; j < cols; j++) {
                const float v = ha[i * cols + j] + hb[i * cols + j];
                bad += ht[j * rows + i] != v;
                most = v > most ? v : most;
            }
        CHECK_MSG(bad == 0, "chained transpose: %zu wrong", bad);
        CHECK_MSG(result[1] == most, "chained max: %g vs %g", (double)result[1], (double)most);
        /* Change the input between rounds (synchronous write, in order). */
        for (size_t i = 0; i < n; i++)
            ha[i] = -ha[i];
        CHECK(warplab_buffer_write(a, 0, ha, n * 4) == WARPLAB_OK);
    }
    free(ha);
    free(hb);
    free(ht);
    warplab_buffer *all[] = {a, b, c, t, r};
    for (int i = 0; i < 5; i++)
        warplab_buffer_destroy(all[i]);
}

static void check_arguments(warplab_context *ctx)
{
    warplab_buffer *b = NULL, *v = NULL;
    CHECK(warplab_buffer_wrap(ctx, NULL, 16, &b) == WARPLAB_ERROR_INVALID_ARGUMENT);
    CHECK(b == NULL);
    CHECK(warplab_buffer_wrap(NULL, &v, 16, &b) == WARPLAB_ERROR_INVALID_ARGUMENT);
    CHECK(warplab_buffer_create(ctx, 64, &b) == WARPLAB_OK);
    CHECK(warplab_buffer_view(b, 60, 8, &v) == WARPLAB_ERROR_INVALID_ARGUMENT);
    CHECK(v == NULL);
    CHECK(warplab_buffer_view(b, 8, 56, &v) == WARPLAB_OK);
    /* The result's place: past the end, or not aligned to its element. */
    CHECK(warplab_reduce_to_buffer(ctx, WARPLAB_FLOAT32, WARPLAB_REDUCE_SUM, b, 4, v, 56) ==
          WARPLAB_ERROR_INVALID_ARGUMENT);
    CHECK(warplab_reduce_to_buffer(ctx, WARPLAB_FLOAT32, WARPLAB_REDUCE_SUM, b, 4, v, 2) ==
          WARPLAB_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(warplab_last_error(ctx), "aligned") != NULL);
    CHECK(warplab_reduce_to_buffer(ctx, WARPLAB_FLOAT64, WARPLAB_REDUCE_SUM, b, 4, v, 4) ==
          WARPLAB_ERROR_INVALID_ARGUMENT);
    /* n = 0 writes the identity. */
    CHECK(warplab_reduce_to_buffer(ctx, WARPLAB_FLOAT32, WARPLAB_REDUCE_MIN, b, 0, v, 4) ==
          WARPLAB_OK);
    float identity = 0.0f;
    CHECK(warplab_buffer_read(v, 4, &identity, 4) == WARPLAB_OK);
    CHECK(isinf(identity) && identity > 0);
    /* An input view not aligned to its element size. */
    warplab_buffer *odd = NULL;
    CHECK(warplab_buffer_view(b, 2, 32, &odd) == WARPLAB_OK);
    float r = 0.0f;
    CHECK(warplab_reduce(ctx, WARPLAB_FLOAT32, WARPLAB_REDUCE_SUM, odd, 4, &r) ==
          WARPLAB_ERROR_INVALID_ARGUMENT);
    CHECK(warplab_vecadd(ctx, odd, b, v, 4) == WARPLAB_ERROR_INVALID_ARGUMENT);
    warplab_buffer_destroy(odd);
    /* Streams: NULL (the context's own) always works; the cpu backend has
     * none to bind. */
    CHECK(warplab_context_set_stream(ctx, NULL) == WARPLAB_OK);
    CHECK(warplab_context_synchronize(ctx) == WARPLAB_OK);
    CHECK(warplab_context_synchronize(NULL) == WARPLAB_ERROR_INVALID_ARGUMENT);
    if (backend_kind == WARPLAB_BACKEND_CPU) {
        CHECK(warplab_context_set_stream(ctx, &r) == WARPLAB_ERROR_UNSUPPORTED);
        CHECK(warplab_context_native(ctx) == NULL);
    }
    warplab_buffer_destroy(v);
    warplab_buffer_destroy(b);
}

/* A view keeps its parent's storage alive (include/warplab.h): the parent
 * destroyed first, its views (and a view of a view) still read, write and
 * compute on the bytes, and the last one destroyed frees them (the sanitize
 * build's leak and use-after-free checks watch this). */
static void check_view_lifetime(warplab_context *ctx)
{
    const size_t n = 1000;
    float fill[2000], host[1000], got[1000];
    warplab_buffer *parent = NULL, *view = NULL, *inner = NULL, *out = NULL;
    CHECK(warplab_buffer_create(ctx, 2 * n * sizeof(float), &parent) == WARPLAB_OK);
    upload_floats(parent, 2 * n, 7, fill);
    CHECK(warplab_buffer_view(parent, n * sizeof(float), n * sizeof(float), &view) == WARPLAB_OK);
    CHECK(warplab_buffer_view(view, 4, (n - 1) * sizeof(float), &inner) == WARPLAB_OK);
    warplab_buffer_destroy(parent);
    for (size_t i = 0; i < n; i++)
        host[i] = (float)i;
    CHECK(warplab_buffer_write(view, 0, host, n * sizeof(float)) == WARPLAB_OK);
    warplab_buffer_destroy(view);
    CHECK(warplab_buffer_create(ctx, (n - 1) * sizeof(float), &out) == WARPLAB_OK);
    CHECK(warplab_vecadd(ctx, inner, inner, out, n - 1) == WARPLAB_OK);
    CHECK(warplab_buffer_read(out, 0, got, (n - 1) * sizeof(float)) == WARPLAB_OK);
    for (size_t i = 0; i + 1 < n; i++)
        CHECK(got[i] == 2.0f * (float)(i + 1));
    warplab_buffer_destroy(inner);
    warplab_buffer_destroy(out);
}

#ifdef WARPLAB_TEST_OPENCL
/* A command queue of the caller's, in warplab's cl_context: operations run
 * on it, clFinish on it waits for them; a queue of another context is
 * refused. */
static void check_opencl_queue(warplab_context *ctx)
{
    cl_context native = (cl_context)warplab_context_native(ctx);
    CHECK(native != NULL);
    if (!native)
        return;
    cl_device_id device = NULL;
    CHECK(clGetContextInfo(native, CL_CONTEXT_DEVICES, sizeof device, &device, NULL) == CL_SUCCESS);
    cl_int e = CL_SUCCESS;
    cl_command_queue queue = clCreateCommandQueue(native, device, 0, &e);
    CHECK(e == CL_SUCCESS);
    const size_t n = 100003;
    cl_mem mem = clCreateBuffer(native, CL_MEM_READ_WRITE, 3 * n * 4 + 4, NULL, &e);
    CHECK(e == CL_SUCCESS);
    float *a = malloc(n * 4), *c = malloc(n * 4);
    for (size_t i = 0; i < n; i++)
        a[i] = value_at(i, 5);
    /* The caller fills a (at byte 4: an offset no sub-buffer allows) on its
     * queue; warplab, bound to that queue, adds a to itself into c. */
    CHECK(clEnqueueWriteBuffer(queue, mem, CL_FALSE, 4, n * 4, a, 0, NULL, NULL) == CL_SUCCESS);
    CHECK(warplab_context_set_stream(ctx, queue) == WARPLAB_OK);
    warplab_buffer *whole = NULL, *va = NULL, *vc = NULL;
    CHECK(warplab_buffer_wrap(ctx, mem, 3 * n * 4 + 4, &whole) == WARPLAB_OK);
    CHECK(warplab_buffer_view(whole, 4, n * 4, &va) == WARPLAB_OK);
    CHECK(warplab_buffer_view(whole, 4 + n * 4, n * 4, &vc) == WARPLAB_OK);
    CHECK(warplab_vecadd(ctx, va, va, vc, n) == WARPLAB_OK);
    CHECK(clEnqueueReadBuffer(queue, mem, CL_TRUE, 4 + n * 4, n * 4, c, 0, NULL, NULL) ==
          CL_SUCCESS);
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        bad += c[i] != a[i] + a[i];
    CHECK_MSG(bad == 0, "vecadd on the caller's queue: %zu wrong", bad);
    float sum = 0.0f;
    CHECK(warplab_reduce(ctx, WARPLAB_FLOAT32, WARPLAB_REDUCE_MAX, vc, n, &sum) == WARPLAB_OK);
    CHECK(warplab_context_set_stream(ctx, NULL) == WARPLAB_OK);
    warplab_buffer_destroy(vc);
    warplab_buffer_destroy(va);
    warplab_buffer_destroy(whole);
    /* Wrapped memory is not freed by warplab: the cl_mem is still ours. */
    cl_uint references = 0;
    CHECK(clGetMemObjectInfo(mem, CL_MEM_REFERENCE_COUNT, sizeof references, &references, NULL) ==
          CL_SUCCESS);
    CHECK(references >= 1);
    /* A queue and a buffer of another context are refused. */
    cl_context other = clCreateContext(NULL, 1, &device, NULL, NULL, &e);
    if (e == CL_SUCCESS) {
        cl_command_queue foreign = clCreateCommandQueue(other, device, 0, &e);
        cl_mem foreign_mem = clCreateBuffer(other, CL_MEM_READ_WRITE, 64, NULL, &e);
        CHECK(warplab_context_set_stream(ctx, foreign) == WARPLAB_ERROR_INVALID_ARGUMENT);
        warplab_buffer *refused = NULL;
        CHECK(warplab_buffer_wrap(ctx, foreign_mem, 64, &refused) ==
              WARPLAB_ERROR_INVALID_ARGUMENT);
        CHECK(warplab_buffer_wrap(ctx, mem, 3 * n * 4 + 8, &refused) ==
              WARPLAB_ERROR_INVALID_ARGUMENT);
        clReleaseMemObject(foreign_mem);
        clReleaseCommandQueue(foreign);
        clReleaseContext(other);
    }
    clReleaseMemObject(mem);
    clReleaseCommandQueue(queue);
    free(a);
    free(c);
}
#endif

int main(int argc, char **argv)
{
    const char *name = "cpu";
    for (int i = 1; i + 1 < argc; i++)
        if (strcmp(argv[i], "--backend") == 0)
            name = argv[i + 1];
    if (warplab_backend_parse(name, &backend_kind) != WARPLAB_OK) {
        fprintf(stderr, "unknown backend '%s'\n", name);
        return 2;
    }
    if (!warplab_backend_compiled(backend_kind)) {
        printf("skipped: the %s backend is not compiled in\n", name);
        return 77;
    }
    warplab_context *ctx = NULL;
    if (warplab_context_create(backend_kind, -1, &ctx) != WARPLAB_OK) {
        printf("skipped: %s\n", warplab_last_error(NULL));
        return 77;
    }
    /* WARPLAB_TEST_SMALL (under the sanitizers): CPU-sized shapes. */
    const bool gpu = warplab_context_device(ctx)->gpu != 0 && !getenv("WARPLAB_TEST_SMALL");
    check_arguments(ctx);
    check_view_lifetime(ctx);
    check_vecadd(ctx);
    check_reduce(ctx);
    check_scan(ctx, gpu);
    check_transpose(ctx, gpu);
    check_ordering(ctx);
#ifdef WARPLAB_TEST_OPENCL
    if (backend_kind == WARPLAB_BACKEND_OPENCL)
        check_opencl_queue(ctx);
#endif
    warplab_context_destroy(ctx);
    return check_report(name);
}
