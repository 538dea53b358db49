/* What a ladder's rows show about the course's open questions, computed from
 * the rows of one run (docs/COURSE.md, "Conclusions"). Nothing here is
 * written in advance: each sentence is built from the measured times, and a
 * conclusion whose rows are missing (skipped, failed, another size) is not
 * drawn.
 *
 *   transpose  partition camping: seed 003's 4000 against 4096
 *   reduce     seed 004's 128-thread blocks against seed 001's 512 (attempts #1-#7)
 *   vecadd     GPU against CPU with the transfers (seed 003, 'GPU vs. CPU')
 *   gemm       the multi-block kernel's bound with today's caches (seed 002) */
#include "conclusions.h"
#include "../internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The row of a rung for a problem, timed and verified; NULL otherwise. */
static const warplab_row *ok_row(const warplab_report *report, const char *ladder,
                                 const char *problem, const char *rung)
{
    for (size_t i = 0; i < report->row_count; i++) {
        const warplab_row *row = &report->rows[i];
        if (!strcmp(row->ladder, ladder) && !strcmp(row->problem, problem) &&
            !strcmp(row->rung, rung) && row->status == WARPLAB_OK &&
            !(row->flags & (WARPLAB_ROW_SKIPPED | WARPLAB_ROW_FAILED)) && row->runs > 0 &&
            row->median_ms > 0)
            return row;
    }
    return NULL;
}

/* Two ratios differ when they are further apart than the runs' noise allows
 * (twice the rows' summed relative noise, and at least 5%). */
static bool ratios_differ(double a, double b, double noise_pct)
{
    const double tolerance = fmax(0.05, 2.0 * noise_pct / 100.0);
    return fabs(a / b - 1.0) > tolerance;
}

static double noise_of(const warplab_row *const *rows, size_t count)
{
    double sum = 0.0;
    for (size_t i = 0; i < count; i++)
        sum += rows[i]->noise_pct;
    return sum;
}

/* Seed 003 ('Význam optimalizací'): on the GTX 280, at 4096 x 4096 the
 * padding's gain hid behind partition camping; at 4000 it showed. Today's
 * answer is the two gains side by side. */
static void transpose_partition_camping(const warplab_report *report, wl_conclusion_emit emit,
                                        void *user)
{
    const char *sizes[2] = {"4000x4000 float", "4096x4096 float"};
    const warplab_row *rows[2][3];
    for (int s = 0; s < 2; s++) {
        rows[s][0] = ok_row(report, "transpose", sizes[s], "tiled");
        rows[s][1] = ok_row(report, "transpose", sizes[s], "padded");
        rows[s][2] = ok_row(report, "transpose", sizes[s], "diagonal");
        if (!rows[s][0] || !rows[s][1])
            return;
    }
    const double gain4000 = rows[0][0]->median_ms / rows[0][1]->median_ms;
    const double gain4096 = rows[1][0]->median_ms / rows[1][1]->median_ms;
    const warplab_row *all[4] = {rows[0][0], rows[0][1], rows[1][0], rows[1][1]};
    const bool differ = ratios_differ(gain4000, gain4096, noise_of(all, 4));
    char text[WL_CONCLUSION_MAX];
    int n = snprintf(text, sizeof text,
                     "Partition camping (seed 003, 4000 against 4096): removing the bank "
                     "conflicts (padded over tiled) gains %.2fx at 4000 x 4000 and %.2fx at 4096 x "
                     "4096. ",
                     gain4000, gain4096);
    if (!differ)
        snprintf(text + n, sizeof text - (size_t)n,
                 "The same gain at both sizes, within the runs' noise: the power-of-two size "
                 "costs nothing extra on this GPU, so the course's warning (at 4096 the fix "
                 "hides behind partition camping) no longer applies%s",
                 rows[1][2] ? "" : ".");
    else
        snprintf(text + n, sizeof text - (size_t)n,
                 "The gains differ by %.0f%%, more than the runs' noise: a size effect remains on "
                 "this GPU%s",
                 100.0 * fabs(gain4096 / gain4000 - 1.0), rows[1][2] ? "" : ".");
    if (rows[1][2]) {
        const size_t used = strlen(text);
        snprintf(text + used, sizeof text - used,
                 "; the diagonal block order, the course's cure for camping, changes 4096 x 4096 "
                 "by %.2fx.",
                 rows[1][1]->median_ms / rows[1][2]->median_ms);
    }
    emit(user, "transpose", text);
}

/* Seed 003 ('GPU vs. CPU', 'Latence GPU'): the bus counts. vecadd with its
 * copies (a and b in, c out) against the add on every CPU core, at the
 * largest size both ran. */
