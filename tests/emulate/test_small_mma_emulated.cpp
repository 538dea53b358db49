/* warplab_gemm_ex's small mma.sync kernel (src/cuda/gemm/small_mma.cuh),
 * run on the CPU by cuda_emulate.h: BF16, FP16 (m16n8k16) and TF32
 * (m16n8k8), every layout (op_a, op_b), C in FP32 or the 16-bit input type,
 * alpha with beta 0 (C holds NaN: it must not be read) and beta 0.5, odd m,
 * n and k (1, 7, 91, 123, 300), both tiles. Every operand sits in a buffer
 * of NaNs, its base off 16 bytes (2-byte aligned for 16-bit), its leading
 * dimension odd or padded: a load that strays past a row, a column or k
 * brings a NaN into the results. C's guards and the padding of its rows
 * are NaN too and must keep their bits. A NaN planted in A must reach
 * exactly its row of C; one planted in B exactly its column. */
#include "cuda_emulate.h"

#include "../../src/cuda/gemm/small_mma.cuh"
#include "../../src/ladders/gemm.h"

#include <cstdio>
#include <random>
#include <string>

static const uint16_t NAN16 = 0x7FC0;      /* a NaN in BF16 and in FP16 */
static const uint32_t NAN32 = 0x7FC00123u; /* a NaN with a payload: C's guards keep it */
static const float ALPHA = 1.5f, BETA = 0.5f;

struct small_case {
    int kind; /* MMA_TF32, MMA_BF16, MMA_FP16 */
    int m, n, k;
    bool ta, tb, narrow, beta_zero, nan;
    int mis_a, pad_a, mis_b, pad_b, mis_c, pad_c; /* elements */
    int tile;                                     /* WL_SMALL_MMA_TILE_* */
};

static int failures = 0;

/* A buffer of `lines` rows of `count` elements `ld` apart, base `misalign`
 * elements past a 16-byte boundary, 64 guard elements each side, all NaN. */
template <typename E> struct buffer {
    std::vector<E> storage;
    E *base;
    long long ld;
    size_t first, span; /* the view: storage[first, first + span) */
    buffer(int lines, int count, int pad, int misalign, E poison)
    {
        ld = count + pad;
        span = lines > 0 ? (size_t)(lines - 1) * ld + count : 0;
        const size_t guard = 64;
        storage.assign(span + 2 * guard + 16, poison);
        const uintptr_t at = reinterpret_cast<uintptr_t>(storage.data());
        first = (16 - at % 16) % 16 / sizeof(E) + guard + misalign;
        base = storage.data() + first;
    }
    E &at(long long line, long long i) { return base[line * ld + i]; }
    /* Inside the view: a row's first `count` elements. */
    bool inside(size_t index, int count) const
    {
        if (index < first || index >= first + span)
            return false;
        return (long long)(index - first) % ld < count;
    }
};

static float value_of(int kind, uint32_t bits)
{
    if (kind == MMA_TF32) {
        float x;
        std::memcpy(&x, &bits, 4);
        return __uint_as_float(to_tf32(x)); /* the kernel rounds as it stages */
    }
    return kind == MMA_BF16 ? wl_bf16_to_float((uint16_t)bits) : wl_fp16_to_float((uint16_t)bits);
}

static uint32_t encode(int kind, float x)
{
    if (kind == MMA_TF32)
        return __float_as_uint(x);
    return kind == MMA_BF16 ? wl_float_to_bf16(x) : wl_float_to_fp16(x);
}

template <int KIND, int BM, int BN>
static void launch_tile(const small_mma_params &p, bool ta, bool tb)
{
    const dim3 grid((unsigned)((p.n + BN - 1) / BN), (unsigned)((p.m + BM - 1) / BM));
    const dim3 block(WL_SMALL_MMA_THREADS);
    const size_t smem = small_mma_smem<KIND, BM, BN>();
    if (ta && tb)
        emu_launch(grid, block, smem, [&] { small_mma<KIND, BM, BN, true, true>(p); });
    else if (ta)
        emu_launch(grid, block, smem, [&] { small_mma<KIND, BM, BN, true, false>(p); });
    else if (tb)
        emu_launch(grid, block, smem, [&] { small_mma<KIND, BM, BN, false, true>(p); });
    else
        emu_launch(grid, block, smem, [&] { small_mma<KIND, BM, BN, false, false>(p); });
}

