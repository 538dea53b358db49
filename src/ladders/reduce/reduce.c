/* The reduction ladder (seeds 001, 003, 004): one value from n, by sum, min
 * or max, over int32, float or double.
 *
 * The course climbs it three times: seed 003 from the naive multi-launch
 * scheme, seeds 001 and 004 from the interleaved tree in shared memory up to
 * complete unrolling and algorithm cascading; seed 004 goes on to warp
 * shuffles and atomics. warplab climbs every rung on cuda, mirrors rungs 0-7
 * and the atomic rungs on opencl, and ends past the course with a one-pass
 * kernel for Hopper, timed beside cub::DeviceReduce.
 *
 * What every rung computes (and what the verification holds it to):
 * - int32 sum wraps modulo 2^32, exactly (the reference sums in int64, then
 *   wraps);
 * - float and double sums are held to |got - exact| <= n * eps * sum|x|, the
 *   bound of any summation order in the element type (eps: FLT_EPSILON or
 *   DBL_EPSILON); the reference is a compensated (Neumaier) sum in double;
 * - min and max are exact, and a NaN anywhere gives NaN (sum too);
 * - n = 0 gives the identity: 0, +inf or INT32_MAX (min), -inf or INT32_MIN
 *   (max).
 * The inputs are chosen so that mistakes show: int32 sums use the whole int32
 * range (every level wraps); min draws positive values and max negative
 * ones, so padding with 0 instead of the identity changes the answer; float
 * and double sums draw from [1, 2], so a dropped or doubled element moves the
 * sum by at least 1 (larger than the bound for n up to about 2300 in float
 * and far beyond 2^20 in double; int32 covers the same index arithmetic
 * exactly at every size); and the harness's poison is a NaN as float, which
 * NaN-propagating min, max and sum turn into a wrong answer if read. */
#include "../../core/context.h"
#include "../ladder_util.h"
#include "ladders/device_reference.h"
#include "ladders/ladders.h"
#include "ops/ops.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { REDUCE_IN = 0, REDUCE_OUT };

static double reduce_bytes(const wl_problem *p)
{
    return (double)p->dim[0] * (double)warplab_dtype_size(p->dtype);
}

/* One operation per element for float types; integer adds are not flops. */
static double reduce_flops(const wl_problem *p)
{
    return p->dtype == WARPLAB_INT32 ? 0.0 : (double)p->dim[0];
}

static int reduce_buffers(const wl_problem *p, wl_buffer_spec *spec)
{
    double lo = 1.0, hi = 2.0;
    if (p->dtype == WARPLAB_INT32) {
        lo = p->op == WARPLAB_REDUCE_MAX   ? (double)INT32_MIN
             : p->op == WARPLAB_REDUCE_MIN ? 1.0
                                           : (double)INT32_MIN;
        hi = p->op == WARPLAB_REDUCE_MAX ? -1.0 : (double)INT32_MAX;
    } else if (p->op == WARPLAB_REDUCE_MAX) {
        lo = -2.0;
        hi = -1.0;
    }
    spec[REDUCE_IN] = (wl_buffer_spec){WL_IN, p->dtype, p->dim[0], lo, hi};
    spec[REDUCE_OUT] = (wl_buffer_spec){WL_OUT, p->dtype, 1, 0.0, 0.0};
    return 2;
}

/* The reference over a chunk of the input, on every core: exact int32 sums
 * and extremes, compensated double sums with their magnitude, NaNs seen. */
#define REFERENCE_CHUNK ((size_t)1 << 20)

typedef struct reference_part {
    int64_t int_sum;
    int32_t int_best;
    double sum, compensation, magnitude, best;
} reference_part;

typedef struct reference_job {
    const wl_problem *p;
    const void *input;
    reference_part *parts; /* one per task, or one for all (single) */
    bool single;
} reference_job;

static void compensated_add(double *sum, double *compensation, double x)
{
    double t = *sum + x;
    *compensation += fabs(*sum) >= fabs(x) ? (*sum - t) + x : (x - t) + *sum;
    *sum = t;
}

