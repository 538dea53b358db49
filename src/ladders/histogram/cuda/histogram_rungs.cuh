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
 * capturable; for the dispatch rung on sm_90 a zeroing kernel whose dependent
 * the counting kernel is, dependent_launch.cuh), then adds to them with
 * global atomics: the kernels never assume the counts start at zero on their
 * own. The bin rule is
 * src/kernels/histogram_bins.h (CUB's HistogramEven). */
#ifndef WARPLAB_HISTOGRAM_RUNGS_CUH
#define WARPLAB_HISTOGRAM_RUNGS_CUH

#include "kernels/cuda/cuda_backend.h"
#include "kernels/cuda/dependent_launch.cuh"
#include "kernels/histogram_bins.h"

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
    AGGREGATE_NONE, /* every lane its own atomic */
    AGGREGATE_MATCH /* __match_any_sync: one atomic per run of equal bins */
};

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

/* The privatised kernel (rungs block_shared .. run_aggregate, and dispatch
 * for int32 and float): copies of private_bins words in shared memory, one
 * per block or one per warp; scalar or 16-byte loads; counting with the
 * aggregation AGG; then every block adds its copies' non-zero words to the
 * global counts. Loops are warp-uniform (every lane runs the same trips), so
 * the warp-wide intrinsics see all 32 lanes. */
template <typename S, bool PER_WARP, bool VECTOR, int AGG>
__global__ void __launch_bounds__(BLOCK)
    privatised_kernel(const S *__restrict__ in, size_t n, size_t head, size_t vectors,
                      unsigned *__restrict__ counts, wl_histogram_rule rule, unsigned words)
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
        /* Two vectors in flight per lane per trip. */
        for (size_t base = first; base < vectors; base += 2 * step) {
            const size_t i0 = base + lane, i1 = base + step + lane;
            uint4 a = make_uint4(0, 0, 0, 0), b = a;
            if (i0 < vectors)
                a = v[i0];
            if (i1 < vectors)
                b = v[i1];
            S sa[PER], sb[PER];
            memcpy(sa, &a, 16);
            memcpy(sb, &b, 16);
#pragma unroll
            for (int j = 0; j < PER; j++)
                count_bin<AGG>(copy, i0 < vectors ? private_bin(sa[j], rule) : -1, lane);
#pragma unroll
            for (int j = 0; j < PER; j++)
                count_bin<AGG>(copy, i1 < vectors ? private_bin(sb[j], rule) : -1, lane);
        }
        /* The scalar head and tail: fewer than 32 elements together. */
        const size_t tail = head + vectors * PER, extras = head + (n - tail);
        for (size_t base = first; base < extras; base += step) {
            const size_t i = base + lane;
            const size_t at = i < head ? i : tail + (i - head);
            count_bin<AGG>(copy, i < extras ? private_bin(in[at], rule) : -1, lane);
        }
    } else {
        for (size_t base = first; base < n; base += step) {
            const size_t i = base + lane;
            count_bin<AGG>(copy, i < n ? private_bin(in[i], rule) : -1, lane);
        }
    }
    __syncthreads();
    wl_pdl_wait(); /* a dependent launch: the counts' reset done */
    for (unsigned w = threadIdx.x; w < words; w += BLOCK) {
        unsigned total = 0;
#pragma unroll
        for (unsigned c = 0; c < COPIES; c++)
            total += copies[c * words + w];
        const int bin = merge_bin<S>(w, rule);
        if (total && bin >= 0)
            atomicAdd(&counts[bin], total);
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

/* Zeroes the counts on the rung's stream; with dependent, the counting
 * kernel is then launched as the zeroing's dependent (wl_zero_before,
 * dependent_launch.cuh). */
inline warplab_status zero_counts(wl_backend *backend, const wl_launch *launch,
                                  bool dependent = false)
{
    const size_t bytes = (size_t)launch->problem->dim[1] * sizeof(unsigned);
    return wl_cuda_check(
        backend, wl_zero_before(counts_of(launch), bytes, wl_cuda_stream(backend), dependent),
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

/* Zeroes the counts, then runs privatised_kernel<S, PER_WARP, VECTOR, AGG>;
 * dependent (sm_90): the zeroing kernel, then the kernel as its dependent
 * (dependent_launch.cuh), instead of cudaMemsetAsync and a plain launch. */
template <typename S, bool PER_WARP, bool VECTOR, int AGG>
warplab_status run_privatised(wl_backend *backend, const wl_launch *launch, const char *what,
                              bool dependent = false)
{
    const size_t n = launch->problem->dim[0];
    dependent = dependent && n > 0 && backend->info.cc_major >= 9;
    warplab_status status = zero_counts(backend, launch, dependent);
    if (status != WARPLAB_OK || n == 0)
        return status;
    const S *in = samples_of<S>(launch);
    size_t head = 0, vectors = 0;
    if (VECTOR)
        vector_split(in, n, &head, &vectors);
    const unsigned words = private_bins(launch->problem);
    const size_t shared = (size_t)words * sizeof(unsigned) * (PER_WARP ? WARPS : 1);
    auto kernel = privatised_kernel<S, PER_WARP, VECTOR, AGG>;
    const size_t work = VECTOR ? (vectors ? vectors : 1) : n;
    const size_t per_trip = (size_t)BLOCK * (VECTOR ? 2 : 1);
    const unsigned grid = resident_grid(backend, kernel, BLOCK, shared, per_trip, work);
    const wl_histogram_rule rule = wl_histogram_rule_of(launch->problem);
    return wl_cuda_check(backend,
                         wl_launch_after(dependent, kernel, grid, BLOCK, shared,
                                         wl_cuda_stream(backend), in, n, head, vectors,
                                         counts_of(launch), rule, words),
                         what);
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
