/* The registry: every implementation of every backend compiled in names a
 * declared rung of a declared ladder (or a series of a declared probe
 * section), once; every ladder of src/core/ladders.def is listed, in
 * order, with its best rung among its rungs. A typo in an impl row would
 * otherwise be a silent "no cuda form" skip. */
#include "../check.h"
#include "core/context.h"
#include "lab/probes/probe.h"
#include "lab/show.h"
#include "ladders/gemm.h"
#include "ladders/ladders.h"
#include "ops/ops.h"
#include "warplab_lab.h"

#include <stdlib.h>
#include <string.h>

static const char *const declared[] = {
#define WL_LADDER(name) #name,
#include "core/ladders.def"
#undef WL_LADDER
};

/* The ladder (or probe section) named ladder_name, or NULL. */
static const wl_ladder *find_section(const char *ladder_name)
{
    const wl_ladder *ladder = wl_ladder_find(ladder_name);
    for (size_t p = 0; !ladder && p < wl_probe_count(); p++) {
        const wl_probe *probe = wl_probe_at(p);
        for (size_t s = 0; !ladder && s < probe->section_count; s++)
            if (strcmp(probe->sections[s].ladder->name, ladder_name) == 0)
                ladder = probe->sections[s].ladder;
    }
    return ladder;
}

static void test_ladders_declared(void)
{
    const size_t count = sizeof declared / sizeof declared[0];
    CHECK(wl_ladder_count() == count);
    for (size_t i = 0; i < count && i < wl_ladder_count(); i++) {
        const wl_ladder *ladder = wl_ladder_at(i);
        CHECK_STR(ladder->name, declared[i]);
        CHECK_STR(warplab_ladder_name(i), declared[i]);
        CHECK_MSG(wl_ladder_find(declared[i]) == ladder, "%s is not found by name", declared[i]);
        CHECK_MSG(ladder->rung_count > 0, "%s has no rungs", ladder->name);
        CHECK_MSG(!ladder->best_rung || wl_rung_find(ladder, ladder->best_rung),
                  "%s: best rung '%s' is not a rung", ladder->name, ladder->best_rung);
        for (size_t r = 0; r < ladder->rung_count; r++) {
            const wl_rung *rung = &ladder->rungs[r];
            CHECK_MSG(wl_rung_find(ladder, rung->id) == rung, "%s/%s is declared twice",
                      ladder->name, rung->id);
            CHECK_MSG(!rung->vendor || wl_rung_find(ladder, rung->vendor),
                      "%s/%s names vendor '%s', not a rung", ladder->name, rung->id, rung->vendor);
            /* A report row carries the title and lesson whole. */
            const warplab_row *row = NULL;
            CHECK_MSG(strlen(rung->title) < sizeof row->title &&
                          strlen(rung->lesson) < sizeof row->lesson,
                      "%s/%s: title or lesson longer than a row holds (%zu, %zu)", ladder->name,
                      rung->id, strlen(rung->title), strlen(rung->lesson));
        }
    }
    CHECK(wl_ladder_at(count) == NULL);
    CHECK(wl_ladder_find("no_such_ladder") == NULL);
}

