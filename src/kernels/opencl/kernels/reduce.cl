/* The opencl backend's reduction kernels: the CUDA ladder's rungs 0-7 and
 * its atomic rungs in OpenCL C, for int, float and double.
 *
 * OpenCL C has no templates: each kernel is written once as a macro over the
 * element type T (suffix S) and instantiated three times, so the kernels are
 * named "<rung>_int", "<rung>_float", "<rung>_double". The operation is a
 * run-time argument (OP_SUM, OP_MIN, OP_MAX, the same numbers as warplab_reduce_op), the
 * same branch for the whole range. Views arrive as a buffer and an element
 * offset. Work-groups have 256 work-items (a power of two; AMD's limit).
 *
 * What every kernel computes, as on cuda: int sums wrap modulo 2^32 (done in
 * uint, where that is defined), min and max propagate a NaN, work-items past
 * n load the identity. PoCL 3.1 has neither subgroups nor float atomics: the
 * "warp" of the atomic rung is a 32-item slice of the work-group reducing
 * through local memory, and float/double atomics are compare-and-swap loops. */

#ifdef cl_khr_fp64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
#ifdef cl_khr_int64_base_atomics
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#endif

#define OP_SUM 0
#define OP_MIN 1
#define OP_MAX 2
#define GROUP 256

inline int identity_int(int op)
{
    return op == OP_SUM ? 0 : op == OP_MIN ? INT_MAX : INT_MIN;
}
inline int combine_int(int a, int b, int op)
{
    if (op == OP_SUM)
        return as_int(as_uint(a) + as_uint(b));
    if (op == OP_MIN)
        return b < a ? b : a;
    return b > a ? b : a;
}

/* A NaN in b wins; a NaN already in a stays (b < NaN is false). */
inline float identity_float(int op)
{
    return op == OP_SUM ? 0.0f : op == OP_MIN ? INFINITY : -INFINITY;
}
inline float combine_float(float a, float b, int op)
{
    if (op == OP_SUM)
        return a + b;
    if (op == OP_MIN)
        return (b < a || isnan(b)) ? b : a;
    return (b > a || isnan(b)) ? b : a;
}

inline void atomic_combine_int(volatile __global int *target, int v, int op)
{
    if (op == OP_SUM)
        atomic_add(target, v);
    else if (op == OP_MIN)
        atomic_min(target, v);
    else
        atomic_max(target, v);
}

/* Retries until the word holds op(old, v) for the value it replaced; stops
 * when op(old, v) is old itself. */
inline void atomic_combine_float(volatile __global float *target, float v, int op)
{
    volatile __global int *word = (volatile __global int *)target;
    int old = *word;
    for (;;) {
        int wanted = as_int(combine_float(as_float(old), v, op));
        if (wanted == old)
            return;
        int seen = atomic_cmpxchg(word, old, wanted);
        if (seen == old)
            return;
        old = seen;
    }
}

#ifdef cl_khr_fp64
inline double identity_double(int op)
{
    return op == OP_SUM ? 0.0 : op == OP_MIN ? (double)INFINITY : -(double)INFINITY;
}
inline double combine_double(double a, double b, int op)
{
    if (op == OP_SUM)
        return a + b;
    if (op == OP_MIN)
        return (b < a || isnan(b)) ? b : a;
    return (b > a || isnan(b)) ? b : a;
}
#ifdef cl_khr_int64_base_atomics
inline void atomic_combine_double(volatile __global double *target, double v, int op)
{
    volatile __global long *word = (volatile __global long *)target;
    long old = *word;
    for (;;) {
        long wanted = as_long(combine_double(as_double(old), v, op));
        if (wanted == old)
            return;
        long seen = atom_cmpxchg(word, old, wanted);
        if (seen == old)
            return;
        old = seen;
    }
}
#endif
#endif

/* The kernels of every rung but the atomic ones, for one element type. */
#define REDUCE_KERNELS_1(T, S)                                                                     \
    /* The result of an empty input (and the atomic rungs' starting value). */                     \
    __kernel void write_identity_##S(__global T *out, ulong out_off, int op)                       \
    {                                                                                              \
        out[out_off] = identity_##S(op);                                                           \
    }

