/* The 16-bit tile model (src/kernels/gemm_tiles16.h, wl_ex16_choose) on
 * the host: a table of problems and the plan class each must get (kind,
 * tile, split or not, stream-K shares or not, the operands re-strided),
 * taken from the measured cases its comments cite; then properties over
 * many seeded random problems: the same problem always gets the same plan,
 * every nonempty problem on sm_80 or newer gets a kernel and a finite,
 * positive modelled time, splits cover k in whole k tiles of their kernel
 * (64 for wgmma, EX16_BK for mma.sync, EX16_THIN_STEP for the thin
 * kernel), every operand whose rows are not 16-byte aligned is re-strided
 * before the wgmma kernel reads it, 192 x 128 tiles only where m > 128,
 * stream-K shares only on one split of 128-row tiles, the transposed problem only for n = 1, the
 * thin kernel only when forced, and forced kinds honoured exactly where they run. */
#include "../check.h"
#include "kernels/gemm_problem.h"
#include "kernels/gemm_tiles16.h"
#include "seeded_draws.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The devices the comments' measurements come from, as the model sees
 * them: SMs, theoretical bandwidth (GB/s), compute capability. */
enum { H100, H200, A100 };

static warplab_device_info device_of(int which)
{
    warplab_device_info d;
    memset(&d, 0, sizeof d);
    d.multiprocessors = which == A100 ? 108 : 132;
    d.theoretical_bandwidth_gbs = which == H100 ? 3352.0 : which == H200 ? 4800.0 : 2039.0;
    d.cc_major = which == A100 ? 8 : 9;
    d.cc_minor = 0;
    return d;
}

/* The TMA + wgmma kernels run on the Hopper devices only. */
static bool tma_of(int which)
{
    return which != A100;
}

static wl_problem problem(size_t m, size_t n, size_t k, int variant)
{
    const wl_problem p = {
        .dim = {m, n, k}, .dims = 3, .dtype = WARPLAB_BFLOAT16, .alpha = 1.0, .variant = variant};
    return p;
}

#define TA WL_GEMM_TRANS_A
#define TB WL_GEMM_TRANS_B
/* A case's tile: the wgmma kernel's 192 x 128 (plan.rows 192, tile 128). */
#define TALL EX16_WGMMA_TALL
#define SWAP WL_EX16_SWAPPED

/* A measured case and its plan class. split: splits > 1; sk: stream-K
 * shares; restride: the operands copied onto 16-byte rows (bit 0 A, bit 1
 * B) before the wgmma kernel. */
typedef struct tiles16_case {
    int device;
    size_t m, n, k;
    int variant;
    wl_ex16_kind kind;
    int tile;
    bool split, sk;
    int restride;
    int transposed;  /* 1: y = A x as C^T; WL_EX16_SWAPPED */
    const char *why; /* the comment the case comes from */
} tiles16_case;

