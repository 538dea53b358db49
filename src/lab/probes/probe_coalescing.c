/* The coalescing probe (seed 003, 'Sdružený přístup do paměti' and 'Výkon
 * při prokládaném přístupu'): the bandwidth of a float copy whose accesses
 * are shifted by an offset, and of one that reads with a stride, on arrays
 * far beyond L2 (the course's two figures, measured on today's GPU).
 *
 * Problem: dim[0] = n, the elements of each array; param = offset or stride.
 * Both series share the buffers (in and out, n floats each):
 *   offset: out[i + offset] = in[i + offset] for i < n - 32 (reads and writes
 *           shifted, so every warp's 128 bytes straddle two segments unless
 *           the offset is a multiple of 32); the same bytes at every offset;
 *   stride: out[i] = in[i * stride] for i < n / stride (reads strided, writes
 *           coalesced), so a warp's reads touch up to 32 sectors.
 * Elements a series does not write must still hold the poison. */
#include "ladders/ladder_util.h"
#include "probe.h"

#include <string.h>

enum { COPY_IN = 0, COPY_OUT };

#define MAX_SHIFT 32 /* largest offset and stride; the offset copy leaves this many out */

static size_t offset_count(const wl_problem *p)
{
    return p->dim[0] - MAX_SHIFT;
}
static size_t stride_count(const wl_problem *p)
{
    return p->param > 0 ? p->dim[0] / (size_t)p->param : 0;
}

/* Useful bytes: each copied element is read once and written once. */
static double offset_bytes(const wl_problem *p)
{
    return 8.0 * (double)offset_count(p);
}
static double stride_bytes(const wl_problem *p)
{
    return 8.0 * (double)stride_count(p);
}

static int copy_buffers(const wl_problem *p, wl_buffer_spec *spec)
{
    spec[COPY_IN] = (wl_buffer_spec){WL_IN, WARPLAB_FLOAT32, p->dim[0], -1.0, 1.0};
    spec[COPY_OUT] = (wl_buffer_spec){WL_OUT, WARPLAB_FLOAT32, p->dim[0], 0.0, 0.0};
    return 2;
}

static warplab_status offset_verify(const wl_problem *p, const void *const *host, wl_check *check)
{
    const float *in = host[COPY_IN], *out = host[COPY_OUT];
    const size_t first = (size_t)p->param, last = first + offset_count(p);
    for (size_t j = 0; j < p->dim[0]; j++) {
        if (j >= first && j < last)
            wl_check_value(check, j, (double)out[j], (double)in[j], 0.0);
        else
            wl_probe_check_poison(check, j, &out[j]);
    }
    return check->bad ? WARPLAB_ERROR_VERIFICATION_FAILED : WARPLAB_OK;
}

static warplab_status stride_verify(const wl_problem *p, const void *const *host, wl_check *check)
{
    const float *in = host[COPY_IN], *out = host[COPY_OUT];
    const size_t copied = stride_count(p), stride = (size_t)p->param;
    for (size_t i = 0; i < p->dim[0]; i++) {
        if (i < copied)
            wl_check_value(check, i, (double)out[i], (double)in[i * stride], 0.0);
        else
            wl_probe_check_poison(check, i, &out[i]);
    }
    return check->bad ? WARPLAB_ERROR_VERIFICATION_FAILED : WARPLAB_OK;
}

static warplab_status offset_supports(const wl_problem *p, const warplab_device_info *device,
                                      char *reason, size_t len)
{
    (void)device;
    if (p->param < 0 || p->param > MAX_SHIFT || p->dim[0] <= MAX_SHIFT) {
        wl_format(reason, len, "offsets run from 0 to %d on arrays of more than %d elements",
                  MAX_SHIFT, MAX_SHIFT);
        return WARPLAB_ERROR_UNSUPPORTED;
    }
    return WARPLAB_OK;
}

static warplab_status stride_supports(const wl_problem *p, const warplab_device_info *device,
                                      char *reason, size_t len)
{
    (void)device;
    if (p->param < 1 || p->param > MAX_SHIFT) {
        wl_format(reason, len, "strides run from 1 to %d (stride 0 copies nothing)", MAX_SHIFT);
        return WARPLAB_ERROR_UNSUPPORTED;
    }
    return WARPLAB_OK;
}

