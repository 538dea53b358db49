/* warplab_bench: ladders x sizes x rungs through the harness, into a report. */
#include "core/context.h"
#include "lab/harness.h"

#include "warplab_lab.h"
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
/* warplab_parse_size: wl_parse_size (src/core/names.c) with the message a
 * caller reads. */
static warplab_status warplab_parse_size_checked(const char *text, size_t sizes[3], int *dims)
{
    if (!text || !sizes || !dims)
        return wl_detached_fail(WARPLAB_ERROR_INVALID_ARGUMENT, "text, sizes and dims are needed");
    bool overflow = false;
    if (wl_parse_size(text, sizes, dims, &overflow) == WARPLAB_OK)
        return WARPLAB_OK;
    if (overflow)
        return wl_detached_fail(WARPLAB_ERROR_INVALID_ARGUMENT,
                                "'%s' is out of range: a dimension past 2^64 - 1", text);
    return wl_detached_fail(WARPLAB_ERROR_INVALID_ARGUMENT,
                            "cannot read '%s' (examples: 1048576, 2^20, 1M, 4096x4096, "
                            "512x512x512)",
                            text);
}

warplab_status warplab_parse_size(const char *text, size_t sizes[3], int *dims)
{
    wl_api_begin(NULL);
    return wl_api_end(NULL, "warplab_parse_size", warplab_parse_size_checked(text, sizes, dims));
}

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

/* Items in a comma-separated list (as split_list counts them, empty ones
 * included). */
static int list_items(const char *text)
{
    int count = text && *text ? 1 : 0;
    for (const char *c = text; c && *c; c++)
        count += *c == ',';
    return count;
}

/* The most sizes one bench call takes (the rungs are as many as the ladder
 * lists: each plan allocates its own). */
#define MAX_SIZES WL_BENCH_MAX_SIZES
/* A sweep's sizes: 2^SWEEP_FIRST, 2^(SWEEP_FIRST + 2), ..., 2^SWEEP_LAST. */
#define SWEEP_FIRST 10
#define SWEEP_LAST 30

typedef struct ladder_plan {
    const wl_ladder *ladder;
    wl_problem problems[MAX_SIZES];
    int problem_count;
    const wl_rung **rungs; /* every rung the plan runs: rung_capacity slots */
    const wl_impl **impls; /* rungs[i]'s impl (wl_rung_impl), or NULL */
    int rung_count, rung_capacity;
} ladder_plan;

static void free_plan_rungs(ladder_plan *p)
{
    free(p->rungs);
    free(p->impls);
    p->rungs = NULL;
    p->impls = NULL;
    p->rung_count = p->rung_capacity = 0;
}

static void free_plans(ladder_plan *plans, size_t count)
{
    for (size_t i = 0; plans && i < count; i++)
        free_plan_rungs(&plans[i]);
    free(plans);
}

/* Room for n rungs in p. */
static bool reserve_rungs(ladder_plan *p, size_t n)
{
    p->rungs = calloc(n ? n : 1, sizeof *p->rungs);
    p->impls = calloc(n ? n : 1, sizeof *p->impls);
    p->rung_capacity = (int)n;
    return p->rungs && p->impls;
}

static bool device_is_gpu_class(const warplab_device_info *info)
{
    return info->gpu != 0;
}

/* every_ladder: the run names no ladder, so a listed rung the ladder lacks
 * is another ladder's (make_plans checks that one has it). */
