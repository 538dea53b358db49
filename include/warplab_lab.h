/*
 * warplab's lab: the ladders behind the library (every rung, what it
 * teaches, its source), benchmarks against the vendor libraries, the course's
 * probes, reports (tables, Markdown, CSV, JSON, SVG, HTML), hardware counters
 * and the occupancy calculator. Built on warplab.h, with its conventions:
 * status codes, no printing (functions that write text take a FILE *), no
 * exit.
 */
#ifndef WARPLAB_LAB_H
#define WARPLAB_LAB_H

#include "warplab.h"

#include <stdbool.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Ladders and benchmarks                                                   */

/* Row flags in a benchmark report. */
enum {
    WARPLAB_ROW_HOST = 1u << 0,      /* ran on the CPU (the "GPU vs CPU" rows) */
    WARPLAB_ROW_VENDOR = 1u << 1,    /* vendor library (CUB, cuBLAS) */
    WARPLAB_ROW_REFERENCE = 1u << 2, /* speed-of-light reference (a copy) */
    WARPLAB_ROW_UNSAFE = 1u << 3,    /* known unsafe on today's GPUs; never picked */
    WARPLAB_ROW_SKIPPED = 1u << 4,   /* not run: outside its limits, or no form on this backend */
    WARPLAB_ROW_FAILED = 1u << 5,    /* ran, but failed verification or errored */
    WARPLAB_ROW_TRANSFER = 1u << 6,  /* host-device transfer, counted apart from kernels */
    WARPLAB_ROW_EXPECTED_WRONG = 1u << 7, /* failed, and the wrong result is the lesson */
    WARPLAB_ROW_BASELINE = 1u << 8,       /* the vendor row that pct_of_vendor compares with */
    WARPLAB_ROW_PAIRED = 1u << 9 /* compared with the vendor row its rung names (row->vendor) */
};

typedef struct warplab_row {
    char ladder[32];
    char rung[48];
    char title[96];
    char backend[16];
    char problem[64];      /* "n=268435456 float", "4096x4096 float" */
    double size;           /* the problem's leading size, for sweeps and charts */
    unsigned flags;        /* WARPLAB_ROW_* */
    warplab_status status; /* WARPLAB_OK when it ran and verified */
    char note[256];        /* why skipped or failed; a warning for unsafe rungs */
    int runs;              /* timed runs */
    double median_ms, min_ms, max_ms, mean_ms;
    double noise_pct;      /* relative standard deviation of the runs, % */
    double bytes;          /* bytes the rung must move (its own formula) */
    double flops;          /* floating-point operations (its own formula) */
    double gbs;            /* bytes / median time, 1e9 B/s */
    double gflops;         /* flops / median time */
    double pct_of_ceiling; /* gbs / report ceiling (bandwidth), % ; 0 = n/a */
    /* gbs / the GB/s of the fastest copy reference row (WARPLAB_ROW_REFERENCE)
     * for the same problem in the same run, %; 0 = n/a (no such row). */
    double pct_of_reference;
    double step_speedup;       /* median of the previous ladder rung / this one; 0 = n/a */
    double cumulative_speedup; /* first ladder rung / this one; 0 = n/a */
    double max_rel_error;      /* largest |got - expected| / bound seen in verification */
    double course_value;       /* the course's figure, 0 = none */
    char course_unit[16];      /* "GB/s", "GiB/s", "GFLOP/s", as the course measured it */
    char course_device[32];    /* "K40", "GTX 280", "G80" */
    bool course_bound;         /* course_value is a bound the course computed, not a measurement */
    double course_value2;      /* a second device's figure; 0 = none */
    char course_unit2[16];     /* its unit */
    char course_device2[32];
    /* The ids of the course's errata this rung concerns, space-separated
     * (warplab_erratum_get; "" = none). */
    char errata[96];
    char lesson[1536]; /* what changed over the rung below, and why it is faster */
    /* Compute-bound ladders (matrix multiply): this row's speed as % of the
     * group's WARPLAB_ROW_BASELINE row (its time / this row's time), and
     * gflops as % of the device's FP32 peak. 0 = n/a. */
    double pct_of_vendor;
    double pct_of_fp32_peak;
    /* The vendor row pct_of_vendor compares with: the rung's own pairing
     * (e.g. the dispatcher with cuBLAS FP32), else the baseline; "" = none. */
    char vendor[48];
    /* Ladders with a bus bandwidth (all-reduce: nccl-tests' busbw = algbw x
     * 2(G-1)/G, gbs being algbw), 1e9 B/s; 0 = n/a. */
    double busbw_gbs;
    /* The row's whole wall time on the host clock, s: buffers, inputs, the
     * checked run, verification and the timed runs (where a run's time goes;
     * `bench` sums it per ladder). */
    double wall_s;
} warplab_row;

