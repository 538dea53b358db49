/* warplab_bench: ladders x sizes x rungs through the harness, into a report. */
#include "context.h"

#include <stdlib.h>
#include <string.h>

void warplab_report_destroy(warplab_report *report)
{
    if (!report)
        return;
    free(report->rows);
    free(report);
}

/* ------------------------------------------------------------------------ */
/* Options                                                                  */

/* Splits a comma-separated list into at most max items of at most 63 chars. */
static int split_list(const char *text, char items[][64], int max)
{
    int count = 0;
    while (text && *text && count < max) {
        const char *comma = strchr(text, ',');
        size_t length = comma ? (size_t)(comma - text) : strlen(text);
        if (length == 0 || length >= 64)
            return -1; /* an empty item ("2^20,,2^22") or one too long */
        memcpy(items[count], text, length);
        items[count][length] = '\0';
        count++;
        text = comma ? comma + 1 : NULL;
    }
    return text && *text ? -1 : count;
}

#define MAX_LIST 64
/* A sweep's sizes: 2^SWEEP_FIRST, 2^(SWEEP_FIRST + 2), ..., 2^SWEEP_LAST. */
#define SWEEP_FIRST 10
#define SWEEP_LAST 30

typedef struct plan {
    const wl_ladder *ladder;
    wl_problem problems[MAX_LIST];
    int problem_count;
    const wl_rung *rungs[MAX_LIST];
    const wl_impl *impls[MAX_LIST]; /* rungs[i]'s impl (wl_rung_impl), or NULL */
    int rung_count;
} plan;

static bool device_is_gpu_class(const warplab_device_info *info)
{
    return info->gpu != 0;
}

/* every_ladder: the run names no ladder, so a listed rung the ladder lacks
 * is another ladder's (make_plans checks that one has it). */
