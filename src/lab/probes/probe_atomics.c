/* The atomics probe (seed 002, 'Atomic Functions': "use them sparingly";
 * seed 004, 'Reminder: Atomic Operations', 'Dealing with contention'): atomic
 * adds per second against contention, from every thread on its own address
 * to all threads on one, in global memory against shared-memory staging,
 * int against float, and the atomicCAS loop that emulates a float add.
 *
 * Thread t adds its value v[t] to counter[t % A] `iterations` times, where A
 * = threads / contention; threads sharing an address lie A apart, in other
 * warps and blocks. The shared-memory series first add into per-block
 * counters (min(A, 256) of them) and then add each to global memory once:
 * the course's staged approach. Values are small integers (-2..2), so int
 * sums are exact and float sums are exact whatever the order while the
 * magnitudes stay below 2^24 (past that, the classic bound applies).
 *
 * A second section runs seed 002's whole list of atomic functions (add, sub,
 * exch, min, max, inc, dec, and, or, xor; CAS is the first section's loop)
 * on int counters with the same contention sweep: which functions cost the
 * same at the L2, and which contention hurts alike.
 *
 * Problem: dim[0] = threads (a power of two), dim[1] = iterations per
 * thread, param = contention (threads per address, a power of two). The
 * counters are zeroed before every run (untimed); and's are set to all ones,
 * so that its result shows every contender's bits. */
#include "ladders/ladder_util.h"
#include "probe.h"
#include "probe_kernels.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { ATOMICS_VALUES = 0, ATOMICS_COUNTERS };

/* Past this many threads per address on a GPU, the CAS loop's retries (which
 * grow as the square of the contenders) would take minutes. */
#define CAS_MAX_CONTENTION 1024

static size_t addresses(const wl_problem *p)
{
    return p->param > 0 ? p->dim[0] / (size_t)p->param : 0;
}

static int atomics_buffers(const wl_problem *p, wl_buffer_spec *spec)
{
    spec[ATOMICS_VALUES] = (wl_buffer_spec){WL_IN, WARPLAB_INT32, p->dim[0], -2.0, 2.0};
    spec[ATOMICS_COUNTERS] = (wl_buffer_spec){WL_OUT, WARPLAB_INT32, addresses(p), 0.0, 0.0};
    return 2;
}

/* Sums per counter, exactly (int64) and of magnitudes, for the bounds. */
static warplab_status counter_sums(const wl_problem *p, const void *const *host, int64_t **sums,
                                   int64_t **magnitudes)
{
    const int32_t *v = host[ATOMICS_VALUES];
    const size_t a = addresses(p);
    *sums = calloc(a ? a : 1, sizeof **sums);
    *magnitudes = calloc(a ? a : 1, sizeof **magnitudes);
    if (!*sums || !*magnitudes) {
        free(*sums);
        free(*magnitudes);
        return WARPLAB_ERROR_HOST_OUT_OF_MEMORY;
    }
    for (size_t t = 0; t < p->dim[0]; t++) {
        (*sums)[t % a] += (int64_t)v[t] * (int64_t)p->dim[1];
        (*magnitudes)[t % a] += (int64_t)llabs(v[t]) * (int64_t)p->dim[1];
    }
    return WARPLAB_OK;
}

static warplab_status int_verify(const wl_problem *p, const void *const *host, wl_check *check)
{
    int64_t *sums, *magnitudes;
    warplab_status status = counter_sums(p, host, &sums, &magnitudes);
    if (status != WARPLAB_OK)
        return status;
    const int32_t *counters = host[ATOMICS_COUNTERS];
    for (size_t i = 0; i < addresses(p); i++)
        wl_check_value(check, i, (double)counters[i], (double)(int32_t)sums[i], 0.0);
    free(sums);
    free(magnitudes);
    return check->bad ? WARPLAB_ERROR_VERIFICATION_FAILED : WARPLAB_OK;
}

/* Float counters: exact while every partial sum stays below 2^24 in
 * magnitude (guaranteed when the sum of magnitudes does); otherwise the
 * bound of a sum of n terms in any order, n x 2^-24 x sum of magnitudes. */