typedef struct warplab_report {
    warplab_row *rows;
    size_t row_count;
    char device[256];
    char backend[16];
    char date[32];           /* ISO 8601, UTC */
    double ceiling_gbs;      /* bandwidth ceiling used for pct_of_ceiling */
    char ceiling_source[64]; /* "theoretical (bus x rate)", "measured copy" */
    int l2_flushed;          /* caches flushed before each timed run */
    unsigned long long seed;
    double fp32_peak_gflops; /* the device's FP32 peak, for pct_of_fp32_peak; 0 = unknown */
    int incomplete;          /* 1: the run was cancelled; rows holds the rungs that ran */
} warplab_report;

void warplab_report_destroy(warplab_report *report);

typedef void (*warplab_progress_fn)(void *user, const char *ladder, const char *rung,
                                    const char *problem, size_t done, size_t total);

/* What a run takes: one struct for warplab_bench, warplab_bench_api and
 * warplab_probe_run (warplab_bench_options and warplab_probe_options name it
 * too). Zero means the default throughout; the defaults differ by call (a
 * probe times each point 20 times in 0.5 s, a rung 50 times in 2 s). */
typedef struct warplab_run_options {
    /* bench only (a probe rejects them): */
    const char *ladder; /* NULL or "" = every ladder */
    const char *rungs;  /* comma-separated rung ids; NULL = all */
    const char *dtype;  /* ladder-specific element type ("float", "int32", ...); NULL = default */
    const char *op;     /* ladder-specific operation ("sum", "min", "max"); NULL = default */
    /* 1: a sweep of one ladder with a 1-D size: n = 2^10, 2^12, ..., 2^30
     * (sizes leave NULL), for the rungs listed plus the ladder's vendor rows
     * (every rung when rungs is NULL); warplab_report_write_sweep and
     * warplab_report_write_sweep_svg print it as GB/s against n. */
    int sweep;
    /* bench: comma-separated sizes ("2^28", "4096x4096", "1M"); probe: one
     * size (warplab_probe_size_meaning says what it counts); NULL = defaults
     * (smaller on a CPU). */
    const char *sizes;
    /* both: */
    int repeat;              /* timed runs per rung or point; 0 = default */
    int warmup;              /* untimed runs first; 0 = default (3 a rung, 2 a point) */
    double max_seconds;      /* time budget per rung or point; 0 = default */
    int no_flush;            /* 1: do not flush caches between timed runs */
    unsigned long long seed; /* 0 = from the clock */
    /* Called as rows finish (a probe: ladder = probe, rung = series, problem
     * = the point). */
    warplab_progress_fn progress;
    void *progress_user;
    /* Cancellation: when non-NULL, asked
     * before each rung and between timed runs; once it returns non-zero the
     * run stops (the rung being timed keeps the runs it has), and the report
     * holds the rows that ran, marked incomplete. It may be called from the
     * thread that called warplab_bench only; a signal handler can set a flag
     * it reads. */
    int (*cancelled)(void *user);
    void *cancel_user;
} warplab_run_options;

typedef warplab_run_options warplab_bench_options;

/* Runs ladders on the context's backend (host rows on the CPU) and returns a
 * report the caller frees with warplab_report_destroy. Rungs that fail their
 * check are reported as failed rows, and the call still returns WARPLAB_OK;
 * bad options return an error and no report. */
warplab_status warplab_bench(warplab_context *context, const warplab_bench_options *options,
                             warplab_report **report);

/* Each library operation against the vendor call with the same contract,
 * in the same run (cuda only: CUB and cuBLAS): warplab_reduce (host result)
 * against cub::DeviceReduce + a copy to the host, warplab_reduce_to_buffer
 * against CUB alone, warplab_transpose against cublasSgeam, warplab_gemm
 * against cublasSgemm, warplab_vecadd against a plain float4 kernel. Sizes
 * 2^10..2^28 elements (square matrices of as many elements) and the odd
 * shapes 3001x4000 and 4001x3, unless options->sizes says otherwise
 * (options->rungs, comma-separated, picks operations: "reduce",
 * "reduce_device", "transpose", "gemm", "vecadd", and warplab_histogram
 * against cub::DeviceHistogram::HistogramEven: "histogram_u8" (256 bins of
 * 8-bit samples), "histogram_int32" (1024 and 4096 bins of int32 over
 * [-10^6, 10^6)) and "histogram_float" (1024 and 4096 bins of float), at
 * 2^24 and 2^28 samples, uniform and skewed, sizes N, NxBINS or NxBINSx1
 * (skewed); repeat, warmup,
 * max_seconds, no_flush, seed and progress as for warplab_bench). Rows come in pairs: the warplab
 * call (pct_of_vendor = vendor time / warplab time, %) then the vendor's (WARPLAB_ROW_VENDOR |
 * WARPLAB_ROW_BASELINE). Device-side calls are timed with the backend's events after an L2 flush;
 * host-result calls with the host clock from call to value in hand. WARPLAB_ERROR_UNSUPPORTED, with
 * why, on backends without a vendor library. */
