/* The memories probe (seed 000, 'Lecture 2.3: Memory Model and Locality --
 * CUDA Memories'; seed 001, 'CUDA - Memory Model - Scope'): what the
 * declaration of a variable costs when it is read.
 *
 * Section constant: a table of 4096 ints read by every thread, over and
 * over, with `distinct` different words among a warp's 32 lanes (x = 1..32).
 * From __constant__ memory the constant cache serves one word a cycle to a
 * warp, so the warp's request is split into as many passes as it has
 * distinct words; one word for all lanes is a broadcast. From global memory
 * (through the L1) the same lanes' words lie in one or two 128-byte lines,
 * whatever their number.
 *
 * Section local: a per-thread array of N ints (x = 4..64) read N times a
 * step. Indexed with constants after unrolling (registers) it lives in
 * registers; indexed with a value known only at run time (local) it lives
 * in local memory, which is device memory behind the L1, as the course says
 * of "per-thread arrays" (the local bytes a thread uses, from the compiled
 * kernel, are shown beside each point on CUDA).
 *
 * Section readonly (seed 000's read-only/texture path): a gather, each
 * thread reading words scattered by a hash over a table of W words (x = the
 * table's bytes, from 4 KiB, which the L1 holds, to 128 MiB, past the L2),
 * through plain loads, through __ldg (the read-only, non-coherent path), and
 * through `const __restrict__` pointers, from which the compiler may pick
 * that path itself. CUDA only: OpenCL C has no read-only load path of its
 * own (its __constant is constant memory, a separate, small space), so the
 * opencl backend runs the other sections and says it has no form of this.
 *
 * Problems: constant: dim[0] = threads, dim[1] = steps, param = distinct
 * words a warp; local: dim[0] = threads, dim[1] = steps, param = N;
 * readonly: dim[0] = threads, dim[1] = steps, dim[2] = W words, param = 4 W
 * bytes. */
#include "ladders/ladder_util.h"
#include "probe.h"
#include "probe_kernels.h"

#include <string.h>

enum { MEM_TABLE = 0, MEM_OUT };

/* ------------------------------------------------------------------------ */
/* constant                                                                 */

static int constant_buffers(const wl_problem *p, wl_buffer_spec *spec)
{
    spec[MEM_TABLE] = (wl_buffer_spec){WL_IN, WARPLAB_INT32, WL_CONSTANT_WORDS, -1000.0, 1000.0};
    spec[MEM_OUT] = (wl_buffer_spec){WL_OUT, WARPLAB_INT32, p->dim[0], 0.0, 0.0};
    return 2;
}

/* Thread t, step k reads word ((t mod 32) mod distinct + 97 k) mod 4096; out
 * = the sum of what it read, modulo 2^32. */
static warplab_status constant_verify(const wl_problem *p, const void *const *host, wl_check *check)
{
    const int32_t *table = host[MEM_TABLE];
    const int32_t *out = host[MEM_OUT];
    const uint32_t distinct = (uint32_t)p->param;
    for (size_t t = 0; t < p->dim[0]; t++) {
        uint32_t sum = 0;
        const uint32_t group = (uint32_t)(t % WL_PROBE_WARP) % distinct;
        for (uint32_t k = 0; k < (uint32_t)p->dim[1]; k++)
            sum += (uint32_t)table[(group + 97u * k) % WL_CONSTANT_WORDS];
        wl_check_value(check, t, (double)out[t], (double)(int32_t)sum, 0.0);
    }
    return check->bad ? WARPLAB_ERROR_VERIFICATION_FAILED : WARPLAB_OK;
}

static double reads(const wl_problem *p)
{
    return (double)p->dim[0] * (double)p->dim[1];
}
static warplab_status constant_supports(const wl_problem *p, const warplab_device_info *device,
                                        char *reason, size_t len)
{
    (void)device;
    if (p->param < 1 || p->param > WL_PROBE_WARP) {
        wl_format(reason, len, "1 to %d distinct words a warp", WL_PROBE_WARP);
        return WARPLAB_ERROR_UNSUPPORTED;
    }
    return WARPLAB_OK;
}

