/* The tensor-core GEMV with X along big (src/cuda/gemm/gemv.cuh:
 * gemv_mma_rows) timed alone against cublasGemmEx (the same inputs and
 * compute) on the decode tuning set's layers with the weights stored k x n
 * (op_b = N) (developer use: the geometry behind WL_GEMV_MMA_ROWS_* and
 * WL_GEMV_MMA_ROWS16_*, and the planner's gemv_mma_rows_tf32 and
 * gemv_mma_rows16 rows). Each variant (strips a warp, steps in flight, row
 * groups, blocks an SM) runs at each split of k (the split-K sum
 * included); CUDA events, L2 flushed before each run, median of the runs;
 * each variant's C checked against cuBLAS's. A device copy of the weights'
 * bytes gives the bandwidth. "library" is the geometry gemm_plan.h gives
 * the small side.
 *
 * Build: nvcc -O3 -std=c++17 -arch=sm_90 -Iinclude -Isrc scripts/gemv_rows.cu -lcublas \
 *        -o gemv_rows
 * Run:   ./gemv_rows [runs]
 * Environment (each optional): GR_KIND = tf32 (default), bf16 or fp16;
 * GR_SMALLS="1,8,16" (small sides, at most 32; default 1, 2, 7, 8, 16, 24,
 * 32); GR_LAYERS="4096x4096,28672x4096" (n x k, n * k at most 28672 x
 * 4096, k at most 14336; default the decode tuning set's layers);
 * GR_SPLITS="1,2,4" (splits tried; default 1, 2, 4, 8, 16). */
#include "../src/cuda/gemm/gemv.cuh"

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "cuda_check.h"
#include "fill_hash.cuh"
#include "gemv_timing.cuh"

typedef void (*kernel_fn)(wl_gemv_params);

struct variant {
    const char *name;
    int kind, nt, cols, quantum; /* column tiles; columns of X a block; k a round */
    kernel_fn kernel;
};

/* A strip is 8 16-byte vectors of X (32 FP32 or 64 16-bit columns); a step
 * is 4 vectors deep (16 or 32 k). */
#define STRIP(K) (K == WL_GEMV_F32 ? 32 : 64)
#define STEP(K) (K == WL_GEMV_F32 ? 16 : 32)
/* One variant: its name, kind, column tiles (NT), strips a warp (P), steps
 * in flight (D), row groups (RG) and blocks an SM (MINB). */
#define VARIANT(NAME, K, NT, P, D, RG, MINB)                                                       \
    {                                                                                              \
        NAME, K, NT, STRIP(K) * (P) * (RG), STEP(K) * (D) * (WL_GEMV_MMA_WARPS / (RG)),            \
            gemv_mma_rows<K, NT, P, D, RG, MINB>                                                   \
    }
