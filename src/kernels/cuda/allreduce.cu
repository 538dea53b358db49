/* The cuda backend's all-reduce rungs (src/ladders/allreduce.c): G GPUs of
 * one process, every GPU ending with the sum of all GPUs' arrays.
 *
 * Contents: the allreduce rungs this file implements, in ladder order
 * (number = place on the ladder, as `warplab ladders allreduce` lists it):
 *    1. host_staging -- host staging: copy out, CPU sum, copy back
 *    2. through_one -- through GPU 0: peer copies, reduce, broadcast
 *    3. peer_read -- direct peer access: every GPU reads all
 *    4. ring -- ring: reduce-scatter + all-gather, chunked
 *    5. nccl -- ncclAllReduce (vendor)
 *    6. two_shot -- one kernel per GPU, two-shot, 16-byte
 *    7. one_shot -- one-shot, flag barrier in peer memory
 *    8. two_shot_flags -- two-shot, flag barrier, every peer's loads in flight
 *    9. two_shot_push -- two-shot by stores: staging slots, a barrier a round
 *   10. dispatch -- the library's pick by size (warplab_allreduce)
 *
 * The group (ar_group): rank 0 is the device the harness (or the caller)
 * runs on, ranks 1..G-1 the other devices in index order. Each rank has its
 * streams (rank 0's first stream is the backend's), its events, and its
 * input and output arrays. A run starts by making every rank's streams wait
 * for an event on rank 0's stream and ends by making rank 0's stream wait for
 * every rank's streams: whatever times rank 0's stream times the whole
 * all-reduce, and nothing in between synchronises the host.
 *
 * Safety: NVLink multicast (NVLS) is never used. NCCL_NVLS_ENABLE is set to 0
 * before NCCL initialises (wl_allreduce_nccl_env), and no multicast API
 * (cuMulticastCreate) is called anywhere. */
#include "../allreduce_plan.h"
#include "allreduce_cuda.h"
#include "vendor_libs.h"

#include <cstdlib>
#include <cstring>
#include <mutex>

#define AR_MAX WL_ALLREDUCE_MAX_GPUS

/* warplab:rung allreduce host_staging through_one peer_read ring nccl two_shot one_shot
 * two_shot_flags two_shot_push dispatch */

/* ------------------------------------------------------------------------ */
/* Kernels                                                                  */

namespace
{

template <typename T> struct Pointers {
    T *p[AR_MAX];
};

/* int32 sums wrap modulo 2^32: added as unsigned, where wrapping is defined. */
__device__ inline float add(float a, float b)
{
    return a + b;
}
__device__ inline int add(int a, int b)
{
    return (int)((unsigned)a + (unsigned)b);
}
__device__ inline float4 add(float4 a, float4 b)
{
    return make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
}
__device__ inline int4 add(int4 a, int4 b)
{
    return make_int4(add(a.x, b.x), add(a.y, b.y), add(a.z, b.z), add(a.w, b.w));
}

template <typename T> struct Vector;
template <> struct Vector<float> {
    using type = float4;
};
template <> struct Vector<int> {
    using type = int4;
};

/* dst[d][i] = src[0][i] + src[1][i] + ... (in source order, so every GPU that
 * sums the same sources gets the same bits) for i < count, for every
 * destination d. Elements [0, head) and [head + 4 * vectors, count) one at a
 * time; the vectors in between with 16-byte loads and stores, UNROLL vectors
 * per thread in flight from every source (vectors = 0: all scalar). The
 * sources and destinations may be other GPUs' memory (peer access). */
template <typename T, int UNROLL>
__global__ void __launch_bounds__(256)
    reduce_to_all(Pointers<const T> src, int sources, Pointers<T> dst, int destinations,
                  size_t count, size_t head, size_t vectors)
{
    using V = typename Vector<T>::type;
    const size_t thread = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t threads = (size_t)gridDim.x * blockDim.x;
    for (size_t base = thread; base < vectors; base += threads * UNROLL) {
        V sum[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; u++) {
            const size_t v = base + (size_t)u * threads;
            if (v < vectors)
                sum[u] = reinterpret_cast<const V *>(src.p[0] + head)[v];
        }
        for (int s = 1; s < sources; s++) {
            V part[UNROLL];
#pragma unroll
            for (int u = 0; u < UNROLL; u++) {
                const size_t v = base + (size_t)u * threads;
                if (v < vectors)
                    part[u] = reinterpret_cast<const V *>(src.p[s] + head)[v];
            }
#pragma unroll
            for (int u = 0; u < UNROLL; u++)
                sum[u] = add(sum[u], part[u]);
        }
        for (int d = 0; d < destinations; d++) {
#pragma unroll
            for (int u = 0; u < UNROLL; u++) {
                const size_t v = base + (size_t)u * threads;
                if (v < vectors)
                    reinterpret_cast<V *>(dst.p[d] + head)[v] = sum[u];
            }
        }
    }
    /* The head, then the tail, one element at a time, on the grid's last
     * threads: where the grid has more threads than vectors (small
     * messages) those threads have no vector, so the scalars' remote loads
     * overlap the vectors' instead of following them (one peer round trip
     * less). */
    const size_t tail = head + 4 * vectors;
    for (size_t i = threads - 1 - thread; i < head + (count - tail); i += threads) {
        const size_t at = i < head ? i : tail + (i - head);
        T sum = src.p[0][at];
        for (int s = 1; s < sources; s++)
            sum = add(sum, src.p[s][at]);
        for (int d = 0; d < destinations; d++)
            dst.p[d][at] = sum;
    }
}

/* ------------------------------------------------------------------------ */
/* The flag rungs: a barrier in peer memory instead of host-queued events    */

/* Every rank's flag words: rank r's word (phase, block, q) is set by rank q
 * to the call's number when q's block reaches the phase. */
struct Flags {
    unsigned *rank[AR_MAX];
};

/* A store that publishes everything the block wrote before it (with the
 * __syncthreads before it), and the load that sees it: system scope, since
 * the other side is another GPU (PTX ISA, "Memory Consistency Model"). */
__device__ inline void store_release(unsigned *p, unsigned value)
{
    asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(p), "r"(value) : "memory");
}
__device__ inline unsigned load_acquire(const unsigned *p)
{
    unsigned value;
    asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(value) : "l"(p) : "memory");
    return value;
}

/* The number of block b's call: one more than its last, kept in the rank's
 * own flag words (AR_FLAG_CALLS + b). Every rank runs the group's calls in
 * the same order with the same grid, so block b counts the same on every
 * rank; counted on the device, a call captured in a CUDA graph gets a new
 * number at every replay. Never 0, the words' first value. */
__device__ inline unsigned call_number(const Flags &flags, int me)
{
    __shared__ unsigned number;
    if (threadIdx.x == 0) {
        unsigned next = *(volatile unsigned *)(flags.rank[me] + AR_FLAG_CALLS + blockIdx.x) + 1;
        number = next ? next : 1;
    }
    __syncthreads();
    return number;
}

__device__ inline void count_call(const Flags &flags, int me, unsigned number)
{
    if (threadIdx.x == 0)
        *(volatile unsigned *)(flags.rank[me] + AR_FLAG_CALLS + blockIdx.x) = number;
}

/* Block b of rank me meets block b of every other rank: thread q (< G, not
 * me) sets rank q's word (phase, b, me) and waits for its own word (phase,
 * b, q). Phase 0 (start): every rank's kernel has started, so the work
 * queued before it on every rank's stream is done (inputs written, outputs
 * free). Phase 1 (end): every rank's block b has finished reading and
 * writing, so when this rank's kernel ends no other rank still touches its
 * arrays. Two phases, because a fast peer can reach the end while this block
 * still waits at the start; the call's number (epoch) tells this call's flag
 * from the last call's. Every block of the grid must be resident (the grid
 * is capped at the group's fewest SMs). */
template <int G>
__device__ inline void block_barrier(const Flags &flags, int me, unsigned epoch, int phase)
{
    __syncthreads();
    const int q = (int)threadIdx.x;
    if (q < G && q != me) {
        const size_t slot = ((size_t)phase * AR_FLAG_BLOCKS + blockIdx.x) * AR_MAX;
        store_release(flags.rank[q] + slot + me, epoch);
        const unsigned *mine = flags.rank[me] + slot + q;
        while (load_acquire(mine) != epoch) {
        }
    }
    __syncthreads();
}

/* One grid-stride step of the flag rungs' sums: for each of UNROLL vectors a
 * thread (i = base + u x threads, those below limit), the G sources' vectors
 * (load(s, i)) all loaded before the first add, added in source order (so
 * every rank that sums the same sources gets the same bits), and the sum
 * stored to each of the destinations (store(d, i, sum)). G x UNROLL 16-byte
 * loads in flight a thread cover G - 1 remote latencies at once. */
template <typename V, int G, int UNROLL, int DESTINATIONS, typename Load, typename Store>
__device__ inline void sum_vectors(size_t base, size_t threads, size_t limit, Load load,
                                   Store store)
{
    V part[G][UNROLL];
#pragma unroll
    for (int s = 0; s < G; s++)
#pragma unroll
        for (int u = 0; u < UNROLL; u++) {
            const size_t i = base + (size_t)u * threads;
            if (i < limit)
                part[s][u] = load(s, i);
        }
#pragma unroll
    for (int u = 0; u < UNROLL; u++) {
#pragma unroll
        for (int s = 1; s < G; s++)
            part[0][u] = add(part[0][u], part[s][u]);
    }
#pragma unroll
    for (int d = 0; d < DESTINATIONS; d++) {
#pragma unroll
        for (int u = 0; u < UNROLL; u++) {
            const size_t i = base + (size_t)u * threads;
            if (i < limit)
                store(d, i, part[0][u]);
        }
    }
}

