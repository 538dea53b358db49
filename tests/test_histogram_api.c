/* warplab_histogram as users call it, on one backend (--backend
 * cpu|opencl|cuda): 8-bit, int32 and float samples in the caller's memory
 * (wrapped at aligned and unaligned byte offsets, exact size), counts at an
 * offset inside a larger buffer whose other bytes must stay untouched and
 * whose counts start as garbage (the call zeroes them), uniform and skewed
 * data, samples outside the range, NaN and infinities, bin counts past what
 * per-warp and per-block copies hold; every count compared exactly with the
 * test's own implementation of CUB's HistogramEven rule. Then every argument
 * check: refused with WARPLAB_ERROR_INVALID_ARGUMENT, a message, and the
 * counts untouched.
 *
 * Exits 77 (CTest's skip) when the backend has no device. */
#include "check.h"
#include "warplab.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SENTINEL 0xA5u

static warplab_backend_kind backend_kind;

static uint32_t hash(size_t i, uint32_t salt)
{
    uint32_t h = (uint32_t)i * 2654435761u ^ (salt * 0x9E3779B9u);
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    h *= 3266489917u;
    return h ^ (h >> 16);
}

/* The test's own statement of the rule (include/warplab.h). */
static int expected_bin_int(int64_t x, int64_t lower, int64_t upper, size_t bins)
{
    if (x < lower || x >= upper)
        return -1;
    return (int)((uint64_t)(x - lower) * (uint64_t)bins / (uint64_t)(upper - lower));
}

static int expected_bin_float(float x, double lower, double upper, size_t bins)
{
    const float lo = (float)lower, hi = (float)upper;
    if (!(x >= lo && x < hi))
        return -1;
    const float scale = (float)bins / (hi - lo);
    const float offset = x - lo;
    const int bin = (int)(offset * scale);
    return bin < (int)bins ? bin : (int)bins - 1;
}

typedef struct histogram_case {
    warplab_histogram_sample sample;
    size_t n, bins;
    double lower, upper;
    size_t input_offset; /* bytes */
    bool skewed;
} histogram_case;

static size_t sample_size(warplab_histogram_sample sample)
{
    return sample == WARPLAB_HISTOGRAM_UINT8 ? 1 : 4;
}

/* Samples of a case into host (n of them), spread over a little more than
 * the range, with NaN and infinities among the float ones. */
static void make_samples(const histogram_case *c, unsigned char *host, uint32_t salt)
{
    const double width = c->upper - c->lower;
    for (size_t i = 0; i < c->n; i++) {
        const uint32_t h = c->skewed ? 12345u : hash(i, salt);
        if (c->sample == WARPLAB_HISTOGRAM_UINT8) {
            host[i] = c->skewed ? 0x5A : (unsigned char)(h >> 7);
        } else if (c->sample == WARPLAB_HISTOGRAM_INT32) {
            double v = c->lower - width / 8.0 + (double)h / 4294967296.0 * width * 1.25;
            v = v < (double)INT32_MIN ? (double)INT32_MIN : v > (double)INT32_MAX ? INT32_MAX : v;
            int32_t x = (int32_t)v;
            if (!c->skewed && i % 97 == 3)
                x = (int32_t)c->upper; /* the excluded bound */
            if (!c->skewed && i % 89 == 5)
                x = (int32_t)c->lower; /* the included one */
            memcpy(host + 4 * i, &x, 4);
        } else {
            float x = (float)(c->lower - width / 8.0 + (double)h / 4294967296.0 * width * 1.25);
            if (!c->skewed) {
                if (i % 101 == 7)
                    x = NAN;
                else if (i % 103 == 9)
                    x = (i & 1) ? INFINITY : -INFINITY;
                else if (i % 107 == 11)
                    x = (float)c->upper;
                else if (i % 109 == 13)
                    x = nextafterf((float)c->upper, -INFINITY);
                else if (i % 113 == 17)
                    x = (float)c->lower;
            }
            memcpy(host + 4 * i, &x, 4);
        }
    }
}

