/* The opencl backend's probe rungs. (To be written.) */
#include "opencl_backend.h"

const wl_impl *const wl_opencl_probe_impls[] = {NULL};
