/* The scan (prefix sum) ladder, past the course: every partial result of a
 * reduction kept. out[i] = x[0] op ... op x[i] (inclusive) or x[0] op ... op
 * x[i-1] with out[0] the identity (exclusive), for sum, min or max over
 * int32, float or double.
 *
 * The climb follows GPU Gems 3, chapter 39 (Harris, Sengupta and Owens,
 * "Parallel Prefix Sum (Scan) with CUDA") from the naive one-block scan to
 * the work-efficient tree, its bank-conflict-free form and arrays of any
 * size; then Merrill and Garland, "Single-pass Parallel Prefix Scan with
 * Decoupled Look-back" (NVIDIA technical report NVR-2016-002), from the
 * two-pass forms to the chained and decoupled single-pass scans. The top
 * rung is warplab_scan's; cub::DeviceScan is the vendor row and a copy of n
 * in and n out the speed of light.
 *
 * What every rung computes (and what the verification holds it to):
 * - int32 sums wrap modulo 2^32, exactly (the reference sums in uint32_t);
 * - float and double sums: element i of m = i + 1 terms (i for exclusive) is
 *   held to |got - exact| <= m * eps * sum of the m |x|, the bound of any
 *   summation order in the element type (eps: FLT_EPSILON, DBL_EPSILON),
 *   against a compensated (Neumaier) double reference: the bound grows with
 *   the prefix;
 * - min and max are exact, and a NaN propagates to every later prefix (sum
 *   too);
 * - an exclusive scan's first element is the identity: 0, +inf or INT32_MAX
 *   (min), -inf or INT32_MIN (max); n = 0 writes nothing.
 * The inputs are chosen as the reduction ladder's: int32 sums use the whole
 * int32 range (every prefix wraps), min draws positive values and max
 * negative ones (a 0 pad changes the answer), float sums draw from [1, 2],
 * and the harness's poison is a NaN as float. */
#include "../ladder_util.h"
#include "kernels/kernel_limits.h"
#include "ladders/ladders.h"
#include "ops/ops.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { SCAN_IN = 0, SCAN_OUT };

/* The least a scan must move: n elements in, n out. */
static double scan_bytes(const wl_problem *p)
{
    return 2.0 * (double)p->dim[0] * (double)warplab_dtype_size(p->dtype);
}

static double scan_flops(const wl_problem *p)
{
    return p->dtype == WARPLAB_INT32 ? 0.0 : (double)p->dim[0];
}

static int scan_buffers(const wl_problem *p, wl_buffer_spec *spec)
{
    double lo = 1.0, hi = 2.0;
    if (p->dtype == WARPLAB_INT32) {
        lo = p->op == WARPLAB_REDUCE_MIN ? 1.0 : (double)INT32_MIN;
        hi = p->op == WARPLAB_REDUCE_MAX ? -1.0 : (double)INT32_MAX;
    } else if (p->op == WARPLAB_REDUCE_MAX) {
        lo = -2.0;
        hi = -1.0;
    }
    spec[SCAN_IN] = (wl_buffer_spec){WL_IN, p->dtype, p->dim[0], lo, hi};
    spec[SCAN_OUT] = (wl_buffer_spec){WL_OUT, p->dtype, p->dim[0], 0.0, 0.0};
    return 2;
}

/* ---- the reference: chunks on every core, carried from chunk to chunk ---- */

#define SCAN_CHUNK ((size_t)1 << 20)

/* What the elements before a point add up to. */
typedef struct scan_carry {
    uint32_t int_sum;
    int32_t int_best;
    double sum, compensation, magnitude, best;
} scan_carry;

static void compensated_add(double *sum, double *compensation, double x)
{
    double t = *sum + x;
    *compensation += fabs(*sum) >= fabs(x) ? (*sum - t) + x : (x - t) + *sum;
    *sum = t;
}

static void carry_identity(const wl_problem *p, scan_carry *c)
{
    memset(c, 0, sizeof *c);
    c->int_best = p->op == WARPLAB_REDUCE_MIN ? INT32_MAX : INT32_MIN;
    c->best = p->op == WARPLAB_REDUCE_MIN ? INFINITY : -INFINITY;
}

