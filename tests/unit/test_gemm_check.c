/* The gemm ladder's verifier must pass correct results and catch wrong
 * ones: a dropped term, a NaN, an unwritten element, a write between C's
 * rows, a wrong beta, the wrong rounding of tensor-core operands, a 16-bit
 * C outside its own rounding, and a bad row in a problem large enough to be
 * sampled. */
#include "../../src/ladders/gemm.h"
#include "../check.h"

#include <stdlib.h>
#include <string.h>

typedef struct matrices {
    wl_problem p;
    float *a, *b, *c, *c0;
} matrices;

static float round_bits(float x, int drop, int away)
{
    uint32_t bits;
    memcpy(&bits, &x, sizeof bits);
    if (away)
        bits += 1u << (drop - 1);
    bits &= ~((1u << drop) - 1u);
    memcpy(&x, &bits, sizeof x);
    return x;
}

/* Rounding applied to the operands before a float multiply-accumulate:
 * 0 none, 1 BF16 nearest even, 2 TF32 toward zero, 3 TF32 nearest away. */
static float operand(float x, int rounding)
{
    switch (rounding) {
    case 1: return wl_gemm_round_bf16(x);
    case 2: return round_bits(x, 13, 0);
    case 3: return round_bits(x, 13, 1);
    default: return x;
    }
}

static void make(matrices *t, size_t m, size_t n, size_t k, size_t ldc, double alpha, double beta,
                 int rounding, uint64_t seed)
{
    memset(t, 0, sizeof *t);
    t->p.dim[0] = m;
    t->p.dim[1] = n;
    t->p.dim[2] = k;
    t->p.dims = 3;
    t->p.ld[2] = ldc;
    t->p.alpha = alpha;
    t->p.beta = beta;
    t->p.dtype = WARPLAB_FLOAT32;
    size_t cn = wl_gemm_span(m, n, wl_gemm_ldc(&t->p));
    t->a = malloc((m * k + 1) * sizeof(float));
    t->b = malloc((k * n + 1) * sizeof(float));
    t->c = malloc((cn + 1) * sizeof(float));
    t->c0 = malloc((cn + 1) * sizeof(float));
    wl_fill_random(t->a, WARPLAB_FLOAT32, m * k, -1, 1, seed);
    wl_fill_random(t->b, WARPLAB_FLOAT32, k * n, -1, 1, seed + 1);
    wl_fill_random(t->c0, WARPLAB_FLOAT32, cn, -1, 1, seed + 2);
    const uint32_t poison = WL_POISON_PATTERN;
    for (size_t i = 0; i < cn; i++)
        memcpy(&t->c[i], beta != 0.0 ? (const void *)&t->c0[i] : (const void *)&poison, 4);
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++) {
            float sum = 0.0f;
            for (size_t p = 0; p < k; p++)
                sum += operand(t->a[i * k + p], rounding) * operand(t->b[p * n + j], rounding);
            size_t at = i * wl_gemm_ldc(&t->p) + j;
            t->c[at] = (float)alpha * sum + (beta != 0.0 ? (float)beta * t->c0[at] : 0.0f);
        }
}

static void release(matrices *t)
{
    free(t->a);
    free(t->b);
    free(t->c);
    free(t->c0);
}

static warplab_status verify(matrices *t, wl_gemm_precision precision, wl_check *check)
{
    const void *host[6] = {t->a, t->b, t->c, NULL, NULL, t->p.beta != 0.0 ? t->c0 : NULL};
    wl_check_init(check);
    return wl_gemm_verify(&t->p, host, check, precision);
}

