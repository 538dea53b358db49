/* The TF32 tensor-core GEMV with X along big (src/cuda/gemm/gemv.cuh:
 * gemv_mma_rows) timed alone against cublasGemmEx (TF32 compute, the same
 * inputs) on the decode tuning set's layers with the weights stored k x n
 * (op_b = N): n x k = 1024, 4096, 6144, 28672 x 4096 and 4096 x 14336, m =
 * 1, 2, 7, 8, 16, 24, 32 (developer use: the geometry behind
 * WL_GEMV_MMA_ROWS_* and the planner's gemv_mma_rows_tf32 row). Each
 * variant (strips a warp, steps in flight, row groups, blocks an SM) runs
 * at 1 to 16 splits of k (the split-K sum included); CUDA events, L2
 * flushed before each run, median of the runs; each variant's C checked
 * against cuBLAS's. A device copy of the weights' bytes gives the
 * bandwidth.
 *
 * Build: nvcc -O3 -std=c++17 -arch=sm_90 -Iinclude scripts/gemv_rows_tf32.cu -lcublas -o
 * gemv_rows_tf32 Run:   ./gemv_rows_tf32 [runs] */
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

typedef void (*kernel_fn)(wl_gemv_params);

struct variant {
    const char *name;
    int nt, cols, quantum; /* column tiles; columns of X a block; k a round */
    kernel_fn kernel;
};

#define ROWS(NT, P, D, RG, MINB)                                                                   \
    {                                                                                              \
        "rows<" #NT "," #P "," #D "," #RG "," #MINB ">", NT, 32 * P *RG,                           \
            16 * D *(WL_GEMV_MMA_WARPS / RG), gemv_mma_rows<WL_GEMV_F32, NT, P, D, RG, MINB>       \
    }

/* The library's geometry (gemm_plan.h) for NT column tiles. */
#define LIBRARY(NT)                                                                                \
    {                                                                                              \
        "library<" #NT ">", NT,                                                                    \
            32 * WL_GEMV_MMA_ROWS_STRIPS(8 * NT) * WL_GEMV_MMA_ROWS_GROUPS(8 * NT),                \
            16 * WL_GEMV_MMA_ROWS_DEPTH(8 * NT) *                                                  \
                (WL_GEMV_MMA_WARPS / WL_GEMV_MMA_ROWS_GROUPS(8 * NT)),                             \
            gemv_mma_rows<WL_GEMV_F32, NT, WL_GEMV_MMA_ROWS_STRIPS(8 * NT),                        \
                          WL_GEMV_MMA_ROWS_DEPTH(8 * NT), WL_GEMV_MMA_ROWS_GROUPS(8 * NT),         \
                          WL_GEMV_MMA_ROWS_MIN_BLOCKS>                                             \
    }

/* The library's geometry, then the variants tried beside it (the first
 * runs also tried, for every NT: one strip with 1, 2, 4 or 8 steps, two
 * strips with 1 or 2 steps, 1, 2 or 4 row groups, 1 to 3 blocks an SM, Y
 * loaded with X or a step at a time; gemm_plan.h has the outcome). */
static const variant variants[] = {
    LIBRARY(1),          LIBRARY(2),          LIBRARY(3),          ROWS(3, 2, 2, 1, 1),
    ROWS(3, 1, 2, 8, 2), ROWS(3, 1, 4, 8, 1), LIBRARY(4),          ROWS(4, 2, 2, 1, 1),
    ROWS(4, 2, 1, 1, 1), ROWS(4, 1, 2, 8, 2), ROWS(4, 1, 4, 8, 1), ROWS(4, 1, 2, 4, 2),
};

static double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

__global__ void fill(float *out, size_t count, unsigned seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count;
         i += (size_t)gridDim.x * blockDim.x) {
        unsigned h = (unsigned)i * 2654435761u ^ seed;
        h ^= h >> 15;
        h *= 2246822519u;
        h ^= h >> 13;
        out[i] = (float)(h & 0xFFFF) / 32768.0f - 1.0f;
    }
}

