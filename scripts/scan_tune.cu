/* The scan ladder's bulk pass (src/ladders/scan/cuda/bulk_pass.cuh) in several shapes against
 * cub::DeviceScan::InclusiveSum and a copy of the same bytes: int32 inclusive sums (float with
 * -DTUNE_FLOAT, fewer variants), each variant's result compared on the device with CUB's (WRONG
 * printed on any difference; floats within 1e-3 of CUB's, summed in another order), then timed
 * with events, L2 flushed (a 256 MiB memset) before each run, the median of 41 runs up to 2^23
 * elements and of 15 above; CUB timed before and after the variants. The tuning set is 2^20,
 * 2^22, 2^24 and 2^28: bulk_pipeline's two rings and the switch between them
 * (11_bulk_pipeline.cu) were fitted on it; other sizes given on the command line judge them.
 *   nvcc -std=c++20 -arch=sm_90 -O3 -I include -I src -o /tmp/scan_tune scripts/scan_tune.cu
 *   /tmp/scan_tune                 # the even powers of two from 2^10 to 2^30
 *   /tmp/scan_tune 2^21 3000017    # the sizes named (2^k or decimal) */
#include "ladders/scan/cuda/bulk_pass.cuh"
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
static unsigned long long *mismatches;
static int sms;
static int timed_runs = 15; /* 41 up to 2^23 elements, where the runs' spread is widest */
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
    for (int i = 0; i < timed_runs; i++) {
        flush();
        cudaEventRecord(a);
        f();
        cudaEventRecord(b);
        cudaEventSynchronize(b);
        float ms;
        cudaEventElapsedTime(&ms, a, b);
        t.push_back(ms);
    }
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    std::sort(t.begin(), t.end());
    return t[t.size() / 2] * 1e3;
}
template <typename T>
__global__ void count_diff(const T *a, const T *b, size_t n, unsigned long long *bad)
{
    unsigned long long mine = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        mine += sizeof(T) == 4 && T(0.5) == T(0)
                    ? a[i] != b[i]
                    : !(fabs((double)a[i] - (double)b[i]) <= 1e-3 * fabs((double)b[i]));
    if (mine)
        atomicAdd(bad, mine);
}
template <typename T> static unsigned long long differ(const T *a, const T *b, size_t n)
{
    CK(cudaMemset(mismatches, 0, 8));
    count_diff<<<1024, 256>>>(a, b, n, mismatches);
    unsigned long long bad;
    CK(cudaMemcpy(&bad, mismatches, 8, cudaMemcpyDeviceToHost));
    return bad;
}
static double copy_us_at;
static void report(const char *name, double us, unsigned long long bad, int per_sm)
{
    if (per_sm)
        printf("  %-44s %10.2f us %6.1f%% of copy  %d/SM %s\n", name, us, 100 * copy_us_at / us,
               per_sm, bad ? "WRONG" : "");
    else
        printf("  %-44s %10.2f us %6.1f%% of copy  %s\n", name, us, 100 * copy_us_at / us,
               bad ? "WRONG" : "");
}
/* The bulk pass: persistent blocks, tiles staged by the copy engine. */
template <typename T, unsigned TH, unsigned ST, unsigned STAGES, bool SPLIT, bool REG = false,
          unsigned SL = 32>
