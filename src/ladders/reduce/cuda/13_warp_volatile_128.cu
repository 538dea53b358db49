/* Rung warp_volatile_128 (seed 004, attempt #5, as the course ran it:
 * "Blocksize: 128 threads").
 *
 * Over warp_volatile: the same kernel (warp_volatile_kernel,
 * 12_warp_volatile.cu) in blocks of 128 threads, seed 004's, where
 * warp_volatile runs seed 001's 512 (warplab's). A smaller block does fewer
 * tree steps (7 instead of 9) but writes 4x as many partials, so the levels
 * above it have more to do; the reduce conclusion compares the two at each
 * size. Still the course's race (racecheck reports it): flagged unsafe, never
 * picked. */
#include "reduce_rungs.cuh"

namespace
{

TREE_RUNG(WarpVolatile128, warp_volatile_kernel, 128, 256)

const wl_impl warp_volatile_128_impl = {.ladder = "reduce",
                                        .rung = "warp_volatile_128",
                                        .scratch_bytes = levels_scratch<WarpVolatile128>,
                                        .launch = launch_rung<WarpVolatile128>};

} // namespace
