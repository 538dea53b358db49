/* Rung vectorized (past the course: Hopper's 16-byte accesses, bytes in
 * flight).
 *
 * Over diagonal: no shared memory and no barrier. Each thread reads a 4x4
 * block as four 16-byte rows, transposes it in registers and writes four
 * 16-byte rows (transpose_vectorized, STRIP = 1); a warp's accesses fill
 * whole 32-byte sectors. Pitches that are not whole 16-byte units take the
 * padded kernel. */
#include "transpose_rungs.cuh"

namespace
{

const wl_impl vectorized_impl = {
    .ladder = "transpose",
    .rung = "vectorized",
    .launch = launch_typed<vectorized_on<float, 1>, vectorized_on<double, 1>>};

} // namespace