static const wl_rung constant_series[] = {
    {.id = "constant",
     .title = "__constant__ table",
     .lesson = "The constant cache sends one word to a whole warp at a time: one word for all "
               "lanes is a broadcast at full speed, and a warp that asks for d words waits d "
               "passes.",
     .course = "seed 000, 'Lecture 2.3: Memory Model and Locality -- CUDA Memories'",
     .bytes = wl_zero_work,
     .flops = reads,
     .supports = constant_supports,
     .verify = constant_verify},
    {.id = "global",
     .title = "the same table in global memory",
     .lesson = "The same reads through the L1: a warp's words lie in one or two cache lines, "
               "so their number hardly matters.",
     .course = "seed 000, 'Lecture 2.3: Memory Model and Locality -- CUDA Memories'",
     .bytes = wl_zero_work,
     .flops = reads,
     .supports = constant_supports,
     .verify = constant_verify},
};

static void memories_describe(const wl_problem *p, char *text, size_t len)
{
    wl_format(text, len, "x = %ld, %zu threads x %zu steps", p->param, p->dim[0], p->dim[1]);
}

static int constant_test_problems(const warplab_device_info *device, wl_problem *problems,
                                  int capacity)
{
    (void)device;
    static const long distinct[] = {1, 3, 32};
    static const size_t threads[] = {1, 1000};
    int count = 0;
    for (size_t t = 0; t < 2; t++)
        for (size_t d = 0; d < 3 && count < capacity; d++)
            problems[count++] = wl_probe_point(threads[t], 50, 0, distinct[d]);
    return count;
}

static const wl_ladder constant_ladder = {
    .name = "memories_constant",
    .title = "memories: a table read from constant or global memory",
    .rungs = constant_series,
    .rung_count = sizeof constant_series / sizeof constant_series[0],
    .describe = memories_describe,
    .leading_size = wl_probe_leading_size,
    .buffers = constant_buffers,
    .test_problems = constant_test_problems,
};

static size_t memories_threads(const warplab_device_info *device, size_t size)
{
    return size ? size : device->gpu ? (size_t)1 << 20 : (size_t)1 << 12;
}
static size_t memories_steps(const warplab_device_info *device)
{
    return device->gpu ? 256 : 16;
}

static int constant_points(const warplab_device_info *device, size_t size, wl_problem *problems,
                           int capacity)
{
    int count = 0;
    for (long d = 1; d <= WL_PROBE_WARP && count < capacity; d *= 2)
        problems[count++] =
            wl_probe_point(memories_threads(device, size), memories_steps(device), 0, d);
    return count;
}

/* ------------------------------------------------------------------------ */
/* local                                                                    */

static int local_buffers(const wl_problem *p, wl_buffer_spec *spec)
{
    spec[MEM_TABLE] = (wl_buffer_spec){WL_IN, WARPLAB_INT32, WL_LOCAL_MAX, -1000.0, 1000.0};
    spec[MEM_OUT] = (wl_buffer_spec){WL_OUT, WARPLAB_INT32, p->dim[0], 0.0, 0.0};
    return 2;
}

/* Thread t fills a[j] = in[(t + j) mod WL_LOCAL_MAX] and then, each step k,
 * for i < N: acc = 3 acc + a[(i + k) mod N] (modulo 2^32). The registers
 * series reads a[i] with i unrolled and rotates the array by one after each
 * step; the local series indexes a[(i + k) mod N] directly. */
