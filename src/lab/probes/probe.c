/* The probe runner: every (series, point) of a probe through wl_run_rung,
 * into a report whose rows the probe's conclusion reads. The registry of
 * probes and the helpers their definitions share are here too. */
#include "probe.h"
#include "core/context.h"
#include "lab/harness.h"
#include "probe_kernels.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* The registry                                                             */

extern const wl_probe wl_probe_coalescing;
extern const wl_probe wl_probe_banks;
extern const wl_probe wl_probe_divergence;
extern const wl_probe wl_probe_atomics;
extern const wl_probe wl_probe_intrinsics;
extern const wl_probe wl_probe_unroll;
extern const wl_probe wl_probe_blocksize;
extern const wl_probe wl_probe_transfers;
extern const wl_probe wl_probe_tiles;
extern const wl_probe wl_probe_latency;
extern const wl_probe wl_probe_memories;

static const wl_probe *const probes[] = {
    &wl_probe_coalescing, &wl_probe_banks,   &wl_probe_divergence, &wl_probe_atomics,
    &wl_probe_intrinsics, &wl_probe_unroll,  &wl_probe_blocksize,  &wl_probe_transfers,
    &wl_probe_tiles,      &wl_probe_latency, &wl_probe_memories,
};

size_t wl_probe_count(void)
{
    return sizeof probes / sizeof probes[0];
}

const wl_probe *wl_probe_at(size_t index)
{
    return index < wl_probe_count() ? probes[index] : NULL;
}

const wl_probe *wl_probe_find(const char *name)
{
    for (size_t i = 0; name && i < wl_probe_count(); i++)
        if (strcmp(probes[i]->name, name) == 0)
            return probes[i];
    return NULL;
}

size_t warplab_probe_count(void)
{
    return wl_probe_count();
}

const char *warplab_probe_name(size_t index)
{
    const wl_probe *probe = wl_probe_at(index);
    return probe ? probe->name : NULL;
}

const char *warplab_probe_title(size_t index)
{
    const wl_probe *probe = wl_probe_at(index);
    return probe ? probe->title : NULL;
}

const char *warplab_probe_size_meaning(size_t index)
{
    const wl_probe *probe = wl_probe_at(index);
    return probe ? probe->size_meaning : NULL;
}

/* ------------------------------------------------------------------------ */
/* Which backends have a form                                               */

static size_t series_on(const wl_probe *probe, const wl_backend_ops *ops)
{
    size_t found = 0;
    for (size_t s = 0; ops && s < probe->section_count; s++) {
        const wl_ladder *ladder = probe->sections[s].ladder;
        for (size_t r = 0; r < ladder->rung_count; r++)
            found += !(ladder->rungs[r].flags & WL_RUNG_HOST) &&
                     wl_ops_find_impl(ops, ladder->name, ladder->rungs[r].id) != NULL;
    }
    return found;
}

/* "cuda only" or "has: cuda, opencl", from the backends compiled in. */
static void describe_forms(const wl_probe *probe, const char *here, char *text, size_t len)
{
    char where[64] = "";
    int count = 0;
    for (int k = WARPLAB_BACKEND_CUDA; k < WARPLAB_BACKEND_COUNT; k++) {
        const wl_backend_ops *ops = wl_backend_ops_for((warplab_backend_kind)k);
        if (!series_on(probe, ops))
            continue;
        wl_append(where, sizeof where, "%s%s", count ? ", " : "", ops->name);
        count++;
    }
    if (count == 1)
        wl_format(text, len, "%s only: %s has no %s form", where, probe->name, here);
    else if (count > 1)
        wl_format(text, len, "%s has no %s form (it runs on %s)", probe->name, here, where);
    else
        wl_format(text, len, "%s has no form in this build", probe->name);
}

