/* warplab devices: the course's device query (seed 000, 'Device Query'), for
 * every device of every backend compiled in. */
#include "cli.h"

#include <stdio.h>
#include <string.h>

static void print_size(const char *label, size_t bytes)
{
    if (bytes == 0)
        printf("  %-34s n/a\n", label);
    else if (bytes >= ((size_t)1 << 30))
        printf("  %-34s %.2f GiB (%zu bytes)\n", label, (double)bytes / (1u << 30), bytes);
    else if (bytes >= ((size_t)1 << 20))
        printf("  %-34s %.1f MiB (%zu bytes)\n", label, (double)bytes / (1u << 20), bytes);
    else
        printf("  %-34s %.1f KiB (%zu bytes)\n", label, (double)bytes / 1024.0, bytes);
}

static void print_int(const char *label, int value)
{
    if (value > 0)
        printf("  %-34s %d\n", label, value);
    else
        printf("  %-34s n/a\n", label);
}

static void print_device(const warplab_device_info *d)
{
    printf("%s device %d: %s\n", warplab_backend_name(d->backend), d->index, d->name);
    printf("  %-34s %s%s%s\n", "vendor / driver", d->vendor, d->driver_version[0] ? ", " : "",
           d->driver_version);
    if (d->cc_major > 0)
        printf("  %-34s %d.%d\n", "compute capability", d->cc_major, d->cc_minor);
    print_int(d->backend == WARPLAB_BACKEND_CUDA ? "multiprocessors (SMs)" : "compute units",
              d->multiprocessors);
    print_int("warp size", d->warp_size);
    print_int("max threads per block", d->max_threads_per_block);
    if (d->max_block_dim[0] > 0)
        printf("  %-34s %d x %d x %d\n", "max block dimensions", d->max_block_dim[0],
               d->max_block_dim[1], d->max_block_dim[2]);
    if (d->max_grid_dim[0] > 0)
        printf("  %-34s %d x %d x %d\n", "max grid dimensions", d->max_grid_dim[0],
               d->max_grid_dim[1], d->max_grid_dim[2]);
    print_int("max threads per SM", d->max_threads_per_multiprocessor);
    if (d->warp_size > 1 && d->max_threads_per_multiprocessor > 0)
        print_int("max warps per SM", d->max_threads_per_multiprocessor / d->warp_size);
    print_int("max blocks per SM", d->max_blocks_per_multiprocessor);
    print_int("registers per block", d->registers_per_block);
    print_int("registers per SM", d->registers_per_multiprocessor);
    print_size("shared memory per block", d->shared_memory_per_block);
    print_size("shared memory per block (opt-in)", d->shared_memory_per_block_optin);
    print_size("shared memory per SM", d->shared_memory_per_multiprocessor);
    print_size(d->backend == WARPLAB_BACKEND_CUDA ? "L2 cache" : "global memory cache",
               d->l2_cache_bytes);
    print_size("global memory", d->global_memory_bytes);
    print_int("memory bus width (bits)", d->memory_bus_width_bits);
    /* The memory clock as CUDA reports it; the data rate is twice it (seed
     * 004: "900MHz DDR" is 1800 MT/s). */
    if (d->memory_clock_khz > 0)
        printf("  %-34s %.0f MHz (double data rate: %.0f MT/s)\n", "memory clock",
               d->memory_clock_khz / 1e3, 2.0 * d->memory_clock_khz / 1e3);
    else
        print_int("memory clock", 0);
    if (d->core_clock_khz > 0)
        printf("  %-34s %.0f MHz\n", "core clock", d->core_clock_khz / 1e3);
    if (d->theoretical_bandwidth_gbs > 0)
        printf("  %-34s %.1f GB/s = %d bit x %.0f MT/s / 8 (seed 004's formula)\n",
               "theoretical bandwidth", d->theoretical_bandwidth_gbs, d->memory_bus_width_bits,
               2.0 * d->memory_clock_khz / 1e3);
    else
        printf("  %-34s n/a (bus width and memory clock unknown)\n", "theoretical bandwidth");
    if (d->fp32_peak_gflops > 0)
        printf("  %-34s %.1f GFLOP/s\n", "FP32 peak (FMA = 2 flops)", d->fp32_peak_gflops);
    if (d->backend == WARPLAB_BACKEND_CUDA)
        printf("  %-34s concurrent kernels %s, %d copy engines, managed memory %s\n", "features",
               d->concurrent_kernels ? "yes" : "no", d->async_engines,
               d->managed_memory ? "yes" : "no");
    if (d->backend == WARPLAB_BACKEND_CUDA)
        printf("  %-34s warplab occupancy --device %d --table\n", "blocks and warps per SM",
               d->index);
    printf("\n");
}

