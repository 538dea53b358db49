/* What the CUDA programs' tests share: their check counters and macros.
 * CHECK_OK(context, call) reports a failure with that context's
 * warplab_last_error. */
#ifndef WARPLAB_TESTS_CUDA_CHECK_H
#define WARPLAB_TESTS_CUDA_CHECK_H

#include "warplab.h"

#include <cstdio>
#include <cuda_runtime.h>

#define TEST_SKIP 77

static int failures = 0, checks = 0;
#define CHECK(condition)                                                                           \
    do {                                                                                           \
        checks++;                                                                                  \
        if (!(condition)) {                                                                        \
            failures++;                                                                            \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #condition);          \
        }                                                                                          \
    } while (0)
#define CHECK_OK(context, call)                                                                    \
    do {                                                                                           \
        warplab_status status_ = (call);                                                           \
        checks++;                                                                                  \
        if (status_ != WARPLAB_OK) {                                                               \
            failures++;                                                                            \
            fprintf(stderr, "%s:%d: %s: %s (%s)\n", __FILE__, __LINE__, #call,                     \
                    warplab_status_string(status_), warplab_last_error(context));                  \
        }                                                                                          \
    } while (0)
#define CUDA(call)                                                                                 \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        checks++;                                                                                  \
        if (e_ != cudaSuccess) {                                                                   \
            failures++;                                                                            \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
        }                                                                                          \
    } while (0)

#endif
