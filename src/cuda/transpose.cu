/* The cuda backend's transpose rungs. (To be written.) */
#include "cuda_backend.h"

extern "C" const wl_impl *const wl_cuda_transpose_impls[] = {NULL};