/* The elements outside the 16-byte vectors, one at a time: the head [0,
 * head) and the tail from head + 4 x vectors to count, summed from the G
 * sources in order into each destination, on the grid's last threads:
 * where the grid has more threads than vectors (small messages) those
 * threads have no vector, so the scalars' remote loads overlap the vectors'
 * (about 1 us less at G = 4 for a count that is not a multiple of 4). */
template <typename T, int G, int DESTINATIONS>
__device__ inline void sum_scalars(const Pointers<const T> &src, const Pointers<T> &dst,
                                   size_t count, size_t head, size_t vectors)
{
    const size_t thread = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t threads = (size_t)gridDim.x * blockDim.x;
    const size_t tail = head + 4 * vectors;
    for (size_t i = threads - 1 - thread; i < head + (count - tail); i += threads) {
        const size_t at = i < head ? i : tail + (i - head);
        T sum = src.p[0][at];
#pragma unroll
        for (int s = 1; s < G; s++)
            sum = add(sum, src.p[s][at]);
#pragma unroll
        for (int d = 0; d < DESTINATIONS; d++)
            dst.p[d][at] = sum;
    }
}

/* dst[d][i] = src[0][i] + ... + src[G-1][i] for every destination d, between
 * a start and an end barrier. G is a template parameter, so every thread
 * issues its loads from all G sources (UNROLL 16-byte vectors each) before
 * the first add: G x UNROLL x 16 bytes in flight a thread, enough to cover
 * G - 1 remote latencies at once (reduce_to_all waits for each source in
 * turn). Sums in source order, as reduce_to_all, so every rank gets the
 * same bits. */
template <typename T, int G, int UNROLL, int DESTINATIONS>
__global__ void __launch_bounds__(AR_FLAG_THREADS)
    flagged_reduce(Pointers<const T> src, Pointers<T> dst, size_t count, size_t head,
                   size_t vectors, Flags flags, int me)
{
    using V = typename Vector<T>::type;
    const unsigned epoch = call_number(flags, me);
    block_barrier<G>(flags, me, epoch, 0);
    const size_t thread = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t threads = (size_t)gridDim.x * blockDim.x;
    for (size_t base = thread; base < vectors; base += threads * UNROLL)
        sum_vectors<V, G, UNROLL, DESTINATIONS>(
            base, threads, vectors,
            [&](int s, size_t v) { return reinterpret_cast<const V *>(src.p[s] + head)[v]; },
            [&](int d, size_t v, V sum) { reinterpret_cast<V *>(dst.p[d] + head)[v] = sum; });
    sum_scalars<T, G, DESTINATIONS>(src, dst, count, head, vectors);
    block_barrier<G>(flags, me, epoch, 1);
    count_call(flags, me, epoch);
}

/* ------------------------------------------------------------------------ */
/* The pushed rung: every byte between GPUs a store                          */

/* Block b's numbered barriers (two_shot_push meets its peers once a round):
 * the number of block b's last barrier is kept in the rank's own word
 * (AR_PUSH_COUNTS + b), and peer q's arrival at barrier number x sets the
 * word (AR_PUSH_ARRIVALS + b, q) to x. Numbers only grow (modulo 2^32), so a
 * peer already at the next barrier has passed this one: the wait is for a
 * word at or past the number, never for an exact value. Every rank runs the
 * same calls with the same grid and rounds, so block b's numbers agree. */
__device__ inline unsigned push_barriers_before(const Flags &flags, int me)
{
    __shared__ unsigned number;
    if (threadIdx.x == 0)
        number = *(volatile unsigned *)(flags.rank[me] + AR_PUSH_COUNTS + blockIdx.x);
    __syncthreads();
    return number;
}

template <int G> __device__ inline void push_barrier(const Flags &flags, int me, unsigned number)
{
    __syncthreads();
    const int q = (int)threadIdx.x;
    if (q < G && q != me) {
        const size_t slot = AR_PUSH_ARRIVALS + (size_t)blockIdx.x * AR_MAX;
        store_release(flags.rank[q] + slot + me, number);
        const unsigned *mine = flags.rank[me] + slot + q;
        while ((int)(load_acquire(mine) - number) < 0) {
        }
    }
    __syncthreads();
}

/* Two-shot with stores only. The vectors run in rounds of round_vectors;
 * round t's vectors are cut in G segments, and segment k belongs to rank k.
 * Push: rank me stores segment k of its input into rank k's staging slot me
 * (staging set t mod 2), every segment at once. Barrier: block b of every
 * rank has pushed. Reduce: rank me adds its G slots (its own memory, in
 * rank order) and stores the sum into segment me of every rank's output.
 * Block b pushes, and reduces, the same vectors on every rank (the same
 * grid-stride), so block b's barrier with block b of every peer orders all
 * it needs; the next round pushes into the other set, and the round after
 * into this one only once every rank has passed the next barrier, which it
 * reaches after reducing this round. The scalars (the head before the first
 * 16-byte boundary and the tail) go to rank 0, which reads them from every
 * input and writes every output. A start barrier comes first, as in
 * flagged_reduce, and an end barrier keeps every rank's kernel running
 * until no peer still writes into its output. In place works: a
 * peer writes segment k of round t into this rank's output only after this
 * rank's block has pushed those vectors of its input, and nothing reads
 * them again. */
template <typename T, int G, int UNROLL>
__global__ void __launch_bounds__(AR_FLAG_THREADS)
    pushed_reduce(Pointers<const T> in, Pointers<T> out, Pointers<T> staging, size_t count,
                  size_t head, size_t vectors, size_t round_vectors, Flags flags, int me)
{
    using V = typename Vector<T>::type;
    const size_t thread = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t threads = (size_t)gridDim.x * blockDim.x;
    const size_t slot_vectors = (round_vectors + G - 1) / G;
    const size_t rounds = (vectors + round_vectors - 1) / round_vectors;
    unsigned number = push_barriers_before(flags, me);
    /* The start, as the other flag rungs': every rank's kernel has begun, so
     * the work queued before it on every rank's stream is done. A rank's own
     * input may have been written from another rank's stream (the harness
     * copies every input from rank 0's), and its output must be free before
     * a peer stores into it. */
    push_barrier<G>(flags, me, ++number);
    const V *mine = reinterpret_cast<const V *>(in.p[me] + head);
    for (size_t t = 0; t < rounds; t++) {
        const size_t first = t * round_vectors;
        const size_t length = vectors - first < round_vectors ? vectors - first : round_vectors;
        const size_t segment = (length + G - 1) / G;
        const size_t set = (t & 1) * G * slot_vectors;
        for (size_t base = thread; base < segment; base += threads * UNROLL) {
            V part[G][UNROLL];
#pragma unroll
            for (int k = 0; k < G; k++)
#pragma unroll
                for (int u = 0; u < UNROLL; u++) {
                    const size_t j = base + (size_t)u * threads;
                    if (j < segment && k * segment + j < length)
                        part[k][u] = mine[first + k * segment + j];
                }
#pragma unroll
            for (int k = 0; k < G; k++) {
                V *slot = reinterpret_cast<V *>(staging.p[k]) + set + (size_t)me * slot_vectors;
#pragma unroll
                for (int u = 0; u < UNROLL; u++) {
                    const size_t j = base + (size_t)u * threads;
                    if (j < segment && k * segment + j < length)
                        slot[j] = part[k][u];
                }
            }
        }
        push_barrier<G>(flags, me, ++number);
        const size_t own_first = me * segment < length ? me * segment : length;
        const size_t own = length - own_first < segment ? length - own_first : segment;
        const V *slots = reinterpret_cast<const V *>(staging.p[me]) + set;
        /* The slots read past L1 (ld.global.cg): two rounds ago this block
         * read the same words, which the peers have since rewritten. */
        const size_t at = first + own_first;
        for (size_t base = thread; base < own; base += threads * UNROLL)
            sum_vectors<V, G, UNROLL, G>(
                base, threads, own,
                [&](int s, size_t j) { return __ldcg(slots + (size_t)s * slot_vectors + j); },
                [&](int d, size_t j, V sum) {
                    reinterpret_cast<V *>(out.p[d] + head)[at + j] = sum;
                });
    }
    /* The scalars, on rank 0. */
    if (me == 0)
        sum_scalars<T, G, G>(in, out, count, head, vectors);
    push_barrier<G>(flags, me, ++number);
    if (threadIdx.x == 0)
        *(volatile unsigned *)(flags.rank[me] + AR_PUSH_COUNTS + blockIdx.x) = number;
}

} // namespace

/* ------------------------------------------------------------------------ */
/* The group                                                                */

/* Makes device the current one, and the one before current again on leaving. */
struct DeviceScope {
    int previous = 0;
    explicit DeviceScope() { cudaGetDevice(&previous); }
    ~DeviceScope() { cudaSetDevice(previous); }
};

void wl_allreduce_nccl_env(void)
{
    /* NVLink multicast can put a shared host's GPUs out of service: never
     * let NCCL use it, whatever the environment said (a "0" stays). */
    const char *value = getenv("NCCL_NVLS_ENABLE");
    if (!value || strcmp(value, "0") != 0)
        setenv("NCCL_NVLS_ENABLE", "0", 1);
}

