/* Occupancy: the course's block-granularity arithmetic (seed 000, 'Thread
 * Scheduling' and 'Block Granularity Considerations'; seed 002, 'TILE_WIDTH
 * choice'), for any architecture the table knows and for a CUDA device.
 *
 * Sources of the numbers (facts, not code):
 * - Per-SM limits (threads, blocks, registers, shared memory per SM and per
 *   block): the CUDA C++ Programming Guide, "Compute Capabilities", technical
 *   specifications per compute capability
 *   (https://docs.nvidia.com/cuda/cuda-programming-guide/05-appendices/compute-capabilities.html;
 *   older editions for sm_1x to sm_6x).
 * - Allocation rules for sm_30 and newer: the CUDA toolkit's occupancy header
 *   (cuda_occupancy.h, CUDA 13): registers allocated per warp in units of
 *   256, warps fitted per SM sub-partition (4; 2 on sm_60), shared memory
 *   allocated in units of 256 bytes (sm_3x to sm_7x) or 128 bytes (sm_8x and
 *   newer), 1 KiB of shared memory reserved per block by the runtime from
 *   sm_80 on, the largest carveout when the kernel states no preference.
 * - sm_1x and sm_20: the CUDA Occupancy Calculator spreadsheet: sm_20
 *   allocates registers per warp in units of 64, warp allocation granularity
 *   2, shared memory in units of 128 bytes; sm_1x allocates registers per
 *   block in units of 256 (sm_10) or 512 (sm_13), warp granularity 2, shared
 *   memory in units of 512 bytes.
 *
 * The arithmetic, for a block of T threads, R registers per thread and S
 * bytes of shared memory:
 *   warps per block  W = ceil(T / 32)
 *   by threads         floor(max warps per SM / W)
 *   by blocks          the SM's resident-block limit
 *   by registers       per warp: ceil(32 R / unit) x unit registers; the warps
 *                      that fit, rounded down to the warp granularity, / W
 *   by shared memory   shared per SM / (ceil((S + reserved) / unit) x unit)
 * and the resident blocks are the smallest of the four. */
#include "internal.h"

#include "warplab_lab.h"
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define KIB ((size_t)1024)

const char *warplab_occupancy_limit_name(warplab_occupancy_limit limit)
{
    switch (limit) {
    case WARPLAB_LIMIT_THREADS: return "threads";
    case WARPLAB_LIMIT_BLOCKS: return "blocks";
    case WARPLAB_LIMIT_REGISTERS: return "registers";
    case WARPLAB_LIMIT_SHARED_MEMORY: return "shared memory";
    case WARPLAB_LIMIT_COUNT: break;
    }
    return "unknown";
}

/* ------------------------------------------------------------------------ */
/* The table                                                                */

typedef struct arch_entry {
    const char *names; /* what warplab_arch_by_name accepts, besides sm_XY and X.Y */
    warplab_arch arch;
} arch_entry;

/* One row: name, cc, threads per block, threads per SM, blocks per SM,
 * registers per SM, per block, per thread, register unit, warp granularity,
 * per-block register allocation, shared per SM, per block (opt-in), per block
 * (default), shared unit, reserved per block. */
#define ARCH(display, major, minor, tpb, tpsm, bpsm, regs_sm, regs_block, regs_thread, reg_unit,   \
             warp_granularity, per_block, shared_sm, shared_block, shared_default, shared_unit,    \
             reserved)                                                                             \
    {                                                                                              \
        .name = display, .cc_major = major, .cc_minor = minor, .warp_size = 32,                    \
        .max_threads_per_block = tpb, .max_threads_per_sm = tpsm, .max_blocks_per_sm = bpsm,       \
        .registers_per_sm = regs_sm, .max_registers_per_thread = regs_thread,                      \
        .register_allocation_unit = reg_unit, .shared_memory_per_sm = shared_sm,                   \
        .max_shared_memory_per_block = shared_block, .shared_allocation_unit = shared_unit,        \
        .reserved_shared_per_block = reserved, .registers_per_block = regs_block,                  \
        .warp_allocation_granularity = warp_granularity,                                           \
        .register_allocation_per_block = per_block,                                                \
        .default_shared_memory_per_block = shared_default                                          \
    }

