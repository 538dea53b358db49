/* The CUDA gemm kernels, run on the CPU by tests/emulate/cuda_emulate.h and
 * checked by the ladder's own verification (wl_gemm_verify): the kernels'
 * index logic, boundary handling, 16-byte paths and pipeline stages, without
 * a GPU. Launch shapes mirror src/cuda/gemm.cu's launchers.
 *
 * Each problem gets fresh random A, B (and C when beta != 0), C poisoned
 * with NaN, guard zones after every matrix, and optionally views one float
 * past a 16-byte boundary (the element-by-element paths). */
#include "cuda_emulate.h"

#include "../../src/cuda/gemm/blocked_kernels.cuh"
#include "../../src/cuda/gemm/course_kernels.cuh"
#include "../../src/cuda/gemm/gemv.cuh"
#include "../../src/cuda/gemm/mma_kernel.cuh"
#include "../../src/cuda/gemm/pipelined_shapes.cuh"
#include "../../src/cuda/gemm/skinny_kernels.cuh"
#include "../../src/cuda/gemm/tf32_tiles.cuh"
#include "../../src/ladders/gemm.h"

#include <cstdio>
#include <functional>
#include <string>

/* The shapes of src/cuda/gemm.cu: gemm/pipelined_shapes.cuh. */

static float poison_value()
{
    return std::numeric_limits<float>::quiet_NaN();
}

static int failures = 0, checks = 0;

static bool aligned_rows(const float *base, int ld)
{
    return (uintptr_t)base % 16 == 0 && ld % 4 == 0;
}

static dim3 tiles(const gemm_params &g, int tm, int tn)
{
    return dim3((unsigned)((g.n + tn - 1) / tn), (unsigned)((g.m + tm - 1) / tm));
}

template <class T> static void run_pipelined(const gemm_params &g)
{
    const unsigned blocks = (unsigned)(((g.m + T::BM - 1) / T::BM) * ((g.n + T::BN - 1) / T::BN));
    if (aligned_rows(g.b, g.ldb))
        emu_launch(dim3(blocks), dim3(T::THREADS), T::SMEM_BYTES,
                   [&] { gemm_pipelined<T, true>(g); });
    else
        emu_launch(dim3(blocks), dim3(T::THREADS), T::SMEM_BYTES,
                   [&] { gemm_pipelined<T, false>(g); });
}

static dim3 mma_grid(const gemm_params &g)
{
    return tiles(g, MMA_BM, MMA_BN);
}

static void run_tf32_mma(const gemm_params &g)
{
    const mma_params p = {g.a, g.b, g.c, g.m, g.n, g.k, g.lda, g.ldb, g.ldc, g.alpha, g.beta};
    if (aligned_rows(g.a, g.lda) && aligned_rows(g.b, g.ldb))
        emu_launch(mma_grid(g), dim3(MMA_THREADS), mma_tiles<false>::SMEM_BYTES,
                   [&] { gemm_mma<MMA_TF32, true>(p); });
    else
        emu_launch(mma_grid(g), dim3(MMA_THREADS), mma_tiles<false>::SMEM_BYTES,
                   [&] { gemm_mma<MMA_TF32, false>(p); });
}

/* As wl_gemm_kmajor_make does on the device: BF16 or FP16 copies (nearest
 * even) of A and of B transposed, rows padded to multiples of 8 with zeros. */
static std::vector<uint16_t> sixteen_bit_copy(const float *x, int ld, int rows, int cols,
                                              bool transpose, int *copy_ld, bool fp16)
{
    const int out_rows = transpose ? cols : rows, out_cols = transpose ? rows : cols;
    *copy_ld = out_cols < 8 ? 8 : (out_cols + 7) / 8 * 8;
    std::vector<uint16_t> copy((size_t)(out_rows > 0 ? out_rows : 1) * *copy_ld + 8, 0);
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++) {
            const float v = x[(size_t)r * ld + c];
            size_t at = transpose ? (size_t)c * *copy_ld + r : (size_t)r * *copy_ld + c;
            copy[at] = fp16 ? wl_float_to_fp16(v) : wl_float_to_bf16(v);
        }
    return copy;
}

template <int KIND> static void run_sixteen_bit_mma(const gemm_params &g)
{
    int lda = 0, ldbt = 0;
    const bool fp16 = KIND == MMA_FP16;
    std::vector<uint16_t> a = sixteen_bit_copy(g.a, g.lda, g.m, g.k, false, &lda, fp16);
    std::vector<uint16_t> bt = sixteen_bit_copy(g.b, g.ldb, g.k, g.n, true, &ldbt, fp16);
    const mma_params p = {a.data(), bt.data(), g.c,   g.m,     g.n,   g.k,
                          lda,      ldbt,      g.ldc, g.alpha, g.beta};
    emu_launch(mma_grid(g), dim3(MMA_THREADS), mma_tiles<true>::SMEM_BYTES,
               [&] { gemm_mma<KIND, true>(p); });
}

/* The rows x cols matrix x (leading dimension ld) stored transposed, as
 * the caller of an op T hands it over: cols rows of rows elements, each
 * row 16-byte aligned when `aligned` (else one float past, and an odd
 * leading dimension: the 4-byte copies). */
static std::vector<float> transposed(const float *x, int ld, int rows, int cols, bool aligned,
                                     const float **view, int *view_ld)
{
    *view_ld = aligned ? (rows + 3) / 4 * 4 : rows + 1;
    std::vector<float> copy((size_t)(cols > 0 ? cols : 1) * *view_ld + 8, poison_value());
    const uintptr_t at = reinterpret_cast<uintptr_t>(copy.data());
    float *first = copy.data() + (16 - at % 16) % 16 / sizeof(float) + (aligned ? 0 : 1);
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++)
            first[(size_t)c * *view_ld + r] = x[(size_t)r * ld + c];
    *view = first;
    return copy;
}

