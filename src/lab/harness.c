/* The harness: the one place that fills inputs, poisons outputs, verifies
 * against the CPU reference and times. Every ladder and backend goes through
 * wl_run_rung. */
#include "harness.h"
#include "core/context.h"
#include "counters.h"
#include "reference.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A row takes its rung's flags as they are (src/internal.h, "Ladders"). */
#define WL_SAME_FLAG(rung, row) ((unsigned)(rung) == (unsigned)(row))
_Static_assert(WL_SAME_FLAG(WL_RUNG_HOST, WARPLAB_ROW_HOST) &&
                   WL_SAME_FLAG(WL_RUNG_VENDOR, WARPLAB_ROW_VENDOR) &&
                   WL_SAME_FLAG(WL_RUNG_REFERENCE, WARPLAB_ROW_REFERENCE) &&
                   WL_SAME_FLAG(WL_RUNG_UNSAFE, WARPLAB_ROW_UNSAFE) &&
                   WL_SAME_FLAG(WL_RUNG_TRANSFER, WARPLAB_ROW_TRANSFER) &&
                   WL_SAME_FLAG(WL_RUNG_BASELINE, WARPLAB_ROW_BASELINE),
               "the rung flags that rows carry have the row flags' values");

/* Bytes after each view that are poisoned and must still hold the poison
 * after the run: a write one past the end (the n = 1 bug) is caught. */
#define GUARD_BYTES 256

typedef struct harness_buffer {
    void *handle;  /* backend allocation */
    size_t head;   /* bytes before the view (misalignment) */
    size_t bytes;  /* bytes of the view */
    void *host;    /* the view's contents on the host */
    void *initial; /* WL_INOUT only: the values uploaded before the run */
} harness_buffer;

typedef struct harness_run {
    wl_backend *backend;
    wl_backend *host; /* the cpu backend: where the harness's host copies live */
    const wl_ladder *ladder;
    const wl_rung *rung;
    const wl_impl *impl;
    const wl_problem *problem;
    wl_buffer_spec spec[WL_MAX_BUFFERS];
    harness_buffer buf[WL_MAX_BUFFERS];
    int buffers;
    void *scratch;
    wl_launch launch;
    void *state;
    bool state_ready;
    /* Non-NULL: a large problem verified on the device (reference.h); the
     * harness keeps no host copies of its buffers. */
    const wl_device_reference *reference;
    wl_reference_request request;
} harness_run;

static void row_init(warplab_row *row, wl_backend *backend, const wl_ladder *ladder,
                     const wl_rung *rung, const wl_problem *problem)
{
    memset(row, 0, sizeof *row);
    wl_copy_string(row->ladder, sizeof row->ladder, ladder->name);
    wl_copy_string(row->rung, sizeof row->rung, rung->id);
    wl_copy_string(row->title, sizeof row->title, rung->title);
    wl_copy_string(row->backend, sizeof row->backend, backend->ops->name);
    wl_copy_string(row->lesson, sizeof row->lesson, rung->lesson);
    ladder->describe(problem, row->problem, sizeof row->problem);
    row->size = ladder->leading_size(problem);
    row->flags = rung->flags & (WARPLAB_ROW_HOST | WARPLAB_ROW_VENDOR | WARPLAB_ROW_REFERENCE |
                                WARPLAB_ROW_UNSAFE | WARPLAB_ROW_TRANSFER | WARPLAB_ROW_BASELINE);
    double (*bytes)(const wl_problem *) = rung->bytes ? rung->bytes : ladder->bytes;
    double (*flops)(const wl_problem *) = rung->flops ? rung->flops : ladder->flops;
    row->bytes = bytes ? bytes(problem) : 0.0;
    row->flops = flops ? flops(problem) : 0.0;
    row->course_value = rung->course_value;
    wl_copy_string(row->course_unit, sizeof row->course_unit, rung->course_unit);
    wl_copy_string(row->course_device, sizeof row->course_device, rung->course_device);
    row->course_bound = rung->course_bound;
    row->course_value2 = rung->course_value2;
    wl_copy_string(row->course_unit2, sizeof row->course_unit2,
                   rung->course_unit2 ? rung->course_unit2 : rung->course_unit);
    wl_copy_string(row->course_device2, sizeof row->course_device2, rung->course_device2);
    wl_errata_ids(ladder->name, rung->id, row->errata, sizeof row->errata);
    row->status = WARPLAB_OK;
}

static warplab_status row_fail(warplab_row *row, warplab_status status, unsigned flag,
                               const char *note)
{
    row->status = status;
    row->flags |= flag;
    wl_copy_string(row->note, sizeof row->note, note);
    return status;
}

/* Names the backends that do implement a rung, for "cuda only" notes. */
static void describe_missing_impl(const wl_backend *backend, const wl_ladder *ladder,
                                  const wl_rung *rung, char *note, size_t len)
{
    char where[64] = "";
    for (int k = WARPLAB_BACKEND_CUDA; k < WARPLAB_BACKEND_COUNT; k++) {
        const wl_backend_ops *ops = wl_backend_ops_for((warplab_backend_kind)k);
        if (!ops || !wl_ops_find_impl(ops, ladder->name, rung->id))
            continue;
        wl_append(where, sizeof where, "%s%s", where[0] ? ", " : "", ops->name);
    }
    if (where[0] && !strchr(where, ','))
        wl_format(note, len, "%s only: no %s form", where, backend->ops->name);
    else if (where[0])
        wl_format(note, len, "no %s form (has: %s)", backend->ops->name, where);
    else
        wl_format(note, len, "no implementation in this build");
}

