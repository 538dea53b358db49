/* The all-reduce ladder runs across CUDA GPUs (src/kernels/cuda/allreduce.cu): the
 * opencl backend has no rung (the ladder's `available` says why). */
#include "opencl_backend.h"

const wl_impl *const wl_opencl_allreduce_impls[] = {NULL};
