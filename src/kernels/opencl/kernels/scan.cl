/* The opencl backend's scan kernels: reduce-then-scan over any n, for int,
 * float and double (named "<kernel>_int", "_float", "_double"; the operation
 * a run-time argument with warplab_reduce_op's numbers).
 *
 * What every kernel computes, as on cuda: int sums wrap modulo 2^32 (done in
 * uint), min and max propagate a NaN, work-items past n hold the identity.
 * Work-groups have GROUP items; views arrive as a buffer and an element
 * offset; input and output may be the same buffer (a tile is read whole
 * before any of it is written). */

#ifdef cl_khr_fp64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
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
#endif

/* warplab:rung scan reduce_then_scan */
#define SCAN_KERNELS(T, S)                                                                         \
    /* Pass 1: group g combines its stretch [g * chunk, (g + 1) * chunk) of the input into         \
     * partials[g]: a strided loop per work-item, then a tree in local memory. */                  \
    __kernel void scan_reduce_##S(__global const T *in, ulong in_off, ulong n, ulong chunk,        \
                                  __global T *partials, int op)                                    \
    {                                                                                              \
        __local T s[GROUP];                                                                        \
        const uint tid = get_local_id(0);                                                          \
        const ulong begin = get_group_id(0) * chunk;                                               \
        const ulong end = n - begin < chunk ? n : begin + chunk;                                   \
        T v = identity_##S(op);                                                                    \
        for (ulong i = begin + tid; i < end; i += GROUP)                                           \
            v = combine_##S(v, in[in_off + i], op);                                                \
        s[tid] = v;                                                                                \
        barrier(CLK_LOCAL_MEM_FENCE);                                                              \
        for (uint stride = GROUP / 2; stride > 0; stride >>= 1) {                                  \
            if (tid < stride)                                                                      \
                s[tid] = combine_##S(s[tid], s[tid + stride], op);                                 \
            barrier(CLK_LOCAL_MEM_FENCE);                                                          \
        }                                                                                          \
        if (tid == 0)                                                                              \
            partials[get_group_id(0)] = s[0];                                                      \
    }                                                                                              \
                                                                                                   \
    /* Passes 2 and 3: group g scans its stretch tile by tile (GROUP elements, Hillis-Steele in    \
     * local memory), starting from carries[g] (has_carries) or the identity, and carrying the    \
     * running total from tile to tile. Pass 2 is one group over the partials, exclusive, in      \
     * place. */                                                                                   \
    __kernel void scan_tiles_##S(__global const T *in, ulong in_off, __global T *out,              \
                                 ulong out_off, ulong n, ulong chunk, __global const T *carries,   \
                                 int has_carries, int exclusive, int op)                           \
    {                                                                                              \
        __local T s[2][GROUP];                                                                     \
        const uint tid = get_local_id(0);                                                          \
        const ulong begin = get_group_id(0) * chunk;                                               \
        const ulong end = n - begin < chunk ? n : begin + chunk;                                   \
        T carry = has_carries ? carries[get_group_id(0)] : identity_##S(op);                       \
        for (ulong base = begin; base < end; base += GROUP) {                                      \
            const ulong i = base + tid;                                                            \
            int from = 0;                                                                          \
            s[0][tid] = i < end ? in[in_off + i] : identity_##S(op);                               \
            barrier(CLK_LOCAL_MEM_FENCE);                                                          \
            for (uint d = 1; d < GROUP; d <<= 1) {                                                 \
                s[1 - from][tid] =                                                                 \
                    tid >= d ? combine_##S(s[from][tid - d], s[from][tid], op) : s[from][tid];     \
                from = 1 - from;                                                                   \
                barrier(CLK_LOCAL_MEM_FENCE);                                                      \
            }                                                                                      \
            if (i < end)                                                                           \
                out[out_off + i] =                                                                 \
                    exclusive ? (tid == 0 ? carry : combine_##S(carry, s[from][tid - 1], op))      \
                              : combine_##S(carry, s[from][tid], op);                              \
            carry = combine_##S(carry, s[from][GROUP - 1], op);                                    \
            barrier(CLK_LOCAL_MEM_FENCE);                                                          \
        }                                                                                          \
    }
/* warplab:end */

SCAN_KERNELS(int, int)
SCAN_KERNELS(float, float)
#ifdef cl_khr_fp64
SCAN_KERNELS(double, double)
#endif
