/* Every rung of a ladder, on one backend, on every test problem the ladder
 * declares (odd sizes, each type and operation, misaligned views): checked
 * against the CPU reference with fresh random inputs and poisoned outputs,
 * then timed once on a small problem so the timers run too.
 *
 *   test_ladders --backend cuda|opencl|cpu [--ladder NAME] [--rung ID]
 *                [--skip-unsafe] [--max-size N] [--no-timing]
 *   test_ladders --backend B --list
 *
 * --list prints "LADDER RUNG" for every rung the backend has a form of (host
 * rungs: the cpu backend's), from the impl tables compiled in, without a
 * device: tests/rung_tests.cmake makes one CTest per line (cuda.reduce.naive).
 * --skip-unsafe leaves out rungs known to race (for compute-sanitizer runs),
 * --max-size leaves out problems whose leading size is above N (sanitizers
 * are slow), --no-timing checks only.
 *
 * Exits 77 (CTest's skip) when the backend is not compiled in or has no
 * device, and says so. A rung may be skipped only for its own limits or for
 * having no form on the backend; a wrong result fails, unless the rung's
 * wrongness is its lesson. */
#include "../src/core/context.h"
#include "../src/lab/harness.h"
#include "check.h"

#include "warplab_lab.h"
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_PROBLEMS 512

typedef struct filters {
    const char *rung;
    bool skip_unsafe;
    double max_size;
    bool timing;
} filters;

static bool rung_selected(const filters *f, const wl_rung *rung)
{
    if (f->rung && strcmp(f->rung, rung->id) != 0)
        return false;
    return !(f->skip_unsafe && (rung->flags & WL_RUNG_UNSAFE));
}

static int run_ladder(warplab_context *context, const wl_ladder *ladder, const filters *f,
                      uint64_t seed, int *rungs_run)
{
    wl_problem *problems = calloc(MAX_PROBLEMS, sizeof *problems);
    if (!problems)
        return 1;
    int all = ladder->test_problems
                  ? ladder->test_problems(warplab_context_device(context), problems, MAX_PROBLEMS)
                  : 0;
    CHECK_MSG(all > 0, "ladder %s declares no test problems", ladder->name);
    int count = 0;
    for (int p = 0; p < all; p++)
        if (f->max_size <= 0 || ladder->leading_size(&problems[p]) <= f->max_size)
            problems[count++] = problems[p];
    wl_run_config check_only = {.verify = true, .time = false};
    for (size_t r = 0; r < ladder->rung_count; r++) {
        const wl_rung *rung = &ladder->rungs[r];
        if (!rung_selected(f, rung))
            continue;
        const wl_impl *impl = wl_rung_impl(context->device, context->host, ladder, rung);
        int ran = 0, skipped = 0, lesson_wrong = 0;
        char last_skip[256] = "";
        for (int p = 0; p < count; p++) {
            warplab_row row;
            check_only.seed = seed + 7919u * (uint64_t)(r * MAX_PROBLEMS + (size_t)p);
            warplab_status status = wl_run_rung(context->device, context->host, ladder, rung, impl,
                                                &problems[p], &check_only, &row);
            if (status == WARPLAB_OK) {
                ran++;
                continue;
            }
            /* Skips are allowed for a rung's own limits and for a device too
             * small for the problem (PoCL caps its memory), never for errors. */
            if ((row.flags & WARPLAB_ROW_SKIPPED) &&
                (status == WARPLAB_ERROR_UNSUPPORTED ||
                 status == WARPLAB_ERROR_DEVICE_OUT_OF_MEMORY)) {
                skipped++;
                wl_copy_string(last_skip, sizeof last_skip, row.note);
                continue;
            }
            if (row.flags & WARPLAB_ROW_EXPECTED_WRONG) {
                lesson_wrong++;
                continue;
            }
            CHECK_MSG(status == WARPLAB_OK, "%s/%s on %s, %s: %s (%s)", ladder->name, rung->id,
                      row.backend, row.problem, row.note, warplab_status_string(status));
        }
        printf("  %-10s %-20s %3d checked, %3d skipped%s%s", ladder->name, rung->id, ran, skipped,
               skipped ? ": " : "", skipped ? last_skip : "");
        if (lesson_wrong)
            printf(" (%d wrong, as its lesson predicts)", lesson_wrong);
        printf("\n");
        *rungs_run += ran > 0;
    }

    /* The timing path once per rung, on the smallest non-empty problem. */
    wl_run_config timed = {.repeat = 3,
                           .warmup = 1,
                           .max_seconds = 0.5,
                           .flush = true,
                           .verify = true,
                           .time = true,
                           .seed = seed};
    for (int p = 0; p < count && f->timing; p++) {
        if (problems[p].dim[0] == 0 || problems[p].misalign)
            continue;
        for (size_t r = 0; r < ladder->rung_count; r++) {
            if (!rung_selected(f, &ladder->rungs[r]))
                continue;
            warplab_row row;
            const wl_rung *rung = &ladder->rungs[r];
            warplab_status status =
                wl_run_rung(context->device, context->host, ladder, rung,
                            wl_rung_impl(context->device, context->host, ladder, rung),
                            &problems[p], &timed, &row);
            if (status == WARPLAB_OK)
                CHECK_MSG(row.runs >= 3 && row.median_ms >= 0.0 && row.median_ms <= row.max_ms,
                          "%s/%s timing: runs %d median %g", ladder->name, row.rung, row.runs,
                          row.median_ms);
        }
        break;
    }
    free(problems);
    return 0;
}

