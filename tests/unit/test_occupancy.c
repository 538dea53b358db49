/* The occupancy arithmetic against the course's worked examples (seed 000,
 * seed 002) and against cases computed by hand for Ampere and Hopper, plus
 * the architecture table, the device override and the invalid inputs. */
#include "../check.h"
#include "internal.h"

#include "warplab_lab.h"
#include <limits.h>
#include <string.h>

static warplab_arch arch_named(const char *name)
{
    warplab_arch arch;
    memset(&arch, 0, sizeof arch);
    warplab_status status = warplab_arch_by_name(name, &arch);
    CHECK_MSG(status == WARPLAB_OK, "warplab_arch_by_name(%s): %s", name, warplab_last_error(NULL));
    return arch;
}

/* Runs the arithmetic and checks blocks, threads and the binding limit. */
static warplab_occupancy expect(const warplab_arch *arch, int threads, int registers, size_t shared,
                                int blocks, int threads_per_sm, warplab_occupancy_limit limit)
{
    warplab_occupancy r;
    memset(&r, 0, sizeof r);
    warplab_status status = warplab_occupancy_compute(arch, threads, registers, shared, &r);
    CHECK_MSG(status == WARPLAB_OK, "%s, %d threads, %d registers, %zu bytes: %s", arch->name,
              threads, registers, shared, warplab_last_error(NULL));
    CHECK_MSG(r.blocks_per_sm == blocks,
              "%s, %d threads, %d registers, %zu bytes: %d blocks, "
              "expected %d",
              arch->name, threads, registers, shared, r.blocks_per_sm, blocks);
    CHECK_MSG(r.threads_per_sm == threads_per_sm, "%s, %d threads: %d threads per SM, expected %d",
              arch->name, threads, r.threads_per_sm, threads_per_sm);
    CHECK_MSG(r.limit == limit,
              "%s, %d threads, %d registers, %zu bytes: '%s' binds, expected '%s'", arch->name,
              threads, registers, shared, warplab_occupancy_limit_name(r.limit),
              warplab_occupancy_limit_name(limit));
    CHECK(r.warps_per_sm == r.blocks_per_sm * r.warps_per_block);
    return r;
}

static void expect_invalid(const warplab_arch *arch, int threads, int registers, size_t shared)
{
    warplab_occupancy r;
    memset(&r, 0x5A, sizeof r);
    warplab_occupancy before = r;
    warplab_status status = warplab_occupancy_compute(arch, threads, registers, shared, &r);
    CHECK_MSG(status == WARPLAB_ERROR_INVALID_ARGUMENT,
              "%s, %d threads, %d registers, %zu bytes: status %s, expected invalid argument",
              arch->name, threads, registers, shared, warplab_status_string(status));
    CHECK_MSG(memcmp(&r, &before, sizeof r) == 0, "a failed call wrote its result");
    CHECK_MSG(warplab_last_error(NULL)[0] != '\0', "no reason given for %d threads", threads);
}

/* seed 000, 'Block Granularity Considerations': 8x8, 16x16, 32x32 on Fermi. */
static void test_course_block_granularity(void)
{
    warplab_arch fermi = arch_named("fermi");
    CHECK(fermi.max_threads_per_sm == 1536);
    CHECK(fermi.max_blocks_per_sm == 8);
    CHECK(fermi.registers_per_sm == 32768);
    CHECK(fermi.shared_memory_per_sm == 48 * 1024);

    /* "For 8x8 ... 24 Blocks. However, each SM can only take up to 8 Blocks,
     * only 512 threads will go into each SM!" */
    warplab_occupancy r = expect(&fermi, 8 * 8, 0, 0, 8, 512, WARPLAB_LIMIT_BLOCKS);
    CHECK(r.blocks_by_threads == 24);
    CHECK(r.blocks_by_blocks == 8);
    CHECK(r.blocks_by_registers == INT_MAX && r.blocks_by_shared == INT_MAX);
    CHECK(r.warps_per_sm == 16);
    CHECK_NEAR(r.occupancy, 1.0 / 3.0, 1e-12);

    /* "for 16x16 ... up to 6 Blocks and achieve full capacity" */
    r = expect(&fermi, 16 * 16, 0, 0, 6, 1536, WARPLAB_LIMIT_THREADS);
    CHECK(r.warps_per_sm == 48);
    CHECK_NEAR(r.occupancy, 1.0, 1e-12);

    /* "For 32x32 ... Only one block ... 2/3 of the thread capacity" */
    r = expect(&fermi, 32 * 32, 0, 0, 1, 1024, WARPLAB_LIMIT_THREADS);
    CHECK_NEAR(r.occupancy, 2.0 / 3.0, 1e-12);

    /* 'Thread Scheduling': "256 (threads/block) * 6 blocks or 512 * 3 blocks" */
    expect(&fermi, 512, 0, 0, 3, 1536, WARPLAB_LIMIT_THREADS);
}

