/* The ladders' conclusions (src/ladders/conclusions.c): each sentence is
 * computed from the rows it is given, takes the branch its numbers call for,
 * and is not drawn when a row it needs is missing, skipped or failed. */
#include "../check.h"
#include "internal.h"
#include "ladders/conclusions.h"

#include <stdio.h>
#include <string.h>

static warplab_row rows[24];
static size_t row_count;

static warplab_row *add(const char *ladder, const char *problem, double size, const char *rung,
                        double ms, double gflops)
{
    warplab_row *row = &rows[row_count++];
    memset(row, 0, sizeof *row);
    snprintf(row->ladder, sizeof row->ladder, "%s", ladder);
    snprintf(row->problem, sizeof row->problem, "%s", problem);
    snprintf(row->rung, sizeof row->rung, "%s", rung);
    row->size = size;
    row->runs = 10;
    row->median_ms = ms;
    row->gflops = gflops;
    row->noise_pct = 0.5;
    row->status = WARPLAB_OK;
    return row;
}

typedef struct collected {
    char text[8][WL_CONCLUSION_MAX];
    char ladder[8][32];
    size_t count;
} collected;

static void collect(void *user, const char *ladder, const char *text)
{
    collected *c = user;
    if (c->count < 8) {
        snprintf(c->ladder[c->count], sizeof c->ladder[0], "%s", ladder);
        snprintf(c->text[c->count], sizeof c->text[0], "%s", text);
    }
    c->count++;
}

static collected conclude(double ceiling)
{
    warplab_report report;
    memset(&report, 0, sizeof report);
    report.rows = rows;
    report.row_count = row_count;
    report.ceiling_gbs = ceiling;
    collected c;
    memset(&c, 0, sizeof c);
    wl_ladder_conclusions(&report, collect, &c);
    return c;
}

static void expect_text(const collected *c, size_t i, const char *part)
{
    CHECK_MSG(i < c->count && strstr(c->text[i], part) != NULL, "conclusion %zu lacks \"%s\": %s",
              i, part, i < c->count ? c->text[i] : "(none)");
}

static void test_transpose(void)
{
    row_count = 0;
    add("transpose", "4000x4000 float", 4000, "tiled", 0.0911, 0);
    add("transpose", "4000x4000 float", 4000, "padded", 0.0428, 0);
    add("transpose", "4096x4096 float", 4096, "tiled", 0.0959, 0);
    add("transpose", "4096x4096 float", 4096, "padded", 0.0446, 0);
    warplab_row *diagonal = add("transpose", "4096x4096 float", 4096, "diagonal", 0.0437, 0);
    collected c = conclude(0);
    CHECK(c.count == 1);
    CHECK_STR(c.ladder[0], "transpose");
    expect_text(&c, 0, "gains 2.13x at 4000 x 4000 and 2.15x at 4096 x 4096");
    expect_text(&c, 0, "no longer applies");
    expect_text(&c, 0, "changes 4096 x 4096 by 1.02x");
    /* The GTX 280's case: at 4096 the fix hides (gain 1.1x against 2.1x). */
    rows[3].median_ms = 0.0959 / 1.1;
    diagonal->flags = WARPLAB_ROW_SKIPPED;
    c = conclude(0);
    expect_text(&c, 0, "gains 2.13x at 4000 x 4000 and 1.10x at 4096 x 4096");
    expect_text(&c, 0, "differ by 48%");
    CHECK_MSG(c.count == 1 && !strstr(c.text[0], "diagonal"), "a skipped row was used: %s",
              c.text[0]);
    /* A failed row: no conclusion. */
    rows[1].flags = WARPLAB_ROW_FAILED;
    c = conclude(0);
    CHECK_MSG(c.count == 0, "drawn from a failed row: %s", c.text[0]);
}

static void test_vecadd(void)
{
    row_count = 0;
    const char *p = "n=268435456 float";
    const double n = 268435456.0;
    add("vecadd", p, n, "cpu_threads", 34.11, 0);
    add("vecadd", p, n, "grid", 1.089, 0);
    add("vecadd", p, n, "vectorized_flat", 0.7294, 0);
    add("vecadd", p, n, "h2d", 19.61, 0);
    add("vecadd", p, n, "d2h", 19.41, 0);
    /* a smaller size that has no transfer rows: not the one compared */
    add("vecadd", "n=1024 float", 1024, "cpu_threads", 0.01, 0);
    collected c = conclude(0);
    CHECK(c.count == 1);
    expect_text(&c, 0, "(vectorized_flat) takes 0.729 ms");
    expect_text(&c, 0, "2 x 19.6 + 19.4 = 58.6 ms");
    expect_text(&c, 0, "59.4 ms end to end against 34.1 ms");
    expect_text(&c, 0, "the CPU wins by 1.74x");
    expect_text(&c, 0, "47x faster");
    /* Slow CPU: the GPU wins. */
    rows[0].median_ms = 120.0;
    c = conclude(0);
    expect_text(&c, 0, "the GPU wins by 2.02x");
    /* No d2h row: nothing. */
    rows[4].flags = WARPLAB_ROW_SKIPPED;
    c = conclude(0);
    CHECK(c.count == 0);
}