static warplab_status float_verify(const wl_problem *p, const void *const *host, wl_check *check)
{
    int64_t *sums, *magnitudes;
    warplab_status status = counter_sums(p, host, &sums, &magnitudes);
    if (status != WARPLAB_OK)
        return status;
    const float *counters = host[ATOMICS_COUNTERS];
    const double terms = (double)p->param * (double)p->dim[1];
    for (size_t i = 0; i < addresses(p); i++) {
        double bound =
            magnitudes[i] <= (1 << 24) ? 0.0 : terms * ldexp(1.0, -24) * (double)magnitudes[i];
        wl_check_value(check, i, (double)counters[i], (double)sums[i], bound);
    }
    free(sums);
    free(magnitudes);
    return check->bad ? WARPLAB_ERROR_VERIFICATION_FAILED : WARPLAB_OK;
}

static double atomic_adds(const wl_problem *p)
{
    return (double)p->dim[0] * (double)p->dim[1];
}
static bool is_power_of_two(size_t x)
{
    return x && !(x & (x - 1));
}

static warplab_status contention_supported(const wl_problem *p, char *reason, size_t len)
{
    if (p->param < 1 || !is_power_of_two((size_t)p->param) || !is_power_of_two(p->dim[0]) ||
        (size_t)p->param > p->dim[0]) {
        wl_format(reason, len,
                  "threads and threads per address are powers of two, and there are at least "
                  "as many threads as threads per address");
        return WARPLAB_ERROR_UNSUPPORTED;
    }
    return WARPLAB_OK;
}

static warplab_status atomics_supports(const wl_problem *p, const warplab_device_info *device,
                                       char *reason, size_t len)
{
    (void)device;
    return contention_supported(p, reason, len);
}

static warplab_status cas_supports(const wl_problem *p, const warplab_device_info *device,
                                   char *reason, size_t len)
{
    warplab_status status = contention_supported(p, reason, len);
    if (status == WARPLAB_OK && device->gpu && p->param > CAS_MAX_CONTENTION) {
        wl_format(reason, len,
                  "more than %d threads per address: the retries grow as the square of the "
                  "contenders (minutes on a GPU)",
                  CAS_MAX_CONTENTION);
        return WARPLAB_ERROR_UNSUPPORTED;
    }
    return status;
}

static const wl_rung atomics_series[] = {
    {.id = "global_int",
     .title = "atomicAdd(int *) in global memory",
     .lesson = "Each add is a read-modify-write done at the L2; adds to one address queue one "
               "behind another, adds to different addresses proceed in parallel.",
     .course = "seed 002, 'Atomic Functions'",
     .bytes = wl_zero_work,
     .flops = atomic_adds,
     .supports = atomics_supports,
     .verify = int_verify},
    {.id = "global_float",
     .title = "atomicAdd(float *) in global memory",
     .lesson = "atomicAdd on floats exists since compute capability 2.0; the order of the adds, "
               "and so the rounding, is not fixed.",
     .course = "seed 004, 'Atomics: if integral data, or precision doesn't matter'",
     .bytes = wl_zero_work,
     .flops = atomic_adds,
     .supports = atomics_supports,
     .verify = float_verify},
    {.id = "shared_int",
     .title = "shared-memory counters, then global",
     .lesson = "The staged approach: contention is resolved among a block's threads in shared "
               "memory, and each block adds each of its counters to global memory once.",
     .course = "seed 004, 'Dealing with contention: use shared memory and staged approach'",
     .bytes = wl_zero_work,
     .flops = atomic_adds,
     .supports = atomics_supports,
     .verify = int_verify},
    {.id = "shared_float",
     .title = "shared-memory float counters, then global",
     .lesson = "The staged approach with float adds in shared memory, which sm_90 has no "
               "instruction for: nvcc builds them from a compare-and-swap loop "
               "(ATOMS.CAST.SPIN).",
     .course = "seed 004, 'Dealing with contention'",
     .bytes = wl_zero_work,
     .flops = atomic_adds,
     .supports = atomics_supports,
     .verify = float_verify},
    {.id = "cas_float",
     .title = "float add as an atomicCAS loop",
     .lesson = "Read, add, compare-and-swap, retry if another thread got there first: how a "
               "missing atomic is built. Every contender's failed swap is a retry.",
     .course = "seed 004, 'Advanced atomics: e.g., atomicCAS'",
     .bytes = wl_zero_work,
     .flops = atomic_adds,
     .supports = cas_supports,
     .verify = float_verify},
};

static void atomics_describe(const wl_problem *p, char *text, size_t len)
{
    wl_format(text, len, "%ld threads per address, %zu threads x %zu adds", p->param, p->dim[0],
              p->dim[1]);
}

