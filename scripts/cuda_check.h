/* The scripts' one error check (C and CUDA C++): a CUDA runtime call that
 * fails prints where and why and ends the program (the scripts are tools,
 * not the library, which never exits). */
#ifndef WARPLAB_SCRIPTS_CUDA_CHECK_H
#define WARPLAB_SCRIPTS_CUDA_CHECK_H

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK_CUDA(call)                                                                           \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));            \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

#endif
