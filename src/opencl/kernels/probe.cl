/* The probes' OpenCL kernels: the experiments that have an OpenCL form
 * (coalescing, banks, divergence, atomics, the integer half of intrinsics,
 * unroll). Views arrive as a buffer and an element offset; every kernel
 * bounds-checks, since global sizes are rounded up to the work-group size.
 * "Warp" means 32 consecutive work-items, as on NVIDIA hardware; on other
 * devices the kernels still compute (and are checked) the same thing. */

/* ------------------------------------------------------------------------ */
/* coalescing */

/* Isolates misalignment: a copy whose reads and writes start `offset`
 * floats past the arrays' start. */
__kernel void probe_offset_copy(__global const float *in, ulong in_off, __global float *out,
                                ulong out_off, ulong n, ulong offset)
{
    size_t i = get_global_id(0);
    if (i < n)
        out[out_off + offset + i] = in[in_off + offset + i];
}

/* Isolates strided reads: element i comes from in[i * stride]; the writes
 * stay coalesced. */
__kernel void probe_stride_copy(__global const float *in, ulong in_off, __global float *out,
                                ulong out_off, ulong n, ulong stride)
{
    size_t i = get_global_id(0);
    if (i < n)
        out[out_off + i] = in[in_off + i * stride];
}

/* ------------------------------------------------------------------------ */
/* banks: a table in local memory, table[w] = byte offset of (w + 32 s) mod
 * words; four dependent chains per work-item. Lane l starts at l x s (plus a
 * base common to its warp), so the stride alone sets the bank pattern. */

#define BANKS_CHAIN_GAP 512u /* WL_BANKS_CHAIN_GAP in src/probe_kernels.h */

/* Isolates bank conflicts; one kernel per word type (Word: the loads' width). */
#define BANKS_KERNEL(name, Word)                                                                   \
    __kernel void name(__global const int *starts, ulong starts_off, __global uint *out,           \
                       ulong out_off, ulong threads, uint stride, uint steps, uint words,          \
                       __local Word *table)                                                        \
    {                                                                                              \
        const uint size = sizeof(Word);                                                            \
        for (uint w = get_local_id(0); w < words; w += get_local_size(0))                          \
            table[w] = (Word)(((w + 32u * stride) % words) * size);                                \
        barrier(CLK_LOCAL_MEM_FENCE);                                                              \
        const size_t t = get_global_id(0);                                                         \
        const uint lane = (uint)(t % 32);                                                          \
        const uint start = t < threads ? (uint)starts[starts_off + t / 32] : 0u;                   \
        const uint base = lane * stride + 32u * stride * start;                                    \
        Word w0 = (base % words) * size, w1 = ((base + BANKS_CHAIN_GAP) % words) * size;           \
        Word w2 = ((base + 2u * BANKS_CHAIN_GAP) % words) * size;                                  \
        Word w3 = ((base + 3u * BANKS_CHAIN_GAP) % words) * size;                                  \
        __local const uchar *bytes = (__local const uchar *)table;                                 \
        for (uint k = 0; k < steps; k++) {                                                         \
            w0 = *(__local const Word *)(bytes + w0);                                              \
            w1 = *(__local const Word *)(bytes + w1);                                              \
            w2 = *(__local const Word *)(bytes + w2);                                              \
            w3 = *(__local const Word *)(bytes + w3);                                              \
        }                                                                                          \
        if (t < threads)                                                                           \
            out[out_off + t] =                                                                     \
                (uint)(w0 / size + 3u * (w1 / size) + 5u * (w2 / size) + 7u * (w3 / size));        \
    }

BANKS_KERNEL(probe_banks_word4, uint)
BANKS_KERNEL(probe_banks_word8, ulong)

/* ------------------------------------------------------------------------ */
#define CHAIN_A 0.9999f /* WL_CHAIN_A in src/probe_kernels.h */

