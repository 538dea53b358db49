/* The intrinsics probe (seed 003, 'Rychlost provádění instrukcí'): the fast,
 * less accurate versions run on the special function units (__sinf,
 * __expf, __fdividef) against the full-precision ones (sinf, expf, '/'),
 * throughput and the largest error seen; and integer division and modulo
 * against the shift and mask they equal for a power of two the compiler is
 * not told about.
 *
 * Each thread evaluates its function K times at x, x + h, x + 2h, ...
 * (h = 2^-12, arguments on a 2^-18 grid so every one is exact; the division
 * is a / ((c + k)(c + k + 1)), a new divisor every step) and writes the
 * first value and the float sum of all K. The first values, compared
 * with the double-precision function, give the error reported; the sums
 * (checked against closed forms, within the accuracy documented for the
 * function plus the rounding of K additions) prove all K evaluations ran.
 *
 * Problem: dim[0] = threads, dim[1] = K. Buffers: in cells (int32: where x
 * lies on its grid, and v for the integer series), in w (float in [0, 1):
 * the divisor's offset c), out first, out sum (4-byte words). */
#include "ladders/ladder_util.h"
#include "probe.h"
#include "probe_kernels.h"

#include <math.h>
#include <string.h>

enum { INTRINSICS_CELLS = 0, INTRINSICS_W, INTRINSICS_FIRST, INTRINSICS_SUM };

static int intrinsics_buffers(const wl_problem *p, wl_buffer_spec *spec)
{
    spec[INTRINSICS_CELLS] = (wl_buffer_spec){WL_IN, WARPLAB_INT32, p->dim[0], 0.0, 1073741824.0};
    spec[INTRINSICS_W] = (wl_buffer_spec){WL_IN, WARPLAB_FLOAT32, p->dim[0], 0.0, 1.0};
    spec[INTRINSICS_FIRST] = (wl_buffer_spec){WL_OUT, WARPLAB_INT32, p->dim[0], 0.0, 0.0};
    spec[INTRINSICS_SUM] = (wl_buffer_spec){WL_OUT, WARPLAB_INT32, p->dim[0], 0.0, 0.0};
    return 4;
}

/* The accuracy the CUDA Programming Guide documents for each function
 * (Mathematical Functions appendix), as an absolute or relative bound. */
#define SINF_ABS 1.1920928955078125e-7    /* 2 ulp of values below 1: 2^-23 */
#define FAST_SIN_ABS 3.6e-7               /* 2^-21.41 on [-pi, pi] */
#define EXPF_REL 2.384185791015625e-7     /* 2 ulp: 2^-22 */
#define FAST_EXP_REL 1.6e-6               /* 2 + floor(1.173 |x|) ulp, |x| <= 10: 13 ulp */
#define DIV_REL 1.1920928955078125e-7     /* correctly rounded; 1 ulp of slack */
#define FAST_DIV_REL 2.384185791015625e-7 /* 2 ulp for divisors in [2^-126, 2^126] */

typedef enum function { F_SIN = 0, F_EXP, F_DIV } function;

/* The argument of thread t on its grid, as the kernels compute it. */
static float argument(function f, int32_t cell)
{
    const uint32_t c = (uint32_t)cell;
    switch (f) {
    case F_SIN: return WL_SIN_LO + (float)(c % WL_SIN_CELLS) * WL_INTRINSICS_GRID;
    case F_EXP: return WL_EXP_LO + (float)(c % WL_EXP_CELLS) * WL_INTRINSICS_GRID;
    default: return WL_DIV_LO + (float)(c % WL_DIV_CELLS) * WL_INTRINSICS_GRID;
    }
}

/* c in [1, 100) on a 2^-12 grid, so c + k stays exact. */
static float divisor_offset(float w)
{
    return 1.0f + (float)(int32_t)(w * WL_DIV_C_CELLS) * WL_DIV_C_GRID;
}

/* Checks every thread's first value (into check: its worst ratio is the
 * error reported) and its sum (failures only). */