static void test_impls_name_rungs(void)
{
    for (int kind = WARPLAB_BACKEND_CUDA; kind < WARPLAB_BACKEND_COUNT; kind++) {
        const wl_backend_ops *ops = wl_backend_ops_for((warplab_backend_kind)kind);
        if (!ops)
            continue;
        size_t impls = 0;
        for (const wl_impl *const *const *table = ops->impls; *table; table++) {
            for (const wl_impl *const *impl = *table; *impl; impl++) {
                impls++;
                const wl_impl *row = *impl;
                CHECK_MSG(row->launch != NULL, "%s: %s/%s has no launch", ops->name, row->ladder,
                          row->rung);
                const wl_ladder *ladder = find_section(row->ladder);
                CHECK_MSG(ladder != NULL, "%s: impl %s/%s names no declared ladder or probe",
                          ops->name, row->ladder, row->rung);
                if (!ladder)
                    continue;
                /* The gemm ladder's library entries (warplab_gemm_ex, and
                 * warplab_gemm_batched_ex's batched row) are impls of their
                 * own, not rungs; the ladder's ex_* rungs run the first. */
                const bool library_entry =
                    ladder == &wl_gemm_ladder && (strcmp(row->rung, WL_GEMM_EX_IMPL) == 0 ||
                                                  strcmp(row->rung, WL_GEMM_BATCHED_IMPL) == 0);
                CHECK_MSG(library_entry || wl_rung_find(ladder, row->rung) != NULL,
                          "%s: impl %s/%s names no rung of %s", ops->name, row->ladder, row->rung,
                          ladder->name);
                CHECK_MSG(wl_ops_find_impl(ops, row->ladder, row->rung) == row,
                          "%s: %s/%s has two impls (the second is never run)", ops->name,
                          row->ladder, row->rung);
            }
        }
        CHECK_MSG(impls > 0, "%s has no impls", ops->name);
    }
}

/* The library's operations and the ladders that climb to them. */
static const wl_op *const operations[] = {&wl_vecadd_op, &wl_reduce_op,    &wl_transpose_op,
                                          &wl_scan_op,   &wl_histogram_op, &wl_gemm_op};
#define OPERATIONS (sizeof operations / sizeof operations[0])

/* Each operation declares its candidates (src/ops/); they are its ladder's
 * rungs the library may run, in the order the ladder gives them: its best
 * rung (the top of the climb) first, then the others from the top down,
 * never a vendor, reference, transfer, unsafe, possibly wrong or off-ladder
 * rung, each with the rung's own limits and host flag. A context resolves
 * each operation once: the candidates its backend has, with their impls. */
static void test_operations_resolved(void)
{
    const unsigned never = WL_RUNG_VENDOR | WL_RUNG_REFERENCE | WL_RUNG_TRANSFER | WL_RUNG_UNSAFE |
                           WL_RUNG_MAY_BE_WRONG | WL_RUNG_OFF_LADDER;
    for (size_t o = 0; o < OPERATIONS; o++) {
        const wl_op *op = operations[o];
        const wl_ladder *ladder = wl_ladder_find(op->name);
        CHECK_MSG(ladder != NULL, "operation %s has no ladder", op->name);
        if (!ladder)
            continue;
        CHECK_MSG(op->count <= WL_OPERATION_MAX_CANDIDATES, "%s: %zu candidates, at most %d",
                  op->name, op->count, WL_OPERATION_MAX_CANDIDATES);
        const wl_rung *expected[64];
        size_t count = 0;
        const wl_rung *best = wl_rung_find(ladder, ladder->best_rung);
        for (size_t i = ladder->rung_count + 1; i-- > 0 && count < 64;) {
            const wl_rung *rung = i == ladder->rung_count ? best : &ladder->rungs[i];
            if (rung && !(rung->flags & never) && !rung->op &&
                (i == ladder->rung_count || rung != best))
                expected[count++] = rung;
        }
        CHECK_MSG(op->count == count, "%s: %zu candidates, the ladder has %zu rungs to serve",
                  op->name, op->count, count);
        for (size_t i = 0; i < op->count && i < count; i++) {
            const wl_op_candidate *c = &op->candidates[i];
            CHECK_MSG(strcmp(c->impl, expected[i]->id) == 0, "%s: candidate %zu is %s, not %s",
                      op->name, i, c->impl, expected[i]->id);
            CHECK_MSG(c->host == ((expected[i]->flags & WL_RUNG_HOST) != 0) &&
                          c->limits == expected[i]->supports,
                      "%s/%s: host flag or limits differ from the rung's", op->name, c->impl);
        }
    }
    warplab_context *context = NULL;
    CHECK(warplab_context_create(WARPLAB_BACKEND_CPU, 0, &context) == WARPLAB_OK);
    if (!context)
        return;
    for (size_t o = 0; o < OPERATIONS; o++) {
        const wl_op *op = operations[o];
        const wl_impl *first = wl_context_op_impl(context, op);
        CHECK_MSG(first != NULL, "%s: nothing on the cpu backend", op->name);
        const wl_operation *operation = NULL;
        for (int i = 0; i < context->operation_count; i++)
            if (context->operations[i].op == op)
                operation = &context->operations[i];
        CHECK_MSG(operation != NULL, "%s: not resolved", op->name);
        if (!operation)
            continue;
        int servable = 0; /* candidates the cpu backend has */
        for (size_t i = 0; i < op->count; i++)
            servable +=
                wl_backend_find_impl(context->device, op->name, op->candidates[i].impl) != NULL;
        CHECK_MSG(operation->count == servable, "%s: %d candidates resolved, %d on cpu", op->name,
                  operation->count, servable);
        for (int i = 0; i < operation->count; i++) {
            CHECK(operation->impls[i] ==
                  wl_backend_find_impl(context->device, op->name, operation->candidates[i]->impl));
            for (int j = 0; j < i; j++)
                CHECK_MSG(operation->impls[j] != operation->impls[i], "%s/%s twice", op->name,
                          operation->candidates[i]->impl);
        }
        CHECK(first == operation->impls[0]);
    }
    warplab_context_destroy(context);
}

