/* The 8-bit histogram's grid, loads and finish: the dispatch rung's kernel
 * for 8-bit samples (src/ladders/histogram/cuda: per-warp copies, 16-byte
 * loads, one atomic of 16 for a one-value vector) and this script's variant
 * of it (byte_plan_kernel: LOADS loads in flight a lane, and an optional
 * one-launch finish) against cub::DeviceHistogram::HistogramEven, 256 bins,
 * uniform and skewed (every byte 0x5A), in these forms:
 *   - "lib": what warplab_histogram runs (07_dispatch.cu, BYTE_GRID): a
 *     memset of the counts, then the kernel with two loads in flight a lane
 *     on a grid of about 8 trips a lane and at least 128 blocks (capped at
 *     the resident grid);
 *   - "plan": the plan below (byte_blocks_per_sm blocks an
 *     SM in whole waves; 4 loads a lane up to BYTE_WIDE_MOST_BLOCKS blocks an
 *     SM, else 2), memset first;
 *   - "plan L2": the plan's grid with two loads a lane;
 *   - "L4 x0.5", "L4 x2": four loads a lane on half and twice its blocks;
 *   - "1L s16": the one-launch finish (ONE_LAUNCH: no memset; 16
 *     spread copies in a workspace, the last block writes the counts) on
 *     the plan's grid.
 * The tuning set: 2^20, 2^22, 2^24, 2^26 and 2^28 samples. The sizes
 * 3000017, 47000011 and 700000001 (the held-out sizes of `warplab bench
 * api`) are printed after it, marked, and were not used to choose. Every
 * form's counts (after its last timed run; for the one-launch form the
 * workspace's reset is so checked 25 times over) are compared with CUB's.
 * Timing: CUDA events around the form's launches and around CUB's call, L2
 * flushed (a 512 MiB memset) before every run, the median of 22 runs after
 * 3; ratio = CUB / form.
 *
 * Build and run (the CUDA toolkit's CUB):
 *   nvcc -std=c++20 -arch=sm_90 -O3 -Iinclude -Isrc scripts/histogram_u8_grid.cu -o grid && ./grid
 */
#include "ladders/histogram/cuda/histogram_rungs.cuh"
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cub/device/device_histogram.cuh>
#include <vector>

/* The one-launch finish (not taken by the library: DECISIONS.md,
 * "Histogram"): every block adds its 256 sums to one of `spread` copies in
 * a workspace that is all zero at the launch; the last block to take a
 * ticket (after a __threadfence) folds the copies into the counts, writing
 * every bin, and leaves the copies and the ticket at zero for the next
 * launch. No memset, one launch instead of two; the spread copies put the
 * blocks' adds on several cache lines instead of the counts' few. */
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

/* The dispatch rung's 8-bit kernel (privatised_kernel<uint8_t, true, true,
 * AGGREGATE_VECTOR>) with LOADS vectors in flight a lane, all loaded before
 * any is counted, and the finish: the global adds after a memset, or (ONE_LAUNCH)
 * the adds into the spread copies and the last block's fold. */
template <int LOADS, bool ONE_LAUNCH>
__global__ void __launch_bounds__(BLOCK)
    byte_plan_kernel(const uint8_t *__restrict__ in, size_t n, size_t head, size_t vectors,
                     unsigned *__restrict__ counts, wl_histogram_rule rule,
                     one_launch_scratch scratch)
{
    __shared__ unsigned copies[WARPS * 256];
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    unsigned *copy = copies + warp * 256;
    for (unsigned i = threadIdx.x; i < WARPS * 256; i += BLOCK)
        copies[i] = 0;
    __syncthreads();
    const size_t first = ((size_t)blockIdx.x * WARPS + warp) * 32;
    const size_t step = (size_t)gridDim.x * BLOCK;
    const uint4 *v = reinterpret_cast<const uint4 *>(in + head);
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
        for (int k = 0; k < LOADS; k++)
            count_vector(copy, x[k], base + k * step + lane < vectors);
    }
    const size_t tail = head + vectors * 16, extras = head + (n - tail);
    for (size_t base = first; base < extras; base += step) {
        const size_t i = base + lane;
        const size_t at = i < head ? i : tail + (i - head);
        count_bin<AGGREGATE_NONE>(copy, i < extras ? private_bin(in[at], rule) : -1, lane);
    }
    __syncthreads();
    const unsigned value = threadIdx.x;
    unsigned total = 0;
