/* Every probe kernel on one backend, on the small problems each probe
 * section declares (odd sizes, edge parameters): checked against the CPU
 * reference through the harness (fresh random inputs, poisoned outputs,
 * guard zones), then timed once; then each probe end to end at a tiny size,
 * through the runner, the conclusion and every writer.
 *
 *   test_probes --backend cuda|opencl|cpu [--probe NAME] [--no-timing]
 *               [--no-run]
 *
 * --no-timing checks only (for compute-sanitizer runs); --no-run leaves out
 * the end-to-end runs. Exits 77 (CTest's skip) when the backend is not
 * compiled in, has no device, or has no probe form. A series may be skipped
 * only for its own limits or a device too small; a wrong result fails. */
#include "../src/core/context.h"
#include "../src/lab/harness.h"
#include "../src/lab/probes/probe.h"
#include "check.h"

#include "warplab_lab.h"
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_PROBLEMS 64

typedef struct options {
    const char *probe;
    bool timing;
    bool run;
} options;

/* Checks every series of a section that has a form here on every test
 * problem (a host series, the CPU beside the GPU, on the host backend);
 * with host_only, the host series alone. Returns how many series ran at
 * least once. */
static int check_section(warplab_context *context, const wl_probe *probe,
                         const wl_probe_section *section, const options *o, uint64_t seed,
                         bool host_only)
{
    const wl_ladder *ladder = section->ladder;
    wl_problem problems[MAX_PROBLEMS];
    const int count =
        ladder->test_problems(warplab_context_device(context), problems, MAX_PROBLEMS);
    CHECK_MSG(count > 0, "%s/%s declares no test problems", probe->name, section->name);
    int series_run = 0;
    for (size_t r = 0; r < ladder->rung_count; r++) {
        const wl_rung *rung = &ladder->rungs[r];
        if (host_only && !(rung->flags & WL_RUNG_HOST))
            continue;
        const wl_impl *impl = wl_rung_impl(context->device, context->host, ladder, rung);
        if (!impl) {
            printf("  %-10s %-14s no form here\n", probe->name, rung->id);
            continue;
        }
        int ran = 0, skipped = 0, timed_at = -1;
        char last_skip[256] = "";
        for (int p = 0; p < count; p++) {
            wl_run_config check_only = {.verify = true,
                                        .time = false,
                                        .seed = seed + 7919u * (uint64_t)(r * MAX_PROBLEMS + p)};
            warplab_row row;
            warplab_status status = wl_run_rung(context->device, context->host, ladder, rung, impl,
                                                &problems[p], &check_only, &row);
            if (status == WARPLAB_OK) {
                ran++;
                if (timed_at < 0)
                    timed_at = p;
                continue;
            }
            if ((row.flags & WARPLAB_ROW_SKIPPED) &&
                (status == WARPLAB_ERROR_UNSUPPORTED ||
                 status == WARPLAB_ERROR_DEVICE_OUT_OF_MEMORY)) {
                skipped++;
                wl_copy_string(last_skip, sizeof last_skip, row.note);
                continue;
            }
            CHECK_MSG(status == WARPLAB_OK, "%s/%s on %s, %s: %s (%s)", probe->name, rung->id,
                      row.backend, row.problem, row.note, warplab_status_string(status));
        }
        CHECK_MSG(ran > 0, "%s/%s ran on none of its test problems (%s)", probe->name, rung->id,
                  last_skip);
        printf("  %-10s %-14s %3d checked, %3d skipped%s%s\n", probe->name, rung->id, ran, skipped,
               skipped ? ": " : "", skipped ? last_skip : "");
        series_run += ran > 0;
        if (!o->timing || timed_at < 0)
            continue;
        wl_run_config timed = {.repeat = 3,
                               .warmup = 1,
                               .max_seconds = 0.5,
                               .flush = true,
                               .verify = true,
                               .time = true,
                               .seed = seed};
        warplab_row row;
        warplab_status status = wl_run_rung(context->device, context->host, ladder, rung, impl,
                                            &problems[timed_at], &timed, &row);
        CHECK_MSG(status == WARPLAB_OK && row.runs >= 3 && row.median_ms > 0 &&
                      row.median_ms <= row.max_ms,
                  "%s/%s timing: %s, runs %d median %g", probe->name, rung->id,
                  warplab_status_string(status), row.runs, row.median_ms);
    }
    return series_run;
}

