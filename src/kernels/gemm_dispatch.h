/* The FP32 dispatcher (gemm_dispatch.c): which kernel warplab_gemm's
 * row-major FP32 path runs, and how (the cuda "dispatch" implementation
 * asks it at launch). Host C, includable from CUDA. */
#ifndef WARPLAB_KERNELS_GEMM_DISPATCH_H
#define WARPLAB_KERNELS_GEMM_DISPATCH_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum wl_gemm_kernel {
    WL_GEMM_KERNEL_SKINNY_M = 0, /* bandwidth-bound, m small: B streams once */
    WL_GEMM_KERNEL_SKINNY_N,     /* bandwidth-bound, n small: A streams once */
    WL_GEMM_KERNEL_TILE_32X128,  /* pipelined tiles, 32 x 128 */
    WL_GEMM_KERNEL_TILE_64X64,   /* pipelined tiles, 64 x 64 */
    WL_GEMM_KERNEL_TILE_128X32,  /* pipelined tiles, 128 x 32 */
    WL_GEMM_KERNEL_TILE_64X128,  /* pipelined tiles, 64 x 128 */
    WL_GEMM_KERNEL_TILE_128X128, /* pipelined tiles, 128 x 128 (frag_128x128) */
    WL_GEMM_KERNEL_TILE_256X128, /* pipelined tiles, 256 x 128 (frag_256x128_s6) */
    WL_GEMM_KERNEL_TILE_32X64,   /* pipelined tiles, 32 x 64, 4 x 4 a thread */
    WL_GEMM_KERNEL_COUNT
} wl_gemm_kernel;

/* WL_PLAN_NO_PADDING: plans whose every byte is a member (`padding`
 * members 0), so that a plan assigned whole keeps every byte and plans
 * compare with memcmp (the planner's routes carry them: gemm_plan.h). C
 * compilers that know -Wpadded (GCC, Clang) refuse padding of their own
 * between BEGIN and END (type), where the type is laid out. */
#if defined(__GNUC__) && !defined(__CUDACC__) && !defined(__cplusplus)
#define WL_PLAN_NO_PADDING_BEGIN                                                                   \
    _Pragma("GCC diagnostic push") _Pragma("GCC diagnostic error \"-Wpadded\"")
#define WL_PLAN_NO_PADDING_END(type)                                                               \
    _Static_assert(sizeof(type) > 0, #type " is laid out under -Wpadded");                         \
    _Pragma("GCC diagnostic pop")
#else
#define WL_PLAN_NO_PADDING_BEGIN
#define WL_PLAN_NO_PADDING_END(type)
#endif

/* A kernel and how it is run: rows (skinny_m) or columns (skinny_n) of C a
 * block takes at once, and the k range split in `splits` chunks of k_chunk
 * (splits 1: one launch, no workspace; more: partial sums in the workspace,
 * then a reduction in fixed order). */
WL_PLAN_NO_PADDING_BEGIN
typedef struct wl_gemm_plan {
    wl_gemm_kernel kernel;
    int group;           /* skinny_m: MR rows; skinny_n: NR columns; tiles: 0 */
    int splits;          /* >= 1 */
    int k_chunk;         /* k / splits rounded up to the kernel's step; k when splits = 1 */
    double predicted_us; /* the cost model's estimate, for the notes */
    /* Tile kernels, splits > 1 only: 0, every tile split over k; t > 0, the
     * tiles run whole except the last t (the last, partial wave), which are
     * split over k (wl_gemm_plan_tail_split). */
    int tail_tiles;
    int padding; /* 0 */
} wl_gemm_plan;
WL_PLAN_NO_PADDING_END(wl_gemm_plan)

/* What the dispatcher sees of the device: SMs, FP32 peak and bandwidth (0 =
 * unknown: H100-class defaults). */
typedef struct wl_gemm_device {
    int sms;
    double fp32_gflops;
    double bandwidth_gbs;
} wl_gemm_device;

/* The dispatcher's rule: the plan of least modelled time among the
 * kernels that suit m, n, k. b_rows_aligned / a_rows_aligned: the views'
 * rows start on 16-byte boundaries (pointer and leading dimension), which
 * lets the skinny kernels stream with 16-byte loads. Deterministic, no
 * allocation. */
wl_gemm_plan wl_gemm_choose(size_t m, size_t n, size_t k, int a_rows_aligned, int b_rows_aligned,
                            const wl_gemm_device *device);
/* The same among the tile kernels alone (their whole tiles, split-K and
 * tail splits; no skinny kernel): what a transposed layout runs, the tile
 * kernels reading op T operands in place (pipelined_kernel.cuh). */
wl_gemm_plan wl_gemm_choose_tiles(size_t m, size_t n, size_t k, int a_rows_aligned,
                                  int b_rows_aligned, const wl_gemm_device *device);
/* The best plan with one kernel (the kernel's own rung): only the split of k
 * is chosen. */
wl_gemm_plan wl_gemm_plan_for(wl_gemm_kernel kernel, size_t m, size_t n, size_t k,
                              int a_rows_aligned, int b_rows_aligned, const wl_gemm_device *device);
/* The tile kernel's tiles in whole waves of (resident blocks x SMs), and the
 * last, partial wave's tiles split over k into enough blocks to fill a wave
 * (a data-parallel + split-K hybrid; a plain plan when the tiles fill their
 * waves, fit in one wave, or k is too short to split). Off the dispatcher's
 * candidates until measured on a GPU. */
wl_gemm_plan wl_gemm_plan_tail_split(wl_gemm_kernel kernel, size_t m, size_t n, size_t k,
                                     int a_rows_aligned, int b_rows_aligned,
                                     const wl_gemm_device *device);
/* A tile kernel's tile (0 x 0 for the skinny kernels). */
void wl_gemm_kernel_tile(wl_gemm_kernel kernel, int *bm, int *bn);
/* Workspace a plan needs: splits * m * n floats when split (splits *
 * tail_tiles tiles when only the tail is), else 0. */
size_t wl_gemm_plan_scratch_bytes(const wl_gemm_plan *plan, size_t m, size_t n);
/* "skinny_m", "tile_64x64", ... */
const char *wl_gemm_kernel_name(wl_gemm_kernel kernel);
/* "tile_64x64 split 4 (k 1024 a split)": what a plan runs, for the notes. */
void wl_gemm_plan_describe(const wl_gemm_plan *plan, char *text, size_t len);

#ifdef __cplusplus
}
#endif

#endif
