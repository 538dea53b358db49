/* Rung dispatch: what warplab_histogram runs on cuda (past the course).
 *
 * 8-bit samples: per-lane counters instead of shared atomics. Each lane owns
 * one column of a 64 x 32 word array per warp (8 KiB): value v increments
 * byte v % 4 of word (v / 4, lane). The lane's words sit in bank = lane, so
 * a warp's 32 increments never conflict and need no atomic, whatever the
 * data: uniform and skewed samples cost the same (the atomics' contention
 * is gone, not aggregated away). A byte holds 255, so every 224 samples a
 * lane (7 trips of two 16-byte loads) the warp flushes: lane l sums the
 * bytes of values 8l .. 8l + 7 over the 32 columns (two 16-bit sums per
 * word, reading column (j + l) % 32 at step j, conflict-free), keeps the
 * totals in registers and zeroes the words. At the end the warps add their
 * totals into the block's 256 words, and the block maps the values to bins
 * (CUB's 1-byte path) with one global atomic per non-zero bin.
 *
 * int32 and float: the privatised kernel with 16-byte loads, one copy per
 * warp up to 1024 bins (4 KiB a copy, 32 KiB a block: the copies fit with
 * room for several blocks an SM) and one copy per block above (eight copies
 * no longer fit), and a warp vote in place of the match: when all 32 lanes
 * hold the same bin (skewed data), lane 0 adds 32 in one atomic; otherwise
 * each lane adds its own, with no match instruction on uniform data. Past
 * 12288 bins (a block's 48 KiB) the rung refuses and the library falls back
 * down the ladder (global atomics). */
#include "histogram_rungs.cuh"