static int atomics_test_problems(const warplab_device_info *device, wl_problem *problems,
                                 int capacity)
{
    (void)device;
    static const long contention[] = {1, 2, 64, 256, 512, 4096};
    static const size_t threads[] = {512, 4096};
    int count = 0;
    for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++)
        for (size_t c = 0; c < sizeof contention / sizeof contention[0] && count < capacity; c++)
            if ((size_t)contention[c] <= threads[t])
                problems[count++] = wl_probe_point(threads[t], 3, 0, contention[c]);
    return count;
}

static const wl_ladder atomics_ladder = {
    .name = "atomics",
    .title = "atomics: adds per second against contention",
    .rungs = atomics_series,
    .rung_count = sizeof atomics_series / sizeof atomics_series[0],
    .describe = atomics_describe,
    .leading_size = wl_probe_leading_size,
    .buffers = atomics_buffers,
    .test_problems = atomics_test_problems,
};

/* The largest power of two not above size (or the default). */
static size_t atomics_threads(const warplab_device_info *device, size_t size)
{
    size_t wanted = size ? size : device->gpu ? (size_t)1 << 20 : (size_t)1 << 14;
    size_t threads = 1;
    while (threads * 2 <= wanted)
        threads *= 2;
    return threads;
}
static size_t atomics_iterations(const warplab_device_info *device)
{
    return device->gpu ? 8 : 4;
}

static int atomics_points(const warplab_device_info *device, size_t size, wl_problem *problems,
                          int capacity)
{
    const size_t threads = atomics_threads(device, size);
    int count = 0;
    for (size_t c = 1; c <= threads && count < capacity; c *= 4)
        problems[count++] = wl_probe_point(threads, atomics_iterations(device), 0, (long)c);
    if (count > 0 && problems[count - 1].param != (long)threads && count < capacity)
        problems[count++] = wl_probe_point(threads, atomics_iterations(device), 0, (long)threads);
    return count;
}

/* ------------------------------------------------------------------------ */
/* The atomic functions: seed 002's list on int counters                    */

/* What each function leaves in a counter after combining a contender's
 * value (inc and dec with the limit 0xffffffff: a plain wrapping step;
 * exch's result is any one contender's value, checked apart). */
static uint32_t combine(wl_atomic_function f, uint32_t c, int32_t v)
{
    const uint32_t u = (uint32_t)v;
    switch (f) {
    case WL_ATOMIC_ADD: return c + u;
    case WL_ATOMIC_SUB: return c - u;
    case WL_ATOMIC_MIN: return (int32_t)c < v ? c : u;
    case WL_ATOMIC_MAX: return (int32_t)c > v ? c : u;
    case WL_ATOMIC_INC: return c + 1u;
    case WL_ATOMIC_DEC: return c - 1u;
    case WL_ATOMIC_AND: return c & u;
    case WL_ATOMIC_OR: return c | u;
    case WL_ATOMIC_XOR: return c ^ u;
    default: return u; /* exch */
    }
}

static warplab_status function_verify(wl_atomic_function f, const wl_problem *p,
                                      const void *const *host, wl_check *check)
{
    const int32_t *v = host[ATOMICS_VALUES];
    const uint32_t *counters = host[ATOMICS_COUNTERS];
    const size_t a = addresses(p);
    uint32_t *expected = malloc((a ? a : 1) * sizeof *expected);
    if (!expected)
        return WARPLAB_ERROR_HOST_OUT_OF_MEMORY;
    const uint32_t start = f == WL_ATOMIC_AND ? 0xffffffffu : 0u;
    for (size_t i = 0; i < a; i++)
        expected[i] = start;
    if (f == WL_ATOMIC_EXCH) {
        /* Some contender's value, whichever swapped last. */
        for (size_t i = 0; i < a; i++) {
            bool seen = false;
            for (size_t t = i; t < p->dim[0] && !seen; t += a)
                seen = counters[i] == (uint32_t)v[t];
            wl_check_value(check, i, seen ? 0.0 : 1.0, 0.0, 0.0);
        }
        free(expected);
        return check->bad ? WARPLAB_ERROR_VERIFICATION_FAILED : WARPLAB_OK;
    }
    for (size_t t = 0; t < p->dim[0]; t++)
        for (size_t k = 0; k < p->dim[1]; k++)
            expected[t % a] = combine(f, expected[t % a], v[t]);
    for (size_t i = 0; i < a; i++)
        wl_check_value(check, i, (double)(int32_t)counters[i], (double)(int32_t)expected[i], 0.0);
    free(expected);
    return check->bad ? WARPLAB_ERROR_VERIFICATION_FAILED : WARPLAB_OK;
}