/* seed 000, 'Warp Example': 3 blocks of 256 threads are 24 warps. Three
 * blocks of 256 threads happen on Fermi when each block takes 16 KB of its
 * 48 KB of shared memory. */
static void test_course_warp_example(void)
{
    warplab_arch fermi = arch_named("fermi");
    warplab_occupancy r = expect(&fermi, 256, 0, 16 * 1024, 3, 768, WARPLAB_LIMIT_SHARED_MEMORY);
    CHECK(r.warps_per_block == 8);
    CHECK(r.warps_per_sm == 24);
}

/* seed 000, 'Shared Memory and Threading' (and seed 002 for G80). */
static void test_course_tile_width(void)
{
    /* Fermi with its 16 KB shared-memory configuration. */
    warplab_arch fermi16 = arch_named("fermi");
    fermi16.shared_memory_per_sm = 16 * 1024;

    /* "TILE_WIDTH = 16, each thread block uses 2 * 256 * 4B = 2KB ... For 16K
     * shared memory, one can potentially have up to 8 thread blocks": shared
     * memory allows 8; the 1536 threads allow 6 of 256 threads. */
    const size_t tile16 = 2 * 16 * 16 * 4;
    CHECK(tile16 == 2048);
    warplab_occupancy r = expect(&fermi16, 16 * 16, 0, tile16, 6, 1536, WARPLAB_LIMIT_THREADS);
    CHECK(r.blocks_by_shared == 8);
    CHECK(r.shared_per_block == 2048);

    /* "TILE_WIDTH 32 would lead to 2 * 32 * 32 * 4 Byte = 8K Byte shared memory
     * usage per thread block, allowing 2 thread blocks active at the same time
     * (Fermi SM thread count limitation!)": shared memory allows 2, and the
     * thread count cuts that to 1 block of 1024 threads. */
    const size_t tile32 = 2 * 32 * 32 * 4;
    CHECK(tile32 == 8192);
    r = expect(&fermi16, 32 * 32, 0, tile32, 1, 1024, WARPLAB_LIMIT_THREADS);
    CHECK(r.blocks_by_shared == 2);
    CHECK(r.blocks_by_threads == 1);

    /* With the default 48 KB: the 16x16 tile allows 24 blocks by shared memory. */
    warplab_arch fermi = arch_named("fermi");
    r = expect(&fermi, 256, 0, tile16, 6, 1536, WARPLAB_LIMIT_THREADS);
    CHECK(r.blocks_by_shared == 24);

    /* seed 002 on G80: "16KB/SM and 8 blocks/SM, 2KB/block, TILE_WIDTH = 16":
     * shared memory and the block limit allow 8, but G80 holds 768 threads:
     * 3 blocks of 256. */
    warplab_arch g80 = arch_named("g80");
    CHECK(g80.max_threads_per_sm == 768 && g80.max_threads_per_block == 512);
    r = expect(&g80, 256, 0, tile16, 3, 768, WARPLAB_LIMIT_THREADS);
    CHECK(r.blocks_by_shared == 8);
    /* ... and a 32x32 tile does not fit a G80 block (512 threads at most). */
    expect_invalid(&g80, 1024, 0, tile32);
}

