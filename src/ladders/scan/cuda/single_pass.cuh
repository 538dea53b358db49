/* The single-pass scan the chained, lookback and vectorized rungs share
 * (Merrill and Garland 2016): one kernel, one tile a block, 2n bytes.
 *
 * Tile order: a block takes its tile from an atomic ticket, not from
 * blockIdx, so every tile it waits on belongs to a block that is already
 * running (the hardware gives no order among blocks): no deadlock.
 *
 * Flags: one status word per tile, written with the value it announces:
 * for 4-byte types one 64-bit word (value << 32 | status), stored and
 * loaded whole; for double the value goes to its own array, a fence, then
 * the status word (the reader loads the status, fences, then the value).
 * Status 0 = nothing yet, A = the tile's aggregate, P = its inclusive
 * prefix. The flags and the ticket are reset in-stream before every launch
 * (one cudaMemsetAsync of the ticket and the status words, queued on the
 * same stream and captured with the kernel into a CUDA graph): each launch
 * starts from zeroed flags whatever the launch before it did, the first on
 * a fresh workspace and one after an interrupted graph included. */
#ifndef WARPLAB_SCAN_SINGLE_PASS_CUH
#define WARPLAB_SCAN_SINGLE_PASS_CUH

#include "scan_rungs.cuh"

namespace
{

constexpr unsigned FLAG_AGGREGATE = 1, FLAG_PREFIX = 2;
constexpr size_t TICKET_BYTES = 256;

template <typename T, bool PACKED = sizeof(T) == 4> struct TileFlags;

template <typename T> struct TileFlags<T, true> {
    unsigned long long *words;
    __host__ __device__ static size_t status_bytes(size_t tiles)
    {
        return tiles * sizeof(unsigned long long);
    }
    __host__ __device__ static size_t bytes(size_t tiles) { return status_bytes(tiles); }
    __device__ static TileFlags at(unsigned char *base, size_t)
    {
        return {reinterpret_cast<unsigned long long *>(base)};
    }
    __device__ void publish(size_t tile, unsigned status, T v) const
    {
        unsigned bits;
        memcpy(&bits, &v, sizeof bits);
        *reinterpret_cast<volatile unsigned long long *>(words + tile) =
            (unsigned long long)bits << 32 | status;
    }
    __device__ unsigned peek(size_t tile, T &v) const
    {
        const unsigned long long word =
            *reinterpret_cast<volatile unsigned long long *>(words + tile);
        const unsigned bits = (unsigned)(word >> 32);
        memcpy(&v, &bits, sizeof bits);
        return (unsigned)word;
    }
};

template <typename T> struct TileFlags<T, false> {
    unsigned *status;
    T *aggregates, *prefixes;
    __host__ __device__ static size_t status_bytes(size_t tiles)
    {
        return (tiles * sizeof(unsigned) + 15) / 16 * 16;
    }
    __host__ __device__ static size_t bytes(size_t tiles)
    {
        return status_bytes(tiles) + 2 * tiles * sizeof(T);
    }
    __device__ static TileFlags at(unsigned char *base, size_t tiles)
    {
        T *values = reinterpret_cast<T *>(base + status_bytes(tiles));
        return {reinterpret_cast<unsigned *>(base), values, values + tiles};
    }
    __device__ void publish(size_t tile, unsigned s, T v) const
    {
        (s == FLAG_PREFIX ? prefixes : aggregates)[tile] = v;
        __threadfence(); /* the value before the status */
        *reinterpret_cast<volatile unsigned *>(status + tile) = s;
    }
    __device__ unsigned peek(size_t tile, T &v) const
    {
        const unsigned s = *reinterpret_cast<volatile unsigned *>(status + tile);
        if (s) {
            __threadfence(); /* the status before the value */
            v = *reinterpret_cast<volatile T *>((s == FLAG_PREFIX ? prefixes : aggregates) + tile);
        }
        return s;
    }
};

/* What comes before `tile`, in lane 0 of warp 0 (all its lanes call it).
 * CHAINED: lane 0 waits for the left neighbour's P. Otherwise the decoupled
 * look-back: publish A (unless the caller already has), then read 32
 * predecessors' flags at a time, each lane waiting until its own has at
 * least A; combine the aggregates up to the nearest P (all 32 when there is
 * none, then the next 32). */
template <typename T, typename Op, bool CHAINED, unsigned SLEEP_NS = 32>
__device__ T look_back(const TileFlags<T> &flags, size_t tile, T aggregate,
                       bool publish_aggregate = true)
{
    const unsigned lane = threadIdx.x % 32;
    if (tile == 0) {
        if (lane == 0)
            flags.publish(0, FLAG_PREFIX, aggregate);
        return scan_identity<T, Op>();
    }
    T before = scan_identity<T, Op>();
    if constexpr (CHAINED) {
        if (lane == 0) {
            T v;
            while (flags.peek(tile - 1, v) != FLAG_PREFIX)
                if (SLEEP_NS)
                    __nanosleep(SLEEP_NS);
            before = v;
        }
    } else {
        if (lane == 0 && publish_aggregate)
            flags.publish(tile, FLAG_AGGREGATE, aggregate);
        long long last = (long long)tile - 1;
        for (;;) {
            const long long pred = last - (long long)lane;
            T v = scan_identity<T, Op>();
            unsigned s = FLAG_PREFIX; /* before tile 0: nothing, and done */
            if (pred >= 0)
                while ((s = flags.peek((size_t)pred, v)) == 0)
                    if (SLEEP_NS)
                        __nanosleep(SLEEP_NS); /* back off: the tile is still being read */
            const unsigned prefixes = __ballot_sync(FULL_MASK, s == FLAG_PREFIX);
            const unsigned stop = prefixes ? (unsigned)__ffs(prefixes) - 1 : 31;
            before = Op::apply(warp_all<T, Op>(lane <= stop ? v : scan_identity<T, Op>()), before);
            if (prefixes)
                break;
            last -= 32;
        }
    }
    if (lane == 0)
        flags.publish(tile, FLAG_PREFIX, Op::apply(before, aggregate));
    return before;
}

template <typename T, typename Op, unsigned THREADS, unsigned STEPS, unsigned WIDTH, bool CHAINED,
          unsigned SLEEP_NS = 32, bool BLOCK_ORDER = false, unsigned MIN_BLOCKS = 1,
          bool STREAM = false>
__global__ void __launch_bounds__(THREADS, MIN_BLOCKS)
    single_pass_kernel(const T *in, T *out, size_t n, bool exclusive, bool vector_ok,
                       unsigned char *scratch, size_t tiles)
{
    __shared__ TileShared<T, THREADS / 32> shared;
    __shared__ unsigned long long ticket;
    /* One tile: no ticket (nothing reset it), no one to wait for. */
    if (threadIdx.x == 0)
        ticket = gridDim.x == 1 || BLOCK_ORDER
                     ? (unsigned long long)blockIdx.x
                     : atomicAdd(reinterpret_cast<unsigned long long *>(scratch), 1ull);
    __syncthreads();
    const size_t tile = (size_t)ticket;
    const TileFlags<T> flags = TileFlags<T>::at(scratch + TICKET_BYTES, tiles);
    constexpr size_t ITEMS = TileShape<T, THREADS, STEPS, WIDTH>::ITEMS;
    scan_tile<T, Op, THREADS, STEPS, WIDTH, STREAM>(
        in, out, n, tile * ITEMS, exclusive, vector_ok, shared,
        [&](T aggregate) { return look_back<T, Op, CHAINED, SLEEP_NS>(flags, tile, aggregate); });
}

/* A rung of the single pass: its tile shape, flag protocol, the blocks an SM
 * must hold (__launch_bounds__'s minimum: a register cap) and whether the
 * vector accesses are streaming (evict-first). */
template <unsigned THREADS, unsigned STEPS, unsigned WIDTH_BYTES, bool CHAINED,
          unsigned MIN_BLOCKS = 1, bool STREAM = false>
struct SinglePass {
    template <typename T> static constexpr unsigned width()
    {
        return WIDTH_BYTES / sizeof(T) ? WIDTH_BYTES / sizeof(T) : 1;
    }
    template <typename T> static constexpr size_t items()
    {
        return (size_t)THREADS * STEPS * width<T>();
    }
    template <typename T> static size_t tiles(size_t n) { return scan_ceil_div(n, items<T>()); }

