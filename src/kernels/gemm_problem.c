/* The matrix multiply as the kernels read it (gemm_problem.h): the 16-bit
 * storage types on the host, the ex_* rungs' and vendor rows' 16-bit input
 * copies, and the planner's view of a problem. */
#include "gemm_problem.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

uint16_t wl_float_to_bf16(float x)
{
    uint32_t bits = wl_float_bits(x);
    if ((bits & 0x7FFFFFFFu) > 0x7F800000u)
        return (uint16_t)((bits >> 16) | 0x40u); /* NaN stays NaN (quiet) */
    bits += 0x7FFFu + ((bits >> 16) & 1u);
    return (uint16_t)(bits >> 16);
}

float wl_bf16_to_float(uint16_t h)
{
    return wl_bits_float((uint32_t)h << 16);
}

uint16_t wl_float_to_fp16(float x)
{
    const uint32_t bits = wl_float_bits(x);
    const uint16_t sign = (uint16_t)((bits >> 16) & 0x8000u);
    const uint32_t magnitude = bits & 0x7FFFFFFFu;
    if (magnitude > 0x7F800000u)
        return (uint16_t)(sign | 0x7E00u); /* NaN */
    if (magnitude >= 0x477FF000u)          /* 65520 and up round to infinity */
        return (uint16_t)(sign | 0x7C00u);
    if (magnitude >= 0x38800000u) { /* a normal half: 2^-14 and up */
        const uint32_t rounded = magnitude + 0xFFFu + ((magnitude >> 13) & 1u);
        return (uint16_t)(sign | ((rounded - (112u << 23)) >> 13));
    }
    if (magnitude <= 0x33000000u) /* 2^-25 and below: zero (the tie goes to even) */
        return sign;
    /* A subnormal half: the value in units of 2^-24, rounded to nearest even. */
    const uint32_t exponent = magnitude >> 23, significand = (magnitude & 0x7FFFFFu) | 0x800000u;
    const uint32_t shift = 126u - exponent; /* 14 .. 24 */
    uint32_t q = significand >> shift;
    const uint32_t rest = significand & ((1u << shift) - 1u), half = 1u << (shift - 1u);
    if (rest > half || (rest == half && (q & 1u)))
        q++;
    return (uint16_t)(sign | q);
}

