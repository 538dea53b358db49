/* Rung bulk_pipeline (past the course: Hopper's bulk copy engine, PTX ISA
 * cp.async.bulk; the look-back of Merrill and Garland 2016, section 4),
 * warplab_scan's kernel on cuda. Kernel: bulk_pass.cuh.
 *
 * Over vectorized: the same look-back, but the tile's bytes no longer wait
 * in registers. A resident grid of blocks takes tiles from the ticket; in
 * each block loader warps have the copy engine load the next tiles, whole,
 * into a ring of shared-memory buffers and publish each tile's aggregate
 * as soon as its bytes are in, while the scanning warps scan the oldest
 * buffer, look back, write the results over it and have the engine store
 * it. The loads in flight no longer depend on the registers a thread may
 * keep, nor stop while a block waits for its look-back, and each global
 * access is one bulk transfer of a whole 16 KiB tile.
 *
 * Shapes: the table below. Measured and not taken (scripts/scan_tune.cu,
 * H200, int32 at 2^28, against 569 us for the large ring and 700 us for
 * CUB): one tile a block staged by the engine, no ring (720 us: the
 * vectorized rung's limits with the engine's transfers); one warp that
 * loads and scans in turn (1224 us: each A waits for the block's previous
 * look-back); the look-back reading 4 flags a lane, 128 a round (606 us);
 * the L2 evict-first hint on the copies (626 us); 256 threads x 4 or 8
 * accesses (607 us); 12 KiB tiles (612 us). */
#include "bulk_pass.cuh"

namespace
{

/* 128 scanning threads x 8 accesses of 16 bytes: 16 KiB tiles (4096 int or
 * float, 2048 double); a ring of 3 buffers with one loader warp (4 blocks
 * an SM), or of 4 with a loader and a reducer warp (3 blocks an SM). */
using SmallRing = BulkPass<128, 8, 3, false>;
using LargeRing = BulkPass<128, 8, 4, true>;

/* Elements from which warplab_scan takes the large ring. Source:
 * scripts/scan_tune.cu on an H200, int32 sums, medians of 15, L2 flushed:
 * small ring against large ring 17.5 us / 19.8 us at 2^22, 44.2 / 45.0 at
 * 2^24, 156 / 150 at 2^26, 587 / 569 at 2^28, 2340 / 2249 at 2^30. */
constexpr size_t LARGE_RING_FROM = (size_t)1 << 25;

template <typename T, typename Op> struct BulkPipeline {
    static warplab_status launch(wl_backend *backend, const wl_launch *launch, void *)
    {
        if (wl_launch_count(launch) < LARGE_RING_FROM)
            return SmallRing::launch<T, Op>(backend, launch, "scan bulk_pipeline (3 buffers)");
        return LargeRing::launch<T, Op>(backend, launch, "scan bulk_pipeline (4 buffers)");
    }
};

static_assert(SmallRing::items<int>() == LargeRing::items<int>() &&
                  SmallRing::items<double>() == LargeRing::items<double>(),
              "one scratch size for both rings");

void bulk_pipeline_describe(wl_backend *, const wl_launch *launch, char *text, size_t len)
{
    wl_format(text, len, "%s",
              wl_launch_count(launch) < LARGE_RING_FROM
                  ? "16 KiB tiles, 3 buffers, one loader warp"
                  : "16 KiB tiles, 4 buffers, a loader and a reducer warp");
}

const wl_impl bulk_pipeline_impl = {.ladder = "scan",
                                    .rung = "bulk_pipeline",
                                    .scratch_bytes = SmallRing::scratch,
                                    .launch = scan_launch_rung<BulkPipeline>,
                                    .describe = bulk_pipeline_describe};

} // namespace