/* warplab_gemm_ex's TF32 small tiles (tf32_tiles.cuh) as wl_tf32_tiles_run
 * launches them: op(A) and op(B) as stored (TA: A^T, k x m; TB: B^T, n x
 * k), SPLITS chunks of k (a multiple of the kernel's 32) into a workspace
 * poisoned with NaN, then the chunks' sum. */
template <int BM, int BN, int WM, int WN, bool TA, bool TB, int SPLITS>
static void run_tf32_tiles(const gemm_params &g)
{
    typedef tf32_tiles_shape<BM, BN, WM, WN> S;
    typedef tf32_tiles_layout<BM, BN, WM, WN, TA, TB> L;
    std::vector<float> a_copy, b_copy;
    tf32_tiles_params p;
    p.a = g.a;
    p.b = g.b;
    p.lda = g.lda;
    p.ldb = g.ldb;
    if (TA)
        a_copy = transposed(g.a, g.lda, g.m, g.k, aligned_rows(g.a, g.lda), &p.a, &p.lda);
    if (TB)
        b_copy = transposed(g.b, g.ldb, g.k, g.n, aligned_rows(g.b, g.ldb), &p.b, &p.ldb);
    p.c = g.c;
    p.m = g.m;
    p.n = g.n;
    p.k = g.k;
    p.ldc = g.ldc;
    p.alpha = g.alpha;
    p.beta = g.beta;
    p.a_vec = aligned_rows(p.a, p.lda);
    p.b_vec = aligned_rows(p.b, p.ldb);
    const int chunk = (g.k + SPLITS - 1) / SPLITS;
    p.k_chunk = chunk > 0 ? (chunk + TF32T_BK - 1) / TF32T_BK * TF32T_BK : TF32T_BK;
    const int splits = g.k > 0 ? (g.k + p.k_chunk - 1) / p.k_chunk : 1;
    std::vector<float> part((size_t)splits * (size_t)g.m * (size_t)g.n + 1, poison_value());
    p.part = part.data();
    const dim3 grid((unsigned)((g.n + BN - 1) / BN), (unsigned)((g.m + BM - 1) / BM),
                    (unsigned)splits);
    emu_launch(grid, dim3(S::THREADS), L::SMEM_BYTES,
               [&] { gemm_tf32_tiles<BM, BN, WM, WN, TA, TB>(p); });
    if (splits > 1)
        emu_launch(dim3((unsigned)(((size_t)g.m * g.n + 255) / 256)), dim3(256), 0, [&] {
            wl_splitk_finish(p.part, splits, p.m, p.n, p.c, p.ldc, 1, WL_GEMV_F32, p.alpha, p.beta);
        });
}

/* The shape-aware kernels (src/cuda/gemm/dispatch.cu's launches): a plan
 * (kernel, group, split of k) run as the launcher runs it, the split
 * partial sums in a workspace poisoned with NaN, then the reduction. */
template <class T, bool STAGE_C>
static void run_tile_plan_as(const gemm_params &g, const wl_gemm_plan &plan, float *partial)
{
    const unsigned tiles = (unsigned)(((g.m + T::BM - 1) / T::BM) * ((g.n + T::BN - 1) / T::BN));
    const bool vec = aligned_rows(g.b, g.ldb);
    if (plan.splits == 1) {
        emu_launch(dim3(tiles), dim3(T::THREADS), T::SMEM_BYTES, [&] {
            if (vec)
                gemm_pipelined<T, true, STAGE_C>(g);
            else
                gemm_pipelined<T, false, STAGE_C>(g);
        });
        return;
    }
    emu_launch(dim3(tiles, (unsigned)plan.splits), dim3(T::THREADS), T::SMEM_BYTES, [&] {
        if (vec)
            gemm_pipelined_split<T, true, STAGE_C>(g, partial, plan.k_chunk);
        else
            gemm_pipelined_split<T, false, STAGE_C>(g, partial, plan.k_chunk);
    });
}

/* As dispatch.cu's launch_tile_plan: the large tiles' staged-C variant
 * where C (or a split's partial rows) is not 16-byte aligned. */
template <class T>
static void run_tile_plan(const gemm_params &g, const wl_gemm_plan &plan, float *partial)
{
    if constexpr (T::C_STAGED_VARIANT) {
        if (gemm_stage_c<T>(g)) {
            run_tile_plan_as<T, true>(g, plan, partial);
            return;
        }
    }
    run_tile_plan_as<T, T::C_STAGED>(g, plan, partial);
}

/* The tail split (tail_128x128, tail_256x128): whole tiles first, then the
 * last tail_tiles tiles in chunks of k, then their reduction, as
 * dispatch.cu launches it. The test problems are smaller than a wave of a
 * real GPU, so the split is forced: a third of the tiles (at least one) in
 * the tail, k in 3 chunks of a multiple of 16 (fewer when k is short). */
static int tail_split_runs = 0; /* launches that split a tail: the path ran */

