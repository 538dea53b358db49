/* The opencl backend's vector-add kernels (seed 001), mirroring the CUDA
 * rungs. Views arrive as a buffer and an element offset: OpenCL sub-buffers
 * cannot start at an arbitrary (misaligned) address. Global sizes are rounded
 * up to the work-group size, so every kernel checks its bounds. */

/* warplab:rung vecadd one_block */
/* Rung one_block: a single work-group of n work-items. */
__kernel void vecadd_one_block(__global const float *a, ulong a_off, __global const float *b,
                               ulong b_off, __global float *c, ulong c_off, ulong n)
{
    size_t i = get_local_id(0);
    if (i < n)
        c[c_off + i] = a[a_off + i] + b[b_off + i];
}
/* warplab:end */

/* warplab:rung vecadd grid */
/* Rung grid: one work-item per element, many work-groups. */
__kernel void vecadd_grid(__global const float *a, ulong a_off, __global const float *b,
                          ulong b_off, __global float *c, ulong c_off, ulong n)
{
    size_t i = get_global_id(0);
    if (i < n)
        c[c_off + i] = a[a_off + i] + b[b_off + i];
}
/* warplab:end */

/* warplab:rung vecadd grid_stride */
/* Rung grid_stride: a device-sized range, each work-item looping. */
__kernel void vecadd_grid_stride(__global const float *a, ulong a_off, __global const float *b,
                                 ulong b_off, __global float *c, ulong c_off, ulong n)
{
    size_t stride = get_global_size(0);
    for (size_t i = get_global_id(0); i < n; i += stride)
        c[c_off + i] = a[a_off + i] + b[b_off + i];
}
/* warplab:end */

/* warplab:rung vecadd vectorized */
/* Rung vectorized: vload4/vstore4 move 16 bytes per access (they need only
 * element alignment, so misaligned views are fine); the n % 4 tail is
 * scalar. */
__kernel void vecadd_vectorized(__global const float *a, ulong a_off, __global const float *b,
                                ulong b_off, __global float *c, ulong c_off, ulong n)
{
    size_t stride = get_global_size(0), quads = n / 4;
    __global const float *pa = a + a_off, *pb = b + b_off;
    __global float *pc = c + c_off;
    for (size_t q = get_global_id(0); q < quads; q += stride)
        vstore4(vload4(q, pa) + vload4(q, pb), q, pc);
    size_t t = quads * 4 + get_global_id(0);
    if (t < n)
        pc[t] = pa[t] + pb[t];
}
/* warplab:end */