static void carry_add(const wl_problem *p, scan_carry *c, const void *input, size_t i)
{
    if (p->dtype == WARPLAB_INT32) {
        const int32_t x = ((const int32_t *)input)[i];
        c->int_sum += (uint32_t)x;
        if (p->op == WARPLAB_REDUCE_MIN ? x < c->int_best : x > c->int_best)
            c->int_best = x;
        return;
    }
    const double x = wl_element(input, p->dtype, i);
    if (p->op == WARPLAB_REDUCE_SUM) {
        compensated_add(&c->sum, &c->compensation, x);
        c->magnitude += fabs(x);
    } else if (isnan(x) || isnan(c->best)) {
        c->best = NAN;
    } else if (p->op == WARPLAB_REDUCE_MIN ? x < c->best : x > c->best) {
        c->best = x;
    }
}

/* Combines a chunk's carry b after a (sums add, extremes compare). */
static void carry_merge(const wl_problem *p, scan_carry *a, const scan_carry *b)
{
    a->int_sum += b->int_sum;
    if (p->op == WARPLAB_REDUCE_MIN ? b->int_best < a->int_best : b->int_best > a->int_best)
        a->int_best = b->int_best;
    compensated_add(&a->sum, &a->compensation, b->sum);
    a->compensation += b->compensation;
    a->magnitude += b->magnitude;
    if (isnan(a->best) || isnan(b->best))
        a->best = NAN;
    else if (p->op == WARPLAB_REDUCE_MIN ? b->best < a->best : b->best > a->best)
        a->best = b->best;
}

typedef struct scan_job {
    const wl_problem *p;
    const void *input, *output;
    scan_carry *carries; /* pass 1: each chunk's own; pass 2: what comes before it */
} scan_job;

static size_t chunk_end(const wl_problem *p, size_t task)
{
    const size_t begin = task * SCAN_CHUNK;
    return p->dim[0] - begin < SCAN_CHUNK ? p->dim[0] : begin + SCAN_CHUNK;
}

static void chunk_total(size_t task, void *user)
{
    const scan_job *job = user;
    scan_carry *c = &job->carries[task];
    carry_identity(job->p, c);
    for (size_t i = task * SCAN_CHUNK; i < chunk_end(job->p, task); i++)
        carry_add(job->p, c, job->input, i);
}

/* Checks one element against the carry of the terms its prefix holds. */
static void check_element(const wl_problem *p, wl_check *check, size_t i, const scan_carry *c,
                          size_t terms, const void *output)
{
    const double got = wl_element(output, p->dtype, i);
    if (p->dtype == WARPLAB_INT32) {
        const double expected =
            p->op == WARPLAB_REDUCE_SUM ? (double)(int32_t)c->int_sum : (double)c->int_best;
        wl_check_value(check, i, got, expected, 0.0);
    } else if (p->op == WARPLAB_REDUCE_SUM) {
        const double eps = p->dtype == WARPLAB_FLOAT32 ? FLT_EPSILON : DBL_EPSILON;
        wl_check_value(check, i, got, c->sum + c->compensation, (double)terms * eps * c->magnitude);
    } else {
        wl_check_value(check, i, got, c->best, 0.0);
    }
}

static void chunk_check(size_t task, wl_check *check, const void *user)
{
    const scan_job *job = user;
    const wl_problem *p = job->p;
    scan_carry c = job->carries[task];
    const bool exclusive = p->variant == WARPLAB_SCAN_EXCLUSIVE;
    for (size_t i = task * SCAN_CHUNK; i < chunk_end(p, task); i++) {
        if (exclusive)
            check_element(p, check, i, &c, i, job->output);
        carry_add(p, &c, job->input, i);
        if (!exclusive)
            check_element(p, check, i, &c, i + 1, job->output);
    }
}

static warplab_status scan_verify(const wl_problem *p, const void *const *host, wl_check *check)
{
    const size_t n = p->dim[0], tasks = (n + SCAN_CHUNK - 1) / SCAN_CHUNK;
    if (tasks == 0)
        return WARPLAB_OK;
    scan_carry *carries = calloc(tasks, sizeof *carries);
    if (!carries)
        return WARPLAB_ERROR_HOST_OUT_OF_MEMORY;
    scan_job job = {p, host[SCAN_IN], host[SCAN_OUT], carries};
    wl_parallel_for(wl_cpu_threads(), tasks, chunk_total, &job);
    /* Each chunk's own total becomes what comes before it. */
    scan_carry before;
    carry_identity(p, &before);
    for (size_t t = 0; t < tasks; t++) {
        const scan_carry own = carries[t];
        carries[t] = before;
        carry_merge(p, &before, &own);
    }
    wl_check_parallel(tasks, chunk_check, &job, check);
    free(carries);
    return check->bad ? WARPLAB_ERROR_VERIFICATION_FAILED : WARPLAB_OK;
}

