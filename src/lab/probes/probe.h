/*
 * warplab probes: the course's experiments, in the ladders' shape.
 *
 *   probe    -- a name, where the course teaches it (its seed file), one or more sections, and a
 *               conclusion computed from the numbers
 *   section  -- a wl_ladder whose rungs are the series (kernels) and whose
 *               problems are the points of a sweep (wl_problem.param = x)
 *
 * The runner (src/lab/probes/probe.c) sends every (series, point) through wl_run_rung,
 * so a probe kernel is checked exactly like a rung (fresh random inputs,
 * poisoned outputs, guard zones, a double-precision CPU reference) before it
 * is timed. A probe never times, verifies or prints anything itself.
 */
#ifndef WARPLAB_PROBE_H
#define WARPLAB_PROBE_H

#include "internal.h"

#include "warplab_lab.h"
#ifdef __cplusplus
extern "C" {
#endif

/* How a row's figure is computed: bytes or operations per second. */
typedef enum wl_probe_metric {
    WL_PROBE_BYTES = 0, /* row->gbs: the rung's bytes / median time */
    WL_PROBE_OPS        /* row->gflops: the rung's "flops" count holds operations */
} wl_probe_metric;

/* Extra facts about a series of a comparison section. */
typedef struct wl_probe_series {
    const char *id;
    const char *baseline; /* the series it is compared with, or NULL */
    /* The verification bound per unit of the check's worst ratio: the error
     * reported is worst_ratio x error_unit. */
    double error_unit;
    /* "abs" or "rel" (with error_unit), "exact" (checked for equality), or
     * NULL: no error column. */
    const char *error_kind;
} wl_probe_series;

typedef struct wl_probe_section {
    const wl_ladder *ladder; /* series = rungs; ladder->name names the rows */
    const char *name;
    const char *title;
    const char *x_label;
    const char *unit;
    wl_probe_metric metric;
    bool log_x, x_is_bytes, comparison;
    /* The points of the sweep for a device and a size (0 = the default for
     * the device); returns how many (<= capacity). */
    int (*points)(const warplab_device_info *device, size_t size, wl_problem *problems,
                  int capacity);
    /* Optional: a note beside a point (blocksize: the occupancy predicted). */
    void (*annotate)(wl_backend *backend, const wl_problem *problem, char *text, size_t len);
    const wl_probe_series *series; /* optional, for comparisons */
    size_t series_count;
} wl_probe_section;

#define WL_PROBE_MAX_SECTIONS 4
/* The most points one section measures (its points() is given this room). */
#define WL_PROBE_MAX_POINTS 128

typedef struct wl_probe {
    const char *name;
    const char *title;
    const char *course; /* where the course teaches it: "seed 003, '...'" */
    const char *size_meaning;
    const wl_probe_section *sections;
    size_t section_count;
    /* One line on sizes and launch shapes for a device and size (0 = default). */
    void (*setup)(const warplab_device_info *device, size_t size, char *text, size_t len);
    /* The one-line conclusion, computed from the numbers in result. */
    void (*conclude)(const warplab_probe_result *result, char *text, size_t len);
} wl_probe;

size_t wl_probe_count(void);
const wl_probe *wl_probe_at(size_t index);
const wl_probe *wl_probe_find(const char *name);

/* ------------------------------------------------------------------------ */
/* Helpers for the probe definitions                                        */

/* The figure of a series at x, when it was measured (ran, verified, timed). */
bool wl_probe_value(const warplab_probe_result *result, const char *series, double x,
                    double *value);
/* The point of a series at x (measured or not); NULL when absent. */
const warplab_probe_point *wl_probe_point_at(const warplab_probe_result *result, const char *series,
                                             double x);
/* value(a at xa) / value(b at xb), when both were measured. */
bool wl_probe_ratio(const warplab_probe_result *result, const char *a, double xa, const char *b,
                    double xb, double *ratio);
/* Appends "0.52x" (or "n/a") for that ratio to text. */
void wl_probe_append_ratio(char *text, size_t len, const warplab_probe_result *result,
                           const char *a, double xa, const char *b, double xb);
/* The smallest / largest measured figure of a series for x in [lo, hi]. */
bool wl_probe_extreme(const warplab_probe_result *result, const char *series, double lo, double hi,
                      bool largest, double *x, double *value);

/* For verify functions: an element that must still hold the poison (the
 * kernel must not have written it), compared as a 32-bit pattern. */
bool wl_probe_check_poison(wl_check *check, size_t index, const void *word);

/* A wl_impl `prepare` for every backend: zeroes the problem's last buffer
 * (the atomics' counters) before each run, untimed. */
warplab_status wl_probe_zero_last_buffer(wl_backend *backend, const wl_launch *launch, void *state);
/* ... sets it to all ones (atomicAnd's counters). */
warplab_status wl_probe_ones_last_buffer(wl_backend *backend, const wl_launch *launch, void *state);

/* A problem for one point of a sweep: dim[0..2] as the section defines them,
 * param = x. */
wl_problem wl_probe_point(size_t dim0, size_t dim1, size_t dim2, long param);

/* A 1-D view of a problem for ladders whose problems are probe points. */
double wl_probe_leading_size(const wl_problem *problem); /* param */

#ifdef WARPLAB_HAVE_CUDA
/* The blocksize probe's copy kernel (src/lab/probes/cuda/probe_blocksize.cu): its
 * registers per thread and static shared memory, and the resident blocks per
 * SM CUDA's occupancy calculator gives it at a block size (0 on error). */
warplab_status wl_cuda_probe_copy_attributes(int *registers, size_t *shared_bytes);
int wl_cuda_probe_copy_blocks_per_sm(int block);
/* The memories probe's array kernels (src/lab/probes/cuda/probe_memories.cu):
 * the local memory a thread of each form uses for an array of n ints. */
warplab_status wl_cuda_probe_local_bytes(int n, size_t *in_registers, size_t *in_local);
#endif

/* The FMA chain of the divergence and overlap probes (WL_CHAIN_A in
 * probe_kernels.h): y <- fma(y, a, b), steps times. The reference is the
 * closed form a^n y0 + b (1 - a^n) / (1 - a), in double. */
double wl_chain_reference(float start, float b, long steps);
/* A bound for |float chain - exact chain|: each step rounds once, by at
 * most 2^-24 M (the chain moves monotonically from y0 to y_n, so M =
 * max(|y0|, |y_n|) + |b|), and an error made j steps before the end has
 * shrunk by a^j: at most 2^-24 M sum(a^j, j < n); twice that. */
double wl_chain_bound(float start, float b, long steps);

#ifdef __cplusplus
}
#endif

#endif /* WARPLAB_PROBE_H */