warplab_status wl_allreduce_devices(int gpus, int home, int *devices, char *reason, size_t len)
{
    int present = 0;
    if (cudaGetDeviceCount(&present) != cudaSuccess)
        present = 0;
    cudaGetLastError();
    if (gpus < 2 || gpus > AR_MAX || gpus > present) {
        wl_format(reason, len, "an all-reduce over %d GPUs: %d CUDA devices present (2 to %d)",
                  gpus, present, AR_MAX);
        return WARPLAB_ERROR_UNSUPPORTED;
    }
    devices[0] = home;
    for (int d = 0, r = 1; d < present && r < gpus; d++)
        if (d != home)
            devices[r++] = d;
    return WARPLAB_OK;
}

warplab_status wl_allreduce_peer_check(int gpus, const int *devices, char *reason, size_t len)
{
    for (int a = 0; a < gpus; a++)
        for (int b = 0; b < gpus; b++) {
            int can = 0;
            if (a != b &&
                (cudaDeviceCanAccessPeer(&can, devices[a], devices[b]) != cudaSuccess || !can)) {
                cudaGetLastError();
                wl_format(reason, len, "GPU %d cannot access GPU %d's memory (no peer access)",
                          devices[a], devices[b]);
                return WARPLAB_ERROR_UNSUPPORTED;
            }
        }
    return WARPLAB_OK;
}

/* Peer access from device a to device b, enabled once for the process's
 * life (as CUDA keeps it): the pairs already enabled are remembered, so that
 * cudaDeviceEnablePeerAccess is not called again (its "already enabled"
 * answer is an error compute-sanitizer reports). */
namespace
{
std::mutex peers_lock;
bool peers_enabled[AR_MAX * 8][AR_MAX * 8];
} // namespace

cudaError_t wl_allreduce_enable_peer(int a, int b)
{
    if (a < 0 || b < 0 || a >= AR_MAX * 8 || b >= AR_MAX * 8)
        return cudaErrorInvalidDevice;
    std::lock_guard<std::mutex> hold(peers_lock);
    if (peers_enabled[a][b])
        return cudaSuccess;
    DeviceScope scope;
    cudaError_t e = cudaSetDevice(a);
    if (e == cudaSuccess)
        e = cudaDeviceEnablePeerAccess(b, 0);
    if (e == cudaErrorPeerAccessAlreadyEnabled) { /* enabled by someone else */
        cudaGetLastError();
        e = cudaSuccess;
    }
    if (e == cudaSuccess)
        peers_enabled[a][b] = true;
    return e;
}

/* Peer access from every GPU of the group to every other. */
static warplab_status enable_peers(wl_backend *backend, const ar_group *g)
{
    for (int a = 0; a < g->gpus; a++)
        for (int b = 0; b < g->gpus; b++) {
            cudaError_t e =
                a == b ? cudaSuccess : wl_allreduce_enable_peer(g->devices[a], g->devices[b]);
            if (e != cudaSuccess)
                return wl_cuda_check(backend, e, "enabling peer access");
        }
    return WARPLAB_OK;
}

#ifdef WARPLAB_HAVE_NCCL
/* NCCL communicators: made once per device list and kept for the process
 * (ncclCommInitAll takes a second; the sweep would pay it at every size). */
namespace
{
struct NcclCache {
    int gpus = 0;
    int devices[AR_MAX] = {};
    ncclComm_t comms[AR_MAX] = {};
};
std::mutex nccl_lock;
NcclCache nccl_cache[4];
} // namespace

static warplab_status nccl_comms(wl_backend *backend, ar_group *g)
{
    char reason[1024];
    const wl_nccl_api *nccl = wl_nccl_load(reason, sizeof reason);
    if (!nccl)
        return wl_fail(backend, WARPLAB_ERROR_UNSUPPORTED, "%s", reason);
    std::lock_guard<std::mutex> hold(nccl_lock);
    for (NcclCache &c : nccl_cache)
        if (c.gpus == g->gpus && memcmp(c.devices, g->devices, sizeof(int) * g->gpus) == 0) {
            memcpy(g->comms, c.comms, sizeof(ncclComm_t) * g->gpus);
            return WARPLAB_OK;
        }
    NcclCache *slot = nullptr;
    for (NcclCache &c : nccl_cache)
        if (!slot && c.gpus == 0)
            slot = &c;
    if (!slot)
        return wl_fail(backend, WARPLAB_ERROR_UNSUPPORTED,
                       "NCCL: communicators kept for 4 device lists already");
    wl_allreduce_nccl_env();
    DeviceScope scope;
    ncclResult_t r = nccl->comm_init_all(slot->comms, g->gpus, g->devices);
    if (r != ncclSuccess)
        return wl_fail(backend, WARPLAB_ERROR_BACKEND, "ncclCommInitAll: %s",
                       nccl->error_string(r));
    slot->gpus = g->gpus;
    memcpy(slot->devices, g->devices, sizeof(int) * g->gpus);
    memcpy(g->comms, slot->comms, sizeof(ncclComm_t) * g->gpus);
    return WARPLAB_OK;
}
#endif

/* two_shot_push's staging on each rank: two rounds of G slots, each a G-th
 * of a round (rounded up) of 16-byte vectors. */
static size_t push_staging_bytes(int gpus)
{
    const size_t slot = (AR_PUSH_ROUND_VECTORS + (size_t)gpus - 1) / (size_t)gpus;
    return 2 * (size_t)gpus * slot * 16;
}

/* Every rank's flag words, zeroed before any kernel may set them (a peer's
 * first call writes into them: the zeroing is waited for here), and the
 * grid's cap: the fewest SMs of the group, so every block of a flag kernel
 * is resident at once on every GPU (one block of AR_FLAG_THREADS an SM). */
static warplab_status open_flags(wl_backend *backend, ar_group *g)
{
    cudaError_t e = cudaSuccess;
    int fewest = AR_FLAG_BLOCKS;
    for (int r = 0; r < g->gpus && e == cudaSuccess; r++) {
        int sms = 0;
        e = cudaSetDevice(g->devices[r]);
        if (e == cudaSuccess)
            e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, g->devices[r]);
        if (e == cudaSuccess && sms < fewest)
            fewest = sms;
        if (e == cudaSuccess)
            e = cudaMalloc(&g->flags[r], AR_FLAG_WORDS * sizeof(unsigned));
        if (e == cudaSuccess)
            e = cudaMemsetAsync(g->flags[r], 0, AR_FLAG_WORDS * sizeof(unsigned), g->stream[r][0]);
        if (e == cudaSuccess)
            e = cudaStreamSynchronize(g->stream[r][0]);
    }
    if (e != cudaSuccess)
        return wl_cuda_check(backend, e, "all-reduce flags");
    g->flag_blocks = fewest > 0 ? fewest : 1;
    return WARPLAB_OK;
}

