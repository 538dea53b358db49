/* warplab occupancy: the course's block-granularity arithmetic (seed 000,
 * 'Thread Scheduling', 'Warp Example', 'Block Granularity Considerations',
 * 'Shared Memory and Threading'; seed 002, 'TILE_WIDTH choice') for a block
 * size on the present GPU or on a named architecture. */
#include "cli.h"

#include "warplab_lab.h"
#include <limits.h>
#include <stdio.h>
#include <string.h>

static void occupancy_help(FILE *out)
{
    fprintf(out,
            "usage: warplab occupancy (--threads N | --block XxY[xZ]) [--registers R]\n"
            "                         [--shared BYTES] [--arch NAME | --device [N]]\n"
            "                         [--sm-shared BYTES]\n"
            "       warplab occupancy --table [--registers R] [--shared BYTES] [--arch NAME]\n"
            "       warplab occupancy --list-archs\n"
            "\n"
            "How many blocks of a size fit on one SM, and which limit stops more: threads\n"
            "(warps), resident blocks, registers or shared memory. The course's block\n"
            "granularity lesson (seed 000): on Fermi, 8x8 blocks stop at 8 blocks (only 512\n"
            "threads), 16x16 fill the SM with 6, 32x32 fit once (2/3 of its threads).\n"
            "\n"
            "options:\n"
            "  -t, --threads N        threads per block\n"
            "      --block XxY[xZ]    block dimensions (16x16 = 256 threads)\n"
            "  -r, --registers R      registers per thread (nvcc -Xptxas -v, or\n"
            "                         cudaFuncGetAttributes' numRegs); default: not counted\n"
            "  -s, --shared BYTES     shared memory per block, static + dynamic: 2048, 48K\n"
            "                         (K = 1024 bytes); default 0\n"
            "  -a, --arch NAME        an architecture: g80, gt200, fermi, kepler, maxwell,\n"
            "                         pascal, volta, turing, ampere, ada, hopper, blackwell,\n"
            "                         sm_XY or X.Y (see --list-archs)\n"
            "  -d, --device [N]       the CUDA GPU N (default 0), with the limits it reports\n"
            "                         (the default when a CUDA GPU is present)\n"
            "      --sm-shared BYTES  the SM's shared-memory configuration instead of the\n"
            "                         largest (Fermi's 16K, a Volta+ carveout); it also caps\n"
            "                         what one block may take\n"
            "      --table            the block-granularity table: 8x8, 16x16, 32x32 and other\n"
            "                         sizes, blocks and threads per SM, and what binds\n"
            "      --list-archs       the architectures and their per-SM limits\n"
            "  -h, --help             this help\n"
            "\n"
            "The arithmetic is the CUDA occupancy calculator's: warps rounded up per block,\n"
            "registers allocated per warp (per block on sm_1x) in allocation units and\n"
            "fitted per SM sub-partition, shared memory plus the runtime's 1 KiB per block\n"
            "(sm_80+) rounded up to the allocation unit. On a CUDA GPU it agrees with\n"
            "cudaOccupancyMaxActiveBlocksPerMultiprocessor (tests/cuda checks it).\n");
}

/* "48 KiB" for whole KiB, else "1000 B". */
static void format_bytes(char *out, size_t len, size_t bytes)
{
    if (bytes >= 1024 && bytes % 1024 == 0)
        snprintf(out, len, "%zu KiB", bytes / 1024);
    else
        snprintf(out, len, "%zu B", bytes);
}

/* "-" for a resource that does not bound the blocks. */
static void format_blocks(char *out, size_t len, int blocks)
{
    if (blocks == INT_MAX)
        snprintf(out, len, "-");
    else
        snprintf(out, len, "%d", blocks);
}

