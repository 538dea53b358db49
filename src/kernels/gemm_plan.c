/* The GEMM planner: the candidate table and the plan (gemm_plan.h). */
#include "gemm_plan.h"

#include "gemm_problem.h"
#include "gemm_small_mma.h"
#include "gemm_tiles16.h"
#include "gemm_tiles_tf32.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The tuning set the constants below were fitted on: the decode layers of
 * a Llama-3-8B-like block (k = 4096 or 14336; n = 1024, 4096, 6144 or
 * 28672; m = 1, 2, 7, 8, 16, 24, 32; op_b N and T; BF16 -> BF16, BF16 ->
 * FP32, FP16 -> FP16, TF32), timed by scripts/gemm_decode_bench.c against
 * cublasGemmEx. The 16-bit delegate's tile model (gemm_tiles16.c) has its
 * own: the fixed shapes of scripts/gemm_tile_tuning.sh. The FP32
 * dispatcher's split-K pieces (gemm_dispatch.c: PIECE_FILL_K,
 * LARGE_TILE_MIN_K_CHUNK) were checked on the grid's FP32 large_k and
 * square cells at seed WL_GEMM_PLAN_TUNING_GRID_SEED (H200). The FP32 tile
 * rows' decode and transposed-B constants (FP32_SMALL_TILE_*,
 * FP32_TILE_B_4BYTE_*, gemv_tiled's rate, fp32_tiles' deference to the
 * GEMV family) were fitted on the grid's FP32 cells at seed
 * WL_GEMM_PLAN_TUNING_GRID_SEED_FP32 (H200, each candidate forced beside
 * the pick), and judged at seed 11 (H200), whose FP32 T, T decode cells
 * then set one bound (fp32_tiles' along_k_defers_strided_small_max): they
 * are no longer held out for it. Other seeds judge them. The judging set is
 * `warplab bench gemm --grid`: random shapes from every class, drawn from a
 * seed, that no constant saw. */
#define WL_GEMM_PLAN_TUNING_SET                                                                    \
    "llama3-8b-decode (scripts/gemm_decode_bench.c); ex16 tiles (scripts/gemm_tile_tuning.sh); "   \
    "FP32 split-K pieces (the grid's FP32 large_k and square cells at seed 24301); FP32 tile "     \
    "rows (the grid's FP32 cells at seed 7; the T,T decode bound: seed 11's FP32 T,T decode)"

#define F32 WL_GEMM_TYPE_BIT(WARPLAB_FLOAT32)
#define BF16 WL_GEMM_TYPE_BIT(WARPLAB_BFLOAT16)
#define F16 WL_GEMM_TYPE_BIT(WARPLAB_FLOAT16)
#define C_FP32_OR_INPUT (F32 | WL_GEMM_C_INPUT)
#define FP32_COMPUTE (1u << WARPLAB_COMPUTE_FP32)
#define TF32_COMPUTE (1u << WARPLAB_COMPUTE_TF32)

/* H100 SXM dense rates over its FP32 peak (67 TFLOP/s): BF16/FP16 989, TF32
 * 494 TFLOP/s (NVIDIA's H100 datasheet). */
#define TENSOR16_OVER_FP32 14.8
#define TF32_OVER_FP32 7.4

/* The FP32 dispatcher's tile rows: the smallest tile's side (tile_32x128,
 * tile_32x64: 32 rows), and the fraction of the FP32 peak its small tiles
 * reach on the padded flops, where min(m, n) is at most that side. Fitted
 * on the H200 grid at seed 7 (tuning set: WL_GEMM_PLAN_TUNING_SET), the
 * FP32 N, N decode cells on tile_32x128 split over k: 25 x 8192 x 11008
 * 166.7 us, 18 x 14336 x 14336 365.0 us: 0.52-0.54 on the padded flops
 * (the dispatcher's own H100 table has 0.42). A decode call at the large
 * tiles' 0.75 was priced 2-3x too fast against the tensor-core rows. */
#define FP32_TILE_PAD 32
#define FP32_SMALL_TILE_FRACTION 0.52
/* Its row of small tiles (32 x 128) short of the SMs is split over k (at
 * least MIN_K a split): the partial sums written and read back, and the
 * sum's launch (gemm_dispatch.c, LAUNCH_US). The H200 grid at seed 7 (the
 * tuning set): fp32_tiles on 24 x 1024 x 5120 (8 tiles, 32 splits of 160)
 * ran 22.2 us, modelled 15.0 without them, 19.5 with. */
#define FP32_SMALL_TILE_LONG 128.0
#define FP32_SMALL_TILE_MIN_K 160.0
#define FP32_SMALL_TILE_SPLIT_US 2.5
/* The dispatcher's skinny kernels (N, N): min(m, n) up to 16 (gemm_dispatch.c). */
#define FP32_SKINNY_MAX 16
/* The tile kernels copy B of op T into shared memory transposed, 4 bytes a
 * cp.async, as they copy B of op N whose rows are off 16 bytes. Measured
 * on the H200 grid at seed 7 (the tuning set), fp32_tiles forced on N, T
 * against the dispatcher on N, N, the same plan on both: where B is the
 * big operand of a decode call (min(m, n) at most the small tiles' side,
 * B streamed once) the 4-byte copies cost 17-25% (25 x 8192 x 11008 208.0
 * against 166.7 us, 18 x 14336 x 14336 449.3 against 365.0, 24 x 1024 x
 * 5120 22.2 against 19.1); elsewhere 2-7% (780 x 14336 x 8192 4794 against
 * 4708 us, 731 x 28672 x 14336 14369 against 13715, 213 x 8192 x 1024
 * 128.6 against 119.9; the H100's 3001 x 2999 x 1001 had 14%). So the copy
 * row (B^T copied once, read 16 bytes at a time) wins where the copy is
 * small beside the product's 5% (tall-skinny), the tiles reading B^T in
 * place where it is not (prefill with a large B, decode, large k). */
#define FP32_TILE_B_4BYTE_COST 0.05
#define FP32_TILE_B_4BYTE_SMALL_COST 0.24

/* The TF32 decode note: why fp32_dispatch and tf32_chooser step aside for
 * gemv_mma_rows_tf32 on TF32 op N, N decode (min(m, n) <= 32, the big
 * operand along its rows). Measured on the H200 on the decode tuning set
 * (TF32, op_b = N, 35 cells) through warplab_gemm_ex, each row forced
 * (scripts/gemm_decode_bench.c 9 - tf32 N <row>), against cublasGemmEx:
 * gemv_mma_rows_tf32 1.060x geomean (worst 0.82x, 28672 x 4096 at m =
 * 32); fp32_dispatch 0.714x (worst 0.31x: skinny_m at m = 16); tf32_chooser
 * 0.838x (worst 0.59x). The tensor-core row was faster in 32 cells, even
 * at two (m = 1, n = 1024 and k = 14336: within 1%), slower at one (m = 1,
 * 28672 x 4096: skinny_m 119.7 us against 133.2). */

/* A transposing copy's launch and fill (the copies' rows): wl_tf32_choose's
 * copy_launch_us (gemm_plan.h), measured on the H100 (K-major copies
 * before the wgmma kernel ran 6-8 us longer than their bytes alone). */
#define COPY_LAUNCH_US wl_gemm_model(WL_GM_TF32_COPY_LAUNCH_US)

/* The candidates, in the order a tie goes. */
static const wl_gemm_candidate candidates[] = {
    {.name = "gemv_k",
     .kernel = "src/cuda/gemm/gemv.cuh: gemv_along_k, wl_splitk_finish",
     .cc_major_min = 7,
     .ab_types = F32 | BF16 | F16,
     .c_types = C_FP32_OR_INPUT,
     /* TF32 compute runs the FP32 products: within TF32's bound (warplab.h). */
     .computes = FP32_COMPUTE | TF32_COMPUTE,
     .layouts = WL_GEMM_LAYOUT_ALL,
     .in_place = WL_GEMM_LAYOUT_ALL,
     .small_max = WL_GEMV_SMALL_MAX,
     .x_layout = WL_GEMM_X_ALONG_K,
     .min_align = 1,
     .schedule = WL_GEMM_SCHEDULE_GEMV,
     .bandwidth_fraction = 0.80,
     .flop_fraction = 0.09,
     .flop_multiple = 1.0,
     .fixed_us = 7.5,
     .source = "H200, scripts/planner-gpu.sh (tuning set, op_b = T): m = 1 16-bit, 15 cells "
               "fitted as 7.5 us + bytes at 80% of 4.8 TB/s (worst cell 14% off; 28672 x 4096 "
               "68.4 us, 1024 x 4096 8.5-9.3 us); m = 7-16 issue-bound at 5.8-6.4 TFLOP/s, 9% "
               "of the FP32 peak (8 x 4096^2 BF16 45.9 us, FP32 42.4)"},
    {.name = "gemv_mma",
     .kernel = "src/cuda/gemm/gemv.cuh: gemv_mma (mma.sync m16n8k16), wl_splitk_finish",
     .cc_major_min = 8,
     .ab_types = BF16 | F16,
     .c_types = C_FP32_OR_INPUT,
     .computes = FP32_COMPUTE,
     /* X and Y along k: op_b = T with m small, op_a = N with n small. */
     .layouts = WL_GEMM_LAYOUT_NT,
     .in_place = WL_GEMM_LAYOUT_NT,
     .small_max = WL_GEMV_MMA_SMALL_MAX,
     .x_layout = WL_GEMM_X_ALONG_K,
     .min_align = 16,
     .any_align_c = true,
     .gemv_kernel = WL_GEMV_KERNEL_MMA,
     .schedule = WL_GEMM_SCHEDULE_GEMV,
     .bandwidth_fraction = 0.76,
     .flop_fraction = 0.50,
     .flop_multiple = TENSOR16_OVER_FP32,
     .fixed_us = 6.8,
     .source = "H200, scripts/planner-gpu.sh (tuning set, op_b = T): m = 2-16, 60 cells "
               "fitted as 6.8 us + bytes at 76% of 4.8 TB/s (worst cell 10% off; 28672 x 4096 "
               "71 us, 1024 x 4096 8.4-9.4 us); flops never bind at m <= 16 (half the "
               "mma.sync rate assumed)"},
    {.name = "gemv_mma_tf32",
     .kernel = "src/cuda/gemm/gemv.cuh: gemv_mma (mma.sync m16n8k8 tf32), wl_splitk_finish",
     .cc_major_min = 8,
     .ab_types = F32,
     .c_types = F32,
     .computes = TF32_COMPUTE,
     .layouts = WL_GEMM_LAYOUT_NT,
     .in_place = WL_GEMM_LAYOUT_NT,
     .small_max = WL_GEMV_MMA_SMALL_MAX,
     .x_layout = WL_GEMM_X_ALONG_K,
     .min_align = 16,
     .any_align_c = true,
     .gemv_kernel = WL_GEMV_KERNEL_MMA,
     .schedule = WL_GEMM_SCHEDULE_GEMV,
     .bandwidth_fraction = 0.79,
     .flop_fraction = 0.50,
     .flop_multiple = TF32_OVER_FP32,
     .fixed_us = 7.9,
     .source = "H200, scripts/planner-gpu.sh (tuning set, op_b = T, TF32): m = 2-8, 15 "
               "cells fitted as 7.9 us + bytes at 79% of 4.8 TB/s (worst cell 5% off); flops "
               "never bind at m <= 16"},
    {.name = "gemv_mma_rows_tf32",
     .kernel = "src/cuda/gemm/gemv.cuh: gemv_mma_rows (mma.sync m16n8k8 tf32, X along its rows), "
               "wl_splitk_finish",
     .cc_major_min = 8,
     .ab_types = F32,
     .c_types = F32,
     .computes = TF32_COMPUTE,
     /* X along its rows and Y along k: op N, N with m small (B stored k x n,
      * read along n). */
     .layouts = WL_GEMM_LAYOUT_NN,
     .in_place = WL_GEMM_LAYOUT_NN,
     .small_max = WL_GEMV_MMA_ROWS_SMALL_MAX,
     .x_layout = WL_GEMM_X_ALONG_BIG,
     .min_align = 16,
     .any_align_c = true,
     .gemv_kernel = WL_GEMV_KERNEL_MMA_ROWS,
     .schedule = WL_GEMM_SCHEDULE_GEMV,
     .bandwidth_fraction = 0.82,
     .flop_fraction = 0.105,
     .flop_multiple = TF32_OVER_FP32,
     .fixed_us = 6.8,
     .source = "H200, scripts/gemv_rows.cu (the kernel alone at the geometry of "
               "gemm_plan.h, best of 1-16 splits, tuning layers, op_b = N): m = 1-8 fitted as 6.8 "
               "us + bytes at 82% of 4.8 TB/s "
               "(4096^2 23.6 us, 28672 x 4096 126 us, 4096 x 14336 67 us); m = 24-32 bound at "
               "52 TFLOP/s of mma.sync (28672 x 4096 x 32: 151 us), 10.5% of the TF32 peak; "
               "through the library: 1.060x cuBLAS (the TF32 decode note)"},
    {.name = "gemv_mma_rows16",
     .kernel = "src/cuda/gemm/gemv.cuh: gemv_mma_rows (mma.sync m16n8k16 bf16 / f16, X along its "
               "rows), wl_splitk_finish",
     .cc_major_min = 8,
     /* gemv_mma_rows_tf32's kernel on 16-bit inputs: a row of its own,
      * since that row's compute (TF32) and output (FP32) are not these. */
     .ab_types = BF16 | F16,
     .c_types = C_FP32_OR_INPUT,
     .computes = FP32_COMPUTE,
     /* X along its rows and Y along k: op N, N with m small (W stored k x
      * n, y = x W, read along n). */
     .layouts = WL_GEMM_LAYOUT_NN,
     .in_place = WL_GEMM_LAYOUT_NN,
     .small_max = WL_GEMV_MMA_ROWS_SMALL_MAX,
     /* Planned to a small side of 8; from 9 its geometry holds fewer bytes
      * in flight (gemm_plan.h) and ex16_chooser's tiles run as fast or
      * faster (H200, the decode tuning layers forced, BF16: 11008 x 4096
      * at m = 12-16 34.0-34.5 us against 32.2-32.9, at m = 20-32 45.7-50.1
      * against 32.1-33.1). */
     .planned_small_max = WL_GEMV_MMA_ROWS16_PLANNED_MAX,
     .x_layout = WL_GEMM_X_ALONG_BIG,
     .min_align = 16,
     .any_align_c = true,
     .gemv_kernel = WL_GEMV_KERNEL_MMA_ROWS,
     .schedule = WL_GEMM_SCHEDULE_GEMV,
     .bandwidth_fraction = 0.85,
     .flop_fraction = 0.105,
     .flop_multiple = TENSOR16_OVER_FP32,
     .fixed_us = 6.0,
     .source = "H200, scripts/gemm_grid_timing.cu with GGT_CANDIDATES on the decode tuning "
               "layers (n x k 512 x 1024 to 28672 x 4096, m = 1-8, BF16, op N, N, forced): 6.0 us "
               "+ bytes at 85% of 4.8 TB/s (+ the finish kernel where k is split), worst cell 7% "
               "off (512 x 1024 8.0 us, 4096^2 17.0, 28672 x 4096 62.0); flops never bind at m <= "
               "8 (mma.sync at 10.5% of the tensor peak, twice TF32's 52 TFLOP/s)"},
    {.name = "gemv_tiled",
     .kernel = "src/cuda/gemm/gemv.cuh: gemv_tiled_k (FP32 FMAs, 8 x S/4 register tiles)",
     /* cp.async and 96 KB of shared memory a block. */
     .cc_major_min = 8,
     .ab_types = F32,
     .c_types = F32,
     .computes = FP32_COMPUTE,
     .layouts = WL_GEMM_LAYOUT_NT,
     .in_place = WL_GEMM_LAYOUT_NT,
     .small_max = WL_GEMV_TILED_SMALL_MAX,
     /* Small sides up to 8 stay with gemv_k (FMAs on few columns). */
     .along_k_small_min = 9,
     .x_layout = WL_GEMM_X_ALONG_K,
     .min_align = 1,
     .gemv_kernel = WL_GEMV_KERNEL_TILED,
     .schedule = WL_GEMM_SCHEDULE_GEMV,
     .bandwidth_fraction = 0.76,
     .flop_fraction = 0.23,
     .flop_multiple = 1.0,
     .fixed_us = 10.0,
     .source = "H200, scripts/planner-gpu.sh (tuning set, op_b = T, FP32): m = 16-32 run at "
               "17-21 TFLOP/s after 10 us (4096^2 x 16: 39.6 us, 28672 x 4096 x 32: 389 us); "
               "the H200 grid at seed 7 (tuning set) 13-16.5 TFLOP/s at m = 18-25 (18 x 14336 "
               "x 14336 492.9 us, 25 x 8192 x 11008 283.2): 23% of the FP32 peak; FMA-bound "
               "there, so the bandwidth is gemv_mma's"},
    {.name = "gemv_staged",
     .kernel = "src/cuda/gemm/gemv.cuh: gemv_staged_k (FP32 FMAs, 8 rows of X a warp in "
               "registers, Y staged in shared memory), wl_splitk_finish",
     /* cp.async. */
     .cc_major_min = 8,
     .ab_types = F32,
     .c_types = F32,
     .computes = FP32_COMPUTE,
     /* Every layout with X along k: Y (small x k) is staged whole, so a
      * strided Y (op T, T at small m: A^T; op N, N at small n: B^T) costs
      * 4-byte copies, not the kernel's loop (H200, `warplab bench gemm --grid
      * --seed 11 --type fp32`, forced: T, T 3 x 8192 x 1024 17.8 us against
      * gemv_k's 20.4, 5 x 1024 x 13824 25.1 against 45.7). */
     .layouts = WL_GEMM_LAYOUT_ALL,
     .in_place = WL_GEMM_LAYOUT_ALL,
     .small_max = WL_GEMV_STAGED_SMALL_MAX,
     /* Small side 1 stays with gemv_k (bandwidth-bound there already). */
     .along_k_small_min = WL_GEMV_STAGED_SMALL_MIN,
     .x_layout = WL_GEMM_X_ALONG_K,
     .min_align = 1,
     .gemv_kernel = WL_GEMV_KERNEL_STAGED,
     .schedule = WL_GEMM_SCHEDULE_GEMV,
     .bandwidth_fraction = 0.77,
     .flop_fraction = 0.18,
     .flop_multiple = 1.0,
     .fixed_us = 7.0,
     .source = "H200, scripts/gemm_decode_bench.c (tuning set: m = 2-8 x the layers 4096 x "
               "4096, 11008 x 4096, 4096 x 11008, 14336 x 4096, 28672 x 4096, op_b = T, FP32, "
               "forced): 35 cells fitted as 7.0 us + bytes at 77% of 4.8 TB/s or FMAs at 18% "
               "of the FP32 peak (worst cell 12% off; 28672 x 4096: 124.9 us at m = 2, 156.0 "
               "at m = 8; 1.33-1.68x gemv_k at m = 5-8)"},
    {.name = "gemv_rows",
     .kernel = "src/cuda/gemm/gemv.cuh: gemv_along_big, wl_splitk_finish",
     .cc_major_min = 7,
     .ab_types = F32 | BF16 | F16,
     .c_types = C_FP32_OR_INPUT,
     .computes = FP32_COMPUTE | TF32_COMPUTE,
     .layouts = WL_GEMM_LAYOUT_ALL,
     .in_place = WL_GEMM_LAYOUT_ALL,
     .small_max = WL_GEMV_SMALL_MAX,
     .x_layout = WL_GEMM_X_ALONG_BIG,
     .min_align = 1,
     .schedule = WL_GEMM_SCHEDULE_GEMV,
     .bandwidth_fraction = 0.70,
     .flop_fraction = 0.10,
     .flop_multiple = 1.0,
     .fixed_us = 30.0,
     .source = "H200, scripts/gemv_variants.cu (the kernel alone, best of 1-8 splits, tuning "
               "layers, X along big): m = 1 34-137 us (FP32; 1024 x 4096 34 us, 28672 x 4096 "
               "137 us: k-serial, about 30 us + bytes at 70%); m = 16 at 6.5-7.6 TFLOP/s, 10% "
               "of the FP32 peak"},
    {.name = "gemv_rows16",
     .kernel = "src/cuda/gemm/gemv.cuh: gemv_along_big (16-bit: 64 x 4 threads, 512 columns a "
               "block), wl_splitk_finish",
     .cc_major_min = 7,
     .ab_types = BF16 | F16,
     .c_types = C_FP32_OR_INPUT,
     .computes = FP32_COMPUTE,
     .layouts = WL_GEMM_LAYOUT_ALL,
     .in_place = WL_GEMM_LAYOUT_ALL,
     /* The GEMV proper (y = x W, W stored k x n; or y = A^T x): from a small
      * side of 2 the tensor cores stream X as fast (ex16_gemm.cu, H100: 8 x
      * 4096 x 4096 22 us in ex16_mma against 38 on the CUDA cores), so
      * gemv_mma_rows16 (y = x W) and ex16_chooser keep those; gemv_rows
      * still runs them forced. */
     .small_max = 1,
     .x_layout = WL_GEMM_X_ALONG_BIG,
     .min_align = 1,
     .schedule = WL_GEMM_SCHEDULE_GEMV,
     .bandwidth_fraction = 0.80,
     .flop_fraction = 0.10,
     .flop_multiple = 1.0,
     /* + the finish kernel's 2 us and the partial sums' bytes. */
     .fixed_us = 8.5,
     .source = "H200, scripts/gemm_grid_timing.cu with GGT_CANDIDATES on the decode tuning "
               "layers (m = 1, BF16, op N, N, forced): 8.5 us + bytes at 80% of 4.8 TB/s (+ the "
               "finish kernel), worst cell 9% off (512 x 1024 10.7 us, 1024 x 4096 13.1, 28672 "
               "x 4096 71.6); gemv_mma_rows16 ran every one of those layers faster (7.7-63.0 "
               "us)"},
    {.name = "fp32_dispatch",
     .kernel = "src/kernels/gemm_dispatch.c wl_gemm_choose's plan (warplab_gemm's chooser), made "
               "by the planner and carried in the route, on dispatch.cu's kernels",
     .cc_major_min = 0,
     .ab_types = F32,
     .c_types = F32,
     /* TF32: FP32 meets its bound; ex_launch reaches the dispatcher through
      * wl_tf32_choose's FP32 route (gemm_tiles_tf32.c). */
     .computes = FP32_COMPUTE | TF32_COMPUTE,
     .layouts = WL_GEMM_LAYOUT_NN,
     .in_place = WL_GEMM_LAYOUT_NN,
     /* TF32 decode (the only compute a tensor-core GEMV row takes here):
      * its FP32 FMA kernels (skinny_m, tile_32x128) lose to the tensor
      * cores there (the TF32 decode note), from m = 2: at m = 1 skinny_m
      * streams B at the bandwidth as gemv_mma_rows_tf32 does, and the
      * models rank them (H200 grid, TF32 N, N m = 1 cells of the tuning
      * seeds 7 and 24301: 1 x 6144 x 11008 65.5 us against 69.1, 1 x 14336
      * x 14336 191.6 against 192.2). */
     .along_big_defers_small_max = 32,
     .along_big_defers_small_min = 2,
     .k_zero = true,
     .min_align = 1,
     .schedule = WL_GEMM_SCHEDULE_MODELLED,
     .chooser = WL_GEMM_CHOOSER_FP32,
     .bandwidth_fraction = 0.85,
     .flop_fraction = 0.75,
     .flop_multiple = 1.0,
     .pad_side = FP32_TILE_PAD,
     .small_flop_fraction = FP32_SMALL_TILE_FRACTION,
     .skinny_max = FP32_SKINNY_MAX,
     .fixed_us = 3.0,
     .source = "warplab bench gemm --shapes (H200): 1.058x cuBLAS FP32 over the shape set; "
               "scripts/planner-gpu.sh (H200): FP32 op N, N m <= 8 at 0.9-2.7x cuBLAS; "
               "min(m, n) <= 32: FP32_SMALL_TILE_FRACTION"},
    {.name = "fp32_tiles",
     .kernel =
         "src/cuda/gemm/dispatch.cu: the FP32 dispatcher's tile kernels (pipelined_kernel.cuh) "
         "reading op T operands in place, their tiles and splits by wl_gemm_choose_tiles (the "
         "planner's, carried in the route)",
     .cc_major_min = 8, /* cp.async */
     .ab_types = F32,
     .c_types = F32,
     /* TF32: FP32 products meet its bound (warplab.h). */
     .computes = FP32_COMPUTE | TF32_COMPUTE,
     /* A of op T is copied into shared memory row by row (16-byte copies),
      * B of op T transposed (4-byte copies), as A of op N always was: no
      * operand is copied before the kernel. */
     .layouts = WL_GEMM_LAYOUT_NT | WL_GEMM_LAYOUT_TN | WL_GEMM_LAYOUT_TT,
     .in_place = WL_GEMM_LAYOUT_NT | WL_GEMM_LAYOUT_TN | WL_GEMM_LAYOUT_TT,
     /* With the big operand along k its tiles read it by 4-byte copies;
      * where a GEMV row of the CUDA cores' small sides (gemv_k, up to 16)
      * takes the shape, that row streams it (measured on the decode tuning
      * set). From 17 the models rank it against gemv_tiled: on the H200
      * grid at seed 7 (the tuning set) the tiles ran 1.1-1.4x faster there
      * (25 x 8192 x 11008: 208.0 against 283.2 us; 18 x 14336 x 14336 449.3
      * against 492.9; 24 x 1024 x 5120 22.2 against 28.8). */
     .along_k_defers_small_max = WL_GEMV_SMALL_MAX,
     /* T, T (A^T the small operand, strided along k for gemv_k): up to 8
      * only. The H200 grid at seed 11 (the judging grid; this bound is
      * fitted on it, so it is no longer held out for it): gemv_k at m = 16
      * ran 16 x 13824 x 6144 in 1432 us (0.14x cuBLAS), 16 x 1024 x 4096 in
      * 79.0 (0.41x), where these tiles ran 1.2-1.35x cuBLAS at m = 18-25 on
      * T, T (seed 7); at m = 1-5 gemv_k ran 1.1-1.8x on T, T (seeds 7, 11). */
     .along_k_defers_strided_small_max = 8,
     .min_align = 1,
     .schedule = WL_GEMM_SCHEDULE_MODELLED,
     .chooser = WL_GEMM_CHOOSER_FP32,
     .bandwidth_fraction = 0.85,
     .flop_fraction = 0.75,
     .flop_multiple = 1.0,
     .pad_side = FP32_TILE_PAD,
     .small_flop_fraction = FP32_SMALL_TILE_FRACTION,
     .transposed_b_cost = FP32_TILE_B_4BYTE_COST,
     .transposed_b_small_cost = FP32_TILE_B_4BYTE_SMALL_COST,
     .fixed_us = 3.0,
     .source = "fp32_dispatch's constants (the same kernels and shared-memory tiles; only the "
               "copies into shared memory differ), not refitted; B of op T: "
               "FP32_TILE_B_4BYTE_COST and _SMALL_COST (H200 grid, seed 7: the tuning set)"},
    {.name = "ex16_chooser",
     .kernel = "src/kernels/gemm_tiles16.c wl_ex16_choose's plan, made by the planner and "
               "carried in the route (mma.sync, wgmma, TMA + copies)",
     .cc_major_min = 8,
     .ab_types = BF16 | F16,
     .c_types = C_FP32_OR_INPUT,
     .computes = FP32_COMPUTE,
     .layouts = WL_GEMM_LAYOUT_ALL,
     /* Small side 1 with X along k: the GEMV rows (bandwidth-bound). From
      * 2, its wgmma tiles against gemv_k, gemv_mma and gemv_tiled by the
      * models: gemv_k's FMAs bound it from a few columns (H200, small n 2-8
      * with A along k, every 16-bit group, candidates forced: 11008 x 8 x
      * 4096 gemv_k 132-137 us, this row 35.5; 60000 x 8 x 1024 198-205
      * against 45-47; 1024 x 2 x 4096 9.5 against 13.3, which the models
      * tie). Small side 1 with X along its rows: gemv_rows16 or this
      * row's wgmma tiles, by the models. */
     .along_k_small_min = 2,
     /* X along its rows (op N, N, W stored k x n): its tiles pad m to 64
      * rows and pay ~3 us more fixed cost than gemv_mma_rows16, which
      * streams W as fast to m = 8; from m = 2 to 8 it steps aside for that
      * row (H200, the decode tuning layers forced, BF16: 1024 x 4096 at m =
      * 6 9.4 us against 11.5, 11008 x 4096 at m = 5 29.8 against 33.2);
      * m = 1: the models rank the three. */
     .along_big_defers_small_max = WL_GEMV_MMA_ROWS16_PLANNED_MAX,
     .along_big_defers_small_min = 2,
     /* The wgmma kernel reads every layout as stored; rows off 16 bytes
      * are re-strided by the delegate (its own plan). */
     .in_place = WL_GEMM_LAYOUT_ALL,
     .k_zero = true,
     .min_align = 1,
     .schedule = WL_GEMM_SCHEDULE_MODELLED,
     .chooser = WL_GEMM_CHOOSER_EX16,
     .bandwidth_fraction = 0.766,
     .flop_fraction = 0.65,
     .flop_multiple = TENSOR16_OVER_FP32,
     .fixed_us = 9.7,
     .source = "H200, scripts/planner-gpu.sh (tuning set): its 150 decode cells (op_b = N, "
               "and op_b = T from m = 16) fitted as 9.7 us + bytes at 76.6% of 4.8 TB/s (worst "
               "cell 14% off); warplab bench gemm --shapes (H200): 0.95x cuBLAS BF16/FP16 (its "
               "flop rate, prefill)"},
    {.name = "tf32_chooser",
     .kernel = "src/kernels/gemm_tiles_tf32.c wl_tf32_choose's plan, made by the planner and "
               "carried in the route (FP32 dispatcher, mma.sync tiles, wgmma)",
     .cc_major_min = 0,
     .ab_types = F32,
     .c_types = F32,
     .computes = TF32_COMPUTE,
     .layouts = WL_GEMM_LAYOUT_ALL,
     .in_place = WL_GEMM_LAYOUT_ALL,
     /* Its skinny problems with X along k went to the kernels gemv_k
      * replaced (0.12-0.35x cuBLAS at m = 1-8, H200). */
     .along_k_small_min = 9,
     /* X along its rows (op_b = N): its kernels pad m to their tiles (32 to
      * 128 rows; the TF32 decode note), from m = 2 (m = 1: its FP32
      * route, as fp32_dispatch's note says). */
     .along_big_defers_small_max = 32,
     .along_big_defers_small_min = 2,
     .k_zero = true,
     .min_align = 1,
     .schedule = WL_GEMM_SCHEDULE_MODELLED,
     .chooser = WL_GEMM_CHOOSER_TF32,
     .bandwidth_fraction = 0.80,
     .flop_fraction = 0.65,
     .flop_multiple = TF32_OVER_FP32,
     .fixed_us = 7.0,
     .source = "wl_tf32_choose's fixed_us (7 us) and sm_gflops (H100: gemm_plan.h); warplab "
               "bench gemm "
               "--shapes (H200): 0.955x cuBLAS TF32"},
    {.name = "fp32_dispatch_copy",
     .kernel = "src/cuda/gemm/fp32_copy.cu: the transpose ladder's best rung into the "
               "workspace, then the FP32 dispatcher (gemm_dispatch.c) on N, N",
     .cc_major_min = 8, /* the dispatcher's tile kernels: cp.async */
     .ab_types = F32,
     .c_types = F32,
     /* Exact FP32 compute; TF32 has its own chooser, which reads every layout. */
     .computes = FP32_COMPUTE,
     .layouts = WL_GEMM_LAYOUT_NT | WL_GEMM_LAYOUT_TN | WL_GEMM_LAYOUT_TT,
     .in_place = 0, /* every layout it takes goes through a copy of the op T operands */
     /* With the big operand along k, the copy is of the big operand: where a
      * GEMV row takes the shape it streams it once instead (FP32 16 x 4096^2
      * op_b = T: gemv_k 83.5 us on the H200, gemm_plan.h; the dispatcher's
      * skinny_m 73 us on the H100, gemm_ex.cu, before a 134 MB copy; m = 24
      * op_b = T on the decode tuning set: gemv_tiled 0.83-1.22x cuBLAS, the
      * copy 0.53-0.62x at m = 19, docs/DECISIONS.md). */
     .along_k_defers_small_max = WL_GEMV_TILED_SMALL_MAX,
     .along_k_defers_strided_small_max = WL_GEMV_TILED_SMALL_MAX,
     .min_align = 1,
     .schedule = WL_GEMM_SCHEDULE_MODELLED,
     .chooser = WL_GEMM_CHOOSER_FP32,
     .bandwidth_fraction = 0.85,
     .flop_fraction = 0.75,
     .flop_multiple = 1.0,
     .pad_side = FP32_TILE_PAD,
     .small_flop_fraction = FP32_SMALL_TILE_FRACTION,
     .skinny_max = FP32_SKINNY_MAX,
     .fixed_us = 3.0,
     .copy_bandwidth_fraction = 0.78,
     .source = "the dispatcher's rates and fixed cost are fp32_dispatch's (the same kernels on "
               "the N, N copy); the copy: warplab_transpose's vectorized_out at 78.6% of the "
               "H200's bandwidth, read + write (docs/RESULTS.md, transpose 4000x4000 float), "
               "plus COPY_LAUNCH_US a copy"},
    {.name = "wgmma_batched",
     .kernel = "src/cuda/gemm/gemm_batched.cu: wgmma_ex.sm90a.cu's gemm_ex_wgmma with the batch "
               "in its persistent grid's units (3-D tensor maps)",
     .cc_major_min = 9,
     .needs_sm90a = true,
     .ab_types = BF16 | F16,
     .c_types = C_FP32_OR_INPUT,
     .computes = FP32_COMPUTE,
     .layouts = WL_GEMM_LAYOUT_ALL,
     .in_place = WL_GEMM_LAYOUT_ALL,
     /* TMA: 16-byte rows, bases and batch strides of A and B (the
      * descriptor's alignment folds the strides in); C any. */
     .min_align = 16,
     .any_align_c = true,
     .batched = true,
     .schedule = WL_GEMM_SCHEDULE_WHOLE_TILES,
     /* 128 x 256, 128 x 128 or 64 x 64 by wl_ex16_batched_tile (gemm_tiles16.c),
      * which gemm_batched.cu's launch calls. */
     .tile_m = 128,
     .tile_n = 0,
     .bandwidth_fraction = 0.766,
     .flop_fraction = 0.65,
     .flop_multiple = TENSOR16_OVER_FP32,
     .fixed_us = 9.7,
     .source = "ex16_chooser's constants (the same kernel on one matrix); the only row that "
               "takes a batch, so they rank nothing yet"},
    /* One launch for a small product whose rows sit off 16 bytes, where
     * ex16_chooser re-strides A and B first (a launch each copy kernel,
     * WL_GM_EX16_RESTRIDE_US) and tf32_chooser's tiles copy 4 bytes at a
     * time; the launches are most of the time there (H200, `warplab bench
     * gemm --grid --seed 29`: FP16 91^3 9.2-9.8 us, cuBLAS 6.0). */
    {.name = "small_mma",
     .kernel = "src/cuda/gemm/small_mma.cuh: small_mma (mma.sync m16n8k16, 32 x 32 or 64 x 64 "
               "tiles, the operands as stored at any alignment, one launch)",
     .cc_major_min = 8,
     .ab_types = BF16 | F16,
     .c_types = C_FP32_OR_INPUT,
     .computes = FP32_COMPUTE,
     .layouts = WL_GEMM_LAYOUT_ALL,
     .in_place = WL_GEMM_LAYOUT_ALL,
     .unaligned_small_max = WL_SMALL_MMA_PLANNED_MAX,
     .min_align = 1,
     .schedule = WL_GEMM_SCHEDULE_WHOLE_TILES,
     .bandwidth_fraction = 0.5,
     .flop_fraction = 0.005,
     .flop_multiple = TENSOR16_OVER_FP32,
     .fixed_us = 5.6,
     .source = "H200, scripts/small_mma_timing.sh (forced, BF16 and FP16, both Cs, N,N and "
               "N,T; tuning shapes 75^3, 109^3, 123^3, 150^3, 201^3, 65x1000x77): 5.6-9.3 us, "
               "fitted as 5.6 us + flops at 0.5% of the tensor peak (a latency-bound k loop: "
               "201^3 8.3-9.3 us; ex16_chooser 9.2-10.0 there, 333^3 11.2-12.6 against 10.7-11.1)"},
    {.name = "small_mma_tf32",
     .kernel = "src/cuda/gemm/small_mma.cuh: small_mma (mma.sync m16n8k8 tf32, 32 x 32 or 64 x "
               "64 tiles, the operands as stored at any alignment, one launch)",
     .cc_major_min = 8,
     .ab_types = F32,
     .c_types = F32,
     .computes = TF32_COMPUTE,
     .layouts = WL_GEMM_LAYOUT_ALL,
     .in_place = WL_GEMM_LAYOUT_ALL,
     .unaligned_small_max = WL_SMALL_MMA_PLANNED_MAX,
     .min_align = 1,
     .schedule = WL_GEMM_SCHEDULE_WHOLE_TILES,
     .bandwidth_fraction = 0.5,
     .flop_fraction = 0.01,
     .flop_multiple = TF32_OVER_FP32,
     .fixed_us = 6.0,
     .source = "H200, scripts/small_mma_timing.sh (forced, N,N and N,T): 109^3 6.6-6.8 us, "
               "the FP32 rows 8.2-8.5 there; small_mma's rate in flops (the same kernel on "
               "4-byte elements: half the multiple, twice the fraction)"},
    {.name = "tiled",
     .kernel = "src/cuda/gemm/gemm_ex.cu gemm_ex_tiled (CUDA cores, 64 x 64 tiles)",
     .cc_major_min = 0,
     .ab_types = F32 | BF16 | F16,
     .c_types = C_FP32_OR_INPUT,
     .computes = FP32_COMPUTE,
     .layouts = WL_GEMM_LAYOUT_ALL,
     .in_place = WL_GEMM_LAYOUT_ALL,
     .k_zero = true,
     .min_align = 1,
     .fallback = true,
     .schedule = WL_GEMM_SCHEDULE_WHOLE_TILES,
     .tile_m = 64,
     .tile_n = 64,
     .bandwidth_fraction = 0.50,
     .flop_fraction = 0.25,
     .flop_multiple = 1.0,
     .fixed_us = 3.0,
     .source = "the fallback (FP32 compute on transposed operands, 16-bit inputs without "
               "sm_80): "
               "4 x 4 outputs a thread from shared memory, about a quarter of the FP32 peak"},
};

#define CANDIDATES (sizeof candidates / sizeof candidates[0])

const wl_gemm_candidate *wl_gemm_candidates(size_t *count)
{
    if (count)
        *count = CANDIDATES;
    return candidates;
}

int wl_gemm_candidate_find(const char *name)
{
    if (!name)
        return -1;
    for (size_t i = 0; i < CANDIDATES; i++)
        if (strcmp(candidates[i].name, name) == 0)
            return (int)i;
    return -1;
}

unsigned wl_gemm_layout_bit(warplab_op op_a, warplab_op op_b)
{
    return 1u << ((op_a == WARPLAB_OP_T ? 2u : 0u) + (op_b == WARPLAB_OP_T ? 1u : 0u));
}

const char *wl_gemm_layout_name(warplab_op op_a, warplab_op op_b)
{
    static const char *const names[4] = {"N,N", "N,T", "T,N", "T,T"};
    return names[(op_a == WARPLAB_OP_T ? 2 : 0) + (op_b == WARPLAB_OP_T ? 1 : 0)];
}

unsigned wl_gemm_alignment(size_t address, size_t ld, size_t element_bytes)
{
    const size_t pitch = ld * element_bytes;
    unsigned align = 16;
    while (align > 1 && (address % align != 0 || pitch % align != 0))
        align /= 2;
    return align;
}

wl_gemm_target wl_gemm_target_of(const warplab_device_info *info, bool sm90a)
{
    wl_gemm_target t;
    memset(&t, 0, sizeof t);
    t.cc_major = info->cc_major;
    t.cc_minor = info->cc_minor;
    t.sms = info->multiprocessors > 0 ? info->multiprocessors : 1;
    t.reported_sms = info->multiprocessors;
    t.bandwidth_gbs = info->theoretical_bandwidth_gbs;
    t.fp32_peak_gflops = info->fp32_peak_gflops;
    t.sm90a = sm90a;
    return t;
}

static size_t small_side(const wl_gemm_desc *d)
{
    return d->m < d->n ? d->m : d->n;
}

bool wl_gemm_x_along_k(const wl_gemm_desc *d)
{
    return d->m <= d->n ? d->op_b == WARPLAB_OP_T : d->op_a == WARPLAB_OP_N;
}

const char *wl_gemm_candidate_refusal(const wl_gemm_candidate *c, const wl_gemm_desc *d,
                                      const wl_gemm_target *t)
{
    if (t->cc_major < c->cc_major_min || (c->needs_sm90a && !t->sm90a))
        return c->needs_sm90a ? "needs sm_90a" : "needs a newer architecture";
    if (!(c->ab_types & WL_GEMM_TYPE_BIT(d->ab_type)))
        return "does not take this input type";
    const bool c_input = d->c_type == d->ab_type;
    if (!((c->c_types & WL_GEMM_TYPE_BIT(d->c_type)) ||
          (c_input && (c->c_types & WL_GEMM_C_INPUT))))
        return "does not write this output type";
    if (!(c->computes & (1u << (unsigned)d->compute)))
        return "does not honour this compute";
    if (!(c->layouts & wl_gemm_layout_bit(d->op_a, d->op_b)))
        return "does not take this layout";
    if ((d->batch > 1) != c->batched)
        return c->batched ? "runs batches only" : "runs no batches";
    if (c->small_max && small_side(d) > c->small_max)
        return "takes a smaller min(m, n)";
    const bool along_k = wl_gemm_x_along_k(d);
    if (c->x_layout != WL_GEMM_X_ANY && along_k != (c->x_layout == WL_GEMM_X_ALONG_K))
        return along_k ? "reads the big operand along its rows, not along k"
                       : "reads the big operand along k, not along its rows";
    if (c->along_k_small_min && along_k && d->k > 0 && small_side(d) < c->along_k_small_min)
        return "leaves a small min(m, n) with the big operand along k to the GEMV family";
    if (d->k == 0 && !c->k_zero)
        return "does not take k = 0";
    if (d->align_a < c->min_align || d->align_b < c->min_align ||
        (!c->any_align_c && d->align_c < c->min_align))
        return "needs more alignment";
    return NULL;
}

bool wl_gemm_candidate_takes(const wl_gemm_candidate *c, const wl_gemm_desc *d,
                             const wl_gemm_target *t)
{
    return wl_gemm_candidate_refusal(c, d, t) == NULL;
}

/* Bandwidth and FP32 peak, or an H100's where the device does not say. */
static double bandwidth_of(const wl_gemm_target *t)
{
    return t->bandwidth_gbs > 0 ? t->bandwidth_gbs : 3350.0;
}

static double peak_of(const wl_gemm_target *t)
{
    return t->fp32_peak_gflops > 0 ? t->fp32_peak_gflops : 67000.0;
}

/* k a split: along k, whole 16-byte vectors of a warp (any type) and at
 * least two warp steps of 16-bit vectors; along big, whole rounds of the
 * groups. */
#define GEMV_K_QUANTUM 256
#define GEMV_K_MIN 512
#define GEMV_BIG_QUANTUM 64
#define GEMV_BIG_MIN 64
#define GEMV_SPLITS_MAX 64
/* 16-bit X along its rows: at least 32 of k a split, chunks of whole 8 k,
 * splits up to the grid's. The split of the 16-bit columns kernel that
 * gemv_along_big replaced there (ex16_gemm.cu). Measured on the H200 in the
 * same run as that kernel (BF16 and FP16, m = 1, op N, N, through
 * warplab_gemm_ex): with GEMV_BIG_QUANTUM, GEMV_BIG_MIN and GEMV_SPLITS_MAX
 * gemv_along_big ran 15-71% slower (1 x 3000 x 2000: 16 splits, 22.6 us,
 * against 63 splits in the columns kernel, 13.2 us; 1 x 1024 x 4096: 64
 * splits 15.8 us against 128, 13.2 us). */
#define GEMV_ROWS16_QUANTUM 8
#define GEMV_ROWS16_MIN 32
#define GEMV_ROWS16_SPLITS_MAX 65535
#define GEMV_BLOCKS_PER_SM 4 /* blocks of 256 threads an SM aimed at */
/* gemv_mma: blocks aimed at, a quarter of the SMs: k is split only where
 * the strips leave most SMs idle. Measured on the H200 (scripts/
 * gemv_variants.cu): one split beat 2 to 16 on every tuning layer at m =
 * 1-16, n = 1024 included (8.5 against 10.5 us: the second launch and the
 * partial sums cost more than the idle SMs). */
#define GEMV_MMA_QUARTER_SMS 1
/* gemv_tiled_k: blocks of 8 warps on one strip, at most 128 registers. */
#define GEMV_TILED_BLOCKS_PER_SM 2
/* gemv_staged_k: as many (WL_GEMV_STAGED_MIN_BLOCKS; not measured). */
#define GEMV_STAGED_BLOCKS_PER_SM WL_GEMV_STAGED_MIN_BLOCKS

/* gemv_staged_k's split of k: the count, up to most, whose blocks (blocks
 * along big times the splits, chunks of whole GEMV_K_QUANTUM) take the
 * fewest waves of slots (GEMV_STAGED_BLOCKS_PER_SM an SM) times a block's
 * work (its chunk of k and GEMV_STAGED_BLOCK_K more for its first stage of
 * Y and its shuffles), the fewest splits on a tie. A block's rate is set by
 * its loads in flight, so a last wave of few blocks runs at a fraction of
 * the bandwidth (11008 x 4096 at 64 rows a block: 172 blocks; 2 splits,
 * 344 blocks in 264 slots, 2 waves of 2048 k; 3 splits 2 waves of 1536).
 * Not measured: expected from the kernel's loads in flight (gemv.cuh). */
#define GEMV_STAGED_BLOCK_K 256
static long long gemv_staged_splits(long long k, long long blocks_big, long long slots,
                                    long long most)
{
    long long best = 1, best_cost = LLONG_MAX;
    for (long long s = 1; s <= most; s++) {
        long long chunk = (k + s - 1) / s;
        chunk = (chunk + GEMV_K_QUANTUM - 1) / GEMV_K_QUANTUM * GEMV_K_QUANTUM;
        const long long parts = (k + chunk - 1) / chunk;
        const long long waves = (blocks_big * parts + slots - 1) / slots;
        const long long cost = waves * (chunk + GEMV_STAGED_BLOCK_K);
        if (parts == s && cost < best_cost) {
            best = s;
            best_cost = cost;
        }
    }
    return best;
}

/* gemv_mma_rows's split of k (plan: small, big, blocks_big set): whole
 * rounds of the block's warps (16 k a step for TF32, 32 for 16-bit; DEPTH
 * steps a warp), as many splits as leave WL_GEMV_MMA_ROWS_BLOCKS_PER_SM
 * (ROWS16_) blocks an SM (rounded down: one split where the strips give
 * every SM its blocks), the partial sums at most an eighth of X's bytes. */
static void gemv_rows_splits(const wl_gemm_desc *d, long long sms, wl_gemm_route *plan)
{
    const long long k = (long long)d->k;
    const long long element = (long long)warplab_dtype_size(d->ab_type);
    const int small = plan->small;
    const long long quantum =
        WL_GEMV_MMA_ROWS_STEP_K(element) *
        (element == 4
             ? (WL_GEMV_MMA_WARPS / WL_GEMV_MMA_ROWS_GROUPS(small)) * WL_GEMV_MMA_ROWS_DEPTH(small)
             : (WL_GEMV_MMA_WARPS / WL_GEMV_MMA_ROWS16_GROUPS(small)) *
                   WL_GEMV_MMA_ROWS16_DEPTH(small));
    const long long target = sms * (element == 4 ? WL_GEMV_MMA_ROWS_BLOCKS_PER_SM(small)
                                                 : WL_GEMV_MMA_ROWS16_BLOCKS_PER_SM(small));
    long long splits = target / plan->blocks_big;
    long long most = k / quantum;
    const long long by_traffic = k * element / (64LL * plan->small);
    most = most < by_traffic ? most : by_traffic;
    most = most < 1 ? 1 : most > GEMV_SPLITS_MAX ? GEMV_SPLITS_MAX : most;
    splits = splits < 1 ? 1 : splits > most ? most : splits;
    long long chunk = (k + splits - 1) / splits;
    chunk = (chunk + quantum - 1) / quantum * quantum;
    if (chunk < 1)
        chunk = quantum;
    plan->k_chunk = (int)(chunk < INT_MAX ? chunk : INT_MAX / quantum * quantum);
    plan->splits = k > 0 ? (int)((k + plan->k_chunk - 1) / plan->k_chunk) : 1;
    plan->scratch =
        plan->splits > 1 ? (size_t)plan->splits * (size_t)plan->small * (size_t)plan->big * 4 : 0;
}

/* The GEMV geometry of kernel (WL_GEMV_KERNEL_*). */
static void gemv_geometry(const wl_gemm_desc *d, const wl_gemm_target *t, int kernel,
                          wl_gemm_route *plan)
{
    const size_t element = warplab_dtype_size(d->ab_type);
    plan->small_m = d->m <= d->n;
    plan->small = (int)(plan->small_m ? d->m : d->n);
    plan->big = (int)(plan->small_m ? d->n : d->m);
    /* X = op(B) (small m): along k when B is stored n x k (op T); X =
     * op(A)^T (small n): along k when A is stored m x k (op N). */
    plan->x_along_k = wl_gemm_x_along_k(d);
    int per_block;
    plan->gemv_kernel = kernel;
    if (kernel == WL_GEMV_KERNEL_MMA)
        per_block = 16 * WL_GEMV_MMA_TILES(plan->small) * WL_GEMV_MMA_GROUPS(plan->small);
    else if (kernel == WL_GEMV_KERNEL_MMA_ROWS)
        per_block =
            WL_GEMV_MMA_ROWS_STRIP_COLUMNS((int)element) *
            (element == 4
                 ? WL_GEMV_MMA_ROWS_STRIPS(plan->small) * WL_GEMV_MMA_ROWS_GROUPS(plan->small)
                 : WL_GEMV_MMA_ROWS16_STRIPS(plan->small) * WL_GEMV_MMA_ROWS16_GROUPS(plan->small));
    else if (kernel == WL_GEMV_KERNEL_TILED)
        per_block = WL_GEMV_TILED_ROWS;
    else if (kernel == WL_GEMV_KERNEL_STAGED)
        per_block = (WL_GEMV_THREADS / 32) * WL_GEMV_STAGED_R(plan->small);
    else if (plan->x_along_k)
        per_block = (WL_GEMV_THREADS / 32) * WL_GEMV_ALONG_K_COLS(plan->small, (int)element);
    else
        per_block = WL_GEMV_ALONG_BIG_THREADS((int)element) * (int)(16 / element);
    plan->tile_m = plan->small;
    plan->tile_n = per_block;
    plan->schedule = WL_GEMM_SCHEDULE_GEMV;
    plan->copies = 0;
    const long long k = (long long)d->k;
    if (plan->small < 1 || plan->big < 1) {
        /* An empty C (m or n is 0): nothing to launch, nothing to split. */
        const long long step = plan->x_along_k ? GEMV_K_QUANTUM : GEMV_BIG_QUANTUM;
        const long long whole = k > 0 ? (k + step - 1) / step * step : step;
        plan->blocks_big = 0;
        plan->k_chunk = whole < INT_MAX ? (int)whole : (int)step;
        plan->splits = 1;
        plan->scratch = 0;
        return;
    }
    plan->blocks_big = (plan->big + per_block - 1) / per_block;
    const long long sms = t->sms > 0 ? t->sms : 1;
    if (kernel == WL_GEMV_KERNEL_MMA_ROWS) {
        gemv_rows_splits(d, sms, plan);
        return;
    }
    const long long target = kernel == WL_GEMV_KERNEL_MMA     ? (GEMV_MMA_QUARTER_SMS * sms + 3) / 4
                             : kernel == WL_GEMV_KERNEL_TILED ? GEMV_TILED_BLOCKS_PER_SM * sms
                             : kernel == WL_GEMV_KERNEL_STAGED ? GEMV_STAGED_BLOCKS_PER_SM * sms
                                                               : GEMV_BLOCKS_PER_SM * sms;
    long long splits = (target + plan->blocks_big - 1) / plan->blocks_big;
    /* 16-bit X along its rows (gemv_rows16's class): the split of the 16-bit
     * columns kernel whose geometry gemv_along_big took there (GEMV_ROWS16_*). */
    const bool rows16 = kernel == WL_GEMV_KERNEL_FMA && !plan->x_along_k && element == 2;
    const long long quantum = plan->x_along_k ? GEMV_K_QUANTUM
                              : rows16        ? GEMV_ROWS16_QUANTUM
                                              : GEMV_BIG_QUANTUM;
    long long most = rows16 ? (k + GEMV_ROWS16_MIN - 1) / GEMV_ROWS16_MIN
                            : k / (plan->x_along_k ? GEMV_K_MIN : GEMV_BIG_MIN);
    /* The partial sums (written and read) at most a sixteenth of X's bytes;
     * rows16: an eighth. */
    const long long by_traffic = k * (long long)element / ((rows16 ? 32LL : 64LL) * plan->small);
    most = most < by_traffic ? most : by_traffic;
    const long long most_splits = rows16 ? GEMV_ROWS16_SPLITS_MAX : GEMV_SPLITS_MAX;
    most = most < 1 ? 1 : most > most_splits ? most_splits : most;
    splits = splits < 1 ? 1 : splits > most ? most : splits;
    if (kernel == WL_GEMV_KERNEL_STAGED && k > 0)
        splits = gemv_staged_splits(k, plan->blocks_big, target, most);
    long long chunk = (k + splits - 1) / splits;
    chunk = (chunk + quantum - 1) / quantum * quantum;
    if (chunk < 1)
        chunk = quantum;
    plan->k_chunk = (int)chunk;
    plan->splits = k > 0 ? (int)((k + chunk - 1) / chunk) : 1;
    plan->scratch =
        plan->splits > 1 ? (size_t)plan->splits * (size_t)plan->small * (size_t)plan->big * 4 : 0;
}

void wl_gemm_gemv_geometry(const wl_gemm_desc *d, const wl_gemm_target *t, wl_gemm_route *plan)
{
    const int kernel = plan->candidate >= 0 && (size_t)plan->candidate < CANDIDATES
                           ? candidates[plan->candidate].gemv_kernel
                           : WL_GEMV_KERNEL_FMA;
    gemv_geometry(d, t, kernel, plan);
}

unsigned wl_gemm_candidate_copies(const wl_gemm_candidate *c, const wl_gemm_desc *d)
{
    if (c->copy_bandwidth_fraction <= 0.0 || (c->in_place & wl_gemm_layout_bit(d->op_a, d->op_b)))
        return 0;
    return (d->op_a == WARPLAB_OP_T ? 1u : 0u) | (d->op_b == WARPLAB_OP_T ? 2u : 0u);
}

double wl_gemm_candidate_us(const wl_gemm_candidate *c, const wl_gemm_desc *d,
                            const wl_gemm_target *t)
{
    if (!wl_gemm_candidate_takes(c, d, t))
        return HUGE_VAL;
    const double m = (double)d->m, n = (double)d->n, k = (double)d->k;
    const double in = (double)warplab_dtype_size(d->ab_type);
    const double out = (double)warplab_dtype_size(d->c_type);
    /* A batch: every matrix's bytes and flops (operands of stride 0 read
     * once are priced as read each time: an upper bound). */
    const double batch = d->batch > 1 ? (double)d->batch : 1.0;
    double bytes = batch * ((m * k + n * k) * in + m * n * out);
    double extra_us = 0.0;
    if (c->schedule == WL_GEMM_SCHEDULE_GEMV) {
        wl_gemm_route g;
        memset(&g, 0, sizeof g);
        gemv_geometry(d, t, c->gemv_kernel, &g);
        if (g.splits > 1) {
            bytes += 2.0 * (double)g.scratch; /* partial sums written and read */
            extra_us = 2.0;                   /* the finish kernel's launch */
        }
    }
    const unsigned copies = wl_gemm_candidate_copies(c, d);
    if (copies) {
        /* Each copied operand read and written once more, and its launch. */
        const double copied = ((copies & 1u) ? m * k : 0.0) + ((copies & 2u) ? n * k : 0.0);
        extra_us += (copies == 3u ? 2.0 : 1.0) * COPY_LAUNCH_US +
                    2.0 * copied * in / (c->copy_bandwidth_fraction * bandwidth_of(t) * 1e3);
    }
    const double memory_us = bytes / (c->bandwidth_fraction * bandwidth_of(t) * 1e3);
    double fm = m, fn = n, flop_fraction = c->flop_fraction;
    if (c->pad_side > 0 && small_side(d) > c->skinny_max) {
        const double side = (double)c->pad_side;
        fm = ceil(m / side) * side;
        fn = ceil(n / side) * side;
        if ((double)small_side(d) <= side) {
            flop_fraction = c->small_flop_fraction;
            /* One row of small tiles (side x FP32_SMALL_TILE_LONG) short of
             * the SMs: the dispatcher splits k (FP32_SMALL_TILE_SPLIT). */
            const double tiles = ceil(fmax(m, n) / FP32_SMALL_TILE_LONG);
            const double sms = t->sms > 0 ? (double)t->sms : 132.0;
            if (tiles < sms && k >= 2.0 * FP32_SMALL_TILE_MIN_K) {
                const double splits = fmin(ceil(sms / tiles), floor(k / FP32_SMALL_TILE_MIN_K));
                extra_us +=
                    FP32_SMALL_TILE_SPLIT_US + batch * 2.0 * splits * m * n * 4.0 /
                                                   (c->bandwidth_fraction * bandwidth_of(t) * 1e3);
            }
        }
    }
    double flop_us =
        batch * 2.0 * fm * fn * k / (flop_fraction * c->flop_multiple * peak_of(t) * 1e3);
    if (d->op_b == WARPLAB_OP_T && !(copies & 2u))
        flop_us *= 1.0 + (flop_fraction == c->small_flop_fraction && c->pad_side > 0
                              ? c->transposed_b_small_cost
                              : c->transposed_b_cost);
    return c->fixed_us + extra_us + (memory_us > flop_us ? memory_us : flop_us);
}

/* A preference, not a limit (a forced name still runs the row): a row that
 * defers to the GEMV family is not picked, with the big operand along k,
 * where a GEMV row takes the descriptor; a row for small problems off 16
 * bytes (unaligned_small_max) is not picked outside them. */
bool wl_gemm_candidate_defers(const wl_gemm_candidate *c, const wl_gemm_desc *d,
                              const wl_gemm_target *t)
{
    if (c->unaligned_small_max > 0) {
        const size_t most = d->m > d->n ? d->m : d->n;
        if ((d->align_a >= 16 && d->align_b >= 16) || small_side(d) <= WL_GEMV_SMALL_MAX ||
            most > c->unaligned_small_max || d->k > c->unaligned_small_max)
            return true;
    }
    if (c->planned_small_max > 0 && small_side(d) > c->planned_small_max)
        return true;
    if (d->k == 0)
        return false;
    const bool along_k = wl_gemm_x_along_k(d);
    const bool y_along_k = d->m <= d->n ? d->op_a == WARPLAB_OP_N : d->op_b == WARPLAB_OP_T;
    const size_t defers_max =
        y_along_k ? c->along_k_defers_small_max : c->along_k_defers_strided_small_max;
    const bool any_gemv = defers_max > 0 && along_k && small_side(d) <= defers_max;
    const bool tensor_gemv = c->along_big_defers_small_max > 0 && !along_k &&
                             small_side(d) <= c->along_big_defers_small_max &&
                             small_side(d) >= c->along_big_defers_small_min;
    if (!any_gemv && !tensor_gemv)
        return false;
    for (size_t i = 0; i < CANDIDATES; i++) {
        const wl_gemm_candidate *g = &candidates[i];
        if (g->schedule != WL_GEMM_SCHEDULE_GEMV || !wl_gemm_candidate_takes(g, d, t))
            continue;
        if (any_gemv || g->gemv_kernel == WL_GEMV_KERNEL_MMA ||
            g->gemv_kernel == WL_GEMV_KERNEL_MMA_ROWS)
            return true;
    }
    return false;
}

/* The problem and the device as the tile models read them: the
 * descriptor's shape, layout, types and leading dimensions, its line phase
 * as the misalignment (the models read it modulo 128 bytes), and the
 * target's device facts. */
static wl_problem model_problem(const wl_gemm_desc *d)
{
    wl_problem p;
    memset(&p, 0, sizeof p);
    p.dim[0] = d->m;
    p.dim[1] = d->n;
    p.dim[2] = d->k;
    p.dims = 3;
    p.ld[0] = d->lda;
    p.ld[1] = d->ldb;
    p.ld[2] = d->ldc;
    p.dtype = d->ab_type;
    p.variant = (d->op_a == WARPLAB_OP_T ? WL_GEMM_TRANS_A : 0) |
                (d->op_b == WARPLAB_OP_T ? WL_GEMM_TRANS_B : 0) |
                (d->compute == WARPLAB_COMPUTE_TF32 ? WL_GEMM_COMPUTE_TF32 : 0) |
                (d->c_type != WARPLAB_FLOAT32 ? WL_GEMM_C_INPUT_TYPE : 0);
    p.misalign = d->line_phase / warplab_dtype_size(d->ab_type);
    return p;
}

static warplab_device_info model_device(const wl_gemm_target *t)
{
    warplab_device_info info;
    memset(&info, 0, sizeof info);
    info.cc_major = t->cc_major;
    info.cc_minor = t->cc_minor;
    info.multiprocessors = t->reported_sms;
    info.theoretical_bandwidth_gbs = t->bandwidth_gbs;
    info.fp32_peak_gflops = t->fp32_peak_gflops;
    return info;
}

/* A chooser's plan kept in the route: assigned whole, so that every field
 * it has (or gains) is kept, where a copy field by field drops a field
 * added later. The plans have no padding of the compiler's
 * (WL_PLAN_NO_PADDING, gemm_dispatch.h): the route's bytes are the plan's,
 * and routes compare with memcmp (test_gemm_plan: made twice and cached
 * alike; a plan with padding, assigned whole, brought the chooser's stack
 * bytes along and failed that test). */
#define KEEP_PLAN(to, from) (memset(&(to), 0, sizeof(to)), (to) = (from))

static wl_gemm_schedule split_schedule(int splits)
{
    return splits > 1 ? WL_GEMM_SCHEDULE_SPLIT_K : WL_GEMM_SCHEDULE_WHOLE_TILES;
}

wl_gemm_plan wl_gemm_fp32_plan(const wl_gemm_desc *d, const wl_gemm_target *t)
{
    wl_gemm_device device;
    memset(&device, 0, sizeof device);
    device.sms = t->reported_sms;
    device.fp32_gflops = t->fp32_peak_gflops;
    device.bandwidth_gbs = t->bandwidth_gbs;
    /* dispatch.cu's alignment: each view's base and row pitch on 16 bytes */
    const int a_aligned = d->align_a >= 16, b_aligned = d->align_b >= 16;
    /* The skinny kernels read A and B as N, N only: a transposed layout
     * gets the tile kernels (which read every layout). */
    if (d->op_a == WARPLAB_OP_T || d->op_b == WARPLAB_OP_T)
        return wl_gemm_choose_tiles(d->m, d->n, d->k, a_aligned, b_aligned, &device);
    return wl_gemm_choose(d->m, d->n, d->k, a_aligned, b_aligned, &device);
}

/* The FP32 dispatcher's rows: its plan on the descriptor, or (a copying
 * row) on the N, N copies of the op T operands, rows of whole 128-byte
 * lines in the workspace (fp32_copy.cu), so 16-byte aligned; the route's
 * schedule, tile, splits and k chunk from it. */
static void fp32_plan(const wl_gemm_desc *d, const wl_gemm_target *t, wl_gemm_route *plan)
{
    wl_gemm_desc on = *d;
    if (plan->copies & 1u) {
        on.op_a = WARPLAB_OP_N;
        on.align_a = 16;
    }
    if (plan->copies & 2u) {
        on.op_b = WARPLAB_OP_N;
        on.align_b = 16;
    }
    const wl_gemm_plan f = wl_gemm_fp32_plan(&on, t);
    KEEP_PLAN(plan->fp32, f);
    plan->splits = f.splits;
    plan->k_chunk = f.k_chunk;
    plan->schedule = split_schedule(f.splits);
    wl_gemm_kernel_tile(f.kernel, &plan->tile_m, &plan->tile_n);
}

/* The rows of schedule WL_GEMM_SCHEDULE_MODELLED: their chooser's plan
 * (the tile models', the FP32 dispatcher's), and the route's schedule,
 * tile, splits, k chunk and copies from it. */
static void modelled_plan(const wl_gemm_desc *d, const wl_gemm_target *t, wl_gemm_route *plan)
{
    const wl_gemm_chooser chooser = candidates[plan->candidate].chooser;
    if (chooser == WL_GEMM_CHOOSER_FP32) {
        fp32_plan(d, t, plan);
        return;
    }
    const wl_problem p = model_problem(d);
    const warplab_device_info info = model_device(t);
    plan->schedule = WL_GEMM_SCHEDULE_WHOLE_TILES;
    plan->copies = 0;
    if (chooser == WL_GEMM_CHOOSER_EX16) {
        const wl_ex16_plan e = wl_ex16_choose(&info, &p, t->tma);
        KEEP_PLAN(plan->ex16, e);
        plan->splits = e.splits;
        plan->k_chunk = e.k_chunk;
        plan->schedule = split_schedule(e.splits);
        switch (e.kind) {
        case WL_EX16_MMA:
            plan->tile_m = wl_ex16_configs[e.tile].bm;
            plan->tile_n = wl_ex16_configs[e.tile].bn;
            break;
        case WL_EX16_WGMMA:
            plan->tile_m = e.rows;
            plan->tile_n = e.tile;
            plan->copies = (unsigned)e.restride;
            if (e.sk_workers > 0)
                plan->schedule = WL_GEMM_SCHEDULE_STREAM_K;
            break;
        case WL_EX16_THIN:
            plan->tile_m = 16 * e.tile;
            plan->tile_n = EX16_THIN_COLS;
            break;
        default: /* the TMA path's and the tiled fallback's tiles are the launch's */
            plan->tile_m = plan->tile_n = 0;
            break;
        }
        return;
    }
    const wl_tf32_plan f = wl_tf32_choose(&info, &p, t->fp32_dispatcher, t->tma);
    KEEP_PLAN(plan->tf32, f);
    plan->tile_m = plan->tile_n = 0;
    if (f.route == WL_TF32_ROUTE_WGMMA) {
        plan->splits = f.wgmma_splits;
        plan->k_chunk = f.wgmma_k_chunk;
        plan->tile_m = f.wgmma_rs ? f.wgmma_bn : 128;
        plan->tile_n = f.wgmma_rs ? 128 : f.wgmma_bn;
        plan->copies = (f.wgmma_line_a ? 1u : 0u) | (f.wgmma_line_b ? 2u : 0u);
    } else if (f.route == WL_TF32_ROUTE_TILES) {
        plan->splits = f.tiles.splits;
        plan->k_chunk = f.tiles.k_chunk;
        plan->tile_m = wl_tf32_tile_kinds[f.tiles.tile].bm;
        plan->tile_n = wl_tf32_tile_kinds[f.tiles.tile].bn;
    }
    plan->schedule = split_schedule(plan->splits);
}

wl_gemm_route wl_gemm_plan_make(const wl_gemm_desc *d, const wl_gemm_target *t, const char *force)
{
    wl_gemm_route plan;
    memset(&plan, 0, sizeof plan);
    plan.candidate = -1;
    plan.splits = 1;
    plan.k_chunk = (int)(d->k < (size_t)INT32_MAX ? d->k : (size_t)INT32_MAX);
    plan.predicted_us = HUGE_VAL;
    if (force) {
        const int i = wl_gemm_candidate_find(force);
        if (i >= 0 && wl_gemm_candidate_takes(&candidates[i], d, t)) {
            plan.candidate = i;
            plan.predicted_us = wl_gemm_candidate_us(&candidates[i], d, t);
        }
    } else {
        for (int fallback = 0; fallback <= 1 && plan.candidate < 0; fallback++)
            for (size_t i = 0; i < CANDIDATES; i++) {
                if (candidates[i].fallback != (fallback == 1) ||
                    wl_gemm_candidate_defers(&candidates[i], d, t))
                    continue;
                const double us = wl_gemm_candidate_us(&candidates[i], d, t);
                if (us < plan.predicted_us) {
                    plan.predicted_us = us;
                    plan.candidate = (int)i;
                }
            }
    }
    if (plan.candidate < 0)
        return plan;
    const wl_gemm_candidate *c = &candidates[plan.candidate];
    plan.schedule = c->schedule;
    plan.tile_m = c->tile_m;
    plan.tile_n = c->tile_n;
    plan.copies = wl_gemm_candidate_copies(c, d);
    if (c->schedule == WL_GEMM_SCHEDULE_GEMV)
        wl_gemm_gemv_geometry(d, t, &plan);
    else if (c->schedule == WL_GEMM_SCHEDULE_MODELLED)
        modelled_plan(d, t, &plan);
    else if (c->unaligned_small_max > 0) /* small_mma: its tile (gemm_small_mma.h) */
        plan.tile_m = plan.tile_n =
            wl_small_mma_tile(d->m, d->n, t->sms) == WL_SMALL_MMA_TILE_64 ? 64 : 32;
    return plan;
}

/* ------------------------------------------------------------------------ */
/* The cache: a per-thread table of recent plans, keyed by every field.      */

#define PLAN_KEY_WORDS 29
#define PLAN_CACHE_SLOTS 64

typedef struct plan_key {
    uint64_t w[PLAN_KEY_WORDS];
} plan_key;

typedef struct plan_slot {
    bool used;
    plan_key key;
    wl_gemm_route plan;
} plan_slot;

static uint64_t double_bits(double x)
{
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    return bits;
}

static plan_key key_of(const wl_gemm_desc *d, const wl_gemm_target *t, const char *force)
{
    plan_key key;
    const uint64_t w[PLAN_KEY_WORDS] = {
        d->m, d->n, d->k, d->batch, (uint64_t)d->op_a, (uint64_t)d->op_b, (uint64_t)d->ab_type,
        (uint64_t)d->c_type, (uint64_t)d->compute, d->lda, d->ldb, d->ldc, d->stride_a, d->stride_b,
        d->stride_c, d->align_a, d->align_b, d->align_c, d->line_phase, (uint64_t)t->cc_major,
        (uint64_t)t->cc_minor, (uint64_t)t->sms, (uint64_t)(int64_t)t->reported_sms,
        double_bits(t->bandwidth_gbs), double_bits(t->fp32_peak_gflops), t->sm90a, t->tma,
        t->fp32_dispatcher,
        /* a forced name: its row + 1 (an unknown name plans like no row) */
        force ? (uint64_t)(wl_gemm_candidate_find(force) + 2) : 0};
    memcpy(key.w, w, sizeof w);
    return key;
}

static uint64_t key_hash(const plan_key *key)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a over the words */
    for (int i = 0; i < PLAN_KEY_WORDS; i++) {
        h ^= key->w[i];
        h *= 1099511628211ull;
    }
    return h;
}

