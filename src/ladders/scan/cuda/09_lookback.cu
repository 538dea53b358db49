/* Rung lookback (Merrill and Garland 2016, section 4: decoupled look-back).
 *
 * Over chained: no block waits for the chain. As soon as its tile is
 * reduced a block publishes the tile's aggregate (flag A); then its first
 * warp reads the flags of the 32 tiles before it, each lane waiting only
 * until its tile has published something, and combines the aggregates back
 * to the nearest inclusive prefix (flag P), moving the window back 32 tiles
 * when there is none. It publishes its own P and writes. A tile's prefix is
 * known after a few flag reads, whatever its distance from the start; the
 * tile shape is chained's (1024 elements, one element a thread per access).
 * Flags and ticket: single_pass.cuh. */
#include "single_pass.cuh"

namespace
{

using LookbackPass = SinglePass<256, 4, 4, false>;
template <typename T, typename Op> using Lookback = LookbackPass::Rung<T, Op>;

const wl_impl lookback_impl = {.ladder = "scan",
                               .rung = "lookback",
                               .scratch_bytes = LookbackPass::scratch,
                               .launch = scan_launch_rung<Lookback>};

} // namespace