/* Cancels the run at the third question. */
static int cancel_at_third(void *user)
{
    int *asked = user;
    return ++*asked >= 3;
}

/* A cancelled probe keeps the rows that ran, says it is incomplete, draws no
 * conclusion; options meant for a ladder are refused. */
static void check_cancel_and_refusals(warplab_context *context, const wl_probe *probe,
                                      warplab_probe_options given)
{
    warplab_probe_options run = given;
    int asked = 0;
    run.cancelled = cancel_at_third;
    run.cancel_user = &asked;
    warplab_probe_result *result = NULL;
    warplab_status status = warplab_probe_run(context, probe->name, &run, &result);
    CHECK_MSG(status == WARPLAB_OK, "%s: cancelled run: %s", probe->name,
              warplab_status_string(status));
    if (status == WARPLAB_OK) {
        CHECK_MSG(result->report->incomplete && result->report->row_count < 3 &&
                      strstr(result->conclusion, "interrupted") != NULL,
                  "%s: cancelled run: incomplete %d, %zu rows, conclusion '%s'", probe->name,
                  result->report->incomplete, result->report->row_count, result->conclusion);
        warplab_probe_result_destroy(result);
    }
    run.cancelled = NULL;
    warplab_probe_options bad = run;
    bad.rungs = "copy";
    CHECK(warplab_probe_run(context, probe->name, &bad, &result) ==
              WARPLAB_ERROR_INVALID_ARGUMENT &&
          result == NULL);
    bad = run;
    bad.sizes = "64x64";
    CHECK(warplab_probe_run(context, probe->name, &bad, &result) ==
              WARPLAB_ERROR_INVALID_ARGUMENT &&
          strstr(warplab_last_error(context), "one size") != NULL);
}

/* The probe through the runner at a tiny size, and through every writer. */
static void run_end_to_end(warplab_context *context, const wl_probe *probe, uint64_t seed)
{
    warplab_probe_options tiny = {
        .sizes = "64K", .repeat = 2, .warmup = 1, .max_seconds = 0.05, .seed = seed};
    if (strcmp(probe->name, "transfers") == 0)
        tiny.sizes = "1M"; /* bytes of the largest copy */
    check_cancel_and_refusals(context, probe, tiny);
    warplab_probe_result *result = NULL;
    warplab_status status = warplab_probe_run(context, probe->name, &tiny, &result);
    CHECK_MSG(status == WARPLAB_OK, "%s: warplab_probe_run: %s (%s)", probe->name,
              warplab_status_string(status), warplab_last_error(context));
    if (status != WARPLAB_OK)
        return;
    size_t measured = 0;
    for (size_t i = 0; i < result->report->row_count; i++) {
        const warplab_row *row = &result->report->rows[i];
        CHECK_MSG(!(row->flags & WARPLAB_ROW_FAILED), "%s/%s (%s) failed: %s", probe->name,
                  row->rung, row->problem, row->note);
        CHECK_MSG(result->points[i].x == row->size, "%s: point %zu x", probe->name, i);
        measured += result->points[i].value > 0;
    }
    CHECK_MSG(measured > 0, "%s: nothing measured", probe->name);
    CHECK_MSG(result->conclusion[0] != '\0', "%s: no conclusion", probe->name);
    CHECK_MSG(strstr(result->conclusion, "x") != NULL, "%s: conclusion without a ratio: %s",
              probe->name, result->conclusion);
    FILE *sink = tmpfile();
    CHECK(sink != NULL);
    if (sink) {
        const warplab_probe_result *one[1] = {result};
        for (int f = WARPLAB_FORMAT_TABLE; f <= WARPLAB_FORMAT_JSON; f++)
            CHECK_MSG(warplab_probe_write(one, 1, (warplab_format)f, sink) == WARPLAB_OK,
                      "%s: writer %d", probe->name, f);
        CHECK(warplab_probe_write_svg(result, sink) == WARPLAB_OK);
        CHECK(ftell(sink) > 1000);
        fclose(sink);
    }
    printf("  %-10s end to end: %zu points, %zu measured; %s\n", probe->name,
           result->report->row_count, measured, result->conclusion);
    warplab_probe_result_destroy(result);
}

