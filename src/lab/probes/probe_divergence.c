/* The divergence probe (seed 000, 'Control Divergence'; seed 003, 'SIMT',
 * 'Divergence kódu'): the cost of a branch against the number of distinct
 * paths the threads of a warp take, when the branch is on threadIdx.x (the
 * paths diverge inside every warp) against one on the warp index or on the
 * block index (each warp takes one path; the paths differ between warps).
 *
 * Every thread runs its path's work once: W steps of the FMA chain
 * y <- fma(y, 0.999, b_q), with b_q = 0.001 (q + 1) for path q. The kernel
 * reaches it through `for q < paths: if (path == q) work(q)`, so a warp
 * executes the body once per distinct path among its lanes, and the
 * compiler cannot merge the paths. The figure counts useful work only
 * (threads x W FMAs), so divergence shows as a lower rate.
 *
 * Problem: dim[0] = threads, dim[1] = W, param = paths (1..32). Blocks of
 * 256 threads; warp = global thread / 32, block = global thread / 256. */
#include "ladders/ladder_util.h"
#include "probe.h"
#include "probe_kernels.h"

#include <math.h>
#include <string.h>

enum { DIVERGENCE_IN = 0, DIVERGENCE_OUT };

#define MAX_PATHS 32

static int divergence_buffers(const wl_problem *p, wl_buffer_spec *spec)
{
    spec[DIVERGENCE_IN] = (wl_buffer_spec){WL_IN, WARPLAB_FLOAT32, p->dim[0], -1.0, 1.0};
    spec[DIVERGENCE_OUT] = (wl_buffer_spec){WL_OUT, WARPLAB_FLOAT32, p->dim[0], 0.0, 0.0};
    return 2;
}

/* Which path thread t takes under each selector. */
typedef enum selector { BY_LANE = 0, BY_WARP, BY_BLOCK } selector;

static long path_of(selector by, size_t t, long paths)
{
    size_t key = by == BY_LANE   ? t % WL_PROBE_WARP
                 : by == BY_WARP ? t / WL_PROBE_WARP
                                 : t / WL_PROBE_BLOCK;
    return (long)(key % (size_t)paths);
}

static warplab_status verify_by(selector by, const wl_problem *p, const void *const *host,
                                wl_check *check)
{
    const float *in = host[DIVERGENCE_IN], *out = host[DIVERGENCE_OUT];
    const long steps = (long)p->dim[1];
    for (size_t t = 0; t < p->dim[0]; t++) {
        float b = WL_DIVERGENCE_B(path_of(by, t, p->param));
        wl_check_value(check, t, (double)out[t], wl_chain_reference(in[t], b, steps),
                       wl_chain_bound(in[t], b, steps));
    }
    return check->bad ? WARPLAB_ERROR_VERIFICATION_FAILED : WARPLAB_OK;
}

static warplab_status lane_verify(const wl_problem *p, const void *const *host, wl_check *check)
{
    return verify_by(BY_LANE, p, host, check);
}
static warplab_status warp_verify(const wl_problem *p, const void *const *host, wl_check *check)
{
    return verify_by(BY_WARP, p, host, check);
}
static warplab_status block_verify(const wl_problem *p, const void *const *host, wl_check *check)
{
    return verify_by(BY_BLOCK, p, host, check);
}

/* Useful operations: one chain of W FMAs per thread, whatever the paths. */
static double useful_fmas(const wl_problem *p)
{
    return (double)p->dim[0] * (double)p->dim[1];
}
static warplab_status paths_supported(const wl_problem *p, const warplab_device_info *device,
                                      char *reason, size_t len)
{
    (void)device;
    if (p->param < 1 || p->param > MAX_PATHS) {
        wl_format(reason, len, "1 to %d paths", MAX_PATHS);
        return WARPLAB_ERROR_UNSUPPORTED;
    }
    return WARPLAB_OK;
}

