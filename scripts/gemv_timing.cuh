/* The GEMV scripts' shared harness (scripts/gemv_variants.cu,
 * scripts/gemv_rows.cu): numbers from the environment, the kernels'
 * parameters for the scripts' one layout, and a timer that flushes the L2
 * (a memset of twice its size) before every run and returns the median of
 * the runs after two warm-ups, by CUDA events. */
#ifndef WARPLAB_SCRIPTS_GEMV_TIMING_CUH
#define WARPLAB_SCRIPTS_GEMV_TIMING_CUH

#include "../src/cuda/gemm/gemv.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "cuda_check.h"

/* A list of numbers separated by ',' or 'x' (n x k pairs) from the
 * environment variable name; fallback where it is unset or empty. */
static std::vector<int> env_list(const char *name, std::vector<int> fallback)
{
    const char *text = getenv(name);
    if (!text || !*text)
        return fallback;
    std::vector<int> out;
    for (const char *at = text; *at;) {
        char *end;
        const long v = strtol(at, &end, 10);
        if (end == at)
            break;
        out.push_back((int)v);
        at = *end ? end + 1 : end; /* past ',' or 'x' */
    }
    return out;
}

/* C (small x big, FP32, rows big apart; alpha 1, beta 0) = Y X^T: Y
 * (small x k) and X along k (big x k), or X stored k x big with x_along_big;
 * 16-byte views. The caller sets the split (k_chunk, splits) and part. */
static wl_gemv_params gemv_params_of(const void *x, const void *y, void *c, int big, int small,
                                     int k, bool x_along_big)
{
    wl_gemv_params p;
    memset(&p, 0, sizeof p);
    p.x = x;
    p.y = y;
    p.x_q = x_along_big ? big : 1;
    p.x_j = x_along_big ? 1 : k;
    p.y_i = k;
    p.y_q = 1;
    p.big = big;
    p.small = small;
    p.k = k;
    p.x_vec = p.y_vec = true;
    p.c = c;
    p.c_i = big;
    p.c_j = 1;
    p.alpha = 1.0f;
    p.beta = 0.0f;
    p.c_kind = WL_GEMV_F32;
    return p;
}

struct gemv_timer {
    int runs;
    void *flush;
    size_t flush_bytes;
    cudaEvent_t e0, e1;
    explicit gemv_timer(int runs_) : runs(runs_)
    {
        cudaDeviceProp prop;
        CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
        flush_bytes = 2 * (size_t)prop.l2CacheSize;
        CHECK_CUDA(cudaMalloc(&flush, flush_bytes));
        CHECK_CUDA(cudaEventCreate(&e0));
        CHECK_CUDA(cudaEventCreate(&e1));
    }
    /* The median microseconds of body() (launches on the default stream). */
    template <class Body> double time(Body body) const
    {
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
        std::sort(t.begin(), t.end());
        return t[t.size() / 2];
    }
};

#endif
