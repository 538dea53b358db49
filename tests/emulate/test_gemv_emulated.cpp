/* The GEMV family (src/cuda/gemm/gemv.cuh) run on the CPU by
 * cuda_emulate.h: gemv_along_k and gemv_along_big for FP32, BF16 and FP16
 * inputs, C in FP32 or the input type, Y contiguous along k or along its
 * small side, small sides 1 to 16 (odd ones too); gemv_mma (tensor cores,
 * X and Y along k) for BF16, FP16 and TF32 and gemv_tiled_k (FP32,
 * register tiles) and gemv_mma_rows (TF32, BF16 and FP16 tensor cores, X
 * along big),
 * small sides 1 to 32, and gemv_staged_k (FP32, Y staged in shared
 * memory) 1 to 16 (every
 * column-tile count, one and two row tiles a warp), k long enough for
 * whole rounds of the block's warps and a tail after them; odd big and k, padded
 * leading dimensions, misaligned bases (the element paths), k split in one
 * part (the kernels write C) or many (wl_splitk_finish adds the partial
 * sums, poisoned with NaN first), with alpha and beta, against a double
 * reference of the stored values. Every element outside the matrices
 * (guards, padding) is a NaN, so a load that strays shows up; C's guards
 * and padding must stay as they were. A NaN planted in X reaches its
 * column of C' and no other. */
#include "cuda_emulate.h"

#include "../../src/cuda/gemm/gemv.cuh"

#include <cstdio>
#include <random>

static const float ALPHA = 1.5f, BETA = 0.5f;

struct gemv_case {
    int kind, c_kind; /* WL_GEMV_* */
    int small, big, k;
    bool x_along_k, y_along_k;
    int x_misalign, x_pad, y_misalign, y_pad, c_pad; /* elements */
    int k_chunk;                                     /* 0: one split */
    bool nan;
    int kernel; /* WL_GEMV_KERNEL_*: FMA (by X's layout), TILED, MMA (FP32 inputs: TF32) */
};

static const int F32 = WL_GEMV_F32, BF = WL_GEMV_BF16, F16 = WL_GEMV_F16;
static const int FMA = WL_GEMV_KERNEL_FMA, TILED = WL_GEMV_KERNEL_TILED, MMA = WL_GEMV_KERNEL_MMA;
static const int ROWS = WL_GEMV_KERNEL_MMA_ROWS, STAGED = WL_GEMV_KERNEL_STAGED;

