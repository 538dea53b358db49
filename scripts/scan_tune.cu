/* The scan ladder's single-pass kernels (src/ladders/scan/cuda/single_pass.cuh,
 * bulk_pass.cuh) in several shapes against cub::DeviceScan::InclusiveSum and
 * a copy of the same bytes: int32 (and float) inclusive sums, each variant's
 * result compared on the device with CUB's (WRONG printed on any
 * difference; floats within 1e-3 of CUB's, summed in another order), then timed with events, L2
 * flushed (a 256 MiB memset) before each of 15 runs, median. The tuning set is the even powers of
 * two from 2^10 to 2^30: the shapes the vectorized and bulk_pipeline rungs' comments and
 * docs/ladders/scan.md quote, and bulk_pipeline's switch between its two rings, come from it;
 * `bench api --size` reports the library's choice on other sizes. nvcc -std=c++20 -arch=sm_90 -O3
 * -I include -I src -o /tmp/scan_tune scripts/scan_tune.cu /tmp/scan_tune            # every size
 * of the set /tmp/scan_tune 2^24 2^30  # the sizes named (2^k or decimal) */
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
/* The register single pass (the vectorized rung's kernel). */
template <typename T, unsigned TH, unsigned ST, unsigned SL, bool BO, unsigned MB, bool STR>
void run_single(const char *name, const T *in, T *out, size_t n, unsigned char *scratch,
                const T *ref)
{
    constexpr unsigned W = 16 / sizeof(T);
    constexpr size_t ITEMS = (size_t)TH * ST * W;
    const size_t tiles = (n + ITEMS - 1) / ITEMS;
    if (tiles > 0x7fffffffu)
        return;
    auto f = [&]() {
        cudaMemsetAsync(scratch, 0, TICKET_BYTES + TileFlags<T>::status_bytes(tiles));
        single_pass_kernel<T, ScanSum, TH, ST, W, false, SL, BO, MB, STR>
            <<<(unsigned)tiles, TH>>>(in, out, n, false, true, scratch, tiles);
    };
    CK(cudaMemset(out, 0xff, n * sizeof(T)));
    f();
    CK(cudaDeviceSynchronize());
    const unsigned long long bad = differ(out, ref, n);
    report(name, time_it(f), bad, 0);
}
/* The bulk pass: persistent blocks, tiles staged by the copy engine. */
template <typename T, unsigned TH, unsigned ST, unsigned STAGES, bool SPLIT, unsigned SL = 32>
void run_bulk(const char *name, const T *in, T *out, size_t n, unsigned char *scratch, const T *ref)
{
    using P = BulkPass<TH, ST, STAGES, SPLIT>;
    const size_t tiles = P::template tiles<T>(n);
    auto kernel = bulk_pass_kernel<T, ScanSum, TH, ST, STAGES, SPLIT, SL>;
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
template <typename T> void sweep(size_t n, bool all)
{
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
    run_single<T, 128, 8, 32, false, 8, true>("vectorized 128x8 ticket mb8 stream", in, out, n,
                                              scratch, ref);
    run_bulk<T, 128, 8, 3, false>("bulk_pipeline small ring (128x8, 3, 1 loader)", in, out, n,
                                  scratch, ref);
    run_bulk<T, 128, 8, 4, true>("bulk_pipeline large ring (128x8, 4, 2 loaders)", in, out, n,
                                 scratch, ref);
    if (all) {
        run_bulk<T, 128, 8, 4, false>("ring 128x8, 4, 1 loader", in, out, n, scratch, ref);
        run_bulk<T, 128, 8, 5, true>("ring 128x8, 5, 2 loaders", in, out, n, scratch, ref);
        run_bulk<T, 128, 6, 4, true>("ring 128x6 (12K), 4, 2 loaders", in, out, n, scratch, ref);
        run_bulk<T, 128, 6, 5, true>("ring 128x6 (12K), 5, 2 loaders", in, out, n, scratch, ref);
        run_bulk<T, 192, 8, 3, true>("ring 192x8 (24K), 3, 2 loaders", in, out, n, scratch, ref);
        run_bulk<T, 256, 8, 3, true>("ring 256x8 (32K), 3, 2 loaders", in, out, n, scratch, ref);
        run_bulk<T, 256, 4, 4, true>("ring 256x4, 4, 2 loaders", in, out, n, scratch, ref);
        run_bulk<T, 128, 8, 4, true, 0>("ring 128x8, 4, 2 loaders, spin", in, out, n, scratch, ref);
        run_bulk<T, 128, 8, 4, true, 128>("ring 128x8, 4, 2 loaders, sleep 128", in, out, n,
                                          scratch, ref);
        run_bulk<T, 128, 16, 2, true>("ring 128x16 (32K), 2, 2 loaders", in, out, n, scratch, ref);
    }
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
    for (size_t n : sizes)
        sweep<int>(n, n >= (1u << 20));
    for (size_t n : sizes)
        if (n >= (1u << 24))
            sweep<float>(n, false);
}
