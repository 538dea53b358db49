/* warplab_gemm_ex's FP32-compute path for transposed float operands on cuda
 * (the planner's fp32_dispatch_copy row, src/kernels/gemm_plan.c): each operand
 * of op T is copied, transposed, into the workspace by the transpose
 * ladder's best rung (warplab_transpose's kernel), and the FP32 dispatcher
 * (dispatch.cu, wl_gemm_choose) runs the N, N product on the copies: the
 * same kernels, splits and exact FP32 sums as warplab_gemm. */
#ifndef WARPLAB_GEMM_FP32_COPY_H
#define WARPLAB_GEMM_FP32_COPY_H

#include "gemm_launch.h"

/* Workspace bytes for a problem (FP32, op_a or op_b T): the copies and the
 * dispatcher's own (split-K partial sums, B re-strided; the caller's
 * operand priced 16-byte aligned and not, the planner's plans of the
 * dispatcher on each). SIZE_MAX when the
 * count does not fit in a size_t (the allocation then fails). */
size_t wl_fp32_copy_scratch(wl_backend *backend, const wl_problem *p);
/* Copies, then the dispatcher's kernels on plan (the fp32_dispatch_copy
 * route's: the dispatcher's plan on the copies), on the backend's stream. */
warplab_status wl_fp32_copy_run(wl_backend *backend, const wl_launch *launch,
                                const wl_gemm_plan *plan);
/* "A^T and B^T copied (transpose vectorized_out), then <plan>". */
void wl_fp32_copy_describe(wl_backend *backend, const wl_launch *launch, const wl_gemm_plan *plan,
                           char *text, size_t len);

#endif
