/* The histogram ladder (past the course: the atomics lesson of seeds 002 and
 * 004 put to work, PMPP's histogram chapter): counts of n samples in bins
 * equal-width bins over [lower, upper), as cub::DeviceHistogram::HistogramEven
 * defines them (src/kernels/histogram_bins.h).
 *
 * Samples: 8-bit unsigned (256 bins over [0, 256) by default), int32 or float
 * (1024 bins by default). Two data distributions, the problem's second axis
 * (`--op uniform` or `--op skewed`): uniform samples spread over a little more
 * than the range (so some fall outside and are not counted), and skewed
 * samples all the same value, every increment landing on one bin: the
 * contention lesson of the atomics probe (src/lab/probes/probe_atomics.c),
 * where one address taking every atomic is the slowest case.
 *
 * The counts are uint32, and one call counts at most 2^32 - 1 samples, so no
 * count can wrap. Every rung's counts are compared exactly with the CPU
 * reference (uint64 counts of the same bin rule); the poisoned output must
 * be written in every bin. A NaN planted in float inputs must not be
 * counted. */
#include "../../core/context.h"
#include "../ladder_util.h"
#include "kernels/histogram_bins.h"
#include "ladders/ladders.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum { HISTOGRAM_IN = 0, HISTOGRAM_OUT };

static const char *const sample_names[] = {"uint8", "int32", "float"};

/* The bytes a histogram must read (the samples) and write (the counts). */
static double histogram_bytes(const wl_problem *p)
{
    const double sample = p->variant == WL_HISTOGRAM_UINT8 ? 1.0 : 4.0;
    return (double)p->dim[0] * sample + (double)p->dim[1] * 4.0;
}

/* The input as the harness fills it: 8-bit samples are packed four to an
 * int32 word (random words are random bytes; skewed words repeat one byte). */
static int histogram_buffers(const wl_problem *p, wl_buffer_spec *spec)
{
    const size_t n = p->dim[0];
    const bool skewed = p->param == WL_HISTOGRAM_SKEWED;
    const double lower = p->alpha, upper = p->beta, range = upper - lower;
    if (p->variant == WL_HISTOGRAM_UINT8) {
        /* The byte 0x5A (90) lies in every 8-bit range the tests use. */
        const double word = skewed ? (double)0x5A5A5A5A : (double)INT32_MIN;
        spec[HISTOGRAM_IN] = (wl_buffer_spec){WL_IN, WARPLAB_INT32, (n + 3) / 4, word,
                                              skewed ? word : (double)INT32_MAX};
    } else if (p->variant == WL_HISTOGRAM_INT32) {
        double lo = floor(lower - range / 8.0) - 1.0, hi = ceil(upper + range / 8.0);
        lo = lo < (double)INT32_MIN ? (double)INT32_MIN : lo;
        hi = hi > (double)INT32_MAX ? (double)INT32_MAX : hi;
        if (skewed)
            lo = hi = floor(lower + range / 3.0);
        spec[HISTOGRAM_IN] = (wl_buffer_spec){WL_IN, WARPLAB_INT32, n, lo, hi};
    } else {
        double lo = lower - range / 8.0, hi = upper + range / 8.0;
        if (skewed)
            lo = hi = lower + range / 3.0;
        spec[HISTOGRAM_IN] = (wl_buffer_spec){WL_IN, WARPLAB_FLOAT32, n, lo, hi};
    }
    spec[HISTOGRAM_OUT] = (wl_buffer_spec){WL_OUT, WARPLAB_INT32, p->dim[1], 0.0, 0.0};
    return 2;
}

/* The reference: uint64 counts of the bin rule, chunks of the input on every
 * core, each into counts of its own (one set for all when that would take
 * too much memory). */
#define REFERENCE_CHUNK ((size_t)1 << 20)

typedef struct reference_job {
    const wl_problem *p;
    wl_histogram_rule rule;
    const void *input;
    uint64_t *counts; /* bins per task, or bins for all (single) */
    bool single;
} reference_job;

