/* Sizes that cannot be, memory that is not there, and runs cut short: the
 * overflow-checked size helpers, buffers past the address space, the
 * messages of refused buffer calls, warplab_bench_validate, the memory
 * cgroup reader (v1 and v2 trees built here), cancellation and the CPU
 * rows' time budget. */
#include "../check.h"
#include "internal.h"

#include "warplab_lab.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void test_size_helpers(void)
{
    size_t r = 7;
    CHECK(wl_size_mul(0, SIZE_MAX, &r) && r == 0);
    CHECK(wl_size_mul(SIZE_MAX, 1, &r) && r == SIZE_MAX);
    r = 7;
    CHECK(!wl_size_mul((size_t)1 << 62, 4, &r) && r == 7); /* 2^64 wraps to 0 */
    CHECK(!wl_size_mul(SIZE_MAX / 2 + 1, 2, &r));
    CHECK(wl_size_mul((size_t)1 << 31, (size_t)1 << 32, &r) && r == (size_t)1 << 63);
    CHECK(wl_size_add(SIZE_MAX - 1, 1, &r) && r == SIZE_MAX);
    r = 7;
    CHECK(!wl_size_add(SIZE_MAX - 62, 63, &r) && r == 7);
}

/* Element i is bad when i % 1000 == 999 and i >= 3000: tasks of 1000. */
static void check_thousand(size_t task, wl_check *check, const void *user)
{
    (void)user;
    for (size_t i = task * 1000; i < task * 1000 + 1000; i++)
        wl_check_value(check, i, i % 1000 == 999 && i >= 3000 ? 1.0 : 0.0, 0.0, 0.5);
}

static void test_check_parallel(void)
{
    wl_check check;
    wl_check_init(&check);
    wl_check_parallel(64, check_thousand, NULL, &check);
    CHECK(check.checked == 64000 && check.bad == 61);
    CHECK_MSG(check.first_bad == 3999 && check.got == 1.0 && check.expected == 0.0, "first %zu",
              check.first_bad);
    CHECK(check.worst_ratio == 2.0);
    wl_check_init(&check);
    wl_check_parallel(3, check_thousand, NULL, &check); /* all good */
    CHECK(check.checked == 3000 && check.bad == 0 && check.first_bad == (size_t)-1);
}

static void test_buffers(warplab_context *context, const char *backend)
{
    warplab_buffer *buffer = (warplab_buffer *)&buffer;
    /* Rounding SIZE_MAX - 10 up to 64 bytes used to wrap to a 64-byte block. */
    CHECK_MSG(warplab_buffer_create(context, SIZE_MAX - 10, &buffer) != WARPLAB_OK, "%s", backend);
    CHECK(buffer == NULL);
    CHECK_MSG(warplab_last_error(context)[0] != '\0', "%s: no message", backend);
    CHECK(warplab_buffer_create(context, 64, &buffer) == WARPLAB_OK);
    if (!buffer)
        return;
    char data[8] = {0};
    /* A range refusal first, so a stale message would show. */
    CHECK(warplab_buffer_read(buffer, 60, data, 8) == WARPLAB_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(warplab_last_error(context), "past the end") != NULL);
    CHECK(warplab_buffer_read(buffer, 0, NULL, 8) == WARPLAB_ERROR_INVALID_ARGUMENT);
    CHECK_MSG(strstr(warplab_last_error(context), "destination is NULL") != NULL, "%s",
              warplab_last_error(context));
    CHECK(warplab_buffer_write(buffer, 0, NULL, 8) == WARPLAB_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(warplab_last_error(context), "source is NULL") != NULL);
    CHECK(warplab_buffer_read(buffer, SIZE_MAX, data, 2) == WARPLAB_ERROR_INVALID_ARGUMENT);
    CHECK(warplab_buffer_read(NULL, 0, data, 8) == WARPLAB_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(warplab_last_error(NULL), "warplab_buffer_read: the buffer is NULL") != NULL);
    warplab_buffer_destroy(buffer);
}

