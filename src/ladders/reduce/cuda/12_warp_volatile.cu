/* Rung warp_volatile (seed 001, 'Loop unroll'; seed 004, attempt #5, as the
 * course wrote it).
 *
 * Over first_add: once 32 threads are left, the last six steps run without
 * barriers, unrolled, trusting the warp's lockstep through a volatile
 * pointer: no __syncthreads and no loop for the last warp. On Volta and later
 * the lanes of a warp are scheduled independently: lane t may read
 * s[t + 16] before lane t + 16 has written it. A data race, kept to show it
 * (racecheck reports it; the rung is flagged unsafe and never picked). */
#include "reduce_rungs.cuh"

namespace
{

template <typename T, typename Op> __device__ void warp_reduce_volatile(volatile T *s, unsigned tid)
{
    s[tid] = Op::apply((T)s[tid], (T)s[tid + 32]);
    s[tid] = Op::apply((T)s[tid], (T)s[tid + 16]);
    s[tid] = Op::apply((T)s[tid], (T)s[tid + 8]);
    s[tid] = Op::apply((T)s[tid], (T)s[tid + 4]);
    s[tid] = Op::apply((T)s[tid], (T)s[tid + 2]);
    s[tid] = Op::apply((T)s[tid], (T)s[tid + 1]);
}

template <typename T, typename Op>
__global__ void warp_volatile_kernel(const T *in, T *out, size_t n)
{
    T *s = shared_array<T>();
    const unsigned tid = threadIdx.x;
    s[tid] = load_pair<T, Op>(in, n, blockDim.x);
    __syncthreads();
    tree_above_warp<T, Op>(s, tid);
    if (tid < 32)
        warp_reduce_volatile<T, Op>(s, tid);
    if (tid == 0)
        out[blockIdx.x] = s[0];
}

TREE_RUNG(WarpVolatile, warp_volatile_kernel, 512, 1024)

const wl_impl warp_volatile_impl = {.ladder = "reduce",
                                    .rung = "warp_volatile",
                                    .scratch_bytes = levels_scratch<WarpVolatile>,
                                    .launch = launch_rung<WarpVolatile>};

} // namespace
