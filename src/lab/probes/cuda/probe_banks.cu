/* The banks probe: shared-memory loads whose lanes sit `stride` words apart
 * (0 = every lane the same word, the broadcast), 4-byte and 8-byte words. */
#include "probe_cuda.h"

enum { BANKS_STARTS = 0, BANKS_OUT };

/* A loaded word as the next byte offset. An 8-byte word is folded so that
 * both halves are used: otherwise the compiler may load only the low half. */
static __device__ __forceinline__ unsigned next_offset(unsigned word)
{
    return word;
}
static __device__ __forceinline__ unsigned next_offset(unsigned long long word)
{
    return (unsigned)word ^ (unsigned)(word >> 32);
}

/* Isolates bank conflicts: each block fills a table of 2048 Words with the
 * byte offset of word (w + 32 stride) mod 2048, then every thread follows 4
 * independent chains w <- table[w]. Lane l starts at l x stride (plus a base
 * shared by its warp), so all 32 lanes of a load are `stride` words apart;
 * each load's address is the previous load's value, so no load can be
 * hoisted or dropped, and the final words are checked. */
template <typename Word>
__global__ void probe_banks(const int *starts, unsigned *out, size_t threads, unsigned stride,
                            unsigned steps)
{
    __shared__ Word table[WL_BANKS_WORDS];
    for (unsigned w = threadIdx.x; w < WL_BANKS_WORDS; w += blockDim.x)
        table[w] = (Word)(((w + 32u * stride) % WL_BANKS_WORDS) * sizeof(Word));
    __syncthreads();
    const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned lane = threadIdx.x % WL_PROBE_WARP;
    const unsigned start = t < threads ? (unsigned)starts[t / WL_PROBE_WARP] : 0u;
    const unsigned base = lane * stride + 32u * stride * start;
    unsigned w0 = (base % WL_BANKS_WORDS) * sizeof(Word);
    unsigned w1 = ((base + WL_BANKS_CHAIN_GAP) % WL_BANKS_WORDS) * sizeof(Word);
    unsigned w2 = ((base + 2 * WL_BANKS_CHAIN_GAP) % WL_BANKS_WORDS) * sizeof(Word);
    unsigned w3 = ((base + 3 * WL_BANKS_CHAIN_GAP) % WL_BANKS_WORDS) * sizeof(Word);
    const char *bytes = reinterpret_cast<const char *>(table);
    for (unsigned k = 0; k < steps; k++) {
        w0 = next_offset(*reinterpret_cast<const Word *>(bytes + w0));
        w1 = next_offset(*reinterpret_cast<const Word *>(bytes + w1));
        w2 = next_offset(*reinterpret_cast<const Word *>(bytes + w2));
        w3 = next_offset(*reinterpret_cast<const Word *>(bytes + w3));
    }
    if (t < threads) {
        const unsigned size = sizeof(Word);
        out[t] = w0 / size + 3u * (w1 / size) + 5u * (w2 / size) + 7u * (w3 / size);
    }
}

template <typename Word>
static warplab_status launch_banks(wl_backend *backend, const wl_launch *launch)
{
    const size_t threads = launch->problem->dim[0];
    probe_banks<Word><<<wl_probe_blocks(threads), WL_PROBE_BLOCK, 0, wl_cuda_stream(backend)>>>(
        view_of<const int>(launch, BANKS_STARTS), view_of<unsigned>(launch, BANKS_OUT), threads,
        (unsigned)launch->problem->param, (unsigned)launch->problem->dim[1]);
    return WL_CUDA_LAUNCHED(backend, "probe banks");
}

static warplab_status launch_word4(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    return launch_banks<unsigned>(backend, launch);
}

static warplab_status launch_word8(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    return launch_banks<unsigned long long>(backend, launch);
}

extern "C" {
const wl_impl wl_cuda_probe_word4 = {.ladder = "banks", .rung = "word4", .launch = launch_word4};
const wl_impl wl_cuda_probe_word8 = {.ladder = "banks", .rung = "word8", .launch = launch_word8};
}
