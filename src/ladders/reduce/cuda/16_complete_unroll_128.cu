/* Rung complete_unroll_128 (seed 004, attempt #6, as the course ran it:
 * "Blocksize: 128 threads").
 *
 * Over complete_unroll: the same templated kernel and launch
 * (15_complete_unroll.cu) with 128 threads as the largest block, seed 004's,
 * where complete_unroll takes seed 001's 512 (warplab's). The reduce
 * conclusion compares the two at each size. */
#include "reduce_rungs.cuh"

namespace
{

template <typename T, typename Op> using CompleteUnroll128 = CompleteUnrollAt<T, Op, 128>;

const wl_impl complete_unroll_128_impl = {.ladder = "reduce",
                                          .rung = "complete_unroll_128",
                                          .scratch_bytes = levels_scratch<CompleteUnroll128>,
                                          .launch = launch_rung<CompleteUnroll128>};

} // namespace