static warplab_status verify_function(function f, double allowance, bool relative,
                                      const wl_problem *p, const void *const *host, wl_check *check)
{
    const int32_t *cells = host[INTRINSICS_CELLS];
    const float *w = host[INTRINSICS_W];
    const float *first = host[INTRINSICS_FIRST], *sum = host[INTRINSICS_SUM];
    const double k = (double)p->dim[1], h = (double)WL_INTRINSICS_STEP;
    const double accumulation = k * ldexp(1.0, -24);
    wl_check sums;
    wl_check_init(&sums);
    for (size_t t = 0; t < p->dim[0]; t++) {
        const double x = (double)argument(f, cells[t]);
        double one, total, magnitudes;
        if (f == F_SIN) {
            one = sin(x);
            total = sin(x + (k - 1) * h / 2) * sin(k * h / 2) / sin(h / 2);
            magnitudes = k; /* |sin| <= 1 */
        } else if (f == F_EXP) {
            one = exp(x);
            total = one * expm1(k * h) / expm1(h);
            magnitudes = total;
        } else {
            const float c = divisor_offset(w[t]);
            one = x / (double)(c * (c + 1.0f)); /* the float divisor the kernels use */
            total = x * (1.0 / c - 1.0 / (c + k));
            magnitudes = fabs(total); /* every term has the sign of x */
        }
        double per_term = relative ? allowance * magnitudes : allowance * k;
        if (f == F_DIV) /* the kernels' divisors are products rounded to float */
            per_term += ldexp(1.0, -24) * magnitudes;
        wl_check_value(check, t, (double)first[t], one,
                       relative ? allowance * fabs(one) : allowance);
        wl_check_value(&sums, t, (double)sum[t], total, per_term + accumulation * magnitudes);
    }
    if (sums.bad && !check->bad) {
        check->first_bad = sums.first_bad;
        check->got = sums.got;
        check->expected = sums.expected;
    }
    check->bad += sums.bad;
    check->checked += sums.checked;
    return check->bad ? WARPLAB_ERROR_VERIFICATION_FAILED : WARPLAB_OK;
}

static warplab_status sinf_verify(const wl_problem *p, const void *const *host, wl_check *check)
{
    return verify_function(F_SIN, SINF_ABS, false, p, host, check);
}
static warplab_status fast_sin_verify(const wl_problem *p, const void *const *host, wl_check *check)
{
    return verify_function(F_SIN, FAST_SIN_ABS, false, p, host, check);
}
static warplab_status expf_verify(const wl_problem *p, const void *const *host, wl_check *check)
{
    return verify_function(F_EXP, EXPF_REL, true, p, host, check);
}
static warplab_status fast_exp_verify(const wl_problem *p, const void *const *host, wl_check *check)
{
    return verify_function(F_EXP, FAST_EXP_REL, true, p, host, check);
}
static warplab_status div_verify(const wl_problem *p, const void *const *host, wl_check *check)
{
    return verify_function(F_DIV, DIV_REL, true, p, host, check);
}
static warplab_status fast_div_verify(const wl_problem *p, const void *const *host, wl_check *check)
{
    return verify_function(F_DIV, FAST_DIV_REL, true, p, host, check);
}

/* Integers: v_k = v + 977 k; the sum of v_k / 32 + v_k % 32 over k < K, mod
 * 2^32. With r_k = v_k mod 32 = (r_0 + 17 k) mod 32 (977 = 30 x 32 + 17),
 * sum(v_k / 32) = (sum v_k - sum r_k) / 32 exactly; sum r_k depends on r_0
 * only, so it is tabled once. */
static warplab_status integer_verify(const wl_problem *p, const void *const *host, wl_check *check)
{
    const uint32_t *cells = host[INTRINSICS_CELLS];
    const uint32_t *first = host[INTRINSICS_FIRST], *sum = host[INTRINSICS_SUM];
    const uint64_t k = p->dim[1];
    uint64_t residues[WL_INT_DIVISOR];
    for (uint32_t r0 = 0; r0 < WL_INT_DIVISOR; r0++) {
        residues[r0] = 0;
        for (uint64_t i = 0; i < k; i++)
            residues[r0] += (r0 + (WL_INT_STEP % WL_INT_DIVISOR) * i) % WL_INT_DIVISOR;
    }
    for (size_t t = 0; t < p->dim[0]; t++) {
        const uint64_t v = cells[t];
        const uint64_t r_sum = residues[v % WL_INT_DIVISOR];
        const uint64_t v_sum = k * v + (uint64_t)WL_INT_STEP * k * (k - 1) / 2;
        const uint32_t expected_sum = (uint32_t)((v_sum - r_sum) / WL_INT_DIVISOR + r_sum);
        const uint32_t expected_first = (uint32_t)(v / WL_INT_DIVISOR + v % WL_INT_DIVISOR);
        wl_check_value(check, t, (double)first[t], (double)expected_first, 0.0);
        wl_check_value(check, t, (double)sum[t], (double)expected_sum, 0.0);
    }
    return check->bad ? WARPLAB_ERROR_VERIFICATION_FAILED : WARPLAB_OK;
}

