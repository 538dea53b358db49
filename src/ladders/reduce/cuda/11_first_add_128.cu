/* Rung first_add_128 (seed 004, attempt #4, as the course ran it: "Blocksize:
 * 128 threads").
 *
 * Over first_add: the same kernel (first_add_kernel, 10_first_add.cu) in
 * blocks of 128 threads, seed 004's, where first_add runs seed 001's 512
 * (warplab's). A smaller block does fewer tree steps (7 instead of 9) but
 * writes 4x as many partials, so the levels above it have more to do; the
 * reduce conclusion compares the two at each size. */
#include "reduce_rungs.cuh"

namespace
{

TREE_RUNG(FirstAdd128, first_add_kernel, 128, 256)

const wl_impl first_add_128_impl = {.ladder = "reduce",
                                    .rung = "first_add_128",
                                    .scratch_bytes = levels_scratch<FirstAdd128>,
                                    .launch = launch_rung<FirstAdd128>};

} // namespace
