/* The probes' one-line conclusions are computed from the numbers: synthetic
 * results in, the expected sentence out. Also the registry and the small
 * helpers the probe definitions share. */
#include "../../src/lab/probes/probe.h"
#include "../../src/lab/probes/probe_kernels.h"
#include "../check.h"

#include "warplab_lab.h"
#include <stdlib.h>
#include <string.h>

#define MAX_POINTS 96

typedef struct synthetic {
    warplab_report report;
    warplab_row rows[MAX_POINTS];
    warplab_probe_point points[MAX_POINTS];
    warplab_probe_result result;
} synthetic;

static void start(synthetic *s, const char *probe)
{
    memset(s, 0, sizeof *s);
    s->report.rows = s->rows;
    s->result.report = &s->report;
    s->result.points = s->points;
    wl_copy_string(s->result.probe, sizeof s->result.probe, probe);
}

/* A measured point: the series' figure at x. */
static warplab_probe_point *add(synthetic *s, const char *ladder, const char *series, double x,
                                double value)
{
    size_t i = s->report.row_count++;
    warplab_row *row = &s->rows[i];
    wl_copy_string(row->ladder, sizeof row->ladder, ladder);
    wl_copy_string(row->rung, sizeof row->rung, series);
    row->size = x;
    row->runs = 5;
    row->median_ms = row->min_ms = row->max_ms = 1.0;
    s->points[i].x = x;
    s->points[i].value = value;
    return &s->points[i];
}

/* A point that ran and failed its check: no figure. */
static void add_failed(synthetic *s, const char *ladder, const char *series, double x)
{
    add(s, ladder, series, x, 0.0);
    s->rows[s->report.row_count - 1].flags = WARPLAB_ROW_FAILED;
    s->rows[s->report.row_count - 1].runs = 0;
}

static void conclude(synthetic *s, char *text, size_t len)
{
    const wl_probe *probe = wl_probe_find(s->result.probe);
    CHECK_MSG(probe != NULL, "no probe %s", s->result.probe);
    text[0] = '\0';
    if (probe)
        probe->conclude(&s->result, text, len);
    printf("%s: %s\n", s->result.probe, text);
}

#define CHECK_HAS(text, part)                                                                      \
    CHECK_MSG(strstr((text), (part)) != NULL, "'%s' lacks '%s'", text, part)

static void test_coalescing(void)
{
    static synthetic s;
    start(&s, "coalescing");
    for (int x = 0; x <= 32; x++)
        add(&s, "coalescing", "offset", x, x == 1 ? 50.0 : x == 5 ? 40.0 : 100.0);
    add(&s, "coalescing", "stride", 1, 200.0);
    add(&s, "coalescing", "stride", 2, 100.0);
    add(&s, "coalescing", "stride", 4, 50.0);
    add(&s, "coalescing", "stride", 32, 10.0);
    char text[512];
    conclude(&s, text, sizeof text);
    CHECK_HAS(text, "offset 1: 0.50x of offset 0 (worst offset 5: 0.40x)");
    CHECK_HAS(text, "stride 2: 0.50x of stride 1, stride 4: 0.25x, stride 32: 0.05x");

    /* A failed point is no number: its ratio reads n/a. */
    start(&s, "coalescing");
    add(&s, "coalescing", "offset", 0, 100.0);
    add(&s, "coalescing", "offset", 1, 99.0);
    add(&s, "coalescing", "stride", 1, 100.0);
    add_failed(&s, "coalescing", "stride", 2);
    conclude(&s, text, sizeof text);
    CHECK_HAS(text, "offset 1: 0.99x of offset 0");
    CHECK_HAS(text, "stride 2: n/a of stride 1");
}

static void test_banks(void)
{
    static synthetic s;
    start(&s, "banks");
    add(&s, "banks", "word4", 0, 100.0);
    add(&s, "banks", "word4", 1, 100.0);
    add(&s, "banks", "word4", 2, 50.0);
    add(&s, "banks", "word4", 3, 98.0);
    add(&s, "banks", "word4", 4, 25.0);
    add(&s, "banks", "word4", 5, 101.0);
    add(&s, "banks", "word4", 32, 3.125);
    char text[512];
    conclude(&s, text, sizeof text);
    CHECK_HAS(text, "4-byte words against stride 1: stride 2 at 0.50x, stride 4 at 0.25x, "
                    "stride 32 at 0.03x, odd strides at 0.98x to 1.01x, broadcast at 1.00x");
    CHECK_HAS(text, "8-byte words against stride 1: stride 2 at n/a");
}

