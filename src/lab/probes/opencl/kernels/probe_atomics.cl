/* The atomics probe's OpenCL kernels.
 * Views arrive as a buffer and an element offset; every kernel
 * bounds-checks, since global sizes are rounded up to the work-group size.
 * "Warp" means 32 consecutive work-items, as on NVIDIA hardware; on other
 * devices the kernels still compute (and are checked) the same thing. */

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
/* atomic functions: seed 002's list on int counters, one kernel each (the
 * same loop as probe_atomic_global_int, another built-in). OpenCL's
 * atomic_inc and atomic_dec wrap, as CUDA's do with the limit 0xffffffff. */

#define ATOMIC_FUNCTION(name, STEP)                                                                \
    __kernel void name(__global const int *values, ulong values_off, __global int *counters,      \
                       ulong counters_off, ulong threads, ulong addresses, uint iterations)        \
    {                                                                                              \
        const size_t t = get_global_id(0);                                                         \
        if (t >= threads)                                                                          \
            return;                                                                                \
        const int v = values[values_off + t];                                                      \
        __global int *counter = counters + counters_off + t % addresses;                           \
        for (uint k = 0; k < iterations; k++)                                                      \
            STEP;                                                                                  \
    }

ATOMIC_FUNCTION(probe_atomic_add, atomic_add(counter, v))
ATOMIC_FUNCTION(probe_atomic_sub, atomic_sub(counter, v))
ATOMIC_FUNCTION(probe_atomic_exch, atomic_xchg(counter, v))
ATOMIC_FUNCTION(probe_atomic_min, atomic_min(counter, v))
ATOMIC_FUNCTION(probe_atomic_max, atomic_max(counter, v))
ATOMIC_FUNCTION(probe_atomic_inc, atomic_inc(counter))
ATOMIC_FUNCTION(probe_atomic_dec, atomic_dec(counter))
ATOMIC_FUNCTION(probe_atomic_and, atomic_and(counter, v))
ATOMIC_FUNCTION(probe_atomic_or, atomic_or(counter, v))
ATOMIC_FUNCTION(probe_atomic_xor, atomic_xor(counter, v))