static void release_run(harness_run *run)
{
    wl_backend *backend = run->backend;
    if (run->state_ready && run->impl->teardown)
        run->impl->teardown(backend, run->state);
    run->state_ready = false;
    for (int i = 0; i < run->buffers; i++) {
        if (run->buf[i].handle)
            backend->ops->release(backend, run->buf[i].handle);
        free(run->buf[i].host);
        free(run->buf[i].initial);
        run->buf[i].handle = NULL;
        run->buf[i].host = NULL;
        run->buf[i].initial = NULL;
    }
    if (run->scratch)
        backend->ops->release(backend, run->scratch);
    run->scratch = NULL;
}

static warplab_status memory_short(warplab_row *row, double need, const char *what,
                                   size_t free_bytes, const char *extra)
{
    char note[256];
    wl_format(note, sizeof note,
              "needs %.2f GB of %s memory, %.2f GB free%s: choose a smaller size", need / 1e9, what,
              (double)free_bytes / 1e9, extra);
    return row_fail(row, WARPLAB_ERROR_DEVICE_OUT_OF_MEMORY, WARPLAB_ROW_SKIPPED, note);
}

/* Whether the run fits: the device's buffers (views, heads, guards, scratch)
 * in the device's free memory, and the harness's host copies (one per
 * buffer, the initial values of in-out buffers, one whole buffer read back at
 * a time) in the host's, which the cpu backend caps by the process's memory
 * cgroup. On the cpu backend both live in the same memory. A problem that
 * does not fit is skipped, never left to the OOM killer. */
static warplab_status check_memory(harness_run *run, size_t scratch_bytes, warplab_row *row)
{
    wl_backend *backend = run->backend;
    double device_need = (double)scratch_bytes, host_need = 0.0, largest = 0.0;
    for (int i = 0; i < run->buffers; i++) {
        double total = (double)(run->buf[i].head + run->buf[i].bytes + GUARD_BYTES);
        device_need += total;
        host_need += (double)run->buf[i].bytes * (run->spec[i].role == WL_INOUT ? 2.0 : 1.0);
        if (total > largest)
            largest = total;
    }
    host_need += largest;
    if (run->reference)
        host_need = 0.0; /* verified on the device: no host copies */
    const bool same = backend == run->host || run->host == NULL;
    size_t free_bytes = 0, total_bytes = 0;
    /* Keep 5% and 64 MB spare: the runtime and the vendor libraries need room too. */
    if (backend->ops->mem_info(backend, &free_bytes, &total_bytes) == WARPLAB_OK) {
        double need = same ? device_need + host_need : device_need;
        if (need > 0.95 * (double)free_bytes - 64e6)
            return memory_short(row, need, backend->ops->name, free_bytes,
                                same ? " (buffers and the harness's host copies)" : "");
    }
    /* A device that is not a GPU (PoCL) keeps its buffers in host memory too. */
    const bool host_device = !backend->info.gpu;
    double host_total = host_need + (host_device ? device_need : 0.0);
    if (!same && run->host->ops->mem_info(run->host, &free_bytes, &total_bytes) == WARPLAB_OK &&
        host_total > 0.95 * (double)free_bytes - 64e6)
        return memory_short(row, host_total, "host", free_bytes,
                            host_device ? " (the device's buffers and the harness's copies)"
                                        : " for the harness's copies of the buffers");
    return WARPLAB_OK;
}

/* A device allocation that failed for want of room (or past the device's
 * largest buffer) is a size that does not fit: the row is skipped, like the
 * memory check's, not failed. */
static warplab_status allocation_failed(harness_run *run, warplab_status status, warplab_row *row)
{
    return row_fail(row, status,
                    status == WARPLAB_ERROR_DEVICE_OUT_OF_MEMORY ? WARPLAB_ROW_SKIPPED
                                                                 : WARPLAB_ROW_FAILED,
                    run->backend->error);
}

/* The bytes of one buffer as the harness allocates it: the misaligned head,
 * the view and the guard; false when it does not fit in a size_t. */
static bool buffer_layout(const wl_problem *problem, const wl_buffer_spec *spec, size_t *head,
                          size_t *bytes, size_t *total)
{
    size_t element = warplab_dtype_size(spec->dtype);
    return wl_size_mul(problem->misalign, element, head) &&
           wl_size_mul(spec->count, element, bytes) && wl_size_add(*head, *bytes, total) &&
           wl_size_add(*total, GUARD_BYTES, total);
}

bool wl_problem_bytes(const wl_ladder *ladder, const wl_problem *problem, size_t *total)
{
    wl_buffer_spec spec[WL_MAX_BUFFERS];
    int count = ladder->buffers(problem, spec);
    size_t sum = 0;
    for (int i = 0; i < count; i++) {
        size_t head, bytes, one;
        if (!buffer_layout(problem, &spec[i], &head, &bytes, &one) || !wl_size_add(sum, one, &sum))
            return false;
    }
    *total = sum;
    return true;
}