wl_gemm_route wl_gemm_plan_cached(const wl_gemm_desc *d, const wl_gemm_target *t, const char *force)
{
    static _Thread_local plan_slot slots[PLAN_CACHE_SLOTS];
    const plan_key key = key_of(d, t, force);
    plan_slot *slot = &slots[key_hash(&key) % PLAN_CACHE_SLOTS];
    if (slot->used && memcmp(&slot->key, &key, sizeof key) == 0)
        return slot->plan;
    slot->plan = wl_gemm_plan_make(d, t, force);
    slot->key = key;
    slot->used = true;
    return slot->plan;
}

void wl_gemm_route_describe(const wl_gemm_route *plan, char *text, size_t len)
{
    if (plan->candidate < 0) {
        snprintf(text, len, "no candidate takes this problem");
        return;
    }
    const wl_gemm_candidate *c = &candidates[plan->candidate];
    if (plan->schedule == WL_GEMM_SCHEDULE_GEMV)
        snprintf(text, len, "%s (small %c = %d, X along %s, %d split%s of %d, model %.1f us)",
                 c->name, plan->small_m ? 'm' : 'n', plan->small,
                 plan->x_along_k ? "k" : "its rows", plan->splits, plan->splits == 1 ? "" : "s",
                 plan->k_chunk, plan->predicted_us);
    else if (plan->copies)
        snprintf(text, len, "%s (%s copied, model %.1f us)", c->name,
                 plan->copies == 3u   ? "A and B"
                 : plan->copies == 1u ? "A"
                                      : "B",
                 plan->predicted_us);
    else
        snprintf(text, len, "%s (model %.1f us)", c->name, plan->predicted_us);
}