static const arch_entry arch_table[] = {
    /* Tesla: the course's G80 (seed 002: 16 KB and 8 blocks per SM, 512
     * threads per block) and GT200 (GTX 280, seed 003). 128 registers per
     * thread is nvcc's -maxrregcount ceiling for sm_1x. */
    {"g80, tesla, 8800gtx", ARCH("G80 (sm_10)", 1, 0, 512, 768, 8, 8192, 8192, 128, 256, 2, 1,
                                 16 * KIB, 16 * KIB, 16 * KIB, 512, 0)},
    {"gt200, gtx280", ARCH("GT200 (sm_13)", 1, 3, 512, 1024, 8, 16384, 16384, 128, 512, 2, 1,
                           16 * KIB, 16 * KIB, 16 * KIB, 512, 0)},
    /* Fermi: 48 KB of shared memory per SM by default (16 KB when L1 is
     * preferred: model it with a smaller shared_memory_per_sm). */
    {"fermi, gtx480, gtx580", ARCH("Fermi (sm_20)", 2, 0, 1024, 1536, 8, 32768, 32768, 63, 64, 2, 0,
                                   48 * KIB, 48 * KIB, 48 * KIB, 128, 0)},
    {"gk104, gtx680", ARCH("Kepler GK104 (sm_30)", 3, 0, 1024, 2048, 16, 65536, 65536, 63, 256, 4,
                           0, 48 * KIB, 48 * KIB, 48 * KIB, 256, 0)},
    {"kepler, k20, k40", ARCH("Kepler GK110 (sm_35)", 3, 5, 1024, 2048, 16, 65536, 65536, 255, 256,
                              4, 0, 48 * KIB, 48 * KIB, 48 * KIB, 256, 0)},
    {"k80", ARCH("Kepler GK210 (sm_37)", 3, 7, 1024, 2048, 16, 131072, 65536, 255, 256, 4, 0,
                 112 * KIB, 48 * KIB, 48 * KIB, 256, 0)},
    {"gm107", ARCH("Maxwell GM107 (sm_50)", 5, 0, 1024, 2048, 32, 65536, 65536, 255, 256, 4, 0,
                   64 * KIB, 48 * KIB, 48 * KIB, 256, 0)},
    {"maxwell, gtx980, m40", ARCH("Maxwell GM204 (sm_52)", 5, 2, 1024, 2048, 32, 65536, 65536, 255,
                                  256, 4, 0, 96 * KIB, 48 * KIB, 48 * KIB, 256, 0)},
    {"pascal, p100", ARCH("Pascal GP100 (sm_60)", 6, 0, 1024, 2048, 32, 65536, 65536, 255, 256, 2,
                          0, 64 * KIB, 48 * KIB, 48 * KIB, 256, 0)},
    {"gp102, gtx1080, p40", ARCH("Pascal GP102 (sm_61)", 6, 1, 1024, 2048, 32, 65536, 65536, 255,
                                 256, 4, 0, 96 * KIB, 48 * KIB, 48 * KIB, 256, 0)},
    {"volta, v100", ARCH("Volta (sm_70)", 7, 0, 1024, 2048, 32, 65536, 65536, 255, 256, 4, 0,
                         96 * KIB, 96 * KIB, 48 * KIB, 256, 0)},
    {"turing, t4, rtx2080", ARCH("Turing (sm_75)", 7, 5, 1024, 1024, 16, 65536, 65536, 255, 256, 4,
                                 0, 64 * KIB, 64 * KIB, 48 * KIB, 256, 0)},
    {"ampere, a100", ARCH("Ampere GA100 (sm_80)", 8, 0, 1024, 2048, 32, 65536, 65536, 255, 256, 4,
                          0, 164 * KIB, 163 * KIB, 48 * KIB, 128, KIB)},
    {"ga102, rtx3090, a40", ARCH("Ampere GA102 (sm_86)", 8, 6, 1024, 1536, 16, 65536, 65536, 255,
                                 256, 4, 0, 100 * KIB, 99 * KIB, 48 * KIB, 128, KIB)},
    {"ada, l4, l40, rtx4090", ARCH("Ada (sm_89)", 8, 9, 1024, 1536, 24, 65536, 65536, 255, 256, 4,
                                   0, 100 * KIB, 99 * KIB, 48 * KIB, 128, KIB)},
    {"hopper, h100, h200", ARCH("Hopper (sm_90)", 9, 0, 1024, 2048, 32, 65536, 65536, 255, 256, 4,
                                0, 228 * KIB, 227 * KIB, 48 * KIB, 128, KIB)},
    {"blackwell, b200", ARCH("Blackwell (sm_100)", 10, 0, 1024, 2048, 32, 65536, 65536, 255, 256, 4,
                             0, 228 * KIB, 227 * KIB, 48 * KIB, 128, KIB)},
    {"rtx5090", ARCH("Blackwell GB202 (sm_120)", 12, 0, 1024, 1536, 24, 65536, 65536, 255, 256, 4,
                     0, 100 * KIB, 99 * KIB, 48 * KIB, 128, KIB)},
};

