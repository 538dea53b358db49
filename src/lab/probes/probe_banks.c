/* The banks probe (seed 003, 'HW organizace sdílené paměti', 'Konflikty
 * bank', 'Broadcast'): shared-memory load throughput against the stride
 * between the words a warp's lanes read, for 4-byte and 8-byte words.
 *
 * Each block fills a table of 2048 words in shared memory with
 * table[w] = (w + 32 s) mod 2048 and each thread follows 4 independent chains
 * w <- table[w]. Lane l of a warp reads word l x s + (a base common to the
 * warp), so the lanes of a warp hit banks l x s mod 32: an odd stride spreads
 * them over 32 banks, stride 2^k piles them into gcd(s, 32)-way conflicts,
 * and stride 0 is the broadcast (every lane the same word). Each load's
 * address is the previous load's value, so nothing can be hoisted or
 * dropped, and the final words (checked against the closed form below) prove
 * every step was taken.
 *
 * Problem: dim[0] = threads, dim[1] = steps per chain, param = stride.
 * Buffers: in = one random start (0..63) per warp (moves the warp's chains
 * along the table without changing its bank pattern); out = per thread,
 * f0 + 3 f1 + 5 f2 + 7 f3 of the chains' final words (mod 2^32). */
#include "ladders/ladder_util.h"
#include "probe.h"
#include "probe_kernels.h"

#include <string.h>

enum { BANKS_STARTS = 0, BANKS_OUT };

#define MAX_STRIDE 33

static size_t warps_of(const wl_problem *p)
{
    return (p->dim[0] + WL_PROBE_WARP - 1) / WL_PROBE_WARP;
}

static int banks_buffers(const wl_problem *p, wl_buffer_spec *spec)
{
    spec[BANKS_STARTS] = (wl_buffer_spec){WL_IN, WARPLAB_INT32, warps_of(p), 0.0, 63.0};
    spec[BANKS_OUT] = (wl_buffer_spec){WL_OUT, WARPLAB_INT32, p->dim[0], 0.0, 0.0};
    return 2;
}

/* The word a chain reaches: each step moves it 32 x stride words on. */
static uint32_t final_word(uint32_t lane, uint32_t stride, uint32_t start, uint32_t chain,
                           uint64_t steps)
{
    uint64_t w = (uint64_t)lane * stride + 32ull * stride * start + WL_BANKS_CHAIN_GAP * chain +
                 steps % WL_BANKS_WORDS * 32ull * stride;
    return (uint32_t)(w % WL_BANKS_WORDS);
}

static warplab_status banks_verify(const wl_problem *p, const void *const *host, wl_check *check)
{
    const int32_t *starts = host[BANKS_STARTS];
    const uint32_t *out = host[BANKS_OUT];
    const uint32_t stride = (uint32_t)p->param;
    for (size_t t = 0; t < p->dim[0]; t++) {
        uint32_t expected = 0;
        for (uint32_t c = 0; c < WL_BANKS_CHAINS; c++)
            expected += (2 * c + 1) * final_word((uint32_t)(t % WL_PROBE_WARP), stride,
                                                 (uint32_t)starts[t / WL_PROBE_WARP], c, p->dim[1]);
        wl_check_value(check, t, (double)out[t], (double)expected, 0.0);
    }
    return check->bad ? WARPLAB_ERROR_VERIFICATION_FAILED : WARPLAB_OK;
}

/* Bytes the loads deliver from shared memory. */
static double loads(const wl_problem *p)
{
    return (double)p->dim[0] * WL_BANKS_CHAINS * (double)p->dim[1];
}
static double word4_bytes(const wl_problem *p)
{
    return 4.0 * loads(p);
}
static double word8_bytes(const wl_problem *p)
{
    return 8.0 * loads(p);
}

static warplab_status banks_supports(const wl_problem *p, const warplab_device_info *device,
                                     char *reason, size_t len)
{
    (void)device;
    if (p->param < 0 || p->param > MAX_STRIDE) {
        wl_format(reason, len, "strides run from 0 (broadcast) to %d", MAX_STRIDE);
        return WARPLAB_ERROR_UNSUPPORTED;
    }
    return WARPLAB_OK;
}

static const wl_rung banks_series[] = {
    {.id = "word4",
     .title = "4-byte words",
     .lesson = "32 banks of 4 bytes: lanes l x s hit bank l x s mod 32, so odd strides are "
               "conflict-free, stride 2^k is a 2^k-way conflict (up to 32), and one word for "
               "all lanes is a broadcast, not a conflict.",
     .course = "seed 003, 'Konflikty bank', 'Broadcast'",
     .bytes = word4_bytes,
     .supports = banks_supports},
    {.id = "word8",
     .title = "8-byte words",
     .lesson = "8-byte words cover two banks each: a warp reads 256 bytes, at least two passes "
               "of 128, and a stride of s words is a stride of 2s banks.",
     .course = "seed 003, 'HW organizace sdílené paměti'",
     .bytes = word8_bytes,
     .supports = banks_supports},
};

