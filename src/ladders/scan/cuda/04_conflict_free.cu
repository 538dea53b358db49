/* Rung conflict_free (GPU Gems 3, ch. 39.2.3: avoiding bank conflicts).
 *
 * Over blelloch: the same up-sweep and down-sweep, each tree slot i stored
 * at i + i / 32. The tree's accesses are 2^d words apart: unpadded, a warp's
 * 32 of them fall into 32 / 2^d banks (or one), and shared memory replays
 * the access once per extra word in a bank. One padding word every 32
 * shifts each run of 32 by one bank, so the strided accesses spread over
 * the banks again. The kernel is blelloch's (03_blelloch.cu) with PADDED
 * set. */
#include "scan_rungs.cuh"

namespace
{

template <typename T, typename Op> using ConflictFree = BlellochOf<true>::Rung<T, Op>;

const wl_impl conflict_free_impl = {
    .ladder = "scan", .rung = "conflict_free", .launch = scan_launch_rung<ConflictFree>};

} // namespace