static warplab_status warplab_probe_supported_checked(const char *name,
                                                      warplab_backend_kind backend, char *reason,
                                                      size_t reason_len)
{
    const wl_probe *probe = wl_probe_find(name);
    if (!probe)
        return WARPLAB_ERROR_UNKNOWN_NAME;
    if ((unsigned)backend >= WARPLAB_BACKEND_COUNT)
        return WARPLAB_ERROR_INVALID_ARGUMENT;
    for (int k = WARPLAB_BACKEND_CUDA; k < WARPLAB_BACKEND_COUNT; k++) {
        if (backend != WARPLAB_BACKEND_AUTO && backend != (warplab_backend_kind)k)
            continue;
        if (series_on(probe, wl_backend_ops_for((warplab_backend_kind)k)))
            return WARPLAB_OK;
    }
    if (reason && reason_len)
        describe_forms(probe, warplab_backend_name(backend), reason, reason_len);
    return WARPLAB_ERROR_UNSUPPORTED;
}

warplab_status warplab_probe_supported(const char *name, warplab_backend_kind backend, char *reason,
                                       size_t reason_len)
{
    wl_api_begin(NULL);
    return wl_api_end(NULL, "warplab_probe_supported",
                      warplab_probe_supported_checked(name, backend, reason, reason_len));
}

/* ------------------------------------------------------------------------ */
/* Running                                                                  */

#define MAX_POINTS WL_PROBE_MAX_POINTS

typedef struct section_plan {
    wl_problem problems[MAX_POINTS];
    int point_count;
    const wl_rung **series; /* the section's rungs this device has: room for all */
    const wl_impl **impls;  /* series[i]'s impl on the device */
    int series_count;
} section_plan;

static void free_section_plans(section_plan *plans, size_t count)
{
    for (size_t s = 0; plans && s < count; s++) {
        free(plans[s].series);
        free(plans[s].impls);
    }
    free(plans);
}

void warplab_probe_result_destroy(warplab_probe_result *result)
{
    if (!result)
        return;
    warplab_report_destroy(result->report);
    free(result->points);
    free(result);
}

static const wl_probe_series *series_info(const wl_probe_section *section, const char *id)
{
    for (size_t i = 0; i < section->series_count; i++)
        if (strcmp(section->series[i].id, id) == 0)
            return &section->series[i];
    return NULL;
}

/* The figure of a row in the section's unit, and its range over the runs. */
static void fill_point(const wl_probe_section *section, size_t section_index,
                       const warplab_row *row, const char *annotation, warplab_probe_point *point)
{
    memset(point, 0, sizeof *point);
    point->section = section_index;
    point->x = row->size;
    wl_copy_string(point->annotation, sizeof point->annotation, annotation);
    const wl_probe_series *info = series_info(section, row->rung);
    if (info && info->baseline)
        wl_copy_string(point->baseline, sizeof point->baseline, info->baseline);
    bool measured = row->runs > 0 && row->median_ms > 0 &&
                    !(row->flags & (WARPLAB_ROW_SKIPPED | WARPLAB_ROW_FAILED));
    if (!measured)
        return;
    double amount = section->metric == WL_PROBE_BYTES ? row->bytes : row->flops;
    point->value = section->metric == WL_PROBE_BYTES ? row->gbs : row->gflops;
    if (row->max_ms > 0)
        point->low = amount / (row->max_ms * 1e-3) / 1e9;
    if (row->min_ms > 0)
        point->high = amount / (row->min_ms * 1e-3) / 1e9;
    if (info && info->error_kind && isfinite(row->max_rel_error)) {
        point->error = row->max_rel_error * info->error_unit;
        wl_copy_string(point->error_kind, sizeof point->error_kind, info->error_kind);
    }
}

static warplab_status plan_sections(warplab_context *context, const wl_probe *probe, size_t size,
                                    section_plan *plans, size_t *rows, char *missing,
                                    size_t missing_len)
{
    const wl_backend_ops *ops = context->device->ops;
    *rows = 0;
    for (size_t s = 0; s < probe->section_count; s++) {
        const wl_probe_section *section = &probe->sections[s];
        section_plan *plan = &plans[s];
        plan->point_count =
            section->points(&context->device->info, size, plan->problems, MAX_POINTS);
        if (plan->point_count <= 0)
            return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                                   "size %zu is too small: no point to measure in '%s' (%s)", size,
                                   section->name, probe->size_meaning);
        plan->series_count = 0;
        const size_t room = section->ladder->rung_count ? section->ladder->rung_count : 1;
        plan->series = calloc(room, sizeof *plan->series);
        plan->impls = calloc(room, sizeof *plan->impls);
        if (!plan->series || !plan->impls)
            return wl_context_fail(context, WARPLAB_ERROR_HOST_OUT_OF_MEMORY, "probe plan");
        for (size_t r = 0; r < section->ladder->rung_count; r++) {
            const wl_rung *rung = &section->ladder->rungs[r];
            /* A host series (the CPU beside the GPU) runs on the cpu backend. */
            const wl_backend_ops *rung_ops =
                (rung->flags & WL_RUNG_HOST) && context->host ? context->host->ops : ops;
            const wl_impl *impl = wl_ops_find_impl(rung_ops, section->ladder->name, rung->id);
            if (impl) {
                plan->impls[plan->series_count] = impl;
                plan->series[plan->series_count++] = rung;
            } else
                wl_append(missing, missing_len, "%s%s", missing[0] ? ", " : "", rung->id);
        }
        *rows += (size_t)plan->point_count * (size_t)plan->series_count;
    }
    return WARPLAB_OK;
}

