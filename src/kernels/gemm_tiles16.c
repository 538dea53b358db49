/* The 16-bit tile model (gemm_tiles16.h). */
#include "gemm_tiles16.h"

#include "gemm_problem.h"
#include "gemm_stream_k.h"

#include <limits.h>
#include <math.h>

wl_ex16_thin_shape wl_ex16_thin_shape_of(const wl_problem *p)
{
    wl_ex16_thin_shape sh;
    const int m = (int)wl_gemm_m(p), n = (int)wl_gemm_n(p);
    sh.small_m = m <= n;
    sh.big = sh.small_m ? n : m;
    sh.small = sh.small_m ? m : n;
    sh.columns = sh.small_m ? !wl_gemm_trans_b(p) : wl_gemm_trans_a(p);
    return sh;
}

/* Tile configurations of ex16_mma (gemm_tiles16.h). */
const wl_ex16_config wl_ex16_configs[2] = {
    {128, 128, 256, 2, WL_GM_EX16_MMA128_SM_TFLOPS, WL_GM_EX16_MMA128_BLOCK_TFLOPS},
    {64, 64, 128, 4, WL_GM_EX16_MMA64_SM_TFLOPS, WL_GM_EX16_MMA64_BLOCK_TFLOPS}};
/* The tile model's constants: rows of the planner's tables, each with its
 * measurement (src/kernels/gemm_plan.c). */
#define EX16_K(name) wl_gemm_model(WL_GM_EX16_##name)

/* Modelled time of ex16_mma with a configuration and a number of splits:
 * waves of blocks, each computing its tile over k / splits at the SM's
 * rate shared among the blocks resident on it, no faster than the
 * compulsory bytes at 80% of the bandwidth, plus the partial sums' write
 * and read, plus launch costs. */
static double mma_model(const warplab_device_info *device, size_t m, size_t n, size_t k, int config,
                        int splits)
{
    const double sms = wl_gemm_model_sms(device),
                 bw = wl_gemm_model_bandwidth_gbs(device) * 1e3; /* bytes/us */
    const double bm = wl_ex16_configs[config].bm, bn = wl_ex16_configs[config].bn;
    const double tiles = ceil((double)m / bm) * ceil((double)n / bn);
    const double blocks = tiles * splits;
    const double per_sm = wl_ex16_configs[config].per_sm;
    const double slots = sms * per_sm;
    const double waves = ceil(blocks / slots);
    const double resident = fmin(per_sm, ceil(blocks / sms));
    const double rate = fmin(wl_gemm_model(wl_ex16_configs[config].sm_tflops) / resident,
                             wl_gemm_model(wl_ex16_configs[config].block_tflops)) *
                        1e6;
    const double k_chunk = ceil((double)k / splits / EX16_BK) * EX16_BK;
    const double compute = waves * 2.0 * bm * bn * k_chunk / rate;
    const double bytes = 2.0 * ((double)m * k + (double)n * k) + 4.0 * m * n; /* compulsory */
    const double memory = bytes / (EX16_K(MMA_BANDWIDTH) * bw);
    double us = EX16_K(MMA_FIXED_US) + fmax(compute, memory);
    if (splits > 1) /* the partials written, read back, and C written */
        us += EX16_K(MMA_SPLIT_US) +
              4.0 * (2.0 * splits + 1.0) * (double)m * n / (EX16_K(MMA_BANDWIDTH) * bw);
    return us;
}

/* The TMA + wgmma path (gemm_ex.cu): 128 x 256 tiles, one wave of them per
 * SM at a time, no split of k; operands not K-major (A with op T, B with
 * op N) or with rows not 16-byte aligned are copied first; C (float)
 * written once. Calibrated on H100 (4096^3: 220 us; 1024^3: 26 us;
 * 4096 x 4096 x 64: 39 us, the write of C; 512 x 4096 x 11008: 194 us).
 * An operand whose rows are not 16-byte aligned is copied element by
 * element, far below the aligned copy's rate: fitted on the unaligned
 * shapes of scripts/gemm_tile_tuning.sh (H200, ex16_tma forced: 40001 x
 * 180 x 2001 341 us, modelled 184 at the aligned rate; 301^3, 455^3 and
 * 777^3 29.7, 31.6 and 36.6 us, modelled 20-27), 27% of the bandwidth and
 * 6.7 us a copy (the model now 352, 29.7, 32.3 and 39.0 us). */