/* divergence: path q runs `steps` FMAs y <- fma(y, CHAIN_A, 0.001 (q + 1));
 * a work-item takes path key % paths, key = lane, warp or work-group. */

__kernel void probe_divergence(__global const float *in, ulong in_off, __global float *out,
                               ulong out_off, ulong threads, uint paths, uint steps, uint selector)
{
    const size_t t = get_global_id(0);
    if (t >= threads)
        return;
    const size_t key = selector == 0 ? t % 32 : selector == 1 ? t / 32 : get_group_id(0);
    const uint path = (uint)(key % paths);
    float y = in[in_off + t];
    for (uint q = 0; q < paths; q++)
        if (path == q) {
            const float b = 0.001f * (float)(q + 1);
            for (uint k = 0; k < steps; k++)
                y = fma(y, CHAIN_A, b);
        }
    out[out_off + t] = y;
}

/* ------------------------------------------------------------------------ */
/* atomics: work-item t adds values[t] to counter t % addresses, `iterations`
 * times. */

/* Isolates global-memory atomics on int. */
__kernel void probe_atomic_global_int(__global const int *values, ulong values_off,
                                      __global int *counters, ulong counters_off, ulong threads,
                                      ulong addresses, uint iterations)
{
    const size_t t = get_global_id(0);
    if (t >= threads)
        return;
    const int v = values[values_off + t];
    __global int *counter = counters + counters_off + t % addresses;
    for (uint k = 0; k < iterations; k++)
        atomic_add(counter, v);
}

/* Isolates staging: the adds go to local counters, then each work-group
 * adds its counters to global memory once. */
