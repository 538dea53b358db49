/* Rung atomic_block (seed 004, 'Use atomics to optimize reductions', block
 * variant).
 *
 * Over atomic_warp: a block reduce first, then one atomic per block: 16 times
 * fewer atomics on the one address than one per warp. */
#include "reduce_rungs.cuh"

namespace
{

template <typename T, typename Op>
__global__ void atomic_block_kernel(const T *in, T *out, size_t n)
{
    const T v = block_reduce<T, Op>(grid_stride_reduce<T, Op>(in, n));
    if (threadIdx.x == 0)
        atomic_combine<Op>(out, v);
}

template <typename T, typename Op> struct AtomicBlock {
    static warplab_status launch(wl_backend *backend, const wl_launch *launch, void *)
    {
        return run_atomic<T, Op>(backend, launch, atomic_block_kernel<T, Op>,
                                 "reduce atomic_block");
    }
};

const wl_impl atomic_block_impl = {
    .ladder = "reduce", .rung = "atomic_block", .launch = launch_rung<AtomicBlock>};

} // namespace