warplab_status warplab_bench_api(warplab_context *context, const warplab_bench_options *options,
                                 warplab_report **report);

/* Checks options as warplab_bench would (ladder, rungs, sizes, type, op,
 * sizes whose byte counts overflow) without running anything: the same
 * status and warplab_last_error detail as warplab_bench's. */
warplab_status warplab_bench_validate(warplab_context *context,
                                      const warplab_bench_options *options);

/* warplab_bench in two steps, so that what was checked is what runs:
 * warplab_bench_plan_create checks the options as warplab_bench_validate
 * does and keeps the plan (every ladder, size and rung it will run, in order;
 * the options are copied, their strings are not needed after the call);
 * warplab_bench_plan_run runs it on the context it was made for (the
 * callbacks in the options are called as in warplab_bench). A plan may run
 * more than once; warplab_bench_plan_destroy frees it (NULL is ignored). */
typedef struct warplab_bench_plan warplab_bench_plan;
warplab_status warplab_bench_plan_create(warplab_context *context,
                                         const warplab_bench_options *options,
                                         warplab_bench_plan **plan);
/* Rows the plan's report will hold (rungs x sizes over its ladders). */
size_t warplab_bench_plan_rows(const warplab_bench_plan *plan);
warplab_status warplab_bench_plan_run(const warplab_bench_plan *plan, warplab_report **report);
void warplab_bench_plan_destroy(warplab_bench_plan *plan);

/* Ladders compiled into the library. */
size_t warplab_ladder_count(void);
const char *warplab_ladder_name(size_t index);
const char *warplab_ladder_title(size_t index);
/* Rungs of a ladder, in ladder order; NULL when index is past the end. */
const char *warplab_ladder_rung(const char *ladder, size_t index, const char **title);
/* The WARPLAB_ROW_* kind flags of a rung (HOST, VENDOR, REFERENCE, UNSAFE,
 * TRANSFER); 0 for an unknown rung. */
unsigned warplab_rung_flags(const char *ladder, const char *rung);

/* What a rung teaches, as its ladder declares it. The strings are static and
 * never NULL ("" where the ladder gives none). */
typedef struct warplab_rung_info {
    const char *id;            /* "grid_stride" */
    const char *title;         /* "grid-stride loop" */
    const char *lesson;        /* what changed over the rung below, and why it is faster */
    const char *course;        /* where the course teaches it: "seed 001, 'Vector Add'" */
    double course_value;       /* the course's figure; 0 = none */
    const char *course_unit;   /* "GB/s", or "GiB/s" where the course measured GiB/s */
    const char *course_device; /* "K40" */
    bool course_bound;         /* course_value is a bound the course computed, not a measurement */
    double course_value2;      /* a second device's figure; 0 = none */
    const char *course_unit2;  /* its unit */
    const char *course_device2;
    unsigned flags; /* as warplab_rung_flags */
    /* The vendor rung it is measured against when it names one ("cublas_fp32"),
     * else "" (the ladder's baseline row). */
    const char *vendor;
} warplab_rung_info;

/* A ladder's named set of benchmark shapes ("m x n x k, ..." for gemm: GEMV,
 * small m, small squares, LLM projections, large k, tall-skinny, odd sizes),
 * what `warplab bench LADDER --shapes` runs; NULL when it has none. */
const char *warplab_ladder_shape_set(const char *ladder);

/* WARPLAB_ERROR_UNKNOWN_NAME for an unknown ladder or rung. */
warplab_status warplab_rung_describe(const char *ladder, const char *rung, warplab_rung_info *info);

/* The course's errata: each bug, wrong figure, unit or label in the course
 * (the five seed documents) that a ladder or probe meets, kept as data: what
 * the course wrote, why it is wrong, and what warplab runs instead
 * (docs/COURSE.md, "Errata"). The strings are static and never NULL. */
typedef struct warplab_erratum {
    const char *id;      /* "vecadd.b1": unique, stable */
    const char *topic;   /* a ladder ("vecadd"), a probe ("banks"), or "course" for neither */
    const char *rung;    /* the rung it concerns; "" = the whole ladder or probe */
    const char *seed;    /* the seed document, "001" (../shared/seeds/001_*.txt) */
    const char *where;   /* the section: "'GPU / CUDA - Vector Add'" */
    const char *quote;   /* what the course wrote, verbatim (its whitespace aside) */
    const char *why;     /* why it is wrong */
    const char *instead; /* what warplab runs or says instead */
} warplab_erratum;
size_t warplab_errata_count(void);
/* NULL past the end. */
const warplab_erratum *warplab_erratum_get(size_t index);

/* ------------------------------------------------------------------------ */
/* Report output (to a stream the caller owns)                              */

typedef enum warplab_format {
    WARPLAB_FORMAT_TABLE = 0, /* aligned terminal table */
    WARPLAB_FORMAT_MARKDOWN,
    WARPLAB_FORMAT_CSV,
    WARPLAB_FORMAT_JSON
} warplab_format;

