/* The GEMM planner (kernels layer: the backends' GEMM implementations plan
 * at launch): a typed descriptor of one GEMM call, one table of candidate
 * kernels, and one function that turns a descriptor and
 * a device into a plan. Host C, no GPU: the planner is data and arithmetic,
 * tested on the host (tests/unit/test_gemm_plan.c) and cached per
 * descriptor.
 *
 * The shape of CUB's dispatch (DESIGN.md, "Models worth reading"): the
 * candidates are policies (architecture, what each reads in place, tile,
 * rate and fixed-cost constants, each with its source), the planner is the
 * dispatch. The rows that run a chooser of their own plan with it here
 * (WL_GEMM_SCHEDULE_MODELLED): wl_gemm_plan_make runs it on the descriptor
 * and the target, which carry everything it reads, and the route carries
 * its plan, cached with the rest: the 16-bit and TF32 tile models
 * (ex16_chooser, tf32_chooser: wl_ex16_choose, wl_tf32_choose: kernel,
 * tile, splits, stream-K shares, copies) and the FP32 dispatcher
 * (fp32_dispatch, fp32_tiles, fp32_dispatch_copy: gemm_dispatch.c's
 * wl_gemm_choose, its kernel, rows a block, splits and tail split). The
 * launch runs the route's plan and decides nothing again.
 *
 * The constants were fitted on the tuning set named in gemm_plan.c
 * (WL_GEMM_PLAN_TUNING_SET); `warplab bench gemm --grid` is the judging set,
 * shapes drawn at random that no constant was fitted on. */
#ifndef WARPLAB_KERNELS_GEMM_PLAN_H
#define WARPLAB_KERNELS_GEMM_PLAN_H

#include "gemm_dispatch.h"
#include "warplab.h"

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One GEMM call: C (m x n, row-major) = alpha op(A) op(B) + beta C, batch
 * times, as include/warplab.h's warplab_gemm_ex describes it. lda, ldb and
 * ldc are the stored rows' lengths in elements (never 0 here: the entry
 * point resolves "tight"); the strides are elements between batches (0 for
 * batch 1). align_*: the largest power of two, at most 16, that divides
 * both the view's base address and its row pitch in bytes (16: every row
 * starts on 16 bytes). line_phase: the bytes past a 128-byte line where
 * element 0 of A and of B sits as the 16-bit and TF32 tile models price it
 * (their line costs and re-strides read it with lda and ldb): the
 * problem's misalignment (wl_problem.misalign, one for both operands: the
 * harness offsets every view by it from a line; 0 for API calls) times the
 * element's bytes, modulo 128. */
typedef struct wl_gemm_desc {
    size_t m, n, k, batch;
    warplab_op op_a, op_b;
    warplab_dtype ab_type, c_type;
    warplab_compute compute;
    size_t lda, ldb, ldc;
    size_t stride_a, stride_b, stride_c;
    unsigned align_a, align_b, align_c;
    unsigned line_phase;
} wl_gemm_desc;

/* What the planner needs of a device. sm90a: the wgmma / TMA kernels run.
 * The tile models' own reads (wl_ex16_choose, wl_tf32_choose): the SM count
 * as the device reports it (reported_sms, 0 = unknown: they price 132;
 * sms is at least 1), and two facts of the backend the launch code knows:
 * tma, the 16-bit and TF32 TMA + wgmma path runs (wl_gemm_ex_tma_available:
 * sm_90a built, cc 9.0, its shared memory a block); fp32_dispatcher, the
 * FP32 dispatcher takes FP32 N, N problems (the TF32 model's FP32 route). */
typedef struct wl_gemm_target {
    int cc_major, cc_minor;
    int sms;
    int reported_sms;
    double bandwidth_gbs;    /* theoretical, GB/s; 0 = unknown */
    double fp32_peak_gflops; /* 0 = unknown */
    bool sm90a;
    bool tma, fp32_dispatcher;
} wl_gemm_target;

typedef enum wl_gemm_schedule {
    WL_GEMM_SCHEDULE_GEMV,        /* bandwidth-bound: the big operand streamed once, k split */
    WL_GEMM_SCHEDULE_WHOLE_TILES, /* one output tile a block, k whole */
    WL_GEMM_SCHEDULE_SPLIT_K,     /* tiles times k splits, partial sums added in order */
    WL_GEMM_SCHEDULE_STREAM_K,    /* the partial last wave shared out by k tiles */
    /* (a row's, never a route's) the row's chooser (wl_ex16_choose,
     * wl_tf32_choose, the FP32 dispatcher's wl_gemm_choose) plans in
     * wl_gemm_plan_make: the route carries its plan, and its schedule is
     * the plan's (WHOLE_TILES, SPLIT_K or STREAM_K) */
    WL_GEMM_SCHEDULE_MODELLED
} wl_gemm_schedule;

