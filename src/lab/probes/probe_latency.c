/* The latency probe (seed 003, 'Maskování latence pamětí': global memory
 * has a latency of hundreds of cycles, "latence 400-600 cyklů", hidden by
 * running other warps while one waits): the latency measured, and Little's
 * law checked against it.
 *
 * Section chase: one thread follows a chain of dependent loads, each
 * address computed from the value the last load returned, through a working
 * set of 16 KiB .. 256 MiB: the time a step takes is the latency of the level
 * that holds the set (L1, L2, device memory).
 *
 * Section flight: a copy of 2^25 floats by a grid of T threads (x), each
 * issuing K independent 4-byte loads before it stores them (series
 * loads_1, loads_4, loads_16): K x 4 x T bytes in flight. Little's law says
 * a memory system of bandwidth B and latency L needs B x L bytes in flight
 * to stay busy; the conclusion computes that from the chase's largest set
 * and the copy's best rate, and sets it beside the threads each series
 * needed to reach 90% of that rate.
 *
 * Problems: chase: dim[0] = words in the set, dim[1] = steps, param = the
 * set's bytes; flight: dim[0] = floats, param = threads. */
#include "ladders/ladder_util.h"
#include "probe.h"
#include "probe_kernels.h"

#include <string.h>

/* ------------------------------------------------------------------------ */
/* chase                                                                    */

enum { CHASE_WORDS = 0, CHASE_OUT };

static int chase_buffers(const wl_problem *p, wl_buffer_spec *spec)
{
    /* Every word 0: the kernel adds it to the next index, so each load's
     * address depends on the last load's value, but the walk is known. */
    spec[CHASE_WORDS] = (wl_buffer_spec){WL_IN, WARPLAB_INT32, p->dim[0], 0.0, 0.0};
    spec[CHASE_OUT] = (wl_buffer_spec){WL_OUT, WARPLAB_INT32, 1, 0.0, 0.0};
    return 2;
}

/* The walk: i <- (i + WL_CHASE_STRIDE + words[i]) mod words (a power of
 * two), from 0, dim[1] steps; out = the last index. */
static warplab_status chase_verify(const wl_problem *p, const void *const *host, wl_check *check)
{
    const int32_t *words = host[CHASE_WORDS];
    const int32_t *out = host[CHASE_OUT];
    const size_t mask = p->dim[0] - 1;
    size_t i = 0;
    for (size_t s = 0; s < p->dim[1]; s++)
        i = (i + WL_CHASE_STRIDE + (size_t)(uint32_t)words[i]) & mask;
    wl_check_value(check, 0, (double)out[0], (double)i, 0.0);
    return check->bad ? WARPLAB_ERROR_VERIFICATION_FAILED : WARPLAB_OK;
}

static double chase_steps(const wl_problem *p)
{
    return (double)p->dim[1];
}
static warplab_status chase_supports(const wl_problem *p, const warplab_device_info *device,
                                     char *reason, size_t len)
{
    (void)device;
    if (p->dim[0] < 64 || (p->dim[0] & (p->dim[0] - 1)) != 0 || p->dim[0] > ((size_t)1 << 30)) {
        wl_format(reason, len, "the set is a power of two of 64 to 2^30 words");
        return WARPLAB_ERROR_UNSUPPORTED;
    }
    return WARPLAB_OK;
}

static const wl_rung chase_series[] = {
    {.id = "dependent",
     .title = "one thread, each load's address from the last load",
     .lesson = "Nothing overlaps: every step waits for the load before it, so steps per "
               "second is one over the latency of the level that holds the set. The walk moves "
               "132 bytes a step, a new 128-byte line each time.",
     .course = "seed 003, 'Maskování latence pamětí'",
     .bytes = wl_zero_work,
     .flops = chase_steps,
     .supports = chase_supports,
     .verify = chase_verify},
};