/* Allocates every buffer (view plus head and guard), and the host copies. */
static warplab_status allocate(harness_run *run, warplab_row *row)
{
    wl_backend *backend = run->backend;
    const wl_problem *problem = run->problem;
    size_t scratch_bytes =
        run->impl->scratch_bytes ? run->impl->scratch_bytes(backend, problem) : 0;
    for (int i = 0; i < run->buffers; i++) {
        size_t total;
        if (!buffer_layout(problem, &run->spec[i], &run->buf[i].head, &run->buf[i].bytes, &total))
            return row_fail(row, WARPLAB_ERROR_INVALID_ARGUMENT, WARPLAB_ROW_SKIPPED,
                            "the problem's buffers need more bytes than a size_t can count");
    }
    warplab_status status = check_memory(run, scratch_bytes, row);
    if (status != WARPLAB_OK)
        return status;
    memset(&run->launch, 0, sizeof run->launch);
    run->launch.problem = problem;
    run->launch.buffers = run->buffers;
    for (int i = 0; i < run->buffers; i++) {
        harness_buffer *b = &run->buf[i];
        size_t total = b->head + b->bytes + GUARD_BYTES; /* checked by buffer_layout */
        status = backend->ops->alloc(backend, total, &b->handle);
        if (status != WARPLAB_OK)
            return allocation_failed(run, status, row);
        b->host = run->reference ? NULL : malloc(b->bytes ? b->bytes : 1);
        if (!b->host && !run->reference)
            return row_fail(row, WARPLAB_ERROR_HOST_OUT_OF_MEMORY, WARPLAB_ROW_FAILED,
                            "out of host memory for the harness's copies");
        run->launch.buf[i].handle = b->handle;
        run->launch.buf[i].offset = b->head;
        run->launch.buf[i].bytes = b->bytes;
    }
    if (scratch_bytes) {
        status = backend->ops->alloc(backend, scratch_bytes, &run->scratch);
        if (status != WARPLAB_OK)
            return allocation_failed(run, status, row);
        run->launch.scratch.handle = run->scratch;
        run->launch.scratch.bytes = scratch_bytes;
    }
    return WARPLAB_OK;
}

/* A device-verified problem's input i: the generator's values, made on the
 * device, and the planted NaN where the host path plants it. */
static warplab_status fill_on_device(harness_run *run, int i, uint64_t seed)
{
    wl_backend *backend = run->backend;
    const wl_buffer_spec *spec = &run->spec[i];
    wl_reference_input *input = &run->request.input[i];
    input->seed = seed + 0x9E3779B97F4A7C15ull * (uint64_t)(i + 1);
    input->nan_at = SIZE_MAX;
    warplab_status status = run->reference->fill_random(
        backend, run->launch.buf[i], spec->dtype, spec->count, spec->lo, spec->hi, input->seed);
    if (status != WARPLAB_OK || !run->problem->nan_input || i != 0 || spec->count == 0 ||
        spec->dtype == WARPLAB_INT32)
        return status;
    wl_rng rng;
    wl_rng_seed(&rng, seed);
    input->nan_at = (size_t)(wl_rng_next(&rng) % spec->count);
    const size_t element = warplab_dtype_size(spec->dtype);
    const float nan32 = NAN;
    const double nan64 = NAN;
    return backend->ops->upload(
        backend, run->buf[i].handle, run->buf[i].head + input->nan_at * element,
        element == 4 ? (const void *)&nan32 : (const void *)&nan64, element);
}

/* Fresh random inputs, poisoned outputs, poisoned guards and scratch. */
static warplab_status fill_buffers(harness_run *run, uint64_t seed, warplab_row *row)
{
    wl_backend *backend = run->backend;
    const wl_backend_ops *ops = backend->ops;
    warplab_status status = WARPLAB_OK;
    for (int i = 0; i < run->buffers && status == WARPLAB_OK; i++) {
        harness_buffer *b = &run->buf[i];
        const wl_buffer_spec *spec = &run->spec[i];
        /* Poison everything first: head, view and guard. */
        size_t total = b->head + b->bytes + GUARD_BYTES;
        status = ops->fill32(backend, b->handle, 0, WL_POISON_PATTERN, total - total % 4);
        if (status != WARPLAB_OK)
            break;
        if (spec->role == WL_OUT || b->bytes == 0)
            continue;
        if (run->reference) {
            status = fill_on_device(run, i, seed);
            continue;
        }
        wl_fill_random(b->host, spec->dtype, spec->count, spec->lo, spec->hi,
                       seed + 0x9E3779B97F4A7C15ull * (uint64_t)(i + 1));
        if (run->problem->nan_input && i == 0 && spec->count > 0 && spec->dtype != WARPLAB_INT32) {
            wl_rng rng;
            wl_rng_seed(&rng, seed);
            size_t at = (size_t)(wl_rng_next(&rng) % spec->count);
            if (spec->dtype == WARPLAB_FLOAT32)
                ((float *)b->host)[at] = NAN;
            else
                ((double *)b->host)[at] = NAN;
        }
        status = ops->upload(backend, b->handle, b->head, b->host, b->bytes);
    }
    if (status == WARPLAB_OK && run->scratch && run->launch.scratch.bytes >= 4)
        status = ops->fill32(backend, run->scratch, 0, WL_POISON_PATTERN,
                             run->launch.scratch.bytes - run->launch.scratch.bytes % 4);
    if (status != WARPLAB_OK)
        return row_fail(row, status, WARPLAB_ROW_FAILED, backend->error);
    return WARPLAB_OK;
}

static bool all_poison(const unsigned char *bytes, size_t count)
{
    const uint32_t pattern = WL_POISON_PATTERN;
    const unsigned char *p = (const unsigned char *)&pattern;
    for (size_t i = 0; i < count; i++)
        if (bytes[i] != p[i % 4])
            return false;
    return true;
}

