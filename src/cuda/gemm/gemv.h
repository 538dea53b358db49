/* The launcher of the GEMV family (gemv.cuh): the planner's "gemv"
 * candidate on cuda. */
#ifndef WARPLAB_GEMM_GEMV_H
#define WARPLAB_GEMM_GEMV_H

#include "../../kernels/gemm_plan.h"
#include "gemm_launch.h"

#ifdef __cplusplus
extern "C" {
#endif
/* Runs a plan of schedule WL_GEMM_SCHEDULE_GEMV on the launch's views (A,
 * B, C as warplab_gemm_ex holds them), its partial sums in launch->scratch
 * (plan->scratch bytes). */
warplab_status wl_gemv_run(wl_backend *backend, const wl_launch *launch, const wl_gemm_route *plan);
/* The one split-K reduction: C[i * c_i + j * c_j] = alpha * (part[s][i][j]
 * summed in split order) + beta * C for i < rows, j < cols, C of c_kind
 * (WL_GEMV_F32, WL_GEMV_BF16, WL_GEMV_F16), on the stream, launched as the
 * dependent of the kernel that wrote part (gemm_launch.h). */
warplab_status wl_splitk_finish_launch(wl_backend *backend, const float *part, int splits, int rows,
                                       int cols, void *c, long long c_i, long long c_j, int c_kind,
                                       float alpha, float beta);
#ifdef __cplusplus
}
#endif

#endif
