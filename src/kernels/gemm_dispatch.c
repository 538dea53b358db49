/* The FP32 dispatcher's rule: which kernel (and which split of k) runs a
 * product of m x n x k on a device, the way cuBLAS's heuristics choose.
 *
 * Every candidate gets a modelled time and the least wins (the first on a
 * tie, in the order of the candidates below). The model knows classes, not
 * shapes:
 *
 * - a tile kernel (BM x BN tiles, R blocks resident an SM at efficiency E
 *   of the FP32 peak when the SM is full) computes whole tiles, padding
 *   included; the busiest SM runs ceil(blocks / SMs) blocks one after
 *   another, and an SM with fewer than R blocks reaches sqrt(blocks / R) of
 *   its full rate (a lone block cannot hide its own latency). That is the
 *   wave quantization that leaves SMs idle when tiles are few ("32 tiles
 *   leave 100 of 132 SMs idle");
 * - a skinny kernel streams the big operand once a group of MR rows (NR
 *   columns) at 85% of the bandwidth, at a fraction of the SMs' rate until
 *   enough threads are resident to keep the loads in flight;
 * - every kernel is at least its compulsory traffic (A, B and C once) at
 *   85% of the bandwidth;
 * - a split of k into s chunks multiplies the blocks by s (filling idle
 *   SMs) and costs a second launch plus s partial sums written and read
 *   back (the deterministic reduction), and each piece its pipeline's fill
 *   (PIECE_FILL_K).
 *
 * The splits tried keep at least MIN_K_CHUNK values of k a chunk (fewer,
 * SHORT_K_CHUNK, for small tiles on few tiles; more, LARGE_TILE_MIN_K_CHUNK,
 * for the 256x128 tile) and the workspace under MAX_SCRATCH_BYTES. */
#include "gemm_dispatch.h"
#include "internal.h"

#include <math.h>
#include <stdio.h>

#define MIN_K_CHUNK 256
/* Chunks down to SHORT_K_CHUNK for a small tile (at most
 * SMALL_TILE_ELEMENTS: 64x64, 32x128, 128x32, 32x64) when its tiles fill
 * at most half of the SMs: 256^3 (16 tiles of
 * 64x64) went from 16.3 to 13.2 us with 2 chunks of 128 on the H100, but
 * 777x555x333 (117 tiles) from 25.1 to 28.0 us with 3 chunks of 112, and
 * 256x128 tiles with chunks of 128 ran at half the modelled rate. */
#define SHORT_K_CHUNK 96
#define SMALL_TILE_ELEMENTS (64 * 64)
#define MAX_SPLITS 128
/* The shortest k chunk of a tail split (wl_gemm_plan_tail_split): 8 k
 * tiles of 16, twice the 4-stage ring. The 256x128 kernel (one block an
 * SM, a 6-stage ring) needs longer pieces, in a tail split or in a split
 * of every tile. On the H100 its tail split ran 14-25% over the model with
 * chunks of about 200 (k = 1000), 50% over at k = 509, and lost 4% to
 * whole 128x128 tiles with 2 chunks of 752 (3064x4665x1500), but ran on
 * the model and won with chunks of 832 to 1504 (k of 3000 and 4096). On
 * the H200 (the grid at seed 24301, the split-K tuning set) 498x111x14268
 * in 53 pieces of 272 ran 92.5 us against 58.5 modelled (cuBLAS 53.2).
 * With the floor and PIECE_FILL_K, H200, main's plan against this one in
 * one run: 498x111x14268 0.57x -> 0.65x cuBLAS (tile_64x128, 47 pieces of
 * 304), and on shapes no constant saw 413x168x24597 0.69x -> 0.88x,
 * 284x6144x28672 0.72x -> 0.84x, 272x4096x4096 0.76x -> 0.89x (docs/
 * DECISIONS.md, "Split-K pieces pay their fill"). */