/* Every limit that allows as few blocks as the binding one: "threads, blocks". */
static void format_binding(char *out, size_t len, const warplab_occupancy *r)
{
    const int by[WARPLAB_LIMIT_COUNT] = {r->blocks_by_threads, r->blocks_by_blocks,
                                         r->blocks_by_registers, r->blocks_by_shared};
    out[0] = '\0';
    for (int i = 0; i < WARPLAB_LIMIT_COUNT; i++) {
        if (by[i] != r->blocks_per_sm)
            continue;
        size_t used = strlen(out);
        snprintf(out + used, len - used, "%s%s", used ? ", " : "",
                 warplab_occupancy_limit_name((warplab_occupancy_limit)i));
    }
}

/* Parses a size that must be one number ("48K", "2^14", "2048"). */
static bool parse_one_size(const char *text, size_t *value)
{
    size_t sizes[3];
    int dims = 0;
    if (warplab_parse_size(text, sizes, &dims) != WARPLAB_OK || dims != 1)
        return false;
    *value = sizes[0];
    return true;
}

/* "16x16" -> 256 threads; each dimension 1 to 65536. On failure, why in
 * reason (the product is computed without overflow). */
static bool parse_block(const char *text, int *threads, int dims_out[3], char *reason,
                        size_t reason_len)
{
    size_t sizes[3];
    int dims = 0;
    if (warplab_parse_size(text, sizes, &dims) != WARPLAB_OK) {
        snprintf(reason, reason_len, "XxY or XxYxZ, each dimension 1 to 65536");
        return false;
    }
    unsigned long long product = 1;
    for (int i = 0; i < 3; i++) {
        dims_out[i] = 1;
        if (i >= dims)
            continue;
        if (sizes[i] < 1 || sizes[i] > 65536) {
            snprintf(reason, reason_len, "each dimension is 1 to 65536, not %zu", sizes[i]);
            return false;
        }
        dims_out[i] = (int)sizes[i];
        product *= (unsigned long long)sizes[i]; /* at most 2^48 */
    }
    if (product > 1024 * 1024) {
        snprintf(reason, reason_len,
                 "%llu threads in one block; a block holds 1 to 1024 threads (X*Y*Z)", product);
        return false;
    }
    *threads = (int)product;
    return true;
}

/* The architecture of CUDA device index, or a failure message and code. */
static int device_arch(int index, warplab_arch *arch)
{
    warplab_device_info devices[16];
    size_t count = 0;
    if (!warplab_backend_compiled(WARPLAB_BACKEND_CUDA) ||
        warplab_devices(WARPLAB_BACKEND_CUDA, devices, 16, &count) != WARPLAB_OK || count == 0) {
        fprintf(stderr,
                "warplab occupancy: no CUDA GPU %s: name an architecture with --arch (fermi, "
                "kepler, volta, ampere, hopper, ...; see --list-archs)\n",
                warplab_backend_compiled(WARPLAB_BACKEND_CUDA) ? "found"
                                                               : "(cuda is not in this build)");
        return CLI_USAGE;
    }
    if (index < 0 || (size_t)index >= count || index >= 16) {
        fprintf(stderr, "warplab occupancy: there are %zu CUDA GPU(s); no device %d\n", count,
                index);
        return CLI_USAGE;
    }
    warplab_status status = warplab_arch_from_device(&devices[index], arch);
    if (status != WARPLAB_OK)
        return cli_fail(status, warplab_last_error(NULL), "occupancy");
    return CLI_OK;
}

static void print_arch_line(const warplab_arch *a)
{
    char shared_sm[32], shared_block[32];
    format_bytes(shared_sm, sizeof shared_sm, a->shared_memory_per_sm);
    format_bytes(shared_block, sizeof shared_block, a->max_shared_memory_per_block);
    printf("%s: per SM %d threads (%d warps), %d blocks, %d registers, %s shared memory;\n"
           "  a block holds up to %d threads and %s of shared memory\n",
           a->name, a->max_threads_per_sm, a->max_threads_per_sm / a->warp_size,
           a->max_blocks_per_sm, a->registers_per_sm, shared_sm, a->max_threads_per_block,
           shared_block);
}

