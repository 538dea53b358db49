/* The cpu backend's gemm rungs. (To be written.) */
#include "cpu.h"

const wl_impl *const wl_cpu_gemm_impls[] = {NULL};