static void chase_describe(const wl_problem *p, char *text, size_t len)
{
    char bytes[32];
    wl_format_bytes(bytes, sizeof bytes, 4.0 * (double)p->dim[0]);
    wl_format(text, len, "a %s set, %zu dependent loads", bytes, p->dim[1]);
}

static int chase_test_problems(const warplab_device_info *device, wl_problem *problems,
                               int capacity)
{
    (void)device;
    static const size_t words[] = {64, 1024, 1 << 16};
    static const size_t steps[] = {1, 37, 5000};
    int count = 0;
    for (size_t w = 0; w < sizeof words / sizeof words[0]; w++)
        for (size_t s = 0; s < sizeof steps / sizeof steps[0] && count < capacity; s++)
            problems[count++] = wl_probe_point(words[w], steps[s], 0, (long)(4 * words[w]));
    return count;
}

static const wl_ladder chase_ladder = {
    .name = "latency_chase",
    .title = "latency: dependent loads through a working set",
    .rungs = chase_series,
    .rung_count = 1,
    .describe = chase_describe,
    .leading_size = wl_probe_leading_size,
    .buffers = chase_buffers,
    .test_problems = chase_test_problems,
};

/* Working sets: one per level on a GPU (an SM's L1, the L2, past the L2).
 * The walk covers a set's lines several times over (2^16 steps of 132 bytes
 * = 8.6 MB: 8 passes of 1 MiB), so that a set that fits a cache is read
 * from it after the first pass: with 2^15 steps a 4 MiB set was walked once
 * and its every load missed (H200: 348 ns, as past the L2). */
static int chase_points(const warplab_device_info *device, size_t size, wl_problem *problems,
                        int capacity)
{
    (void)size;
    static const size_t gpu_sets[] = {(size_t)16 << 10, (size_t)1 << 20, (size_t)256 << 20};
    static const size_t cpu_sets[] = {(size_t)16 << 10, (size_t)1 << 20, (size_t)64 << 20};
    const size_t *sets = device->gpu ? gpu_sets : cpu_sets;
    const size_t steps = device->gpu ? (size_t)1 << 16 : (size_t)1 << 18;
    int count = 0;
    for (size_t i = 0; i < 3 && count < capacity; i++)
        problems[count++] = wl_probe_point(sets[i] / 4, steps, 0, (long)sets[i]);
    return count;
}

/* ------------------------------------------------------------------------ */
/* flight                                                                   */

enum { FLIGHT_IN = 0, FLIGHT_OUT };

static int flight_buffers(const wl_problem *p, wl_buffer_spec *spec)
{
    spec[FLIGHT_IN] = (wl_buffer_spec){WL_IN, WARPLAB_FLOAT32, p->dim[0], -1.0, 1.0};
    spec[FLIGHT_OUT] = (wl_buffer_spec){WL_OUT, WARPLAB_FLOAT32, p->dim[0], 0.0, 0.0};
    return 2;
}

static warplab_status flight_verify(const wl_problem *p, const void *const *host, wl_check *check)
{
    const float *in = host[FLIGHT_IN], *out = host[FLIGHT_OUT];
    for (size_t i = 0; i < p->dim[0]; i++)
        wl_check_value(check, i, (double)out[i], (double)in[i], 0.0);
    return check->bad ? WARPLAB_ERROR_VERIFICATION_FAILED : WARPLAB_OK;
}

static double flight_bytes(const wl_problem *p)
{
    return 8.0 * (double)p->dim[0];
}

static warplab_status flight_supports(const wl_problem *p, const warplab_device_info *device,
                                      char *reason, size_t len)
{
    (void)device;
    if (p->param < WL_FLIGHT_BLOCK || p->param % WL_FLIGHT_BLOCK != 0 ||
        p->param / WL_FLIGHT_BLOCK > 65535L * 1024) {
        wl_format(reason, len, "threads are a multiple of %d", WL_FLIGHT_BLOCK);
        return WARPLAB_ERROR_UNSUPPORTED;
    }
    return WARPLAB_OK;
}

