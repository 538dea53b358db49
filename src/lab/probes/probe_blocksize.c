/* The blocksize probe (seed 000, 'Block Granularity Considerations', 'Thread
 * Scheduling'): a memory-bound copy far beyond L2 at block sizes 32..1024,
 * with a grid of one element per thread and with grids limited to a few
 * blocks per SM, beside the occupancy warplab's calculator predicts for the
 * kernel's real registers and shared memory at each block size (and what
 * CUDA's own calculator says).
 *
 * The course's argument: an SM holds at most so many blocks and so many
 * threads, so small blocks cannot fill it (8 blocks of 64 threads = 512 of
 * Fermi's 1536) and large ones may fit only once (a 1024-thread block: 2/3).
 *
 * Problem: dim[0] = n floats per array, param = threads per block. One
 * grid-stride copy kernel for every series; only the grid differs. */
#include "ladders/ladder_util.h"
#include "probe.h"

#include <string.h>

enum { BLOCKSIZE_IN = 0, BLOCKSIZE_OUT };

static int blocksize_buffers(const wl_problem *p, wl_buffer_spec *spec)
{
    spec[BLOCKSIZE_IN] = (wl_buffer_spec){WL_IN, WARPLAB_FLOAT32, p->dim[0], -1.0, 1.0};
    spec[BLOCKSIZE_OUT] = (wl_buffer_spec){WL_OUT, WARPLAB_FLOAT32, p->dim[0], 0.0, 0.0};
    return 2;
}

static warplab_status blocksize_verify(const wl_problem *p, const void *const *host,
                                       wl_check *check)
{
    const float *in = host[BLOCKSIZE_IN], *out = host[BLOCKSIZE_OUT];
    for (size_t i = 0; i < p->dim[0]; i++)
        wl_check_value(check, i, (double)out[i], (double)in[i], 0.0);
    return check->bad ? WARPLAB_ERROR_VERIFICATION_FAILED : WARPLAB_OK;
}

static double copy_bytes(const wl_problem *p)
{
    return 8.0 * (double)p->dim[0];
}

static warplab_status block_supported(const wl_problem *p, const warplab_device_info *device,
                                      char *reason, size_t len)
{
    if (p->param < 1 ||
        (device->max_threads_per_block > 0 && p->param > (long)device->max_threads_per_block)) {
        wl_format(reason, len, "a block holds 1 to %d threads on %s", device->max_threads_per_block,
                  device->name);
        return WARPLAB_ERROR_UNSUPPORTED;
    }
    return WARPLAB_OK;
}

static const wl_rung blocksize_series[] = {
    {.id = "per_element",
     .title = "one element per thread, ceil(n / block) blocks",
     .lesson = "The course's launch shape: the hardware keeps as many blocks per SM as the "
               "limits allow, so the block size decides how full each SM is.",
     .course = "seed 000, 'Block Granularity Considerations'",
     .supports = block_supported},
    {.id = "sm_x1",
     .title = "1 block per SM, grid-stride",
     .lesson = "One block per SM: the threads in flight are the block's, so small blocks "
               "leave the memory system idle.",
     .course = "seed 000, 'Thread Scheduling'",
     .supports = block_supported},
    {.id = "sm_x4",
     .title = "4 blocks per SM, grid-stride",
     .lesson = "Four blocks per SM: four times the threads in flight, while they fit.",
     .course = "seed 000, 'Thread Scheduling'",
     .supports = block_supported},
    {.id = "resident",
     .title = "as many blocks as fit per SM, grid-stride",
     .lesson = "SMs x the resident blocks CUDA's occupancy calculator reports: a full GPU "
               "with no block waiting for a slot.",
     .course = "seed 000, 'Block Granularity Considerations'",
     .supports = block_supported},
};

static void blocksize_describe(const wl_problem *p, char *text, size_t len)
{
    wl_format(text, len, "block %ld, n=%zu float", p->param, p->dim[0]);
}

static int blocksize_test_problems(const warplab_device_info *device, wl_problem *problems,
                                   int capacity)
{
    (void)device;
    static const long blocks[] = {32, 96, 1024};
    int count = 0;
    for (size_t b = 0; b < sizeof blocks / sizeof blocks[0] && count < capacity; b++)
        problems[count++] = wl_probe_point(100003, 0, 0, blocks[b]);
    return count;
}

static const wl_ladder blocksize_ladder = {
    .name = "blocksize",
    .title = "blocksize: a copy against block size and blocks per SM",
    .rungs = blocksize_series,
    .rung_count = sizeof blocksize_series / sizeof blocksize_series[0],
    .describe = blocksize_describe,
    .leading_size = wl_probe_leading_size,
    .buffers = blocksize_buffers,
    .verify = blocksize_verify,
    .bytes = copy_bytes,
    .test_problems = blocksize_test_problems,
};

