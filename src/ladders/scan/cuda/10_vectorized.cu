/* Rung vectorized (Merrill and Garland 2016, section 5: many items per
 * thread, vectorised loads and stores), warplab_scan's kernel on cuda.
 *
 * Over lookback: each lane moves 16 bytes per access (4 int or float, 2
 * double), 8 accesses a thread: 32 items a thread, 4096-element tiles of
 * int and float (2048 of double, 16 KiB each) in blocks of 128 threads: a
 * quarter of the tiles, tickets and look-backs of the rung below, 128 bytes
 * in flight per thread, and small blocks, 8 of them an SM (at most 64
 * registers a thread), so that one block's look-back overlaps the others'
 * loads. The accesses are streaming (__ldcs, __stcs: evict-first), since no
 * byte is touched twice. A warp's access covers 512 contiguous bytes; each
 * lane scans its 4 elements in registers before the warp's shuffles, so the
 * shuffles per element drop by 4. The last tile, and views not on 16 bytes,
 * take scalar accesses. Flags and ticket: single_pass.cuh.
 *
 * Shape chosen on an H200 (int32 sum, L2 flushed, medians of 15;
 * scripts/scan_tune.cu): at 2^28, 128 x 6 x 16 B tiles 803 us,
 * 128 x 8 x 16 B with 8 blocks an SM and streaming accesses 739 us, CUB
 * 684 us, a copy 505 us. */
#include "single_pass.cuh"

namespace
{

using VectorizedPass = SinglePass<128, 8, 16, false, 8, true>;
template <typename T, typename Op> using Vectorized = VectorizedPass::Rung<T, Op>;

const wl_impl vectorized_impl = {.ladder = "scan",
                                 .rung = "vectorized",
                                 .scratch_bytes = VectorizedPass::scratch,
                                 .launch = scan_launch_rung<Vectorized>};

} // namespace