#define FLIGHT(id_, title_, lesson_)                                                               \
    {                                                                                              \
        .id = id_, .title = title_, .lesson = lesson_,                                             \
        .course = "seed 003, 'Maskování latence pamětí'", .supports = flight_supports              \
    }

static const wl_rung flight_series[] = {
    FLIGHT("loads_1", "1 load in flight a thread",
           "Each thread loads one float, stores it, loads the next: 4 bytes in flight a "
           "thread, so the bandwidth grows with the threads until B x L bytes are in flight."),
    FLIGHT("loads_4", "4 independent loads in flight a thread",
           "Four loads issued before the first store: the same bytes in flight with a quarter "
           "of the threads (instruction-level parallelism instead of warps)."),
    FLIGHT("loads_16", "16 independent loads in flight a thread",
           "Sixteen loads before the stores: 64 bytes a thread, so a GPU a sixteenth full of "
           "threads can keep the memory busy."),
};

/* K, the loads a series keeps in flight. */
static int flight_loads(const char *series)
{
    return !strcmp(series, "loads_16") ? 16 : !strcmp(series, "loads_4") ? 4 : 1;
}

static void flight_describe(const wl_problem *p, char *text, size_t len)
{
    wl_format(text, len, "%ld threads, %zu floats", p->param, p->dim[0]);
}

static int flight_test_problems(const warplab_device_info *device, wl_problem *problems,
                                int capacity)
{
    (void)device;
    static const size_t floats[] = {1, 1000, 100003};
    static const long threads[] = {WL_FLIGHT_BLOCK, 8 * WL_FLIGHT_BLOCK};
    int count = 0;
    for (size_t f = 0; f < sizeof floats / sizeof floats[0]; f++)
        for (size_t t = 0; t < sizeof threads / sizeof threads[0] && count < capacity; t++)
            problems[count++] = wl_probe_point(floats[f], 0, 0, threads[t]);
    return count;
}

static const wl_ladder flight_ladder = {
    .name = "latency_flight",
    .title = "latency: a copy against threads and loads in flight",
    .rungs = flight_series,
    .rung_count = sizeof flight_series / sizeof flight_series[0],
    .describe = flight_describe,
    .leading_size = wl_probe_leading_size,
    .buffers = flight_buffers,
    .verify = flight_verify,
    .bytes = flight_bytes,
    .test_problems = flight_test_problems,
};

static size_t flight_floats(const warplab_device_info *device, size_t size)
{
    return size ? size : device->gpu ? (size_t)1 << 25 : (size_t)1 << 20;
}

/* Threads 2^10 .. 2^18 on a GPU (an H100 holds 132 x 2048 = 2^18.04). */
static int flight_points(const warplab_device_info *device, size_t size, wl_problem *problems,
                         int capacity)
{
    const int top = device->gpu ? 18 : 12;
    int count = 0;
    for (int e = 10; e <= top && count < capacity; e++)
        problems[count++] = wl_probe_point(flight_floats(device, size), 0, 0, 1L << e);
    return count;
}

static void latency_setup(const warplab_device_info *device, size_t size, char *text, size_t len)
{
    char bytes[32];
    wl_format_bytes(bytes, sizeof bytes, 4.0 * (double)flight_floats(device, size));
    wl_format(text, len,
              "chase: one thread, %s dependent loads 132 bytes apart; flight: a copy of %s by "
              "grids of %d-thread blocks, each thread a grid-stride loop",
              device->gpu ? "65536" : "262144", bytes, WL_FLIGHT_BLOCK);
}

/* "latency: 16 KiB 30 ns, 1 MiB 250 ns, 256 MiB 700 ns; copy at best 4000
 * GB/s; Little's law: 4000 GB/s x 700 ns = 2.8 MB in flight = 700000 loads of
 * 4 bytes; 90% of the best reached with 262144 threads x 1 load (0.37x
 * Little's bytes), ...". */