/* warplab:rung reduce naive */
#define REDUCE_KERNELS_2(T, S)                                                                     \
    /* Rung naive: dst[i] = src[i] + src[i + stride] for i a multiple of 2 * stride; an            \
     * element without a partner is carried up. */                                                 \
    __kernel void naive_level_##S(__global const T *src, ulong src_off, __global T *dst,           \
                                  ulong dst_off, ulong n, ulong stride, int op)                    \
    {                                                                                              \
        ulong i = 2 * stride * get_global_id(0);                                                   \
        if (i < n)                                                                                 \
            dst[dst_off + i] = i + stride < n                                                      \
                                   ? combine_##S(src[src_off + i], src[src_off + i + stride], op)  \
                                   : src[src_off + i];                                             \
    }
/* warplab:end */

/* warplab:rung reduce interleaved strided_index sequential first_add warp_volatile warp_syncwarp
 * complete_unroll */
#define REDUCE_KERNELS_3(T, S)                                                                     \
    inline T load_or_identity_##S(__global const T *in, ulong n, ulong i, int op)                  \
    {                                                                                              \
        return i < n ? in[i] : identity_##S(op);                                                   \
    }
/* warplab:end */

/* warplab:rung reduce interleaved */
#define REDUCE_KERNELS_4(T, S)                                                                     \
    /* Rung interleaved: the divergent tid % (2s) tree. */                                         \
    __kernel void interleaved_##S(__global const T *in, ulong in_off, __global T *out,             \
                                  ulong out_off, ulong n, int op, __local T *s)                    \
    {                                                                                              \
        uint tid = get_local_id(0), size = get_local_size(0);                                      \
        s[tid] = load_or_identity_##S(in + in_off, n, get_global_id(0), op);                       \
        barrier(CLK_LOCAL_MEM_FENCE);                                                              \
        for (uint stride = 1; stride < size; stride *= 2) {                                        \
            if (tid % (2 * stride) == 0)                                                           \
                s[tid] = combine_##S(s[tid], s[tid + stride], op);                                 \
            barrier(CLK_LOCAL_MEM_FENCE);                                                          \
        }                                                                                          \
        if (tid == 0)                                                                              \
            out[out_off + get_group_id(0)] = s[0];                                                 \
    }
/* warplab:end */

/* warplab:rung reduce strided_index */
#define REDUCE_KERNELS_5(T, S)                                                                     \
    /* Rung strided_index: index = 2 * s * tid. */                                                 \
    __kernel void strided_index_##S(__global const T *in, ulong in_off, __global T *out,           \
                                    ulong out_off, ulong n, int op, __local T *s)                  \
    {                                                                                              \
        uint tid = get_local_id(0), size = get_local_size(0);                                      \
        s[tid] = load_or_identity_##S(in + in_off, n, get_global_id(0), op);                       \
        barrier(CLK_LOCAL_MEM_FENCE);                                                              \
        for (uint stride = 1; stride < size; stride *= 2) {                                        \
            uint index = 2 * stride * tid;                                                         \
            if (index < size)                                                                      \
                s[index] = combine_##S(s[index], s[index + stride], op);                           \
            barrier(CLK_LOCAL_MEM_FENCE);                                                          \
        }                                                                                          \
        if (tid == 0)                                                                              \
            out[out_off + get_group_id(0)] = s[0];                                                 \
    }
/* warplab:end */

/* warplab:rung reduce sequential */
#define REDUCE_KERNELS_6(T, S)                                                                     \
    /* Rung sequential: s from size/2 down, s[tid] += s[tid + s]. */                               \
    __kernel void sequential_##S(__global const T *in, ulong in_off, __global T *out,              \
                                 ulong out_off, ulong n, int op, __local T *s)                     \
    {                                                                                              \
        uint tid = get_local_id(0), size = get_local_size(0);                                      \
        s[tid] = load_or_identity_##S(in + in_off, n, get_global_id(0), op);                       \
        barrier(CLK_LOCAL_MEM_FENCE);                                                              \
        for (uint stride = size / 2; stride > 0; stride >>= 1) {                                   \
            if (tid < stride)                                                                      \
                s[tid] = combine_##S(s[tid], s[tid + stride], op);                                 \
            barrier(CLK_LOCAL_MEM_FENCE);                                                          \
        }                                                                                          \
        if (tid == 0)                                                                              \
            out[out_off + get_group_id(0)] = s[0];                                                 \
    }
