/* The 8-bit histogram's grid (src/ladders/histogram/cuda/07_dispatch.cu,
 * BYTE_GRID): the dispatch rung's kernel for 8-bit samples (per-warp copies,
 * 16-byte loads, one atomic of 16 for a one-value vector) at grids of about
 * 1, 2, 4, 8 and 16 trips of two 16-byte loads a lane (capped at the blocks
 * that fit at once), against cub::DeviceHistogram::HistogramEven, 256 bins,
 * 2^20 .. 2^28 samples, uniform and skewed (every byte 0x5A). Every count is
 * compared with CUB's. Timing: CUDA events around the counts' zeroing and the
 * kernel (as the library runs them) and around CUB's call, L2 flushed (a
 * 512 MiB memset) before every run, the median of 22 runs after 3.
 *
 * Build and run (the CUDA toolkit's CUB):
 *   nvcc -std=c++20 -arch=sm_90 -O3 -Iinclude -Isrc scripts/histogram_u8_grid.cu -o grid && ./grid
 *
 * H200 (132 SMs), the resident grid 1056 blocks: 8 trips, at least 128 blocks
 * is the best or within 3% of it at every size; 2^24 uniform 14.5 us against
 * 19.3 us (resident) and CUB's 14.9 us. */
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
        p[i] = kind == 0   ? (unsigned char)(h >> 7)
               : kind == 1 ? 0x5A
                           : (unsigned char)((i / 37 + seed) & 0xff);
    }
}

template <int AGG>
void launch(const unsigned char *in, size_t n, unsigned *counts, cudaStream_t s, int sms,
            size_t trips = 1)
{
    size_t head, vectors;
    vector_split(in, n, &head, &vectors);
    auto k = privatised_kernel<uint8_t, true, true, AGG>;
    size_t shared = 256 * 4 * WARPS;
    int per = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, k, BLOCK, shared);
    size_t blocks = std::min<size_t>(
        (std::max<size_t>(vectors, 1) + 512 * trips - 1) / (512 * trips), (size_t)sms * per);
    wl_histogram_rule rule = {256, 0, 256, 256, 0.f, 0.f, 0.f};
    cudaMemsetAsync(counts, 0, 1024, s);
    k<<<(unsigned)std::max<size_t>(blocks, 1), BLOCK, shared, s>>>(in, n, head, vectors, counts,
                                                                   rule, 256);
}

int main()
{
    int sms = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    printf("%s, %d SMs\n", prop.name, sms);
    size_t maxn = (size_t)1 << 28;
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
    const size_t trips[] = {1, 2, 4, 8, 16};
    int bad = 0;
    for (int e = 20; e <= 28; e += 2)
        for (int kind = 0; kind < 2; kind++) {
            size_t n = (size_t)1 << e;
            unsigned char *in = buf;
            fill<<<1024, 256>>>(in, n, kind, 777u + e);
            size_t t2 = tb + 1024;
            double t[6];
            for (int which = 0; which < 6; which++) {
                std::vector<float> ms;
                for (int r = 0; r < 25; r++) {
                    cudaMemsetAsync(flush, r, 512u << 20, s);
                    cudaEventRecord(a, s);
                    if (which < 5)
                        launch<AGGREGATE_VECTOR>(in, n, c1, s, sms, trips[which]);
                    else
                        cub::DeviceHistogram::HistogramEven(temp, t2, in, c3, 257, 0, 256, (int)n,
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
                if (which < 5) {
                    std::vector<unsigned> h1(256), h3(256);
                    cub::DeviceHistogram::HistogramEven(temp, t2, in, c3, 257, 0, 256, (int)n, s);
                    cudaMemcpy(h1.data(), c1, 1024, cudaMemcpyDeviceToHost);
                    cudaMemcpy(h3.data(), c3, 1024, cudaMemcpyDeviceToHost);
                    for (int i = 0; i < 256; i++)
                        bad += h1[i] != h3[i];
                }
            }
            printf("2^%d %-7s cub %7.2f us | min trips 1: %7.2f (%.2fx)  2: %7.2f (%.2fx)  4: "
                   "%7.2f (%.2fx)  8: %7.2f (%.2fx)  16: %7.2f (%.2fx)\n",
                   e, kinds[kind], t[5], t[0], t[5] / t[0], t[1], t[5] / t[1], t[2], t[5] / t[2],
                   t[3], t[5] / t[3], t[4], t[5] / t[4]);
        }
    cudaError_t err = cudaDeviceSynchronize();
    printf("%s, bad=%d\n", cudaGetErrorString(err), bad);
    return bad != 0 || err != cudaSuccess;
}
