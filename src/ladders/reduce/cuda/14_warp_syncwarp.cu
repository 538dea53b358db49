/* Rung warp_syncwarp (past the course: the fix of seed 001's warpReduce for
 * Volta and later).
 *
 * Over warp_volatile: the same unrolled last warp made correct. Each step
 * reads its partner into a register, waits for the whole warp (__syncwarp),
 * writes, and waits again before the next read: two warp barriers per step,
 * still no block barrier and no loop. */
#include "reduce_rungs.cuh"

namespace
{

template <typename T, typename Op> __device__ T warp_reduce_syncwarp(T *s, unsigned tid)
{
    T v = s[tid];
#pragma unroll
    for (unsigned offset = 32; offset > 0; offset >>= 1) {
        v = Op::apply(v, s[tid + offset]);
        __syncwarp();
        s[tid] = v;
        __syncwarp();
    }
    return v;
}

template <typename T, typename Op>
__global__ void warp_syncwarp_kernel(const T *in, T *out, size_t n)
{
    T *s = shared_array<T>();
    const unsigned tid = threadIdx.x;
    s[tid] = load_pair<T, Op>(in, n, blockDim.x);
    __syncthreads();
    tree_above_warp<T, Op>(s, tid);
    if (tid < 32) {
        const T v = warp_reduce_syncwarp<T, Op>(s, tid);
        if (tid == 0)
            out[blockIdx.x] = v;
    }
}

TREE_RUNG(WarpSyncwarp, warp_syncwarp_kernel, 512, 1024)

const wl_impl warp_syncwarp_impl = {.ladder = "reduce",
                                    .rung = "warp_syncwarp",
                                    .scratch_bytes = levels_scratch<WarpSyncwarp>,
                                    .launch = launch_rung<WarpSyncwarp>};

} // namespace