static void reference_chunk(size_t task, void *user)
{
    const reference_job *job = user;
    const wl_problem *p = job->p;
    reference_part *part = job->single ? job->parts : &job->parts[task];
    memset(part, 0, sizeof *part);
    const size_t begin = task * REFERENCE_CHUNK, n = p->dim[0];
    const size_t end = n - begin < REFERENCE_CHUNK ? n : begin + REFERENCE_CHUNK;
    if (p->dtype == WARPLAB_INT32) {
        const int32_t *x = job->input;
        part->int_best = p->op == WARPLAB_REDUCE_MIN ? INT32_MAX : INT32_MIN;
        for (size_t i = begin; i < end; i++) {
            part->int_sum += x[i];
            if (p->op == WARPLAB_REDUCE_MIN ? x[i] < part->int_best : x[i] > part->int_best)
                part->int_best = x[i];
        }
        return;
    }
    part->best = p->op == WARPLAB_REDUCE_MIN ? INFINITY : -INFINITY;
    for (size_t i = begin; i < end; i++) {
        double x = wl_element(job->input, p->dtype, i);
        if (p->op == WARPLAB_REDUCE_SUM) {
            compensated_add(&part->sum, &part->compensation, x);
            part->magnitude += fabs(x);
        } else if (isnan(x) || isnan(part->best)) {
            part->best = NAN;
        } else if (p->op == WARPLAB_REDUCE_MIN ? x < part->best : x > part->best) {
            part->best = x;
        }
    }
}

/* The reference: the exact answer (int32), or a compensated double sum and
 * the bound n * eps * sum|x| (float, double); a NaN anywhere gives NaN for
 * min and max. */
static void reduce_reference(const wl_problem *p, const void *input, double *expected,
                             double *bound)
{
    const size_t n = p->dim[0], tasks = (n + REFERENCE_CHUNK - 1) / REFERENCE_CHUNK;
    reference_part one;
    reference_job job = {p, input, tasks > 1 ? calloc(tasks, sizeof(reference_part)) : NULL, false};
    if (job.parts)
        wl_parallel_for(wl_cpu_threads(), tasks, reference_chunk, &job);
    *bound = 0.0;
    int64_t int_sum = 0;
    int32_t int_best = p->op == WARPLAB_REDUCE_MIN ? INT32_MAX : INT32_MIN;
    double sum = 0.0, compensation = 0.0, magnitude = 0.0;
    double best = p->op == WARPLAB_REDUCE_MIN ? INFINITY : -INFINITY;
    for (size_t t = 0; t < tasks; t++) {
        const reference_part *part = job.parts ? &job.parts[t] : &one;
        if (!job.parts) { /* one task, or no memory for the parts: here, one at a time */
            reference_job single = {p, input, &one, true};
            reference_chunk(t, &single);
        }
        int_sum += part->int_sum;
        if (p->op == WARPLAB_REDUCE_MIN ? part->int_best < int_best : part->int_best > int_best)
            int_best = part->int_best;
        compensated_add(&sum, &compensation, part->sum);
        compensation += part->compensation;
        magnitude += part->magnitude;
        if (isnan(part->best) || isnan(best))
            best = NAN;
        else if (p->op == WARPLAB_REDUCE_MIN ? part->best < best : part->best > best)
            best = part->best;
    }
    free(job.parts);
    if (p->dtype == WARPLAB_INT32)
        *expected = p->op == WARPLAB_REDUCE_SUM ? (double)(int32_t)(uint32_t)(uint64_t)int_sum
                                                : (double)int_best;
    else if (p->op == WARPLAB_REDUCE_SUM) {
        double eps = p->dtype == WARPLAB_FLOAT32 ? FLT_EPSILON : DBL_EPSILON;
        *expected = sum + compensation;
        *bound = (double)n * eps * magnitude;
    } else {
        *expected = best;
    }
}

