/* The cpu backend's reduce rungs. (To be written.) */
#include "cpu.h"

const wl_impl *const wl_cpu_reduce_impls[] = {NULL};
