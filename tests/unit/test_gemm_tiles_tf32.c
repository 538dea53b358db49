/* The TF32 tile model (src/kernels/gemm_tiles_tf32.h, wl_tf32_choose and
 * the small tiles' wl_tf32_tiles_choose) on the host: a table of problems
 * and the plan class each must get (route, wgmma width, register B, the
 * operands copied onto 128-byte lines, split or not), taken from the
 * measured cases its comments cite; the small tiles' fit to the 4096^3
 * runs it was fitted to; then properties over many seeded random problems:
 * the same problem always gets the same plan, every nonempty problem that
 * a TF32 kernel of the device takes gets one with a finite, positive
 * modelled time, the cheapest of the paths priced unless forced, splits
 * cover k in whole k tiles, the small tiles' partial sums stay within
 * their workspace cap, copies and the register-B kernel only where the
 * layout allows, and the forced wgmma kernel honoured exactly where it
 * runs. */
#include "../check.h"
#include "kernels/gemm_problem.h"
#include "kernels/gemm_tiles_tf32.h"
#include "seeded_draws.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The devices the comments' measurements come from, as the model sees
 * them: SMs, theoretical bandwidth (GB/s), FP32 peak (GFLOP/s), compute
 * capability; and a Turing-class one without sm_80. */
enum { H100, H200, A100, T4 };

static warplab_device_info device_of(int which)
{
    warplab_device_info d;
    memset(&d, 0, sizeof d);
    static const int sms[4] = {132, 132, 108, 40};
    static const double bandwidth[4] = {3352.0, 4800.0, 2039.0, 320.0};
    static const double fp32[4] = {66900.0, 66900.0, 19500.0, 8100.0};
    static const int cc[4][2] = {{9, 0}, {9, 0}, {8, 0}, {7, 5}};
    d.multiprocessors = sms[which];
    d.theoretical_bandwidth_gbs = bandwidth[which];
    d.fp32_peak_gflops = fp32[which];
    d.cc_major = cc[which][0];
    d.cc_minor = cc[which][1];
    return d;
}

/* The TMA + wgmma kernels run on the Hopper devices only. */
static bool tma_of(int which)
{
    return which == H100 || which == H200;
}

static wl_problem problem(size_t m, size_t n, size_t k, int variant)
{
    const wl_problem p = {.dim = {m, n, k},
                          .dims = 3,
                          .dtype = WARPLAB_FLOAT32,
                          .alpha = 1.0,
                          .variant = WL_GEMM_COMPUTE_TF32 | variant};
    return p;
}

#define TA WL_GEMM_TRANS_A
#define TB WL_GEMM_TRANS_B
#define FW WL_GEMM_EX16_FORCE_WGMMA
#define OTHER WL_TF32_ROUTE_OTHER
#define WGMMA WL_TF32_ROUTE_WGMMA
#define TILES WL_TF32_ROUTE_TILES
#define FP32 WL_TF32_ROUTE_FP32

/* A measured case and its plan class. dispatcher: the FP32 dispatcher runs
 * the problem (the caller's answer for op N, N on sm_80); bn, rs, lines
 * (bit 0 A, bit 1 B onto 128-byte lines) and split: WL_TF32_ROUTE_WGMMA's
 * plan, split also WL_TF32_ROUTE_TILES'; tile: WL_TF32_ROUTE_TILES'. */
typedef struct tf32_case {
    int device;
    size_t m, n, k;
    int variant;
    bool dispatcher;
    wl_tf32_route route;
    int bn;
    bool rs;
    int lines;
    bool split;
    int tile;
    const char *why; /* the comment the case comes from */
} tf32_case;

