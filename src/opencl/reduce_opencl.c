/* The opencl backend's reduce rungs. (To be written.) */
#include "opencl_backend.h"

const wl_impl *const wl_opencl_reduce_impls[] = {NULL};
