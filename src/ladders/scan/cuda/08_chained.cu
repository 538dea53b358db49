/* Rung chained (Merrill and Garland 2016, section 3: chained-scan, as in
 * Yan, Long and Zhang's StreamScan).
 *
 * Over reduce_then_scan: one pass, 2n bytes. A block takes the next tile
 * from an atomic ticket (1024 elements: 256 threads x 4), scans it in
 * registers, then lane 0 of its first warp waits until the tile to its left
 * has published its inclusive prefix (flag P), adds it, publishes its own P
 * and the block writes the tile. The input is read once; but the prefix
 * crosses the tiles one after another, so the whole scan waits for a chain
 * of n / 1024 flag round trips through L2. Flags and ticket:
 * single_pass.cuh. */
#include "single_pass.cuh"

namespace
{

using ChainedPass = SinglePass<256, 4, 4, true>;
template <typename T, typename Op> using Chained = ChainedPass::Rung<T, Op>;

const wl_impl chained_impl = {.ladder = "scan",
                              .rung = "chained",
                              .scratch_bytes = ChainedPass::scratch,
                              .launch = scan_launch_rung<Chained>};

} // namespace
