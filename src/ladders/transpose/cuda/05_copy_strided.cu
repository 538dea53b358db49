/* Rung copy_strided (seed 003, 'Transpozice matic': "strided idata too";
 * off the ladder).
 *
 * The copy with threads walking down columns (move_elements with ALONG_ROWS
 * and without TRANSPOSE): every access of a warp lands in a different row,
 * so neither side coalesces: the cost of striding on both sides, against
 * which naive strides on one. */
#include "transpose_rungs.cuh"

namespace
{

const wl_impl copy_strided_impl = {
    .ladder = "transpose",
    .rung = "copy_strided",
    .launch =
        launch_typed<elementwise_on<float, true, false>, elementwise_on<double, true, false>>};

} // namespace
