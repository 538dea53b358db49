/* Rung warp_shuffle (past GPU Gems 3: warp shuffles, CUDA Programming
 * Guide, 'Warp Shuffle Functions').
 *
 * Over conflict_free: the tile is scanned in registers. Each warp scans its
 * 32 values with __shfl_up_sync in 5 steps (Kogge-Stone: a lane reads the
 * value d lanes up, no shared memory, no barrier); lane 31's total of each
 * warp goes to shared memory, one warp scans those 32 totals, and each
 * thread adds its warp's prefix: two barriers a tile instead of 20, and no
 * bank conflicts to avoid. Still one block (1024 threads, one element
 * each) walking the tiles with a carry: the next rung uses every SM. */
#include "scan_rungs.cuh"

namespace
{

constexpr unsigned WS_THREADS = 1024;

template <typename T, typename Op>
__global__ void __launch_bounds__(WS_THREADS)
    warp_shuffle_kernel(const T *in, T *out, size_t n, bool exclusive)
{
    __shared__ TileShared<T, WS_THREADS / 32> shared;
    scan_stretch<T, Op, WS_THREADS, 1, 1>(in, out, 0, n, scan_identity<T, Op>(), exclusive, false,
                                          shared);
}

template <typename T, typename Op> struct WarpShuffle {
    static warplab_status launch(wl_backend *backend, const wl_launch *launch, void *)
    {
        const size_t n = wl_launch_count(launch);
        if (n == 0)
            return WARPLAB_OK;
        warp_shuffle_kernel<T, Op><<<1, WS_THREADS, 0, wl_cuda_stream(backend)>>>(
            scan_input<T>(launch), scan_output<T>(launch), n, scan_exclusive(launch));
        return WL_CUDA_LAUNCHED(backend, "scan warp_shuffle");
    }
};

const wl_impl warp_shuffle_impl = {
    .ladder = "scan", .rung = "warp_shuffle", .launch = scan_launch_rung<WarpShuffle>};

} // namespace