/* Reads every buffer back: outputs into the host copies; inputs are compared
 * with what was uploaded (a rung must not write its inputs); heads and guards
 * must still hold the poison. */
/* read_back for a device-verified problem: only the head and the guard
 * come back (they must hold the poison); the inputs are compared with the
 * generator's values on the device. */
static warplab_status read_back_on_device(harness_run *run, int i, warplab_row *row)
{
    wl_backend *backend = run->backend;
    const harness_buffer *b = &run->buf[i];
    unsigned char head[256], guard[GUARD_BYTES];
    char note[256] = "";
    warplab_status status = WARPLAB_OK;
    for (size_t done = 0; done < b->head && status == WARPLAB_OK && !note[0]; done += sizeof head) {
        size_t part = b->head - done < sizeof head ? b->head - done : sizeof head;
        status = backend->ops->download(backend, b->handle, done, head, part);
        if (status == WARPLAB_OK && !all_poison(head, part & ~(size_t)3))
            wl_format(note, sizeof note, "wrote before the start of buffer %d", i);
    }
    if (status == WARPLAB_OK && !note[0]) {
        status = backend->ops->download(backend, b->handle, b->head + b->bytes, guard, GUARD_BYTES);
        if (status == WARPLAB_OK && !all_poison(guard, GUARD_BYTES))
            wl_format(note, sizeof note, "wrote past the end of buffer %d (%zu elements)", i,
                      run->spec[i].count);
    }
    if (status == WARPLAB_OK && !note[0] && run->spec[i].role == WL_IN && b->bytes) {
        size_t changed = 0;
        status = run->reference->count_changed(backend, run->launch.buf[i], &run->spec[i],
                                               &run->request.input[i], &changed);
        if (status == WARPLAB_OK && changed)
            wl_format(note, sizeof note, "modified its input buffer %d (%zu elements)", i, changed);
    }
    if (status != WARPLAB_OK)
        return row_fail(row, status, WARPLAB_ROW_FAILED, backend->error);
    if (note[0])
        return row_fail(row, WARPLAB_ERROR_VERIFICATION_FAILED, WARPLAB_ROW_FAILED, note);
    return WARPLAB_OK;
}

static warplab_status read_back(harness_run *run, warplab_row *row)
{
    wl_backend *backend = run->backend;
    const wl_backend_ops *ops = backend->ops;
    for (int i = 0; i < run->buffers && run->reference; i++) {
        warplab_status status = read_back_on_device(run, i, row);
        if (status != WARPLAB_OK)
            return status;
    }
    for (int i = 0; i < run->buffers && !run->reference; i++) {
        harness_buffer *b = &run->buf[i];
        const wl_buffer_spec *spec = &run->spec[i];
        size_t total = b->head + b->bytes + GUARD_BYTES;
        unsigned char *all = malloc(total);
        if (!all)
            return row_fail(row, WARPLAB_ERROR_HOST_OUT_OF_MEMORY, WARPLAB_ROW_FAILED,
                            "out of host memory reading results back");
        warplab_status status = ops->download(backend, b->handle, 0, all, total);
        if (status != WARPLAB_OK) {
            free(all);
            return row_fail(row, status, WARPLAB_ROW_FAILED, backend->error);
        }
        char note[256] = "";
        size_t guard_at = b->head + b->bytes;
        if (!all_poison(all, b->head))
            wl_format(note, sizeof note, "wrote before the start of buffer %d", i);
        else if (!all_poison(all + guard_at, (total - guard_at) & ~(size_t)3))
            wl_format(note, sizeof note, "wrote past the end of buffer %d (%zu elements)", i,
                      spec->count);
        else if (spec->role == WL_IN && memcmp(all + b->head, b->host, b->bytes) != 0)
            wl_format(note, sizeof note, "modified its input buffer %d", i);
        if (note[0]) {
            free(all);
            return row_fail(row, WARPLAB_ERROR_VERIFICATION_FAILED, WARPLAB_ROW_FAILED, note);
        }
        if (spec->role == WL_INOUT && !b->initial) {
            /* Keep what went in: verify needs it (C = alpha*A*B + beta*C). */
            b->initial = malloc(b->bytes ? b->bytes : 1);
            if (!b->initial) {
                free(all);
                return row_fail(row, WARPLAB_ERROR_HOST_OUT_OF_MEMORY, WARPLAB_ROW_FAILED,
                                "out of host memory reading results back");
            }
            memcpy(b->initial, b->host, b->bytes);
        }
        if (spec->role != WL_IN)
            memcpy(b->host, all + b->head, b->bytes);
        free(all);
    }
    return WARPLAB_OK;
}

