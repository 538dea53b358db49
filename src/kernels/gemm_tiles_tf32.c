/* The TF32 tile model (gemm_tiles_tf32.h): the small tiles' plan, and the
 * choice among the FP32 dispatcher, the small tiles and the wgmma kernel. */
#include "gemm_tiles_tf32.h"

#include "gemm_dispatch.h"
#include "gemm_problem.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* The small-tile mma.sync kernel (src/cuda/gemm/tf32_tiles.cu)             */

/* Tensor rate of an SM (TF32 mma), the fraction each tile reaches with
 * the SM full (wl_tf32_tile_kinds: their ratios from the H100 runs, 4096^3
 * in 1169 us in 128x128 tiles, 1368 in 128x64, 1607 in 64x64), the fixed
 * cost of a launch, in microseconds, and the tiles' time where a row of A
 * or B is not 16-byte aligned (4-byte copies, neighbouring lanes on
 * neighbouring floats). Rate, launch and unaligned cost fitted on the
 * H200 TF32 tuning set (each tile forced through warplab bench gemm, N, N:
 * 30001x33x4095/4096, 40000x128x1023/1024, 20000x250x777/780,
 * 50000x100x2001/2000, 1001x999x1003/1004, 777^3/776^3,
 * 3001x2999x1001/3000x3000x1000, 4096^3 and the grid's large-k cells of
 * seeds 7 and 24301 with k off and on 16 bytes, 69 cells): worst cell 28%
 * off (4096^3 in 128x128 tiles: 1308 us modelled, 1075 measured), where
 * 3700, 6 us and 2.0 (H100) were up to 68% off; unaligned tiles ran
 * 1.0-1.3x the aligned. */
#define TF32T_SM_GFLOPS 3300.0
#define TF32T_LAUNCH_US 7.0
#define TF32T_UNALIGNED 1.16
/* C's stores (two floats a thread, eight rows a warp) reach about 35% of
 * the bandwidth: 4096x4096x64 took 63 us on every tile. */
#define TF32T_STORE_EFFICIENCY 0.35
#define TF32T_MIN_K_CHUNK 128
#define TF32T_MAX_SPLITS 64
#define TF32T_MAX_SCRATCH ((size_t)256 << 20)

const wl_tf32_tile_kind wl_tf32_tile_kinds[WL_TF32_TILE_COUNT] = {
    {64, 64, 4, 0.18, "64x64"},
    {128, 64, 2, 0.20, "128x64"},
    {128, 128, 2, 0.25, "128x128"},
};

static double plan_us(const wl_tf32_tile_kind *t, double m, double n, double k, int splits,
                      int k_chunk, double sms, double bandwidth_gbs, bool aligned)
{
    const double bytes_per_us = bandwidth_gbs * 1e3 * 0.85;
    const double blocks = ceil(m / t->bm) * ceil(n / t->bn) * splits;
    const double per_sm = ceil(blocks / sms);
    const double fill = sqrt(fmin(1.0, per_sm / t->resident));
    const double kernel = per_sm * 2.0 * t->bm * t->bn * (double)k_chunk /
                          (TF32T_SM_GFLOPS * 1e3 * t->efficiency * fill) *
                          (aligned ? 1.0 : TF32T_UNALIGNED);
    const double traffic = 4.0 * (m * k + k * n) / bytes_per_us +
                           4.0 * m * n / (bytes_per_us / 0.85 * TF32T_STORE_EFFICIENCY);
    double time = TF32T_LAUNCH_US + fmax(kernel, traffic);
    if (splits > 1)
        time += TF32T_LAUNCH_US + 4.0 * m * n * (2.0 * splits + 1.0) / bytes_per_us;
    return time;
}

wl_tf32_tiles_plan wl_tf32_tiles_plan_for(int tile, size_t m, size_t n, size_t k, int sms,
                                          double bandwidth_gbs, int aligned)
{
    const double s = sms > 0 ? sms : 132, bw = bandwidth_gbs > 0 ? bandwidth_gbs : 3350.0;
    const wl_tf32_tile_kind *t = &wl_tf32_tile_kinds[tile];
    const size_t whole = (k + TF32T_BK - 1) / TF32T_BK * TF32T_BK;
    wl_tf32_tiles_plan best = {tile, 1, (int)(whole > 0 ? whole : TF32T_BK), 0, 0.0};
    best.predicted_us =
        plan_us(t, (double)m, (double)n, (double)k, 1, best.k_chunk, s, bw, aligned != 0);
    for (size_t splits = 2; splits <= TF32T_MAX_SPLITS && k / splits >= TF32T_MIN_K_CHUNK;
         splits++) {
        const size_t chunk = (k + splits - 1) / splits;
        const size_t k_chunk = (chunk + TF32T_BK - 1) / TF32T_BK * TF32T_BK;
        const size_t used = (k + k_chunk - 1) / k_chunk;
        if (used != splits || used * m * n > TF32T_MAX_SCRATCH / sizeof(float))
            continue;
        const double us = plan_us(t, (double)m, (double)n, (double)k, (int)used, (int)k_chunk, s,
                                  bw, aligned != 0);
        if (us < best.predicted_us) {
            best.splits = (int)used;
            best.k_chunk = (int)k_chunk;
            best.predicted_us = us;
        }
    }
    return best;
}