#define TAIL_MIN_K_CHUNK 128
#define LARGE_TILE_MIN_K_CHUNK 1024
/* A tail split's pieces each fill the pipeline again: the 128x128 tail ran
 * about 3% further over the model than the same kernel's whole tiles
 * (H100, k of 500 to 3000). */
#define TAIL_MODEL_MARGIN 1.03
#define MAX_SCRATCH_BYTES ((size_t)256 << 20)
/* Fractions of the FP32 peak and of the bandwidth the kernels reach. */
#define BANDWIDTH_EFFICIENCY 0.85
#define SKINNY_FMA_EFFICIENCY 0.4
/* skinny_m's FMAs, on the rows its groups pad m to: the H200 at MR = 8
 * and 16 (the decode tuning layers 4096 x 4096, 11008 x 4096 and 4096 x
 * 14336, FP32 N, N, skinny_m forced through warplab bench gemm) ran at
 * 0.12-0.145 of the FP32 peak on the padded flops (16 x 4096 x 4096 69.1
 * us, 9 x 11008 x 4096 178.6, 5 x 4096 x 14336 96.7). At
 * SKINNY_FMA_EFFICIENCY of the unpadded flops the model priced MR = 16 at
 * 19-60 us and kept it over tile_32x128, which ran those cells 1.8-2.1x
 * faster. (skinny_n keeps SKINNY_FMA_EFFICIENCY: not measured here.) */
#define SKINNY_M_FMA_EFFICIENCY 0.12
/* skinny_m: the fraction of the SMs whose threads already keep the
 * bandwidth busy; a grid that fills them is not split to reach the rest.
 * On the H100, 1x4096x14336 (128 blocks of 1024 threads, 132 SMs) ran 82.4
 * us whole, 84.2 split in two (cuBLAS 82.6); 14 skinny_m shapes (m of 1 to
 * 16, n of 1000 to 11008) each took one split fewer and ran 1-18% faster
 * (8x4096x14336: 120.4 -> 106.8 us; cuBLAS 166.7). skinny_n keeps
 * 1.0: the same rule slowed 4096x1x14336 from 87 to 102 us. */
#define SKINNY_M_SATURATED 0.96
/* A second launch, in microseconds, on top of its traffic. */
#define LAUNCH_US 2.5
/* A split piece's fill (tile_kind.fill_k): the ring's k (stages x 16)
 * over the blocks an SM holds, which overlap one another's fill. Derived
 * from the kernels' rings, not fitted; on the split-K tuning set (the FP32
 * cells of the grid at seed 24301, H200) it brings 358^3 (tile_64x64, 3
 * pieces of 128: 14.8 us, modelled 12.6 without it) to 13.7 us and 341^3
 * (tile_32x64, 2 of 176: 12.3 us, 10.8) to 11.5. */
#define PIECE_FILL_K(stages, resident) ((stages)*16.0 / (resident))

typedef struct tile_kind {
    wl_gemm_kernel kernel;
    int bm, bn;
    int resident;      /* blocks an SM holds */
    double efficiency; /* of the FP32 peak, SMs full */
    /* A split piece's fill, in k: each block of a split plan fills its
     * cp.async ring (stages x 16 k) before its first multiply and stores
     * its partial tile after its last, with only the other resident blocks
     * to hide it (PIECE_FILL_K). The efficiency, fitted on whole tiles,
     * holds their one fill a tile already. */
    double fill_k;
} tile_kind;

/* Largest tiles first: on a tie the bigger tile wins. Efficiencies from
 * the H100 measurements of docs/DECISIONS.md, "The FP32 dispatcher: a cost
 * model of waves, bytes and split-K" (TFLOP/s at full SMs / the FP32
 * peak). */
