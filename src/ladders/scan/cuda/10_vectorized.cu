/* Rung vectorized (Merrill and Garland 2016, section 5: many items per
 * thread, vectorised loads and stores), warplab_scan's kernel on cuda.
 *
 * Over lookback: each lane moves 16 bytes per access (4 int or float, 2
 * double), 6 accesses a thread: 24 items a thread, 3072-element tiles of
 * int and float (1536 of double, 12 KiB each) in blocks of 128 threads (the
 * shape CUB's sm_90 tuning picks for 4-byte scans): a third of the tiles,
 * tickets and look-backs of the rung below, 96 bytes in flight per thread,
 * and small blocks, so that many of them per SM overlap one's look-back
 * with the others' loads. A warp's access covers 512 contiguous bytes; each
 * lane scans its 4 elements in registers before the warp's shuffles, so the
 * shuffles per element drop by 4. The last tile, and views not on 16 bytes,
 * take scalar accesses. Flags and ticket: single_pass.cuh. */
#include "single_pass.cuh"

namespace
{

using VectorizedPass = SinglePass<128, 6, 16, false>;
template <typename T, typename Op> using Vectorized = VectorizedPass::Rung<T, Op>;

const wl_impl vectorized_impl = {.ladder = "scan",
                                 .rung = "vectorized",
                                 .scratch_bytes = VectorizedPass::scratch,
                                 .launch = scan_launch_rung<Vectorized>};

} // namespace
