/* The timing scripts' L2 flush: every 16-byte word of a buffer larger than
 * the L2 read once (the result folded into one word that is stored only in a
 * case that never happens, so the loads cannot be dropped). */
#ifndef WARPLAB_SCRIPTS_L2_FLUSH_CUH
#define WARPLAB_SCRIPTS_L2_FLUSH_CUH

#include <cstddef>

__global__ void flush_read(const uint4 *p, size_t words, unsigned *sink)
{
    unsigned acc = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < words;
         i += (size_t)gridDim.x * blockDim.x) {
        const uint4 v = p[i];
        acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (acc == 0x9E3779B9u)
        *sink = acc;
}

#endif