static const gemv_case cases[] = {
    /* Decode with nn.Linear's weights (X along k), aligned, one split and many. */
    {BF, BF, 1, 70, 1000, true, true, 0, 0, 0, 0, 0, 0, false, FMA},
    {BF, F32, 7, 37, 1300, true, true, 0, 8, 0, 0, 3, 256, false, FMA},
    {F16, F16, 16, 45, 777, true, true, 0, 0, 0, 8, 0, 256, false, FMA},
    {F32, F32, 3, 33, 515, true, true, 0, 4, 0, 0, 0, 256, false, FMA},
    /* Misaligned X, odd pitch, Y along its small side (op_a = T). */
    {BF, BF, 5, 29, 601, true, false, 1, 3, 0, 1, 2, 512, false, FMA},
    {F32, F32, 2, 31, 333, true, true, 1, 1, 3, 0, 0, 0, false, FMA},
    {F16, F32, 9, 19, 300, true, true, 0, 0, 1, 0, 0, 0, true, FMA},
    /* X along big (op_b = N), partial 16-byte windows, odd big. */
    {BF, BF, 1, 1030, 257, false, true, 0, 0, 0, 0, 0, 0, false, FMA},
    {F16, F16, 8, 523, 700, false, true, 0, 5, 0, 0, 1, 256, false, FMA},
    {F32, F32, 16, 301, 600, false, false, 0, 4, 0, 3, 0, 256, true, FMA},
    {F32, F32, 4, 257, 513, false, true, 2, 0, 1, 0, 0, 0, false, FMA},
    {BF, F32, 13, 100, 300, false, true, 3, 1, 0, 0, 0, 0, true, FMA},
    /* The 16-bit skinny kernels' cases (that family's test before it was
     * replaced by this one): X by element with Y along its small side; X
     * padded along big; the GEMV along big in 4 splits, the last short; 22
     * splits with NaN. */
    {BF, F32, 3, 131, 700, true, false, 1, 0, 0, 1, 0, 256, false, FMA},
    {F16, F16, 8, 77, 333, false, true, 0, 3, 0, 0, 1, 96, false, FMA},
    {BF, BF, 1, 1300, 1100, false, true, 0, 4, 0, 0, 0, 288, false, FMA},
    {F16, F32, 1, 600, 1100, false, false, 1, 0, 0, 0, 0, 288, true, FMA},
    {BF, BF, 2, 75, 700, false, true, 0, 0, 0, 0, 0, 32, true, FMA},
    /* One row of X (big = 1), k of a few elements. */
    {F32, F32, 1, 1, 5, true, true, 0, 0, 0, 0, 0, 0, false, FMA},
    {BF, BF, 2, 3, 9, false, true, 1, 0, 0, 0, 0, 0, false, FMA},
    /* The tensor-core kernel: one column tile (m <= 8) and one row tile a
     * warp, whole rounds then a tail, one split and many. */
    {BF, BF, 1, 70, 1000, true, true, 0, 0, 0, 0, 0, 0, false, MMA},
    {BF, F32, 7, 37, 1300, true, true, 0, 8, 0, 0, 3, 256, false, MMA},
    {BF, BF, 5, 33, 2100, true, true, 0, 0, 0, 0, 1, 0, true, MMA},
    {F16, F16, 16, 45, 777, true, true, 0, 0, 0, 8, 0, 256, false, MMA},
    {F16, F32, 12, 19, 1056, true, true, 0, 16, 0, 0, 0, 0, false, MMA},
    /* Two row tiles a warp (small > 16): three and four column tiles. */
    {F16, F32, 20, 17, 1111, true, true, 0, 0, 0, 0, 0, 512, false, MMA},
    {BF, BF, 29, 50, 700, true, true, 0, 0, 0, 0, 0, 0, true, MMA},
    {F16, F16, 25, 40, 1024, true, true, 0, 8, 0, 8, 1, 512, false, MMA},
    {BF, F32, 32, 33, 1536, true, true, 0, 0, 0, 0, 0, 0, false, MMA},
    /* TF32: a step of 16 k; whole rounds; views off 16 bytes (element loads). */
    {F32, F32, 3, 33, 515, true, true, 0, 4, 0, 0, 0, 256, false, MMA},
    {F32, F32, 8, 20, 1500, true, true, 0, 0, 0, 0, 2, 0, true, MMA},
    {F32, F32, 32, 40, 300, true, true, 1, 0, 0, 1, 0, 0, false, MMA},
    {F32, F32, 17, 23, 1100, true, true, 0, 0, 0, 0, 0, 512, false, MMA},
    /* 16-bit views off 16 bytes, one row of X. */
    {BF, BF, 9, 21, 333, true, true, 3, 1, 1, 0, 0, 0, false, MMA},
    {F16, F16, 2, 1, 70, true, true, 0, 0, 0, 0, 0, 0, false, MMA},
    /* The register-tiled FP32 kernel: S = 16, 24 and 32, whole stages and
     * a tail, one split and many, views off 16 bytes, Y along its small
     * side, big past one block's 64 rows. */
    {F32, F32, 9, 70, 1000, true, true, 0, 0, 0, 0, 0, 0, false, TILED},
    {F32, F32, 16, 130, 333, true, true, 0, 4, 0, 0, 0, 256, true, TILED},
    {F32, F32, 17, 37, 1000, true, true, 0, 0, 0, 0, 0, 0, false, TILED},
    {F32, F32, 24, 20, 1300, true, true, 0, 4, 0, 0, 3, 256, true, TILED},
    {F32, F32, 32, 41, 777, true, true, 0, 0, 0, 4, 0, 256, false, TILED},
    {F32, F32, 29, 9, 515, true, true, 1, 1, 1, 0, 0, 0, false, TILED},
    {F32, F32, 25, 16, 300, true, false, 0, 0, 0, 0, 1, 0, false, TILED},
    /* The FP32 kernel with Y staged (gemv_staged_k): small 1 to 16 (S = 2,
     * 4, 8, 16, odd sides), one stage and many with a short last one, one split
     * and many (the split shorter than a stage), big past a block's rows
     * and not a multiple of a warp's, k odd, padded rows, views off 16
     * bytes (element loads of X, 4-byte copies of Y), Y along its small
     * side, one row of X, a NaN in X. */
    {F32, F32, 1, 70, 1001, true, true, 0, 0, 0, 0, 0, 0, false, STAGED},
    {F32, F32, 2, 131, 1537, true, true, 0, 4, 0, 0, 3, 512, false, STAGED},
    {F32, F32, 2, 45, 4500, true, true, 0, 0, 0, 0, 0, 0, true, STAGED},
    {F32, F32, 3, 65, 4097, true, true, 0, 0, 0, 0, 0, 0, true, STAGED},
    {F32, F32, 4, 200, 2100, true, true, 0, 4, 0, 4, 1, 1024, false, STAGED},
    {F32, F32, 5, 37, 777, true, true, 1, 1, 1, 0, 0, 256, true, STAGED},
    {F32, F32, 6, 64, 1300, true, true, 0, 0, 0, 0, 2, 0, false, STAGED},
    {F32, F32, 7, 129, 2051, true, true, 0, 8, 0, 0, 0, 768, false, STAGED},
    {F32, F32, 8, 97, 1025, true, true, 0, 3, 0, 1, 0, 512, true, STAGED},
    {F32, F32, 8, 300, 1999, true, true, 0, 0, 0, 0, 1, 0, false, STAGED},
    {F32, F32, 5, 40, 600, true, false, 0, 0, 0, 1, 0, 256, false, STAGED},
    {F32, F32, 3, 1, 70, true, true, 0, 0, 0, 0, 0, 0, false, STAGED},
    {F32, F32, 13, 70, 1100, true, true, 0, 4, 0, 0, 1, 512, true, STAGED},
    {F32, F32, 16, 33, 777, true, true, 1, 0, 0, 0, 0, 0, false, STAGED},
    /* The TF32 tensor-core kernel with X along big (op_b = N): every
     * column-tile count (small 1 to 32, odd ones), one strip and two a
     * warp, one row group and two, whole rounds then a tail, one split and
     * many; odd big (a partial last 16 bytes, a partial strip), padded
     * rows, views off 16 bytes (element loads), Y along its small side
     * (element loads at any stride), a NaN in X. */
    {F32, F32, 1, 70, 1000, false, true, 0, 0, 0, 0, 0, 0, false, ROWS},
    {F32, F32, 3, 1030, 1537, false, true, 0, 4, 0, 0, 3, 512, false, ROWS},
    {F32, F32, 7, 37, 2100, false, true, 0, 0, 0, 0, 1, 0, true, ROWS},
    {F32, F32, 8, 129, 777, false, true, 0, 8, 0, 4, 0, 256, false, ROWS},
    {F32, F32, 13, 45, 1300, false, true, 0, 0, 0, 0, 0, 512, true, ROWS},
    {F32, F32, 16, 301, 600, false, true, 0, 3, 0, 1, 2, 0, false, ROWS},
    {F32, F32, 19, 64, 1100, false, true, 0, 0, 0, 0, 0, 0, false, ROWS},
    {F32, F32, 24, 33, 515, false, true, 1, 0, 1, 0, 0, 0, false, ROWS},
    {F32, F32, 29, 97, 1024, false, true, 0, 4, 0, 0, 1, 512, true, ROWS},
    {F32, F32, 32, 40, 300, false, false, 0, 0, 0, 3, 0, 0, false, ROWS},
    {F32, F32, 2, 1, 70, false, true, 0, 0, 0, 0, 0, 0, false, ROWS},
    /* The same kernel on BF16 and FP16 (mma.sync m16n8k16, registers of
     * two rows of X by byte permutes): C in FP32 and the input type, small
     * 1, 2, 5, 8, 13, 16, 24, 31, 32 (every column-tile count), one strip
     * and two a warp, one row group and two, whole rounds then a tail, one
     * split and many; odd big (a partial last 16 bytes, a partial 64-column
     * strip) and odd k, padded rows, views off 16 bytes (element loads of X
     * and Y), Y along its small side, one row of X, a NaN in X. */
    {BF, BF, 1, 70, 1000, false, true, 0, 0, 0, 0, 0, 0, false, ROWS},
    {F16, F32, 1, 1030, 2049, false, true, 0, 8, 0, 0, 1, 1024, true, ROWS},
    {BF, F32, 2, 131, 1537, false, true, 0, 4, 0, 0, 3, 512, false, ROWS},
    {F16, F16, 5, 37, 2100, false, true, 0, 0, 0, 0, 1, 0, true, ROWS},
    {BF, BF, 8, 129, 777, false, true, 0, 8, 0, 8, 0, 256, false, ROWS},
    {F16, F16, 13, 45, 1300, false, true, 0, 0, 0, 0, 0, 512, true, ROWS},
    {BF, F32, 16, 301, 600, false, true, 0, 3, 0, 1, 2, 0, false, ROWS},
    {F16, F32, 24, 64, 1100, false, true, 0, 0, 0, 0, 0, 0, false, ROWS},
    {BF, BF, 31, 97, 1024, false, true, 0, 8, 0, 0, 1, 512, true, ROWS},
    {F16, F16, 32, 40, 300, false, false, 0, 0, 0, 3, 0, 0, false, ROWS},
    {BF, BF, 24, 33, 515, false, true, 1, 0, 1, 0, 0, 0, false, ROWS},
    {F16, F32, 5, 77, 333, false, true, 3, 1, 0, 1, 0, 96, true, ROWS},
    {BF, F32, 13, 200, 4111, false, true, 0, 0, 0, 0, 0, 0, false, ROWS},
    {F16, F16, 2, 1, 70, false, true, 0, 0, 0, 0, 0, 0, false, ROWS},
    /* Y's 16-byte view with k one short of a whole vector (k = 1023, the
     * rows 1024 apart): the last vector of each row loads element by
     * element (a whole load would read a NaN past k). */
    {BF, BF, 8, 100, 1023, false, true, 0, 0, 0, 1, 0, 0, false, ROWS},
    {F16, F32, 17, 70, 1023, false, true, 0, 0, 0, 1, 0, 512, false, ROWS},
    {F32, F32, 5, 100, 1023, false, true, 0, 0, 0, 1, 0, 0, false, ROWS},
};

