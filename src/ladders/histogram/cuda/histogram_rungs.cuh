/* What the cuda backend's histogram rungs share: the sample types, the host
 * glue that runs a rung for the problem's sample type, the counts' zeroing,
 * the grid, and the device pieces several rungs use (the bin of a sample in
 * a private copy, the merge of a block's copies into the global counts, the
 * counting step with or without aggregation, the privatised kernel that the
 * shared-memory rungs instantiate). Each rung's own launcher and impl row are
 * in the numbered file beside this one (NN_<rung>.cu, NN = its place in
 * `warplab ladders histogram`); histogram_rungs.cu includes them in ladder
 * order and lists their impl rows for the backend.
 *
 * Every launch zeroes the counts first (cudaMemsetAsync on the rung's stream,
 * capturable), then adds to them with global atomics: the kernels never
 * assume the counts start at zero on their own. The bin rule is
 * src/kernels/histogram_bins.h (CUB's HistogramEven). */
#ifndef WARPLAB_HISTOGRAM_RUNGS_CUH
#define WARPLAB_HISTOGRAM_RUNGS_CUH

#include "kernels/cuda/cuda_backend.h"
#include "kernels/histogram_bins.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace
{

constexpr unsigned FULL_WARP = 0xffffffffu;
constexpr unsigned BLOCK = 256;            /* threads of the privatised kernels */
constexpr unsigned WARPS = BLOCK / 32;     /* per-warp copies in a block */
constexpr size_t SHARED_LIMIT = 48 * 1024; /* dynamic shared memory without opt-in */

/* ------------------------------------------------------------------------ */
/* Samples and bins                                                         */

/* The bin a sample is counted in by the global-atomics rung. */
__device__ inline int output_bin(uint8_t x, const wl_histogram_rule &rule)
{
    return wl_histogram_bin_int(x, &rule);
}
__device__ inline int output_bin(int32_t x, const wl_histogram_rule &rule)
{
    return wl_histogram_bin_int(x, &rule);
}
__device__ inline int output_bin(float x, const wl_histogram_rule &rule)
{
    return wl_histogram_bin_float(x, &rule);
}

/* The word of a private copy a sample increments: 8-bit samples count their
 * 256 values (one word each) and are mapped to bins when the copy is merged,
 * as CUB does for 1-byte samples; the others count their bin directly. */
__device__ inline int private_bin(uint8_t x, const wl_histogram_rule &)
{
    return x;
}
__device__ inline int private_bin(int32_t x, const wl_histogram_rule &rule)
{
    return wl_histogram_bin_int(x, &rule);
}
__device__ inline int private_bin(float x, const wl_histogram_rule &rule)
{
    return wl_histogram_bin_float(x, &rule);
}

template <typename S> __device__ inline int merge_bin(unsigned word, const wl_histogram_rule &rule)
{
    if constexpr (sizeof(S) == 1)
        return wl_histogram_bin_int((int32_t)word, &rule);
    else
        return (int)word;
}

/* Words in a private copy. */
inline unsigned private_bins(const wl_problem *p)
{
    return p->variant == WL_HISTOGRAM_UINT8 ? 256u : (unsigned)p->dim[1];
}

/* ------------------------------------------------------------------------ */
/* Counting one sample per lane into a shared copy                          */

enum Aggregate {
    AGGREGATE_NONE,  /* every lane its own atomic */
    AGGREGATE_MATCH, /* __match_any_sync: one atomic per run of equal bins */
    AGGREGATE_VECTOR /* 8-bit: one atomic of 16 when a lane's 16 bytes are one value */
};

/* Whether the 16 bytes of v are all the same value. */
__host__ __device__ inline bool one_value(uint4 v)
{
    return v.x == v.y && v.x == v.z && v.x == v.w && v.x == (v.x & 0xffu) * 0x01010101u;
}

/* bin < 0: nothing to count. With aggregation, all 32 lanes call it. */
template <int AGG> __device__ inline void count_bin(unsigned *copy, int bin, unsigned lane)
{
    if constexpr (AGG == AGGREGATE_NONE) {
        (void)lane;
        if (bin >= 0)
            atomicAdd(&copy[bin], 1u);
    } else {
        const unsigned peers = __match_any_sync(FULL_WARP, bin);
        if (bin >= 0 && lane == (unsigned)(__ffs(peers) - 1))
            atomicAdd(&copy[bin], (unsigned)__popc(peers));
    }
}

/* 16 8-bit samples of one lane into its copy of the 256 values (valid:
 * the vector is in the input): one atomic of 16 when they are all one value
 * (skewed data, runs), else one atomic each. */
__device__ inline void count_vector(unsigned *copy, uint4 v, bool valid)
{
    if (!valid)
        return;
    if (one_value(v)) {
        atomicAdd(&copy[v.x & 0xffu], 16u);
        return;
    }
    const unsigned words[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
    for (int w = 0; w < 4; w++)
#pragma unroll
        for (int k = 0; k < 4; k++)
            atomicAdd(&copy[(words[w] >> (8 * k)) & 0xffu], 1u);
}

/* Elements before the first 16-byte boundary (at most n), and the whole
 * 16-byte vectors after them. */
template <typename S> inline void vector_split(const S *in, size_t n, size_t *head, size_t *vectors)
{
    const size_t misalign = (size_t)((uintptr_t)in % 16);
    size_t h = misalign ? (16 - misalign) / sizeof(S) : 0;
    h = h < n ? h : n;
    *head = h;
    *vectors = (n - h) / (16 / sizeof(S));
}

/* How the privatised kernel finishes: every block adds its non-zero words
 * to the global counts, zeroed by a cudaMemsetAsync before the launch
 * (FINISH_ATOMIC); or, 8-bit only, in one launch (FINISH_ONE_LAUNCH): every
 * block adds its 256 values to one of `spread` copies in a workspace that
 * is all zero at the launch, the last block to take a ticket (after a
 * __threadfence) folds the copies into the counts, writing every bin, and
 * leaves the copies and the ticket at zero for the next launch. No memset,
 * one launch instead of two; the spread copies put the blocks' adds on
 * several cache lines instead of the counts' few. Measured and not taken
 * by the library (scripts/histogram_u8_grid.cu, NVIDIA H100): the last
 * block's fences, ticket and fold cost more than the memset's launch --
 * 1.5 us more below 2^24 samples, 2-3 us more on skewed data at every size
 * -- and it wins only on uniform data where many blocks merge (2^26 and
 * 47000011 samples: 1.08-1.10x CUB against 0.98-1.03x). */
enum Finish { FINISH_ATOMIC, FINISH_ONE_LAUNCH };

struct one_launch_scratch {
    unsigned *ticket; /* 0 at the launch, 0 again after it */
    unsigned *copies; /* spread copies of the 256 values, 0 at the launch and after it */
    unsigned spread;  /* copies (>= 1) */
};

/* The one-launch scratch: the ticket on a 256-byte line of its own, then
 * the spread copies of the 256 values. */
constexpr size_t ONE_LAUNCH_TICKET_BYTES = 256;
inline size_t one_launch_scratch_bytes(unsigned spread)
{
    return ONE_LAUNCH_TICKET_BYTES + (size_t)spread * 256 * sizeof(unsigned);
}
/* The most bins the last block folds in its shared memory (the per-warp
 * copies' words, reused). */
constexpr unsigned ONE_LAUNCH_MAX_BINS = WARPS * 256;

/* The privatised kernel (rungs block_shared .. dispatch): copies of
 * private_bins words in shared memory, one per block or one per warp; scalar
 * or 16-byte loads (LOADS of them in flight a lane); counting with the
 * aggregation AGG; then the finish FINISH. Loops are warp-uniform (every
 * lane runs the same trips), so the warp-wide intrinsics see all 32 lanes. */
template <typename S, bool PER_WARP, bool VECTOR, int AGG, int FINISH = FINISH_ATOMIC,
          int LOADS = 2>
__global__ void __launch_bounds__(BLOCK)
    privatised_kernel(const S *__restrict__ in, size_t n, size_t head, size_t vectors,
                      unsigned *__restrict__ counts, wl_histogram_rule rule, unsigned words,
                      one_launch_scratch scratch)
{
    extern __shared__ unsigned copies[];
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    constexpr unsigned COPIES = PER_WARP ? WARPS : 1;
    unsigned *copy = copies + (PER_WARP ? warp * words : 0);
    for (unsigned i = threadIdx.x; i < COPIES * words; i += BLOCK)
        copies[i] = 0;
    __syncthreads();

    const size_t first = ((size_t)blockIdx.x * WARPS + warp) * 32;
    const size_t step = (size_t)gridDim.x * BLOCK;
    if constexpr (VECTOR) {
        constexpr int PER = 16 / sizeof(S);
        const uint4 *v = reinterpret_cast<const uint4 *>(in + head);
        /* LOADS vectors in flight per lane per trip, all loaded before any
         * is counted. */
        for (size_t base = first; base < vectors; base += LOADS * step) {
            uint4 x[LOADS];
#pragma unroll
            for (int k = 0; k < LOADS; k++) {
                const size_t i = base + k * step + lane;
                x[k] = make_uint4(0, 0, 0, 0);
                if (i < vectors)
                    x[k] = v[i];
            }
#pragma unroll
            for (int k = 0; k < LOADS; k++) {
                const bool valid = base + k * step + lane < vectors;
                if constexpr (AGG == AGGREGATE_VECTOR) {
                    static_assert(sizeof(S) == 1, "vector aggregation counts 8-bit samples");
                    count_vector(copy, x[k], valid);
                } else {
                    S samples[PER];
                    memcpy(samples, &x[k], 16);
#pragma unroll
                    for (int j = 0; j < PER; j++)
                        count_bin<AGG>(copy, valid ? private_bin(samples[j], rule) : -1, lane);
                }
            }
        }
        /* The scalar head and tail: fewer than 32 elements together. */
        const size_t tail = head + vectors * PER, extras = head + (n - tail);
        for (size_t base = first; base < extras; base += step) {
            const size_t i = base + lane;
            const size_t at = i < head ? i : tail + (i - head);
            constexpr int SCALAR = AGG == AGGREGATE_VECTOR ? AGGREGATE_NONE : AGG;
            count_bin<SCALAR>(copy, i < extras ? private_bin(in[at], rule) : -1, lane);
        }
    } else {
        for (size_t base = first; base < n; base += step) {
            const size_t i = base + lane;
            count_bin<AGG>(copy, i < n ? private_bin(in[i], rule) : -1, lane);
        }
    }
    __syncthreads();
    if constexpr (FINISH == FINISH_ATOMIC) {
        for (unsigned w = threadIdx.x; w < words; w += BLOCK) {
            unsigned total = 0;
#pragma unroll
            for (unsigned c = 0; c < COPIES; c++)
                total += copies[c * words + w];
            const int bin = merge_bin<S>(w, rule);
            if (total && bin >= 0)
                atomicAdd(&counts[bin], total);
        }
    } else {
        static_assert(sizeof(S) == 1 && PER_WARP && BLOCK == 256,
                      "the one-launch finish: one 8-bit value a thread, per-warp copies");
        /* This block's 256 values into its spread copy. */
        const unsigned value = threadIdx.x;
        unsigned total = 0;
#pragma unroll
        for (unsigned c = 0; c < COPIES; c++)
            total += copies[c * 256 + value];
        unsigned *mine = scratch.copies + (blockIdx.x % scratch.spread) * 256;
        if (total)
            atomicAdd(&mine[value], total);
        __threadfence(); /* release: this thread's add before the block's ticket */
        __shared__ bool last_block;
        __syncthreads();
        if (threadIdx.x == 0)
            last_block = atomicAdd(scratch.ticket, 1u) == gridDim.x - 1;
        __syncthreads();
        if (!last_block)
            return;
        __threadfence(); /* acquire: every block's adds are visible */
        /* The last block: each value's total over the spread copies (read
         * from L2, where the atomics landed), the copies zeroed behind it. */
        total = 0;
        for (unsigned c = 0; c < scratch.spread; c++) {
            total += __ldcg(&scratch.copies[c * 256 + value]);
            scratch.copies[c * 256 + value] = 0;
        }
        /* Values to bins in shared memory (the copies' words, read above
         * this block's last barrier), then every bin written once. */
        unsigned *fold = copies;
        for (unsigned b = threadIdx.x; b < rule.bins; b += BLOCK)
            fold[b] = 0;
        __syncthreads();
        const int bin = merge_bin<S>(value, rule);
        if (total && bin >= 0)
            atomicAdd(&fold[bin], total);
        __syncthreads();
        for (unsigned b = threadIdx.x; b < rule.bins; b += BLOCK)
            counts[b] = fold[b];
        if (threadIdx.x == 0)
            *scratch.ticket = 0;
    }
}

/* ------------------------------------------------------------------------ */
/* Host glue                                                                */

template <typename S> const S *samples_of(const wl_launch *launch)
{
    return static_cast<const S *>(wl_view_ptr(launch->buf[0]));
}
inline unsigned *counts_of(const wl_launch *launch)
{
    return static_cast<unsigned *>(wl_view_ptr(launch->buf[1]));
}

/* Runs call(S{}) for the problem's sample type. */
template <typename F> auto with_sample(const wl_problem *problem, F &&call)
{
    switch (problem->variant) {
    case WL_HISTOGRAM_UINT8: return call(uint8_t{});
    case WL_HISTOGRAM_INT32: return call(int32_t{});
    default: return call(float{});
    }
}

/* The counts zeroed, in order on the rung's stream. */
inline warplab_status zero_counts(wl_backend *backend, const wl_launch *launch)
{
    return wl_cuda_check(backend,
                         cudaMemsetAsync(counts_of(launch), 0,
                                         (size_t)launch->problem->dim[1] * sizeof(unsigned),
                                         wl_cuda_stream(backend)),
                         "histogram: zeroing the counts");
}

/* A grid of the blocks that fit on every SM at once (kernel's occupancy with
 * shared bytes a block), never more than the work needs, at least one. */
template <typename K>
unsigned resident_grid(const wl_backend *backend, K kernel, unsigned block, size_t shared,
                       size_t work_per_block, size_t work)
{
    int per_sm = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, (int)block, shared) !=
            cudaSuccess ||
        per_sm < 1)
        per_sm = 1;
    const size_t sms =
        backend->info.multiprocessors > 0 ? (size_t)backend->info.multiprocessors : 1;
    size_t blocks = (work + work_per_block - 1) / work_per_block;
    const size_t full = sms * (size_t)per_sm;
    blocks = blocks < full ? blocks : full;
    return blocks ? (unsigned)blocks : 1u;
}

