/* The cpu backend's transpose rungs: the course's plain double loop, the
 * same loop over cache-sized blocks on every core, and a row-by-row memcpy
 * as the host's copy reference. Elements move as 32- or 64-bit patterns:
 * a transpose never looks at values. */
/*
 * Contents: the transpose rungs this file implements, in ladder order
 * (number = place on the ladder, as `warplab ladders transpose` lists it):
 *    1. cpu_loop -- CPU double loop, one core
 *    2. cpu_blocked -- CPU 64x64 blocks, all cores
 *    3. copy -- copy, 16-byte accesses (reference)
 */
#include "cpu.h"
#include "kernels/transpose_layout.h"

#include <string.h>

/* A 64x64 block of floats is 16 KiB: its output rows stay in L1 while the
 * block is written. A task is a strip of blocks along one band of rows. */
#define CPU_BLOCK 64
#define BLOCKS_PER_TASK 4

/* warplab:rung transpose cpu_loop cpu_blocked */
/* out[c][r] = in[r][c] for r in [r0, r1), c in [c0, c1): the plain double
 * loop, reads along input rows, writes down output columns. */
#define DEFINE_TRANSPOSE_RECT(name, T)                                                             \
    static void name(const void *in_data, void *out_data, const wl_transpose_layout *m, size_t r0, \
                     size_t r1, size_t c0, size_t c1)                                              \
    {                                                                                              \
        const T *in = in_data;                                                                     \
        T *out = out_data;                                                                         \
        for (size_t r = r0; r < r1; r++)                                                           \
            for (size_t c = c0; c < c1; c++)                                                       \
                out[c * m->ld_out + r] = in[r * m->ld_in + c];                                     \
    }
DEFINE_TRANSPOSE_RECT(transpose_rect_32, uint32_t)
DEFINE_TRANSPOSE_RECT(transpose_rect_64, uint64_t)

typedef struct transpose_job {
    const void *in;
    void *out;
    wl_transpose_layout m;
    size_t strips_per_band; /* tasks along the columns */
} transpose_job;

static void transpose_rect(const transpose_job *job, size_t r0, size_t r1, size_t c0, size_t c1)
{
    if (job->m.element_size == 8)
        transpose_rect_64(job->in, job->out, &job->m, r0, r1, c0, c1);
    else
        transpose_rect_32(job->in, job->out, &job->m, r0, r1, c0, c1);
}

static size_t min_size(size_t a, size_t b)
{
    return a < b ? a : b;
}

static transpose_job job_of(const wl_launch *launch)
{
    const size_t strip = (size_t)CPU_BLOCK * BLOCKS_PER_TASK;
    transpose_job job = {wl_view_ptr(launch->buf[0]), wl_view_ptr(launch->buf[1]),
                         wl_transpose_layout_of(launch->problem), 0};
    job.strips_per_band = (job.m.cols + strip - 1) / strip;
    return job;
}
/* warplab:end */

/* warplab:rung transpose cpu_loop */
/* Rung cpu_loop: the whole matrix through the plain double loop, one core. */
static warplab_status transpose_loop(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)backend;
    (void)state;
    const transpose_job job = job_of(launch);
    transpose_rect(&job, 0, job.m.rows, 0, job.m.cols);
    return WARPLAB_OK;
}
/* warplab:end */

static const wl_impl loop_impl = {
    .ladder = "transpose", .rung = "cpu_loop", .launch = transpose_loop};

/* warplab:rung transpose cpu_blocked */
static void transpose_strip(size_t task, void *user)
{
    const transpose_job *job = user;
    const size_t r0 = task / job->strips_per_band * CPU_BLOCK;
    const size_t r1 = min_size(r0 + CPU_BLOCK, job->m.rows);
    const size_t strip_begin = task % job->strips_per_band * CPU_BLOCK * BLOCKS_PER_TASK;
    const size_t strip_end = min_size(strip_begin + CPU_BLOCK * BLOCKS_PER_TASK, job->m.cols);
    for (size_t c0 = strip_begin; c0 < strip_end; c0 += CPU_BLOCK)
        transpose_rect(job, r0, r1, c0, min_size(c0 + CPU_BLOCK, strip_end));
}

/* Rung cpu_blocked: over cpu_loop, the loop runs over 64x64 blocks, so the
 * 64 output rows a block writes stay in cache until their lines are full,
 * and the blocks are spread over every core. */
static warplab_status transpose_blocked(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    transpose_job job = job_of(launch);
    const size_t bands = (job.m.rows + CPU_BLOCK - 1) / CPU_BLOCK;
    wl_parallel_for(backend->info.multiprocessors, bands * job.strips_per_band, transpose_strip,
                    &job);
    return WARPLAB_OK;
}
/* warplab:end */

static const wl_impl blocked_impl = {
    .ladder = "transpose", .rung = "cpu_blocked", .launch = transpose_blocked};

/* warplab:rung transpose copy */
static void copy_band(size_t task, void *user)
{
    const transpose_job *job = user;
    const size_t size = job->m.element_size;
    const size_t r1 = min_size((task + 1) * CPU_BLOCK, job->m.rows);
    for (size_t r = task * CPU_BLOCK; r < r1; r++)
        memcpy((char *)job->out + r * job->m.cols * size,
               (const char *)job->in + r * job->m.ld_in * size, job->m.cols * size);
}

/* Rung copy (reference): each input row memcpy'd to a tight output row,
 * bands of rows spread over every core. */
static warplab_status transpose_copy(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    transpose_job job = job_of(launch);
    if (job.m.cols == 0)
        return WARPLAB_OK;
    wl_parallel_for(backend->info.multiprocessors, (job.m.rows + CPU_BLOCK - 1) / CPU_BLOCK,
                    copy_band, &job);
    return WARPLAB_OK;
}
/* warplab:end */

static const wl_impl copy_impl = {.ladder = "transpose", .rung = "copy", .launch = transpose_copy};

const wl_impl *const wl_cpu_transpose_impls[] = {&loop_impl, &blocked_impl, &copy_impl, NULL};