/* The GEMV family's kernels (src/cuda/gemm/gemv.cuh). FMA: gemv_along_k or
 * gemv_along_big by X's layout (FP32 FMAs); TILED: gemv_tiled_k (FP32
 * FMAs on register tiles, X and Y along k, small side 9 to 32); MMA:
 * gemv_mma (tensor cores, X and Y along k); MMA_ROWS: gemv_mma_rows (TF32,
 * BF16 or FP16 tensor cores, X along big); STAGED: gemv_staged_k (FP32 FMAs, X along k
 * in registers, Y staged in shared memory, small side 2 to 8). */
enum {
    WL_GEMV_KERNEL_FMA = 0,
    WL_GEMV_KERNEL_TILED,
    WL_GEMV_KERNEL_MMA,
    WL_GEMV_KERNEL_MMA_ROWS,
    WL_GEMV_KERNEL_STAGED,
    WL_GEMV_KERNELS
};

/* Bits of the layouts (op_a, op_b) a candidate reads in place. */
enum {
    WL_GEMM_LAYOUT_NN = 1u << 0,
    WL_GEMM_LAYOUT_NT = 1u << 1,
    WL_GEMM_LAYOUT_TN = 1u << 2,
    WL_GEMM_LAYOUT_TT = 1u << 3,
    WL_GEMM_LAYOUT_ALL = 15u
};
/* The layout bit of a descriptor. */
unsigned wl_gemm_layout_bit(warplab_op op_a, warplab_op op_b);
/* "N,N", "N,T", "T,N" or "T,T" (op_a, op_b). */
const char *wl_gemm_layout_name(warplab_op op_a, warplab_op op_b);

/* Bits of types (1u << warplab_dtype) and of computes (1u << warplab_compute). */
#define WL_GEMM_TYPE_BIT(t) (1u << (unsigned)(t))

enum { WL_GEMM_X_ANY = 0, WL_GEMM_X_ALONG_K, WL_GEMM_X_ALONG_BIG };

/* The chooser a row of schedule WL_GEMM_SCHEDULE_MODELLED plans with:
 * wl_ex16_choose, wl_tf32_choose, or the FP32 dispatcher
 * (wl_gemm_fp32_plan; on the N, N copies where the row copies). */
typedef enum wl_gemm_chooser {
    WL_GEMM_CHOOSER_NONE = 0,
    WL_GEMM_CHOOSER_EX16,
    WL_GEMM_CHOOSER_TF32,
    WL_GEMM_CHOOSER_FP32
} wl_gemm_chooser;

/* Whether the big operand (op(B) for m <= n, op(A)^T otherwise) is
 * contiguous along k. */
bool wl_gemm_x_along_k(const wl_gemm_desc *d);

