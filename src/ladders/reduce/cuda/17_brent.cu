/* Rung brent (seed 004, attempt #7: "Brent's theorem"; seed 003,
 * 'Implementace 7': O(n / log n) threads, O(log n) sequential steps each).
 *
 * Over complete_unroll: the course's cascade as it argues it. Each thread
 * first combines about log2(n) elements in a grid-stride loop (two per trip,
 * coalesced), then the same unrolled tree: n / log2(n) threads, so the grid
 * still grows with n (at 2^28 floats: 18,725 blocks of 512), and the level
 * after it is tens of thousands of partials, not one block. The rung above
 * (cascade) sizes the grid to the GPU instead. */
#include "reduce_rungs.cuh"

namespace
{

/* Elements a thread combines before the tree: ceil(log2(count)), even (the
 * loop takes two a trip), at least 2. */
size_t brent_per_thread(size_t count)
{
    size_t log2 = 0;
    while (log2 < 63 && ((size_t)1 << log2) < count)
        log2++;
    const size_t even = (log2 + 1) / 2 * 2;
    return even < 2 ? 2 : even;
}

template <typename T, typename Op, unsigned LARGEST> struct BrentAt {
    using value_type = T;
    static LevelShape shape(const wl_backend *, size_t count)
    {
        const unsigned threads = unrolled_threads(count, LARGEST);
        return {threads, blocks_for(count, (size_t)threads * brent_per_thread(count))};
    }
    static cudaError_t level(LevelShape s, cudaStream_t stream, const T *src, T *dst, size_t count)
    {
        return launch_unrolled<true, T, Op>(s.threads, s.blocks, stream, src, dst, count);
    }
    static warplab_status launch(wl_backend *backend, const wl_launch *launch, void *)
    {
        return run_levels<BrentAt>(backend, launch, "reduce brent");
    }
};

/* At 512 threads: seed 001's block and warplab's. */
template <typename T, typename Op> using Brent = BrentAt<T, Op, 512>;

const wl_impl brent_impl = {.ladder = "reduce",
                            .rung = "brent",
                            .scratch_bytes = levels_scratch<Brent>,
                            .launch = launch_rung<Brent>};

} // namespace