static const tiles16_case cases[] = {
    /* wgmma_model: the wide tile over many waves; 128 x 128 tiles for
     * 512 x 4096 x 11008 (69 us); 3001 x 2999 x 1001 (a partial last wave:
     * the narrower tile 0.91x the wide one's time). */
    {H100, 4096, 4096, 4096, 0, WL_EX16_WGMMA, 256, false, false, 0, 0, "4096^3 128 x 256"},
    {H100, 512, 4096, 11008, 0, WL_EX16_WGMMA, 128, false, false, 0, 0, "128 x 128, 69 us"},
    /* (3001 x 2999 x 1001 now 192 x 128: on the H200 94.9 us against 95.4
     * in 128 x 128.) */
    {H100, 3001, 2999, 1001, 0, WL_EX16_WGMMA, TALL, false, false, 3, 0, "3001 x 2999 x 1001"},
    /* One row of tiles: 64 x 11008 x 4096 in 86 units of 128 x 128 (the
     * narrow tile's 172 units take two waves); 2 to 64 x 4096 x 4096 in 64
     * narrow units, unsplit; 128 x 128 x 32768 split (19 us in 37 splits). */
    {H100, 64, 11008, 4096, 0, WL_EX16_WGMMA, 128, false, false, 0, 0, "86 units, 36 us"},
    {H100, 2, 4096, 4096, 0, WL_EX16_WGMMA, 64, false, false, 0, 0, "64 narrow units"},
    {H100, 128, 128, 32768, 0, WL_EX16_WGMMA, 64, true, false, 0, 0, "split k, 19 us"},
    /* The narrow 64 x 64 tile where its tiles make one wave: 256^3, 512^3,
     * 8192 x 32 x 4096, 777 x 555 x 333; not 1000^3 (two waves, 40% lost);
     * n <= 128 keeps 128-wide tiles (65536 x 64 x 64: 32 us in 256-wide). */
    {H100, 256, 256, 256, 0, WL_EX16_WGMMA, 64, false, false, 0, 0, "narrow tile"},
    {H100, 512, 512, 512, 0, WL_EX16_WGMMA, 64, false, false, 0, 0, "narrow tile"},
    {H100, 8192, 32, 4096, 0, WL_EX16_WGMMA, 64, false, false, 0, 0, "narrow tile"},
    {H100, 1000, 1000, 1000, 0, WL_EX16_WGMMA, 128, false, false, 0, 0, "two narrow waves"},
    {H100, 65536, 64, 64, 0, WL_EX16_WGMMA, 128, false, false, 0, 0, "n <= 128"},
    /* The decode shapes of scripts/gemm_tile_tuning.sh (H200): 128 x 128
     * tiles in 3 splits, 16 x 4608 x 14336 52.4 -> 40.4 us; B either
     * layout (wgmma reads both as stored). */
    {H200, 16, 4608, 14336, 0, WL_EX16_WGMMA, 128, true, false, 0, 0, "decode, 3 splits"},
    {H200, 16, 4608, 14336, TB, WL_EX16_WGMMA, 128, true, false, 0, 0, "decode, op_b = T"},
    /* Stream-K shares: on for the 8 H100 shapes that gained (four of them
     * here) and 2 of the 14 that judged it (1920 x 7168 x 4096, 3840^3);
     * off for 1792 x 2560 x 1024, 2200^3, 6144^3, 1408 x 4352 x 6144 and
     * 2432 x 2432 x 16384 (k past 128 k tiles). H200, the tuning set's
     * prefill: on for 1800 x 5120, 3000 x 6144, 4500 x 1024 (k = 4096), off
     * for 2500 x 4096 x 4096. */
    /* 3008^3 and 2304 x 4096 x 8192 (shares gained) take the 192 x 128 tile
     * now: on the H200 82.1 us against 91.5 with shares, and 206.5 against
     * 214 (below). */
    {H100, 3008, 3008, 3008, 0, WL_EX16_WGMMA, TALL, false, false, 0, 0, "192 x 128"},
    {H100, 2304, 4096, 8192, 0, WL_EX16_WGMMA, TALL, false, false, 0, 0, "192 x 128"},
    {H100, 4096, 4352, 4096, 0, WL_EX16_WGMMA, 256, false, true, 0, 0, "sk gained"},
    {H100, 2048, 11008, 4096, 0, WL_EX16_WGMMA, 256, false, true, 0, 0, "sk gained"},
    {H100, 1920, 7168, 4096, 0, WL_EX16_WGMMA, 256, false, true, 0, 0, "sk judged"},
    {H100, 3840, 3840, 3840, 0, WL_EX16_WGMMA, 256, false, true, 0, 0, "sk judged"},
    /* 1792 x 2560 x 1024 and 2200^3 in 192 x 128 tiles (shares still off):
     * on the H200 26.7 us against 25.8 in 128 x 128 (the fit's one miss,
     * 3.5%), and 63.0 against 64.3. */
    {H100, 1792, 2560, 1024, 0, WL_EX16_WGMMA, TALL, false, false, 0, 0, "sk off, 192 x 128"},
    {H100, 2200, 2200, 2200, 0, WL_EX16_WGMMA, TALL, false, false, 3, 0, "sk off, 192 x 128"},
    {H100, 6144, 6144, 6144, 0, WL_EX16_WGMMA, 256, false, false, 0, 0, "sk off"},
    {H100, 1408, 4352, 6144, 0, WL_EX16_WGMMA, 128, false, false, 0, 0, "sk 16% slower"},
    /* (192 x 128 now: on the H200 266.9 us against 276.0 in 128 x 128.) */
    {H100, 2432, 2432, 16384, 0, WL_EX16_WGMMA, TALL, false, false, 0, 0, "k > 128 tiles"},
    {H200, 1800, 5120, 4096, 0, WL_EX16_WGMMA, 256, false, true, 0, 0, "sk gained"},
    {H200, 3000, 6144, 4096, 0, WL_EX16_WGMMA, 256, false, true, 0, 0, "sk gained"},
    {H200, 4500, 1024, 4096, 0, WL_EX16_WGMMA, 256, false, true, 0, 0, "sk gained"},
    {H200, 2500, 4096, 4096, 0, WL_EX16_WGMMA, 128, false, false, 0, 0, "sk lost"},
    /* The 192 x 128 tile (three consumers), the tuning set of its rate
     * (docs/DECISIONS.md, "The 192x128 16-bit tile"; H200, the 8 16-bit
     * cells' geomean, against the 128-row plan): m just past a multiple of
     * 128 in one to three waves of it (539 x 11008 x 4096 92.4 -> 72.4 us,
     * 535 x 5120 x 5120 55.5 -> 45.3, 700 x 4096 x 4096 46.4 -> 38.4, 570 x
     * 14336 x 4096 118.5 -> 108.0), and 2304 x 4096 x 8192 (214 -> 206.5);
     * not where it runs more, fuller waves (1100 x 6144 x 4096 1.15x
     * slower, 7000 x 1024 x 4096 1.17x, 1500 x 11008 x 8192 1.14x, 2500 x
     * 4096 x 4096 1.22x, 1800 x 5120 x 4096 1.18x, 4500 x 1024 x 4096
     * 1.01x, 3000 x 6144 x 4096 a tie), nor for 180 x 8192 x 4096. */
    {H200, 539, 11008, 4096, 0, WL_EX16_WGMMA, TALL, false, false, 0, 0, "92.4 -> 72.4 us"},
    {H200, 539, 11008, 4096, TB, WL_EX16_WGMMA, TALL, false, false, 0, 0, "op_b = T"},
    {H200, 535, 5120, 5120, 0, WL_EX16_WGMMA, TALL, false, false, 0, 0, "55.5 -> 45.3 us"},
    {H200, 700, 4096, 4096, 0, WL_EX16_WGMMA, TALL, false, false, 0, 0, "46.4 -> 38.4 us"},
    {H200, 570, 14336, 4096, 0, WL_EX16_WGMMA, TALL, false, false, 0, 0, "118.5 -> 108 us"},
    {H200, 2304, 4096, 8192, 0, WL_EX16_WGMMA, TALL, false, false, 0, 0, "214 -> 206.5 us"},
    {H200, 1100, 6144, 4096, 0, WL_EX16_WGMMA, 256, false, false, 0, 0, "tall 1.15x slower"},
    {H200, 7000, 1024, 4096, 0, WL_EX16_WGMMA, 256, false, false, 0, 0, "tall 1.17x slower"},
    {H200, 1500, 11008, 8192, 0, WL_EX16_WGMMA, 256, false, false, 0, 0, "tall 1.14x slower"},
    {H200, 180, 8192, 4096, 0, WL_EX16_WGMMA, 128, false, false, 0, 0, "128 x 128"},
    /* The GPU tests' 192 x 128 cases (tests/unit/test_gemm_ex_api.c,
     * tall_cases; tight here): every op of 539 x 4096 x 256 (A re-strided
     * with op T), a last tile row of one row, k split in 5 on one tile row. */
    {H200, 539, 4096, 256, 0, WL_EX16_WGMMA, TALL, false, false, 0, 0, "tall_cases"},
    {H200, 539, 4096, 256, TB, WL_EX16_WGMMA, TALL, false, false, 0, 0, "tall_cases"},
    {H200, 539, 4096, 256, TA, WL_EX16_WGMMA, TALL, false, false, 1, 0, "tall_cases"},
    {H200, 539, 4096, 256, TA | TB, WL_EX16_WGMMA, TALL, false, false, 1, 0, "tall_cases"},
    {H200, 577, 4096, 1024, 0, WL_EX16_WGMMA, TALL, false, false, 0, 0, "tall_cases"},
    {H200, 577, 4096, 1024, TA, WL_EX16_WGMMA, TALL, false, false, 1, 0, "tall_cases"},
    {H200, 191, 3072, 4096, TB, WL_EX16_WGMMA, TALL, true, false, 0, 0, "tall_cases, split"},
    {H200, 191, 3070, 4096, TB, WL_EX16_WGMMA, TALL, true, false, 0, 0, "tall_cases, split"},
    /* Rows off 16 bytes re-strided before the wgmma kernel: 17 x 3001 x
     * 1999 and 777 x 555 x 333 (A and B); 61 x 200 x 97 (A off 16 bytes,
     * B's 400-byte rows off the 128-byte lines: copied too) and 200 x 61 x
     * 97; the unaligned tuning shapes 40001 x 180 x 2001 and 301^3. */
    {H100, 17, 3001, 1999, 0, WL_EX16_WGMMA, 64, false, false, 3, 0, "A and B re-strided"},
    {H100, 777, 555, 333, 0, WL_EX16_WGMMA, 64, false, false, 3, 0, "A and B re-strided"},
    {H200, 61, 200, 97, 0, WL_EX16_WGMMA, 64, false, false, 3, 0, "A re-strided, B off lines"},
    {H200, 200, 61, 97, 0, WL_EX16_WGMMA, 64, false, false, 3, 0, "A and B re-strided"},
    {H200, 40001, 180, 2001, 0, WL_EX16_WGMMA, 128, false, false, 3, 0, "unaligned tuning"},
    {H200, 301, 301, 301, 0, WL_EX16_WGMMA, 64, false, false, 3, 0, "unaligned tuning"},
    /* y = A x through the narrow tile on C^T = x^T A^T: 4096 x 1 x 4096
     * 22.4 -> 18.1 us (H100). */
    {H100, 4096, 1, 4096, 0, WL_EX16_WGMMA, 64, false, false, 0, 1, "y = A x transposed"},
    /* Small squares on the narrow tile, not mma.sync (H200: 128^3 6.0-6.8
     * us against 7.2-8.4, 240^3 6.4-7.3 against 9.0-10.2). mma.sync
     * without TMA (sm_80): 128 x 128 tiles on 256 x 14336 x 4096, 64 x 64
     * on 1024^3; on rows off 16 bytes, split k (17 x 3001 x 1999). */
    {H100, 128, 128, 128, 0, WL_EX16_WGMMA, 64, false, false, 0, 0, "narrow, 128^3"},
    {H200, 240, 240, 240, 0, WL_EX16_WGMMA, 64, false, false, 0, 0, "narrow, 240^3"},
    {A100, 256, 14336, 4096, 0, WL_EX16_MMA, 0, false, false, 0, 0, "mma128"},
    {A100, 1024, 1024, 1024, 0, WL_EX16_MMA, 1, false, false, 0, 0, "mma64"},
    {A100, 17, 3001, 1999, 0, WL_EX16_MMA, 1, true, false, 0, 0, "unaligned, split"},
    /* The TMA path forced: the unaligned tuning shape (341 us). */
    {H200, 40001, 180, 2001, WL_GEMM_EX16_FORCE_TMA, WL_EX16_TMA, 0, false, false, 0, false,
     "ex16_tma forced"},
    /* Forced where it cannot run: the tiled fallback. */
    {A100, 4096, 4096, 4096, WL_GEMM_EX16_FORCE_WGMMA, WL_EX16_TILED, 0, false, false, 0, false,
     "no TMA"},
    {H100, 65, 4096, 4096, WL_GEMM_EX16_FORCE_THIN, WL_EX16_TILED, 0, false, false, 0, false,
     "small side past 64"},
    /* The swapped product, 128 x 96 tiles of C^T (wgmma_swap_rate: H200,
     * the swap tuning set, 264 x 14336 x 4096 106 -> 81 us and 275 x 8192 x
     * 28672 340 -> 236, both op(B)); swapped_cases' shapes. */
    {H200, 264, 14336, 4096, 0, WL_EX16_WGMMA, 96, false, false, 0, SWAP, "swap tuning"},
    {H200, 275, 8192, 28672, TB, WL_EX16_WGMMA, 96, true, false, 0, SWAP, "swap tuning, split"},
    {H200, 261, 4096, 2048, 0, WL_EX16_WGMMA, 96, false, false, 0, SWAP, "swapped_cases"},
    {H200, 261, 4096, 2048, TB, WL_EX16_WGMMA, 96, false, false, 0, SWAP, "swapped_cases"},
    {H200, 263, 3000, 2048, 0, WL_EX16_WGMMA, 96, false, false, 0, SWAP, "swapped_cases"},
    {H200, 263, 3000, 2048, TB, WL_EX16_WGMMA, 96, false, false, 0, SWAP, "swapped_cases"},
    {H200, 270, 2000, 4096, 0, WL_EX16_WGMMA, 96, true, false, 0, SWAP, "swapped_cases, split"},
    {H200, 270, 2000, 4096, TB, WL_EX16_WGMMA, 96, true, false, 0, SWAP, "swapped_cases, split"},
    /* op(A) = T: the kernel would read A^T N-major, which its 96-wide tile
     * does not; not swapped. */
    {H200, 261, 4096, 2048, TA, WL_EX16_WGMMA, 128, false, false, 1, 0, "not swapped: op(A) T"},
    /* ex16_thin where the big operand's rows are 8 or 4 bytes off 16 and
     * the small side is at most 16 (the thin tuning set: 45000 x 12 x 2020
     * N,T 188.6 -> 89.0 us, 37000 x 10 x 1030 78.9 -> 60.4); not where they
     * are on 16 bytes (50000 x 16 x 1024: the wgmma kernel, 32 us against
     * 52), nor past 16 rows (60000 x 20 x 1100), nor element by element
     * (odd k: 56808 x 13 x 1027). */
    {H200, 45000, 12, 2020, 0, WL_EX16_THIN, 1, false, false, 0, 0, "thin tuning"},
    {H200, 45000, 12, 2020, TB, WL_EX16_THIN, 1, false, false, 0, 0, "thin tuning"},
    {H200, 37000, 10, 1030, 0, WL_EX16_THIN, 1, false, false, 0, 0, "thin tuning"},
    {H200, 37000, 10, 1030, TB, WL_EX16_THIN, 1, false, false, 0, 0, "thin tuning"},
    {H200, 50000, 16, 1024, 0, WL_EX16_WGMMA, 128, false, false, 0, 0, "thin tuning: aligned"},
    {H200, 60000, 20, 1100, 0, WL_EX16_WGMMA, 128, false, false, 3, 0, "thin tuning: 20 rows"},
    {H200, 56808, 13, 1027, 0, WL_EX16_WGMMA, 128, false, false, 3, 0, "odd k"},
    /* thin_cases' shapes (tests/unit/test_gemm_ex_api.c): k split. */
    {H200, 4000, 12, 1020, 0, WL_EX16_THIN, 1, true, false, 0, 0, "thin_cases, split"},
    {H200, 4000, 12, 1020, TB, WL_EX16_THIN, 1, true, false, 0, 0, "thin_cases, split"},
    {H200, 2000, 16, 1004, 0, WL_EX16_THIN, 1, true, false, 0, 0, "thin_cases, split"},
    {H200, 2000, 16, 1004, TB, WL_EX16_THIN, 1, true, false, 0, 0, "thin_cases, split"},
    {H200, 10, 6144, 2020, TB, WL_EX16_THIN, 1, true, false, 0, 0, "thin_cases, split"},
    {H200, 30000, 12, 1020, 0, WL_EX16_THIN, 1, true, false, 0, 0, "thin_cases, split"},
    {H200, 30000, 12, 1020, TB, WL_EX16_THIN, 1, true, false, 0, 0, "thin_cases, split"},
    /* k = 0: C = beta C, the tiled fallback. */
    {H100, 4096, 4096, 0, 0, WL_EX16_TILED, 0, false, false, 0, 0, "k = 0"},
};