static warplab_status make_plan(warplab_context *context, const wl_ladder *ladder,
                                const warplab_bench_options *options, bool every_ladder, plan *p)
{
    memset(p, 0, sizeof *p);
    p->ladder = ladder;
    /* A sweep's sizes (launch latency at the small end, bandwidth at the
     * top), else the list given, else the ladder's defaults. */
    const char *sizes = options->sizes;
    if ((!sizes || !*sizes) && !options->sweep)
        sizes = device_is_gpu_class(&context->device->info) ? ladder->default_sizes_gpu
                                                            : ladder->default_sizes_cpu;
    char items[MAX_LIST][64];
    int count = 0;
    if (options->sweep) {
        if (sizes && *sizes)
            return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                                   "a sweep chooses its sizes (2^10 to 2^30): leave the sizes "
                                   "out");
        for (int exponent = SWEEP_FIRST; exponent <= SWEEP_LAST; exponent += 2)
            wl_format(items[count++], sizeof items[0], "2^%d", exponent); /* for messages */
    } else {
        count = split_list(sizes, items, MAX_LIST);
        if (count <= 0)
            return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                                   "cannot read the sizes '%s': 1 to %d sizes, comma-separated, "
                                   "none empty (examples: 2^20, 1M, 4096x4096)",
                                   sizes, MAX_LIST);
    }
    for (int i = 0; i < count; i++) {
        size_t dims[3] = {(size_t)1 << (SWEEP_FIRST + 2 * i), 0, 0};
        int given = 1;
        bool overflow = false;
        const warplab_status parsed =
            options->sweep ? WARPLAB_OK : wl_parse_size(items[i], dims, &given, &overflow);
        if (parsed != WARPLAB_OK && overflow)
            return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                                   "the size '%s' is out of range: a dimension past 2^64 - 1 "
                                   "(sizes run from 1 to what fits in the device's %.1f GB)",
                                   items[i],
                                   (double)context->device->info.global_memory_bytes / 1e9);
        if (parsed != WARPLAB_OK)
            return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                                   "cannot read the size '%s' (examples: 1048576, 2^20, 1M, "
                                   "4096x4096, 512x512x512)",
                                   items[i]);
        for (int d = 0; d < given; d++)
            if (dims[d] == 0)
                return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                                       "the size '%s' is out of range: every dimension is 1 or "
                                       "more (up to what fits in the device's memory)",
                                       items[i]);
        char error[256] = "";
        warplab_status status =
            ladder->make_problem(dims, given, options->dtype, options->op,
                                 &p->problems[p->problem_count], error, sizeof error);
        if (status != WARPLAB_OK)
            return wl_context_fail(context, status, "%s: %s", ladder->name, error);
        size_t bytes = 0;
        if (!wl_problem_bytes(ladder, &p->problems[p->problem_count], &bytes)) {
            char text[64];
            ladder->describe(&p->problems[p->problem_count], text, sizeof text);
            return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                                   "the size '%s' is out of range: %s %s needs more than 2^64 "
                                   "bytes (sizes run from 1 to what fits in the device's "
                                   "%.1f GB)",
                                   items[i], ladder->name, text,
                                   (double)context->device->info.global_memory_bytes / 1e9);
        }
        p->problem_count++;
    }
    if (options->rungs && *options->rungs) {
        count = split_list(options->rungs, items, MAX_LIST);
        if (count < 0)
            return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                                   "cannot read the rung list '%s'", options->rungs);
        for (int i = 0; i < count; i++) {
            const wl_rung *rung = wl_rung_find(ladder, items[i]);
            if (!rung && every_ladder)
                continue;
            if (!rung) {
                char known[512] = "";
                for (size_t r = 0; r < ladder->rung_count; r++)
                    wl_append(known, sizeof known, "%s%s", r ? ", " : "", ladder->rungs[r].id);
                return wl_context_fail(context, WARPLAB_ERROR_UNKNOWN_NAME,
                                       "the %s ladder has no rung '%s' (rungs: %s)", ladder->name,
                                       items[i], known);
            }
            p->rungs[p->rung_count++] = rung;
        }
        /* A sweep adds the ladder's vendor rows the list leaves out. */
        for (size_t r = 0; options->sweep && r < ladder->rung_count && p->rung_count < MAX_LIST;
             r++) {
            bool listed = false;
            for (int i = 0; i < p->rung_count; i++)
                listed |= p->rungs[i] == &ladder->rungs[r];
            if ((ladder->rungs[r].flags & WL_RUNG_VENDOR) && !listed)
                p->rungs[p->rung_count++] = &ladder->rungs[r];
        }
    } else {
        for (size_t r = 0; r < ladder->rung_count && r < MAX_LIST; r++)
            p->rungs[p->rung_count++] = &ladder->rungs[r];
    }
    for (int r = 0; r < p->rung_count; r++)
        p->impls[r] = wl_rung_impl(context->device, context->host, ladder, p->rungs[r]);
    return WARPLAB_OK;
}

/* Every ladder's plan for the options; on failure the detail is in the
 * context and *plans_out is NULL. */
