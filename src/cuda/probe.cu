/* The cuda backend's probe rungs. (To be written.) */
#include "cuda_backend.h"

extern "C" const wl_impl *const wl_cuda_probe_impls[] = {NULL};