static int list_archs(void)
{
    printf("%-26s %-26s %7s %6s %8s %9s %9s %8s\n", "architecture", "names", "thr/SM", "blk/SM",
           "regs/SM", "shared/SM", "shared/bl", "regs/thr");
    warplab_arch a;
    const char *names = NULL;
    for (size_t i = 0; warplab_arch_at(i, &a, &names) == WARPLAB_OK; i++) {
        char shared_sm[32], shared_block[32];
        format_bytes(shared_sm, sizeof shared_sm, a.shared_memory_per_sm);
        format_bytes(shared_block, sizeof shared_block, a.max_shared_memory_per_block);
        printf("%-26s %-26s %7d %6d %8d %9s %9s %8d\n", a.name, names, a.max_threads_per_sm,
               a.max_blocks_per_sm, a.registers_per_sm, shared_sm, shared_block,
               a.max_registers_per_thread);
    }
    printf("\nshared/bl: the most shared memory per block (with the opt-in past %s on sm_70+).\n"
           "Also accepted: sm_XY, X.Y, compute_XY. Source: the CUDA programming guide's\n"
           "compute capability tables; allocation rules from the CUDA occupancy calculator.\n",
           "48 KiB");
    return CLI_OK;
}

/* Why the binding limit binds, in the course's words and numbers. */
static void explain_limit(const warplab_arch *a, int threads, int registers, size_t shared,
                          const warplab_occupancy *r)
{
    char text[640] = "";
    size_t used = 0;
    switch (r->limit) {
    case WARPLAB_LIMIT_THREADS:
        used = (size_t)snprintf(text, sizeof text,
                                "Threads bind: the SM holds %d warps; %d / %d warps per block = "
                                "%d block%s",
                                r->max_warps_per_sm, r->max_warps_per_sm, r->warps_per_block,
                                r->blocks_by_threads, r->blocks_by_threads == 1 ? "" : "s");
        if (r->occupancy < 1.0)
            snprintf(text + used, sizeof text - used,
                     "; the %d warps left are too few for another block.",
                     r->max_warps_per_sm - r->warps_per_sm);
        else
            snprintf(text + used, sizeof text - used, ": the SM is full.");
        break;
    case WARPLAB_LIMIT_BLOCKS:
        snprintf(text, sizeof text,
                 "Blocks bind: the SM takes at most %d blocks whatever their size, so %d-thread "
                 "blocks leave %d of its %d threads unused (seed 000: 8x8 blocks on Fermi, "
                 "\"only 512 threads will go into each SM\").",
                 a->max_blocks_per_sm, threads, a->max_threads_per_sm - r->threads_per_sm,
                 a->max_threads_per_sm);
        break;
    case WARPLAB_LIMIT_REGISTERS:
        if (a->register_allocation_per_block)
            snprintf(text, sizeof text,
                     "Registers bind: %d registers x %d threads (warps allocated in twos) = %d "
                     "registers per block in units of %d; %d / %d = %d block(s). Fewer registers "
                     "per thread would fit more blocks.",
                     registers, r->warps_per_block * a->warp_size, r->registers_per_block,
                     a->register_allocation_unit, a->registers_per_sm, r->registers_per_block,
                     r->blocks_by_registers);
        else {
            const int per_warp = r->registers_per_block / r->warps_per_block;
            int warps_held = a->registers_per_sm / per_warp;
            warps_held -= warps_held % a->warp_allocation_granularity;
            snprintf(text, sizeof text,
                     "Registers bind: %d registers x %d threads = %d per warp, allocated as %d "
                     "(units of %d); the SM's %d registers hold %d warps (in groups of %d): "
                     "%d block%s of %d warps. Fewer registers per thread (__launch_bounds__, "
                     "-maxrregcount) would fit more blocks.",
                     registers, a->warp_size, registers * a->warp_size, per_warp,
                     a->register_allocation_unit, a->registers_per_sm, warps_held,
                     a->warp_allocation_granularity, r->blocks_by_registers,
                     r->blocks_by_registers == 1 ? "" : "s", r->warps_per_block);
        }
        break;
    case WARPLAB_LIMIT_SHARED_MEMORY:
        used = (size_t)snprintf(text, sizeof text, "Shared memory binds: %zu bytes", shared);
        if (a->reserved_shared_per_block)
            used += (size_t)snprintf(text + used, sizeof text - used, " + %zu reserved",
                                     a->reserved_shared_per_block);
        snprintf(text + used, sizeof text - used,
                 " = %zu bytes per block (units of %zu); the SM's %zu / %zu = %d block%s.",
                 r->shared_per_block, a->shared_allocation_unit, a->shared_memory_per_sm,
                 r->shared_per_block, r->blocks_by_shared, r->blocks_by_shared == 1 ? "" : "s");
        break;
    default: break;
    }
    cli_print_wrapped(stdout, "  ", text, 96);
}