static warplab_status make_plans(warplab_context *context, const warplab_bench_options *options,
                                 plan **plans_out, size_t *plan_count_out, size_t *total_out)
{
    *plans_out = NULL;
    if (options->repeat < 0 || options->warmup < 0 || options->max_seconds < 0)
        return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                               "repeat, warm-up and time budget must not be negative");
    if (options->sweep && !(options->ladder && *options->ladder))
        return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                               "a sweep runs one ladder: name it");
    plan *plans = calloc(wl_ladder_count(), sizeof *plans);
    if (!plans)
        return WARPLAB_ERROR_HOST_OUT_OF_MEMORY;
    size_t plan_count = 0, total = 0;
    warplab_status status = WARPLAB_OK;
    if (options->ladder && *options->ladder) {
        const wl_ladder *ladder = wl_ladder_find(options->ladder);
        if (!ladder) {
            char known[256] = "";
            for (size_t i = 0; i < wl_ladder_count(); i++)
                wl_append(known, sizeof known, "%s%s", i ? ", " : "", wl_ladder_at(i)->name);
            free(plans);
            return wl_context_fail(context, WARPLAB_ERROR_UNKNOWN_NAME,
                                   "no ladder named '%s' (ladders: %s)", options->ladder, known);
        }
        char reason[256] = "";
        if (ladder->available &&
            ladder->available(context->device, reason, sizeof reason) != WARPLAB_OK) {
            free(plans);
            return wl_context_fail(context, WARPLAB_ERROR_UNSUPPORTED, "the %s ladder: %s",
                                   ladder->name, reason);
        }
        status = make_plan(context, ladder, options, false, &plans[plan_count++]);
    } else {
        /* Every ladder, each with the listed rungs it has (none listed: all);
         * a ladder with none of them is left out, a rung no ladder has is
         * an unknown name. */
        for (size_t i = 0; i < wl_ladder_count() && status == WARPLAB_OK; i++) {
            /* A ladder that cannot run here (allreduce without 2 GPUs) is
             * left out, not shown as an empty section. */
            const wl_ladder *ladder = wl_ladder_at(i);
            char reason[256] = "";
            if (ladder->available &&
                ladder->available(context->device, reason, sizeof reason) != WARPLAB_OK)
                continue;
            status = make_plan(context, ladder, options, true, &plans[plan_count]);
            if (status == WARPLAB_OK && plans[plan_count].rung_count > 0)
                plan_count++;
        }
        char items[MAX_LIST][64];
        const int count = options->rungs && *options->rungs && status == WARPLAB_OK
                              ? split_list(options->rungs, items, MAX_LIST)
                              : 0;
        if (count < 0)
            status = wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                                     "cannot read the rung list '%s'", options->rungs);
        for (int r = 0; r < count && status == WARPLAB_OK; r++) {
            bool found = false;
            for (size_t i = 0; i < wl_ladder_count() && !found; i++)
                found = wl_rung_find(wl_ladder_at(i), items[r]) != NULL;
            if (!found)
                status = wl_context_fail(context, WARPLAB_ERROR_UNKNOWN_NAME,
                                         "no ladder has a rung '%s' (warplab ladders lists them)",
                                         items[r]);
        }
    }
    if (status != WARPLAB_OK) {
        free(plans);
        return status;
    }
    for (size_t i = 0; i < plan_count; i++)
        total += (size_t)plans[i].problem_count * (size_t)plans[i].rung_count;
    *plans_out = plans;
    *plan_count_out = plan_count;
    *total_out = total;
    return WARPLAB_OK;
}

static warplab_status warplab_bench_validate_checked(warplab_context *context,
                                                     const warplab_bench_options *options)
{
    if (!context || !options)
        return WARPLAB_ERROR_INVALID_ARGUMENT;
    plan *plans = NULL;
    size_t plan_count = 0, total = 0;
    warplab_status status = make_plans(context, options, &plans, &plan_count, &total);
    free(plans);
    return status;
}

warplab_status warplab_bench_validate(warplab_context *context,
                                      const warplab_bench_options *options)
{
    if (!context)
        return wl_api_no_context("warplab_bench_validate", "the context");
    wl_api_begin(context);
    return wl_api_end(context, "warplab_bench_validate",
                      warplab_bench_validate_checked(context, options));
}

static bool cancelled(const warplab_bench_options *options)
{
    return options->cancelled && options->cancelled(options->cancel_user);
}

void wl_report_begin(warplab_report *report, const warplab_context *context,
                     unsigned long long seed, int no_flush)
{
    const warplab_device_info *info = &context->device->info;
    wl_copy_string(report->device, sizeof report->device, info->name);
    wl_copy_string(report->backend, sizeof report->backend, context->device->ops->name);
    wl_format_utc_now(report->date, sizeof report->date);
    report->seed = seed ? seed : wl_clock_seed();
    report->l2_flushed = !no_flush && context->device->ops->flush_caches != NULL;
    report->ceiling_gbs = info->theoretical_bandwidth_gbs;
    wl_copy_string(report->ceiling_source, sizeof report->ceiling_source,
                   report->ceiling_gbs > 0 ? "theoretical: bus width x data rate / 8" : "");
}

