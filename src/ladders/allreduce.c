/* The all-reduce ladder (docs/MULTIGPU.md): past one GPU. G >= 2 GPUs each hold an
 * array of n elements; afterwards every GPU holds the element-wise sum of all
 * G arrays (float or int32). The rungs climb from host staging to NCCL and a
 * kernel of ours beside it; docs/MULTIGPU.md tells the story and the plan for
 * more GPUs and hosts.
 *
 * How a multi-GPU rung fits the single-device harness (the one departure from
 * the other ladders' shape, kept as small as it can be):
 * - the problem's G is problem->param (the CUDA devices present, or
 *   WARPLAB_ALLREDUCE_GPUS when it asks for fewer);
 * - the harness's two buffers, on the harness's device, hold every rank's
 *   array one after the other: the input is G x n elements (rank r's array
 *   at r x n) and the output likewise. Rank 0 is the harness's device and
 *   works in its slices of these views directly; the cuda impl's setup
 *   enumerates the other GPUs, owns their arrays (copied in from the input's
 *   slices, outputs poisoned) and its finish copies their results back into
 *   the output's slices, so the ladder's verify checks every GPU's result
 *   against the CPU double-precision reference;
 * - the launch is the whole all-reduce: it makes every GPU's streams wait for
 *   the harness's stream, and the harness's stream wait for every GPU, so
 *   the harness's CUDA-event timers on the first GPU time all of it;
 * - bytes = n x element size, so the row's GB/s is nccl-tests' algbw (the
 *   message size over the time), and bus_bytes gives busbw = algbw x
 *   2(G-1)/G (nccl-tests' bus bandwidth for all-reduce).
 * The cpu and opencl backends have no rung (their tables are NULL-only); the
 * ladder's `available` says so, and the tests skip (exit 77) where fewer than
 * two CUDA GPUs are present. */
#include "../core/context.h"
#include "ladder_util.h"
#include "ladders/ladders.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { ALLREDUCE_IN = 0, ALLREDUCE_OUT };

static size_t gpu_count(const wl_problem *p)
{
    return p->param > 0 ? (size_t)p->param : 1;
}

/* The CUDA devices an all-reduce spans: every one present, or fewer when
 * WARPLAB_ALLREDUCE_GPUS asks (at most WL_ALLREDUCE_MAX_GPUS). */
int wl_allreduce_gpus(void)
{
    size_t present = 0;
    if (warplab_devices(WARPLAB_BACKEND_CUDA, NULL, 0, &present) != WARPLAB_OK)
        present = 0;
    const char *asked = getenv("WARPLAB_ALLREDUCE_GPUS");
    if (asked && *asked) {
        long wanted = strtol(asked, NULL, 10);
        if (wanted >= 1 && (size_t)wanted < present)
            present = (size_t)wanted;
    }
    return present > WL_ALLREDUCE_MAX_GPUS ? WL_ALLREDUCE_MAX_GPUS : (int)present;
}

/* The message: one GPU's array (nccl-tests' "size"). */
static double allreduce_bytes(const wl_problem *p)
{
    return (double)p->dim[0] * (double)warplab_dtype_size(p->dtype);
}

/* nccl-tests' bus bandwidth for all-reduce: each GPU must send and receive
 * 2(G-1)/G of the message whatever the algorithm (a ring's reduce-scatter
 * and all-gather), so busbw compares with the links' speed at any G. */
static double allreduce_bus_bytes(const wl_problem *p)
{
    const double g = (double)gpu_count(p);
    return allreduce_bytes(p) * 2.0 * (g - 1.0) / g;
}

static double allreduce_flops(const wl_problem *p)
{
    return p->dtype == WARPLAB_INT32 ? 0.0 : (double)p->dim[0] * (double)(gpu_count(p) - 1);
}

/* Floats from [1, 2]: a rank's contribution dropped or doubled moves an
 * element by at least 1, far beyond the bound. int32 over the whole range,
 * so the sums wrap. */