static const tile_kind tile_kinds[] = {
    {WL_GEMM_KERNEL_TILE_256X128, 256, 128, 1, 0.70, PIECE_FILL_K(6, 1)},
    {WL_GEMM_KERNEL_TILE_128X128, 128, 128, 2, 0.66, PIECE_FILL_K(4, 2)},
    {WL_GEMM_KERNEL_TILE_64X128, 64, 128, 3, 0.55, PIECE_FILL_K(4, 3)},
    {WL_GEMM_KERNEL_TILE_64X64, 64, 64, 4, 0.45, PIECE_FILL_K(4, 4)},
    {WL_GEMM_KERNEL_TILE_32X128, 32, 128, 4, 0.42, PIECE_FILL_K(4, 4)},
    {WL_GEMM_KERNEL_TILE_128X32, 128, 32, 4, 0.42, PIECE_FILL_K(4, 4)},
    /* 4 x 4 a thread: a lower FMA : LDS ratio, but twice the blocks of
     * tile_64x64 (H100: 1000^3, 4 blocks an SM, ran at 0.38-0.39 of the
     * peak; 0.37 leaves the long-k shapes split many ways, 384x384x2048
     * and 200x200x5000, on tile_64x64 and tile_32x128, which measured 5-9%
     * faster there; 777x555x333 went 23.6 -> 20.2 us on it). */
    {WL_GEMM_KERNEL_TILE_32X64, 32, 64, 4, 0.37, PIECE_FILL_K(4, 4)},
};

static const tile_kind *tile_kind_of(wl_gemm_kernel kernel)
{
    for (size_t i = 0; i < sizeof tile_kinds / sizeof tile_kinds[0]; i++)
        if (tile_kinds[i].kernel == kernel)
            return &tile_kinds[i];
    return NULL;
}

void wl_gemm_kernel_tile(wl_gemm_kernel kernel, int *bm, int *bn)
{
    const tile_kind *t = tile_kind_of(kernel);
    *bm = t ? t->bm : 0;
    *bn = t ? t->bn : 0;
}

static const char *const kernel_names[WL_GEMM_KERNEL_COUNT] = {
    "skinny_m",    "skinny_n",     "tile_32x128",     "tile_64x64", "tile_128x32",
    "tile_64x128", "frag_128x128", "frag_256x128_s6", "tile_32x64"};

const char *wl_gemm_kernel_name(wl_gemm_kernel kernel)
{
    return (unsigned)kernel < WL_GEMM_KERNEL_COUNT ? kernel_names[kernel] : "?";
}

static double ceil_div(double x, double y)
{
    return ceil(x / y);
}

/* The rows or columns a skinny block takes at once: the smallest of 1, 2,
 * 4, 8, 16 that covers `extent` (16 past it). */
static int skinny_group(size_t extent)
{
    int group = 1;
    while (group < 16 && (size_t)group < extent)
        group *= 2;
    return group;
}

/* The k step a kernel's chunks are multiples of. */
static int k_step(wl_gemm_kernel kernel)
{
    return kernel == WL_GEMM_KERNEL_SKINNY_N ? 512 : 16;
}

typedef struct model {
    double sms, flops_per_us, bytes_per_us;
} model;

static model make_model(const wl_gemm_device *device)
{
    model m;
    m.sms = device && device->sms > 0 ? device->sms : 132;
    m.flops_per_us = (device && device->fp32_gflops > 0 ? device->fp32_gflops : 60000.0) * 1e3;
    m.bytes_per_us = (device && device->bandwidth_gbs > 0 ? device->bandwidth_gbs : 3350.0) * 1e3 *
                     BANDWIDTH_EFFICIENCY;
    return m;
}