static double evaluations(const wl_problem *p)
{
    return (double)p->dim[0] * (double)p->dim[1];
}
#define SERIES(id_, title_, lesson_, verify_)                                                      \
    {                                                                                              \
        .id = id_, .title = title_, .lesson = lesson_,                                             \
        .course = "seed 003, 'Rychlost provádění instrukcí'", .bytes = wl_zero_work,               \
        .flops = evaluations, .verify = verify_                                                    \
    }

static const wl_rung intrinsics_series[] = {
    SERIES("sinf", "sinf(x), full precision",
           "Range reduction (with a slow path for large |x|) and a polynomial in FP32 FMAs: "
           "within 2 ulp everywhere; no special function unit.",
           sinf_verify),
    SERIES("__sinf", "__sinf(x), special function unit",
           "One MUFU.SIN on the SFU after a scaling: a few instructions, absolute error up to "
           "2^-21.41 on [-pi, pi], worse outside.",
           fast_sin_verify),
    SERIES("expf", "expf(x), full precision",
           "A range reduction in FMAs around MUFU.EX2 that corrects its result: within 2 ulp.",
           expf_verify),
    SERIES("__expf", "__expf(x), special function unit",
           "A multiply and MUFU.EX2: error grows with |x| (2 + 1.173 |x| ulp).", fast_exp_verify),
    SERIES("div", "a / b, IEEE division",
           "Correctly rounded: MUFU.RCP, Newton steps, and a called slow path for hard cases.",
           div_verify),
    SERIES("__fdividef", "__fdividef(a, b)",
           "MUFU.RCP and a multiply: 2 ulp while the divisor stays below 2^126.", fast_div_verify),
    SERIES("div_mod", "v / d + v % d, d = 32 at run time",
           "Integer division and modulo have no instruction: the compiler emits a sequence of "
           "multiplies and corrections (the course: 'celočíselné dělení a modulo' are slow).",
           integer_verify),
    SERIES("shift_mask", "v >> 5 + (v & 31)",
           "What v / 32 + v % 32 is for unsigned v: two cheap integer instructions.",
           integer_verify),
};

static const wl_probe_series intrinsics_info[] = {
    {.id = "sinf", .error_unit = SINF_ABS, .error_kind = "abs"},
    {.id = "__sinf", .baseline = "sinf", .error_unit = FAST_SIN_ABS, .error_kind = "abs"},
    {.id = "expf", .error_unit = EXPF_REL, .error_kind = "rel"},
    {.id = "__expf", .baseline = "expf", .error_unit = FAST_EXP_REL, .error_kind = "rel"},
    {.id = "div", .error_unit = DIV_REL, .error_kind = "rel"},
    {.id = "__fdividef", .baseline = "div", .error_unit = FAST_DIV_REL, .error_kind = "rel"},
    {.id = "div_mod", .error_kind = "exact"},
    {.id = "shift_mask", .baseline = "div_mod", .error_kind = "exact"},
};

static void intrinsics_describe(const wl_problem *p, char *text, size_t len)
{
    wl_format(text, len, "%zu threads x %zu evaluations", p->dim[0], p->dim[1]);
}

static int intrinsics_test_problems(const warplab_device_info *device, wl_problem *problems,
                                    int capacity)
{
    (void)device;
    int count = 0;
    if (count < capacity)
        problems[count++] = wl_probe_point(1, 1, 0, 0);
    if (count < capacity)
        problems[count++] = wl_probe_point(1000, 33, 0, 0);
    if (count < capacity)
        problems[count++] = wl_probe_point(4096 + 7, 1024, 0, 0);
    return count;
}

