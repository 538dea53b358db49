/* Small helpers the ladders share. */
#ifndef WARPLAB_LADDER_UTIL_H
#define WARPLAB_LADDER_UTIL_H

#include "../internal.h"

/* The sizes every 1-D ladder is tested at: empty, one, a warp and its
 * neighbours, and sizes off every block and vector width. */
extern const size_t wl_test_sizes_1d[];
extern const int wl_test_sizes_1d_count;

/* Element i of a host array of dtype, as a double. */
static inline double wl_element(const void *data, warplab_dtype dtype, size_t i)
{
    switch (dtype) {
    case WARPLAB_INT32: return (double)((const int32_t *)data)[i];
    case WARPLAB_FLOAT32: return (double)((const float *)data)[i];
    case WARPLAB_FLOAT64: return ((const double *)data)[i];
    default: return 0.0;
    }
}

/* No work of that kind: a rung's flops or bytes callback where the figure is
 * the other one (a copy has no flops; a probe counting loads, no bytes). */
double wl_zero_work(const wl_problem *problem);

/* "n=1048576 float" */
void wl_describe_1d(const wl_problem *problem, char *text, size_t len);
double wl_leading_size_1d(const wl_problem *problem);

/* Fills a 1-D problem from a parsed size; rejects 2-D and 3-D sizes. */
warplab_status wl_make_problem_1d(const size_t size[3], int dims, const char *ladder,
                                  wl_problem *problem, char *error, size_t error_len);

#endif