    static size_t scratch(wl_backend *, const wl_problem *problem)
    {
        switch (problem->dtype) {
        case WARPLAB_INT32:
            return TICKET_BYTES + TileFlags<int>::bytes(tiles<int>(problem->dim[0]));
        case WARPLAB_FLOAT32:
            return TICKET_BYTES + TileFlags<float>::bytes(tiles<float>(problem->dim[0]));
        default: return TICKET_BYTES + TileFlags<double>::bytes(tiles<double>(problem->dim[0]));
        }
    }

    template <typename T, typename Op> struct Rung {
        static warplab_status launch(wl_backend *backend, const wl_launch *launch, void *)
        {
            const size_t n = wl_launch_count(launch);
            if (n == 0)
                return WARPLAB_OK;
            const char *what = CHAINED ? "scan chained" : "scan single pass";
            const size_t count = tiles<T>(n);
            warplab_status status = scan_check_grid(backend, count, what);
            if (status != WARPLAB_OK)
                return status;
            cudaStream_t stream = wl_cuda_stream(backend);
            unsigned char *scratch = static_cast<unsigned char *>(wl_view_ptr(launch->scratch));
            /* One tile: no ticket, no flags, nothing to reset. */
            if (count > 1) {
                status = wl_cuda_check(
                    backend,
                    cudaMemsetAsync(scratch, 0, TICKET_BYTES + TileFlags<T>::status_bytes(count),
                                    stream),
                    what);
                if (status != WARPLAB_OK)
                    return status;
            }
            single_pass_kernel<T, Op, THREADS, STEPS, width<T>(), CHAINED, 32, false, MIN_BLOCKS,
                               STREAM><<<(unsigned)count, THREADS, 0, stream>>>(
                scan_input<T>(launch), scan_output<T>(launch), n, scan_exclusive(launch),
                scan_vectors_aligned(launch), scratch, count);
            return WL_CUDA_LAUNCHED(backend, what);
        }
    };
};

} // namespace

#endif