warplab_status wl_allreduce_group_open(wl_backend *backend, ar_group *g, int gpus,
                                       const int *devices, const cudaStream_t *streams,
                                       ar_algorithm algorithm, size_t bytes)
{
    memset(g, 0, sizeof *g);
    g->algorithm = algorithm;
    char reason[256];
    int present = 0;
    if (cudaGetDeviceCount(&present) != cudaSuccess)
        present = 0;
    cudaGetLastError();
    for (int r = 0; r < gpus && r < AR_MAX; r++) {
        bool repeated = false;
        for (int q = 0; q < r; q++)
            repeated = repeated || devices[q] == devices[r];
        if (repeated || devices[r] < 0 || devices[r] >= present)
            return wl_fail(backend, WARPLAB_ERROR_INVALID_ARGUMENT,
                           "an all-reduce group needs distinct devices of the %d present "
                           "(rank %d: device %d)",
                           present, r, devices[r]);
    }
    if (gpus < 2 || gpus > AR_MAX || gpus > present)
        return wl_fail(backend, WARPLAB_ERROR_UNSUPPORTED,
                       "an all-reduce over %d GPUs: %d CUDA devices present (2 to %d)", gpus,
                       present, AR_MAX);
    memcpy(g->devices, devices, sizeof(int) * (size_t)gpus);
    g->gpus = gpus;
    const int home = devices[0];
    warplab_status status = WARPLAB_OK;
    g->streams = algorithm == AR_RING ? AR_RING_STREAMS : 1;
    DeviceScope scope;
    cudaError_t e = cudaSuccess;
    for (int r = 0; r < gpus && e == cudaSuccess; r++) {
        e = cudaSetDevice(g->devices[r]);
        for (int s = 0; s < g->streams && e == cudaSuccess; s++) {
            if (s == 0 && streams && streams[r]) {
                g->stream[r][0] = streams[r];
                g->borrowed[r] = true;
            } else
                /* A rank's own stream is blocking: ordered after the legacy
                 * default stream's work (the caller's cudaMemcpy into send);
                 * the ring's side streams meet it through events. */
                e = cudaStreamCreateWithFlags(&g->stream[r][s],
                                              s == 0 ? cudaStreamDefault : cudaStreamNonBlocking);
            if (e == cudaSuccess)
                e = cudaEventCreateWithFlags(&g->event[r][s], cudaEventDisableTiming);
        }
    }
    if (e == cudaSuccess)
        e = cudaSetDevice(home);
    if (e == cudaSuccess)
        e = cudaEventCreateWithFlags(&g->start, cudaEventDisableTiming);
    if (e == cudaSuccess)
        e = cudaEventCreateWithFlags(&g->summed, cudaEventDisableTiming);
    if (e != cudaSuccess)
        return wl_cuda_check(backend, e, "all-reduce streams and events");
    const bool flagged =
        algorithm == AR_ONE_SHOT || algorithm == AR_TWO_SHOT_FLAGS || algorithm == AR_TWO_SHOT_PUSH;
    const bool peers =
        algorithm == AR_PLANNED
            ? wl_allreduce_peer_check(gpus, g->devices, reason, sizeof reason) == WARPLAB_OK
            : flagged || algorithm == AR_PEER_READ || algorithm == AR_RING ||
                  algorithm == AR_TWO_SHOT;
    if (peers) {
        status = wl_allreduce_peer_check(gpus, g->devices, reason, sizeof reason);
        if (status != WARPLAB_OK)
            return wl_fail(backend, status, "%s", reason);
        status = enable_peers(backend, g);
        if (status != WARPLAB_OK)
            return status;
    }
    if (peers && (flagged || algorithm == AR_PLANNED)) {
        status = open_flags(backend, g);
        if (status != WARPLAB_OK)
            return status;
    }
    if (algorithm == AR_TWO_SHOT_PUSH ||
        (algorithm == AR_PLANNED && peers &&
         wl_allreduce_plan_uses(gpus, WL_ALLREDUCE_ROUTE_TWO_SHOT_PUSH))) {
        const size_t bytes_each = push_staging_bytes(gpus);
        for (int r = 0; r < gpus && e == cudaSuccess; r++) {
            e = cudaSetDevice(g->devices[r]);
            if (e == cudaSuccess)
                e = cudaMalloc(&g->staging[r], bytes_each);
        }
        if (e != cudaSuccess)
            return wl_cuda_check(backend, e, "two_shot_push's staging slots");
    }
    if (algorithm == AR_HOST_STAGING) {
        for (int r = 0; r < gpus && e == cudaSuccess; r++)
            e = cudaHostAlloc(&g->host[r], bytes ? bytes : 4, cudaHostAllocPortable);
        if (e != cudaSuccess)
            return wl_cuda_check(backend, e, "pinned host memory for staging");
    }
    if (algorithm == AR_NCCL) {
#ifdef WARPLAB_HAVE_NCCL
        status = nccl_comms(backend, g);
        g->nccl_ready = status == WARPLAB_OK;
        return status;
#else
        return wl_fail(backend, WARPLAB_ERROR_UNSUPPORTED, "%s", WL_ALLREDUCE_NO_NCCL);
#endif
    }
#ifdef WARPLAB_HAVE_NCCL
    /* The planner's group: NCCL's communicators where NCCL loads (without
     * peers the only way; with peers, the planner's choice at some sizes). */
    if (algorithm == AR_PLANNED && (!peers || wl_allreduce_plan_uses_nccl(gpus))) {
        char why[1024];
        if (wl_nccl_load(why, sizeof why)) {
            status = nccl_comms(backend, g);
            if (status != WARPLAB_OK && !peers)
                return status;
            g->nccl_ready = status == WARPLAB_OK;
        } else if (!peers) {
            return wl_fail(backend, WARPLAB_ERROR_UNSUPPORTED, "%s; and %s", reason, why);
        }
    }
#else
    if (algorithm == AR_PLANNED && !peers)
        return wl_fail(backend, WARPLAB_ERROR_UNSUPPORTED, "%s; and warplab was %s", reason,
                       WL_ALLREDUCE_NO_NCCL);
#endif
    g->peers = peers;
    return WARPLAB_OK;
}

const char *wl_allreduce_algorithm_name(ar_algorithm algorithm)
{
    switch (algorithm) {
    case AR_HOST_STAGING: return "host_staging";
    case AR_THROUGH_ONE: return "through_one";
    case AR_PEER_READ: return "peer_read";
    case AR_RING: return "ring";
    case AR_NCCL: return "nccl";
    case AR_TWO_SHOT: return "two_shot";
    case AR_ONE_SHOT: return "one_shot";
    case AR_TWO_SHOT_FLAGS: return "two_shot_flags";
    case AR_TWO_SHOT_PUSH: return "two_shot_push";
    case AR_PLANNED: break;
    }
    return "planned";
}

void wl_allreduce_group_close(ar_group *g)
{
    DeviceScope scope;
    for (int r = 0; r < g->gpus; r++) {
        cudaSetDevice(g->devices[r]);
        for (int s = 0; s < g->streams; s++) {
            if (g->stream[r][s])
                cudaStreamSynchronize(g->stream[r][s]);
            if (g->stream[r][s] && !(s == 0 && g->borrowed[r]))
                cudaStreamDestroy(g->stream[r][s]);
            if (g->event[r][s])
                cudaEventDestroy(g->event[r][s]);
        }
        if (g->host[r])
            cudaFreeHost(g->host[r]);
        if (g->flags[r])
            cudaFree(g->flags[r]);
        if (g->staging[r])
            cudaFree(g->staging[r]);
    }
    if (g->start)
        cudaEventDestroy(g->start);
    if (g->summed)
        cudaEventDestroy(g->summed);
    cudaGetLastError();
    memset(g, 0, sizeof *g);
}

/* ------------------------------------------------------------------------ */
/* One all-reduce                                                           */

/* Every rank's streams wait for rank 0's stream (rank 0's first stream is
 * that stream); with every_rank (the library's calls), for every rank's
 * first stream: no rank's work may start while another rank's caller still
 * uses the arrays this all-reduce writes. */
/* The flag rungs order the ranks themselves (their kernels' barriers), and
 * so does NCCL in the library's calls (its kernels wait for every rank's);
 * under the harness NCCL keeps the events, which make rank 0's stream wait
 * for every rank. */
static bool self_ordered(const ar_group *g)
{
    return g->algorithm == AR_ONE_SHOT || g->algorithm == AR_TWO_SHOT_FLAGS ||
           g->algorithm == AR_TWO_SHOT_PUSH || (g->algorithm == AR_NCCL && g->every_rank);
}

/* The streams a run uses a rank: the ring's chunks, else the first. */
static int streams_used(const ar_group *g)
{
    return g->algorithm == AR_RING ? g->streams : 1;
}

static cudaError_t begin(const ar_group *g)
{
    cudaError_t e = cudaSuccess;
    if (self_ordered(g))
        return e;
    const int streams = streams_used(g);
    const int recorded = g->every_rank ? g->gpus : 1;
    for (int r = 0; r < recorded && e == cudaSuccess; r++) {
        e = cudaSetDevice(g->devices[r]);
        if (e == cudaSuccess)
            e = cudaEventRecord(g->every_rank ? g->event[r][0] : g->start, g->stream[r][0]);
    }
    for (int r = 0; r < g->gpus && e == cudaSuccess; r++) {
        e = cudaSetDevice(g->devices[r]);
        for (int s = 0; s < streams && e == cudaSuccess; s++)
            for (int q = 0; q < recorded && e == cudaSuccess; q++)
                if (q != r || s != 0)
                    e = cudaStreamWaitEvent(g->stream[r][s],
                                            g->every_rank ? g->event[q][0] : g->start, 0);
    }
    return e;
}

/* Rank 0's stream waits for every rank's streams; with every_rank, every
 * rank's first stream does (another rank's kernel may write this rank's
 * output). */
static cudaError_t end(const ar_group *g)
{
    cudaError_t e = cudaSuccess;
    if (self_ordered(g))
        return e;
    const int streams = streams_used(g);
    for (int r = 0; r < g->gpus && e == cudaSuccess; r++) {
        e = cudaSetDevice(g->devices[r]);
        for (int s = 0; s < streams && e == cudaSuccess; s++)
            if (r || s || g->every_rank)
                e = cudaEventRecord(g->event[r][s], g->stream[r][s]);
    }
    const int waiting = g->every_rank ? g->gpus : 1;
    for (int w = 0; w < waiting && e == cudaSuccess; w++) {
        e = cudaSetDevice(g->devices[w]);
        for (int r = 0; r < g->gpus && e == cudaSuccess; r++)
            for (int s = 0; s < streams && e == cudaSuccess; s++)
                if (r != w || s != 0)
                    e = cudaStreamWaitEvent(g->stream[w][0], g->event[r][s], 0);
    }
    return e;
}

/* Whether every pointer has the same address modulo 16 (then one head of
 * scalars aligns them all for 16-byte accesses). */
static bool same_alignment(const void *const *pointers, int count)
{
    for (int i = 1; i < count; i++)
        if (((uintptr_t)pointers[i] & 15) != ((uintptr_t)pointers[0] & 15))
            return false;
    return count > 0 && ((uintptr_t)pointers[0] & 3) == 0;
}

/* Launches reduce_to_all on the current device: sources summed into every
 * destination, count elements of 4 bytes from each pointer on. */
