/* The unroll probe's OpenCL kernels.
 * Views arrive as a buffer and an element offset; every kernel
 * bounds-checks, since global sizes are rounded up to the work-group size.
 * "Warp" means 32 consecutive work-items, as on NVIDIA hardware; on other
 * devices the kernels still compute (and are checked) the same thing. */

/* ------------------------------------------------------------------------ */
/* unroll: Horner over coefficients in local memory, `repeats` times at x and
 * -x alternately. The four kernels differ only in how the inner loop is
 * written. */

#define UNROLL_DEGREE 64 /* WL_UNROLL_DEGREE in src/lab/probes/probe_kernels.h */

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
