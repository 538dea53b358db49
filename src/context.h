/* The context and buffer objects behind the public handles. */
#ifndef WARPLAB_CONTEXT_H
#define WARPLAB_CONTEXT_H

#include "internal.h"

#include <stdio.h>

struct warplab_context {
    wl_backend *device; /* the chosen backend */
    wl_backend *host;   /* the cpu backend (the same object when cpu was chosen) */
    char error[WL_ERROR_LEN];
};

struct warplab_buffer {
    warplab_context *context;
    void *handle;
    size_t bytes;
};

warplab_status wl_context_fail(warplab_context *context, warplab_status status, const char *format,
                               ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* A view of a whole or part of a public buffer. */
wl_view wl_buffer_view(const warplab_buffer *buffer, size_t offset, size_t bytes);

/* Runs one implementation of a ladder (by the name in its wl_impl, which
 * need not be a rung: warplab_gemm_ex's "ex") the same way, workspace
 * included. */
warplab_status wl_context_run_impl(warplab_context *context, const char *ladder_name,
                                   const char *impl_name, const wl_problem *problem,
                                   const wl_view *views, int count);

/* Runs the ladder's best rung on the context's device and waits for it. */
warplab_status wl_context_run_best(warplab_context *context, const char *ladder_name,
                                   const wl_problem *problem, const wl_view *views, int count);

#endif
