/* The unroll probe (seed 003, 'Smyčky'): a small loop pays for its
 * condition, its counter and its address arithmetic on every trip;
 * unrolling removes them, "partly the compiler does it; help it by hand or
 * with #pragma unroll".
 *
 * Each thread evaluates a polynomial of 64 coefficients (held in shared
 * memory) by Horner's rule, R times, at x and -x alternately, and writes the
 * sum. The four series run the same arithmetic:
 *   rolled    #pragma unroll 1: the loop as written, trip count at run time;
 *   compiler  trip count at run time, no pragma: what the compiler does alone;
 *   pragma    trip count 64 known at compile time, #pragma unroll: no loop;
 *   by_hand   trip count at run time, four steps per trip written out.
 *
 * Problem: dim[0] = threads, dim[1] = R. Buffers: in x (floats in
 * [-0.9, 0.9]), in coefficients (64 floats in [-1, 1]), out sums. */
#include "ladders/ladder_util.h"
#include "probe.h"
#include "probe_kernels.h"

#include <math.h>
#include <string.h>

enum { UNROLL_X = 0, UNROLL_COEFFICIENTS, UNROLL_OUT };

static int unroll_buffers(const wl_problem *p, wl_buffer_spec *spec)
{
    spec[UNROLL_X] = (wl_buffer_spec){WL_IN, WARPLAB_FLOAT32, p->dim[0], -0.9, 0.9};
    spec[UNROLL_COEFFICIENTS] =
        (wl_buffer_spec){WL_IN, WARPLAB_FLOAT32, WL_UNROLL_DEGREE, -1.0, 1.0};
    spec[UNROLL_OUT] = (wl_buffer_spec){WL_OUT, WARPLAB_FLOAT32, p->dim[0], 0.0, 0.0};
    return 3;
}

/* Horner in double, and the same on magnitudes (for the bound). */
static double horner(const float *c, double x)
{
    double y = 0.0;
    for (int k = 0; k < WL_UNROLL_DEGREE; k++)
        y = y * x + (double)c[k];
    return y;
}
static double horner_magnitude(const float *c, double x)
{
    double y = 0.0;
    for (int k = 0; k < WL_UNROLL_DEGREE; k++)
        y = y * fabs(x) + fabs((double)c[k]);
    return y;
}

/* sum over r < R of p((-1)^r x); each FMA Horner step rounds once (error
 * within 64 x 2^-24 x p(|x|) with |c|), and the R additions add R x 2^-24
 * of the running magnitudes. */
static warplab_status unroll_verify(const wl_problem *p, const void *const *host, wl_check *check)
{
    const float *x = host[UNROLL_X], *c = host[UNROLL_COEFFICIENTS], *out = host[UNROLL_OUT];
    const double r = (double)p->dim[1];
    const double evens = ceil(r / 2), odds = floor(r / 2);
    for (size_t t = 0; t < p->dim[0]; t++) {
        const double plus = horner(c, x[t]), minus = horner(c, -(double)x[t]);
        const double magnitude = horner_magnitude(c, x[t]);
        const double expected = evens * plus + odds * minus;
        const double bound = r * magnitude * ldexp(1.0, -24) * (2.0 * WL_UNROLL_DEGREE + 2.0 * r);
        wl_check_value(check, t, (double)out[t], expected, bound);
    }
    return check->bad ? WARPLAB_ERROR_VERIFICATION_FAILED : WARPLAB_OK;
}

/* Two flops (a multiply and an add, fused) per coefficient per evaluation. */
static double horner_flops(const wl_problem *p)
{
    return 2.0 * WL_UNROLL_DEGREE * (double)p->dim[0] * (double)p->dim[1];
}
#define SERIES(id_, title_, lesson_)                                                               \
    {                                                                                              \
        .id = id_, .title = title_, .lesson = lesson_, .course = "seed 003, 'Smyčky'",             \
        .bytes = wl_zero_work, .flops = horner_flops                                               \
    }