static double tma_model(const warplab_device_info *device, const wl_problem *p)
{
    const double m = (double)wl_gemm_m(p), n = (double)wl_gemm_n(p), k = (double)wl_gemm_k(p);
    const double sms = wl_gemm_model_sms(device), bw = wl_gemm_model_bandwidth_gbs(device) * 1e3;
    const double tiles = ceil(m / 128) * ceil(n / 256);
    double us = EX16_K(TMA_FIXED_US) +
                ceil(tiles / sms) * 2.0 * 128 * 256 * k / (EX16_K(WGMMA_SM_TFLOPS) * 1e6) +
                4.0 * m * n / (EX16_K(WGMMA_BANDWIDTH) * bw);
    const size_t element = 2;
    const bool a_rows = wl_gemm_lda(p) * element % 16 == 0,
               b_rows = wl_gemm_ldb(p) * element % 16 == 0;
    const bool a_kmajor = !wl_gemm_trans_a(p) && a_rows;
    const bool b_kmajor = wl_gemm_trans_b(p) && b_rows;
    if (!a_kmajor)
        us += a_rows ? 2.0 * 2.0 * m * k / (EX16_K(TMA_COPY_BANDWIDTH) * bw) + EX16_K(TMA_COPY_US)
                     : 2.0 * 2.0 * m * k / (EX16_K(TMA_UNALIGNED_COPY_BANDWIDTH) * bw) +
                           EX16_K(TMA_UNALIGNED_COPY_US);
    if (!b_kmajor)
        us += b_rows ? 2.0 * 2.0 * n * k / (EX16_K(TMA_COPY_BANDWIDTH) * bw) + EX16_K(TMA_COPY_US)
                     : 2.0 * 2.0 * n * k / (EX16_K(TMA_UNALIGNED_COPY_BANDWIDTH) * bw) +
                           EX16_K(TMA_UNALIGNED_COPY_US);
    return us;
}

/* The TMA + wgmma kernel on the operands as stored (wgmma_ex.sm90a.cu):
 * bm x bn tiles (128 rows; 64 x 64; or 192 x 128), k in `splits` whole
 * 64-wide k tiles each; (split, tile)
 * units in waves of one a SM, each at the SM's wgmma rate (5.5 TFLOP/s an
 * SM, the rate of 4096^3 in 128 x 256 tiles on the H100; 128 x 128 tiles
 * do as well: 512 x 4096 x 11008, 128 tiles, 69 us) plus ~0.7 us of fill
 * and epilogue; no faster than the compulsory bytes at 80% of the
 * bandwidth; the partial sums written, read back and C written when k is
 * split, and a second launch. Fixed: wgmma_fixed_us (a launch, two
 * tensor maps encoded on the host, the pipeline's fill; on the H200 the
 * narrow tile runs 128^3 in 6.0-6.8 us, where ex16_mma takes 7.2-8.4:
 * gemm_plan.c has the fit). With m <= 64 (one 64-row slab) the second consumer
 * has no rows and issues no wgmma: half the work; the narrow tile (bn 64:
 * 64 x 64, one consumer) has only the work. An SM streams its operands at
 * up to ~40 GB/s, so that fewer units than ~65 cannot reach the bandwidth
 * (H100: 2 x 4096 x 4096 in 3 splits, 96 units, took 25 us; in 2, 64
 * units, 28 us; 128 x 128 x 32768 in 37 splits 19 us). The model is
 * pessimistic for the narrow tile (2 to 64 x 4096 x 4096 in 64 units
 * unsplit: 22 us modelled, 17 measured; 3 splits of 128 x 128 tiles: 24
 * modelled, 19-20 measured), but it ranks the two as measured: unsplit
 * narrow tiles where there are at least about 64 of them, 128 x 128
 * tiles where the narrow ones would take two waves (64 x 11008 x 4096:
 * 36 us in 86 units, 42 in 172). */
/* batch: the products in one grid (gemm_batched.cu); with more than one,
 * a unit's C tile is priced beside its fill (c_bytes an element, at
 * batched_epilogue_gbs an SM) and the narrow tile at batched_narrow_rate
 * of the wgmma rate, the batched fits below (the single product keeps the
 * constants above until they are refit on its tuning set). */