static warplab_status local_verify(const wl_problem *p, const void *const *host, wl_check *check)
{
    const int32_t *in = host[MEM_TABLE];
    const int32_t *out = host[MEM_OUT];
    const size_t n = (size_t)p->param;
    uint32_t a[WL_LOCAL_MAX];
    for (size_t t = 0; t < p->dim[0]; t++) {
        for (size_t j = 0; j < n; j++)
            a[j] = (uint32_t)in[(t + j) % WL_LOCAL_MAX];
        uint32_t acc = 0;
        for (size_t k = 0; k < p->dim[1]; k++)
            for (size_t i = 0; i < n; i++)
                acc = 3u * acc + a[(i + k) % n];
        wl_check_value(check, t, (double)out[t], (double)(int32_t)acc, 0.0);
    }
    return check->bad ? WARPLAB_ERROR_VERIFICATION_FAILED : WARPLAB_OK;
}

static double local_reads(const wl_problem *p)
{
    return (double)p->dim[0] * (double)p->dim[1] * (double)p->param;
}

static warplab_status local_supports(const wl_problem *p, const warplab_device_info *device,
                                     char *reason, size_t len)
{
    (void)device;
    if (p->param != 4 && p->param != 8 && p->param != 16 && p->param != 32 && p->param != 64) {
        wl_format(reason, len, "arrays of 4, 8, 16, 32 or 64 ints");
        return WARPLAB_ERROR_UNSUPPORTED;
    }
    return WARPLAB_OK;
}

static const wl_rung local_series[] = {
    {.id = "registers",
     .title = "a per-thread array, constant indices",
     .lesson = "Every index is a constant after unrolling (each step reads a[0..N-1] and then "
               "rotates the array by one, register to register): the array never leaves the "
               "thread's registers while they suffice.",
     .course = "seed 000, 'Lecture 2.3: Memory Model and Locality -- CUDA Memories'",
     .bytes = wl_zero_work,
     .flops = local_reads,
     .supports = local_supports,
     .verify = local_verify},
    {.id = "local",
     .title = "the same array, run-time indices",
     .lesson = "The same reads with the index computed at run time: registers cannot be "
               "indexed, so the array goes to local memory (device memory, cached in the L1), "
               "what the course says of every per-thread array.",
     .course = "seed 000, 'Lecture 2.3: Memory Model and Locality -- CUDA Memories'",
     .bytes = wl_zero_work,
     .flops = local_reads,
     .supports = local_supports,
     .verify = local_verify},
};

static int local_test_problems(const warplab_device_info *device, wl_problem *problems,
                               int capacity)
{
    (void)device;
    static const long sizes[] = {4, 16, 64};
    static const size_t threads[] = {1, 333};
    int count = 0;
    for (size_t t = 0; t < 2; t++)
        for (size_t s = 0; s < 3 && count < capacity; s++)
            problems[count++] = wl_probe_point(threads[t], 5, 0, sizes[s]);
    return count;
}

static const wl_ladder local_ladder = {
    .name = "memories_local",
    .title = "memories: a per-thread array in registers or local memory",
    .rungs = local_series,
    .rung_count = sizeof local_series / sizeof local_series[0],
    .describe = memories_describe,
    .leading_size = wl_probe_leading_size,
    .buffers = local_buffers,
    .test_problems = local_test_problems,
};

/* The arrays' points: at most 2^18 threads (2048 a SM on an H200's 132, a
 * full GPU) and 16 steps on a GPU, so that the CPU's check of every
 * thread's N x steps reads stays near 2^28 operations at N = 64 (2^20
 * threads x 64 steps took past a minute on the host). */
static int local_points(const warplab_device_info *device, size_t size, wl_problem *problems,
                        int capacity)
{
    size_t threads = memories_threads(device, size);
    if (threads > ((size_t)1 << 18))
        threads = (size_t)1 << 18;
    const size_t steps = device->gpu ? 16 : 4;
    int count = 0;
    for (long n = 4; n <= WL_LOCAL_MAX && count < capacity; n *= 2)
        problems[count++] = wl_probe_point(threads, steps, 0, n);
    return count;
}