static const wl_rung divergence_series[] = {
    {.id = "lane",
     .title = "branch on threadIdx.x % paths",
     .lesson = "Paths differ between the lanes of every warp: the warp runs each taken path in "
               "turn with the other lanes masked off, so the time grows with the paths.",
     .course = "seed 000, 'Control Divergence Examples' (if (threadIdx.x > 2))",
     .bytes = wl_zero_work,
     .flops = useful_fmas,
     .supports = paths_supported,
     .verify = lane_verify},
    {.id = "warp",
     .title = "branch on the warp index % paths",
     .lesson = "Every lane of a warp takes the same path; different warps take different paths "
               "at no cost beyond the branch itself.",
     .course = "seed 003, 'SIMT' (divergence inside a warp serialises)",
     .bytes = wl_zero_work,
     .flops = useful_fmas,
     .supports = paths_supported,
     .verify = warp_verify},
    {.id = "block",
     .title = "branch on blockIdx.x % paths",
     .lesson = "The course's example without divergence: the branch granularity is a whole "
               "block, so every warp follows one path.",
     .course = "seed 000, 'Control Divergence Examples' (if (blockIdx.x > 2))",
     .bytes = wl_zero_work,
     .flops = useful_fmas,
     .supports = paths_supported,
     .verify = block_verify},
};

static void divergence_describe(const wl_problem *p, char *text, size_t len)
{
    wl_format(text, len, "%ld paths, %zu threads x %zu FMAs", p->param, p->dim[0], p->dim[1]);
}

static int divergence_test_problems(const warplab_device_info *device, wl_problem *problems,
                                    int capacity)
{
    (void)device;
    static const long paths[] = {1, 2, 3, 32};
    static const size_t threads[] = {1, 1000, 4096 + 33};
    int count = 0;
    for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++)
        for (size_t k = 0; k < sizeof paths / sizeof paths[0] && count < capacity; k++)
            problems[count++] = wl_probe_point(threads[t], 17, 0, paths[k]);
    return count;
}

static const wl_ladder divergence_ladder = {
    .name = "divergence",
    .title = "divergence: branch cost against paths in a warp",
    .rungs = divergence_series,
    .rung_count = sizeof divergence_series / sizeof divergence_series[0],
    .describe = divergence_describe,
    .leading_size = wl_probe_leading_size,
    .buffers = divergence_buffers,
    .test_problems = divergence_test_problems,
};

static size_t divergence_threads(const warplab_device_info *device, size_t size)
{
    return size ? size : device->gpu ? (size_t)1 << 20 : (size_t)1 << 13;
}
static size_t divergence_steps(const warplab_device_info *device)
{
    return device->gpu ? 4096 : 64;
}

static int divergence_points(const warplab_device_info *device, size_t size, wl_problem *problems,
                             int capacity)
{
    int count = 0;
    for (long paths = 1; paths <= MAX_PATHS && count < capacity; paths++)
        problems[count++] =
            wl_probe_point(divergence_threads(device, size), divergence_steps(device), 0, paths);
    return count;
}

static void divergence_setup(const warplab_device_info *device, size_t size, char *text, size_t len)
{
    wl_format(text, len, "%zu threads (blocks of %d), each one path of %zu dependent FMAs",
              divergence_threads(device, size), WL_PROBE_BLOCK, divergence_steps(device));
}

static void divergence_conclude(const warplab_probe_result *r, char *text, size_t len)
{
    text[0] = '\0';
    static const char *const series[] = {"lane", "warp", "block"};
    static const char *const where[] = {"inside every warp (threadIdx.x)",
                                        "across warps (warp index)", "across blocks (blockIdx.x)"};
    wl_append(text, len, "rate of useful work at 32 paths against 1 path: ");
    for (int k = 0; k < 3; k++) {
        wl_append(text, len, "%s%s ", k ? ", " : "", where[k]);
        wl_probe_append_ratio(text, len, r, series[k], 32, series[k], 1);
    }
    double v1, v2;
    if (wl_probe_value(r, "lane", 1, &v1) && wl_probe_value(r, "lane", 2, &v2))
        wl_append(text, len, "; 2 paths inside a warp: %.2fx (1/2 if the paths serialise)",
                  v2 / v1);
}

static const wl_probe_section divergence_sections[] = {
    {.ladder = &divergence_ladder,
     .name = "divergence",
     .title = "useful FMAs per second against the number of distinct paths",
     .x_label = "paths",
     .unit = "Gop/s",
     .metric = WL_PROBE_OPS,
     .points = divergence_points},
};

const wl_probe wl_probe_divergence = {
    .name = "divergence",
    .title = "branch on threadIdx.x against warp or block index, 1..32 paths",
    .course = "seed 000, 'Control Divergence'; seed 003, 'SIMT', 'Divergence kódu'",
    .size_meaning = "threads (default 2^20 on a GPU, 2^13 on a CPU)",
    .sections = divergence_sections,
    .section_count = 1,
    .setup = divergence_setup,
    .conclude = divergence_conclude,
};