static void test_divergence(void)
{
    static synthetic s;
    start(&s, "divergence");
    add(&s, "divergence", "lane", 1, 100.0);
    add(&s, "divergence", "lane", 2, 50.0);
    add(&s, "divergence", "lane", 32, 3.2);
    add(&s, "divergence", "warp", 1, 100.0);
    add(&s, "divergence", "warp", 32, 99.0);
    add(&s, "divergence", "block", 1, 100.0);
    add(&s, "divergence", "block", 32, 100.0);
    char text[512];
    conclude(&s, text, sizeof text);
    CHECK_HAS(text, "inside every warp (threadIdx.x) 0.03x, across warps (warp index) 0.99x, "
                    "across blocks (blockIdx.x) 1.00x");
    CHECK_HAS(text, "2 paths inside a warp: 0.50x");
}

static void test_atomics(void)
{
    static synthetic s;
    start(&s, "atomics");
    add(&s, "atomics", "global_int", 1, 100.0);
    add(&s, "atomics", "global_int", 1024, 1.0);
    add(&s, "atomics", "global_float", 1, 100.0);
    add(&s, "atomics", "global_float", 4, 50.0);
    add(&s, "atomics", "global_float", 1024, 2.0);
    add(&s, "atomics", "shared_int", 1024, 10.0);
    add(&s, "atomics", "cas_float", 1, 50.0);
    add(&s, "atomics", "cas_float", 4, 5.0);
    char text[512];
    conclude(&s, text, sizeof text);
    CHECK_HAS(text, "global int 0.01x, global float 0.02x");
    CHECK_HAS(text, "shared-memory staging 10.00x the global int rate");
    CHECK_HAS(text, "the CAS loop at 4 threads per address 0.10x of atomicAdd(float)");

    /* No float atomics (OpenCL 1.2): the CAS loop is set against the int add. */
    start(&s, "atomics");
    add(&s, "atomics", "global_int", 1, 100.0);
    add(&s, "atomics", "global_int", 16, 40.0);
    add(&s, "atomics", "cas_float", 16, 4.0);
    conclude(&s, text, sizeof text);
    CHECK_MSG(strstr(text, "global float") == NULL, "'%s' mentions a missing series", text);
    CHECK_HAS(text, "the CAS loop at 16 threads per address 0.10x of atomicAdd(int)");

    /* The functions section: each against add at 32 and at the most threads
     * per address measured; a function missing at one point says n/a. */
    start(&s, "atomics");
    add(&s, "atomics", "global_int", 1, 100.0);
    add(&s, "atomic_functions", "add", 32, 10.0);
    add(&s, "atomic_functions", "add", 4096, 2.0);
    add(&s, "atomic_functions", "sub", 32, 10.0);
    add(&s, "atomic_functions", "sub", 4096, 1.0);
    add(&s, "atomic_functions", "exch", 4096, 4.0);
    conclude(&s, text, sizeof text);
    CHECK_HAS(text, "against add at 32 / all threads per address: sub 1.00/0.50x, exch n/a/2.00x");
}

static void test_intrinsics(void)
{
    static synthetic s;
    start(&s, "intrinsics");
    warplab_probe_point *p = add(&s, "intrinsics", "sinf", 0, 100.0);
    p->error = 1.1e-7;
    wl_copy_string(p->error_kind, sizeof p->error_kind, "abs");
    p = add(&s, "intrinsics", "__sinf", 0, 800.0);
    p->error = 3.3e-7;
    wl_copy_string(p->error_kind, sizeof p->error_kind, "abs");
    add(&s, "intrinsics", "div_mod", 0, 10.0);
    add(&s, "intrinsics", "shift_mask", 0, 40.0);
    char text[512];
    conclude(&s, text, sizeof text);
    CHECK_HAS(text, "__sinf 8.00x the rate of sinf (largest abs error 3.3e-07 against 1.1e-07)");
    CHECK_HAS(text, "; shift_mask 4.00x the rate of division and modulo");
    CHECK_MSG(strstr(text, "__expf") == NULL, "'%s' names a series with no point", text);
}