static void expected_counts(const histogram_case *c, const unsigned char *host, uint32_t *counts)
{
    memset(counts, 0, c->bins * sizeof *counts);
    for (size_t i = 0; i < c->n; i++) {
        int bin;
        if (c->sample == WARPLAB_HISTOGRAM_UINT8) {
            bin = expected_bin_int(host[i], (int64_t)c->lower, (int64_t)c->upper, c->bins);
        } else if (c->sample == WARPLAB_HISTOGRAM_INT32) {
            int32_t x;
            memcpy(&x, host + 4 * i, 4);
            bin = expected_bin_int(x, (int64_t)c->lower, (int64_t)c->upper, c->bins);
        } else {
            float x;
            memcpy(&x, host + 4 * i, 4);
            bin = expected_bin_float(x, c->lower, c->upper, c->bins);
        }
        if (bin >= 0)
            counts[bin]++;
    }
}

/* A buffer of bytes + 64 wrapped from offset on, as a caller's allocation
 * (on cuda and cpu the native address + offset is wrapped; on opencl a view
 * of the wrapped cl_mem). */
typedef struct wrapped {
    warplab_buffer *parent, *whole, *buffer;
} wrapped;

static void wrap_at(warplab_context *ctx, size_t offset, size_t bytes, wrapped *w)
{
    memset(w, 0, sizeof *w);
    CHECK(warplab_buffer_create(ctx, offset + bytes + 64, &w->parent) == WARPLAB_OK);
    void *handle = NULL;
    size_t base = 0;
    CHECK(warplab_buffer_native(w->parent, &handle, &base) == WARPLAB_OK);
    if (backend_kind == WARPLAB_BACKEND_OPENCL) {
        CHECK(warplab_buffer_wrap(ctx, handle, offset + bytes + 64, &w->whole) == WARPLAB_OK);
        CHECK(warplab_buffer_view(w->whole, offset, bytes, &w->buffer) == WARPLAB_OK);
    } else {
        CHECK(warplab_buffer_wrap(ctx, (char *)handle + offset, bytes, &w->buffer) == WARPLAB_OK);
    }
}

static void unwrap(wrapped *w)
{
    warplab_buffer_destroy(w->buffer);
    warplab_buffer_destroy(w->whole);
    warplab_buffer_destroy(w->parent);
}

/* One call: the counts at byte 4 of a buffer of bins + 2 words filled with
 * SENTINEL; the words around them must keep it. */