/* Each ladder with a library operation ends its climb in the library call:
 * its top rung (the last that is not a vendor, reference, transfer or
 * off-ladder row) is either a rung that runs the operation's pick (.op) or
 * the operation's first candidate itself (a dispatcher rung the library runs
 * as it is). A rung that names an operation names its own ladder's, once. */
static void test_top_rung_is_library(void)
{
    const unsigned aside =
        WL_RUNG_VENDOR | WL_RUNG_REFERENCE | WL_RUNG_TRANSFER | WL_RUNG_OFF_LADDER;
    for (size_t l = 0; l < wl_ladder_count(); l++) {
        const wl_ladder *ladder = wl_ladder_at(l);
        const wl_op *op = NULL;
        for (size_t o = 0; o < OPERATIONS; o++)
            if (strcmp(operations[o]->name, ladder->name) == 0)
                op = operations[o];
        const wl_rung *top = NULL;
        int library_rungs = 0;
        for (size_t r = 0; r < ladder->rung_count; r++) {
            const wl_rung *rung = &ladder->rungs[r];
            if (!(rung->flags & aside))
                top = rung;
            if (rung->op) {
                library_rungs++;
                CHECK_MSG(rung->op == op, "%s/%s runs another ladder's operation (%s)",
                          ladder->name, rung->id, rung->op->name);
                CHECK_MSG(!(rung->flags & WL_RUNG_HOST), "%s/%s: a library call is no host rung",
                          ladder->name, rung->id);
            }
        }
        CHECK_MSG(library_rungs <= 1, "%s: %d library rungs", ladder->name, library_rungs);
        if (!op)
            continue;
        CHECK_MSG(top && (top->op == op || strcmp(top->id, op->candidates[0].impl) == 0),
                  "%s: the top rung %s is not the library call", ladder->name,
                  top ? top->id : "(none)");
    }
}

/* Items in a comma-separated list ("" and NULL: none). */
static size_t list_items(const char *list)
{
    size_t count = list && *list ? 1 : 0;
    for (const char *c = list; c && *c; c++)
        count += *c == ',';
    return count;
}

/* Every fixed capacity holds what the registry lists: a ladder that
 * outgrew one would lose rungs, sizes, buffers or points without a word. */