static const tf32_case cases[] = {
    /* 4096^3, N, N: the register-B kernel (B read as stored) beats a
     * transposing copy of B (~45-50 us of ~340); the wide tile. */
    {H100, 4096, 4096, 4096, 0, true, WGMMA, 256, true, 0, false, 0, "4096^3 register B"},
    {H200, 4096, 4096, 4096, 0, true, WGMMA, 256, true, 0, false, 0, "4096^3 register B"},
    /* line_cost: rows off the 128-byte lines. 3500^3 (rows of 14000
     * bytes) 446 us against 228 for 3520^3: both copied onto lines; 2500^3
     * 1.65-1.84x: both; 3000^3 (32-byte sectors) 1.3x: B, but A's 32-byte
     * step alone costs nothing (3000x3008x3000: copying it lost 8%); B's
     * alone 1.1-1.2x (8000x1000x4000, 3008x3000x3008): B; 64 bytes off
     * every other line alone, 2000^3: nothing. */
    {H100, 3500, 3500, 3500, 0, true, WGMMA, 256, true, 3, false, 0, "3500^3 446 us"},
    {H100, 3520, 3520, 3520, 0, true, WGMMA, 256, true, 0, false, 0, "3520^3 228 us"},
    {H100, 2500, 2500, 2500, 0, true, WGMMA, 256, true, 3, false, 0, "2500^3 1.65-1.84x"},
    {H100, 3000, 3000, 3000, 0, true, WGMMA, 128, true, 2, false, 0, "3000^3 1.3x"},
    {H100, 3000, 3008, 3000, 0, true, WGMMA, 128, true, 0, false, 0, "A's copy lost 8%"},
    {H100, 8000, 1000, 4000, 0, true, WGMMA, 256, true, 2, false, 0, "B's alone 1.1-1.2x"},
    {H100, 3008, 3000, 3008, 0, true, WGMMA, 128, true, 2, false, 0, "B's alone 1.1-1.2x"},
    {H100, 2000, 2000, 2000, 0, true, WGMMA, 256, true, 0, false, 0, "2000^3 nothing"},
    /* The dispatcher's skinny_m at 16 rows (16x4096x4096: 73 us measured,
     * 27 modelled): priced up, the wgmma kernel runs. */
    {H100, 16, 4096, 4096, 0, true, WGMMA, 128, true, 0, true, 0, "skinny_m 73 us"},
    /* copy_launch_us: the small odd shapes with copies go to the small
     * tiles (21.3 us; the FP32 dispatcher took 20.2, within the tiles'
     * model since its unaligned cost was refitted at 1.16 on the H200), not
     * to the wgmma kernel; forced (the ex_tf32_wgmma row), the wgmma one. */
    {H100, 777, 555, 333, 0, true, TILES, 0, false, 0, false, WL_TF32_TILE_64X64,
     "small tiles, dispatcher 20.2 us"},
    {H100, 777, 555, 333, TA, false, TILES, 0, false, 0, false, WL_TF32_TILE_64X64,
     "small tiles 21.3 us"},
    {H100, 777, 555, 333, FW, true, WGMMA, 128, false, 0, false, 0, "forced wgmma"},
    /* No TMA (sm_80): the small tiles; 4096^3 in 128 x 128 tiles (1169 us
     * against 1368 in 128x64, 1607 in 64x64); forced (the ex_tf32_wgmma
     * row: the wgmma kernel alone), none. Without sm_80 (no dispatcher
     * either): none of these kernels, gemm_ex_tiled. */
    {A100, 4096, 4096, 4096, 0, true, TILES, 0, false, 0, false, WL_TF32_TILE_128X128,
     "128x128 1169 us"},
    {A100, 4096, 4096, 4096, FW, true, OTHER, 0, false, 0, false, 0, "forced, no TMA"},
    {T4, 4096, 4096, 4096, 0, false, OTHER, 0, false, 0, false, 0, "no sm_80"},
    /* Skinny problems (m or n <= 8): the dispatcher, or the GEMV family. */
    {H100, 8, 4096, 4096, 0, true, FP32, 0, false, 0, false, 0, "skinny, N, N"},
    {H100, 4096, 8, 4096, TA, false, OTHER, 0, false, 0, false, 0, "skinny, GEMV"},
    /* k = 0: C = beta C, the tiled fallback. */
    {H100, 4096, 4096, 0, 0, true, OTHER, 0, false, 0, false, 0, "k = 0"},
};

