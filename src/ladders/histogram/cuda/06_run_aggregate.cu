/* Rung run_aggregate (CUDA C++ Programming Guide, 'Warp Match Functions';
 * PMPP ch. 9.6, aggregation).
 *
 * Over vector_loads: before each increment, __match_any_sync gives every
 * lane the mask of lanes holding the same bin; the lowest of them adds the
 * run's length (__popc of the mask) in one shared atomic, the others add
 * nothing. On skewed data the 32 atomics of a warp on one address, which the
 * SM serialises, become one. On uniform data few lanes share a bin, and the
 * match is an extra instruction per sample that saves little. */
#include "histogram_rungs.cuh"

namespace
{

warplab_status run_aggregate_launch(wl_backend *backend, const wl_launch *launch, void *)
{
    return with_sample(launch->problem, [&](auto sample) {
        return run_privatised<decltype(sample), true, true, AGGREGATE_MATCH>(
            backend, launch, "histogram run_aggregate");
    });
}

const wl_impl run_aggregate_impl = {.ladder = "histogram",
                                    .rung = "run_aggregate",
                                    .supports = per_warp_supports,
                                    .launch = run_aggregate_launch};

} // namespace