static warplab_status verify(harness_run *run, warplab_row *row)
{
    const void *host[2 * WL_MAX_BUFFERS] = {NULL};
    for (int i = 0; i < run->buffers; i++) {
        host[i] = run->buf[i].host;
        host[run->buffers + i] = run->buf[i].initial;
    }
    wl_check check;
    wl_check_init(&check);
    warplab_status status;
    if (run->reference) {
        run->request.problem = run->problem;
        run->request.spec = run->spec;
        run->request.buffers = run->buffers;
        run->request.launch = &run->launch;
        status = run->reference->verify(run->backend, &run->request, &check);
        if (status != WARPLAB_OK && status != WARPLAB_ERROR_VERIFICATION_FAILED)
            return row_fail(row, status, WARPLAB_ROW_FAILED, run->backend->error);
    } else {
        status = run->rung->verify ? run->rung->verify(run->problem, host, &check)
                                   : run->ladder->verify(run->problem, host, &check);
    }
    row->max_rel_error = check.worst_ratio;
    if (status == WARPLAB_OK && check.bad == 0)
        return WARPLAB_OK;
    char note[256];
    if (check.bad)
        wl_format(note, sizeof note,
                  "%zu of %zu elements wrong; first at %zu: got %.9g, expected %.9g", check.bad,
                  check.checked, check.first_bad, check.got, check.expected);
    else
        wl_format(note, sizeof note, "verification failed (%s)", warplab_status_string(status));
    if (run->rung->flags & WL_RUNG_MAY_BE_WRONG) {
        char lesson[256];
        wl_format(lesson, sizeof lesson, "wrong result, as the lesson predicts: %s", note);
        wl_copy_string(note, sizeof note, lesson);
        row->flags |= WARPLAB_ROW_EXPECTED_WRONG;
    }
    return row_fail(row, WARPLAB_ERROR_VERIFICATION_FAILED, WARPLAB_ROW_FAILED, note);
}

static warplab_status run_once(harness_run *run)
{
    return wl_impl_run(run->backend, run->impl, &run->launch, run->state, false);
}

void wl_row_set_times(warplab_row *row, const wl_stats *stats, int runs)
{
    row->runs = runs;
    row->median_ms = stats->median;
    row->min_ms = stats->min;
    row->max_ms = stats->max;
    row->mean_ms = stats->mean;
    row->noise_pct = stats->rel_stddev_pct;
}

/* The most work (seconds) time_runs queues before it waits for it. */
#define WL_CANCEL_WAIT_SECONDS 0.25

static bool run_cancelled(const wl_run_config *config)
{
    return config->cancelled && config->cancelled(config->cancel_user);
}

static warplab_status time_runs(harness_run *run, const wl_run_config *config,
                                double checked_seconds, warplab_row *row)
{
    wl_backend *backend = run->backend;
    const wl_backend_ops *ops = backend->ops;
    int repeat = config->repeat > 0 ? config->repeat : 50;
    double budget = config->max_seconds > 0 ? config->max_seconds : 2.0;
    warplab_status status = WARPLAB_OK;

    /* Warm-up: the checked run already loaded modules and handles; the first
     * warm-up run is timed on the host clock to size the rest. */
    /* On the CPU a checked run as long as half the budget warmed the caches
     * already (a GPU's first run may include loading modules: never skipped). */
    /* A CPU row whose checked run alone is past the budget (the one-core
     * loops at the largest sizes) is timed by that run: the cpu backend's
     * timer is the same host clock, and another run would only double it. */
    if (ops->kind == WARPLAB_BACKEND_CPU && checked_seconds > budget) {
        row->runs = 1;
        row->median_ms = row->min_ms = row->max_ms = row->mean_ms = 1e3 * checked_seconds;
        row->noise_pct = 0.0;
        row->gbs = row->bytes / checked_seconds / 1e9;
        row->gflops = row->flops / checked_seconds / 1e9;
        return WARPLAB_OK;
    }
    double one_run = checked_seconds;
    if (ops->kind != WARPLAB_BACKEND_CPU || checked_seconds < 0.5 * budget) {
        double begin = wl_now_seconds();
        status = run_once(run);
        if (status == WARPLAB_OK)
            status = ops->synchronize(backend);
        one_run = wl_now_seconds() - begin;
        int warmup = config->warmup > 0 ? config->warmup : 3;
        for (int i = 1; i < warmup && status == WARPLAB_OK && one_run * (i + 1) < 0.1 * budget &&
                        !run_cancelled(config);
             i++)
            status = run_once(run);
        if (status == WARPLAB_OK)
            status = ops->synchronize(backend);
        if (status != WARPLAB_OK)
            return row_fail(row, status, WARPLAB_ROW_FAILED, backend->error);
    }
    /* else: a run longer than half the budget (a CPU row at a large size);
     * the checked run was its warm-up. */

    if (one_run > 0 && one_run * repeat > budget) {
        /* At least 3 runs for a median and a noise figure, unless one run
         * alone is past the budget: then as many as fit, at least 1. */
        int fit = (int)(budget / one_run);
        repeat = fit < 3 ? (one_run * 3 > 2 * budget ? (fit < 1 ? 1 : fit) : 3) : fit;
    }
    status = ops->timers_reserve(backend, repeat);
    double *ms = calloc((size_t)repeat, sizeof *ms);
    if (!ms)
        return row_fail(row, WARPLAB_ERROR_HOST_OUT_OF_MEMORY, WARPLAB_ROW_FAILED,
                        "out of host memory for timings");
    const double queued = one_run > 0 ? WL_CANCEL_WAIT_SECONDS / one_run : (double)repeat;
    const int per_wait = queued < 1.0 ? 1 : queued > (double)repeat ? repeat : (int)queued;
    int taken = 0;
    for (int i = 0; i < repeat && status == WARPLAB_OK; i++, taken++) {
        if (i > 0 && run_cancelled(config))
            break;
        if (config->flush && ops->flush_caches)
            status = ops->flush_caches(backend);
        if (status == WARPLAB_OK && run->impl->prepare)
            status = run->impl->prepare(backend, &run->launch, run->state);
        if (status == WARPLAB_OK)
            status = ops->timer_start(backend, i);
        /* warplab bench --counters: the profiler measures this launch alone. */
        const bool profiled = i == 0 && wl_profile_requested(backend);
        if (status == WARPLAB_OK && profiled)
            status = wl_profile_window(backend, 1);
        if (status == WARPLAB_OK)
            status = run->impl->launch(backend, &run->launch, run->state);
        if (profiled) {
            const warplab_status closed = wl_profile_window(backend, 0);
            status = status == WARPLAB_OK ? closed : status;
        }
        if (status == WARPLAB_OK)
            status = ops->timer_stop(backend, i);
        /* Runs are queued back to back, but no more than
         * WL_CANCEL_WAIT_SECONDS of them at a time: a cancellation stops
         * after the current run, not after all those queued (the events
         * time each run all the same). */
        if (status == WARPLAB_OK && (i + 1) % per_wait == 0)
            status = ops->synchronize(backend);
    }
    repeat = taken;
    if (status == WARPLAB_OK)
        status = ops->timers_read(backend, repeat, ms);
    if (status != WARPLAB_OK) {
        free(ms);
        return row_fail(row, status, WARPLAB_ROW_FAILED, backend->error);
    }
    wl_stats stats;
    wl_stats_compute(ms, (size_t)repeat, &stats);
    free(ms);
    wl_row_set_times(row, &stats, repeat);
    if (stats.median > 0) {
        row->gbs = row->bytes / (stats.median * 1e-3) / 1e9;
        row->gflops = row->flops / (stats.median * 1e-3) / 1e9;
        if (run->ladder->bus_bytes)
            row->busbw_gbs = run->ladder->bus_bytes(run->problem) / (stats.median * 1e-3) / 1e9;
    }
    return WARPLAB_OK;
}