/* One candidate: a row of the table. Constants carry their source. */
typedef struct wl_gemm_candidate {
    const char *name;   /* what `warplab bench gemm --candidate` names */
    const char *kernel; /* the kernel or chooser it runs (file) */
    int cc_major_min;   /* architecture: the lowest compute capability */
    bool needs_sm90a;   /* wgmma / TMA */
    unsigned ab_types;  /* WL_GEMM_TYPE_BIT of the input types it takes */
    unsigned c_types;   /* ... of the output types; WL_GEMM_C_INPUT: the input type */
    unsigned computes;  /* 1u << WARPLAB_COMPUTE_* it honours */
    unsigned layouts;   /* WL_GEMM_LAYOUT_* it takes */
    unsigned in_place;  /* WL_GEMM_LAYOUT_* it reads without copying an operand */
    size_t small_max;   /* min(m, n) at most this; 0 = no limit */
    /* min(m, n) at least this where the big operand runs along k (X along
     * k: op_b = T with m small, op_a = N with n small) and k > 0; 0 = no
     * limit. The
     * choosers' own skinny paths there are what the GEMV family replaces. */
    size_t along_k_small_min;
    /* With the big operand along k and min(m, n) at most this, the planner
     * does not pick it wherever a GEMV row (the family that streams the big
     * operand once) takes the descriptor; forced by name, it still runs.
     * 0: never. */
    size_t along_k_defers_small_max;
    /* The same where the small operand (op(A) for m <= n, op(B)^T
     * otherwise) does not run along k (op_a = T with m small, op_b = N with
     * n small): gemv_k reads it strided there. */
    size_t along_k_defers_strided_small_max;
    /* With the big operand along its rows and min(m, n) at most this, the
     * planner does not pick it wherever a tensor-core GEMV row (gemv_kernel
     * MMA or MMA_ROWS) takes the descriptor; forced by name, it still runs.
     * 0: never. */
    size_t along_big_defers_small_max;
    /* ... from this small side on (0 or 1: from 1). */
    size_t along_big_defers_small_min;
    /* A GEMV row the planner takes only up to this small side; past it (to
     * small_max) it runs forced by name. 0: up to small_max. */
    size_t planned_small_max;
    int x_layout;       /* WL_GEMM_X_*: the GEMV rows' big-operand layout */
    bool k_zero;        /* takes k = 0 (C = beta C) */
    unsigned min_align; /* bytes every operand's rows need; 1 = any */
    bool any_align_c;   /* min_align is A's and B's only: C's rows may sit anywhere */
    int gemv_kernel;    /* GEMV: WL_GEMV_KERNEL_* */
    bool fallback;      /* planned only where no other row takes the descriptor */
    /* A row for small problems read at any alignment (small_mma, its tile
     * in the route: gemm_small_mma.h): the
     * planner picks it only where A's or B's rows are off 16 bytes (the
     * other rows copy them first or load them element by element),
     * min(m, n) is past the GEMV family's small sides (WL_GEMV_SMALL_MAX)
     * and m, n and k are each at most this; forced by name, it takes any
     * size. 0: no such limit. */
    size_t unaligned_small_max;
    /* Takes batches (batch > 1, the batch one more grid dimension) and only
     * those; the other rows take one matrix. A batch no row takes runs as a
     * loop over its matrices, each planned alone (warplab_gemm_batched_ex). */
    bool batched;
    wl_gemm_schedule schedule;
    wl_gemm_chooser chooser; /* WL_GEMM_SCHEDULE_MODELLED: the chooser that plans it */
    int tile_m, tile_n;      /* 0 = the chooser's */
    /* Rate and fixed cost: time = fixed_us + max(bytes / (bandwidth_fraction
     * x device bandwidth), flops / (flop_fraction x device FP32 peak x
     * flop_multiple)). */
    double bandwidth_fraction;
    double flop_fraction;
    double flop_multiple; /* the unit's peak over the device's FP32 peak (tensor cores) */
    /* Tile rows (delegates to the FP32 dispatcher's tile kernels): flops
     * priced on m and n rounded up to pad_side (the smallest tile's side),
     * at small_flop_fraction where min(m, n) <= pad_side (a decode call: the
     * one row of small tiles, split over k); 0: no padding. */
    int pad_side;
    double small_flop_fraction;
    /* min(m, n) at most this runs the delegate's own bandwidth-bound
     * kernels (the dispatcher's skinny_m, skinny_n): no padding there. */
    size_t skinny_max;
    /* The flop time grows by this fraction where the kernel copies B of op
     * T into shared memory 4 bytes at a time (transposed), not 16;
     * _small_cost: at small_flop_fraction (a decode call, B the big
     * operand streamed once). */
    double transposed_b_cost;
    double transposed_b_small_cost;
    double fixed_us;
    /* Rows that read some layouts only through a copy (layouts beyond
     * in_place): each operand of op T is first copied, transposed, into the
     * workspace, so that the kernel reads the N, N layout; the copy adds its
     * read and write at this fraction of the device bandwidth and a launch
     * cost a copy (gemm_plan.c, COPY_LAUNCH_US); 0: the row copies nothing. */
    double copy_bandwidth_fraction;
    const char *source; /* where the constants came from: measurement or tuning command */
} wl_gemm_candidate;

#define WL_GEMM_C_INPUT (1u << 31)

/* The choosers' plans, which the route of the ex16_chooser and
 * tf32_chooser rows carries: the 16-bit tile model's (gemm_tiles16.h,
 * wl_ex16_choose) and the TF32 one's (gemm_tiles_tf32.h, wl_tf32_choose).
 * Like the FP32 dispatcher's (gemm_dispatch.h, wl_gemm_plan) they have no
 * padding of the compiler's (WL_PLAN_NO_PADDING: every byte is a member,
 * `padding` ones 0), so that a plan assigned whole into a route keeps
 * every byte of it, and routes compare with memcmp. */
typedef enum wl_ex16_kind {
    WL_EX16_MMA,   /* mma.sync m16n8k16 on the operands as stored, split k */
    WL_EX16_TMA,   /* gemm_ex.cu: K-major copies where needed, TMA + wgmma */
    WL_EX16_TILED, /* gemm_ex.cu: the CUDA-core fallback (k = 0, no sm_80) */
    WL_EX16_WGMMA, /* wgmma_ex.sm90a.cu: TMA + wgmma on the operands as stored, split k */
    WL_EX16_THIN   /* m or n <= 64: ex16_thin (mma.sync from registers, split k; planned for
                    * 16 rows or fewer read along k from rows off 16 bytes, gemm_tiles16.c) */
} wl_ex16_kind;

