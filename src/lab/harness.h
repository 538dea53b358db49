/* The harness (src/lab/harness.c): every rung and probe series is checked
 * and timed through it (inputs, poison, verification, timing), and a
 * ladder's rows get their speedups and ratios from it. */
#ifndef WARPLAB_LAB_HARNESS_H
#define WARPLAB_LAB_HARNESS_H

#include "internal.h"
#include "warplab_lab.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The header of a report (bench and probe alike): device, backend, date,
 * the seed (0: from the clock), whether caches are flushed, the theoretical
 * bandwidth ceiling and its source ("" when unknown). */
void wl_report_begin(warplab_report *report, const warplab_context *context,
                     unsigned long long seed, int no_flush);

typedef struct wl_run_config {
    int repeat; /* timed runs */
    int warmup;
    double max_seconds; /* stop timing early past this budget (at least 3 runs) */
    bool flush;         /* flush caches before each timed run */
    bool verify;        /* run the check first */
    bool time;          /* time it (false: check only, as the tests do) */
    uint64_t seed;
    /* Non-NULL: asked between timed runs; non-zero stops timing early (the
     * runs taken so far are kept, at least one). */
    int (*cancelled)(void *user);
    void *cancel_user;
    /* The time budget of one run of a host (CPU) row in a run on another
     * device, in seconds: a row whose run is predicted past it (from a run
     * at a quarter of the work) is skipped with the prediction as its reason.
     * 0: WL_HOST_RUN_BUDGET; negative: no budget. */
    double host_run_budget;
    /* The same rung's run at a smaller problem of this run, where there was
     * one (NULL: none): its time, scaled by the work, predicts the run too,
     * and the larger prediction decides. A strided host loop slows past its
     * caches' and TLB's reach in ways no shrunken probe shows. */
    const wl_problem *host_previous;
    double host_previous_seconds;
} wl_run_config;

#define WL_HOST_RUN_BUDGET 3.0

/* The impl that runs rung: the host backend's for WL_RUNG_HOST rungs, else
 * the device's; NULL when that backend has no form of it. A run resolves it
 * once, when it is planned, and hands it to wl_run_rung with the rung. */
const wl_impl *wl_rung_impl(const wl_backend *device, const wl_backend *host,
                            const wl_ladder *ladder, const wl_rung *rung);

/* Checks (and optionally times) one rung of a ladder on one problem with
 * impl (from wl_rung_impl; NULL: the row says which backends have the rung).
 * The row is filled whatever happens; the return value is the row's status.
 * host is the cpu backend used for WL_RUNG_HOST rungs (may equal device). */
warplab_status wl_run_rung(wl_backend *device, wl_backend *host, const wl_ladder *ladder,
                           const wl_rung *rung, const wl_impl *impl, const wl_problem *problem,
                           const wl_run_config *config, warplab_row *row);

/* The bytes the harness allocates for a problem's buffers (views, misaligned
 * heads and guards); false when that count does not fit in a size_t. */
bool wl_problem_bytes(const wl_ladder *ladder, const wl_problem *problem, size_t *total);

/* Fills step and cumulative speedups, % of ceiling, % of the copy reference
 * (the fastest WL_RUNG_REFERENCE row among them) and % of the vendor row
 * (the rung's own, then WARPLAB_ROW_PAIRED, else the WL_RUNG_BASELINE row)
 * across a ladder's rows for one problem; rungs[i] is the rung of rows[i]. */
void wl_rows_finalize(warplab_row *rows, const wl_rung *const *rungs, size_t count,
                      double ceiling_gbs);

/* A row's runs, median, min, max, mean and noise from its timed runs. */
void wl_row_set_times(warplab_row *row, const wl_stats *stats, int runs);

#ifdef __cplusplus
}
#endif

#endif