/* Fills the speedups and percentages of one problem's rows. */
static void finalize_group(warplab_report *report, const wl_rung *const *rungs, size_t group)
{
    double ceiling = report->ceiling_gbs;
    if (ceiling <= 0)
        for (size_t i = group; i < report->row_count; i++)
            if ((report->rows[i].flags & WARPLAB_ROW_REFERENCE) &&
                !(report->rows[i].flags &
                  (WARPLAB_ROW_HOST | WARPLAB_ROW_SKIPPED | WARPLAB_ROW_FAILED)) &&
                report->rows[i].gbs > ceiling)
                ceiling = report->rows[i].gbs;
    wl_rows_finalize(&report->rows[group], rungs, report->row_count - group, ceiling);
    for (size_t i = group; i < report->row_count && report->fp32_peak_gflops > 0; i++)
        report->rows[i].pct_of_fp32_peak =
            100.0 * report->rows[i].gflops / report->fp32_peak_gflops;
}

static warplab_status warplab_bench_checked(warplab_context *context,
                                            const warplab_bench_options *options,
                                            warplab_report **report_out)
{
    if (!options || !report_out)
        return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                               "options and report (the result) are needed");
    *report_out = NULL;
    plan *plans = NULL;
    size_t plan_count = 0, total = 0;
    warplab_status status = make_plans(context, options, &plans, &plan_count, &total);
    if (status != WARPLAB_OK)
        return status;

    warplab_report *report = NULL;
    if (status == WARPLAB_OK) {
        report = calloc(1, sizeof *report);
        if (report)
            report->rows = calloc(total ? total : 1, sizeof *report->rows);
        if (!report || !report->rows) {
            warplab_report_destroy(report);
            report = NULL;
            status = WARPLAB_ERROR_HOST_OUT_OF_MEMORY;
        }
    }
    if (status != WARPLAB_OK) {
        free(plans);
        return status;
    }

    wl_report_begin(report, context, options->seed, options->no_flush);
    report->fp32_peak_gflops = context->device->info.fp32_peak_gflops;
    if (report->ceiling_gbs <= 0)
        wl_copy_string(report->ceiling_source, sizeof report->ceiling_source,
                       "measured copy in the same run");

    wl_run_config config = {
        .repeat = options->repeat,
        .warmup = options->warmup,
        .max_seconds = options->max_seconds,
        .flush = !options->no_flush,
        .verify = true,
        .time = true,
    };
    config.cancelled = options->cancelled;
    config.cancel_user = options->cancel_user;
    size_t done = 0;
    for (size_t l = 0; l < plan_count && !report->incomplete; l++) {
        const plan *p = &plans[l];
        for (int s = 0; s < p->problem_count && !report->incomplete; s++) {
            size_t group = report->row_count;
            for (int r = 0; r < p->rung_count; r++) {
                if (cancelled(options)) {
                    report->incomplete = 1;
                    break;
                }
                warplab_row *row = &report->rows[report->row_count++];
                char problem_text[64];
                p->ladder->describe(&p->problems[s], problem_text, sizeof problem_text);
                if (options->progress)
                    options->progress(options->progress_user, p->ladder->name, p->rungs[r]->id,
                                      problem_text, done, total);
                config.seed = report->seed + 0x632BE59BD9B4E019ull * (uint64_t)(done + 1);
                wl_run_rung(context->device, context->host, p->ladder, p->rungs[r], p->impls[r],
                            &p->problems[s], &config, row);
                done++;
            }
            finalize_group(report, p->rungs, group);
        }
    }
    /* A rung cut short by the cancellation still counts as incomplete. */
    if (cancelled(options))
        report->incomplete = 1;
    if (options->progress)
        options->progress(options->progress_user, NULL, NULL, NULL, done, total);
    free(plans);
    *report_out = report;
    return WARPLAB_OK;
}

warplab_status warplab_bench(warplab_context *context, const warplab_bench_options *options,
                             warplab_report **report_out)
{
    if (!context)
        return wl_api_no_context("warplab_bench", "the context");
    wl_api_begin(context);
    return wl_api_end(context, "warplab_bench",
                      warplab_bench_checked(context, options, report_out));
}
