/* The cpu backend's reduction rungs: the course's host loop, and the same
 * loop on every core. Both accumulate in the element type, as the course's C
 * does, and compute what every rung computes: int32 sums wrap modulo 2^32,
 * min and max propagate a NaN, n = 0 gives the identity. */
/*
 * Contents: the reduce rungs this file implements, in ladder order
 * (number = place on the ladder, as `warplab ladders reduce` lists it):
 *    1. cpu_loop -- CPU loop, one core
 *    2. cpu_threads -- CPU loop, all cores
 */
#include "combine.h"
#include "cpu.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Work split for the multithreaded rung: chunks of 256 Ki elements. */
#define CHUNK_ELEMENTS ((size_t)1 << 18)

/* warplab:rung reduce cpu_loop cpu_threads */
/* The combine functions (sum_T, min_T, max_T) are combine.h's. */
/* reduce_range_T(x, n, op, acc): acc combined with x[0..n), in order. */
#define DEFINE_REDUCE_RANGE(T, NAME)                                                               \
    static T reduce_range_##NAME(const T *x, size_t n, warplab_reduce_op op, T acc)                \
    {                                                                                              \
        switch (op) {                                                                              \
        case WARPLAB_REDUCE_SUM:                                                                   \
            for (size_t i = 0; i < n; i++)                                                         \
                acc = sum_##NAME(acc, x[i]);                                                       \
            break;                                                                                 \
        case WARPLAB_REDUCE_MIN:                                                                   \
            for (size_t i = 0; i < n; i++)                                                         \
                acc = min_##NAME(acc, x[i]);                                                       \
            break;                                                                                 \
        default:                                                                                   \
            for (size_t i = 0; i < n; i++)                                                         \
                acc = max_##NAME(acc, x[i]);                                                       \
            break;                                                                                 \
        }                                                                                          \
        return acc;                                                                                \
    }

DEFINE_REDUCE_RANGE(int32_t, int32)
DEFINE_REDUCE_RANGE(float, float)
DEFINE_REDUCE_RANGE(double, double)

/* *result = the reduction of x[0..n) (the identity when n = 0). */
static void reduce_host(warplab_dtype dtype, warplab_reduce_op op, const void *x, size_t n,
                        void *result)
{
    switch (dtype) {
    case WARPLAB_INT32: {
        int32_t acc = op == WARPLAB_REDUCE_MIN   ? INT32_MAX
                      : op == WARPLAB_REDUCE_MAX ? INT32_MIN
                                                 : 0;
        acc = reduce_range_int32(x, n, op, acc);
        memcpy(result, &acc, sizeof acc);
        break;
    }
    case WARPLAB_FLOAT32: {
        float acc = op == WARPLAB_REDUCE_MIN   ? INFINITY
                    : op == WARPLAB_REDUCE_MAX ? -INFINITY
                                               : 0.0f;
        acc = reduce_range_float(x, n, op, acc);
        memcpy(result, &acc, sizeof acc);
        break;
    }
    default: {
        double acc = op == WARPLAB_REDUCE_MIN   ? INFINITY
                     : op == WARPLAB_REDUCE_MAX ? -INFINITY
                                                : 0.0;
        acc = reduce_range_double(x, n, op, acc);
        memcpy(result, &acc, sizeof acc);
        break;
    }
    }
}
/* warplab:end */

/* warplab:rung reduce cpu_loop */
/* Rung cpu_loop: one core, one element per iteration. */
static warplab_status reduce_loop(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)backend;
    (void)state;
    const wl_problem *p = launch->problem;
    reduce_host(p->dtype, p->op, wl_view_ptr(launch->buf[0]), p->dim[0],
                wl_view_ptr(launch->buf[1]));
    return WARPLAB_OK;
}
/* warplab:end */

static const wl_impl loop_impl = {.ladder = "reduce", .rung = "cpu_loop", .launch = reduce_loop};

/* warplab:rung reduce cpu_threads */
/* Rung cpu_threads: one partial per chunk on every core, then the partials
 * reduced by the same loop. The partials live in the rung's state (setup,
 * untimed). */
typedef struct chunked_reduce {
    const unsigned char *x;
    size_t n, element;
    warplab_dtype dtype;
    warplab_reduce_op op;
    unsigned char *partials; /* one element per chunk */
} chunked_reduce;

static size_t chunk_count(size_t n)
{
    return (n + CHUNK_ELEMENTS - 1) / CHUNK_ELEMENTS;
}

static void reduce_chunk(size_t task, void *user)
{
    const chunked_reduce *job = user;
    size_t begin = task * CHUNK_ELEMENTS;
    size_t end = begin + CHUNK_ELEMENTS < job->n ? begin + CHUNK_ELEMENTS : job->n;
    reduce_host(job->dtype, job->op, job->x + begin * job->element, end - begin,
                job->partials + task * job->element);
}

static warplab_status threads_setup(wl_backend *backend, const wl_launch *launch, void **state)
{
    size_t chunks = chunk_count(launch->problem->dim[0]);
    *state = malloc((chunks ? chunks : 1) * sizeof(double));
    if (!*state)
        return wl_fail(backend, WARPLAB_ERROR_HOST_OUT_OF_MEMORY,
                       "cannot allocate %zu partial results", chunks);
    return WARPLAB_OK;
}

static void threads_teardown(wl_backend *backend, void *state)
{
    (void)backend;
    free(state);
}

static warplab_status reduce_threads(wl_backend *backend, const wl_launch *launch, void *state)
{
    const wl_problem *p = launch->problem;
    chunked_reduce job = {wl_view_ptr(launch->buf[0]),
                          p->dim[0],
                          warplab_dtype_size(p->dtype),
                          p->dtype,
                          p->op,
                          state};
    size_t chunks = chunk_count(job.n);
    wl_parallel_for(backend->info.multiprocessors, chunks, reduce_chunk, &job);
    reduce_host(p->dtype, p->op, job.partials, chunks, wl_view_ptr(launch->buf[1]));
    return WARPLAB_OK;
}
/* warplab:end */

static const wl_impl threads_impl = {.ladder = "reduce",
                                     .rung = "cpu_threads",
                                     .setup = threads_setup,
                                     .launch = reduce_threads,
                                     .teardown = threads_teardown};

const wl_impl *const wl_cpu_reduce_impls[] = {&loop_impl, &threads_impl, NULL};