/* A grid of whole waves: per_sm_blocks blocks on every SM (a grid-stride
 * loop gives every block the same work, so an SM with one block more than
 * another would set the time), at most the blocks that fit at once, never
 * more than the work needs (one trip of per_trip vectors a block), at
 * least one. */
template <typename K>
unsigned wave_grid(const wl_backend *backend, K kernel, size_t shared, size_t per_trip, size_t work,
                   unsigned per_sm_blocks)
{
    int per_sm = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, (int)BLOCK, shared) !=
            cudaSuccess ||
        per_sm < 1)
        per_sm = 1;
    const size_t sms =
        backend->info.multiprocessors > 0 ? (size_t)backend->info.multiprocessors : 1;
    size_t blocks = sms * (per_sm_blocks < (unsigned)per_sm ? per_sm_blocks : (unsigned)per_sm);
    const size_t most = (work + per_trip - 1) / per_trip;
    blocks = blocks < most ? blocks : most;
    return blocks ? (unsigned)blocks : 1u;
}

/* The grid of the privatised kernel: by default every block that fits at
 * once (never more than the work needs); with trips > 0, enough blocks that
 * each lane makes about trips trips of two 16-byte loads, but at least
 * least_blocks (and still at most what the work needs or fits); with
 * per_sm_blocks > 0, whole waves of that many blocks an SM (wave_grid).
 * Fewer blocks mean fewer copies to zero and to merge into the global
 * counts. */
