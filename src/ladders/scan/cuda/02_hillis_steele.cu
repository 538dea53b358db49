/* Rung hillis_steele (GPU Gems 3, ch. 39.2.1: a naive parallel scan, after
 * Hillis and Steele 1986).
 *
 * Over the CPU loop: 1024 threads scan a 1024-element tile at once. Step d
 * (d = 1, 2, 4, ... 512) sets element i to x[i - d] op x[i] for i >= d:
 * after log2(1024) = 10 steps every element holds its prefix. Each step
 * reads what the step before wrote, so the tile lives in two shared-memory
 * arrays used in turn, with a barrier between steps. The work is n log n
 * operations instead of n, and the kernel is one block on one SM: it walks
 * the array tile by tile, carrying the running total in a register, while
 * every other SM idles. */
#include "scan_rungs.cuh"

namespace
{

constexpr unsigned HS_THREADS = 1024;

template <typename T, typename Op>
__global__ void __launch_bounds__(HS_THREADS)
    hillis_steele_kernel(const T *in, T *out, size_t n, bool exclusive)
{
    __shared__ T buffers[2][HS_THREADS];
    const unsigned tid = threadIdx.x;
    T carry = scan_identity<T, Op>();
    for (size_t base = 0; base < n; base += HS_THREADS) {
        const size_t i = base + tid;
        unsigned from = 0;
        buffers[0][tid] = i < n ? in[i] : scan_identity<T, Op>();
        __syncthreads();
        for (unsigned d = 1; d < HS_THREADS; d <<= 1) {
            const T mine = buffers[from][tid];
            buffers[1 - from][tid] = tid >= d ? Op::apply(buffers[from][tid - d], mine) : mine;
            from = 1 - from;
            __syncthreads();
        }
        if (i < n)
            out[i] = exclusive ? (tid == 0 ? carry : Op::apply(carry, buffers[from][tid - 1]))
                               : Op::apply(carry, buffers[from][tid]);
        carry = Op::apply(carry, buffers[from][HS_THREADS - 1]);
        __syncthreads();
    }
}

template <typename T, typename Op> struct HillisSteele {
    static warplab_status launch(wl_backend *backend, const wl_launch *launch, void *)
    {
        const size_t n = wl_launch_count(launch);
        if (n == 0)
            return WARPLAB_OK;
        hillis_steele_kernel<T, Op><<<1, HS_THREADS, 0, wl_cuda_stream(backend)>>>(
            scan_input<T>(launch), scan_output<T>(launch), n, scan_exclusive(launch));
        return WL_CUDA_LAUNCHED(backend, "scan hillis_steele");
    }
};

const wl_impl hillis_steele_impl = {
    .ladder = "scan", .rung = "hillis_steele", .launch = scan_launch_rung<HillisSteele>};

} // namespace