/* warplab:end */

/* warplab:rung reduce first_add warp_volatile warp_syncwarp complete_unroll */
#define REDUCE_KERNELS_7(T, S)                                                                     \
    /* Two elements per work-item, i and i + size, combined during the load. */                    \
    inline T load_pair_##S(__global const T *in, ulong n, uint size, int op)                       \
    {                                                                                              \
        ulong i = get_group_id(0) * (ulong)(2 * size) + get_local_id(0);                           \
        return combine_##S(load_or_identity_##S(in, n, i, op),                                     \
                           load_or_identity_##S(in, n, i + size, op), op);                         \
    }
/* warplab:end */

/* warplab:rung reduce first_add */
#define REDUCE_KERNELS_8(T, S)                                                                     \
    /* Rung first_add. */                                                                          \
    __kernel void first_add_##S(__global const T *in, ulong in_off, __global T *out,               \
                                ulong out_off, ulong n, int op, __local T *s)                      \
    {                                                                                              \
        uint tid = get_local_id(0), size = get_local_size(0);                                      \
        s[tid] = load_pair_##S(in + in_off, n, size, op);                                          \
        barrier(CLK_LOCAL_MEM_FENCE);                                                              \
        for (uint stride = size / 2; stride > 0; stride >>= 1) {                                   \
            if (tid < stride)                                                                      \
                s[tid] = combine_##S(s[tid], s[tid + stride], op);                                 \
            barrier(CLK_LOCAL_MEM_FENCE);                                                          \
        }                                                                                          \
        if (tid == 0)                                                                              \
            out[out_off + get_group_id(0)] = s[0];                                                 \
    }
/* warplab:end */

/* warplab:rung reduce warp_volatile warp_syncwarp */
#define REDUCE_KERNELS_9(T, S)                                                                     \
    /* The tree's steps above one warp (s = size/2 down to 64), leaving s[0..63] for the           \
     * last 32 items. */                                                                           \
    inline void tree_above_warp_##S(__local T *s, uint tid, uint size, int op)                     \
    {                                                                                              \
        for (uint stride = size / 2; stride > 32; stride >>= 1) {                                  \
            if (tid < stride)                                                                      \
                s[tid] = combine_##S(s[tid], s[tid + stride], op);                                 \
            barrier(CLK_LOCAL_MEM_FENCE);                                                          \
        }                                                                                          \
    }
/* warplab:end */

/* warplab:rung reduce warp_volatile */
#define REDUCE_KERNELS_10(T, S)                                                                    \
    /* Rung warp_volatile: the last 32 work-items without barriers, through a volatile             \
     * pointer, as the course wrote it for CUDA. Nothing in OpenCL runs a group's items in         \
     * lockstep: PoCL runs them one after the other between barriers, so item 0 reads              \
     * s[16] before item 16 has added s[48] into it, and the result is wrong. */                   \
    __kernel void warp_volatile_##S(__global const T *in, ulong in_off, __global T *out,           \
                                    ulong out_off, ulong n, int op, __local T *s)                  \
    {                                                                                              \
        uint tid = get_local_id(0), size = get_local_size(0);                                      \
        s[tid] = load_pair_##S(in + in_off, n, size, op);                                          \
        barrier(CLK_LOCAL_MEM_FENCE);                                                              \
        tree_above_warp_##S(s, tid, size, op);                                                     \
        if (tid < 32) {                                                                            \
            volatile __local T *v = s;                                                             \
            v[tid] = combine_##S(v[tid], v[tid + 32], op);                                         \
            v[tid] = combine_##S(v[tid], v[tid + 16], op);                                         \
            v[tid] = combine_##S(v[tid], v[tid + 8], op);                                          \
            v[tid] = combine_##S(v[tid], v[tid + 4], op);                                          \
            v[tid] = combine_##S(v[tid], v[tid + 2], op);                                          \
            v[tid] = combine_##S(v[tid], v[tid + 1], op);                                          \
        }                                                                                          \
        if (tid == 0)                                                                              \
            out[out_off + get_group_id(0)] = s[0];                                                 \
    }