/* The modelled time of one kernel with s splits of k_chunk, in us. */
static double plan_time(const model *md, const wl_gemm_plan *plan, double m, double n, double k,
                        int b_rows_aligned, int a_rows_aligned)
{
    const double s = plan->splits, kc = plan->k_chunk;
    const double compulsory = 4.0 * (m * k + k * n + m * n);
    double time = compulsory / md->bytes_per_us;
    double kernel_time = 0.0;
    double partial_elements = m * n; /* written and read back once a split */
    if (plan->kernel == WL_GEMM_KERNEL_SKINNY_M || plan->kernel == WL_GEMM_KERNEL_SKINNY_N) {
        const bool rows = plan->kernel == WL_GEMM_KERNEL_SKINNY_M;
        const double small = rows ? m : n, big = rows ? n : m;
        const double passes = ceil_div(small, plan->group);
        /* The streamed operand once a pass (4-byte loads cost issue slots:
         * half the rate when its rows are not 16-byte aligned). */
        const bool vec = rows ? b_rows_aligned : a_rows_aligned;
        const double streamed = 4.0 * k * big * passes / (vec ? 1.0 : 0.5);
        const double threads =
            rows ? ceil_div(n, 32) * s * passes *
                       (plan->group <= 2   ? 1024
                        : plan->group <= 4 ? 512
                                           : 256)
                 /* skinny_n: 2 * RW loads in flight a lane, twice skinny_m's a thread */
                 : ceil_div(m, 8.0 * (plan->group <= 2 ? 2 : 4)) * s * passes * 256 * 2;
        const double fill =
            fmin(1.0, threads / (md->sms * 1024.0 * (rows ? SKINNY_M_SATURATED : 1.0)));
        const double fma_us = rows ? 2.0 * passes * plan->group * big * k /
                                         (md->flops_per_us * SKINNY_M_FMA_EFFICIENCY)
                                   : 2.0 * m * n * k / (md->flops_per_us * SKINNY_FMA_EFFICIENCY);
        kernel_time = fmax(streamed / md->bytes_per_us, fma_us) / fill;
    } else {
        const tile_kind *t = tile_kind_of(plan->kernel);
        const double sm_rate = md->flops_per_us / md->sms * t->efficiency;
        const double tiles = ceil_div(m, t->bm) * ceil_div(n, t->bn);
        /* The tiles split over k: all, or the tail's (the others then run
         * whole, in waves that fill every SM). */
        const double split_tiles = plan->tail_tiles > 0 ? plan->tail_tiles : tiles;
        if (plan->tail_tiles > 0)
            kernel_time =
                ceil_div(tiles - split_tiles, md->sms) * 2.0 * t->bm * t->bn * k / sm_rate;
        const double blocks = split_tiles * s;
        const double per_sm = ceil_div(blocks, md->sms);
        const double fill = sqrt(fmin(1.0, per_sm / t->resident));
        /* Every split piece pays its fill (the tail's pieces: the margin
         * below). */
        const double piece_k = kc + (plan->splits > 1 && plan->tail_tiles == 0 ? t->fill_k : 0.0);
        kernel_time += per_sm * 2.0 * t->bm * t->bn * piece_k / (sm_rate * fill);
        if (plan->tail_tiles > 0)
            partial_elements = split_tiles * t->bm * t->bn;
    }
    time = fmax(time, kernel_time);
    if (plan->splits > 1)
        time += LAUNCH_US + 4.0 * partial_elements * (2.0 * s + 1.0) / md->bytes_per_us;
    if (plan->splits > 1 && plan->tail_tiles > 0)
        time *= TAIL_MODEL_MARGIN;
    return time;
}