static void print_one(const warplab_arch *a, int threads, const int dims[3], int registers,
                      size_t shared, const warplab_occupancy *r)
{
    char shape[48] = "";
    if (dims[1] > 1 || dims[2] > 1) {
        if (dims[2] > 1)
            snprintf(shape, sizeof shape, "%dx%dx%d, ", dims[0], dims[1], dims[2]);
        else
            snprintf(shape, sizeof shape, "%dx%d, ", dims[0], dims[1]);
    }
    char shared_text[32], shared_sm[32], shared_alloc[48];
    format_bytes(shared_text, sizeof shared_text, shared);
    format_bytes(shared_sm, sizeof shared_sm, a->shared_memory_per_sm);
    print_arch_line(a);
    printf("block: %d threads (%s%d warps), ", threads, shape, r->warps_per_block);
    if (registers > 0)
        printf("%d registers per thread, ", registers);
    else
        printf("registers not counted, ");
    printf("%s shared memory\n\n", shared_text);

    char by[4][16];
    format_blocks(by[0], sizeof by[0], r->blocks_by_threads);
    format_blocks(by[1], sizeof by[1], r->blocks_by_blocks);
    format_blocks(by[2], sizeof by[2], r->blocks_by_registers);
    format_blocks(by[3], sizeof by[3], r->blocks_by_shared);
    char sm_threads[48], block_threads[48], sm_regs[48], block_regs[48];
    snprintf(sm_threads, sizeof sm_threads, "%d (%d warps)", a->max_threads_per_sm,
             r->max_warps_per_sm);
    snprintf(block_threads, sizeof block_threads, "%d (%d warps)", threads, r->warps_per_block);
    snprintf(sm_regs, sizeof sm_regs, "%d", a->registers_per_sm);
    if (registers > 0)
        snprintf(block_regs, sizeof block_regs, "%d", r->registers_per_block);
    else
        snprintf(block_regs, sizeof block_regs, "not counted");
    if (a->reserved_shared_per_block) {
        char text[24];
        format_bytes(text, sizeof text, r->shared_per_block);
        snprintf(shared_alloc, sizeof shared_alloc, "%s (1 KiB reserved)", text);
    } else {
        format_bytes(shared_alloc, sizeof shared_alloc, r->shared_per_block);
    }
    const char *mark[WARPLAB_LIMIT_COUNT];
    const int allows[WARPLAB_LIMIT_COUNT] = {r->blocks_by_threads, r->blocks_by_blocks,
                                             r->blocks_by_registers, r->blocks_by_shared};
    for (int i = 0; i < WARPLAB_LIMIT_COUNT; i++)
        mark[i] = allows[i] == r->blocks_per_sm ? "  <- binds" : "";
    printf("  %-14s %-18s %-24s %s\n", "resource", "per SM", "one block takes", "blocks it allows");
    printf("  %-14s %-18s %-24s %s%s\n", "threads", sm_threads, block_threads, by[0], mark[0]);
    printf("  %-14s %-18d %-24d %s%s\n", "blocks", a->max_blocks_per_sm, 1, by[1], mark[1]);
    printf("  %-14s %-18s %-24s %s%s\n", "registers", sm_regs, block_regs, by[2], mark[2]);
    printf("  %-14s %-18s %-24s %s%s\n", "shared memory", shared_sm, shared_alloc, by[3], mark[3]);

    printf("\n  %d block%s per SM: %d warps, %d threads; occupancy %.1f%% (%d of %d warps)\n",
           r->blocks_per_sm, r->blocks_per_sm == 1 ? "" : "s", r->warps_per_sm, r->threads_per_sm,
           100.0 * r->occupancy, r->warps_per_sm, r->max_warps_per_sm);
    explain_limit(a, threads, registers, shared, r);
    if (shared > a->default_shared_memory_per_block) {
        char limit[32], note[256];
        format_bytes(limit, sizeof limit, a->default_shared_memory_per_block);
        snprintf(note, sizeof note,
                 "Note: more than %s per block needs dynamic shared memory and "
                 "cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, "
                 "bytes).",
                 limit);
        cli_print_wrapped(stdout, "  ", note, 96);
    }
}