static double route_us(const wl_tf32_plan *plan)
{
    switch (plan->route) {
    case WL_TF32_ROUTE_WGMMA: return plan->wgmma_us;
    case WL_TF32_ROUTE_TILES: return plan->tiles.predicted_us;
    case WL_TF32_ROUTE_FP32: return plan->fp32_us;
    default: return 0.0;
    }
}

static void test_cases(void)
{
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const tf32_case *c = &cases[i];
        const warplab_device_info d = device_of(c->device);
        const wl_problem p = problem(c->m, c->n, c->k, c->variant);
        const wl_tf32_plan plan = wl_tf32_choose(&d, &p, c->dispatcher, tma_of(c->device));
        const int lines = (plan.wgmma_line_a ? 1 : 0) | (plan.wgmma_line_b ? 2 : 0);
        bool ok = plan.route == c->route;
        if (ok && c->route == WGMMA)
            ok = plan.wgmma_bn == c->bn && plan.wgmma_rs == c->rs && lines == c->lines &&
                 (plan.wgmma_splits > 1) == c->split;
        if (ok && c->route == TILES)
            ok = plan.tiles.tile == c->tile && (plan.tiles.splits > 1) == c->split;
        CHECK_MSG(ok,
                  "%zu x %zu x %zu (variant %d, %s): route %d bn %d rs %d lines %d wgmma splits "
                  "%d tile %d tile splits %d; want route %d bn %d rs %d lines %d split %d tile %d",
                  c->m, c->n, c->k, c->variant, c->why, (int)plan.route, plan.wgmma_bn,
                  (int)plan.wgmma_rs, lines, plan.wgmma_splits, plan.tiles.tile, plan.tiles.splits,
                  (int)c->route, c->bn, (int)c->rs, c->lines, (int)c->split, c->tile);
        if (c->route != OTHER)
            CHECK_MSG(isfinite(route_us(&plan)) && route_us(&plan) > 0.0, "%s: %g us", c->why,
                      route_us(&plan));
    }
    /* Not TF32 compute, or not float operands: no TF32 route. */
    wl_problem p = problem(4096, 4096, 4096, 0);
    p.variant = 0;
    const warplab_device_info h100 = device_of(H100);
    CHECK(wl_tf32_choose(&h100, &p, true, true).route == OTHER);
    p = problem(4096, 4096, 4096, 0);
    p.dtype = WARPLAB_BFLOAT16;
    CHECK(wl_tf32_choose(&h100, &p, true, true).route == OTHER);
}

/* The small tiles' constants were fitted on the H200's TF32 tuning set
 * (gemm_tiles_tf32.c), 4096^3 among it: 1075 us in 128x128 tiles, 1437 in
 * 128x64, 1692 in 64x64; the model is within 25% of each (its form prices
 * one rate for one block an SM and for many waves: 128x128 1308 us, 22%
 * over), and 4096x4096x64 took 63 us on every tile (C's stores, H100). */
static void test_tiles_fit(void)
{
    static const double measured[WL_TF32_TILE_COUNT] = {1692.0, 1437.0, 1075.0};
    for (int tile = 0; tile < WL_TF32_TILE_COUNT; tile++) {
        const wl_tf32_tiles_plan plan =
            wl_tf32_tiles_plan_for(tile, 4096, 4096, 4096, 132, 4800.0, 1);
        CHECK_MSG(fabs(plan.predicted_us / measured[tile] - 1.0) < 0.25,
                  "tile %s: %.1f us modelled, %.0f measured", wl_tf32_tile_kinds[tile].name,
                  plan.predicted_us, measured[tile]);
        const wl_tf32_tiles_plan thin =
            wl_tf32_tiles_plan_for(tile, 4096, 4096, 64, 132, 3352.0, 1);
        CHECK_MSG(fabs(thin.predicted_us / 63.0 - 1.0) < 0.05, "tile %s, k = 64: %.1f us",
                  wl_tf32_tile_kinds[tile].name, thin.predicted_us);
    }
    wl_tf32_tiles_plan plan = {WL_TF32_TILE_128X64, 3, 1024, 0, 1.0};
    CHECK(wl_tf32_tiles_scratch(&plan, 100, 200) == (size_t)3 * 100 * 200 * sizeof(float));
    plan.splits = 1;
    CHECK(wl_tf32_tiles_scratch(&plan, 100, 200) == 0);
    char text[96];
    wl_tf32_tiles_describe(&plan, text, sizeof text);
    CHECK_STR(text, "picked tf32_tile_128x64 (model 1.0 us)");
}