static void test_cases(void)
{
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const tiles16_case *c = &cases[i];
        const warplab_device_info d = device_of(c->device);
        const wl_problem p = problem(c->m, c->n, c->k, c->variant);
        const wl_ex16_plan plan = wl_ex16_choose(&d, &p, tma_of(c->device));
        const bool tall = plan.kind == WL_EX16_WGMMA && plan.rows == EX16_WGMMA_TALL;
        const int tile = tall ? TALL : plan.tile;
        CHECK_MSG(plan.kind == c->kind && tile == c->tile && (plan.splits > 1) == c->split &&
                      (plan.sk_workers > 0) == c->sk && plan.restride == c->restride &&
                      plan.transposed == c->transposed,
                  "%zu x %zu x %zu (variant %d, %s): kind %d tile %d splits %d sk %d restride %d "
                  "transposed %d; want kind %d tile %d split %d sk %d restride %d transposed %d",
                  c->m, c->n, c->k, c->variant, c->why, (int)plan.kind, tile, plan.splits,
                  plan.sk_workers, plan.restride, (int)plan.transposed, (int)c->kind, c->tile,
                  (int)c->split, (int)c->sk, c->restride, (int)c->transposed);
    }
}

static bool rows_16(size_t ld, size_t misalign)
{
    return ld * 2 % 16 == 0 && misalign * 2 % 16 == 0;
}