static void reference_chunk(size_t task, void *user)
{
    const reference_job *job = user;
    const size_t n = job->p->dim[0], bins = job->p->dim[1], begin = task * REFERENCE_CHUNK;
    const size_t end = n - begin < REFERENCE_CHUNK ? n : begin + REFERENCE_CHUNK;
    uint64_t *counts = job->single ? job->counts : job->counts + task * bins;
    for (size_t i = begin; i < end; i++) {
        int bin;
        if (job->p->variant == WL_HISTOGRAM_UINT8)
            bin = wl_histogram_bin_int(((const uint8_t *)job->input)[i], &job->rule);
        else if (job->p->variant == WL_HISTOGRAM_INT32)
            bin = wl_histogram_bin_int(((const int32_t *)job->input)[i], &job->rule);
        else
            bin = wl_histogram_bin_float(((const float *)job->input)[i], &job->rule);
        if (bin >= 0)
            counts[bin]++;
    }
}

/* Fills counts (bins of them) with the reference's; false when out of
 * memory. */
static bool histogram_reference(const wl_problem *p, const void *input, uint64_t *counts)
{
    const size_t n = p->dim[0], bins = p->dim[1];
    const size_t tasks = (n + REFERENCE_CHUNK - 1) / REFERENCE_CHUNK;
    reference_job job = {p, wl_histogram_rule_of(p), input, NULL, false};
    size_t parts = 0;
    if (tasks > 1 && wl_size_mul(tasks, bins, &parts) && parts <= ((size_t)1 << 26))
        job.counts = calloc(parts, sizeof(uint64_t));
    memset(counts, 0, bins * sizeof *counts);
    if (job.counts) {
        wl_parallel_for(wl_cpu_threads(), tasks, reference_chunk, &job);
        for (size_t t = 0; t < tasks; t++)
            for (size_t b = 0; b < bins; b++)
                counts[b] += job.counts[t * bins + b];
        free(job.counts);
        return true;
    }
    reference_job single = {p, job.rule, input, counts, true};
    for (size_t t = 0; t < tasks; t++)
        reference_chunk(t, &single);
    return true;
}

static warplab_status histogram_verify(const wl_problem *p, const void *const *host,
                                       wl_check *check)
{
    const size_t bins = p->dim[1];
    uint64_t *expected = malloc(bins * sizeof *expected);
    if (!expected)
        return WARPLAB_ERROR_HOST_OUT_OF_MEMORY;
    histogram_reference(p, host[HISTOGRAM_IN], expected);
    const uint32_t *got = host[HISTOGRAM_OUT];
    for (size_t b = 0; b < bins; b++)
        wl_check_value(check, b, (double)got[b], (double)expected[b], 0.0);
    free(expected);
    return check->bad ? WARPLAB_ERROR_VERIFICATION_FAILED : WARPLAB_OK;
}

/* CUB takes (x - lower) in the levels' type: an int32 range of 2^31 or more
 * overflows it, and CUB counts such samples in the wrong bins. */
static warplab_status cub_supports(const wl_problem *p, const warplab_device_info *device,
                                   char *reason, size_t len)
{
    (void)device;
    if (p->variant != WL_HISTOGRAM_FLOAT32 && p->beta - p->alpha > (double)INT32_MAX) {
        wl_format(reason, len,
                  "cub::DeviceHistogram::HistogramEven computes x - lower in int32: a range of "
                  "2^31 or more overflows it");
        return WARPLAB_ERROR_UNSUPPORTED;
    }
    if (p->variant == WL_HISTOGRAM_FLOAT32) {
        /* The largest bin CUB computes: the one of the last float below upper. */
        const wl_histogram_rule rule = wl_histogram_rule_of(p);
        const float last = nextafterf(rule.upper_float, -INFINITY);
        if ((int)((last - rule.lower_float) * rule.scale_float) >= (int)rule.bins) {
            wl_format(reason, len,
                      "cub::DeviceHistogram::HistogramEven would count a sample just below "
                      "upper past its last bin in this range (warplab counts it in the last)");
            return WARPLAB_ERROR_UNSUPPORTED;
        }
    }
    if (p->dim[0] == 0) {
        wl_format(reason, len, "no samples: nothing of CUB's to time");
        return WARPLAB_ERROR_UNSUPPORTED;
    }
    if (p->dim[0] > (size_t)INT32_MAX) {
        wl_format(reason, len, "the vendor row is timed with an int sample count");
        return WARPLAB_ERROR_UNSUPPORTED;
    }
    return WARPLAB_OK;
}

