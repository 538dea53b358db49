/* Rung sequential (seed 001, 'Sequential Addressing'; seed 004, attempt #3).
 *
 * Over strided_index: the loop runs backwards, s from blockDim / 2 down, and
 * thread tid adds s[tid + s]: a warp reads 32 consecutive words, so no bank
 * conflicts, and no divergence until s < 32. Half the threads idle from the
 * first step on (what the next rung fixes). */
#include "reduce_rungs.cuh"

namespace
{

template <typename T, typename Op> __global__ void sequential_kernel(const T *in, T *out, size_t n)
{
    T *s = shared_array<T>();
    const unsigned tid = threadIdx.x;
    s[tid] = load_or_identity<T, Op>(in, n, blockIdx.x * (size_t)blockDim.x + tid);
    __syncthreads();
    for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (tid < stride)
            s[tid] = Op::apply(s[tid], s[tid + stride]);
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = s[0];
}

TREE_RUNG(Sequential, sequential_kernel, 512, 512)

const wl_impl sequential_impl = {.ladder = "reduce",
                                 .rung = "sequential",
                                 .scratch_bytes = levels_scratch<Sequential>,
                                 .launch = launch_rung<Sequential>};

} // namespace
