/* Rung atomic_warp (seed 004, 'Use atomics to optimize reductions').
 *
 * Over shuffle: the same grid-stride sum and warp reduce, then lane 0 of
 * every warp combines into the result atomically: one kernel after the
 * result's initialisation, no second level, but every warp's atomic lands on
 * one address. Float min and max go through compare-and-swap
 * (atomic_combine, reduce_rungs.cuh). */
#include "reduce_rungs.cuh"

namespace
{

template <typename T, typename Op> __global__ void atomic_warp_kernel(const T *in, T *out, size_t n)
{
    const T v = warp_reduce_shuffle<T, Op>(grid_stride_reduce<T, Op>(in, n));
    if (threadIdx.x % 32 == 0)
        atomic_combine<Op>(out, v);
}

template <typename T, typename Op> struct AtomicWarp {
    static warplab_status launch(wl_backend *backend, const wl_launch *launch, void *)
    {
        return run_atomic<T, Op>(backend, launch, atomic_warp_kernel<T, Op>, "reduce atomic_warp");
    }
};

const wl_impl atomic_warp_impl = {
    .ladder = "reduce", .rung = "atomic_warp", .launch = launch_rung<AtomicWarp>};

} // namespace
