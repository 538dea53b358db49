/* The vector-add ladder (seed 001): c[i] = a[i] + b[i], float32.
 *
 * The simplest ladder, and the one that proves the harness end to end: the
 * course's host loop, its one-block kernel and its grid of blocks, then a
 * grid-stride loop and 16-byte vector accesses, with the host-device
 * transfers and managed memory measured apart from the kernels, and a plain
 * device-to-device copy as the speed of light. */
#include "kernels/vecadd.h"
#include "core/context.h"
#include "kernels/kernel_limits.h"
#include "ladders/device_reference.h"
#include "ladders/ladder_util.h"
#include "ladders/ladders.h"
#include "ops/ops.h"

#include <float.h>
#include <math.h>
#include <string.h>

static double vecadd_bytes(const wl_problem *p)
{
    return 12.0 * (double)p->dim[0];
}
static double vecadd_flops(const wl_problem *p)
{
    return (double)p->dim[0];
}
static double one_array_bytes(const wl_problem *p)
{
    return 4.0 * (double)p->dim[0];
}
static double copy_bytes(const wl_problem *p)
{
    return 8.0 * (double)p->dim[0];
}
static int vecadd_buffers(const wl_problem *p, wl_buffer_spec *spec)
{
    const size_t n = p->dim[0];
    spec[VECADD_A] = (wl_buffer_spec){WL_IN, WARPLAB_FLOAT32, n, -1.0, 1.0};
    spec[VECADD_B] = (wl_buffer_spec){WL_IN, WARPLAB_FLOAT32, n, -1.0, 1.0};
    spec[VECADD_C] = (wl_buffer_spec){WL_OUT, WARPLAB_FLOAT32, n, 0.0, 0.0};
    return 3;
}

/* Verification runs on every core, a chunk of elements a task. */
#define VERIFY_CHUNK ((size_t)1 << 20)

typedef struct vecadd_check {
    const wl_problem *p;
    const void *const *host;
    bool copy; /* c = a (the copy and transfer rows) */
} vecadd_check;

/* c = a + b: the double sum rounded to float is what a float add gives; half
 * an ulp of slack covers the double rounding. The copy rows: c = a exactly. */
static void check_chunk(size_t task, wl_check *check, const void *user)
{
    const vecadd_check *v = user;
    const float *a = v->host[VECADD_A], *b = v->host[VECADD_B], *c = v->host[VECADD_C];
    const size_t begin = task * VERIFY_CHUNK, n = v->p->dim[0];
    const size_t end = n - begin < VERIFY_CHUNK ? n : begin + VERIFY_CHUNK;
    for (size_t i = begin; i < end; i++) {
        double expected = v->copy ? (double)a[i] : (double)a[i] + (double)b[i];
        wl_check_value(check, i, (double)c[i], expected,
                       v->copy ? 0.0 : fabs(expected) * FLT_EPSILON);
    }
}

static warplab_status check_all(const wl_problem *p, const void *const *host, wl_check *check,
                                bool copy)
{
    vecadd_check v = {p, host, copy};
    wl_check_parallel((p->dim[0] + VERIFY_CHUNK - 1) / VERIFY_CHUNK, check_chunk, &v, check);
    return check->bad ? WARPLAB_ERROR_VERIFICATION_FAILED : WARPLAB_OK;
}

static warplab_status vecadd_verify(const wl_problem *p, const void *const *host, wl_check *check)
{
    return check_all(p, host, check, false);
}

static warplab_status copy_verify(const wl_problem *p, const void *const *host, wl_check *check)
{
    return check_all(p, host, check, true);
}

