/* Rung dispatch: what warplab_histogram runs on cuda (past the course).
 *
 * 8-bit samples: per-lane counters instead of shared atomics, and per-lane
 * run-length aggregation. Each lane owns one column of a 128 x 32 word array
 * per warp (16 KiB): value v adds to the 16-bit half v % 2 of word (v / 2,
 * lane). A lane's words all sit in bank = lane, so the warp's 32
 * read-add-writes never conflict and need no atomic, uniform data or skewed.
 * On the rungs below, the shared-memory atomics are what bounds the 8-bit
 * histogram on an H200 (vector_loads: the same time on uniform and skewed
 * data); a plain load and store are cheaper than one atomic there. Each lane
 * also keeps its current run (value, length) in registers, as CUB's 8-bit
 * path does per thread, and writes it only when the value changes: skewed
 * data then touches shared memory once per run instead of once per sample.
 * Every 65472 samples a lane (1023 trips of four 16-byte loads) the warp
 * flushes before a 16-bit half can wrap: lane l sums the counters of values
 * 8l .. 8l + 7 over the 32 columns (reading column (j + l) % 32 at step j,
 * conflict-free) into registers and zeroes them. At the end the warps add
 * their totals into the block's 256 words, and the block maps the values to
 * bins (CUB's 1-byte path) with one global atomic per non-zero bin.
 *
 * int32 and float: the privatised kernel with 16-byte loads and plain
 * shared atomics, one copy per warp up to 1024 bins and one per block above
 * (eight copies no longer fit), up to 12288 bins (a block's 48 KiB); past
 * that the rung refuses and the library falls back down the ladder (global
 * atomics). No aggregation: on an H200 the vote and the match cost more than
 * the same-bin atomics they save (run_aggregate and the vote measured against
 * vector_loads, uniform and skewed). */
#include "histogram_rungs.cuh"