/* The block-granularity table: the course's 8x8, 16x16, 32x32 among 1-D sizes. */
static int print_table(const warplab_arch *a, int registers, size_t shared)
{
    static const struct {
        int threads;
        const char *label;
    } rows[] = {{32, "32"},   {64, "8x8"},  {128, "128"}, {192, "192"},   {256, "16x16"},
                {384, "384"}, {512, "512"}, {768, "768"}, {1024, "32x32"}};
    char shared_text[32];
    format_bytes(shared_text, sizeof shared_text, shared);
    print_arch_line(a);
    printf("per block: ");
    if (registers > 0)
        printf("%d registers per thread", registers);
    else
        printf("registers not counted");
    printf(", %s shared memory\n\n", shared_text);
    printf("  %-7s %7s %6s %10s %9s %11s %10s  %s\n", "block", "threads", "warps", "blocks/SM",
           "warps/SM", "threads/SM", "occupancy", "binds");
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        warplab_occupancy r;
        warplab_status status =
            warplab_occupancy_compute(a, rows[i].threads, registers, shared, &r);
        if (status != WARPLAB_OK) {
            printf("  %-7s %7d  -- %s\n", rows[i].label, rows[i].threads, warplab_last_error(NULL));
            continue;
        }
        char binding[64];
        format_binding(binding, sizeof binding, &r);
        printf("  %-7s %7d %6d %10d %9d %11d %9.1f%%  %s\n", rows[i].label, rows[i].threads,
               r.warps_per_block, r.blocks_per_sm, r.warps_per_sm, r.threads_per_sm,
               100.0 * r.occupancy, binding);
    }
    printf("\n");
    cli_print_wrapped(stdout, "",
                      "binds: the limit that stops one more block from fitting (seed 000, "
                      "'Block Granularity Considerations'). Small blocks run into the block "
                      "limit; large ones leave part of the thread limit unused.",
                      96);
    return CLI_OK;
}

static bool is_value_option(const char *option)
{
    static const char *const names[] = {"--threads", "-t", "--block",     "--registers", "-r",
                                        "--shared",  "-s", "--sm-shared", "--arch",      "-a"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(option, names[i]))
            return true;
    return false;
}