/* wl_ex16_plan.transposed: the swapped product, C^T = op(B)^T op(A)^T. */
#define WL_EX16_SWAPPED 2

WL_PLAN_NO_PADDING_BEGIN
typedef struct wl_ex16_plan {
    wl_ex16_kind kind;
    int tile;   /* WL_EX16_MMA: 0 = 128 x 128 tiles, 1 = 64 x 64; WL_EX16_WGMMA: rows x tile,
                 * 64 x 64 for tile 64; WL_EX16_THIN: 16-row tiles of the small
                 * side (1, 2 or 4) */
    int splits; /* k split in this many parts (summed in order afterwards) */
    int k_chunk;
    /* WL_EX16_WGMMA: the tile's rows, 64 (tile 64), 128, or 192 (tile 128:
     * three consumers, no stream-K shares) */
    int rows;
    /* WL_EX16_WGMMA: operands whose rows are not 16-byte aligned (TMA's
     * strides must be), copied first into the workspace with 16-byte rows,
     * in their stored layout: bit 0 A, bit 1 B. */
    int restride;
    /* WL_EX16_WGMMA with n = 1: the transposed problem, C^T (1 x m) =
     * B^T A^T, so that y = A x streams A through the narrow tile as B
     * (1); WL_EX16_SWAPPED: C^T = op(B)^T op(A)^T in rows x tile tiles (128
     * rows of n by 96 of m), C written transposed, the split's sums through
     * the workspace (ex16_gemm.cu run_wgmma_swapped); 0: C as is. */
    int transposed;
    /* WL_EX16_WGMMA with one split of 128-row tiles: the last wave's k tiles
     * in this many stream-K shares over the SMs (stream_k.cuh); 0: whole
     * tiles. */
    int sk_workers;
    double predicted_us;
} wl_ex16_plan;
WL_PLAN_NO_PADDING_END(wl_ex16_plan)

WL_PLAN_NO_PADDING_BEGIN
typedef struct wl_tf32_tiles_plan {
    int tile;    /* wl_tf32_tile */
    int splits;  /* chunks of k (1: no partial sums) */
    int k_chunk; /* a multiple of TF32T_BK */
    int padding; /* 0 */
    double predicted_us;
} wl_tf32_tiles_plan;
WL_PLAN_NO_PADDING_END(wl_tf32_tiles_plan)

typedef enum wl_tf32_route {
    WL_TF32_ROUTE_OTHER, /* not TF32, or gemm_ex.cu's skinny / tiled kernels */
    WL_TF32_ROUTE_WGMMA, /* the TMA + wgmma kernel */
    WL_TF32_ROUTE_TILES, /* the small-tile mma.sync kernel */
    WL_TF32_ROUTE_FP32   /* the FP32 dispatcher on the problem with FP32 compute */
} wl_tf32_route;

WL_PLAN_NO_PADDING_BEGIN
typedef struct wl_tf32_plan {
    wl_tf32_route route;
    int wgmma_bn;             /* WL_TF32_ROUTE_WGMMA: the kernel's plan, with the two below */
    wl_tf32_tiles_plan tiles; /* the small tiles' plan, where they were priced */
    double wgmma_us, fp32_us; /* the wgmma kernel's and the dispatcher's modelled time */
    int wgmma_splits, wgmma_k_chunk;
    bool wgmma_rs; /* WL_TF32_ROUTE_WGMMA: B (op N) read as stored, from registers: C^T = B^T A^T */
    /* WL_TF32_ROUTE_WGMMA: A (op N) or B (the register kernel's row-major B)
     * copied as it is laid out, onto rows of whole 128-byte lines (see
     * gemm_tiles_tf32.c's tf32_line_cost): the copy costs less than the kernel
     * loses. */
    bool wgmma_line_a, wgmma_line_b;
    bool padding[5]; /* 0 */
} wl_tf32_plan;
WL_PLAN_NO_PADDING_END(wl_tf32_plan)

/* The plan: the candidate, its schedule and geometry. For the GEMV: the
 * problem seen as C' (small x big) = Y (small x k) X^T, X (big x k) the big
 * operand; small_m: small = m (X = op(B)), else small = n (X = op(A)^T, C
 * written transposed); x_along_k: X's rows are contiguous along k. */
