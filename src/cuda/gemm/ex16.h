/* warplab_gemm_ex on 16-bit inputs (BF16, FP16) on cuda: the kernels of
 * ex16_gemm.cu and the per-shape choice among them and the two paths of
 * gemm_ex.cu (the TMA + wgmma kernel on K-major operands, the tiled
 * fallback). The choice is a cost model: deterministic for a shape, made
 * without allocation or synchronisation. */
#ifndef WARPLAB_GEMM_EX16_H
#define WARPLAB_GEMM_EX16_H

#include "gemm_launch.h"

/* ex16_thin's small side, at most (ex16_thin.cuh: EX16_THIN_SMALL). */
#define WL_EX16_THIN_SMALL 64

typedef enum wl_ex16_kind {
    WL_EX16_MMA,   /* mma.sync m16n8k16 on the operands as stored, split k */
    WL_EX16_TMA,   /* gemm_ex.cu: K-major copies where needed, TMA + wgmma */
    WL_EX16_TILED, /* gemm_ex.cu: the CUDA-core fallback (k = 0, no sm_80) */
    WL_EX16_WGMMA, /* wgmma_ex.sm90a.cu: TMA + wgmma on the operands as stored, split k */
    WL_EX16_THIN   /* m or n <= 64: ex16_thin (mma.sync from registers, split k; forced only) */
} wl_ex16_kind;

typedef struct wl_ex16_plan {
    wl_ex16_kind kind;
    int tile;   /* WL_EX16_MMA: 0 = 128 x 128 tiles, 1 = 64 x 64; WL_EX16_WGMMA: 128 x tile,
                 * or 64 x 64 for tile 64 (m <= 64); WL_EX16_THIN: 16-row tiles of the small
                 * side (1, 2 or 4) */
    int splits; /* k split in this many parts (summed in order afterwards) */
    int k_chunk;
    /* WL_EX16_WGMMA: operands whose rows are not 16-byte aligned (TMA's
     * strides must be), copied first into the workspace with 16-byte rows,
     * in their stored layout: bit 0 A, bit 1 B. */
    int restride;
    /* WL_EX16_WGMMA with n = 1: the transposed problem, C^T (1 x m) =
     * B^T A^T, so that y = A x streams A through the narrow tile as B. */
    bool transposed;
    /* WL_EX16_WGMMA with one split of 128-row tiles: the last wave's k tiles
     * in this many stream-K shares over the SMs (stream_k.cuh); 0: whole
     * tiles. */
    int sk_workers;
    double predicted_us;
} wl_ex16_plan;

#ifdef __cplusplus
extern "C" {
#endif
/* The plan for a 16-bit problem; tma_available: the TMA + wgmma path runs
 * on this device. */
wl_ex16_plan wl_ex16_choose(wl_backend *backend, const wl_problem *p, bool tma_available);
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
