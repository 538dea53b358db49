/* The opencl backend's histogram kernels: the ladder's global-atomics rung,
 * its per-group sub-histogram in local memory (what warplab_histogram runs on
 * opencl), one copy per 32-item slice, and that with 16-byte loads, for
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

#define RULE_ARGS                                                                              \
    uint bins, int lower_int, int upper_int, uint range_int, float lower_float,               \
        float upper_float, float scale_float
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
#define GLOBAL_KERNEL(T)                                                                       \
    __kernel void histogram_global_##T(__global const T *in, ulong in_off, ulong n,            \
                                       __global uint *counts, ulong counts_off, RULE_ARGS)     \
    {                                                                                          \
        for (size_t i = get_global_id(0); i < n; i += get_global_size(0)) {                    \
            const int bin = bin_##T(in[in_off + i], RULE);                                     \
            if (bin >= 0)                                                                      \
                atomic_inc(&counts[counts_off + bin]);                                         \
        }                                                                                      \
    }
GLOBAL_KERNEL(uchar)
GLOBAL_KERNEL(int)
GLOBAL_KERNEL(float)
/* warplab:end */

/* warplab:rung histogram block_shared */
/* Rung block_shared: each group counts into its own copy in local memory
 * (private_bins words), then adds its non-zero bins to the global counts. */
#define LOCAL_KERNEL(T)                                                                        \
    __kernel void histogram_local_##T(__global const T *in, ulong in_off, ulong n,             \
                                      __global uint *counts, ulong counts_off, RULE_ARGS,      \
                                      __local uint *copy, uint private_bins)                   \
    {                                                                                          \
        const size_t item = get_local_id(0), items = get_local_size(0);                       \
        for (uint b = item; b < private_bins; b += items)                                     \
            copy[b] = 0;                                                                       \
        barrier(CLK_LOCAL_MEM_FENCE);                                                          \
        for (size_t i = get_global_id(0); i < n; i += get_global_size(0)) {                    \
            const int bin = private_##T(in[in_off + i], RULE);                                 \
            if (bin >= 0)                                                                      \
                atomic_inc(&copy[bin]);                                                        \
        }                                                                                      \
        barrier(CLK_LOCAL_MEM_FENCE);                                                          \
        for (uint b = item; b < private_bins; b += items) {                                   \
            const uint count = copy[b];                                                        \
            const int bin = merge_##T((int)b, RULE);                                           \
            if (count && bin >= 0)                                                             \
                atomic_add(&counts[counts_off + bin], count);                                  \
        }                                                                                      \
    }
LOCAL_KERNEL(uchar)
LOCAL_KERNEL(int)
LOCAL_KERNEL(float)
/* warplab:end */

/* warplab:rung histogram warp_shared vector_loads */
/* Rungs warp_shared and vector_loads: one copy per 32 work-items (the
 * slice of the group a warp is on the GPU; OpenCL 1.2 has no subgroups, so
 * the slice is the work-item's local id / 32), so that only the items of one
 * slice collide on a word. The merge adds the slices' counts of each word. */
inline void slices_zero(__local uint *copy, uint words)
{
    for (uint b = get_local_id(0); b < words; b += get_local_size(0))
        copy[b] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
}
#define SLICE_MERGE(T)                                                                         \
    inline void slices_merge_##T(__local uint *copy, uint private_bins,                        \
                                 __global uint *counts, ulong counts_off, RULE_ARGS)           \
    {                                                                                          \
        barrier(CLK_LOCAL_MEM_FENCE);                                                          \
        const uint slices = (uint)(get_local_size(0) + 31) / 32;                               \
        for (uint b = get_local_id(0); b < private_bins; b += get_local_size(0)) {            \
            uint count = 0;                                                                    \
            for (uint s = 0; s < slices; s++)                                                  \
                count += copy[s * private_bins + b];                                           \
            const int bin = merge_##T((int)b, RULE);                                           \
            if (count && bin >= 0)                                                             \
                atomic_add(&counts[counts_off + bin], count);                                  \
        }                                                                                      \
    }
SLICE_MERGE(uchar)
SLICE_MERGE(int)
SLICE_MERGE(float)
/* warplab:end */

/* warplab:rung histogram warp_shared */
#define SLICE_KERNEL(T)                                                                        \
    __kernel void histogram_slices_##T(__global const T *in, ulong in_off, ulong n,            \
                                       __global uint *counts, ulong counts_off, RULE_ARGS,     \
                                       __local uint *copy, uint private_bins)                  \
    {                                                                                          \
        slices_zero(copy, (uint)(get_local_size(0) + 31) / 32 * private_bins);                \
        __local uint *mine = copy + get_local_id(0) / 32 * private_bins;                       \
        for (size_t i = get_global_id(0); i < n; i += get_global_size(0)) {                    \
            const int bin = private_##T(in[in_off + i], RULE);                                 \
            if (bin >= 0)                                                                      \
                atomic_inc(&mine[bin]);                                                        \
        }                                                                                      \
        slices_merge_##T(copy, private_bins, counts, counts_off, RULE);                        \
    }
SLICE_KERNEL(uchar)
SLICE_KERNEL(int)
SLICE_KERNEL(float)
/* warplab:end */

/* warplab:rung histogram vector_loads */
/* Rung vector_loads: each work-item loads 16 bytes at a time (vload16 of
 * 8-bit samples, vload4 of words; vloadn takes any element-aligned address,
 * so no scalar head is needed here), then counts them into its slice's copy;
 * the last n % V samples are counted one at a time. */
#define VECTOR_KERNEL(T, V)                                                                    \
    __kernel void histogram_vector_##T(__global const T *in, ulong in_off, ulong n,            \
                                       __global uint *counts, ulong counts_off, RULE_ARGS,     \
                                       __local uint *copy, uint private_bins)                  \
    {                                                                                          \
        slices_zero(copy, (uint)(get_local_size(0) + 31) / 32 * private_bins);                \
        __local uint *mine = copy + get_local_id(0) / 32 * private_bins;                       \
        __global const T *x = in + in_off;                                                     \
        const ulong vectors = n / V;                                                           \
        T lanes[V];                                                                            \
        for (size_t v = get_global_id(0); v < vectors; v += get_global_size(0)) {              \
            vstore##V(vload##V(v, x), 0, lanes);                                               \
            for (int k = 0; k < V; k++) {                                                      \
                const int bin = private_##T(lanes[k], RULE);                                   \
                if (bin >= 0)                                                                  \
                    atomic_inc(&mine[bin]);                                                    \
            }                                                                                  \
        }                                                                                      \
        for (size_t i = vectors * V + get_global_id(0); i < n; i += get_global_size(0)) {      \
            const int bin = private_##T(x[i], RULE);                                           \
            if (bin >= 0)                                                                      \
                atomic_inc(&mine[bin]);                                                        \
        }                                                                                      \
        slices_merge_##T(copy, private_bins, counts, counts_off, RULE);                        \
    }
VECTOR_KERNEL(uchar, 16)
VECTOR_KERNEL(int, 4)
VECTOR_KERNEL(float, 4)
/* warplab:end */