warplab_status warplab_report_write(const warplab_report *report, warplab_format format,
                                    FILE *stream);
/* A bar chart per ladder and problem: GB/s per rung against the ceiling, as SVG. */
warplab_status warplab_report_write_svg(const warplab_report *report, FILE *stream);
/* For a sweep (one ladder, one rung list, many sizes): GB/s against n, as a
 * table (a row per n, a column per rung) and as an SVG line chart (log2 n on
 * x, a line per rung, the ceiling dashed). */
warplab_status warplab_report_write_sweep(const warplab_report *report, FILE *stream);
warplab_status warplab_report_write_sweep_svg(const warplab_report *report, FILE *stream);

/* ------------------------------------------------------------------------ */
/* The GEMM planner's candidates and the grid that judges them              */

/* The GEMM planner's candidates (src/kernels/gemm_plan.c's table), in table
 * order: "gemv_k", "fp32_dispatch", ...; NULL past the end. */
const char *warplab_gemm_candidate_name(size_t index);

/* On cuda (the planner's backend; others have one path), every later
 * warplab_gemm_ex (and warplab_gemm) on the context runs the named planner
 * candidate instead of the planner's pick, so that the candidates can be
 * timed against each other on a shape; a call the candidate cannot take
 * fails with WARPLAB_ERROR_UNSUPPORTED and says why (it never runs on
 * another path). NULL restores the planner.
 * WARPLAB_ERROR_UNKNOWN_NAME for a name the table lacks. For benchmarks,
 * not programs: the planner's pick is the library's answer. */
warplab_status warplab_gemm_force_candidate(warplab_context *context, const char *candidate);

/* The grid's default seed (warplab_gemm_grid_make with seed 0). */
#define WARPLAB_GEMM_GRID_SEED 24301ull
/* A cell whose A, B and two Cs (warplab's and cuBLAS's) exceed this many
 * bytes, or whose product exceeds WARPLAB_GEMM_GRID_MAX_FLOPS, is drawn
 * again (up to 64 times) and else skipped with the reason: the grid's
 * memory and time stay bounded: about a second a cell on an H200, most of
 * it the host's check of C (the default seed: 128 of its 210 cells in
 * 129 s). */
#define WARPLAB_GEMM_GRID_MAX_BYTES (2ull << 30)
#define WARPLAB_GEMM_GRID_MAX_FLOPS (1ull << 40)

/* One cell: a call of warplab_gemm_ex (inputs), and what the run found. */
typedef struct warplab_gemm_grid_cell {
    /* The call. */
    char shape_class[16]; /* "decode", "prefill", "square", "large_k", "tall_skinny" */
    size_t m, n, k;
    warplab_op op_a, op_b;
    warplab_dtype ab_type, c_type;
    warplab_compute compute;
    /* The result. */
    char candidate[32];           /* the planner's pick, or the forced candidate */
    char plan[160];               /* what the candidate runs (its own plan), "" = unknown */
    unsigned flags;               /* WARPLAB_ROW_SKIPPED or WARPLAB_ROW_FAILED; 0 = ran, verified */
    warplab_status status;        /* WARPLAB_OK when it ran and verified */
    char note[192];               /* why skipped or failed */
    int runs;                     /* timed runs of each side */
    double warplab_us, cublas_us; /* medians */
    double warplab_noise_pct, cublas_noise_pct; /* relative standard deviation of the runs */
    double ratio;         /* cublas_us / warplab_us (> 1: warplab is faster); 0 = n/a */
    double bytes;         /* A, B and C once, in their types */
    double warplab_gbs;   /* bytes / warplab's median, 1e9 B/s */
    double max_rel_error; /* largest |C - reference| / bound over the checked elements */
    /* warplab_gemm_batched_ex's cells: matrices (tight strides); 0 or 1: one
     * matrix, warplab_gemm_ex. bytes then counts the whole batch. */
    size_t batch;
} warplab_gemm_grid_cell;

typedef struct warplab_gemm_grid {
    warplab_gemm_grid_cell *cells;
    size_t count;
    unsigned long long seed;
    char candidate[32]; /* the forced candidate, "" = the planner's picks */
    char device[256];
    char date[32];
    int l2_flushed;
    double seconds; /* wall time of the run */
    int incomplete; /* 1: cancelled; the cells not reached are marked skipped */
    int batched;    /* 1: a strided-batched table (warplab_gemm_batched_grid_make or _draw) */
} warplab_gemm_grid;