#pragma unroll
    for (unsigned c = 0; c < WARPS; c++)
        total += copies[c * 256 + value];
    if (!ONE_LAUNCH) {
        const int bin = merge_bin<uint8_t>(value, rule);
        if (total && bin >= 0)
            atomicAdd(&counts[bin], total);
        return;
    }
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
    total = 0;
    for (unsigned c = 0; c < scratch.spread; c++) {
        total += __ldcg(&scratch.copies[c * 256 + value]);
        scratch.copies[c * 256 + value] = 0;
    }
    unsigned *fold = copies; /* read above the last two barriers */
    for (unsigned b = threadIdx.x; b < rule.bins; b += BLOCK)
        fold[b] = 0;
    __syncthreads();
    const int bin = merge_bin<uint8_t>(value, rule);
    if (total && bin >= 0)
        atomicAdd(&fold[bin], total);
    __syncthreads();
    for (unsigned b = threadIdx.x; b < rule.bins; b += BLOCK)
        counts[b] = fold[b];
    if (threadIdx.x == 0)
        *scratch.ticket = 0;
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

/* The plan this script times against the dispatch rung's (07_dispatch.cu,
 * BYTE_GRID): whole waves sized to n and, on small grids, four loads in
 * flight a lane. Not yet the library's: measured only in its parts (the
 * grids with two loads), not as a whole. Constants from this script's
 * tuning set (2^20, 2^22, 2^24, 2^26 and 2^28
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

__global__ void fill(unsigned char *p, size_t n, int kind, unsigned seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        unsigned h = (unsigned)i * 2654435761u ^ seed;
        h ^= h >> 15;
        h *= 2246822519u;
        h ^= h >> 13;
        p[i] = kind == 0 ? (unsigned char)(h >> 7) : 0x5A;
    }
}

struct Form {
    const char *name;
    int kind;     /* 0 the library's, 1 two-launch, 2 one-launch */
    int loads;    /* 0: the plan's pick */
    double scale; /* of byte_blocks_per_sm */
};

static wl_backend fake_backend; /* only info.multiprocessors is read (wave_grid) */

template <int LOADS, bool ONE_LAUNCH>
static void run_form(const unsigned char *in, size_t n, unsigned *counts, unsigned *scratch,
                     cudaStream_t s, unsigned per_sm_blocks)
{
    size_t head, vectors;
    vector_split(in, n, &head, &vectors);
    const size_t work = std::max<size_t>(vectors, 1);
    const wl_histogram_rule rule = {256, 0, 256, 256, 0.f, 0.f, 0.f};
    auto k = byte_plan_kernel<LOADS, ONE_LAUNCH>;
    const unsigned grid =
        wave_grid(&fake_backend, k, 0, (size_t)BLOCK * LOADS, work, per_sm_blocks);
    one_launch_scratch fin = {nullptr, nullptr, 1};
    if (ONE_LAUNCH)
        fin = {scratch, scratch + ONE_LAUNCH_TICKET_BYTES / 4, 16};
    else
        cudaMemsetAsync(counts, 0, 1024, s);
    k<<<grid, BLOCK, 0, s>>>(in, n, head, vectors, counts, rule, fin);
}

static void launch(const Form &f, const unsigned char *in, size_t n, unsigned *counts,
                   unsigned *scratch, cudaStream_t s, int sms)
{
    if (f.kind == 0) {
        size_t head, vectors;
        vector_split(in, n, &head, &vectors);
        const size_t shared = 256 * 4 * WARPS, work = std::max<size_t>(vectors, 1);
        auto k = privatised_kernel<uint8_t, true, true, AGGREGATE_VECTOR>;
        int per = 0;
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, k, BLOCK, shared);
        const size_t full = (size_t)sms * per;
        const size_t all = std::min<size_t>((work + 511) / 512, full);
        const size_t fewer = std::min<size_t>((work + 4095) / 4096, full);
        const unsigned grid = (unsigned)std::max<size_t>(fewer, std::min<size_t>(all, 128));
        const wl_histogram_rule rule = {256, 0, 256, 256, 0.f, 0.f, 0.f};
        cudaMemsetAsync(counts, 0, 1024, s);
        k<<<grid, BLOCK, shared, s>>>(in, n, head, vectors, counts, rule, 256);
        return;
    }
    const unsigned lib = byte_blocks_per_sm(n);
    const unsigned blocks = std::max(1u, (unsigned)(lib * f.scale + 0.5));
    const int loads = f.loads ? f.loads : lib <= BYTE_WIDE_MOST_BLOCKS ? 4 : 2;
    if (f.kind == 2)
        run_form<2, true>(in, n, counts, scratch, s, blocks);
    else if (loads == 4)
        run_form<4, false>(in, n, counts, scratch, s, blocks);
    else
        run_form<2, false>(in, n, counts, scratch, s, blocks);
}

