/* Rung padded (seed 003, 'Transpozice matic').
 *
 * Over tiled: one unused column per tile row (PAD = 1, a [32][33] tile)
 * shifts each row by one bank, so a tile column spans all 32 banks: the
 * conflicts are gone at the cost of 32 elements of shared memory. */
#include "transpose_rungs.cuh"

namespace
{

const wl_impl padded_impl = {
    .ladder = "transpose",
    .rung = "padded",
    .launch = launch_typed<tiles_on<float, 1, false, true>, tiles_on<double, 1, false, true>>};

} // namespace