static void test_unroll(void)
{
    static synthetic s;
    start(&s, "unroll");
    add(&s, "unroll", "rolled", 0, 10.0);
    add(&s, "unroll", "compiler", 0, 20.0);
    add(&s, "unroll", "pragma", 0, 30.0);
    add(&s, "unroll", "by_hand", 0, 25.0);
    char text[512];
    conclude(&s, text, sizeof text);
    CHECK_HAS(text, "#pragma unroll 3.00x, by hand (4 per trip) 2.50x, the compiler on its own "
                    "2.00x");
}

static void test_blocksize(void)
{
    static synthetic s;
    start(&s, "blocksize");
    warplab_probe_point *p = add(&s, "blocksize", "per_element", 32, 1000.0);
    wl_copy_string(p->annotation, sizeof p->annotation, "32 blocks/SM = 50% (blocks)");
    add(&s, "blocksize", "per_element", 512, 3000.0);
    add(&s, "blocksize", "sm_x1", 32, 100.0);
    add(&s, "blocksize", "sm_x1", 1024, 1500.0);
    char text[512];
    conclude(&s, text, sizeof text);
    CHECK_HAS(text, "best: block 512 (per_element) at 3000 GB/s");
    CHECK_HAS(text, "block 32: 0.33x (predicted 32 blocks/SM = 50% (blocks))");
    CHECK_HAS(text, "1 block per SM: block 1024 0.50x, block 32 0.03x of the best");
}

static void test_transfers(void)
{
    static synthetic s;
    start(&s, "transfers");
    const double gib = 1073741824.0;
    add(&s, "transfers", "pinned_h2d", 4096, 1.0);
    add(&s, "transfers", "pinned_h2d", gib, 50.0);
    add(&s, "transfers", "pageable_h2d", gib, 25.0);
    add(&s, "transfers", "pinned_d2h", gib, 45.0);
    add(&s, "transfers", "pageable_d2h", gib, 15.0);
    add(&s, "overlap", "serial", 1, 10.0);
    add(&s, "overlap", "chunked", 1, 10.0);
    add(&s, "overlap", "chunked", 2, 15.0);
    add(&s, "overlap", "chunked", 4, 20.0);
    add(&s, "overlap", "chunked", 8, 19.0);
    char text[512];
    conclude(&s, text, sizeof text);
    CHECK_HAS(text, "at 1 GiB, pinned against pageable: host to device 2.00x (50.0 against 25.0 "
                    "GB/s), device to host 3.00x");
    CHECK_HAS(text, "a 4 KiB pinned copy reaches 0.02x of the 1 GiB rate");
    CHECK_HAS(text, "overlap: 4 streams 2.00x the serial pipeline's rate (1 stream of chunks: "
                    "1.00x)");
}

/* GPU against CPU end to end: k = 1 .. 1024 (rates in elements/s), the
 * break-even interpolated where the pinned GPU first passes the CPU; small
 * arrays: the GPU's floor and the size from which it wins. */
static void add_end_to_end(synthetic *s, const double *gpu, const double *cpu)
{
    double k = 1;
    for (int i = 0; i < 6; i++, k *= 4) {
        add(s, "intensity", "pinned", k, gpu[i]);
        add(s, "intensity", "pageable", k, gpu[i] / 2);
        add(s, "intensity", "resident", k, 100.0);
        add(s, "intensity", "cpu_cores", k, cpu[i]);
    }
}

