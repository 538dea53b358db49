/* The tiles probe's OpenCL kernel: the padded shared-memory transpose with
 * its tile side and block shape chosen at launch (the CUDA form's template
 * parameters). Views arrive as a buffer and an element offset. */

/* A tile x tile tile of in (rows x cols) through local memory, padded by one
 * column, out to out (cols x rows) in rows; the work-group is tile x step
 * work-items, each walking the tile's rows step apart. Guarded on every
 * edge. */
__kernel void probe_tiles(__global const float *in, ulong in_off, __global float *out,
                          ulong out_off, ulong rows, ulong cols, uint tile, uint step,
                          __local float *t)
{
    const uint lx = (uint)get_local_id(0), ly = (uint)get_local_id(1);
    const uint pitch = tile + 1u;
    const ulong x = (ulong)get_group_id(0) * tile + lx;
    const ulong y = (ulong)get_group_id(1) * tile + ly;
    if (x < cols)
        for (uint j = 0; j < tile; j += step)
            if (y + j < rows)
                t[(ly + j) * pitch + lx] = in[in_off + (y + j) * cols + x];
    barrier(CLK_LOCAL_MEM_FENCE);
    const ulong ox = (ulong)get_group_id(1) * tile + lx;
    const ulong oy = (ulong)get_group_id(0) * tile + ly;
    if (ox < rows)
        for (uint j = 0; j < tile; j += step)
            if (oy + j < cols)
                out[out_off + (oy + j) * rows + ox] = t[lx * pitch + ly + j];
}