/* warplab:end */

/* warplab:rung reduce warp_syncwarp */
#define REDUCE_KERNELS_11(T, S)                                                                    \
    /* Rung warp_syncwarp: the same unrolled steps made correct. OpenCL 1.2 has no                 \
     * __syncwarp; the work-group barrier (which every item must reach, hence outside the          \
     * if) stands in for it between each read and write. */                                        \
    __kernel void warp_barrier_##S(__global const T *in, ulong in_off, __global T *out,            \
                                   ulong out_off, ulong n, int op, __local T *s)                   \
    {                                                                                              \
        uint tid = get_local_id(0), size = get_local_size(0);                                      \
        s[tid] = load_pair_##S(in + in_off, n, size, op);                                          \
        barrier(CLK_LOCAL_MEM_FENCE);                                                              \
        tree_above_warp_##S(s, tid, size, op);                                                     \
        T v = s[tid];                                                                              \
        for (uint offset = 32; offset > 0; offset >>= 1) {                                         \
            if (tid < 32)                                                                          \
                v = combine_##S(v, s[tid + offset], op);                                           \
            barrier(CLK_LOCAL_MEM_FENCE);                                                          \
            if (tid < 32)                                                                          \
                s[tid] = v;                                                                        \
            barrier(CLK_LOCAL_MEM_FENCE);                                                          \
        }                                                                                          \
        if (tid == 0)                                                                              \
            out[out_off + get_group_id(0)] = v;                                                    \
    }
/* warplab:end */

/* warplab:rung reduce complete_unroll complete_unroll_128 brent brent_128 cascade atomic_block */
#define REDUCE_KERNELS_12(T, S)                                                                    \
    /* Rungs complete_unroll, brent and cascade (and their 128-item forms): the group size is a    \
     * compile-time constant (required of the launch, passed here as a literal), so every `if      \
     * (size > ...)` folds away and each step is straight-line code. OpenCL C has no templates:    \
     * two sizes, GROUP and seed 004's 128, stand for the course's switch. */                      \
    inline T unrolled_tree_##S(__local T *s, uint tid, T v, int op, const uint size)               \
    {                                                                                              \
        s[tid] = v;                                                                                \
        barrier(CLK_LOCAL_MEM_FENCE);                                                              \
        if (size > 128) {                                                                          \
            if (tid < 128)                                                                         \
                s[tid] = v = combine_##S(v, s[tid + 128], op);                                     \
            barrier(CLK_LOCAL_MEM_FENCE);                                                          \
        }                                                                                          \
        if (tid < 64)                                                                              \
            s[tid] = v = combine_##S(v, s[tid + 64], op);                                          \
        barrier(CLK_LOCAL_MEM_FENCE);                                                              \
        if (tid < 32)                                                                              \
            s[tid] = v = combine_##S(v, s[tid + 32], op);                                          \
        barrier(CLK_LOCAL_MEM_FENCE);                                                              \
        if (tid < 16)                                                                              \
            s[tid] = v = combine_##S(v, s[tid + 16], op);                                          \
        barrier(CLK_LOCAL_MEM_FENCE);                                                              \
        if (tid < 8)                                                                               \
            s[tid] = v = combine_##S(v, s[tid + 8], op);                                           \
        barrier(CLK_LOCAL_MEM_FENCE);                                                              \
        if (tid < 4)                                                                               \
            s[tid] = v = combine_##S(v, s[tid + 4], op);                                           \
        barrier(CLK_LOCAL_MEM_FENCE);                                                              \
        if (tid < 2)                                                                               \
            s[tid] = v = combine_##S(v, s[tid + 2], op);                                           \
        barrier(CLK_LOCAL_MEM_FENCE);                                                              \
        return tid == 0 ? combine_##S(v, s[1], op) : v; /* the group's value, in item 0 */         \
    }                                                                                              \
    /* Rungs brent and cascade: each item first combines its grid-stride slice, two per trip       \
     * (the host sizes the grid: log2 n elements an item for brent, the device's fill for          \
     * cascade), then the unrolled tree. */                                                        \
    inline T grid_slice_tree_##S(__local T *s, __global const T *x, ulong n, int op,               \
                                 const uint size)                                                  \
    {                                                                                              \
        uint tid = get_local_id(0);                                                                \
        ulong stride = 2 * (ulong)size * get_num_groups(0);                                        \
        T v = identity_##S(op);                                                                    \
        for (ulong i = get_group_id(0) * (ulong)(2 * size) + tid; i < n; i += stride) {            \
            v = combine_##S(v, x[i], op);                                                          \
            if (i + size < n)                                                                      \
                v = combine_##S(v, x[i + size], op);                                               \
        }                                                                                          \
        return unrolled_tree_##S(s, tid, v, op, size);                                             \
    }
