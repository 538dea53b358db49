/* Rung strided_index_128 (seed 004, attempt #2, as the course ran it:
 * "Blocksize: 128 threads").
 *
 * Over strided_index: the same kernel (strided_index_kernel,
 * 06_strided_index.cu) in blocks of 128 threads, seed 004's, where
 * strided_index runs seed 001's 512 (warplab's). A smaller block does fewer
 * tree steps (7 instead of 9) but writes 4x as many partials, so the levels
 * above it have more to do; the reduce conclusion compares the two at each
 * size. */
#include "reduce_rungs.cuh"

namespace
{

TREE_RUNG(StridedIndex128, strided_index_kernel, 128, 128)

const wl_impl strided_index_128_impl = {.ladder = "reduce",
                                        .rung = "strided_index_128",
                                        .scratch_bytes = levels_scratch<StridedIndex128>,
                                        .launch = launch_rung<StridedIndex128>};

} // namespace
