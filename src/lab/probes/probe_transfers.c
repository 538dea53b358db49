/* The transfers probe (seed 003, 'Komunikace CPU-GPU': minimise transfers,
 * page-locked memory is faster, large copies are better, overlap copies
 * with computation; seed 001's explicit copies): host-device bandwidth over
 * copy sizes 4 KiB to 1 GiB from pageable and from pinned (page-locked)
 * host memory, and a large array processed in chunks on 1, 2, 4 and 8
 * streams, copies overlapping kernels, against the serial version.
 *
 * bandwidth: dim[0] = floats, param = bytes. A host array holds the input's
 *   values (h2d copies it into out) or receives in (d2h; the harness then
 *   checks what arrived, put back into out untimed). Pinned arrays are
 *   allocated once per point, untimed.
 * overlap: dim[0] = floats, dim[1] = FMA steps per element, dim[2] = chunks,
 *   param = streams. Each chunk is copied in, run through the FMA chain and
 *   copied out; its result is what came back to the host. Timing: CUDA
 *   events on the harness's stream, the other streams joined to it by
 *   events, so the time covers the whole pipeline.
 * intensity (seed 003, 'GPU vs. CPU'): dim[0] = floats, dim[1] = param = k
 *   FMAs per element. The same FMA chain end to end: on the GPU with its
 *   copies in and out (pinned and pageable host arrays), on the GPU alone
 *   (the data already there), and on every CPU core (the cpu backend,
 *   src/lab/probes/probe_cpu.c); the conclusion finds the k where the GPU's
 *   copies start to pay (flop/byte = 2k flops / 8 bytes over the bus).
 * latency (seed 003, 'Latence GPU'): dim[0] = param = floats, dim[1] =
 *   WL_LATENCY_K FMAs each: small arrays, where the launch and the copies'
 *   fixed cost, not the bytes, set the GPU's time. */
#include "ladders/ladder_util.h"
#include "probe.h"
#include "probe_kernels.h"

#include <math.h>
#include <string.h>

enum { TRANSFER_IN = 0, TRANSFER_OUT };

static int transfer_buffers(const wl_problem *p, wl_buffer_spec *spec)
{
    spec[TRANSFER_IN] = (wl_buffer_spec){WL_IN, WARPLAB_FLOAT32, p->dim[0], -1.0, 1.0};
    spec[TRANSFER_OUT] = (wl_buffer_spec){WL_OUT, WARPLAB_FLOAT32, p->dim[0], 0.0, 0.0};
    return 2;
}

static warplab_status copy_verify(const wl_problem *p, const void *const *host, wl_check *check)
{
    const float *in = host[TRANSFER_IN], *out = host[TRANSFER_OUT];
    for (size_t i = 0; i < p->dim[0]; i++)
        wl_check_value(check, i, (double)out[i], (double)in[i], 0.0);
    return check->bad ? WARPLAB_ERROR_VERIFICATION_FAILED : WARPLAB_OK;
}

static double one_way_bytes(const wl_problem *p)
{
    return 4.0 * (double)p->dim[0];
}

#define COPY(id_, title_, lesson_)                                                                 \
    {                                                                                              \
        .id = id_, .title = title_, .lesson = lesson_, .course = "seed 003, 'Komunikace CPU-GPU'", \
        .flags = WL_RUNG_TRANSFER                                                                  \
    }

static const wl_rung bandwidth_series[] = {
    COPY("pageable_h2d", "host to device, pageable (malloc) memory",
         "The driver cannot DMA from pageable memory: it copies through a pinned staging "
         "buffer, chunk by chunk."),
    COPY("pinned_h2d", "host to device, pinned (cudaMallocHost) memory",
         "Page-locked memory is read by the copy engine directly: the course's 'page-locked "
         "memory speeds transfers up'."),
    COPY("pageable_d2h", "device to host, pageable memory", "The same staging on the way back."),
    COPY("pinned_d2h", "device to host, pinned memory",
         "The copy engine writes the page-locked host array directly."),
};

static void bandwidth_describe(const wl_problem *p, char *text, size_t len)
{
    char bytes[32];
    wl_format_bytes(bytes, sizeof bytes, (double)p->param);
    wl_format(text, len, "%s copy", bytes);
}

