/*
 * warplab internals: the shapes shared by the harness, the ladders and the
 * backends. C11, and includable from CUDA (.cu) files.
 *
 *   ladder (data)  -- rungs: id, title, lesson, limits, bytes/flops formulas
 *   backend (code) -- buffers, copies, timers, and a table of rung launchers
 *   harness        -- inputs, poisoning, verification, timing, reporting
 *
 * A rung never times, verifies or prints: it launches.
 */
#ifndef WARPLAB_INTERNAL_H
#define WARPLAB_INTERNAL_H

#include "warplab.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define WL_MAX_BUFFERS 6
/* The most sizes one warplab_bench call takes (a ladder's rungs, vendor
 * pairs and probe series are allocated as the registry lists them). */
#define WL_BENCH_MAX_SIZES 64
#define WL_ERROR_LEN 512

/* ------------------------------------------------------------------------ */
/* Problems                                                                 */

/* One problem instance of a ladder. Each ladder says what dim[] means:
 * vecadd/reduce: dim[0] = n; transpose: rows, cols; gemm: m, n, k. */
typedef struct wl_problem {
    size_t dim[3];
    int dims;     /* how many of dim[] are set */
    size_t ld[3]; /* leading dimensions in elements, 0 = tight; ladder-defined */
    warplab_dtype dtype;
    warplab_reduce_op op; /* reduce: sum, min or max */
    double alpha, beta;
    size_t misalign; /* every buffer view starts this many elements past an aligned base */
    int nan_input;   /* 1: the harness plants a NaN in the first input */
    long param;      /* a ladder's or probe's own parameter (offset, stride, ...) */
    int variant;     /* a ladder's own variant selector (precision, layout, ...) */
    /* gemm (warplab_gemm_batched_ex): matrices in the batch (0 or 1: one)
     * and the elements between consecutive ones of A, B and C. */
    size_t batch;
    size_t stride[3];
} wl_problem;

/* ------------------------------------------------------------------------ */
/* Buffers as the ladders declare them                                      */

typedef enum wl_role {
    WL_IN = 0, /* filled with fresh random values for every check */
    WL_OUT,    /* poisoned before every check; every element must be written */
    WL_INOUT   /* random values in, verified out */
} wl_role;

typedef struct wl_buffer_spec {
    wl_role role;
    warplab_dtype dtype;
    size_t count;  /* elements the view holds (after misalign) */
    double lo, hi; /* range of the random values; ints are drawn in [lo, hi] */
} wl_buffer_spec;

/* A view of a backend buffer as a launcher sees it. For cuda and cpu,
 * handle is the base address; for opencl it is a cl_mem. */
typedef struct wl_view {
    void *handle;
    size_t offset; /* bytes from the base to element 0 */
    size_t bytes;  /* bytes of the view */
} wl_view;

static inline void *wl_view_ptr(wl_view v)
{
    return (char *)v.handle + v.offset;
}

typedef struct wl_launch {
    const wl_problem *problem;
    wl_view buf[WL_MAX_BUFFERS]; /* in the order the ladder declared them */
    int buffers;
    wl_view scratch; /* the rung's workspace, poisoned; bytes may be 0 */
    /* 1 when scratch is the workspace this implementation had in its previous
     * launch on this context, as that launch left it (the library's reused
     * workspace); 0 when its contents are unknown (fresh, or poisoned by the
     * harness). A rung may skip re-initialising what its kernels restore
     * themselves (single_pass's ticket counter) only when it is 1. */
    int scratch_kept;
} wl_launch;

/* The launch's leading size: the element count of a vector problem. */
static inline size_t wl_launch_count(const wl_launch *launch)
{
    return launch->problem->dim[0];
}

/* ------------------------------------------------------------------------ */
/* Verification results                                                     */

typedef struct wl_check {
    size_t checked;       /* elements compared */
    size_t bad;           /* elements outside their bound (or NaN, or unwritten) */
    size_t first_bad;     /* index of the first bad element */
    double got, expected; /* at first_bad */
    double worst_ratio;   /* max |got - expected| / bound (bound 0: exact compares) */
} wl_check;