/* Cases worked by hand for today's GPUs. */
static void test_modern_by_hand(void)
{
    warplab_arch hopper = arch_named("hopper");
    CHECK(hopper.cc_major == 9 && hopper.cc_minor == 0);
    CHECK(hopper.shared_memory_per_sm == 228 * 1024);
    CHECK(hopper.max_shared_memory_per_block == 227 * 1024);
    CHECK(hopper.reserved_shared_per_block == 1024);

    /* 255 registers x 256 threads: 255 x 32 = 8160 -> 8192 registers per warp;
     * 65536 / 8192 = 8 warps = one block of 8 warps; 8 of 64 warps. */
    warplab_occupancy r = expect(&hopper, 256, 255, 0, 1, 256, WARPLAB_LIMIT_REGISTERS);
    CHECK(r.registers_per_block == 65536);
    CHECK(r.warps_per_sm == 8);
    CHECK_NEAR(r.occupancy, 0.125, 1e-12);
    /* ... and 288 threads (9 warps, 12 for the launch check) cannot launch. */
    expect_invalid(&hopper, 288, 255, 0);
    expect_invalid(&hopper, 512, 255, 0);

    /* 48 registers x 64 threads: 1536 registers per warp; 65536 / 1536 = 42
     * warps, 40 in whole sub-partitions (4 x 10); 40 / 2 = 20 blocks (a
     * calculator without sub-partitions would say 21). */
    r = expect(&hopper, 64, 48, 0, 20, 1280, WARPLAB_LIMIT_REGISTERS);
    CHECK(r.blocks_by_threads == 32);

    /* 100 KB of dynamic shared memory: 102400 + 1024 reserved = 103424 bytes
     * (a multiple of 128); 233472 / 103424 = 2 blocks. */
    r = expect(&hopper, 128, 32, 100 * 1024, 2, 256, WARPLAB_LIMIT_SHARED_MEMORY);
    CHECK(r.shared_per_block == 103424);
    /* The largest block: 227 KB + 1 KB reserved = the whole 228 KB, one
     * block (threads would allow 2). */
    r = expect(&hopper, 1024, 32, 227 * 1024, 1, 1024, WARPLAB_LIMIT_SHARED_MEMORY);
    CHECK(r.blocks_by_threads == 2 && r.shared_per_block == 228 * 1024);
    expect_invalid(&hopper, 128, 0, 227 * 1024 + 1);

    /* Even a block without shared memory takes the 1 KiB reservation. */
    r = expect(&hopper, 32, 0, 0, 32, 1024, WARPLAB_LIMIT_BLOCKS);
    CHECK(r.blocks_by_shared == 228);

    warplab_arch a100 = arch_named("ampere");
    CHECK(a100.cc_major == 8 && a100.cc_minor == 0);
    /* 128 threads, 32 registers, 48 KB: 49152 + 1024 = 50176 bytes per block;
     * 167936 / 50176 = 3 blocks (registers would allow 16, threads 16). */
    r = expect(&a100, 128, 32, 48 * 1024, 3, 384, WARPLAB_LIMIT_SHARED_MEMORY);
    CHECK(r.blocks_by_registers == 16);
    CHECK(r.blocks_by_threads == 16);
    CHECK_NEAR(r.occupancy, 12.0 / 64.0, 1e-12);
    /* 256 threads x 64 registers: 2048 per warp, 32 warps fit: 4 blocks, 50%. */
    r = expect(&a100, 256, 64, 0, 4, 1024, WARPLAB_LIMIT_REGISTERS);
    CHECK_NEAR(r.occupancy, 0.5, 1e-12);

    /* GA102 (sm_86): 1536 threads and 16 blocks per SM: 64-thread blocks are
     * held to 16 by the block limit (threads would allow 24). */
    warplab_arch ga102 = arch_named("sm_86");
    r = expect(&ga102, 64, 0, 0, 16, 1024, WARPLAB_LIMIT_BLOCKS);
    CHECK(r.blocks_by_threads == 24);
    CHECK_NEAR(r.occupancy, 32.0 / 48.0, 1e-12);

    /* Volta rounds shared memory to 256 bytes and reserves nothing: 1000
     * bytes take 1024, 96 KB / 1 KB = 96 blocks by shared memory. */
    warplab_arch volta = arch_named("volta");
    r = expect(&volta, 32, 0, 1000, 32, 1024, WARPLAB_LIMIT_BLOCKS);
    CHECK(r.shared_per_block == 1024);
    CHECK(r.blocks_by_shared == 96);

    /* Turing: 1024 threads per SM, so one 1024-thread block is 100%. */
    warplab_arch turing = arch_named("turing");
    r = expect(&turing, 1024, 0, 0, 1, 1024, WARPLAB_LIMIT_THREADS);
    CHECK_NEAR(r.occupancy, 1.0, 1e-12);

    /* Fermi's registers go per warp in units of 64, two warps at a time: 21
     * registers x 32 = 672 -> 704 per warp; 32768 / 704 = 46 warps (even);
     * 256-thread blocks (8 warps): 5 blocks by registers. */
    warplab_arch fermi = arch_named("fermi");
    r = expect(&fermi, 256, 21, 0, 5, 1280, WARPLAB_LIMIT_REGISTERS);
    CHECK(r.registers_per_block == 704 * 8);

    /* G80 allocates registers per block: 10 registers x 256 threads = 2560 ->
     * 2560 (a multiple of 256); 8192 / 2560 = 3 blocks; 11 registers: 2816 ->
     * 2816; 8192 / 2816 = 2 blocks. */
    warplab_arch g80 = arch_named("g80");
    expect(&g80, 256, 10, 0, 3, 768, WARPLAB_LIMIT_THREADS);
    r = expect(&g80, 256, 11, 0, 2, 512, WARPLAB_LIMIT_REGISTERS);
    CHECK(r.registers_per_block == 2816);
    /* 96 threads = 3 warps, allocated as 4: 4 x 32 x 10 = 1280 registers. */
    r = expect(&g80, 96, 10, 0, 6, 576, WARPLAB_LIMIT_REGISTERS);
    CHECK(r.registers_per_block == 1280);
}