static warplab_status make_plan(warplab_context *context, const wl_ladder *ladder,
                                const warplab_bench_options *options, bool every_ladder,
                                ladder_plan *p)
{
    memset(p, 0, sizeof *p);
    p->ladder = ladder;
    /* A sweep's sizes (launch latency at the small end, bandwidth at the
     * top), else the list given, else the ladder's defaults. */
    const char *sizes = options->sizes;
    if ((!sizes || !*sizes) && !options->sweep)
        sizes = device_is_gpu_class(&context->device->info) ? ladder->default_sizes_gpu
                                                            : ladder->default_sizes_cpu;
    char items[MAX_SIZES][64];
    int count = 0;
    if (options->sweep) {
        if (sizes && *sizes)
            return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                                   "a sweep chooses its sizes (2^10 to 2^30): leave the sizes "
                                   "out");
        for (int exponent = SWEEP_FIRST; exponent <= SWEEP_LAST; exponent += 2)
            wl_format(items[count++], sizeof items[0], "2^%d", exponent); /* for messages */
    } else {
        count = split_list(sizes, items, MAX_SIZES);
        if (count <= 0)
            return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                                   "cannot read the sizes '%s': 1 to %d sizes, comma-separated, "
                                   "none empty (examples: 2^20, 1M, 4096x4096)",
                                   sizes, MAX_SIZES);
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
        /* As many rungs as listed, and the vendor rows a sweep adds. */
        const int list_count = list_items(options->rungs);
        char(*names)[64] = calloc((size_t)list_count, sizeof *names);
        if (!names || !reserve_rungs(p, (size_t)list_count + ladder->rung_count)) {
            free(names);
            free_plan_rungs(p);
            return wl_context_fail(context, WARPLAB_ERROR_HOST_OUT_OF_MEMORY, "bench plan");
        }
        count = split_list(options->rungs, names, list_count);
        if (count < 0) {
            free(names);
            free_plan_rungs(p);
            return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                                   "cannot read the rung list '%s' (comma-separated, none empty)",
                                   options->rungs);
        }
        for (int i = 0; i < count; i++) {
            const wl_rung *rung = wl_rung_find(ladder, names[i]);
            if (!rung && every_ladder)
                continue;
            if (!rung) {
                char known[512] = "";
                for (size_t r = 0; r < ladder->rung_count; r++)
                    wl_append(known, sizeof known, "%s%s", r ? ", " : "", ladder->rungs[r].id);
                const warplab_status failed = wl_context_fail(
                    context, WARPLAB_ERROR_UNKNOWN_NAME,
                    "the %s ladder has no rung '%s' (rungs: %s)", ladder->name, names[i], known);
                free(names);
                free_plan_rungs(p);
                return failed;
            }
            p->rungs[p->rung_count++] = rung;
        }
        free(names);
        /* A sweep adds the ladder's vendor rows the list leaves out. */
        for (size_t r = 0; options->sweep && r < ladder->rung_count; r++) {
            bool listed = false;
            for (int i = 0; i < p->rung_count; i++)
                listed |= p->rungs[i] == &ladder->rungs[r];
            if ((ladder->rungs[r].flags & WL_RUNG_VENDOR) && !listed)
                p->rungs[p->rung_count++] = &ladder->rungs[r];
        }
    } else {
        if (!reserve_rungs(p, ladder->rung_count)) {
            free_plan_rungs(p);
            return wl_context_fail(context, WARPLAB_ERROR_HOST_OUT_OF_MEMORY, "bench plan");
        }
        for (size_t r = 0; r < ladder->rung_count; r++)
            p->rungs[p->rung_count++] = &ladder->rungs[r];
    }
    for (int r = 0; r < p->rung_count; r++)
        p->impls[r] = wl_rung_impl(context->device, context->host, ladder, p->rungs[r]);
    return WARPLAB_OK;
}

/* Every ladder's plan for the options; on failure the detail is in the
 * context and *plans_out is NULL. */
static warplab_status make_plans(warplab_context *context, const warplab_bench_options *options,
                                 ladder_plan **plans_out, size_t *plan_count_out, size_t *total_out)
{
    *plans_out = NULL;
    if (options->repeat < 0 || options->warmup < 0 || options->max_seconds < 0)
        return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                               "repeat, warm-up and time budget must not be negative");
    if (options->sweep && !(options->ladder && *options->ladder))
        return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                               "a sweep runs one ladder: name it");
    ladder_plan *plans = calloc(wl_ladder_count(), sizeof *plans);
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
            free_plans(plans, wl_ladder_count());
            return wl_context_fail(context, WARPLAB_ERROR_UNKNOWN_NAME,
                                   "no ladder named '%s' (ladders: %s)", options->ladder, known);
        }
        char reason[256] = "";
        if (ladder->available &&
            ladder->available(context->device, reason, sizeof reason) != WARPLAB_OK) {
            free_plans(plans, wl_ladder_count());
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
            else
                free_plan_rungs(&plans[plan_count]); /* reused by the next ladder */
        }
        const int listed = options->rungs && *options->rungs ? list_items(options->rungs) : 0;
        char(*names)[64] = listed ? calloc((size_t)listed, sizeof *names) : NULL;
        if (listed && !names && status == WARPLAB_OK)
            status = wl_context_fail(context, WARPLAB_ERROR_HOST_OUT_OF_MEMORY, "bench plan");
        const int count =
            names && status == WARPLAB_OK ? split_list(options->rungs, names, listed) : 0;
        if (count < 0)
            status = wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                                     "cannot read the rung list '%s'", options->rungs);
        for (int r = 0; r < count && status == WARPLAB_OK; r++) {
            bool found = false;
            for (size_t i = 0; i < wl_ladder_count() && !found; i++)
                found = wl_rung_find(wl_ladder_at(i), names[r]) != NULL;
            if (!found)
                status = wl_context_fail(context, WARPLAB_ERROR_UNKNOWN_NAME,
                                         "no ladder has a rung '%s' (warplab ladders lists them)",
                                         names[r]);
        }
        free(names);
    }
    if (status != WARPLAB_OK) {
        free_plans(plans, wl_ladder_count());
        return status;
    }
    for (size_t i = 0; i < plan_count; i++)
        total += (size_t)plans[i].problem_count * (size_t)plans[i].rung_count;
    *plans_out = plans;
    *plan_count_out = plan_count;
    *total_out = total;
    return WARPLAB_OK;
}

struct warplab_bench_plan {
    warplab_context *context;
    warplab_bench_options options; /* its strings are not kept: the plan holds what they said */
    ladder_plan *plans;
    size_t plan_count, total;
};