namespace
{

constexpr unsigned LANE_BLOCK = 128; /* 4 warps: 32 KiB of lane counters */
constexpr unsigned LANE_WARPS = LANE_BLOCK / 32;
constexpr unsigned LANE_ROWS = 64;       /* 256 values, 4 bytes a word */
constexpr int LANE_TRIPS = 7;            /* 7 x 2 x 16 = 224 samples < 256 */
constexpr unsigned PER_WARP_BINS = 1024; /* per-warp copies up to this */

__device__ inline void lane_add(unsigned *column, unsigned value)
{
    column[(value >> 2) * 32] += 1u << ((value & 3u) * 8u);
}

__device__ inline void lane_add_word(unsigned *column, unsigned word)
{
    lane_add(column, word & 0xffu);
    lane_add(column, (word >> 8) & 0xffu);
    lane_add(column, (word >> 16) & 0xffu);
    lane_add(column, word >> 24);
}

__device__ inline void lane_add_vector(unsigned *column, uint4 v)
{
    lane_add_word(column, v.x);
    lane_add_word(column, v.y);
    lane_add_word(column, v.z);
    lane_add_word(column, v.w);
}

/* Lane l adds the byte counters of values 8l .. 8l + 7 over every column to
 * total[] and zeroes them. The warp must be converged. */
__device__ inline void lane_flush(unsigned *rows, unsigned lane, unsigned total[8])
{
    __syncwarp();
    unsigned even0 = 0, odd0 = 0, even1 = 0, odd1 = 0;
#pragma unroll 8
    for (unsigned j = 0; j < 32; j++) {
        const unsigned column = (j + lane) & 31u;
        unsigned *w0 = &rows[(2 * lane) * 32 + column], *w1 = &rows[(2 * lane + 1) * 32 + column];
        const unsigned a = *w0, b = *w1;
        *w0 = 0;
        *w1 = 0;
        even0 += a & 0x00ff00ffu;
        odd0 += (a >> 8) & 0x00ff00ffu;
        even1 += b & 0x00ff00ffu;
        odd1 += (b >> 8) & 0x00ff00ffu;
    }
    total[0] += even0 & 0xffffu;
    total[2] += even0 >> 16;
    total[1] += odd0 & 0xffffu;
    total[3] += odd0 >> 16;
    total[4] += even1 & 0xffffu;
    total[6] += even1 >> 16;
    total[5] += odd1 & 0xffffu;
    total[7] += odd1 >> 16;
    __syncwarp();
}

__global__ void __launch_bounds__(LANE_BLOCK)
    lane_counters_kernel(const uint8_t *__restrict__ in, size_t n, size_t head, size_t vectors,
                         unsigned *__restrict__ counts, wl_histogram_rule rule)
{
    __shared__ unsigned packed[LANE_WARPS][LANE_ROWS * 32];
    __shared__ unsigned block_counts[256];
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    unsigned *rows = packed[warp], *column = rows + lane;
    for (unsigned i = lane; i < LANE_ROWS * 32; i += 32)
        rows[i] = 0;
    for (unsigned i = threadIdx.x; i < 256; i += LANE_BLOCK)
        block_counts[i] = 0;
    __syncthreads();

    unsigned total[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    const size_t first = ((size_t)blockIdx.x * LANE_WARPS + warp) * 32;
    const size_t step = (size_t)gridDim.x * LANE_BLOCK;
    /* The scalar head and tail first: fewer than 32 bytes, at most one a
     * lane, within the byte counters' room. */
    const size_t tail = head + vectors * 16, extras = head + (n - tail);
    for (size_t base = first; base < extras; base += step) {
        const size_t i = base + lane;
        if (i < extras)
            lane_add(column, in[i < head ? i : tail + (i - head)]);
        lane_flush(rows, lane, total);
    }
    const uint4 *v = reinterpret_cast<const uint4 *>(in + head);
    int trips = 0;
    for (size_t base = first; base < vectors; base += 2 * step) {
        const size_t i0 = base + lane, i1 = base + step + lane;
        uint4 a = make_uint4(0, 0, 0, 0), b = a;
        if (i0 < vectors)
            a = v[i0];
        if (i1 < vectors)
            b = v[i1];
        if (i0 < vectors)
            lane_add_vector(column, a);
        if (i1 < vectors)
            lane_add_vector(column, b);
        if (++trips == LANE_TRIPS) {
            lane_flush(rows, lane, total);
            trips = 0;
        }
    }
    lane_flush(rows, lane, total);
#pragma unroll
    for (unsigned k = 0; k < 8; k++)
        if (total[k])
            atomicAdd(&block_counts[8 * lane + k], total[k]);
    __syncthreads();
    for (unsigned value = threadIdx.x; value < 256; value += LANE_BLOCK) {
        const unsigned count = block_counts[value];
        const int bin = wl_histogram_bin_int((int32_t)value, &rule);
        if (count && bin >= 0)
            atomicAdd(&counts[bin], count);
    }
}

warplab_status run_lane_counters(wl_backend *backend, const wl_launch *launch)
{
    warplab_status status = zero_counts(backend, launch);
    const size_t n = launch->problem->dim[0];
    if (status != WARPLAB_OK || n == 0)
        return status;
    const uint8_t *in = samples_of<uint8_t>(launch);
    size_t head = 0, vectors = 0;
    vector_split(in, n, &head, &vectors);
    const unsigned grid = resident_grid(backend, lane_counters_kernel, LANE_BLOCK, 0,
                                        (size_t)LANE_BLOCK * 2, vectors ? vectors : 1);
    lane_counters_kernel<<<grid, LANE_BLOCK, 0, wl_cuda_stream(backend)>>>(
        in, n, head, vectors, counts_of(launch), wl_histogram_rule_of(launch->problem));
    return WL_CUDA_LAUNCHED(backend, "histogram dispatch (lane counters)");
}

warplab_status dispatch_supports(wl_backend *, const wl_problem *problem, char *reason, size_t len)
{
    if (problem->variant == WL_HISTOGRAM_UINT8)
        return WARPLAB_OK;
    return copies_fit(problem, 1, reason, len);
}

warplab_status dispatch_launch(wl_backend *backend, const wl_launch *launch, void *)
{
    const wl_problem *p = launch->problem;
    if (p->variant == WL_HISTOGRAM_UINT8)
        return run_lane_counters(backend, launch);
    const bool per_warp = p->dim[1] <= PER_WARP_BINS;
    if (p->variant == WL_HISTOGRAM_INT32)
        return per_warp ? run_privatised<int32_t, true, true, AGGREGATE_VOTE>(
                              backend, launch, "histogram dispatch (per-warp copies)")
                        : run_privatised<int32_t, false, true, AGGREGATE_VOTE>(
                              backend, launch, "histogram dispatch (per-block copy)");
    return per_warp ? run_privatised<float, true, true, AGGREGATE_VOTE>(
                          backend, launch, "histogram dispatch (per-warp copies)")
                    : run_privatised<float, false, true, AGGREGATE_VOTE>(
                          backend, launch, "histogram dispatch (per-block copy)");
}

void dispatch_describe(wl_backend *, const wl_launch *launch, char *text, size_t len)
{
    const wl_problem *p = launch->problem;
    wl_format(text, len, "%s",
              p->variant == WL_HISTOGRAM_UINT8 ? "per-lane byte counters"
              : p->dim[1] <= PER_WARP_BINS     ? "per-warp copies, warp vote"
                                               : "per-block copy, warp vote");
}

const wl_impl dispatch_impl = {.ladder = "histogram",
                               .rung = "dispatch",
                               .supports = dispatch_supports,
                               .launch = dispatch_launch,
                               .describe = dispatch_describe};

} // namespace
