/* Rung global_atomics (seeds 002 and 004, atomics; PMPP ch. 9.3).
 *
 * Over the CPU loop: one thread per sample in a grid-stride loop, each
 * increment an atomicAdd on the global counts. Atomics make the parallel
 * increments correct (a plain read-add-write would lose updates), but each
 * is a round trip to the L2, and when many threads hit one bin they queue on
 * one address: skewed data, every sample in one bin, is this rung's worst
 * case, the atomics probe's one-address row. */
#include "histogram_rungs.cuh"

namespace
{

template <typename S>
__global__ void global_atomics_kernel(const S *__restrict__ in, size_t n, unsigned *counts,
                                      wl_histogram_rule rule)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        const int bin = output_bin(in[i], rule);
        if (bin >= 0)
            atomicAdd(&counts[bin], 1u);
    }
}

warplab_status global_atomics_launch(wl_backend *backend, const wl_launch *launch, void *)
{
    warplab_status status = zero_counts(backend, launch);
    const size_t n = launch->problem->dim[0];
    if (status != WARPLAB_OK || n == 0)
        return status;
    return with_sample(launch->problem, [&](auto sample) {
        using S = decltype(sample);
        const unsigned grid = wl_cuda_grid_for(backend, n, BLOCK);
        global_atomics_kernel<S><<<grid, BLOCK, 0, wl_cuda_stream(backend)>>>(
            samples_of<S>(launch), n, counts_of(launch), wl_histogram_rule_of(launch->problem));
        return WL_CUDA_LAUNCHED(backend, "histogram global_atomics");
    });
}

const wl_impl global_atomics_impl = {
    .ladder = "histogram", .rung = "global_atomics", .launch = global_atomics_launch};

} // namespace