/* The best split of k for one kernel. */
static wl_gemm_plan best_split(const model *md, wl_gemm_kernel kernel, size_t m, size_t n, size_t k,
                               int a_rows_aligned, int b_rows_aligned)
{
    wl_gemm_plan best = {kernel, 0, 1, (int)k, 0.0, 0, 0};
    if (kernel == WL_GEMM_KERNEL_SKINNY_M)
        best.group = skinny_group(m);
    else if (kernel == WL_GEMM_KERNEL_SKINNY_N)
        best.group = skinny_group(n);
    if (kernel == WL_GEMM_KERNEL_SKINNY_N)
        best.k_chunk = (int)(ceil_div((double)(k > 0 ? k : 1), 512) * 512);
    best.predicted_us =
        plan_time(md, &best, (double)m, (double)n, (double)k, b_rows_aligned, a_rows_aligned);
    const size_t step = (size_t)k_step(kernel);
    size_t min_chunk = MIN_K_CHUNK;
    const tile_kind *t = tile_kind_of(kernel);
    if (t && t->bm * t->bn <= SMALL_TILE_ELEMENTS &&
        ceil_div((double)m, t->bm) * ceil_div((double)n, t->bn) <= md->sms / 2)
        min_chunk = SHORT_K_CHUNK;
    if (kernel == WL_GEMM_KERNEL_TILE_256X128)
        min_chunk = LARGE_TILE_MIN_K_CHUNK;
    for (size_t splits = 2; splits <= MAX_SPLITS && k / splits >= min_chunk; splits++) {
        const size_t chunk = (k + splits - 1) / splits;
        const size_t k_chunk = (chunk + step - 1) / step * step;
        const size_t used = (k + k_chunk - 1) / k_chunk;
        if (used != splits || used * m * n > MAX_SCRATCH_BYTES / sizeof(float))
            continue;
        wl_gemm_plan plan = best;
        plan.splits = (int)used;
        plan.k_chunk = (int)k_chunk;
        plan.predicted_us =
            plan_time(md, &plan, (double)m, (double)n, (double)k, b_rows_aligned, a_rows_aligned);
        if (plan.predicted_us < best.predicted_us)
            best = plan;
    }
    return best;
}

wl_gemm_plan wl_gemm_plan_for(wl_gemm_kernel kernel, size_t m, size_t n, size_t k,
                              int a_rows_aligned, int b_rows_aligned, const wl_gemm_device *device)
{
    const model md = make_model(device);
    return best_split(&md, kernel, m, n, k, a_rows_aligned, b_rows_aligned);
}

wl_gemm_plan wl_gemm_choose(size_t m, size_t n, size_t k, int a_rows_aligned, int b_rows_aligned,
                            const wl_gemm_device *device)
{
    const model md = make_model(device);
    wl_gemm_plan best = wl_gemm_choose_tiles(m, n, k, a_rows_aligned, b_rows_aligned, device);
    /* The bandwidth-bound kernels where one side is at most 16 wide. */
    if (m <= 16) {
        const wl_gemm_plan plan =
            best_split(&md, WL_GEMM_KERNEL_SKINNY_M, m, n, k, a_rows_aligned, b_rows_aligned);
        if (plan.predicted_us < best.predicted_us)
            best = plan;
    }
    if (n <= 16) {
        const wl_gemm_plan plan =
            best_split(&md, WL_GEMM_KERNEL_SKINNY_N, m, n, k, a_rows_aligned, b_rows_aligned);
        if (plan.predicted_us < best.predicted_us)
            best = plan;
    }
    return best;
}

wl_gemm_plan wl_gemm_choose_tiles(size_t m, size_t n, size_t k, int a_rows_aligned,
                                  int b_rows_aligned, const wl_gemm_device *device)
{
    const model md = make_model(device);
    wl_gemm_plan best =
        best_split(&md, tile_kinds[0].kernel, m, n, k, a_rows_aligned, b_rows_aligned);
    for (size_t i = 1; i < sizeof tile_kinds / sizeof tile_kinds[0]; i++) {
        const wl_gemm_plan plan =
            best_split(&md, tile_kinds[i].kernel, m, n, k, a_rows_aligned, b_rows_aligned);
        if (plan.predicted_us < best.predicted_us)
            best = plan;
    }
    /* The two large tiles with only their last, partial wave split over k
     * (wave quantization: 576 tiles of 128x128 on 264 slots leave a third
     * wave of 48 blocks on 48 SMs). */
    static const wl_gemm_kernel tail_kernels[] = {WL_GEMM_KERNEL_TILE_256X128,
                                                  WL_GEMM_KERNEL_TILE_128X128};
    for (size_t i = 0; i < sizeof tail_kernels / sizeof tail_kernels[0]; i++) {
        const wl_gemm_plan plan = wl_gemm_plan_tail_split(tail_kernels[i], m, n, k, a_rows_aligned,
                                                          b_rows_aligned, device);
        if (plan.tail_tiles > 0 && plan.predicted_us < best.predicted_us)
            best = plan;
    }
    return best;
}