/* ------------------------------------------------------------------------ */
/* readonly                                                                 */

static int gather_buffers(const wl_problem *p, wl_buffer_spec *spec)
{
    spec[MEM_TABLE] = (wl_buffer_spec){WL_IN, WARPLAB_INT32, p->dim[2], -1000.0, 1000.0};
    spec[MEM_OUT] = (wl_buffer_spec){WL_OUT, WARPLAB_INT32, p->dim[0], 0.0, 0.0};
    return 2;
}

/* Thread t sums table[WL_GATHER_INDEX(t, k) & (W - 1)] over k, modulo 2^32. */
static warplab_status gather_verify(const wl_problem *p, const void *const *host, wl_check *check)
{
    const int32_t *table = host[MEM_TABLE];
    const int32_t *out = host[MEM_OUT];
    const uint32_t mask = (uint32_t)p->dim[2] - 1u;
    for (size_t t = 0; t < p->dim[0]; t++) {
        uint32_t sum = 0;
        for (uint32_t k = 0; k < (uint32_t)p->dim[1]; k++)
            sum += (uint32_t)table[WL_GATHER_INDEX(t, k) & mask];
        wl_check_value(check, t, (double)out[t], (double)(int32_t)sum, 0.0);
    }
    return check->bad ? WARPLAB_ERROR_VERIFICATION_FAILED : WARPLAB_OK;
}

static warplab_status gather_supports(const wl_problem *p, const warplab_device_info *device,
                                      char *reason, size_t len)
{
    (void)device;
    if (p->dim[2] == 0 || (p->dim[2] & (p->dim[2] - 1)) != 0 || p->dim[2] > ((size_t)1 << 31)) {
        wl_format(reason, len, "a table of a power of two words, at most 2^31");
        return WARPLAB_ERROR_UNSUPPORTED;
    }
    return WARPLAB_OK;
}

#define COURSE_READONLY "seed 000, 'Lecture 2.3: Memory Model and Locality -- CUDA Memories'"

static const wl_rung readonly_series[] = {
    {.id = "plain",
     .title = "plain loads (const int *)",
     .lesson = "The gather through ordinary global loads (LDG): the compiler cannot know the "
               "table is not written during the kernel, so the loads stay coherent.",
     .course = COURSE_READONLY,
     .bytes = wl_zero_work,
     .flops = reads,
     .supports = gather_supports,
     .verify = gather_verify},
    {.id = "ldg",
     .title = "__ldg (the read-only path)",
     .lesson = "The same gather through __ldg: a load the programmer declares read-only for "
               "the kernel's life, served by the read-only (texture) data cache, the course's "
               "texture memory. Since Volta that cache and the L1 are one.",
     .course = COURSE_READONLY,
     .bytes = wl_zero_work,
     .flops = reads,
     .supports = gather_supports,
     .verify = gather_verify},
    {.id = "restrict",
     .title = "const __restrict__ pointers",
     .lesson = "Plain indexing through const int *__restrict__ (and a restrict output): the "
               "compiler may then prove the table read-only and use the read-only path by "
               "itself.",
     .course = COURSE_READONLY,
     .bytes = wl_zero_work,
     .flops = reads,
     .supports = gather_supports,
     .verify = gather_verify},
};

static void gather_describe(const wl_problem *p, char *text, size_t len)
{
    char bytes[32];
    wl_format_bytes(bytes, sizeof bytes, 4.0 * (double)p->dim[2]);
    wl_format(text, len, "%s table, %zu threads x %zu reads", bytes, p->dim[0], p->dim[1]);
}

static int gather_test_problems(const warplab_device_info *device, wl_problem *problems,
                                int capacity)
{
    (void)device;
    static const size_t words[] = {1, 1024, (size_t)1 << 20};
    static const size_t threads[] = {1, 1000};
    int count = 0;
    for (size_t t = 0; t < 2; t++)
        for (size_t w = 0; w < 3 && count < capacity; w++)
            problems[count++] = wl_probe_point(threads[t], 20, words[w], (long)(4 * words[w]));
    return count;
}