/* Large problems on a backend with a device reference are verified there
 * (reference.h), when the ladder has a device reference for the rung. */
static void plan_device_verification(harness_run *run, const wl_run_config *config)
{
    const wl_device_reference *reference = wl_device_reference_for(run->backend);
    size_t total = 0;
    if (!reference || !config->verify || !wl_problem_bytes(run->ladder, run->problem, &total) ||
        total < wl_device_verify_threshold())
        return;
    for (int i = 0; i < run->buffers; i++)
        if (run->spec[i].dtype != WARPLAB_INT32 && run->spec[i].dtype != WARPLAB_FLOAT32 &&
            run->spec[i].dtype != WARPLAB_FLOAT64)
            return;
    memset(&run->request, 0, sizeof run->request);
    wl_ladder_device_reference(run->ladder, run->rung, run->problem, &run->request);
    if (run->request.kind == WL_REFERENCE_NONE)
        return;
    run->request.sample_seed = config->seed ^ 0xA0761D6478BD642Full;
    run->reference = reference;
}

/* The work of a run by the rung's formulas: flops where it has them, else
 * bytes. */
static double rung_work(const wl_ladder *ladder, const wl_rung *rung, const wl_problem *problem)
{
    double (*flops)(const wl_problem *) = rung->flops ? rung->flops : ladder->flops;
    double (*bytes)(const wl_problem *) = rung->bytes ? rung->bytes : ladder->bytes;
    double work = flops ? flops(problem) : 0.0;
    return work > 0.0 ? work : (bytes ? bytes(problem) : 0.0);
}

/* The largest problem (bytes of its buffers) a host row's budget probe
 * runs: filled and run in tens of milliseconds. */
#define WL_HOST_PROBE_BYTES ((size_t)64 << 20)

/* Skips a host row whose run is predicted past the budget; basis says how
 * the prediction was made. */
static warplab_status over_budget(warplab_row *row, double predicted, const char *basis,
                                  double budget)
{
    char note[256];
    wl_format(note, sizeof note,
              "over the CPU row budget: a run would take about %.1f s (%s), past the %.0f s a "
              "host row may take",
              predicted, basis, budget);
    return row_fail(row, WARPLAB_ERROR_UNSUPPORTED, WARPLAB_ROW_SKIPPED, note);
}

/* A host row in a run on another device gets a time budget: one run at a
 * quarter of the work, or less where that is past WL_HOST_PROBE_BYTES,
 * predicts a run at full size (work scales linearly); past the budget the
 * row is skipped, the prediction its reason. Problems with pitches, or too
 * small to scale, are run as they are.
 *
 * The rung's own run at a smaller size of the same run, scaled by the work,
 * predicts it first (wl_run_config.host_previous). Then the probe: it shrinks
 * the first dimension alone (rows; gemm's m) and keeps the others whole, so that a row's stride and
 * the pages one pass over it touches are those of the full problem: a square probe (2048^2 for a
 * 16384^2 transpose) fits the TLB's reach where the full size does not, and
 * predicted 3 s for a run that took 7.9 s (docs/results/h200.json,
 * transpose cpu_loop). */