static void expect_invalid(warplab_context *context, const char *ladder, const char *sizes,
                           const char *message)
{
    warplab_bench_options options;
    memset(&options, 0, sizeof options);
    options.ladder = ladder;
    options.sizes = sizes;
    warplab_status status = warplab_bench_validate(context, &options);
    CHECK_MSG(status == WARPLAB_ERROR_INVALID_ARGUMENT, "%s %s: %s", ladder ? ladder : "all", sizes,
              warplab_status_string(status));
    CHECK_MSG(strstr(warplab_last_error(context), message) != NULL, "%s %s: '%s' lacks '%s'",
              ladder ? ladder : "all", sizes, warplab_last_error(context), message);
    /* warplab_bench refuses the same way, with no report. */
    warplab_report *report = (warplab_report *)&report;
    CHECK(warplab_bench(context, &options, &report) == WARPLAB_ERROR_INVALID_ARGUMENT);
    CHECK(report == NULL);
}

static void test_validate(warplab_context *context)
{
    expect_invalid(context, "vecadd", "2^62", "needs more than 2^64 bytes");
    expect_invalid(context, "vecadd", "2^64", "2^64");
    expect_invalid(context, "reduce", "2^63", "needs more than 2^64 bytes");
    expect_invalid(context, "vecadd", "0", "every dimension is 1 or more");
    expect_invalid(context, "transpose", "0x5", "every dimension is 1 or more");
    expect_invalid(context, "gemm", "5x0x5", "every dimension is 1 or more");
    expect_invalid(context, "vecadd", "1000,,2000", "none empty");
    expect_invalid(context, NULL, "2^62", "out of range");
    warplab_bench_options options;
    memset(&options, 0, sizeof options);
    options.ladder = "vecadd";
    options.sizes = "2^20";
    CHECK(warplab_bench_validate(context, &options) == WARPLAB_OK);
    CHECK(warplab_bench_validate(NULL, &options) == WARPLAB_ERROR_INVALID_ARGUMENT);
}

/* Cancelled after the second rung: two rows, marked incomplete. */
static int cancel_after_two(void *user)
{
    int *calls = user;
    return ++*calls > 2;
}

static void test_cancel_and_budget(warplab_context *context)
{
    warplab_bench_options options;
    memset(&options, 0, sizeof options);
    options.ladder = "vecadd";
    options.rungs = "cpu_loop,cpu_threads,copy";
    options.sizes = "1000";
    options.repeat = 3;
    int calls = 0;
    options.cancelled = cancel_after_two;
    options.cancel_user = &calls;
    warplab_report *report = NULL;
    CHECK(warplab_bench(context, &options, &report) == WARPLAB_OK);
    CHECK(report && report->incomplete == 1 && report->row_count >= 1 && report->row_count < 3);
    warplab_report_destroy(report);

    /* One run longer than the budget: one timed run, not three plus warm-up. */
    memset(&options, 0, sizeof options);
    options.ladder = "vecadd";
    options.rungs = "cpu_loop";
    options.sizes = "2^22";
    options.max_seconds = 1e-6;
    report = NULL;
    CHECK(warplab_bench(context, &options, &report) == WARPLAB_OK);
    CHECK(report && report->row_count == 1 && !report->incomplete);
    if (report && report->row_count == 1)
        CHECK_MSG(report->rows[0].runs == 1 && report->rows[0].status == WARPLAB_OK, "%d runs: %s",
                  report->rows[0].runs, report->rows[0].note);
    warplab_report_destroy(report);
}