static cudaError_t reduce(const ar_call *call, cudaStream_t stream, const void *const *sources,
                          int source_count, void *const *destinations, int destination_count,
                          size_t count, bool vectors, unsigned sms)
{
    if (count == 0)
        return cudaSuccess;
    const void *all[2 * AR_MAX];
    for (int i = 0; i < source_count; i++)
        all[i] = sources[i];
    for (int i = 0; i < destination_count; i++)
        all[source_count + i] = destinations[i];
    size_t head = count, vector_count = 0;
    if (vectors && same_alignment(all, source_count + destination_count)) {
        head = ((16 - ((uintptr_t)sources[0] & 15)) & 15) / 4;
        if (head > count)
            head = count;
        vector_count = (count - head) / 4;
    }
    if (vector_count == 0)
        head = count;
    /* Enough blocks to fill every SM several times over (peer reads need
     * many bytes in flight), no more than the work. */
    const int unroll = 4;
    const size_t work = vector_count ? (vector_count + unroll - 1) / unroll : count;
    size_t blocks = (work + 255) / 256;
    const size_t most = (size_t)(sms ? sms : 132) * 8;
    if (blocks > most)
        blocks = most;
    if (blocks == 0)
        blocks = 1;
    if (call->dtype == WARPLAB_INT32) {
        Pointers<const int> src{};
        Pointers<int> dst{};
        for (int i = 0; i < source_count; i++)
            src.p[i] = static_cast<const int *>(sources[i]);
        for (int i = 0; i < destination_count; i++)
            dst.p[i] = static_cast<int *>(destinations[i]);
        reduce_to_all<int, 4><<<(unsigned)blocks, 256, 0, stream>>>(
            src, source_count, dst, destination_count, count, head, vector_count);
    } else {
        Pointers<const float> src{};
        Pointers<float> dst{};
        for (int i = 0; i < source_count; i++)
            src.p[i] = static_cast<const float *>(sources[i]);
        for (int i = 0; i < destination_count; i++)
            dst.p[i] = static_cast<float *>(destinations[i]);
        reduce_to_all<float, 4><<<(unsigned)blocks, 256, 0, stream>>>(
            src, source_count, dst, destination_count, count, head, vector_count);
    }
    return cudaGetLastError();
}

static const void *offset(const void *p, size_t elements)
{
    return static_cast<const char *>(p) + elements * 4;
}
static void *offset(void *p, size_t elements)
{
    return static_cast<char *>(p) + elements * 4;
}

/* 1. Host staging: the host function that adds the staged arrays. */
typedef struct host_sum_job {
    const ar_group *g;
    size_t n;
    warplab_dtype dtype;
} host_sum_job;

#define HOST_SUM_CHUNK ((size_t)1 << 20)

static void host_sum_chunk(size_t task, void *user)
{
    const host_sum_job *job = static_cast<const host_sum_job *>(user);
    const size_t begin_at = task * HOST_SUM_CHUNK;
    const size_t end_at = job->n - begin_at < HOST_SUM_CHUNK ? job->n : begin_at + HOST_SUM_CHUNK;
    for (int r = 1; r < job->g->gpus; r++) {
        if (job->dtype == WARPLAB_INT32) {
            uint32_t *sum = static_cast<uint32_t *>(job->g->host[0]);
            const uint32_t *x = static_cast<const uint32_t *>(job->g->host[r]);
            for (size_t i = begin_at; i < end_at; i++)
                sum[i] += x[i];
        } else {
            float *sum = static_cast<float *>(job->g->host[0]);
            const float *x = static_cast<const float *>(job->g->host[r]);
            for (size_t i = begin_at; i < end_at; i++)
                sum[i] += x[i];
        }
    }
}

static void CUDART_CB host_sum(void *user)
{
    ar_group *g = static_cast<ar_group *>(user);
    host_sum_job job = {g, g->host_n, g->host_dtype};
    wl_parallel_for(wl_cpu_threads(), (g->host_n + HOST_SUM_CHUNK - 1) / HOST_SUM_CHUNK,
                    host_sum_chunk, &job);
}

static cudaError_t run_host_staging(ar_group *g, const ar_call *call)
{
    const size_t bytes = call->n * 4;
    g->host_n = call->n;
    g->host_dtype = call->dtype;
    cudaError_t e = cudaSuccess;
    for (int r = 0; r < g->gpus && e == cudaSuccess; r++) {
        e = cudaSetDevice(g->devices[r]);
        if (e == cudaSuccess)
            e = cudaMemcpyAsync(g->host[r], call->in[r], bytes, cudaMemcpyDeviceToHost,
                                g->stream[r][0]);
        if (e == cudaSuccess && r > 0)
            e = cudaEventRecord(g->event[r][0], g->stream[r][0]);
        if (e == cudaSuccess && r > 0)
            e = cudaStreamWaitEvent(g->stream[0][0], g->event[r][0], 0);
    }
    if (e == cudaSuccess)
        e = cudaSetDevice(g->devices[0]);
    if (e == cudaSuccess)
        e = cudaLaunchHostFunc(g->stream[0][0], host_sum, g);
    if (e == cudaSuccess)
        e = cudaEventRecord(g->summed, g->stream[0][0]);
    for (int r = 0; r < g->gpus && e == cudaSuccess; r++) {
        e = cudaSetDevice(g->devices[r]);
        if (e == cudaSuccess && r > 0)
            e = cudaStreamWaitEvent(g->stream[r][0], g->summed, 0);
        if (e == cudaSuccess)
            e = cudaMemcpyAsync(call->out[r], g->host[0], bytes, cudaMemcpyHostToDevice,
                                g->stream[r][0]);
    }
    return e;
}

/* 2. Through GPU 0: the others' arrays into gather (G-1 arrays on GPU 0),
 * one reduce there, peer copies of the sum back out. All on rank 0's stream,
 * one after the other. */
static cudaError_t run_through_one(ar_group *g, const ar_call *call, unsigned sms)
{
    const size_t bytes = call->n * 4;
    cudaStream_t stream = g->stream[0][0];
    const void *sources[AR_MAX];
    sources[0] = call->in[0];
    cudaError_t e = cudaSetDevice(g->devices[0]);
    for (int r = 1; r < g->gpus && e == cudaSuccess; r++) {
        void *slot = static_cast<char *>(call->gather) + (size_t)(r - 1) * bytes;
        sources[r] = slot;
        e = cudaMemcpyPeerAsync(slot, g->devices[0], call->in[r], g->devices[r], bytes, stream);
    }
    void *destination[1] = {call->out[0]};
    if (e == cudaSuccess)
        e = reduce(call, stream, sources, g->gpus, destination, 1, call->n, true, sms);
    for (int r = 1; r < g->gpus && e == cudaSuccess; r++)
        e = cudaMemcpyPeerAsync(call->out[r], g->devices[r], call->out[0], g->devices[0], bytes,
                                stream);
    return e;
}

/* 3. Direct peer access: every GPU reads all arrays, one element at a time,
 * and writes its own sum. */
static cudaError_t run_peer_read(ar_group *g, const ar_call *call, unsigned sms)
{
    cudaError_t e = cudaSuccess;
    for (int r = 0; r < g->gpus && e == cudaSuccess; r++) {
        e = cudaSetDevice(g->devices[r]);
        void *destination[1] = {call->out[r]};
        if (e == cudaSuccess)
            e = reduce(call, g->stream[r][0], (const void *const *)call->in, g->gpus, destination,
                       1, call->n, false, sms);
    }
    return e;
}

/* The part of [0, n) that segment k of G holds (segments of a multiple of 4
 * elements, so every segment starts with the same 16-byte alignment), and
 * chunk c of C of that. */
static void segment_range(size_t n, int gpus, int k, int chunks, int c, size_t *first,
                          size_t *count)
{
    size_t length = (n + (size_t)gpus - 1) / (size_t)gpus;
    length = (length + 3) / 4 * 4;
    size_t begin_at = (size_t)k * length, end_at = begin_at + length;
    if (begin_at > n)
        begin_at = n;
    if (end_at > n)
        end_at = n;
    size_t piece = (end_at - begin_at + (size_t)chunks - 1) / (size_t)chunks;
    piece = (piece + 3) / 4 * 4;
    size_t c_begin = begin_at + (size_t)c * piece, c_end = c_begin + piece;
    if (c_begin > end_at)
        c_begin = end_at;
    if (c_end > end_at)
        c_end = end_at;
    *first = c_begin;
    *count = c_end - c_begin;
}

/* 4. The ring. Reduce-scatter step s (0..G-2): GPU q adds segment
 * (q - s - 1) mod G of its left neighbour's (its input at s = 0, its
 * partial sum after) to its own input, into its output. All-gather step s:
 * GPU q copies segment (q - s) mod G, finished, from its left neighbour's
 * output. Chunk c of every segment travels on stream c of every GPU, and an
 * event per (GPU, stream) hands it to the right neighbour; before its first
 * all-gather step, GPU q also waits for its right neighbour's last
 * reduce-scatter step, which read the partial sums that all-gather now
 * overwrites. Waits of a step are all queued before the step's records, so
 * every wait sees the record of the step before. */