static warplab_status reduce_verify(const wl_problem *p, const void *const *host, wl_check *check)
{
    double expected = 0.0, bound = 0.0;
    reduce_reference(p, host[REDUCE_IN], &expected, &bound);
    wl_check_value(check, 0, wl_element(host[REDUCE_OUT], p->dtype, 0), expected, bound);
    return check->bad ? WARPLAB_ERROR_VERIFICATION_FAILED : WARPLAB_OK;
}

/* cub::DeviceReduce::Min/Max combine with (a < b) ? a : b, so a NaN is kept or
 * dropped by its position in CUB's tree, and no items give
 * numeric_limits<T>::max() (FLT_MAX, not +inf): warplab does not compare
 * those two cases on the vendor row, and says why. */
static warplab_status cub_supports(const wl_problem *p, const warplab_device_info *device,
                                   char *reason, size_t len)
{
    (void)device;
    if (p->op == WARPLAB_REDUCE_SUM || p->dtype == WARPLAB_INT32)
        return WARPLAB_OK;
    if (p->nan_input) {
        wl_format(reason, len,
                  "cub::DeviceReduce::%s does not define NaN: (a < b) ? a : b keeps or drops "
                  "it by position",
                  p->op == WARPLAB_REDUCE_MIN ? "Min" : "Max");
        return WARPLAB_ERROR_UNSUPPORTED;
    }
    if (p->dim[0] == 0) {
        wl_format(reason, len,
                  "cub::DeviceReduce::%s of no items gives %snumeric_limits max, warplab "
                  "defines %sinf",
                  p->op == WARPLAB_REDUCE_MIN ? "Min" : "Max",
                  p->op == WARPLAB_REDUCE_MIN ? "" : "-", p->op == WARPLAB_REDUCE_MIN ? "+" : "-");
        return WARPLAB_ERROR_UNSUPPORTED;
    }
    return WARPLAB_OK;
}

/* The lesson of each <rung>_128 row: seed 004 ran attempts #1-#7 in
 * 128-thread blocks; seed 001 (and warplab's ladder) in 512. */
#define LESSON_128                                                                                 \
    "The rung above as seed 004 ran it: the same kernel in 128-thread blocks (\"Blocksize: 128 "   \
    "threads\"), where seed 001 and warplab's ladder use 512 (256 work-items on opencl). A "       \
    "128-thread block runs 7 tree steps to 512's 9 but writes four times as many partials for "    \
    "the next level. Off the ladder: which block wins on this GPU is the reduce conclusion "       \
    "under the tables, from the two rows."

/* The course's figures, in GB/s at 2^22 = 4M ints: seed 001's K40 table (512-
 * thread blocks) on each rung, seed 004's table ("results are on an older
 * GPU", 128-thread blocks) on its <rung>_128 row. Seed
 * 003's GTX 280 figures are quoted in each rung's seed reference; the
 * cascade rung, which seed 001 does not time, shows the GTX 280's. Seed 001's
 * "Loop Unroll" row repeats the row above it (0.1915 ms, 81.59 GB/s) while
 * its step speedup says 1.35x: quoted as printed. */
