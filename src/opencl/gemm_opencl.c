/* The opencl backend's gemm rungs. (To be written.) */
#include "opencl_backend.h"

const wl_impl *const wl_opencl_gemm_impls[] = {NULL};