wl_gemm_plan wl_gemm_plan_tail_split(wl_gemm_kernel kernel, size_t m, size_t n, size_t k,
                                     int a_rows_aligned, int b_rows_aligned,
                                     const wl_gemm_device *device)
{
    const model md = make_model(device);
    const tile_kind *t = tile_kind_of(kernel);
    if (!t)
        return best_split(&md, kernel, m, n, k, a_rows_aligned, b_rows_aligned);
    wl_gemm_plan plan = {kernel, 0, 1, (int)k, 0.0, 0, 0};
    const size_t tiles = ((m + t->bm - 1) / t->bm) * ((n + t->bn - 1) / t->bn);
    const size_t wave = (size_t)md.sms * (size_t)t->resident;
    const size_t tail = tiles % wave;
    /* Enough splits to bring the tail to about a wave of blocks, with
     * chunks of at least TAIL_MIN_K_CHUNK. */
    size_t splits = tail > 0 ? wave / tail : 0;
    const size_t min_chunk =
        kernel == WL_GEMM_KERNEL_TILE_256X128 ? LARGE_TILE_MIN_K_CHUNK : TAIL_MIN_K_CHUNK;
    while (splits > 1 && k / splits < min_chunk)
        splits--;
    if (tiles >= wave && tail > 0 && splits >= 2) {
        const size_t chunk = (k + splits - 1) / splits;
        const size_t step = (size_t)k_step(kernel);
        plan.k_chunk = (int)((chunk + step - 1) / step * step);
        plan.splits = (int)((k + (size_t)plan.k_chunk - 1) / (size_t)plan.k_chunk);
        plan.tail_tiles = plan.splits > 1 ? (int)tail : 0;
        if (plan.splits == 1)
            plan.k_chunk = (int)k;
    }
    plan.predicted_us =
        plan_time(&md, &plan, (double)m, (double)n, (double)k, b_rows_aligned, a_rows_aligned);
    return plan;
}

size_t wl_gemm_plan_scratch_bytes(const wl_gemm_plan *plan, size_t m, size_t n)
{
    if (plan->splits <= 1)
        return 0;
    if (plan->tail_tiles > 0) {
        const tile_kind *t = tile_kind_of(plan->kernel);
        return (size_t)plan->splits * (size_t)plan->tail_tiles * (size_t)(t->bm * t->bn) *
               sizeof(float);
    }
    return (size_t)plan->splits * m * n * sizeof(float);
}

void wl_gemm_plan_describe(const wl_gemm_plan *plan, char *text, size_t len)
{
    const char *name = wl_gemm_kernel_name(plan->kernel);
    char group[16] = "";
    if (plan->kernel == WL_GEMM_KERNEL_SKINNY_M)
        snprintf(group, sizeof group, " MR=%d", plan->group);
    else if (plan->kernel == WL_GEMM_KERNEL_SKINNY_N)
        snprintf(group, sizeof group, " NR=%d", plan->group);
    if (plan->splits > 1 && plan->tail_tiles > 0)
        snprintf(text, len, "picked %s, last wave's %d tiles split-K %d x %d (model %.1f us)", name,
                 plan->tail_tiles, plan->splits, plan->k_chunk, plan->predicted_us);
    else if (plan->splits > 1)
        snprintf(text, len, "picked %s%s, split-K %d x %d (model %.1f us)", name, group,
                 plan->splits, plan->k_chunk, plan->predicted_us);
    else
        snprintf(text, len, "picked %s%s (model %.1f us)", name, group, plan->predicted_us);
}
