/* The public API end to end: contexts, buffers, warplab_vecadd against a host
 * loop (cpu backend, and opencl when a device is present), and warplab_bench's
 * refusals of bad options. */
#include "../check.h"
#include "internal.h"

#include "warplab_lab.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void test_contexts(void)
{
    warplab_context *context = (warplab_context *)&context; /* must be reset to NULL */
    CHECK(warplab_context_create(WARPLAB_BACKEND_CPU, -1, &context) == WARPLAB_OK);
    CHECK(context != NULL);
    if (!context)
        return;
    CHECK(warplab_context_backend(context) == WARPLAB_BACKEND_CPU);
    const warplab_device_info *info = warplab_context_device(context);
    CHECK(info && info->backend == WARPLAB_BACKEND_CPU && info->name[0] != '\0');
    CHECK_STR(warplab_last_error(context), "");
    warplab_context_destroy(context);
    warplab_context_destroy(NULL);

    /* AUTO always finds something (the cpu backend at worst). */
    CHECK(warplab_context_create(WARPLAB_BACKEND_AUTO, -1, &context) == WARPLAB_OK);
    warplab_context_destroy(context);

    /* Refusals leave *context NULL and say why. */
    context = (warplab_context *)&context;
    CHECK(warplab_context_create(WARPLAB_BACKEND_CPU, 5, &context) ==
          WARPLAB_ERROR_INVALID_ARGUMENT);
    CHECK(context == NULL);
    CHECK(strstr(warplab_last_error(NULL), "index 5") != NULL);
    CHECK(warplab_context_create((warplab_backend_kind)99, -1, &context) ==
          WARPLAB_ERROR_INVALID_ARGUMENT);
    CHECK(warplab_context_create(WARPLAB_BACKEND_CPU, -1, NULL) == WARPLAB_ERROR_INVALID_ARGUMENT);
    size_t gpus = 0;
    warplab_devices(WARPLAB_BACKEND_CUDA, NULL, 0, &gpus);
    if (gpus == 0) {
        warplab_status status = warplab_context_create(WARPLAB_BACKEND_CUDA, -1, &context);
        CHECK(status == WARPLAB_ERROR_NO_DEVICE || status == WARPLAB_ERROR_BACKEND_UNAVAILABLE);
        CHECK(context == NULL);
        CHECK(warplab_last_error(NULL)[0] != '\0');
    }
    CHECK(warplab_context_backend(NULL) == WARPLAB_BACKEND_AUTO);
    CHECK(warplab_context_device(NULL) == NULL);
}