namespace
{

constexpr unsigned LANE_BLOCK = 64; /* 2 warps: 32 KiB of lane counters */
constexpr unsigned LANE_WARPS = LANE_BLOCK / 32;
constexpr unsigned LANE_ROWS = 128;      /* 256 values, two 16-bit counters a word */
constexpr unsigned LANE_LOADS = 4;       /* 16-byte loads in flight a lane */
constexpr int LANE_TRIPS = 1023;         /* 1023 x 4 x 16 = 65472 samples < 65536 */
constexpr unsigned PER_WARP_BINS = 1024; /* per-warp copies up to this */

/* A lane's counters: its column of the warp's rows, and its open run. */
struct lane_state {
    unsigned *column;
    unsigned value, length;
};

__device__ inline void lane_add(unsigned *column, unsigned value, unsigned count)
{
    column[(value >> 1) * 32] += count << ((value & 1u) * 16u);
}

/* One sample into the open run, or the run written and a new one opened. */
__device__ inline void lane_sample(lane_state &lane, unsigned value)
{
    if (value != lane.value) {
        if (lane.length)
            lane_add(lane.column, lane.value, lane.length);
        lane.value = value;
        lane.length = 0;
    }
    lane.length++;
}

__device__ inline void lane_word(lane_state &lane, unsigned word)
{
    lane_sample(lane, word & 0xffu);
    lane_sample(lane, (word >> 8) & 0xffu);
    lane_sample(lane, (word >> 16) & 0xffu);
    lane_sample(lane, word >> 24);
}

__device__ inline void lane_vector(lane_state &lane, uint4 v)
{
    lane_word(lane, v.x);
    lane_word(lane, v.y);
    lane_word(lane, v.z);
    lane_word(lane, v.w);
}

/* Writes the open run, then lane l adds the counters of values 8l .. 8l + 7
 * over every column to total[] and zeroes them. The warp must be
 * converged. */
__device__ inline void lane_flush(unsigned *rows, lane_state &lane, unsigned lane_id,
                                  unsigned total[8])
{
    if (lane.length)
        lane_add(lane.column, lane.value, lane.length);
    lane.length = 0;
    __syncwarp();
#pragma unroll 4
    for (unsigned j = 0; j < 32; j++) {
        const unsigned column = (j + lane_id) & 31u;
#pragma unroll
        for (unsigned k = 0; k < 4; k++) {
            unsigned *word = &rows[(4 * lane_id + k) * 32 + column];
            const unsigned w = *word;
            *word = 0;
            total[2 * k] += w & 0xffffu;
            total[2 * k + 1] += w >> 16;
        }
    }
    __syncwarp();
}

__global__ void __launch_bounds__(LANE_BLOCK)
    lane_counters_kernel(const uint8_t *__restrict__ in, size_t n, size_t head, size_t vectors,
                         unsigned *__restrict__ counts, wl_histogram_rule rule)
{
    __shared__ unsigned packed[LANE_WARPS][LANE_ROWS * 32];
    __shared__ unsigned block_counts[256];
    const unsigned lane_id = threadIdx.x % 32, warp = threadIdx.x / 32;
    unsigned *rows = packed[warp];
    for (unsigned i = lane_id; i < LANE_ROWS * 32; i += 32)
        rows[i] = 0;
    for (unsigned i = threadIdx.x; i < 256; i += LANE_BLOCK)
        block_counts[i] = 0;
    __syncthreads();

    lane_state lane = {rows + lane_id, 0u, 0u};
    unsigned total[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    const size_t first = ((size_t)blockIdx.x * LANE_WARPS + warp) * 32;
    const size_t step = (size_t)gridDim.x * LANE_BLOCK;
    /* The scalar head and tail first: fewer than 32 bytes, at most one a
     * lane. */
    const size_t tail = head + vectors * 16, extras = head + (n - tail);
    for (size_t base = first; base < extras; base += step) {
        const size_t i = base + lane_id;
        if (i < extras)
            lane_sample(lane, in[i < head ? i : tail + (i - head)]);
    }
    const uint4 *v = reinterpret_cast<const uint4 *>(in + head);
    int trips = 0;
    for (size_t base = first; base < vectors; base += LANE_LOADS * step) {
        uint4 loaded[LANE_LOADS];
#pragma unroll
        for (unsigned k = 0; k < LANE_LOADS; k++) {
            const size_t i = base + k * step + lane_id;
            loaded[k] = i < vectors ? v[i] : make_uint4(0, 0, 0, 0);
        }
#pragma unroll
        for (unsigned k = 0; k < LANE_LOADS; k++)
            if (base + k * step + lane_id < vectors)
                lane_vector(lane, loaded[k]);
        if (++trips == LANE_TRIPS) {
            lane_flush(rows, lane, lane_id, total);
            trips = 0;
        }
    }
    lane_flush(rows, lane, lane_id, total);
#pragma unroll
    for (unsigned k = 0; k < 8; k++)
        if (total[k])
            atomicAdd(&block_counts[8 * lane_id + k], total[k]);
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
                                        (size_t)LANE_BLOCK * LANE_LOADS, vectors ? vectors : 1);
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
        return per_warp ? run_privatised<int32_t, true, true, AGGREGATE_NONE>(
                              backend, launch, "histogram dispatch (per-warp copies)")
                        : run_privatised<int32_t, false, true, AGGREGATE_NONE>(
                              backend, launch, "histogram dispatch (per-block copy)");
    return per_warp ? run_privatised<float, true, true, AGGREGATE_NONE>(
                          backend, launch, "histogram dispatch (per-warp copies)")
                    : run_privatised<float, false, true, AGGREGATE_NONE>(
                          backend, launch, "histogram dispatch (per-block copy)");
}

void dispatch_describe(wl_backend *, const wl_launch *launch, char *text, size_t len)
{
    const wl_problem *p = launch->problem;
    wl_format(text, len, "%s",
              p->variant == WL_HISTOGRAM_UINT8 ? "per-lane 16-bit counters, runs"
              : p->dim[1] <= PER_WARP_BINS     ? "per-warp copies"
                                               : "per-block copy");
}

const wl_impl dispatch_impl = {.ladder = "histogram",
                               .rung = "dispatch",
                               .supports = dispatch_supports,
                               .launch = dispatch_launch,
                               .describe = dispatch_describe};

} // namespace
