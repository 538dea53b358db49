/* The opencl backend's histogram kernels: the ladder's global-atomics rung,
 * its per-group sub-histogram in local memory (what warplab_histogram runs
 * on opencl), and per-32-item copies with scalar or 16-byte loads, for
 * 8-bit, int32 and float samples. Views arrive as a
 * buffer and an element offset; global sizes are rounded up to the group
 * size, so every kernel checks its bounds.
 *
 * The bin rule is src/kernels/histogram_bins.h's, repeated here word for
 * word (cub::DeviceHistogram::HistogramEven's): integer samples
 * (x - lower) * bins / (upper - lower) in 64-bit unsigned arithmetic, float
 * samples (int)((x - lower) * scale) in float with scale = bins / (upper -
 * lower) computed on the host, the last bin taking a product that rounds up
 * to bins; samples outside [lower, upper), and NaN, are not counted. */

#define RULE_ARGS                                                                                  \
    uint bins, int lower_int, int upper_int, uint range_int, float lower_float, float upper_float, \
        float scale_float
#define RULE bins, lower_int, upper_int, range_int, lower_float, upper_float, scale_float

inline int bin_int(int x, RULE_ARGS)
{
    if (x < lower_int || x >= upper_int)
        return -1;
    const ulong offset = (uint)x - (uint)lower_int;
    return (int)(offset * bins / range_int);
}

inline int bin_float(float x, RULE_ARGS)
{
    if (!(x >= lower_float && x < upper_float))
        return -1;
    const float offset = x - lower_float;
    const int bin = (int)(offset * scale_float);
    return bin < (int)bins ? bin : (int)bins - 1;
}

/* The bin a sample is counted in directly (global atomics), and the bin of
 * the private copy (local memory): 8-bit samples count their 256 values
 * there and are mapped to bins at the merge, as CUB does. */
inline int bin_uchar(uchar x, RULE_ARGS)
{
    return bin_int((int)x, RULE);
}
inline int private_uchar(uchar x, RULE_ARGS)
{
    return (int)x;
}
inline int private_int(int x, RULE_ARGS)
{
    return bin_int(x, RULE);
}
inline int private_float(float x, RULE_ARGS)
{
    return bin_float(x, RULE);
}
inline int merge_uchar(int b, RULE_ARGS)
{
    return bin_int(b, RULE);
}
inline int merge_int(int b, RULE_ARGS)
{
    return b;
}
inline int merge_float(int b, RULE_ARGS)
{
    return b;
}

__kernel void histogram_zero(__global uint *counts, ulong counts_off, uint bins)
{
    const size_t i = get_global_id(0);
    if (i < bins)
        counts[counts_off + i] = 0;
}

/* warplab:rung histogram global_atomics */
/* Rung global_atomics: one work-item per sample, one global atomic each. */
#define GLOBAL_KERNEL(T)                                                                           \
    __kernel void histogram_global_##T(__global const T *in, ulong in_off, ulong n,                \
                                       __global uint *counts, ulong counts_off, RULE_ARGS)         \
    {                                                                                              \
        for (size_t i = get_global_id(0); i < n; i += get_global_size(0)) {                        \
            const int bin = bin_##T(in[in_off + i], RULE);                                         \
            if (bin >= 0)                                                                          \
                atomic_inc(&counts[counts_off + bin]);                                             \
        }                                                                                          \
    }
GLOBAL_KERNEL(uchar)
GLOBAL_KERNEL(int)
GLOBAL_KERNEL(float)
/* warplab:end */

/* warplab:rung histogram block_shared */
/* Rung block_shared: each group counts into its own copy in local memory
 * (private_bins words), then adds its non-zero bins to the global counts. */
#define LOCAL_KERNEL(T)                                                                            \
    __kernel void histogram_local_##T(__global const T *in, ulong in_off, ulong n,                 \
                                      __global uint *counts, ulong counts_off, RULE_ARGS,          \
                                      __local uint *copy, uint private_bins)                       \
    {                                                                                              \
        const size_t item = get_local_id(0), items = get_local_size(0);                            \
        for (uint b = item; b < private_bins; b += items)                                          \
            copy[b] = 0;                                                                           \
        barrier(CLK_LOCAL_MEM_FENCE);                                                              \
        for (size_t i = get_global_id(0); i < n; i += get_global_size(0)) {                        \
            const int bin = private_##T(in[in_off + i], RULE);                                     \
            if (bin >= 0)                                                                          \
                atomic_inc(&copy[bin]);                                                            \
        }                                                                                          \
        barrier(CLK_LOCAL_MEM_FENCE);                                                              \
        for (uint b = item; b < private_bins; b += items) {                                        \
            const uint count = copy[b];                                                            \
            const int bin = merge_##T((int)b, RULE);                                               \
            if (count && bin >= 0)                                                                 \
                atomic_add(&counts[counts_off + bin], count);                                      \
        }                                                                                          \
    }