/* Draws the grid of a seed (0: WARPLAB_GEMM_GRID_SEED), nothing run: the
 * cross product of the shape classes' random shapes (decode: m 1..32, m = 1
 * and an odd m always among them; prefill: m 100..8192, an odd m always
 * among them; both with n and k from the LLM dimensions 1024, 4096, 5120,
 * 6144, 8192, 11008, 13824, 14336, 28672; small squares 64..1024; large k
 * 8192..65536 with m, n 16..512; tall-skinny m 8192..65536 with n 8..256)
 * with the layouts (N,N and N,T; all four for FP32 compute), precisions
 * (FP32, TF32, BF16, FP16) and output types (FP32, and the input type for
 * 16-bit inputs). The same seed always gives the same cells. These are
 * the planner's judging shapes: no constant of src/kernels/gemm_plan.c was
 * fitted on them (its tuning set is scripts/gemm_decode_bench.c's). The
 * caller may edit the cells (shape and types) or count before running. */
warplab_status warplab_gemm_grid_make(unsigned long long seed, warplab_gemm_grid **grid);

/* A batched cell's A, B and two Cs (every matrix) at most this many bytes;
 * larger cells are skipped with the reason, so that the table's time stays
 * bounded (each run at most ~1.3 ms at 3 TB/s). */
#define WARPLAB_GEMM_BATCHED_MAX_BYTES (4ull << 30)

/* The strided-batched table (`warplab bench gemm --batched`), run by
 * warplab_gemm_grid_run like the grid: warplab_gemm_batched_ex against
 * cublasGemmStridedBatchedEx on attention's per-head products, batch 8, 32
 * and 96 x sequence 128..4096 x head size 64 and 128: Q K^T (m = n = the
 * sequence, k = the head size, op_b = T) and P V (m = the sequence, n =
 * the head size, k = the sequence, op_b = N), BF16 and FP16 inputs, a C of
 * FP32 or the input type, every batch's matrices tight. Cells past
 * WARPLAB_GEMM_BATCHED_MAX_BYTES are skipped. */
warplab_status warplab_gemm_batched_grid_make(warplab_gemm_grid **grid);

/* Draws a strided-batched table of a seed (1 or more; `warplab bench gemm
 * --batched --seed S`), nothing run: 12 shapes each of Q K^T and P V, batch
 * 2..128 and sequence 128..4096 (a multiple of 8) both log-uniform, head
 * size 64, 80, 96 or 128, in the fixed table's four precision x output
 * groups. The same seed always gives the same cells. Shapes that no
 * constant was fitted on, beside the fixed table; the batched width's
 * model says which seed it was fitted on (src/kernels/gemm_tiles16.c). */
warplab_status warplab_gemm_batched_grid_draw(unsigned long long seed, warplab_gemm_grid **grid);

typedef struct warplab_gemm_grid_options {
    const char *candidate;        /* a planner candidate forced in every cell; NULL = the planner */
    int repeat;                   /* timed runs a side; 0 = 15 */
    int warmup;                   /* untimed runs first; 0 = 2 */
    double max_seconds;           /* time budget a cell (at least 3 runs); 0 = 0.25 */
    int no_flush;                 /* 1: keep L2 warm (default: flushed before every run) */
    warplab_progress_fn progress; /* ladder "gemm_grid", rung = the cell's group, problem */
    void *progress_user;
    int (*cancelled)(void *user);
    void *cancel_user;
} warplab_gemm_grid_options;

/* Runs each cell of the grid on the context (cuda only: cuBLAS is the
 * vendor): A, B and C in memory of the caller's own cudaMalloc, the
 * caller's own stream bound; warplab_gemm_ex and cublasGemmEx (pedantic
 * FP32, TF32 tensor cores, 16-bit inputs with FP32 sums; the same
 * contract, the same buffers) timed alternately with events, L2 flushed
 * before every run, after a warm-up; the median and the noise of each. C
 * is checked against the double-precision reference (sampled rows,
 * columns and elements on large cells, every element finite; NaN never
 * passes) with the contract's bound (warplab.h) plus the 16-bit C's
 * rounding. Fills the cells' results in place; a cell the forced
 * candidate cannot take is skipped with why. WARPLAB_ERROR_UNSUPPORTED on
 * other backends, WARPLAB_ERROR_UNKNOWN_NAME for an unknown candidate
 * (before anything runs). */
warplab_status warplab_gemm_grid_run(warplab_context *context,
                                     const warplab_gemm_grid_options *options,
                                     warplab_gemm_grid *grid);

/* The grid as text (WARPLAB_FORMAT_TABLE: every cell, then per precision x
 * output x layout the geometric mean of cuBLAS / warplab, the decode
 * cells' mean, the worst cell and the picks) or JSON (every cell, and the
 * groups' summaries). */
warplab_status warplab_gemm_grid_write(const warplab_gemm_grid *grid, warplab_format format,
                                       FILE *stream);
void warplab_gemm_grid_destroy(warplab_gemm_grid *grid);

/* ------------------------------------------------------------------------ */
/* Occupancy: the course's block-granularity arithmetic (seed 000)          */