static void test_invalid_inputs(void)
{
    warplab_arch hopper = arch_named("hopper");
    warplab_arch fermi = arch_named("fermi");
    warplab_occupancy r;
    expect_invalid(&hopper, 0, 0, 0);
    expect_invalid(&hopper, -32, 0, 0);
    expect_invalid(&hopper, 1025, 0, 0);
    expect_invalid(&hopper, 256, 256, 0);
    expect_invalid(&hopper, 256, -1, 0);
    expect_invalid(&hopper, 256, 0, 228 * 1024);
    expect_invalid(&fermi, 256, 64, 0);  /* Fermi: 63 registers at most */
    expect_invalid(&fermi, 1024, 40, 0); /* 1024 x 40 > 32768 registers */
    expect_invalid(&fermi, 256, 0, 48 * 1024 + 1);
    /* A shared-memory configuration smaller than the block's need. */
    warplab_arch small = fermi;
    small.shared_memory_per_sm = 16 * 1024;
    expect_invalid(&small, 256, 0, 20 * 1024);
    /* An architecture with a missing limit. */
    warplab_arch broken = hopper;
    broken.warp_size = 0;
    expect_invalid(&broken, 256, 0, 0);
    CHECK(warplab_occupancy_compute(NULL, 256, 0, 0, &r) == WARPLAB_ERROR_INVALID_ARGUMENT);
    CHECK(warplab_occupancy_compute(&hopper, 256, 0, 0, NULL) == WARPLAB_ERROR_INVALID_ARGUMENT);
    /* A success clears the last reason. */
    CHECK(warplab_occupancy_compute(&hopper, 256, 0, 0, &r) == WARPLAB_OK);
    CHECK_STR(warplab_last_error(NULL), "");
}