static void test_capacities(void)
{
    const warplab_device_info cpu_like = {.gpu = 0, .multiprocessors = 1};
    for (size_t l = 0; l < wl_ladder_count(); l++) {
        const wl_ladder *ladder = wl_ladder_at(l);
        CHECK_MSG(list_items(ladder->default_sizes_gpu) <= WL_BENCH_MAX_SIZES &&
                      list_items(ladder->default_sizes_cpu) <= WL_BENCH_MAX_SIZES &&
                      list_items(ladder->shape_set) <= WL_BENCH_MAX_SIZES,
                  "%s: a default size list or the shape set has more than %d sizes", ladder->name,
                  WL_BENCH_MAX_SIZES);
        wl_problem problems[256];
        const int count = ladder->test_problems(&cpu_like, problems, 256);
        CHECK_MSG(count > 0 && count < 256, "%s: %d test problems", ladder->name, count);
        for (int i = 0; i < count && i < 256; i++) {
            wl_buffer_spec specs[WL_MAX_BUFFERS + 8];
            const int buffers = ladder->buffers(&problems[i], specs);
            CHECK_MSG(buffers > 0 && buffers <= WL_MAX_BUFFERS, "%s: %d buffers (at most %d)",
                      ladder->name, buffers, WL_MAX_BUFFERS);
        }
    }
    /* The HTML handout's room for a rung's code regions, a ladder's, and
     * those two rungs or more share. */
    for (size_t l = 0; l < wl_ladder_count(); l++) {
        const wl_ladder *ladder = wl_ladder_at(l);
        for (int b = 0; b < WL_SHOW_BACKENDS; b++) {
            const char *distinct[WL_SHOW_LADDER_REGIONS_MAX + 1];
            int uses[WL_SHOW_LADDER_REGIONS_MAX + 1] = {0};
            size_t distinct_count = 0;
            for (size_t r = 0; r < ladder->rung_count; r++) {
                wl_source_region regions[WL_SHOW_RUNG_REGIONS_MAX];
                const size_t count =
                    wl_show_regions(ladder->name, ladder->rungs[r].id, wl_show_backends[b], regions,
                                    WL_SHOW_RUNG_REGIONS_MAX);
                CHECK_MSG(count <= WL_SHOW_RUNG_REGIONS_MAX, "%s/%s: %zu code regions",
                          ladder->name, ladder->rungs[r].id, count);
                for (size_t k = 0; k < count && k < WL_SHOW_RUNG_REGIONS_MAX; k++) {
                    size_t j = 0;
                    while (j < distinct_count && distinct[j] != regions[k].begin)
                        j++;
                    if (j == distinct_count && distinct_count <= WL_SHOW_LADDER_REGIONS_MAX)
                        distinct[distinct_count++] = regions[k].begin;
                    if (j < distinct_count)
                        uses[j]++;
                }
            }
            size_t shared = 0;
            for (size_t j = 0; j < distinct_count; j++)
                shared += uses[j] > 1;
            const char *name = warplab_backend_name(wl_show_backends[b]);
            CHECK_MSG(distinct_count <= WL_SHOW_LADDER_REGIONS_MAX,
                      "%s on %s: more than %d distinct code regions", ladder->name, name,
                      WL_SHOW_LADDER_REGIONS_MAX);
            CHECK_MSG(shared <= WL_SHOW_SHARED_REGIONS_MAX,
                      "%s on %s: %zu code regions shared by two rungs or more (room for %d)",
                      ladder->name, name, shared, WL_SHOW_SHARED_REGIONS_MAX);
        }
    }
    for (size_t p = 0; p < wl_probe_count(); p++) {
        const wl_probe *probe = wl_probe_at(p);
        CHECK_MSG(probe->section_count <= WL_PROBE_MAX_SECTIONS, "probe %s: %zu sections",
                  probe->name, probe->section_count);
        for (size_t s = 0; s < probe->section_count; s++) {
            wl_problem *points = calloc(WL_PROBE_MAX_POINTS, sizeof *points);
            if (!points)
                continue;
            /* Filling the room may mean points were cut: strictly fewer. */
            const int count = probe->sections[s].points(&cpu_like, 0, points, WL_PROBE_MAX_POINTS);
            CHECK_MSG(count > 0 && count < WL_PROBE_MAX_POINTS, "probe %s/%s: %d points",
                      probe->name, probe->sections[s].name, count);
            free(points);
        }
    }
}