static void test_transfers_end_to_end(void)
{
    static synthetic s;
    start(&s, "transfers");
    /* GPU 0.5x the CPU at k = 16, 2x at 64: break-even at k = 32 (log-log). */
    const double gpu[] = {2.0, 2.0, 2.0, 2.0, 1.9, 1.0};
    const double cpu[] = {8.0, 6.0, 4.0, 1.0, 0.3, 0.08};
    add_end_to_end(&s, gpu, cpu);
    double n = 256;
    const double small_gpu[] = {0.01, 0.04, 0.5, 1.5, 2.0};
    const double small_cpu[] = {0.1, 0.3, 0.6, 1.0, 1.2};
    for (int i = 0; i < 5; i++, n *= 4) {
        add(&s, "latency_bound", "small_pinned", n, small_gpu[i]);
        add(&s, "latency_bound", "small_resident", n, small_gpu[i] * 4);
        add(&s, "latency_bound", "small_cpu", n, small_cpu[i]);
    }
    char text[1536];
    conclude(&s, text, sizeof text);
    CHECK_HAS(text, "end to end at 1 FMA an element (0.25 flop a byte over the bus): the GPU with "
                    "pinned copies loses to the CPU's cores by 4.00x (pageable: 0.12x the CPU's "
                    "rate), its kernel alone 12x the CPU's");
    CHECK_HAS(text, "break-even at about k = 32 FMAs an element (8.0 flop a byte), interpolated "
                    "between k = 16 (GPU 0.50x the CPU's rate) and k = 64 (2.00x)");
    CHECK_HAS(text, "latency-bound: 256 floats (64 FMAs each) take 25.6 us on the GPU with "
                    "copies (the kernel alone: 6.4 us) against 2.6 us on the CPU");
    CHECK_HAS(text, "the GPU wins from 16384 floats on");

    /* The GPU ahead everywhere; the CPU ahead everywhere. */
    start(&s, "transfers");
    const double ahead[] = {9.0, 9.0, 9.0, 9.0, 9.0, 9.0};
    add_end_to_end(&s, ahead, cpu);
    conclude(&s, text, sizeof text);
    CHECK_HAS(text, "no break-even to find: the GPU wins at every k measured");
    CHECK_MSG(strstr(text, "latency-bound") == NULL, "%s", text);
    start(&s, "transfers");
    const double behind[] = {0.01, 0.01, 0.01, 0.01, 0.01, 0.01};
    add_end_to_end(&s, behind, cpu);
    add(&s, "latency_bound", "small_pinned", 256, 0.01);
    add(&s, "latency_bound", "small_cpu", 256, 0.1);
    conclude(&s, text, sizeof text);
    CHECK_HAS(text, "no break-even up to k = 1024 FMAs an element (256 flop a byte): the CPU wins "
                    "at every k measured");
    CHECK_HAS(text, "the CPU wins at every size measured");
    /* Ahead at k = 1, behind from k = 4 on: no break-even, and no claim that
     * the CPU wins everywhere. */
    start(&s, "transfers");
    const double falling[] = {9.0, 1.0, 1.0, 0.5, 0.1, 0.01};
    add_end_to_end(&s, falling, cpu);
    conclude(&s, text, sizeof text);
    CHECK_HAS(text,
              "no break-even: the GPU leads at the smallest k and falls behind from k = 4 on");
    /* A failed CPU point at k = 1: nothing drawn for this section. */
    start(&s, "transfers");
    add(&s, "intensity", "pinned", 1, 1.0);
    add_failed(&s, "intensity", "cpu_cores", 1);
    conclude(&s, text, sizeof text);
    CHECK_MSG(strstr(text, "end to end") == NULL, "%s", text);
}

static void test_tiles(void)
{
    static synthetic s;
    start(&s, "tiles");
    add(&s, "tiles", "square_block", 4, 500.0);
    add(&s, "tiles", "square_block", 16, 2800.0);
    add(&s, "tiles", "square_block", 32, 2000.0);
    add(&s, "tiles", "eight_rows", 4, 500.0);
    add(&s, "tiles", "eight_rows", 8, 1000.0);
    add(&s, "tiles", "eight_rows", 16, 3000.0);
    add(&s, "tiles", "eight_rows", 32, 4000.0);
    add(&s, "tiles", "eight_rows", 48, 3600.0);
    add(&s, "tiles", "eight_rows", 64, 2000.0);
    char text[512];
    conclude(&s, text, sizeof text);
    CHECK_HAS(text, "best: tile 32 (eight_rows) at 4000 GB/s; square_block's best: tile 16 at "
                    "0.70x");
    CHECK_HAS(text, "eight_rows against its best at tile 4: 0.12x, 8: 0.25x, 16: 0.75x, 48: "
                    "0.90x, 64: 0.50x");
}

