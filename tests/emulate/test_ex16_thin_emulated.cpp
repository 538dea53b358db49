/* warplab_gemm_ex's 16-bit kernel for one small side, run on the CPU by
 * cuda_emulate.h: ex16_thin (src/cuda/gemm/ex16_thin.cuh, m or n up to 64)
 * with k split and the partial sums
 * (poisoned with NaN first) added by wl_splitk_finish (the GEMV family,
 * which serves the smaller sides, has its own test: test_gemv_emulated.cpp).
 * BF16 and FP16, X contiguous along k
 * or along big, Y contiguous along k or along small, 16-byte rows and not
 * (misaligned bases, odd strides), partial strips and k steps; C = alpha
 * A B + beta C against a double-precision reference of the 16-bit values.
 * Every element outside the matrices (guards, padding of the leading
 * dimension) is a NaN, so a load that strays shows up in the results. */
#include "cuda_emulate.h"

#include "../../src/cuda/gemm/ex16_thin.cuh"
#include "../../src/cuda/gemm/gemv.cuh"
#include "../../src/ladders/gemm.h"

#include <cstdio>
#include <random>
#include <string>

struct thin_case {
    int small, big, k;
    bool x_along_k, y_along_k, bf16;
    int x_misalign, x_pad, y_misalign, y_pad; /* elements */
    int k_chunk;                              /* a multiple of EX16_THIN_STEP */
    bool nan;                                 /* a NaN planted in X and one in Y */
};

static const thin_case cases[] = {
    /* GEMV both ways, 16-byte rows, a partial strip, k split in 4 with a short last split. */
    {1, 300, 1100, false, true, true, 0, 4, 0, 0, 288, false},
    {1, 300, 1100, true, true, false, 0, 4, 0, 0, 288, false},
    /* Element paths: X misaligned; X rows of odd stride; Y misaligned. */
    {17, 131, 700, false, false, false, 1, 0, 0, 3, 256, false},
    {33, 200, 517, true, true, true, 0, 5, 1, 0, 160, false},
    {5, 64, 40, true, true, true, 0, 0, 1, 0, 32, false},
    /* Four 16-row tiles (one k step in flight), 16-byte rows, ragged big. */
    {64, 129, 256, false, true, true, 0, 7, 0, 8, 64, false},
    {64, 70, 300, true, false, false, 0, 4, 0, 0, 128, false},
    {2, 8, 8, false, true, false, 0, 0, 0, 0, 32, false},
    /* 3 and 8 rows, X by element, padded. */
    {3, 131, 700, true, false, true, 1, 0, 0, 1, 288, false},
    {8, 77, 333, false, true, false, 0, 3, 0, 0, 96, false},
    /* NaN in X and in Y reach their column and row, and no other. */
    {16, 100, 200, false, true, true, 0, 4, 0, 0, 96, true},
    {40, 90, 150, true, true, false, 0, 2, 0, 2, 64, true},
    {4, 100, 600, true, true, true, 0, 0, 0, 0, 256, true},
    /* Rows 8 bytes off 16 (pitch 4 mod 8 elements: two 8-byte loads a
     * window) and 4 bytes off (pitch 2 mod 4: four 4-byte loads), X along k
     * and along big, with NaN. */
    {14, 203, 1524, true, false, true, 0, 0, 0, 0, 512, true},
    {24, 150, 300, true, true, false, 0, 2, 0, 6, 96, false},
    {9, 1100, 260, false, true, true, 0, 0, 0, 4, 64, true},
    {12, 205, 99, false, false, false, 0, 1, 0, 0, 32, false},
    /* 22 splits, with NaN: wl_splitk_finish adds many. */
    {2, 75, 700, true, true, true, 0, 0, 0, 0, 32, true},
};

/* C = alpha * op(A) op(B) + beta * C in every check: C's input is random. */
static const float ALPHA = 1.5f, BETA = 0.5f;

static const uint16_t NAN16 = 0x7FC0; /* a NaN in BF16 and in FP16 (0x7FC0: exponent all ones) */

static float decode(bool bf16, uint16_t h)
{
    return bf16 ? wl_bf16_to_float(h) : wl_fp16_to_float(h);
}