static int allreduce_buffers(const wl_problem *p, wl_buffer_spec *spec)
{
    const double lo = p->dtype == WARPLAB_INT32 ? (double)INT32_MIN : 1.0;
    const double hi = p->dtype == WARPLAB_INT32 ? (double)INT32_MAX : 2.0;
    size_t count = 0;
    if (!wl_size_mul(p->dim[0], gpu_count(p), &count))
        count = SIZE_MAX; /* refused by make_problem and the harness's size check */
    spec[ALLREDUCE_IN] = (wl_buffer_spec){WL_IN, p->dtype, count, lo, hi};
    spec[ALLREDUCE_OUT] = (wl_buffer_spec){WL_OUT, p->dtype, count, 0.0, 0.0};
    return 2;
}

/* Every rank r's element i against the double-precision sum over the ranks
 * (int32: exact, wrapped modulo 2^32; float: |got - exact| <= G * eps *
 * sum |x|), and every rank bit for bit equal to rank 0 (an all-reduce gives
 * every GPU the same answer). */
#define VERIFY_CHUNK ((size_t)1 << 18)

typedef struct allreduce_job {
    const wl_problem *p;
    const void *in, *out;
} allreduce_job;

static void verify_chunk(size_t task, wl_check *check, const void *user)
{
    const allreduce_job *job = user;
    const size_t n = job->p->dim[0], g = gpu_count(job->p);
    const size_t begin = task * VERIFY_CHUNK;
    const size_t end = n - begin < VERIFY_CHUNK ? n : begin + VERIFY_CHUNK;
    const size_t element = warplab_dtype_size(job->p->dtype);
    for (size_t i = begin; i < end; i++) {
        double expected = 0.0, bound = 0.0;
        if (job->p->dtype == WARPLAB_INT32) {
            int64_t sum = 0;
            for (size_t r = 0; r < g; r++)
                sum += ((const int32_t *)job->in)[r * n + i];
            expected = (double)(int32_t)(uint32_t)(uint64_t)sum;
        } else {
            double sum = 0.0, magnitude = 0.0;
            for (size_t r = 0; r < g; r++) {
                double x = wl_element(job->in, job->p->dtype, r * n + i);
                sum += x; /* G terms in double: exact enough for a float bound */
                magnitude += fabs(x);
            }
            expected = sum;
            bound = (double)g * FLT_EPSILON * magnitude;
        }
        for (size_t r = 0; r < g; r++) {
            const size_t at = r * n + i;
            const double got = wl_element(job->out, job->p->dtype, at);
            bool same = r == 0 || memcmp((const char *)job->out + at * element,
                                         (const char *)job->out + i * element, element) == 0;
            if (!same) { /* a pass of the bound with different bits: still wrong */
                check->checked++;
                if (check->bad++ == 0) {
                    check->first_bad = at;
                    check->got = got;
                    check->expected = wl_element(job->out, job->p->dtype, i);
                }
                continue;
            }
            wl_check_value(check, at, got, expected, bound);
        }
    }
}

static warplab_status allreduce_verify(const wl_problem *p, const void *const *host,
                                       wl_check *check)
{
    allreduce_job job = {p, host[ALLREDUCE_IN], host[ALLREDUCE_OUT]};
    wl_check_parallel((p->dim[0] + VERIFY_CHUNK - 1) / VERIFY_CHUNK, verify_chunk, &job, check);
    return check->bad ? WARPLAB_ERROR_VERIFICATION_FAILED : WARPLAB_OK;
}

/* Every rung needs two GPUs or more. */
static warplab_status two_gpus(const wl_problem *p, const warplab_device_info *device, char *reason,
                               size_t len)
{
    (void)device;
    if (gpu_count(p) < 2) {
        wl_format(reason, len, "an all-reduce needs 2 GPUs or more; %zu present", gpu_count(p));
        return WARPLAB_ERROR_UNSUPPORTED;
    }
    return WARPLAB_OK;
}