static void test_latency(void)
{
    static synthetic s;
    start(&s, "latency");
    /* Rates in G steps a second: 1 / latency in ns. */
    add(&s, "latency_chase", "dependent", 16384, 1.0 / 40.0);
    add(&s, "latency_chase", "dependent", 268435456, 1.0 / 800.0);
    add(&s, "latency_flight", "loads_1", 1024, 100.0);
    add(&s, "latency_flight", "loads_1", 262144, 3700.0);
    add(&s, "latency_flight", "loads_4", 65536, 3700.0);
    add(&s, "latency_flight", "loads_4", 262144, 4000.0);
    char text[512];
    conclude(&s, text, sizeof text);
    CHECK_HAS(text, "dependent-load latency: 16 KiB 40 ns, 256 MiB 800 ns; the copy's best 4000 "
                    "GB/s; Little's law: bandwidth x latency = 3.05 MiB in flight");
    /* 262144 x 4 B = 1 MiB = 0.33x of 3.2e6 B; 65536 x 4 x 4 B = the same. */
    CHECK_HAS(text, "90% of the best with 262144 threads x 1 (1 MiB, 0.33x Little's), 65536 "
                    "threads x 4 (1 MiB, 0.33x Little's)");
}

static void test_memories(void)
{
    static synthetic s;
    start(&s, "memories");
    add(&s, "memories_constant", "constant", 1, 400.0);
    add(&s, "memories_constant", "constant", 32, 20.0);
    add(&s, "memories_constant", "global", 1, 200.0);
    add(&s, "memories_constant", "global", 32, 160.0);
    add(&s, "memories_local", "registers", 4, 100.0);
    add(&s, "memories_local", "local", 4, 100.0);
    add(&s, "memories_local", "registers", 64, 100.0);
    warplab_probe_point *p = add(&s, "memories_local", "local", 64, 25.0);
    wl_copy_string(p->annotation, sizeof p->annotation, "local memory a thread: registers 0 B");
    char text[1536];
    conclude(&s, text, sizeof text);
    CHECK_HAS(text, "constant: 32 distinct words a warp at 0.05x of one word (the broadcast), "
                    "global at 0.80x; the broadcast at 2.00x of global's rate; 32 words at 0.12x");
    CHECK_HAS(text, "registers: 4 ints 1.00x, 64 ints 0.25x (local memory a thread: registers 0 "
                    "B)");
    CHECK_MSG(strstr(text, "read-only") == NULL, "no readonly points, no sentence: %s", text);

    /* The read-only path: at 4 KiB and 128 MiB, its verdict from the ratios. */
    const double small = 4096.0, large = 134217728.0;
    add(&s, "memories_readonly", "plain", small, 100.0);
    add(&s, "memories_readonly", "ldg", small, 102.0);
    add(&s, "memories_readonly", "restrict", small, 101.0);
    add(&s, "memories_readonly", "plain", large, 10.0);
    warplab_probe_point *ldg_large = add(&s, "memories_readonly", "ldg", large, 10.3);
    add(&s, "memories_readonly", "restrict", large, 10.2);
    conclude(&s, text, sizeof text);
    CHECK_HAS(text, "a gather through the read-only path (__ldg) against plain loads: 1.02x at a "
                    "4 KiB table (const __restrict__ 1.01x), 1.03x at a 128 MiB table (const "
                    "__restrict__ 1.02x): no difference past 5% on this GPU");
    ldg_large->value = 15.0;
    conclude(&s, text, sizeof text);
    CHECK_HAS(text, "1.50x at a 128 MiB table (const __restrict__ 1.02x): the read-only path pays "
                    "on this GPU, up to 1.50x");
    ldg_large->value = 8.0;
    conclude(&s, text, sizeof text);
    CHECK_HAS(text, ": the read-only path is slower here (0.80x)");
}