template <class T> static void run_tail_split(const gemm_params &g, int tail_tiles, int k_chunk)
{
    const int tiles = ((g.m + T::BM - 1) / T::BM) * ((g.n + T::BN - 1) / T::BN);
    const int splits = k_chunk > 0 ? (g.k + k_chunk - 1) / k_chunk : 1;
    if (splits < 2 || tail_tiles < 1 || tail_tiles > tiles) {
        run_pipelined<T>(g);
        return;
    }
    const int full_tiles = tiles - tail_tiles;
    tail_split_runs++;
    std::vector<float> partial((size_t)splits * (size_t)tail_tiles * T::BM * T::BN + 1,
                               poison_value());
    float *ws = partial.data();
    const bool vec = aligned_rows(g.b, g.ldb), stage = gemm_stage_c<T>(g);
    emu_launch(dim3((unsigned)(full_tiles + tail_tiles * splits)), dim3(T::THREADS), T::SMEM_BYTES,
               [&] {
                   if constexpr (T::C_STAGED_VARIANT) {
                       if (stage && vec)
                           return gemm_pipelined_tail_split<T, true, true>(g, ws, full_tiles,
                                                                           tail_tiles, k_chunk);
                       if (stage)
                           return gemm_pipelined_tail_split<T, false, true>(g, ws, full_tiles,
                                                                            tail_tiles, k_chunk);
                   }
                   if (vec)
                       gemm_pipelined_tail_split<T, true>(g, ws, full_tiles, tail_tiles, k_chunk);
                   else
                       gemm_pipelined_tail_split<T, false>(g, ws, full_tiles, tail_tiles, k_chunk);
               });
    const size_t elements = (size_t)tail_tiles * T::BM * T::BN;
    emu_launch(
        dim3((unsigned)((elements + SPLITK_REDUCE_THREADS - 1) / SPLITK_REDUCE_THREADS)),
        dim3(SPLITK_REDUCE_THREADS), 0,
        [&] { gemm_tail_reduce<T::BM, T::BN>(g, ws, full_tiles, tail_tiles, splits, T::GROUP_M); });
}

template <class T> static void run_tail_forced(const gemm_params &g)
{
    const int tiles = ((g.m + T::BM - 1) / T::BM) * ((g.n + T::BN - 1) / T::BN);
    const int chunk = (g.k + 2) / 3;
    run_tail_split<T>(g, (tiles + 2) / 3, (chunk + 15) / 16 * 16);
}

/* Through the planner (wl_gemm_plan_tail_split) on a pretend device of SMS
 * SMs (a wave of 2 blocks), where the skinny cases of 3 tiles have a whole
 * wave and a tail of one tile in 2 chunks of k (k past 256 for 128x128
 * tiles, past 2048 for 256x128). */
template <class T, int KERNEL, int SMS> static void run_tail_planned(const gemm_params &g)
{
    const wl_gemm_device small = {SMS, 500.0, 25.0};
    const wl_gemm_plan plan =
        wl_gemm_plan_tail_split((wl_gemm_kernel)KERNEL, (size_t)g.m, (size_t)g.n, (size_t)g.k,
                                aligned_rows(g.a, g.lda), aligned_rows(g.b, g.ldb), &small);
    if (plan.splits > 1 && plan.tail_tiles > 0)
        run_tail_split<T>(g, plan.tail_tiles, plan.k_chunk);
    else
        run_pipelined<T>(g);
}

template <int MR>
static void run_skinny_m(const gemm_params &g, const wl_gemm_plan &plan, float *partial)
{
    constexpr int threads = skinny_m_threads(MR);
    const dim3 grid((unsigned)((g.n + SKINNY_M_COLS - 1) / SKINNY_M_COLS), (unsigned)plan.splits,
                    (unsigned)((g.m + MR - 1) / MR));
    const size_t smem = (size_t)(threads / 32) * MR * SKINNY_M_COLS * sizeof(float);
    const bool vec = aligned_rows(g.b, g.ldb);
    emu_launch(grid, dim3(threads), smem, [&] {
        if (vec)
            gemm_skinny_m<MR, true>(g, partial, plan.k_chunk);
        else
            gemm_skinny_m<MR, false>(g, partial, plan.k_chunk);
    });
}

template <int NR>
static void run_skinny_n(const gemm_params &g, const wl_gemm_plan &plan, float *partial)
{
    constexpr int rows = SKINNY_N_WARPS * skinny_n_rows_per_warp(NR);
    const dim3 grid((unsigned)((g.m + rows - 1) / rows), (unsigned)plan.splits,
                    (unsigned)((g.n + NR - 1) / NR));
    const bool vec = aligned_rows(g.a, g.lda);
    emu_launch(grid, dim3(SKINNY_N_THREADS), (size_t)NR * SKINNY_N_KC * sizeof(float), [&] {
        if (vec)
            gemm_skinny_n<NR, true>(g, partial, plan.k_chunk);
        else
            gemm_skinny_n<NR, false>(g, partial, plan.k_chunk);
    });
}

/* Runs a plan; splits > 0 forces that split of k (the chunk rounded up to
 * the kernel's step), 0 keeps the plan's. */