wl_tf32_tiles_plan wl_tf32_tiles_choose(size_t m, size_t n, size_t k, int sms, double bandwidth_gbs,
                                        int aligned)
{
    wl_tf32_tiles_plan best = wl_tf32_tiles_plan_for(0, m, n, k, sms, bandwidth_gbs, aligned);
    for (int tile = 1; tile < WL_TF32_TILE_COUNT; tile++) {
        const wl_tf32_tiles_plan plan =
            wl_tf32_tiles_plan_for(tile, m, n, k, sms, bandwidth_gbs, aligned);
        if (plan.predicted_us < best.predicted_us)
            best = plan;
    }
    return best;
}

size_t wl_tf32_tiles_scratch(const wl_tf32_tiles_plan *plan, size_t m, size_t n)
{
    return plan->splits > 1 ? (size_t)plan->splits * m * n * sizeof(float) : 0;
}

void wl_tf32_tiles_describe(const wl_tf32_tiles_plan *plan, char *text, size_t len)
{
    const char *name = wl_tf32_tile_kinds[plan->tile].name;
    if (plan->splits > 1)
        snprintf(text, len, "picked tf32_tile_%s, split-K %d x %d (model %.1f us)", name,
                 plan->splits, plan->k_chunk, plan->predicted_us);
    else
        snprintf(text, len, "picked tf32_tile_%s (model %.1f us)", name, plan->predicted_us);
}

/* ------------------------------------------------------------------------ */
/* The choice among the TF32 paths (src/cuda/gemm/gemm_ex.cu)               */

/* TF32 compute on float operands: three kernels, and the one with the least
 * modelled time runs (a function of the problem alone: deterministic, and
 * the same at scratch_bytes and at launch):
 * - the TMA + wgmma kernel: a fixed cost (a second launch, an operand that
 *   is not K-major copied into the workspace: B of the N, N case) and whole
 *   128 x 256 tiles, one wave of them per SM at a time, no split of k;
 *   modelled from the H100 measurements (about 3.3 TFLOP/s an SM, 10 us of
 *   fixed cost, at least A, B and C once at 85% of the bandwidth, the
 *   copies at 70%, read and write, and 6.5 us a copy launch);
 * - the small-tile mma.sync kernel (tf32_tiles.cu): the operands read as
 *   stored in either op, 64 x 64 to 128 x 128 tiles, split-K; its own plan;
 * - on op N, N, the FP32 dispatcher (warplab_gemm's path: skinny kernels
 *   that stream the big operand, small tiles, split-K); FP32 is at least as
 *   accurate as TF32, so the TF32 contract holds. Skinny problems (m or n
 *   at most WL_GEMM_EX_SKINNY) go there, or with a transposed operand to the GEMV family.
 * Without sm_80 the FP32 dispatcher or gemm_ex_tiled. The model's constants
 * are rows of the planner's tables, each with its measurement
 * (gemm_plan.h, src/kernels/gemm_plan.c): a K-major copy's launch and
 * fill at 3 us modelled the shapes with copies 6-8 us short on the H100,
 * so the small odd shapes went to the wgmma kernel instead of the FP32
 * dispatcher (20.2 us) or the small tiles (21.3); now copy_launch_us. */
#define TF32_K(name) wl_gemm_model(WL_GM_TF32_##name)

static bool problem_rows_aligned(const wl_problem *p, size_t ld)
{
    return p->misalign % 4 == 0 && ld % 4 == 0;
}

/* What the copy engine's kernels lose, as a fraction of their time, to an
 * operand read in place whose rows do not start on 128-byte lines
 * (measured on the H100, gemm_ex_tf32_rs at 256 x 128 tiles, against the
 * aligned sizes beside each: docs/DECISIONS.md, "Rows off the 128-byte lines
 * are copied onto lines where the model says it pays"). A
 * 128-byte box row that straddles two lines is two L2 requests; where rows
 * start 16 bytes off a 32-byte sector it also reads a fifth sector:
 * 3500^3 (rows of 14000 bytes) takes 446 us against 228 for 3520^3, A's
 * rows alone off 1.6x, B's alone 1.36x; 2500^3 1.65-1.84x. Rows on 32-byte
 * sectors cost less: 3000^3 (12000 bytes) 1.3x; B's alone (N-major boxes,
 * 32 k rows of 128 bytes) 1.1-1.2x (8000x1000x4000, 3008x3000x3008), A's
 * alone nothing (3000x3008x3000: copying it lost 8%). Rows 64 bytes off every
 * other line cost only beside another operand off lines: 6000^3 ~1.1x,
 * 2000^3 nothing. 128 x 128 tiles read a third more bytes a flop and lose
 * about a third more. */
