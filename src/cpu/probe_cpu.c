/* The cpu backend's probe rungs. (To be written.) */
#include "cpu.h"

const wl_impl *const wl_cpu_probe_impls[] = {NULL};