/* warplab:end */

/* warplab:rung reduce complete_unroll complete_unroll_128 */
#define REDUCE_KERNELS_13(T, S)                                                                    \
    __kernel __attribute__((reqd_work_group_size(GROUP, 1, 1))) void complete_unroll_##S(          \
        __global const T *in, ulong in_off, __global T *out, ulong out_off, ulong n, int op)       \
    {                                                                                              \
        __local T s[GROUP];                                                                        \
        uint tid = get_local_id(0);                                                                \
        T v = unrolled_tree_##S(s, tid, load_pair_##S(in + in_off, n, GROUP, op), op, GROUP);      \
        if (tid == 0)                                                                              \
            out[out_off + get_group_id(0)] = v;                                                    \
    }                                                                                              \
    __kernel __attribute__((reqd_work_group_size(128, 1, 1))) void complete_unroll_128_##S(        \
        __global const T *in, ulong in_off, __global T *out, ulong out_off, ulong n, int op)       \
    {                                                                                              \
        __local T s[128];                                                                          \
        uint tid = get_local_id(0);                                                                \
        T v = unrolled_tree_##S(s, tid, load_pair_##S(in + in_off, n, 128, op), op, 128);         \
        if (tid == 0)                                                                              \
            out[out_off + get_group_id(0)] = v;                                                    \
    }
/* warplab:end */

/* warplab:rung reduce brent brent_128 cascade */
#define REDUCE_KERNELS_14(T, S)                                                                    \
    /* Rungs brent and cascade share this kernel; only their grids differ. */                      \
    __kernel __attribute__((reqd_work_group_size(GROUP, 1, 1))) void grid_slice_##S(               \
        __global const T *in, ulong in_off, __global T *out, ulong out_off, ulong n, int op)       \
    {                                                                                              \
        __local T s[GROUP];                                                                        \
        T v = grid_slice_tree_##S(s, in + in_off, n, op, GROUP);                                   \
        if (get_local_id(0) == 0)                                                                  \
            out[out_off + get_group_id(0)] = v;                                                    \
    }                                                                                              \
    __kernel __attribute__((reqd_work_group_size(128, 1, 1))) void grid_slice_128_##S(            \
        __global const T *in, ulong in_off, __global T *out, ulong out_off, ulong n, int op)       \
    {                                                                                              \
        __local T s[128];                                                                          \
        T v = grid_slice_tree_##S(s, in + in_off, n, op, 128);                                     \
        if (get_local_id(0) == 0)                                                                  \
            out[out_off + get_group_id(0)] = v;                                                    \
    }
/* warplab:end */

