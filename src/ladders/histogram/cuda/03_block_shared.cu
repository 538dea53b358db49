/* Rung block_shared (PMPP ch. 9.4, privatization).
 *
 * Over global_atomics: each block counts into its own copy of the histogram
 * in shared memory, then adds its non-zero bins to the global counts. A
 * shared-memory atomic is resolved in the SM (a few cycles) instead of at
 * the L2, and the global atomics drop from one per sample to one per bin per
 * block. 8-bit samples count their 256 values and map them to bins only at
 * the merge, as CUB does for 1-byte samples: no bin arithmetic per sample.
 * The copy must fit in a block's 48 KiB (12288 bins); larger histograms stay
 * on global atomics. */
#include "histogram_rungs.cuh"

namespace
{

warplab_status block_shared_supports(wl_backend *, const wl_problem *problem, char *reason,
                                     size_t len)
{
    return copies_fit(problem, 1, reason, len);
}

warplab_status block_shared_launch(wl_backend *backend, const wl_launch *launch, void *)
{
    return with_sample(launch->problem, [&](auto sample) {
        return run_privatised<decltype(sample), false, false, AGGREGATE_NONE>(
            backend, launch, "histogram block_shared");
    });
}

const wl_impl block_shared_impl = {.ladder = "histogram",
                                   .rung = "block_shared",
                                   .supports = block_shared_supports,
                                   .launch = block_shared_launch};

} // namespace