static int bandwidth_test_problems(const warplab_device_info *device, wl_problem *problems,
                                   int capacity)
{
    (void)device;
    static const size_t floats[] = {1, 1024 + 1, 1 << 18};
    int count = 0;
    for (size_t i = 0; i < sizeof floats / sizeof floats[0] && count < capacity; i++)
        problems[count++] = wl_probe_point(floats[i], 0, 0, (long)(4 * floats[i]));
    return count;
}

static const wl_ladder bandwidth_ladder = {
    .name = "transfers",
    .title = "transfers: host-device bandwidth against copy size",
    .rungs = bandwidth_series,
    .rung_count = sizeof bandwidth_series / sizeof bandwidth_series[0],
    .describe = bandwidth_describe,
    .leading_size = wl_probe_leading_size,
    .buffers = transfer_buffers,
    .verify = copy_verify,
    .bytes = one_way_bytes,
    .test_problems = bandwidth_test_problems,
};

/* The overlap pipeline: out = the FMA chain of in, through the host. */
static warplab_status chain_verify(const wl_problem *p, const void *const *host, wl_check *check)
{
    const float *in = host[TRANSFER_IN], *out = host[TRANSFER_OUT];
    const long steps = (long)p->dim[1];
    for (size_t i = 0; i < p->dim[0]; i++)
        wl_check_value(check, i, (double)out[i], wl_chain_reference(in[i], WL_OVERLAP_B, steps),
                       wl_chain_bound(in[i], WL_OVERLAP_B, steps));
    return check->bad ? WARPLAB_ERROR_VERIFICATION_FAILED : WARPLAB_OK;
}

/* Bytes over the bus: the array in and the result out. */
static double both_ways_bytes(const wl_problem *p)
{
    return 8.0 * (double)p->dim[0];
}
static double chain_flops(const wl_problem *p)
{
    return 2.0 * (double)p->dim[0] * (double)p->dim[1];
}

static warplab_status serial_supported(const wl_problem *p, const warplab_device_info *device,
                                       char *reason, size_t len)
{
    (void)device;
    if (p->param != 1) {
        wl_format(reason, len, "the serial pipeline uses one stream (drawn as a level)");
        return WARPLAB_ERROR_UNSUPPORTED;
    }
    return WARPLAB_OK;
}

static warplab_status streams_supported(const wl_problem *p, const warplab_device_info *device,
                                        char *reason, size_t len)
{
    (void)device;
    if (p->param < 1 || p->param > 8 || p->dim[2] < 1) {
        wl_format(reason, len, "1 to 8 streams, at least one chunk");
        return WARPLAB_ERROR_UNSUPPORTED;
    }
    return WARPLAB_OK;
}

static const wl_rung overlap_series[] = {
    {.id = "serial",
     .title = "copy all in, run, copy all out",
     .lesson = "One stream, whole array: the copy engines and the SMs take turns, each idle "
               "while another works.",
     .course = "seed 003, 'Komunikace CPU-GPU'",
     .flags = WL_RUNG_TRANSFER,
     .supports = serial_supported},
    {.id = "chunked",
     .title = "chunks round-robin on the streams",
     .lesson = "16 chunks, each copied in, computed and copied out on its stream: with 2 or "
               "more streams, one chunk's copy in overlaps another's kernel and a third's copy "
               "out (copy engines both ways, SMs).",
     .course = "seed 003, 'je výhodné překrýt výpočet s přenosem'",
     .flags = WL_RUNG_TRANSFER,
     .supports = streams_supported},
};

static void overlap_describe(const wl_problem *p, char *text, size_t len)
{
    wl_format(text, len, "%ld streams, n=%zu float, %zu chunks", p->param, p->dim[0], p->dim[2]);
}

static int overlap_test_problems(const warplab_device_info *device, wl_problem *problems,
                                 int capacity)
{
    (void)device;
    static const long streams[] = {1, 2, 8};
    int count = 0;
    for (size_t s = 0; s < sizeof streams / sizeof streams[0] && count < capacity; s++)
        problems[count++] = wl_probe_point(100003, 64, WL_OVERLAP_CHUNKS, streams[s]);
    if (count < capacity) /* fewer elements than chunks */
        problems[count++] = wl_probe_point(5, 64, WL_OVERLAP_CHUNKS, 4);
    return count;
}

