/* The cpu backend's vector-add rungs: the course's host loop, the same loop
 * on every core, and a multithreaded memcpy as the host's copy reference. */
/*
 * Contents: the vecadd rungs this file implements, in ladder order
 * (number = place on the ladder, as `warplab ladders vecadd` lists it):
 *    1. cpu_loop -- CPU loop, one core
 *    2. cpu_threads -- CPU loop, all cores
 *   12. copy -- device-to-device copy (reference)
 */
#include "cpu.h"
#include "kernels/vecadd.h"

#include <string.h>

/* Work split for the multithreaded rows: contiguous chunks of 1 MiB-ish. */
#define CHUNK_ELEMENTS ((size_t)1 << 18)

/* warplab:rung vecadd cpu_loop */
static warplab_status vecadd_loop(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)backend;
    (void)state;
    const float *a = wl_view_ptr(launch->buf[VECADD_A]);
    const float *b = wl_view_ptr(launch->buf[VECADD_B]);
    float *c = wl_view_ptr(launch->buf[VECADD_C]);
    const size_t n = launch->problem->dim[0];
    for (size_t i = 0; i < n; i++)
        c[i] = a[i] + b[i];
    return WARPLAB_OK;
}
/* warplab:end */

static const wl_impl loop_impl = {.ladder = "vecadd", .rung = "cpu_loop", .launch = vecadd_loop};

/* warplab:rung vecadd cpu_threads */
typedef struct chunked {
    const float *a, *b;
    float *c;
    size_t n;
} chunked;

static void add_chunk(size_t task, void *user)
{
    const chunked *job = user;
    size_t begin = task * CHUNK_ELEMENTS;
    size_t end = begin + CHUNK_ELEMENTS < job->n ? begin + CHUNK_ELEMENTS : job->n;
    for (size_t i = begin; i < end; i++)
        job->c[i] = job->a[i] + job->b[i];
}

static warplab_status vecadd_threads(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    chunked job = {wl_view_ptr(launch->buf[VECADD_A]), wl_view_ptr(launch->buf[VECADD_B]),
                   wl_view_ptr(launch->buf[VECADD_C]), launch->problem->dim[0]};
    wl_parallel_for(backend->info.multiprocessors, (job.n + CHUNK_ELEMENTS - 1) / CHUNK_ELEMENTS,
                    add_chunk, &job);
    return WARPLAB_OK;
}
/* warplab:end */

static const wl_impl threads_impl = {
    .ladder = "vecadd", .rung = "cpu_threads", .launch = vecadd_threads};

/* warplab:rung vecadd copy */
static void copy_chunk(size_t task, void *user)
{
    const chunked *job = user;
    size_t begin = task * CHUNK_ELEMENTS;
    size_t end = begin + CHUNK_ELEMENTS < job->n ? begin + CHUNK_ELEMENTS : job->n;
    memcpy(job->c + begin, job->a + begin, (end - begin) * sizeof(float));
}

static warplab_status vecadd_copy(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    chunked job = {wl_view_ptr(launch->buf[VECADD_A]), NULL, wl_view_ptr(launch->buf[VECADD_C]),
                   launch->problem->dim[0]};
    wl_parallel_for(backend->info.multiprocessors, (job.n + CHUNK_ELEMENTS - 1) / CHUNK_ELEMENTS,
                    copy_chunk, &job);
    return WARPLAB_OK;
}
/* warplab:end */

static const wl_impl copy_impl = {.ladder = "vecadd", .rung = "copy", .launch = vecadd_copy};

const wl_impl *const wl_cpu_vecadd_impls[] = {&loop_impl, &threads_impl, &copy_impl, NULL};
