/* The 8-bit histogram's plan: the dispatch rung's kernel for 8-bit samples
 * (src/ladders/histogram/cuda/byte_histogram.cuh: per-warp copies, 16-byte
 * loads, one atomic of 16 for a one-value vector, whole waves sized to the
 * square root of n, four loads in flight a lane on small grids and there
 * the next trip's loads first) against cub::DeviceHistogram::HistogramEven,
 * 256 bins, uniform and skewed (every byte 0x5A), in these forms, each a
 * memset of the counts and then the kernel:
 *   - "lib": what warplab_histogram runs (launch_byte_histogram under
 *     byte_plan_for(n));
 *   - "old": the grid the library ran before the plan: two loads in flight
 *     a lane, about 8 trips a lane, at least 128 blocks (capped at the
 *     resident grid);
 *   - "no-pf": the plan without the next trip's loads first;
 *   - "pf-all": the plan with them on every grid (two-load grids too);
 *   - "x0.5", "x2": the plan on half and twice its blocks an SM.
 * The tuning set: 2^20, 2^22, 2^24, 2^26 and 2^28 samples. The sizes
 * 3000017, 47000011 and 700000001 (the held-out sizes of `warplab bench
 * api`) are printed after it, marked, and were not used to choose. Every
 * form's counts (after its last timed run) are compared with CUB's.
 * Timing: CUDA events around the form's launches and around CUB's call, L2
 * flushed (a 512 MiB memset) before every run, the median of RUNS runs
 * after 5; ratio = CUB / form; noise = half the interquartile range of
 * CUB's and of lib's times over their medians.
 *
 * Build and run (the CUDA toolkit's CUB):
 *   nvcc -std=c++20 -arch=sm_90 -O3 -Iinclude -Isrc scripts/histogram_u8_grid.cu -o grid && ./grid
 */
#include "ladders/histogram/cuda/byte_histogram.cuh"
#include <algorithm>
#include <cstdio>
#include <cub/device/device_histogram.cuh>
#include <vector>

#include "fill_hash.cuh"

constexpr int RUNS = 40;

__global__ void fill(unsigned char *p, size_t n, int kind, unsigned seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        const unsigned h = fill_hash(i, seed);
        p[i] = kind == 0 ? (unsigned char)(h >> 7) : 0x5A;
    }
}

struct Form {
    const char *name;
    int kind;     /* 0 the plan (changed below), 1 the old grid */
    int prefetch; /* -1 the plan's, 0 off, 1 on */
    double scale; /* of the plan's blocks an SM */
};

static void launch(const Form &f, const unsigned char *in, size_t n, unsigned *counts,
                   cudaStream_t s, int sms)
{
    const wl_histogram_rule rule = {256, 0, 256, 256, 0.f, 0.f, 0.f};
    cudaMemsetAsync(counts, 0, 1024, s);
    if (f.kind == 1) {
        size_t head, vectors;
        vector_split(in, n, &head, &vectors);
        const size_t work = std::max<size_t>(vectors, 1);
        auto k = byte_kernel<2, false>;
        int per = 0;
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, k, BLOCK, 0);
        const size_t full = (size_t)sms * per;
        const size_t all = std::min<size_t>((work + 511) / 512, full);
        const size_t fewer = std::min<size_t>((work + 4095) / 4096, full);
        const unsigned grid = (unsigned)std::max<size_t>(fewer, std::min<size_t>(all, 128));
        k<<<grid, BLOCK, 0, s>>>(in, n, head, vectors, counts, rule);
        return;
    }
    byte_plan plan = byte_plan_for(n);
    plan.blocks_per_sm = std::max(1u, (unsigned)(plan.blocks_per_sm * f.scale + 0.5));
    if (f.prefetch >= 0)
        plan.prefetch = f.prefetch != 0;
    launch_byte_histogram(in, n, counts, rule, plan, sms, s);
}

static double median(std::vector<float> t)
{
    std::sort(t.begin(), t.end());
    return t[t.size() / 2] * 1000.0;
}

/* Half the interquartile range over the median. */
static double noise(std::vector<float> t)
{
    std::sort(t.begin(), t.end());
    const size_t m = t.size();
    return (t[(3 * m) / 4] - t[m / 4]) / 2.0 / t[m / 2];
}

int main()
{
    int sms = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    printf("%s, %d SMs; ratio = CUB / form (> 1: the form is faster); median of %d\n", prop.name,
           sms, RUNS);
    const Form forms[] = {{"lib", 0, -1, 1.0},   {"old", 1, -1, 1.0},  {"no-pf", 0, 0, 1.0},
                          {"pf-all", 0, 1, 1.0}, {"x0.5", 0, -1, 0.5}, {"x2", 0, -1, 2.0}};
    const int nforms = (int)(sizeof forms / sizeof forms[0]);
    const size_t maxn = 700000001;
    unsigned char *buf, *flush;
    unsigned *c1, *c3;
    void *temp;
    size_t tb = 0;
    cudaMalloc(&buf, maxn + 64);
    cudaMalloc(&flush, 512u << 20);
    cudaMalloc(&c1, 1024);
    cudaMalloc(&c3, 1024);
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
            std::vector<std::vector<float>> t(nforms + 1);
            std::vector<unsigned> h1(256), h3(256);
            cub::DeviceHistogram::HistogramEven(temp, t2, buf, c3, 257, 0, 256, (int)n, s);
            cudaMemcpy(h3.data(), c3, 1024, cudaMemcpyDeviceToHost);
            /* The forms and CUB interleaved run by run, so drift hits all alike. */
            for (int r = 0; r < RUNS + 5; r++)
                for (int which = 0; which <= nforms; which++) {
                    cudaMemsetAsync(flush, r, 512u << 20, s);
                    cudaEventRecord(a, s);
                    if (which < nforms)
                        launch(forms[which], buf, n, c1, s, sms);
                    else
                        cub::DeviceHistogram::HistogramEven(temp, t2, buf, c3, 257, 0, 256, (int)n,
                                                            s);
                    cudaEventRecord(b, s);
                    cudaEventSynchronize(b);
                    float x;
                    cudaEventElapsedTime(&x, a, b);
                    if (r >= 5)
                        t[which].push_back(x);
                    if (which < nforms && r == RUNS + 4) {
                        cudaMemcpy(h1.data(), c1, 1024, cudaMemcpyDeviceToHost);
                        for (int i = 0; i < 256; i++)
                            bad += h1[i] != h3[i];
                    }
                }
            const double cub = median(t[nforms]);
            const byte_plan plan = byte_plan_for(n);
            printf("%10zu %-7s plan %u/SM L%d%s | cub %8.2f us +-%.1f%% |", n, kinds[kind],
                   plan.blocks_per_sm, plan.loads, plan.prefetch ? " pf" : "", cub,
                   100.0 * noise(t[nforms]));
            for (int f = 0; f < nforms; f++) {
                const double m = median(t[f]);
                printf(" %s %.2f (%.3f)", forms[f].name, m, cub / m);
                if (f == 0)
                    printf(" +-%.1f%%", 100.0 * noise(t[f]));
                printf(" |");
            }
            printf("\n");
            fflush(stdout);
        }
    cudaError_t err = cudaDeviceSynchronize();
    printf("%s, bad=%d\n", cudaGetErrorString(err), bad);
    return bad != 0 || err != cudaSuccess;
}
