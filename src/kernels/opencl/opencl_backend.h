/* What the OpenCL rung launchers need from the opencl backend. */
#ifndef WARPLAB_OPENCL_BACKEND_H
#define WARPLAB_OPENCL_BACKEND_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include "internal.h"

#include <CL/cl.h>

/* One kernel argument: a value of size bytes, or (value NULL) a __local
 * array of size bytes. */
typedef struct wl_cl_arg {
    size_t size;
    const void *value;
} wl_cl_arg;

#define WL_CL_VALUE(x) ((wl_cl_arg){sizeof(x), &(x)})
#define WL_CL_LOCAL(bytes) ((wl_cl_arg){(bytes), NULL})

/* The cl_mem of a view, and its offset in elements of element_size bytes
 * (views may start anywhere, so kernels take a base and an offset). */
static inline cl_mem wl_cl_mem(wl_view view)
{
    return (cl_mem)view.handle;
}
static inline cl_ulong wl_cl_offset(wl_view view, size_t element_size)
{
    return (cl_ulong)(view.offset / element_size);
}

/* Enqueues kernel `kernel` of the program built from <program>.cl (a file of
 * src/kernels/opencl/kernels/ or src/opencl/kernels/; built once per backend,
 * on first use). global[] is rounded up to a multiple of local[] (PoCL has no
 * non-uniform work-groups); kernels bounds-check. local may be NULL (the
 * runtime picks). */
warplab_status wl_opencl_launch(wl_backend *backend, const char *program, const char *kernel,
                                cl_uint dims, const size_t *global, const size_t *local,
                                int arg_count, const wl_cl_arg *args);

/* The queue, for copies and fills that rungs enqueue themselves. */
cl_command_queue wl_opencl_queue(wl_backend *backend);

warplab_status wl_opencl_check(wl_backend *backend, cl_int error, const char *what);
const char *wl_opencl_error_name(cl_int error);

/* Embedded kernel sources (cmake/embed_opencl.cmake, from the .cl files). */
typedef struct wl_opencl_source {
    const char *name;
    const char *text;
} wl_opencl_source;
extern const wl_opencl_source wl_opencl_sources[];
extern const size_t wl_opencl_source_count;

/* Rung tables, one per ladder. */
#define WL_LADDER(name) extern const wl_impl *const wl_opencl_##name##_impls[];
#include "core/ladders.def"
#undef WL_LADDER
extern const wl_impl *const wl_opencl_gemm_ex_impls[]; /* warplab_gemm_ex and its rungs */
extern const wl_impl *const wl_opencl_probe_impls[];

#endif
