/* The cpu backend's probe series: the CPU side of the transfers probe's
 * GPU-against-CPU sections (intensity, latency_bound), run as host rows
 * beside the GPU's. The other probes are the GPU's experiments: the cpu
 * backend has no form of them (warplab probe says so and skips them). */
#include "probe.h"
#include "probe_kernels.h"

enum { CHAIN_IN = 0, CHAIN_OUT };

/* Elements per task of the thread pool, and per inner block: a block of
 * independent chains the compiler can keep in vector registers. */
#define CHAIN_TASK ((size_t)1 << 16)
#define CHAIN_LANES 16

typedef struct chain_job {
    const float *in;
    float *out;
    size_t n;
    unsigned steps;
} chain_job;

/* The FMA chain y <- y a + b of the GPU's kernel (probe_kernels.h), in
 * double: the host build has no FMA instruction to count on (fmaf would be
 * a library call), and double's rounding stays far inside the float
 * chain's bound. CHAIN_LANES chains at a time, so the steps of different
 * elements overlap. */
static void chain_task(size_t task, void *user)
{
    const chain_job *job = user;
    const size_t begin = task * CHAIN_TASK;
    const size_t end = job->n - begin < CHAIN_TASK ? job->n : begin + CHAIN_TASK;
    const double a = (double)WL_CHAIN_A, b = (double)WL_OVERLAP_B;
    size_t i = begin;
    for (; i + CHAIN_LANES <= end; i += CHAIN_LANES) {
        double y[CHAIN_LANES];
        for (int l = 0; l < CHAIN_LANES; l++)
            y[l] = (double)job->in[i + (size_t)l];
        for (unsigned s = 0; s < job->steps; s++)
            for (int l = 0; l < CHAIN_LANES; l++)
                y[l] = y[l] * a + b;
        for (int l = 0; l < CHAIN_LANES; l++)
            job->out[i + (size_t)l] = (float)y[l];
    }
    for (; i < end; i++) {
        double y = (double)job->in[i];
        for (unsigned s = 0; s < job->steps; s++)
            y = y * a + b;
        job->out[i] = (float)y;
    }
}

/* Series cpu_cores and small_cpu: every core, the data in host memory. */
static warplab_status launch_chain(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    const wl_problem *p = launch->problem;
    chain_job job = {wl_view_ptr(launch->buf[CHAIN_IN]), wl_view_ptr(launch->buf[CHAIN_OUT]),
                     p->dim[0], (unsigned)p->dim[1]};
    wl_parallel_for(backend->info.multiprocessors, (job.n + CHAIN_TASK - 1) / CHAIN_TASK,
                    chain_task, &job);
    return WARPLAB_OK;
}

static const wl_impl cpu_cores_impl = {
    .ladder = "intensity", .rung = "cpu_cores", .launch = launch_chain};
static const wl_impl small_cpu_impl = {
    .ladder = "latency_bound", .rung = "small_cpu", .launch = launch_chain};

const wl_impl *const wl_cpu_probe_impls[] = {&cpu_cores_impl, &small_cpu_impl, NULL};
