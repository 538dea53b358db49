/* The scripts' input values: a multiplicative hash of the element's index
 * and a seed, the same on every run and every GPU. */
#ifndef WARPLAB_SCRIPTS_FILL_HASH_CUH
#define WARPLAB_SCRIPTS_FILL_HASH_CUH

#include <cstddef>

__device__ inline unsigned fill_hash(size_t i, unsigned seed)
{
    unsigned h = (unsigned)i * 2654435761u ^ seed;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    return h;
}

#endif
