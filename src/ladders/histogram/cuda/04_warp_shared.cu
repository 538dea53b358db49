/* Rung warp_shared (PMPP ch. 9.4, privatization with finer copies).
 *
 * Over block_shared: one copy per warp (8 a block) instead of one per
 * block. Two warps never contend for a shared-memory word any more; only the
 * 32 lanes of one warp can collide, on the same bin (the same address,
 * serialised) or on the same bank. The price is 8 times the shared memory:
 * the rung refuses bin counts whose 8 copies pass 48 KiB (1536 bins). On an
 * H200 this rung alone is about 10% slower than block_shared (8-bit, 2^28:
 * 496 against 447 us): with scalar loads the copies' zeroing and merging cost
 * more than the contention they remove; with 16-byte loads (the next rung)
 * per-warp copies are the faster layout. */
#include "histogram_rungs.cuh"

namespace
{

warplab_status per_warp_supports(wl_backend *, const wl_problem *problem, char *reason, size_t len)
{
    return copies_fit(problem, WARPS, reason, len);
}

warplab_status warp_shared_launch(wl_backend *backend, const wl_launch *launch, void *)
{
    return with_sample(launch->problem, [&](auto sample) {
        return run_privatised<decltype(sample), true, false, AGGREGATE_NONE>(
            backend, launch, "histogram warp_shared");
    });
}

const wl_impl warp_shared_impl = {.ladder = "histogram",
                                  .rung = "warp_shared",
                                  .supports = per_warp_supports,
                                  .launch = warp_shared_launch};

} // namespace
