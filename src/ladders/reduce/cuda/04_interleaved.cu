/* Rung interleaved (seed 001, 'Interleaved Addressing'; seed 004, attempt #1).
 *
 * Over naive: a 512-thread block loads its elements into shared memory once
 * and halves them there with barriers, writing one partial per block; the
 * levels are now over blocks, not over pairs, so global memory is read once
 * and written once per level. The branch tid % (2s) == 0 scatters the working
 * threads over every warp: all warps diverge (what the next rung fixes). */
#include "reduce_rungs.cuh"

namespace
{

/* Rung interleaved (seed 001 reduce0, seed 004 attempt #1): one element per */
/* thread into shared memory, then a tree with the divergent branch          */
/* tid % (2s) == 0. Threads past n load the identity, so the tree never      */
/* needs n to be a power of two.                                             */

template <typename T, typename Op> __global__ void interleaved_kernel(const T *in, T *out, size_t n)
{
    T *s = shared_array<T>();
    const unsigned tid = threadIdx.x;
    s[tid] = load_or_identity<T, Op>(in, n, blockIdx.x * (size_t)blockDim.x + tid);
    __syncthreads();
    for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
        if (tid % (2 * stride) == 0)
            s[tid] = Op::apply(s[tid], s[tid + stride]);
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = s[0];
}

/* 512 threads per block, the course's (seed 001: "Set the GPU thread block
 * size to 512 threads"). */
TREE_RUNG(Interleaved, interleaved_kernel, 512, 512)

const wl_impl interleaved_impl = {.ladder = "reduce",
                                  .rung = "interleaved",
                                  .scratch_bytes = levels_scratch<Interleaved>,
                                  .launch = launch_rung<Interleaved>};

} // namespace