typedef struct wl_gemm_route {
    int candidate; /* index in the table; -1: no candidate takes the descriptor */
    wl_gemm_schedule schedule;
    int tile_m, tile_n;
    int splits;      /* k split in this many parts (1: none) */
    int k_chunk;     /* elements of k a split */
    unsigned copies; /* operands copied before the kernel: bit 0 A, bit 1 B */
    bool small_m, x_along_k;
    int small, big;
    int blocks_big;  /* GEMV: blocks along the big side */
    int gemv_kernel; /* GEMV: WL_GEMV_KERNEL_* */
    size_t scratch;  /* workspace bytes the plan needs (delegates: their own) */
    double predicted_us;
    /* The ex16_chooser row: wl_ex16_choose's plan (schedule, tile, splits,
     * k_chunk and copies above are its: copies the operands it re-strides);
     * the tf32_chooser row: wl_tf32_choose's (the same fields from its
     * route's kernel: copies the operands it copies onto 128-byte lines).
     * The TMA path's K-major copies are the launch's, by its views. Zero
     * for other rows. */
    wl_ex16_plan ex16;
    wl_tf32_plan tf32;
    /* The FP32 dispatcher's rows: its plan (wl_gemm_fp32_plan; schedule,
     * tile, splits and k_chunk above are its, the skinny kernels' tile 0 x
     * 0), on the operands as the descriptor has them (fp32_tiles: op T read
     * in place) or, for fp32_dispatch_copy, on their N, N copies (copies
     * above: the operands of op T), whose rows are whole 128-byte lines of
     * the workspace. B re-strided (dispatch.cu's restride_b) is the
     * launch's, by the plan's modelled time. Zero for other rows. */
    wl_gemm_plan fp32;
} wl_gemm_route;

/* The operands a candidate copies for a descriptor (the plan's copies: bit
 * 0 A, bit 1 B): none where it reads the layout in place, else those of op
 * T (rows with copy_bandwidth_fraction > 0 run on their N, N copies). */
unsigned wl_gemm_candidate_copies(const wl_gemm_candidate *c, const wl_gemm_desc *d);

/* The tuning set the table's constants were fitted on (a name and the
 * program that measures it); `warplab bench gemm --grid` is the judging
 * set, never fitted on. */
const char *wl_gemm_plan_tuning_set(void);
/* The grid seeds whose FP32 cells are in the tuning set (24301: the
 * dispatcher's split-K pieces; 7: the FP32 tile rows' decode and
 * transposed-B constants): those grids judge the rest, other seeds judge
 * all. */
#define WL_GEMM_PLAN_TUNING_GRID_SEED 24301ull
#define WL_GEMM_PLAN_TUNING_GRID_SEED_FP32 7ull

/* The table. */
const wl_gemm_candidate *wl_gemm_candidates(size_t *count);
/* The index of the candidate named name, or -1. */
int wl_gemm_candidate_find(const char *name);

/* Whether candidate c can take the descriptor on the target (every
 * limit: architecture, types, compute, layout, small side, k = 0,
 * alignment). */
/* Whether the planner passes a row over for a descriptor it could take
 * (along_k_defers_small_max: a GEMV row takes it; along_big_defers_small_max:
 * a tensor-core GEMV row takes it); a forced name still runs. */
bool wl_gemm_candidate_defers(const wl_gemm_candidate *c, const wl_gemm_desc *d,
                              const wl_gemm_target *t);
bool wl_gemm_candidate_takes(const wl_gemm_candidate *c, const wl_gemm_desc *d,
                             const wl_gemm_target *t);
/* Why candidate c cannot take the descriptor (the first limit it fails, a
 * static phrase: "takes a smaller min(m, n)"), or NULL where it can. */
const char *wl_gemm_candidate_refusal(const wl_gemm_candidate *c, const wl_gemm_desc *d,
                                      const wl_gemm_target *t);

/* Modelled time of candidate c on the descriptor (us); HUGE_VAL where it
 * cannot take it. */
double wl_gemm_candidate_us(const wl_gemm_candidate *c, const wl_gemm_desc *d,
                            const wl_gemm_target *t);

/* The plan: the candidate of least modelled time among those that take the
 * descriptor (the first on a tie; fallback rows only where no other row
 * takes it), and its geometry. Deterministic: a
 * function of the descriptor and the target alone. force: a candidate's
 * name, or NULL; a forced candidate that cannot take the descriptor gives
 * candidate -1. */
wl_gemm_route wl_gemm_plan_make(const wl_gemm_desc *d, const wl_gemm_target *t, const char *force);

/* wl_gemm_plan_make, cached per (descriptor, target, force) in a small
 * per-thread table: the second call with the same descriptor costs a hash
 * and a compare. */
