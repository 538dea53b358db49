/* The small mma.sync kernel's geometry (kernels layer, host and device):
 * src/cuda/gemm/small_mma.cuh runs it, the planner's small_mma rows
 * (gemm_plan.c) price it. One kernel family for BF16, FP16 (m16n8k16) and
 * TF32 (m16n8k8): a small GEMM whose operands' rows sit anywhere (2-byte
 * aligned 16-bit rows included) in one launch, no copy, no split of k. */
#ifndef WARPLAB_KERNELS_GEMM_SMALL_MMA_H
#define WARPLAB_KERNELS_GEMM_SMALL_MMA_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* k a stage (elements of either type), threads a block (4 warps, 2 x 2 over
 * the tile). */
#define WL_SMALL_MMA_BK 32
#define WL_SMALL_MMA_THREADS 128

/* The tiles: 32 x 32 (warps of 16 x 16) or 64 x 64 (warps of 32 x 32). */
enum { WL_SMALL_MMA_TILE_32 = 0, WL_SMALL_MMA_TILE_64 = 1 };
/* k stages a thread keeps in flight in registers, by the tile's rows: 3 at
 * 32 x 32 (16 elements a stage: k <= 96 waits one memory round trip), 2 at
 * 64 x 64 (32 a stage). Not measured. */
#define WL_SMALL_MMA_DEPTH(rows) ((rows) <= 32 ? 3 : 2)

/* The planner takes the rows only where A's or B's rows are off 16 bytes,
 * min(m, n) is past the GEMV family's small sides and m, n and k are each
 * at most this (a preference: forced by name, any size runs). H200,
 * scripts/small_mma_timing.sh: 5.6-9.3 us up to 201^3 against the
 * re-striding path's 9.0-10.1, 11.2-12.6 at 333^3 against 10.7-11.1. */
#define WL_SMALL_MMA_PLANNED_MAX 256

/* The tile for m x n on `sms` SMs (0: unknown, 132 priced): 32 x 32 while
 * its tiles make at most 4 a SM (a latency-bound product: the more blocks
 * on the k loop's round trips the better), 64 x 64 past that (a quarter of
 * the blocks, each operand element loaded by half as many blocks). */
static inline int wl_small_mma_tile(size_t m, size_t n, int sms)
{
    const size_t tiles = ((m + 31) / 32) * ((n + 31) / 32);
    return tiles <= 4 * (size_t)(sms > 0 ? sms : 132) ? WL_SMALL_MMA_TILE_32 : WL_SMALL_MMA_TILE_64;
}

#ifdef __cplusplus
}
#endif

#endif
