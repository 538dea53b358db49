/* The intrinsics probe's OpenCL kernels: its integer half (the float
 * intrinsics are CUDA-only).
 * Views arrive as a buffer and an element offset; every kernel
 * bounds-checks, since global sizes are rounded up to the work-group size.
 * "Warp" means 32 consecutive work-items, as on NVIDIA hardware; on other
 * devices the kernels still compute (and are checked) the same thing. */

/* ------------------------------------------------------------------------ */
/* intrinsics, integer half: v / d + v % d against v >> s + (v & m). */

/* Isolates integer division and modulo by a divisor known only at run time. */
__kernel void probe_div_mod(__global const int *cells, ulong cells_off, __global uint *first,
                            ulong first_off, __global uint *sum, ulong sum_off, ulong threads,
                            uint evaluations, uint divisor, uint step)
{
    const size_t t = get_global_id(0);
    if (t >= threads)
        return;
    uint v = (uint)cells[cells_off + t], s = 0;
    first[first_off + t] = v / divisor + v % divisor;
    for (uint k = 0; k < evaluations; k++) {
        s += v / divisor + v % divisor;
        v += step;
    }
    sum[sum_off + t] = s;
}

/* The same values with a shift and a mask. */
__kernel void probe_shift_mask(__global const int *cells, ulong cells_off, __global uint *first,
                               ulong first_off, __global uint *sum, ulong sum_off, ulong threads,
                               uint evaluations, uint shift, uint step)
{
    const size_t t = get_global_id(0);
    if (t >= threads)
        return;
    const uint mask = (1u << shift) - 1u;
    uint v = (uint)cells[cells_off + t], s = 0;
    first[first_off + t] = (v >> shift) + (v & mask);
    for (uint k = 0; k < evaluations; k++) {
        s += (v >> shift) + (v & mask);
        v += step;
    }
    sum[sum_off + t] = s;
}