wl_gemm_route wl_gemm_plan_cached(const wl_gemm_desc *d, const wl_gemm_target *t,
                                  const char *force);

/* The GEMV geometry for a descriptor (any candidate of schedule GEMV, the
 * plan's candidate set): fills the plan's small/big/x_along_k/gemv_kernel/blocks/
 * splits/k_chunk/scratch. */
void wl_gemm_gemv_geometry(const wl_gemm_desc *d, const wl_gemm_target *t, wl_gemm_route *plan);

/* The FP32 dispatcher's plan for a descriptor (FP32 inputs and output):
 * wl_gemm_choose on op N, N (its skinny kernels included),
 * wl_gemm_choose_tiles on the layouts the tile kernels read in place, with
 * A's and B's rows 16-byte aligned where align_a / align_b are 16 and the
 * target's SM count (reported_sms), FP32 peak and bandwidth. What the
 * routes of fp32_dispatch and fp32_tiles carry (and fp32_dispatch_copy's,
 * on its copies' descriptor). */
wl_gemm_plan wl_gemm_fp32_plan(const wl_gemm_desc *d, const wl_gemm_target *t);

/* The target of a device. */
wl_gemm_target wl_gemm_target_of(const warplab_device_info *info, bool sm90a);

/* "gemv (small m = 1, X along k, 4 splits of 1024, model 12.1 us)". */
void wl_gemm_route_describe(const wl_gemm_route *plan, char *text, size_t len);

/* The largest power of two, at most 16, dividing both the base address and
 * the row pitch (bytes). */
unsigned wl_gemm_alignment(size_t address, size_t ld, size_t element_bytes);

/* Element kinds of the GEMV kernels' operands and of C. */
enum { WL_GEMV_F32 = 0, WL_GEMV_BF16 = 1, WL_GEMV_F16 = 2 };

#define WL_GEMV_THREADS 256
#define WL_GEMV_SMALL_MAX 16 /* the GEMV family's small side, at most */
/* X along k: rows of X a warp (the kernel keeps S x COLS sums a thread)
 * and the blocks an SM its registers are bounded for, by the small side
 * and the element's bytes. Measured on the H200 (scripts/planner-gpu.sh,
 * the tuning set, op_b = T): FP32 inputs at m = 7-8 ran 1.4-1.7x faster
 * with 2 rows a warp and 3 blocks an SM (TF32 4096^2 x 7: 66.4 -> 41.9 us);
 * 16-bit inputs ran 10-30% slower that way (4 rows, no bound, kept); with
 * S = 16 the bound spills (FP32 16 x 4096^2: 83.5 -> 116.2 us). */
#define WL_GEMV_ALONG_K_COLS(small, element)                                                       \
    ((element) == 4 ? ((small) <= 2 ? 4 : 2) : ((small) <= 8 ? 4 : 2))
#define WL_GEMV_ALONG_K_MIN_BLOCKS(small, element) ((element) == 4 && (small) <= 8 ? 3 : 1)
/* The tensor-core kernel (gemv_mma): the small side at most, warps a
 * block, and by the small side: 16-row tiles of X a warp, k steps a warp
 * loads before it multiplies, and row groups a block (groups of warps on
 * neighbouring strips at the same k, so that a Y fragment is fetched from
 * L2 once for the groups). Measured on the H200 (scripts/gemv_variants.cu,
 * the tuning layers): one tile, DEPTH 4 and one group were best or within
 * 3% at m = 1-16 (two tiles or two groups: 1-20% slower at n <= 4096).
 * Small sides 17-32 (the kernel takes them, 3 or 4 column tiles) ran at
 * 0.86-1.1x the 16-bit chooser's times and 0.8-1.0x the TF32 chooser's,
 * so the planner's rows stop at 16. */