static const wl_ladder intrinsics_ladder = {
    .name = "intrinsics",
    .title = "intrinsics: fast SFU functions and integer tricks",
    .rungs = intrinsics_series,
    .rung_count = sizeof intrinsics_series / sizeof intrinsics_series[0],
    .describe = intrinsics_describe,
    .leading_size = wl_probe_leading_size,
    .buffers = intrinsics_buffers,
    .test_problems = intrinsics_test_problems,
};

static size_t intrinsics_threads(const warplab_device_info *device, size_t size)
{
    return size ? size : device->gpu ? (size_t)1 << 20 : (size_t)1 << 14;
}
static size_t intrinsics_evaluations(const warplab_device_info *device)
{
    return device->gpu ? 1024 : 64;
}

static int intrinsics_points(const warplab_device_info *device, size_t size, wl_problem *problems,
                             int capacity)
{
    if (capacity < 1)
        return 0;
    problems[0] =
        wl_probe_point(intrinsics_threads(device, size), intrinsics_evaluations(device), 0, 0);
    return 1;
}

static void intrinsics_setup(const warplab_device_info *device, size_t size, char *text, size_t len)
{
    wl_format(text, len,
              "%zu threads x %zu evaluations at x + k 2^-12: sin on [-pi, pi], exp on [-10, 10], "
              "a / ((c+k)(c+k+1)) with a in [-1, 1], c in [1, 100); unsigned v / 32 + v %% 32",
              intrinsics_threads(device, size), intrinsics_evaluations(device));
}

/* "__sinf 7.40x the rate of sinf (largest abs error ...)"; nothing when
 * neither series has a form on the backend. */
static void append_pair(char *text, size_t len, const warplab_probe_result *r, const char *fast,
                        const char *slow, const char *slow_name)
{
    if (!wl_probe_point_at(r, fast, 0) && !wl_probe_point_at(r, slow, 0))
        return;
    wl_append(text, len, "%s%s ", text[0] ? "; " : "", fast);
    wl_probe_append_ratio(text, len, r, fast, 0, slow, 0);
    wl_append(text, len, " the rate of %s", slow_name);
    const warplab_probe_point *f = wl_probe_point_at(r, fast, 0);
    const warplab_probe_point *s = wl_probe_point_at(r, slow, 0);
    if (f && s && f->value > 0 && s->value > 0 && f->error_kind[0] &&
        strcmp(f->error_kind, "exact") != 0)
        wl_append(text, len, " (largest %s error %.2g against %.2g)", f->error_kind, f->error,
                  s->error);
}

static void intrinsics_conclude(const warplab_probe_result *r, char *text, size_t len)
{
    text[0] = '\0';
    append_pair(text, len, r, "__sinf", "sinf", "sinf");
    append_pair(text, len, r, "__expf", "expf", "expf");
    append_pair(text, len, r, "__fdividef", "div", "'/'");
    append_pair(text, len, r, "shift_mask", "div_mod", "division and modulo");
}

static const wl_probe_section intrinsics_sections[] = {
    {.ladder = &intrinsics_ladder,
     .name = "intrinsics",
     .title = "evaluations per second, and the largest error against double precision",
     .x_label = "",
     .unit = "Gop/s",
     .metric = WL_PROBE_OPS,
     .comparison = true,
     .points = intrinsics_points,
     .series = intrinsics_info,
     .series_count = sizeof intrinsics_info / sizeof intrinsics_info[0]},
};

const wl_probe wl_probe_intrinsics = {
    .name = "intrinsics",
    .title = "__sinf, __expf, __fdividef against sinf, expf, '/'; div/mod against shift/mask",
    .course = "seed 003, 'Rychlost provádění instrukcí' (fast SFU versions, slow integer "
              "division)",
    .size_meaning = "threads (default 2^20 on a GPU, 2^14 on a CPU)",
    .sections = intrinsics_sections,
    .section_count = 1,
    .setup = intrinsics_setup,
    .conclude = intrinsics_conclude,
};
