/* The GEMV family's tensor-core and register-tiled kernels (src/cuda/gemm/
 * gemv.cuh) timed alone on the decode tuning set's layers (developer use:
 * the geometry behind WL_GEMV_MMA_TILES / WL_GEMV_MMA_DEPTH and the
 * planner's blocks an SM). For each layer (n x k, X = the weights n x k
 * along k), small side and kernel variant (16-row tiles a warp, steps in
 * flight), the kernel is timed at 1 to 32 splits of k (the split-K sum
 * included), CUDA events, L2 flushed before each run, median of the runs;
 * beside it a device copy of the same bytes (read + write).
 *
 * Build: nvcc -O3 -std=c++17 -arch=sm_90 -Iinclude scripts/gemv_variants.cu -o gemv_variants
 * Run:   ./gemv_variants [runs]
 * Environment (each optional): GV_SMALLS="2,5,8" (small sides, default
 * 1,16,24,32), GV_LAYERS="11008x4096,4096x11008" (n x k, default the
 * tuning layers), GV_ONLY="staged,along_k<f32" (variants whose names begin
 * with one of these), GV_SPLITS="1,2,4,8" (splits tried). */
#include "../src/cuda/gemm/gemv.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "cuda_check.h"
#include "gemv_timing.cuh"

typedef void (*kernel_fn)(wl_gemv_params);

struct variant {
    const char *name;
    int kind, rows; /* rows of X a block */
    int small_min, small_max;
    kernel_fn kernel;
    int smem; /* dynamic shared memory bytes */
};

#define MMA(K, NT, MT, D, RG)                                                                      \
    {                                                                                              \
        "mma<" #K "," #NT "," #MT "," #D "," #RG ">", K, 16 * MT *RG, 8 * NT - 7, 8 * NT,          \
            gemv_mma<K, NT, MT, D, RG>                                                             \
    }

#define STAGED(S, R, D)                                                                            \
    {                                                                                              \
        "staged<" #S "," #R "," #D ">", WL_GEMV_F32, 8 * R, S / 2 + 1, S, gemv_staged_k<S, R, D>,  \
            0                                                                                      \
    }

static bool wanted(const char *name)
{
    const char *only = getenv("GV_ONLY");
    if (!only || !*only)
        return true;
    for (const char *at = only; *at;) {
        const char *end = strchr(at, ',');
        const size_t len = end ? (size_t)(end - at) : strlen(at);
        if (len && strncmp(name, at, len) == 0)
            return true;
        at = end ? end + 1 : at + len;
    }
    return false;
}

static const variant variants[] = {
    MMA(WL_GEMV_BF16, 1, 1, 4, 1),
    MMA(WL_GEMV_BF16, 2, 1, 4, 1),
    MMA(WL_GEMV_BF16, 3, 1, 2, 1),
    MMA(WL_GEMV_BF16, 3, 1, 4, 1),
    MMA(WL_GEMV_BF16, 3, 1, 4, 2),
    MMA(WL_GEMV_BF16, 4, 1, 2, 1),
    MMA(WL_GEMV_BF16, 4, 1, 4, 1),
    MMA(WL_GEMV_BF16, 4, 1, 4, 2),
    MMA(WL_GEMV_BF16, 4, 1, 8, 1),
    MMA(WL_GEMV_F32, 1, 1, 4, 1),
    MMA(WL_GEMV_F32, 2, 1, 4, 1),
    MMA(WL_GEMV_F32, 4, 1, 2, 1),
    MMA(WL_GEMV_F32, 4, 1, 4, 1),
    MMA(WL_GEMV_F32, 4, 1, 4, 2),
    MMA(WL_GEMV_F32, 4, 1, 8, 1),
    {"tiled<f32,16>", WL_GEMV_F32, WL_GEMV_TILED_ROWS, 9, 16, gemv_tiled_k<WL_GEMV_F32, 16>,
     gemv_tiled_shape<16>::BYTES},
    {"tiled<f32,24>", WL_GEMV_F32, WL_GEMV_TILED_ROWS, 17, 24, gemv_tiled_k<WL_GEMV_F32, 24>,
     gemv_tiled_shape<24>::BYTES},
    {"tiled<f32,32>", WL_GEMV_F32, WL_GEMV_TILED_ROWS, 25, 32, gemv_tiled_k<WL_GEMV_F32, 32>,
     gemv_tiled_shape<32>::BYTES},
    {"along_k<f32,16,2>", WL_GEMV_F32, 16, 9, 16, gemv_along_k<WL_GEMV_F32, 16, 2>, 0},
    /* The FP32 gemv_k row at small sides 2-8 (the library's geometry), and
     * gemv_staged_k (S, R rows a warp, D steps in flight) beside it. */
    {"along_k<f32,2,4>", WL_GEMV_F32, 32, 2, 2, gemv_along_k<WL_GEMV_F32, 2, 4>, 0},
    {"along_k<f32,4,2>", WL_GEMV_F32, 16, 3, 4, gemv_along_k<WL_GEMV_F32, 4, 2>, 0},
    {"along_k<f32,8,2>", WL_GEMV_F32, 16, 5, 8, gemv_along_k<WL_GEMV_F32, 8, 2>, 0},
    STAGED(2, 8, 1),
    STAGED(2, 8, 2),
    STAGED(4, 8, 1),
    STAGED(4, 8, 2),
    STAGED(4, 4, 2),
    STAGED(8, 8, 1),
    STAGED(8, 4, 1),
    STAGED(8, 4, 2),
    /* Not planned: S = 16 beside tiled<f32,16> at 9-16. */
    STAGED(16, 4, 1),
    STAGED(16, 4, 2),
    {"along_k<bf16,1,4>", WL_GEMV_BF16, 32, 1, 1, gemv_along_k<WL_GEMV_BF16, 1, 4>, 0},
    /* X along big (op_b = N): gemv_along_big, the gemv_rows row. */
    {"along_big<bf16,1>", WL_GEMV_BF16, 256, 1, 1, gemv_along_big<WL_GEMV_BF16, 1>, 0},
    {"along_big<bf16,16>", WL_GEMV_BF16, 256, 9, 16, gemv_along_big<WL_GEMV_BF16, 16>, 0},
    {"along_big<f32,1>", WL_GEMV_F32, 128, 1, 1, gemv_along_big<WL_GEMV_F32, 1>, 0},
    {"along_big<f32,16>", WL_GEMV_F32, 128, 9, 16, gemv_along_big<WL_GEMV_F32, 16>, 0},
};