static warplab_probe_result *allocate_result(size_t rows)
{
    warplab_probe_result *result = calloc(1, sizeof *result);
    if (!result)
        return NULL;
    result->report = calloc(1, sizeof *result->report);
    if (result->report)
        result->report->rows = calloc(rows ? rows : 1, sizeof *result->report->rows);
    result->points = calloc(rows ? rows : 1, sizeof *result->points);
    if (!result->report || !result->report->rows || !result->points) {
        warplab_probe_result_destroy(result);
        return NULL;
    }
    return result;
}

static void fill_header(warplab_context *context, const wl_probe *probe,
                        const warplab_probe_options *options, size_t size,
                        warplab_probe_result *result)
{
    const warplab_device_info *info = &context->device->info;
    warplab_report *report = result->report;
    wl_copy_string(result->probe, sizeof result->probe, probe->name);
    wl_copy_string(result->title, sizeof result->title, probe->title);
    wl_copy_string(result->course, sizeof result->course, probe->course);
    probe->setup(info, size, result->setup, sizeof result->setup);
    wl_report_begin(report, context, options->seed, options->no_flush);
    result->section_count = probe->section_count;
    for (size_t s = 0; s < probe->section_count; s++) {
        const wl_probe_section *from = &probe->sections[s];
        warplab_probe_section *to = &result->sections[s];
        wl_copy_string(to->name, sizeof to->name, from->name);
        wl_copy_string(to->title, sizeof to->title, from->title);
        wl_copy_string(to->x_label, sizeof to->x_label, from->x_label);
        wl_copy_string(to->unit, sizeof to->unit, from->unit);
        to->log_x = from->log_x;
        to->x_is_bytes = from->x_is_bytes;
        to->comparison = from->comparison;
    }
}