static const wl_rung reduce_rungs[] = {
    {.id = "cpu_loop",
     .title = "CPU loop, one core",
     .lesson = "The course's host loop (int x = 0; for (...) x += v[i]): one core, each "
               "iteration waiting for the one before. The baseline of 'GPU vs CPU'.",
     .course = "seed 003, 'Součet prvků vektoru' and 'GPU vs. CPU'",
     .flags = WL_RUNG_HOST},
    {.id = "cpu_threads",
     .title = "CPU loop, all cores",
     .lesson = "The same loop on every core, one partial per chunk, the partials combined at "
               "the end: bound by the host's memory bandwidth rather than by one core's adds.",
     .course = "seed 003, 'GPU vs. CPU'",
     .flags = WL_RUNG_HOST},
    {.id = "naive",
     .title = "naive: one launch per level",
     .lesson = "v[i] += v[i+stride] for i a multiple of 2*stride, stride 1, 2, 4...: one "
               "launch per level, 3 memory accesses per add, strided at the upper levels. "
               "Level 1 reads the input and writes scratch, later levels work in place in "
               "scratch: the input stays untouched.",
     .course = "seed 003, 'Naivní přístup'"},
    {.id = "interleaved",
     .title = "interleaved, divergent tid % (2s)",
     .lesson = "A 512-thread block loads its elements into shared memory and halves them "
               "with barriers, one write per block, one launch per level. if (tid % (2*s) == "
               "0) scatters the active threads over every warp: all warps diverge. Threads "
               "past n load the identity.",
     .course = "seed 001, 'Interleaved Addressing'; seed 004, attempt #1; seed 003, "
               "'Implementace' (GTX 280: 3.77 GB/s)",
     .course_value = 15.72,
     .course_unit = "GiB/s",
     .course_device = "K40"},
    {.id = "interleaved_128",
     .title = "interleaved, 128-thread blocks (seed 004's)",
     .lesson = LESSON_128,
     .course = "seed 004, attempt #1 (128-thread blocks)",
     .course_value = 2.083,
     .course_unit = "GB/s",
     .course_device = "seed 004 GPU",
     .flags = WL_RUNG_OFF_LADDER},
    {.id = "strided_index",
     .title = "interleaved, strided index",
     .lesson = "index = 2*s*tid: the active threads are the first ones, so whole warps "
               "retire together and the branch no longer diverges; but a warp's addresses "
               "2*s*tid fall into few shared-memory banks (bank conflicts).",
     .course = "seed 001, 'Interleaved Addressing without divergence'; seed 004, attempt #2; "
               "seed 003 (GTX 280: 8.33 GB/s)",
     .course_value = 25.14,
     .course_unit = "GiB/s",
     .course_device = "K40"},
    {.id = "strided_index_128",
     .title = "strided_index, 128-thread blocks (seed 004's)",
     .lesson = LESSON_128,
     .course = "seed 004, attempt #2 (128-thread blocks)",
     .course_value = 4.854,
     .course_unit = "GB/s",
     .course_device = "seed 004 GPU",
     .flags = WL_RUNG_OFF_LADDER},
    {.id = "sequential",
     .title = "sequential addressing",
     .lesson = "Reversed loop, s from blockDim/2 down, sdata[tid] += sdata[tid + s]: "
               "consecutive threads touch consecutive words, so no bank conflicts and no "
               "divergence until s < 32. Half the threads idle from the first step.",
     .course = "seed 001, 'Sequential Addressing'; seed 004, attempt #3; seed 003 (GTX 280: "
               "16.34 GB/s)",
     .course_value = 60.38,
     .course_unit = "GiB/s",
     .course_device = "K40"},
    {.id = "sequential_128",
     .title = "sequential, 128-thread blocks (seed 004's)",
     .lesson = LESSON_128,
     .course = "seed 004, attempt #3 (128-thread blocks)",
     .course_value = 9.741,
     .course_unit = "GB/s",
     .course_device = "seed 004 GPU",
     .flags = WL_RUNG_OFF_LADDER},
    {.id = "first_add",
     .title = "first add during load",
     .lesson = "Each thread loads two elements, i and i + blockDim, and adds them before the "
               "tree: half the blocks, and no thread idles in the first step.",
     .course = "seed 001, 'First Add During Load'; seed 004, attempt #4; seed 003 (GTX 280: "
               "27.16 GB/s)",
     .course_value = 81.59,
     .course_unit = "GiB/s",
     .course_device = "K40"},
    {.id = "first_add_128",
     .title = "first_add, 128-thread blocks (seed 004's)",
     .lesson = LESSON_128,
     .course = "seed 004, attempt #4 (128-thread blocks)",
     .course_value = 17.377,
     .course_unit = "GB/s",
     .course_device = "seed 004 GPU",
     .flags = WL_RUNG_OFF_LADDER},
    {.id = "warp_volatile",
     .title = "unrolled last warp, volatile (race)",
     .lesson = "For s <= 32 the course drops the barriers and relies on the warp's lockstep "
               "through a volatile pointer. Since Volta a warp's threads are scheduled "
               "independently: a data race (racecheck reports it). Shown, never picked.",
     .course = "seed 001, 'Loop unroll'; seed 004, attempt #5; seed 003, 'Implementace 5' "
               "(GTX 280: 37.68 GB/s)",
     .course_value = 81.59,
     .course_unit = "GiB/s",
     .course_device = "K40",
     .flags = WL_RUNG_UNSAFE | WL_RUNG_MAY_BE_WRONG},
    {.id = "warp_volatile_128",
     .title = "warp_volatile, 128-thread blocks (seed 004's)",
     .lesson = LESSON_128,
     .course = "seed 004, attempt #5 (128-thread blocks)",
     .course_value = 31.289,
     .course_unit = "GB/s",
     .course_device = "seed 004 GPU",
     .flags = WL_RUNG_UNSAFE | WL_RUNG_MAY_BE_WRONG | WL_RUNG_OFF_LADDER},
    {.id = "warp_syncwarp",
     .title = "unrolled last warp, __syncwarp",
     .lesson = "The same unrolled last warp made correct: each step reads, __syncwarp(), "
               "writes, __syncwarp(), so no lane reads a word another lane is rewriting. Two "
               "warp barriers per step; still no block barrier and no loop.",
     .course = "past the course: the fix of seed 001's warpReduce for Volta and later"},
    {.id = "complete_unroll",
     .title = "complete unroll (template)",
     .lesson = "The block size is a template parameter and a switch picks the instance (512 "
               "down to 1; smaller blocks for small n): every if (blockSize >= ...) is decided "
               "at compile time, so the tree is straight-line code.",
     .course = "seed 001, 'Complete Unroll / Static Unroll'; seed 004, attempt #6; seed 003, "
               "'Implementace 6' (GTX 280: 50.64 GB/s)",
     .course_value = 89.15,
     .course_unit = "GiB/s",
     .course_device = "K40"},
    {.id = "complete_unroll_128",
     .title = "complete_unroll, 128-thread blocks (seed 004's)",
     .lesson = LESSON_128,
     .course = "seed 004, attempt #6 (128-thread blocks)",
     .course_value = 43.996,
     .course_unit = "GB/s",
     .course_device = "seed 004 GPU",
     .flags = WL_RUNG_OFF_LADDER},
    {.id = "brent",
     .title = "log2 n elements per thread (Brent)",
     .lesson = "Brent's theorem as the course argues it: n / log2 n threads, each first "
               "combining log2 n elements in a grid-stride loop (two per trip, coalesced), then "
               "the unrolled tree: O(n / log n) threads do O(n) work in O(log n) steps. The grid "
               "still grows with n (18,725 blocks of 512 at 2^28), so a second level of "
               "thousands of partials follows.",
     .course = "seed 004, attempt #7 ('Brent's theorem'); seed 003, 'Implementace 7'"},
    {.id = "brent_128",
     .title = "brent, 128-thread blocks (seed 004's)",
     .lesson = LESSON_128,
     .course = "seed 004, attempt #7 (128-thread blocks)",
     .flags = WL_RUNG_OFF_LADDER},
    {.id = "cascade",
     .title = "many elements per thread (cascading)",
     .lesson = "Today's form of Brent's step: a grid that just fills the GPU (every SM's "
               "resident blocks), each thread summing n / (that many threads) elements, about "
               "1000 at 2^28, in the same grid-stride loop, then the unrolled tree; the next "
               "level is one block.",
     .course = "seed 004, attempt #7 (73 GB/s at 32M); seed 003, 'Implementace 7'",
     .course_value = 77.21,
     .course_unit = "GB/s",
     .course_device = "GTX 280",
     .course_value2 = 62.671,
     .course_device2 = "seed 004 GPU"},
    {.id = "shuffle",
     .title = "warp shuffles, two kernels",
     .lesson = "__shfl_down_sync reduces a warp in registers (no shared memory, no barrier); "
               "a block reduce combines the warps' results through 32 words of shared "
               "memory; a second kernel <<<1, 1024>>> reduces the (at most 1024) partials.",
     .course = "seed 004, 'Shuffle warp reduce', 'Block reduce', 'Reduce across blocks'"},
    {.id = "atomic_warp",
     .title = "shuffles, one atomic per warp",
     .lesson = "The same grid-stride sum and warp reduce, then lane 0 of every warp adds "
               "into the result atomically: one kernel (after the result's initialisation), "
               "but every warp's atomic on one address. Float min/max: compare-and-swap.",
     .course = "seed 004, 'Use atomics to optimize reductions'"},
    {.id = "atomic_block",
     .title = "shuffles, one atomic per block",
     .lesson = "A block reduce first, then one atomic per block: 16 times fewer atomics on "
               "the one address than one per warp.",
     .course = "seed 004, 'Use atomics to optimize reductions' (block variant)"},
    {.id = "single_pass",
     .title = "one pass, 16-byte loads (Hopper)",
     .lesson = "16-byte loads after a scalar head to alignment, 4 in flight per thread, a grid "
               "of every SM's resident blocks, one launch: each block writes a partial and "
               "the last block to finish (atomic ticket after __threadfence) reduces them.",
     .course = "past the course (Hopper: 16-byte accesses, loads in flight, one launch)"},
    {.id = "library",
     .title = "warplab_reduce: the library call",
     .lesson = "What warplab_reduce runs: the first of the operation's candidates "
               "(src/ops/reduce.c) that takes the problem on this backend (single_pass on cuda), "
               "so its row matches that rung's and its note names it. `warplab bench api` "
               "times the public call itself, checks and all, beside the vendor.",
     .course = "the library (include/warplab.h)",
     .op = &wl_reduce_op},
    {.id = "cub",
     .title = "cub::DeviceReduce (vendor)",
     .lesson = "cub::DeviceReduce::Sum/Min/Max from the CUDA toolkit in the same run, "
               "temporary storage allocated once, untimed. Min/Max with a NaN, and of no "
               "items, differ from warplab's definition: not compared.",
     .course = "CUDA toolkit (CUB)",
     .flags = WL_RUNG_VENDOR,
     .supports = cub_supports},
};