/* Rows start on 16-byte boundaries (float elements). */
static bool rows_16(size_t ld, size_t misalign)
{
    return ld % 4 == 0 && misalign % 4 == 0;
}

/* Rows start on 128-byte lines. */
static bool rows_on_lines(size_t ld, size_t misalign)
{
    return ld * 4 % 128 == 0 && misalign * 4 % 128 == 0;
}

static bool same_plan(const wl_tf32_plan *a, const wl_tf32_plan *b)
{
    return a->route == b->route && a->tiles.tile == b->tiles.tile &&
           a->tiles.splits == b->tiles.splits && a->tiles.k_chunk == b->tiles.k_chunk &&
           memcmp(&a->tiles.predicted_us, &b->tiles.predicted_us, sizeof(double)) == 0 &&
           memcmp(&a->wgmma_us, &b->wgmma_us, sizeof(double)) == 0 &&
           memcmp(&a->fp32_us, &b->fp32_us, sizeof(double)) == 0 && a->wgmma_bn == b->wgmma_bn &&
           a->wgmma_splits == b->wgmma_splits && a->wgmma_k_chunk == b->wgmma_k_chunk &&
           a->wgmma_rs == b->wgmma_rs && a->wgmma_line_a == b->wgmma_line_a &&
           a->wgmma_line_b == b->wgmma_line_b;
}

/* splits chunks of k_chunk, a multiple of quantum, cover k: no chunk empty. */
static bool covers(int splits, int k_chunk, size_t k, int quantum)
{
    return splits >= 1 && k_chunk > 0 && k_chunk % quantum == 0 &&
           (size_t)splits * (size_t)k_chunk >= k && (size_t)(splits - 1) * (size_t)k_chunk < k;
}