static double wgmma_model_batch(const warplab_device_info *device, size_t m, size_t n, size_t k,
                                size_t batch, int c_bytes, int tile_rows, int bn, int splits,
                                double slower)
{
    const double sms = wl_gemm_model_sms(device), bw = wl_gemm_model_bandwidth_gbs(device) * 1e3;
    const double bm = tile_rows;
    const double tiles = (double)batch * ceil((double)m / bm) * ceil((double)n / bn);
    const double units = tiles * splits, waves = ceil(units / sms);
    const double k_chunk = ceil((double)k / splits / 64) * 64;
    /* A 128 x 128 tile is priced at 0.9 of a 128 x 256 tile's rate: each
     * byte of B it loads feeds half the flops. H100, BF16, widths forced:
     * over many waves it ran at 0.81-0.84 of the wide tile's rate (4096^3
     * 218 us against 183, 8192^3 1737 against 1407); at one rate the model
     * took 128 x 128 for 2048 x 11008 x 4096 and 5000^3, 1.17x and 1.18x
     * slower than 128 x 256. Where the wide tile leaves a partial last wave
     * the narrower one wins (3072^3 0.91x, 3001 x 2999 x 1001 0.91x, 1000^3
     * 0.59x of the other's time), which the wave count here overstates: on
     * 20 shapes of 1000^3 to 8192^3 a factor of 0.87-0.92 picks the faster
     * width for every one (docs/DECISIONS.md, "The 128x128 16-bit tile is priced
     * at 0.9 of the wide tile's rate"). */
    /* A tile's consumers whose 64 rows are all past m issue no wgmma. The
     * 192 x 128 tile reuses each byte of B over 192 rows: its own rate
     * factor, between the 128 x 128 tile's and the 128 x 256 tile's, fitted
     * on the H200 (0.94: it wins where m is just past a multiple of 128 and
     * its tiles make one to three waves, 539 x 11008 x 4096 92.4 -> 72.4 us,
     * and loses 14-22% over more, fuller waves, 2500 x 4096 x 4096 122.6 ->
     * 149.9; docs/DECISIONS.md, "The 192x128 16-bit tile"). */
    const double rows = fmin(bm, ceil((double)m / 64) * 64);
    const double wgmma_rate = EX16_K(WGMMA_SM_TFLOPS) * 1e6;
    const bool batched = batch > 1;
    const double rate = batched && bn == EX16_WGMMA_NARROW
                            ? EX16_K(BATCHED_NARROW_RATE) * wgmma_rate
                        : bn != 128                       ? wgmma_rate
                        : rows == 128                     ? EX16_K(WGMMA_128_RATE) * wgmma_rate
                        : rows == (double)EX16_WGMMA_TALL ? EX16_K(WGMMA_192_RATE) * wgmma_rate
                                                          : wgmma_rate;
    const double unit_us =
        EX16_K(WGMMA_UNIT_US) +
        (batched ? rows * bn * c_bytes / (EX16_K(BATCHED_EPILOGUE_GBS) * 1e3) : 0.0);
    const double compute = slower * waves * (2.0 * rows * bn * k_chunk / rate + unit_us);
    const double bytes = (double)batch * (2.0 * ((double)m * k + (double)n * k) + 4.0 * m * n);
    const double streaming =
        fmin(1.0, units * EX16_K(SM_STREAM_GBS) /
                      (EX16_K(WGMMA_BANDWIDTH) * wl_gemm_model_bandwidth_gbs(device)));
    double memory = bytes / (EX16_K(WGMMA_BANDWIDTH) * bw * streaming);
    /* With one row of tiles (m <= the tile's rows: decode), no two units
     * read the same columns of B: an SM that takes two units of a second,
     * partial wave streams twice its B bytes at its own rate, while the
     * bandwidth idles (n = 5120 in 64 x 64 tiles, 2 splits: 160 units over
     * 132 SMs). sm_stream_gbs is the H100 fit above; the wave count
     * is what this adds. On scripts/gemm_tile_tuning.sh's decode shapes
     * (H200, m 16-32 past one wave) it moves six of seven from 64 x 64
     * tiles in 2 splits to 128 x 128 in 3: 0.76-0.83x cuBLAS -> 0.89-0.99x
     * (16 x 4608 x 14336 52.4 -> 40.4 us). */
    if (ceil((double)m / bm) <= 1.0)
        memory = fmax(memory, waves * 2.0 * bn * k_chunk / (EX16_K(SM_STREAM_GBS) * 1e3));
    double us = EX16_K(WGMMA_FIXED_US) + fmax(compute, memory);
    if (splits > 1)
        us += EX16_K(WGMMA_SPLIT_US) +
              4.0 * (2.0 * splits + 1.0) * (double)m * n / (EX16_K(SPLIT_SUMS_BANDWIDTH) * bw);
    return us;
}

static double wgmma_model(const warplab_device_info *device, size_t m, size_t n, size_t k,
                          int tile_rows, int bn, int splits, double slower)
{
    return wgmma_model_batch(device, m, n, k, 1, 4, tile_rows, bn, splits, slower);
}

/* The batched kernel's tile (gemm_batched.cu: the same kernel, the batch
 * one more index of its units, k whole): wgmma_model over the batch's
 * units with wgmma_plan's widths, the narrow tile among them at any
 * number of waves (its rate and the C tiles' epilogue are the batched
 * fits: with them the narrow tile is priced where it loses, which
 * wgmma_plan's one-wave rule stands in for). Fitted on `warplab bench gemm
 * --batched --seed 5` and `--seed 6`; judged on the fixed table and other
 * seeds. */
int wl_ex16_batched_tile(const warplab_device_info *device, size_t m, size_t n, size_t k,
                         size_t batch, int c_bytes, double *predicted_us)
{
    const int widths[3] = {n <= 128 ? 128 : 256, n <= 128 ? 256 : 128, EX16_WGMMA_NARROW};
    const int heights[3] = {128, 128, 64};
    int best = widths[0];
    double best_us = INFINITY;
    for (int w = 0; w < 3; w++) {
        const double us =
            wgmma_model_batch(device, m, n, k, batch, c_bytes, heights[w], widths[w], 1, 1.0);
        if (us < best_us) {
            best_us = us;
            best = widths[w];
        }
    }
    if (predicted_us)
        *predicted_us = best_us;
    return best;
}