static warplab_status host_row_budget(wl_backend *device, wl_backend *host, const wl_ladder *ladder,
                                      const wl_rung *rung, const wl_impl *impl,
                                      const wl_problem *problem, const wl_run_config *config,
                                      warplab_row *row)
{
    const double budget =
        config->host_run_budget > 0 ? config->host_run_budget : WL_HOST_RUN_BUDGET;
    if (config->host_run_budget < 0 || !(rung->flags & WL_RUNG_HOST) || device == host ||
        problem->dims < 1 || problem->dims > 3)
        return WARPLAB_OK;
    const double full = rung_work(ladder, rung, problem);
    char basis[128];
    /* The rung's own run at a smaller size in this run first: it costs nothing. */
    const double before =
        config->host_previous ? rung_work(ladder, rung, config->host_previous) : 0.0;
    if (full > 0.0 && before > 0.0 && before < full && config->host_previous_seconds > 0.0) {
        const double predicted = config->host_previous_seconds * full / before;
        if (predicted > budget) {
            wl_format(basis, sizeof basis, "scaled from its %.3g s at a smaller size in this run",
                      config->host_previous_seconds);
            return over_budget(row, predicted, basis, budget);
        }
    }
    /* A quarter of the work: n / 4, rows / 4 or m / 4. */
    wl_problem probe = *problem;
    for (int d = 0; d < problem->dims; d++)
        if (problem->ld[d] || problem->dim[d] < 64)
            return WARPLAB_OK;
    probe.dim[0] = problem->dim[0] / 4;
    /* A problem whose buffers and host copies do not fit in the host's free
     * memory is skipped by the memory check (allocate) with that reason:
     * no probe for it. */
    size_t full_bytes = 0, free_bytes = 0, total_bytes = 0;
    if (wl_problem_bytes(ladder, problem, &full_bytes) &&
        host->ops->mem_info(host, &free_bytes, &total_bytes) == WARPLAB_OK &&
        2.0 * (double)full_bytes > 0.95 * (double)free_bytes - 64e6)
        return WARPLAB_OK;
    /* The probe itself costs milliseconds: smaller still while its buffers
     * pass WL_HOST_PROBE_BYTES (a problem too large for memory is skipped
     * after this, by the memory check, at no cost). */
    size_t probe_bytes = 0;
    while (wl_problem_bytes(ladder, &probe, &probe_bytes) && probe_bytes > WL_HOST_PROBE_BYTES &&
           probe.dim[0] >= 32)
        probe.dim[0] /= 2;
    const double part = rung_work(ladder, rung, &probe);
    if (!(full > 0.0) || !(part > 0.0))
        return WARPLAB_OK;
    wl_run_config probe_config = {.repeat = 1,
                                  .warmup = 1,
                                  .max_seconds = 0.5,
                                  .verify = false,
                                  .time = true,
                                  .seed = config->seed,
                                  .host_run_budget = -1.0};
    warplab_row probe_row;
    if (wl_run_rung(device, host, ladder, rung, impl, &probe, &probe_config, &probe_row) !=
            WARPLAB_OK ||
        !(probe_row.median_ms > 0.0))
        return WARPLAB_OK;
    const double predicted = probe_row.median_ms * 1e-3 * full / part;
    if (predicted <= budget)
        return WARPLAB_OK;
    wl_format(basis, sizeof basis, "predicted from %.3g ms at %s", probe_row.median_ms,
              probe_row.problem);
    return over_budget(row, predicted, basis, budget);
}

const wl_impl *wl_rung_impl(const wl_backend *device, const wl_backend *host,
                            const wl_ladder *ladder, const wl_rung *rung)
{
    const wl_backend *backend = (rung->flags & WL_RUNG_HOST) ? host : device;
    if (rung->op) /* the library call: the operation's first candidate here */
        return wl_op_first_impl(backend->ops, rung->op);
    return wl_backend_find_impl(backend, ladder->name, rung->id);
}

