/* Rung strided_index (seed 001, 'Interleaved Addressing without divergence';
 * seed 004, attempt #2).
 *
 * Over interleaved: index = 2 * s * tid, so the working threads are the first
 * ones and whole warps retire together: the branch no longer diverges inside
 * a warp until fewer than 32 threads work. But neighbouring threads now touch
 * words 2s apart in shared memory: bank conflicts (what the next rung fixes). */
#include "reduce_rungs.cuh"

namespace
{

template <typename T, typename Op>
__global__ void strided_index_kernel(const T *in, T *out, size_t n)
{
    T *s = shared_array<T>();
    const unsigned tid = threadIdx.x;
    s[tid] = load_or_identity<T, Op>(in, n, blockIdx.x * (size_t)blockDim.x + tid);
    __syncthreads();
    for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
        const unsigned index = 2 * stride * tid;
        if (index < blockDim.x)
            s[index] = Op::apply(s[index], s[index + stride]);
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = s[0];
}

TREE_RUNG(StridedIndex, strided_index_kernel, 512, 512)

const wl_impl strided_index_impl = {.ladder = "reduce",
                                    .rung = "strided_index",
                                    .scratch_bytes = levels_scratch<StridedIndex>,
                                    .launch = launch_rung<StridedIndex>};

} // namespace