#define WL_GEMV_MMA_SMALL_MAX 16
#define WL_GEMV_MMA_WARPS 8
#define WL_GEMV_MMA_TILES(small) 1
#define WL_GEMV_MMA_DEPTH(small) 4
#define WL_GEMV_MMA_GROUPS(small) 1
/* The TF32 tensor-core kernel with X along big (gemv_mma_rows): the small
 * side at most, and by the small side: 32-column strips of X a warp, k
 * steps (16 k) a warp loads before it multiplies, row groups a block
 * (gemv_mma's WL_GEMV_MMA_WARPS warps), blocks an SM its registers are
 * bounded for, and the blocks an SM the k split aims at (with 4 x STRIPS x
 * DEPTH x 8 KB in flight a block: 32 KB an SM or more). Measured on the
 * H200 (scripts/gemv_rows.cu, the decode tuning set's layers with
 * op_b = N, 6 and 7 variants a small side, best of 1-16 splits, against
 * cublasGemmEx TF32): m <= 8: one strip, 4 steps (1.00-1.27x cuBLAS but
 * 0.96x at 28672 x 4096); m = 9-24: two strips, one step (m = 16:
 * 0.97-1.15x; m = 24: 0.93-1.06x; one strip and 2 steps: 0.85-1.08x);
 * m = 25-32: one strip, 2 steps (0.82-1.06x; two strips spill at two
 * blocks an SM and ran 0.67-0.93x at one; two, four or eight row groups
 * 0.64-1.03x). The weak cells are 28672 x 4096 from m = 24 (0.84-0.92x:
 * there Y, read by every strip, doubles the L2 traffic of X at m = 32).
 * Y loaded with X (registers) beat Y a step at a time by 5-45% from m = 9. One split beat 2-16
 * wherever the strips gave every SM a block at 4 steps (4096 x 4096 m = 1-8: 23.6-24.4 against
 * 26.7-28.2 us), two blocks an SM at 2 steps or 2 strips. */
#define WL_GEMV_MMA_ROWS_SMALL_MAX 32
/* gemv_mma_rows16's planned small sides (past them: forced only), and
 * ex16_chooser's deferral to it (gemm_plan.c's rows say why). */
#define WL_GEMV_MMA_ROWS16_PLANNED_MAX 8
#define WL_GEMV_MMA_ROWS_STRIPS(small) ((small) <= 8 ? 1 : (small) <= 24 ? 2 : 1)
#define WL_GEMV_MMA_ROWS_DEPTH(small) ((small) <= 8 ? 4 : (small) <= 24 ? 1 : 2)
#define WL_GEMV_MMA_ROWS_GROUPS(small) 1
#define WL_GEMV_MMA_ROWS_MIN_BLOCKS 2
#define WL_GEMV_MMA_ROWS_BLOCKS_PER_SM(small)                                                      \
    (4 / (WL_GEMV_MMA_ROWS_STRIPS(small) * WL_GEMV_MMA_ROWS_DEPTH(small)) > 0                      \
         ? 4 / (WL_GEMV_MMA_ROWS_STRIPS(small) * WL_GEMV_MMA_ROWS_DEPTH(small))                    \
         : 1)
/* The same kernel on BF16 / FP16 (mma.sync m16n8k16): a strip is 8
 * 16-byte vectors wide (32 FP32 or 64 16-bit columns) and a step 4 vectors
 * deep (16 or 32 k), by the element's bytes. A 16-bit lane's step is 8
 * rows of 16 bytes, twice the TF32 step's, and a 16-bit strip has 16 NT
 * sums a lane, a TF32 strip's 8 NT. By the small side, one strip a warp
 * and the TF32 geometry's bytes in flight an SM (128 KB at m <= 8, 64 KB
 * from 9): m <= 8 two steps, two blocks an SM; m = 9-16 one step, two
 * blocks; m = 17-32 two steps, one block (the registers of two blocks
 * spilled at m = 17-24: 64 bytes a thread, ptxas sm_90; 208 and 234
 * registers at one, m = 17-24 and 25-32). Measured on the H200
 * (scripts/gemv_rows.cu, GR_KIND=bf16: 9 layers of 512 x 1024 to 28672 x
 * 4096, m = 1-32, each variant at its best of 1-16 splits, against
 * cublasGemmEx): this geometry is the best of 9, 7, 6 and 6 variants at 1,
 * 2, 3 and 4 column tiles but for 3, where one step at two blocks an SM
 * ran 0.809x cuBLAS geomean against 0.796x (worst 0.62x against 0.69x);
 * geomean 0.938x, 0.885x, 0.796x, 0.741x (row groups, more steps or two
 * strips: 0.44-0.93x). */
#define WL_GEMV_MMA_ROWS_STRIP_COLUMNS(element) (128 / (element))
#define WL_GEMV_MMA_ROWS_STEP_K(element) (64 / (element))
#define WL_GEMV_MMA_ROWS16_STRIPS(small) 1
#define WL_GEMV_MMA_ROWS16_DEPTH(small) ((small) <= 8 ? 2 : (small) <= 16 ? 1 : 2)
#define WL_GEMV_MMA_ROWS16_GROUPS(small) 1
#define WL_GEMV_MMA_ROWS16_MIN_BLOCKS(small) ((small) <= 16 ? 2 : 1)
#define WL_GEMV_MMA_ROWS16_BLOCKS_PER_SM(small)                                                    \
    (2 / (WL_GEMV_MMA_ROWS16_STRIPS(small) * WL_GEMV_MMA_ROWS16_DEPTH(small)) > 0                  \
         ? 2 / (WL_GEMV_MMA_ROWS16_STRIPS(small) * WL_GEMV_MMA_ROWS16_DEPTH(small))                \
         : 1)
