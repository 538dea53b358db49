/* The divergence probe's OpenCL kernel.
 * Views arrive as a buffer and an element offset; every kernel
 * bounds-checks, since global sizes are rounded up to the work-group size.
 * "Warp" means 32 consecutive work-items, as on NVIDIA hardware; on other
 * devices the kernels still compute (and are checked) the same thing. */

/* ------------------------------------------------------------------------ */
#define CHAIN_A 0.9999f /* WL_CHAIN_A in src/lab/probes/probe_kernels.h */

/* divergence: path q runs `steps` FMAs y <- fma(y, CHAIN_A, 0.001 (q + 1));
 * a work-item takes path key % paths, key = lane, warp or work-group. */

__kernel void probe_divergence(__global const float *in, ulong in_off, __global float *out,
                               ulong out_off, ulong threads, uint paths, uint steps, uint selector)
{
    const size_t t = get_global_id(0);
    if (t >= threads)
        return;
    const size_t key = selector == 0 ? t % 32 : selector == 1 ? t / 32 : get_group_id(0);
    const uint path = (uint)(key % paths);
    float y = in[in_off + t];
    for (uint q = 0; q < paths; q++)
        if (path == q) {
            const float b = 0.001f * (float)(q + 1);
            for (uint k = 0; k < steps; k++)
                y = fma(y, CHAIN_A, b);
        }
    out[out_off + t] = y;
}