warplab_status wl_run_rung(wl_backend *device, wl_backend *host, const wl_ladder *ladder,
                           const wl_rung *rung, const wl_impl *impl, const wl_problem *problem,
                           const wl_run_config *config, warplab_row *row)
{
    harness_run run;
    memset(&run, 0, sizeof run);
    run.backend = (rung->flags & WL_RUNG_HOST) ? host : device;
    run.host = host;
    run.ladder = ladder;
    run.rung = rung;
    run.problem = problem;
    row_init(row, run.backend, ladder, rung, problem);
    if (rung->flags & WL_RUNG_UNSAFE)
        wl_copy_string(row->note, sizeof row->note,
                       "unsafe on today's GPUs (a data race); shown for the lesson, never picked");

    run.impl = impl;
    char reason[256] = "";
    if (!run.impl) {
        char note[256];
        describe_missing_impl(run.backend, ladder, rung, note, sizeof note);
        return row_fail(row, WARPLAB_ERROR_UNSUPPORTED, WARPLAB_ROW_SKIPPED, note);
    }
    /* The library call runs what its operation picks for this problem, as
     * warplab_<op> would, and its row says which rung that is. */
    if (rung->op) {
        run.impl = wl_op_pick(run.backend, rung->op, problem, reason, sizeof reason);
        if (!run.impl)
            return row_fail(row, WARPLAB_ERROR_UNSUPPORTED, WARPLAB_ROW_SKIPPED, reason);
        wl_format(row->note, sizeof row->note, "runs %s", run.impl->rung);
    }
    warplab_status status =
        wl_rung_supports(run.backend, ladder, rung, run.impl, problem, reason, sizeof reason);
    if (status != WARPLAB_OK)
        return row_fail(row, status, WARPLAB_ROW_SKIPPED, reason);
    status = host_row_budget(device, host, ladder, rung, impl, problem, config, row);
    if (status != WARPLAB_OK)
        return status;

    run.buffers = ladder->buffers(problem, run.spec);
    plan_device_verification(&run, config);
    status = allocate(&run, row);
    if (status == WARPLAB_OK)
        status = fill_buffers(&run, config->seed, row);
    if (status == WARPLAB_OK && run.impl->setup) {
        status = run.impl->setup(run.backend, &run.launch, &run.state);
        if (status != WARPLAB_OK)
            row_fail(row, status, WARPLAB_ROW_FAILED, run.backend->error);
    }
    if (status == WARPLAB_OK)
        run.state_ready = true;

    /* Cancelled while the buffers were made: nothing more to wait for. */
    if (status == WARPLAB_OK && run_cancelled(config)) {
        release_run(&run);
        return row_fail(row, WARPLAB_ERROR_UNSUPPORTED, WARPLAB_ROW_SKIPPED, "cancelled");
    }
    double checked_seconds = 0.0;
    if (status == WARPLAB_OK && config->verify) {
        double begin = wl_now_seconds();
        status = wl_impl_run(run.backend, run.impl, &run.launch, run.state, true);
        if (status == WARPLAB_OK)
            status = run.backend->ops->synchronize(run.backend);
        checked_seconds = wl_now_seconds() - begin;
        if (status != WARPLAB_OK)
            row_fail(row, status, WARPLAB_ROW_FAILED, run.backend->error);
        if (status == WARPLAB_OK)
            status = read_back(&run, row);
        if (status == WARPLAB_OK)
            status = verify(&run, row);
    }
    /* A rung whose wrongness is the lesson is still timed. */
    bool timeable = status == WARPLAB_OK || (status == WARPLAB_ERROR_VERIFICATION_FAILED &&
                                             (rung->flags & WL_RUNG_MAY_BE_WRONG));
    if (timeable && config->time) {
        warplab_status verified = status;
        status = time_runs(&run, config, checked_seconds, row);
        if (status == WARPLAB_OK)
            status = verified;
    }
    /* What the implementation ran (a dispatcher's pick), where nothing else
     * is noted. */
    if (run.impl->describe && run.state_ready && !row->note[0])
        run.impl->describe(run.backend, &run.launch, row->note, sizeof row->note);
    /* Which reference verified a large problem. */
    if (run.reference && config->verify && !(row->flags & WARPLAB_ROW_FAILED))
        wl_append(row->note, sizeof row->note, "%s%s", row->note[0] ? "; " : "",
                  wl_reference_name(run.request.kind));
    release_run(&run);
    return status == WARPLAB_OK ? WARPLAB_OK : row->status;
}

static bool on_ladder(const warplab_row *row)
{
    const unsigned off = WARPLAB_ROW_VENDOR | WARPLAB_ROW_REFERENCE | WARPLAB_ROW_TRANSFER |
                         WARPLAB_ROW_SKIPPED | WARPLAB_ROW_FAILED;
    return !(row->flags & off) && row->median_ms > 0;
}

/* The GB/s of the fastest copy reference that ran on the device, 0 if none. */
static double reference_gbs(const warplab_row *rows, size_t count)
{
    const unsigned unusable = WARPLAB_ROW_HOST | WARPLAB_ROW_SKIPPED | WARPLAB_ROW_FAILED;
    double best = 0.0;
    for (size_t i = 0; i < count; i++)
        if ((rows[i].flags & WARPLAB_ROW_REFERENCE) && !(rows[i].flags & unusable) &&
            rows[i].gbs > best)
            best = rows[i].gbs;
    return best;
}

void wl_rows_finalize(warplab_row *rows, const wl_rung *const *rungs, size_t count,
                      double ceiling_gbs)
{
    const warplab_row *first = NULL, *previous = NULL, *baseline = NULL;
    for (size_t i = 0; i < count && !baseline; i++)
        if ((rows[i].flags & WARPLAB_ROW_BASELINE) && rows[i].median_ms > 0 &&
            !(rows[i].flags & (WARPLAB_ROW_SKIPPED | WARPLAB_ROW_FAILED)))
            baseline = &rows[i];
    const double reference = reference_gbs(rows, count);
    for (size_t i = 0; i < count; i++) {
        warplab_row *row = &rows[i];
        const wl_rung *rung = rungs[i];
        /* The rung's own vendor row when it names one, else the baseline. */
        const warplab_row *vendor = baseline;
        if (rung->vendor) {
            vendor = NULL;
            for (size_t j = 0; j < count && !vendor; j++)
                if (strcmp(rows[j].rung, rung->vendor) == 0 && rows[j].median_ms > 0 &&
                    !(rows[j].flags & (WARPLAB_ROW_SKIPPED | WARPLAB_ROW_FAILED)))
                    vendor = &rows[j];
        }
        if (vendor && row->median_ms > 0) {
            row->pct_of_vendor = 100.0 * vendor->median_ms / row->median_ms;
            wl_copy_string(row->vendor, sizeof row->vendor, vendor->rung);
            if (rung->vendor)
                row->flags |= WARPLAB_ROW_PAIRED;
        }
        if (ceiling_gbs > 0 && row->gbs > 0)
            row->pct_of_ceiling = 100.0 * row->gbs / ceiling_gbs;
        if (reference > 0 && row->gbs > 0)
            row->pct_of_reference = 100.0 * row->gbs / reference;
        if (!on_ladder(row) || (rung->flags & WL_RUNG_OFF_LADDER))
            continue;
        if (!first)
            first = row;
        if (previous)
            row->step_speedup = previous->median_ms / row->median_ms;
        if (first != row)
            row->cumulative_speedup = first->median_ms / row->median_ms;
        previous = row;
    }
}