int main(int argc, char **argv)
{
    const int runs = argc > 1 ? atoi(argv[1]) : 15;
    cudaDeviceProp prop;
    CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
    const size_t x_max = (size_t)28672 * 4096 * 4, y_max = (size_t)32 * 14336 * 4;
    void *x, *y, *c, *copy;
    float *part;
    CHECK_CUDA(cudaMalloc(&x, x_max));
    CHECK_CUDA(cudaMalloc(&copy, x_max));
    CHECK_CUDA(cudaMalloc(&y, y_max));
    CHECK_CUDA(cudaMalloc(&c, (size_t)32 * 28672 * 4));
    CHECK_CUDA(cudaMalloc(&part, (size_t)64 * 32 * 28672 * 4));
    CHECK_CUDA(cudaMemset(x, 0x3C, x_max)); /* finite values of every type */
    CHECK_CUDA(cudaMemset(y, 0x3C, y_max));
    const gemv_timer timer(runs);
    const double copy_us = timer.time(
        [&] { CHECK_CUDA(cudaMemcpyAsync(copy, x, x_max / 2, cudaMemcpyDeviceToDevice)); });
    const double copy_gbs = 2.0 * (x_max / 2) / (copy_us * 1e3);
    printf("device: %s, %d SMs; copy %.0f GB/s (read + write); %d runs, median, L2 flushed\n",
           prop.name, prop.multiProcessorCount, copy_gbs, runs);
    const std::vector<int> layers =
        env_list("GV_LAYERS", {1024, 4096, 4096, 4096, 6144, 4096, 28672, 4096, 4096, 14336});
    const std::vector<int> smalls = env_list("GV_SMALLS", {1, 16, 24, 32});
    const std::vector<int> split_counts = env_list("GV_SPLITS", {1, 2, 4, 8});
    for (size_t l = 0; l + 1 < layers.size(); l += 2)
        for (int small : smalls)
            for (const variant &v : variants) {
                if (small < v.small_min || small > v.small_max || !wanted(v.name))
                    continue;
                const int big = layers[l], k = layers[l + 1];
                if ((size_t)big * k * 4 > x_max || (size_t)small * k * 4 > y_max || big > 28672 ||
                    small > 32)
                    continue;
                const size_t element = v.kind == WL_GEMV_F32 ? 4 : 2;
                const bool along_big = strncmp(v.name, "along_big", 9) == 0;
                wl_gemv_params p = gemv_params_of(x, y, c, big, small, k, along_big);
                const double bytes = (double)big * k * element;
                if (v.smem > 48 * 1024)
                    CHECK_CUDA(cudaFuncSetAttribute(
                        v.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, v.smem));
                printf("%-6d %-6d m=%-3d %-20s", big, k, small, v.name);
                double best = 1e30;
                int best_splits = 0;
                for (int splits : split_counts) {
                    const int chunk = ((k + splits - 1) / splits + 255) / 256 * 256;
                    p.k_chunk = chunk;
                    p.splits = (k + chunk - 1) / chunk;
                    if (p.splits != splits)
                        continue;
                    p.part = part;
                    const dim3 grid((unsigned)((big + v.rows - 1) / v.rows), (unsigned)p.splits);
                    const unsigned threads =
                        strncmp(v.name, "mma", 3) == 0 ? 32 * WL_GEMV_MMA_WARPS : WL_GEMV_THREADS;
                    const double us = timer.time([&] {
                        v.kernel<<<grid, threads, v.smem>>>(p);
                        if (p.splits > 1)
                            wl_splitk_finish<<<264, 256>>>(p.part, p.splits, p.small, p.big, p.c,
                                                           p.c_i, p.c_j, p.c_kind, 1.0f, 0.0f);
                    });
                    CHECK_CUDA(cudaGetLastError());
                    printf(" s%-2d %7.1f", splits, us);
                    if (us < best) {
                        best = us;
                        best_splits = splits;
                    }
                }
                printf("  | best %.1f us (s%d) %.0f%% of copy\n", best, best_splits,
                       100.0 * bytes / (best * 1e3) / copy_gbs);
            }
    return 0;
}
