/* Rung sequential_128 (seed 004, attempt #3, as the course ran it: "Blocksize:
 * 128 threads").
 *
 * Over sequential: the same kernel (sequential_kernel, 08_sequential.cu) in
 * blocks of 128 threads, seed 004's, where sequential runs seed 001's 512
 * (warplab's). A smaller block does fewer tree steps (7 instead of 9) but
 * writes 4x as many partials, so the levels above it have more to do; the
 * reduce conclusion compares the two at each size. */
#include "reduce_rungs.cuh"

namespace
{

TREE_RUNG(Sequential128, sequential_kernel, 128, 128)

const wl_impl sequential_128_impl = {.ladder = "reduce",
                                     .rung = "sequential_128",
                                     .scratch_bytes = levels_scratch<Sequential128>,
                                     .launch = launch_rung<Sequential128>};

} // namespace
