/* The table of the backends compiled into this build. It stands apart from
 * names.c so that a program that only names types and sizes (the emulated
 * kernel tests, linked against the static library) does not pull every
 * backend, and with it every kernel, out of the archive. */
#include "internal.h"

const wl_backend_ops *wl_backend_ops_for(warplab_backend_kind kind)
{
    switch (kind) {
#ifdef WARPLAB_HAVE_CUDA
    case WARPLAB_BACKEND_CUDA: return &wl_cuda_backend_ops;
#endif
#ifdef WARPLAB_HAVE_OPENCL
    case WARPLAB_BACKEND_OPENCL: return &wl_opencl_backend_ops;
#endif
    case WARPLAB_BACKEND_CPU: return &wl_cpu_backend_ops;
    default: return NULL;
    }
}

int warplab_backend_compiled(warplab_backend_kind kind)
{
    return kind == WARPLAB_BACKEND_AUTO || wl_backend_ops_for(kind) != NULL;
}