/* --peers: the GPUs' peer-access matrix and copy bandwidths (all-reduce
 * ladder, docs/MULTIGPU.md). */
static int print_peers(void)
{
    static warplab_peer_report report;
    warplab_status status = warplab_peer_query(&report, (size_t)256 << 20);
    if (status != WARPLAB_OK)
        return cli_fail(status, NULL, "peer query");
    printf("peer access between the CUDA GPUs (P2P: can map the other's memory; r: CUDA's "
           "link performance rank)\nand copy bandwidth by cudaMemcpyPeerAsync, %zu MiB, best of "
           "5, GB/s: one way a->b / both ways at once a<->b\n\n",
           report.bytes >> 20);
    for (int a = 0; a < report.gpus; a++)
        printf("  GPU %d: %s\n", a, report.names[a]);
    printf("\n  %-6s", "a\\b");
    for (int b = 0; b < report.gpus; b++)
        printf(" %-24d", b);
    printf("\n");
    for (int a = 0; a < report.gpus; a++) {
        printf("  %-6d", a);
        for (int b = 0; b < report.gpus; b++) {
            char cell[64];
            if (a == b)
                snprintf(cell, sizeof cell, "-");
            else
                snprintf(cell, sizeof cell, "%s r%d %6.1f / %6.1f",
                         report.access[a][b] ? "P2P" : "no ", report.performance_rank[a][b],
                         report.one_way_gbs[a][b], report.two_way_gbs[a][b]);
            printf(" %-24s", cell);
        }
        printf("\n");
    }
    return CLI_OK;
}

int cmd_devices(int argc, char **argv)
{
    const char *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("usage: warplab devices [--backend NAME] [--peers]\n\n"
                   "The course's device query for every device of every backend compiled in\n"
                   "(or of one): SMs, warp size, thread and block limits, registers, shared\n"
                   "memory, L2, memory bus and clock, and the theoretical bandwidth computed\n"
                   "as the course does: bus width x data rate / 8 (GB = 1e9 bytes).\n"
                   "--peers: the CUDA GPUs' peer-access matrix and one-way and two-way copy\n"
                   "bandwidth between every pair (docs/MULTIGPU.md).\n");
            return CLI_OK;
        }
        if (!strcmp(argv[i], "--peers"))
            return print_peers();
        if ((!strcmp(argv[i], "--backend") || !strcmp(argv[i], "-b")) && i + 1 < argc)
            only = argv[++i];
        else
            return cli_usage_error("devices", "unknown argument '%s'", argv[i]);
    }
    warplab_backend_kind wanted = WARPLAB_BACKEND_AUTO;
    if (only && (warplab_backend_parse(only, &wanted) != WARPLAB_OK))
        return cli_usage_error("devices", "unknown backend '%s'", only);
    int shown = 0;
    for (int k = WARPLAB_BACKEND_CUDA; k < WARPLAB_BACKEND_COUNT; k++) {
        if (wanted != WARPLAB_BACKEND_AUTO && wanted != (warplab_backend_kind)k)
            continue;
        if (!warplab_backend_compiled((warplab_backend_kind)k)) {
            printf("%s: not compiled into this build\n\n", warplab_backend_name(k));
            continue;
        }
        warplab_device_info devices[16];
        size_t count = 0;
        warplab_status status = warplab_devices((warplab_backend_kind)k, devices, 16, &count);
        if (status != WARPLAB_OK) {
            cli_fail(status, NULL, warplab_backend_name(k));
            continue;
        }
        /* The course's first question: how many devices are there? */
        if (count == 0)
            printf("%s: no device found\n\n", warplab_backend_name(k));
        else
            printf("%s: %zu device%s\n\n", warplab_backend_name(k), count, count == 1 ? "" : "s");
        for (size_t i = 0; i < count && i < 16; i++, shown++)
            print_device(&devices[i]);
    }
    return shown ? CLI_OK : CLI_FAILED;
}