static void test_names_and_table(void)
{
    static const struct {
        const char *name;
        int major, minor;
    } names[] = {{"fermi", 2, 0},   {"Fermi", 2, 0},      {"sm_20", 2, 0},  {"2.0", 2, 0},
                 {"kepler", 3, 5},  {"k40", 3, 5},        {"sm_35", 3, 5},  {"maxwell", 5, 2},
                 {"pascal", 6, 0},  {"volta", 7, 0},      {"turing", 7, 5}, {"ampere", 8, 0},
                 {"sm_86", 8, 6},   {"ada", 8, 9},        {"hopper", 9, 0}, {"H100", 9, 0},
                 {"sm_90", 9, 0},   {"9.0", 9, 0},        {"sm90", 9, 0},   {"compute_90", 9, 0},
                 {"sm_100", 10, 0}, {"blackwell", 10, 0}, {"g80", 1, 0},    {"gtx280", 1, 3}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        warplab_arch arch;
        warplab_status status = warplab_arch_by_name(names[i].name, &arch);
        CHECK_MSG(status == WARPLAB_OK && arch.cc_major == names[i].major &&
                      arch.cc_minor == names[i].minor,
                  "'%s' -> %s %d.%d", names[i].name, warplab_status_string(status), arch.cc_major,
                  arch.cc_minor);
    }
    const char *unknown[] = {"", "sm_99", "9.9", "radeon", "sm_", "sm_9", "9.", ".9", "fermi2"};
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        warplab_arch arch;
        CHECK_MSG(warplab_arch_by_name(unknown[i], &arch) == WARPLAB_ERROR_UNKNOWN_NAME, "'%s'",
                  unknown[i]);
        CHECK(strstr(warplab_last_error(NULL), "hopper") != NULL);
    }
    warplab_arch arch;
    CHECK(warplab_arch_by_name(NULL, &arch) == WARPLAB_ERROR_INVALID_ARGUMENT);
    CHECK(warplab_arch_by_name("fermi", NULL) == WARPLAB_ERROR_INVALID_ARGUMENT);

    /* Every entry of the table is usable, oldest first, and the names it
     * lists find it again. */
    size_t count = 0;
    int previous = 0;
    const char *list = NULL;
    for (; warplab_arch_at(count, &arch, &list) == WARPLAB_OK; count++) {
        int cc = arch.cc_major * 10 + arch.cc_minor;
        CHECK_MSG(cc > previous, "%s out of order", arch.name);
        previous = cc;
        CHECK(arch.warp_size == 32);
        CHECK(arch.max_threads_per_sm % arch.warp_size == 0);
        CHECK(arch.max_shared_memory_per_block + arch.reserved_shared_per_block <=
              arch.shared_memory_per_sm);
        CHECK(arch.default_shared_memory_per_block <= arch.max_shared_memory_per_block);
        CHECK(arch.registers_per_block <= arch.registers_per_sm);
        CHECK(list && *list);
        char first[32];
        size_t length = strcspn(list, ",");
        CHECK(length < sizeof first);
        memcpy(first, list, length);
        first[length] = '\0';
        warplab_arch again;
        CHECK_MSG(warplab_arch_by_name(first, &again) == WARPLAB_OK &&
                      memcmp(&again, &arch, sizeof arch) == 0,
                  "'%s' does not find %s", first, arch.name);
        /* One warp of the most registers and shared memory runs everywhere. */
        warplab_occupancy r;
        CHECK_MSG(warplab_occupancy_compute(&arch, 32, arch.max_registers_per_thread,
                                            arch.max_shared_memory_per_block, &r) == WARPLAB_OK,
                  "%s: %s", arch.name, warplab_last_error(NULL));
    }
    CHECK(count >= 9);
    CHECK(warplab_arch_at(count, &arch, NULL) == WARPLAB_ERROR_INVALID_ARGUMENT);

    for (int limit = 0; limit < WARPLAB_LIMIT_COUNT; limit++)
        CHECK(strcmp(warplab_occupancy_limit_name((warplab_occupancy_limit)limit), "unknown") != 0);
    CHECK_STR(warplab_occupancy_limit_name(WARPLAB_LIMIT_SHARED_MEMORY), "shared memory");
}