static warplab_status plan_create_checked(warplab_context *context,
                                          const warplab_bench_options *options,
                                          warplab_bench_plan **plan_out)
{
    if (!options)
        return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT, "options are needed");
    warplab_bench_plan *bench_plan = calloc(1, sizeof *bench_plan);
    if (!bench_plan)
        return wl_context_fail(context, WARPLAB_ERROR_HOST_OUT_OF_MEMORY, "bench plan");
    warplab_status status = make_plans(context, options, &bench_plan->plans,
                                       &bench_plan->plan_count, &bench_plan->total);
    if (status != WARPLAB_OK) {
        free(bench_plan);
        return status;
    }
    bench_plan->context = context;
    bench_plan->options = *options;
    bench_plan->options.ladder = bench_plan->options.sizes = bench_plan->options.rungs = NULL;
    bench_plan->options.dtype = bench_plan->options.op = NULL;
    *plan_out = bench_plan;
    return WARPLAB_OK;
}

warplab_status warplab_bench_plan_create(warplab_context *context,
                                         const warplab_bench_options *options,
                                         warplab_bench_plan **plan_out)
{
    if (plan_out)
        *plan_out = NULL;
    if (!context)
        return wl_api_no_context("warplab_bench_plan_create", "the context");
    wl_api_begin(context);
    if (!plan_out)
        return wl_api_end(
            context, "warplab_bench_plan_create",
            wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT, "plan (the result) is NULL"));
    return wl_api_end(context, "warplab_bench_plan_create",
                      plan_create_checked(context, options, plan_out));
}

size_t warplab_bench_plan_rows(const warplab_bench_plan *plan)
{
    return plan ? plan->total : 0;
}

void warplab_bench_plan_destroy(warplab_bench_plan *plan)
{
    if (!plan)
        return;
    free_plans(plan->plans, plan->plan_count);
    free(plan);
}

warplab_status warplab_bench_validate(warplab_context *context,
                                      const warplab_bench_options *options)
{
    if (!context)
        return wl_api_no_context("warplab_bench_validate", "the context");
    wl_api_begin(context);
    warplab_bench_plan *plan = NULL;
    const warplab_status status = plan_create_checked(context, options, &plan);
    warplab_bench_plan_destroy(plan);
    return wl_api_end(context, "warplab_bench_validate", status);
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

static warplab_status plan_run_checked(const warplab_bench_plan *bench_plan,
                                       warplab_report **report_out)
{
    warplab_context *context = bench_plan->context;
    const warplab_bench_options *options = &bench_plan->options;
    const ladder_plan *plans = bench_plan->plans;
    const size_t plan_count = bench_plan->plan_count, total = bench_plan->total;
    warplab_status status = WARPLAB_OK;

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
    if (status != WARPLAB_OK)
        return wl_context_fail(context, status, "bench report");

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
        const ladder_plan *p = &plans[l];
        for (int s = 0; s < p->problem_count && !report->incomplete; s++) {
            size_t group = report->row_count;
            for (int r = 0; r < p->rung_count; r++) {
                /* This rung's row at the problem before (a smaller size, in
                 * the usual order): a host row's time predicts the next. */
                const warplab_row *before =
                    s > 0 ? &report->rows[group - (size_t)p->rung_count + (size_t)r] : NULL;
                config.host_previous = NULL;
                config.host_previous_seconds = 0.0;
                if (before && before->status == WARPLAB_OK &&
                    !(before->flags & (WARPLAB_ROW_SKIPPED | WARPLAB_ROW_FAILED)) &&
                    before->median_ms > 0.0) {
                    config.host_previous = &p->problems[s - 1];
                    config.host_previous_seconds = 1e-3 * before->median_ms;
                }
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
                const double begin = wl_now_seconds();
                wl_run_rung(context->device, context->host, p->ladder, p->rungs[r], p->impls[r],
                            &p->problems[s], &config, row);
                row->wall_s = wl_now_seconds() - begin;
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
    *report_out = report;
    return WARPLAB_OK;
}

warplab_status warplab_bench_plan_run(const warplab_bench_plan *plan, warplab_report **report_out)
{
    if (report_out)
        *report_out = NULL;
    if (!plan)
        return wl_api_no_context("warplab_bench_plan_run", "the plan");
    wl_api_begin(plan->context);
    if (!report_out)
        return wl_api_end(plan->context, "warplab_bench_plan_run",
                          wl_context_fail(plan->context, WARPLAB_ERROR_INVALID_ARGUMENT,
                                          "report (the result) is NULL"));
    return wl_api_end(plan->context, "warplab_bench_plan_run", plan_run_checked(plan, report_out));
}

warplab_status warplab_bench(warplab_context *context, const warplab_bench_options *options,
                             warplab_report **report_out)
{
    if (report_out)
        *report_out = NULL;
    if (!context)
        return wl_api_no_context("warplab_bench", "the context");
    wl_api_begin(context);
    if (!report_out)
        return wl_api_end(context, "warplab_bench",
                          wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                                          "options and report (the result) are needed"));
    warplab_bench_plan *plan = NULL;
    warplab_status status = plan_create_checked(context, options, &plan);
    if (status == WARPLAB_OK)
        status = plan_run_checked(plan, report_out);
    warplab_bench_plan_destroy(plan);
    return wl_api_end(context, "warplab_bench", status);
}