static const wl_ladder overlap_ladder = {
    .name = "overlap",
    .title = "transfers: copies overlapping kernels on streams",
    .rungs = overlap_series,
    .rung_count = sizeof overlap_series / sizeof overlap_series[0],
    .describe = overlap_describe,
    .leading_size = wl_probe_leading_size,
    .buffers = transfer_buffers,
    .verify = chain_verify,
    .bytes = both_ways_bytes,
    .flops = chain_flops,
    .test_problems = overlap_test_problems,
};

/* ------------------------------------------------------------------------ */
/* GPU against CPU, end to end                                              */

/* One element a figure: elements per second, whatever k. */
static double chain_elements(const wl_problem *p)
{
    return (double)p->dim[0];
}

#define END_TO_END(id_, title_, lesson_, flags_)                                                   \
    {                                                                                              \
        .id = id_, .title = title_, .lesson = lesson_, .course = "seed 003, 'GPU vs. CPU'",        \
        .flags = flags_                                                                            \
    }

#define LESSON_PINNED                                                                              \
    "The array in from page-locked host memory, the chain on the GPU, the result back: what a "    \
    "caller with data on the host pays for the GPU's answer."
#define LESSON_PAGEABLE                                                                            \
    "The same from malloc'ed memory: the driver stages each copy through a pinned buffer."
#define LESSON_RESIDENT "The kernel alone, the data already on the GPU: no bus."
#define LESSON_CPU                                                                                 \
    "The same chain on every CPU core (the cpu backend's threads, in double: the host build has "  \
    "no FMA instruction to rely on), the data where it already is."

static const wl_rung intensity_series[] = {
    END_TO_END("pinned", "GPU with copies in and out, pinned", LESSON_PINNED, WL_RUNG_TRANSFER),
    END_TO_END("pageable", "GPU with copies in and out, pageable", LESSON_PAGEABLE,
               WL_RUNG_TRANSFER),
    END_TO_END("resident", "GPU kernel alone", LESSON_RESIDENT, WL_RUNG_TRANSFER),
    END_TO_END("cpu_cores", "every CPU core", LESSON_CPU, WL_RUNG_TRANSFER | WL_RUNG_HOST),
};

static const wl_rung latency_series[] = {
    END_TO_END("small_pinned", "GPU with copies in and out, pinned", LESSON_PINNED,
               WL_RUNG_TRANSFER),
    END_TO_END("small_resident", "GPU kernel alone", LESSON_RESIDENT, WL_RUNG_TRANSFER),
    END_TO_END("small_cpu", "every CPU core", LESSON_CPU, WL_RUNG_TRANSFER | WL_RUNG_HOST),
};

static void intensity_describe(const wl_problem *p, char *text, size_t len)
{
    wl_format(text, len, "n=%zu float, %zu FMAs an element", p->dim[0], p->dim[1]);
}

static int intensity_test_problems(const warplab_device_info *device, wl_problem *problems,
                                   int capacity)
{
    (void)device;
    static const size_t floats[] = {1, 5, 100003};
    static const long fmas[] = {1, 64};
    int count = 0;
    for (size_t i = 0; i < sizeof floats / sizeof floats[0]; i++)
        for (size_t k = 0; k < sizeof fmas / sizeof fmas[0] && count < capacity; k++)
            problems[count++] = wl_probe_point(floats[i], (size_t)fmas[k], 0, fmas[k]);
    return count;
}

static int latency_test_problems(const warplab_device_info *device, wl_problem *problems,
                                 int capacity)
{
    (void)device;
    static const size_t floats[] = {1, 257, 100003};
    int count = 0;
    for (size_t i = 0; i < sizeof floats / sizeof floats[0] && count < capacity; i++)
        problems[count++] = wl_probe_point(floats[i], WL_LATENCY_K, 0, (long)floats[i]);
    return count;
}

static const wl_ladder intensity_ladder = {
    .name = "intensity",
    .title = "transfers: GPU against CPU end to end, against FMAs per element",
    .rungs = intensity_series,
    .rung_count = sizeof intensity_series / sizeof intensity_series[0],
    .describe = intensity_describe,
    .leading_size = wl_probe_leading_size,
    .buffers = transfer_buffers,
    .verify = chain_verify,
    .bytes = both_ways_bytes,
    .flops = chain_elements,
    .test_problems = intensity_test_problems,
};

static const wl_ladder latency_ladder = {
    .name = "latency_bound",
    .title = "transfers: GPU against CPU end to end, small arrays",
    .rungs = latency_series,
    .rung_count = sizeof latency_series / sizeof latency_series[0],
    .describe = intensity_describe,
    .leading_size = wl_probe_leading_size,
    .buffers = transfer_buffers,
    .verify = chain_verify,
    .bytes = both_ways_bytes,
    .flops = chain_elements,
    .test_problems = latency_test_problems,
};