template <int KIND> static void launch(const small_mma_params &p, int tile, bool ta, bool tb)
{
    if (tile == WL_SMALL_MMA_TILE_64)
        launch_tile<KIND, 64, 64>(p, ta, tb);
    else
        launch_tile<KIND, 32, 32>(p, ta, tb);
}

/* One case with operands of element E (uint16_t or uint32_t bits) and C of
 * element CE. */
template <typename E, typename CE> static void check(const small_case &c, unsigned seed)
{
    std::mt19937 random(seed);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    const E poison = sizeof(E) == 2 ? (E)NAN16 : (E)NAN32;
    const CE c_poison = sizeof(CE) == 2 ? (CE)NAN16 : (CE)NAN32;
    /* A stored m x k (op N) or k x m; B k x n or n x k. */
    buffer<E> a(c.ta ? c.k : c.m, c.ta ? c.m : c.k, c.pad_a, c.mis_a, poison);
    buffer<E> b(c.tb ? c.n : c.k, c.tb ? c.k : c.n, c.pad_b, c.mis_b, poison);
    buffer<CE> cm(c.m, c.n, c.pad_c, c.mis_c, c_poison);
    auto ae = [&](int i, int q) -> E & { return c.ta ? a.at(q, i) : a.at(i, q); };
    auto be = [&](int q, int j) -> E & { return c.tb ? b.at(j, q) : b.at(q, j); };
    for (int i = 0; i < c.m; i++)
        for (int q = 0; q < c.k; q++)
            ae(i, q) = (E)encode(c.kind, uniform(random));
    for (int q = 0; q < c.k; q++)
        for (int j = 0; j < c.n; j++)
            be(q, j) = (E)encode(c.kind, uniform(random));
    const int out_kind = sizeof(CE) == 2 ? c.kind : MMA_TF32; /* C's element as a float */
    auto c_value = [&](CE bits) {
        if (sizeof(CE) == 2)
            return value_of(c.kind, bits);
        float x;
        std::memcpy(&x, &bits, 4);
        return x;
    };
    if (!c.beta_zero)
        for (int i = 0; i < c.m; i++)
            for (int j = 0; j < c.n; j++)
                cm.at(i, j) = sizeof(CE) == 2 ? (CE)encode(c.kind, uniform(random))
                                              : (CE)__float_as_uint(uniform(random));
    /* beta 0: C keeps its NaNs, which must not be read. */
    int nan_i = -1, nan_j = -1;
    if (c.nan) {
        nan_i = c.m / 2;
        ae(nan_i, c.k - 1) = poison;
        if (c.n > 2) {
            nan_j = c.n / 3;
            be(c.k / 2, nan_j) = poison;
        }
    }
    std::vector<CE> before(cm.storage);

    small_mma_params p;
    std::memset(&p, 0, sizeof p);
    p.a = a.base;
    p.b = b.base;
    p.c = cm.base;
    p.m = c.m;
    p.n = c.n;
    p.k = c.k;
    p.lda = a.ld;
    p.ldb = b.ld;
    p.ldc = cm.ld;
    p.alpha = ALPHA;
    p.beta = c.beta_zero ? 0.0f : BETA;
    p.narrow = sizeof(CE) == 2;
    if (c.kind == MMA_TF32)
        launch<MMA_TF32>(p, c.tile, c.ta, c.tb);
    else if (c.kind == MMA_BF16)
        launch<MMA_BF16>(p, c.tile, c.ta, c.tb);
    else
        launch<MMA_FP16>(p, c.tile, c.ta, c.tb);

    const char *kind = c.kind == MMA_TF32 ? "tf32" : c.kind == MMA_BF16 ? "bf16" : "fp16";
    char name[200];
    std::snprintf(name, sizeof name,
                  "%s %dx%dx%d %c,%c C %s, beta %s, tile %d, A +%d/%lld, B +%d/%lld, C +%d/%lld%s",
                  kind, c.m, c.n, c.k, c.ta ? 'T' : 'N', c.tb ? 'T' : 'N',
                  p.narrow ? "16-bit" : "fp32", c.beta_zero ? "0" : "0.5",
                  c.tile == WL_SMALL_MMA_TILE_64 ? 64 : 32, c.mis_a, a.ld, c.mis_b, b.ld, c.mis_c,
                  cm.ld, c.nan ? ", NaN in A and B" : "");
    /* The output's rounding (16-bit C) and the FP32 sums' order. */
    const double out_eps = out_kind == MMA_BF16 ? 1.0 / 256 : out_kind == MMA_FP16 ? 1.0 / 2048 : 0;
    size_t bad = 0;
    for (int i = 0; i < c.m; i++)
        for (int j = 0; j < c.n; j++) {
            double ref = 0.0, magnitude = 0.0;
            for (int q = 0; q < c.k; q++) {
                const double term =
                    (double)value_of(c.kind, ae(i, q)) * (double)value_of(c.kind, be(q, j));
                ref += term;
                magnitude += std::fabs(term);
            }
            const double c_in =
                c.beta_zero ? 0.0 : (double)c_value(before[cm.first + i * cm.ld + j]);
            ref = ALPHA * ref + (c.beta_zero ? 0.0 : BETA * c_in);
            magnitude = ALPHA * magnitude + std::fabs(BETA * c_in);
            const double got = c_value(cm.at(i, j));
            const bool want_nan = i == nan_i || j == nan_j;
            const bool ok =
                want_nan ? std::isnan(got)
                         : !std::isnan(got) && std::fabs(got - ref) <= 2e-5 * magnitude + 1e-6 +
                                                                           out_eps * std::fabs(ref);
            if (!ok && bad++ == 0)
                std::fprintf(stderr, "FAIL %s: (%d, %d) got %.9g, expected %.9g\n", name, i, j, got,
                             want_nan ? std::numeric_limits<double>::quiet_NaN() : ref);
        }
    /* Guards and the padding of C's rows: their bits kept. */
    for (size_t e = 0; e < cm.storage.size(); e++)
        if (!cm.inside(e, c.n) && std::memcmp(&cm.storage[e], &before[e], sizeof(CE)) != 0 &&
            bad++ == 0)
            std::fprintf(stderr, "FAIL %s: C's element %zd past the view was written\n", name,
                         (ptrdiff_t)e - (ptrdiff_t)cm.first);
    std::printf("  %-110s %s\n", name, bad ? "FAILED" : "ok");
    if (bad)
        failures++;
}