/* A matrix of `lines` lines of `count` elements, `ld` apart, in a buffer
 * of NaNs: 16-byte aligned plus misalign, guards before and after. */
struct matrix16 {
    std::vector<uint16_t> storage;
    uint16_t *base;
    long long ld;
};

static matrix16 make_matrix(int lines, int count, int pad, int misalign, bool bf16,
                            std::mt19937 &random)
{
    matrix16 m;
    m.ld = count + pad;
    const size_t span = lines > 0 ? (size_t)(lines - 1) * m.ld + count : 0;
    const size_t guard = 64;
    m.storage.assign(span + 2 * guard + 16, NAN16);
    const uintptr_t at = reinterpret_cast<uintptr_t>(m.storage.data());
    m.base = m.storage.data() + (16 - at % 16) % 16 / 2 + guard + misalign;
    std::uniform_real_distribution<float> value(-1.0f, 1.0f);
    for (int l = 0; l < lines; l++)
        for (int c = 0; c < count; c++)
            m.base[(size_t)l * m.ld + c] =
                bf16 ? wl_float_to_bf16(value(random)) : wl_float_to_fp16(value(random));
    return m;
}

/* The library's choice (ex16_gemm.cu thin_vector_bytes): the widest load
 * of 16, 8 or 4 bytes that the base and the pitch keep aligned, else 0. */
static int vector_bytes(const void *base, long long stride)
{
    for (int bytes = 16; bytes >= 4; bytes /= 2)
        if (reinterpret_cast<uintptr_t>(base) % bytes == 0 && stride * 2 % bytes == 0)
            return bytes;
    return 0;
}

template <bool BF16, int MI, bool ALONG_K> static void launch(const ex16_thin_params &p, dim3 grid)
{
    constexpr int depth = MI <= 2 ? 2 : 1;
    emu_launch(grid, dim3(32 * EX16_THIN_WARPS), 0,
               [&] { ex16_thin<BF16, MI, ALONG_K, depth>(p); });
}

template <bool BF16, int MI>
static void launch_layout(const ex16_thin_params &p, dim3 grid, bool along_k)
{
    if (along_k)
        launch<BF16, MI, true>(p, grid);
    else
        launch<BF16, MI, false>(p, grid);
}

template <bool BF16> static void launch_small(const ex16_thin_params &p, dim3 grid, bool along_k)
{
    if (p.small <= 16)
        launch_layout<BF16, 1>(p, grid, along_k);
    else if (p.small <= 32)
        launch_layout<BF16, 2>(p, grid, along_k);
    else
        launch_layout<BF16, 4>(p, grid, along_k);
}

/* The splits' partial sums into C (small x big, row-major, FP32). */
static void finish(const ex16_thin_params &p)
{
    const dim3 grid(4), block(128); /* a grid-stride loop: fewer threads than elements */
    emu_launch(grid, block, 0, [&] {
        wl_splitk_finish(p.part, p.splits, p.small, p.big, p.c, p.c_i, p.c_j, WL_GEMV_F32, p.alpha,
                         p.beta);
    });
}

static int failures = 0;

