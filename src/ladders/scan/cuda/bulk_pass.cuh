/* The single pass with persistent blocks whose tiles the bulk copy engine
 * stages in shared memory (sm_90: cp.async.bulk completing on an mbarrier;
 * PTX ISA, "Data Movement and Conversion Instructions: cp.async.bulk").
 *
 * A block of the resident grid has THREADS scanning threads and one or two
 * loader warps around a ring of STAGES shared-memory buffers, one tile
 * each:
 * - the issuer (lane 0 of the first loader warp), for local step j, waits
 *   until buffer j % STAGES is free, takes a ticket and has the copy
 *   engine load that tile, whole, into the buffer;
 * - the reducer (the second loader warp, or the first in turn when SPLIT is
 *   false) waits for the bytes, sums the tile out of shared memory and
 *   publishes its aggregate (flag A) at once, whatever the scanning warps
 *   are waiting for;
 * - the scanning warps take the buffers in order: 16-byte shared-memory
 *   reads in scan_tile's lane order (a warp reads 512 contiguous bytes, no
 *   bank conflict), scan_registers with the look-back (single_pass.cuh's
 *   flags), then either (REGISTER_STORE) each warp frees the buffer for
 *   the issuer as soon as its elements are in registers, before the
 *   look-back, and stores the results from registers, 16 bytes a lane; or
 *   the results are written over the tile, and one thread has the engine
 *   store the buffer, waits until the store has read it and frees it.
 * So loads run STAGES - 1 tiles ahead of the scan without a register to
 * hold them (more, in effect, when the buffers come back before the
 * look-back), each load is one bulk transfer of a whole tile, and
 * no tile's A waits for the look-back of the tile before it in its block
 * (with one warp doing both loading and scanning, a block's next A waits
 * for its current look-back, and the look-backs queue behind each other:
 * 41% of the copy's bandwidth at 2^28 on an H200, scripts/scan_tune.cu).
 *
 * Tickets are taken in order and a block scans its own in order, so the
 * holder of the smallest unfinished tile is always running, has its bytes
 * coming and waits on no later tile: no deadlock, whatever the hardware's
 * block order. The last tile when it is partial, and every tile of a view
 * not on 16 bytes, go through registers one element at a time instead (no
 * load, no store by the engine; the scanning warps publish its A).
 *
 * Up to ONE_BLOCK_MOST_TILES tiles, one block takes them all in order and
 * carries the prefix in warp 0's registers: no ticket, no flag, so nothing
 * to reset and one launch. Past it, the ticket and flags are reset before
 * the kernel, on sm_90 by a kernel whose dependent the scan is
 * (dependent_launch.cuh): the scan's blocks are placed while the reset runs
 * and wait for it after their barriers' set-up. */
#ifndef WARPLAB_SCAN_BULK_PASS_CUH
#define WARPLAB_SCAN_BULK_PASS_CUH

#include "kernels/cuda/dependent_launch.cuh"
#include "single_pass.cuh"

#include <atomic>

namespace
{

__device__ inline unsigned shared_address(const void *p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}

/* A barrier whose phase completes on `arrivals` arrivals (and the bytes
 * it was told to expect). */
__device__ inline void bulk_barrier_init(unsigned long long *bar, unsigned arrivals = 1)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(shared_address(bar)), "r"(arrivals)
                 : "memory");
}

/* The barriers' initialisation before the copy engine sees them. */
__device__ inline void bulk_barrier_init_fence()
{
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

/* Shared memory written by this thread's plain stores, before the copy
 * engine reads it. */
__device__ inline void bulk_proxy_fence()
{
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

__device__ inline void bulk_arrive(unsigned long long *bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(shared_address(bar)) : "memory");
}

/* Until the barrier's phase of this parity has completed. */
__device__ inline void bulk_wait(unsigned long long *bar, unsigned parity)
{
    const unsigned b = shared_address(bar);
    unsigned done = 0;
    while (!done)
        asm volatile("{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                     " selp.u32 %0, 1, 0, p;\n}"
                     : "=r"(done)
                     : "r"(b), "r"(parity)
                     : "memory");
}

