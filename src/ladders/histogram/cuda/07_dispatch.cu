/* Rung dispatch: what warplab_histogram runs on cuda (past the course).
 *
 * 8-bit samples: byte_histogram.cuh's kernel and plan (vector_loads'
 * kernel with one atomic of 16 for a one-value vector; whole waves of
 * blocks sized to the square root of n; four 16-byte loads in flight a lane
 * on small grids, and there the next trip's loads before this trip's
 * counting), after the counts' zeroing.
 * The zeroing, on sm_90: a kernel whose dependent the counting kernel is
 * (dependent_launch.cuh), so that the counting kernel's blocks are placed
 * and count while the zeroing runs and wait for it only before adding
 * their sums, instead of cudaMemsetAsync and a plain launch (H200, bench
 * api, L2 flushed, one run: 2^24 uint8 14.67 / 11.55 us against 15.07 /
 * 11.94 us, uniform / skewed; int32 and float the same or 0.3-1 us less).
 * Measured and not taken (scripts/histogram_u8_grid.cu; DECISIONS.md,
 * "Histogram"): one launch instead of the memset and the kernel (the last
 * block writes the counts), whose tail costs more than the memset's launch
 * (H100); a grid of about 8 trips a lane and at least 128 blocks (2^24,
 * CUB / form: H200 0.98x uniform; H100 1.059 / 1.084x against the plan's
 * 1.108 / 1.182x, uniform / skewed).
 * Measured on an H200 and not taken: per-lane counters in shared memory
 * (bank = lane, a plain load and store instead of an atomic), 8-bit counters
 * flushed every 224 samples (156 us uniform, 2^28) and 16-bit counters with
 * per-sample run tracking (362 us), against vector_loads' 136 us: Hopper's
 * shared atomics are cheaper than a load and a store, and a per-sample
 * branch diverges on uniform data.
 *
 * int32 and float: the privatised kernel with 16-byte loads and plain
 * shared atomics, one copy per warp up to 1024 bins and one per block above
 * (eight copies no longer fit), up to 12288 bins (a block's 48 KiB); past
 * that the rung refuses and the library falls back down the ladder (global
 * atomics), zeroed and launched as the 8-bit kernel is. No aggregation: on an H200 the warp vote
 * and the match cost more than the same-bin atomics they save (run_aggregate: 2.0 ms against 295
 * us, float 1024 bins at 2^28). */
#include "byte_histogram.cuh"
#include "histogram_rungs.cuh"

namespace
{

constexpr unsigned PER_WARP_BINS = 1024; /* per-warp copies up to this */

/* Zeroes the counts, then runs the 8-bit kernel under byte_plan_for(n): on
 * sm_90, the zeroing kernel and the 8-bit kernel as its dependent
 * (dependent_launch.cuh), whose blocks count their samples while the
 * zeroing runs and wait for it only before adding their sums. */
warplab_status run_byte_histogram(wl_backend *backend, const wl_launch *launch)
{
    const size_t n = launch->problem->dim[0];
    const bool dependent = n > 0 && backend->info.cc_major >= 9;
    warplab_status status = zero_counts(backend, launch, dependent);
    if (status != WARPLAB_OK || n == 0)
        return status;
    return wl_cuda_check(backend,
                         launch_byte_histogram(samples_of<uint8_t>(launch), n, counts_of(launch),
                                               wl_histogram_rule_of(launch->problem),
                                               byte_plan_for(n), backend->info.multiprocessors,
                                               wl_cuda_stream(backend), dependent),
                         "histogram dispatch (8-bit)");
}

warplab_status dispatch_supports(wl_backend *, const wl_problem *problem, char *reason, size_t len)
{
    if (problem->variant == WL_HISTOGRAM_UINT8)
        return WARPLAB_OK;
    return copies_fit(problem, 1, reason, len);
}

warplab_status dispatch_launch(wl_backend *backend, const wl_launch *launch, void *)
{
    const wl_problem *p = launch->problem;
    if (p->variant == WL_HISTOGRAM_UINT8)
        return run_byte_histogram(backend, launch);
    const bool per_warp = p->dim[1] <= PER_WARP_BINS;
    if (p->variant == WL_HISTOGRAM_INT32)
        return per_warp ? run_privatised<int32_t, true, true, AGGREGATE_NONE>(
                              backend, launch, "histogram dispatch (per-warp copies)", true)
                        : run_privatised<int32_t, false, true, AGGREGATE_NONE>(
                              backend, launch, "histogram dispatch (per-block copy)", true);
    return per_warp ? run_privatised<float, true, true, AGGREGATE_NONE>(
                          backend, launch, "histogram dispatch (per-warp copies)", true)
                    : run_privatised<float, false, true, AGGREGATE_NONE>(
                          backend, launch, "histogram dispatch (per-block copy)", true);
}

void dispatch_describe(wl_backend *, const wl_launch *launch, char *text, size_t len)
{
    const wl_problem *p = launch->problem;
    if (p->variant == WL_HISTOGRAM_UINT8) {
        const byte_plan plan = byte_plan_for(p->dim[0]);
        wl_format(text, len,
                  "per-warp copies, one-value vectors, %u blocks an SM, %d loads a lane%s",
                  plan.blocks_per_sm, plan.loads, plan.prefetch ? ", next trip's first" : "");
        return;
    }
    wl_format(text, len, "%s", p->dim[1] <= PER_WARP_BINS ? "per-warp copies" : "per-block copy");
}

const wl_impl dispatch_impl = {.ladder = "histogram",
                               .rung = "dispatch",
                               .supports = dispatch_supports,
                               .launch = dispatch_launch,
                               .describe = dispatch_describe};

} // namespace
