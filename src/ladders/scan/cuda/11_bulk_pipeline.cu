/* Rung bulk_pipeline (past the course: Hopper's bulk copy engine, PTX ISA
 * cp.async.bulk; the look-back of Merrill and Garland 2016, section 4),
 * warplab_scan's kernel on cuda. Kernel: bulk_pass.cuh.
 *
 * Over vectorized: the same look-back, but the tile's bytes no longer wait
 * in registers. A resident grid of blocks takes tiles from the ticket; in
 * each block loader warps have the copy engine load the next tiles, whole,
 * into a ring of shared-memory buffers and publish each tile's aggregate
 * as soon as its bytes are in, while the scanning warps take the oldest
 * buffer into registers, hand it back to the loader, look back and store
 * the results. The loads in flight no longer depend on the registers a
 * thread may keep, nor stop while a block waits for its look-back, and
 * each load is one bulk transfer of a whole tile. The buffer goes back
 * before the look-back: when the engine stored the results from the
 * buffer, it stayed out of the ring until the store had read it, and the
 * loads ran fewer tiles ahead.
 *
 * Shapes: the table below. Measured and not taken (scripts/scan_tune.cu,
 * H200, int32 at 2^28, against 569 us for a ring of 4 buffers of 16 KiB
 * whose results the engine stored, and 700 us for CUB): one tile a block
 * staged by the engine, no ring (720 us: the vectorized rung's limits with
 * the engine's transfers); one warp that
 * loads and scans in turn (1224 us: each A waits for the block's previous
 * look-back); the look-back reading 4 flags a lane, 128 a round (606 us);
 * the L2 evict-first hint on the copies (626 us); 256 threads x 4 or 8
 * accesses (607 us); 12 KiB tiles (612 us). And (the same program, its
 * variants on an H200 in one run, int32 at 2^28, copy 508 us, CUB 700 us):
 * the engine storing the results from the buffer, 16 KiB tiles and 4
 * buffers (570 us, 89.1-89.3% of the copy), 24 KiB (567 us) or 32 KiB
 * (564 us) tiles and 3 buffers; registers' stores with 16 KiB tiles and 4
 * or 6 buffers (563, 601 us), 32 KiB tiles (561 us), 8 KiB tiles (588-608
 * us); against 552 us (92.0%) for the large ring below. */
#include "bulk_pass.cuh"

namespace
{

/* Both rings store the results from registers. Small: 128 scanning
 * threads x 8 accesses of 16 bytes, 16 KiB tiles (4096 int or float, 2048
 * double), 3 buffers, one loader warp (4 blocks an SM). Large: 192 x 8,
 * 24 KiB tiles (6144 int or float, 3072 double), 3 buffers, a loader and a
 * reducer warp (3 blocks an SM). */
using SmallRing = BulkPass<128, 8, 3, false, true>;
using LargeRing = BulkPass<192, 8, 3, true, true>;

/* Elements from which warplab_scan takes the large ring, fitted on the
 * tuning sizes 2^20, 2^22, 2^24 and 2^28 (the cut between the two sizes
 * where the winner changes, at their geometric middle). Source:
 * scripts/scan_tune.cu on an H200, int32 sums, L2 flushed, medians of 41
 * (15 from 2^24): small / large ring 10.50 / 10.43 us at 2^20, 17.76 /
 * 18.82 at 2^22, 45.09 / 44.70 at 2^24, 578.8 / 552.5 at 2^28. */
constexpr size_t LARGE_RING_FROM = (size_t)1 << 23;

template <typename T, typename Op> struct BulkPipeline {
    static warplab_status launch(wl_backend *backend, const wl_launch *launch, void *)
    {
        if (wl_launch_count(launch) < LARGE_RING_FROM)
            return SmallRing::launch<T, Op>(backend, launch, "scan bulk_pipeline (16 KiB tiles)");
        return LargeRing::launch<T, Op>(backend, launch, "scan bulk_pipeline (24 KiB tiles)");
    }
};

/* The flags of the smaller tiles: enough for either ring. */
static_assert(SmallRing::items<int>() <= LargeRing::items<int>() &&
                  SmallRing::items<double>() <= LargeRing::items<double>(),
              "the small ring's tiles are the smaller");

void bulk_pipeline_describe(wl_backend *, const wl_launch *launch, char *text, size_t len)
{
    wl_format(text, len, "%s",
              wl_launch_count(launch) < LARGE_RING_FROM
                  ? "16 KiB tiles, 3 buffers, one loader warp, stores from registers"
                  : "24 KiB tiles, 3 buffers, a loader and a reducer warp, stores from "
                    "registers");
}

const wl_impl bulk_pipeline_impl = {.ladder = "scan",
                                    .rung = "bulk_pipeline",
                                    .scratch_bytes = SmallRing::scratch,
                                    .launch = scan_launch_rung<BulkPipeline>,
                                    .describe = bulk_pipeline_describe};

} // namespace
