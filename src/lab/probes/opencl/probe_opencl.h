/* What the opencl backend's probe files share: the argument list of a
 * launch, a one-dimensional launch, and the series each file defines (listed
 * in probe_opencl.c's table). One file per probe: probe_<name>_opencl.c with
 * its kernels in kernels/probe_<name>.cl. */
#ifndef WARPLAB_PROBE_OPENCL_H
#define WARPLAB_PROBE_OPENCL_H

#include "../probe.h"
#include "../probe_kernels.h"
#include "kernels/opencl/opencl_backend.h"

/* Every probe buffer holds 4-byte elements: a view is a cl_mem and an
 * element offset, two kernel arguments. */
typedef struct probe_args {
    cl_mem mem[WL_MAX_BUFFERS];
    cl_ulong off[WL_MAX_BUFFERS];
    cl_ulong u64[4];
    cl_uint u32[5];
    wl_cl_arg list[20];
    int count;
} probe_args;

/* The views of buffers [0, views), in order. */
static inline void args_views(probe_args *a, const wl_launch *launch, int views)
{
    a->count = 0;
    for (int i = 0; i < views; i++) {
        a->mem[i] = wl_cl_mem(launch->buf[i]);
        a->off[i] = wl_cl_offset(launch->buf[i], 4);
        a->list[a->count++] = WL_CL_VALUE(a->mem[i]);
        a->list[a->count++] = WL_CL_VALUE(a->off[i]);
    }
}

static inline void arg_u64(probe_args *a, int slot, cl_ulong value)
{
    a->u64[slot] = value;
    a->list[a->count++] = WL_CL_VALUE(a->u64[slot]);
}

static inline void arg_u32(probe_args *a, int slot, cl_uint value)
{
    a->u32[slot] = value;
    a->list[a->count++] = WL_CL_VALUE(a->u32[slot]);
}

/* One-dimensional launch of kernel in program (kernels/<program>.cl), in
 * work-groups of WL_PROBE_BLOCK. */
static inline warplab_status wl_probe_cl_launch(wl_backend *backend, const char *program,
                                                const char *kernel, size_t work,
                                                const probe_args *a)
{
    const size_t local = WL_PROBE_BLOCK;
    return wl_opencl_launch(backend, program, kernel, 1, &work, &local, a->count, a->list);
}

/* probe_coalescing_opencl.c */
extern const wl_impl wl_opencl_probe_offset, wl_opencl_probe_stride;
/* probe_banks_opencl.c */
extern const wl_impl wl_opencl_probe_word4, wl_opencl_probe_word8;
/* probe_divergence_opencl.c */
extern const wl_impl wl_opencl_probe_lane, wl_opencl_probe_warp, wl_opencl_probe_block;
/* probe_atomics_opencl.c */
extern const wl_impl wl_opencl_probe_global_int, wl_opencl_probe_shared_int,
    wl_opencl_probe_cas_float;
/* the atomic_functions section's series, in wl_atomic_function order */
extern const wl_impl wl_opencl_probe_atomic_functions[10];
/* probe_intrinsics_opencl.c */
extern const wl_impl wl_opencl_probe_div_mod, wl_opencl_probe_shift_mask;
/* probe_memories_opencl.c */
extern const wl_impl wl_opencl_probe_constant, wl_opencl_probe_global_table,
    wl_opencl_probe_registers, wl_opencl_probe_local;
/* probe_latency_opencl.c */
extern const wl_impl wl_opencl_probe_dependent, wl_opencl_probe_loads_1, wl_opencl_probe_loads_4,
    wl_opencl_probe_loads_16;
/* probe_tiles_opencl.c */
extern const wl_impl wl_opencl_probe_square_block, wl_opencl_probe_eight_rows;
/* probe_unroll_opencl.c */
extern const wl_impl wl_opencl_probe_rolled, wl_opencl_probe_compiler, wl_opencl_probe_pragma,
    wl_opencl_probe_by_hand;

#endif
