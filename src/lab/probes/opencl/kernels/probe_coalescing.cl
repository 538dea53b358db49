/* The coalescing probe's OpenCL kernels.
 * Views arrive as a buffer and an element offset; every kernel
 * bounds-checks, since global sizes are rounded up to the work-group size.
 * "Warp" means 32 consecutive work-items, as on NVIDIA hardware; on other
 * devices the kernels still compute (and are checked) the same thing. */

/* ------------------------------------------------------------------------ */
/* coalescing */

/* Isolates misalignment: a copy whose reads and writes start `offset`
 * floats past the arrays' start. */
__kernel void probe_offset_copy(__global const float *in, ulong in_off, __global float *out,
                                ulong out_off, ulong n, ulong offset)
{
    size_t i = get_global_id(0);
    if (i < n)
        out[out_off + offset + i] = in[in_off + offset + i];
}

/* Isolates strided reads: element i comes from in[i * stride]; the writes
 * stay coalesced. */
__kernel void probe_stride_copy(__global const float *in, ulong in_off, __global float *out,
                                ulong out_off, ulong n, ulong stride)
{
    size_t i = get_global_id(0);
    if (i < n)
        out[out_off + i] = in[in_off + i * stride];
}