static const wl_ladder readonly_ladder = {
    .name = "memories_readonly",
    .title = "memories: a gather through plain loads, __ldg or const __restrict__",
    .rungs = readonly_series,
    .rung_count = sizeof readonly_series / sizeof readonly_series[0],
    .describe = gather_describe,
    .leading_size = wl_probe_leading_size,
    .buffers = gather_buffers,
    .test_problems = gather_test_problems,
};

/* Tables of 4 KiB to 128 MiB, 8x apart; the local section's threads, 64
 * reads each on a GPU. */
#define GATHER_SMALLEST ((size_t)1 << 10) /* words: 4 KiB */
#define GATHER_LARGEST ((size_t)1 << 25)  /* words: 128 MiB */
static int readonly_points(const warplab_device_info *device, size_t size, wl_problem *problems,
                           int capacity)
{
    size_t threads = memories_threads(device, size);
    if (threads > ((size_t)1 << 18))
        threads = (size_t)1 << 18;
    const size_t steps = device->gpu ? 64 : 8;
    int count = 0;
    for (size_t w = GATHER_SMALLEST; w <= GATHER_LARGEST && count < capacity; w *= 8)
        problems[count++] = wl_probe_point(threads, steps, w, (long)(4 * w));
    return count;
}

/* "registers: 0 B local a thread; local: 256 B" from the compiled kernels. */
static void local_annotate(wl_backend *backend, const wl_problem *problem, char *text, size_t len)
{
    text[0] = '\0';
#ifdef WARPLAB_HAVE_CUDA
    if (backend->ops->kind != WARPLAB_BACKEND_CUDA)
        return;
    size_t in_registers = 0, in_local = 0;
    if (wl_cuda_probe_local_bytes((int)problem->param, &in_registers, &in_local) == WARPLAB_OK)
        wl_format(text, len, "local memory a thread: registers %zu B, local %zu B", in_registers,
                  in_local);
#else
    (void)backend;
    (void)problem;
    (void)len;
#endif
}

static void memories_setup(const warplab_device_info *device, size_t size, char *text, size_t len)
{
    wl_format(text, len,
              "%zu threads (blocks of %d); constant: a %d-word table, %zu reads a thread; local: "
              "arrays of 4..%d ints, %d steps of N reads, at most 2^18 threads; readonly "
              "(CUDA): %d gathered reads a thread, tables of 4 KiB..128 MiB",
              memories_threads(device, size), WL_PROBE_BLOCK, WL_CONSTANT_WORDS,
              memories_steps(device), WL_LOCAL_MAX, device->gpu ? 16 : 4, device->gpu ? 64 : 8);
}

/* The read-only path against plain loads at the smallest and the largest
 * table measured, and whether it matters on this GPU (a gain past 5% at
 * either end). */
static void conclude_readonly(const warplab_probe_result *r, char *text, size_t len)
{
    const double ends[2] = {4.0 * (double)GATHER_SMALLEST, 4.0 * (double)GATHER_LARGEST};
    double ldg[2], restrict_[2];
    bool have[2];
    for (int e = 0; e < 2; e++)
        have[e] = wl_probe_ratio(r, "ldg", ends[e], "plain", ends[e], &ldg[e]);
    if (!have[0] && !have[1])
        return;
    wl_append(text, len, "; a gather through the read-only path (__ldg) against plain loads:");
    double best = 0.0, worst = 1e300;
    for (int e = 0; e < 2; e++) {
        if (!have[e])
            continue;
        char bytes[32];
        wl_format_bytes(bytes, sizeof bytes, ends[e]);
        wl_append(text, len, "%s %.2fx at a %s table", e && have[0] ? "," : "", ldg[e], bytes);
        if (wl_probe_ratio(r, "restrict", ends[e], "plain", ends[e], &restrict_[e]))
            wl_append(text, len, " (const __restrict__ %.2fx)", restrict_[e]);
        best = ldg[e] > best ? ldg[e] : best;
        worst = ldg[e] < worst ? ldg[e] : worst;
    }
    if (best > 1.05)
        wl_append(text, len, ": the read-only path pays on this GPU, up to %.2fx", best);
    else if (worst < 0.95)
        wl_append(text, len, ": the read-only path is slower here (%.2fx)", worst);
    else
        wl_append(text, len, ": no difference past 5%% on this GPU");
}