void wl_check_init(wl_check *check);
/* Compares one element: NaN passes only when expected is NaN; otherwise
 * |got - expected| <= bound. Returns true when it passes. */
bool wl_check_value(wl_check *check, size_t index, double got, double expected, double bound);

/* Runs body(task, part, user) for task in [0, tasks) on every core, each
 * task into its own check, and merges them into check in task order (so
 * first_bad is what a serial loop over the tasks in order would find). A
 * task must write nothing shared. Verification of large outputs uses it. */
void wl_check_parallel(size_t tasks, void (*body)(size_t task, wl_check *check, const void *user),
                       const void *user, wl_check *check);

/* The detail warplab_last_error(NULL) returns, for calls without a context
 * (occupancy, architectures): recorded per thread. */
void wl_detached_error_clear(void);
warplab_status wl_detached_fail(warplab_status status, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Every public call that can fail goes through these (src/core/context.c):
 * begin clears the slot warplab_last_error will read for the call (the
 * context's, or with NULL the thread's), end makes sure a failure leaves a
 * message there that starts with the called function's name ("function:
 * detail", the status's own string when no detail was given) and returns
 * status. wl_api_no_context: "function: the context is NULL", invalid. */
void wl_api_begin(warplab_context *context);
warplab_status wl_api_end(warplab_context *context, const char *function, warplab_status status);
warplab_status wl_api_no_context(const char *function, const char *what);

/* warplab_parse_size without a message: *overflow tells a dimension past
 * 2^64 - 1 from text that is not a size. */
warplab_status wl_parse_size(const char *text, size_t sizes[3], int *dims, bool *overflow);

/* ------------------------------------------------------------------------ */
/* Backends                                                                 */

typedef struct wl_backend wl_backend;
typedef struct wl_impl wl_impl;

typedef struct wl_backend_ops {
    warplab_backend_kind kind;
    const char *name;
    /* Devices. */
    warplab_status (*device_count)(int *count);
    warplab_status (*device_info)(int index, warplab_device_info *info);
    /* Lifetime. */
    warplab_status (*open)(int index, wl_backend **backend, char *error, size_t error_len);
    void (*close)(wl_backend *backend);
    /* Memory. */
    warplab_status (*alloc)(wl_backend *backend, size_t bytes, void **handle);
    void (*release)(wl_backend *backend, void *handle);
    warplab_status (*upload)(wl_backend *backend, void *handle, size_t offset, const void *source,
                             size_t bytes);
    warplab_status (*download)(wl_backend *backend, const void *handle, size_t offset,
                               void *destination, size_t bytes);
    /* Fills bytes (a multiple of 4) at offset with a 32-bit pattern. */
    warplab_status (*fill32)(wl_backend *backend, void *handle, size_t offset, uint32_t pattern,
                             size_t bytes);
    warplab_status (*mem_info)(wl_backend *backend, size_t *free_bytes, size_t *total_bytes);
    warplab_status (*synchronize)(wl_backend *backend);
    /* Evicts the device's caches (L2) so the next run starts cold; may be NULL. */
    warplab_status (*flush_caches)(wl_backend *backend);
    /* Timers: slots 0..count-1, each a start/stop pair; read synchronizes. */
    warplab_status (*timers_reserve)(wl_backend *backend, int count);
    warplab_status (*timer_start)(wl_backend *backend, int slot);
    warplab_status (*timer_stop)(wl_backend *backend, int slot);
    warplab_status (*timers_read)(wl_backend *backend, int count, double *milliseconds);
    /* Rung implementations this backend has: a NULL-terminated list of
     * NULL-terminated tables, one table per ladder (each ladder's own file). */
    const wl_impl *const *const *impls;

    /* --- The caller's memory and streams (warplab_buffer_wrap,
     * warplab_context_set_stream). Each may be NULL where the backend has no
     * such notion. --- */
    /* Binds the caller's cudaStream_t / cl_command_queue (NULL: the backend's
     * own); later work, copies and timers go there, ordered after the work
     * already issued on the stream it replaces. */
    warplab_status (*set_stream)(wl_backend *backend, void *stream);
    /* Checks that a caller's handle (device pointer, cl_mem, host pointer)
     * can serve as a buffer of bytes on this backend. */
    warplab_status (*wrap_check)(wl_backend *backend, void *handle, size_t bytes);
    /* Host memory the device writes directly (CUDA mapped pinned memory):
     * kernels write through *device_handle, the host reads *host after a
     * synchronize. NULL where there is none. */
    warplab_status (*alloc_mapped)(wl_backend *backend, size_t bytes, void **device_handle,
                                   void **host);
    void (*release_mapped)(wl_backend *backend, void *host);
    /* The native context callers create buffers and queues in (cl_context);
     * NULL where there is none. */
    void *(*native_context)(wl_backend *backend);
} wl_backend_ops;

struct wl_backend {
    const wl_backend_ops *ops;
    warplab_device_info info;
    char error[WL_ERROR_LEN]; /* detail of the last failure */
};

/* Records a failure's detail in the backend and returns status. */
warplab_status wl_fail(wl_backend *backend, warplab_status status, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* A rung's implementation on one backend. Only launch is required. setup,
 * prepare, finish and teardown are never timed. */
struct wl_impl {
    const char *ladder;
    const char *rung;
    /* Extra limits of this implementation (beyond the rung's), or NULL. On
     * failure writes why to reason and returns WARPLAB_ERROR_UNSUPPORTED etc. */
    warplab_status (*supports)(wl_backend *backend, const wl_problem *problem, char *reason,
                               size_t reason_len);
    /* Workspace in bytes the harness allocates (and poisons) for the rung. */
    size_t (*scratch_bytes)(wl_backend *backend, const wl_problem *problem);
    warplab_status (*setup)(wl_backend *backend, const wl_launch *launch, void **state);
    /* Before each run, untimed (e.g. put managed pages back on the host). */
    warplab_status (*prepare)(wl_backend *backend, const wl_launch *launch, void *state);
    /* The work being measured. Asynchronous launches are fine: the harness
     * synchronizes through the backend timers. */
    warplab_status (*launch)(wl_backend *backend, const wl_launch *launch, void *state);
    /* After the checked run, before the outputs are read (e.g. copy results out
     * of a rung-private buffer into the harness's output view). */
    warplab_status (*finish)(wl_backend *backend, const wl_launch *launch, void *state);
    void (*teardown)(wl_backend *backend, void *state);
    /* What it runs for this launch (a dispatcher's pick), for the report
     * row's note; NULL = nothing to say. */
    void (*describe)(wl_backend *backend, const wl_launch *launch, char *text, size_t len);
};

/* The backends compiled into this build; NULL where absent. */
const wl_backend_ops *wl_backend_ops_for(warplab_backend_kind kind);
extern const wl_backend_ops wl_cpu_backend_ops;
#ifdef WARPLAB_HAVE_CUDA
extern const wl_backend_ops wl_cuda_backend_ops;
#endif
#ifdef WARPLAB_HAVE_OPENCL
extern const wl_backend_ops wl_opencl_backend_ops;
#endif

/* One run of an implementation after its setup: prepare, launch and, when
 * finish is true, finish; stops at the first failure. The harness's checked
 * and timed runs and the library's calls all run through it. */
warplab_status wl_impl_run(wl_backend *backend, const wl_impl *impl, const wl_launch *launch,
                           void *state, bool finish);

const wl_impl *wl_backend_find_impl(const wl_backend *backend, const char *ladder,
                                    const char *rung);
const wl_impl *wl_ops_find_impl(const wl_backend_ops *ops, const char *ladder, const char *rung);

/* ------------------------------------------------------------------------ */
/* Ladders                                                                  */

/* A rung's flags. The first ones are the report row's flags of the same name
 * (WARPLAB_ROW_*, include/warplab_lab.h), with the same values, so that a
 * row takes its rung's flags as they are; src/lab/harness.c checks that
 * they agree. */
enum {
    WL_RUNG_HOST = 1u << 0, /* runs on the cpu backend whatever is chosen */
    WL_RUNG_VENDOR = 1u << 1,
    WL_RUNG_REFERENCE = 1u << 2,
    WL_RUNG_UNSAFE = 1u << 3,
    WL_RUNG_TRANSFER = 1u << 6,
    /* Its result is allowed to be wrong on some backends (the lesson is that it
     * is wrong, e.g. the warp-synchronous rung without barriers). A wrong
     * result is reported, not counted as a test failure. */
    WL_RUNG_MAY_BE_WRONG = 1u << 16,
    /* Not a step of the ladder: no step/cumulative speedup. */
    WL_RUNG_OFF_LADDER = 1u << 17,
    /* The vendor row every row's "% of vendor" compares with (cuBLAS FP32). */
    WL_RUNG_BASELINE = 1u << 8,
    /* Takes problems whose operands are stored transposed (gemm: op(A),
     * op(B) = T, the WL_GEMM_TRANS_* variant bits); the others are refused
     * such problems by the ladder's rung_supports. */
    WL_RUNG_TRANSPOSES = 1u << 18
};

typedef struct wl_rung {
    const char *id;            /* short, stable: "grid_stride" */
    const char *title;         /* "grid-stride loop" */
    const char *lesson;        /* what changed over the rung below, and why it helps */
    const char *course;        /* where the course teaches it: "seed 001, 'Vector Add'" */
    double course_value;       /* the course's figure (0 = none) */
    const char *course_unit;   /* "GB/s", or "GiB/s" where the course measured GiB/s */
    const char *course_device; /* "K40" */
    bool course_bound;         /* course_value is a bound the course computed, not measured */
    /* A second device's figure for the same rung (the reduction ladder quotes
     * K40 and seed 004's older GPU); 0 = none. Its unit: course_unit2, or
     * course_unit when NULL. */
    double course_value2;
    const char *course_unit2;
    const char *course_device2;
    unsigned flags;     /* WL_RUNG_* */
    const char *vendor; /* id of the vendor rung it is measured against; NULL = the baseline row */
    /* Bytes it must move and flops it must do; NULL = the ladder's. */
    double (*bytes)(const wl_problem *problem);
    double (*flops)(const wl_problem *problem);
    /* The rung's own limits (all backends), or NULL. */
    warplab_status (*supports)(const wl_problem *problem, const warplab_device_info *device,
                               char *reason, size_t reason_len);
    /* Its own verification when it computes something else than the ladder
     * (a copy reference row); NULL = the ladder's. */
    warplab_status (*verify)(const wl_problem *problem, const void *const *host, wl_check *check);
    /* The library call: the rung has no kernel of its own; its row runs what
     * this operation (src/ops/) picks for the problem on the backend, the
     * choice warplab_<op> makes (wl_op_pick). NULL for every other rung. */
    const struct wl_op *op;
} wl_rung;

struct wl_reference_request; /* src/lab/reference.h */

typedef struct wl_ladder {
    const char *name;
    const char *title;
    const wl_rung *rungs;
    size_t rung_count;
    /* Builds a problem from a parsed size and the options; validates it. */
    warplab_status (*make_problem)(const size_t size[3], int dims, const char *dtype,
                                   const char *op, wl_problem *problem, char *error,
                                   size_t error_len);
    /* Default benchmark sizes, for a GPU and for a CPU-class device. */
    const char *default_sizes_gpu;
    const char *default_sizes_cpu;
    /* Short description of a problem ("n=1048576 float"). */
    void (*describe)(const wl_problem *problem, char *text, size_t len);
    double (*leading_size)(const wl_problem *problem);
    /* The buffers of a problem; returns how many (<= WL_MAX_BUFFERS). */
    int (*buffers)(const wl_problem *problem, wl_buffer_spec *specs);
    /* Compares outputs with the double-precision CPU reference. host[] holds
     * every buffer as read back after the run (inputs included, inputs as
     * they were uploaded); for a WL_INOUT buffer i of B declared buffers,
     * host[B + i] holds the values uploaded before the run (NULL for the
     * other roles). Fills check; returns OK when all elements pass. */
    warplab_status (*verify)(const wl_problem *problem, const void *const *host, wl_check *check);
    /* Default bytes/flops formulas. */
    double (*bytes)(const wl_problem *problem);
    double (*flops)(const wl_problem *problem);
    /* Which rung warplab's own operation uses. */
    const char *best_rung;
    /* The problems the test suite checks every rung on (odd sizes, every
     * type and operation, misaligned views), for a device (full sizes on a
     * GPU, what a CPU can do in seconds elsewhere). Returns how many. */
    int (*test_problems)(const warplab_device_info *device, wl_problem *problems, int capacity);
    /* Ladder-wide limits every rung meets before its own (e.g. the gemm
     * rungs that read only row-major N, N operands), or NULL. */
    warplab_status (*rung_supports)(const wl_rung *rung, const wl_problem *problem, char *reason,
                                    size_t reason_len);
    /* A named set of shapes for `warplab bench LADDER --shapes` (sizes as
     * --size takes them), or NULL. */
    const char *shape_set;
    /* Which device reference (src/lab/reference.h) verifies the rung's large
     * problems on the GPU (sets request->kind, or leaves it NONE: the CPU
     * reference); NULL: the CPU reference always. */
    void (*device_reference)(const wl_rung *rung, const wl_problem *problem,
                             struct wl_reference_request *request);
    /* Whether the ladder can run at all on a backend (the all-reduce ladder:
     * the cuda backend with 2 GPUs or more); NULL = always. On refusal writes
     * why; tests/test_ladders skips (77) a ladder it names that is not. */
    warplab_status (*available)(const wl_backend *backend, char *reason, size_t reason_len);
    /* Bytes for a row's bus bandwidth (warplab_row.busbw_gbs = bus_bytes /
     * median time; the all-reduce's nccl-tests busbw), or NULL: none. */
    double (*bus_bytes)(const wl_problem *problem);
} wl_ladder;

/* The all-reduce ladder (src/ladders/allreduce.c): the CUDA GPUs an
 * all-reduce spans (all present, or fewer where WARPLAB_ALLREDUCE_GPUS asks),
 * at most WL_ALLREDUCE_MAX_GPUS. */
#define WL_ALLREDUCE_MAX_GPUS 8
int wl_allreduce_gpus(void);
#ifdef WARPLAB_HAVE_CUDA
/* warplab_peer_query's measurements (src/kernels/cuda/allreduce_peers.cu). */
warplab_status wl_cuda_peer_query(warplab_peer_report *report, size_t bytes, char *error,
                                  size_t error_len);
#endif

size_t wl_ladder_count(void);
const wl_ladder *wl_ladder_at(size_t index);
const wl_ladder *wl_ladder_find(const char *name);
const wl_rung *wl_rung_find(const wl_ladder *ladder, const char *id);
/* The ids of the course's errata that concern a rung of a ladder (or a
 * probe), space-separated, into out ("" when none); src/ladders/errata.c. */
void wl_errata_ids(const char *topic, const char *rung, char *out, size_t len);

/* Whether a rung's implementation can run a problem on a backend: the rung's
 * own limits, then the implementation's. Writes why not to reason. */
warplab_status wl_rung_supports(wl_backend *backend, const wl_ladder *ladder, const wl_rung *rung,
                                const wl_impl *impl, const wl_problem *problem, char *reason,
                                size_t reason_len);

/* ------------------------------------------------------------------------ */
/* Utilities                                                                */

/* xoshiro256** seeded by splitmix64. */
typedef struct wl_rng {
    uint64_t s[4];
} wl_rng;
void wl_rng_seed(wl_rng *rng, uint64_t seed);
uint64_t wl_rng_next(wl_rng *rng);
double wl_rng_uniform(wl_rng *rng); /* [0, 1) */

/* Fills count elements of dtype with random values in [lo, hi] (never all zero). */
void wl_fill_random(void *data, warplab_dtype dtype, size_t count, double lo, double hi,
                    uint64_t seed);

/* Statistics over n samples (sorted in place). */
typedef struct wl_stats {
    double median, min, max, mean, rel_stddev_pct;
} wl_stats;
void wl_stats_compute(double *samples, size_t n, wl_stats *stats);

/* Two calls timed against each other (an operation and its vendor's):
 * warmup untimed runs of each, then up to repeat rounds within max_seconds
 * (at least 3), each round both calls in turn, each after a cache flush
 * (flush) and timed by the backend's events, or by the host clock from
 * call to return (host_clock: the call returns a value on the host). *runs:
 * the rounds timed; stats: the medians and noise of each call's runs. */
typedef struct wl_timed_call {
    warplab_status (*run)(void *user);
    void *user;
} wl_timed_call;
warplab_status wl_time_pair(wl_backend *device, const wl_timed_call calls[2], bool host_clock,
                            int repeat, int warmup, double max_seconds, bool flush,
                            wl_stats stats[2], int *runs);

double wl_now_seconds(void);                    /* monotonic clock */
uint64_t wl_clock_seed(void);                   /* a seed from the real-time clock */
void wl_format_utc_now(char *text, size_t len); /* "2026-11-21T05:55:31Z" */
int wl_cpu_threads(void);                       /* online processors, at least 1 */

/* Runs body(i, user) for i in [0, tasks) on up to threads workers. */
void wl_parallel_for(int threads, size_t tasks, void (*body)(size_t task, void *user), void *user);

/* Overflow-checked size arithmetic: *result = a * b (a + b); false, with
 * *result left alone, when the exact value does not fit in a size_t. Every
 * byte count built from a caller's size goes through these. */
bool wl_size_mul(size_t a, size_t b, size_t *result);
bool wl_size_add(size_t a, size_t b, size_t *result);

/* Bytes the process's memory cgroup still allows (v2 memory.max or v1
 * memory.limit_in_bytes, minus what is in use, at every level from its group
 * to the root), its group read from self_cgroup (/proc/self/cgroup) under
 * mount (/sys/fs/cgroup); SIZE_MAX when nothing limits it. */
size_t wl_cgroup_memory_free(const char *self_cgroup, const char *mount);

/* snprintf into a fixed buffer, never overflowing, always terminated. */
void wl_copy_string(char *destination, size_t capacity, const char *source);
/* text word-wrapped before column width: the first line led by first, the
 * others by hang spaces; nothing at all for a text without words. */
void wl_write_wrapped(FILE *stream, const char *first, const char *text, size_t width, size_t hang);
void wl_format(char *destination, size_t capacity, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Appends formatted text to a buffer, never overflowing. */
void wl_append(char *text, size_t len, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* "4 KiB", "256 MiB", "1 GiB", "1000 B": sizes in 2^10 units. */
void wl_format_bytes(char *text, size_t len, double bytes);

/* Output helpers (src/core/text.c), shared by the report writers and the
 * lab's JSON (the GEMM grid): escaped text for JSON (quoted), CSV (quoted
 * when needed), Markdown and SVG; a JSON field ("key": value, then ", " when
 * comma), a JSON number (null when not finite); a duration as "1.234 ms" or
 * "56.78 us". */
void wl_write_json_text(FILE *out, const char *text);
void wl_write_json_field(FILE *out, const char *key, const char *value, bool comma);
void wl_write_json_number(FILE *out, const char *key, double value, bool comma);
void wl_write_csv_text(FILE *out, const char *text);
void wl_write_markdown_text(FILE *out, const char *text);
void wl_write_svg_text(FILE *out, const char *text);
void wl_format_time(char *out, size_t len, double ms);

/* The poison written into outputs: a NaN as float, a huge value as double,
 * 2143999917 as int32. */
#define WL_POISON_PATTERN 0x7FBADBADu

#ifdef __cplusplus
}
#endif

#endif /* WARPLAB_INTERNAL_H */