/* The copy row computes out = in. */
static warplab_status copy_verify(const wl_problem *p, const void *const *host, wl_check *check)
{
    for (size_t i = 0; i < p->dim[0]; i++)
        wl_check_value(check, i, wl_element(host[SCAN_OUT], p->dtype, i),
                       wl_element(host[SCAN_IN], p->dtype, i), 0.0);
    return check->bad ? WARPLAB_ERROR_VERIFICATION_FAILED : WARPLAB_OK;
}

static const wl_rung scan_rungs[] = {
    {.id = "cpu_loop",
     .title = "CPU loop, one core",
     .lesson = "acc = acc op x[i]; out[i] = acc: one core, each step waiting for the one "
               "before, n - 1 operations (the work any parallel scan is measured against).",
     .course = "GPU Gems 3, ch. 39.1 (the sequential scan)",
     .flags = WL_RUNG_HOST},
    {.id = "hillis_steele",
     .title = "Hillis-Steele, one block",
     .lesson = "1024 threads, one element each, in two shared-memory arrays used in turn: "
               "step d adds the element 2^d to the left, log2(1024) = 10 steps and barriers. "
               "O(n log n) additions instead of n, and one block: the block walks the array "
               "tile by tile, carrying the running total, while the other SMs idle.",
     .course = "GPU Gems 3, ch. 39.2.1 (a naive parallel scan, after Hillis and Steele 1986)",
     .supports = wl_scan_one_block_limits},
    {.id = "blelloch",
     .title = "Blelloch up-sweep / down-sweep",
     .lesson = "The work-efficient tree: an up-sweep (reduce) builds partial sums in place, "
               "the root is cleared and a down-sweep pushes prefixes back down: O(n) "
               "additions in 2 log n steps, two elements per thread (512 threads, 1024-element "
               "tiles). The strided tree indices fall into few shared-memory banks.",
     .course = "GPU Gems 3, ch. 39.2.2 (a work-efficient parallel scan, after Blelloch 1990)",
     .supports = wl_scan_one_block_limits},
    {.id = "conflict_free",
     .title = "Blelloch without bank conflicts",
     .lesson = "The same tree with one padding word every 32 (index + index / 32): a warp's "
               "strided accesses spread over all 32 banks instead of a few, so no step is "
               "replayed.",
     .course = "GPU Gems 3, ch. 39.2.3 (avoiding bank conflicts)",
     .supports = wl_scan_one_block_limits},
    {.id = "warp_shuffle",
     .title = "warp-shuffle scan, one block",
     .lesson = "Each warp scans its 32 values in registers with __shfl_up_sync (5 steps, no "
               "shared memory, no barrier); one warp scans the 32 warp totals; a few barriers "
               "per tile instead of one per tree level. Still one block.",
     .course = "past the course (warp shuffles, CUDA Programming Guide, 'Warp Shuffle "
               "Functions')",
     .supports = wl_scan_one_block_limits},
    {.id = "scan_then_propagate",
     .title = "scan then propagate, any n (3 kernels)",
     .lesson = "Every SM busy: each block scans its own 1024-element tile and writes the "
               "tile's total; the totals are scanned (recursively, the same kernel); a third "
               "kernel adds each tile's prefix to its elements. Memory: n read, n written, "
               "then n read and written again: 4n.",
     .course = "GPU Gems 3, ch. 39.2.4 (arrays of arbitrary size)"},
    {.id = "reduce_then_scan",
     .title = "reduce then scan (3n)",
     .lesson = "A grid of resident blocks, each owning a contiguous stretch: a reduce pass "
               "writes one total per block, one block scans those totals, and a scan pass "
               "re-reads the input and writes the output once: 3n memory traffic instead of "
               "4n, the input read twice.",
     .course = "Merrill and Garland 2016, section 3 (reduce-then-scan)"},
    {.id = "chained",
     .title = "chained single pass",
     .lesson = "One pass, 2n: a block takes the next tile from an atomic ticket, scans it, "
               "then waits for its left neighbour's inclusive prefix flag, adds it and "
               "publishes its own. The prefix crosses the tiles one after another: the wait "
               "is a serial chain of flag latencies.",
     .course = "Merrill and Garland 2016, section 3 (chained-scan, as in StreamScan)"},
    {.id = "lookback",
     .title = "decoupled look-back",
     .lesson = "Each block publishes its tile's aggregate at once (flag A), then one warp "
               "reads the 32 flags before it: aggregates are combined until an inclusive "
               "prefix (flag P) is found, then its own P is published. No block waits for "
               "the chain; the window moves back 32 tiles only when none is P.",
     .course = "Merrill and Garland 2016, section 4 (decoupled look-back)"},
    {.id = "vectorized",
     .title = "look-back, 16-byte accesses, 32 items a thread",
     .lesson = "The same single pass with 16-byte loads and stores (4 int or float, 2 "
               "double a lane per access), 8 accesses a thread in flight, in blocks of 128 "
               "threads, 8 of them an SM: 4096-element tiles (a quarter of the tiles and "
               "look-backs) and many small blocks, so that one block's look-back overlaps the "
               "others' loads; streaming (evict-first) accesses, since no byte is touched "
               "twice. Views not on 16 bytes take scalar accesses.",
     .course = "Merrill and Garland 2016, section 5 (items per thread, vectorised I/O)"},
    {.id = "bulk_pipeline",
     .title = "look-back, tiles staged by the bulk copy engine",
     .lesson = "A resident grid: in each block a loader warp takes tickets, has the copy "
               "engine (cp.async.bulk) load whole tiles into a ring of shared-memory buffers "
               "and publishes each tile's aggregate as soon as its bytes are in; the other "
               "warps scan the oldest buffer, look back, write the results over it and have "
               "the engine store them. Loads stay in flight while a block looks back, "
               "without registers to hold them, and no tile's aggregate waits for the scan "
               "of the tile before it in the same block.",
     .course = "past the course (Hopper's bulk copies: PTX ISA, cp.async.bulk; the look-back "
               "of Merrill and Garland 2016, section 4)"},
    {.id = "library",
     .title = "warplab_scan: the library call",
     .lesson = "What warplab_scan runs: the first of the operation's candidates "
               "(src/ops/scan.c) that takes the problem on this backend (bulk_pipeline on cuda), "
               "so its row matches that rung's and its note names it. `warplab bench api` "
               "times the public call itself, checks and all, beside the vendor.",
     .course = "the library (include/warplab.h)",
     .op = &wl_scan_op},
    {.id = "cub",
     .title = "cub::DeviceScan (vendor)",
     .lesson = "cub::DeviceScan::InclusiveSum/ExclusiveSum, and Inclusive/ExclusiveScan with "
               "warplab's min and max operators (NaN propagates), from the CUDA toolkit in "
               "the same run; temporary storage allocated once, untimed.",
     .course = "CUDA toolkit (CUB)",
     .flags = WL_RUNG_VENDOR},
    {.id = "copy",
     .title = "device-to-device copy (reference)",
     .lesson = "A copy of n elements in and n out: the bytes a single-pass scan must move, "
               "its speed of light.",
     .course = "Merrill and Garland 2016 (a scan at the speed of a copy)",
     .flags = WL_RUNG_REFERENCE,
     .verify = copy_verify},
};