int main(int argc, char **argv)
{
    const int runs = argc > 1 ? atoi(argv[1]) : 15;
    cudaDeviceProp prop;
    CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
    const size_t x_max = (size_t)28672 * 4096, y_max = (size_t)32 * 14336, c_max = 32 * 28672;
    float *x, *y, *c, *ref, *part, *copy;
    void *flush;
    const size_t flush_bytes = 2 * (size_t)prop.l2CacheSize;
    CHECK_CUDA(cudaMalloc(&x, x_max * 4));
    CHECK_CUDA(cudaMalloc(&copy, x_max * 4));
    CHECK_CUDA(cudaMalloc(&y, y_max * 4));
    CHECK_CUDA(cudaMalloc(&c, c_max * 4));
    CHECK_CUDA(cudaMalloc(&ref, c_max * 4));
    CHECK_CUDA(cudaMalloc(&part, (size_t)16 * c_max * 4));
    CHECK_CUDA(cudaMalloc(&flush, flush_bytes));
    fill<<<1024, 256>>>(x, x_max, 1);
    fill<<<1024, 256>>>(y, y_max, 2);
    cublasHandle_t handle;
    if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS)
        return 1;
    cudaEvent_t e0, e1;
    CHECK_CUDA(cudaEventCreate(&e0));
    CHECK_CUDA(cudaEventCreate(&e1));
    auto time_it = [&](auto body) {
        std::vector<double> t;
        for (int r = -2; r < runs; r++) {
            CHECK_CUDA(cudaMemsetAsync(flush, r & 0xFF, flush_bytes));
            CHECK_CUDA(cudaEventRecord(e0));
            body();
            CHECK_CUDA(cudaEventRecord(e1));
            CHECK_CUDA(cudaEventSynchronize(e1));
            float ms;
            CHECK_CUDA(cudaEventElapsedTime(&ms, e0, e1));
            if (r >= 0)
                t.push_back(ms * 1e3);
        }
        return median(t);
    };
    const double copy_us =
        time_it([&] { CHECK_CUDA(cudaMemcpyAsync(copy, x, x_max * 2, cudaMemcpyDeviceToDevice)); });
    const double copy_gbs = 2.0 * (x_max * 2) / (copy_us * 1e3);
    printf("device: %s, %d SMs; copy %.0f GB/s (read + write); %d runs, median, L2 flushed\n",
           prop.name, prop.multiProcessorCount, copy_gbs, runs);
    static const int layers[][2] = {
        {1024, 4096}, {4096, 4096}, {6144, 4096}, {28672, 4096}, {4096, 14336}};
    static const int smalls[] = {1, 2, 7, 8, 16, 24, 32};
    static const int split_counts[] = {1, 2, 4, 8, 16};
    std::vector<float> got(c_max), want(c_max);
    for (const auto &layer : layers)
        for (int small : smalls) {
            const int n = layer[0], k = layer[1];
            const float one = 1.0f, zero = 0.0f;
            /* Row-major C (m x n) = A (m x k) B (k x n): column-major C^T = B^T A^T. */
            auto cublas = [&] {
                if (cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, small, k, &one, x, CUDA_R_32F,
                                 n, y, CUDA_R_32F, k, &zero, ref, CUDA_R_32F, n,
                                 CUBLAS_COMPUTE_32F_FAST_TF32,
                                 CUBLAS_GEMM_DEFAULT) != CUBLAS_STATUS_SUCCESS)
                    exit(2);
            };
            const double vendor = time_it(cublas);
            CHECK_CUDA(cudaMemcpy(want.data(), ref, (size_t)small * n * 4, cudaMemcpyDeviceToHost));
            const double bytes = (double)n * k * 4;
            printf("%5d x %5d m=%-2d cublas %7.1f us (%3.0f%% of copy)\n", n, k, small, vendor,
                   100.0 * bytes / (vendor * 1e3) / copy_gbs);
            for (const variant &v : variants) {
                if ((small + 7) / 8 != v.nt)
                    continue;
                wl_gemv_params p;
                memset(&p, 0, sizeof p);
                p.x = x;
                p.y = y;
                p.x_q = n;
                p.x_j = 1;
                p.y_i = k;
                p.y_q = 1;
                p.big = n;
                p.small = small;
                p.k = k;
                p.x_vec = p.y_vec = true;
                p.c = c;
                p.c_i = n;
                p.c_j = 1;
                p.alpha = 1.0f;
                p.beta = 0.0f;
                p.c_kind = WL_GEMV_F32;
                p.part = part;
                printf("      %-18s", v.name);
                double best = 1e30, worst_err = 0.0;
                int best_splits = 0;
                for (int splits : split_counts) {
                    const int chunk =
                        ((k + splits - 1) / splits + v.quantum - 1) / v.quantum * v.quantum;
                    p.k_chunk = chunk;
                    p.splits = (k + chunk - 1) / chunk;
                    if (p.splits != splits)
                        continue;
                    const dim3 grid((unsigned)((n + v.cols - 1) / v.cols), (unsigned)p.splits);
                    const double us = time_it([&] {
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