static void check(const thin_case &c, unsigned seed)
{
    std::mt19937 random(seed);
    /* X stored k x big (rows along big) or big x k (rows along k); Y
     * small x k or k x small. */
    matrix16 x = c.x_along_k ? make_matrix(c.big, c.k, c.x_pad, c.x_misalign, c.bf16, random)
                             : make_matrix(c.k, c.big, c.x_pad, c.x_misalign, c.bf16, random);
    matrix16 y = c.y_along_k ? make_matrix(c.small, c.k, c.y_pad, c.y_misalign, c.bf16, random)
                             : make_matrix(c.k, c.small, c.y_pad, c.y_misalign, c.bf16, random);
    ex16_thin_params p;
    std::memset(&p, 0, sizeof p);
    p.x = x.base;
    p.x_q = c.x_along_k ? 1 : x.ld;
    p.x_j = c.x_along_k ? x.ld : 1;
    p.y = y.base;
    p.y_i = c.y_along_k ? y.ld : 1;
    p.y_q = c.y_along_k ? 1 : y.ld;
    auto xe = [&](int q, int j) -> uint16_t & { return x.base[q * p.x_q + j * p.x_j]; };
    auto ye = [&](int i, int q) -> uint16_t & { return y.base[i * p.y_i + q * p.y_q]; };
    int nan_j = -1, nan_i = -1;
    if (c.nan) {
        nan_j = c.big / 3;
        nan_i = c.small / 2;
        xe(c.k / 2, nan_j) = NAN16;
        ye(nan_i, c.k - 1) = NAN16;
    }
    p.x_vec = c.x_along_k ? vector_bytes(p.x, p.x_j) : vector_bytes(p.x, p.x_q);
    p.y_vec = p.y_q == 1 ? vector_bytes(p.y, c.small == 1 ? 0 : p.y_i) : 0;
    p.big = c.big;
    p.small = c.small;
    p.k = c.k;
    std::vector<float> c0((size_t)c.small * c.big);
    std::uniform_real_distribution<float> value(-1.0f, 1.0f);
    for (float &e : c0)
        e = value(random);

    const std::string shape =
        std::to_string(c.small) + "x" + std::to_string(c.big) + "x" + std::to_string(c.k) +
        (c.bf16 ? " bf16" : " fp16") + (c.x_along_k ? " X along k" : " X along big") +
        (c.y_along_k ? ", Y along k" : ", Y along small") +
        (p.x_vec ? ", X in " + std::to_string(p.x_vec) + "-byte loads" : ", X by element") +
        (p.y_vec ? ", Y in " + std::to_string(p.y_vec) + "-byte loads" : ", Y by element") +
        (c.nan ? ", NaN" : "");
    /* One kernel (run) with k_chunk, then C against the reference. */
    auto run_and_check = [&](const char *kernel, int k_chunk, auto run) {
        p.k_chunk = k_chunk;
        p.splits = (c.k + k_chunk - 1) / k_chunk;
        std::vector<float> part((size_t)p.splits * c.small * c.big,
                                std::numeric_limits<float>::quiet_NaN());
        std::vector<float> out = c0;
        p.part = part.data();
        p.c = out.data();
        p.c_i = c.big;
        p.c_j = 1;
        p.alpha = ALPHA;
        p.beta = BETA;
        p.narrow = false;
        run();
        const std::string name =
            std::string(kernel) + " " + shape + ", " + std::to_string(p.splits) + " splits";
        size_t bad = 0, checked = 0;
        for (int i = 0; i < c.small; i++)
            for (int j = 0; j < c.big; j++) {
                double ref = 0.0, magnitude = 0.0;
                for (int q = 0; q < c.k; q++) {
                    const double term = (double)decode(c.bf16, ye(i, q)) * decode(c.bf16, xe(q, j));
                    ref += term;
                    magnitude += std::fabs(term);
                }
                const double c_in = c0[(size_t)i * c.big + j];
                ref = ALPHA * ref + BETA * c_in;
                magnitude = ALPHA * magnitude + std::fabs(BETA * c_in);
                const float got = out[(size_t)i * c.big + j];
                const bool want_nan = j == nan_j || i == nan_i;
                const bool ok =
                    want_nan ? std::isnan(got)
                             : !std::isnan(got) && std::fabs(got - ref) <= 1e-5 * magnitude + 1e-6;
                checked++;
                if (!ok && bad++ == 0)
                    std::fprintf(stderr, "FAIL %s: (%d, %d) got %.9g, expected %.9g\n",
                                 name.c_str(), i, j, got,
                                 want_nan ? std::numeric_limits<double>::quiet_NaN() : ref);
            }
        std::printf("  %-96s %s\n", name.c_str(), bad ? "FAILED" : "ok");
        if (bad) {
            std::fprintf(stderr, "  %zu of %zu wrong\n", bad, checked);
            failures++;
        }
    };

    run_and_check("thin", c.k_chunk, [&] {
        const dim3 grid((unsigned)((c.big + EX16_THIN_COLS - 1) / EX16_THIN_COLS),
                        (unsigned)p.splits);
        if (c.bf16)
            launch_small<true>(p, grid, c.x_along_k);
        else
            launch_small<false>(p, grid, c.x_along_k);
        finish(p);
    });
}

int main()
{
    unsigned seed = 20261123;
    for (const thin_case &c : cases)
        check(c, seed++);
    std::printf("%d failed\n", failures);
    return failures ? 1 : 0;
}