static bool same_plan(const wl_ex16_plan *a, const wl_ex16_plan *b)
{
    return a->kind == b->kind && a->tile == b->tile && a->rows == b->rows &&
           a->splits == b->splits && a->k_chunk == b->k_chunk && a->restride == b->restride &&
           a->transposed == b->transposed && a->sk_workers == b->sk_workers &&
           memcmp(&a->predicted_us, &b->predicted_us, sizeof(double)) == 0;
}

/* splits chunks of k_chunk, a multiple of quantum, cover k: no chunk empty. */
static bool covers(const wl_ex16_plan *plan, size_t k, int quantum)
{
    return plan->splits >= 1 && plan->k_chunk > 0 && plan->k_chunk % quantum == 0 &&
           (size_t)plan->splits * (size_t)plan->k_chunk >= k &&
           (size_t)(plan->splits - 1) * (size_t)plan->k_chunk < k;
}

static void test_properties(void)
{
    static const int forces[5] = {0, WL_GEMM_EX16_FORCE_MMA, WL_GEMM_EX16_FORCE_TMA,
                                  WL_GEMM_EX16_FORCE_WGMMA, WL_GEMM_EX16_FORCE_THIN};
    const int count = 40000;
    int failures_before = check_failures, kinds[5] = {0}, tall_plans = 0;
    for (int i = 0; i < count && check_failures - failures_before < 20; i++) {
        const int which = (int)(draw() % 3);
        const warplab_device_info d = device_of(which);
        const bool tma = tma_of(which);
        const unsigned r = (unsigned)draw();
        const int force = (r & 7) < 4 ? 0 : forces[(r & 7) - 3];
        const int variant = ((r >> 3 & 1) ? TA : 0) | ((r >> 4 & 1) ? TB : 0) |
                            ((r >> 5 & 1) ? WL_GEMM_C_INPUT_TYPE : 0) | force;
        wl_problem p = problem(draw_side(70000), (r >> 6 & 7) == 0 ? 1 : draw_side(70000),
                               (r >> 9 & 31) == 0 ? 0 : draw_side(70000), variant);
        p.dtype = (r >> 14 & 1) ? WARPLAB_BFLOAT16 : WARPLAB_FLOAT16;
        p.misalign = r >> 15 & 7;
        draw_gemm_lds(&p, r >> 18, 15); /* tight, or padded by 0 to 15 elements */
        const size_t m = p.dim[0], n = p.dim[1], k = p.dim[2];
        const wl_ex16_plan plan = wl_ex16_choose(&d, &p, tma);
        /* The same problem, a copy of it, the same plan. */
        const wl_problem again = p;
        const wl_ex16_plan plan2 = wl_ex16_choose(&d, &again, tma);
        CHECK_MSG(same_plan(&plan, &plan2), "%zu x %zu x %zu: two plans", m, n, k);
        kinds[plan.kind]++;
        const bool empty = m == 0 || n == 0 || k == 0;
        const size_t small = m < n ? m : n;
        /* Forced kinds, where they run; the tiled fallback elsewhere. */
        wl_ex16_kind want = WL_EX16_TILED;
        if (!empty && d.cc_major >= 8) {
            if (force == WL_GEMM_EX16_FORCE_MMA)
                want = WL_EX16_MMA;
            else if (force == WL_GEMM_EX16_FORCE_TMA)
                want = tma ? WL_EX16_TMA : WL_EX16_TILED;
            else if (force == WL_GEMM_EX16_FORCE_WGMMA)
                want = tma ? WL_EX16_WGMMA : WL_EX16_TILED;
            else if (force == WL_GEMM_EX16_FORCE_THIN)
                want = small <= EX16_THIN_SMALL ? WL_EX16_THIN : WL_EX16_TILED;
        }
        if (force || empty) {
            CHECK_MSG(plan.kind == want, "%zu x %zu x %zu force %d: kind %d, want %d", m, n, k,
                      force, (int)plan.kind, (int)want);
        } else {
            /* Unforced: a kernel of the device; the thin one only where its
             * model was measured (the TMA devices, a small side of at most
             * 16, the big operand read along k from rows and a base on 4
             * bytes). */
            const wl_ex16_thin_shape sh = wl_ex16_thin_shape_of(&p);
            const size_t pitch = sh.small_m ? wl_gemm_ldb(&p) : wl_gemm_lda(&p);
            const bool thin_ok =
                tma && small <= 16 && !sh.columns && pitch % 2 == 0 && p.misalign % 2 == 0;
            CHECK_MSG(plan.kind == WL_EX16_MMA ||
                          (tma && (plan.kind == WL_EX16_WGMMA || plan.kind == WL_EX16_TMA)) ||
                          (thin_ok && plan.kind == WL_EX16_THIN),
                      "%zu x %zu x %zu variant %d ld %zu %zu misalign %zu: kind %d (tma %d)", m, n,
                      k, variant, wl_gemm_lda(&p), wl_gemm_ldb(&p), p.misalign, (int)plan.kind,
                      (int)tma);
        }
        if (plan.kind == WL_EX16_TILED) {
            CHECK(plan.splits == 1 && plan.sk_workers == 0 && plan.restride == 0);
            continue;
        }
        CHECK_MSG(isfinite(plan.predicted_us) && plan.predicted_us > 0.0,
                  "%zu x %zu x %zu kind %d: %g us", m, n, k, (int)plan.kind, plan.predicted_us);
        CHECK(plan.sk_workers == 0 ||
              (plan.kind == WL_EX16_WGMMA && plan.splits == 1 && plan.rows == 128 &&
               plan.tile != EX16_WGMMA_NARROW && !plan.transposed));
        /* Transposed: y = A x (n = 1), or the swapped product (m of 257-384,
         * A stored m x k, both operands' rows on 16 bytes, 128 x 96 tiles). */
        const bool rows_on_16 =
            rows_16(wl_gemm_lda(&p), p.misalign) && rows_16(wl_gemm_ldb(&p), p.misalign);
        CHECK(
            plan.transposed == 0 ||
            (plan.transposed == 1 && plan.kind == WL_EX16_WGMMA && n == 1 && plan.restride == 0) ||
            (plan.transposed == WL_EX16_SWAPPED && plan.kind == WL_EX16_WGMMA && m > 256 &&
             m <= 384 && !(variant & TA) && rows_on_16 && plan.restride == 0 && plan.rows == 128 &&
             plan.tile == EX16_WGMMA_SWAP_WIDTH));
        switch (plan.kind) {
        case WL_EX16_MMA:
            CHECK(plan.tile == 0 || plan.tile == 1);
            CHECK_MSG(covers(&plan, k, EX16_BK), "mma %zu x %zu x %zu: %d x %d", m, n, k,
                      plan.splits, plan.k_chunk);
            CHECK(plan.restride == 0 && !plan.transposed);
            break;
        case WL_EX16_TMA:
            CHECK(plan.splits == 1 && plan.k_chunk == (int)k && plan.restride == 0);
            break;
        case WL_EX16_WGMMA: {
            /* 64 x 64, 128 x 128, 128 x 256, 192 x 128 where m > 128, or
             * the swapped product's 128 x 96. */
            CHECK_MSG((plan.rows == 64 && plan.tile == 64) ||
                          (plan.rows == 128 && (plan.tile == 128 || plan.tile == 256)) ||
                          (plan.rows == 128 && plan.tile == EX16_WGMMA_SWAP_WIDTH &&
                           plan.transposed == WL_EX16_SWAPPED) ||
                          (plan.rows == EX16_WGMMA_TALL && plan.tile == 128 && m > 128 &&
                           !plan.transposed),
                      "wgmma %zu x %zu x %zu: %d x %d tiles", m, n, k, plan.rows, plan.tile);
            tall_plans += plan.rows == EX16_WGMMA_TALL;
            CHECK_MSG(covers(&plan, k, 64), "wgmma %zu x %zu x %zu: %d x %d", m, n, k, plan.splits,
                      plan.k_chunk);
            /* Rows off 16 bytes: TMA cannot read them in place. */
            const int unaligned = (rows_16(wl_gemm_lda(&p), p.misalign) ? 0 : 1) |
                                  (rows_16(wl_gemm_ldb(&p), p.misalign) ? 0 : 2);
            CHECK_MSG(plan.transposed || (plan.restride & unaligned) == unaligned,
                      "%zu x %zu x %zu ld %zu %zu misalign %zu: restride %d", m, n, k,
                      wl_gemm_lda(&p), wl_gemm_ldb(&p), p.misalign, plan.restride);
            break;
        }
        case WL_EX16_THIN:
            CHECK(small <= EX16_THIN_SMALL &&
                  (plan.tile == 1 || plan.tile == 2 || plan.tile == 4) &&
                  16 * plan.tile >= (int)small);
            CHECK_MSG(covers(&plan, k, EX16_THIN_STEP), "thin %zu x %zu x %zu: %d x %d", m, n, k,
                      plan.splits, plan.k_chunk);
            break;
        default: CHECK_MSG(0, "kind %d", (int)plan.kind); break;
        }
    }
    /* The draws reach every kind. */
    for (int kind = 0; kind < 5; kind++)
        CHECK_MSG(kinds[kind] > 0, "no plan of kind %d in %d problems", kind, count);
    CHECK_MSG(tall_plans > 0, "no 192 x 128 tiles in %d problems", count);
}