static void banks_describe(const wl_problem *p, char *text, size_t len)
{
    wl_format(text, len, "stride %ld, %zu threads x %d chains x %zu steps", p->param, p->dim[0],
              WL_BANKS_CHAINS, p->dim[1]);
}

static int banks_test_problems(const warplab_device_info *device, wl_problem *problems,
                               int capacity)
{
    (void)device;
    static const long strides[] = {0, 1, 2, 3, 16, 32, 33};
    static const size_t threads[] = {256, 1000};
    int count = 0;
    for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++)
        for (size_t s = 0; s < sizeof strides / sizeof strides[0] && count < capacity; s++)
            problems[count++] = wl_probe_point(threads[t], 37, 0, strides[s]);
    return count;
}

static const wl_ladder banks_ladder = {
    .name = "banks",
    .title = "banks: shared-memory loads against stride",
    .rungs = banks_series,
    .rung_count = sizeof banks_series / sizeof banks_series[0],
    .describe = banks_describe,
    .leading_size = wl_probe_leading_size,
    .buffers = banks_buffers,
    .verify = banks_verify,
    .test_problems = banks_test_problems,
};

/* A full GPU: every SM's threads (2048 where unknown); a CPU: 4096. */
static size_t banks_threads(const warplab_device_info *device, size_t size)
{
    if (size)
        return size;
    if (!device->gpu)
        return 4096;
    size_t per_sm = device->max_threads_per_multiprocessor > 0
                        ? (size_t)device->max_threads_per_multiprocessor
                        : 2048;
    return (size_t)(device->multiprocessors > 0 ? device->multiprocessors : 1) * per_sm;
}

static size_t banks_steps(const warplab_device_info *device)
{
    return device->gpu ? 1024 : 64;
}

static int banks_points(const warplab_device_info *device, size_t size, wl_problem *problems,
                        int capacity)
{
    int count = 0;
    for (long s = 0; s <= MAX_STRIDE && count < capacity; s++)
        problems[count++] = wl_probe_point(banks_threads(device, size), banks_steps(device), 0, s);
    return count;
}

static void banks_setup(const warplab_device_info *device, size_t size, char *text, size_t len)
{
    wl_format(text, len,
              "%zu threads (blocks of %d), %d dependent chains of %zu loads each, a %u-word "
              "table per block",
              banks_threads(device, size), WL_PROBE_BLOCK, WL_BANKS_CHAINS, banks_steps(device),
              WL_BANKS_WORDS);
}

/* The range of a series' odd strides (3..33) relative to stride 1. */
static void append_odd_range(char *text, size_t len, const warplab_probe_result *r,
                             const char *series)
{
    double base, lo = 0, hi = 0;
    bool any = false;
    if (wl_probe_value(r, series, 1, &base))
        for (int s = 3; s <= MAX_STRIDE; s += 2) {
            double v;
            if (!wl_probe_value(r, series, s, &v))
                continue;
            lo = any ? (v / base < lo ? v / base : lo) : v / base;
            hi = any ? (v / base > hi ? v / base : hi) : v / base;
            any = true;
        }
    if (any)
        wl_append(text, len, "odd strides at %.2fx to %.2fx", lo, hi);
    else
        wl_append(text, len, "odd strides n/a");
}

static void banks_conclude(const warplab_probe_result *r, char *text, size_t len)
{
    text[0] = '\0';
    static const char *const series[] = {"word4", "word8"};
    static const char *const names[] = {"4-byte words", "8-byte words"};
    for (int k = 0; k < 2; k++) {
        wl_append(text, len, "%s%s against stride 1: stride 2 at ", k ? "; " : "", names[k]);
        wl_probe_append_ratio(text, len, r, series[k], 2, series[k], 1);
        wl_append(text, len, ", stride 4 at ");
        wl_probe_append_ratio(text, len, r, series[k], 4, series[k], 1);
        wl_append(text, len, ", stride 32 at ");
        wl_probe_append_ratio(text, len, r, series[k], 32, series[k], 1);
        wl_append(text, len, ", ");
        append_odd_range(text, len, r, series[k]);
        wl_append(text, len, ", broadcast at ");
        wl_probe_append_ratio(text, len, r, series[k], 0, series[k], 1);
    }
}

static const wl_probe_section banks_sections[] = {
    {.ladder = &banks_ladder,
     .name = "banks",
     .title = "shared-memory load bandwidth against stride (0 = broadcast)",
     .x_label = "stride (words)",
     .unit = "GB/s",
     .metric = WL_PROBE_BYTES,
     .points = banks_points},
};

const wl_probe wl_probe_banks = {
    .name = "banks",
    .title = "shared-memory bandwidth against access stride 0..33, 4- and 8-byte words",
    .course = "seed 003, 'HW organizace sdílené paměti', 'Konflikty bank', 'Broadcast'",
    .size_meaning = "threads (default: every SM full on a GPU, 4096 on a CPU)",
    .sections = banks_sections,
    .section_count = 1,
    .setup = banks_setup,
    .conclude = banks_conclude,
};