static warplab_device_info h100_device(void)
{
    warplab_device_info d;
    memset(&d, 0, sizeof d);
    d.backend = WARPLAB_BACKEND_CUDA;
    d.gpu = 1;
    strcpy(d.name, "NVIDIA H100 80GB HBM3");
    d.cc_major = 9;
    d.cc_minor = 0;
    d.warp_size = 32;
    d.max_threads_per_block = 1024;
    d.max_threads_per_multiprocessor = 2048;
    d.max_blocks_per_multiprocessor = 32;
    d.registers_per_block = 65536;
    d.registers_per_multiprocessor = 65536;
    d.shared_memory_per_block = 49152;
    d.shared_memory_per_block_optin = 232448;
    d.shared_memory_per_multiprocessor = 233472;
    return d;
}

static void test_from_device(void)
{
    /* An H100's reported limits give the table's Hopper. */
    warplab_device_info d = h100_device();
    warplab_arch from_device, hopper = arch_named("hopper");
    CHECK(warplab_arch_from_device(&d, &from_device) == WARPLAB_OK);
    CHECK(strstr(from_device.name, "H100") != NULL);
    CHECK(from_device.max_threads_per_sm == hopper.max_threads_per_sm);
    CHECK(from_device.max_blocks_per_sm == hopper.max_blocks_per_sm);
    CHECK(from_device.registers_per_sm == hopper.registers_per_sm);
    CHECK(from_device.shared_memory_per_sm == hopper.shared_memory_per_sm);
    CHECK(from_device.max_shared_memory_per_block == hopper.max_shared_memory_per_block);
    CHECK(from_device.default_shared_memory_per_block == 49152);
    CHECK(from_device.register_allocation_unit == 256);
    CHECK(from_device.reserved_shared_per_block == 1024);

    /* Reported limits override the table. */
    d.max_blocks_per_multiprocessor = 24;
    d.shared_memory_per_multiprocessor = 100 * 1024;
    CHECK(warplab_arch_from_device(&d, &from_device) == WARPLAB_OK);
    CHECK(from_device.max_blocks_per_sm == 24);
    CHECK(from_device.shared_memory_per_sm == 100 * 1024);
    expect(&from_device, 32, 0, 0, 24, 768, WARPLAB_LIMIT_BLOCKS);

    /* A compute capability the table lacks (8.7, Orin) takes the newest older
     * entry's granularities (sm_86) and its own limits. */
    d = h100_device();
    d.cc_major = 8;
    d.cc_minor = 7;
    d.max_threads_per_multiprocessor = 1536;
    d.max_blocks_per_multiprocessor = 16;
    d.shared_memory_per_multiprocessor = 167936;
    d.shared_memory_per_block_optin = 166912;
    CHECK(warplab_arch_from_device(&d, &from_device) == WARPLAB_OK);
    CHECK(from_device.cc_major == 8 && from_device.cc_minor == 7);
    CHECK(from_device.shared_allocation_unit == 128 &&
          from_device.reserved_shared_per_block == 1024);
    CHECK(from_device.shared_memory_per_sm == 167936);
    CHECK(from_device.max_threads_per_sm == 1536);

    /* A future GPU past the table still gets an answer from its limits. */
    d = h100_device();
    d.cc_major = 13;
    CHECK(warplab_arch_from_device(&d, &from_device) == WARPLAB_OK);
    CHECK(from_device.cc_major == 13);

    /* No compute capability: a CPU, or an OpenCL device of another vendor. */
    warplab_device_info cpu;
    memset(&cpu, 0, sizeof cpu);
    strcpy(cpu.name, "host CPU");
    cpu.backend = WARPLAB_BACKEND_CPU;
    CHECK(warplab_arch_from_device(&cpu, &from_device) == WARPLAB_ERROR_UNSUPPORTED);
    CHECK(strstr(warplab_last_error(NULL), "host CPU") != NULL);
    CHECK(warplab_arch_from_device(NULL, &from_device) == WARPLAB_ERROR_INVALID_ARGUMENT);
    CHECK(warplab_arch_from_device(&d, NULL) == WARPLAB_ERROR_INVALID_ARGUMENT);
}

int main(void)
{
    test_course_block_granularity();
    test_course_warp_example();
    test_course_tile_width();
    test_modern_by_hand();
    test_invalid_inputs();
    test_names_and_table();
    test_from_device();
    return check_report("test_occupancy");
}