/* wgmma_model with one split and the last wave in stream-K shares
 * (stream_k.cuh), 128-row tiles; INFINITY where the schedule has none.
 * The whole waves, then a share (less than a tile's k tiles), and the
 * hand-over: each share's sums (128 x bn floats) written and read back at
 * 1.1x the DRAM bandwidth (from L2: BF16 4096^3 in 2 x 1 clusters, 132
 * slots of 128 KiB, cost 9.5 us on the H100), plus sk_fixed_us: the
 * flags' memset and its gap, and each piece's pipeline fill and hand-over
 * latency. Measured on the H100 against the same plan without shares:
 * 1792 x 2560 x 1024 (8 tiles past a wave, shares of 2 k tiles) 27.3 ->
 * 32.9 us and 2200^3 67.5 -> 75.0, where a light last wave costs little;
 * 10 us keeps shares off those two and 6144^3 (-0.2%) and on the 8 shapes
 * that gained 0.9-15% (3008^3 105.7 -> 92.2 us, 2304 x 4096 x 8192 235 ->
 * 216, 4096 x 4352 x 4096 227 -> 209, 2048 x 11008 x 4096 271 -> 255).
 * On 14 shapes not used to choose it, it picked right on 13 (1920 x 7168
 * x 4096 180.5 -> 164.4 us, 3840^3 183.9 -> 169.5; kept off 1408 x 4352 x
 * 6144, which shares ran 16% slower); the 14th, 2432 x 2432 x 16384, is
 * why k is bounded below (docs/DECISIONS.md, "Stream-K in warplab_gemm_ex's
 * 16-bit kernel"). On the H200 (scripts/gemm_tile_tuning.sh's prefill
 * shapes, against the plan without shares): 10 us took shares where they
 * lost (2500 x 4096 x 4096, 122.8 -> 129.5 us, modelled 0.8 us faster) and
 * where they gained (1800 x 5120 x 4096 132.5 -> 123.6, 3000 x 6144 x
 * 4096 229.2 -> 215.9, 4500 x 1024 x 4096 73.4 -> 71.0: modelled 8.4,
 * 13.2 and 7.9 us faster); any fixed cost from 10.8 to 17.9 us picks
 * right on all four, and 12 keeps the H100 fit's shapes. */
static double wgmma_sk_model(const warplab_device_info *device, size_t m, size_t n, size_t k,
                             int bn, double slower, int *workers)
{
    *workers = 0;
    const double tiles = ceil((double)m / 128) * ceil((double)n / bn);
    if (device->multiprocessors <= 0 || tiles > INT_MAX || k > (size_t)INT_MAX)
        return INFINITY;
    wl_sk_schedule s;
    const int k_tiles = (int)((k + 63) / 64), sms = wl_gemm_model_sms(device);
    /* Past 128 k tiles (k > 8192) the heads and tails of the shares are too
     * far apart along k to share A and B in L2: 2432 x 2432 x 16384, shares
     * of 112 of 256 k tiles, ran 269 -> 326 us (H100). */
    if (k_tiles > 128)
        return INFINITY;
    wl_sk_plan(&s, (int)tiles, k_tiles, sms, true);
    if (s.workers == 0)
        return INFINITY;
    *workers = s.workers;
    const double bw = wl_gemm_model_bandwidth_gbs(device) * 1e3;
    const double wgmma_rate = EX16_K(WGMMA_SM_TFLOPS) * 1e6;
    const double rate = bn == 128 ? EX16_K(WGMMA_128_RATE) * wgmma_rate : wgmma_rate;
    const double waves = (double)(s.full_units / sms);
    const double share = ceil((double)s.k_shared / s.workers);
    const double compute = slower * ((waves * k_tiles + share) * (2.0 * 128 * bn * 64 / rate) +
                                     (waves + 2.0) * EX16_K(WGMMA_UNIT_US));
    const double bytes = 2.0 * ((double)m * k + (double)n * k) + 4.0 * m * n;
    const double handover = EX16_K(SK_FIXED_US) + 2.0 * s.workers * 128.0 * bn * 4.0 /
                                                      (EX16_K(SK_HANDOVER_BANDWIDTH) * bw);
    return EX16_K(WGMMA_FIXED_US) + fmax(compute, bytes / (EX16_K(WGMMA_BANDWIDTH) * bw)) +
           handover;
}

/* What the kernel loses, as a fraction of its time, to an operand read in
 * place whose rows (16-byte aligned) do not start on 128-byte lines: a box
 * row across two lines is two L2 requests, and a fifth sector where rows
 * start 16 bytes off a sector (H100, BF16 at 128 x 128 tiles: 3000^3, rows
 * of 6000 bytes, 190 us against 103 for 3008^3; A's rows alone off 1.36x,
 * B's alone 1.47x). Rows on 32-byte sectors cost less, and rows 64 bytes
 * off every other line only beside another operand off lines, as
 * gemm_tiles_tf32.c's tf32_line_cost measured for TF32. At 256-wide tiles, which
 * read fewer bytes a flop, a quarter less. */
