/* The scan ladder's single-pass kernel (src/ladders/scan/cuda/single_pass.cuh)
 * in several shapes against cub::DeviceScan::InclusiveSum and a copy, int32
 * inclusive sum at 2^20, 2^24 and 2^28: each variant's result compared with
 * CUB's (WRONG printed on any difference), then timed with events, L2
 * flushed (a 256 MiB memset) before each of 15 runs, median. The shapes the
 * vectorized rung's comment and docs/ladders/scan.md quote come from it.
 *   nvcc -std=c++20 -arch=sm_90 -O3 -I include -I src -o /tmp/scan_tune scripts/scan_tune.cu
 *   /tmp/scan_tune */
#include "ladders/scan/cuda/single_pass.cuh"
#include <algorithm>
#include <cstdio>
#include <cub/cub.cuh>
#include <vector>
#define CK(x)                                                                                      \
    do {                                                                                           \
        cudaError_t e = (x);                                                                       \
        if (e) {                                                                                   \
            printf("%s: %s\n", #x, cudaGetErrorString(e));                                         \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)
static unsigned char *flush_buf;
static void flush()
{
    CK(cudaMemsetAsync(flush_buf, 1, 256 << 20));
}
template <typename F> double time_it(F f)
{
    std::vector<float> t;
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    for (int i = 0; i < 3; i++)
        f();
    for (int i = 0; i < 15; i++) {
        flush();
        cudaEventRecord(a);
        f();
        cudaEventRecord(b);
        cudaEventSynchronize(b);
        float ms;
        cudaEventElapsedTime(&ms, a, b);
        t.push_back(ms);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2] * 1e3;
}
template <unsigned TH, unsigned ST, unsigned W, unsigned SL, bool BO, unsigned MB = 1,
          bool STR = false>
double run(const char *name, const int *in, int *out, size_t n, unsigned char *scratch,
           const int *ref)
{
    constexpr size_t ITEMS = (size_t)TH * ST * W;
    const size_t tiles = (n + ITEMS - 1) / ITEMS;
    auto f = [&]() {
        cudaMemsetAsync(scratch, 0, TICKET_BYTES + TileFlags<int>::status_bytes(tiles));
        single_pass_kernel<int, ScanSum, TH, ST, W, false, SL, BO, MB, STR>
            <<<(unsigned)tiles, TH>>>(in, out, n, false, true, scratch, tiles);
    };
    CK(cudaMemset(out, 0, n * 4));
    f();
    CK(cudaDeviceSynchronize());
    std::vector<int> h(n), r(n);
    CK(cudaMemcpy(h.data(), out, n * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(r.data(), ref, n * 4, cudaMemcpyDeviceToHost));
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        bad += h[i] != r[i];
    double us = time_it(f);
    printf("  %-34s %9.2f us  %s\n", name, us, bad ? "WRONG" : "");
    return us;
}
int main()
{
    cudaDeviceProp p;
    cudaGetDeviceProperties(&p, 0);
    printf("%s\n", p.name);
    CK(cudaMalloc(&flush_buf, 256 << 20));
    for (size_t n : {(size_t)1 << 20, (size_t)1 << 24, (size_t)1 << 28}) {
        int *in, *out, *ref;
        unsigned char *scratch, *temp;
        size_t tb = 0;
        CK(cudaMalloc(&in, n * 4));
        CK(cudaMalloc(&out, n * 4));
        CK(cudaMalloc(&ref, n * 4));
        CK(cudaMalloc(&scratch, (n / 512 + 1) * 8 + 4096));
        std::vector<int> h(n);
        for (size_t i = 0; i < n; i++)
            h[i] = (int)(i * 2654435761u >> 7);
        CK(cudaMemcpy(in, h.data(), n * 4, cudaMemcpyHostToDevice));
        cub::DeviceScan::InclusiveSum(nullptr, tb, in, ref, (int)n);
        CK(cudaMalloc(&temp, tb));
        printf("n = 2^%d\n", __builtin_ctzll(n));
        double cub_us =
            time_it([&]() { cub::DeviceScan::InclusiveSum(temp, tb, in, ref, (int)n); });
        double copy_us =
            time_it([&]() { cudaMemcpyAsync(out, in, n * 4, cudaMemcpyDeviceToDevice); });
        printf("  %-34s %9.2f us\n  %-34s %9.2f us\n", "cub InclusiveSum", cub_us, "copy", copy_us);
        run<128, 6, 4, 32, false>("128x6x4 ticket", in, out, n, scratch, ref);
        run<128, 6, 4, 32, false, 12>("128x6x4 ticket mb12", in, out, n, scratch, ref);
        run<128, 6, 4, 32, false, 16>("128x6x4 ticket mb16", in, out, n, scratch, ref);
        run<128, 6, 4, 32, false, 1, true>("128x6x4 ticket stream", in, out, n, scratch, ref);
        run<128, 6, 4, 32, false, 12, true>("128x6x4 ticket mb12 stream", in, out, n, scratch, ref);
        run<128, 6, 4, 0, true, 12, true>("128x6x4 blockIdx mb12 stream", in, out, n, scratch, ref);
        run<128, 6, 4, 0, true, 1>("128x6x4 blockIdx", in, out, n, scratch, ref);
        run<128, 8, 4, 32, false, 8>("128x8x4 ticket mb8", in, out, n, scratch, ref);
        run<128, 8, 4, 32, false, 8, true>("128x8x4 ticket mb8 stream (vectorized)", in, out, n, scratch, ref);
        run<256, 6, 4, 32, false, 6>("256x6x4 ticket mb6", in, out, n, scratch, ref);
        run<128, 4, 4, 32, false, 16>("128x4x4 ticket mb16", in, out, n, scratch, ref);
        run<128, 4, 4, 32, false, 16, true>("128x4x4 ticket mb16 stream", in, out, n, scratch, ref);
        cudaFree(in);
        cudaFree(out);
        cudaFree(ref);
        cudaFree(scratch);
        cudaFree(temp);
    }
}