/* Defaults: int32 and sum, the course's. */
static warplab_status reduce_make_problem(const size_t size[3], int dims, const char *dtype,
                                          const char *op, wl_problem *problem, char *error,
                                          size_t error_len)
{
    warplab_status status = wl_make_problem_1d(size, dims, "reduce", problem, error, error_len);
    if (status != WARPLAB_OK)
        return status;
    problem->dtype = WARPLAB_INT32;
    problem->op = WARPLAB_REDUCE_SUM;
    if (dtype && *dtype && warplab_dtype_parse(dtype, &problem->dtype) != WARPLAB_OK) {
        wl_format(error, error_len, "unknown type '%s' (reduce takes int32, float or double)",
                  dtype);
        return WARPLAB_ERROR_UNKNOWN_NAME;
    }
    if (problem->dtype != WARPLAB_INT32 && problem->dtype != WARPLAB_FLOAT32 &&
        problem->dtype != WARPLAB_FLOAT64) {
        wl_format(error, error_len, "reduce takes int32, float or double, not %s",
                  warplab_dtype_name(problem->dtype));
        return WARPLAB_ERROR_INVALID_ARGUMENT;
    }
    if (op && *op && wl_reduce_op_lookup(op, &problem->op) != WARPLAB_OK) {
        wl_format(error, error_len, "unknown operation '%s' (reduce takes sum, min or max)", op);
        return WARPLAB_ERROR_UNKNOWN_NAME;
    }
    return WARPLAB_OK;
}