/* bytes (a multiple of 16) from global src (on 16 bytes) into shared dst,
 * completing on bar, which is told to expect them. */
__device__ inline void bulk_load(void *dst, const void *src, unsigned bytes,
                                 unsigned long long *bar)
{
    const unsigned b = shared_address(bar);
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(b), "r"(bytes)
                 : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], "
                 "%2, [%3];" ::"r"(shared_address(dst)),
                 "l"(__cvta_generic_to_global(src)), "r"(bytes), "r"(b)
                 : "memory");
}

/* bytes from shared src to global dst, then until the engine has read src. */
__device__ inline void bulk_store_and_release(void *dst, const void *src, unsigned bytes)
{
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(
                     __cvta_generic_to_global(dst)),
                 "r"(shared_address(src)), "r"(bytes)
                 : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
}

/* Until every store of this thread has completed. */
__device__ inline void bulk_wait_all()
{
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}

constexpr unsigned long long NO_TILE = ~0ull;

template <typename T, unsigned THREADS, unsigned STEPS> struct BulkShape {
    static constexpr unsigned WIDTH = 16 / sizeof(T);
    static constexpr unsigned ITEMS = THREADS * STEPS * WIDTH;
    static constexpr unsigned TILE_BYTES = ITEMS * sizeof(T);
};

template <typename T, unsigned THREADS, unsigned STEPS, unsigned STAGES> struct BulkShared {
    T stage[STAGES][BulkShape<T, THREADS, STEPS>::ITEMS];
};

/* The ring's barriers, one of each a buffer: `issued` when its ticket is
 * written and its load queued; `loaded` when the copy engine has written
 * the tile; `ready` when the tile's A is published; `free` when the tile's
 * store has read the buffer. */
template <unsigned STAGES> struct BulkRing {
    unsigned long long issued[STAGES], loaded[STAGES], ready[STAGES], free[STAGES];
    unsigned long long tile_of[STAGES];
};

/* A buffer's tile for the whole warp: lane 0 reads it (volatile: no lane
 * reads it on speculation) and passes it on, so that the read and the
 * warp's later arrive on the buffer's barrier are one thread's, in program
 * order, before the issuer rewrites the word for the buffer's next use. */
__device__ inline unsigned long long ring_tile(const unsigned long long &word, unsigned lane)
{
    unsigned long long tile = 0;
    if (lane == 0)
        tile = *reinterpret_cast<const volatile unsigned long long *>(&word);
    return __shfl_sync(0xffffffffu, tile, 0);
}

/* SLEEP_NS: the look-back spin's back-off (scripts/scan_tune.cu compares
 * none and 128 ns with the default). REGISTER_STORE: the scanning warps
 * free a staged buffer as soon as its elements are in their registers
 * (each warp arrives on `free`) and store the results from registers,
 * 16 bytes a lane, instead of writing them over the buffer for the engine
 * to store: the buffer is back with the issuer before the look-back
 * rather than after the store has read it. */
template <typename T, typename Op, unsigned THREADS, unsigned STEPS, unsigned STAGES, bool SPLIT,
          unsigned SLEEP_NS = 32, bool REGISTER_STORE = false>