#define ROWS(K, NT, P, D, RG, MINB)                                                                \
    VARIANT("rows<" #NT "," #P "," #D "," #RG "," #MINB ">", K, NT, P, D, RG, MINB)

/* The library's geometry (gemm_plan.h) for NT column tiles. */
#define LIBRARY_TF32(NT)                                                                           \
    VARIANT("library<" #NT ">", WL_GEMV_F32, NT, WL_GEMV_MMA_ROWS_STRIPS(8 * NT),                  \
            WL_GEMV_MMA_ROWS_DEPTH(8 * NT), WL_GEMV_MMA_ROWS_GROUPS(8 * NT),                       \
            WL_GEMV_MMA_ROWS_MIN_BLOCKS)
#define LIBRARY16(K, NT)                                                                           \
    VARIANT("library<" #NT ">", K, NT, WL_GEMV_MMA_ROWS16_STRIPS(8 * NT),                          \
            WL_GEMV_MMA_ROWS16_DEPTH(8 * NT), WL_GEMV_MMA_ROWS16_GROUPS(8 * NT),                   \
            WL_GEMV_MMA_ROWS16_MIN_BLOCKS(8 * NT))

/* TF32: the library's geometry, then the variants tried beside it (the
 * first runs also tried, for every NT: one strip with 1, 2, 4 or 8 steps,
 * two strips with 1 or 2 steps, 1, 2 or 4 row groups, 1 to 3 blocks an SM,
 * Y loaded with X or a step at a time; gemm_plan.h has the outcome). */
static const variant variants_tf32[] = {
    LIBRARY_TF32(1),
    LIBRARY_TF32(2),
    LIBRARY_TF32(3),
    ROWS(WL_GEMV_F32, 3, 2, 2, 1, 1),
    ROWS(WL_GEMV_F32, 3, 1, 2, 8, 2),
    ROWS(WL_GEMV_F32, 3, 1, 4, 8, 1),
    LIBRARY_TF32(4),
    ROWS(WL_GEMV_F32, 4, 2, 2, 1, 1),
    ROWS(WL_GEMV_F32, 4, 2, 1, 1, 1),
    ROWS(WL_GEMV_F32, 4, 1, 2, 8, 2),
    ROWS(WL_GEMV_F32, 4, 1, 4, 8, 1),
    ROWS(WL_GEMV_F32, 4, 1, 2, 4, 2),
};

/* 16-bit: the library's geometry, then steps in flight (1, 2, 4), strips
 * (1, 2), row groups (1, 2, 8: with 8 every warp runs its own strip over
 * the block's whole k) and blocks an SM (1 to 3) around it. */
#define VARIANTS16(K)                                                                              \
    LIBRARY16(K, 1), ROWS(K, 1, 1, 1, 1, 2), ROWS(K, 1, 1, 1, 1, 3), ROWS(K, 1, 1, 4, 1, 1),       \
        ROWS(K, 1, 2, 1, 1, 2), ROWS(K, 1, 2, 2, 1, 1), ROWS(K, 1, 1, 2, 2, 2),                    \
        ROWS(K, 1, 1, 2, 8, 2), ROWS(K, 1, 1, 4, 8, 1), LIBRARY16(K, 2), ROWS(K, 2, 1, 2, 1, 2),   \
        ROWS(K, 2, 1, 2, 1, 1), ROWS(K, 2, 2, 1, 1, 2), ROWS(K, 2, 1, 1, 8, 2),                    \
        ROWS(K, 2, 1, 2, 8, 1), ROWS(K, 2, 1, 1, 2, 2), LIBRARY16(K, 3), ROWS(K, 3, 1, 1, 1, 2),   \
        ROWS(K, 3, 1, 1, 1, 1), ROWS(K, 3, 1, 1, 8, 2), ROWS(K, 3, 1, 2, 8, 1),                    \
        ROWS(K, 3, 1, 1, 4, 2), LIBRARY16(K, 4), ROWS(K, 4, 1, 1, 1, 2), ROWS(K, 4, 1, 1, 1, 1),   \
        ROWS(K, 4, 1, 1, 8, 2), ROWS(K, 4, 1, 2, 8, 1), ROWS(K, 4, 1, 1, 4, 2)
static const variant variants_bf16[] = {VARIANTS16(WL_GEMV_BF16)};
static const variant variants_fp16[] = {VARIANTS16(WL_GEMV_F16)};

/* Values in [-1, 1) from fill_hash, as FP32 or as 16-bit bits. */
__global__ void fill(void *out, size_t count, unsigned seed, int kind)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count;
         i += (size_t)gridDim.x * blockDim.x) {
        const float v = (float)(fill_hash(i, seed) & 0xFFFF) / 32768.0f - 1.0f;
        if (kind == WL_GEMV_F32)
            ((float *)out)[i] = v;
        else if (kind == WL_GEMV_BF16)
            ((__nv_bfloat16 *)out)[i] = __float2bfloat16(v);
        else
            ((__half *)out)[i] = __float2half(v);
    }
}