static double tf32_line_cost(const wl_problem *p, size_t ld, bool k_major, bool other_off)
{
    switch (wl_gemm_row_phase(ld * 4, p->misalign * 4)) {
    case 128: return 0.0;
    case 64: return other_off ? TF32_K(LINE_COST_64) : 0.0;
    case 32: return k_major && !other_off ? 0.0 : TF32_K(LINE_COST_32);
    default: return k_major ? TF32_K(LINE_COST_OFF_KMAJOR) : TF32_K(LINE_COST_OFF);
    }
}

static bool tf32_rows_off_lines(const wl_problem *p, size_t ld)
{
    return wl_gemm_row_phase(ld * 4, p->misalign * 4) < 128;
}

/* The wgmma kernel (wgmma_ex.sm90a.cu) on K-major operands: 128 x bn tiles
 * (256: 3.3 TFLOP/s an SM, 128: 2.9), k split into whole 32-wide k tiles,
 * (split, tile) units in waves of one an SM plus ~0.7 us of fill a unit;
 * the split's partial sums written, read back and C written, and a second
 * launch; the copies before it (K-major, or onto 128-byte lines where rows
 * off them cost the kernel more than the copy). The best width, split and
 * copies are returned in the choice. */
static double tf32_wgmma_us(const warplab_device_info *device, const wl_problem *p, wl_tf32_plan *c)
{
    const double m = (double)wl_gemm_m(p), n = (double)wl_gemm_n(p), k = (double)wl_gemm_k(p);
    const double sms = wl_gemm_model_sms(device);
    const double bandwidth = wl_gemm_model_bandwidth_gbs(device);
    double copied = 0.0, copies = 0.0; /* elements copied K-major, and launches */
    const bool copy_a = wl_gemm_trans_a(p) || !problem_rows_aligned(p, wl_gemm_lda(p));
    if (copy_a) {
        copied += m * k;
        copies += 1.0;
    }
    /* A row-major B with 16-byte rows is read as stored (gemm_ex_tf32_rs:
     * tiles of bn rows of m x 128 of n, the fragments' loads and a wait a k
     * tile cost about 15% of the rate); otherwise B^T is copied. */
    const bool rs = !wl_gemm_trans_b(p) && problem_rows_aligned(p, wl_gemm_ldb(p));
    const bool copy_b = !rs && (!wl_gemm_trans_b(p) || !problem_rows_aligned(p, wl_gemm_ldb(p)));
    if (copy_b) {
        copied += n * k;
        copies += 1.0;
    }
    c->wgmma_rs = rs;
    /* Operands read in place whose rows are off 128-byte lines: a copy
     * onto lines is an option. */
    const bool off_a = !copy_a && tf32_rows_off_lines(p, wl_gemm_lda(p));
    const bool off_b = !copy_b && tf32_rows_off_lines(p, wl_gemm_ldb(p));
    const double traffic = 4.0 * (m * k + n * k + m * n) / (TF32_K(BANDWIDTH) * bandwidth * 1e3);
    static const int widths[2] = {256, 128};
    const int k_tiles = (int)((wl_gemm_k(p) + 31) / 32);
    int most = k_tiles / 8; /* at least 256 of k a split */
    most = most < 1 ? 1 : most > 64 ? 64 : most;
    double best = HUGE_VAL;
    for (int line_a = 0; line_a <= off_a; line_a++)
        for (int line_b = 0; line_b <= off_b; line_b++) {
            const bool a_off = off_a && !line_a, b_off = off_b && !line_b;
            const double cost = (a_off ? tf32_line_cost(p, wl_gemm_lda(p), true, b_off) : 0.0) +
                                (b_off ? tf32_line_cost(p, wl_gemm_ldb(p), !rs, a_off) : 0.0);
            const double all_copied = copied + (line_a ? m * k : 0.0) + (line_b ? n * k : 0.0);
            /* The copies: a read and a write each, 1.8 to 2.7 TB/s on the
             * H100 (B of 4096^3: 70 us; of 512x4096x11008: 133 us). */
            const double copy_us =
                (copies + line_a + line_b) * TF32_K(COPY_LAUNCH_US) +
                2.0 * all_copied * 4 /
                    (fmin(TF32_K(COPY_BANDWIDTH) * bandwidth, TF32_K(COPY_GBS_MAX)) * 1e3);
            for (int w = 0; w < 2; w++)
                for (int splits = 1; splits <= most; splits++) {
                    const int chunk_tiles = (k_tiles + splits - 1) / splits;
                    if ((k_tiles + chunk_tiles - 1) / chunk_tiles != splits)
                        continue;
                    const double tiles = rs ? ceil(m / widths[w]) * ceil(n / 128)
                                            : ceil(m / 128) * ceil(n / widths[w]);
                    const double rate =
                        (widths[w] == 256 ? TF32_K(SM_GFLOPS) : TF32_K(128_SM_GFLOPS)) *
                        (rs ? TF32_K(RS_RATE) : 1.0) * 1e3;
                    const double slower =
                        1.0 + cost * (widths[w] == 128 ? TF32_K(LINE_128_SLOWER) : 1.0);
                    const double kernel =
                        slower * ceil(tiles * splits / sms) *
                        (2.0 * 128 * widths[w] * 32.0 * chunk_tiles / rate + TF32_K(UNIT_US));
                    double us = TF32_K(FIXED_US) + (kernel > traffic ? kernel : traffic) + copy_us;
                    if (splits > 1)
                        us +=
                            TF32_K(SPLIT_US) + 4.0 * (2.0 * splits + 1.0) * m * n /
                                                   (TF32_K(SPLIT_SUMS_BANDWIDTH) * bandwidth * 1e3);
                    if (us < best) {
                        best = us;
                        c->wgmma_bn = widths[w];
                        c->wgmma_splits = splits;
                        c->wgmma_k_chunk = chunk_tiles * 32;
                        c->wgmma_line_a = line_a;
                        c->wgmma_line_b = line_b;
                    }
                }
        }
    return best;
}

