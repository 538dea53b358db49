/* Rung vectorized_strip (past the course: bytes in flight).
 *
 * Over vectorized: a block takes 4 tiles of floats (2 of doubles) down a
 * column, and a thread issues all 16 of its 16-byte loads before its first
 * store: 4x the bytes in flight per thread, a quarter of the blocks, 1 KB of
 * each output row from one block. */
#include "transpose_rungs.cuh"

namespace
{

const wl_impl vectorized_strip_impl = {
    .ladder = "transpose",
    .rung = "vectorized_strip",
    .launch = launch_typed<vectorized_on<float, 4>, vectorized_on<double, 2>>};

} // namespace
