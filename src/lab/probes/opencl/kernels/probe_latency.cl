/* The latency probe's OpenCL kernels. Views arrive as a buffer and an
 * element offset. */

#define CHASE_STRIDE 33u /* WL_CHASE_STRIDE in src/lab/probes/probe_kernels.h */

/* Isolates latency: one work-item, each load's address from the last load's
 * value (0, which the compiler cannot know). */
__kernel void probe_chase(__global const int *words, ulong words_off, __global int *out,
                          ulong out_off, ulong mask, uint steps)
{
    if (get_global_id(0) != 0)
        return;
    ulong i = 0;
    for (uint s = 0; s < steps; s++)
        i = (i + CHASE_STRIDE + (uint)words[words_off + i]) & mask;
    out[out_off] = (int)i;
}

/* Isolates loads in flight: a grid-stride copy, K independent loads issued
 * before any store. */
#define FLIGHT_KERNEL(name, K)                                                                     \
    __kernel void name(__global const float *in, ulong in_off, __global float *out,              \
                       ulong out_off, ulong n)                                                     \
    {                                                                                              \
        const ulong total = get_global_size(0);                                                    \
        for (ulong base = get_global_id(0); base < n; base += total * K) {                         \
            float v[K];                                                                            \
            for (int j = 0; j < K; j++) {                                                          \
                const ulong i = base + j * total;                                                  \
                v[j] = i < n ? in[in_off + i] : 0.0f;                                              \
            }                                                                                      \
            for (int j = 0; j < K; j++) {                                                          \
                const ulong i = base + j * total;                                                  \
                if (i < n)                                                                         \
                    out[out_off + i] = v[j];                                                       \
            }                                                                                      \
        }                                                                                          \
    }

FLIGHT_KERNEL(probe_flight_1, 1)
FLIGHT_KERNEL(probe_flight_4, 4)
FLIGHT_KERNEL(probe_flight_16, 16)
