/* Rung tiled (seed 003, 'Transpozice matic').
 *
 * Over naive_mirror: a 32x32 tile is read row by row into shared memory and
 * written out row by row from its columns (move_tiles with TRANSPOSE,
 * PAD = 0): both global sides coalesce. Reading a tile column hits one bank
 * 32 times: bank conflicts (what the next rung fixes). */
#include "transpose_rungs.cuh"

namespace
{

const wl_impl tiled_impl = {
    .ladder = "transpose",
    .rung = "tiled",
    .launch = launch_typed<tiles_on<float, 0, false, true>, tiles_on<double, 0, false, true>>};

} // namespace