int main()
{
    struct shape {
        int m, n, k;
    };
    /* Odd sides (1, 7, 91, 123, 300), one tile and several, k of one
     * stage, a partial stage, several. */
    const shape shapes[] = {{91, 91, 91}, {7, 123, 300}, {123, 7, 91},   {1, 91, 123},
                            {75, 65, 77}, {33, 40, 1},   {300, 300, 300}};
    const int kinds[3] = {MMA_BF16, MMA_FP16, MMA_TF32};
    unsigned seed = 20261128, number = 0;
    for (const shape &s : shapes)
        for (int layout = 0; layout < 4; layout++)
            for (int kind : kinds) {
                /* 300^3 in one layout a kind (the emulator's time). */
                if (s.m == 300 && layout != (kind == MMA_TF32 ? 3 : kind == MMA_BF16 ? 1 : 2))
                    continue;
                small_case c;
                c.kind = kind;
                c.m = s.m;
                c.n = s.n;
                c.k = s.k;
                c.ta = layout & 2;
                c.tb = layout & 1;
                /* The variations rotate on counts prime to the 3 kinds and
                 * 4 layouts, so that each kind meets each of them. */
                c.narrow = kind != MMA_TF32 && number % 2 == 1;
                c.beta_zero = number % 5 == 0 || number % 5 == 3;
                c.nan = number % 7 >= 4 && s.k > 1;
                /* Bases off 16 bytes (odd elements: 2-byte aligned for
                 * 16-bit), odd strides, padded rows. */
                c.mis_a = 1 + (int)(number % 3);
                c.pad_a = (int)(number % 5);
                c.mis_b = (int)(number % 2) * 3;
                c.pad_b = 1 + (int)(number % 4);
                c.mis_c = (int)(number % 3);
                c.pad_c = (int)(number % 2) * 5;
                c.tile = number % 5 == 2 ? WL_SMALL_MMA_TILE_64 : WL_SMALL_MMA_TILE_32;
                number++;
                if (kind == MMA_TF32)
                    check<uint32_t, uint32_t>(c, seed++);
                else if (c.narrow)
                    check<uint16_t, uint16_t>(c, seed++);
                else
                    check<uint16_t, uint32_t>(c, seed++);
            }
    std::printf("%d failed\n", failures);
    return failures ? 1 : 0;
}
