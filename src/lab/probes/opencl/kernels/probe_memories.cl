/* The memories probe's OpenCL kernels: the table from __constant or
 * __global memory, and a private array indexed by constants or at run time.
 * Views arrive as a buffer and an element offset. */

#define CONSTANT_WORDS 4096u /* WL_CONSTANT_WORDS in src/lab/probes/probe_kernels.h */
#define LOCAL_MAX 64u        /* WL_LOCAL_MAX, ibid. */

#define TABLE_KERNEL(name, SPACE)                                                                  \
    __kernel void name(SPACE const int *table, ulong table_off, __global int *out, ulong out_off, \
                       ulong threads, uint distinct, uint steps)                                   \
    {                                                                                              \
        const ulong t = get_global_id(0);                                                          \
        const uint group = (uint)(get_local_id(0) % 32) % distinct;                                \
        uint sum = 0;                                                                              \
        for (uint k = 0; k < steps; k++)                                                           \
            sum += (uint)table[table_off + (group + 97u * k) % CONSTANT_WORDS];                    \
        if (t < threads)                                                                           \
            out[out_off + t] = (int)sum;                                                           \
    }

TABLE_KERNEL(probe_table_constant, __constant)
TABLE_KERNEL(probe_table_global, __global)

#define ARRAY_KERNEL(name, N)                                                                      \
    __kernel void name##_registers(__global const int *in, ulong in_off, __global int *out,       \
                                   ulong out_off, ulong threads, uint steps)                       \
    {                                                                                              \
        const ulong t = get_global_id(0);                                                          \
        uint a[N];                                                                                 \
        for (int j = 0; j < N; j++)                                                                \
            a[j] = (uint)in[in_off + (t + j) % LOCAL_MAX];                                         \
        uint acc = 0;                                                                              \
        for (uint k = 0; k < steps; k++) {                                                         \
            for (int i = 0; i < N; i++)                                                            \
                acc = 3u * acc + a[i];                                                             \
            const uint first = a[0];                                                               \
            for (int j = 0; j + 1 < N; j++)                                                        \
                a[j] = a[j + 1];                                                                   \
            a[N - 1] = first;                                                                      \
        }                                                                                          \
        if (t < threads)                                                                           \
            out[out_off + t] = (int)acc;                                                           \
    }                                                                                              \
    __kernel void name##_local(__global const int *in, ulong in_off, __global int *out,           \
                               ulong out_off, ulong threads, uint steps)                           \
    {                                                                                              \
        const ulong t = get_global_id(0);                                                          \
        uint a[N];                                                                                 \
        for (int j = 0; j < N; j++)                                                                \
            a[j] = (uint)in[in_off + (t + j) % LOCAL_MAX];                                         \
        uint acc = 0;                                                                              \
        for (uint k = 0; k < steps; k++)                                                           \
            for (int i = 0; i < N; i++)                                                            \
                acc = 3u * acc + a[(i + k) % N];                                                   \
        if (t < threads)                                                                           \
            out[out_off + t] = (int)acc;                                                           \
    }

ARRAY_KERNEL(probe_array_4, 4)
ARRAY_KERNEL(probe_array_8, 8)
ARRAY_KERNEL(probe_array_16, 16)
ARRAY_KERNEL(probe_array_32, 32)
ARRAY_KERNEL(probe_array_64, 64)
