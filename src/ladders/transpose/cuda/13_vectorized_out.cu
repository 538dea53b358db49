/* Rung vectorized_out (past the course: block order against DRAM page
 * misses).
 *
 * Over vectorized: the same kernel's tiles, dealt over a 1-D grid in another
 * order (transpose_ordered, transpose_order.h): consecutive blocks take the
 * tiles down a column of the input, which sit side by side along the same
 * output rows. The blocks running at once write a few output rows in long
 * runs (and read many input rows in short ones) instead of writing every
 * output row a few hundred bytes at a time. The rung warplab_transpose()
 * uses. */
#include "transpose_rungs.cuh"

namespace
{

const wl_impl vectorized_out_impl = {
    .ladder = "transpose",
    .rung = "vectorized_out",
    .launch = launch_typed<ordered_all<float, 1, 0>, ordered_all<double, 1, 0>>};

} // namespace