/* Elements as 32-bit words (FP32) or 16-bit words, inside a buffer of NaNs. */
struct matrix {
    int kind;
    std::vector<uint32_t> words32;
    std::vector<uint16_t> words16;
    void *base;
    long long ld;
    size_t size() const { return kind == F32 ? 4 : 2; }
    float get(size_t at) const
    {
        if (kind == F32)
            return __uint_as_float(((const uint32_t *)base)[at]);
        const uint16_t h = ((const uint16_t *)base)[at];
        return kind == BF ? wl_bf16_to_float(h) : wl_fp16_to_float(h);
    }
    void set(size_t at, float v)
    {
        if (kind == F32)
            ((uint32_t *)base)[at] = __float_as_uint(v);
        else
            ((uint16_t *)base)[at] = kind == BF ? wl_float_to_bf16(v) : wl_float_to_fp16(v);
    }
};

static const size_t GUARD = 64;

static matrix make_matrix(int kind, int lines, int count, int pad, int misalign)
{
    matrix m;
    m.kind = kind;
    m.ld = count + pad;
    const size_t span = lines > 0 ? (size_t)(lines - 1) * m.ld + count : 0;
    /* After the matrix: GUARD elements and 32 more rows of NaNs, so that a
     * kernel that loads rows past the end of k (a step is up to 32 rows of
     * X along big) reads NaNs, not past the buffer. */
    const size_t total = span + 2 * GUARD + 32 * (size_t)m.ld + 16;
    uintptr_t at;
    if (kind == F32) {
        m.words32.assign(total, 0x7FC00000u);
        at = reinterpret_cast<uintptr_t>(m.words32.data());
        m.base = m.words32.data() + (16 - at % 16) % 16 / 4 + GUARD + misalign;
    } else {
        m.words16.assign(total, 0x7FC0);
        at = reinterpret_cast<uintptr_t>(m.words16.data());
        m.base = m.words16.data() + (16 - at % 16) % 16 / 2 + GUARD + misalign;
    }
    return m;
}