struct grid_policy {
    unsigned trips;         /* 0: the resident grid (or per_sm_blocks) */
    unsigned least_blocks;  /* with trips */
    unsigned per_sm_blocks; /* 0: trips or the resident grid */
};

/* Zeroes the counts (FINISH_ATOMIC, or no samples), then runs
 * privatised_kernel<S, PER_WARP, VECTOR, AGG, FINISH, LOADS> on the grid
 * policy's grid. FINISH_ONE_LAUNCH needs `scratch` all zero (the kernel
 * leaves it so). */
template <typename S, bool PER_WARP, bool VECTOR, int AGG, int FINISH = FINISH_ATOMIC,
          int LOADS = 2>
warplab_status run_privatised(wl_backend *backend, const wl_launch *launch, const char *what,
                              grid_policy policy = {0, 0, 0},
                              one_launch_scratch scratch = {nullptr, nullptr, 1})
{
    const size_t n = launch->problem->dim[0];
    warplab_status status = WARPLAB_OK;
    if (FINISH == FINISH_ATOMIC || n == 0)
        status = zero_counts(backend, launch);
    if (status != WARPLAB_OK || n == 0)
        return status;
    const S *in = samples_of<S>(launch);
    size_t head = 0, vectors = 0;
    if (VECTOR)
        vector_split(in, n, &head, &vectors);
    const unsigned words = private_bins(launch->problem);
    const size_t shared = (size_t)words * sizeof(unsigned) * (PER_WARP ? WARPS : 1);
    auto kernel = privatised_kernel<S, PER_WARP, VECTOR, AGG, FINISH, LOADS>;
    const size_t work = VECTOR ? (vectors ? vectors : 1) : n;
    const size_t per_trip = (size_t)BLOCK * (VECTOR ? LOADS : 1);
    unsigned grid = resident_grid(backend, kernel, BLOCK, shared, per_trip, work);
    if (policy.per_sm_blocks) {
        grid = wave_grid(backend, kernel, shared, per_trip, work, policy.per_sm_blocks);
    } else if (policy.trips) {
        const unsigned fewer =
            resident_grid(backend, kernel, BLOCK, shared, per_trip * policy.trips, work);
        const unsigned least = grid < policy.least_blocks ? grid : policy.least_blocks;
        grid = fewer > least ? fewer : least;
    }
    kernel<<<grid, BLOCK, shared, wl_cuda_stream(backend)>>>(
        in, n, head, vectors, counts_of(launch), wl_histogram_rule_of(launch->problem), words,
        scratch);
    return WL_CUDA_LAUNCHED(backend, what);
}