static double line_cost(size_t ld, size_t misalign, bool other_off)
{
    switch (wl_gemm_row_phase(ld * 2, misalign * 2)) {
    case 128: return 0.0;
    case 64: return other_off ? EX16_K(LINE_COST_64) : 0.0;
    case 32: return EX16_K(LINE_COST_32);
    default: return EX16_K(LINE_COST_OFF);
    }
}

/* The best tile width and split of the wgmma kernel for a problem (k split
 * into chunks of at least 256, at most 128 splits: 64 x 64 x 65536 fills
 * the SMs); ties keep fewer splits. `restride`: the operands that must be
 * copied (rows not 16-byte aligned; bit 0 A, bit 1 B); `off_lines`: those
 * read in place whose rows are off 128-byte lines, which are copied too
 * where that costs less than line_cost (lda, ldb and misalign price them). */
static void wgmma_plan(const warplab_device_info *device, size_t m, size_t n, size_t k,
                       int restride, int off_lines, size_t lda, size_t ldb, size_t misalign,
                       wl_ex16_plan *plan)
{
    /* Ties keep the first: the wider tile, except where n fits the narrow
     * one (n <= 128: a 128 x 256 tile loads and multiplies 128 columns of
     * zeros past B's edge; 65536 x 64 x 64 took 32 us in them); the
     * 192 x 128 tile last, and only where m > 128 (with fewer rows its
     * third consumer never works). */
    const int widths[4] = {n <= 128 ? 128 : 256, n <= 128 ? 256 : 128, EX16_WGMMA_NARROW, 128};
    const int heights[4] = {128, 128, 64, EX16_WGMMA_TALL};
    /* The narrow tile where one 64-row slab holds every row, or where its
     * tiles fit in one wave (256^3, 512^3, 8192 x 32 x 4096, 777 x 555 x
     * 333: 0.61-0.84x cuBLAS -> 0.93-1.14x on the H100; in two waves 1000^3
     * lost 40%: docs/DECISIONS.md, "The narrow 64x64 16-bit tile where m <= 64
     * or its tiles make one wave"). */
    const double narrow_tiles = ceil((double)m / 64) * ceil((double)n / EX16_WGMMA_NARROW);
    const bool narrow = m <= 64 || narrow_tiles <= wl_gemm_model_sms(device);
    const bool tall = m > 128;
    plan->kind = WL_EX16_WGMMA;
    plan->restride = restride;
    plan->transposed = false;
    plan->sk_workers = 0;
    plan->rows = 128;
    plan->predicted_us = INFINITY;
    /* The copies of operands with rows that are not 16-byte aligned: one
     * launch for both (ex16_restride), a read and a write each (an element a
     * thread: ~60% of the bandwidth). */
    const double bw = wl_gemm_model_bandwidth_gbs(device) * 1e3;
    const int k_tiles = (int)((k + 63) / 64);
    int most = k_tiles / 4;
    most = most < 1 ? 1 : most > 128 ? 128 : most;
    off_lines &= ~restride;
    for (int extra = 0; extra < 4; extra++) {
        if ((extra & ~off_lines) != 0)
            continue;
        const int copied = restride | extra, still_off = off_lines & ~extra;
        double copies = copied ? EX16_K(RESTRIDE_US) : 0.0;
        if (copied & 1)
            copies += 2.0 * 2.0 * (double)m * k / (EX16_K(RESTRIDE_BANDWIDTH) * bw);
        if (copied & 2)
            copies += 2.0 * 2.0 * (double)n * k / (EX16_K(RESTRIDE_BANDWIDTH) * bw);
        const double cost =
            ((still_off & 1) ? line_cost(lda, misalign, (still_off & 2) != 0) : 0.0) +
            ((still_off & 2) ? line_cost(ldb, misalign, (still_off & 1) != 0) : 0.0);
        for (int w = 0; w < 4; w++) {
            if ((w == 2 && !narrow) || (w == 3 && !tall))
                continue;
            for (int splits = 1; splits <= most; splits++) {
                /* Only splits that whole k tiles realise. */
                const int chunk_tiles = (k_tiles + splits - 1) / splits;
                if ((k_tiles + chunk_tiles - 1) / chunk_tiles != splits)
                    continue;
                const double slower =
                    1.0 + cost * (widths[w] == 256 ? EX16_K(LINE_COST_WIDE) : 1.0);
                const double us =
                    copies + wgmma_model(device, m, n, k, heights[w], widths[w], splits, slower);
                if (us < plan->predicted_us) {
                    plan->predicted_us = us;
                    plan->tile = widths[w];
                    plan->rows = heights[w];
                    plan->splits = splits;
                    plan->k_chunk = chunk_tiles * 64;
                    plan->restride = copied;
                    plan->sk_workers = 0;
                }
                /* One split of 128-row tiles with the last wave in stream-K
                 * shares. */
                int workers = 0;
                const double sk =
                    splits > 1 || heights[w] != 128
                        ? INFINITY
                        : copies + wgmma_sk_model(device, m, n, k, widths[w], slower, &workers);
                if (sk < plan->predicted_us) {
                    plan->predicted_us = sk;
                    plan->tile = widths[w];
                    plan->rows = 128;
                    plan->splits = 1;
                    plan->k_chunk = chunk_tiles * 64;
                    plan->restride = copied;
                    plan->sk_workers = workers;
                }
            }
        }
    }
}