#define ARCH_COUNT (sizeof arch_table / sizeof arch_table[0])

warplab_status warplab_arch_at(size_t index, warplab_arch *arch, const char **names)
{
    if (index >= ARCH_COUNT || !arch)
        return WARPLAB_ERROR_INVALID_ARGUMENT;
    *arch = arch_table[index].arch;
    if (names)
        *names = arch_table[index].names;
    return WARPLAB_OK;
}

/* Whether name is one of the comma-separated names in list (any case). */
static bool name_in_list(const char *name, const char *list)
{
    size_t length = strlen(name);
    while (*list) {
        size_t item = strcspn(list, ",");
        if (item == length && strncasecmp(list, name, length) == 0)
            return true;
        list += item;
        while (*list == ',' || *list == ' ')
            list++;
    }
    return false;
}

/* "sm_90", "sm90", "9.0", "compute_90": a compute capability; false if the
 * text is none of these. */
static bool parse_compute_capability(const char *text, int *major, int *minor)
{
    const char *digits = text;
    if (strncasecmp(text, "sm_", 3) == 0)
        digits = text + 3;
    else if (strncasecmp(text, "sm", 2) == 0)
        digits = text + 2;
    else if (strncasecmp(text, "compute_", 8) == 0)
        digits = text + 8;
    char *end = NULL;
    if (digits != text) {
        /* sm_XY: the last digit is the minor version. */
        size_t length = strspn(digits, "0123456789");
        if (length < 2 || length > 3 || digits[length] != '\0')
            return false;
        long value = strtol(digits, &end, 10);
        *major = (int)(value / 10);
        *minor = (int)(value % 10);
        return true;
    }
    if (!strchr(text, '.') || text[0] < '0' || text[0] > '9')
        return false;
    long high = strtol(text, &end, 10);
    if (*end != '.' || end[1] < '0' || end[1] > '9')
        return false;
    long low = strtol(end + 1, &end, 10);
    if (*end != '\0' || high > 99 || low > 9)
        return false;
    *major = (int)high;
    *minor = (int)low;
    return true;
}

static void list_known_names(char *out, size_t capacity)
{
    out[0] = '\0';
    for (size_t i = 0; i < ARCH_COUNT; i++) {
        size_t first = strcspn(arch_table[i].names, ",");
        wl_append(out, capacity, "%s%.*s (sm_%d%d)", i ? ", " : "", (int)first, arch_table[i].names,
                  arch_table[i].arch.cc_major, arch_table[i].arch.cc_minor);
    }
}

warplab_status warplab_arch_by_name(const char *name, warplab_arch *arch)
{
    wl_detached_error_clear();
    if (!name || !arch)
        return wl_detached_fail(WARPLAB_ERROR_INVALID_ARGUMENT, "no architecture name given");
    int major = -1, minor = -1;
    bool is_cc = parse_compute_capability(name, &major, &minor);
    for (size_t i = 0; i < ARCH_COUNT; i++) {
        const warplab_arch *entry = &arch_table[i].arch;
        if ((is_cc && entry->cc_major == major && entry->cc_minor == minor) ||
            (!is_cc && name_in_list(name, arch_table[i].names))) {
            *arch = *entry;
            return WARPLAB_OK;
        }
    }
    char known[1024];
    list_known_names(known, sizeof known);
    return wl_detached_fail(WARPLAB_ERROR_UNKNOWN_NAME, "no architecture named '%s' (known: %s)",
                            name, known);
}