LOCAL_KERNEL(uchar)
LOCAL_KERNEL(int)
LOCAL_KERNEL(float)
/* warplab:end */

/* warplab:rung histogram warp_shared vector_loads */
/* Rungs warp_shared and vector_loads: one copy per 32 work-items (a warp on
 * NVIDIA GPUs; no sub-group functions needed), copies = local size / 32,
 * private_bins words each, so that only the items of one copy contend for
 * its words; the merge sums the copies bin by bin and adds the non-zero
 * totals to the global counts. vector_loads reads 16 bytes a work-item per
 * step (vload16 of 8-bit samples, vload4 of int32 or float: views at any
 * element offset), the tail one sample at a time. */
#define COUNT_INTO(T, x)                                                                           \
    {                                                                                              \
        const int bin = private_##T(x, RULE);                                                      \
        if (bin >= 0)                                                                              \
            atomic_inc(&mine[bin]);                                                                \
    }
#define WARP_KERNELS(T, W)                                                                         \
    inline void warp_zero_##T(__local uint *copy, uint words)                                      \
    {                                                                                              \
        for (uint b = get_local_id(0); b < words; b += get_local_size(0))                          \
            copy[b] = 0;                                                                           \
        barrier(CLK_LOCAL_MEM_FENCE);                                                              \
    }                                                                                              \
    inline void warp_merge_##T(__local uint *copy, uint private_bins, __global uint *counts,       \
                               ulong counts_off, RULE_ARGS)                                        \
    {                                                                                              \
        barrier(CLK_LOCAL_MEM_FENCE);                                                              \
        const uint copies = get_local_size(0) / 32;                                                \
        for (uint b = get_local_id(0); b < private_bins; b += get_local_size(0)) {                 \
            uint count = 0;                                                                        \
            for (uint c = 0; c < copies; c++)                                                      \
                count += copy[c * private_bins + b];                                               \
            const int bin = merge_##T((int)b, RULE);                                               \
            if (count && bin >= 0)                                                                 \
                atomic_add(&counts[counts_off + bin], count);                                      \
        }                                                                                          \
    }                                                                                              \
    __kernel void histogram_warps_##T(__global const T *in, ulong in_off, ulong n,                 \
                                      __global uint *counts, ulong counts_off, RULE_ARGS,          \
                                      __local uint *copy, uint private_bins)                       \
    {                                                                                              \
        warp_zero_##T(copy, private_bins *(uint)(get_local_size(0) / 32));                         \
        __local uint *mine = copy + (get_local_id(0) / 32) * private_bins;                         \
        for (size_t i = get_global_id(0); i < n; i += get_global_size(0))                          \
            COUNT_INTO(T, in[in_off + i])                                                          \
        warp_merge_##T(copy, private_bins, counts, counts_off, RULE);                              \
    }                                                                                              \
    __kernel void histogram_vectors_##T(__global const T *in, ulong in_off, ulong n,               \
                                        __global uint *counts, ulong counts_off, RULE_ARGS,        \
                                        __local uint *copy, uint private_bins)                     \
    {                                                                                              \
        warp_zero_##T(copy, private_bins *(uint)(get_local_size(0) / 32));                         \
        __local uint *mine = copy + (get_local_id(0) / 32) * private_bins;                         \
        const ulong vectors = n / W;                                                               \
        __global const T *at = in + in_off;                                                        \
        for (size_t v = get_global_id(0); v < vectors; v += get_global_size(0)) {                  \
            T x[W];                                                                                \
            VLOAD_##T(x, v, at);                                                                   \
            for (uint k = 0; k < W; k++)                                                           \
                COUNT_INTO(T, x[k])                                                                \
        }                                                                                          \
        for (size_t i = vectors * W + get_global_id(0); i < n; i += get_global_size(0))            \
            COUNT_INTO(T, at[i])                                                                   \
        warp_merge_##T(copy, private_bins, counts, counts_off, RULE);                              \
    }

#define VLOAD_uchar(x, v, at) vstore16(vload16(v, at), 0, x)
#define VLOAD_int(x, v, at) vstore4(vload4(v, at), 0, x)
#define VLOAD_float(x, v, at) vstore4(vload4(v, at), 0, x)
WARP_KERNELS(uchar, 16)
WARP_KERNELS(int, 4)
WARP_KERNELS(float, 4)
/* warplab:end */