static void test_buffers(warplab_context *context)
{
    warplab_buffer *buffer = NULL;
    CHECK(warplab_buffer_create(context, 1000, &buffer) == WARPLAB_OK);
    if (!buffer)
        return;
    CHECK(warplab_buffer_size(buffer) == 1000);
    unsigned char data[1000], back[1000];
    for (int i = 0; i < 1000; i++)
        data[i] = (unsigned char)(i * 7 + 3);
    CHECK(warplab_buffer_write(buffer, 0, data, 1000) == WARPLAB_OK);
    memset(back, 0, sizeof back);
    CHECK(warplab_buffer_read(buffer, 0, back, 1000) == WARPLAB_OK);
    CHECK(memcmp(data, back, 1000) == 0);

    /* Part of it, at an offset. */
    unsigned char patch[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    CHECK(warplab_buffer_write(buffer, 990, patch, 10) == WARPLAB_OK);
    memcpy(data + 990, patch, 10);
    unsigned char tail[20];
    CHECK(warplab_buffer_read(buffer, 980, tail, 20) == WARPLAB_OK);
    CHECK(memcmp(tail, data + 980, 20) == 0);

    /* Out of range: refused, nothing changes, and the reason is given. */
    unsigned char junk[20];
    memset(junk, 0xEE, sizeof junk);
    CHECK(warplab_buffer_write(buffer, 990, junk, 20) == WARPLAB_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(warplab_last_error(context), "past the end") != NULL);
    CHECK(warplab_buffer_write(buffer, 1001, junk, 0) == WARPLAB_ERROR_INVALID_ARGUMENT);
    CHECK(warplab_buffer_write(buffer, SIZE_MAX, junk, 2) == WARPLAB_ERROR_INVALID_ARGUMENT);
    CHECK(warplab_buffer_write(buffer, 2, junk, SIZE_MAX) == WARPLAB_ERROR_INVALID_ARGUMENT);
    memset(back, 0, sizeof back);
    CHECK(warplab_buffer_read(buffer, 0, back, 1000) == WARPLAB_OK);
    CHECK_MSG(memcmp(data, back, 1000) == 0, "a refused write changed the buffer");
    memset(junk, 0xEE, sizeof junk);
    CHECK(warplab_buffer_read(buffer, 981, junk, 20) == WARPLAB_ERROR_INVALID_ARGUMENT);
    bool untouched = true;
    for (size_t i = 0; i < sizeof junk; i++)
        untouched = untouched && junk[i] == 0xEE;
    CHECK_MSG(untouched, "a refused read wrote its destination");
    CHECK(warplab_buffer_write(buffer, 0, NULL, 4) == WARPLAB_ERROR_INVALID_ARGUMENT);
    CHECK(warplab_buffer_read(buffer, 0, NULL, 4) == WARPLAB_ERROR_INVALID_ARGUMENT);
    CHECK(warplab_buffer_write(NULL, 0, data, 4) == WARPLAB_ERROR_INVALID_ARGUMENT);
    CHECK(warplab_buffer_read(NULL, 0, back, 4) == WARPLAB_ERROR_INVALID_ARGUMENT);
    /* Zero bytes anywhere up to the end is fine. */
    CHECK(warplab_buffer_write(buffer, 1000, NULL, 0) == WARPLAB_OK);
    CHECK(warplab_buffer_read(buffer, 1000, NULL, 0) == WARPLAB_OK);
    warplab_buffer_destroy(buffer);
    warplab_buffer_destroy(NULL);

    warplab_buffer *empty = NULL;
    CHECK(warplab_buffer_create(context, 0, &empty) == WARPLAB_OK && empty);
    CHECK(warplab_buffer_size(empty) == 0);
    CHECK(warplab_buffer_read(empty, 0, back, 1) == WARPLAB_ERROR_INVALID_ARGUMENT);
    warplab_buffer_destroy(empty);
    CHECK(warplab_buffer_size(NULL) == 0);
    CHECK(warplab_buffer_create(NULL, 16, &empty) == WARPLAB_ERROR_INVALID_ARGUMENT);
    CHECK(warplab_buffer_create(context, 16, NULL) == WARPLAB_ERROR_INVALID_ARGUMENT);
}

/* c = a + b on n floats, with 16 floats of sentinel after c's n. */
static void check_vecadd(warplab_context *context, size_t n)
{
    const char *backend = warplab_backend_name(warplab_context_backend(context));
    const size_t extra = 16, total = n + extra;
    float *a = malloc(total * sizeof *a), *b = malloc(total * sizeof *b);
    float *c = malloc(total * sizeof *c);
    warplab_buffer *da = NULL, *db = NULL, *dc = NULL;
    CHECK(a && b && c);
    if (!a || !b || !c)
        goto done;
    wl_fill_random(a, WARPLAB_FLOAT32, total, -1.0, 1.0, 1000 + n);
    wl_fill_random(b, WARPLAB_FLOAT32, total, -1.0, 1.0, 2000 + n);
    for (size_t i = 0; i < total; i++)
        c[i] = -12345.0f;
    warplab_status status = warplab_buffer_create(context, n * sizeof(float), &da);
    if (status == WARPLAB_OK)
        status = warplab_buffer_create(context, n * sizeof(float), &db);
    if (status == WARPLAB_OK)
        status = warplab_buffer_create(context, total * sizeof(float), &dc);
    if (status == WARPLAB_OK)
        status = warplab_buffer_write(da, 0, a, n * sizeof(float));
    if (status == WARPLAB_OK)
        status = warplab_buffer_write(db, 0, b, n * sizeof(float));
    if (status == WARPLAB_OK)
        status = warplab_buffer_write(dc, 0, c, total * sizeof(float));
    CHECK_MSG(status == WARPLAB_OK, "%s n=%zu: buffers: %s", backend, n,
              warplab_last_error(context));
    if (status != WARPLAB_OK)
        goto done;
    status = warplab_vecadd(context, da, db, dc, n);
    CHECK_MSG(status == WARPLAB_OK, "%s n=%zu: %s (%s)", backend, n, warplab_status_string(status),
              warplab_last_error(context));
    float *got = malloc(total * sizeof *got);
    if (got && warplab_buffer_read(dc, 0, got, total * sizeof(float)) == WARPLAB_OK) {
        size_t wrong = 0, first = 0;
        for (size_t i = 0; i < n; i++)
            if (got[i] != a[i] + b[i] && wrong++ == 0)
                first = i;
        CHECK_MSG(wrong == 0, "%s n=%zu: %zu wrong, first c[%zu] = %.9g, expected %.9g", backend, n,
                  wrong, first, got[first], a[first] + b[first]);
        bool guard = true;
        for (size_t i = n; i < total; i++)
            guard = guard && got[i] == -12345.0f;
        CHECK_MSG(guard, "%s n=%zu: wrote past c[n-1]", backend, n);
    }
    free(got);
done:
    warplab_buffer_destroy(da);
    warplab_buffer_destroy(db);
    warplab_buffer_destroy(dc);
    free(a);
    free(b);
    free(c);
}

static void test_vecadd_errors(warplab_context *context)
{
    warplab_buffer *a = NULL, *b = NULL, *small = NULL;
    CHECK(warplab_buffer_create(context, 400, &a) == WARPLAB_OK);
    CHECK(warplab_buffer_create(context, 400, &b) == WARPLAB_OK);
    CHECK(warplab_buffer_create(context, 396, &small) == WARPLAB_OK);
    if (!a || !b || !small)
        return;
    float ones[100];
    for (int i = 0; i < 100; i++)
        ones[i] = 1.0f;
    warplab_buffer_write(small, 0, ones, 396);

    CHECK(warplab_vecadd(context, a, b, small, 100) == WARPLAB_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(warplab_last_error(context), "396 bytes") != NULL);
    float back[99];
    CHECK(warplab_buffer_read(small, 0, back, 396) == WARPLAB_OK);
    CHECK_MSG(memcmp(back, ones, 396) == 0, "a refused vecadd wrote its output");
    CHECK(warplab_vecadd(context, small, b, a, 100) == WARPLAB_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(warplab_last_error(context), "buffer a") != NULL);

    const warplab_buffer *none = NULL;
    CHECK(warplab_vecadd(context, none, b, a, 100) == WARPLAB_ERROR_INVALID_ARGUMENT);
    CHECK_MSG(strstr(warplab_last_error(context), "NULL") != NULL, "'%s'",
              warplab_last_error(context));
    CHECK(warplab_vecadd(context, a, none, a, 100) == WARPLAB_ERROR_INVALID_ARGUMENT);
    CHECK(warplab_vecadd(context, a, b, NULL, 100) == WARPLAB_ERROR_INVALID_ARGUMENT);
    CHECK(warplab_vecadd(NULL, a, b, a, 100) == WARPLAB_ERROR_INVALID_ARGUMENT);
    CHECK(warplab_vecadd(context, a, b, a, SIZE_MAX) == WARPLAB_ERROR_INVALID_ARGUMENT);

    /* A buffer of another context. */
    warplab_context *other = NULL;
    warplab_buffer *foreign = NULL;
    if (warplab_context_create(WARPLAB_BACKEND_CPU, -1, &other) == WARPLAB_OK &&
        warplab_buffer_create(other, 400, &foreign) == WARPLAB_OK) {
        CHECK(warplab_vecadd(context, a, b, foreign, 100) == WARPLAB_ERROR_INVALID_ARGUMENT);
        CHECK(strstr(warplab_last_error(context), "another context") != NULL);
    }
    warplab_buffer_destroy(foreign);
    warplab_context_destroy(other);
    warplab_buffer_destroy(a);
    warplab_buffer_destroy(b);
    warplab_buffer_destroy(small);
}

/* warplab_bench refuses the options with status, gives no report, and says
 * why (mentioning mention, when given). */
static void expect_bench_refusal(warplab_context *context, const warplab_bench_options *options,
                                 warplab_status status, const char *mention)
{
    warplab_report *report = (warplab_report *)&report;
    warplab_status got = warplab_bench(context, options, &report);
    CHECK_MSG(got == status, "ladder %s, rungs %s, sizes %s: %s, expected %s",
              options->ladder ? options->ladder : "(all)",
              options->rungs ? options->rungs : "(all)",
              options->sizes ? options->sizes : "(defaults)", warplab_status_string(got),
              warplab_status_string(status));
    CHECK(report == NULL);
    if (mention)
        CHECK_MSG(strstr(warplab_last_error(context), mention) != NULL, "'%s' lacks '%s'",
                  warplab_last_error(context), mention);
}

static void test_bench_options(warplab_context *context)
{
    warplab_bench_options options;
    memset(&options, 0, sizeof options);
    options.ladder = "nosuchladder";
    expect_bench_refusal(context, &options, WARPLAB_ERROR_UNKNOWN_NAME, "nosuchladder");
    CHECK(strstr(warplab_last_error(context), "vecadd") != NULL); /* the known ones */

    options.ladder = "vecadd";
    options.rungs = "grid,nosuchrung";
    expect_bench_refusal(context, &options, WARPLAB_ERROR_UNKNOWN_NAME, "nosuchrung");

    options.rungs = NULL;
    const char *bad_sizes[] = {"banana", "2^", ",", "1x2x3x4", "4096x4096", "1000,banana"};
    for (size_t i = 0; i < sizeof bad_sizes / sizeof bad_sizes[0]; i++) {
        options.sizes = bad_sizes[i];
        expect_bench_refusal(context, &options, WARPLAB_ERROR_INVALID_ARGUMENT, NULL);
        CHECK(warplab_last_error(context)[0] != '\0');
    }
    options.sizes = "1000";
    options.dtype = "double"; /* vector add is float32 only */
    expect_bench_refusal(context, &options, WARPLAB_ERROR_INVALID_ARGUMENT, "float32");

    memset(&options, 0, sizeof options);
    options.repeat = -1;
    expect_bench_refusal(context, &options, WARPLAB_ERROR_INVALID_ARGUMENT, "negative");
    warplab_report *report = NULL;
    CHECK(warplab_bench(context, NULL, &report) == WARPLAB_ERROR_INVALID_ARGUMENT);
    CHECK(warplab_bench(NULL, &options, &report) == WARPLAB_ERROR_INVALID_ARGUMENT);
    memset(&options, 0, sizeof options);
    CHECK(warplab_bench(context, &options, NULL) == WARPLAB_ERROR_INVALID_ARGUMENT);

    /* And a good run: one host rung, two sizes, a few repeats. */
    memset(&options, 0, sizeof options);
    options.ladder = "vecadd";
    options.rungs = "cpu_loop";
    options.sizes = "1000,2^10";
    options.repeat = 3;
    options.warmup = 1;
    options.seed = 5;
    report = NULL;
    CHECK(warplab_bench(context, &options, &report) == WARPLAB_OK);
    CHECK(report && report->row_count == 2);
    if (report && report->row_count == 2) {
        for (size_t i = 0; i < 2; i++) {
            const warplab_row *row = &report->rows[i];
            CHECK_MSG(row->status == WARPLAB_OK && !(row->flags & WARPLAB_ROW_FAILED),
                      "cpu_loop: %s", row->note);
            CHECK(row->runs >= 1 && row->median_ms > 0 && row->gbs > 0);
            CHECK_STR(row->rung, "cpu_loop");
        }
        CHECK(report->seed == 5);
        CHECK(report->rows[0].size == 1000 && report->rows[1].size == 1024);
    }
    warplab_report_destroy(report);
}

/* Every rung says what it teaches and where; warplab_rung_describe hands it out. */
static void test_rung_lessons(void)
{
    CHECK(warplab_ladder_count() >= 1);
    for (size_t l = 0; l < warplab_ladder_count(); l++) {
        const char *ladder = warplab_ladder_name(l), *title = NULL, *rung;
        for (size_t r = 0; (rung = warplab_ladder_rung(ladder, r, &title)) != NULL; r++) {
            warplab_rung_info info;
            memset(&info, 0, sizeof info);
            CHECK(warplab_rung_describe(ladder, rung, &info) == WARPLAB_OK);
            CHECK_STR(info.id, rung);
            CHECK_STR(info.title, title);
            CHECK_MSG(info.lesson && strlen(info.lesson) > 20, "%s/%s has no lesson", ladder, rung);
            CHECK_MSG(info.course && info.course[0], "%s/%s does not say where it is taught",
                      ladder, rung);
            CHECK(info.course_unit && info.course_device);
            CHECK(info.flags == warplab_rung_flags(ladder, rung));
            if (info.course_value > 0)
                CHECK_MSG(info.course_unit[0] && info.course_device[0],
                          "%s/%s: a course figure without unit or device", ladder, rung);
        }
    }
    warplab_rung_info info;
    CHECK(warplab_rung_describe("vecadd", "cpu_loop", &info) == WARPLAB_OK);
    CHECK(info.flags & WARPLAB_ROW_HOST);
    CHECK(strstr(info.course, "seed 001") != NULL);
    CHECK(warplab_rung_describe("vecadd", "nosuchrung", &info) == WARPLAB_ERROR_UNKNOWN_NAME);
    CHECK(warplab_rung_describe("nosuchladder", "grid", &info) == WARPLAB_ERROR_UNKNOWN_NAME);
    CHECK(warplab_rung_describe(NULL, "grid", &info) == WARPLAB_ERROR_INVALID_ARGUMENT);
    CHECK(warplab_rung_describe("vecadd", "grid", NULL) == WARPLAB_ERROR_INVALID_ARGUMENT);
}

int main(void)
{
    test_rung_lessons();
    test_contexts();
    static const size_t sizes[] = {0, 1, 1000, ((size_t)1 << 20) + 3};
    for (int k = WARPLAB_BACKEND_OPENCL; k < WARPLAB_BACKEND_COUNT; k++) {
        warplab_backend_kind kind = (warplab_backend_kind)k;
        size_t present = 0;
        if (warplab_devices(kind, NULL, 0, &present) != WARPLAB_OK || present == 0) {
            printf("%s: no device, vecadd not run there\n", warplab_backend_name(kind));
            continue;
        }
        warplab_context *context = NULL;
        warplab_status status = warplab_context_create(kind, -1, &context);
        CHECK_MSG(status == WARPLAB_OK, "%s: %s", warplab_backend_name(kind),
                  warplab_last_error(NULL));
        if (status != WARPLAB_OK)
            continue;
        printf("%s: %s\n", warplab_backend_name(kind), warplab_context_device(context)->name);
        test_buffers(context);
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
            check_vecadd(context, sizes[i]);
        test_vecadd_errors(context);
        if (kind == WARPLAB_BACKEND_CPU)
            test_bench_options(context);
        warplab_context_destroy(context);
    }
    return check_report("test_api");
}
