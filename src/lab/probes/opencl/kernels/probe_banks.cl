/* The banks probe's OpenCL kernels.
 * Views arrive as a buffer and an element offset; every kernel
 * bounds-checks, since global sizes are rounded up to the work-group size.
 * "Warp" means 32 consecutive work-items, as on NVIDIA hardware; on other
 * devices the kernels still compute (and are checked) the same thing. */

/* ------------------------------------------------------------------------ */
/* banks: a table in local memory, table[w] = byte offset of (w + 32 s) mod
 * words; four dependent chains per work-item. Lane l starts at l x s (plus a
 * base common to its warp), so the stride alone sets the bank pattern. */

#define BANKS_CHAIN_GAP 512u /* WL_BANKS_CHAIN_GAP in src/lab/probes/probe_kernels.h */

/* Isolates bank conflicts; one kernel per word type (Word: the loads' width). */
#define BANKS_KERNEL(name, Word)                                                                   \
    __kernel void name(__global const int *starts, ulong starts_off, __global uint *out,           \
                       ulong out_off, ulong threads, uint stride, uint steps, uint words,          \
                       __local Word *table)                                                        \
    {                                                                                              \
        const uint size = sizeof(Word);                                                            \
        for (uint w = get_local_id(0); w < words; w += get_local_size(0))                          \
            table[w] = (Word)(((w + 32u * stride) % words) * size);                                \
        barrier(CLK_LOCAL_MEM_FENCE);                                                              \
        const size_t t = get_global_id(0);                                                         \
        const uint lane = (uint)(t % 32);                                                          \
        const uint start = t < threads ? (uint)starts[starts_off + t / 32] : 0u;                   \
        const uint base = lane * stride + 32u * stride * start;                                    \
        Word w0 = (base % words) * size, w1 = ((base + BANKS_CHAIN_GAP) % words) * size;           \
        Word w2 = ((base + 2u * BANKS_CHAIN_GAP) % words) * size;                                  \
        Word w3 = ((base + 3u * BANKS_CHAIN_GAP) % words) * size;                                  \
        __local const uchar *bytes = (__local const uchar *)table;                                 \
        for (uint k = 0; k < steps; k++) {                                                         \
            w0 = *(__local const Word *)(bytes + w0);                                              \
            w1 = *(__local const Word *)(bytes + w1);                                              \
            w2 = *(__local const Word *)(bytes + w2);                                              \
            w3 = *(__local const Word *)(bytes + w3);                                              \
        }                                                                                          \
        if (t < threads)                                                                           \
            out[out_off + t] =                                                                     \
                (uint)(w0 / size + 3u * (w1 / size) + 5u * (w2 / size) + 7u * (w3 / size));        \
    }

BANKS_KERNEL(probe_banks_word4, uint)
BANKS_KERNEL(probe_banks_word8, ulong)