int main()
{
    int sms = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    fake_backend.info.multiprocessors = sms;
    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    printf("%s, %d SMs; ratio = CUB / form (> 1: the form is faster)\n", prop.name, sms);
    const Form forms[] = {{"lib", 0, 2, 1.0},     {"plan", 1, 0, 1.0},  {"plan L2", 1, 2, 1.0},
                          {"L4 x0.5", 1, 4, 0.5}, {"L4 x2", 1, 4, 2.0}, {"1L s16", 2, 2, 1.0}};
    const int nforms = (int)(sizeof forms / sizeof forms[0]);
    const size_t maxn = 700000001;
    unsigned char *buf, *flush;
    unsigned *c1, *c3, *scratch;
    void *temp;
    size_t tb = 0;
    cudaMalloc(&buf, maxn + 64);
    cudaMalloc(&flush, 512u << 20);
    cudaMalloc(&c1, 1024);
    cudaMalloc(&c3, 1024);
    cudaMalloc(&scratch, one_launch_scratch_bytes(16));
    cudaMemset(scratch, 0, one_launch_scratch_bytes(16));
    cub::DeviceHistogram::HistogramEven(nullptr, tb, buf, c3, 257, 0, 256, (int)maxn);
    cudaMalloc(&temp, tb + 1024);
    cudaStream_t s = 0;
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    const char *kinds[] = {"uniform", "skewed"};
    const size_t sizes[] = {1u << 20, 1u << 22, 1u << 24, 1u << 26,
                            1u << 28, 3000017,  47000011, 700000001};
    int bad = 0;
    for (int si = 0; si < 8; si++)
        for (int kind = 0; kind < 2; kind++) {
            const size_t n = sizes[si];
            if (si == 5 && kind == 0)
                printf("held out (not used to choose):\n");
            fill<<<1024, 256>>>(buf, n, kind, 777u + (unsigned)si);
            size_t t2 = tb + 1024;
            std::vector<double> t(nforms + 1);
            std::vector<unsigned> h1(256), h3(256);
            cub::DeviceHistogram::HistogramEven(temp, t2, buf, c3, 257, 0, 256, (int)n, s);
            cudaMemcpy(h3.data(), c3, 1024, cudaMemcpyDeviceToHost);
            for (int which = 0; which <= nforms; which++) {
                std::vector<float> ms;
                for (int r = 0; r < 25; r++) {
                    cudaMemsetAsync(flush, r, 512u << 20, s);
                    cudaEventRecord(a, s);
                    if (which < nforms)
                        launch(forms[which], buf, n, c1, scratch, s, sms);
                    else
                        cub::DeviceHistogram::HistogramEven(temp, t2, buf, c3, 257, 0, 256, (int)n,
                                                            s);
                    cudaEventRecord(b, s);
                    cudaEventSynchronize(b);
                    float x;
                    cudaEventElapsedTime(&x, a, b);
                    if (r >= 3)
                        ms.push_back(x);
                }
                std::sort(ms.begin(), ms.end());
                t[which] = ms[ms.size() / 2] * 1000.0;
                if (which < nforms) {
                    cudaMemcpy(h1.data(), c1, 1024, cudaMemcpyDeviceToHost);
                    for (int i = 0; i < 256; i++)
                        bad += h1[i] != h3[i];
                }
            }
            printf("%10zu %-7s cub %8.2f us |", n, kinds[kind], t[nforms]);
            for (int f = 0; f < nforms; f++)
                printf(" %s %.2f (%.3f) |", forms[f].name, t[f], t[nforms] / t[f]);
            printf("\n");
            fflush(stdout);
        }
    cudaError_t err = cudaDeviceSynchronize();
    printf("%s, bad=%d\n", cudaGetErrorString(err), bad);
    return bad != 0 || err != cudaSuccess;
}
