/* The matrix-multiply ladder's problem layout, shared by the ladder, its
 * verification and the backends (C and CUDA).
 *
 * C = alpha * A * B + beta * C, float32, row-major:
 *   A is m x k with row stride lda >= k, B is k x n with ldb >= n,
 *   C is m x n with ldc >= n; strides in elements (problem.ld[], 0 = tight).
 * problem.dim[] = {m, n, k}. With beta = 0, C is only written (BLAS
 * semantics: it may hold anything, NaN included, and is never read). */
#ifndef WARPLAB_GEMM_H
#define WARPLAB_GEMM_H

#include "../internal.h"
#include "../ops/gemm_plan.h"

#include "warplab_lab.h"
#ifdef __cplusplus
extern "C" {
#endif

enum { GEMM_A = 0, GEMM_B, GEMM_C, GEMM_BUFFERS };

static inline size_t wl_gemm_m(const wl_problem *p)
{
    return p->dim[0];
}
static inline size_t wl_gemm_n(const wl_problem *p)
{
    return p->dim[1];
}
static inline size_t wl_gemm_k(const wl_problem *p)
{
    return p->dim[2];
}
/* warplab_gemm_ex's problems: bits of problem.variant (0: warplab_gemm's
 * row-major N, N float problem). problem.dtype is the type of A and B. */
enum {
    WL_GEMM_TRANS_A = 1,      /* A stored k x m (lda >= m): op(A) = A^T */
    WL_GEMM_TRANS_B = 2,      /* B stored n x k (ldb >= k): op(B) = B^T */
    WL_GEMM_COMPUTE_TF32 = 4, /* TF32 tensor-core products (float inputs) */
    WL_GEMM_C_INPUT_TYPE = 8  /* C has the input type (problem.dtype), not float */
};
/* The ladder's ex16_* rows (16-bit inputs, cuda): one path of gemm_ex,
 * forced instead of chosen by the cost model (ex16.h). */
enum {
    WL_GEMM_EX16_FORCE_MMA = 32,    /* mma.sync tiles on the operands as stored */
    WL_GEMM_EX16_FORCE_TMA = 64,    /* TMA + wgmma on K-major operands (copies) */
    WL_GEMM_EX16_FORCE_WGMMA = 128, /* TMA + wgmma on the operands as stored, split k */
    WL_GEMM_EX16_FORCE_THIN = 256,  /* mma.sync from registers, m or n <= 64, split k */
    WL_GEMM_EX16_FORCE = WL_GEMM_EX16_FORCE_MMA | WL_GEMM_EX16_FORCE_TMA |
                         WL_GEMM_EX16_FORCE_WGMMA | WL_GEMM_EX16_FORCE_THIN
};

static inline bool wl_gemm_trans_a(const wl_problem *p)
{
    return (p->variant & WL_GEMM_TRANS_A) != 0;
}
static inline bool wl_gemm_trans_b(const wl_problem *p)
{
    return (p->variant & WL_GEMM_TRANS_B) != 0;
}
/* Rows and columns of A and B as stored. */
static inline size_t wl_gemm_a_rows(const wl_problem *p)
{
    return wl_gemm_trans_a(p) ? p->dim[2] : p->dim[0];
}
static inline size_t wl_gemm_a_cols(const wl_problem *p)
{
    return wl_gemm_trans_a(p) ? p->dim[0] : p->dim[2];
}
static inline size_t wl_gemm_b_rows(const wl_problem *p)
{
    return wl_gemm_trans_b(p) ? p->dim[1] : p->dim[2];
}
static inline size_t wl_gemm_b_cols(const wl_problem *p)
{
    return wl_gemm_trans_b(p) ? p->dim[2] : p->dim[1];
}
static inline size_t wl_gemm_lda(const wl_problem *p)
{
    return p->ld[0] ? p->ld[0] : wl_gemm_a_cols(p);
}
static inline size_t wl_gemm_ldb(const wl_problem *p)
{
    return p->ld[1] ? p->ld[1] : wl_gemm_b_cols(p);
}
static inline size_t wl_gemm_ldc(const wl_problem *p)
{
    return p->ld[2] ? p->ld[2] : p->dim[1];
}

/* Elements a view of a rows x cols matrix with row stride ld spans: the last
 * row ends at its last column (no padding after it). */
static inline size_t wl_gemm_span(size_t rows, size_t cols, size_t ld)
{
    return rows == 0 || cols == 0 ? 0 : (rows - 1) * ld + cols;
}

/* How a rung's inputs reach the multiplier, for its verification. */
typedef enum wl_gemm_precision {
    WL_GEMM_FP32 = 0, /* float inputs, float accumulation */
    WL_GEMM_TF32,     /* inputs rounded to TF32 (10-bit mantissa), float accumulation */
    WL_GEMM_BF16,     /* inputs rounded to BF16 (7-bit mantissa, nearest even) */
    /* cuBLAS's TF32 mode: the library chooses per shape whether and how the
     * inputs are rounded (seen on an H200: plain FP32 at k = 1, and elements
     * matching none of nearest-away, nearest-even or truncation at k = 257).
     * Checked against a bound that covers any rounding to a 10-bit mantissa. */
    WL_GEMM_TF32_ANY,
    WL_GEMM_FP16 /* inputs rounded to IEEE half (nearest even), float accumulation */
} wl_gemm_precision;

/* Checks C against the double-precision reference (gemm_check.c). */
warplab_status wl_gemm_verify(const wl_problem *problem, const void *const *host, wl_check *check,
                              wl_gemm_precision precision);

/* The same for a C that was rounded once more, to a narrower type (a 16-bit
 * C): each element may also be off by c_u times its value (BF16 2^-8,
 * FP16 2^-11) plus c_tiny (half the type's smallest subnormal: FP16
 * 2^-25). The check reads C widened to float. */
warplab_status wl_gemm_verify_rounded(const wl_problem *problem, const void *const *host,
                                      wl_check *check, wl_gemm_precision precision, double c_u,
                                      double c_tiny);

/* The rows or columns the check samples: 0, count - 1, then distinct random
 * indices, up to `want` (the GPU reference samples the same ones). */
size_t wl_gemm_sample_lines(wl_rng *rng, size_t count, size_t *out, size_t want);

/* Rounds a float to BF16 (nearest, ties to even), returned as the float it
 * represents; what the BF16 rungs' setup does on the device. */
float wl_gemm_round_bf16(float x);

/* The 16-bit storage types, on the host: conversions to and from float,
 * rounding to nearest even (NaN stays NaN, FP16 overflows to infinity). */
uint16_t wl_float_to_bf16(float x);
float wl_bf16_to_float(uint16_t h);
uint16_t wl_float_to_fp16(float x);
float wl_fp16_to_float(uint16_t h);

/* ------------------------------------------------------------------------ */
/* warplab_gemm_ex on a backend                                             */

/* The library's gemm_ex path is the impl {"gemm", WL_GEMM_EX_IMPL} of each
 * backend: it runs a problem with the WL_GEMM_* variant bits on views of A,
 * B and C in their own types (problem.dtype for A and B). */
#define WL_GEMM_EX_IMPL "ex"
/* ... and warplab_gemm_batched_ex's batched row is {"gemm", WL_GEMM_BATCHED_IMPL}
 * (src/ladders/gemm_batched.c). Neither is a rung. */
#define WL_GEMM_BATCHED_IMPL "batched"

/* The planner's descriptor (src/ops/gemm_plan.h) of a gemm_ex problem on
 * views starting at a, b and c (NULL: the problem's misalignment from an
 * aligned base), and the planner's target for the backend's device. */
/* warplab_gemm_force_candidate inside the library (no call of its own:
 * failures are the caller's call's): the context's calls run the named
 * planner row (NULL: the planner); WARPLAB_ERROR_UNKNOWN_NAME, listing the
 * rows, for a name the table lacks. */
warplab_status wl_gemm_force_candidate(warplab_context *context, const char *candidate);

wl_gemm_desc wl_gemm_desc_of(const wl_problem *p, const void *a, const void *b, const void *c);

/* The problem of a checked warplab_gemm_ex call (leading dimensions as
 * given, 0 = tight), and its run on views of A, B and C: the forced
 * candidate, warplab_gemm's path, or the backend's gemm_ex impl, as the
 * planner says. warplab_gemm_batched_ex runs a batch no planner row takes
 * as one such run a matrix. */
wl_problem wl_gemm_ex_problem(warplab_op op_a, warplab_op op_b, size_t m, size_t n, size_t k,
                              float alpha, warplab_dtype a_type, size_t lda, size_t ldb, float beta,
                              warplab_dtype c_type, size_t ldc, warplab_compute compute);
warplab_status wl_gemm_ex_run(warplab_context *context, const wl_problem *problem,
                              const wl_view views[3]);
wl_gemm_target wl_gemm_target_for(const wl_backend *backend);

/* The ladder's rungs that run exactly that path on a float problem (the
 * inputs converted to the rung's 16-bit type in setup, untimed), backend
 * independent (gemm_ex.c); and cuBLAS's rows with the same contract
 * (cuda/gemm/cublas.cu). */
extern const wl_impl wl_gemm_ex_tf32_impl;
extern const wl_impl wl_gemm_ex_bf16_impl;
/* The ex16_* rows (cuda only): gemm_ex's 16-bit paths, one forced. */
extern const wl_impl wl_gemm_ex16_mma_impl;
extern const wl_impl wl_gemm_ex16_tma_impl;
extern const wl_impl wl_gemm_ex16_wgmma_impl;
extern const wl_impl wl_gemm_ex16_thin_impl;
extern const wl_impl wl_gemm_ex_tf32_wgmma_impl;
extern const wl_impl wl_gemm_ex_fp16_impl;
/* Setup for a vendor row of the same contract: 16-bit copies of A and B
 * (as stored) in device memory, made the rungs' way; NULL pointers for TF32.
 * The state is freed with wl_gemm_ex_inputs_free. */
typedef struct wl_gemm_ex_inputs {
    void *a, *b;        /* backend buffers (NULL: use the float views) */
    warplab_dtype type; /* of a and b */
} wl_gemm_ex_inputs;
warplab_status wl_gemm_ex_inputs_make(wl_backend *backend, const wl_launch *launch,
                                      warplab_dtype type, wl_gemm_ex_inputs *inputs);
void wl_gemm_ex_inputs_free(wl_backend *backend, wl_gemm_ex_inputs *inputs);

/* ------------------------------------------------------------------------ */
/* The FP32 dispatcher (gemm_dispatch.c): which kernel warplab_gemm() runs.  */

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

/* A kernel and how it is run: rows (skinny_m) or columns (skinny_n) of C a
 * block takes at once, and the k range split in `splits` chunks of k_chunk
 * (splits 1: one launch, no workspace; more: partial sums in the workspace,
 * then a reduction in fixed order). */
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
} wl_gemm_plan;

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
