/* The cpu backend's combine functions for reduce and scan: sum, min and max
 * of int32, float and double, named OP_TYPE. */
#ifndef WARPLAB_KERNELS_CPU_COMBINE_H
#define WARPLAB_KERNELS_CPU_COMBINE_H

#include <math.h>
#include <stdint.h>

/* The int32 sum is done in uint32_t, where wrapping is defined; converting
 * back is modulo 2^32 with GCC and Clang (C11 leaves it to the compiler). */
static inline int32_t sum_int32(int32_t a, int32_t b)
{
    return (int32_t)((uint32_t)a + (uint32_t)b);
}
static inline int32_t min_int32(int32_t a, int32_t b)
{
    return b < a ? b : a;
}
static inline int32_t max_int32(int32_t a, int32_t b)
{
    return b > a ? b : a;
}
/* A NaN in b wins, a NaN already in a stays (b < a is false against it). */
static inline float sum_float(float a, float b)
{
    return a + b;
}
static inline float min_float(float a, float b)
{
    return (b < a || isnan(b)) ? b : a;
}
static inline float max_float(float a, float b)
{
    return (b > a || isnan(b)) ? b : a;
}
static inline double sum_double(double a, double b)
{
    return a + b;
}
static inline double min_double(double a, double b)
{
    return (b < a || isnan(b)) ? b : a;
}
static inline double max_double(double a, double b)
{
    return (b > a || isnan(b)) ? b : a;
}

#endif