#define FUNCTION_VERIFY(name, f)                                                                   \
    static warplab_status name(const wl_problem *p, const void *const *host, wl_check *check)      \
    {                                                                                              \
        return function_verify(f, p, host, check);                                                 \
    }
FUNCTION_VERIFY(add_verify, WL_ATOMIC_ADD)
FUNCTION_VERIFY(sub_verify, WL_ATOMIC_SUB)
FUNCTION_VERIFY(exch_verify, WL_ATOMIC_EXCH)
FUNCTION_VERIFY(min_verify, WL_ATOMIC_MIN)
FUNCTION_VERIFY(max_verify, WL_ATOMIC_MAX)
FUNCTION_VERIFY(inc_verify, WL_ATOMIC_INC)
FUNCTION_VERIFY(dec_verify, WL_ATOMIC_DEC)
FUNCTION_VERIFY(and_verify, WL_ATOMIC_AND)
FUNCTION_VERIFY(or_verify, WL_ATOMIC_OR)
FUNCTION_VERIFY(xor_verify, WL_ATOMIC_XOR)

#define FUNCTION(id_, title_, lesson_, verify_)                                                    \
    {                                                                                              \
        .id = id_, .title = title_, .lesson = lesson_, .course = "seed 002, 'Atomic Functions'",   \
        .bytes = wl_zero_work, .flops = atomic_adds, .supports = atomics_supports,                 \
        .verify = verify_                                                                          \
    }

static const wl_rung function_series[] = {
    FUNCTION("add", "atomicAdd(int *)", "The first section's global_int: the baseline.",
             add_verify),
    FUNCTION("sub", "atomicSub(int *)", "Subtraction is an add of the negated value at the L2.",
             sub_verify),
    FUNCTION("exch", "atomicExch(int *)",
             "A swap: the counter ends holding one contender's value, whichever came last.",
             exch_verify),
    FUNCTION("min", "atomicMin(int *)", "The smaller of the counter and the value.", min_verify),
    FUNCTION("max", "atomicMax(int *)", "The larger of the counter and the value.", max_verify),
    FUNCTION("inc", "atomicInc(unsigned *, 0xffffffff)",
             "A wrapping increment: ((old >= limit) ? 0 : old + 1); with the largest limit, a "
             "counter.",
             inc_verify),
    FUNCTION("dec", "atomicDec(unsigned *, 0xffffffff)",
             "A wrapping decrement: ((old == 0 || old > limit) ? limit : old - 1).", dec_verify),
    FUNCTION("and", "atomicAnd(int *)",
             "Bitwise and; the counters start all ones, so the result is every contender's "
             "bits in common.",
             and_verify),
    FUNCTION("or", "atomicOr(int *)", "Bitwise or.", or_verify),
    FUNCTION("xor", "atomicXor(int *)",
             "Bitwise xor: each contender's value flips the counter's bits once per step.",
             xor_verify),
};

static const wl_ladder functions_ladder = {
    .name = "atomic_functions",
    .title = "atomic functions: operations per second against contention",
    .rungs = function_series,
    .rung_count = sizeof function_series / sizeof function_series[0],
    .describe = atomics_describe,
    .leading_size = wl_probe_leading_size,
    .buffers = atomics_buffers,
    .test_problems = atomics_test_problems,
};

/* Fewer points than the add's sweep: one address each, a warp's worth, a
 * block's four times over, and all threads on one. */
static int function_points(const warplab_device_info *device, size_t size, wl_problem *problems,
                           int capacity)
{
    const size_t threads = atomics_threads(device, size);
    static const size_t contention[] = {1, 32, 1024};
    int count = 0;
    for (size_t c = 0; c < sizeof contention / sizeof contention[0] && count < capacity; c++)
        if (contention[c] < threads)
            problems[count++] =
                wl_probe_point(threads, atomics_iterations(device), 0, (long)contention[c]);
    if (count < capacity)
        problems[count++] = wl_probe_point(threads, atomics_iterations(device), 0, (long)threads);
    return count;
}

static void atomics_setup(const warplab_device_info *device, size_t size, char *text, size_t len)
{
    wl_format(text, len,
              "%zu threads (blocks of %d), %zu adds each; thread t adds to counter t mod "
              "(threads / contention)",
              atomics_threads(device, size), WL_PROBE_BLOCK, atomics_iterations(device));
}

