/* The 8-bit histogram's grid, loads and finish: the dispatch rung's kernel
 * for 8-bit samples (per-warp copies, 16-byte loads, one atomic of 16 for a
 * one-value vector) against cub::DeviceHistogram::HistogramEven, 256 bins,
 * uniform and skewed (every byte 0x5A), in these forms:
 *   - "lib": what warplab_histogram runs (07_dispatch.cu, BYTE_GRID): a
 *     memset of the counts, then the kernel with two loads in flight a lane
 *     on a grid of about 8 trips a lane and at least 128 blocks (capped at
 *     the resident grid);
 *   - "plan": the plan in histogram_rungs.cuh (byte_blocks_per_sm blocks an
 *     SM in whole waves; 4 loads a lane up to BYTE_WIDE_MOST_BLOCKS blocks an
 *     SM, else 2), memset first;
 *   - "plan L2": the plan's grid with two loads a lane;
 *   - "L4 x0.5", "L4 x2": four loads a lane on half and twice its blocks;
 *   - "1L s16": the one-launch finish (FINISH_ONE_LAUNCH: no memset; 16
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
#include <cstdio>
#include <cub/device/device_histogram.cuh>
#include <vector>

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
    int loads;    /* 0: the library's pick */
    double scale; /* of byte_blocks_per_sm */
};

static wl_backend fake_backend; /* only info.multiprocessors is read (wave_grid) */

template <int FINISH, int LOADS>
static void run_form(const unsigned char *in, size_t n, unsigned *counts, unsigned *scratch,
                     cudaStream_t s, unsigned per_sm_blocks)
{
    size_t head, vectors;
    vector_split(in, n, &head, &vectors);
    const size_t shared = 256 * 4 * WARPS, work = std::max<size_t>(vectors, 1);
    const wl_histogram_rule rule = {256, 0, 256, 256, 0.f, 0.f, 0.f};
    auto k = privatised_kernel<uint8_t, true, true, AGGREGATE_VECTOR, FINISH, LOADS>;
    const unsigned grid =
        wave_grid(&fake_backend, k, shared, (size_t)BLOCK * LOADS, work, per_sm_blocks);
    one_launch_scratch fin = {nullptr, nullptr, 1};
    if (FINISH == FINISH_ONE_LAUNCH)
        fin = {scratch, scratch + ONE_LAUNCH_TICKET_BYTES / 4, 16};
    else
        cudaMemsetAsync(counts, 0, 1024, s);
    k<<<grid, BLOCK, shared, s>>>(in, n, head, vectors, counts, rule, 256, fin);
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
        k<<<grid, BLOCK, shared, s>>>(in, n, head, vectors, counts, rule, 256,
                                      one_launch_scratch{nullptr, nullptr, 1});
        return;
    }
    const unsigned lib = byte_blocks_per_sm(n);
    const unsigned blocks = std::max(1u, (unsigned)(lib * f.scale + 0.5));
    const int loads = f.loads ? f.loads : lib <= BYTE_WIDE_MOST_BLOCKS ? 4 : 2;
    if (f.kind == 2)
        run_form<FINISH_ONE_LAUNCH, 2>(in, n, counts, scratch, s, blocks);
    else if (loads == 4)
        run_form<FINISH_ATOMIC, 4>(in, n, counts, scratch, s, blocks);
    else
        run_form<FINISH_ATOMIC, 2>(in, n, counts, scratch, s, blocks);
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