static const wl_rung histogram_rungs[] = {
    {.id = "cpu_loop",
     .title = "CPU loop, one core",
     .lesson = "for each sample: if lower <= x < upper, counts[bin(x)]++ -- one core, one "
               "increment at a time. The reference the GPU rungs are checked against, and "
               "the baseline of 'GPU vs CPU'.",
     .course = "past the course: PMPP ch. 9 (sequential histogram)",
     .flags = WL_RUNG_HOST},
    {.id = "global_atomics",
     .title = "one global atomic per sample",
     .lesson = "One thread per sample (a grid-stride loop), atomicAdd(&counts[bin], 1) in "
               "global memory: correct in parallel, but every increment is a read-modify-"
               "write at the L2, and on skewed data every thread's atomic queues on one "
               "address -- the atomics probe's worst case.",
     .course = "seeds 002 and 004 (atomics); PMPP ch. 9.3 (atomic operations)"},
    {.id = "block_shared",
     .title = "a sub-histogram per block in shared memory",
     .lesson = "Privatisation: each block counts into its own copy of the histogram in "
               "shared memory (shared-memory atomics, a few cycles instead of an L2 round "
               "trip), then adds its non-zero bins to the global counts: one global atomic "
               "per bin per block instead of per sample. 8-bit samples count their 256 "
               "values and map them to bins at the merge, as CUB does.",
     .course = "past the course: PMPP ch. 9.4 (privatization)"},
    {.id = "warp_shared",
     .title = "a sub-histogram per warp",
     .lesson = "One copy per warp instead of per block: the warps of a block no longer "
               "contend for the same shared-memory words, so only the 32 lanes of one warp "
               "can collide on a bin. Eight times the shared memory; for bin counts whose "
               "eight copies do not fit in 48 KB the rung refuses. On an H200 it is about 10% "
               "slower than one copy per block (scalar loads): there the per-warp copy pays off "
               "only with 16-byte loads.",
     .course = "past the course: PMPP ch. 9.4 (privatization, finer copies)"},
    {.id = "vector_loads",
     .title = "16-byte loads",
     .lesson = "Each lane loads 16 bytes at a time (16 8-bit samples or 4 words) after a "
               "scalar head to alignment: a quarter (or a sixteenth) of the load "
               "instructions, more bytes in flight per thread, the same per-warp counting.",
     .course = "past the course: CUDA C++ Best Practices Guide, 'Coalesced Access to Global "
               "Memory' (vector loads)"},
    {.id = "run_aggregate",
     .title = "run aggregation (warp match)",
     .lesson = "Before counting, __match_any_sync finds the lanes of the warp holding the same "
               "bin; the lowest of them adds the run's length (popc of the mask) in one "
               "atomic. On older GPUs that saves 32 colliding atomics on skewed data; on an "
               "H200 the shared-memory atomics of a warp on one word are already merged, and the "
               "match costs far more than it saves (15x slower than vector_loads on uniform "
               "8-bit data, 2x on skewed): the lesson is to measure.",
     .course = "past the course: CUDA C++ Programming Guide, 'Warp Match Functions'; PMPP "
               "ch. 9.6 (aggregation)"},
    {.id = "dispatch",
     .title = "the library's pick: copies by bin count",
     .lesson = "What warplab_histogram runs. 8-bit samples: vector_loads' kernel plus one test "
               "per 16-byte vector -- when a lane's 16 bytes are one value (skewed data, long "
               "runs) it adds 16 in one atomic instead of 16 atomics; on uniform data the "
               "branch is never taken. int32 and float: 16-byte loads and plain shared atomics "
               "into one copy per warp up to 1024 bins, one per block above (eight copies no "
               "longer fit). On an H200 the match and the vote cost more than the same-bin "
               "atomics they save.",
     .course = "past the course (Hopper)"},
    {.id = "cub",
     .title = "cub::DeviceHistogram::HistogramEven (vendor)",
     .lesson = "cub::DeviceHistogram::HistogramEven from the CUDA toolkit in the same run "
               "(bins + 1 levels over [lower, upper), int levels for 8-bit and int32 samples, "
               "float levels for float), temporary storage allocated once, untimed.",
     .course = "CUDA toolkit (CUB)",
     .flags = WL_RUNG_VENDOR,
     .supports = cub_supports},
};