/* "constant: 32 distinct words a warp at 0.04x of the broadcast, global at
 * 0.9x of its own 1; the broadcast 2.5x global's; local memory: 64 ints at
 * 0.20x of registers (4 ints: 0.95x)". */
static void memories_conclude(const warplab_probe_result *r, char *text, size_t len)
{
    text[0] = '\0';
    wl_append(text, len, "constant: 32 distinct words a warp at ");
    wl_probe_append_ratio(text, len, r, "constant", 32, "constant", 1);
    wl_append(text, len, " of one word (the broadcast), global at ");
    wl_probe_append_ratio(text, len, r, "global", 32, "global", 1);
    wl_append(text, len, "; the broadcast at ");
    wl_probe_append_ratio(text, len, r, "constant", 1, "global", 1);
    wl_append(text, len, " of global's rate; 32 words at ");
    wl_probe_append_ratio(text, len, r, "constant", 32, "global", 32);
    wl_append(text, len,
              "; a per-thread array indexed at run time (local memory) against "
              "registers: 4 ints ");
    wl_probe_append_ratio(text, len, r, "local", 4, "registers", 4);
    wl_append(text, len, ", %d ints ", WL_LOCAL_MAX);
    wl_probe_append_ratio(text, len, r, "local", WL_LOCAL_MAX, "registers", WL_LOCAL_MAX);
    const warplab_probe_point *p = wl_probe_point_at(r, "local", WL_LOCAL_MAX);
    if (p && p->annotation[0])
        wl_append(text, len, " (%s)", p->annotation);
    conclude_readonly(r, text, len);
}

static const wl_probe_section memories_sections[] = {
    {.ladder = &constant_ladder,
     .name = "memories_constant",
     .title = "table reads per second against distinct words a warp",
     .x_label = "distinct words a warp",
     .unit = "Greads/s",
     .metric = WL_PROBE_OPS,
     .log_x = true,
     .points = constant_points},
    {.ladder = &local_ladder,
     .name = "memories_local",
     .title = "per-thread array reads per second against its length",
     .x_label = "array length (ints)",
     .unit = "Greads/s",
     .metric = WL_PROBE_OPS,
     .log_x = true,
     .points = local_points,
     .annotate = local_annotate},
    {.ladder = &readonly_ladder,
     .name = "memories_readonly",
     .title = "a gather's reads per second against the table's size: plain, __ldg, restrict",
     .x_label = "table bytes",
     .unit = "Greads/s",
     .metric = WL_PROBE_OPS,
     .log_x = true,
     .x_is_bytes = true,
     .points = readonly_points},
};

const wl_probe wl_probe_memories = {
    .name = "memories",
    .title = "constant memory's broadcast against divergent reads; a per-thread array in "
             "registers or local memory; the read-only path against plain loads (CUDA)",
    .course = "seed 000, 'Lecture 2.3: Memory Model and Locality -- CUDA Memories'; seed 001, "
              "'CUDA - Memory Model - Scope'",
    .size_meaning = "threads (default 2^20 on a GPU, 4096 elsewhere)",
    .sections = memories_sections,
    .section_count = sizeof memories_sections / sizeof memories_sections[0],
    .setup = memories_setup,
    .conclude = memories_conclude,
};