/* "n=4194304 int32 sum", with " misaligned" and " NaN" where they apply. */
static void reduce_describe(const wl_problem *p, char *text, size_t len)
{
    wl_format(text, len, "n=%zu %s %s%s%s", p->dim[0], warplab_dtype_name(p->dtype),
              warplab_reduce_op_name((warplab_reduce_op)p->op), p->misalign ? " misaligned" : "",
              p->nan_input ? " NaN" : "");
}

static int add_problem(wl_problem *problems, int count, int capacity, size_t n, warplab_dtype dtype,
                       warplab_reduce_op op, size_t misalign, int nan_input)
{
    if (count >= capacity)
        return count;
    wl_problem *p = &problems[count];
    memset(p, 0, sizeof *p);
    p->dim[0] = n;
    p->dims = 1;
    p->dtype = dtype;
    p->op = op;
    p->misalign = misalign;
    p->nan_input = nan_input;
    return count + 1;
}

/* Every type x operation at: the empty and tiny sizes; around a warp (31,
 * 32, 33); not a multiple of a block (1000, 1025); a prime (65537); one past
 * a level of the 512-element trees (2^18 + 1); 2^20 +- 1 and 2^20 + 3;
 * misaligned views (not 16-byte aligned: the vector rungs peel a head); a NaN
 * planted in float and double inputs. A GPU also gets sizes past the one-pass
 * kernel's first trip over its grid (several million elements). */
