/* The opencl backend's scan kernels: the one-group rungs (Hillis-Steele is
 * scan_tiles over one stretch; Blelloch's tree, plain and padded), scan then
 * propagate, and reduce-then-scan, over any n, for int, float and double (named "<kernel>_int",
 * "_float", "_double"; the operation a run-time argument with warplab_reduce_op's numbers).
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

/* warplab:rung scan blelloch conflict_free */
/* The tree slot of element i: itself (blelloch), or one padding word every
 * 32 (conflict_free: GPU Gems 3, Example 39-3's CONFLICT_FREE_OFFSET). */
#define TREE_SLOT(i, PAD) ((PAD) ? (i) + ((i) >> 5) : (i))

/* One group walks the whole array in tiles of 2 x GROUP elements, two a
 * work-item: the up-sweep builds partial results at the tree's nodes, the
 * root takes the identity, the down-sweep leaves each element's exclusive
 * prefix (inclusive: that op the element); a carry crosses the tiles. */
#define TREE_KERNEL(T, S, NAME, PAD)                                                               \
    __kernel void NAME##_##S(__global const T *in, ulong in_off, __global T *out, ulong out_off,   \
                             ulong n, int exclusive, int op)                                       \
    {                                                                                              \
        __local T tree[2 * GROUP + ((PAD) ? 2 * GROUP / 32 : 0)];                                  \
        const uint tid = get_local_id(0), a = tid, b = tid + GROUP;                                \
        T carry = identity_##S(op);                                                                \
        for (ulong base = 0; base < n; base += 2 * GROUP) {                                        \
            const T xa = base + a < n ? in[in_off + base + a] : identity_##S(op);                  \
            const T xb = base + b < n ? in[in_off + base + b] : identity_##S(op);                  \
            tree[TREE_SLOT(a, PAD)] = xa;                                                          \
            tree[TREE_SLOT(b, PAD)] = xb;                                                          \
            uint offset = 1;                                                                       \
            for (uint active = GROUP; active > 0; active >>= 1) {                                  \
                barrier(CLK_LOCAL_MEM_FENCE);                                                      \
                if (tid < active) {                                                                \
                    const uint left = offset * (2 * tid + 1) - 1,                                  \
                               right = offset * (2 * tid + 2) - 1;                                 \
                    tree[TREE_SLOT(right, PAD)] =                                                  \
                        combine_##S(tree[TREE_SLOT(left, PAD)], tree[TREE_SLOT(right, PAD)], op);  \
                }                                                                                  \
                offset <<= 1;                                                                      \
            }                                                                                      \
            barrier(CLK_LOCAL_MEM_FENCE);                                                          \
            const T total = tree[TREE_SLOT(2 * GROUP - 1, PAD)];                                   \
            barrier(CLK_LOCAL_MEM_FENCE);                                                          \
            if (tid == 0)                                                                          \
                tree[TREE_SLOT(2 * GROUP - 1, PAD)] = identity_##S(op);                            \
            for (uint active = 1; active < 2 * GROUP; active <<= 1) {                              \
                offset >>= 1;                                                                      \
                barrier(CLK_LOCAL_MEM_FENCE);                                                      \
                if (tid < active) {                                                                \
                    const uint left = offset * (2 * tid + 1) - 1,                                  \
                               right = offset * (2 * tid + 2) - 1;                                 \
                    const T left_sum = tree[TREE_SLOT(left, PAD)];                                 \
                    tree[TREE_SLOT(left, PAD)] = tree[TREE_SLOT(right, PAD)];                      \
                    tree[TREE_SLOT(right, PAD)] =                                                  \
                        combine_##S(tree[TREE_SLOT(right, PAD)], left_sum, op);                    \
                }                                                                                  \
            }                                                                                      \
            barrier(CLK_LOCAL_MEM_FENCE);                                                          \
            const T ea = combine_##S(carry, tree[TREE_SLOT(a, PAD)], op);                          \
            const T eb = combine_##S(carry, tree[TREE_SLOT(b, PAD)], op);                          \
            if (base + a < n)                                                                      \
                out[out_off + base + a] = exclusive ? ea : combine_##S(ea, xa, op);                \
            if (base + b < n)                                                                      \
                out[out_off + base + b] = exclusive ? eb : combine_##S(eb, xb, op);                \
            carry = combine_##S(carry, total, op);                                                 \
            barrier(CLK_LOCAL_MEM_FENCE);                                                          \
        }                                                                                          \
    }
/* warplab:end */

/* warplab:rung scan scan_then_propagate */
/* Level kernels: group g scans tile g (GROUP elements, Hillis-Steele in
 * local memory) and writes the tile's total to sums[sums_off + g] (when
 * has_sums); then, down the levels, every element of tile g + 1 takes the
 * scanned total of the tiles before it. */
#define PROPAGATE_KERNELS(T, S)                                                                    \
    __kernel void scan_tile_sums_##S(__global const T *in, ulong in_off, __global T *out,          \
                                     ulong out_off, ulong n, __global T *sums, ulong sums_off,     \
                                     int has_sums, int exclusive, int op)                          \
    {                                                                                              \
        __local T s[2][GROUP];                                                                     \
        const uint tid = get_local_id(0);                                                          \
        const ulong i = get_group_id(0) * (ulong)GROUP + tid;                                      \
        int from = 0;                                                                              \
        const T x = i < n ? in[in_off + i] : identity_##S(op);                                     \
        s[0][tid] = x;                                                                             \
        barrier(CLK_LOCAL_MEM_FENCE);                                                              \
        for (uint d = 1; d < GROUP; d <<= 1) {                                                     \
            s[1 - from][tid] =                                                                     \
                tid >= d ? combine_##S(s[from][tid - d], s[from][tid], op) : s[from][tid];         \
            from = 1 - from;                                                                       \
            barrier(CLK_LOCAL_MEM_FENCE);                                                          \
        }                                                                                          \
        if (i < n)                                                                                 \
            out[out_off + i] =                                                                     \
                exclusive ? (tid == 0 ? identity_##S(op) : s[from][tid - 1]) : s[from][tid];       \
        if (has_sums && tid == 0)                                                                  \
            sums[sums_off + get_group_id(0)] = s[from][GROUP - 1];                                 \
    }                                                                                              \
                                                                                                   \
    __kernel void scan_propagate_##S(__global T *out, ulong out_off, ulong n,                      \
                                     __global const T *scanned, ulong scanned_off, int op)         \
    {                                                                                              \
        const ulong i = (get_group_id(0) + 1) * (ulong)GROUP + get_local_id(0);                    \
        if (i < n)                                                                                 \
            out[out_off + i] =                                                                     \
                combine_##S(scanned[scanned_off + get_group_id(0)], out[out_off + i], op);         \
    }
/* warplab:end */

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
     * local memory), starting from carries[g] (has_carries) or the identity, and carrying the     \
     * running total from tile to tile. Pass 2 is one group over the partials, exclusive, in       \
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

#define ALL_SCAN_KERNELS(T, S)                                                                     \
    SCAN_KERNELS(T, S)                                                                             \
    TREE_KERNEL(T, S, scan_blelloch, 0)                                                            \
    TREE_KERNEL(T, S, scan_conflict_free, 1)                                                       \
    PROPAGATE_KERNELS(T, S)

ALL_SCAN_KERNELS(int, int)
ALL_SCAN_KERNELS(float, float)
#ifdef cl_khr_fp64
ALL_SCAN_KERNELS(double, double)
#endif