static const wl_rung allreduce_rungs[] = {
    /* 1. Everything through host memory. */
    {.id = "host_staging",
     .title = "host staging: copy out, CPU sum, copy back",
     .lesson = "Every GPU copies its array to pinned host memory, the CPU adds them (all cores, "
               "in a host function queued on the stream), and the sum is copied back to every "
               "GPU: 2 x G PCIe transfers of the whole message and a CPU pass. The course's "
               "'transfers are the bottleneck', now between GPUs.",
     .course = "past the course (seed 001, 'Copy data from the host to the Device')",
     .supports = two_gpus},
    /* 2. The GPUs talk to each other directly, but all through one of them. */
    {.id = "through_one",
     .title = "through GPU 0: peer copies, reduce, broadcast",
     .lesson = "cudaMemcpyPeerAsync moves every other GPU's array to GPU 0 over NVLink (no "
               "host), one kernel adds them there, and peer copies broadcast the sum back. No "
               "PCIe and no CPU, but GPU 0's links carry everything: 2(G-1) messages in and "
               "out of one GPU, one after the other.",
     .course = "past the course",
     .supports = two_gpus},
    /* 3. No copies: kernels read the peers' memory. */
    {.id = "peer_read",
     .title = "direct peer access: every GPU reads all",
     .lesson = "cudaDeviceEnablePeerAccess lets a kernel dereference another GPU's pointer: "
               "every GPU runs one kernel that reads all G arrays over NVLink and writes the "
               "sum, all GPUs at once. No staging buffers and no broadcast, every link busy in "
               "both directions; each GPU reads (G-1) messages, fine at G = 2, wasteful beyond.",
     .course = "past the course",
     .supports = two_gpus},
    /* 4. The classic algorithm: bandwidth-optimal at any G. */
    {.id = "ring",
     .title = "ring: reduce-scatter + all-gather, chunked",
     .lesson = "The array is cut into G segments: G-1 reduce-scatter steps (each GPU adds the "
               "segment its left neighbour passes to its own, reading it over NVLink) leave "
               "each GPU one finished segment, and G-1 all-gather steps (peer copies) pass the "
               "finished segments round. Each GPU sends and receives 2(G-1)/G of the message, "
               "the least any algorithm can; segments are cut in chunks, each on its own "
               "stream with events between neighbours, so steps overlap.",
     .course = "past the course (Patarasuk and Yuan's ring, as NCCL's ring)",
     .supports = two_gpus},
    /* 5. The vendor. */
    {.id = "nccl",
     .title = "ncclAllReduce (vendor)",
     .lesson = "NVIDIA's collective library: one call per GPU in a group, its own rings and "
               "trees, protocols chosen by message size (LL, LL128, Simple). Run with "
               "NCCL_NVLS_ENABLE=0: NVLink multicast (NVLS) is never used here.",
     .course = "past the course",
     .flags = WL_RUNG_VENDOR,
     .supports = two_gpus},
    /* 6. Ours against NCCL: one kernel per GPU over peer memory. */
    {.id = "two_shot",
     .title = "one kernel per GPU, two-shot, 16-byte",
     .lesson = "GPU r reduces segment r by reading it from every GPU with 16-byte loads, several "
               "in flight per thread, and stores the sum straight into every GPU's output with "
               "16-byte stores: reduce-scatter and all-gather in one kernel, 2(G-1)/G of the "
               "message each way like the ring, but no per-step launches, events or copy "
               "engines, and stores (posted writes) instead of half the reads.",
     .course = "past the course",
     .vendor = "nccl",
     .supports = two_gpus},
    /* 7. Small messages: one step, and no host-queued events. */
    {.id = "one_shot",
     .title = "one-shot, flag barrier in peer memory",
     .lesson = "Below a few hundred KiB an all-reduce is latency: two_shot's two halves and its "
               "host-queued events between GPUs (each a few microseconds) cost more than the "
               "bytes. Every GPU reads all G arrays with 16-byte loads, every source's loads in "
               "flight at once, and writes its own sum: one step. The GPUs meet in a barrier of "
               "flags in each other's memory (each block sets a word on every peer and spins on "
               "its own, release and acquire at system scope), at the start (every input ready, "
               "every output free) and at the end (no peer still reading): no events, no host. "
               "It reads (G-1) messages a GPU, so it stops paying as the message grows.",
     .course = "past the course (one-shot all-reduce, as in TensorRT-LLM's and vLLM's custom "
               "kernels)",
     .vendor = "nccl",
     .supports = two_gpus},
    /* 8. two_shot without events, more in flight. */
    {.id = "two_shot_flags",
     .title = "two-shot, flag barrier, every peer's loads in flight",
     .lesson = "two_shot with one_shot's barrier of flags in peer memory instead of the "
               "host-queued events, and G as a compile-time constant: a thread issues its 16-byte "
               "loads from all G GPUs before the first add (G x 4 vectors at G = 4), where "
               "two_shot waited for each source in turn. From G = 3 on a thread then covers G-1 "
               "remote latencies at once, and the small sizes lose the events' microseconds. "
               "Still 2(G-1)/G of the message each way.",
     .course = "past the course (Little's law over G-1 links)",
     .vendor = "nccl",
     .supports = two_gpus},
    /* 9. Every byte between GPUs a store. */
    {.id = "two_shot_push",
     .title = "two-shot by stores: staging slots, a barrier a round",
     .lesson = "two_shot_flags moves its reduce-scatter half as remote loads: each 16-byte load "
               "sends a request one way and waits a round trip for the data the other way. Here "
               "every transfer is a posted store. A GPU stores segment k of its input into GPU "
               "k's staging slot (all G segments at once, both directions of every link "
               "carrying data), the GPUs meet in a barrier of flags, and GPU k adds its G slots "
               "from its own memory and stores the sum into every GPU's output. Messages go in "
               "rounds of 16 MiB a GPU through two staging sets (32 MiB a GPU), one barrier a "
               "round. In place works: a GPU's output segment is written only after that GPU "
               "has pushed it.",
     .course = "past the course (NCCL's Simple protocol: stores into the peer's buffers)",
     .vendor = "nccl",
     .supports = two_gpus},
    /* 10. What the library runs. */
    {.id = "dispatch",
     .title = "the library's pick by size (warplab_allreduce)",
     .lesson = "What warplab_allreduce runs, timed through the public call: a table of message "
               "sizes per G (src/kernels/allreduce_plan.h) picks one_shot for latency-bound "
               "messages and two_shot_flags above (NCCL without peer access); in place it never "
               "takes one_shot, whose stores would overwrite an input a peer still reads.",
     .course = "past the course (a size-based dispatcher, like NCCL's tuner)",
     .vendor = "nccl",
     .supports = two_gpus},
};