wl_tf32_plan wl_tf32_choose(const warplab_device_info *device, const wl_problem *p,
                            bool fp32_dispatcher, bool tma_available)
{
    wl_tf32_plan c;
    memset(&c, 0, sizeof c);
    c.route = WL_TF32_ROUTE_OTHER;
    if (p->dtype != WARPLAB_FLOAT32 || !(p->variant & WL_GEMM_COMPUTE_TF32) || wl_gemm_k(p) == 0 ||
        wl_gemm_m(p) == 0 || wl_gemm_n(p) == 0)
        return c;
    const size_t m = wl_gemm_m(p), n = wl_gemm_n(p), k = wl_gemm_k(p);
    double best = HUGE_VAL;
    /* The FP32 dispatcher: op N, N float operands as stored. */
    if (p->variant == WL_GEMM_COMPUTE_TF32 && fp32_dispatcher) {
        const wl_gemm_device on = {device->multiprocessors, device->fp32_peak_gflops,
                                   device->theoretical_bandwidth_gbs};
        const wl_gemm_plan plan = wl_gemm_choose(m, n, k, problem_rows_aligned(p, wl_gemm_lda(p)),
                                                 problem_rows_aligned(p, wl_gemm_ldb(p)), &on);
        c.route = WL_TF32_ROUTE_FP32;
        /* The dispatcher's model is optimistic for skinny_m at 16 rows
         * (16x4096x4096: 73 us measured, 27 modelled, on the H100). */
        c.fp32_us = plan.predicted_us * (plan.kernel == WL_GEMM_KERNEL_SKINNY_M && plan.group >= 16
                                             ? TF32_K(SKINNY_M16_FACTOR)
                                             : 1.0);
        best = c.fp32_us;
    }
    if (m <= WL_GEMM_EX_SKINNY || n <= WL_GEMM_EX_SKINNY)
        return c; /* the FP32 dispatcher, or the GEMV family */
    /* The ex_tf32_wgmma row: the wgmma kernel alone. */
    const bool forced = (p->variant & WL_GEMM_EX16_FORCE_WGMMA) != 0;
    if (device->cc_major >= 8 && !forced) {
        const int aligned =
            problem_rows_aligned(p, wl_gemm_lda(p)) && problem_rows_aligned(p, wl_gemm_ldb(p));
        c.tiles = wl_tf32_tiles_choose(m, n, k, device->multiprocessors,
                                       device->theoretical_bandwidth_gbs, aligned);
        if (c.tiles.predicted_us < best) {
            best = c.tiles.predicted_us;
            c.route = WL_TF32_ROUTE_TILES;
        }
    }
    if (tma_available) {
        c.wgmma_us = tf32_wgmma_us(device, p, &c);
        if (c.wgmma_us < best || forced) {
            best = c.wgmma_us;
            c.route = WL_TF32_ROUTE_WGMMA;
        }
    }
    return c;
}