static const wl_rung unroll_series[] = {
    SERIES("rolled", "#pragma unroll 1",
           "Every trip: a shared-memory load, an FMA, then the counters, the compare and the "
           "branch (6 instructions for one FMA on sm_90)."),
    SERIES("compiler", "run-time trip count, no pragma",
           "What the compiler does alone with a trip count it cannot see: nvcc 13 (sm_90) "
           "unrolls it partly, merging loads into 16-byte LDS.128, and adds a remainder loop."),
    SERIES("pragma", "#pragma unroll, 64 known at compile time",
           "No loop left: 64 FMAs, their loads at constant offsets merged into 16 LDS.128 "
           "(nvcc 13, sm_90)."),
    SERIES("by_hand", "unrolled by hand, 4 steps per trip",
           "The course's manual unrolling: a quarter of the loop overhead and one 16-byte "
           "load per trip, with a remainder loop for trip counts not divisible by 4."),
};

static const wl_probe_series unroll_info[] = {
    {.id = "rolled"},
    {.id = "compiler", .baseline = "rolled"},
    {.id = "pragma", .baseline = "rolled"},
    {.id = "by_hand", .baseline = "rolled"},
};

static void unroll_describe(const wl_problem *p, char *text, size_t len)
{
    wl_format(text, len, "%zu threads x %zu polynomials of %d coefficients", p->dim[0], p->dim[1],
              WL_UNROLL_DEGREE);
}

static int unroll_test_problems(const warplab_device_info *device, wl_problem *problems,
                                int capacity)
{
    (void)device;
    int count = 0;
    if (count < capacity)
        problems[count++] = wl_probe_point(1, 1, 0, 0);
    if (count < capacity)
        problems[count++] = wl_probe_point(1000, 5, 0, 0);
    return count;
}

static const wl_ladder unroll_ladder = {
    .name = "unroll",
    .title = "unroll: a small loop rolled, unrolled by the compiler, by pragma, by hand",
    .rungs = unroll_series,
    .rung_count = sizeof unroll_series / sizeof unroll_series[0],
    .describe = unroll_describe,
    .leading_size = wl_probe_leading_size,
    .buffers = unroll_buffers,
    .verify = unroll_verify,
    .test_problems = unroll_test_problems,
};

static size_t unroll_threads(const warplab_device_info *device, size_t size)
{
    return size ? size : device->gpu ? (size_t)1 << 20 : (size_t)1 << 13;
}
static size_t unroll_repeats(const warplab_device_info *device)
{
    return device->gpu ? 64 : 8;
}

static int unroll_points(const warplab_device_info *device, size_t size, wl_problem *problems,
                         int capacity)
{
    if (capacity < 1)
        return 0;
    problems[0] = wl_probe_point(unroll_threads(device, size), unroll_repeats(device), 0, 0);
    return 1;
}

static void unroll_setup(const warplab_device_info *device, size_t size, char *text, size_t len)
{
    wl_format(text, len,
              "%zu threads (blocks of %d) x %zu Horner evaluations of %d coefficients in shared "
              "memory",
              unroll_threads(device, size), WL_PROBE_BLOCK, unroll_repeats(device),
              WL_UNROLL_DEGREE);
}

static void unroll_conclude(const warplab_probe_result *r, char *text, size_t len)
{
    text[0] = '\0';
    wl_append(text, len, "against the rolled loop: #pragma unroll ");
    wl_probe_append_ratio(text, len, r, "pragma", 0, "rolled", 0);
    wl_append(text, len, ", by hand (4 per trip) ");
    wl_probe_append_ratio(text, len, r, "by_hand", 0, "rolled", 0);
    wl_append(text, len, ", the compiler on its own ");
    wl_probe_append_ratio(text, len, r, "compiler", 0, "rolled", 0);
}

static const wl_probe_section unroll_sections[] = {
    {.ladder = &unroll_ladder,
     .name = "unroll",
     .title = "Horner's rule, 64 coefficients, with and without unrolling",
     .x_label = "",
     .unit = "GFLOP/s",
     .metric = WL_PROBE_OPS,
     .comparison = true,
     .points = unroll_points,
     .series = unroll_info,
     .series_count = sizeof unroll_info / sizeof unroll_info[0]},
};

const wl_probe wl_probe_unroll = {
    .name = "unroll",
    .title = "a small loop with and without #pragma unroll, and unrolled by hand",
    .course = "seed 003, 'Smyčky' (loop overhead, unrolling)",
    .size_meaning = "threads (default 2^20 on a GPU, 2^13 on a CPU)",
    .sections = unroll_sections,
    .section_count = 1,
    .setup = unroll_setup,
    .conclude = unroll_conclude,
};