static void run_plan(const gemm_params &g, wl_gemm_plan plan, int splits)
{
    if (splits > 0 && g.k > 0) {
        const int step = plan.kernel == WL_GEMM_KERNEL_SKINNY_N ? SKINNY_N_KC : 16;
        const int chunk = (g.k + splits - 1) / splits;
        plan.k_chunk = (chunk + step - 1) / step * step;
        plan.splits = (g.k + plan.k_chunk - 1) / plan.k_chunk;
    }
    std::vector<float> partial((size_t)plan.splits * (size_t)g.m * (size_t)g.n + 1, poison_value());
    float *ws = partial.data();
    switch (plan.kernel) {
    case WL_GEMM_KERNEL_SKINNY_M:
        switch (plan.group) {
        case 1: run_skinny_m<1>(g, plan, ws); break;
        case 2: run_skinny_m<2>(g, plan, ws); break;
        case 4: run_skinny_m<4>(g, plan, ws); break;
        case 8: run_skinny_m<8>(g, plan, ws); break;
        default: run_skinny_m<16>(g, plan, ws); break;
        }
        break;
    case WL_GEMM_KERNEL_SKINNY_N:
        switch (plan.group) {
        case 1: run_skinny_n<1>(g, plan, ws); break;
        case 2: run_skinny_n<2>(g, plan, ws); break;
        case 4: run_skinny_n<4>(g, plan, ws); break;
        case 8: run_skinny_n<8>(g, plan, ws); break;
        default: run_skinny_n<16>(g, plan, ws); break;
        }
        break;
    case WL_GEMM_KERNEL_TILE_32X128: run_tile_plan<tile_32x128_shape>(g, plan, ws); break;
    case WL_GEMM_KERNEL_TILE_64X64: run_tile_plan<tile_64x64_shape>(g, plan, ws); break;
    case WL_GEMM_KERNEL_TILE_128X32: run_tile_plan<tile_128x32_shape>(g, plan, ws); break;
    case WL_GEMM_KERNEL_TILE_64X128: run_tile_plan<tile_64x128_shape>(g, plan, ws); break;
    case WL_GEMM_KERNEL_TILE_32X64: run_tile_plan<tile_32x64_shape>(g, plan, ws); break;
    case WL_GEMM_KERNEL_TILE_128X128: run_tile_plan<frag_128x128_shape>(g, plan, ws); break;
    default: run_tile_plan<frag_256x128_s6_shape>(g, plan, ws); break;
    }
    if (plan.splits > 1) {
        const size_t elements = (size_t)g.m * (size_t)g.n;
        /* A grid-stride loop: fewer threads than elements, as the library launches it. */
        emu_launch(dim3((unsigned)((elements + 4 * 256 - 1) / (4 * 256))), dim3(256), 0, [&] {
            wl_splitk_finish(ws, plan.splits, g.m, g.n, g.c, g.ldc, 1, WL_GEMV_F32, g.alpha,
                             g.beta);
        });
    }
}

static wl_gemm_plan plan_for(const gemm_params &g, int kernel)
{
    const wl_gemm_device device = {132, 60000.0, 3350.0};
    const int a_aligned = aligned_rows(g.a, g.lda), b_aligned = aligned_rows(g.b, g.ldb);
    if (kernel < 0)
        return wl_gemm_choose((size_t)g.m, (size_t)g.n, (size_t)g.k, a_aligned, b_aligned, &device);
    return wl_gemm_plan_for((wl_gemm_kernel)kernel, (size_t)g.m, (size_t)g.n, (size_t)g.k,
                            a_aligned, b_aligned, &device);
}

/* The tile kernels on op T operands read in place (TA: A stored k x m; TB:
 * B stored n x k), as dispatch.cu's launch_tile_layout runs a plan: 16-byte
 * row copies of each operand copied row by row (B of op N, A of op T) whose
 * rows are aligned, the staged-C variant where C is off 16 bytes, whole
 * tiles, split-K or a tail split, then the reduction. */
template <class T, bool TA, bool TB, bool VEC, bool A_VEC, bool STAGE_C>
static void run_layout_as(const gemm_params &q, const wl_gemm_plan &plan, float *ws)
{
    const size_t smem = T::smem_bytes(TB);
    const int tiles = ((q.m + T::BM - 1) / T::BM) * ((q.n + T::BN - 1) / T::BN);
    if (plan.splits > 1 && plan.tail_tiles > 0) {
        const int full_tiles = tiles - plan.tail_tiles;
        tail_split_runs++;
        emu_launch(dim3((unsigned)(full_tiles + plan.tail_tiles * plan.splits)), dim3(T::THREADS),
                   smem, [&] {
                       gemm_pipelined_tail_split<T, VEC, STAGE_C, TA, TB, A_VEC>(
                           q, ws, full_tiles, plan.tail_tiles, plan.k_chunk);
                   });
        const size_t elements = (size_t)plan.tail_tiles * T::BM * T::BN;
        emu_launch(dim3((unsigned)((elements + SPLITK_REDUCE_THREADS - 1) / SPLITK_REDUCE_THREADS)),
                   dim3(SPLITK_REDUCE_THREADS), 0, [&] {
                       gemm_tail_reduce<T::BM, T::BN>(q, ws, full_tiles, plan.tail_tiles,
                                                      plan.splits, T::GROUP_M);
                   });
        return;
    }
    if (plan.splits == 1) {
        emu_launch(dim3((unsigned)tiles), dim3(T::THREADS), smem,
                   [&] { gemm_pipelined<T, VEC, STAGE_C, TA, TB, A_VEC>(q); });
        return;
    }
    emu_launch(dim3((unsigned)tiles, (unsigned)plan.splits), dim3(T::THREADS), smem,
               [&] { gemm_pipelined_split<T, VEC, STAGE_C, TA, TB, A_VEC>(q, ws, plan.k_chunk); });
    const size_t elements = (size_t)q.m * (size_t)q.n;
    emu_launch(dim3((unsigned)((elements + 255) / 256)), dim3(256), 0, [&] {
        wl_splitk_finish(ws, plan.splits, q.m, q.n, q.c, q.ldc, 1, WL_GEMV_F32, q.alpha, q.beta);
    });
}

template <class T, bool TA, bool TB, bool VEC, bool A_VEC>
static void run_layout_staged(const gemm_params &q, const wl_gemm_plan &plan, float *ws)
{
    if constexpr (T::C_STAGED_VARIANT) {
        if (gemm_stage_c<T>(q)) {
            run_layout_as<T, TA, TB, VEC, A_VEC, true>(q, plan, ws);
            return;
        }
    }
    run_layout_as<T, TA, TB, VEC, A_VEC, T::C_STAGED>(q, plan, ws);
}

