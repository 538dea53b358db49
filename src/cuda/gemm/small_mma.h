/* warplab_gemm_ex's small mma.sync kernel on cuda (small_mma.cuh): the
 * planner's small_mma and small_mma_tf32 rows (src/kernels/gemm_plan.c). */
#ifndef WARPLAB_GEMM_SMALL_MMA_H
#define WARPLAB_GEMM_SMALL_MMA_H

#include "../../kernels/gemm_plan.h"
#include "gemm_launch.h"

#ifdef __cplusplus
extern "C" {
#endif
/* Runs the launch's problem (16-bit inputs with FP32 compute, or float
 * inputs with TF32 compute; k > 0) in one launch, no workspace, in the
 * route's tiles (32 x 32 or 64 x 64: the planner's, wl_small_mma_tile). */
warplab_status wl_small_mma_run(wl_backend *backend, const wl_launch *launch,
                                const wl_gemm_route *route);
void wl_small_mma_describe(const wl_launch *launch, const wl_gemm_route *route, char *text,
                           size_t len);
#ifdef __cplusplus
}
#endif

#endif