/* The largest copy in bytes; a multiple of 4. */
static size_t largest_copy(const warplab_device_info *device, size_t size)
{
    size_t bytes = size ? size : device->gpu ? (size_t)1 << 30 : (size_t)1 << 26;
    return bytes < 4096 ? 4096 : bytes / 4 * 4;
}
static size_t overlap_floats(const warplab_device_info *device, size_t size)
{
    return largest_copy(device, size) / 16;
}
#define OVERLAP_STEPS 2048
#define WL_INTENSITY_MAX_K 1024

static int bandwidth_points(const warplab_device_info *device, size_t size, wl_problem *problems,
                            int capacity)
{
    const size_t largest = largest_copy(device, size);
    int count = 0;
    for (size_t bytes = 4096; bytes <= largest && count < capacity; bytes *= 4)
        problems[count++] = wl_probe_point(bytes / 4, 0, 0, (long)bytes);
    if (count > 0 && problems[count - 1].param != (long)largest && count < capacity)
        problems[count++] = wl_probe_point(largest / 4, 0, 0, (long)largest);
    return count;
}

static int overlap_points(const warplab_device_info *device, size_t size, wl_problem *problems,
                          int capacity)
{
    int count = 0;
    for (long streams = 1; streams <= 8 && count < capacity; streams *= 2)
        problems[count++] =
            wl_probe_point(overlap_floats(device, size), OVERLAP_STEPS, WL_OVERLAP_CHUNKS, streams);
    return count;
}

/* k = 1, 4, 16, ... 1024 FMAs an element over the overlap's array. */
static int intensity_points(const warplab_device_info *device, size_t size, wl_problem *problems,
                            int capacity)
{
    int count = 0;
    for (long k = 1; k <= WL_INTENSITY_MAX_K && count < capacity; k *= 4)
        problems[count++] = wl_probe_point(overlap_floats(device, size), (size_t)k, 0, k);
    return count;
}

/* 256 floats (1 KiB) to 2^22 (16 MiB, where the copies' bytes, not their
 * latency, set the time) or the overlap's array if smaller, 4x apart. */
#define LATENCY_LARGEST ((size_t)1 << 22)
static int latency_points(const warplab_device_info *device, size_t size, wl_problem *problems,
                          int capacity)
{
    size_t largest = overlap_floats(device, size);
    if (largest > LATENCY_LARGEST)
        largest = LATENCY_LARGEST;
    int count = 0;
    for (size_t n = 256; n <= largest && count < capacity; n *= 4)
        problems[count++] = wl_probe_point(n, WL_LATENCY_K, 0, (long)n);
    return count;
}

static void transfers_setup(const warplab_device_info *device, size_t size, char *text, size_t len)
{
    char largest[32], array[32];
    wl_format_bytes(largest, sizeof largest, (double)largest_copy(device, size));
    wl_format_bytes(array, sizeof array, 4.0 * (double)overlap_floats(device, size));
    char small[32];
    const size_t floats = overlap_floats(device, size);
    wl_format_bytes(small, sizeof small,
                    4.0 * (double)(floats < LATENCY_LARGEST ? floats : LATENCY_LARGEST));
    wl_format(text, len,
              "copies of 4 KiB to %s; overlap: %s in %d chunks, %d dependent FMAs per element; "
              "intensity: the same %s, 1 to %d FMAs an element; latency_bound: 1 KiB to %s, %d "
              "FMAs an element",
              largest, array, WL_OVERLAP_CHUNKS, OVERLAP_STEPS, array, WL_INTENSITY_MAX_K, small,
              WL_LATENCY_K);
}

/* Where a over b crosses 1 in log-log, between x0 (ratio r0 <= 1) and x1
 * (ratio r1 > 1). */
static double crossing(double x0, double r0, double x1, double r1)
{
    const double t = (0.0 - log(r0)) / (log(r1) - log(r0));
    return exp(log(x0) + t * (log(x1) - log(x0)));
}

/* GPU against CPU end to end: who wins at k = 1, and the k where the GPU's
 * copies start to pay (the first crossing of the pinned rate over the
 * CPU's, interpolated in log-log between the two points around it). */
