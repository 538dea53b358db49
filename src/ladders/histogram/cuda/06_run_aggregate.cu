/* Rung run_aggregate (CUDA C++ Programming Guide, 'Warp Match Functions';
 * PMPP ch. 9.6, aggregation).
 *
 * Over vector_loads: before each increment, __match_any_sync gives every
 * lane the mask of lanes holding the same bin; the lowest of them adds the
 * run's length (__popc of the mask) in one shared atomic, the others add
 * nothing. On skewed data the 32 atomics of a warp on one address, which the
 * SM serialises, become one. On an H200 the SM already merges a warp's
 * shared atomics on one word, and the match is expensive: 2.08 ms against
 * vector_loads' 136 us on uniform 8-bit data at 2^28, 252 against 135 us on
 * skewed. Kept as the measured counter-example; the library does not use
 * it. */
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