/* "; against add at 32 / all threads per address: sub 1.00/0.60x, exch
 * 1.18/0.71x, ..." (the conclusion has 512 characters: one pair a function). */
static void append_functions(char *text, size_t len, const warplab_probe_result *r)
{
    double all = 0, value;
    for (size_t i = 0; r->report && i < r->report->row_count; i++)
        if (r->report->rows[i].size > all &&
            wl_probe_value(r, "add", r->report->rows[i].size, &value))
            all = r->report->rows[i].size;
    if (all <= 0)
        return;
    wl_append(text, len, "; against add at 32 / all threads per address:");
    int listed = 0;
    for (size_t s = 1; s < sizeof function_series / sizeof function_series[0]; s++) {
        const char *id = function_series[s].id;
        double low, high;
        const bool has_low = wl_probe_ratio(r, id, 32, "add", 32, &low);
        const bool has_high = wl_probe_ratio(r, id, all, "add", all, &high);
        if (!has_low && !has_high)
            continue;
        wl_append(text, len, "%s %s ", listed++ ? "," : "", id);
        if (has_low)
            wl_append(text, len, "%.2f", low);
        else
            wl_append(text, len, "n/a");
        if (has_high)
            wl_append(text, len, "/%.2fx", high);
        else
            wl_append(text, len, "/n/a");
    }
}

static void atomics_conclude(const warplab_probe_result *r, char *text, size_t len)
{
    text[0] = '\0';
    double all = 0;
    for (size_t i = 0; r->report && i < r->report->row_count; i++)
        if (r->report->rows[i].size > all)
            all = r->report->rows[i].size;
    wl_append(text, len, "all threads on one address against each its own: global int ");
    wl_probe_append_ratio(text, len, r, "global_int", all, "global_int", 1);
    if (wl_probe_point_at(r, "global_float", all)) {
        wl_append(text, len, ", global float ");
        wl_probe_append_ratio(text, len, r, "global_float", all, "global_float", 1);
    }
    wl_append(text, len, "; at one address, shared-memory staging ");
    wl_probe_append_ratio(text, len, r, "shared_int", all, "global_int", all);
    wl_append(text, len, " the global int rate");
    /* The CAS loop at the highest contention it was measured at. */
    double cas_x = 0, value;
    for (size_t i = 0; r->report && i < r->report->row_count; i++)
        if (r->report->rows[i].size > cas_x &&
            wl_probe_value(r, "cas_float", r->report->rows[i].size, &value))
            cas_x = r->report->rows[i].size;
    if (cas_x > 0) {
        /* Against the float add where the backend has one, else the int add. */
        const bool has_float = wl_probe_value(r, "global_float", cas_x, &value);
        wl_append(text, len, "; the CAS loop at %.0f threads per address ", cas_x);
        wl_probe_append_ratio(text, len, r, "cas_float", cas_x,
                              has_float ? "global_float" : "global_int", cas_x);
        wl_append(text, len, " of atomicAdd(%s)", has_float ? "float" : "int");
    }
    append_functions(text, len, r);
}

static const wl_probe_section atomics_sections[] = {
    {.ladder = &atomics_ladder,
     .name = "atomics",
     .title = "atomic adds per second against contention",
     .x_label = "threads per address",
     .unit = "Gop/s",
     .metric = WL_PROBE_OPS,
     .log_x = true,
     .points = atomics_points},
    {.ladder = &functions_ladder,
     .name = "atomic_functions",
     .title = "seed 002's atomic functions on int, per second against contention",
     .x_label = "threads per address",
     .unit = "Gop/s",
     .metric = WL_PROBE_OPS,
     .log_x = true,
     .points = function_points},
};

const wl_probe wl_probe_atomics = {
    .name = "atomics",
    .title = "atomicAdd against contention: global vs shared, int vs float, CAS loops; and "
             "every atomic function of the course's list",
    .course = "seed 002, 'Atomic Functions'; seed 004, 'Reminder: Atomic Operations'",
    .size_meaning = "threads, rounded down to a power of two (default 2^20 on a GPU, 2^14 on "
                    "a CPU)",
    .sections = atomics_sections,
    .section_count = sizeof atomics_sections / sizeof atomics_sections[0],
    .setup = atomics_setup,
    .conclude = atomics_conclude,
};