static void test_helpers(void)
{
    char text[64];
    wl_format_bytes(text, sizeof text, 4096);
    CHECK_STR(text, "4 KiB");
    wl_format_bytes(text, sizeof text, 1073741824.0);
    CHECK_STR(text, "1 GiB");
    wl_format_bytes(text, sizeof text, 1000);
    CHECK_STR(text, "1000 B");
    wl_format_bytes(text, sizeof text, 1536);
    CHECK_STR(text, "1.5 KiB");
    text[0] = '\0';
    wl_append(text, 8, "%s", "abc");
    wl_append(text, 8, "%s", "defghij");
    CHECK_STR(text, "abcdefg");

    /* The chain's closed form and bound hold for a float evaluation, and the
     * start value stays visible: another start is far outside the bound. */
    const long steps[] = {1, 17, 4096, 20000};
    for (int i = 0; i < 4; i++) {
        float y = 0.75f;
        for (long k = 0; k < steps[i]; k++)
            y = fmaf(y, WL_CHAIN_A, 0.032f);
        const double expected = wl_chain_reference(0.75f, 0.032f, steps[i]);
        const double bound = wl_chain_bound(0.75f, 0.032f, steps[i]);
        CHECK_MSG(fabs((double)y - expected) <= bound, "%ld steps: %.9g vs %.9g (bound %.3g)",
                  steps[i], (double)y, expected, bound);
        if (steps[i] <= 4096) /* a start 0.2 away is told apart */
            CHECK_MSG(fabs(wl_chain_reference(0.55f, 0.032f, steps[i]) - expected) > 2 * bound,
                      "%ld steps: starts 0.75 and 0.55 within %.3g", steps[i], bound);
    }

    /* Poison: the 32-bit pattern passes, anything else fails. */
    wl_check check;
    wl_check_init(&check);
    const uint32_t poison = WL_POISON_PATTERN, other = 0x7FC00000u; /* another NaN */
    CHECK(wl_probe_check_poison(&check, 0, &poison));
    CHECK(!wl_probe_check_poison(&check, 1, &other));
    CHECK(check.bad == 1 && check.first_bad == 1);
}

static void test_registry(void)
{
    CHECK(warplab_probe_count() == 11);
    for (size_t i = 0; i < warplab_probe_count(); i++) {
        const wl_probe *probe = wl_probe_at(i);
        CHECK(probe && probe->conclude && probe->setup && probe->section_count >= 1 &&
              probe->section_count <= WL_PROBE_MAX_SECTIONS);
        CHECK(wl_probe_find(warplab_probe_name(i)) == probe);
        CHECK(warplab_probe_title(i) && warplab_probe_size_meaning(i));
        for (size_t s = 0; probe && s < probe->section_count; s++) {
            const wl_ladder *ladder = probe->sections[s].ladder;
            CHECK(ladder->buffers && ladder->describe && ladder->leading_size &&
                  ladder->test_problems && probe->sections[s].points);
            for (size_t r = 0; r < ladder->rung_count; r++)
                CHECK_MSG(ladder->verify || ladder->rungs[r].verify, "%s/%s cannot be checked",
                          ladder->name, ladder->rungs[r].id);
            /* Section series sets are named apart: rows say which they are. */
            for (size_t j = 0; j < i; j++)
                for (size_t t = 0; t < wl_probe_at(j)->section_count; t++)
                    CHECK(strcmp(wl_probe_at(j)->sections[t].ladder->name, ladder->name) != 0);
        }
    }
    CHECK(warplab_probe_name(warplab_probe_count()) == NULL);
    char reason[128];
    CHECK(warplab_probe_supported("nonesuch", WARPLAB_BACKEND_AUTO, reason, sizeof reason) ==
          WARPLAB_ERROR_UNKNOWN_NAME);
    CHECK(warplab_probe_supported("transfers", WARPLAB_BACKEND_CPU, reason, sizeof reason) ==
          WARPLAB_ERROR_UNSUPPORTED);
    /* "cuda only: transfers has no cpu form", or no form at all without cuda. */
    CHECK_MSG(strstr(reason, "no cpu form") || strstr(reason, "no form in this build"),
              "reason: %s", reason);
}

int main(void)
{
    test_coalescing();
    test_banks();
    test_divergence();
    test_atomics();
    test_intrinsics();
    test_unroll();
    test_blocksize();
    test_transfers();
    test_transfers_end_to_end();
    test_tiles();
    test_latency();
    test_memories();
    test_helpers();
    test_registry();
    return check_report("test_probe_conclusions");
}