template <class T, bool TA, bool TB>
static void run_layout_plan(const gemm_params &q, const wl_gemm_plan &plan, float *ws)
{
    const bool a_vec = TA && aligned_rows(q.a, q.lda), b_vec = !TB && aligned_rows(q.b, q.ldb);
    if (a_vec && b_vec)
        run_layout_staged<T, TA, TB, true, true>(q, plan, ws);
    else if (a_vec)
        run_layout_staged<T, TA, TB, false, true>(q, plan, ws);
    else if (b_vec)
        run_layout_staged<T, TA, TB, true, false>(q, plan, ws);
    else
        run_layout_staged<T, TA, TB, false, false>(q, plan, ws);
}

template <bool TA, bool TB>
static void run_layout_kernel(const gemm_params &q, const wl_gemm_plan &plan, float *ws)
{
    switch (plan.kernel) {
    case WL_GEMM_KERNEL_TILE_32X128: run_layout_plan<tile_32x128_shape, TA, TB>(q, plan, ws); break;
    case WL_GEMM_KERNEL_TILE_64X64: run_layout_plan<tile_64x64_shape, TA, TB>(q, plan, ws); break;
    case WL_GEMM_KERNEL_TILE_128X32: run_layout_plan<tile_128x32_shape, TA, TB>(q, plan, ws); break;
    case WL_GEMM_KERNEL_TILE_64X128: run_layout_plan<tile_64x128_shape, TA, TB>(q, plan, ws); break;
    case WL_GEMM_KERNEL_TILE_32X64: run_layout_plan<tile_32x64_shape, TA, TB>(q, plan, ws); break;
    case WL_GEMM_KERNEL_TILE_128X128:
        run_layout_plan<frag_128x128_shape, TA, TB>(q, plan, ws);
        break;
    case WL_GEMM_KERNEL_TILE_256X128:
        run_layout_plan<frag_256x128_s6_shape, TA, TB>(q, plan, ws);
        break;
    default:
        std::fprintf(stderr, "FAIL: %s planned for a transposed layout\n",
                     wl_gemm_kernel_name(plan.kernel));
        failures++;
    }
}

/* KERNEL (-1: wl_gemm_choose_tiles, the fp32_tiles row's choice) on op(A),
 * op(B) stored transposed where TA, TB; SPLITS > 0 forces that split of k;
 * TAIL forces a tail split (a third of the tiles, k in 3 chunks). */
template <int KERNEL, bool TA, bool TB, int SPLITS, bool TAIL>
static void run_layout(const gemm_params &g)
{
    std::vector<float> a_copy, b_copy;
    gemm_params q = g;
    if (TA)
        a_copy = transposed(g.a, g.lda, g.m, g.k, aligned_rows(g.a, g.lda), &q.a, &q.lda);
    if (TB)
        b_copy = transposed(g.b, g.ldb, g.k, g.n, aligned_rows(g.b, g.ldb), &q.b, &q.ldb);
    const wl_gemm_device device = {132, 60000.0, 3350.0};
    const int a_aligned = aligned_rows(q.a, q.lda), b_aligned = aligned_rows(q.b, q.ldb);
    wl_gemm_plan plan = KERNEL < 0
                            ? wl_gemm_choose_tiles((size_t)g.m, (size_t)g.n, (size_t)g.k, a_aligned,
                                                   b_aligned, &device)
                            : wl_gemm_plan_for((wl_gemm_kernel)KERNEL, (size_t)g.m, (size_t)g.n,
                                               (size_t)g.k, a_aligned, b_aligned, &device);
    int bm = 0, bn = 0;
    wl_gemm_kernel_tile(plan.kernel, &bm, &bn);
    const int tiles = bm > 0 ? ((g.m + bm - 1) / bm) * ((g.n + bn - 1) / bn) : 0;
    if ((SPLITS > 0 || TAIL) && g.k > 0) {
        const int parts = TAIL ? 3 : SPLITS;
        const int chunk = (g.k + parts - 1) / parts;
        plan.k_chunk = (chunk + 15) / 16 * 16;
        plan.splits = (g.k + plan.k_chunk - 1) / plan.k_chunk;
        plan.tail_tiles = TAIL && plan.splits > 1 ? (tiles + 2) / 3 : 0;
        if (plan.splits == 1)
            plan.k_chunk = g.k;
    }
    const size_t slot = plan.tail_tiles > 0 ? (size_t)plan.tail_tiles * (size_t)(bm * bn)
                                            : (size_t)g.m * (size_t)g.n;
    std::vector<float> partial((size_t)plan.splits * slot + 1, poison_value());
    run_layout_kernel<TA, TB>(q, plan, partial.data());
}

template <int KERNEL, int SPLITS> static void run_kernel(const gemm_params &g)
{
    run_plan(g, plan_for(g, KERNEL), SPLITS);
}

/* The skinny kernels on problems of at most this many C elements: their
 * warp shuffles are slow under emulation, and 130 x 127 already walks
 * several row and column groups. */
#define SKINNY_MAX 20000

struct rung {
    const char *id;
    int multiple_of;  /* the course's tiled kernels: m, n, k multiples only */
    int max_elements; /* one_block: m*n */
    std::function<void(const gemm_params &)> run;
    wl_gemm_precision precision = WL_GEMM_FP32;
    bool shape_aware = false; /* runs the skinny-kernel cases too */
};