static cudaError_t run_ring(ar_group *g, const ar_call *call, unsigned sms)
{
    const int G = g->gpus, C = g->streams;
    cudaError_t e = cudaSuccess;
    for (int step = 0; step < 2 * (G - 1) && e == cudaSuccess; step++) {
        for (int q = 0; q < G && e == cudaSuccess; q++) {
            const int left = (q + G - 1) % G, right = (q + 1) % G;
            e = cudaSetDevice(g->devices[q]);
            for (int c = 0; c < C && e == cudaSuccess && step > 0; c++) {
                e = cudaStreamWaitEvent(g->stream[q][c], g->event[left][c], 0);
                if (e == cudaSuccess && step == G - 1 && right != left)
                    e = cudaStreamWaitEvent(g->stream[q][c], g->event[right][c], 0);
            }
        }
        for (int q = 0; q < G && e == cudaSuccess; q++) {
            const int left = (q + G - 1) % G;
            e = cudaSetDevice(g->devices[q]);
            for (int c = 0; c < C && e == cudaSuccess; c++) {
                size_t first = 0, count = 0;
                if (step < G - 1) {
                    const int k = ((q - step - 1) % G + G) % G;
                    segment_range(call->n, G, k, C, c, &first, &count);
                    const void *sources[2] = {
                        offset(call->in[q], first),
                        offset(step == 0 ? (const void *)call->in[left] : call->out[left], first)};
                    void *destination[1] = {offset(call->out[q], first)};
                    e = reduce(call, g->stream[q][c], sources, 2, destination, 1, count, true, sms);
                } else {
                    const int k = ((q - (step - (G - 1))) % G + G) % G;
                    segment_range(call->n, G, k, C, c, &first, &count);
                    if (count)
                        e = cudaMemcpyPeerAsync(offset(call->out[q], first), g->devices[q],
                                                offset(call->out[left], first), g->devices[left],
                                                count * 4, g->stream[q][c]);
                }
                if (e == cudaSuccess)
                    e = cudaEventRecord(g->event[q][c], g->stream[q][c]);
            }
        }
    }
    return e;
}

/* 6. Two-shot in one kernel per GPU: GPU r reads segment r of every input
 * and writes the sum into segment r of every output. */
static cudaError_t run_two_shot(ar_group *g, const ar_call *call, unsigned sms)
{
    cudaError_t e = cudaSuccess;
    for (int r = 0; r < g->gpus && e == cudaSuccess; r++) {
        size_t first = 0, count = 0;
        segment_range(call->n, g->gpus, r, 1, 0, &first, &count);
        const void *sources[AR_MAX];
        void *destinations[AR_MAX];
        for (int k = 0; k < g->gpus; k++) {
            sources[k] = offset(call->in[k], first);
            destinations[k] = offset(call->out[k], first);
        }
        e = cudaSetDevice(g->devices[r]);
        if (e == cudaSuccess)
            e = reduce(call, g->stream[r][0], sources, g->gpus, destinations, g->gpus, count, true,
                       sms);
    }
    return e;
}

/* The flag rungs' unrolling: 8 to 16 vectors in flight a thread over G
 * sources (registers: G x UNROLL 16-byte vectors). */
template <int G> constexpr int flag_unroll()
{
    return G <= 4 ? 4 : 2;
}

template <typename T, int G>
static void launch_flagged_sized(unsigned blocks, cudaStream_t stream, const void *const *sources,
                                 void *const *destinations, int destination_count, size_t count,
                                 size_t head, size_t vectors, const Flags &flags, int me)
{
    Pointers<const T> src{};
    Pointers<T> dst{};
    for (int i = 0; i < G; i++)
        src.p[i] = static_cast<const T *>(sources[i]);
    for (int i = 0; i < destination_count; i++)
        dst.p[i] = static_cast<T *>(destinations[i]);
    if (destination_count == 1)
        flagged_reduce<T, G, flag_unroll<G>(), 1>
            <<<blocks, AR_FLAG_THREADS, 0, stream>>>(src, dst, count, head, vectors, flags, me);
    else
        flagged_reduce<T, G, flag_unroll<G>(), G>
            <<<blocks, AR_FLAG_THREADS, 0, stream>>>(src, dst, count, head, vectors, flags, me);
}

template <typename T>
static void launch_flagged(int gpus, unsigned blocks, cudaStream_t stream,
                           const void *const *sources, void *const *destinations,
                           int destination_count, size_t count, size_t head, size_t vectors,
                           const Flags &flags, int me)
{
#define AR_FLAGGED_CASE(G)                                                                         \
    case G:                                                                                        \
        launch_flagged_sized<T, G>(blocks, stream, sources, destinations, destination_count,       \
                                   count, head, vectors, flags, me);                               \
        break;
    switch (gpus) {
        AR_FLAGGED_CASE(2)
        AR_FLAGGED_CASE(3)
        AR_FLAGGED_CASE(4)
        AR_FLAGGED_CASE(5)
        AR_FLAGGED_CASE(6)
        AR_FLAGGED_CASE(7)
        AR_FLAGGED_CASE(8)
    default: break;
    }
#undef AR_FLAGGED_CASE
}

/* 7. One-shot: every GPU reads all G arrays (16-byte loads, every source's
 * in flight at once) and writes its own sum, between a start and an end
 * barrier of flags in peer memory; no host-queued events. Not in place: a
 * rank's stores would overwrite the input its peers may still read.
 * 8. Two-shot with the same barriers: GPU r sums segment r of every input
 * into segment r of every output. Every rank launches the same grid, even
 * over an empty segment: block b of every rank meets block b of the others.
 * A launch refused after another rank's kernel was queued leaves that
 * kernel waiting: the arguments are checked before the first launch. */
static cudaError_t run_flagged(ar_group *g, const ar_call *call, bool two_shot)
{
    const int G = g->gpus;
    if (G < 2 || G > AR_MAX || g->flag_blocks < 1 || !g->flags[0])
        return cudaErrorInvalidValue;
    size_t largest = call->n, first = 0, count = 0;
    if (two_shot)
        segment_range(call->n, G, 0, 1, 0, &first, &largest);
    const unsigned blocks = wl_allreduce_flag_grid(largest, g->flag_blocks);
    cudaError_t e = cudaSuccess;
    for (int r = 0; r < G && e == cudaSuccess; r++) {
        const void *sources[AR_MAX];
        void *destinations[AR_MAX];
        int destination_count = 1;
        if (two_shot) {
            segment_range(call->n, G, r, 1, 0, &first, &count);
            for (int k = 0; k < G; k++) {
                sources[k] = offset(call->in[k], first);
                destinations[k] = offset(call->out[k], first);
            }
            destination_count = G;
        } else {
            count = call->n;
            for (int k = 0; k < G; k++)
                sources[k] = call->in[k];
            destinations[0] = call->out[r];
        }
        e = cudaSetDevice(g->devices[r]);
        if (e == cudaSuccess)
            e = wl_allreduce_flagged_rank(G, r, (unsigned)blocks, g->stream[r][0], call->dtype,
                                          sources, destinations, destination_count, count,
                                          g->flags);
    }
    return e;
}

template <typename T, int G>
static void launch_pushed_sized(unsigned blocks, cudaStream_t stream, const ar_group *g,
                                const ar_call *call, size_t head, size_t vectors,
                                const Flags &flags, int me)
{
    Pointers<const T> in{};
    Pointers<T> out{}, staging{};
    for (int i = 0; i < G; i++) {
        in.p[i] = static_cast<const T *>(call->in[i]);
        out.p[i] = static_cast<T *>(call->out[i]);
        staging.p[i] = static_cast<T *>(g->staging[i]);
    }
    pushed_reduce<T, G, 4><<<blocks, AR_FLAG_THREADS, 0, stream>>>(
        in, out, staging, call->n, head, vectors, AR_PUSH_ROUND_VECTORS, flags, me);
}

template <typename T>
static void launch_pushed(unsigned blocks, cudaStream_t stream, const ar_group *g,
                          const ar_call *call, size_t head, size_t vectors, const Flags &flags,
                          int me)
{
#define AR_PUSHED_CASE(G)                                                                          \
    case G: launch_pushed_sized<T, G>(blocks, stream, g, call, head, vectors, flags, me); break;
    switch (g->gpus) {
        AR_PUSHED_CASE(2)
        AR_PUSHED_CASE(3)
        AR_PUSHED_CASE(4)
        AR_PUSHED_CASE(5)
        AR_PUSHED_CASE(6)
        AR_PUSHED_CASE(7)
        AR_PUSHED_CASE(8)
    default: break;
    }
#undef AR_PUSHED_CASE
}

/* 9. Two-shot by stores (pushed_reduce): every transfer between GPUs is a
 * posted store, the reduce-scatter's into the peers' staging slots and the
 * all-gather's into their outputs; a barrier of numbered flags a round of
 * AR_PUSH_ROUND_VECTORS. The 16-byte vectors need every input and output at
 * the same address modulo 16 (else every element goes as a scalar, on rank
 * 0). Every rank launches the same grid, sized for a round's segment. */
static cudaError_t run_pushed(ar_group *g, const ar_call *call)
{
    const int G = g->gpus;
    if (G < 2 || G > AR_MAX || g->flag_blocks < 1 || !g->flags[0] || !g->staging[0])
        return cudaErrorInvalidValue;
    const void *all[2 * AR_MAX];
    for (int r = 0; r < G; r++) {
        all[r] = call->in[r];
        all[G + r] = call->out[r];
    }
    size_t head = call->n, vectors = 0;
    if (same_alignment(all, 2 * G)) {
        head = ((16 - ((uintptr_t)call->in[0] & 15)) & 15) / 4;
        if (head > call->n)
            head = call->n;
        vectors = (call->n - head) / 4;
    }
    if (vectors == 0)
        head = call->n;
    const size_t round = vectors < AR_PUSH_ROUND_VECTORS ? vectors : AR_PUSH_ROUND_VECTORS;
    const size_t segment = (round + (size_t)G - 1) / (size_t)G;
    const unsigned blocks = wl_allreduce_flag_grid(4 * segment, g->flag_blocks);
    Flags flags{};
    for (int r = 0; r < G; r++)
        flags.rank[r] = g->flags[r];
    cudaError_t e = cudaSuccess;
    for (int r = 0; r < G && e == cudaSuccess; r++) {
        e = cudaSetDevice(g->devices[r]);
        if (e != cudaSuccess)
            break;
        if (call->dtype == WARPLAB_INT32)
            launch_pushed<int>(blocks, g->stream[r][0], g, call, head, vectors, flags, r);
        else
            launch_pushed<float>(blocks, g->stream[r][0], g, call, head, vectors, flags, r);
        e = cudaGetLastError();
    }
    return e;
}

