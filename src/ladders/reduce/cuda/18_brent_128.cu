/* Rung brent_128 (seed 004, attempt #7, as the course ran it: "Blocksize: 128
 * threads").
 *
 * Over brent: the same templated kernel and launch (17_brent.cu) with 128
 * threads as the largest block, seed 004's, where brent takes seed 001's 512
 * (warplab's). The reduce conclusion compares the two at each size. */
#include "reduce_rungs.cuh"

namespace
{

template <typename T, typename Op> using Brent128 = BrentAt<T, Op, 128>;

const wl_impl brent_128_impl = {.ladder = "reduce",
                                .rung = "brent_128",
                                .scratch_bytes = levels_scratch<Brent128>,
                                .launch = launch_rung<Brent128>};

} // namespace