/* The swapped product (WL_EX16_SWAPPED, ex16_gemm.cu run_wgmma_swapped):
 * C^T = op(B)^T op(A)^T in tiles of 128 rows of n by 96 columns of m, so
 * that m is cut at the granularity that wgmma's n allows instead of 64-row
 * consumers (m of 257-288 in three 96-wide tiles: 288 rows computed, where
 * 128- and 192-row tiles compute 384). Priced as wgmma_model on the
 * swapped dimensions at wgmma_swap_rate (C written transposed from the
 * registers; split, the sums' finish as wgmma_model prices it). Other
 * widths, forced swapped on the tuning set, ran no faster than the plan as
 * stored (32-wide decode tiles: within 13% either way of it at m = 9-32;
 * 64 and 128 wide slower): not planned. Planned for m of 257 to 384 (one or
 * two partial rows of 128-row tiles; below, 128- and 192-row tiles waste
 * less, and swapped the tuning set's m of 120-224 ran at 0.49-0.95x the
 * plan as stored: 200 x 8192 x 4096 63.4 us against 33.1), A stored m x k
 * (op N: the kernel's B K-major) and both operands' rows on 16 bytes (no
 * copies). */
#define EX16_SWAP_M_MIN 257
#define EX16_SWAP_M_MAX 384
static void swapped_plan(const warplab_device_info *device, size_t m, size_t n, size_t k,
                         int off_lines, size_t lda, size_t ldb, size_t misalign, wl_ex16_plan *plan)
{
    const int k_tiles = (int)((k + 63) / 64);
    int most = k_tiles / 4;
    most = most < 1 ? 1 : most > 128 ? 128 : most;
    /* The kernel's A is B (lines: bit 1), its B is A (bit 0). */
    const double cost = ((off_lines & 2) ? line_cost(ldb, misalign, (off_lines & 1) != 0) : 0.0) +
                        ((off_lines & 1) ? line_cost(lda, misalign, (off_lines & 2) != 0) : 0.0);
    plan->kind = WL_EX16_WGMMA;
    plan->restride = 0;
    plan->transposed = WL_EX16_SWAPPED;
    plan->sk_workers = 0;
    plan->predicted_us = INFINITY;
    const double slower = (1.0 + cost) / EX16_K(WGMMA_SWAP_RATE);
    for (int splits = 1; splits <= most; splits++) {
        const int chunk_tiles = (k_tiles + splits - 1) / splits;
        if ((k_tiles + chunk_tiles - 1) / chunk_tiles != splits)
            continue;
        const double us = wgmma_model(device, n, m, k, 128, EX16_WGMMA_SWAP_WIDTH, splits, slower);
        if (us < plan->predicted_us) {
            plan->predicted_us = us;
            plan->tile = EX16_WGMMA_SWAP_WIDTH;
            plan->rows = 128;
            plan->splits = splits;
            plan->k_chunk = chunk_tiles * 64;
        }
    }
}

/* ex16_thin's small operand Y (small x k) is strided along k: loaded
 * element by element. */
static bool thin_y_strided(const wl_problem *p, const wl_ex16_thin_shape *sh)
{
    const size_t stride = sh->small_m ? (wl_gemm_trans_a(p) ? wl_gemm_lda(p) : 1)
                                      : (wl_gemm_trans_b(p) ? 1 : wl_gemm_ldb(p));
    return stride != 1;
}

/* ex16_thin (m or n <= 64): 64-column strips of the big operand, k split
 * so that about thin_blocks_sm blocks an SM are in flight (4 warps
 * each, every warp with 4 or 8 KB of loads outstanding), the partial sums
 * at most an eighth of the big operand's bytes, every warp of a split at
 * least one k step; splits start on whole k steps (16-byte boundaries).
 * Modelled: the big operand at thin_bandwidth of the bandwidth (a partial
 * last wave of strips and the fixed costs of short rows keep it far below
 * the copy's rate), thin_y_strided slower where Y is strided along k, the
 * kernel's and the finish's launches, and the partial sums. */