static void test_properties(void)
{
    const int count = 40000;
    int failures_before = check_failures, routes[4] = {0}, forced_wgmma = 0, lines = 0;
    for (int i = 0; i < count && check_failures - failures_before < 20; i++) {
        const int which = (int)(draw() % 4);
        const warplab_device_info d = device_of(which);
        const bool tma = tma_of(which);
        const unsigned r = (unsigned)draw();
        const int variant = ((r & 1) ? TA : 0) | ((r >> 1 & 1) ? TB : 0) | ((r >> 2 & 7) ? 0 : FW);
        wl_problem p =
            problem(draw_side(70000), (r >> 5 & 7) == 0 ? 1 + draw() % 16 : draw_side(70000),
                    (r >> 8 & 63) == 0 ? 0 : draw_side(70000), variant);
        p.misalign = r >> 14 & 3;
        draw_gemm_lds(&p, r >> 16, 40); /* tight, or padded by 0 to 40 elements */
        const size_t m = p.dim[0], n = p.dim[1], k = p.dim[2];
        const bool forced = (variant & FW) != 0;
        /* The caller's answer: the dispatcher runs N, N on sm_80, mostly
         * (read for op N, N without force bits alone). */
        const bool dispatcher =
            variant == 0 && d.cc_major >= 8 ? (r >> 20 & 7) != 0 : (r >> 20 & 1) != 0;
        const wl_tf32_plan plan = wl_tf32_choose(&d, &p, dispatcher, tma);
        /* The same problem, a copy of it, the same plan. */
        const wl_problem again = p;
        const wl_tf32_plan plan2 = wl_tf32_choose(&d, &again, dispatcher, tma);
        CHECK_MSG(same_plan(&plan, &plan2), "%zu x %zu x %zu: two plans", m, n, k);
        routes[plan.route]++;
        const bool empty = m == 0 || n == 0 || k == 0;
        const bool skinny = m <= WL_GEMM_EX_SKINNY || n <= WL_GEMM_EX_SKINNY;
        const bool fp32 = !empty && variant == 0 && dispatcher;
        /* The route each problem must get where its class decides it. */
        if (empty || (skinny && !fp32) || (!fp32 && !tma && (d.cc_major < 8 || forced))) {
            CHECK_MSG(plan.route == OTHER, "%zu x %zu x %zu v%d cc %d: route %d, want none", m, n,
                      k, variant, d.cc_major, (int)plan.route);
            continue;
        }
        if (skinny || (!tma && (d.cc_major < 8 || forced))) {
            CHECK_MSG(plan.route == FP32, "%zu x %zu x %zu v%d cc %d: route %d, want FP32", m, n, k,
                      variant, d.cc_major, (int)plan.route);
        } else if (forced) {
            CHECK_MSG(plan.route == WGMMA, "%zu x %zu x %zu forced: route %d", m, n, k,
                      (int)plan.route);
            forced_wgmma++;
        } else {
            CHECK_MSG(plan.route != OTHER && (fp32 || plan.route != FP32) &&
                          (tma || plan.route != WGMMA),
                      "%zu x %zu x %zu v%d: route %d", m, n, k, variant, (int)plan.route);
        }
        const double us = route_us(&plan);
        CHECK_MSG(isfinite(us) && us > 0.0, "%zu x %zu x %zu route %d: %g us", m, n, k,
                  (int)plan.route, us);
        /* The cheapest of the paths priced, unless forced. */
        if (!forced && !skinny) {
            if (fp32)
                CHECK(us <= plan.fp32_us);
            if (d.cc_major >= 8)
                CHECK(us <= plan.tiles.predicted_us);
            if (tma)
                CHECK(us <= plan.wgmma_us);
        }
        if (plan.route == TILES || (!skinny && !forced && d.cc_major >= 8)) {
            const wl_tf32_tiles_plan *t = &plan.tiles;
            CHECK(t->tile >= 0 && t->tile < WL_TF32_TILE_COUNT);
            CHECK_MSG(covers(t->splits, t->k_chunk, k, TF32T_BK) && t->splits <= 64,
                      "tiles %zu x %zu x %zu: %d x %d", m, n, k, t->splits, t->k_chunk);
            CHECK_MSG(t->splits == 1 || wl_tf32_tiles_scratch(t, m, n) <= (size_t)256 << 20,
                      "tiles %zu x %zu x %zu: %zu bytes of partial sums", m, n, k,
                      wl_tf32_tiles_scratch(t, m, n));
        }
        if (plan.route == WGMMA) {
            CHECK(plan.wgmma_bn == 128 || plan.wgmma_bn == 256);
            CHECK_MSG(
                covers(plan.wgmma_splits, plan.wgmma_k_chunk, k, 32) && plan.wgmma_splits <= 64,
                "wgmma %zu x %zu x %zu: %d x %d", m, n, k, plan.wgmma_splits, plan.wgmma_k_chunk);
            /* B from registers: op N with 16-byte rows. A copied onto lines:
             * read in place (op N, 16-byte rows) and off lines; B likewise
             * (op T K-major, or the register kernel's row-major B). */
            const bool a_in_place = !(variant & TA) && rows_16(wl_gemm_lda(&p), p.misalign);
            const bool b_16 = rows_16(wl_gemm_ldb(&p), p.misalign);
            CHECK(plan.wgmma_rs == (!(variant & TB) && b_16));
            CHECK(!plan.wgmma_line_a ||
                  (a_in_place && !rows_on_lines(wl_gemm_lda(&p), p.misalign)));
            CHECK(!plan.wgmma_line_b || (((variant & TB) || plan.wgmma_rs) && b_16 &&
                                         !rows_on_lines(wl_gemm_ldb(&p), p.misalign)));
            lines += plan.wgmma_line_a || plan.wgmma_line_b;
        }
    }
    /* The draws reach every route, the forced kernel and the line copies. */
    for (int route = 0; route < 4; route++)
        CHECK_MSG(routes[route] > 0, "no plan of route %d in %d problems", route, count);
    CHECK(forced_wgmma > 0 && lines > 0);
}

int main(void)
{
    test_cases();
    test_tiles_fit();
    test_properties();
    return check_report("test_gemm_tiles_tf32");
}
