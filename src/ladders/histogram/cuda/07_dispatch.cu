/* Rung dispatch: what warplab_histogram runs on cuda (past the course).
 *
 * 8-bit samples: vector_loads' kernel (per-warp copies of the 256 values,
 * 16-byte loads, plain shared atomics), plus one test per 16-byte vector:
 * when a lane's 16 bytes are one value (skewed data, long runs), one atomic
 * of 16 instead of 16 atomics. On uniform data the test is a few compares
 * per 16 samples and the branch is never taken, so it costs nothing there.
 * Measured on an H100 and not taken (scripts/histogram_u8_grid.cu;
 * DECISIONS.md, "Histogram"): one launch instead of the memset and the
 * kernel (the last block writes the counts), whose tail costs more than the
 * memset's launch, and whole waves of 4 to 16 trips a lane instead of
 * BYTE_GRID, no better at 2^24 or 2^28.
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
 * atomics). No aggregation: on an H200 the warp vote and the match cost more
 * than the same-bin atomics they save (run_aggregate: 2.0 ms against 295 us,
 * float 1024 bins at 2^28). */
#include "histogram_rungs.cuh"

namespace
{

constexpr unsigned PER_WARP_BINS = 1024; /* per-warp copies up to this */

/* The 8-bit grid: about 8 trips a lane, at least 128 blocks (about the
 * resident grid from 2^26 samples on). Source: scripts/histogram_u8_grid.cu on an
 * H200, 2^20 .. 2^28 samples, uniform and skewed, against the resident grid
 * (2^24 uniform: 14.5 us against 19.3 us; CUB 14.9 us). */
constexpr grid_policy BYTE_GRID = {8, 128};

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
        return run_privatised<uint8_t, true, true, AGGREGATE_VECTOR>(
            backend, launch, "histogram dispatch (per-warp copies, one-value vectors)", BYTE_GRID);
    const bool per_warp = p->dim[1] <= PER_WARP_BINS;
    if (p->variant == WL_HISTOGRAM_INT32)
        return per_warp ? run_privatised<int32_t, true, true, AGGREGATE_NONE>(
                              backend, launch, "histogram dispatch (per-warp copies)")
                        : run_privatised<int32_t, false, true, AGGREGATE_NONE>(
                              backend, launch, "histogram dispatch (per-block copy)");
    return per_warp ? run_privatised<float, true, true, AGGREGATE_NONE>(
                          backend, launch, "histogram dispatch (per-warp copies)")
                    : run_privatised<float, false, true, AGGREGATE_NONE>(
                          backend, launch, "histogram dispatch (per-block copy)");
}

void dispatch_describe(wl_backend *, const wl_launch *launch, char *text, size_t len)
{
    const wl_problem *p = launch->problem;
    wl_format(text, len, "%s",
              p->variant == WL_HISTOGRAM_UINT8 ? "per-warp copies, one-value vectors"
              : p->dim[1] <= PER_WARP_BINS     ? "per-warp copies"
                                               : "per-block copy");
}

const wl_impl dispatch_impl = {.ladder = "histogram",
                               .rung = "dispatch",
                               .supports = dispatch_supports,
                               .launch = dispatch_launch,
                               .describe = dispatch_describe};

} // namespace