static const rung rungs[] = {
    {"one_block", 0, 1024,
     [](const gemm_params &g) {
         emu_launch(dim3(1), dim3((unsigned)g.n, (unsigned)g.m), 0, [&] { gemm_one_block(g); });
     }},
    {"many_blocks", 0, 0,
     [](const gemm_params &g) {
         emu_launch(tiles(g, MANY_BLOCKS_TILE, MANY_BLOCKS_TILE),
                    dim3(MANY_BLOCKS_TILE, MANY_BLOCKS_TILE), 0, [&] { gemm_many_blocks(g); });
     }},
    {"tiled16", 16, 0,
     [](const gemm_params &g) {
         emu_launch(tiles(g, 16, 16), dim3(16, 16), 0, [&] { gemm_tiled<16>(g); });
     }},
    {"tiled32", 32, 0,
     [](const gemm_params &g) {
         emu_launch(tiles(g, 32, 32), dim3(32, 32), 0, [&] { gemm_tiled<32>(g); });
     }},
    {"tiled_bounds", 0, 0,
     [](const gemm_params &g) {
         emu_launch(tiles(g, BOUNDS_TILE, BOUNDS_TILE), dim3(BOUNDS_TILE, BOUNDS_TILE), 0,
                    [&] { gemm_tiled_bounds(g); });
     }},
    {"regblock_1d", 0, 0,
     [](const gemm_params &g) {
         emu_launch(tiles(g, RB1_BM, RB1_BN), dim3(RB1_THREADS), 0, [&] { gemm_regblock_1d(g); });
     }},
    {"regblock_2d", 0, 0,
     [](const gemm_params &g) {
         emu_launch(tiles(g, RB2_BM, RB2_BN), dim3(RB2_THREADS), 0, [&] { gemm_regblock_2d(g); });
     }},
    {"vectorized", 0, 0,
     [](const gemm_params &g) {
         if (aligned_rows(g.a, g.lda) && aligned_rows(g.b, g.ldb))
             emu_launch(tiles(g, RB2_BM, RB2_BN), dim3(RB2_THREADS), 0,
                        [&] { gemm_vectorized<true>(g); });
         else
             emu_launch(tiles(g, RB2_BM, RB2_BN), dim3(RB2_THREADS), 0,
                        [&] { gemm_vectorized<false>(g); });
     }},
    {"conflict_free", 0, 0,
     [](const gemm_params &g) {
         if (aligned_rows(g.a, g.lda) && aligned_rows(g.b, g.ldb))
             emu_launch(tiles(g, RB2_BM, RB2_BN), dim3(RB2_THREADS), 0,
                        [&] { gemm_conflict_free<true>(g); });
         else
             emu_launch(tiles(g, RB2_BM, RB2_BN), dim3(RB2_THREADS), 0,
                        [&] { gemm_conflict_free<false>(g); });
     }},
    {"double_buffered", 0, 0, run_pipelined<double_buffered_shape>},
    {"warptile", 0, 0, run_pipelined<warptile_shape>},
    {"tuned", 0, 0, run_pipelined<tuned_shape>},
    {"tuned_128x128", 0, 0, run_pipelined<tuned_128x128_shape>},
    {"tuned_256x128", 0, 0, run_pipelined<tuned_256x128_shape>},
    {"frag_128x256", 0, 0, run_pipelined<frag_128x256_shape>},
    {"frag_128x128", 0, 0, run_pipelined<frag_128x128_shape>},
    {"frag_128x128_w64", 0, 0, run_pipelined<frag_128x128_w64_shape>},
    {"frag_128x128_k8", 0, 0, run_pipelined<frag_128x128_k8_shape>},
    {"frag_256x128", 0, 0, run_pipelined<frag_256x128_shape>},
    {"frag_256x128_s6", 0, 0, run_pipelined<frag_256x128_s6_shape>},
    {"skinny_m", 0, SKINNY_MAX, run_kernel<WL_GEMM_KERNEL_SKINNY_M, 0>, WL_GEMM_FP32, true},
    {"skinny_m split 3", 0, SKINNY_MAX, run_kernel<WL_GEMM_KERNEL_SKINNY_M, 3>, WL_GEMM_FP32, true},
    {"skinny_n", 0, SKINNY_MAX, run_kernel<WL_GEMM_KERNEL_SKINNY_N, 0>, WL_GEMM_FP32, true},
    {"skinny_n split 2", 0, SKINNY_MAX, run_kernel<WL_GEMM_KERNEL_SKINNY_N, 2>, WL_GEMM_FP32, true},
    {"tile_32x128", 0, 0, run_kernel<WL_GEMM_KERNEL_TILE_32X128, 0>},
    {"tile_32x128 split 3", 0, 0, run_kernel<WL_GEMM_KERNEL_TILE_32X128, 3>, WL_GEMM_FP32, true},
    {"tile_64x64 split 2", 0, 0, run_kernel<WL_GEMM_KERNEL_TILE_64X64, 2>},
    {"tile_32x64", 0, 0, run_kernel<WL_GEMM_KERNEL_TILE_32X64, 0>},
    {"tile_32x64 split 3", 0, 0, run_kernel<WL_GEMM_KERNEL_TILE_32X64, 3>},
    {"tile_128x32 split 2", 0, 0, run_kernel<WL_GEMM_KERNEL_TILE_128X32, 2>},
    {"tile_64x128 split 2", 0, 0, run_kernel<WL_GEMM_KERNEL_TILE_64X128, 2>},
    {"frag_128x128 split 2", 0, 0, run_kernel<WL_GEMM_KERNEL_TILE_128X128, 2>},
    {"frag_256x128_s6 split 2", 0, 0, run_kernel<WL_GEMM_KERNEL_TILE_256X128, 2>},
    {"dispatch", 0, 0, run_kernel<-1, 0>, WL_GEMM_FP32, true},
    {"tail_128x128", 0, 0, run_tail_forced<frag_128x128_shape>},
    {"tail_256x128", 0, 0, run_tail_forced<frag_256x128_s6_shape>},
    {"tail_128x128 planned", 0, 0,
     run_tail_planned<frag_128x128_shape, WL_GEMM_KERNEL_TILE_128X128, 1>, WL_GEMM_FP32, true},
    {"tail_256x128 planned", 0, 0,
     run_tail_planned<frag_256x128_s6_shape, WL_GEMM_KERNEL_TILE_256X128, 2>, WL_GEMM_FP32, true},
    /* The tile kernels reading op T operands in place (warplab_gemm_ex's
     * fp32_tiles row): each layout on several tiles, whole, split and tail. */
    {"tile_64x64 T,N", 0, 0, run_layout<WL_GEMM_KERNEL_TILE_64X64, true, false, 0, false>},
    {"tile_32x128 N,T split 3", 0, 0,
     run_layout<WL_GEMM_KERNEL_TILE_32X128, false, true, 3, false>},
    {"tile_32x64 T,T split 2", 0, 0, run_layout<WL_GEMM_KERNEL_TILE_32X64, true, true, 2, false>},
    {"tile_128x32 N,T", 0, 0, run_layout<WL_GEMM_KERNEL_TILE_128X32, false, true, 0, false>},
    {"tile_64x128 T,T", 0, 0, run_layout<WL_GEMM_KERNEL_TILE_64X128, true, true, 0, false>},
    {"frag_128x128 T,N tail", 0, 0, run_layout<WL_GEMM_KERNEL_TILE_128X128, true, false, 0, true>},
    {"frag_256x128_s6 N,T split 2", 0, 0,
     run_layout<WL_GEMM_KERNEL_TILE_256X128, false, true, 2, false>},
    {"frag_256x128_s6 T,T tail", 0, 0,
     run_layout<WL_GEMM_KERNEL_TILE_256X128, true, true, 0, true>},
    {"dispatch tiles T,T", 0, 0, run_layout<-1, true, true, 0, false>, WL_GEMM_FP32, true},
    {"dispatch tiles T,N", 0, 0, run_layout<-1, true, false, 0, false>, WL_GEMM_FP32, true},
    {"tf32_mma", 0, 0, run_tf32_mma, WL_GEMM_TF32},
    /* warplab_gemm_ex's TF32 tiles: every op pair on the 64 x 64 tile, the
     * others on two each; split k (k of 33 and more: several chunks), and
     * on the long-k (skinny) cases on the 64 x 64 tile. */
    {"tf32_tile_64x64 N,N", 0, 0, run_tf32_tiles<64, 64, 32, 32, false, false, 1>, WL_GEMM_TF32},
    {"tf32_tile_64x64 N,T", 0, 0, run_tf32_tiles<64, 64, 32, 32, false, true, 1>, WL_GEMM_TF32},
    {"tf32_tile_64x64 T,N split 3", 0, 0, run_tf32_tiles<64, 64, 32, 32, true, false, 3>,
     WL_GEMM_TF32, true},
    {"tf32_tile_64x64 T,T", 0, 0, run_tf32_tiles<64, 64, 32, 32, true, true, 1>, WL_GEMM_TF32},
    {"tf32_tile_128x64 N,T split 2", 0, 0, run_tf32_tiles<128, 64, 32, 32, false, true, 2>,
     WL_GEMM_TF32},
    {"tf32_tile_128x64 T,N", 0, 0, run_tf32_tiles<128, 64, 32, 32, true, false, 1>, WL_GEMM_TF32},
    {"tf32_tile_128x128 N,N", 0, 0, run_tf32_tiles<128, 128, 64, 32, false, false, 1>,
     WL_GEMM_TF32},
    {"tf32_tile_128x128 T,T split 2", 0, 0, run_tf32_tiles<128, 128, 64, 32, true, true, 2>,
     WL_GEMM_TF32},
    {"bf16_mma", 0, 0, run_sixteen_bit_mma<MMA_BF16>, WL_GEMM_BF16},
    {"fp16_mma", 0, 0, run_sixteen_bit_mma<MMA_FP16>, WL_GEMM_FP16},
};

