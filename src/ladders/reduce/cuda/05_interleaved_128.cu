/* Rung interleaved_128 (seed 004, attempt #1, as the course ran it:
 * "Blocksize: 128 threads").
 *
 * Over interleaved: the same kernel (interleaved_kernel, 04_interleaved.cu) in
 * blocks of 128 threads, seed 004's, where interleaved runs seed 001's 512
 * (warplab's). A smaller block does fewer tree steps (7 instead of 9) but
 * writes 4x as many partials, so the levels above it have more to do; the
 * reduce conclusion compares the two at each size. */
#include "reduce_rungs.cuh"

namespace
{

TREE_RUNG(Interleaved128, interleaved_kernel, 128, 128)

const wl_impl interleaved_128_impl = {.ladder = "reduce",
                                      .rung = "interleaved_128",
                                      .scratch_bytes = levels_scratch<Interleaved128>,
                                      .launch = launch_rung<Interleaved128>};

} // namespace