static void run_case(warplab_context *ctx, const histogram_case *c, uint32_t salt)
{
    const size_t element = sample_size(c->sample), bytes = c->n * element;
    unsigned char *host = malloc(bytes ? bytes : 1);
    uint32_t *want = malloc(c->bins * sizeof *want);
    uint32_t *got = malloc((c->bins + 2) * sizeof *got);
    CHECK(host && want && got);
    make_samples(c, host, salt);
    expected_counts(c, host, want);
    wrapped in;
    wrap_at(ctx, c->input_offset, bytes, &in);
    if (bytes)
        CHECK(warplab_buffer_write(in.buffer, 0, host, bytes) == WARPLAB_OK);
    warplab_buffer *counts = NULL;
    const size_t count_bytes = (c->bins + 2) * 4;
    CHECK(warplab_buffer_create(ctx, count_bytes, &counts) == WARPLAB_OK);
    memset(got, SENTINEL, count_bytes);
    CHECK(warplab_buffer_write(counts, 0, got, count_bytes) == WARPLAB_OK);
    const warplab_status status =
        warplab_histogram(ctx, c->sample, in.buffer, c->n, c->bins, c->lower, c->upper, counts, 4);
    CHECK_MSG(status == WARPLAB_OK, "%s", warplab_last_error(ctx));
    /* Twice: the second call must zero what the first counted. */
    CHECK(warplab_histogram(ctx, c->sample, in.buffer, c->n, c->bins, c->lower, c->upper, counts,
                            4) == WARPLAB_OK);
    CHECK(warplab_buffer_read(counts, 0, got, count_bytes) == WARPLAB_OK);
    uint32_t sentinel;
    memset(&sentinel, SENTINEL, 4);
    CHECK_MSG(got[0] == sentinel && got[c->bins + 1] == sentinel,
              "%s n=%zu bins=%zu: the words around the counts were written",
              warplab_histogram_sample_name(c->sample), c->n, c->bins);
    size_t bad = 0, first = 0;
    for (size_t b = 0; b < c->bins; b++)
        if (got[b + 1] != want[b] && bad++ == 0)
            first = b;
    CHECK_MSG(bad == 0,
              "%s n=%zu bins=%zu [%g, %g) offset %zu%s: %zu counts wrong, first bin %zu: %u vs "
              "%u",
              warplab_histogram_sample_name(c->sample), c->n, c->bins, c->lower, c->upper,
              c->input_offset, c->skewed ? " skewed" : "", bad, first, got[first + 1], want[first]);
    warplab_buffer_destroy(counts);
    unwrap(&in);
    free(host);
    free(want);
    free(got);
}