static void vecadd_gpu_against_cpu(const warplab_report *report, wl_conclusion_emit emit,
                                   void *user)
{
    static const char *kernels[] = {"vectorized_flat", "vectorized", "grid_stride", "grid"};
    const warplab_row *best = NULL;
    const warplab_row *cpu = NULL, *h2d = NULL, *d2h = NULL;
    double size = 0.0;
    for (size_t i = 0; i < report->row_count; i++) {
        const warplab_row *row = &report->rows[i];
        if (strcmp(row->ladder, "vecadd") != 0 || strcmp(row->rung, "cpu_threads") != 0 ||
            row->size <= size)
            continue;
        const warplab_row *c = ok_row(report, "vecadd", row->problem, "cpu_threads");
        const warplab_row *in = ok_row(report, "vecadd", row->problem, "h2d");
        const warplab_row *out = ok_row(report, "vecadd", row->problem, "d2h");
        const warplab_row *k = NULL;
        for (size_t j = 0; j < sizeof kernels / sizeof kernels[0]; j++) {
            const warplab_row *r = ok_row(report, "vecadd", row->problem, kernels[j]);
            if (r && (!k || r->median_ms < k->median_ms))
                k = r;
        }
        if (c && in && out && k) {
            cpu = c, h2d = in, d2h = out, best = k;
            size = row->size;
        }
    }
    if (!best)
        return;
    const double copies = 2.0 * h2d->median_ms + d2h->median_ms;
    const double gpu = copies + best->median_ms;
    const bool cpu_wins = cpu->median_ms < gpu;
    /* The work per element at which the copies pay for themselves: the CPU
     * must need more than the GPU's end-to-end time, i.e. this many times
     * the CPU's vecadd time per element. */
    const double break_even_ns = gpu * 1e6 / size;
    char text[WL_CONCLUSION_MAX];
    snprintf(text, sizeof text,
             "GPU against CPU with the transfers (seed 003): at %s the GPU's add (%s) takes %.3g "
             "ms, but moving a and b in and c out over the bus takes 2 x %.3g + %.3g = %.3g ms: "
             "%.3g ms end to end against %.3g ms on every CPU core, so the %s wins by %.2fx. "
             "With its data already on the GPU the add is %.0fx faster than the CPU's. "
             "Break-even: work that keeps the CPU busy more than %.2g ns an element (%.1fx "
             "vecadd's) before the copies pay for themselves.",
             best->problem, best->rung, best->median_ms, h2d->median_ms, d2h->median_ms, copies,
             gpu, cpu->median_ms, cpu_wins ? "CPU" : "GPU",
             cpu_wins ? gpu / cpu->median_ms : cpu->median_ms / gpu,
             cpu->median_ms / best->median_ms, break_even_ns, gpu / cpu->median_ms);
    emit(user, "vecadd", text);
}

/* Seed 002: the multi-block kernel reads two floats from global memory per
 * multiply-add, 4 bytes a flop, so it should be bound at bandwidth / 4. With
 * the report's bandwidth ceiling, the measured rate against that bound, and
 * what tiling then adds. */
static void gemm_multiblock_bound(const warplab_report *report, wl_conclusion_emit emit, void *user)
{
    if (!(report->ceiling_gbs > 0))
        return;
    const warplab_row *many = NULL, *tiled = NULL;
    for (size_t i = 0; i < report->row_count; i++) {
        const warplab_row *row = &report->rows[i];
        if (strcmp(row->ladder, "gemm") != 0 || strcmp(row->rung, "many_blocks") != 0)
            continue;
        const warplab_row *m = ok_row(report, "gemm", row->problem, "many_blocks");
        const warplab_row *t = ok_row(report, "gemm", row->problem, "tiled16");
        if (m && t && m->gflops > 0 && (!many || m->size > many->size))
            many = m, tiled = t;
    }
    if (!many)
        return;
    const double bound = report->ceiling_gbs / 4.0;
    char text[WL_CONCLUSION_MAX];
    int n = snprintf(
        text, sizeof text,
        "The multi-block kernel's bound (seed 002: two 4-byte loads from global memory per "
        "multiply-add, 4 bytes a flop): %.0f GB/s / 4 = %.0f GFLOP/s. At %s it runs at %.0f "
        "GFLOP/s, %.2fx that bound. ",
        report->ceiling_gbs, bound, many->problem, many->gflops, many->gflops / bound);
    if (many->gflops > bound)
        n += snprintf(text + n, sizeof text - (size_t)n,
                      "Past it: the threads of a block read the same rows of A and columns of B, "
                      "and the L1 and L2 caches serve those repeats, so DRAM moves far less than "
                      "4 bytes a flop. ");
    else
        n += snprintf(text + n, sizeof text - (size_t)n,
                      "Under it, as the course argues: DRAM bandwidth bounds it. ");
    const double gain = many->median_ms / tiled->median_ms;
    if (gain < 8.0)
        snprintf(text + n, sizeof text - (size_t)n,
                 "16 x 16 tiles then gain %.2fx (tiled16 over many_blocks), not the 16x cut in "
                 "traffic the G80 argument promised: much of the traffic they remove was "
                 "already served by the caches.",
                 gain);
    else
        snprintf(text + n, sizeof text - (size_t)n,
                 "16 x 16 tiles then gain %.2fx (tiled16 over many_blocks), near the 16x cut in "
                 "traffic the G80 argument promised.",
                 gain);
    emit(user, "gemm", text);
}