/* "uint8", "u8", "int32", "float"; the default uint8. */
static bool parse_sample(const char *text, wl_histogram_sample *sample)
{
    if (!text || !*text || !strcasecmp(text, "uint8") || !strcasecmp(text, "u8")) {
        *sample = WL_HISTOGRAM_UINT8;
        return true;
    }
    if (!strcasecmp(text, "int32") || !strcasecmp(text, "int")) {
        *sample = WL_HISTOGRAM_INT32;
        return true;
    }
    if (!strcasecmp(text, "float") || !strcasecmp(text, "float32")) {
        *sample = WL_HISTOGRAM_FLOAT32;
        return true;
    }
    return false;
}

/* The default range of each sample type: [0, 256), [-10^6, 10^6), [0, 1). */
static void default_range(wl_histogram_sample sample, double *lower, double *upper)
{
    *lower = sample == WL_HISTOGRAM_INT32 ? -1e6 : 0.0;
    *upper = sample == WL_HISTOGRAM_UINT8 ? 256.0 : sample == WL_HISTOGRAM_INT32 ? 1e6 : 1.0;
}

/* Sizes: N (samples; bins by type: 256 for uint8, 1024 otherwise) or NxBINS.
 * --type uint8|int32|float, --op uniform|skewed. */
static warplab_status histogram_make_problem(const size_t size[3], int dims, const char *dtype,
                                             const char *op, wl_problem *problem, char *error,
                                             size_t error_len)
{
    if (dims > 2) {
        wl_format(error, error_len,
                  "the histogram ladder takes N (samples) or NxBINS, not %d dimensions", dims);
        return WARPLAB_ERROR_INVALID_ARGUMENT;
    }
    wl_histogram_sample sample;
    if (!parse_sample(dtype, &sample)) {
        wl_format(error, error_len, "unknown type '%s' (histogram takes uint8, int32 or float)",
                  dtype);
        return WARPLAB_ERROR_UNKNOWN_NAME;
    }
    memset(problem, 0, sizeof *problem);
    problem->dim[0] = size[0];
    problem->dim[1] = dims == 2 ? size[1] : sample == WL_HISTOGRAM_UINT8 ? 256 : 1024;
    problem->dims = 2;
    problem->variant = (int)sample;
    problem->dtype = sample == WL_HISTOGRAM_FLOAT32 ? WARPLAB_FLOAT32 : WARPLAB_INT32;
    default_range(sample, &problem->alpha, &problem->beta);
    if (op && *op && strcasecmp(op, "uniform") != 0) {
        if (strcasecmp(op, "skewed") != 0) {
            wl_format(error, error_len,
                      "unknown distribution '%s' (histogram takes --op uniform or skewed)", op);
            return WARPLAB_ERROR_UNKNOWN_NAME;
        }
        problem->param = WL_HISTOGRAM_SKEWED;
    }
    if (problem->dim[0] > WL_HISTOGRAM_MAX_SAMPLES) {
        wl_format(error, error_len, "at most 2^32 - 1 samples (the counts are uint32), not %zu",
                  problem->dim[0]);
        return WARPLAB_ERROR_INVALID_ARGUMENT;
    }
    if (problem->dim[1] > WL_HISTOGRAM_MAX_BINS) {
        wl_format(error, error_len, "at most 2^31 - 2 bins, not %zu", problem->dim[1]);
        return WARPLAB_ERROR_INVALID_ARGUMENT;
    }
    return WARPLAB_OK;
}

/* "n=16777216 uint8 256 bins [0, 256) skewed" */
static void histogram_describe(const wl_problem *p, char *text, size_t len)
{
    wl_format(text, len, "n=%zu %s %zu bins [%g, %g)%s%s%s", p->dim[0],
              sample_names[p->variant % 3], p->dim[1], p->alpha, p->beta,
              p->param == WL_HISTOGRAM_SKEWED ? " skewed" : "", p->misalign ? " misaligned" : "",
              p->nan_input ? " NaN" : "");
}

typedef struct shape {
    wl_histogram_sample sample;
    size_t bins;
    double lower, upper;
} shape;

