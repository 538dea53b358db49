/* The cpu backend's histogram rung: the host loop, one sample at a time, with
 * the bin rule every backend shares (src/kernels/histogram_bins.h). It is
 * also what warplab_histogram runs on the cpu backend. */
/*
 * Contents: the histogram rungs this file implements, in ladder order
 * (number = place on the ladder, as `warplab ladders histogram` lists it):
 *    1. cpu_loop -- CPU loop, one core
 */
#include "cpu.h"
#include "kernels/histogram_bins.h"

#include <string.h>

/* warplab:rung histogram cpu_loop */
/* Rung cpu_loop: counts zeroed, then one increment per sample in range. */
static warplab_status histogram_loop(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)backend;
    (void)state;
    const wl_problem *p = launch->problem;
    const wl_histogram_rule rule = wl_histogram_rule_of(p);
    const size_t n = p->dim[0];
    uint32_t *counts = wl_view_ptr(launch->buf[1]);
    memset(counts, 0, (size_t)rule.bins * sizeof *counts);
    if (p->variant == WL_HISTOGRAM_UINT8) {
        const uint8_t *x = wl_view_ptr(launch->buf[0]);
        for (size_t i = 0; i < n; i++) {
            const int bin = wl_histogram_bin_int(x[i], &rule);
            if (bin >= 0)
                counts[bin]++;
        }
    } else if (p->variant == WL_HISTOGRAM_INT32) {
        const int32_t *x = wl_view_ptr(launch->buf[0]);
        for (size_t i = 0; i < n; i++) {
            const int bin = wl_histogram_bin_int(x[i], &rule);
            if (bin >= 0)
                counts[bin]++;
        }
    } else {
        const float *x = wl_view_ptr(launch->buf[0]);
        for (size_t i = 0; i < n; i++) {
            const int bin = wl_histogram_bin_float(x[i], &rule);
            if (bin >= 0)
                counts[bin]++;
        }
    }
    return WARPLAB_OK;
}
/* warplab:end */

static const wl_impl loop_impl = {
    .ladder = "histogram", .rung = "cpu_loop", .launch = histogram_loop};

const wl_impl *const wl_cpu_histogram_impls[] = {&loop_impl, NULL};