static bool aligned_16(const void *base, long long stride, size_t element)
{
    return reinterpret_cast<uintptr_t>(base) % 16 == 0 && (size_t)stride * element % 16 == 0;
}

template <int KIND, int S>
static void launch_sized(const wl_gemv_params &p, bool along_k, int blocks)
{
    const dim3 grid((unsigned)blocks, (unsigned)p.splits);
    if (along_k)
        emu_launch(grid, dim3(WL_GEMV_THREADS), 0, [&] {
            gemv_along_k<KIND, S, WL_GEMV_ALONG_K_COLS(S, KIND == WL_GEMV_F32 ? 4 : 2)>(p);
        });
    else
        emu_launch(grid, dim3(WL_GEMV_THREADS), 0, [&] { gemv_along_big<KIND, S>(p); });
}

/* As gemv.cu's launch_mma_sized; past the planner's 16 columns (3 or 4
 * column tiles, which scripts/gemv_variants.cu times), two row groups, so
 * that the kernel's row-group path is checked too. */
template <int KIND, int NT> static void launch_mma_sized(const wl_gemv_params &p)
{
    const int RG = NT > 2 ? 2 : WL_GEMV_MMA_GROUPS(8 * NT);
    const int rows = 16 * WL_GEMV_MMA_TILES(8 * NT) * RG;
    const dim3 grid((unsigned)((p.big + rows - 1) / rows), (unsigned)p.splits);
    emu_launch(grid, dim3(32 * WL_GEMV_MMA_WARPS), 0, [&] {
        gemv_mma<KIND, NT, WL_GEMV_MMA_TILES(8 * NT), WL_GEMV_MMA_DEPTH(8 * NT), RG>(p);
    });
}