/* The swapped product's range (m of 257-384), where the draws above seldom
 * land: op(A) and op(B) drawn, leading dimensions tight or padded (by 16
 * bytes, or off them), bases on 16 bytes or off. Swapped plans only with
 * op(A) = N and every row on 16 bytes, always 128 x 96 tiles, no copies,
 * whole k tiles; the same problem the same plan; some problems swapped. */
static void test_swapped_range(void)
{
    const warplab_device_info d = device_of(H200);
    int swapped = 0;
    const int count = 4000;
    for (int i = 0; i < count; i++) {
        const unsigned r = (unsigned)draw();
        const int variant = ((r & 1) ? TA : 0) | ((r >> 1 & 1) ? TB : 0) |
                            ((r >> 2 & 1) ? WL_GEMM_C_INPUT_TYPE : 0);
        /* n and k multiples of 8 (the layers' sizes) in 7 of 8 draws. */
        const size_t round = (r >> 13 & 7) != 0 ? 8 : 1;
        const size_t n = (draw_side(30000) + round - 1) / round * round,
                     k = (draw_side(30000) + round - 1) / round * round;
        wl_problem p = problem(257 + (size_t)(draw() % 128), n, k, variant);
        p.dtype = (r >> 3 & 1) ? WARPLAB_BFLOAT16 : WARPLAB_FLOAT16;
        p.misalign = (r >> 4 & 3) == 0 ? 1 : 0;
        draw_gemm_lds(&p, r >> 6, 0);
        for (int j = 0; j < 2; j++) /* padded: by 8 elements (16 bytes) or by 3 */
            if (r >> (9 + j) & 1)
                p.ld[j] = (j == 0 ? wl_gemm_a_cols(&p) : wl_gemm_b_cols(&p)) +
                          ((r >> (11 + j) & 1) ? 8 : 3);
        const wl_ex16_plan plan = wl_ex16_choose(&d, &p, true);
        const wl_problem again = p;
        const wl_ex16_plan plan2 = wl_ex16_choose(&d, &again, true);
        CHECK(same_plan(&plan, &plan2));
        if (plan.transposed != WL_EX16_SWAPPED)
            continue;
        swapped++;
        CHECK_MSG(!(variant & TA) && rows_16(wl_gemm_lda(&p), p.misalign) &&
                      rows_16(wl_gemm_ldb(&p), p.misalign) && plan.kind == WL_EX16_WGMMA &&
                      plan.rows == 128 && plan.tile == EX16_WGMMA_SWAP_WIDTH &&
                      plan.restride == 0 && plan.sk_workers == 0 && covers(&plan, p.dim[2], 64),
                  "%zu x %zu x %zu variant %d ld %zu %zu misalign %zu: swapped %d x %d, %d splits",
                  p.dim[0], p.dim[1], p.dim[2], variant, wl_gemm_lda(&p), wl_gemm_ldb(&p),
                  p.misalign, plan.rows, plan.tile, plan.splits);
    }
    CHECK_MSG(swapped >= 10, "%d swapped products in %d problems", swapped, count);
}

/* ex16_thin's view: the small side, the big one, and X's layout. */
static void test_thin_shape(void)
{
    const wl_problem a = problem(7, 4096, 512, 0), b = problem(4096, 9, 512, TA);
    const wl_problem c = problem(7, 4096, 512, TB);
    const wl_ex16_thin_shape sa = wl_ex16_thin_shape_of(&a), sb = wl_ex16_thin_shape_of(&b);
    const wl_ex16_thin_shape sc = wl_ex16_thin_shape_of(&c);
    CHECK(sa.small_m && sa.small == 7 && sa.big == 4096 && sa.columns);
    CHECK(!sb.small_m && sb.small == 9 && sb.big == 4096 && sb.columns);
    CHECK(sc.small_m && !sc.columns);
}

int main(void)
{
    test_cases();
    test_properties();
    test_swapped_range();
    test_thin_shape();
    return check_report("test_gemm_tiles16");
}