static int reduce_test_problems(const warplab_device_info *device, wl_problem *problems,
                                int capacity)
{
    static const size_t sizes[] = {0,    1,    2,     3,      31,      32,      33,
                                   1000, 1025, 65537, 262145, 1048575, 1048577, 1048579};
    static const size_t misaligned[] = {1, 2, 3, 33, 1000, 65537, 1048579};
    static const size_t with_nan[] = {1, 33, 65537, 1048579};
    static const size_t gpu_only[] = {(1u << 22) + 1, (1u << 24) + 7, 3 * (1u << 22) + 5};
    int count = 0;
    /* The types reduce takes (the 16-bit types are warplab_gemm_ex's alone). */
    for (int t = WARPLAB_INT32; t <= WARPLAB_FLOAT64; t++) {
        for (int o = 0; o < WARPLAB_REDUCE_OP_COUNT; o++) {
            warplab_dtype dtype = (warplab_dtype)t;
            warplab_reduce_op op = (warplab_reduce_op)o;
            for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
                count = add_problem(problems, count, capacity, sizes[i], dtype, op, 0, 0);
            for (size_t i = 0; i < sizeof misaligned / sizeof misaligned[0]; i++)
                count = add_problem(problems, count, capacity, misaligned[i], dtype, op, 1, 0);
            for (size_t i = 0; dtype != WARPLAB_INT32 && i < sizeof with_nan / sizeof with_nan[0];
                 i++)
                count = add_problem(problems, count, capacity, with_nan[i], dtype, op, i % 2, 1);
            for (size_t i = 0; device && device->gpu && i < sizeof gpu_only / sizeof gpu_only[0];
                 i++)
                count = add_problem(problems, count, capacity, gpu_only[i], dtype, op, i % 2, 0);
        }
    }
    return count;
}

const wl_ladder wl_reduce_ladder = {
    .name = "reduce",
    .title = "reduction: sum, min, max (seeds 001, 003, 004)",
    .rungs = reduce_rungs,
    .rung_count = sizeof reduce_rungs / sizeof reduce_rungs[0],
    .make_problem = reduce_make_problem,
    .default_sizes_gpu = "2^22,2^28",
    .default_sizes_cpu = "2^20",
    .describe = reduce_describe,
    .leading_size = wl_leading_size_1d,
    .buffers = reduce_buffers,
    .verify = reduce_verify,
    .bytes = reduce_bytes,
    .flops = reduce_flops,
    .best_rung = "single_pass",
    .test_problems = reduce_test_problems,
    .device_reference = wl_reduce_device_reference,
};

/* The device reference (device_reference.h): the same sums, minima and maxima as
 * reduce_reference, and the same bound. */
void wl_reduce_device_reference(const wl_rung *rung, const wl_problem *problem,
                                wl_reference_request *request)
{
    (void)problem;
    if (!rung->verify)
        request->kind = WL_REFERENCE_REDUCE;
}