void wl_allreduce_segment(size_t n, int gpus, int k, size_t *first, size_t *count)
{
    segment_range(n, gpus, k, 1, 0, first, count);
}

unsigned wl_allreduce_flag_grid(size_t largest, int cap)
{
    const size_t vectors_most = (largest + 3) / 4;
    size_t blocks = (vectors_most + AR_FLAG_THREADS - 1) / AR_FLAG_THREADS;
    if (blocks > (size_t)cap)
        blocks = (size_t)cap;
    return blocks < 1 ? 1 : (unsigned)blocks;
}

cudaError_t wl_allreduce_flagged_rank(int gpus, int me, unsigned blocks, cudaStream_t stream,
                                      warplab_dtype dtype, const void *const *sources,
                                      void *const *destinations, int destination_count,
                                      size_t count, unsigned *const *flag_words)
{
    if (gpus < 2 || gpus > AR_MAX || me < 0 || me >= gpus || blocks < 1 ||
        blocks > AR_FLAG_BLOCKS || (destination_count != 1 && destination_count != gpus))
        return cudaErrorInvalidValue;
    Flags flags{};
    for (int r = 0; r < gpus; r++)
        flags.rank[r] = flag_words[r];
    const void *all[2 * AR_MAX];
    for (int i = 0; i < gpus; i++)
        all[i] = sources[i];
    for (int i = 0; i < destination_count; i++)
        all[gpus + i] = destinations[i];
    size_t head = count, vectors = 0;
    if (count && same_alignment(all, gpus + destination_count)) {
        head = ((16 - ((uintptr_t)sources[0] & 15)) & 15) / 4;
        if (head > count)
            head = count;
        vectors = (count - head) / 4;
    }
    if (vectors == 0)
        head = count;
    if (dtype == WARPLAB_INT32)
        launch_flagged<int>(gpus, blocks, stream, sources, destinations, destination_count, count,
                            head, vectors, flags, me);
    else
        launch_flagged<float>(gpus, blocks, stream, sources, destinations, destination_count, count,
                              head, vectors, flags, me);
    return cudaGetLastError();
}

#ifdef WARPLAB_HAVE_NCCL
static warplab_status run_nccl(wl_backend *backend, ar_group *g, const ar_call *call)
{
    /* Loaded already: the group's communicators came from it. */
    char reason[1024];
    const wl_nccl_api *nccl = wl_nccl_load(reason, sizeof reason);
    if (!nccl)
        return wl_fail(backend, WARPLAB_ERROR_UNSUPPORTED, "%s", reason);
    const ncclDataType_t type = call->dtype == WARPLAB_INT32 ? ncclInt32 : ncclFloat32;
    ncclResult_t r = nccl->group_start();
    for (int k = 0; k < g->gpus && r == ncclSuccess; k++)
        r = nccl->all_reduce(call->in[k], call->out[k], call->n, type, ncclSum, g->comms[k],
                             g->stream[k][0]);
    ncclResult_t closed = nccl->group_end();
    if (r == ncclSuccess)
        r = closed;
    if (r != ncclSuccess)
        return wl_fail(backend, WARPLAB_ERROR_BACKEND, "ncclAllReduce: %s", nccl->error_string(r));
    return WARPLAB_OK;
}
#endif

warplab_status wl_allreduce_group_run(wl_backend *backend, ar_group *g, const ar_call *call)
{
    DeviceScope scope;
    const unsigned sms = backend ? (unsigned)backend->info.multiprocessors : 0;
    cudaError_t e = begin(g);
    warplab_status status = WARPLAB_OK;
    if (e == cudaSuccess && call->n > 0) {
        switch (g->algorithm) {
        case AR_HOST_STAGING: e = run_host_staging(g, call); break;
        case AR_THROUGH_ONE: e = run_through_one(g, call, sms); break;
        case AR_PEER_READ: e = run_peer_read(g, call, sms); break;
        case AR_RING: e = run_ring(g, call, sms); break;
        case AR_TWO_SHOT: e = run_two_shot(g, call, sms); break;
        case AR_ONE_SHOT: e = run_flagged(g, call, false); break;
        case AR_TWO_SHOT_FLAGS: e = run_flagged(g, call, true); break;
        case AR_TWO_SHOT_PUSH: e = run_pushed(g, call); break;
        case AR_PLANNED: e = cudaErrorInvalidValue; break;
        case AR_NCCL:
#ifdef WARPLAB_HAVE_NCCL
            status = run_nccl(backend, g, call);
#else
            status = wl_fail(backend, WARPLAB_ERROR_UNSUPPORTED, "%s", WL_ALLREDUCE_NO_NCCL);
#endif
            break;
        }
    }
    if (e == cudaSuccess)
        e = end(g);
    if (e != cudaSuccess)
        return wl_cuda_check(backend, e, "all-reduce");
    return status;
}

/* ------------------------------------------------------------------------ */
/* The rungs under the harness                                              */

/* The harness's views hold every rank's array one after another (see
 * src/ladders/allreduce.c): rank 0 works in its slices; ranks 1..G-1 get
 * their own arrays on their GPUs, at the same misalignment, filled from the
 * input's slices; finish copies their results back into the output's. */
typedef struct harness_state {
    ar_group group;
    ar_call call;
    void *owned[AR_MAX];              /* ranks 1..G-1: input and output in one allocation */
    warplab_allreduce_group *library; /* dispatch: the public call's group */
} harness_state;

static void harness_teardown(wl_backend *backend, void *state)
{
    (void)backend;
    harness_state *h = static_cast<harness_state *>(state);
    if (!h)
        return;
    warplab_allreduce_group_destroy(h->library); /* before the streams it borrows */
    wl_allreduce_group_close(&h->group);
    for (void *p : h->owned)
        if (p)
            cudaFree(p);
    cudaGetLastError();
    free(h);
}

static int home_device(void)
{
    int device = 0;
    cudaGetDevice(&device);
    return device;
}

static warplab_status harness_setup(wl_backend *backend, const wl_launch *launch, void **state,
                                    ar_algorithm algorithm)
{
    const wl_problem *p = launch->problem;
    const int gpus = (int)p->param;
    size_t bytes = 0, misalign = 0, block = 0, total = 0;
    if (!wl_size_mul(p->dim[0], 4, &bytes) || !wl_size_mul(p->misalign, 4, &misalign) ||
        !wl_size_add(bytes, misalign + 256, &block) || !wl_size_mul(block, 2, &total))
        return wl_fail(backend, WARPLAB_ERROR_INVALID_ARGUMENT, "all-reduce: n=%zu too large",
                       p->dim[0]);
    harness_state *h = static_cast<harness_state *>(calloc(1, sizeof *h));
    if (!h)
        return wl_fail(backend, WARPLAB_ERROR_HOST_OUT_OF_MEMORY, "all-reduce state");
    *state = h;
    const int home = home_device();
    int devices[AR_MAX];
    char reason[256];
    warplab_status status = wl_allreduce_devices(gpus, home, devices, reason, sizeof reason);
    if (status != WARPLAB_OK)
        return wl_fail(backend, status, "%s", reason);
    cudaStream_t streams[AR_MAX] = {wl_cuda_stream(backend)};
    status = wl_allreduce_group_open(backend, &h->group, gpus, devices, streams, algorithm, bytes);
    if (status != WARPLAB_OK)
        return status;
    ar_call *call = &h->call;
    call->n = p->dim[0];
    call->dtype = p->dtype;
    call->gather = wl_view_ptr(launch->scratch);
    char *in_all = static_cast<char *>(wl_view_ptr(launch->buf[0]));
    char *out_all = static_cast<char *>(wl_view_ptr(launch->buf[1]));
    call->in[0] = in_all;
    call->out[0] = out_all;
    DeviceScope scope;
    cudaStream_t stream = wl_cuda_stream(backend);
    cudaError_t e = cudaSuccess;
    for (int r = 1; r < gpus && e == cudaSuccess; r++) {
        e = cudaSetDevice(h->group.devices[r]);
        if (e == cudaSuccess)
            e = cudaMalloc(&h->owned[r], total);
        if (e != cudaSuccess)
            break;
        char *base = static_cast<char *>(h->owned[r]);
        call->in[r] = base + misalign;
        /* The output at the next 256-byte boundary past the input's block
         * (block + 255 + misalign + bytes < 2 x block = total). */
        call->out[r] = base + (block + 255) / 256 * 256 + misalign;
        /* The input's slice r, copied on the harness's stream (after the
         * harness's fill); the output poisoned on the rank's own stream. */
        e = cudaMemcpyPeerAsync(call->in[r], h->group.devices[r], in_all + (size_t)r * bytes, home,
                                bytes, stream);
        if (e == cudaSuccess && p->dim[0])
            e = wl_cuda_fill32_async(h->group.stream[r][0], call->out[r], WL_POISON_PATTERN,
                                     p->dim[0]);
    }
    /* The harness's stream waits for the poisoning on the ranks' streams
     * (through_one writes the other GPUs' outputs from rank 0's stream). */
    for (int r = 1; r < gpus && e == cudaSuccess; r++) {
        e = cudaSetDevice(h->group.devices[r]);
        if (e == cudaSuccess)
            e = cudaEventRecord(h->group.event[r][0], h->group.stream[r][0]);
        if (e == cudaSuccess)
            e = cudaStreamWaitEvent(stream, h->group.event[r][0], 0);
    }
    if (e != cudaSuccess)
        return wl_cuda_check(backend, e, "all-reduce arrays on the other GPUs");
    return WARPLAB_OK;
}

