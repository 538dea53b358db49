/* The dispatch rung's 8-bit kernel and its plan (07_dispatch.cu), apart so
 * that the tuner, scripts/histogram_u8_grid.cu, times exactly what
 * warplab_histogram runs.
 *
 * Over vector_loads' kernel (per-warp copies of the 256 values, 16-byte
 * loads, plain shared atomics):
 *   - one test per 16-byte vector: when a lane's 16 bytes are one value
 *     (skewed data, long runs), one atomic of 16 instead of 16 atomics;
 *   - a grid of whole waves sized to n (byte_blocks_per_sm): the same number
 *     of blocks on every SM (a grid-stride loop gives every block the same
 *     work, so an SM with one block more would set the time), 2 at 2^24
 *     samples, growing as the square root of n up to all that fit. Every
 *     block adds its 256 sums to the same 256 counts, so the merge grows
 *     with the blocks while the loads want more of them;
 *   - on grids of up to BYTE_WIDE_MOST_BLOCKS blocks an SM, four 16-byte
 *     loads in flight a lane instead of two: where the grid is small, bytes
 *     in flight are what the memory's latency needs, without more blocks to
 *     merge;
 *   - on those grids, the next trip's four loads issued before this trip's
 *     samples are counted (BYTE_PREFETCH): at 2^24 samples a lane makes
 *     about four trips, and without it a warp waits out the memory's latency
 *     once a trip with its atomics idle. Measured neutral on an H100 (the
 *     other warps already cover that wait).
 * The counts are zeroed before the kernel (the caller's, run_byte_histogram:
 * on sm_90 a zeroing kernel whose dependent this kernel is, which waits for
 * it only before adding its 256 sums to them). */
#ifndef WARPLAB_BYTE_HISTOGRAM_CUH
#define WARPLAB_BYTE_HISTOGRAM_CUH

#include "histogram_rungs.cuh"
#include "kernels/cuda/dependent_launch.cuh"

#include <cmath>