warplab_status warplab_arch_from_device(const warplab_device_info *device, warplab_arch *arch)
{
    wl_detached_error_clear();
    if (!device || !arch)
        return wl_detached_fail(WARPLAB_ERROR_INVALID_ARGUMENT, "no device given");
    if (device->cc_major <= 0)
        return wl_detached_fail(WARPLAB_ERROR_UNSUPPORTED,
                                "%s has no CUDA compute capability: occupancy is computed for "
                                "NVIDIA GPUs (name one with --arch)",
                                device->name);
    /* The granularities: the entry with this compute capability, else the
     * newest older one. */
    const int wanted = device->cc_major * 10 + device->cc_minor;
    const arch_entry *base = NULL;
    for (size_t i = 0; i < ARCH_COUNT; i++) {
        int cc = arch_table[i].arch.cc_major * 10 + arch_table[i].arch.cc_minor;
        if (cc <= wanted)
            base = &arch_table[i];
    }
    if (!base)
        return wl_detached_fail(WARPLAB_ERROR_UNSUPPORTED,
                                "compute capability %d.%d is older than any in the table",
                                device->cc_major, device->cc_minor);
    *arch = base->arch;
    wl_format(arch->name, sizeof arch->name, "%.36s (sm_%d%d)", device->name, device->cc_major,
              device->cc_minor);
    arch->cc_major = device->cc_major;
    arch->cc_minor = device->cc_minor;
    /* What the device reports wins over the table. */
    if (device->warp_size > 0)
        arch->warp_size = device->warp_size;
    if (device->max_threads_per_block > 0)
        arch->max_threads_per_block = device->max_threads_per_block;
    if (device->max_threads_per_multiprocessor > 0)
        arch->max_threads_per_sm = device->max_threads_per_multiprocessor;
    if (device->max_blocks_per_multiprocessor > 0)
        arch->max_blocks_per_sm = device->max_blocks_per_multiprocessor;
    if (device->registers_per_multiprocessor > 0)
        arch->registers_per_sm = device->registers_per_multiprocessor;
    if (device->registers_per_block > 0)
        arch->registers_per_block = device->registers_per_block;
    if (device->shared_memory_per_multiprocessor > 0)
        arch->shared_memory_per_sm = device->shared_memory_per_multiprocessor;
    if (device->shared_memory_per_block > 0) {
        arch->default_shared_memory_per_block = device->shared_memory_per_block;
        arch->max_shared_memory_per_block = device->shared_memory_per_block;
    }
    if (device->shared_memory_per_block_optin > arch->max_shared_memory_per_block)
        arch->max_shared_memory_per_block = device->shared_memory_per_block_optin;
    return WARPLAB_OK;
}

/* ------------------------------------------------------------------------ */
/* The arithmetic                                                           */

static long round_up(long value, long unit)
{
    return unit > 0 ? (value + unit - 1) / unit * unit : value;
}

static bool arch_is_usable(const warplab_arch *a)
{
    return a->warp_size > 0 && a->max_threads_per_block > 0 &&
           a->max_threads_per_sm >= a->warp_size && a->max_blocks_per_sm > 0 &&
           a->registers_per_sm > 0 && a->max_registers_per_thread > 0 &&
           a->register_allocation_unit > 0 && a->shared_allocation_unit > 0 &&
           a->warp_allocation_granularity > 0;
}