/* As gemv.cu's launch_mma. */
template <int KIND> static void launch_mma(const wl_gemv_params &p)
{
    if (p.small <= 8)
        launch_mma_sized<KIND, 1>(p);
    else if (p.small <= 16)
        launch_mma_sized<KIND, 2>(p);
    else if (p.small <= 24)
        launch_mma_sized<KIND, 3>(p);
    else
        launch_mma_sized<KIND, 4>(p);
}

/* As gemv.cu's launch_mma_rows, with two strips a warp at NT <= 3 (48
 * sums a lane at NT = 3 for TF32, 96 for 16-bit: partial last chunks of
 * the block's sums) and two row groups at NT >= 3, so that those paths are
 * checked too; 16-bit at NT = 1 with the library's 2 steps, else 1. */
template <int KIND, int NT> static void launch_mma_rows_sized(const wl_gemv_params &p)
{
    const int P = NT <= 3 ? 2 : 1, RG = NT >= 3 ? 2 : 1;
    const int cols = WL_GEMV_MMA_ROWS_STRIP_COLUMNS(KIND == WL_GEMV_F32 ? 4 : 2) * P * RG;
    const int DEPTH =
        KIND == WL_GEMV_F32 ? WL_GEMV_MMA_ROWS_DEPTH(8 * NT) : WL_GEMV_MMA_ROWS16_DEPTH(8 * NT);
    const dim3 grid((unsigned)((p.big + cols - 1) / cols), (unsigned)p.splits);
    emu_launch(grid, dim3(32 * WL_GEMV_MMA_WARPS), 0,
               [&] { gemv_mma_rows<KIND, NT, P, DEPTH, RG, 2>(p); });
}