static void latency_conclude(const warplab_probe_result *r, char *text, size_t len)
{
    text[0] = '\0';
    double largest = 0, steps_rate = 0;
    wl_append(text, len, "dependent-load latency:");
    int listed = 0;
    for (size_t i = 0; r->report && i < r->report->row_count; i++) {
        const warplab_row *row = &r->report->rows[i];
        double rate;
        if (strcmp(row->ladder, "latency_chase") != 0 ||
            !wl_probe_value(r, "dependent", row->size, &rate) || !(rate > 0))
            continue;
        char bytes[32];
        wl_format_bytes(bytes, sizeof bytes, row->size);
        wl_append(text, len, "%s %s %.0f ns", listed++ ? "," : "", bytes, 1.0 / rate);
        if (row->size > largest) {
            largest = row->size;
            steps_rate = rate;
        }
    }
    if (!listed)
        wl_append(text, len, " not measured");
    static const char *const series[] = {"loads_1", "loads_4", "loads_16"};
    double best = 0;
    for (int s = 0; s < 3; s++) {
        double x, v;
        if (wl_probe_extreme(r, series[s], 1, 1e12, true, &x, &v) && v > best)
            best = v;
    }
    if (!(best > 0))
        return;
    wl_append(text, len, "; the copy's best %.4g GB/s", best);
    double little = 0;
    if (steps_rate > 0) {
        little = best * (1.0 / steps_rate); /* GB/s x ns = bytes */
        char bytes[32];
        wl_format_bytes(bytes, sizeof bytes, little);
        wl_append(text, len, "; Little's law: bandwidth x latency = %s in flight", bytes);
    }
    /* The threads each series needed for 90% of the best rate. */
    wl_append(text, len, "; 90%% of the best with");
    int shown = 0;
    for (int s = 0; s < 3; s++) {
        double at = 0;
        for (size_t i = 0; r->report && i < r->report->row_count; i++) {
            const warplab_row *row = &r->report->rows[i];
            double v;
            if (strcmp(row->rung, series[s]) != 0 || !wl_probe_value(r, series[s], row->size, &v))
                continue;
            if (v >= 0.9 * best && (at == 0 || row->size < at))
                at = row->size;
        }
        if (at == 0)
            continue;
        const double in_flight = at * 4.0 * flight_loads(series[s]);
        char bytes[32];
        wl_format_bytes(bytes, sizeof bytes, in_flight);
        wl_append(text, len, "%s %.0f threads x %d (%s", shown++ ? "," : "", at,
                  flight_loads(series[s]), bytes);
        if (little > 0)
            wl_append(text, len, ", %.2fx Little's", in_flight / little);
        wl_append(text, len, ")");
    }
    if (!shown)
        wl_append(text, len, " no series");
}

static const wl_probe_section latency_sections[] = {
    {.ladder = &chase_ladder,
     .name = "latency_chase",
     .title = "dependent loads per second (1 / latency) against the working set",
     .x_label = "working set (bytes)",
     .unit = "Gloads/s",
     .metric = WL_PROBE_OPS,
     .log_x = true,
     .x_is_bytes = true,
     .points = chase_points},
    {.ladder = &flight_ladder,
     .name = "latency_flight",
     .title = "copy bandwidth against threads, 1, 4 and 16 loads in flight each",
     .x_label = "threads",
     .unit = "GB/s",
     .metric = WL_PROBE_BYTES,
     .log_x = true,
     .points = flight_points},
};

const wl_probe wl_probe_latency = {
    .name = "latency",
    .title = "memory latency by dependent loads, and Little's law: threads x loads in flight "
             "against bandwidth",
    .course = "seed 003, 'Maskování latence pamětí', 'Optimalizace přístupu do globální paměti' "
              "(latence 400-600 cyklů)",
    .size_meaning = "floats the copy moves (default 2^25 on a GPU, 2^20 elsewhere)",
    .sections = latency_sections,
    .section_count = sizeof latency_sections / sizeof latency_sections[0],
    .setup = latency_setup,
    .conclude = latency_conclude,
};