/* Defaults: int32, inclusive sum. --op takes sum, min, max, each with
 * "exclusive-" (or "inclusive-") before it. */
static warplab_status scan_make_problem(const size_t size[3], int dims, const char *dtype,
                                        const char *op, wl_problem *problem, char *error,
                                        size_t error_len)
{
    warplab_status status = wl_make_problem_1d(size, dims, "scan", problem, error, error_len);
    if (status != WARPLAB_OK)
        return status;
    problem->dtype = WARPLAB_INT32;
    problem->op = WARPLAB_REDUCE_SUM;
    problem->variant = WARPLAB_SCAN_INCLUSIVE;
    if (dtype && *dtype && warplab_dtype_parse(dtype, &problem->dtype) != WARPLAB_OK) {
        wl_format(error, error_len, "unknown type '%s' (scan takes int32, float or double)", dtype);
        return WARPLAB_ERROR_UNKNOWN_NAME;
    }
    if (problem->dtype != WARPLAB_INT32 && problem->dtype != WARPLAB_FLOAT32 &&
        problem->dtype != WARPLAB_FLOAT64) {
        wl_format(error, error_len, "scan takes int32, float or double, not %s",
                  warplab_dtype_name(problem->dtype));
        return WARPLAB_ERROR_INVALID_ARGUMENT;
    }
    if (op && *op && wl_scan_op_lookup(op, &problem->op, &problem->variant) != WARPLAB_OK) {
        wl_format(error, error_len,
                  "unknown operation '%s' (scan takes sum, min or max, inclusive by default, "
                  "or exclusive-sum, exclusive-min, exclusive-max)",
                  op);
        return WARPLAB_ERROR_UNKNOWN_NAME;
    }
    return WARPLAB_OK;
}