/* warplab:rung reduce cascade atomic_warp atomic_block */
#define REDUCE_KERNELS_15(T, S)                                                                    \
    inline T grid_stride_##S(__global const T *x, ulong n, int op)                                 \
    {                                                                                              \
        T v = identity_##S(op);                                                                    \
        for (ulong i = get_global_id(0); i < n; i += get_global_size(0))                           \
            v = combine_##S(v, x[i], op);                                                          \
        return v;                                                                                  \
    }
/* warplab:end */

#define REDUCE_KERNELS(T, S)                                                                       \
    REDUCE_KERNELS_1(T, S)                                                                         \
    REDUCE_KERNELS_2(T, S)                                                                         \
    REDUCE_KERNELS_3(T, S)                                                                         \
    REDUCE_KERNELS_4(T, S)                                                                         \
    REDUCE_KERNELS_5(T, S)                                                                         \
    REDUCE_KERNELS_6(T, S)                                                                         \
    REDUCE_KERNELS_7(T, S)                                                                         \
    REDUCE_KERNELS_8(T, S)                                                                         \
    REDUCE_KERNELS_9(T, S)                                                                         \
    REDUCE_KERNELS_10(T, S)                                                                        \
    REDUCE_KERNELS_11(T, S)                                                                        \
    REDUCE_KERNELS_12(T, S)                                                                        \
    REDUCE_KERNELS_13(T, S)                                                                        \
    REDUCE_KERNELS_14(T, S)                                                                        \
    REDUCE_KERNELS_15(T, S)

/* The atomic rungs, for a type with an atomic_combine. */
/* warplab:rung reduce atomic_warp */
#define ATOMIC_KERNELS_1(T, S)                                                                     \
    /* Rung atomic_warp: 32-item slices stand in for warps (no subgroups in PoCL 3.1): each        \
     * slice reduces through local memory, then one atomic per slice. */                           \
    __kernel __attribute__((reqd_work_group_size(GROUP, 1, 1))) void atomic_slice_##S(             \
        __global const T *in, ulong in_off, __global T *out, ulong out_off, ulong n, int op)       \
    {                                                                                              \
        __local T s[GROUP];                                                                        \
        uint tid = get_local_id(0), lane = tid % 32;                                               \
        T v = grid_stride_##S(in + in_off, n, op);                                                 \
        s[tid] = v;                                                                                \
        barrier(CLK_LOCAL_MEM_FENCE);                                                              \
        for (uint offset = 16; offset > 0; offset >>= 1) {                                         \
            if (lane < offset)                                                                     \
                s[tid] = v = combine_##S(v, s[tid + offset], op);                                  \
            barrier(CLK_LOCAL_MEM_FENCE);                                                          \
        }                                                                                          \
        if (lane == 0)                                                                             \
            atomic_combine_##S((volatile __global T *)(out + out_off), v, op);                     \
    }
/* warplab:end */

/* warplab:rung reduce atomic_block */
#define ATOMIC_KERNELS_2(T, S)                                                                     \
    /* Rung atomic_block: the group's tree, then one atomic per group. */                          \
    __kernel __attribute__((reqd_work_group_size(GROUP, 1, 1))) void atomic_group_##S(             \
        __global const T *in, ulong in_off, __global T *out, ulong out_off, ulong n, int op)       \
    {                                                                                              \
        __local T s[GROUP];                                                                        \
        uint tid = get_local_id(0);                                                                \
        T v = unrolled_tree_##S(s, tid, grid_stride_##S(in + in_off, n, op), op, GROUP);           \
        if (tid == 0)                                                                              \
            atomic_combine_##S((volatile __global T *)(out + out_off), v, op);                     \
    }
/* warplab:end */

#define ATOMIC_KERNELS(T, S)                                                                       \
    ATOMIC_KERNELS_1(T, S)                                                                         \
    ATOMIC_KERNELS_2(T, S)

REDUCE_KERNELS(int, int)
ATOMIC_KERNELS(int, int)
REDUCE_KERNELS(float, float)
ATOMIC_KERNELS(float, float)
#ifdef cl_khr_fp64
REDUCE_KERNELS(double, double)
#ifdef cl_khr_int64_base_atomics
ATOMIC_KERNELS(double, double)
#endif
#endif
