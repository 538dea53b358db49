/* The cpu backend's transpose rungs. (To be written.) */
#include "cpu.h"

const wl_impl *const wl_cpu_transpose_impls[] = {NULL};