static size_t blocksize_elements(const warplab_device_info *device, size_t size)
{
    return size ? size : device->gpu ? (size_t)1 << 25 : (size_t)1 << 20;
}

static int blocksize_points(const warplab_device_info *device, size_t size, wl_problem *problems,
                            int capacity)
{
    static const long blocks[] = {32, 64, 128, 192, 256, 384, 512, 768, 1024};
    int count = 0;
    for (size_t b = 0; b < sizeof blocks / sizeof blocks[0] && count < capacity; b++)
        if (device->max_threads_per_block <= 0 || blocks[b] <= device->max_threads_per_block)
            problems[count++] = wl_probe_point(blocksize_elements(device, size), 0, 0, blocks[b]);
    return count;
}

/* "16 blocks/SM = 100% (threads); CUDA: 16" from the kernel's registers. */
static void blocksize_annotate(wl_backend *backend, const wl_problem *problem, char *text,
                               size_t len)
{
    text[0] = '\0';
#ifdef WARPLAB_HAVE_CUDA
    if (backend->ops->kind != WARPLAB_BACKEND_CUDA)
        return;
    int registers = 0;
    size_t shared = 0;
    warplab_arch arch;
    warplab_occupancy occupancy;
    if (wl_cuda_probe_copy_attributes(&registers, &shared) != WARPLAB_OK ||
        warplab_arch_from_device(&backend->info, &arch) != WARPLAB_OK ||
        warplab_occupancy_compute(&arch, (int)problem->param, registers, shared, &occupancy) !=
            WARPLAB_OK) {
        wl_copy_string(text, len, "no prediction");
        return;
    }
    wl_format(text, len, "%d blocks/SM = %.0f%% (%s, %d regs); CUDA: %d", occupancy.blocks_per_sm,
              100.0 * occupancy.occupancy, warplab_occupancy_limit_name(occupancy.limit), registers,
              wl_cuda_probe_copy_blocks_per_sm((int)problem->param));
#else
    (void)backend;
    (void)problem;
    (void)len;
#endif
}

static void blocksize_setup(const warplab_device_info *device, size_t size, char *text, size_t len)
{
    const size_t n = blocksize_elements(device, size);
    char bytes[32];
    wl_format_bytes(bytes, sizeof bytes, 4.0 * (double)n);
    wl_format(text, len,
              "a copy of %s (%zu floats); %d SMs; predicted: warplab's occupancy "
              "calculator for the kernel's registers",
              bytes, n, device->multiprocessors);
}

static void blocksize_conclude(const warplab_probe_result *r, char *text, size_t len)
{
    text[0] = '\0';
    static const char *const series[] = {"per_element", "sm_x1", "sm_x4", "resident"};
    const char *best_series = NULL;
    double best_x = 0, best = 0;
    for (int s = 0; s < 4; s++) {
        double x, v;
        if (wl_probe_extreme(r, series[s], 1, 1024, true, &x, &v) && v > best) {
            best = v;
            best_x = x;
            best_series = series[s];
        }
    }
    if (!best_series) {
        wl_copy_string(text, len, "nothing was measured");
        return;
    }
    wl_append(text, len,
              "best: block %.0f (%s) at %.0f GB/s; one element per thread at block 32: ", best_x,
              best_series, best);
    wl_probe_append_ratio(text, len, r, "per_element", 32, best_series, best_x);
    const warplab_probe_point *at32 = wl_probe_point_at(r, "per_element", 32);
    if (at32 && at32->annotation[0])
        wl_append(text, len, " (predicted %s)", at32->annotation);
    wl_append(text, len, "; 1 block per SM: block 1024 ");
    wl_probe_append_ratio(text, len, r, "sm_x1", 1024, best_series, best_x);
    wl_append(text, len, ", block 32 ");
    wl_probe_append_ratio(text, len, r, "sm_x1", 32, best_series, best_x);
    wl_append(text, len, " of the best");
}

static const wl_probe_section blocksize_sections[] = {
    {.ladder = &blocksize_ladder,
     .name = "blocksize",
     .title = "copy bandwidth against threads per block",
     .x_label = "threads per block",
     .unit = "GB/s",
     .metric = WL_PROBE_BYTES,
     .points = blocksize_points,
     .annotate = blocksize_annotate},
};

const wl_probe wl_probe_blocksize = {
    .name = "blocksize",
    .title = "a copy swept over block sizes 32..1024 and blocks per SM, beside occupancy",
    .course = "seed 000, 'Block Granularity Considerations', 'Thread Scheduling'",
    .size_meaning = "elements per array (default 2^25 on a GPU)",
    .sections = blocksize_sections,
    .section_count = 1,
    .setup = blocksize_setup,
    .conclude = blocksize_conclude,
};
