/* The context and buffer objects behind the public handles. */
#ifndef WARPLAB_CONTEXT_H
#define WARPLAB_CONTEXT_H

#include "internal.h"

#include <stdio.h>

/* Scratch the library keeps for one rung implementation: grown when a
 * problem needs more, reused otherwise, never poisoned or zeroed. */
typedef struct wl_workspace {
    const wl_impl *impl;
    void *handle;
    size_t bytes;
} wl_workspace;

#define WL_WORKSPACES 16
/* Bytes of the context's result slot (one element of any type, 16-aligned). */
#define WL_RESULT_SLOT_BYTES 16

/* A library operation's dispatch, declared by the operation (src/ops/): the
 * implementations it may run, in its order of preference, each named as the
 * backends' impl tables name it (under the operation's name). A backend
 * runs the first of them it has that takes the problem. */
typedef struct wl_op_candidate {
    const char *impl; /* the impl's name in the backends' tables ("single_pass") */
    bool host;        /* a host implementation: a candidate on the cpu backend only */
    /* The kernel's own limits beyond its impl's, or NULL (the one-block
     * kernels' thread count, the untiled edges of the course's tiles). */
    warplab_status (*limits)(const wl_problem *problem, const warplab_device_info *device,
                             char *reason, size_t reason_len);
} wl_op_candidate;

typedef struct wl_op {
    const char *name; /* the impl tables' name: "reduce" */
    const wl_op_candidate *candidates;
    size_t count;
} wl_op;

/* An operation's candidates on the context's device, resolved on its first
 * call on the context (no lookup by name per call): those the device has. */
#define WL_OPERATION_MAX_CANDIDATES 32
#define WL_CONTEXT_OPERATIONS 16
typedef struct wl_operation {
    const wl_op *op;
    int count;
    const wl_op_candidate *candidates[WL_OPERATION_MAX_CANDIDATES];
    const wl_impl *impls[WL_OPERATION_MAX_CANDIDATES];
} wl_operation;

struct warplab_context {
    /* The caller's handle (until warplab_context_destroy) plus one for each
     * live buffer or view: the last one to go closes the backend. */
    _Atomic size_t references;
    wl_backend *device; /* the chosen backend */
    wl_backend *host;   /* the cpu backend (the same object when cpu was chosen) */
    char error[WL_ERROR_LEN];
    /* Per-implementation scratch, grown and reused from call to call. */
    wl_workspace workspaces[WL_WORKSPACES];
    int workspace_count;
    /* Where warplab_reduce's kernel writes its result: mapped host memory
     * (result_host, seen by kernels as result_handle) where the backend has
     * it, else a device buffer (result_host NULL) read back with a copy. */
    void *result_handle;
    void *result_host;
    /* The operations called so far on this context, resolved (in the order
     * of their first call). */
    wl_operation operations[WL_CONTEXT_OPERATIONS];
    int operation_count;
    /* warplab_gemm_force_candidate: the planner row every gemm call runs
     * (its index + 1); 0 = the planner's pick. */
    int gemm_candidate;
};

struct warplab_buffer {
    warplab_context *context;
    void *handle;
    size_t bytes;
    size_t offset; /* bytes from handle to the buffer's first byte (views) */
    int owned;     /* 1: warplab allocated handle and frees it */
    /* Views keep their storage alive: a view holds the buffer it aliases
     * (root, never itself a view), and the root is freed when the last of
     * it and its views is destroyed. holders counts the root's own handle
     * (until warplab_buffer_destroy) and each live view; 0 for a view. */
    warplab_buffer *root;
    _Atomic size_t holders;
};

/* The thread's detail slot (WL_ERROR_LEN bytes) that warplab_last_error(NULL)
 * reads: a failed create writes its detail there (src/core/errors.c). */
char *wl_detached_error_slot(void);

warplab_status wl_context_fail(warplab_context *context, warplab_status status, const char *format,
                               ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Whether x's bytes [x_offset, x_offset + x_bytes) and y's overlap in memory
 * (the same cl_mem on opencl; addresses elsewhere): the operations refuse
 * the overlaps their header forbids with it. Empty ranges overlap nothing. */
bool wl_buffers_overlap(const warplab_buffer *x, size_t x_offset, size_t x_bytes,
                        const warplab_buffer *y, size_t y_offset, size_t y_bytes);
/* Whether x and y start at the same byte (an operation done in place). */
bool wl_buffers_same_start(const warplab_buffer *x, const warplab_buffer *y);

/* A view of a whole or part of a public buffer. */
wl_view wl_buffer_view(const warplab_buffer *buffer, size_t offset, size_t bytes);

/* Whether the buffer's byte offset_bytes is aligned to align bytes (the
 * address on cuda and cpu, the offset in the cl_mem on opencl). */
bool wl_buffer_aligned(const warplab_buffer *buffer, size_t offset_bytes, size_t align);

/* The checks every operation makes of a buffer it is given, before any work:
 * it belongs to context, holds elements elements of element_bytes each (the
 * product overflow-checked), and (when it holds any) starts on an element
 * boundary. name ("buffer A", "the input") starts the message. */
warplab_status wl_check_operand(warplab_context *context, const warplab_buffer *buffer,
                                const char *name, size_t elements, size_t element_bytes);

/* The context's result slot (WL_RESULT_SLOT_BYTES, made on first use):
 * *handle is what kernels write; *host is where the host reads it after a
 * synchronize, or NULL when the slot is device memory (read it back with a
 * download). */
warplab_status wl_context_result_slot(warplab_context *context, void **handle, void **host);

/* Runs one implementation (one an operation resolved: wl_context_op_impl)
 * on the context's device, asynchronously on the context's stream, with
 * scratch from the context's workspace; what names it in the error when
 * impl is NULL ("gemm implementation 'ex'"). */
warplab_status wl_context_run_impl(warplab_context *context, const wl_impl *impl, const char *what,
                                   const wl_problem *problem, const wl_view *views, int count);

/* The first of op's candidates the context's device has (NULL: none), for an
 * operation of one implementation (warplab_gemm_ex's "ex"). */
const wl_impl *wl_context_op_impl(warplab_context *context, const wl_op *op);

/* An operation's choice without a context (the ladders' library rungs, which
 * the lab runs on its own backends). wl_op_candidate_impl: candidate i's
 * impl on a backend of these ops, or NULL where its tables lack it or i is
 * a host candidate and the backend is not the cpu's. wl_op_pick: what the
 * operation runs for problem on backend, the first candidate whose limits
 * and impl take it (NULL problem: the first the backend has), or NULL with
 * the last refusal in reason. A context makes the same choice from its
 * cached candidates. */
const wl_impl *wl_op_candidate_impl(const wl_backend_ops *ops, const wl_op *op, size_t i);
/* The first of op's candidates a backend of these ops has (NULL: none). */
const wl_impl *wl_op_first_impl(const wl_backend_ops *ops, const wl_op *op);
const wl_impl *wl_op_pick(wl_backend *backend, const wl_op *op, const wl_problem *problem,
                          char *reason, size_t reason_len);

/* Runs the first of op's candidates on the context's device that takes the
 * problem, as wl_context_run_impl does. */
warplab_status wl_context_run_op(warplab_context *context, const wl_op *op,
                                 const wl_problem *problem, const wl_view *views, int count);

#endif
