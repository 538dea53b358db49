/* A plan computed once a shape (the 16-bit and TF32 tile models', where no
 * route carries one, as for the ladder's forced kernels: gemm_ex.cu; the
 * planner's routes, which carry those models' and the FP32 dispatcher's
 * plans, have their own cache: gemm_plan.h): the gemm cost models are pure
 * functions of the problem (shape, strides, types, ops, misalignment)
 * and of the device, but their searches
 * over tile kinds and splits of k cost tens of microseconds on the host for
 * a large k (64 x 64 x 65536: 128 splits x 6 tile kinds for the FP32 plan
 * alone), and one call asked for its plan up to three times (workspace
 * size, launch, the launch's own workspace check). On a short kernel that
 * host time is the call's time: TF32 128 x 128 x 32768 took 56 us through
 * warplab_gemm_ex where the same plan, forced, took 23 us (H100;
 * docs/DECISIONS.md, "Plans are cached per thread"). So, as cuBLAS keeps
 * its heuristics' answer, the last few plans are kept, per host thread (no
 * lock, no sharing between threads), keyed by everything the plan depends
 * on. Host code only (C++). */
#ifndef WARPLAB_GEMM_PLAN_CACHE_H
#define WARPLAB_GEMM_PLAN_CACHE_H

#include "../../internal.h"

#include <string.h>

/* Everything a gemm plan is a function of. Built by wl_plan_key_of, which
 * zeroes the padding so that keys compare with memcmp. */
typedef struct wl_plan_key {
    const void *backend;
    int sms, cc_major, cc_minor, dims;
    double bandwidth_gbs, fp32_peak_gflops;
    size_t dim[3], ld[3], misalign;
    int variant, dtype;
    long extra; /* the caller's own input to the plan (alignment, a kernel) */
} wl_plan_key;

static inline wl_plan_key wl_plan_key_of(const wl_backend *backend, const wl_problem *p, long extra)
{
    wl_plan_key key;
    memset(&key, 0, sizeof key);
    key.backend = backend;
    key.sms = backend->info.multiprocessors;
    key.cc_major = backend->info.cc_major;
    key.cc_minor = backend->info.cc_minor;
    key.bandwidth_gbs = backend->info.theoretical_bandwidth_gbs;
    key.fp32_peak_gflops = backend->info.fp32_peak_gflops;
    key.dims = p->dims;
    for (int i = 0; i < 3; i++) {
        key.dim[i] = p->dim[i];
        key.ld[i] = p->ld[i];
    }
    key.misalign = p->misalign;
    key.variant = p->variant;
    key.dtype = (int)p->dtype;
    key.extra = extra;
    return key;
}

/* The last WL_PLAN_CACHE_SIZE plans of one kind, replaced in turn. Declare
 * as `static thread_local wl_plan_cache<T> cache;` (zero-initialised). */
#define WL_PLAN_CACHE_SIZE 8
template <typename T> struct wl_plan_cache {
    wl_plan_key keys[WL_PLAN_CACHE_SIZE];
    T plans[WL_PLAN_CACHE_SIZE];
    bool used[WL_PLAN_CACHE_SIZE];
    int next;

    const T *find(const wl_plan_key &key) const
    {
        for (int i = 0; i < WL_PLAN_CACHE_SIZE; i++)
            if (used[i] && memcmp(&keys[i], &key, sizeof key) == 0)
                return &plans[i];
        return NULL;
    }
    void keep(const wl_plan_key &key, const T &plan)
    {
        keys[next] = key;
        plans[next] = plan;
        used[next] = true;
        next = (next + 1) % WL_PLAN_CACHE_SIZE;
    }
};

#endif