int cmd_occupancy(int argc, char **argv)
{
    const char *arch_name = NULL;
    int device = -1, registers = 0, threads = 0, dims[3] = {1, 1, 1};
    bool use_device = false, table = false, have_threads = false;
    size_t shared = 0, sm_shared = 0;
    for (int i = 1; i < argc; i++) {
        const char *option = argv[i];
        const char *value = i + 1 < argc ? argv[i + 1] : NULL;
        bool takes_value = true;
        if (!strcmp(option, "--help") || !strcmp(option, "-h")) {
            occupancy_help(stdout);
            return CLI_OK;
        } else if (!strcmp(option, "--list-archs")) {
            return list_archs();
        } else if (!strcmp(option, "--table")) {
            table = true;
            takes_value = false;
        } else if (!strcmp(option, "--device") || !strcmp(option, "-d")) {
            use_device = true;
            device = 0;
            takes_value = value && cli_parse_int(value, &device);
            if (takes_value && device < 0)
                return cli_usage_error("occupancy", "--device needs an index >= 0, not '%s'",
                                       value);
        } else if (!is_value_option(option)) {
            return cli_usage_error("occupancy", "unknown option '%s'", option);
        } else if (!value) {
            return cli_usage_error("occupancy", "%s needs a value", option);
        } else if ((!strcmp(option, "--threads") || !strcmp(option, "-t") ||
                    !strcmp(option, "--block")) &&
                   have_threads) {
            return cli_usage_error("occupancy", "give the block size once (--threads or --block)");
        } else if (!strcmp(option, "--threads") || !strcmp(option, "-t")) {
            size_t n = 0;
            if (!parse_one_size(value, &n) || n < 1 || n > INT_MAX)
                return cli_usage_error("occupancy", "--threads needs a count >= 1, not '%s'",
                                       value);
            threads = (int)n;
            have_threads = true;
        } else if (!strcmp(option, "--block")) {
            char reason[128];
            if (!parse_block(value, &threads, dims, reason, sizeof reason))
                return cli_usage_error("occupancy", "--block '%s': %s", value, reason);
            have_threads = true;
        } else if (!strcmp(option, "--registers") || !strcmp(option, "-r")) {
            if (!cli_parse_int(value, &registers) || registers < 0)
                return cli_usage_error("occupancy", "--registers needs a count >= 0, not '%s'",
                                       value);
        } else if (!strcmp(option, "--shared") || !strcmp(option, "-s")) {
            if (!parse_one_size(value, &shared))
                return cli_usage_error("occupancy",
                                       "--shared needs bytes (2048, 48K, 2^14), not '%s'", value);
        } else if (!strcmp(option, "--sm-shared")) {
            if (!parse_one_size(value, &sm_shared) || sm_shared == 0)
                return cli_usage_error("occupancy",
                                       "--sm-shared needs bytes > 0 (16K, 49152), not '%s'", value);
        } else if (!strcmp(option, "--arch") || !strcmp(option, "-a")) {
            arch_name = value;
        }
        if (takes_value)
            i++;
    }
    if (arch_name && use_device)
        return cli_usage_error("occupancy", "give --arch or --device, not both");
    if (!table && !have_threads)
        return cli_usage_error("occupancy", "give the block size: --threads N or --block XxY");
    if (table && have_threads)
        return cli_usage_error("occupancy", "--table prints its own block sizes; drop "
                                            "--threads/--block");

    warplab_arch arch;
    if (arch_name) {
        warplab_status status = warplab_arch_by_name(arch_name, &arch);
        if (status != WARPLAB_OK)
            return cli_fail(status, warplab_last_error(NULL), "occupancy");
    } else {
        int code = device_arch(use_device ? device : 0, &arch);
        if (code != CLI_OK)
            return code;
    }
    if (sm_shared) {
        if (sm_shared > arch.shared_memory_per_sm)
            return cli_usage_error("occupancy", "--sm-shared %zu is more than the %zu bytes %s has",
                                   sm_shared, arch.shared_memory_per_sm, arch.name);
        /* A smaller configuration also caps what one block may take. */
        arch.shared_memory_per_sm = sm_shared;
        if (arch.max_shared_memory_per_block + arch.reserved_shared_per_block > sm_shared)
            arch.max_shared_memory_per_block = sm_shared > arch.reserved_shared_per_block
                                                   ? sm_shared - arch.reserved_shared_per_block
                                                   : 0;
        if (arch.default_shared_memory_per_block > arch.max_shared_memory_per_block)
            arch.default_shared_memory_per_block = arch.max_shared_memory_per_block;
    }
    if (table)
        return print_table(&arch, registers, shared);

    warplab_occupancy result;
    warplab_status status = warplab_occupancy_compute(&arch, threads, registers, shared, &result);
    if (status != WARPLAB_OK)
        return cli_fail(status, warplab_last_error(NULL), "occupancy");
    print_one(&arch, threads, dims, registers, shared, &result);
    return CLI_OK;
}