static warplab_status warplab_probe_run_checked(warplab_context *context, const char *name,
                                                const warplab_probe_options *options,
                                                warplab_probe_result **out)
{
    if (!context || !name || !out)
        return WARPLAB_ERROR_INVALID_ARGUMENT;
    *out = NULL;
    warplab_probe_options defaults;
    memset(&defaults, 0, sizeof defaults);
    if (!options)
        options = &defaults;
    const wl_probe *probe = wl_probe_find(name);
    if (!probe) {
        char known[256] = "";
        for (size_t i = 0; i < wl_probe_count(); i++)
            wl_append(known, sizeof known, "%s%s", i ? ", " : "", probes[i]->name);
        return wl_context_fail(context, WARPLAB_ERROR_UNKNOWN_NAME,
                               "no probe named '%s' (probes: %s)", name, known);
    }
    if (options->repeat < 0 || options->warmup < 0 || options->max_seconds < 0)
        return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                               "repeat, warm-up and time budget must not be negative");
    if ((options->ladder && options->ladder[0]) || options->rungs || options->dtype ||
        options->op || options->sweep)
        return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                               "a probe takes no ladder, rungs, type, operation or sweep");
    size_t size = 0;
    if (options->sizes) {
        size_t dims[3];
        int given = 0;
        if (warplab_parse_size(options->sizes, dims, &given) != WARPLAB_OK || given != 1 ||
            dims[0] == 0)
            return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                                   "a probe needs one size > 0 (2^25, 33554432, 32M), not '%s'",
                                   options->sizes);
        size = dims[0];
    }
    if (!series_on(probe, context->device->ops)) {
        char why[256];
        describe_forms(probe, context->device->ops->name, why, sizeof why);
        return wl_context_fail(context, WARPLAB_ERROR_UNSUPPORTED, "%s", why);
    }

    section_plan *plans = calloc(WL_PROBE_MAX_SECTIONS, sizeof *plans);
    if (!plans)
        return WARPLAB_ERROR_HOST_OUT_OF_MEMORY;
    char missing[256] = "";
    size_t total = 0;
    warplab_status status =
        plan_sections(context, probe, size, plans, &total, missing, sizeof missing);
    warplab_probe_result *result = status == WARPLAB_OK ? allocate_result(total) : NULL;
    if (status == WARPLAB_OK && !result)
        status = WARPLAB_ERROR_HOST_OUT_OF_MEMORY;
    if (status != WARPLAB_OK) {
        free_section_plans(plans, WL_PROBE_MAX_SECTIONS);
        return status;
    }
    fill_header(context, probe, options, size, result);
    if (missing[0])
        wl_format(result->missing, sizeof result->missing, "%s: no %s form", missing,
                  context->device->ops->name);

    warplab_report *report = result->report;
    wl_run_config config = {
        .repeat = options->repeat > 0 ? options->repeat : 20,
        .warmup = options->warmup > 0 ? options->warmup : 2,
        .max_seconds = options->max_seconds > 0 ? options->max_seconds : 0.5,
        .flush = !options->no_flush,
        .verify = true,
        .time = true,
        .cancelled = options->cancelled,
        .cancel_user = options->cancel_user,
    };
    size_t done = 0;
    for (size_t s = 0; s < probe->section_count && !report->incomplete; s++) {
        const wl_probe_section *section = &probe->sections[s];
        const section_plan *plan = &plans[s];
        result->sections[s].first_row = report->row_count;
        for (int p = 0; p < plan->point_count; p++) {
            const wl_problem *problem = &plan->problems[p];
            char annotation[128] = "";
            if (section->annotate)
                section->annotate(context->device, problem, annotation, sizeof annotation);
            for (int r = 0; r < plan->series_count && !report->incomplete; r++) {
                if (options->cancelled && options->cancelled(options->cancel_user)) {
                    report->incomplete = 1;
                    break;
                }
                warplab_row *row = &report->rows[report->row_count];
                if (options->progress) {
                    char text[64];
                    section->ladder->describe(problem, text, sizeof text);
                    options->progress(options->progress_user, probe->name, plan->series[r]->id,
                                      text, done, total);
                }
                config.seed = report->seed + 0x632BE59BD9B4E019ull * (uint64_t)(done + 1);
                wl_run_rung(context->device, context->host, section->ladder, plan->series[r],
                            plan->impls[r], problem, &config, row);
                fill_point(section, s, row, annotation, &result->points[report->row_count]);
                report->row_count++;
                done++;
            }
        }
        result->sections[s].row_count = report->row_count - result->sections[s].first_row;
    }
    if (options->progress)
        options->progress(options->progress_user, NULL, NULL, NULL, done, total);
    free_section_plans(plans, WL_PROBE_MAX_SECTIONS);
    /* A conclusion needs every point; a cancelled run says so instead. */
    if (report->incomplete)
        wl_copy_string(result->conclusion, sizeof result->conclusion,
                       "(interrupted before every point was measured: no conclusion)");
    else
        probe->conclude(result, result->conclusion, sizeof result->conclusion);
    *out = result;
    return WARPLAB_OK;
}

warplab_status warplab_probe_run(warplab_context *context, const char *name,
                                 const warplab_probe_options *options, warplab_probe_result **out)
{
    if (!context)
        return wl_api_no_context("warplab_probe_run", "the context");
    wl_api_begin(context);
    return wl_api_end(context, "warplab_probe_run",
                      warplab_probe_run_checked(context, name, options, out));
}

/* ------------------------------------------------------------------------ */
/* Helpers for the definitions                                              */

