/* Rung scan_then_propagate (GPU Gems 3, ch. 39.2.4: arrays of arbitrary
 * size).
 *
 * Over warp_shuffle: every SM works. Each block scans its own 1024-element
 * tile (the warp-shuffle tile scan, 512 threads x 2 elements) and writes
 * the tile's total to an array of block sums; the block sums are scanned by
 * the same kernel (recursively, until one block holds them: 2^28 elements
 * take three levels); a third kernel adds, to every element of tile b, the
 * scanned sum of the tiles before it. Three kernels and any n; but the
 * output is written, read back and written again: 4n bytes of traffic for
 * the 2n a scan needs. */
#include "scan_rungs.cuh"

namespace
{

constexpr unsigned STP_THREADS = 512;
constexpr unsigned STP_STEPS = 2;
constexpr size_t STP_TILE = STP_THREADS * STP_STEPS;

/* sums: NULL for the one-tile level, which has no sums to write. */
template <typename T, typename Op>
__global__ void __launch_bounds__(STP_THREADS)
    tile_scan_kernel(const T *in, T *out, size_t n, bool exclusive, T *sums)
{
    __shared__ TileShared<T, STP_THREADS / 32> shared;
    scan_tile<T, Op, STP_THREADS, STP_STEPS, 1>(in, out, n, blockIdx.x * STP_TILE, exclusive, false,
                                                shared, [&](T total) {
                                                    if (threadIdx.x == 0 && sums)
                                                        sums[blockIdx.x] = total;
                                                    return scan_identity<T, Op>();
                                                });
}

/* Tile b + 1 gets the scanned sum of tiles 0..b. */
template <typename T, typename Op>
__global__ void __launch_bounds__(STP_THREADS)
    propagate_kernel(T *out, size_t n, const T *scanned_sums)
{
    const T prefix = scanned_sums[blockIdx.x];
    const size_t base = (blockIdx.x + (size_t)1) * STP_TILE;
#pragma unroll
    for (unsigned k = 0; k < STP_STEPS; k++) {
        const size_t i = base + k * STP_THREADS + threadIdx.x;
        if (i < n)
            out[i] = Op::apply(prefix, out[i]);
    }
}

/* Scratch: the block sums of every level. */
size_t stp_scratch(wl_backend *, const wl_problem *problem)
{
    size_t elements = 0;
    for (size_t count = problem->dim[0]; count > 1;) {
        count = scan_ceil_div(count, STP_TILE);
        if (count > 1)
            elements += count;
    }
    return elements * warplab_dtype_size(problem->dtype);
}

template <typename T, typename Op> struct ScanThenPropagate {
    static warplab_status launch(wl_backend *backend, const wl_launch *launch, void *)
    {
        constexpr int MAX_LEVELS = 16;
        const size_t n = wl_launch_count(launch);
        if (n == 0)
            return WARPLAB_OK;
        cudaStream_t stream = wl_cuda_stream(backend);
        T *scratch = static_cast<T *>(wl_view_ptr(launch->scratch));
        /* Level l scans data[l] (count[l] elements) into out[l], writing its
         * tiles' totals to data[l + 1], in the scratch, scanned in place. */
        const T *data[MAX_LEVELS];
        T *dest[MAX_LEVELS];
        size_t count[MAX_LEVELS];
        int levels = 0;
        data[0] = scan_input<T>(launch);
        dest[0] = scan_output<T>(launch);
        count[0] = n;
        for (;;) {
            const size_t tiles = scan_ceil_div(count[levels], STP_TILE);
            warplab_status status = scan_check_grid(backend, tiles, "scan scan_then_propagate");
            if (status != WARPLAB_OK)
                return status;
            T *sums = tiles > 1 ? scratch : nullptr;
            tile_scan_kernel<T, Op><<<(unsigned)tiles, STP_THREADS, 0, stream>>>(
                data[levels], dest[levels], count[levels], levels == 0 && scan_exclusive(launch),
                sums);
            status = WL_CUDA_LAUNCHED(backend, "scan scan_then_propagate");
            if (status != WARPLAB_OK || tiles == 1)
                break;
            levels++;
            data[levels] = dest[levels] = sums;
            count[levels] = tiles;
            scratch += tiles;
        }
        /* Down the levels: tile b + 1 of level l gets element b of level l + 1. */
        for (int l = levels - 1; l >= 0; l--) {
            const size_t tiles = scan_ceil_div(count[l], STP_TILE);
            propagate_kernel<T, Op>
                <<<(unsigned)(tiles - 1), STP_THREADS, 0, stream>>>(dest[l], count[l], dest[l + 1]);
            warplab_status status = WL_CUDA_LAUNCHED(backend, "scan scan_then_propagate");
            if (status != WARPLAB_OK)
                return status;
        }
        return WARPLAB_OK;
    }
};

const wl_impl scan_then_propagate_impl = {.ladder = "scan",
                                          .rung = "scan_then_propagate",
                                          .scratch_bytes = stp_scratch,
                                          .launch = scan_launch_rung<ScanThenPropagate>};

} // namespace
