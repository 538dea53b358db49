/* warplab_gemm_ex on 16-bit inputs (BF16, FP16) on cuda: the kernels of
 * ex16_gemm.cu and the per-shape choice among them and the two paths of
 * gemm_ex.cu (the TMA + wgmma kernel on K-major operands, the tiled
 * fallback). The choice is a cost model: deterministic for a shape, made
 * without allocation or synchronisation, host C in the kernels layer
 * (src/kernels/gemm_tiles16.h: wl_ex16_choose and its plan). */
#ifndef WARPLAB_GEMM_EX16_H
#define WARPLAB_GEMM_EX16_H

#include "../../kernels/gemm_tiles16.h"
#include "gemm_launch.h"

#ifdef __cplusplus
extern "C" {
#endif
/* Workspace bytes the plan's kernels need (split partial sums). */
size_t wl_ex16_scratch(wl_backend *backend, const wl_problem *p, const wl_ex16_plan *plan);
/* Runs a WL_EX16_MMA, WL_EX16_WGMMA or WL_EX16_THIN plan. */
warplab_status wl_ex16_run(wl_backend *backend, const wl_launch *launch, const wl_ex16_plan *plan);
void wl_ex16_describe(const wl_ex16_plan *plan, char *text, size_t len);
/* C[i * c_i + j * c_j] = alpha * (the splits' partial sums part[s][i][j],
 * added in split order) + beta * C, on the stream; C float, or 16-bit
 * (narrow; bf16 picks the type). */
warplab_status wl_ex16_finish(wl_backend *backend, bool bf16, const float *part, int splits,
                              int rows, int cols, void *c, long long c_i, long long c_j,
                              bool narrow, float alpha, float beta);
#ifdef __cplusplus
}
#endif

#endif
