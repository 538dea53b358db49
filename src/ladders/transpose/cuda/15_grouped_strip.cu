/* Rung grouped_strip (past the course: block order, bytes in flight; off the
 * ladder, a measured dead end).
 *
 * Over vectorized_grouped: a block takes 2 tiles down a column (bands 16
 * items tall: the same patch), so it writes 512 B runs of each output row it
 * touches and a thread has 8 16-byte loads in flight before its first store. */
#include "transpose_rungs.cuh"

namespace
{

/* grouped_strip: the grouped order with 2 tiles down a column per block
 * (bands half as many items tall: the same patch): each block writes 512 B
 * runs of 64 output rows (1 KiB of doubles), and a thread has 8 16-byte
 * loads of floats (16 of doubles) in flight before its first store. */
const wl_impl grouped_strip_impl = {.ladder = "transpose",
                                    .rung = "grouped_strip",
                                    .launch =
                                        launch_typed<ordered_all<float, 2, GROUP_TILES / 2>,
                                                     ordered_all<double, 2, GROUP_TILES / 2>>};

} // namespace
