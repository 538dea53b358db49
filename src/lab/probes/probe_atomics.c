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
 * Problem: dim[0] = threads (a power of two), dim[1] = iterations per
 * thread, param = contention (threads per address, a power of two). The
 * counters are zeroed before every run (untimed). */
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
static double no_bytes(const wl_problem *p)
{
    (void)p;
    return 0.0;
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
     .bytes = no_bytes,
     .flops = atomic_adds,
     .supports = atomics_supports,
     .verify = int_verify},
    {.id = "global_float",
     .title = "atomicAdd(float *) in global memory",
     .lesson = "atomicAdd on floats exists since compute capability 2.0; the order of the adds, "
               "and so the rounding, is not fixed.",
     .course = "seed 004, 'Atomics: if integral data, or precision doesn't matter'",
     .bytes = no_bytes,
     .flops = atomic_adds,
     .supports = atomics_supports,
     .verify = float_verify},
    {.id = "shared_int",
     .title = "shared-memory counters, then global",
     .lesson = "The staged approach: contention is resolved among a block's threads in shared "
               "memory, and each block adds each of its counters to global memory once.",
     .course = "seed 004, 'Dealing with contention: use shared memory and staged approach'",
     .bytes = no_bytes,
     .flops = atomic_adds,
     .supports = atomics_supports,
     .verify = int_verify},
    {.id = "shared_float",
     .title = "shared-memory float counters, then global",
     .lesson = "The staged approach with float adds in shared memory, which sm_90 has no "
               "instruction for: nvcc builds them from a compare-and-swap loop "
               "(ATOMS.CAST.SPIN).",
     .course = "seed 004, 'Dealing with contention'",
     .bytes = no_bytes,
     .flops = atomic_adds,
     .supports = atomics_supports,
     .verify = float_verify},
    {.id = "cas_float",
     .title = "float add as an atomicCAS loop",
     .lesson = "Read, add, compare-and-swap, retry if another thread got there first: how a "
               "missing atomic is built. Every contender's failed swap is a retry.",
     .course = "seed 004, 'Advanced atomics: e.g., atomicCAS'",
     .bytes = no_bytes,
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

static void atomics_setup(const warplab_device_info *device, size_t size, char *text, size_t len)
{
    wl_format(text, len,
              "%zu threads (blocks of %d), %zu adds each; thread t adds to counter t mod "
              "(threads / contention)",
              atomics_threads(device, size), WL_PROBE_BLOCK, atomics_iterations(device));
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
};

const wl_probe wl_probe_atomics = {
    .name = "atomics",
    .title = "atomicAdd against contention: global vs shared, int vs float, CAS loops",
    .course = "seed 002, 'Atomic Functions'; seed 004, 'Reminder: Atomic Operations'",
    .size_meaning = "threads, rounded down to a power of two (default 2^20 on a GPU, 2^14 on "
                    "a CPU)",
    .sections = atomics_sections,
    .section_count = 1,
    .setup = atomics_setup,
    .conclude = atomics_conclude,
};