/* A plan for 8-bit samples that scripts/histogram_u8_grid.cu times against
 * the dispatch rung's (07_dispatch.cu, BYTE_GRID): whole waves sized to n
 * and, on small grids, four loads in flight a lane. Not yet the library's:
 * measured only in its parts (the grids with two loads), not as a whole.
 * Constants from that script's tuning set (2^20, 2^22, 2^24, 2^26 and 2^28
 * samples, uniform and skewed; NVIDIA H100, CUB / form):
 * BYTE_BLOCKS_AT_2_24: blocks per SM at 2^24 samples (2: 1.02 / 1.07x;
 * 1: 0.84 / 0.88x; 4: 0.98 / 1.17x, the merge of twice the blocks). */
constexpr double BYTE_BLOCKS_AT_2_24 = 2.0;
/* BYTE_WIDE_MOST_BLOCKS: up to this many blocks an SM, four 16-byte loads
 * in flight a lane instead of two (40 registers: 6 blocks of 256 threads
 * still fit an SM). The reason to try it: at 2^24 the two-load kernel on 4
 * blocks an SM was 8% faster on skewed data, where the merge costs
 * nothing: more bytes in flight, without more blocks to merge. */
constexpr unsigned BYTE_WIDE_MOST_BLOCKS = 4;