/* "n=4194304 int32 inclusive sum", with " misaligned" and " NaN". */
static void scan_describe(const wl_problem *p, char *text, size_t len)
{
    wl_format(text, len, "n=%zu %s %s %s%s%s", p->dim[0], warplab_dtype_name(p->dtype),
              p->variant == WARPLAB_SCAN_EXCLUSIVE ? "exclusive" : "inclusive",
              warplab_reduce_op_name(p->op), p->misalign ? " misaligned" : "",
              p->nan_input ? " NaN" : "");
}

static int add_problem(wl_problem *problems, int count, int capacity, size_t n, warplab_dtype dtype,
                       warplab_reduce_op op, int kind, size_t misalign, int nan_input)
{
    if (count >= capacity)
        return count;
    wl_problem *p = &problems[count];
    memset(p, 0, sizeof *p);
    p->dim[0] = n;
    p->dims = 1;
    p->dtype = dtype;
    p->op = op;
    p->variant = kind;
    p->misalign = misalign;
    p->nan_input = nan_input;
    return count + 1;
}

/* Every type x operation x kind at: empty and tiny sizes; a warp and one
 * past; one past a 1024-element tile and a 4096-element one; a prime; 2^20
 * + 3 (several levels of the three-kernel scan, many look-back windows).
 * Sums also on misaligned views (the vector rung's scalar path), NaN planted
 * in float and double inputs, and on a GPU sizes of thousands of tiles. */
static int scan_test_problems(const warplab_device_info *device, wl_problem *problems, int capacity)
{
    static const size_t sizes[] = {0, 1, 2, 33, 1025, 4097, 65537, 1048579};
    static const size_t misaligned[] = {3, 4099, 262147};
    static const size_t with_nan[] = {33, 65537};
    static const size_t gpu_only[] = {(1u << 22) + 1, (1u << 24) + 7};
    int count = 0;
    for (int t = WARPLAB_INT32; t <= WARPLAB_FLOAT64; t++) {
        const warplab_dtype dtype = (warplab_dtype)t;
        for (int kind = WARPLAB_SCAN_INCLUSIVE; kind <= WARPLAB_SCAN_EXCLUSIVE; kind++) {
            for (int o = 0; o < WARPLAB_REDUCE_OP_COUNT; o++) {
                const warplab_reduce_op op = (warplab_reduce_op)o;
                for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
                    count = add_problem(problems, count, capacity, sizes[i], dtype, op, kind, 0, 0);
                for (size_t i = 0;
                     dtype != WARPLAB_INT32 && i < sizeof with_nan / sizeof with_nan[0]; i++)
                    count = add_problem(problems, count, capacity, with_nan[i], dtype, op, kind,
                                        i % 2, 1);
            }
            for (size_t i = 0; i < sizeof misaligned / sizeof misaligned[0]; i++)
                count = add_problem(problems, count, capacity, misaligned[i], dtype,
                                    WARPLAB_REDUCE_SUM, kind, 1, 0);
            for (size_t i = 0; device && device->gpu && i < sizeof gpu_only / sizeof gpu_only[0];
                 i++)
                count = add_problem(problems, count, capacity, gpu_only[i], dtype,
                                    WARPLAB_REDUCE_SUM, kind, i % 2, 0);
        }
    }
    return count;
}

const wl_ladder wl_scan_ladder = {
    .name = "scan",
    .title = "scan (prefix sum): inclusive and exclusive sum, min, max",
    .rungs = scan_rungs,
    .rung_count = sizeof scan_rungs / sizeof scan_rungs[0],
    .make_problem = scan_make_problem,
    .default_sizes_gpu = "2^22,2^26",
    .default_sizes_cpu = "2^16",
    .describe = scan_describe,
    .leading_size = wl_leading_size_1d,
    .buffers = scan_buffers,
    .verify = scan_verify,
    .bytes = scan_bytes,
    .flops = scan_flops,
    .best_rung = "bulk_pipeline",
    .test_problems = scan_test_problems,
};
