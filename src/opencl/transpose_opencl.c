/* The opencl backend's transpose rungs. (To be written.) */
#include "opencl_backend.h"

const wl_impl *const wl_opencl_transpose_impls[] = {NULL};