static warplab_status allreduce_make_problem(const size_t size[3], int dims, const char *dtype,
                                             const char *op, wl_problem *problem, char *error,
                                             size_t error_len)
{
    warplab_dtype type = WARPLAB_FLOAT32;
    if (dtype && *dtype &&
        (warplab_dtype_parse(dtype, &type) != WARPLAB_OK ||
         (type != WARPLAB_FLOAT32 && type != WARPLAB_INT32))) {
        wl_format(error, error_len, "all-reduce takes float or int32, not '%s'", dtype);
        return WARPLAB_ERROR_INVALID_ARGUMENT;
    }
    if (op && *op && strcmp(op, "sum") != 0) {
        wl_format(error, error_len, "all-reduce sums (--op sum), not '%s'", op);
        return WARPLAB_ERROR_INVALID_ARGUMENT;
    }
    warplab_status status = wl_make_problem_1d(size, dims, "allreduce", problem, error, error_len);
    if (status != WARPLAB_OK)
        return status;
    problem->dtype = type;
    problem->param = wl_allreduce_gpus();
    size_t total = 0;
    if (!wl_size_mul(problem->dim[0], gpu_count(problem) * 4, &total)) {
        wl_format(error, error_len, "n=%zu on %zu GPUs does not fit in memory sizes",
                  problem->dim[0], gpu_count(problem));
        return WARPLAB_ERROR_INVALID_ARGUMENT;
    }
    return WARPLAB_OK;
}