struct problem_case {
    int m, n, k, lda, ldb, ldc; /* 0 = tight */
    float alpha, beta;
    int misalign;
    bool skinny = false; /* only for the shape-aware rungs (k is long: slow here) */
};

/* Small enough for the emulator, large enough to cross every tile edge:
 * several blocks of the 128 x 256 shape, partial tiles everywhere, k not a
 * multiple of BK, padded rows, misaligned views, beta != 0. */
static const problem_case cases[] = {
    {1, 1, 1, 0, 0, 0, 1.0f, 0.0f, 0},
    {17, 33, 65, 0, 0, 0, 1.0f, 0.0f, 0},
    {5, 7, 0, 0, 0, 0, 2.0f, 0.5f, 0},
    {32, 32, 32, 0, 0, 0, 1.0f, 0.0f, 0},
    {64, 96, 64, 0, 0, 0, 1.0f, 0.0f, 0}, /* tiled32: two k tiles, the second overwrites */
    {64, 48, 16, 0, 0, 0, 1.0f, 0.0f, 0},
    {67, 45, 33, 40, 52, 47, 1.5f, -0.75f, 0},
    {130, 127, 37, 0, 0, 0, 1.0f, 0.0f, 1},
    {129, 261, 40, 44, 264, 268, -1.0f, 0.5f, 0},
    {261, 257, 19, 0, 0, 0, 1.0f, 0.0f, 0},
    /* More k tiles than the deepest ring of stages (6 of 16): every
     * pipeline refills buffers it read before, so a missing barrier before
     * a refill shows up. */
    {65, 140, 131, 0, 0, 0, 1.0f, 0.0f, 0},
    /* The skinny kernels' shapes: GEMV both ways with k past a staging
     * chunk (512), n = 5 and m = 3 (partial groups), misaligned, padded. */
    {1, 300, 1100, 0, 0, 0, 1.0f, 0.0f, 0, true},
    {301, 1, 1100, 0, 0, 0, 1.0f, 0.0f, 0, true},
    {3, 131, 700, 0, 0, 0, 1.0f, 0.5f, 1, true},
    {40, 5, 1500, 1503, 7, 9, -1.0f, 0.25f, 0, true},
    {2, 9, 1030, 1033, 0, 0, 1.0f, 0.0f, 1, true},
    /* k past twice the shortest chunk of a 256x128 tail split (1024), so
     * that the planner splits that kernel's tail too. */
    {2, 300, 2100, 0, 0, 0, 1.0f, 0.5f, 1, true},
};