const warplab_probe_point *wl_probe_point_at(const warplab_probe_result *result, const char *series,
                                             double x)
{
    for (size_t i = 0; result && result->report && i < result->report->row_count; i++)
        if (result->report->rows[i].size == x && strcmp(result->report->rows[i].rung, series) == 0)
            return &result->points[i];
    return NULL;
}

bool wl_probe_value(const warplab_probe_result *result, const char *series, double x, double *value)
{
    const warplab_probe_point *point = wl_probe_point_at(result, series, x);
    if (!point || !(point->value > 0))
        return false;
    *value = point->value;
    return true;
}

bool wl_probe_ratio(const warplab_probe_result *result, const char *a, double xa, const char *b,
                    double xb, double *ratio)
{
    double va, vb;
    if (!wl_probe_value(result, a, xa, &va) || !wl_probe_value(result, b, xb, &vb))
        return false;
    *ratio = va / vb;
    return true;
}

void wl_probe_append_ratio(char *text, size_t len, const warplab_probe_result *result,
                           const char *a, double xa, const char *b, double xb)
{
    double ratio;
    if (wl_probe_ratio(result, a, xa, b, xb, &ratio))
        wl_append(text, len, "%.2fx", ratio);
    else
        wl_append(text, len, "n/a");
}

bool wl_probe_extreme(const warplab_probe_result *result, const char *series, double lo, double hi,
                      bool largest, double *x, double *value)
{
    bool found = false;
    for (size_t i = 0; result && result->report && i < result->report->row_count; i++) {
        const warplab_row *row = &result->report->rows[i];
        double v = result->points[i].value;
        if (strcmp(row->rung, series) != 0 || row->size < lo || row->size > hi || !(v > 0))
            continue;
        if (!found || (largest ? v > *value : v < *value)) {
            *x = row->size;
            *value = v;
            found = true;
        }
    }
    return found;
}

bool wl_probe_check_poison(wl_check *check, size_t index, const void *word)
{
    uint32_t bits;
    memcpy(&bits, word, sizeof bits);
    return wl_check_value(check, index, (double)bits, (double)WL_POISON_PATTERN, 0.0);
}

warplab_status wl_probe_zero_last_buffer(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    const wl_view last = launch->buf[launch->buffers - 1];
    return backend->ops->fill32(backend, last.handle, last.offset, 0u, last.bytes);
}

warplab_status wl_probe_ones_last_buffer(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    const wl_view last = launch->buf[launch->buffers - 1];
    return backend->ops->fill32(backend, last.handle, last.offset, 0xffffffffu, last.bytes);
}

wl_problem wl_probe_point(size_t dim0, size_t dim1, size_t dim2, long param)
{
    wl_problem problem;
    memset(&problem, 0, sizeof problem);
    problem.dim[0] = dim0;
    problem.dim[1] = dim1;
    problem.dim[2] = dim2;
    problem.dims = dim2 ? 3 : dim1 ? 2 : 1;
    problem.dtype = WARPLAB_FLOAT32;
    problem.param = param;
    return problem;
}

double wl_probe_leading_size(const wl_problem *problem)
{
    return (double)problem->param;
}

/* a^steps, remembered for the last steps asked on this thread: a check calls
 * the reference and the bound for every element of an array (2^26 in the
 * transfers probe) with one steps, and pow dominated it. */
static double chain_power(long steps)
{
    static _Thread_local long last_steps = -1;
    static _Thread_local double last_power;
    if (steps != last_steps) {
        last_power = pow((double)WL_CHAIN_A, (double)steps);
        last_steps = steps;
    }
    return last_power;
}

double wl_chain_reference(float start, float b, long steps)
{
    const double a = (double)WL_CHAIN_A, power = chain_power(steps);
    return power * (double)start + (double)b * (1.0 - power) / (1.0 - a);
}

double wl_chain_bound(float start, float b, long steps)
{
    const double a = (double)WL_CHAIN_A;
    /* y_k - F = a^k (y_0 - F) for the fixed point F: the chain moves
     * monotonically from its start to its end. */
    const double end = wl_chain_reference(start, b, steps);
    const double largest = fmax(fabs((double)start), fabs(end)) + fabs((double)b);
    const double weights = (1.0 - chain_power(steps)) / (1.0 - a); /* sum of a^j, j < n */
    return 2.0 * ldexp(1.0, -24) * largest * weights;
}
