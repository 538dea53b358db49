/* Rung diagonal (seed 003, 'Vyznam optimalizaci': partition camping).
 *
 * Over padded: blocks take tiles along diagonals of the tile grid
 * (DIAGONAL), so blocks running together read and write different memory
 * partitions: the usual cure for the partition camping the course warns of
 * at 4096x4096. Both 4096 and 4000 show whether HBM cares. */
#include "transpose_rungs.cuh"

namespace
{

const wl_impl diagonal_impl = {
    .ladder = "transpose",
    .rung = "diagonal",
    .launch = launch_typed<tiles_on<float, 1, true, true>, tiles_on<double, 1, true, true>>};

} // namespace