warplab_status warplab_occupancy_compute(const warplab_arch *arch, int threads_per_block,
                                         int registers_per_thread, size_t shared_per_block,
                                         warplab_occupancy *result)
{
    wl_detached_error_clear();
    if (!arch || !result)
        return wl_detached_fail(WARPLAB_ERROR_INVALID_ARGUMENT, "no architecture or result given");
    if (!arch_is_usable(arch))
        return wl_detached_fail(WARPLAB_ERROR_INVALID_ARGUMENT,
                                "the architecture '%s' lacks a limit (warp size, threads, blocks, "
                                "registers or allocation units are 0)",
                                arch->name);
    if (threads_per_block < 1 || threads_per_block > arch->max_threads_per_block)
        return wl_detached_fail(WARPLAB_ERROR_INVALID_ARGUMENT,
                                "a block of %d threads cannot run on %s: blocks hold 1 to %d "
                                "threads",
                                threads_per_block, arch->name, arch->max_threads_per_block);
    if (registers_per_thread < 0 || registers_per_thread > arch->max_registers_per_thread)
        return wl_detached_fail(WARPLAB_ERROR_INVALID_ARGUMENT,
                                "%d registers per thread: %s allows 0 to %d", registers_per_thread,
                                arch->name, arch->max_registers_per_thread);
    if (shared_per_block > arch->max_shared_memory_per_block)
        return wl_detached_fail(WARPLAB_ERROR_INVALID_ARGUMENT,
                                "%zu bytes of shared memory per block: %s allows at most %zu",
                                shared_per_block, arch->name, arch->max_shared_memory_per_block);

    warplab_occupancy r;
    memset(&r, 0, sizeof r);
    const int warp = arch->warp_size, granularity = arch->warp_allocation_granularity;
    r.warps_per_block = (threads_per_block + warp - 1) / warp;
    r.max_warps_per_sm = arch->max_threads_per_sm / warp;
    r.blocks_by_threads = r.max_warps_per_sm / r.warps_per_block;
    r.blocks_by_blocks = arch->max_blocks_per_sm;

    /* Registers. */
    r.blocks_by_registers = INT_MAX;
    if (registers_per_thread > 0) {
        const long unit = arch->register_allocation_unit;
        const long limit_per_block =
            arch->registers_per_block > 0 ? arch->registers_per_block : arch->registers_per_sm;
        const long grouped_warps = round_up(r.warps_per_block, granularity);
        long per_block, checked_per_block;
        if (arch->register_allocation_per_block) {
            per_block = round_up(grouped_warps * warp * registers_per_thread, unit);
            checked_per_block = per_block;
            r.blocks_by_registers = (int)(arch->registers_per_sm / per_block);
        } else {
            const long per_warp = round_up((long)registers_per_thread * warp, unit);
            per_block = per_warp * r.warps_per_block;
            /* The launch check counts the warps rounded up to the granularity. */
            checked_per_block = per_warp * grouped_warps;
            long warps = arch->registers_per_sm / per_warp;
            warps -= warps % granularity;
            r.blocks_by_registers = (int)(warps / r.warps_per_block);
        }
        r.registers_per_block = (int)per_block;
        if (checked_per_block > limit_per_block)
            return wl_detached_fail(WARPLAB_ERROR_INVALID_ARGUMENT,
                                    "%d threads x %d registers need %ld registers per block: %s "
                                    "gives a block at most %ld",
                                    threads_per_block, registers_per_thread, checked_per_block,
                                    arch->name, limit_per_block);
    }

    /* Shared memory: what the block uses plus what the runtime reserves. */
    r.blocks_by_shared = INT_MAX;
    const size_t used = shared_per_block + arch->reserved_shared_per_block;
    const size_t unit = arch->shared_allocation_unit;
    r.shared_per_block = (used + unit - 1) / unit * unit;
    if (r.shared_per_block > 0) {
        size_t blocks = arch->shared_memory_per_sm / r.shared_per_block;
        r.blocks_by_shared = blocks > INT_MAX ? INT_MAX : (int)blocks;
    }

    const int by[WARPLAB_LIMIT_COUNT] = {r.blocks_by_threads, r.blocks_by_blocks,
                                         r.blocks_by_registers, r.blocks_by_shared};
    r.limit = WARPLAB_LIMIT_THREADS;
    for (int i = 1; i < WARPLAB_LIMIT_COUNT; i++)
        if (by[i] < by[r.limit])
            r.limit = (warplab_occupancy_limit)i;
    r.blocks_per_sm = by[r.limit];
    if (r.blocks_per_sm < 1)
        return wl_detached_fail(WARPLAB_ERROR_INVALID_ARGUMENT,
                                "a block of %d threads, %d registers per thread and %zu bytes of "
                                "shared memory does not fit on one %s SM (%s)",
                                threads_per_block, registers_per_thread, shared_per_block,
                                arch->name, warplab_occupancy_limit_name(r.limit));
    r.warps_per_sm = r.blocks_per_sm * r.warps_per_block;
    r.threads_per_sm = r.blocks_per_sm * threads_per_block;
    r.occupancy = (double)r.warps_per_sm / (double)r.max_warps_per_sm;
    *result = r;
    return WARPLAB_OK;
}
