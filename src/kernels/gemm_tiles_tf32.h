/* The TF32 tile model (kernels layer, host C): the choice among
 * warplab_gemm_ex's TF32 paths on cuda for float operands with TF32
 * compute (src/cuda/gemm/gemm_ex.cu): the FP32 dispatcher (op N, N), the
 * small-tile mma.sync kernel (src/cuda/gemm/tf32_tiles.cu, its tile and
 * split of k) and the TMA + wgmma kernel (its width, split of k, and the
 * operands copied first). A cost model, deterministic for a shape, made
 * without allocation or synchronisation, tested on the host
 * (tests/unit/test_gemm_tiles_tf32.c). Its constants are rows of the
 * planner's tables (gemm_plan.c, WL_GM_TF32_*) or the small tiles' below
 * (gemm_tiles_tf32.c); the planner's tf32_chooser row plans with it
 * (WL_GEMM_SCHEDULE_MODELLED: the route carries its plan). */
#ifndef WARPLAB_KERNELS_GEMM_TILES_TF32_H
#define WARPLAB_KERNELS_GEMM_TILES_TF32_H

#include "internal.h"
#include "kernels/gemm_plan.h"

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The small-tile kernel's k tile (tf32_tiles.cuh); its splits of k are
 * whole multiples of it. */
#define TF32T_BK 32

/* Skinny problems (m or n of at most this, k > 0) are the FP32
 * dispatcher's or the GEMV family's (gemv.cuh), as the planner
 * (gemm_plan.h) plans them: no tile kernel. */
#define WL_GEMM_EX_SKINNY 8

/* The TF32 small-tile kernel on row-major float A and B in either op, with
 * a deterministic split of k (tf32_tiles.cu): its plan (tile and split). */
typedef enum wl_tf32_tile {
    WL_TF32_TILE_64X64,
    WL_TF32_TILE_128X64,
    WL_TF32_TILE_128X128,
    WL_TF32_TILE_COUNT
} wl_tf32_tile;
/* A tile's rows (of m), columns (of n), the blocks an SM holds, the
 * fraction of the SM's tensor rate it reaches with the SM full, and its
 * rung's suffix (gemm_tiles_tf32.c: measured). */
typedef struct wl_tf32_tile_kind {
    int bm, bn, resident;
    double efficiency;
    const char *name;
} wl_tf32_tile_kind;
extern const wl_tf32_tile_kind wl_tf32_tile_kinds[WL_TF32_TILE_COUNT];
/* wl_tf32_tiles_plan: gemm_plan.h (the route carries the plan). */
/* aligned: the rows of A and B are 16-byte aligned (16-byte copies); sms
 * and bandwidth_gbs 0 where unknown. plan_for: the best split for one
 * tile; choose: the best tile and split. */
wl_tf32_tiles_plan wl_tf32_tiles_plan_for(int tile, size_t m, size_t n, size_t k, int sms,
                                          double bandwidth_gbs, int aligned);
wl_tf32_tiles_plan wl_tf32_tiles_choose(size_t m, size_t n, size_t k, int sms, double bandwidth_gbs,
                                        int aligned);
size_t wl_tf32_tiles_scratch(const wl_tf32_tiles_plan *plan, size_t m, size_t n);
void wl_tf32_tiles_describe(const wl_tf32_tiles_plan *plan, char *text, size_t len);

/* wl_tf32_route and wl_tf32_plan: gemm_plan.h (the route carries the plan). */

/* The plan for a problem with float operands and TF32 compute (its shape,
 * ops, strides, misalignment and WL_GEMM_EX16_FORCE_WGMMA) on a device (its
 * SMs, FP32 peak, bandwidth and compute capability); WL_TF32_ROUTE_OTHER
 * for any other problem or an empty one. fp32_dispatcher: the FP32
 * dispatcher runs the problem with FP32 compute on this device (read for
 * op N, N alone); tma_available: the TMA + wgmma path runs on this device. */
wl_tf32_plan wl_tf32_choose(const warplab_device_info *device, const wl_problem *p,
                            bool fp32_dispatcher, bool tma_available);

#ifdef __cplusplus
}
#endif

#endif
