/* Rung shuffle (seed 004, 'Shuffle warp reduce', 'Block reduce', 'Reduce
 * across blocks').
 *
 * Over cascade: a warp reduces in registers with __shfl_down_sync (no shared
 * memory, no barrier inside the warp); a block reduce combines the warps'
 * results through 32 words of shared memory (block_reduce, reduce_rungs.cuh);
 * seed 004's grid (512 threads, at most 1024 blocks) and a second kernel
 * <<<1, 1024>>> over the partials. */
#include "reduce_rungs.cuh"

namespace
{

template <typename T, typename Op> __global__ void shuffle_kernel(const T *in, T *out, size_t n)
{
    const T v = block_reduce<T, Op>(grid_stride_reduce<T, Op>(in, n));
    if (threadIdx.x == 0)
        out[blockIdx.x] = v;
}

/* Rung shuffle: seed 004's two kernels, 512 threads and at most 1024 blocks,
 * then <<<1, 1024>>> over the partials (one launch when n <= 1024). */
template <typename T, typename Op> struct Shuffle {
    using value_type = T;
    static LevelShape shape(const wl_backend *, size_t count)
    {
        if (count <= 1024)
            return {1024, 1};
        return {512, seed004_blocks(count)};
    }
    static cudaError_t level(LevelShape s, cudaStream_t stream, const T *src, T *dst, size_t count)
    {
        shuffle_kernel<T, Op><<<(unsigned)s.blocks, s.threads, 0, stream>>>(src, dst, count);
        return cudaSuccess;
    }
    static warplab_status launch(wl_backend *backend, const wl_launch *launch, void *)
    {
        return run_levels<Shuffle>(backend, launch, "reduce shuffle");
    }
};

const wl_impl shuffle_impl = {.ladder = "reduce",
                              .rung = "shuffle",
                              .scratch_bytes = levels_scratch<Shuffle>,
                              .launch = launch_rung<Shuffle>};

} // namespace