template <int KIND> static void launch_mma_rows(const wl_gemv_params &p)
{
    if (p.small <= 8)
        launch_mma_rows_sized<KIND, 1>(p);
    else if (p.small <= 16)
        launch_mma_rows_sized<KIND, 2>(p);
    else if (p.small <= 24)
        launch_mma_rows_sized<KIND, 3>(p);
    else
        launch_mma_rows_sized<KIND, 4>(p);
}

/* As gemv.cu's launch_staged (and with D = 2 at S = 4 and 8, R = 4 at
 * S = 8 for odd sides, so that those paths are checked too; S = 16, which
 * scripts/gemv_variants.cu times beside gemv_tiled_k, past 8). */
template <int S, int R, int D> static void launch_staged_sized(const wl_gemv_params &p)
{
    const int rows = (WL_GEMV_THREADS / 32) * R;
    const dim3 grid((unsigned)((p.big + rows - 1) / rows), (unsigned)p.splits);
    emu_launch(grid, dim3(WL_GEMV_THREADS), 0, [&] { gemv_staged_k<S, R, D>(p); });
}

static void launch_staged(const wl_gemv_params &p)
{
    if (p.small <= 2)
        launch_staged_sized<2, WL_GEMV_STAGED_R(2), WL_GEMV_STAGED_D(2)>(p);
    else if (p.small <= 4)
        launch_staged_sized<4, WL_GEMV_STAGED_R(4), 2>(p);
    else if (p.small > 8)
        launch_staged_sized<16, 4, 2>(p);
    else if (p.small % 2 == 0)
        launch_staged_sized<8, WL_GEMV_STAGED_R(8), WL_GEMV_STAGED_D(8)>(p);
    else
        launch_staged_sized<8, 4, 2>(p);
}

/* As gemv.cu's launch_kind. */
template <int KIND> static void launch_kind(const wl_gemv_params &p, bool along_k, int blocks)
{
    if (p.small <= 1)
        launch_sized<KIND, 1>(p, along_k, blocks);
    else if (p.small <= 2)
        launch_sized<KIND, 2>(p, along_k, blocks);
    else if (p.small <= 4)
        launch_sized<KIND, 4>(p, along_k, blocks);
    else if (p.small <= 8)
        launch_sized<KIND, 8>(p, along_k, blocks);
    else
        launch_sized<KIND, 16>(p, along_k, blocks);
}

static int failures = 0;

/* A float as the TF32 mma reads it (truncated to 10 bits of mantissa), or as is. */
static float tf32_of(float v, bool tf32)
{
    return tf32 && !std::isnan(v) ? __uint_as_float(__float_as_uint(v) & ~0x1FFFu) : v;
}