static int add_problem(wl_problem *problems, int count, int capacity, size_t n, const shape *s,
                       int distribution, size_t misalign, int nan_input)
{
    if (count >= capacity)
        return count;
    wl_problem *p = &problems[count];
    memset(p, 0, sizeof *p);
    p->dim[0] = n;
    p->dim[1] = s->bins;
    p->dims = 2;
    p->variant = (int)s->sample;
    p->dtype = s->sample == WL_HISTOGRAM_FLOAT32 ? WARPLAB_FLOAT32 : WARPLAB_INT32;
    p->alpha = s->lower;
    p->beta = s->upper;
    p->param = distribution;
    p->misalign = misalign;
    p->nan_input = nan_input;
    return count + 1;
}

/* Every shape at the empty and tiny sizes, around a warp and a 16-byte
 * vector (15, 16, 17, 31..33), off every block (1000, 1025), a prime (65537)
 * and 2^20 + 3, uniform and skewed; misaligned views of uniform data (the
 * vector rungs peel a head); a NaN planted in float inputs. The shapes: 8-bit
 * over [0, 256) in
 * 256 bins and over [10, 200) in 7; int32 in 1024 bins, in 3, and over
 * almost the whole int32 range (64-bit bin arithmetic); float in 1024 bins
 * over [0, 1), 4096 over [-3, 5) (one copy per block), 1 bin, and 5000 bins
 * (past the per-warp copies). A GPU also gets sizes past one trip of the
 * grid (several million samples). */
static int histogram_test_problems(const warplab_device_info *device, wl_problem *problems,
                                   int capacity)
{
    static const shape shapes[] = {
        {WL_HISTOGRAM_UINT8, 256, 0.0, 256.0},
        {WL_HISTOGRAM_UINT8, 7, 10.0, 200.0},
        {WL_HISTOGRAM_INT32, 1024, -1e6, 1e6},
        {WL_HISTOGRAM_INT32, 3, -7.0, 11.0},
        {WL_HISTOGRAM_INT32, 1000, -2147483000.0, 2147483000.0},
        {WL_HISTOGRAM_FLOAT32, 1024, 0.0, 1.0},
        {WL_HISTOGRAM_FLOAT32, 4096, -3.0, 5.0},
        {WL_HISTOGRAM_FLOAT32, 1, -1.0, 1.0},
        {WL_HISTOGRAM_FLOAT32, 5000, 0.0, 10.0},
        /* The last float below 0.7 rounds up to bin 39: counted in bin 38. */
        {WL_HISTOGRAM_FLOAT32, 39, 0.1, 0.7},
    };
    static const size_t sizes[] = {0, 1, 15, 16, 17, 33, 1025, 65537, (1u << 20) + 3};
    static const size_t misaligned[] = {1, 17, 1000, 65537};
    static const size_t gpu_only[] = {(1u << 22) + 1, 3 * (1u << 22) + 5};
    int count = 0;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        const shape *sh = &shapes[s];
        for (int d = WL_HISTOGRAM_UNIFORM; d <= WL_HISTOGRAM_SKEWED; d++) {
            for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
                count = add_problem(problems, count, capacity, sizes[i], sh, d, 0, 0);
            for (size_t i = 0;
                 d == WL_HISTOGRAM_UNIFORM && i < sizeof misaligned / sizeof misaligned[0]; i++)
                count = add_problem(problems, count, capacity, misaligned[i], sh, d, 1 + i % 3, 0);
            for (size_t i = 0; device && device->gpu && i < sizeof gpu_only / sizeof gpu_only[0];
                 i++)
                count = add_problem(problems, count, capacity, gpu_only[i], sh, d, i, 0);
        }
        if (sh->sample == WL_HISTOGRAM_FLOAT32)
            for (size_t i = 0; i < 3; i++)
                count = add_problem(problems, count, capacity, sizes[6 + i], sh,
                                    WL_HISTOGRAM_UNIFORM, i % 2, 1);
    }
    return count;
}

const wl_ladder wl_histogram_ladder = {
    .name = "histogram",
    .title = "histogram: equal-width bins, uniform and skewed data (past the course)",
    .rungs = histogram_rungs,
    .rung_count = sizeof histogram_rungs / sizeof histogram_rungs[0],
    .make_problem = histogram_make_problem,
    .default_sizes_gpu = "2^24",
    .default_sizes_cpu = "2^20",
    .describe = histogram_describe,
    .leading_size = wl_leading_size_1d,
    .buffers = histogram_buffers,
    .verify = histogram_verify,
    .bytes = histogram_bytes,
    .flops = wl_zero_work,
    .best_rung = "dispatch",
    .test_problems = histogram_test_problems,
};
