/* The cpu backend's rung tables, one per ladder (each in its ladder's file). */
#ifndef WARPLAB_CPU_H
#define WARPLAB_CPU_H

#include "../internal.h"

extern const wl_impl *const wl_cpu_vecadd_impls[];
extern const wl_impl *const wl_cpu_reduce_impls[];
extern const wl_impl *const wl_cpu_transpose_impls[];
extern const wl_impl *const wl_cpu_gemm_impls[];
extern const wl_impl *const wl_cpu_probe_impls[];

#endif