static void check(const gemv_case &c, unsigned seed)
{
    std::mt19937 random(seed);
    std::uniform_real_distribution<float> value(-1.0f, 1.0f);
    /* X stored big x k (rows along k) or k x big; Y small x k or k x small;
     * C' small x big (ldc = big + pad). */
    matrix x = c.x_along_k ? make_matrix(c.kind, c.big, c.k, c.x_pad, c.x_misalign)
                           : make_matrix(c.kind, c.k, c.big, c.x_pad, c.x_misalign);
    matrix y = c.y_along_k ? make_matrix(c.kind, c.small, c.k, c.y_pad, c.y_misalign)
                           : make_matrix(c.kind, c.k, c.small, c.y_pad, c.y_misalign);
    matrix cm = make_matrix(c.c_kind, c.small, c.big, c.c_pad, 0);
    wl_gemv_params p;
    std::memset(&p, 0, sizeof p);
    p.x = x.base;
    p.x_q = c.x_along_k ? 1 : x.ld;
    p.x_j = c.x_along_k ? x.ld : 1;
    p.y = y.base;
    p.y_i = c.y_along_k ? y.ld : 1;
    p.y_q = c.y_along_k ? 1 : y.ld;
    for (int j = 0; j < c.big; j++)
        for (int q = 0; q < c.k; q++)
            x.set((size_t)(q * p.x_q + j * p.x_j), value(random));
    for (int i = 0; i < c.small; i++)
        for (int q = 0; q < c.k; q++)
            y.set((size_t)(i * p.y_i + q * p.y_q), value(random));
    const int nan_j = c.nan ? c.big / 2 : -1;
    if (c.nan)
        x.set((size_t)((c.k / 3) * p.x_q + nan_j * p.x_j), NAN);
    for (int i = 0; i < c.small; i++)
        for (int j = 0; j < c.big; j++)
            cm.set((size_t)(i * cm.ld + j), value(random));
    std::vector<double> c_in((size_t)c.small * c.big); /* C before the call */
    for (int i = 0; i < c.small; i++)
        for (int j = 0; j < c.big; j++)
            c_in[(size_t)i * c.big + j] = cm.get((size_t)(i * cm.ld + j));
    const size_t element = x.size();
    p.x_vec = aligned_16(p.x, c.big == 1 && c.x_along_k ? 0 : c.x_along_k ? p.x_j : p.x_q, element);
    p.y_vec = p.y_q == 1 && aligned_16(p.y, c.small == 1 ? 0 : p.y_i, element);
    p.big = c.big;
    p.small = c.small;
    p.k = c.k;
    p.k_chunk = c.k_chunk ? c.k_chunk : c.k;
    p.splits = (c.k + p.k_chunk - 1) / p.k_chunk;
    std::vector<float> part((size_t)p.splits * c.small * c.big, NAN);
    p.part = p.splits > 1 ? part.data() : nullptr;
    p.c = cm.base;
    p.c_i = cm.ld;
    p.c_j = 1;
    p.alpha = ALPHA;
    p.beta = BETA;
    p.c_kind = c.c_kind;
    const int per_block = c.x_along_k
                              ? (WL_GEMV_THREADS / 32) * WL_GEMV_ALONG_K_COLS(c.small, (int)element)
                              : WL_GEMV_ALONG_BIG_THREADS((int)element) * (int)(16 / element);
    const int blocks = (c.big + per_block - 1) / per_block;
    if (c.kernel == TILED) {
        const dim3 grid((unsigned)((c.big + WL_GEMV_TILED_ROWS - 1) / WL_GEMV_TILED_ROWS),
                        (unsigned)p.splits);
        const int s = WL_GEMV_TILED_S(c.small);
        if (s == 16)
            emu_launch(grid, dim3(WL_GEMV_THREADS), gemv_tiled_shape<16>::BYTES,
                       [&] { gemv_tiled_k<WL_GEMV_F32, 16>(p); });
        else if (s == 24)
            emu_launch(grid, dim3(WL_GEMV_THREADS), gemv_tiled_shape<24>::BYTES,
                       [&] { gemv_tiled_k<WL_GEMV_F32, 24>(p); });
        else
            emu_launch(grid, dim3(WL_GEMV_THREADS), gemv_tiled_shape<32>::BYTES,
                       [&] { gemv_tiled_k<WL_GEMV_F32, 32>(p); });
    } else if (c.kernel == ROWS) {
        if (c.kind == F32)
            launch_mma_rows<WL_GEMV_F32>(p);
        else if (c.kind == BF)
            launch_mma_rows<WL_GEMV_BF16>(p);
        else
            launch_mma_rows<WL_GEMV_F16>(p);
    } else if (c.kernel == STAGED) {
        launch_staged(p);
    } else if (c.kernel == MMA) {
        if (c.kind == F32)
            launch_mma<WL_GEMV_F32>(p);
        else if (c.kind == BF)
            launch_mma<WL_GEMV_BF16>(p);
        else
            launch_mma<WL_GEMV_F16>(p);
    } else if (c.kind == F32)
        launch_kind<WL_GEMV_F32>(p, c.x_along_k, blocks);
    else if (c.kind == BF)
        launch_kind<WL_GEMV_BF16>(p, c.x_along_k, blocks);
    else
        launch_kind<WL_GEMV_F16>(p, c.x_along_k, blocks);
    /* The finish one element a thread, and (odd splits) eight a thread, as
     * wl_splitk_finish_launch takes for large C and few splits. */
    if (p.splits > 1)
        emu_launch(dim3(3), dim3(128), 0, [&] {
            if (p.splits % 2)
                wl_splitk_finish<8>(p.part, p.splits, p.small, p.big, p.c, p.c_i, p.c_j, p.c_kind,
                                    p.alpha, p.beta);
            else
                wl_splitk_finish(p.part, p.splits, p.small, p.big, p.c, p.c_i, p.c_j, p.c_kind,
                                 p.alpha, p.beta);
        });
    const bool tf32 = (c.kernel == MMA || c.kernel == ROWS) && c.kind == F32;
    int bad = 0;
    double worst = 0.0;
    for (int i = 0; i < c.small; i++)
        for (int j = 0; j < c.big; j++) {
            double sum = 0.0, magnitude = 0.0;
            for (int q = 0; q < c.k; q++) {
                /* TF32 products (gemv_mma on FP32 inputs): the words' top 19 bits. */
                const double prod = (double)tf32_of(y.get((size_t)(i * p.y_i + q * p.y_q)), tf32) *
                                    tf32_of(x.get((size_t)(q * p.x_q + j * p.x_j)), tf32);
                sum += prod;
                magnitude += std::fabs(prod);
            }
            const double cin = c_in[(size_t)i * c.big + j];
            const double want = ALPHA * sum + BETA * cin;
            const double got = cm.get((size_t)(i * cm.ld + j));
            if (j == nan_j) {
                if (!std::isnan(got))
                    bad++;
                continue;
            }
            /* FP32 sums of k products, then the output's rounding. */
            const double out_u = c.c_kind == F32 ? 0.0 : c.c_kind == BF ? 1.0 / 256 : 1.0 / 2048;
            const double bound = (c.k + 2) * 1.2e-7 * (ALPHA * magnitude + BETA * std::fabs(cin)) +
                                 out_u * std::fabs(want) + 1e-30;
            const double err = std::fabs(got - want) / bound;
            if (!(err <= 1.0))
                bad++;
            worst = err > worst ? err : worst;
        }
    /* C's padding and guards are as they were. */
    int strayed = 0;
    const size_t c_span = (size_t)(c.small - 1) * cm.ld + c.big;
    for (size_t at = 0; at < c_span; at++)
        if ((long long)(at % cm.ld) >= c.big) {
            const float v = cm.get(at);
            if (!std::isnan(v))
                strayed++;
        }
    for (size_t g = 0; g < GUARD; g++)
        strayed += std::isnan(cm.get(c_span + g)) ? 0 : 1;
    const char *names[3] = {"f32", "bf16", "f16"};
    std::printf("%s %s %s->%s small=%d big=%d k=%d x_along_k=%d y_along_k=%d splits=%d: worst "
                "%.3f of bound, %d wrong, %d stray writes\n",
                bad || strayed ? "FAIL" : "ok",
                c.kernel == MMA      ? "gemv_mma"
                : c.kernel == ROWS   ? "gemv_mma_rows"
                : c.kernel == TILED  ? "gemv_tiled_k"
                : c.kernel == STAGED ? "gemv_staged_k"
                                     : "gemv",
                names[c.kind], names[c.c_kind], c.small, c.big, c.k, c.x_along_k, c.y_along_k,
                p.splits, worst, bad, strayed);
    if (bad || strayed)
        failures++;
}

int main()
{
    unsigned seed = 1;
    for (const gemv_case &c : cases)
        check(c, seed++);
    if (failures) {
        std::printf("%d case(s) failed\n", failures);
        return 1;
    }
    std::printf("all %zu cases passed\n", sizeof cases / sizeof cases[0]);
    return 0;
}
