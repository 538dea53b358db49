/* The split-K sum (src/cuda/gemm/gemv.cuh: wl_splitk_finish) timed alone at
 * one and eight elements a thread (developer use: the bounds in
 * wl_splitk_finish_launch, src/cuda/gemm/gemv.cu). FP32 partial sums of the
 * planner's split plans' sizes, FP32 and BF16 C, beta 0; the grid as the
 * launch sizes it (eight SMs' worth of 256-thread blocks at most, by the
 * elements a thread); CUDA events, L2 flushed before each run, median of
 * the runs (scripts/gemv_timing.cuh); the two Cs compared bit for bit.
 *
 * Build: nvcc -O3 -std=c++17 -arch=sm_90 -Iinclude -Isrc scripts/splitk_finish_timing.cu \
 *        -o splitk_finish_timing
 * Run:   ./splitk_finish_timing [runs] */
#include "gemv_timing.cuh"

#include <cstdio>
#include <cstring>

int main(int argc, char **argv)
{
    const int runs = argc > 1 ? atoi(argv[1]) : 21;
    int sms = 0;
    CHECK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const gemv_timer timer(runs > 0 ? runs : 21);
    /* rows x cols of C and splits: the sizes of split plans (wgmma, GEMV,
     * ex16_thin) on the grid and the tuning sets. */
    static const int sizes[][3] = {{284, 6144, 6}, {380, 4096, 2}, {128, 8192, 2},  {48, 33, 45},
                                   {1, 4096, 2},   {17, 4096, 2},  {475, 84, 8},    {4096, 4096, 2},
                                   {14, 63405, 1}, {12, 45000, 1}, {199, 11008, 3}, {8, 8192, 16}};
    printf("%-14s %6s %5s %11s %11s\n", "C", "splits", "C", "E=1 us", "E=8 us");
    for (const auto &size : sizes) {
        const int rows = size[0], cols = size[1], splits = size[2];
        const size_t count = (size_t)rows * cols;
        std::vector<float> host(count * splits);
        for (size_t i = 0; i < host.size(); i++)
            host[i] = (float)((i * 2654435761u) % 1000) / 997.0f - 0.5f;
        float *part;
        void *c[2];
        CHECK_CUDA(cudaMalloc(&part, host.size() * sizeof(float)));
        CHECK_CUDA(
            cudaMemcpy(part, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMalloc(&c[0], count * sizeof(float)));
        CHECK_CUDA(cudaMalloc(&c[1], count * sizeof(float)));
        for (int kind = 0; kind < 2; kind++) {
            const int c_kind = kind ? WL_GEMV_BF16 : WL_GEMV_F32;
            double us[2];
            for (int wide = 0; wide < 2; wide++) {
                const size_t per_thread = wide ? 8 : 1, full = (size_t)sms * 8;
                const size_t needed = (count + per_thread * 256 - 1) / (per_thread * 256);
                const unsigned grid = (unsigned)(needed < full ? needed : full);
                us[wide] = timer.time([&] {
                    if (wide)
                        wl_splitk_finish<8><<<grid, 256>>>(part, splits, rows, cols, c[1], cols, 1,
                                                           c_kind, 1.5f, 0.0f);
                    else
                        wl_splitk_finish<1><<<grid, 256>>>(part, splits, rows, cols, c[0], cols, 1,
                                                           c_kind, 1.5f, 0.0f);
                });
            }
            const size_t bytes = count * (kind ? 2 : 4);
            std::vector<char> a(bytes), b(bytes);
            CHECK_CUDA(cudaMemcpy(a.data(), c[0], bytes, cudaMemcpyDeviceToHost));
            CHECK_CUDA(cudaMemcpy(b.data(), c[1], bytes, cudaMemcpyDeviceToHost));
            printf("%5d x %-6d %6d %5s %11.2f %11.2f%s\n", rows, cols, splits,
                   kind ? "bf16" : "fp32", us[0], us[1],
                   memcmp(a.data(), b.data(), bytes) ? "  DIFFERENT SUMS" : "");
        }
        CHECK_CUDA(cudaFree(part));
        CHECK_CUDA(cudaFree(c[0]));
        CHECK_CUDA(cudaFree(c[1]));
    }
    return 0;
}