static void thin_plan(const warplab_device_info *device, const wl_problem *p, wl_ex16_plan *plan)
{
    const wl_ex16_thin_shape sh = wl_ex16_thin_shape_of(p);
    const long long k = (long long)wl_gemm_k(p);
    const int row_tiles = (sh.small + 15) / 16;
    plan->kind = WL_EX16_THIN;
    plan->tile = row_tiles <= 1 ? 1 : row_tiles <= 2 ? 2 : 4;
    const long long strips = (sh.big + EX16_THIN_COLS - 1) / EX16_THIN_COLS;
    const long long block_k = (long long)EX16_THIN_STEP * EX16_THIN_WARPS;
    const long long wanted =
        ((long long)EX16_K(THIN_BLOCKS_SM) * wl_gemm_model_sms(device) + strips - 1) / strips;
    const long long bytes_cap = k / (16LL * sh.small), steps = (k + block_k - 1) / block_k;
    wl_gemm_split_k(k, wanted, steps < bytes_cap ? steps : bytes_cap, EX16_THIN_STEP,
                    &plan->k_chunk, &plan->splits);
    const double bw = wl_gemm_model_bandwidth_gbs(device) * 1e3;
    const double y_cost = thin_y_strided(p, &sh) ? EX16_K(THIN_Y_STRIDED) : 1.0;
    plan->predicted_us =
        2.0 * EX16_K(RESTRIDE_US) +
        y_cost * 2.0 * (double)k * sh.big / (EX16_K(THIN_BANDWIDTH) * bw) +
        4.0 * (2.0 * plan->splits + 1.0) * sh.small * sh.big / (EX16_K(SPLIT_SUMS_BANDWIDTH) * bw);
}

/* ex16_thin is planned (unforced) where its model was measured: one 16-row
 * tile of the small side, the big operand read along k (X_ALONG_K) from
 * rows and a base on at least 4 bytes (16-, 8- or 4-byte loads; element by
 * element it ran at a third of that rate, 25000 x 30 x 999 at 0.4 TB/s).
 * It then competes by its modelled time: it reads the big operand in place
 * where the wgmma kernel would copy rows 8 or 4 bytes off 16 first (the thin
 * tuning set, H200: 45000 x 12 x 2020 N,T 188.6 -> 89.0 us, cuBLAS 111.7;
 * 37000 x 10 x 1030 78.9 -> 60.4); where the rows are on 16 bytes the
 * wgmma kernel reads them at twice its rate (50000 x 16 x 1024 32 us
 * against 52). */
#define EX16_THIN_PLANNED_SMALL 16
static bool thin_plannable(const wl_problem *p)
{
    const wl_ex16_thin_shape sh = wl_ex16_thin_shape_of(p);
    const size_t pitch = sh.small_m ? wl_gemm_ldb(p) : wl_gemm_lda(p);
    return sh.small >= 1 && sh.small <= EX16_THIN_PLANNED_SMALL && !sh.columns &&
           pitch * 2 % 4 == 0 && p->misalign * 2 % 4 == 0;
}

static bool rows_aligned_16(size_t ld, size_t misalign)
{
    return ld * 2 % 16 == 0 && misalign * 2 % 16 == 0;
}

/* The operands whose rows are not 16-byte aligned: bit 0 A, bit 1 B. */
static int unaligned_operands(const wl_problem *p)
{
    return (rows_aligned_16(wl_gemm_lda(p), p->misalign) ? 0 : 1) |
           (rows_aligned_16(wl_gemm_ldb(p), p->misalign) ? 0 : 2);
}

/* The operands whose rows do not start on 128-byte lines: bit 0 A, bit 1 B. */
static int operands_off_lines(const wl_problem *p)
{
    return (wl_gemm_row_phase(wl_gemm_lda(p) * 2, p->misalign * 2) < 128 ? 1 : 0) |
           (wl_gemm_row_phase(wl_gemm_ldb(p) * 2, p->misalign * 2) < 128 ? 2 : 0);
}

/* wgmma_plan for the problem as stored. */
static void wgmma_plan_of(const warplab_device_info *device, const wl_problem *p,
                          wl_ex16_plan *plan)
{
    wgmma_plan(device, wl_gemm_m(p), wl_gemm_n(p), wl_gemm_k(p), unaligned_operands(p),
               operands_off_lines(p), wl_gemm_lda(p), wl_gemm_ldb(p), p->misalign, plan);
}

/* The tiled fallback's plan: the fields no other kernel's plan sets start
 * from it. */
static wl_ex16_plan fallback_plan(const wl_problem *p)
{
    wl_ex16_plan plan;
    plan.kind = WL_EX16_TILED;
    plan.tile = 0;
    plan.rows = 128;
    plan.splits = 1;
    plan.k_chunk = (int)wl_gemm_k(p);
    plan.restride = 0;
    plan.transposed = false;
    plan.sk_workers = 0;
    plan.predicted_us = 0.0;
    return plan;
}

