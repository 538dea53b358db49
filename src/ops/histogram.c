/* The library's histogram (include/warplab.h): warplab_histogram checks every
 * argument, then runs the histogram ladder's best implementation on the
 * context's device (wl_context_run_op, its candidates below): the dispatch rung on cuda, the
 * per-group local-memory histogram on opencl, the host loop on cpu. The bin
 * rule is src/kernels/histogram_bins.h; the rungs that climb to it are the
 * histogram ladder (src/ladders/histogram/). */
#include "core/context.h"
#include "kernels/histogram_bins.h"
#include "ops/ops.h"

#include <float.h>
#include <math.h>
#include <string.h>

static const char *const sample_names[WARPLAB_HISTOGRAM_SAMPLE_COUNT] = {"uint8", "int32", "float"};

const char *warplab_histogram_sample_name(warplab_histogram_sample sample)
{
    return (unsigned)sample < WARPLAB_HISTOGRAM_SAMPLE_COUNT ? sample_names[sample] : "unknown";
}

static bool is_int32(double x)
{
    return x >= (double)INT32_MIN && x <= (double)INT32_MAX && x == floor(x);
}

/* The bounds: finite, lower < upper; integers in int32 for integer samples;
 * for float samples, lower < upper after rounding to float and a width that
 * is finite in float (the scale CUB computes). */
/* The implementations it runs, best first: the rung the ladder climbs to,
 * then, on a backend without it, the ladder's other rungs from the top down
 * (the host loops on the cpu backend). */
static const wl_op_candidate histogram_candidates[] = {
    {.impl = "dispatch"},
    {.impl = "run_aggregate"},
    {.impl = "vector_loads"},
    {.impl = "warp_shared"},
    {.impl = "block_shared"},
    {.impl = "global_atomics"},
    {.impl = "cpu_loop", .host = true},
};
const wl_op wl_histogram_op = {.name = "histogram",
                               .candidates = histogram_candidates,
                               .count =
                                   sizeof histogram_candidates / sizeof histogram_candidates[0]};

static warplab_status check_range(warplab_context *context, warplab_histogram_sample sample,
                                  double lower, double upper)
{
    if (isnan(lower) || isnan(upper) || isinf(lower) || isinf(upper))
        return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                               "the range [%g, %g) needs finite bounds", lower, upper);
    if (!(lower < upper))
        return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                               "the range [%g, %g) is empty: lower must be below upper", lower,
                               upper);
    if (sample != WARPLAB_HISTOGRAM_FLOAT32) {
        if (!is_int32(lower) || !is_int32(upper))
            return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                                   "%s samples take integer bounds in int32's range, not [%g, "
                                   "%g)",
                                   sample_names[sample], lower, upper);
        return WARPLAB_OK;
    }
    if (fabs(lower) > FLT_MAX || fabs(upper) > FLT_MAX)
        return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                               "the range [%g, %g) is past float's", lower, upper);
    const float low = (float)lower, high = (float)upper;
    const float width = high - low;
    if (!(low < high))
        return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                               "the range [%g, %g) is empty in float", lower, upper);
    if (isinf(width))
        return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                               "the range [%g, %g) is wider than float holds (upper - lower "
                               "overflows)",
                               lower, upper);
    return WARPLAB_OK;
}

static warplab_status warplab_histogram_checked(warplab_context *context,
                                                warplab_histogram_sample sample,
                                                const warplab_buffer *input, size_t n, size_t bins,
                                                double lower, double upper, warplab_buffer *counts,
                                                size_t counts_offset)
{
    if (!input || !counts)
        return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                               "warplab_histogram needs an input and a counts buffer");
    if ((unsigned)sample >= WARPLAB_HISTOGRAM_SAMPLE_COUNT)
        return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                               "no sample type %d (uint8, int32 or float)", (int)sample);
    if (bins == 0 || bins > WL_HISTOGRAM_MAX_BINS)
        return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                               "%zu bins: a histogram has 1 to 2^31 - 2 bins", bins);
    if (n > WL_HISTOGRAM_MAX_SAMPLES)
        return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                               "%zu samples: at most 2^32 - 1 per call (the counts are uint32); "
                               "count larger inputs in parts and add the counts",
                               n);
    warplab_status status = check_range(context, sample, lower, upper);
    if (status != WARPLAB_OK)
        return status;
    const size_t element = sample == WARPLAB_HISTOGRAM_UINT8 ? 1 : 4;
    status = wl_check_operand(context, input, "the input buffer", n, element);
    if (status != WARPLAB_OK)
        return status;
    if (counts->context != context)
        return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                               "the counts buffer belongs to another context");
    const size_t count_bytes = bins * sizeof(uint32_t); /* bins < 2^31: no overflow */
    if (counts_offset > warplab_buffer_size(counts) ||
        warplab_buffer_size(counts) - counts_offset < count_bytes)
        return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                               "%zu counts (%zu bytes) at offset %zu are past the end of a "
                               "%zu-byte counts buffer",
                               bins, count_bytes, counts_offset, warplab_buffer_size(counts));
    if (!wl_buffer_aligned(counts, counts_offset, sizeof(uint32_t)))
        return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                               "the counts (offset %zu) do not start on a 4-byte boundary",
                               counts_offset);
    if (wl_buffers_overlap(counts, counts_offset, count_bytes, input, 0, n * element))
        return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                               "the counts overlap the %zu samples being counted; they need "
                               "memory of their own",
                               n);
    wl_problem problem;
    memset(&problem, 0, sizeof problem);
    problem.dim[0] = n;
    problem.dim[1] = bins;
    problem.dims = 2;
    problem.variant = (int)sample;
    problem.dtype = sample == WARPLAB_HISTOGRAM_FLOAT32 ? WARPLAB_FLOAT32 : WARPLAB_INT32;
    problem.alpha = lower;
    problem.beta = upper;
    const wl_view views[2] = {wl_buffer_view(input, 0, n * element),
                              wl_buffer_view(counts, counts_offset, count_bytes)};
    return wl_context_run_op(context, &wl_histogram_op, &problem, views, 2);
}

warplab_status warplab_histogram(warplab_context *context, warplab_histogram_sample sample,
                                 const warplab_buffer *input, size_t n, size_t bins, double lower,
                                 double upper, warplab_buffer *counts, size_t counts_offset_bytes)
{
    if (!context)
        return wl_api_no_context("warplab_histogram", "the context");
    wl_api_begin(context);
    return wl_api_end(context, "warplab_histogram",
                      warplab_histogram_checked(context, sample, input, n, bins, lower, upper,
                                                counts, counts_offset_bytes));
}