/* Blocks per SM for n 8-bit samples: BYTE_BLOCKS_AT_2_24 times the square
 * root of n / 2^24 (2^26: 4 blocks, 1.07 / 1.13x against 0.98-1.00 / 1.12x
 * on the 8 that fit; 2^28: 8, all that fit), at least 1. The loads want
 * blocks in proportion to n, the merge of their 256 sums into the same
 * counts in inverse proportion: their balance grows as the square root. */
inline unsigned byte_blocks_per_sm(size_t n)
{
    const double blocks = BYTE_BLOCKS_AT_2_24 * sqrt((double)n / 16777216.0);
    return blocks < 1.5 ? 1u : blocks > 64.0 ? 64u : (unsigned)(blocks + 0.5);
}

/* Whether copies of the problem's private words fit in a block's shared
 * memory (copies: 1 per block, or WARPS). */
inline warplab_status copies_fit(const wl_problem *problem, unsigned copies, char *reason,
                                 size_t len)
{
    const size_t need = (size_t)private_bins(problem) * sizeof(unsigned) * copies;
    if (need > SHARED_LIMIT) {
        wl_format(reason, len,
                  "%u cop%s of %u bins need %zu KiB of shared memory; a block has %zu KiB", copies,
                  copies == 1 ? "y" : "ies", private_bins(problem), need / 1024,
                  SHARED_LIMIT / 1024);
        return WARPLAB_ERROR_UNSUPPORTED;
    }
    return WARPLAB_OK;
}

} // namespace

#endif