static void check_case(const rung &r, const problem_case &c, uint64_t seed)
{
    if (c.skinny && !r.shape_aware)
        return;
    if (r.multiple_of && (c.m % r.multiple_of || c.n % r.multiple_of || c.k % r.multiple_of))
        return;
    if (r.max_elements && c.m * c.n > r.max_elements)
        return;
    wl_problem p;
    std::memset(&p, 0, sizeof p);
    p.dim[0] = (size_t)c.m;
    p.dim[1] = (size_t)c.n;
    p.dim[2] = (size_t)c.k;
    p.dims = 3;
    p.ld[0] = (size_t)c.lda;
    p.ld[1] = (size_t)c.ldb;
    p.ld[2] = (size_t)c.ldc;
    p.alpha = c.alpha;
    p.beta = c.beta;
    p.dtype = WARPLAB_FLOAT32;
    const size_t spans[3] = {wl_gemm_span(wl_gemm_m(&p), wl_gemm_k(&p), wl_gemm_lda(&p)),
                             wl_gemm_span(wl_gemm_k(&p), wl_gemm_n(&p), wl_gemm_ldb(&p)),
                             wl_gemm_span(wl_gemm_m(&p), wl_gemm_n(&p), wl_gemm_ldc(&p))};
    /* Views 16-byte aligned (plus one float when misaligned), NaN before
     * and after. */
    const size_t guard = 64;
    std::vector<float> storage[3], initial_c;
    float *view[3];
    for (int i = 0; i < 3; i++) {
        storage[i].assign(spans[i] + guard + 16, poison_value());
        const uintptr_t at = reinterpret_cast<uintptr_t>(storage[i].data());
        const size_t first_aligned = (16 - at % 16) % 16 / sizeof(float);
        view[i] = storage[i].data() + first_aligned + 4 + (size_t)c.misalign;
        if (i < 2 || c.beta != 0.0f)
            wl_fill_random(view[i], WARPLAB_FLOAT32, spans[i], -1.0, 1.0, seed + (uint64_t)i);
    }
    initial_c.assign(view[2], view[2] + spans[2]);
    gemm_params g;
    g.a = view[0];
    g.b = view[1];
    g.c = view[2];
    g.m = c.m;
    g.n = c.n;
    g.k = c.k;
    g.lda = (int)wl_gemm_lda(&p);
    g.ldb = (int)wl_gemm_ldb(&p);
    g.ldc = (int)wl_gemm_ldc(&p);
    g.alpha = c.alpha;
    g.beta = c.beta;
    if (c.m > 0 && c.n > 0)
        r.run(g);
    checks++;
    std::string problem = std::to_string(c.m) + "x" + std::to_string(c.n) + "x" +
                          std::to_string(c.k) + (c.misalign ? " misaligned" : "") +
                          (c.beta != 0.0f ? " beta" : "");
    for (int i = 0; i < 3; i++)
        for (size_t e = 0; e < guard; e++)
            if (!std::isnan(view[i][spans[i] + e])) {
                std::fprintf(stderr, "FAIL %s %s: wrote past matrix %d\n", r.id, problem.c_str(),
                             i);
                failures++;
                return;
            }
    const void *host[6] = {view[0], view[1], view[2], nullptr, nullptr, initial_c.data()};
    wl_check check;
    wl_check_init(&check);
    warplab_status status = wl_gemm_verify(&p, host, &check, r.precision);
    if (status != WARPLAB_OK) {
        std::fprintf(
            stderr, "FAIL %s %s: %zu of %zu wrong; first at %zu: got %.9g, expected %.9g\n", r.id,
            problem.c_str(), check.bad, check.checked, check.first_bad, check.got, check.expected);
        failures++;
    }
}

int main(int argc, char **argv)
{
    const char *only = argc > 1 ? argv[1] : nullptr;
    uint64_t seed = 20261121;
    for (const rung &r : rungs) {
        if (only && std::string(only) != r.id)
            continue;
        int before = failures;
        const int tail_runs_before = tail_split_runs;
        for (const problem_case &c : cases)
            check_case(r, c, seed++);
        if (std::string(r.id).find("tail") != std::string::npos &&
            tail_split_runs == tail_runs_before) {
            std::fprintf(stderr, "FAIL %s: no case split a tail\n", r.id);
            failures++;
        }
        std::printf("  %-30s %s\n", r.id, failures == before ? "ok" : "FAILED");
    }
    std::printf("%d passed, %d failed\n", checks - failures, failures);
    return failures ? 1 : 0;
}
