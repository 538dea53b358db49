/* Rung reduce_then_scan (Merrill and Garland 2016, section 3:
 * reduce-then-scan).
 *
 * Over scan_then_propagate: 3n bytes of traffic instead of 4n. A grid of
 * resident blocks (every SM full, not one block a tile) each owns a
 * contiguous stretch of whole tiles. Pass 1 reduces each stretch to one
 * total (reads n); pass 2, one block, scans those few thousand totals in
 * place (exclusive); pass 3 scans each stretch tile by tile from its total,
 * carrying the running value in registers, and writes the output once
 * (reads n again, writes n). The input is read twice: the single-pass
 * rungs above read it once. */
#include "scan_rungs.cuh"

namespace
{

constexpr unsigned RTS_THREADS = 256;
constexpr unsigned RTS_STEPS = 4;
constexpr size_t RTS_TILE = RTS_THREADS * RTS_STEPS;
constexpr unsigned RTS_BLOCKS_PER_SM = 8;

template <typename T, typename Op>
__global__ void __launch_bounds__(RTS_THREADS)
    stretch_reduce_kernel(const T *in, size_t n, size_t stretch, T *totals)
{
    __shared__ T warp_totals[RTS_THREADS / 32];
    const size_t begin = blockIdx.x * stretch;
    const size_t end = n - begin < stretch ? n : begin + stretch;
    T v = scan_identity<T, Op>();
    for (size_t i = begin + threadIdx.x; i < end; i += RTS_THREADS)
        v = Op::apply(v, in[i]);
    v = warp_all<T, Op>(v);
    if (threadIdx.x % 32 == 0)
        warp_totals[threadIdx.x / 32] = v;
    __syncthreads();
    if (threadIdx.x < 32) {
        v = threadIdx.x < RTS_THREADS / 32 ? warp_totals[threadIdx.x] : scan_identity<T, Op>();
        v = warp_all<T, Op>(v);
        if (threadIdx.x == 0)
            totals[blockIdx.x] = v;
    }
}

/* One block of 1024 scans the totals in place, exclusive. */
template <typename T, typename Op>
__global__ void __launch_bounds__(1024) totals_scan_kernel(T *totals, size_t count)
{
    __shared__ TileShared<T, 1024 / 32> shared;
    scan_stretch<T, Op, 1024, 1, 1>(totals, totals, 0, count, scan_identity<T, Op>(), true, false,
                                    shared);
}

template <typename T, typename Op>
__global__ void __launch_bounds__(RTS_THREADS)
    stretch_scan_kernel(const T *in, T *out, size_t n, size_t stretch, const T *totals,
                        bool exclusive)
{
    __shared__ TileShared<T, RTS_THREADS / 32> shared;
    const size_t begin = blockIdx.x * stretch;
    const size_t end = n - begin < stretch ? n : begin + stretch;
    scan_stretch<T, Op, RTS_THREADS, RTS_STEPS, 1>(in, out, begin, end, totals[blockIdx.x],
                                                   exclusive, false, shared);
}

/* The grid: resident blocks, fewer when there are fewer tiles; each block's
 * stretch is whole tiles. */
size_t rts_blocks(const wl_backend *backend, size_t n, size_t *stretch)
{
    const size_t tiles = scan_ceil_div(n, RTS_TILE);
    size_t most = (size_t)(backend->info.multiprocessors > 0 ? backend->info.multiprocessors : 1) *
                  RTS_BLOCKS_PER_SM;
    most = most < 8192 ? most : 8192;
    const size_t per_block = scan_ceil_div(tiles, most);
    *stretch = (per_block ? per_block : 1) * RTS_TILE;
    return scan_ceil_div(n, *stretch);
}

size_t rts_scratch(wl_backend *backend, const wl_problem *problem)
{
    size_t stretch = 0;
    const size_t blocks = rts_blocks(backend, problem->dim[0], &stretch);
    return blocks * warplab_dtype_size(problem->dtype);
}

template <typename T, typename Op> struct ReduceThenScan {
    static warplab_status launch(wl_backend *backend, const wl_launch *launch, void *)
    {
        const size_t n = wl_launch_count(launch);
        if (n == 0)
            return WARPLAB_OK;
        cudaStream_t stream = wl_cuda_stream(backend);
        size_t stretch = 0;
        const size_t blocks = rts_blocks(backend, n, &stretch);
        T *totals = static_cast<T *>(wl_view_ptr(launch->scratch));
        stretch_reduce_kernel<T, Op><<<(unsigned)blocks, RTS_THREADS, 0, stream>>>(
            scan_input<T>(launch), n, stretch, totals);
        warplab_status status = WL_CUDA_LAUNCHED(backend, "scan reduce_then_scan: reduce");
        if (status != WARPLAB_OK)
            return status;
        totals_scan_kernel<T, Op><<<1, 1024, 0, stream>>>(totals, blocks);
        status = WL_CUDA_LAUNCHED(backend, "scan reduce_then_scan: totals");
        if (status != WARPLAB_OK)
            return status;
        stretch_scan_kernel<T, Op><<<(unsigned)blocks, RTS_THREADS, 0, stream>>>(
            scan_input<T>(launch), scan_output<T>(launch), n, stretch, totals,
            scan_exclusive(launch));
        return WL_CUDA_LAUNCHED(backend, "scan reduce_then_scan: scan");
    }
};

const wl_impl reduce_then_scan_impl = {.ladder = "scan",
                                       .rung = "reduce_then_scan",
                                       .scratch_bytes = rts_scratch,
                                       .launch = scan_launch_rung<ReduceThenScan>};

} // namespace