static void check_counts(warplab_context *ctx, bool gpu)
{
    const size_t big = gpu ? 3000001 : 200003;
    const histogram_case cases[] = {
        {WARPLAB_HISTOGRAM_UINT8, 0, 256, 0, 256, 0, false},
        {WARPLAB_HISTOGRAM_UINT8, 1, 256, 0, 256, 1, false},
        {WARPLAB_HISTOGRAM_UINT8, 17, 256, 0, 256, 3, false},
        {WARPLAB_HISTOGRAM_UINT8, 1000, 256, 0, 256, 7, false},
        {WARPLAB_HISTOGRAM_UINT8, big, 256, 0, 256, 1, false},
        {WARPLAB_HISTOGRAM_UINT8, big, 256, 0, 256, 2, true},
        {WARPLAB_HISTOGRAM_UINT8, big, 7, 10, 200, 3, false},
        {WARPLAB_HISTOGRAM_UINT8, 65537, 1000, -5, 300, 0, false},
        {WARPLAB_HISTOGRAM_INT32, 33, 1024, -1e6, 1e6, 4, false},
        {WARPLAB_HISTOGRAM_INT32, big, 1024, -1e6, 1e6, 8, false},
        {WARPLAB_HISTOGRAM_INT32, big, 3, -7, 11, 12, true},
        {WARPLAB_HISTOGRAM_INT32, 100003, 1000, INT32_MIN, INT32_MAX, 4, false},
        {WARPLAB_HISTOGRAM_FLOAT32, 15, 1024, 0, 1, 4, false},
        {WARPLAB_HISTOGRAM_FLOAT32, big, 1024, 0, 1, 4, false},
        {WARPLAB_HISTOGRAM_FLOAT32, big, 4096, -3, 5, 8, false},
        {WARPLAB_HISTOGRAM_FLOAT32, big, 4096, -3, 5, 12, true},
        {WARPLAB_HISTOGRAM_FLOAT32, 100003, 5000, 0, 10, 0, false},
        {WARPLAB_HISTOGRAM_FLOAT32, 100003, 20000, -0.1, 0.7, 4, false},
        {WARPLAB_HISTOGRAM_FLOAT32, 100003, 1, -1e30, 1e30, 4, false},
        {WARPLAB_HISTOGRAM_FLOAT32, 100003, 1000, 0.1, 0.3, 0, false},
        /* 39 bins over [0.1, 0.7): the last float below 0.7 rounds to bin 39,
         * counted in bin 38. */
        {WARPLAB_HISTOGRAM_FLOAT32, 100003, 39, 0.1, 0.7, 4, false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_case(ctx, &cases[i], (uint32_t)i + 1);
}

#define CHECK_INVALID(call)                                                                        \
    do {                                                                                           \
        const warplab_status status_ = (call);                                                     \
        CHECK_MSG(status_ == WARPLAB_ERROR_INVALID_ARGUMENT, "%s gave %s", #call,                  \
                  warplab_status_string(status_));                                                 \
        CHECK_MSG(strncmp(warplab_last_error(ctx), "warplab_histogram", 17) == 0, "'%s'",          \
                  warplab_last_error(ctx));                                                        \
    } while (0)

static void check_arguments(warplab_context *ctx)
{
    warplab_buffer *in = NULL, *counts = NULL, *small = NULL;
    CHECK(warplab_buffer_create(ctx, 4096, &in) == WARPLAB_OK);
    CHECK(warplab_buffer_create(ctx, 1024, &counts) == WARPLAB_OK);
    CHECK(warplab_buffer_create(ctx, 8, &small) == WARPLAB_OK);
    unsigned char zeros[4096], marks[1024], after[1024];
    memset(zeros, 0, sizeof zeros);
    memset(marks, SENTINEL, sizeof marks);
    CHECK(warplab_buffer_write(in, 0, zeros, sizeof zeros) == WARPLAB_OK);
    CHECK(warplab_buffer_write(counts, 0, marks, sizeof marks) == WARPLAB_OK);
    const warplab_histogram_sample u8 = WARPLAB_HISTOGRAM_UINT8, i32 = WARPLAB_HISTOGRAM_INT32,
                                   f32 = WARPLAB_HISTOGRAM_FLOAT32;
    CHECK(warplab_histogram(NULL, u8, in, 16, 256, 0, 256, counts, 0) ==
          WARPLAB_ERROR_INVALID_ARGUMENT);
    CHECK_INVALID(warplab_histogram(ctx, u8, NULL, 16, 256, 0, 256, counts, 0));
    CHECK_INVALID(warplab_histogram(ctx, u8, in, 16, 256, 0, 256, NULL, 0));
    CHECK_INVALID(
        warplab_histogram(ctx, WARPLAB_HISTOGRAM_SAMPLE_COUNT, in, 16, 4, 0, 4, counts, 0));
    CHECK_INVALID(warplab_histogram(ctx, u8, in, 16, 0, 0, 256, counts, 0));
    CHECK_INVALID(warplab_histogram(ctx, u8, in, 16, (size_t)1 << 31, 0, 256, counts, 0));
    CHECK_INVALID(warplab_histogram(ctx, u8, in, 16, 4, 5, 5, counts, 0));
    CHECK_INVALID(warplab_histogram(ctx, u8, in, 16, 4, 6, 5, counts, 0));
    CHECK_INVALID(warplab_histogram(ctx, f32, in, 16, 4, NAN, 1, counts, 0));
    CHECK_INVALID(warplab_histogram(ctx, f32, in, 16, 4, 0, NAN, counts, 0));
    CHECK_INVALID(warplab_histogram(ctx, f32, in, 16, 4, -INFINITY, 1, counts, 0));
    CHECK_INVALID(warplab_histogram(ctx, f32, in, 16, 4, -FLT_MAX, FLT_MAX, counts, 0));
    CHECK_INVALID(warplab_histogram(ctx, f32, in, 16, 4, 1.0, 1.0 + 1e-12, counts, 0));
    CHECK_INVALID(warplab_histogram(ctx, f32, in, 16, 4, 0, 1e300, counts, 0));
    CHECK_INVALID(warplab_histogram(ctx, i32, in, 16, 4, 0.5, 10, counts, 0));
    CHECK_INVALID(warplab_histogram(ctx, i32, in, 16, 4, 0, 3e9, counts, 0));
    CHECK_INVALID(warplab_histogram(ctx, u8, in, (size_t)1 << 32, 4, 0, 256, counts, 0));
    CHECK_INVALID(warplab_histogram(ctx, u8, in, 4097, 4, 0, 256, counts, 0));
    CHECK_INVALID(warplab_histogram(ctx, i32, in, 1025, 4, 0, 256, counts, 0));
    CHECK_INVALID(warplab_histogram(ctx, i32, in, SIZE_MAX / 2, 4, 0, 256, counts, 0));
    CHECK_INVALID(warplab_histogram(ctx, u8, in, 16, 3, 0, 256, small, 0));
    CHECK_INVALID(warplab_histogram(ctx, u8, in, 16, 2, 0, 256, small, 4));
    CHECK_INVALID(warplab_histogram(ctx, u8, in, 16, 2, 0, 256, counts, 2));
    CHECK_INVALID(warplab_histogram(ctx, u8, in, 16, 2, 0, 256, counts, SIZE_MAX));
    /* The counts among the samples they count. */
    CHECK_INVALID(warplab_histogram(ctx, u8, in, 64, 4, 0, 256, in, 32));
    /* A 4-byte sample type on a view that starts off its element boundary. */
    warplab_buffer *odd = NULL;
    CHECK(warplab_buffer_view(in, 1, 64, &odd) == WARPLAB_OK);
    CHECK_INVALID(warplab_histogram(ctx, f32, odd, 4, 4, 0, 1, counts, 0));
    CHECK(warplab_histogram(ctx, u8, odd, 64, 4, 0, 256, counts, 0) == WARPLAB_OK);
    warplab_buffer_destroy(odd);
    CHECK(warplab_buffer_read(counts, 16, after, sizeof after - 16) == WARPLAB_OK);
    CHECK(memcmp(after, marks + 16, sizeof after - 16) == 0);
    uint32_t first[4];
    CHECK(warplab_buffer_read(counts, 0, first, sizeof first) == WARPLAB_OK);
    CHECK(first[0] == 64 && first[1] == 0 && first[2] == 0 && first[3] == 0);
    /* Another context's buffers. */
    warplab_context *other = NULL;
    if (warplab_context_create(backend_kind, -1, &other) == WARPLAB_OK) {
        warplab_buffer *foreign = NULL;
        CHECK(warplab_buffer_create(other, 64, &foreign) == WARPLAB_OK);
        CHECK_INVALID(warplab_histogram(ctx, u8, foreign, 16, 4, 0, 256, counts, 0));
        CHECK_INVALID(warplab_histogram(ctx, u8, in, 16, 4, 0, 256, foreign, 0));
        warplab_buffer_destroy(foreign);
        warplab_context_destroy(other);
    }
    CHECK_STR(warplab_histogram_sample_name(WARPLAB_HISTOGRAM_UINT8), "uint8");
    CHECK_STR(warplab_histogram_sample_name(WARPLAB_HISTOGRAM_INT32), "int32");
    CHECK_STR(warplab_histogram_sample_name(WARPLAB_HISTOGRAM_FLOAT32), "float");
    CHECK_STR(warplab_histogram_sample_name(WARPLAB_HISTOGRAM_SAMPLE_COUNT), "unknown");
    warplab_buffer_destroy(in);
    warplab_buffer_destroy(counts);
    warplab_buffer_destroy(small);
}

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
        return TEST_SKIP;
    }
    warplab_context *ctx = NULL;
    if (warplab_context_create(backend_kind, -1, &ctx) != WARPLAB_OK) {
        printf("skipped: %s\n", warplab_last_error(NULL));
        return TEST_SKIP;
    }
    const bool gpu = warplab_context_device(ctx)->gpu != 0 && !getenv("WARPLAB_TEST_SMALL");
    check_arguments(ctx);
    check_counts(ctx, gpu);
    warplab_context_destroy(ctx);
    return check_report(name);
}
