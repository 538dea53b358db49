/* The launcher of the GEMV family (gemv.cuh): the planner's "gemv"
 * candidate on cuda. */
#ifndef WARPLAB_GEMM_GEMV_H
#define WARPLAB_GEMM_GEMV_H

#include "../../ops/gemm_plan.h"
#include "gemm_launch.h"

#ifdef __cplusplus
extern "C" {
#endif
/* Runs a plan of schedule WL_GEMM_SCHEDULE_GEMV on the launch's views (A,
 * B, C as warplab_gemm_ex holds them), its partial sums in launch->scratch
 * (plan->scratch bytes). */
warplab_status wl_gemv_run(wl_backend *backend, const wl_launch *launch, const wl_gemm_route *plan);
#ifdef __cplusplus
}
#endif

#endif