static warplab_status harness_launch(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)launch;
    harness_state *h = static_cast<harness_state *>(state);
    return wl_allreduce_group_run(backend, &h->group, &h->call);
}

/* 9. The library's pick: the harness's arrays through the public calls, the
 * group made by warplab_allreduce_group_create on the harness's streams
 * (rank 0's is the harness's own), each launch one warplab_allreduce; so the
 * row times what a caller pays, the planner's choice and the checks of the
 * arguments included. Its open group (through_one's: streams and events
 * only) serves the harness's copies. */
static warplab_status setup_dispatch(wl_backend *backend, const wl_launch *launch, void **state)
{
    warplab_status status = harness_setup(backend, launch, state, AR_THROUGH_ONE);
    if (status != WARPLAB_OK)
        return status;
    harness_state *h = static_cast<harness_state *>(*state);
    void *streams[AR_MAX] = {};
    for (int r = 0; r < h->group.gpus; r++)
        streams[r] = h->group.stream[r][0];
    status = warplab_allreduce_group_create(h->group.gpus, h->group.devices, streams, &h->library);
    if (status != WARPLAB_OK)
        return wl_fail(backend, status, "%s", warplab_last_error(NULL));
    return WARPLAB_OK;
}

static warplab_status launch_dispatch(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)launch;
    harness_state *h = static_cast<harness_state *>(state);
    warplab_status status =
        warplab_allreduce(h->library, h->call.dtype, h->call.in, h->call.out, h->call.n);
    if (status != WARPLAB_OK)
        return wl_fail(backend, status, "%s", warplab_last_error(NULL));
    /* NCCL's kernel on rank 0 may end before another rank's: rank 0's stream
     * waits for every rank, as under the nccl rung, so the row times all of
     * it and finish copies finished results. (The flag rungs' kernel on rank
     * 0 ends after every rank's block has passed the end barrier.) */
    if (strcmp(warplab_allreduce_group_algorithm(h->library), "nccl") != 0)
        return WARPLAB_OK;
    DeviceScope scope;
    cudaError_t e = cudaSuccess;
    for (int r = 1; r < h->group.gpus && e == cudaSuccess; r++) {
        e = cudaSetDevice(h->group.devices[r]);
        if (e == cudaSuccess)
            e = cudaEventRecord(h->group.event[r][0], h->group.stream[r][0]);
        if (e == cudaSuccess)
            e = cudaStreamWaitEvent(h->group.stream[0][0], h->group.event[r][0], 0);
    }
    return wl_cuda_check(backend, e, "waiting for every rank");
}

/* The ranks' results into the output's slices, on the harness's stream
 * (which the launch left waiting for every rank). */
static warplab_status harness_finish(wl_backend *backend, const wl_launch *launch, void *state)
{
    harness_state *h = static_cast<harness_state *>(state);
    const size_t bytes = launch->problem->dim[0] * 4;
    char *out_all = static_cast<char *>(wl_view_ptr(launch->buf[1]));
    cudaError_t e = cudaSuccess;
    for (int r = 1; r < h->group.gpus && e == cudaSuccess && bytes; r++)
        e = cudaMemcpyPeerAsync(out_all + (size_t)r * bytes, h->group.devices[0], h->call.out[r],
                                h->group.devices[r], bytes, wl_cuda_stream(backend));
    return wl_cuda_check(backend, e, "copying the ranks' results back");
}

static warplab_status group_supports(const wl_problem *p, bool peers, char *reason, size_t len)
{
    int devices[AR_MAX];
    warplab_status status =
        wl_allreduce_devices((int)p->param, home_device(), devices, reason, len);
    if (status == WARPLAB_OK && peers)
        status = wl_allreduce_peer_check((int)p->param, devices, reason, len);
    if (status == WARPLAB_OK && (p->dtype != WARPLAB_FLOAT32 && p->dtype != WARPLAB_INT32)) {
        wl_format(reason, len, "all-reduce takes float or int32");
        status = WARPLAB_ERROR_UNSUPPORTED;
    }
    return status;
}

static warplab_status supports_any(wl_backend *backend, const wl_problem *p, char *reason,
                                   size_t len)
{
    (void)backend;
    return group_supports(p, false, reason, len);
}

static warplab_status supports_peers(wl_backend *backend, const wl_problem *p, char *reason,
                                     size_t len)
{
    (void)backend;
    return group_supports(p, true, reason, len);
}

static warplab_status supports_nccl(wl_backend *backend, const wl_problem *p, char *reason,
                                    size_t len)
{
    (void)backend;
#ifdef WARPLAB_HAVE_NCCL
    /* Skipped, with why, where NCCL cannot be loaded. */
    if (!wl_nccl_load(reason, len))
        return WARPLAB_ERROR_UNSUPPORTED;
    return group_supports(p, false, reason, len);
#else
    (void)p;
    wl_copy_string(reason, len, WL_ALLREDUCE_NO_NCCL);
    return WARPLAB_ERROR_UNSUPPORTED;
#endif
}

/* The library's call runs where every pair has peer access, or through NCCL. */
static warplab_status supports_dispatch(wl_backend *backend, const wl_problem *p, char *reason,
                                        size_t len)
{
    (void)backend;
    warplab_status status = group_supports(p, true, reason, len);
    if (status != WARPLAB_OK && group_supports(p, false, reason, len) == WARPLAB_OK) {
#ifdef WARPLAB_HAVE_NCCL
        char why[1024];
        if (wl_nccl_load(why, sizeof why))
            return WARPLAB_OK;
        wl_format(reason, len, "no peer access between every pair of GPUs, and %s", why);
#else
        wl_format(reason, len, "no peer access between every pair of GPUs, and %s",
                  WL_ALLREDUCE_NO_NCCL);
#endif
    }
    return status;
}

/* through_one gathers the other G-1 arrays on GPU 0: its workspace. */
static size_t gather_bytes(wl_backend *backend, const wl_problem *p)
{
    (void)backend;
    size_t bytes = 0, total = 0;
    if (p->param < 2 || !wl_size_mul(p->dim[0], 4, &bytes) ||
        !wl_size_mul(bytes, (size_t)(p->param - 1), &total))
        return 0;
    return total;
}

#define HARNESS_SETUP(name, algorithm)                                                             \
    static warplab_status setup_##name(wl_backend *backend, const wl_launch *launch, void **state) \
    {                                                                                              \
        return harness_setup(backend, launch, state, algorithm);                                   \
    }
HARNESS_SETUP(host_staging, AR_HOST_STAGING)
HARNESS_SETUP(through_one, AR_THROUGH_ONE)
HARNESS_SETUP(peer_read, AR_PEER_READ)
HARNESS_SETUP(ring, AR_RING)
HARNESS_SETUP(nccl, AR_NCCL)
HARNESS_SETUP(two_shot, AR_TWO_SHOT)
HARNESS_SETUP(one_shot, AR_ONE_SHOT)
HARNESS_SETUP(two_shot_flags, AR_TWO_SHOT_FLAGS)
HARNESS_SETUP(two_shot_push, AR_TWO_SHOT_PUSH)

#define ALLREDUCE_IMPL_WITH(name, limits, scratch, launcher)                                       \
    static const wl_impl name##_impl = {.ladder = "allreduce",                                     \
                                        .rung = #name,                                             \
                                        .supports = limits,                                        \
                                        .scratch_bytes = scratch,                                  \
                                        .setup = setup_##name,                                     \
                                        .launch = launcher,                                        \
                                        .finish = harness_finish,                                  \
                                        .teardown = harness_teardown};
#define ALLREDUCE_IMPL(name, limits, scratch)                                                      \
    ALLREDUCE_IMPL_WITH(name, limits, scratch, harness_launch)
ALLREDUCE_IMPL(host_staging, supports_any, nullptr)
ALLREDUCE_IMPL(through_one, supports_any, gather_bytes)
ALLREDUCE_IMPL(peer_read, supports_peers, nullptr)
ALLREDUCE_IMPL(ring, supports_peers, nullptr)
ALLREDUCE_IMPL(nccl, supports_nccl, nullptr)
ALLREDUCE_IMPL(two_shot, supports_peers, nullptr)
ALLREDUCE_IMPL(one_shot, supports_peers, nullptr)
ALLREDUCE_IMPL(two_shot_flags, supports_peers, nullptr)
ALLREDUCE_IMPL(two_shot_push, supports_peers, nullptr)
ALLREDUCE_IMPL_WITH(dispatch, supports_dispatch, nullptr, launch_dispatch)

extern "C" const wl_impl *const wl_cuda_allreduce_impls[] = {
    &host_staging_impl,  &through_one_impl, &peer_read_impl, &ring_impl,
    &nccl_impl,          &two_shot_impl,    &one_shot_impl,  &two_shot_flags_impl,
    &two_shot_push_impl, &dispatch_impl,    nullptr};
/* warplab:end */
