/* The cpu backend's rung tables, one per ladder (each in its ladder's file). */
#ifndef WARPLAB_CPU_H
#define WARPLAB_CPU_H

#include "internal.h"

#define WL_LADDER(name) extern const wl_impl *const wl_cpu_##name##_impls[];
#include "core/ladders.def"
#undef WL_LADDER
/* The host rows of the probes (src/lab/probes/probe_cpu.c): the CPU side of
 * the transfers probe's GPU-against-CPU sections. The probes themselves are
 * the GPU's experiments: the cpu backend runs none of them alone. */
extern const wl_impl *const wl_cpu_probe_impls[];

#endif