int main(int argc, char **argv)
{
    const int runs = argc > 1 ? atoi(argv[1]) : 15;
    const char *kind_name = getenv("GR_KIND") ? getenv("GR_KIND") : "tf32";
    const int kind = !strcmp(kind_name, "bf16")   ? WL_GEMV_BF16
                     : !strcmp(kind_name, "fp16") ? WL_GEMV_F16
                                                  : WL_GEMV_F32;
    const variant *variants = kind == WL_GEMV_BF16  ? variants_bf16
                              : kind == WL_GEMV_F16 ? variants_fp16
                                                    : variants_tf32;
    const size_t variant_count = kind == WL_GEMV_BF16  ? std::size(variants_bf16)
                                 : kind == WL_GEMV_F16 ? std::size(variants_fp16)
                                                       : std::size(variants_tf32);
    const size_t element = kind == WL_GEMV_F32 ? 4 : 2;
    const cudaDataType_t cu_type = kind == WL_GEMV_BF16  ? CUDA_R_16BF
                                   : kind == WL_GEMV_F16 ? CUDA_R_16F
                                                         : CUDA_R_32F;
    const cublasComputeType_t cu_compute =
        kind == WL_GEMV_F32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
    cudaDeviceProp prop;
    CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
    const size_t x_max = (size_t)28672 * 4096, y_max = (size_t)32 * 14336, c_max = 32 * 28672;
    void *x, *y, *copy;
    float *c, *ref, *part;
    CHECK_CUDA(cudaMalloc(&x, x_max * element));
    CHECK_CUDA(cudaMalloc(&copy, x_max * element));
    CHECK_CUDA(cudaMalloc(&y, y_max * element));
    CHECK_CUDA(cudaMalloc(&c, c_max * 4));
    CHECK_CUDA(cudaMalloc(&ref, c_max * 4));
    CHECK_CUDA(cudaMalloc(&part, (size_t)16 * c_max * 4));
    fill<<<1024, 256>>>(x, x_max, 1, kind);
    fill<<<1024, 256>>>(y, y_max, 2, kind);
    CHECK_CUDA(cudaGetLastError());
    cublasHandle_t handle;
    if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS)
        return 1;
    const gemv_timer timer(runs);
    const size_t copy_bytes = x_max * element / 2;
    const double copy_us = timer.time(
        [&] { CHECK_CUDA(cudaMemcpyAsync(copy, x, copy_bytes, cudaMemcpyDeviceToDevice)); });
    const double copy_gbs = 2.0 * copy_bytes / (copy_us * 1e3);
    printf("device: %s, %d SMs; %s; copy %.0f GB/s (read + write); %d runs, median, L2 flushed\n",
           prop.name, prop.multiProcessorCount, kind_name, copy_gbs, runs);
    const std::vector<int> layers =
        env_list("GR_LAYERS", {1024, 4096, 4096, 4096, 6144, 4096, 28672, 4096, 4096, 14336});
    const std::vector<int> smalls = env_list("GR_SMALLS", {1, 2, 7, 8, 16, 24, 32});
    const std::vector<int> split_counts = env_list("GR_SPLITS", {1, 2, 4, 8, 16});
    std::vector<float> got(c_max), want(c_max);
    for (size_t l = 0; l + 1 < layers.size(); l += 2)
        for (int small : smalls) {
            const int n = layers[l], k = layers[l + 1];
            if (small < 1 || small > 32 || k > 14336 || (size_t)n * k > x_max)
                continue;
            const float one = 1.0f, zero = 0.0f;
            /* Row-major C (m x n) = A (m x k) B (k x n): column-major C^T = B^T A^T. */
            auto cublas = [&] {
                if (cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, small, k, &one, x, cu_type, n,
                                 y, cu_type, k, &zero, ref, CUDA_R_32F, n, cu_compute,
                                 CUBLAS_GEMM_DEFAULT) != CUBLAS_STATUS_SUCCESS)
                    exit(2);
            };
            const double vendor = timer.time(cublas);
            CHECK_CUDA(cudaMemcpy(want.data(), ref, (size_t)small * n * 4, cudaMemcpyDeviceToHost));
            const double bytes = (double)n * k * element;
            printf("%5d x %5d m=%-2d cublas %7.1f us (%3.0f%% of copy)\n", n, k, small, vendor,
                   100.0 * bytes / (vendor * 1e3) / copy_gbs);
            for (size_t vi = 0; vi < variant_count; vi++) {
                const variant &v = variants[vi];
                if ((small + 7) / 8 != v.nt)
                    continue;
                wl_gemv_params p = gemv_params_of(x, y, c, n, small, k, true);
                p.part = part;
                printf("      %-18s", v.name);
                double best = 1e30, worst_err = 0.0;
                int best_splits = 0;
                for (int splits : split_counts) {
                    if (splits < 1 || splits > 16)
                        continue;
                    const int chunk =
                        ((k + splits - 1) / splits + v.quantum - 1) / v.quantum * v.quantum;
                    p.k_chunk = chunk;
                    p.splits = (k + chunk - 1) / chunk;
                    if (p.splits != splits)
                        continue;
                    const dim3 grid((unsigned)((n + v.cols - 1) / v.cols), (unsigned)p.splits);
                    CHECK_CUDA(cudaMemset(c, 0xFF, (size_t)small * n * 4)); /* NaN */
                    const double us = timer.time([&] {
                        v.kernel<<<grid, 32 * WL_GEMV_MMA_WARPS>>>(p);
                        if (p.splits > 1)
                            wl_splitk_finish<<<264, 256>>>(p.part, p.splits, p.small, p.big, p.c,
                                                           p.c_i, p.c_j, p.c_kind, 1.0f, 0.0f);
                    });
                    CHECK_CUDA(cudaGetLastError());
                    CHECK_CUDA(
                        cudaMemcpy(got.data(), c, (size_t)small * n * 4, cudaMemcpyDeviceToHost));
                    for (size_t e = 0; e < (size_t)small * n; e++) {
                        const double err = std::fabs((double)got[e] - want[e]) /
                                           (std::sqrt((double)k) * 1e-2 + std::fabs(want[e]));
                        worst_err = err > worst_err || std::isnan(err) ? err : worst_err;
                    }
                    printf(" s%-2d %6.1f", splits, us);
                    if (us < best) {
                        best = us;
                        best_splits = splits;
                    }
                }
                printf(" | best %6.1f (s%d) %.2fx cublas, %3.0f%% of copy, err %.1e\n", best,
                       best_splits, vendor / best, 100.0 * bytes / (best * 1e3) / copy_gbs,
                       worst_err);
            }
        }
    return 0;
}
