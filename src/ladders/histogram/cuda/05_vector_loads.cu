/* Rung vector_loads (CUDA C++ Best Practices Guide, coalesced access; the
 * reduction ladder's single_pass rung does the same).
 *
 * Over warp_shared: each lane loads 16 bytes at once (a uint4: 16 8-bit
 * samples or 4 int32/float), two loads in flight per trip, after a scalar
 * head up to the first 16-byte boundary (views may start at any element) and
 * with a scalar tail. A sixteenth (8-bit) or a quarter of the load
 * instructions, and more bytes in flight per thread to cover the memory's
 * latency; the counting is unchanged. */
#include "histogram_rungs.cuh"

namespace
{

warplab_status vector_loads_launch(wl_backend *backend, const wl_launch *launch, void *)
{
    return with_sample(launch->problem, [&](auto sample) {
        return run_privatised<decltype(sample), true, true, AGGREGATE_NONE>(
            backend, launch, "histogram vector_loads");
    });
}

const wl_impl vector_loads_impl = {.ladder = "histogram",
                                   .rung = "vector_loads",
                                   .supports = per_warp_supports,
                                   .launch = vector_loads_launch};

} // namespace