__global__ void __launch_bounds__(THREADS + (SPLIT ? 64 : 32))
    bulk_pass_kernel(const T *in, T *out, size_t n, bool exclusive, bool vector_ok,
                     unsigned char *scratch, size_t tiles)
{
    static_assert(STAGES >= 2, "a buffer scanned while the next one loads");
    using Shape = BulkShape<T, THREADS, STEPS>;
    constexpr unsigned WIDTH = Shape::WIDTH;
    constexpr unsigned ITEMS = Shape::ITEMS;
    constexpr unsigned PER_WARP = 32 * STEPS * WIDTH;
    constexpr unsigned SCAN_BARRIER = 1; /* the scanning warps' named barrier */
    /* The thread that stores a tile and frees its buffer: lane 0 of the
     * last scanning warp, not warp 0, which looks back. */
    constexpr unsigned STORE_THREAD = THREADS - 32;
    using V = typename Vec16<T>::type;
    extern __shared__ __align__(128) unsigned char bulk_shared_bytes[];
    auto &stages = *reinterpret_cast<BulkShared<T, THREADS, STEPS, STAGES> *>(bulk_shared_bytes);
    __shared__ TileShared<T, THREADS / 32> shared;
    __shared__ BulkRing<STAGES> ring;
    const TileFlags<T> flags = TileFlags<T>::at(scratch + TICKET_BYTES, tiles);
    const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    if (threadIdx.x == 0) {
        for (unsigned s = 0; s < STAGES; s++) {
            bulk_barrier_init(&ring.issued[s]);
            bulk_barrier_init(&ring.loaded[s]);
            bulk_barrier_init(&ring.ready[s]);
            bulk_barrier_init(&ring.free[s], REGISTER_STORE ? THREADS / 32 : 1);
        }
        bulk_barrier_init_fence();
    }
    __syncthreads();
    wl_pdl_wait(); /* a dependent launch: the ticket's and flags' reset done */

    /* Local step j of the issuer: a ticket once buffer j % STAGES is free,
     * and the tile's load when it is whole and the views on 16 bytes. */
    auto issue = [&](unsigned long long j) {
        const unsigned s = (unsigned)(j % STAGES), use = (unsigned)(j / STAGES);
        if (use > 0)
            bulk_wait(&ring.free[s], (use - 1) & 1);
        /* One block takes the tiles in order (nothing was reset). */
        unsigned long long t =
            gridDim.x == 1 ? j : atomicAdd(reinterpret_cast<unsigned long long *>(scratch), 1ull);
        if (t >= tiles)
            t = NO_TILE;
        ring.tile_of[s] = t;
        if (t != NO_TILE && vector_ok && (t + 1) * ITEMS <= n)
            bulk_load(stages.stage[s], in + t * ITEMS, Shape::TILE_BYTES, &ring.loaded[s]);
        bulk_arrive(&ring.issued[s]);
        return t;
    };
    const bool issuer = warp == THREADS / 32;
    const bool reducer = SPLIT ? warp == THREADS / 32 + 1 : issuer;
    if (SPLIT && issuer) {
        if (lane == 0)
            for (unsigned long long j = 0; issue(j) != NO_TILE; j++) {
            }
        return;
    }
    if (reducer) {
        for (unsigned long long j = 0;; j++) {
            const unsigned s = (unsigned)(j % STAGES), use = (unsigned)(j / STAGES);
            if (!SPLIT && lane == 0)
                issue(j);
            bulk_wait(&ring.issued[s], use & 1);
            const unsigned long long t = ring_tile(ring.tile_of[s], lane);
            /* Tile 0 publishes P itself, at once. */
            if (t != NO_TILE && t > 0 && gridDim.x > 1 && vector_ok && (t + 1) * ITEMS <= n) {
                bulk_wait(&ring.loaded[s], use & 1);
                const V *tile = reinterpret_cast<const V *>(stages.stage[s]);
                T total = scan_identity<T, Op>();
#pragma unroll 4
                for (unsigned v = lane; v < ITEMS / WIDTH; v += 32) {
                    const V vec = tile[v];
                    T e[WIDTH];
                    memcpy(e, &vec, sizeof vec);
#pragma unroll
                    for (unsigned k = 0; k < WIDTH; k++)
                        total = Op::apply(total, e[k]);
                }
                total = warp_all<T, Op>(total);
                if (lane == 0)
                    flags.publish((size_t)t, FLAG_AGGREGATE, total);
            }
            __syncwarp();
            if (lane == 0)
                bulk_arrive(&ring.ready[s]);
            if (t == NO_TILE)
                return;
        }
    }

    /* The scanning warps: step k scans buffer k % STAGES. One block takes
     * every tile in order and carries the prefix in warp 0's registers: no
     * flag, no look-back. */
    T carried = scan_identity<T, Op>();
    for (unsigned long long k = 0;; k++) {
        const unsigned s = (unsigned)(k % STAGES), use = (unsigned)(k / STAGES);
        bulk_wait(&ring.ready[s], use & 1);
        const unsigned long long tile = ring_tile(ring.tile_of[s], lane);
        if (tile == NO_TILE)
            break;
        const size_t base = (size_t)tile * ITEMS;
        const bool staged = vector_ok && base + ITEMS <= n;
        T *const buffer = stages.stage[s] + warp * PER_WARP;
        T x[STEPS][WIDTH];
        if (staged) {
            bulk_wait(&ring.loaded[s], use & 1);
#pragma unroll
            for (unsigned j = 0; j < STEPS; j++) {
                const V v = *reinterpret_cast<const V *>(buffer + lane_offset<WIDTH>(j, 0));
                memcpy(x[j], &v, sizeof v);
            }
        } else {
#pragma unroll
            for (unsigned j = 0; j < STEPS; j++)
#pragma unroll
                for (unsigned e = 0; e < WIDTH; e++) {
                    const size_t i = base + warp * PER_WARP + lane_offset<WIDTH>(j, e);
                    x[j][e] = i < n ? in[i] : scan_identity<T, Op>();
                }
        }
        if (REGISTER_STORE) {
            __syncwarp(); /* the warp's reads of the buffer done */
            if (lane == 0)
                bulk_arrive(&ring.free[s]);
        }
        /* The reducer published a staged tile's A. */
        scan_registers<T, Op, THREADS, STEPS, WIDTH, SCAN_BARRIER>(
            x, exclusive, shared, [&](T aggregate) {
                if (gridDim.x == 1) {
                    const T before = carried;
                    carried = Op::apply(carried, aggregate);
                    return before;
                }
                return look_back<T, Op, false, SLEEP_NS>(flags, (size_t)tile, aggregate, !staged);
            });
        if (staged && REGISTER_STORE) {
            T *const to = out + base + warp * PER_WARP;
#pragma unroll
            for (unsigned j = 0; j < STEPS; j++) {
                V v;
                memcpy(&v, x[j], sizeof v);
                *reinterpret_cast<V *>(to + lane_offset<WIDTH>(j, 0)) = v;
            }
        } else if (staged) {
#pragma unroll
            for (unsigned j = 0; j < STEPS; j++) {
                V v;
                memcpy(&v, x[j], sizeof v);
                *reinterpret_cast<V *>(buffer + lane_offset<WIDTH>(j, 0)) = v;
            }
            bulk_proxy_fence();
        } else {
#pragma unroll
            for (unsigned j = 0; j < STEPS; j++)
#pragma unroll
                for (unsigned e = 0; e < WIDTH; e++) {
                    const size_t i = base + warp * PER_WARP + lane_offset<WIDTH>(j, e);
                    if (i < n)
                        out[i] = x[j][e];
                }
        }
        /* The buffer written, the shared words read: both free. */
        tile_barrier<THREADS, SCAN_BARRIER>();
        if (!REGISTER_STORE && threadIdx.x == STORE_THREAD) {
            if (staged)
                bulk_store_and_release(out + base, stages.stage[s], Shape::TILE_BYTES);
            bulk_arrive(&ring.free[s]);
        }
    }
    if (!REGISTER_STORE && threadIdx.x == STORE_THREAD)
        bulk_wait_all(); /* the shared memory outlives the stores */
}