/* What bounds the resident blocks per SM. */
typedef enum warplab_occupancy_limit {
    WARPLAB_LIMIT_THREADS = 0,   /* threads (warps) per SM */
    WARPLAB_LIMIT_BLOCKS,        /* resident blocks per SM */
    WARPLAB_LIMIT_REGISTERS,     /* the register file */
    WARPLAB_LIMIT_SHARED_MEMORY, /* shared memory per SM */
    WARPLAB_LIMIT_COUNT
} warplab_occupancy_limit;

/* "threads", "blocks", "registers", "shared memory". */
const char *warplab_occupancy_limit_name(warplab_occupancy_limit limit);

/* The per-SM resources of an architecture. */
typedef struct warplab_arch {
    char name[48]; /* "Fermi (sm_20)" */
    int cc_major, cc_minor;
    int warp_size;
    int max_threads_per_block;
    int max_threads_per_sm;
    int max_blocks_per_sm;
    int registers_per_sm;
    int max_registers_per_thread;
    int register_allocation_unit;       /* registers, allocated per warp in these units */
    size_t shared_memory_per_sm;        /* bytes available to blocks */
    size_t max_shared_memory_per_block; /* with the opt-in, where there is one */
    size_t shared_allocation_unit;      /* bytes */
    size_t reserved_shared_per_block;   /* bytes the runtime keeps per block (1 KiB on sm_80+) */
    int registers_per_block;            /* the most registers one block may hold */
    /* Warps take registers in groups of this many: the register file is split
     * between the SM's sub-partitions (4; 2 on Fermi, sm_1x and sm_60), so the
     * warps the registers allow are rounded down to a multiple of it. */
    int warp_allocation_granularity;
    /* 1 on sm_1x: registers are allocated per block (in register_allocation_unit
     * steps), not per warp. */
    int register_allocation_per_block;
    size_t default_shared_memory_per_block; /* without the opt-in (48 KiB since Fermi) */
} warplab_arch;

typedef struct warplab_occupancy {
    int blocks_per_sm; /* resident blocks per SM */
    int warps_per_sm;
    int threads_per_sm;
    double occupancy;              /* resident warps / the SM's maximum, 0..1 */
    warplab_occupancy_limit limit; /* the binding limit (the first, in enum order, on a tie) */
    /* Blocks per SM each resource alone would allow; INT_MAX where the
     * resource does not bound them (no registers or no shared memory given). */
    int blocks_by_threads, blocks_by_blocks, blocks_by_registers, blocks_by_shared;
    int warps_per_block; /* threads rounded up to whole warps */
    int max_warps_per_sm;
    int registers_per_block; /* registers the block is allocated (after rounding) */
    size_t shared_per_block; /* shared bytes the block is allocated (reserved part and
                                rounding included) */
} warplab_occupancy;

/* An architecture by name: "fermi", "kepler", "maxwell", "pascal", "volta",
 * "turing", "ampere", "ada", "hopper", "blackwell", the course's "g80" and
 * "gt200", a few boards ("k40", "a100", "h100", ...), or "sm_XY" / "X.Y" for a
 * compute capability in the table. WARPLAB_ERROR_UNKNOWN_NAME for others
 * (warplab_last_error(NULL) lists the known ones). */
warplab_status warplab_arch_by_name(const char *name, warplab_arch *arch);
/* The architectures in the table, oldest first: index 0, 1, ... until
 * WARPLAB_ERROR_INVALID_ARGUMENT. *names (may be NULL) receives the names
 * warplab_arch_by_name accepts for it ("fermi, sm_20, 2.0"). */
warplab_status warplab_arch_at(size_t index, warplab_arch *arch, const char **names);
/* The architecture of a CUDA device: the limits it reports (threads, blocks,
 * registers and shared memory per SM, shared memory per block with and
 * without the opt-in) over the table's entry for its compute capability (or
 * the nearest older one), which gives the allocation granularities.
 * WARPLAB_ERROR_UNSUPPORTED for a device without a compute capability. */
warplab_status warplab_arch_from_device(const warplab_device_info *device, warplab_arch *arch);
/* Blocks, warps and threads per SM for a block size, registers per thread
 * (0 = not counted) and shared memory per block (static + dynamic, bytes),
 * computed the way the CUDA occupancy calculator does: warps per block rounded
 * up, registers allocated per warp in register_allocation_unit steps and
 * warps per sub-partition, shared memory plus the reserved part rounded up to
 * shared_allocation_unit, the largest shared-memory carveout.
 * WARPLAB_ERROR_INVALID_ARGUMENT (with no result, and the reason in
 * warplab_last_error(NULL)) when the block cannot run at all (too many
 * threads, registers or bytes). */
warplab_status warplab_occupancy_compute(const warplab_arch *arch, int threads_per_block,
                                         int registers_per_thread, size_t shared_per_block,
                                         warplab_occupancy *result);

/* ------------------------------------------------------------------------ */
/* Probes: the course's experiments                                        */

