/* The GEMV scripts' shared harness (scripts/gemv_variants.cu,
 * scripts/gemv_rows.cu): numbers from the environment, and a timer that
 * flushes the L2 (a memset of twice its size) before every run and returns
 * the median of the runs after two warm-ups, by CUDA events. */
#ifndef WARPLAB_SCRIPTS_GEMV_TIMING_CUH
#define WARPLAB_SCRIPTS_GEMV_TIMING_CUH

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdlib>
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