/* Resident blocks an SM of a kernel with `bytes` of dynamic shared memory,
 * asked of the runtime once a device (its shared-memory limit raised
 * first); at least 1. */
constexpr int BULK_DEVICES = 16;

template <typename K>
cudaError_t bulk_blocks_per_sm(K kernel, unsigned threads, size_t bytes, int device,
                               std::atomic<int> (&cached)[BULK_DEVICES], int *per_sm)
{
    const bool cacheable = device >= 0 && device < BULK_DEVICES;
    if (cacheable && (*per_sm = cached[device].load(std::memory_order_relaxed)) > 0)
        return cudaSuccess;
    cudaError_t e =
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
    if (e == cudaSuccess)
        e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(per_sm, kernel, (int)threads, bytes);
    if (e != cudaSuccess)
        return e;
    if (*per_sm < 1)
        *per_sm = 1;
    if (cacheable)
        cached[device].store(*per_sm, std::memory_order_relaxed);
    return cudaSuccess;
}

/* Tiles up to which one block scans them all, in order, carrying the
 * prefix (no reset, no second launch, no look-back); past it, the resident
 * grid. Tuning set 2^12 .. 2^18 int32 and float (bench api, H200, L2
 * flushed, medians of 200; one block against the grid, int32 / float):
 * 2 tiles (2^13) 6.62 / 6.46 us against 8.11 / 8.24 us; 4 tiles (2^14)
 * 8.70 / 8.46 us against 7.86 / 8.02 us; 8 tiles 13.0 / 12.4 us against
 * 8.06 / 8.38 us (about 1 us a tile in one block). */
