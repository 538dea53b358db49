/* The cuda backend's reduce rungs. (To be written.) */
#include "cuda_backend.h"

extern "C" const wl_impl *const wl_cuda_reduce_impls[] = {NULL};