/* A bench of each ladder holds a row for every rung it lists, the vendor
 * rows included (skipped where the backend has no form of them): the plan is
 * sized by the registry, not by a fixed list. */
static void test_bench_rows_every_rung(void)
{
    warplab_context *context = NULL;
    CHECK(warplab_context_create(WARPLAB_BACKEND_CPU, 0, &context) == WARPLAB_OK);
    if (!context)
        return;
    for (size_t l = 0; l < wl_ladder_count(); l++) {
        const wl_ladder *ladder = wl_ladder_at(l);
        char why[256];
        if (ladder->available && ladder->available(context->device, why, sizeof why) != WARPLAB_OK)
            continue;
        warplab_bench_options options;
        memset(&options, 0, sizeof options);
        options.ladder = ladder->name;
        options.sizes = strcmp(ladder->name, "gemm") == 0        ? "8x8x8"
                        : strcmp(ladder->name, "transpose") == 0 ? "8x8"
                                                                 : "64";
        options.repeat = 1;
        options.warmup = 1;
        options.max_seconds = 0.001;
        /* Through the plan: what was checked is what runs, as many times as
         * asked, and the plan says how many rows it will give. */
        warplab_bench_plan *plan = NULL;
        warplab_status status = warplab_bench_plan_create(context, &options, &plan);
        CHECK_MSG(status == WARPLAB_OK, "bench plan %s: %s (%s)", ladder->name,
                  warplab_status_string(status), warplab_last_error(context));
        if (!plan)
            continue;
        CHECK(warplab_bench_plan_rows(plan) == ladder->rung_count);
        warplab_report *report = NULL;
        for (int pass = 0; pass < 2; pass++) {
            warplab_report_destroy(report);
            report = NULL;
            status = warplab_bench_plan_run(plan, &report);
            CHECK_MSG(status == WARPLAB_OK, "bench %s: %s (%s)", ladder->name,
                      warplab_status_string(status), warplab_last_error(context));
        }
        warplab_bench_plan_destroy(plan);
        if (!report)
            continue;
        CHECK_MSG(report->row_count == ladder->rung_count, "bench %s: %zu rows for %zu rungs",
                  ladder->name, report->row_count, ladder->rung_count);
        for (size_t r = 0; r < ladder->rung_count; r++) {
            bool found = false;
            for (size_t i = 0; i < report->row_count && !found; i++)
                found = strcmp(report->rows[i].rung, ladder->rungs[r].id) == 0;
            CHECK_MSG(found, "bench %s has no row for %s", ladder->name, ladder->rungs[r].id);
        }
        warplab_report_destroy(report);
    }
    /* A plan that cannot be made is NULL, with the reason. */
    warplab_bench_options bad;
    memset(&bad, 0, sizeof bad);
    bad.ladder = "gemm";
    bad.rungs = "no_such_rung";
    warplab_bench_plan *plan = (warplab_bench_plan *)&bad;
    CHECK(warplab_bench_plan_create(context, &bad, &plan) == WARPLAB_ERROR_UNKNOWN_NAME);
    CHECK(plan == NULL);
    CHECK(strstr(warplab_last_error(context), "no_such_rung") != NULL);
    CHECK(warplab_bench_plan_rows(NULL) == 0);
    warplab_report *report = (warplab_report *)&bad;
    CHECK(warplab_bench_plan_run(NULL, &report) == WARPLAB_ERROR_INVALID_ARGUMENT);
    CHECK(report == NULL);
    warplab_bench_plan_destroy(NULL);
    warplab_context_destroy(context);
}

int main(void)
{
    test_ladders_declared();
    test_impls_name_rungs();
    test_operations_resolved();
    test_top_rung_is_library();
    test_capacities();
    test_bench_rows_every_rung();
    return check_report("test_registry");
}