constexpr size_t ONE_BLOCK_MOST_TILES = 2;

/* A ring: scanning threads, 16-byte accesses a thread per tile, buffers a
 * block, whether a second loader warp reduces, and whether the results are
 * stored from registers. */
template <unsigned THREADS, unsigned STEPS, unsigned STAGES, bool SPLIT,
          bool REGISTER_STORE = false>
struct BulkPass {
    static constexpr unsigned BLOCK = THREADS + (SPLIT ? 64 : 32);
    template <typename T> static constexpr size_t items()
    {
        return BulkShape<T, THREADS, STEPS>::ITEMS;
    }
    template <typename T> static size_t tiles(size_t n) { return scan_ceil_div(n, items<T>()); }
    template <typename T> static constexpr size_t shared_bytes()
    {
        return sizeof(BulkShared<T, THREADS, STEPS, STAGES>);
    }

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

    /* The flags and ticket reset, then the resident grid (never more
     * blocks than tiles). */
    template <typename T, typename Op>
    static warplab_status launch(wl_backend *backend, const wl_launch *launch, const char *what)
    {
        const size_t n = wl_launch_count(launch);
        if (n == 0)
            return WARPLAB_OK;
        const size_t count = tiles<T>(n);
        auto kernel = bulk_pass_kernel<T, Op, THREADS, STEPS, STAGES, SPLIT, 32, REGISTER_STORE>;
        static std::atomic<int> cached[BULK_DEVICES];
        int per_sm = 1;
        warplab_status status =
            wl_cuda_check(backend,
                          bulk_blocks_per_sm(kernel, BLOCK, shared_bytes<T>(), backend->info.index,
                                             cached, &per_sm),
                          what);
        if (status != WARPLAB_OK)
            return status;
        const size_t sms =
            backend->info.multiprocessors > 0 ? (size_t)backend->info.multiprocessors : 1;
        size_t grid = sms * (size_t)per_sm;
        grid = grid < count ? grid : count;
        if (count <= ONE_BLOCK_MOST_TILES)
            grid = 1;
        cudaStream_t stream = wl_cuda_stream(backend);
        unsigned char *scratch = static_cast<unsigned char *>(wl_view_ptr(launch->scratch));
        /* One block: no ticket, no flags, nothing to reset. Several: the
         * reset, on sm_90 by a kernel whose dependent the scan is
         * (dependent_launch.cuh): its blocks are placed while the reset
         * runs. */
        const bool dependent = grid > 1 && backend->info.cc_major >= 9;
        if (grid > 1) {
            const size_t reset = TICKET_BYTES + TileFlags<T>::status_bytes(count);
            status =
                wl_cuda_check(backend, wl_zero_before(scratch, reset, stream, dependent), what);
            if (status != WARPLAB_OK)
                return status;
        }
        return wl_cuda_check(backend,
                             wl_launch_after(dependent, kernel, (unsigned)grid, BLOCK,
                                             shared_bytes<T>(), stream, scan_input<T>(launch),
                                             scan_output<T>(launch), n, scan_exclusive(launch),
                                             scan_vectors_aligned(launch), scratch, count),
                             what);
    }
};

} // namespace

#endif