static const wl_rung coalescing_series[] = {
    {.id = "offset",
     .title = "copy shifted by an offset",
     .lesson = "out[i+k] = in[i+k]: a warp's 128 bytes start k floats past a 128-byte boundary "
               "and straddle two segments; since Fermi's caches the cost is a few percent, where "
               "c.c. 1.0 paid a transaction per element.",
     .course = "seed 003, 'Sdružený přístup do paměti' (offset figure)",
     .bytes = offset_bytes,
     .supports = offset_supports,
     .verify = offset_verify},
    {.id = "stride",
     .title = "copy reading with a stride",
     .lesson = "out[i] = in[i*s]: a warp's 32 reads spread over s x 128 bytes; every 32-byte "
               "sector fetched carries 32/s useful bytes until s reaches 8, then one float.",
     .course = "seed 003, 'Výkon při prokládaném přístupu' (stride figure)",
     .bytes = stride_bytes,
     .supports = stride_supports,
     .verify = stride_verify},
};

static void coalescing_describe(const wl_problem *p, char *text, size_t len)
{
    wl_format(text, len, "x=%ld, n=%zu float", p->param, p->dim[0]);
}

static int coalescing_test_problems(const warplab_device_info *device, wl_problem *problems,
                                    int capacity)
{
    (void)device;
    static const size_t sizes[] = {33, 100, 4099};
    static const long params[] = {0, 1, 2, 7, 31, 32};
    int count = 0;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (size_t k = 0; k < sizeof params / sizeof params[0] && count < capacity; k++)
            problems[count++] = wl_probe_point(sizes[s], 0, 0, params[k]);
    return count;
}

static const wl_ladder coalescing_ladder = {
    .name = "coalescing",
    .title = "coalescing: copy bandwidth against offset and stride",
    .rungs = coalescing_series,
    .rung_count = sizeof coalescing_series / sizeof coalescing_series[0],
    .describe = coalescing_describe,
    .leading_size = wl_probe_leading_size,
    .buffers = copy_buffers,
    .test_problems = coalescing_test_problems,
};

static size_t array_elements(const warplab_device_info *device, size_t size)
{
    if (size)
        return size;
    return device->gpu ? (size_t)1 << 25 : (size_t)1 << 20;
}

static int coalescing_points(const warplab_device_info *device, size_t size, wl_problem *problems,
                             int capacity)
{
    const size_t n = array_elements(device, size);
    int count = 0;
    if (n <= MAX_SHIFT)
        return 0;
    for (long x = 0; x <= MAX_SHIFT && count < capacity; x++)
        problems[count++] = wl_probe_point(n, 0, 0, x);
    return count;
}

static void coalescing_setup(const warplab_device_info *device, size_t size, char *text, size_t len)
{
    const size_t n = array_elements(device, size);
    char bytes[32];
    wl_format_bytes(bytes, sizeof bytes, 4.0 * (double)n);
    wl_format(text, len, "%s per array (%zu floats), 256 threads per block, an element per thread",
              bytes, n);
}

/* "offset 1: 0.99x of offset 0 (worst offset 5: 0.93x); stride 2: 0.52x of
 * stride 1, stride 4: 0.26x, stride 32: 0.04x" */
static void coalescing_conclude(const warplab_probe_result *r, char *text, size_t len)
{
    text[0] = '\0';
    wl_append(text, len, "offset 1: ");
    wl_probe_append_ratio(text, len, r, "offset", 1, "offset", 0);
    wl_append(text, len, " of offset 0");
    double worst_x, worst;
    if (wl_probe_extreme(r, "offset", 1, MAX_SHIFT, false, &worst_x, &worst)) {
        wl_append(text, len, " (worst offset %.0f: ", worst_x);
        wl_probe_append_ratio(text, len, r, "offset", worst_x, "offset", 0);
        wl_append(text, len, ")");
    }
    wl_append(text, len, "; stride 2: ");
    wl_probe_append_ratio(text, len, r, "stride", 2, "stride", 1);
    wl_append(text, len, " of stride 1, stride 4: ");
    wl_probe_append_ratio(text, len, r, "stride", 4, "stride", 1);
    wl_append(text, len, ", stride 32: ");
    wl_probe_append_ratio(text, len, r, "stride", 32, "stride", 1);
}

static const wl_probe_section coalescing_sections[] = {
    {.ladder = &coalescing_ladder,
     .name = "coalescing",
     .title = "copy bandwidth against access offset and stride",
     .x_label = "offset or stride",
     .unit = "GB/s",
     .metric = WL_PROBE_BYTES,
     .points = coalescing_points},
};

const wl_probe wl_probe_coalescing = {
    .name = "coalescing",
    .title = "copy bandwidth against access offset (0..32) and stride (1..32)",
    .course = "seed 003, 'Sdružený přístup do paměti', 'Výkon při prokládaném přístupu'",
    .size_meaning = "elements per array (default 2^25 on a GPU, 2^20 on a CPU)",
    .sections = coalescing_sections,
    .section_count = 1,
    .setup = coalescing_setup,
    .conclude = coalescing_conclude,
};