float wl_fp16_to_float(uint16_t h)
{
    const uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    const uint32_t exponent = (h >> 10) & 0x1Fu, mantissa = h & 0x3FFu;
    if (exponent == 0) {
        const float value = ldexpf((float)mantissa, -24);
        return sign ? -value : value;
    }
    if (exponent == 31)
        return wl_bits_float(sign | 0x7F800000u | (mantissa << 13));
    return wl_bits_float(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

/* A float view converted to a 16-bit copy in a new backend buffer, offset
 * by misalign elements. */
static warplab_status convert_view(wl_backend *backend, wl_view view, warplab_dtype type,
                                   size_t misalign, void **copy)
{
    const size_t count = view.bytes / sizeof(float);
    /* The copy: misalign leading halves, the values, then zeros up to whole
     * 4-byte words and one word more (fill32 and some copies want them);
     * the host staging holds exactly what is uploaded. */
    const size_t halves_count = (count + misalign + 1) / 2 * 2 + 2;
    const size_t bytes = halves_count * sizeof(uint16_t);
    float *values = malloc((count ? count : 1) * sizeof *values);
    uint16_t *halves = calloc(halves_count, sizeof *halves);
    warplab_status status = WARPLAB_OK;
    if (!values || !halves)
        status = wl_fail(backend, WARPLAB_ERROR_HOST_OUT_OF_MEMORY, "gemm_ex input copies");
    if (status == WARPLAB_OK && count)
        status = backend->ops->download(backend, view.handle, view.offset, values, view.bytes);
    if (status == WARPLAB_OK) {
        for (size_t i = 0; i < count; i++)
            halves[misalign + i] = type == WARPLAB_BFLOAT16 ? wl_float_to_bf16(values[i])
                                                            : wl_float_to_fp16(values[i]);
        status = backend->ops->alloc(backend, bytes, copy);
        if (status == WARPLAB_OK)
            status = backend->ops->upload(backend, *copy, 0, halves, bytes);
    }
    free(values);
    free(halves);
    return status;
}

warplab_status wl_gemm_ex_inputs_make(wl_backend *backend, const wl_launch *launch,
                                      warplab_dtype type, wl_gemm_ex_inputs *inputs)
{
    inputs->a = inputs->b = NULL;
    inputs->type = type;
    if (type == WARPLAB_FLOAT32)
        return WARPLAB_OK;
    const size_t misalign = launch->problem->misalign;
    warplab_status status = convert_view(backend, launch->buf[GEMM_A], type, misalign, &inputs->a);
    if (status == WARPLAB_OK)
        status = convert_view(backend, launch->buf[GEMM_B], type, misalign, &inputs->b);
    if (status != WARPLAB_OK)
        wl_gemm_ex_inputs_free(backend, inputs);
    return status;
}

void wl_gemm_ex_inputs_free(wl_backend *backend, wl_gemm_ex_inputs *inputs)
{
    if (inputs->a)
        backend->ops->release(backend, inputs->a);
    if (inputs->b)
        backend->ops->release(backend, inputs->b);
    inputs->a = inputs->b = NULL;
}

wl_gemm_desc wl_gemm_desc_of(const wl_problem *p, const void *a, const void *b, const void *c)
{
    wl_gemm_desc d;
    memset(&d, 0, sizeof d);
    d.m = wl_gemm_m(p);
    d.n = wl_gemm_n(p);
    d.k = wl_gemm_k(p);
    d.batch = 1;
    d.op_a = wl_gemm_trans_a(p) ? WARPLAB_OP_T : WARPLAB_OP_N;
    d.op_b = wl_gemm_trans_b(p) ? WARPLAB_OP_T : WARPLAB_OP_N;
    d.ab_type = p->dtype;
    d.c_type = (p->variant & WL_GEMM_C_INPUT_TYPE) ? p->dtype : WARPLAB_FLOAT32;
    d.compute = (p->variant & WL_GEMM_COMPUTE_TF32) ? WARPLAB_COMPUTE_TF32 : WARPLAB_COMPUTE_FP32;
    d.lda = wl_gemm_lda(p);
    d.ldb = wl_gemm_ldb(p);
    d.ldc = wl_gemm_ldc(p);
    const size_t in = warplab_dtype_size(d.ab_type), out = warplab_dtype_size(d.c_type);
    const size_t offset = p->misalign;
    d.align_a = wl_gemm_alignment(a ? (size_t)(uintptr_t)a : offset * in, d.lda, in);
    d.align_b = wl_gemm_alignment(b ? (size_t)(uintptr_t)b : offset * in, d.ldb, in);
    d.align_c = wl_gemm_alignment(c ? (size_t)(uintptr_t)c : offset * out, d.ldc, out);
    d.line_phase = (unsigned)(offset * in % 128);
    if (p->batch > 1) {
        /* Every matrix of the batch starts where its stride puts it: the
         * alignment is also the stride's (0, a broadcast operand, keeps it). */
        d.batch = p->batch;
        d.stride_a = p->stride[0];
        d.stride_b = p->stride[1];
        d.stride_c = p->stride[2];
        const unsigned aa = wl_gemm_alignment(d.stride_a * in, 0, 1);
        const unsigned ab = wl_gemm_alignment(d.stride_b * in, 0, 1);
        const unsigned ac = wl_gemm_alignment(d.stride_c * out, 0, 1);
        d.align_a = aa < d.align_a ? aa : d.align_a;
        d.align_b = ab < d.align_b ? ab : d.align_b;
        d.align_c = ac < d.align_c ? ac : d.align_c;
    }
    return d;
}