/* Seed 004 ran attempts #1-#7 in 128-thread blocks, seed 001 (and warplab's
 * ladder) in 512: each attempt's <rung>_128 row against its rung, at the
 * largest size that has a pair. */
static void reduce_block_size(const warplab_report *report, wl_conclusion_emit emit, void *user)
{
    static const char *const attempts[] = {"interleaved", "strided_index", "sequential",
                                           "first_add",   "warp_volatile", "complete_unroll",
                                           "brent"};
    enum { ATTEMPTS = sizeof attempts / sizeof attempts[0] };
    const char *problem = NULL;
    double size = 0.0;
    for (size_t i = 0; i < report->row_count; i++) {
        const warplab_row *row = &report->rows[i];
        if (strcmp(row->ladder, "reduce") != 0 || row->size <= size)
            continue;
        for (size_t a = 0; a < ATTEMPTS; a++) {
            char course[48];
            snprintf(course, sizeof course, "%s_128", attempts[a]);
            if (ok_row(report, "reduce", row->problem, attempts[a]) &&
                ok_row(report, "reduce", row->problem, course)) {
                problem = row->problem;
                size = row->size;
                break;
            }
        }
    }
    if (!problem)
        return;
    char text[WL_CONCLUSION_MAX];
    int n = snprintf(text, sizeof text,
                     "Block size (seed 004 ran attempts #1-#7 in 128-thread blocks, seed 001 in "
                     "512, as this ladder does on cuda; 256 work-items on opencl): at %s, the "
                     "128-thread form takes ",
                     problem);
    int pairs = 0, faster512 = 0, faster128 = 0;
    double worst = 1.0, best = 1.0;
    for (size_t a = 0; a < ATTEMPTS && n > 0 && (size_t)n < sizeof text; a++) {
        char course[48];
        snprintf(course, sizeof course, "%s_128", attempts[a]);
        const warplab_row *wide = ok_row(report, "reduce", problem, attempts[a]);
        const warplab_row *narrow = ok_row(report, "reduce", problem, course);
        if (!wide || !narrow)
            continue;
        const double ratio = narrow->median_ms / wide->median_ms;
        const warplab_row *pair[2] = {wide, narrow};
        if (ratios_differ(ratio, 1.0, noise_of(pair, 2)))
            ratio > 1.0 ? faster512++ : faster128++;
        worst = pairs ? fmax(worst, ratio) : ratio;
        best = pairs ? fmin(best, ratio) : ratio;
        n += snprintf(text + n, sizeof text - (size_t)n, "%s%.2fx (#%zu %s)", pairs ? ", " : "",
                      ratio, a + 1, attempts[a]);
        pairs++;
    }
    if (n > 0 && (size_t)n < sizeof text)
        n += snprintf(text + n, sizeof text - (size_t)n,
                      " the time of the ladder's own block. The ladder's block is faster in %d of "
                      "%d, 128 threads in %d, the rest within the runs' noise",
                      faster512, pairs, faster128);
    if (n > 0 && (size_t)n < sizeof text) {
        if (faster512 > 0 && faster128 == 0)
            snprintf(text + n, sizeof text - (size_t)n,
                     ": the larger block pays on this GPU (fewer partials for the next level, "
                     "more of each block's tree in shared memory), up to %.2fx.",
                     worst);
        else if (faster128 > 0 && faster512 == 0)
            snprintf(text + n, sizeof text - (size_t)n,
                     ": the course's smaller block pays on this GPU (fewer tree steps and "
                     "barriers per block), up to %.2fx.",
                     1.0 / best);
        else if (faster128 == 0 && faster512 == 0)
            snprintf(text + n, sizeof text - (size_t)n,
                     ": the block size does not matter to these kernels on this GPU.");
        else
            snprintf(text + n, sizeof text - (size_t)n,
                     ": neither block size wins every attempt on this GPU.");
    }
    emit(user, "reduce", text);
}

void wl_ladder_conclusions(const warplab_report *report, wl_conclusion_emit emit, void *user)
{
    if (!report || !emit)
        return;
    transpose_partition_camping(report, emit, user);
    reduce_block_size(report, emit, user);
    vecadd_gpu_against_cpu(report, emit, user);
    gemm_multiblock_bound(report, emit, user);
}