static void test_gemm(void)
{
    row_count = 0;
    add("gemm", "4096x4096x4096 float", 4096, "many_blocks", 26.72, 5143.7);
    add("gemm", "4096x4096x4096 float", 4096, "tiled16", 16.99, 8088.4);
    collected c = conclude(4814.3);
    CHECK(c.count == 1);
    expect_text(&c, 0, "4814 GB/s / 4 = 1204 GFLOP/s");
    expect_text(&c, 0, "runs at 5144 GFLOP/s, 4.27x that bound");
    expect_text(&c, 0, "caches serve those repeats");
    expect_text(&c, 0, "gain 1.57x");
    expect_text(&c, 0, "not the 16x");
    /* Without a bandwidth ceiling there is no bound to compare with. */
    c = conclude(0);
    CHECK(c.count == 0);
    /* A G80-like case: under the bound, tiles near 16x. */
    rows[0].gflops = 15.0;
    rows[1].median_ms = 26.72 / 14.0;
    c = conclude(86.4);
    expect_text(&c, 0, "86 GB/s / 4 = 22 GFLOP/s");
    expect_text(&c, 0, "Under it");
    expect_text(&c, 0, "near the 16x");
}

/* Seed 004's 128-thread blocks against 512: each attempt's pair, at the
 * largest size with a pair; the verdict follows the ratios. */
static void test_reduce_block_size(void)
{
    static const char *const attempts[] = {"interleaved", "strided_index", "sequential",
                                           "first_add",   "warp_volatile", "complete_unroll",
                                           "brent"};
    const double at512[] = {4.0, 3.0, 2.0, 1.0, 0.9, 0.8, 0.7};
    row_count = 0;
    /* A smaller size with pairs that say otherwise: not the one concluded on. */
    add("reduce", "n=4194304 int32 sum", 4194304, "interleaved", 1.0, 0);
    add("reduce", "n=4194304 int32 sum", 4194304, "interleaved_128", 0.5, 0);
    for (size_t a = 0; a < 7; a++) {
        char course[48];
        snprintf(course, sizeof course, "%s_128", attempts[a]);
        add("reduce", "n=268435456 int32 sum", 268435456, attempts[a], at512[a], 0);
        add("reduce", "n=268435456 int32 sum", 268435456, course, at512[a] * (a < 5 ? 1.5 : 1.01),
            0);
    }
    collected c = conclude(0);
    CHECK(c.count == 1);
    CHECK_STR(c.ladder[0], "reduce");
    expect_text(&c, 0,
                "at n=268435456 int32 sum, the 128-thread form takes 1.50x (#1 interleaved)");
    expect_text(&c, 0, "1.01x (#7 brent) the time of the ladder's own block");
    expect_text(&c, 0, "The ladder's block is faster in 5 of 7, 128 threads in 0");
    expect_text(&c, 0, "the larger block pays on this GPU");
    expect_text(&c, 0, "up to 1.50x");

    /* 128 faster everywhere past the noise. */
    for (size_t i = 2; i < row_count; i += 2)
        rows[i + 1].median_ms = rows[i].median_ms / 1.25;
    c = conclude(0);
    expect_text(&c, 0, "The ladder's block is faster in 0 of 7, 128 threads in 7");
    expect_text(&c, 0, "the course's smaller block pays on this GPU");
    expect_text(&c, 0, "up to 1.25x");

    /* Mixed: neither wins every attempt. */
    rows[3].median_ms = rows[2].median_ms * 2.0;
    c = conclude(0);
    expect_text(&c, 0, "The ladder's block is faster in 1 of 7, 128 threads in 6");
    expect_text(&c, 0, "neither block size wins every attempt");

    /* All within the noise. */
    for (size_t i = 2; i < row_count; i += 2)
        rows[i + 1].median_ms = rows[i].median_ms * 1.02;
    c = conclude(0);
    expect_text(&c, 0, "does not matter to these kernels");

    /* A failed 128 row leaves its attempt out; no pair at all: no conclusion. */
    rows[3].status = WARPLAB_ERROR_VERIFICATION_FAILED;
    c = conclude(0);
    CHECK(c.count == 1);
    CHECK_MSG(c.count == 1 && strstr(c.text[0], "#1 interleaved") == NULL, "%s", c.text[0]);
    expect_text(&c, 0, "in 0 of 6");
    row_count = 1;
    c = conclude(0);
    CHECK(c.count == 0);
}

int main(void)
{
    test_transpose();
    test_reduce_block_size();
    test_vecadd();
    test_gemm();
    return check_report("test_conclusions");
}
