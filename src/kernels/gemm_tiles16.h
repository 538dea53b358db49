/* The 16-bit tile model (kernels layer, host C): the choice among
 * warplab_gemm_ex's 16-bit kernels on cuda (src/cuda/gemm/ex16_gemm.cu's
 * ex16_mma and ex16_thin, gemm_ex.cu's TMA path and tiled fallback,
 * wgmma_ex.sm90a.cu's wgmma kernel on the operands as stored) for one
 * problem: the kernel, its tile, the split of k (or stream-K shares) and the
 * operands re-strided first. A cost model, deterministic for a shape, made
 * without allocation or synchronisation, tested on the host
 * (tests/unit/test_gemm_tiles16.c). Its constants are rows of the planner's
 * tables (gemm_plan.c, WL_GM_EX16_*); the planner's ex16_chooser row
 * plans with it (WL_GEMM_SCHEDULE_MODELLED: the route carries its plan). */
#ifndef WARPLAB_KERNELS_GEMM_TILES16_H
#define WARPLAB_KERNELS_GEMM_TILES16_H

#include "internal.h"
#include "kernels/gemm_plan.h"

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ex16_mma's k tile (elements of k a stage of its cp.async ring); the
 * splits of k start on its multiples. */
#define EX16_BK 32

/* ex16_thin's geometry (src/cuda/gemm/ex16_thin.cuh). */
#define EX16_THIN_SMALL 64 /* the small side, at most */
#define EX16_THIN_WARPS 4  /* a block: warps on interleaved k steps of one strip */
#define EX16_THIN_COLS 64  /* a strip: 8 lanes x 8 columns */
#define EX16_THIN_STEP 32  /* k a warp step: 4 lanes x 8 */

#define EX16_WGMMA_NARROW 64     /* the 64 x 64 tile, one consumer (m <= 64) */
#define EX16_WGMMA_TALL 192      /* the 192 x 128 tile's rows: three consumers */
#define EX16_WGMMA_SWAP_WIDTH 96 /* the swapped product's tile: 128 rows of n x 96 of m */

/* wl_ex16_kind and wl_ex16_plan: gemm_plan.h (the route carries the plan). */

/* Tile configurations of ex16_mma: rows, columns, threads, the blocks an
 * SM holds at once (shared memory and registers), and the rows of their
 * measured mma.sync rates in the planner's tables (gemm_plan.h: an
 * SM's rate, its resident blocks sharing it; one block's, alone on an SM;
 * an SM's rate is about the same whatever the blocks on it). */
typedef struct wl_ex16_config {
    int bm, bn, threads, per_sm;
    wl_gemm_model_id sm_tflops, block_tflops;
} wl_ex16_config;
/* 0: 128 x 128 tiles (8 warps), 1: 64 x 64 (4 warps); wl_ex16_plan.tile of
 * WL_EX16_MMA. */
extern const wl_ex16_config wl_ex16_configs[2];

/* ex16_thin's view of a problem with one small side. */
typedef struct wl_ex16_thin_shape {
    bool small_m; /* X = op(B), Y = op(A); else X = op(A)^T, Y = op(B)^T */
    bool columns; /* X contiguous along big (else along k) */
    int big, small;
} wl_ex16_thin_shape;
wl_ex16_thin_shape wl_ex16_thin_shape_of(const wl_problem *p);

/* The tile width of warplab_gemm_batched_ex's wgmma kernel for `batch`
 * m x n x k products (k whole, C of c_bytes an element): 256 or 128
 * (128-row tiles) or 64 (the narrow 64 x 64 tile), by the 16-bit wgmma
 * model; its modelled time in predicted_us where not NULL. */
int wl_ex16_batched_tile(const warplab_device_info *device, size_t m, size_t n, size_t k,
                         size_t batch, int c_bytes, double *predicted_us);

/* The plan for a 16-bit problem (the problem's shape, ops, strides,
 * misalignment and WL_GEMM_EX16_FORCE_* bits) on a device (its SMs,
 * bandwidth and compute capability); tma_available: the TMA + wgmma path
 * runs on this device. */
wl_ex16_plan wl_ex16_choose(const warplab_device_info *device, const wl_problem *p,
                            bool tma_available);

#ifdef __cplusplus
}
#endif

#endif