static void conclude_intensity(const warplab_probe_result *r, char *text, size_t len)
{
    double gpu1, cpu1;
    if (!wl_probe_value(r, "pinned", 1, &gpu1) || !wl_probe_value(r, "cpu_cores", 1, &cpu1))
        return;
    wl_append(text, len,
              "; end to end at 1 FMA an element (0.25 flop a byte over the bus): the GPU with "
              "pinned copies %s the CPU's cores by %.2fx",
              gpu1 >= cpu1 ? "beats" : "loses to", gpu1 >= cpu1 ? gpu1 / cpu1 : cpu1 / gpu1);
    double pageable, resident;
    if (wl_probe_value(r, "pageable", 1, &pageable))
        wl_append(text, len, " (pageable: %.2fx the CPU's rate)", pageable / cpu1);
    if (wl_probe_value(r, "resident", 1, &resident))
        wl_append(text, len, ", its kernel alone %.0fx the CPU's", resident / cpu1);
    /* The first k where the GPU pulls ahead, after a k where it did not. */
    double k_before = 0, ratio_before = 0, k_max = 0, k_first_behind = 0;
    bool crossed = false, ever_behind = false, ever_ahead = false;
    for (double k = 1; k <= WL_INTENSITY_MAX_K; k *= 4) {
        double gpu, cpu;
        if (!wl_probe_value(r, "pinned", k, &gpu) || !wl_probe_value(r, "cpu_cores", k, &cpu))
            continue;
        const double ratio = gpu / cpu;
        k_max = k;
        if (ratio <= 1.0) {
            if (!ever_behind)
                k_first_behind = k;
            ever_behind = true;
            k_before = k, ratio_before = ratio;
        } else if (!ever_behind) {
            ever_ahead = true;
        } else if (!crossed) {
            const double k_even = crossing(k_before, ratio_before, k, ratio);
            wl_append(text, len,
                      "; break-even at about k = %.0f FMAs an element (%.1f flop a byte), "
                      "interpolated between k = %.0f (GPU %.2fx the CPU's rate) and k = %.0f "
                      "(%.2fx): past it the copies pay",
                      k_even, k_even / 4.0, k_before, ratio_before, k, ratio);
            crossed = true;
        }
    }
    if (!ever_behind)
        wl_append(text, len, "; no break-even to find: the GPU wins at every k measured");
    else if (!crossed && !ever_ahead)
        wl_append(text, len,
                  "; no break-even up to k = %.0f FMAs an element (%.0f flop a byte): the CPU "
                  "wins at every k measured",
                  k_max, k_max / 4.0);
    else if (!crossed)
        wl_append(text, len,
                  "; no break-even: the GPU leads at the smallest k and falls behind from k = "
                  "%.0f on",
                  k_first_behind);
}

/* The latency-bound case: the smallest array's times, and the size from
 * which the GPU with its copies beats the CPU. */
static void conclude_latency(const warplab_probe_result *r, char *text, size_t len)
{
    double smallest = 0;
    for (size_t i = 0; r->report && i < r->report->row_count; i++) {
        const warplab_row *row = &r->report->rows[i];
        double value;
        if (strcmp(row->ladder, "latency_bound") == 0 && (smallest == 0 || row->size < smallest) &&
            wl_probe_value(r, "small_pinned", row->size, &value) &&
            wl_probe_value(r, "small_cpu", row->size, &value))
            smallest = row->size;
    }
    double gpu, cpu, resident;
    if (!(smallest > 0) || !wl_probe_value(r, "small_pinned", smallest, &gpu) ||
        !wl_probe_value(r, "small_cpu", smallest, &cpu))
        return;
    /* Elements per second (in G) to microseconds for the array. */
    const double gpu_us = smallest / (gpu * 1e3), cpu_us = smallest / (cpu * 1e3);
    wl_append(text, len,
              "; latency-bound: %.0f floats (%d FMAs each) take %.1f us on the GPU with copies",
              smallest, WL_LATENCY_K, gpu_us);
    if (wl_probe_value(r, "small_resident", smallest, &resident))
        wl_append(text, len, " (the kernel alone: %.1f us)", smallest / (resident * 1e3));
    wl_append(text, len, " against %.1f us on the CPU", cpu_us);
    double from = 0;
    for (double n = smallest; n <= 1e12; n *= 4) {
        double g, c;
        if (!wl_probe_value(r, "small_pinned", n, &g) || !wl_probe_value(r, "small_cpu", n, &c))
            break;
        if (g > c && from == 0)
            from = n;
        else if (g <= c)
            from = 0;
    }
    if (from == smallest)
        wl_append(text, len, "; the GPU wins even there");
    else if (from > 0)
        wl_append(text, len, "; the GPU wins from %.0f floats on", from);
    else
        wl_append(text, len, "; the CPU wins at every size measured");
}

