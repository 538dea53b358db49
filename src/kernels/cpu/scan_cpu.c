/* The cpu backend's scan rungs: the host loop (the library's scan on the
 * cpu backend) and a copy of the same bytes as the reference. The loop
 * accumulates in the element type and computes what every rung computes:
 * int32 sums wrap modulo 2^32, min and max propagate a NaN, an exclusive
 * scan starts with the identity. In place (output = input) is safe: each
 * element is read before its place is written. */
/*
 * Contents: the scan rungs this file implements, in ladder order
 * (number = place on the ladder, as `warplab ladders scan` lists it):
 *    1. cpu_loop -- CPU loop, one core
 *   13. copy -- device-to-device copy (reference)
 */
#include "combine.h"
#include "cpu.h"

#include <math.h>
#include <string.h>

/* warplab:rung scan cpu_loop */
/* The combine functions (sum_T, min_T, max_T) are combine.h's. */
/* scan_T_OP(x, y, n, exclusive, acc): y[i] = acc op x[0..i] (or x[0..i-1]). */
#define DEFINE_SCAN(T, NAME, OP)                                                                   \
    static void scan_##NAME##_##OP(const T *x, T *y, size_t n, int exclusive, T acc)               \
    {                                                                                              \
        if (exclusive) {                                                                           \
            for (size_t i = 0; i < n; i++) {                                                       \
                const T v = x[i];                                                                  \
                y[i] = acc;                                                                        \
                acc = OP##_##NAME(acc, v);                                                         \
            }                                                                                      \
        } else {                                                                                   \
            for (size_t i = 0; i < n; i++)                                                         \
                y[i] = acc = OP##_##NAME(acc, x[i]);                                               \
        }                                                                                          \
    }
#define DEFINE_SCANS(T, NAME)                                                                      \
    DEFINE_SCAN(T, NAME, sum) DEFINE_SCAN(T, NAME, min) DEFINE_SCAN(T, NAME, max)

DEFINE_SCANS(int32_t, int32)
DEFINE_SCANS(float, float)
DEFINE_SCANS(double, double)

/* Rung cpu_loop: one core, one element per iteration. */
static warplab_status scan_loop(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)backend;
    (void)state;
    const wl_problem *p = launch->problem;
    const void *x = wl_view_ptr(launch->buf[0]);
    void *y = wl_view_ptr(launch->buf[1]);
    const size_t n = p->dim[0];
    const int exclusive = p->variant == WARPLAB_SCAN_EXCLUSIVE;
    switch (p->dtype) {
    case WARPLAB_INT32:
        if (p->op == WARPLAB_REDUCE_SUM)
            scan_int32_sum(x, y, n, exclusive, 0);
        else if (p->op == WARPLAB_REDUCE_MIN)
            scan_int32_min(x, y, n, exclusive, INT32_MAX);
        else
            scan_int32_max(x, y, n, exclusive, INT32_MIN);
        break;
    case WARPLAB_FLOAT32:
        if (p->op == WARPLAB_REDUCE_SUM)
            scan_float_sum(x, y, n, exclusive, 0.0f);
        else if (p->op == WARPLAB_REDUCE_MIN)
            scan_float_min(x, y, n, exclusive, INFINITY);
        else
            scan_float_max(x, y, n, exclusive, -INFINITY);
        break;
    default:
        if (p->op == WARPLAB_REDUCE_SUM)
            scan_double_sum(x, y, n, exclusive, 0.0);
        else if (p->op == WARPLAB_REDUCE_MIN)
            scan_double_min(x, y, n, exclusive, INFINITY);
        else
            scan_double_max(x, y, n, exclusive, -INFINITY);
        break;
    }
    return WARPLAB_OK;
}
/* warplab:end */

static const wl_impl loop_impl = {.ladder = "scan", .rung = "cpu_loop", .launch = scan_loop};

/* warplab:rung scan copy */
/* Rung copy (reference): n elements in, n out. */
static warplab_status scan_copy(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)backend;
    (void)state;
    const wl_problem *p = launch->problem;
    memmove(wl_view_ptr(launch->buf[1]), wl_view_ptr(launch->buf[0]),
            p->dim[0] * warplab_dtype_size(p->dtype));
    return WARPLAB_OK;
}
/* warplab:end */

static const wl_impl copy_impl = {.ladder = "scan", .rung = "copy", .launch = scan_copy};

const wl_impl *const wl_cpu_scan_impls[] = {&loop_impl, &copy_impl, NULL};