namespace
{

/* The 8-bit plan's constants. Tuning set: scripts/histogram_u8_grid.cu,
 * 2^20, 2^22, 2^24, 2^26 and 2^28 samples, uniform and skewed (held out and
 * only reported: 3000017, 47000011, 700000001); CUB / form (uniform /
 * skewed), events, L2 flushed, median of 40. */
/* Blocks an SM at 2^24. H100: 2 -> 1.108 / 1.182x; 1 -> 1.120 / 1.076x; 4 -> 1.006 / 1.147x */
constexpr double BYTE_BLOCKS_AT_2_24 = 2.0;
/* Four loads a lane up to this many blocks an SM. H100: 2^26 (4 an SM) 1.071 / 1.111x */
constexpr unsigned BYTE_WIDE_MOST_BLOCKS = 4;
/* Next trip's loads first (4-load grids). H100 2^24: 15.10 / 13.34 us; without 15.04 / 13.38 */
constexpr bool BYTE_PREFETCH = true;

/* Blocks per SM for n 8-bit samples: BYTE_BLOCKS_AT_2_24 times the square
 * root of n / 2^24 (2^26: 4 blocks; 2^28: 8, all that fit), at least 1. The
 * loads want blocks in proportion to n, the merge of their 256 sums into the
 * same counts in inverse proportion: their balance grows as the square
 * root. */
inline unsigned byte_blocks_per_sm(size_t n)
{
    const double blocks = BYTE_BLOCKS_AT_2_24 * std::sqrt((double)n / 16777216.0);
    return blocks < 1.5 ? 1u : blocks > 64.0 ? 64u : (unsigned)(blocks + 0.5);
}

/* What the kernel runs for n samples: blocks an SM, loads in flight a lane
 * a trip, and whether the next trip's loads go out before the counting. */
struct byte_plan {
    unsigned blocks_per_sm;
    int loads; /* 2 or 4 */
    bool prefetch;
};

inline byte_plan byte_plan_for(size_t n)
{
    const unsigned blocks = byte_blocks_per_sm(n);
    const bool wide = blocks <= BYTE_WIDE_MOST_BLOCKS;
    return {blocks, wide ? 4 : 2, wide && BYTE_PREFETCH};
}

/* Whether the 16 bytes of v are all the same value. */
__device__ inline bool one_value(uint4 v)
{
    return v.x == v.y && v.x == v.z && v.x == v.w && v.x == (v.x & 0xffu) * 0x01010101u;
}

/* 16 8-bit samples of one lane into its copy of the 256 values (valid:
 * the vector is in the input): one atomic of 16 when they are all one value
 * (skewed data, runs), else one atomic each. On uniform data the test is a
 * few compares per 16 samples and the branch is never taken. */
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

/* LOADS 16-byte vectors of lane's trip at base into x (zero past the end). */
template <int LOADS>
__device__ inline void load_trip(uint4 (&x)[LOADS], const uint4 *v, size_t base, size_t step,
                                 size_t vectors)
{
#pragma unroll
    for (int k = 0; k < LOADS; k++) {
        const size_t i = base + k * step;
        x[k] = make_uint4(0, 0, 0, 0);
        if (i < vectors)
            x[k] = v[i];
    }
}

/* Per-warp copies of the 256 values; LOADS vectors in flight a lane a trip
 * (PREFETCH: the next trip's before this trip's counting); the scalar head
 * and tail; then each block adds its 256 sums (mapped to bins by rule) to
 * the counts. */
template <int LOADS, bool PREFETCH>
__global__ void __launch_bounds__(BLOCK)
    byte_kernel(const uint8_t *__restrict__ in, size_t n, size_t head, size_t vectors,
                unsigned *__restrict__ counts, wl_histogram_rule rule)
{
    __shared__ unsigned copies[WARPS * 256];
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    unsigned *copy = copies + warp * 256;
    for (unsigned i = threadIdx.x; i < WARPS * 256; i += BLOCK)
        copies[i] = 0;
    __syncthreads();
    const size_t first = ((size_t)blockIdx.x * WARPS + warp) * 32 + lane;
    const size_t step = (size_t)gridDim.x * BLOCK, trip = LOADS * step;
    const uint4 *v = reinterpret_cast<const uint4 *>(in + head);
    if constexpr (PREFETCH) {
        uint4 x[LOADS];
        load_trip(x, v, first, step, vectors);
        for (size_t base = first; base < vectors; base += trip) {
            uint4 next[LOADS];
            load_trip(next, v, base + trip, step, vectors);
#pragma unroll
            for (int k = 0; k < LOADS; k++) {
                count_vector(copy, x[k], base + k * step < vectors);
                x[k] = next[k];
            }
        }
    } else {
        for (size_t base = first; base < vectors; base += trip) {
            uint4 x[LOADS];
            load_trip(x, v, base, step, vectors);
#pragma unroll
            for (int k = 0; k < LOADS; k++)
                count_vector(copy, x[k], base + k * step < vectors);
        }
    }
    /* The scalar head and tail: fewer than 32 samples together. */
    const size_t tail = head + vectors * 16, extras = head + (n - tail);
    for (size_t i = first; i < extras; i += step) {
        const size_t at = i < head ? i : tail + (i - head);
        atomicAdd(&copy[in[at]], 1u);
    }
    __syncthreads();
    const unsigned value = threadIdx.x; /* BLOCK == 256 values */
    unsigned total = 0;
#pragma unroll
    for (unsigned c = 0; c < WARPS; c++)
        total += copies[c * 256 + value];
    const int bin = merge_bin<uint8_t>(value, rule);
    wl_pdl_wait(); /* a dependent launch: the counts' reset done */
    if (total && bin >= 0)
        atomicAdd(&counts[bin], total);
}

template <int LOADS, bool PREFETCH>
cudaError_t launch_byte_kernel(const uint8_t *in, size_t n, unsigned *counts,
                               const wl_histogram_rule &rule, unsigned blocks_per_sm, int sms,
                               cudaStream_t stream, bool dependent)
{
    static_assert(BLOCK == 256, "one thread a value in the merge");
    size_t head = 0, vectors = 0;
    vector_split(in, n, &head, &vectors);
    auto kernel = byte_kernel<LOADS, PREFETCH>;
    int fit = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit, kernel, (int)BLOCK, 0) != cudaSuccess ||
        fit < 1)
        fit = 1;
    /* Whole waves of blocks_per_sm (at most what fits), never more than one
     * trip a block of work, at least one block. */
    size_t blocks = (size_t)(sms > 0 ? sms : 1) *
                    (blocks_per_sm < (unsigned)fit ? blocks_per_sm : (unsigned)fit);
    const size_t most =
        ((vectors ? vectors : 1) + (size_t)BLOCK * LOADS - 1) / ((size_t)BLOCK * LOADS);
    blocks = blocks < most ? blocks : most;
    const unsigned grid = (unsigned)(blocks ? blocks : 1);
    return wl_launch_after(dependent, kernel, grid, BLOCK, 0, stream, in, n, head, vectors, counts,
                           rule);
}

/* The kernel for n samples under plan, on a stream whose counts are already
 * zeroed (sms: the device's multiprocessors); dependent: launched as the
 * dependent of the kernel that zeroed them (dependent_launch.cuh). */
inline cudaError_t launch_byte_histogram(const uint8_t *in, size_t n, unsigned *counts,
                                         const wl_histogram_rule &rule, byte_plan plan, int sms,
                                         cudaStream_t stream, bool dependent = false)
{
    const unsigned b = plan.blocks_per_sm;
    if (plan.loads == 4)
        return plan.prefetch
                   ? launch_byte_kernel<4, true>(in, n, counts, rule, b, sms, stream, dependent)
                   : launch_byte_kernel<4, false>(in, n, counts, rule, b, sms, stream, dependent);
    return plan.prefetch
               ? launch_byte_kernel<2, true>(in, n, counts, rule, b, sms, stream, dependent)
               : launch_byte_kernel<2, false>(in, n, counts, rule, b, sms, stream, dependent);
}

} // namespace

#endif