/* --list: the rungs the backend's compiled impl tables have, one a line. */
static int list_rungs(warplab_backend_kind kind, const char *only)
{
    const wl_backend_ops *ops = wl_backend_ops_for(kind);
    const wl_backend_ops *host = wl_backend_ops_for(WARPLAB_BACKEND_CPU);
    for (size_t l = 0; ops && l < wl_ladder_count(); l++) {
        const wl_ladder *ladder = wl_ladder_at(l);
        if (only && strcmp(only, ladder->name) != 0)
            continue;
        for (size_t r = 0; r < ladder->rung_count; r++) {
            const wl_rung *rung = &ladder->rungs[r];
            const wl_backend_ops *runs_on = (rung->flags & WL_RUNG_HOST) ? host : ops;
            /* A library call has a form where one of its candidates has. */
            if (runs_on && (rung->op ? wl_op_first_impl(runs_on, rung->op) != NULL
                                     : wl_ops_find_impl(runs_on, ladder->name, rung->id) != NULL))
                printf("%s %s\n", ladder->name, rung->id);
        }
    }
    return fflush(stdout) == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    const char *backend = NULL, *only = NULL;
    filters f = {.timing = true};
    bool list = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--list"))
            list = true;
        else if (!strcmp(argv[i], "--skip-unsafe"))
            f.skip_unsafe = true;
        else if (!strcmp(argv[i], "--no-timing"))
            f.timing = false;
        else if (i + 1 < argc && !strcmp(argv[i], "--backend"))
            backend = argv[++i];
        else if (i + 1 < argc && !strcmp(argv[i], "--ladder"))
            only = argv[++i];
        else if (i + 1 < argc && !strcmp(argv[i], "--rung"))
            f.rung = argv[++i];
        else if (i + 1 < argc && !strcmp(argv[i], "--max-size"))
            f.max_size = atof(argv[++i]);
        else {
            fprintf(stderr, "test_ladders: unknown argument '%s'\n", argv[i]);
            return 2;
        }
    }
    warplab_backend_kind kind;
    if (!backend || warplab_backend_parse(backend, &kind) != WARPLAB_OK ||
        kind == WARPLAB_BACKEND_AUTO) {
        fprintf(stderr, "usage: test_ladders --backend cuda|opencl|cpu [--ladder NAME] [--rung ID] "
                        "[--skip-unsafe] [--max-size N] [--no-timing] [--list]\n");
        return 2;
    }
    if (list)
        return warplab_backend_compiled(kind) ? list_rungs(kind, only) : 0;
    if (!warplab_backend_compiled(kind)) {
        printf("SKIP: the %s backend is not compiled into this build\n", backend);
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
    if (only && !wl_ladder_find(only)) {
        printf("SKIP: no ladder named %s in this build\n", only);
        warplab_context_destroy(context);
        return TEST_SKIP;
    }
    /* A ladder that cannot run here at all (the all-reduce ladder without 2
     * CUDA GPUs) is skipped when named, and left out of a run over all. */
    const wl_ladder *named = only ? wl_ladder_find(only) : NULL;
    char unavailable[256] = "";
    if (named && named->available &&
        named->available(context->device, unavailable, sizeof unavailable) != WARPLAB_OK) {
        printf("SKIP: %s\n", unavailable);
        warplab_context_destroy(context);
        return TEST_SKIP;
    }
    printf("%s backend: %s\n", backend, warplab_context_device(context)->name);
    uint64_t seed = (uint64_t)time(NULL);
    printf("seed %llu\n", (unsigned long long)seed);
    int rungs_run = 0;
    for (size_t l = 0; l < wl_ladder_count(); l++) {
        const wl_ladder *ladder = wl_ladder_at(l);
        if (only && strcmp(only, ladder->name) != 0)
            continue;
        if (ladder->available &&
            ladder->available(context->device, unavailable, sizeof unavailable) != WARPLAB_OK) {
            printf("  %-10s left out: %s\n", ladder->name, unavailable);
            continue;
        }
        run_ladder(context, ladder, &f, seed, &rungs_run);
    }
    CHECK_MSG(rungs_run > 0 || f.rung, "no rung ran at all on %s", backend);
    warplab_context_destroy(context);
    return check_report("test_ladders");
}
