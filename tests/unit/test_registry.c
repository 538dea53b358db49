/* The registry: every implementation of every backend compiled in names a
 * declared rung of a declared ladder (or a series of a declared probe
 * section), once; every ladder of src/ladders/ladders.def is listed, in
 * order, with its best rung among its rungs. A typo in an impl row would
 * otherwise be a silent "no cuda form" skip. */
#include "../check.h"
#include "context.h"
#include "ladders/gemm.h"
#include "probe.h"

#include <string.h>

static const char *const declared[] = {
#define WL_LADDER(name) #name,
#include "ladders/ladders.def"
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
                /* The gemm ladder's library entry (warplab_gemm_ex) is an
                 * impl of its own, not a rung; the ladder's ex_* rungs run it. */
                const bool library_entry =
                    ladder == &wl_gemm_ladder && strcmp(row->rung, WL_GEMM_EX_IMPL) == 0;
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

/* A context resolves each ladder's library operation once: the rungs it may
 * run, the ladder's best first where the backend has it, each with the
 * backend's impl of that rung, never a vendor, reference or unsafe rung. */
static void test_operations_resolved(void)
{
    warplab_context *context = NULL;
    CHECK(warplab_context_create(WARPLAB_BACKEND_CPU, 0, &context) == WARPLAB_OK);
    if (!context)
        return;
    for (size_t l = 0; l < WL_LADDER_COUNT; l++) {
        const wl_operation *operation = &context->operations[l];
        const wl_ladder *ladder = wl_ladder_at(l);
        CHECK(operation->ladder == ladder);
        int servable = 0; /* rungs the library may run that the cpu backend has */
        for (size_t r = 0; r < ladder->rung_count; r++)
            servable += !(ladder->rungs[r].flags &
                          (WL_RUNG_VENDOR | WL_RUNG_REFERENCE | WL_RUNG_TRANSFER | WL_RUNG_UNSAFE |
                           WL_RUNG_MAY_BE_WRONG | WL_RUNG_OFF_LADDER)) &&
                        wl_backend_find_impl(context->device, ladder->name, ladder->rungs[r].id);
        CHECK_MSG(operation->count == servable, "%s: %d rungs resolved, %d servable on cpu",
                  ladder->name, operation->count, servable);
        for (int i = 0; i < operation->count; i++) {
            const wl_rung *rung = operation->rungs[i];
            CHECK(operation->impls[i] ==
                  wl_backend_find_impl(context->device, ladder->name, rung->id));
            CHECK_MSG(!(rung->flags & (WL_RUNG_VENDOR | WL_RUNG_REFERENCE | WL_RUNG_UNSAFE)),
                      "%s/%s may not serve the library", ladder->name, rung->id);
            for (int j = 0; j < i; j++)
                CHECK_MSG(operation->rungs[j] != rung, "%s/%s twice", ladder->name, rung->id);
        }
        const wl_rung *best = wl_rung_find(ladder, ladder->best_rung);
        if (best && wl_backend_find_impl(context->device, ladder->name, best->id))
            CHECK_MSG(operation->rungs[0] == best, "%s: the best rung is not first", ladder->name);
    }
    warplab_context_destroy(context);
}

int main(void)
{
    test_ladders_declared();
    test_impls_name_rungs();
    test_operations_resolved();
    return check_report("test_registry");
}
