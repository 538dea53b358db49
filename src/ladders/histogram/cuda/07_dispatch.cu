/* Rung dispatch: what warplab_histogram runs on cuda (past the course).
 *
 * 8-bit samples: vector_loads' kernel (per-warp copies of the 256 values,
 * 16-byte loads, plain shared atomics) with three changes:
 *   - one test per 16-byte vector: when a lane's 16 bytes are one value
 *     (skewed data, long runs), one atomic of 16 instead of 16 atomics. On
 *     uniform data the test is a few compares per 16 samples and the branch
 *     is never taken, so it costs nothing there;
 *   - a grid of whole waves (wave_grid): the same number of blocks on every
 *     SM, about BYTE_TRIPS trips a lane. The resident grid makes every
 *     block merge into the same 256 counts (at 2^24 samples that merge is a
 *     third of the time); a grid that is not a multiple of the SMs leaves
 *     the SMs with one block more setting the time (up to 1 - 5/6 of the
 *     machine idle at the end, at 47000011 samples under the old grid of
 *     8 trips and at least 128 blocks);
 *   - one launch (FINISH_ONE_LAUNCH, histogram_rungs.cuh): the blocks add
 *     into BYTE_SPREAD zeroed copies in the context's workspace and the last
 *     block writes the counts, so no cudaMemsetAsync before the kernel. At
 *     2^24 samples the kernel runs about 12 us, and the memset's launch and
 *     the gap after it are a tenth of that; CUB also launches twice (its
 *     init kernel, then the sweep). Histograms of more than
 *     ONE_LAUNCH_MAX_BINS bins (8-bit samples over a wide range) keep the
 *     memset and the global adds: one block would write too many counts.
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

/* The 8-bit kernel's constants, measured with scripts/histogram_u8_grid.cu
 * (its tuning set: 2^20, 2^22, 2^24, 2^26 and 2^28 samples, uniform and
 * skewed; the sizes 3000017, 47000011 and 700000001 are held out for
 * `warplab bench api`).
 * BYTE_TRIPS: trips of two 16-byte loads a lane that set the waves (H200). */
constexpr unsigned BYTE_TRIPS = 8;
/* BYTE_SPREAD: workspace copies the blocks add into (H200). */
constexpr unsigned BYTE_SPREAD = 16;

/* Whether the 8-bit problem finishes in one launch (its bins fold in the
 * last block's shared memory). */
inline bool byte_one_launch(const wl_problem *p)
{
    return p->variant == WL_HISTOGRAM_UINT8 && p->dim[1] <= ONE_LAUNCH_MAX_BINS;
}

size_t dispatch_scratch(wl_backend *, const wl_problem *problem)
{
    return byte_one_launch(problem) ? one_launch_scratch_bytes(BYTE_SPREAD) : 0;
}

/* The one-launch workspace zeroed, unless it is the one this rung left at
 * zero last time (scratch_kept): no memset on the library's hot path. */
warplab_status dispatch_setup(wl_backend *backend, const wl_launch *launch, void **)
{
    if (!byte_one_launch(launch->problem) || launch->scratch_kept)
        return WARPLAB_OK;
    return wl_cuda_check(backend,
                         cudaMemsetAsync(wl_view_ptr(launch->scratch), 0,
                                         one_launch_scratch_bytes(BYTE_SPREAD),
                                         wl_cuda_stream(backend)),
                         "histogram dispatch: zeroing the workspace");
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
    if (byte_one_launch(p)) {
        unsigned char *scratch = static_cast<unsigned char *>(wl_view_ptr(launch->scratch));
        const one_launch_scratch finish = {
            reinterpret_cast<unsigned *>(scratch),
            reinterpret_cast<unsigned *>(scratch + ONE_LAUNCH_TICKET_BYTES), BYTE_SPREAD};
        return run_privatised<uint8_t, true, true, AGGREGATE_VECTOR, FINISH_ONE_LAUNCH>(
            backend, launch, "histogram dispatch (per-warp copies, one-value vectors, one launch)",
            BYTE_TRIPS, finish);
    }
    if (p->variant == WL_HISTOGRAM_UINT8)
        return run_privatised<uint8_t, true, true, AGGREGATE_VECTOR>(
            backend, launch, "histogram dispatch (per-warp copies, one-value vectors)", BYTE_TRIPS);
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
              byte_one_launch(p)                 ? "per-warp copies, one-value vectors, one launch"
              : p->variant == WL_HISTOGRAM_UINT8 ? "per-warp copies, one-value vectors"
              : p->dim[1] <= PER_WARP_BINS       ? "per-warp copies"
                                                 : "per-block copy");
}

const wl_impl dispatch_impl = {.ladder = "histogram",
                               .rung = "dispatch",
                               .supports = dispatch_supports,
                               .scratch_bytes = dispatch_scratch,
                               .setup = dispatch_setup,
                               .launch = dispatch_launch,
                               .describe = dispatch_describe};

} // namespace