static void allreduce_describe(const wl_problem *p, char *text, size_t len)
{
    wl_format(text, len, "n=%zu %s x %ld GPUs%s", p->dim[0], warplab_dtype_name(p->dtype), p->param,
              p->misalign ? " misaligned" : "");
}

/* Odd sizes that cut segments and chunks unevenly (fewer elements than GPUs
 * included), 16-byte vectors with and without a tail, misaligned views (the
 * vector kernels peel a head), both types; past 2^22 two_shot_push's rounds
 * (16 MiB of floats each): a last round of one vector, and three rounds, so
 * that its first staging set is used again. */
static int allreduce_test_problems(const warplab_device_info *device, wl_problem *problems,
                                   int capacity)
{
    (void)device;
    static const size_t sizes[] = {
        1, 3, 31, 1000, 4099, 65537, (1u << 20) + 3, (1u << 22) + 5, (3u << 22) + 7};
    static const size_t misaligned[] = {3, 1000, 65537, (1u << 20) + 3};
    const int gpus = wl_allreduce_gpus();
    int count = 0;
    for (int t = 0; t < 2; t++) {
        const warplab_dtype dtype = t ? WARPLAB_INT32 : WARPLAB_FLOAT32;
        for (size_t m = 0; m < 2; m++) {
            const size_t *list = m ? misaligned : sizes;
            const size_t items =
                m ? sizeof misaligned / sizeof misaligned[0] : sizeof sizes / sizeof sizes[0];
            for (size_t i = 0; i < items && count < capacity; i++) {
                wl_problem *p = &problems[count++];
                memset(p, 0, sizeof *p);
                p->dim[0] = list[i];
                p->dims = 1;
                p->dtype = dtype;
                p->op = WARPLAB_REDUCE_SUM;
                p->misalign = m;
                p->param = gpus;
            }
        }
    }
    return count;
}

/* Only the cuda backend has rungs, and only with two GPUs or more. */
static warplab_status allreduce_available(const wl_backend *backend, char *reason, size_t len)
{
    if (backend->ops->kind != WARPLAB_BACKEND_CUDA) {
        wl_format(reason, len, "the all-reduce ladder runs across CUDA GPUs; %s has no rung",
                  backend->ops->name);
        return WARPLAB_ERROR_UNSUPPORTED;
    }
    const int gpus = wl_allreduce_gpus();
    if (gpus < 2) {
        wl_format(reason, len, "the all-reduce ladder needs 2 CUDA GPUs or more; %d present%s",
                  gpus, getenv("WARPLAB_ALLREDUCE_GPUS") ? " (WARPLAB_ALLREDUCE_GPUS)" : "");
        return WARPLAB_ERROR_UNSUPPORTED;
    }
    return WARPLAB_OK;
}

const wl_ladder wl_allreduce_ladder = {
    .name = "allreduce",
    .title = "all-reduce across GPUs: host staging to NCCL",
    .rungs = allreduce_rungs,
    .rung_count = sizeof allreduce_rungs / sizeof allreduce_rungs[0],
    .make_problem = allreduce_make_problem,
    /* 1 MiB, 16 MiB and 128 MiB messages of floats (--sweep: 4 KiB to 4 GiB): latency, the
     * G = 2 pick past two_shot_push's limit, bandwidth; within the main job's time. */
    .default_sizes_gpu = "2^18,2^22,2^25",
    .default_sizes_cpu = "2^18",
    .describe = allreduce_describe,
    .leading_size = wl_leading_size_1d,
    .buffers = allreduce_buffers,
    .verify = allreduce_verify,
    .bytes = allreduce_bytes,
    .flops = allreduce_flops,
    .best_rung = "dispatch",
    .test_problems = allreduce_test_problems,
    .available = allreduce_available,
    .bus_bytes = allreduce_bus_bytes,
};
