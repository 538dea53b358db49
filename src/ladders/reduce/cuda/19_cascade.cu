/* Rung cascade (seed 004, attempt #7; seed 003, 'Implementace 7'), today's
 * grid.
 *
 * Over brent: the grid no longer grows with n; it just fills the GPU (every
 * SM's resident blocks), so each thread combines n / (that many threads)
 * elements (about 1000 at 2^28 on an H100) in the same grid-stride loop, and
 * the next level is a single block: one launch less, and no partials to
 * write and read back. */
#include "reduce_rungs.cuh"

namespace
{

template <typename T, typename Op> struct Cascade {
    using value_type = T;
    static LevelShape shape(const wl_backend *backend, size_t count)
    {
        const unsigned threads = unrolled_threads(count);
        return {threads, wl_cuda_grid_for(backend, (count + 1) / 2, threads)};
    }
    static cudaError_t level(LevelShape s, cudaStream_t stream, const T *src, T *dst, size_t count)
    {
        return launch_unrolled<true, T, Op>(s.threads, s.blocks, stream, src, dst, count);
    }
    static warplab_status launch(wl_backend *backend, const wl_launch *launch, void *)
    {
        return run_levels<Cascade>(backend, launch, "reduce cascade");
    }
};

const wl_impl cascade_impl = {.ladder = "reduce",
                              .rung = "cascade",
                              .scratch_bytes = levels_scratch<Cascade>,
                              .launch = launch_rung<Cascade>};

} // namespace