/* The measured experiments behind the course's claims (seeds 000, 002, 003,
 * 004): coalescing, shared-memory banks, divergence, atomics, fast
 * intrinsics, unrolling, block size, host-device transfers. A probe has one
 * or more sections; a section sweeps a parameter x (an offset, a stride, a
 * number of paths, ...) over a few series (kernels), or, for a comparison,
 * measures each series once. Every kernel's output is verified through the
 * same harness as the ladders' rungs before it is timed. */

size_t warplab_probe_count(void);
const char *warplab_probe_name(size_t index);  /* "coalescing"; NULL past the end */
const char *warplab_probe_title(size_t index); /* one line: what it measures */
/* What warplab_probe_options.sizes means for the probe ("elements per array"). */
const char *warplab_probe_size_meaning(size_t index);

/* WARPLAB_OK when the probe has at least one series on the backend (AUTO: the
 * best compiled in); WARPLAB_ERROR_UNKNOWN_NAME for no such probe;
 * WARPLAB_ERROR_UNSUPPORTED when it has none there, with why ("cuda only: ...")
 * written into reason (may be NULL). */
warplab_status warplab_probe_supported(const char *name, warplab_backend_kind backend, char *reason,
                                       size_t reason_len);

/* A probe takes warplab_run_options: sizes (one size), repeat, warmup,
 * max_seconds, no_flush, seed, progress and cancelled. */
typedef warplab_run_options warplab_probe_options;

typedef struct warplab_probe_section {
    char name[32]; /* "coalescing"; "bandwidth" and "overlap" for transfers */
    char title[128];
    char x_label[64]; /* "offset or stride (elements)" */
    char unit[16];    /* the figure: "GB/s", "Gop/s", "GFLOP/s" (higher is better) */
    int log_x;        /* x grows geometrically: charted on a log axis */
    int x_is_bytes;   /* x is a size in bytes (printed as 4 KiB .. 1 GiB) */
    int x_powers;     /* x printed as 2^k where it is a power of two (a sweep's n) */
    int comparison;   /* one point per series: a row per series, a bar chart */
    size_t first_row; /* its rows in the report: [first_row, first_row + row_count) */
    size_t row_count;
} warplab_probe_section;

/* A report row seen as a point of its section. */
typedef struct warplab_probe_point {
    size_t section;
    double x;
    double value;         /* the figure in the section's unit; 0 when not measured */
    double low, high;     /* the figure of the slowest and of the fastest timed run */
    double error;         /* largest error verification found (intrinsics), in error_kind */
    char error_kind[8];   /* "abs" or "rel" error, "exact" (checked equal), or "": none */
    char baseline[48];    /* the series it is compared with (comparisons), or "" */
    char annotation[128]; /* e.g. the occupancy predicted for a block size, or "" */
} warplab_probe_point;

typedef struct warplab_probe_result {
    char probe[32];
    char title[128];
    char course[160];            /* where the course teaches it */
    char setup[256];             /* sizes and launch shapes, one line */
    char conclusion[1536];       /* what the numbers show, computed from them */
    char missing[256];           /* series with no form on this backend, and why; or "" */
    warplab_report *report;      /* rows: ladder = section's series set, rung = series, size = x */
    warplab_probe_point *points; /* one per report row, in the same order */
    warplab_probe_section sections[4];
    size_t section_count;
} warplab_probe_result;

/* Runs a probe on the context's device. Kernels that fail their check become
 * failed rows and the call still returns WARPLAB_OK; an unknown probe, a probe
 * with no form on the backend or bad options return an error and no result. */
warplab_status warplab_probe_run(warplab_context *context, const char *name,
                                 const warplab_probe_options *options,
                                 warplab_probe_result **result);
void warplab_probe_result_destroy(warplab_probe_result *result);

/* Writes one or several probes' results: terminal tables with their
 * conclusions, Markdown, CSV (one line per point) or JSON. */
warplab_status warplab_probe_write(const warplab_probe_result *const *results, size_t count,
                                   warplab_format format, FILE *stream);
/* One probe's charts as SVG: a line chart per sweep (x against the figure,
 * one line per series), a bar chart per comparison. */
warplab_status warplab_probe_write_svg(const warplab_probe_result *result, FILE *stream);

/* ------------------------------------------------------------------------ */
/* Sizes                                                                    */

/* Parses "268435456", "2^28", "256M" (2^20 units: K, M, G), "4096x4096",
 * "64x64x64" into up to 3 dimensions. *dims receives how many were given. */
warplab_status warplab_parse_size(const char *text, size_t sizes[3], int *dims);

/* ------------------------------------------------------------------------ */
/* Rung sources (warplab show)                                              */

/* What a rung teaches and the code that does it, as compiled into this
 * build: the title, lesson, the course's reference and figure, then per
 * backend (backend AUTO: every backend compiled in, else that one) the
 * rung's marked kernel source regions and a unified diff against the rung
 * below on that backend. rung NULL or "": every rung of the ladder. Needs no
 * device. WARPLAB_ERROR_UNKNOWN_NAME for an unknown ladder or rung. */