int main(int argc, char **argv)
{
    const char *backend = NULL;
    options o = {.timing = true, .run = true};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--no-timing"))
            o.timing = false;
        else if (!strcmp(argv[i], "--no-run"))
            o.run = false;
        else if (i + 1 < argc && !strcmp(argv[i], "--backend"))
            backend = argv[++i];
        else if (i + 1 < argc && !strcmp(argv[i], "--probe"))
            o.probe = argv[++i];
        else {
            fprintf(stderr, "test_probes: unknown argument '%s'\n", argv[i]);
            return 2;
        }
    }
    warplab_backend_kind kind;
    if (!backend || warplab_backend_parse(backend, &kind) != WARPLAB_OK ||
        kind == WARPLAB_BACKEND_AUTO) {
        fprintf(stderr, "usage: test_probes --backend cuda|opencl|cpu [--probe NAME] "
                        "[--no-timing] [--no-run]\n");
        return 2;
    }
    if (o.probe && !wl_probe_find(o.probe)) {
        fprintf(stderr, "test_probes: no probe named %s\n", o.probe);
        return 2;
    }
    if (!warplab_backend_compiled(kind)) {
        printf("SKIP: the %s backend is not compiled into this build\n", backend);
        return TEST_SKIP;
    }
    /* The probes are the GPU's experiments; the cpu backend has only the host
     * series that run beside a GPU's (the transfers probe's CPU side). */
    size_t with_form = 0, host_series = 0;
    for (size_t i = 0; i < wl_probe_count(); i++) {
        const wl_probe *probe = wl_probe_at(i);
        if (o.probe && strcmp(o.probe, probe->name) != 0)
            continue;
        with_form += warplab_probe_supported(probe->name, kind, NULL, 0) == WARPLAB_OK;
        for (size_t s = 0; s < probe->section_count; s++)
            for (size_t r = 0; r < probe->sections[s].ladder->rung_count; r++)
                host_series += (probe->sections[s].ladder->rungs[r].flags & WL_RUNG_HOST) != 0;
    }
    const bool host_only = !with_form && kind == WARPLAB_BACKEND_CPU && host_series > 0;
    if (!with_form && !host_only) {
        printf("SKIP: no probe%s has a %s form\n", o.probe ? " of those asked" : "", backend);
        return TEST_SKIP;
    }
    warplab_context *context = NULL;
    warplab_status status = warplab_context_create(kind, 0, &context);
    if (status == WARPLAB_ERROR_NO_DEVICE) {
        printf("SKIP: the %s backend found no device (%s)\n", backend, warplab_last_error(NULL));
        return TEST_SKIP;
    }
    if (status != WARPLAB_OK) {
        fprintf(stderr, "cannot open %s: %s\n", backend, warplab_last_error(NULL));
        return 1;
    }
    printf("%s backend: %s\n", backend, warplab_context_device(context)->name);
    uint64_t seed = (uint64_t)time(NULL);
    printf("seed %llu\n", (unsigned long long)seed);
    for (size_t i = 0; i < wl_probe_count(); i++) {
        const wl_probe *probe = wl_probe_at(i);
        if (o.probe && strcmp(o.probe, probe->name) != 0)
            continue;
        char reason[256] = "";
        if (host_only) {
            for (size_t s = 0; s < probe->section_count; s++)
                check_section(context, probe, &probe->sections[s], &o, seed, true);
            continue;
        }
        if (warplab_probe_supported(probe->name, kind, reason, sizeof reason) != WARPLAB_OK) {
            printf("  %-10s skipped: %s\n", probe->name, reason);
            continue;
        }
        int series = 0;
        for (size_t s = 0; s < probe->section_count; s++)
            series += check_section(context, probe, &probe->sections[s], &o, seed, false);
        CHECK_MSG(series > 0, "%s: no series ran on %s", probe->name, backend);
        if (o.run)
            run_end_to_end(context, probe, seed);
    }
    warplab_context_destroy(context);
    return check_report("test_probes");
}