void run_bulk(const char *name, const T *in, T *out, size_t n, unsigned char *scratch, const T *ref)
{
    using P = BulkPass<TH, ST, STAGES, SPLIT, REG>;
    const size_t tiles = P::template tiles<T>(n);
    auto kernel = bulk_pass_kernel<T, ScanSum, TH, ST, STAGES, SPLIT, SL, REG>;
    static std::atomic<int> cached[BULK_DEVICES];
    int per_sm = 0;
    CK(bulk_blocks_per_sm(kernel, P::BLOCK, P::template shared_bytes<T>(), 0, cached, &per_sm));
    size_t grid = std::min((size_t)sms * per_sm, tiles);
    auto f = [&]() {
        cudaMemsetAsync(scratch, 0, TICKET_BYTES + TileFlags<T>::status_bytes(tiles));
        kernel<<<(unsigned)grid, P::BLOCK, P::template shared_bytes<T>()>>>(in, out, n, false, true,
                                                                            scratch, tiles);
    };
    CK(cudaMemset(out, 0xff, n * sizeof(T)));
    f();
    CK(cudaDeviceSynchronize());
    CK(cudaGetLastError());
    const unsigned long long bad = differ(out, ref, n);
    report(name, time_it(f), bad, per_sm);
}
template <typename T> __global__ void fill(T *x, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        const unsigned h = (unsigned)(i * 2654435761u) >> 7;
        if constexpr (sizeof(T) == 4 && T(0.5) == T(0))
            x[i] = (T)h;
        else
            x[i] = (T)(1 + (h & 1023) / 1024.0); /* small integers' worth: sums exact-ish */
    }
}
template <typename T> void sweep(size_t n)
{
    timed_runs = n <= ((size_t)1 << 23) ? 41 : 15;
    T *in, *out, *ref;
    unsigned char *scratch, *temp;
    size_t tb = 0;
    CK(cudaMalloc(&in, n * sizeof(T)));
    CK(cudaMalloc(&out, n * sizeof(T)));
    CK(cudaMalloc(&ref, n * sizeof(T)));
    CK(cudaMalloc(&scratch, (n / 512 + 1) * 8 + 4096));
    fill<<<1024, 256>>>(in, n);
    CK(cub::DeviceScan::InclusiveSum(nullptr, tb, in, ref, n));
    CK(cudaMalloc(&temp, tb));
    CK(cub::DeviceScan::InclusiveSum(temp, tb, in, ref, n));
    CK(cudaDeviceSynchronize());
    printf("%s n = %zu (2^%.2f)\n", sizeof(T) == 4 && T(0.5) == T(0) ? "int32" : "float", n,
           std::log2((double)n));
    copy_us_at =
        time_it([&]() { cudaMemcpyAsync(out, in, n * sizeof(T), cudaMemcpyDeviceToDevice); });
    const double cub_us = time_it([&]() { cub::DeviceScan::InclusiveSum(temp, tb, in, ref, n); });
    report("copy", copy_us_at, 0, 0);
    report("cub InclusiveSum", cub_us, 0, 0);
    run_bulk<T, 128, 8, 3, false>("small ring (128x8, 3, 1 loader)", in, out, n, scratch, ref);
    run_bulk<T, 128, 8, 4, true>("large ring (128x8, 4, 2 loaders)", in, out, n, scratch, ref);
    run_bulk<T, 128, 8, 3, false, true>("reg small ring (128x8, 3, 1 loader)", in, out, n, scratch,
                                        ref);
    run_bulk<T, 128, 8, 4, true, true>("reg large ring (128x8, 4, 2 loaders)", in, out, n, scratch,
                                       ref);
    run_bulk<T, 256, 8, 3, true, true>("reg 256x8 (32K), 3, 2 loaders", in, out, n, scratch, ref);
    run_bulk<T, 128, 4, 3, false, true>("reg 128x4 (8K), 3, 1 loader", in, out, n, scratch, ref);
#ifndef TUNE_FLOAT
    run_bulk<T, 192, 8, 3, true>("ring 192x8 (24K), 3, 2 loaders", in, out, n, scratch, ref);
    run_bulk<T, 256, 8, 3, true>("ring 256x8 (32K), 3, 2 loaders", in, out, n, scratch, ref);
    run_bulk<T, 192, 8, 3, true, true>("reg 192x8 (24K), 3, 2 loaders", in, out, n, scratch, ref);
    run_bulk<T, 128, 8, 6, true, true>("reg 128x8, 6, 2 loaders", in, out, n, scratch, ref);
    run_bulk<T, 128, 4, 3, false>("ring 128x4 (8K), 3, 1 loader", in, out, n, scratch, ref);
    run_bulk<T, 128, 4, 4, true, true>("reg 128x4 (8K), 4, 2 loaders", in, out, n, scratch, ref);
#endif
    report("cub InclusiveSum (again)",
           time_it([&]() { cub::DeviceScan::InclusiveSum(temp, tb, in, ref, n); }), 0, 0);
    CK(cudaFree(in));
    CK(cudaFree(out));
    CK(cudaFree(ref));
    CK(cudaFree(scratch));
    CK(cudaFree(temp));
}
static size_t parse(const char *s)
{
    if (s[0] == '2' && s[1] == '^')
        return (size_t)1 << atoi(s + 2);
    return (size_t)strtoull(s, nullptr, 10);
}
int main(int argc, char **argv)
{
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, 0));
    sms = p.multiProcessorCount;
    printf("%s, %d SMs\n", p.name, sms);
    CK(cudaMalloc(&flush_buf, 256 << 20));
    CK(cudaMalloc(&mismatches, 8));
    std::vector<size_t> sizes;
    for (int i = 1; i < argc; i++)
        sizes.push_back(parse(argv[i]));
    if (sizes.empty())
        for (int k = 10; k <= 30; k += 2)
            sizes.push_back((size_t)1 << k);
    for (size_t n : sizes) {
#ifdef TUNE_FLOAT
        sweep<float>(n);
#else
        sweep<int>(n);
#endif
    }
}