static const wl_rung vecadd_rungs[] = {
    {.id = "cpu_loop",
     .title = "CPU loop, one core",
     .lesson = "The course's host loop: one core, one element per iteration. The baseline of "
               "'GPU vs CPU'.",
     .course = "seed 001, 'CPU - Vector Add'",
     .flags = WL_RUNG_HOST},
    {.id = "cpu_threads",
     .title = "CPU loop, all cores",
     .lesson = "The same loop split across every core: a fair CPU row, bound by the host's "
               "memory bandwidth rather than by one core.",
     .course = "seed 003, 'GPU vs. CPU'",
     .flags = WL_RUNG_HOST},
    {.id = "one_block",
     .title = "one block of n threads",
     .lesson = "vectoradd<<<1, N>>>: one thread per element, all in one block. One block runs "
               "on one SM, so most of the GPU idles, and n cannot pass the block-size limit.",
     .course = "seed 001, 'GPU / CUDA - Vector Add'",
     .supports = wl_vecadd_one_block_limits},
    {.id = "grid",
     .title = "grid of 1024-thread blocks",
     .lesson = "ceil(n/1024) blocks of 1024 threads: every SM gets blocks and n is limited only "
               "by memory. A bounds check (missing in the course's code) guards the last "
               "block.",
     .course = "seed 001, 'Defining block size and number of blocks'"},
    {.id = "grid_stride",
     .title = "grid-stride loop",
     .lesson = "A grid sized to the device (SMs x resident blocks) whose threads loop with "
               "stride gridDim x blockDim: no block scheduling per element, one launch shape "
               "for any n.",
     .course = "seed 003, 'Implementace 7' (cascading)"},
    {.id = "vectorized",
     .title = "16-byte vector loads and stores",
     .lesson = "Each thread moves a float4 per access: a quarter of the memory instructions "
               "for the same bytes, so more bytes in flight per thread. A misaligned head and "
               "the tail are done one float at a time.",
     .course = "past the course (Hopper: 16-byte accesses)"},
    {.id = "vectorized_flat",
     .title = "float4, one per thread, no loop",
     .lesson = "The float4 accesses of the rung below, but a grid that covers the array (one "
               "float4 of each array per thread) instead of resident blocks looping: each wave "
               "of blocks streams one contiguous stretch of every array, and the block "
               "scheduler keeps the SMs full to the last block. What a plain float4 kernel "
               "does; on an H100 it was 4-6% faster than the loop at 2^24 and 2^28.",
     .course = "past the course (Hopper: 16-byte accesses)"},
    {.id = "library",
     .title = "warplab_vecadd: the library call",
     .lesson =
         "What warplab_vecadd runs: the first of the operation's candidates "
         "(src/ops/vecadd.c) that takes the problem on this backend (vectorized_flat on cuda), "
         "so its row matches that rung's and its note names it. `warplab bench api` "
         "times the public call itself, checks and all, beside the vendor.",
     .course = "the library (include/warplab.h)",
     .op = &wl_vecadd_op},
    {.id = "h2d",
     .title = "explicit copy in (1 array)",
     .lesson = "A copy from host memory (page-locked on CUDA) into the device: what an "
               "explicit-copy program pays per input array before its kernel starts.",
     .course = "seed 001, 'Copy data from the host to the Device'; seed 003, 'Komunikace "
               "CPU-GPU'",
     .flags = WL_RUNG_TRANSFER,
     .bytes = one_array_bytes,
     .flops = wl_zero_work,
     .verify = copy_verify},
    {.id = "d2h",
     .title = "explicit copy out (1 array)",
     .lesson = "A copy of a result back into host memory (page-locked on CUDA).",
     .course = "seed 001, 'Copy data from the device to the host'",
     .flags = WL_RUNG_TRANSFER,
     .bytes = one_array_bytes,
     .flops = wl_zero_work,
     .verify = copy_verify},
    {.id = "managed",
     .title = "managed memory, pages on demand",
     .lesson = "seed 001's cudaMallocManaged version, launched as the course does (ceil(n / "
               "1024) blocks of 1024): no copies in the code, but a, b and c were last touched "
               "on the host, so their pages migrate on demand inside the kernel, and the time "
               "is the transfer's.",
     .course = "seed 001, 'GPU / CUDA - Vector Add'",
     .flags = WL_RUNG_TRANSFER},
    {.id = "managed_prefetch",
     .title = "managed memory, prefetched",
     .lesson = "cudaMemPrefetchAsync moves the pages in bulk before the kernel instead of "
               "fault by fault.",
     .course = "past the course",
     .flags = WL_RUNG_TRANSFER},
    {.id = "copy",
     .title = "device-to-device copy (reference)",
     .lesson = "A plain copy of one array: the speed of light for streaming kernels. Vector "
               "add moves 1.5 times its bytes.",
     .course = "seed 003, 'Transpozice matic' (copy)",
     .flags = WL_RUNG_REFERENCE,
     .bytes = copy_bytes,
     .flops = wl_zero_work,
     .verify = copy_verify},
};

static warplab_status vecadd_make_problem(const size_t size[3], int dims, const char *dtype,
                                          const char *op, wl_problem *problem, char *error,
                                          size_t error_len)
{
    if (dtype && *dtype && strcmp(dtype, "float") != 0 && strcmp(dtype, "float32") != 0) {
        wl_format(error, error_len, "vector add is float32 only (asked for '%s')", dtype);
        return WARPLAB_ERROR_INVALID_ARGUMENT;
    }
    if (op && *op) {
        wl_format(error, error_len, "vector add has no --op (asked for '%s')", op);
        return WARPLAB_ERROR_INVALID_ARGUMENT;
    }
    return wl_make_problem_1d(size, dims, "vecadd", problem, error, error_len);
}

static int vecadd_test_problems(const warplab_device_info *device, wl_problem *problems,
                                int capacity)
{
    (void)device;
    int count = 0;
    for (int misalign = 0; misalign <= 1; misalign++)
        for (int i = 0; i < wl_test_sizes_1d_count && count < capacity; i++) {
            wl_problem *p = &problems[count++];
            memset(p, 0, sizeof *p);
            p->dim[0] = wl_test_sizes_1d[i];
            p->dims = 1;
            p->dtype = WARPLAB_FLOAT32;
            p->misalign = (size_t)misalign;
        }
    return count;
}

const wl_ladder wl_vecadd_ladder = {
    .name = "vecadd",
    .title = "vector add (seed 001)",
    .rungs = vecadd_rungs,
    .rung_count = sizeof vecadd_rungs / sizeof vecadd_rungs[0],
    .make_problem = vecadd_make_problem,
    .default_sizes_gpu = "2^28",
    .default_sizes_cpu = "2^22",
    .describe = wl_describe_1d,
    .leading_size = wl_leading_size_1d,
    .buffers = vecadd_buffers,
    .verify = vecadd_verify,
    .bytes = vecadd_bytes,
    .flops = vecadd_flops,
    .best_rung = "vectorized_flat",
    .test_problems = vecadd_test_problems,
    .device_reference = wl_vecadd_device_reference,
};

/* The device reference (device_reference.h): c = a + b, or c = a for the copy rows. */
void wl_vecadd_device_reference(const wl_rung *rung, const wl_problem *problem,
                                wl_reference_request *request)
{
    (void)problem;
    if (!rung->verify)
        request->kind = WL_REFERENCE_VECADD;
    else if (rung->verify == copy_verify)
        request->kind = WL_REFERENCE_COPY;
}
