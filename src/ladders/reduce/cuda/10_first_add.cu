/* Rung first_add (seed 001, 'First Add During Load'; seed 004, attempt #4).
 *
 * Over sequential: each thread loads two elements, i and i + blockDim, and
 * adds them before the tree (load_pair, reduce_rungs.cuh): half the blocks,
 * and no thread idles in the first step. */
#include "reduce_rungs.cuh"

namespace
{

template <typename T, typename Op> __global__ void first_add_kernel(const T *in, T *out, size_t n)
{
    T *s = shared_array<T>();
    const unsigned tid = threadIdx.x;
    s[tid] = load_pair<T, Op>(in, n, blockDim.x);
    __syncthreads();
    for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (tid < stride)
            s[tid] = Op::apply(s[tid], s[tid + stride]);
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = s[0];
}

TREE_RUNG(FirstAdd, first_add_kernel, 512, 1024)

const wl_impl first_add_impl = {.ladder = "reduce",
                                .rung = "first_add",
                                .scratch_bytes = levels_scratch<FirstAdd>,
                                .launch = launch_rung<FirstAdd>};

} // namespace