static void transfers_conclude(const warplab_probe_result *r, char *text, size_t len)
{
    text[0] = '\0';
    double largest = 0, value;
    for (size_t i = 0; r->report && i < r->report->row_count; i++)
        if (strcmp(r->report->rows[i].ladder, "transfers") == 0 &&
            r->report->rows[i].size > largest &&
            wl_probe_value(r, r->report->rows[i].rung, r->report->rows[i].size, &value))
            largest = r->report->rows[i].size;
    char bytes[32];
    wl_format_bytes(bytes, sizeof bytes, largest);
    double pinned, pageable;
    wl_append(text, len, "at %s, pinned against pageable: host to device ", bytes);
    wl_probe_append_ratio(text, len, r, "pinned_h2d", largest, "pageable_h2d", largest);
    if (wl_probe_value(r, "pinned_h2d", largest, &pinned) &&
        wl_probe_value(r, "pageable_h2d", largest, &pageable))
        wl_append(text, len, " (%.1f against %.1f GB/s)", pinned, pageable);
    wl_append(text, len, ", device to host ");
    wl_probe_append_ratio(text, len, r, "pinned_d2h", largest, "pageable_d2h", largest);
    wl_append(text, len, "; a 4 KiB pinned copy reaches ");
    wl_probe_append_ratio(text, len, r, "pinned_h2d", 4096, "pinned_h2d", largest);
    wl_append(text, len, " of the %s rate", bytes);
    double best_x, best;
    if (wl_probe_extreme(r, "chunked", 1, 8, true, &best_x, &best)) {
        wl_append(text, len, "; overlap: %.0f streams ", best_x);
        wl_probe_append_ratio(text, len, r, "chunked", best_x, "serial", 1);
        wl_append(text, len, " the serial pipeline's rate (1 stream of chunks: ");
        wl_probe_append_ratio(text, len, r, "chunked", 1, "serial", 1);
        wl_append(text, len, ")");
    }
    conclude_intensity(r, text, len);
    conclude_latency(r, text, len);
}

static const wl_probe_section transfers_sections[] = {
    {.ladder = &bandwidth_ladder,
     .name = "bandwidth",
     .title = "host-device copy bandwidth against copy size",
     .x_label = "bytes",
     .unit = "GB/s",
     .metric = WL_PROBE_BYTES,
     .log_x = true,
     .x_is_bytes = true,
     .points = bandwidth_points},
    {.ladder = &overlap_ladder,
     .name = "overlap",
     .title = "copy in, compute, copy out: bytes over the bus per second",
     .x_label = "streams",
     .unit = "GB/s",
     .metric = WL_PROBE_BYTES,
     .log_x = true,
     .points = overlap_points},
    {.ladder = &intensity_ladder,
     .name = "intensity",
     .title = "GPU against CPU end to end, against FMAs per element (elements per second)",
     .x_label = "FMAs an element",
     .unit = "Gelem/s",
     .metric = WL_PROBE_OPS,
     .log_x = true,
     .points = intensity_points},
    {.ladder = &latency_ladder,
     .name = "latency_bound",
     .title = "GPU against CPU end to end, small arrays (elements per second)",
     .x_label = "floats",
     .unit = "Gelem/s",
     .metric = WL_PROBE_OPS,
     .log_x = true,
     .points = latency_points},
};

const wl_probe wl_probe_transfers = {
    .name = "transfers",
    .title = "host-device bandwidth, pageable against pinned, 4 KiB..1 GiB; overlap on streams; "
             "GPU against CPU end to end",
    .course = "seed 003, 'Komunikace CPU-GPU', 'GPU vs. CPU', 'Latence GPU'; seed 004, 'Next "
              "time' (pinned memory, streams, overlapping kernels with transfers)",
    .size_meaning = "bytes of the largest copy (default 1 GiB on a GPU); the overlap and "
                    "intensity arrays are a quarter of it",
    .sections = transfers_sections,
    .section_count = 4,
    .setup = transfers_setup,
    .conclude = transfers_conclude,
};
