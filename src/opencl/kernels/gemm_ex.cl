/* warplab_gemm_ex on OpenCL: C = alpha * op(A) * op(B) + beta * C with A and
 * B float, bf16 or fp16 (type 0, 1, 2), C float or the input type, op(X) =
 * X or X^T of row-major storage, FP32 sums. One work-item an element of C:
 * the function the GPU computes, simply (PoCL checks it in CI). 16-bit
 * values arrive as ushort words and are converted here (no cl_khr_fp16):
 * widening is exact, narrowing rounds to nearest even. TF32 compute
 * truncates float operands to TF32 (the low 13 mantissa bits dropped), as
 * the tensor cores do. Views are a buffer and an element offset. */

inline float bf16_to_float(ushort h)
{
    return as_float((uint)h << 16);
}
/* warplab:rung gemm ex_tf32 ex_bf16 ex_fp16 */

inline float fp16_to_float(ushort h)
{
    const uint sign = (uint)(h & 0x8000u) << 16;
    const uint exponent = (h >> 10) & 0x1Fu, mantissa = h & 0x3FFu;
    if (exponent == 0) {
        const float value = (float)mantissa * 0x1p-24f;
        return sign ? -value : value;
    }
    if (exponent == 31)
        return as_float(sign | 0x7F800000u | (mantissa << 13));
    return as_float(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

inline ushort float_to_bf16(float x)
{
    uint bits = as_uint(x);
    if ((bits & 0x7FFFFFFFu) > 0x7F800000u)
        return (ushort)((bits >> 16) | 0x40u);
    bits += 0x7FFFu + ((bits >> 16) & 1u);
    return (ushort)(bits >> 16);
}

inline ushort float_to_fp16(float x)
{
    const uint bits = as_uint(x);
    const ushort sign = (ushort)((bits >> 16) & 0x8000u);
    const uint magnitude = bits & 0x7FFFFFFFu;
    if (magnitude > 0x7F800000u)
        return (ushort)(sign | 0x7E00u);
    if (magnitude >= 0x477FF000u)
        return (ushort)(sign | 0x7C00u);
    if (magnitude >= 0x38800000u) {
        const uint rounded = magnitude + 0xFFFu + ((magnitude >> 13) & 1u);
        return (ushort)(sign | ((rounded - (112u << 23)) >> 13));
    }
    if (magnitude <= 0x33000000u)
        return sign;
    const uint exponent = magnitude >> 23, significand = (magnitude & 0x7FFFFFu) | 0x800000u;
    const uint shift = 126u - exponent;
    uint q = significand >> shift;
    const uint rest = significand & ((1u << shift) - 1u), halfway = 1u << (shift - 1u);
    if (rest > halfway || (rest == halfway && (q & 1u)))
        q++;
    return (ushort)(sign | q);
}

inline float load_value(__global const void *base, int type, long index, int tf32)
{
    if (type == 1)
        return bf16_to_float(((__global const ushort *)base)[index]);
    if (type == 2)
        return fp16_to_float(((__global const ushort *)base)[index]);
    const float x = ((__global const float *)base)[index];
    return tf32 && !isnan(x) ? as_float(as_uint(x) & 0xFFFFE000u) : x;
}

__kernel void gemm_ex(__global const uchar *A, ulong a_off, int lda, __global const uchar *B,
                      ulong b_off, int ldb, __global uchar *C, ulong c_off, int ldc, int m, int n,
                      int k, float alpha, float beta, int type, int c_type, int trans_a,
                      int trans_b, int tf32)
{
    const int col = (int)get_global_id(0), row = (int)get_global_id(1);
    if (row >= m || col >= n)
        return;
    const int in_size = type == 0 ? 4 : 2, out_size = c_type == 0 ? 4 : 2;
    __global const uchar *a = A + a_off * in_size;
    __global const uchar *b = B + b_off * in_size;
    __global uchar *c = C + c_off * out_size;
    const long a_i = trans_a ? 1 : lda, a_p = trans_a ? lda : 1;
    const long b_p = trans_b ? 1 : ldb, b_j = trans_b ? ldb : 1;
    float sum = 0.0f;
    for (int p = 0; p < k; p++)
        sum += load_value(a, type, row * a_i + p * a_p, tf32) *
               load_value(b, type, p * b_p + col * b_j, tf32);
    const long index = (long)row * ldc + col;
    float value = alpha * sum;
    if (beta != 0.0f)
        value += beta * load_value(c, c_type, index, 0);
    if (c_type == 0)
        ((__global float *)c)[index] = value;
    else if (c_type == 1)
        ((__global ushort *)c)[index] = float_to_bf16(value);
    else
        ((__global ushort *)c)[index] = float_to_fp16(value);
}
/* warplab:end */
