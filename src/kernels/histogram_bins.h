/* The histogram's problem layout and bin rule, shared by the operation, its
 * ladder and the cpu and cuda launchers (C11 and CUDA; the OpenCL kernels in
 * kernels/histogram.cl repeat the two bin functions word for word).
 *
 * A problem: dim[0] = n samples, dim[1] = bins, variant = the sample type
 * (wl_histogram_sample: 8-bit unsigned, int32, float), alpha = lower, beta =
 * upper (the range [lower, upper)), param = the data distribution the ladder
 * draws (uniform or skewed; the kernels never look at it).
 *
 * The bin of a sample x is cub::DeviceHistogram::HistogramEven's
 * (dispatch_histogram.cuh, ScaleTransform):
 *   - x counts only when lower <= x < upper (a NaN fails both tests);
 *   - integer samples (8-bit and int32; levels int32):
 *       bin = (x - lower) * bins / (upper - lower), in unsigned 64-bit
 *     arithmetic (CUB's IntArithmeticT for 4-byte samples), so no rounding;
 *     x - lower is taken modulo 2^32, which is exact for every range up to
 *     2^32 - 1 (CUB's int32 difference is exact below 2^31, where the two
 *     agree);
 *   - float samples (levels float): scale = (float)bins / (upper - lower)
 *     and bin = (int)((x - lower) * scale), each step rounded to float as
 *     CUB computes it. Where that rounds up to bins itself (x just below
 *     upper, for some ranges) CUB would count past its last bin; warplab
 *     counts it in the last bin, bins - 1. */
#ifndef WARPLAB_HISTOGRAM_BINS_H
#define WARPLAB_HISTOGRAM_BINS_H

#include "internal.h"

#ifdef __CUDACC__
#define WL_HISTOGRAM_HD __host__ __device__
#else
#define WL_HISTOGRAM_HD
#endif

/* The sample types (the problem's variant; the public
 * warplab_histogram_sample in the same order). */
typedef enum wl_histogram_sample {
    WL_HISTOGRAM_UINT8 = 0,
    WL_HISTOGRAM_INT32,
    WL_HISTOGRAM_FLOAT32
} wl_histogram_sample;

/* The ladder's data distributions (the problem's param). */
typedef enum wl_histogram_distribution {
    WL_HISTOGRAM_UNIFORM = 0, /* samples drawn evenly over a little more than the range */
    WL_HISTOGRAM_SKEWED       /* every sample the same value: one bin takes them all */
} wl_histogram_distribution;

/* The most samples one call counts: the counts are uint32 and cannot wrap. */
#define WL_HISTOGRAM_MAX_SAMPLES ((size_t)UINT32_MAX)
/* The most bins (CUB's int num_levels = bins + 1). */
#define WL_HISTOGRAM_MAX_BINS ((size_t)INT32_MAX - 1)

/* The bin rule's constants for one call, computed once on the host. */
typedef struct wl_histogram_rule {
    uint32_t bins;
    int32_t lower_int, upper_int; /* integer samples */
    uint32_t range_int;           /* (uint32)upper - (uint32)lower */
    float lower_float, upper_float, scale_float;
} wl_histogram_rule;

static inline wl_histogram_rule wl_histogram_rule_of(const wl_problem *problem)
{
    wl_histogram_rule rule;
    rule.bins = (uint32_t)problem->dim[1];
    rule.lower_int = 0;
    rule.upper_int = 0;
    rule.range_int = 0;
    rule.lower_float = rule.upper_float = rule.scale_float = 0.0f;
    if (problem->variant == WL_HISTOGRAM_FLOAT32) {
        rule.lower_float = (float)problem->alpha;
        rule.upper_float = (float)problem->beta;
        const float range = rule.upper_float - rule.lower_float;
        rule.scale_float = (float)rule.bins / range;
    } else {
        rule.lower_int = (int32_t)problem->alpha;
        rule.upper_int = (int32_t)problem->beta;
        rule.range_int = (uint32_t)rule.upper_int - (uint32_t)rule.lower_int;
    }
    return rule;
}

/* The bin of an integer sample, or -1 when it is not counted. */
static inline WL_HISTOGRAM_HD int wl_histogram_bin_int(int32_t x, const wl_histogram_rule *rule)
{
    if (x < rule->lower_int || x >= rule->upper_int)
        return -1;
    const uint64_t offset = (uint32_t)x - (uint32_t)rule->lower_int;
    return (int)(offset * rule->bins / rule->range_int);
}

/* The bin of a float sample, or -1 when it is not counted (NaN included). */
static inline WL_HISTOGRAM_HD int wl_histogram_bin_float(float x, const wl_histogram_rule *rule)
{
    if (!(x >= rule->lower_float && x < rule->upper_float))
        return -1;
#ifdef __CUDA_ARCH__
    const int bin = (int)__fmul_rn(__fsub_rn(x, rule->lower_float), rule->scale_float);
#else
    const float offset = x - rule->lower_float;
    const int bin = (int)(offset * rule->scale_float);
#endif
    return bin < (int)rule->bins ? bin : (int)rule->bins - 1;
}

#endif