__kernel void probe_atomic_local_int(__global const int *values, ulong values_off,
                                     __global int *counters, ulong counters_off, ulong threads,
                                     ulong addresses, uint iterations, __local int *slots)
{
    const size_t t = get_global_id(0), lid = get_local_id(0), size = get_local_size(0);
    const size_t count = addresses < size ? addresses : size;
    for (size_t i = lid; i < count; i += size)
        slots[i] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (t < threads) {
        const int v = values[values_off + t];
        for (uint k = 0; k < iterations; k++)
            atomic_add(&slots[lid % count], v);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const size_t first = get_group_id(0) * size;
    for (size_t i = lid; i < count; i += size)
        atomic_add(counters + counters_off + (first + i) % addresses, slots[i]);
}

/* Isolates the compare-and-swap loop: a float add built from atomic_cmpxchg
 * (OpenCL 1.2 has no float atomics). */
__kernel void probe_atomic_cas_float(__global const int *values, ulong values_off,
                                     __global int *counters, ulong counters_off, ulong threads,
                                     ulong addresses, uint iterations)
{
    const size_t t = get_global_id(0);
    if (t >= threads)
        return;
    const float v = (float)values[values_off + t];
    __global int *counter = counters + counters_off + t % addresses;
    for (uint k = 0; k < iterations; k++) {
        int seen = *(volatile __global int *)counter, expected;
        do {
            expected = seen;
            seen = atomic_cmpxchg(counter, expected, as_int(as_float(expected) + v));
        } while (seen != expected);
    }
}

/* ------------------------------------------------------------------------ */
/* intrinsics, integer half: v / d + v % d against v >> s + (v & m). */

/* Isolates integer division and modulo by a divisor known only at run time. */
__kernel void probe_div_mod(__global const int *cells, ulong cells_off, __global uint *first,
                            ulong first_off, __global uint *sum, ulong sum_off, ulong threads,
                            uint evaluations, uint divisor, uint step)
{
    const size_t t = get_global_id(0);
    if (t >= threads)
        return;
    uint v = (uint)cells[cells_off + t], s = 0;
    first[first_off + t] = v / divisor + v % divisor;
    for (uint k = 0; k < evaluations; k++) {
        s += v / divisor + v % divisor;
        v += step;
    }
    sum[sum_off + t] = s;
}

/* The same values with a shift and a mask. */
__kernel void probe_shift_mask(__global const int *cells, ulong cells_off, __global uint *first,
                               ulong first_off, __global uint *sum, ulong sum_off, ulong threads,
                               uint evaluations, uint shift, uint step)
{
    const size_t t = get_global_id(0);
    if (t >= threads)
        return;
    const uint mask = (1u << shift) - 1u;
    uint v = (uint)cells[cells_off + t], s = 0;
    first[first_off + t] = (v >> shift) + (v & mask);
    for (uint k = 0; k < evaluations; k++) {
        s += (v >> shift) + (v & mask);
        v += step;
    }
    sum[sum_off + t] = s;
}

/* ------------------------------------------------------------------------ */
/* unroll: Horner over coefficients in local memory, `repeats` times at x and
 * -x alternately. The four kernels differ only in how the inner loop is
 * written. */

#define UNROLL_DEGREE 64 /* WL_UNROLL_DEGREE in src/probe_kernels.h */

#define POLY_PROLOGUE                                                                              \
    for (size_t i = get_local_id(0); i < degree; i += get_local_size(0))                           \
        c[i] = coefficients[coefficients_off + i];                                                 \
    barrier(CLK_LOCAL_MEM_FENCE);                                                                  \
    const size_t t = get_global_id(0);                                                             \
    if (t >= threads)                                                                              \
        return;                                                                                    \
    float xs = x[x_off + t], acc = 0.0f

#define POLY_ARGUMENTS                                                                             \
    __global const float *x, ulong x_off, __global const float *coefficients,                      \
        ulong coefficients_off, __global float *out, ulong out_off, ulong threads, uint repeats,   \
        uint degree, __local float *c

/* Isolates the loop overhead: not unrolled at all. */
__kernel void probe_poly_rolled(POLY_ARGUMENTS)
{
    POLY_PROLOGUE;
#pragma unroll 1
    for (uint r = 0; r < repeats; r++) {
        float y = 0.0f;
#pragma unroll 1
        for (uint k = 0; k < degree; k++)
            y = fma(y, xs, c[k]);
        acc += y;
        xs = -xs;
    }
    out[out_off + t] = acc;
}

/* What the compiler does alone with a run-time trip count. */
__kernel void probe_poly_compiler(POLY_ARGUMENTS)
{
    POLY_PROLOGUE;
#pragma unroll 1
    for (uint r = 0; r < repeats; r++) {
        float y = 0.0f;
        for (uint k = 0; k < degree; k++)
            y = fma(y, xs, c[k]);
        acc += y;
        xs = -xs;
    }
    out[out_off + t] = acc;
}

/* A compile-time trip count, fully unrolled. */
__kernel void probe_poly_pragma(POLY_ARGUMENTS)
{
    POLY_PROLOGUE;
#pragma unroll 1
    for (uint r = 0; r < repeats; r++) {
        float y = 0.0f;
#pragma unroll
        for (uint k = 0; k < UNROLL_DEGREE; k++)
            y = fma(y, xs, c[k]);
        acc += y;
        xs = -xs;
    }
    out[out_off + t] = acc;
}

/* Unrolled by hand, four steps per trip, and a remainder loop. */
__kernel void probe_poly_by_hand(POLY_ARGUMENTS)
{
    POLY_PROLOGUE;
#pragma unroll 1
    for (uint r = 0; r < repeats; r++) {
        float y = 0.0f;
        uint k = 0;
#pragma unroll 1
        for (; k + 4 <= degree; k += 4) {
            y = fma(y, xs, c[k]);
            y = fma(y, xs, c[k + 1]);
            y = fma(y, xs, c[k + 2]);
            y = fma(y, xs, c[k + 3]);
        }
#pragma unroll 1
        for (; k < degree; k++)
            y = fma(y, xs, c[k]);
        acc += y;
        xs = -xs;
    }
    out[out_off + t] = acc;
}