static void write_text(const char *directory, const char *file, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", directory, file);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void make_dirs(const char *path)
{
    char partial[512];
    for (size_t i = 1; path[i - 1]; i++) {
        if (path[i] == '/' || path[i] == '\0') {
            memcpy(partial, path, i);
            partial[i] = '\0';
            mkdir(partial, 0700);
        }
    }
}

static void test_cgroups(void)
{
    char root[256];
    snprintf(root, sizeof root, "%s/warplab-cgroup-%d",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid());
    char dir[512], self[512];
    /* cgroup v2: 8 GiB at /a, 3 GiB with 1 GiB used (0.25 GiB of it
     * reclaimable) at /a/b; the process is in /a/b/c, which has no limit. */
    snprintf(dir, sizeof dir, "%s/v2/a/b/c", root);
    make_dirs(dir);
    snprintf(dir, sizeof dir, "%s/v2", root);
    write_text(dir, "memory.max", "max\n");
    snprintf(dir, sizeof dir, "%s/v2/a", root);
    write_text(dir, "memory.max", "8589934592\n");
    write_text(dir, "memory.current", "1073741824\n");
    snprintf(dir, sizeof dir, "%s/v2/a/b", root);
    write_text(dir, "memory.max", "3221225472\n");
    write_text(dir, "memory.current", "1073741824\n");
    write_text(dir, "memory.stat", "anon 805306368\nfile 268435456\ninactive_file 268435456\n");
    snprintf(dir, sizeof dir, "%s/v2/a/b/c", root);
    write_text(dir, "memory.max", "max\n");
    snprintf(self, sizeof self, "%s/self-v2", root);
    write_text(root, "self-v2", "0::/a/b/c\n");
    snprintf(dir, sizeof dir, "%s/v2", root);
    size_t free_bytes = wl_cgroup_memory_free(self, dir);
    CHECK_MSG(free_bytes == 3221225472u - 805306368u, "v2: %zu", free_bytes);

    /* cgroup v1 (hybrid: a "0::/" line too; the memory controller decides). */
    snprintf(dir, sizeof dir, "%s/v1/memory/job", root);
    make_dirs(dir);
    write_text(dir, "memory.limit_in_bytes", "4294967296\n");
    write_text(dir, "memory.usage_in_bytes", "294967296\n");
    write_text(dir, "memory.stat", "cache 0\ntotal_inactive_file 0\n");
    snprintf(dir, sizeof dir, "%s/v1/memory", root);
    write_text(dir, "memory.limit_in_bytes", "9223372036854771712\n"); /* "no limit" */
    snprintf(self, sizeof self, "%s/self-v1", root);
    write_text(root, "self-v1", "9:name=systemd:/\n4:memory:/job\n1:cpu,cpuacct:/\n0::/\n");
    snprintf(dir, sizeof dir, "%s/v1", root);
    free_bytes = wl_cgroup_memory_free(self, dir);
    CHECK_MSG(free_bytes == 4000000000u, "v1: %zu", free_bytes);

    /* A group path that is not under the mount (a cgroup namespace): the
     * levels above it still count. */
    write_text(root, "self-v1", "4:memory:/elsewhere/job\n");
    snprintf(dir, sizeof dir, "%s/v1/memory", root);
    write_text(dir, "memory.limit_in_bytes", "2147483648\n");
    write_text(dir, "memory.usage_in_bytes", "0\n");
    snprintf(dir, sizeof dir, "%s/v1", root);
    free_bytes = wl_cgroup_memory_free(self, dir);
    CHECK_MSG(free_bytes == 2147483648u, "namespaced v1: %zu", free_bytes);

    /* No cgroup file, or no memory controller: no limit. */
    CHECK(wl_cgroup_memory_free("/nonexistent/cgroup", dir) == SIZE_MAX);
    write_text(root, "self-v1", "1:cpu:/\n");
    CHECK(wl_cgroup_memory_free(self, dir) == SIZE_MAX);
    char command[600];
    snprintf(command, sizeof command, "rm -rf '%s'", root);
    CHECK(system(command) == 0);
}

int main(void)
{
    test_size_helpers();
    test_check_parallel();
    test_cgroups();
    for (int k = WARPLAB_BACKEND_CUDA; k < WARPLAB_BACKEND_COUNT; k++) {
        warplab_backend_kind kind = (warplab_backend_kind)k;
        size_t present = 0;
        if (warplab_devices(kind, NULL, 0, &present) != WARPLAB_OK || present == 0)
            continue;
        warplab_context *context = NULL;
        if (warplab_context_create(kind, -1, &context) != WARPLAB_OK)
            continue;
        test_buffers(context, warplab_backend_name(kind));
        test_validate(context);
        if (kind == WARPLAB_BACKEND_CPU)
            test_cancel_and_budget(context);
        warplab_context_destroy(context);
    }
    return check_report("test_limits");
}
