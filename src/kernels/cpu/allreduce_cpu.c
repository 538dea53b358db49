/* The all-reduce ladder runs across CUDA GPUs (src/kernels/cuda/allreduce.cu): the
 * cpu backend has no rung (the ladder's `available` says why). */
#include "cpu.h"

const wl_impl *const wl_cpu_allreduce_impls[] = {NULL};