/* The register-tiled kernel (gemv_tiled_k): the small side (9 to 32:
 * S = 16, 24 or 32), rows of X a block (8 warps of 8 rows), and its
 * shared-memory pipeline: k a stage, stages (4 x 64 k: 96 KB at S = 32). */
#define WL_GEMV_TILED_SMALL_MAX 32
#define WL_GEMV_TILED_ROWS 64
#define WL_GEMV_TILED_STAGE_K 64
#define WL_GEMV_TILED_STAGES 4
#define WL_GEMV_TILED_S(small) ((small) <= 16 ? 16 : (small) <= 24 ? 24 : 32)
/* The kernel with Y staged in shared memory (gemv_staged_k): the small
 * side (2 to 8: S = 2, 4 or 8), rows of X a warp (R) and warp steps of 128
 * k a lane loads before it multiplies (D), by S; k a stage of Y (16 KB a
 * stage, two stages); blocks an SM its registers are bounded for (R x S
 * sums and R x D x 4 elements of X a lane: 128 registers at 2). Not
 * measured: expected from the loads' and FMAs' issue (gemv.cuh), R x D = 8
 * (4 KB of X in flight a warp, 64 KB an SM at two blocks); the next
 * measurement (scripts/gemv_variants.cu) sets them. */
#define WL_GEMV_STAGED_SMALL_MIN 2
#define WL_GEMV_STAGED_SMALL_MAX 8
#define WL_GEMV_STAGED_S(small) ((small) <= 2 ? 2 : (small) <= 4 ? 4 : 8)
#define WL_GEMV_STAGED_R(small) 8
#define WL_GEMV_STAGED_D(small) ((small) <= 2 ? 2 : 1)
#define WL_GEMV_STAGED_CHUNK(s) (4096 / (s))
#define WL_GEMV_STAGED_MIN_BLOCKS 2
/* X along big (gemv_along_big), by the element's bytes: threads along big
 * (16 bytes each) and groups of threads along k, WL_GEMV_THREADS in all.
 * 16-bit: 64 x 4, 512 columns a block, the geometry of the 16-bit skinny
 * kernel this one replaced for the GEMV (ex16_gemm.cu's columns kernel:
 * 1 x 4096 x 4096 at 20.6 us on the H100, cuBLAS 17.1); FP32: 32 x 8,
 * 128 columns (the gemv_rows row's measurement). */
#define WL_GEMV_ALONG_BIG_THREADS(element) ((element) == 4 ? 32 : 64)
#define WL_GEMV_ALONG_BIG_GROUPS(element) (WL_GEMV_THREADS / WL_GEMV_ALONG_BIG_THREADS(element))

/* The tile choosers' constants, rows of the planner's tables beside its
 * candidates (gemm_plan.c): the 16-bit tile model of wl_ex16_choose
 * (src/kernels/gemm_tiles16.c) and the TF32 one of wl_tf32_choose
 * (src/kernels/gemm_tiles_tf32.c), which the ex16_chooser and tf32_chooser rows
 * delegate to. Each row: its chooser, its name, its value and the
 * measurement it came from; the choosers read the values through
 * wl_gemm_model (tests/unit/test_gemm_plan.c checks the rows). */
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
    WL_GM_EX16_WGMMA_192_RATE,
    WL_GM_EX16_WGMMA_SWAP_RATE,
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
    /* the batched kernel (gemm_batched.cu) */
    WL_GM_EX16_BATCHED_EPILOGUE_GBS,
    WL_GM_EX16_BATCHED_NARROW_RATE,
    /* ex16_thin (planned where thin_plannable holds, gemm_tiles16.c) */
    WL_GM_EX16_THIN_BLOCKS_SM,
    WL_GM_EX16_THIN_BANDWIDTH,
    WL_GM_EX16_THIN_Y_STRIDED,
    /* wl_tf32_choose */
    WL_GM_TF32_SM_GFLOPS,
    WL_GM_TF32_128_SM_GFLOPS,
    WL_GM_TF32_RS_RATE,
    WL_GM_TF32_FIXED_US,
    WL_GM_TF32_COPY_LAUNCH_US,
    WL_GM_TF32_BANDWIDTH,
    WL_GM_TF32_COPY_BANDWIDTH,
    WL_GM_TF32_COPY_GBS_MAX,
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
    const char *chooser; /* "wl_ex16_choose" or "wl_tf32_choose" */
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
