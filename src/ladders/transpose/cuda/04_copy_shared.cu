/* Rung copy_shared (seed 003, 'Transpozice matic'; off the ladder).
 *
 * The copy with the tiled kernel's shape: a 32x32 tile through shared
 * memory, 32x8 threads and a barrier (move_tiles without TRANSPOSE,
 * transpose_rungs.cuh): what a tiled transpose can hope for. The course found
 * it 16% below the plain copy. */
#include "transpose_rungs.cuh"

namespace
{

const wl_impl copy_shared_impl = {
    .ladder = "transpose",
    .rung = "copy_shared",
    .launch = launch_typed<tiles_on<float, 0, false, false>, tiles_on<double, 0, false, false>>};

} // namespace