const char *wl_gemm_plan_tuning_set(void)
{
    return WL_GEMM_PLAN_TUNING_SET;
}

/* ------------------------------------------------------------------------ */
/* The tile choosers' constants (gemm_plan.h): wl_ex16_choose's 16-bit      */
/* tile model and wl_tf32_choose's TF32 one, each with its measurement.     */

#define EX16 "wl_ex16_choose"
#define TF32C_ "wl_tf32_choose"
static const wl_gemm_model_constant model_constants[WL_GEMM_MODEL_COUNT] = {
    {WL_GM_EX16_MMA128_SM_TFLOPS, EX16, "mma128_sm_tflops", 2.0,
     "ex16_mma 128 x 128 tiles, an SM's rate shared by its 2 resident blocks: H100, 256 x 14336 "
     "x 4096"},
    {WL_GM_EX16_MMA128_BLOCK_TFLOPS, EX16, "mma128_block_tflops", 1.2,
     "ex16_mma 128 x 128 tiles, one block alone on an SM: H100, 256 x 14336 x 4096"},
    {WL_GM_EX16_MMA64_SM_TFLOPS, EX16, "mma64_sm_tflops", 1.05,
     "ex16_mma 64 x 64 tiles, 2 to 4 blocks an SM: H100, 512 x 4096 x 11008 and 1024^3"},
    {WL_GM_EX16_MMA64_BLOCK_TFLOPS, EX16, "mma64_block_tflops", 0.55,
     "ex16_mma 64 x 64 tiles, one block alone on an SM: H100, 512 x 4096 x 11008 and 1024^3"},
    {WL_GM_EX16_MMA_FIXED_US, EX16, "mma_fixed_us", 6.0,
     "ex16_mma's launch and pipeline fill: H100, 128^3 about 8 us"},
    {WL_GM_EX16_MMA_BANDWIDTH, EX16, "mma_bandwidth", 0.45,
     "fraction of the bandwidth ex16_mma streams at: H100, GEMV shapes at about 1.5 TB/s"},
    {WL_GM_EX16_MMA_SPLIT_US, EX16, "mma_split_us", 2.0,
     "the split sums' second launch after ex16_mma (a launch, H100)"},
    {WL_GM_EX16_MMA_UNALIGNED_SLOWER, EX16, "mma_unaligned_slower", 3.0,
     "ex16_mma on rows off 16 bytes loads element by element: H100, 17 x 3001 x 1999 and 777 x "
     "555 x 333 (44 and 34 us, 2.3x and 1.9x cuBLAS)"},
    {WL_GM_EX16_TMA_FIXED_US, EX16, "tma_fixed_us", 12.0,
     "the TMA path's launches and fill: H100, 4096^3 220 us, 1024^3 26 us, 4096 x 4096 x 64 39 "
     "us, 512 x 4096 x 11008 194 us"},
    {WL_GM_EX16_TMA_COPY_BANDWIDTH, EX16, "tma_copy_bandwidth", 0.75,
     "the TMA path's K-major copies (read + write), same H100 calibration"},
    {WL_GM_EX16_TMA_COPY_US, EX16, "tma_copy_us", 2.0,
     "a K-major copy's launch, same H100 calibration"},
    {WL_GM_EX16_TMA_UNALIGNED_COPY_BANDWIDTH, EX16, "tma_unaligned_copy_bandwidth", 0.27,
     "element-by-element copies of rows off 16 bytes: H200, scripts/gemm_tile_tuning.sh "
     "unaligned, ex16_tma forced (40001 x 180 x 2001 341 us; 301^3, 455^3, 777^3 29.7-36.6 us)"},
    {WL_GM_EX16_TMA_UNALIGNED_COPY_US, EX16, "tma_unaligned_copy_us", 6.7,
     "the same fit as tma_unaligned_copy_bandwidth (model 352, 29.7, 32.3, 39.0 us)"},
    {WL_GM_EX16_WGMMA_SM_TFLOPS, EX16, "wgmma_sm_tflops", 5.5,
     "an SM's wgmma rate: H100, 4096^3 BF16 in 128 x 256 tiles; 512 x 4096 x 11008 in 128 x 128 "
     "tiles 69 us"},
    {WL_GM_EX16_WGMMA_128_RATE, EX16, "wgmma_128_rate", 0.9,
     "128 x 128 tiles at this fraction of 128 x 256's rate: H100, 20 shapes of 1000^3 to 8192^3 "
     "(docs/DECISIONS.md, the 128x128 16-bit tile)"},
    {WL_GM_EX16_WGMMA_192_RATE, EX16, "wgmma_192_rate", 0.94,
     "192 x 128 tiles at this fraction of 128 x 256's rate: H200, 18 tuning shapes, 0.94-0.96 "
     "pick the faster tile on 17 (docs/DECISIONS.md, the 192x128 16-bit tile)"},
    {WL_GM_EX16_WGMMA_SWAP_RATE, EX16, "wgmma_swap_rate", 0.8,
     "the swapped product's 128 x 96 tiles at this fraction of 128 x 256's rate: H200, BF16, "
     "the swap tuning set forced at 1-8 splits (docs/DECISIONS.md, m of 257-384: the swapped "
     "product): 0.70 fits their times at 13% rms; 0.8 picks the faster plan best (0.975x "
     "the time of the planner without them, 0.9 1.004x)"},
    {WL_GM_EX16_WGMMA_UNIT_US, EX16, "wgmma_unit_us", 0.7,
     "a unit's fill and epilogue: H100, 128^3 10.5 us against ex16_mma's 7.9"},
    {WL_GM_EX16_WGMMA_FIXED_US, EX16, "wgmma_fixed_us", 6.0,
     "a launch, two tensor maps encoded on the host, the pipeline's fill: H200, the 64 x 64 and "
     "128 x 128 tiles forced on squares of 96-240 and 150 x 300 x 200 (BF16, 4 layouts and "
     "outputs: 4.5-8.9 us over the rest of the model, 5.3 median for 64 x 64; 8.5 priced them "
     "behind ex16_mma, 7.1-10.2 us against 5.9-7.3)"},
    {WL_GM_EX16_WGMMA_BANDWIDTH, EX16, "wgmma_bandwidth", 0.8,
     "the compulsory bytes' fraction of the bandwidth (and the TMA path's, C written once): H100"},
    {WL_GM_EX16_SM_STREAM_GBS, EX16, "sm_stream_gbs", 40.0,
     "an SM streams its operands at this many GB/s: H100, 2 x 4096 x 4096 in 3 splits (96 units) "
     "25 us, in 2 (64) 28 us; 128 x 128 x 32768 in 37 splits 19 us"},
    {WL_GM_EX16_WGMMA_SPLIT_US, EX16, "wgmma_split_us", 2.5,
     "the split sums' second launch after the wgmma kernel (H100)"},
    {WL_GM_EX16_SPLIT_SUMS_BANDWIDTH, EX16, "split_sums_bandwidth", 0.7,
     "the partial sums written and read back, and C, at this fraction of the bandwidth (H100)"},
    {WL_GM_EX16_RESTRIDE_US, EX16, "restride_us", 2.5,
     "the re-strided copies' launch (rows off 16 bytes copied onto 128-byte lines, A and B in one "
     "launch): H100, 17 x 3001 x 1999 and 777 x 555 x 333; H200, two launches cost 4.5 us more "
     "than one (bench gemm ex_bf16: 200 x 61 x 97 13.5 us, 61 x 200 x 97 8.9)"},
    {WL_GM_EX16_RESTRIDE_BANDWIDTH, EX16, "restride_bandwidth", 0.6,
     "the re-strided copy, an element a thread, read + write: about 60% of the bandwidth (H100)"},
    {WL_GM_EX16_LINE_COST_64, EX16, "line_cost_64", 0.05,
     "rows 64 bytes off every other line beside another operand off lines: as tf32_line_cost's "
     "6000^3 ~1.1x (H100)"},
    {WL_GM_EX16_LINE_COST_32, EX16, "line_cost_32", 0.15,
     "rows on 32-byte sectors off 128-byte lines: as tf32_line_cost's 3000^3 1.3x (H100)"},
    {WL_GM_EX16_LINE_COST_OFF, EX16, "line_cost_off", 0.33,
     "rows 16 bytes off a sector: H100 BF16 128 x 128 tiles, 3000^3 190 us against 103 for "
     "3008^3; A alone 1.36x, B alone 1.47x"},
    {WL_GM_EX16_LINE_COST_WIDE, EX16, "line_cost_wide", 0.75,
     "256-wide tiles read fewer bytes a flop: a quarter less of the line cost (H100)"},
    {WL_GM_EX16_SK_FIXED_US, EX16, "sk_fixed_us", 12.0,
     "stream-K shares' flags, fill and hand-over: H100 1792 x 2560 x 1024 and 2200^3 (off), 8 "
     "shapes that gained; H200 scripts/gemm_tile_tuning.sh prefill (10.8-17.9 us all right)"},
    {WL_GM_EX16_SK_HANDOVER_BANDWIDTH, EX16, "sk_handover_bandwidth", 1.1,
     "the shares' sums written and read back from L2 at 1.1x the DRAM bandwidth: H100, BF16 "
     "4096^3 in 2 x 1 clusters, 132 slots of 128 KiB, 9.5 us"},
    {WL_GM_EX16_BATCHED_EPILOGUE_GBS, EX16, "batched_epilogue_gbs", 20.0,
     "a batched unit's C tile written at this many GB/s an SM beside its fill: H200, `warplab "
     "bench gemm --batched --seed 5` and `--seed 6` (tuning), tile widths forced; 16-24 pick "
     "within 0.7% of the fastest width's geomean (Q K^T x10 4072^2 x 128: 128 x 128 tiles 138 us, "
     "128 x 256 168)"},
    {WL_GM_EX16_BATCHED_NARROW_RATE, EX16, "batched_narrow_rate", 0.5,
     "the narrow 64 x 64 tile's wgmma rate over many waves, a fraction of wgmma_sm_tflops (one "
     "consumer warpgroup): the same tuning seeds, 0.4-0.55 equally good (P V x127 1880 x 80 x "
     "1880: 589 us narrow, 325 in 128 x 128 tiles)"},
    {WL_GM_EX16_THIN_BLOCKS_SM, EX16, "thin_blocks_sm", 4.0,
     "ex16_thin's blocks an SM its split of k aims at (4 warps, 8 KB in flight each): modelled; "
     "the kernel fits 3 an SM (168 registers, ptxas sm_90)"},
    {WL_GM_EX16_THIN_BANDWIDTH, EX16, "thin_bandwidth", 0.39,
     "ex16_thin's big operand (along k) at this fraction of the bandwidth, 5 us fixed: H200, "
     "forced on the thin tuning set's small sides of 10-16 (50000x16x1024, 45000x12x2020, "
     "37000x10x1030, 12x4096x4096, 16x11008x4096, 10x6144x2020; BF16, FP16, both Cs), 20% rms"},
    {WL_GM_EX16_THIN_Y_STRIDED, EX16, "thin_y_strided", 1.2,
     "ex16_thin slower by this where the small operand is strided along k (loaded element by "
     "element): the same fit (45000x12x2020 N,N 104 us against N,T 88)"},
    {WL_GM_TF32_SM_GFLOPS, TF32C_, "sm_gflops", 3300.0,
     "an SM's TF32 wgmma rate in 256-wide tiles: H100 measurements (about 3.3 TFLOP/s an SM)"},
    {WL_GM_TF32_128_SM_GFLOPS, TF32C_, "128_sm_gflops", 2900.0,
     "an SM's TF32 wgmma rate in 128-wide tiles (H100)"},
    {WL_GM_TF32_RS_RATE, TF32C_, "rs_rate", 0.85,
     "gemm_ex_tf32_rs (B read as stored, from registers): the fragments' loads and a wait a k "
     "tile cost about 15% of the rate (H100)"},
    {WL_GM_TF32_FIXED_US, TF32C_, "fixed_us", 7.0,
     "TF32 wgmma's launch, tensor maps and fill (H100); warplab bench gemm --shapes (H200): "
     "0.955x cuBLAS TF32"},
    {WL_GM_TF32_COPY_LAUNCH_US, TF32C_, "copy_launch_us", 6.5,
     "a K-major copy's launch and fill: H100, 777 x 555 x 333 two copies 26.7-27.0 us measured, "
     "19.2 modelled at 3 us; 900 x 803 x 700 27.2 against 20.6; 1001 x 999 x 1003 40.4 against "
     "32.1"},
    {WL_GM_TF32_BANDWIDTH, TF32C_, "bandwidth", 0.85,
     "A, B and C once at this fraction of the bandwidth (H100)"},
    {WL_GM_TF32_COPY_BANDWIDTH, TF32C_, "copy_bandwidth", 0.7,
     "the K-major copies, read + write, 1.8-2.7 TB/s: H100, B of 4096^3 70 us, of 512 x 4096 x "
     "11008 133 us"},
    {WL_GM_TF32_COPY_GBS_MAX, TF32C_, "copy_gbs_max", 2500.0,
     "the copies' rate does not grow with the bandwidth past about 2.5 TB/s, read + write: H200, "
     "ex_tf32_wgmma forced on the TF32 tuning set's pairs, rows of A off 16 bytes against "
     "16-byte rows (30001x33x4095 597.6 against 209.6 us, 40000x128x1023 195.0 against 58.4, "
     "50000x100x2001 461.2 against 131.0, 20000x250x777 109.6 against 61.8: 2.4-2.6 TB/s, 0.50-"
     "0.54 of its 4.8, where copy_bandwidth priced 3.4)"},
    {WL_GM_TF32_UNIT_US, TF32C_, "unit_us", 0.7,
     "a (split, tile) unit's fill (H100, as the 16-bit kernel)"},
    {WL_GM_TF32_SPLIT_US, TF32C_, "split_us", 2.5,
     "the split sums' second launch after the wgmma kernel (H100)"},
    {WL_GM_TF32_SPLIT_SUMS_BANDWIDTH, TF32C_, "split_sums_bandwidth", 0.7,
     "the partial sums written and read back, and C, at this fraction of the bandwidth (H100, "
     "as the 16-bit kernel's)"},
    {WL_GM_TF32_LINE_128_SLOWER, TF32C_, "line_128_slower", 1.33,
     "128 x 128 tiles read a third more bytes a flop and lose about a third more to rows off "
     "lines (H100, gemm_ex_tf32_rs)"},
    {WL_GM_TF32_LINE_COST_64, TF32C_, "line_cost_64", 0.05,
     "rows 64 bytes off every other line, beside another operand off lines: H100, 6000^3 ~1.1x, "
     "2000^3 nothing"},
    {WL_GM_TF32_LINE_COST_32, TF32C_, "line_cost_32", 0.15,
     "rows on 32-byte sectors: H100, 3000^3 1.3x; B's alone 1.1-1.2x (8000 x 1000 x 4000, 3008 x "
     "3000 x 3008), A's alone nothing"},
    {WL_GM_TF32_LINE_COST_OFF_KMAJOR, TF32C_, "line_cost_off_kmajor", 0.55,
     "K-major rows 16 bytes off a sector: H100, 3500^3 446 us against 228 for 3520^3, A's rows "
     "alone 1.6x; 2500^3 1.65-1.84x (docs/DECISIONS.md, rows off the 128-byte lines)"},
    {WL_GM_TF32_LINE_COST_OFF, TF32C_, "line_cost_off", 0.35,
     "N-major rows 16 bytes off a sector (B's boxes, 32 k rows of 128 bytes): H100, 3500^3 B's "
     "rows alone 1.36x"},
    {WL_GM_TF32_SKINNY_M16_FACTOR, TF32C_, "skinny_m16_factor", 2.7,
     "the FP32 dispatcher's model is optimistic for skinny_m at 16 rows: H100, 16 x 4096 x 4096 "
     "73 us measured, 27 modelled"},
};
#undef EX16
#undef TF32C_

const wl_gemm_model_constant *wl_gemm_model_constants(size_t *count)
{
    if (count)
        *count = WL_GEMM_MODEL_COUNT;
    return model_constants;
}

double wl_gemm_model(wl_gemm_model_id id)
{
    return (unsigned)id < WL_GEMM_MODEL_COUNT ? model_constants[id].value : 0.0;
}
