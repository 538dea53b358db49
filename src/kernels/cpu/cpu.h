/* The cpu backend's rung tables, one per ladder (each in its ladder's file). */
#ifndef WARPLAB_CPU_H
#define WARPLAB_CPU_H

#include "internal.h"

#define WL_LADDER(name) extern const wl_impl *const wl_cpu_##name##_impls[];
#include "core/ladders.def"
#undef WL_LADDER
/* The probes are the GPU's experiments: the cpu backend has no form of
 * them (warplab probe says so and skips them). */

#endif