wl_ex16_plan wl_ex16_choose(const warplab_device_info *device, const wl_problem *p,
                            bool tma_available)
{
    wl_ex16_plan plan = fallback_plan(p);
    const size_t m = wl_gemm_m(p), n = wl_gemm_n(p), k = wl_gemm_k(p);
    const unsigned force = p->variant & WL_GEMM_EX16_FORCE;
    if (k == 0 || m == 0 || n == 0 || device->cc_major < 8)
        return plan;
    if (force & WL_GEMM_EX16_FORCE_TMA) {
        if (tma_available) {
            plan.kind = WL_EX16_TMA;
            plan.predicted_us = tma_model(device, p);
        }
        return plan;
    }
    if (force & WL_GEMM_EX16_FORCE_WGMMA) {
        if (tma_available)
            wgmma_plan_of(device, p, &plan);
        return plan;
    }
    if (force & WL_GEMM_EX16_FORCE_THIN) {
        if ((m < n ? m : n) <= EX16_THIN_SMALL)
            thin_plan(device, p, &plan);
        return plan;
    }
    /* ex16_mma: each configuration, splits up to 4x the SMs' slots, k at
     * least 256 a split; the fastest modelled, the first on a tie. */
    plan.kind = WL_EX16_MMA;
    plan.predicted_us = INFINITY;
    for (int config = 0; config < 2; config++) {
        const double tiles = ceil((double)m / wl_ex16_configs[config].bm) *
                             ceil((double)n / wl_ex16_configs[config].bn);
        const double slots = (double)wl_gemm_model_sms(device) * wl_ex16_configs[config].per_sm;
        int most = (int)fmin(64.0, fmax(1.0, floor((double)k / 256)));
        if (tiles >= slots)
            most = 1;
        for (int splits = 1; splits <= most; splits++) {
            const double us = mma_model(device, m, n, k, config, splits);
            if (us < plan.predicted_us) {
                plan.predicted_us = us;
                plan.tile = config;
                plan.splits = splits;
            }
        }
    }
    /* Whole k tiles a split: splits start on a tile boundary. */
    const size_t chunk = (k + plan.splits - 1) / plan.splits;
    plan.k_chunk = (int)((chunk + EX16_BK - 1) / EX16_BK * EX16_BK);
    plan.splits = (int)((k + plan.k_chunk - 1) / plan.k_chunk);
    /* Unaligned rows make ex16_mma load element by element: the TMA path's
     * copies are cheaper where there is work to amortise them. */
    const int unaligned = unaligned_operands(p);
    const bool aligned = unaligned == 0;
    if (!aligned)
        plan.predicted_us *= EX16_K(MMA_UNALIGNED_SLOWER);
    if (tma_available && m >= 64 && n >= 64 && !force && !aligned) {
        const double us = tma_model(device, p);
        if (us < plan.predicted_us) {
            plan.kind = WL_EX16_TMA;
            plan.predicted_us = us;
            plan.splits = 1;
            plan.k_chunk = (int)k;
        }
    }
    /* With 16-byte rows, the wgmma kernel reads every layout as stored:
     * no copies, and its split of k fills the SMs. Without, the operands
     * that lack them are first re-strided in the workspace (their layout
     * kept: a plain copy, where the TMA path transposes to K-major, and the
     * split of k kept: 17 x 3001 x 1999 and 777 x 555 x 333 took 44 and 34
     * us on mma.sync and the TMA path, 2.3x and 1.9x cuBLAS). */
    if (tma_available && !force) {
        wl_ex16_plan wgmma;
        wgmma_plan_of(device, p, &wgmma);
        if (wgmma.predicted_us < plan.predicted_us)
            plan = wgmma;
    }
    /* The swapped product where m is small (swapped_plan). */
    if (tma_available && !force && m >= EX16_SWAP_M_MIN && m <= EX16_SWAP_M_MAX &&
        !wl_gemm_trans_a(p) && unaligned_operands(p) == 0) {
        wl_ex16_plan swapped;
        swapped_plan(device, m, n, k, operands_off_lines(p), wl_gemm_lda(p), wl_gemm_ldb(p),
                     p->misalign, &swapped);
        if (swapped.predicted_us < plan.predicted_us)
            plan = swapped;
    }
    /* y = A x (n = 1, C and x contiguous) through the wgmma kernel's narrow
     * tile on the transposed problem, C^T = x^T A^T (m' = 1, n' = m), A read
     * as stored as its B operand (K-major, or N-major with op(A) = T): H100,
     * 4096 x 1 x 4096 from 22.4 us (the 16-bit skinny kernel) to 18.1. The
     * planner's GEMV rows take the small problems (gemm_plan.c). */
    const bool transposed =
        n == 1 && m > 1 && wl_gemm_ldc(p) == 1 && (wl_gemm_trans_b(p) || wl_gemm_ldb(p) == 1) &&
        p->misalign * 2 % 16 == 0 && rows_aligned_16(wl_gemm_lda(p), p->misalign);
    if (tma_available && !force && transposed) {
        wl_ex16_plan wgmma;
        wgmma_plan(device, 1, m, k, 0, 0, 0, 0, 0, &wgmma);
        wgmma.transposed = true;
        if (wgmma.predicted_us < plan.predicted_us)
            plan = wgmma;
    }
    /* ex16_thin where its model holds (thin_plannable; measured on the H200). */
    if (tma_available && !force && thin_plannable(p)) {
        wl_ex16_plan thin = fallback_plan(p);
        thin_plan(device, p, &thin);
        if (thin.predicted_us < plan.predicted_us)
            plan = thin;
    }
    return plan;
}
