/* The tile choosers' constants, rows of the planner's tables (src/ops/
 * gemm_plan.c, beside its candidates): the 16-bit tile model of
 * wl_ex16_choose (src/cuda/gemm/ex16_gemm.cu) and the TF32 one of
 * tf32_choose (src/cuda/gemm/gemm_ex.cu), which the planner's ex16_chooser
 * and tf32_chooser rows delegate to. Each row: its chooser, its name, its
 * value and the measurement it came from; the choosers read the values
 * through wl_gemm_model. Host C, no GPU (tests/unit/test_gemm_plan.c checks
 * the rows). A header of its own so that the kernels' translation units
 * that include gemm_plan.h do not rebuild when a constant moves. */
#ifndef WARPLAB_OPS_GEMM_TILE_MODELS_H
#define WARPLAB_OPS_GEMM_TILE_MODELS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum wl_gemm_model_id {
    /* wl_ex16_choose: mma.sync tiles (ex16_mma) */
    WL_GM_EX16_MMA128_SM_TFLOPS,
    WL_GM_EX16_MMA128_BLOCK_TFLOPS,
    WL_GM_EX16_MMA64_SM_TFLOPS,
    WL_GM_EX16_MMA64_BLOCK_TFLOPS,
    WL_GM_EX16_MMA_FIXED_US,
    WL_GM_EX16_MMA_BANDWIDTH,
    WL_GM_EX16_MMA_SPLIT_US,
    WL_GM_EX16_MMA_UNALIGNED_SLOWER,
    /* the TMA path on K-major copies */
    WL_GM_EX16_TMA_FIXED_US,
    WL_GM_EX16_TMA_COPY_BANDWIDTH,
    WL_GM_EX16_TMA_COPY_US,
    WL_GM_EX16_TMA_UNALIGNED_COPY_BANDWIDTH,
    WL_GM_EX16_TMA_UNALIGNED_COPY_US,
    /* wgmma on the operands as stored (and the TMA path's rate) */
    WL_GM_EX16_WGMMA_SM_TFLOPS,
    WL_GM_EX16_WGMMA_128_RATE,
    WL_GM_EX16_WGMMA_UNIT_US,
    WL_GM_EX16_WGMMA_FIXED_US,
    WL_GM_EX16_WGMMA_BANDWIDTH,
    WL_GM_EX16_SM_STREAM_GBS,
    WL_GM_EX16_WGMMA_SPLIT_US,
    WL_GM_EX16_SPLIT_SUMS_BANDWIDTH,
    WL_GM_EX16_RESTRIDE_US,
    WL_GM_EX16_RESTRIDE_BANDWIDTH,
    WL_GM_EX16_LINE_COST_64,
    WL_GM_EX16_LINE_COST_32,
    WL_GM_EX16_LINE_COST_OFF,
    WL_GM_EX16_LINE_COST_WIDE,
    WL_GM_EX16_SK_FIXED_US,
    WL_GM_EX16_SK_HANDOVER_BANDWIDTH,
    /* ex16_thin (forced only) */
    WL_GM_EX16_THIN_BLOCKS_SM,
    WL_GM_EX16_THIN_BANDWIDTH,
    /* tf32_choose */
    WL_GM_TF32_SM_GFLOPS,
    WL_GM_TF32_128_SM_GFLOPS,
    WL_GM_TF32_RS_RATE,
    WL_GM_TF32_FIXED_US,
    WL_GM_TF32_COPY_LAUNCH_US,
    WL_GM_TF32_BANDWIDTH,
    WL_GM_TF32_COPY_BANDWIDTH,
    WL_GM_TF32_UNIT_US,
    WL_GM_TF32_SPLIT_US,
    WL_GM_TF32_SPLIT_SUMS_BANDWIDTH,
    WL_GM_TF32_LINE_128_SLOWER,
    WL_GM_TF32_LINE_COST_64,
    WL_GM_TF32_LINE_COST_32,
    WL_GM_TF32_LINE_COST_OFF_KMAJOR,
    WL_GM_TF32_LINE_COST_OFF,
    WL_GM_TF32_SKINNY_M16_FACTOR,
    WL_GEMM_MODEL_COUNT
} wl_gemm_model_id;

typedef struct wl_gemm_model_constant {
    wl_gemm_model_id id;
    const char *chooser; /* "wl_ex16_choose" or "tf32_choose" */
    const char *name;
    double value;
    const char *source; /* the measurement (device, shapes, command) it came from */
} wl_gemm_model_constant;

/* The rows, in wl_gemm_model_id order. */
const wl_gemm_model_constant *wl_gemm_model_constants(size_t *count);
/* The value of a row. */
double wl_gemm_model(wl_gemm_model_id id);

#ifdef __cplusplus
}
#endif

#endif
