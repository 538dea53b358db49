/* Rung complete_unroll (seed 001, 'Complete Unroll / Static Unroll'; seed
 * 004, attempt #6).
 *
 * Over warp_syncwarp: the block size is a template parameter, and a switch
 * picks the instance (512 down to 1; smaller blocks for the small levels), so
 * every "if (BLOCK >= ...)" is decided at compile time and the whole tree is
 * straight-line code (unrolled_kernel and launch_unrolled, reduce_rungs.cuh,
 * shared with cascade). */
#include "reduce_rungs.cuh"

namespace
{

/* Rung complete_unroll: the block size of each level chosen at run time
 * (LARGEST threads, fewer for small levels) and dispatched to its template
 * instance. */
template <typename T, typename Op, unsigned LARGEST> struct CompleteUnrollAt {
    using value_type = T;
    static LevelShape shape(const wl_backend *, size_t count)
    {
        const unsigned threads = unrolled_threads(count, LARGEST);
        return {threads, blocks_for(count, 2 * (size_t)threads)};
    }
    static cudaError_t level(LevelShape s, cudaStream_t stream, const T *src, T *dst, size_t count)
    {
        return launch_unrolled<false, T, Op>(s.threads, s.blocks, stream, src, dst, count);
    }
    static warplab_status launch(wl_backend *backend, const wl_launch *launch, void *)
    {
        return run_levels<CompleteUnrollAt>(backend, launch, "reduce complete_unroll");
    }
};

/* At 512 threads: seed 001's block and warplab's. */
template <typename T, typename Op> using CompleteUnroll = CompleteUnrollAt<T, Op, 512>;

const wl_impl complete_unroll_impl = {.ladder = "reduce",
                                      .rung = "complete_unroll",
                                      .scratch_bytes = levels_scratch<CompleteUnroll>,
                                      .launch = launch_rung<CompleteUnroll>};

} // namespace