int main(void)
{
    wl_check check;
    matrices t;

    /* Correct float results pass, well inside the bound. */
    make(&t, 37, 29, 53, 0, 1.0, 0.0, 0, 11);
    CHECK(verify(&t, WL_GEMM_FP32, &check) == WARPLAB_OK);
    CHECK(check.checked == 37 * 29 && check.bad == 0 && check.worst_ratio < 1.0);
    /* One product left out of one element (the largest one: a product
     * smaller than the rounding bound is indistinguishable from rounding). */
    float saved = t.c[5 * 29 + 7], largest = 0.0f;
    for (size_t p = 0; p < 53; p++)
        if (fabsf(t.a[5 * 53 + p] * t.b[p * 29 + 7]) > fabsf(largest))
            largest = t.a[5 * 53 + p] * t.b[p * 29 + 7];
    t.c[5 * 29 + 7] -= largest;
    CHECK(verify(&t, WL_GEMM_FP32, &check) == WARPLAB_ERROR_VERIFICATION_FAILED);
    CHECK(check.bad == 1 && check.first_bad == 5 * 29 + 7);
    t.c[5 * 29 + 7] = saved;
    /* An element never written (still the NaN poison). */
    const uint32_t poison = WL_POISON_PATTERN;
    memcpy(&t.c[36 * 29 + 28], &poison, 4);
    CHECK(verify(&t, WL_GEMM_FP32, &check) == WARPLAB_ERROR_VERIFICATION_FAILED);
    release(&t);

    /* beta != 0 with padded rows: C0 is used, and the gaps must not change. */
    make(&t, 21, 13, 17, 16, 1.5, -0.75, 0, 12);
    CHECK(verify(&t, WL_GEMM_FP32, &check) == WARPLAB_OK);
    t.c[3 * 16 + 14] = 0.0f; /* between rows 3 and 4 */
    CHECK(verify(&t, WL_GEMM_FP32, &check) == WARPLAB_ERROR_VERIFICATION_FAILED);
    t.c[3 * 16 + 14] = t.c0[3 * 16 + 14];
    CHECK(verify(&t, WL_GEMM_FP32, &check) == WARPLAB_OK);
    t.p.beta = 0.5; /* the kernel used another beta */
    CHECK(verify(&t, WL_GEMM_FP32, &check) == WARPLAB_ERROR_VERIFICATION_FAILED);
    release(&t);

    /* beta = 0 with padded rows: the gaps keep the poison. */
    make(&t, 9, 5, 7, 8, 1.0, 0.0, 0, 13);
    CHECK(verify(&t, WL_GEMM_FP32, &check) == WARPLAB_OK);
    t.c[2 * 8 + 6] = 1.0f;
    CHECK(verify(&t, WL_GEMM_FP32, &check) == WARPLAB_ERROR_VERIFICATION_FAILED);
    release(&t);

    /* k = 0: C = beta * C0. */
    make(&t, 4, 6, 0, 0, 2.0, 0.5, 0, 14);
    CHECK(verify(&t, WL_GEMM_FP32, &check) == WARPLAB_OK);
    t.c[0] += 1e-3f;
    CHECK(verify(&t, WL_GEMM_FP32, &check) == WARPLAB_ERROR_VERIFICATION_FAILED);
    release(&t);

    /* A 16-bit C (warplab_gemm_ex's c_type = the input type): the BF16
     * result passes with its own rounding (2^-8) allowed and fails
     * without; an element off by two of its units, or NaN, fails even so. */
    make(&t, 23, 31, 40, 0, 1.0, 0.0, 1, 21);
    for (size_t i = 0; i < 23 * 31; i++)
        t.c[i] = wl_bf16_to_float(wl_float_to_bf16(t.c[i]));
    {
        const void *host[3] = {t.a, t.b, t.c};
        wl_check_init(&check);
        CHECK(wl_gemm_verify_rounded(&t.p, host, &check, WL_GEMM_BF16, 0x1p-8, 0.0) == WARPLAB_OK);
        wl_check_init(&check);
        CHECK(wl_gemm_verify_rounded(&t.p, host, &check, WL_GEMM_BF16, 0.0, 0.0) ==
              WARPLAB_ERROR_VERIFICATION_FAILED);
        size_t big = 0;
        for (size_t i = 0; i < 23 * 31; i++)
            if (fabsf(t.c[i]) > fabsf(t.c[big]))
                big = i;
        const float kept = t.c[big];
        t.c[big] = kept * (1.0f + 0x1p-6f);
        wl_check_init(&check);
        CHECK(wl_gemm_verify_rounded(&t.p, host, &check, WL_GEMM_BF16, 0x1p-8, 0.0) ==
              WARPLAB_ERROR_VERIFICATION_FAILED);
        CHECK(check.bad == 1 && check.first_bad == big);
        t.c[big] = NAN;
        wl_check_init(&check);
        CHECK(wl_gemm_verify_rounded(&t.p, host, &check, WL_GEMM_BF16, 0x1p-8, 0.0) ==
              WARPLAB_ERROR_VERIFICATION_FAILED);
    }
    release(&t);

    /* BF16: right only with the operands rounded to BF16. */
    make(&t, 19, 23, 64, 0, 1.0, 0.0, 1, 15);
    CHECK(verify(&t, WL_GEMM_BF16, &check) == WARPLAB_OK);
    CHECK(verify(&t, WL_GEMM_FP32, &check) == WARPLAB_ERROR_VERIFICATION_FAILED);
    release(&t);
    make(&t, 19, 23, 64, 0, 1.0, 0.0, 0, 15);
    CHECK(verify(&t, WL_GEMM_BF16, &check) == WARPLAB_ERROR_VERIFICATION_FAILED);
    release(&t);

    /* TF32: truncated or rounded operands pass, unrounded ones do not. */
    make(&t, 19, 23, 64, 0, 1.0, 0.0, 2, 16);
    CHECK(verify(&t, WL_GEMM_TF32, &check) == WARPLAB_OK);
    release(&t);
    make(&t, 19, 23, 64, 0, 1.0, 0.0, 3, 16);
    CHECK(verify(&t, WL_GEMM_TF32, &check) == WARPLAB_OK);
    release(&t);
    make(&t, 19, 23, 64, 0, 1.0, 0.0, 0, 16);
    CHECK(verify(&t, WL_GEMM_TF32, &check) == WARPLAB_ERROR_VERIFICATION_FAILED);
    release(&t);

    /* Large enough to be sampled (m*n*k > 2^27): still right, and a wrong
     * last row, a wrong column or an unwritten element elsewhere is caught. */
    make(&t, 700, 480, 401, 0, 1.0, 0.0, 0, 17);
    CHECK(verify(&t, WL_GEMM_FP32, &check) == WARPLAB_OK);
    CHECK(check.checked < 700 * 480 && check.checked > 8 * 480);
    t.c[699 * 480 + 100] += 0.01f;
    CHECK(verify(&t, WL_GEMM_FP32, &check) == WARPLAB_ERROR_VERIFICATION_FAILED);
    t.c[699 * 480 + 100] -= 0.01f;
    for (size_t i = 0; i < 700; i++)
        t.c[i * 480 + 479] *= 1.01f;
    CHECK(verify(&t, WL_GEMM_FP32, &check) == WARPLAB_ERROR_VERIFICATION_FAILED);
    for (size_t i = 0; i < 700; i++)
        t.c[i * 480 + 479] /= 1.01f;
    memcpy(&t.c[333 * 480 + 222], &poison, 4);
    CHECK(verify(&t, WL_GEMM_FP32, &check) == WARPLAB_ERROR_VERIFICATION_FAILED);
    release(&t);

    return check_report("test_gemm_check");
}