warplab_status warplab_show_write(const char *ladder, const char *rung,
                                  warplab_backend_kind backend, FILE *stream);

/* ------------------------------------------------------------------------ */
/* Hardware counters (warplab bench --counters, cuda): Nsight Compute's      */
/* measurements of one launch of each rung, beside the lessons' claims       */

/* One launch of a rung as Nsight Compute measured it (summed over the
 * launch's kernels; percentages weighted by each kernel's duration). */
typedef struct warplab_counters {
    int valid;                     /* 1: measured */
    int kernels;                   /* kernels in the launch */
    double duration_ns;            /* the kernels' GPU time */
    double dram_read_bytes;        /* dram__bytes_read.sum */
    double dram_write_bytes;       /* dram__bytes_write.sum */
    double shared_bank_conflicts;  /* l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{ld,st} */
    double achieved_occupancy_pct; /* sm__warps_active.avg.pct_of_peak_sustained_active */
    double branch_efficiency_pct;  /* smsp__sass_average_branch_targets_threads_uniform.pct */
    double divergent_branches;     /* smsp__sass_branch_targets_threads_divergent.sum */
    double l2_hit_rate_pct;        /* lts__t_sector_hit_rate.pct */
    /* Lane use: of the 32 lanes of each warp instruction executed, the share
     * that was active (smsp__thread_inst_executed / 32 x smsp__inst_executed)
     * and the share that was active and not predicated off (..._pred_on).
     * A branch the compiler turned into predicated instructions shows in the
     * second, not in divergent_branches. NAN when not measured. */
    double warp_instructions;       /* smsp__inst_executed.sum */
    double active_lanes_pct;        /* smsp__thread_inst_executed.sum */
    double predicated_on_lanes_pct; /* smsp__thread_inst_executed_pred_on.sum */
    /* The device's L2 size, set by the caller (0: unknown). Output still
     * dirty in L2 when the kernel ends is written back to DRAM after it, so
     * dram__bytes_write may fall short of the bytes written by up to this. */
    double l2_cache_bytes;
    int refused;    /* 1: the profiler was refused the counters (ERR_NVGPUCTRPERM) */
    char note[160]; /* why not measured */
} warplab_counters;

/* The environment variable under which a bench run opens the profiler
 * window (cudaProfilerStart/Stop) around each rung's first timed launch
 * only, for `ncu --profile-from-start off` ("1" to ask). */
#define WARPLAB_PROFILE_ENV "WARPLAB_PROFILE_LAUNCH"

/* The metric list to pass to `ncu --metrics`. */
const char *warplab_counters_metrics(void);
/* Parses the CSV of `ncu --csv --page raw --print-units base --metrics
 * <warplab_counters_metrics()>` (other lines of a log around it are
 * skipped) into one launch's counters. WARPLAB_ERROR_INVALID_ARGUMENT, with
 * why in counters->note, when it holds no kernel or lacks a metric (the
 * lane-use metrics are optional: NAN when absent); counters->refused is set
 * when the output says that the user may not read the counters. */
warplab_status warplab_counters_parse(const char *csv, warplab_counters *counters);
/* The counters table: for each ladder's first problem, each row with
 * counters[i] (one per report row; invalid ones show their note): DRAM
 * bytes read + written beside the rung's own "moved" count, shared-memory
 * bank conflicts, achieved occupancy, branch efficiency and divergent
 * branches, L2 hit rate; then each lesson's prediction (the counter it
 * says moves, against which rung) with the verdict, a contradicted one
 * flagged. tool: the profiler's name and version for the heading. */
warplab_status warplab_counters_write(const warplab_report *report,
                                      const warplab_counters *counters, const char *tool,
                                      FILE *stream);
/* How many lesson predictions the counters contradicted (those that could
 * be judged); *judged receives how many were judged. */
size_t warplab_counters_contradictions(const warplab_report *report,
                                       const warplab_counters *counters, size_t *judged);
/* A ladder's default sizes ("2^28", "4096x4096, ..."), for a GPU (gpu 1) or
 * a CPU-class device; NULL for an unknown ladder. */
const char *warplab_ladder_default_sizes(const char *ladder, int gpu);

/* ------------------------------------------------------------------------ */
/* The course handout (warplab bench --html)                                */

/* One self-contained HTML page (no script, no fetch: every chart, style
 * and code listing inline): the device and the run's settings (settings: the
 * command line or any text, may be NULL), the bar charts, each ladder's
 * table, each rung's lesson and course reference, its kernel source on the
 * report's backend and the diff against the rung below (collapsible), and
 * the counters table when counters is given (one per row, may be NULL). */
warplab_status warplab_report_write_html(const warplab_report *report,
                                         const warplab_counters *counters, const char *settings,
                                         FILE *stream);

#ifdef __cplusplus
}
#endif

#endif /* WARPLAB_LAB_H */
