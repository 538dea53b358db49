/* Contexts, devices, buffers and the library's own operations. */
#include "context.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static warplab_status warplab_devices_checked(warplab_backend_kind kind,
                                              warplab_device_info *devices, size_t capacity,
                                              size_t *count)
{
    if (!count || (capacity > 0 && !devices))
        return wl_detached_fail(WARPLAB_ERROR_INVALID_ARGUMENT,
                                "count is NULL, or devices is NULL with a capacity");
    if (kind == WARPLAB_BACKEND_AUTO || (unsigned)kind >= WARPLAB_BACKEND_COUNT)
        return wl_detached_fail(WARPLAB_ERROR_INVALID_ARGUMENT,
                                "no backend %d (cuda, opencl or cpu; not auto)", (int)kind);
    *count = 0;
    const wl_backend_ops *ops = wl_backend_ops_for(kind);
    if (!ops)
        return WARPLAB_OK;
    int present = 0;
    warplab_status status = ops->device_count(&present);
    if (status != WARPLAB_OK)
        return status == WARPLAB_ERROR_NO_DEVICE ? WARPLAB_OK : status;
    for (int i = 0; i < present && (size_t)i < capacity; i++) {
        status = ops->device_info(i, &devices[i]);
        if (status != WARPLAB_OK)
            return status;
    }
    *count = (size_t)present;
    return WARPLAB_OK;
}

warplab_status warplab_devices(warplab_backend_kind kind, warplab_device_info *devices,
                               size_t capacity, size_t *count)
{
    wl_api_begin(NULL);
    return wl_api_end(NULL, "warplab_devices",
                      warplab_devices_checked(kind, devices, capacity, count));
}

static warplab_status open_backend(warplab_backend_kind kind, int index, wl_backend **backend,
                                   char *error, size_t error_len)
{
    const wl_backend_ops *ops = wl_backend_ops_for(kind);
    if (!ops) {
        wl_format(error, error_len, "the %s backend is not compiled into this build",
                  warplab_backend_name(kind));
        return WARPLAB_ERROR_BACKEND_UNAVAILABLE;
    }
    int present = 0;
    warplab_status status = ops->device_count(&present);
    if (status == WARPLAB_OK && present == 0)
        status = WARPLAB_ERROR_NO_DEVICE;
    if (status != WARPLAB_OK) {
        wl_format(error, error_len, "the %s backend found no usable device",
                  warplab_backend_name(kind));
        return status;
    }
    if (index < 0)
        index = 0;
    if (index >= present) {
        wl_format(error, error_len, "the %s backend has %d device(s); index %d does not exist",
                  warplab_backend_name(kind), present, index);
        return WARPLAB_ERROR_INVALID_ARGUMENT;
    }
    return ops->open(index, backend, error, error_len);
}

static warplab_status warplab_context_create_checked(warplab_backend_kind kind, int device_index,
                                                     warplab_context **context)
{
    wl_detached_error_clear();
    if (!context)
        return wl_detached_fail(WARPLAB_ERROR_INVALID_ARGUMENT, "context (the result) is NULL");
    *context = NULL;
    if ((unsigned)kind >= WARPLAB_BACKEND_COUNT)
        return wl_detached_fail(WARPLAB_ERROR_INVALID_ARGUMENT,
                                "no backend %d (auto, cuda, opencl or cpu)", (int)kind);
    warplab_context *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return WARPLAB_ERROR_HOST_OUT_OF_MEMORY;
    warplab_status status;
    if (kind == WARPLAB_BACKEND_AUTO) {
        static const warplab_backend_kind order[] = {WARPLAB_BACKEND_CUDA, WARPLAB_BACKEND_OPENCL,
                                                     WARPLAB_BACKEND_CPU};
        status = WARPLAB_ERROR_NO_DEVICE;
        for (size_t i = 0; i < sizeof order / sizeof order[0] && status != WARPLAB_OK; i++)
            status = open_backend(order[i], device_index < 0 ? 0 : device_index, &ctx->device,
                                  wl_detached_error_slot(), WL_ERROR_LEN);
    } else {
        status =
            open_backend(kind, device_index, &ctx->device, wl_detached_error_slot(), WL_ERROR_LEN);
    }
    if (status != WARPLAB_OK) {
        free(ctx);
        return status;
    }
    if (ctx->device->ops->kind == WARPLAB_BACKEND_CPU) {
        ctx->host = ctx->device;
    } else {
        status = open_backend(WARPLAB_BACKEND_CPU, 0, &ctx->host, wl_detached_error_slot(),
                              WL_ERROR_LEN);
        if (status != WARPLAB_OK) {
            ctx->device->ops->close(ctx->device);
            free(ctx);
            return status;
        }
    }
    atomic_init(&ctx->references, 1);
    *context = ctx;
    return WARPLAB_OK;
}

warplab_status warplab_context_create(warplab_backend_kind kind, int device_index,
                                      warplab_context **context)
{
    wl_api_begin(NULL);
    return wl_api_end(NULL, "warplab_context_create",
                      warplab_context_create_checked(kind, device_index, context));
}

static void release_workspaces(warplab_context *context);

/* Drops one reference; the last closes the backends and frees the context. */
static void context_release(warplab_context *context)
{
    if (atomic_fetch_sub(&context->references, 1) != 1)
        return;
    if (context->host && context->host != context->device)
        context->host->ops->close(context->host);
    if (context->device)
        context->device->ops->close(context->device);
    free(context);
}

void warplab_context_destroy(warplab_context *context)
{
    if (!context)
        return;
    /* Work still queued may use the workspace: let it finish first. */
    if (context->device)
        context->device->ops->synchronize(context->device);
    release_workspaces(context);
    /* Buffers still alive keep the backend open until the last is destroyed. */
    context_release(context);
}

warplab_backend_kind warplab_context_backend(const warplab_context *context)
{
    return context ? context->device->ops->kind : WARPLAB_BACKEND_AUTO;
}

const warplab_device_info *warplab_context_device(const warplab_context *context)
{
    return context ? &context->device->info : NULL;
}

/* Copies the backend's detail into the context after a failed backend call. */
static warplab_status from_backend(warplab_context *context, warplab_status status)
{
    if (status != WARPLAB_OK)
        wl_copy_string(context->error, sizeof context->error, context->device->error);
    return status;
}

/* ------------------------------------------------------------------------ */
/* Buffers                                                                  */

static warplab_status warplab_buffer_create_checked(warplab_context *context, size_t bytes,
                                                    warplab_buffer **buffer)
{
    if (!buffer)
        return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                               "buffer (the result) is NULL");
    *buffer = NULL;
    warplab_buffer *b = calloc(1, sizeof *b);
    if (!b)
        return WARPLAB_ERROR_HOST_OUT_OF_MEMORY;
    /* A zero-byte buffer is legal (n = 0 problems); it still gets a handle. */
    warplab_status status =
        context->device->ops->alloc(context->device, bytes ? bytes : 4, &b->handle);
    if (status != WARPLAB_OK) {
        free(b);
        return from_backend(context, status);
    }
    b->context = context;
    atomic_fetch_add(&context->references, 1);
    b->bytes = bytes;
    b->owned = 1;
    atomic_init(&b->holders, 1);
    *buffer = b;
    return WARPLAB_OK;
}

warplab_status warplab_buffer_create(warplab_context *context, size_t bytes,
                                     warplab_buffer **buffer)
{
    if (!context)
        return wl_api_no_context("warplab_buffer_create", "the context");
    wl_api_begin(context);
    return wl_api_end(context, "warplab_buffer_create",
                      warplab_buffer_create_checked(context, bytes, buffer));
}

/* Drops one holder of a root buffer; the last frees its storage. */
static void buffer_root_release(warplab_buffer *root)
{
    if (atomic_fetch_sub(&root->holders, 1) != 1)
        return;
    warplab_context *context = root->context;
    wl_backend *device = context->device;
    if (root->owned)
        device->ops->release(device, root->handle);
    free(root);
    context_release(context);
}

void warplab_buffer_destroy(warplab_buffer *buffer)
{
    if (!buffer)
        return;
    warplab_buffer *root = buffer->root;
    if (!root) {
        buffer_root_release(buffer);
        return;
    }
    warplab_context *context = buffer->context;
    free(buffer);
    context_release(context);
    buffer_root_release(root);
}

size_t warplab_buffer_size(const warplab_buffer *buffer)
{
    return buffer ? buffer->bytes : 0;
}

static bool range_ok(const warplab_buffer *buffer, size_t offset, size_t bytes)
{
    return offset <= buffer->bytes && bytes <= buffer->bytes - offset;
}

static warplab_status warplab_buffer_write_checked(warplab_buffer *buffer, size_t offset_bytes,
                                                   const void *source, size_t bytes)
{
    warplab_context *context = buffer->context;
    if (!source && bytes)
        return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                               "warplab_buffer_write: the source is NULL for %zu bytes", bytes);
    if (!range_ok(buffer, offset_bytes, bytes))
        return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                               "write of %zu bytes at offset %zu past the end of a %zu-byte buffer",
                               bytes, offset_bytes, buffer->bytes);
    if (bytes == 0)
        return WARPLAB_OK;
    return from_backend(context,
                        context->device->ops->upload(context->device, buffer->handle,
                                                     buffer->offset + offset_bytes, source, bytes));
}

warplab_status warplab_buffer_write(warplab_buffer *buffer, size_t offset_bytes, const void *source,
                                    size_t bytes)
{
    if (!buffer)
        return wl_api_no_context("warplab_buffer_write", "the buffer");
    wl_api_begin(buffer->context);
    return wl_api_end(buffer->context, "warplab_buffer_write",
                      warplab_buffer_write_checked(buffer, offset_bytes, source, bytes));
}

static warplab_status warplab_buffer_read_checked(const warplab_buffer *buffer, size_t offset_bytes,
                                                  void *destination, size_t bytes)
{
    warplab_context *context = buffer->context;
    if (!destination && bytes)
        return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                               "warplab_buffer_read: the destination is NULL for %zu bytes", bytes);
    if (!range_ok(buffer, offset_bytes, bytes))
        return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                               "read of %zu bytes at offset %zu past the end of a %zu-byte buffer",
                               bytes, offset_bytes, buffer->bytes);
    if (bytes == 0)
        return WARPLAB_OK;
    return from_backend(context, context->device->ops->download(context->device, buffer->handle,
                                                                buffer->offset + offset_bytes,
                                                                destination, bytes));
}

warplab_status warplab_buffer_read(const warplab_buffer *buffer, size_t offset_bytes,
                                   void *destination, size_t bytes)
{
    if (!buffer)
        return wl_api_no_context("warplab_buffer_read", "the buffer");
    wl_api_begin(buffer->context);
    return wl_api_end(buffer->context, "warplab_buffer_read",
                      warplab_buffer_read_checked(buffer, offset_bytes, destination, bytes));
}

wl_view wl_buffer_view(const warplab_buffer *buffer, size_t offset, size_t bytes)
{
    wl_view view = {buffer->handle, buffer->offset + offset, bytes};
    return view;
}

bool wl_buffer_aligned(const warplab_buffer *buffer, size_t offset_bytes, size_t align)
{
    const size_t at = buffer->offset + offset_bytes;
    if (buffer->context->device->ops->kind == WARPLAB_BACKEND_OPENCL)
        return at % align == 0;
    return ((uintptr_t)buffer->handle + at) % align == 0;
}

warplab_status wl_check_operand(warplab_context *context, const warplab_buffer *buffer,
                                const char *name, size_t elements, size_t element_bytes)
{
    if (buffer->context != context)
        return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                               "%s belongs to another context", name);
    size_t bytes = 0;
    if (!wl_size_mul(elements, element_bytes, &bytes))
        return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                               "%s: %zu elements of %zu bytes do not fit in memory", name, elements,
                               element_bytes);
    if (buffer->bytes < bytes)
        return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                               "%s holds %zu bytes; its %zu-element view needs %zu", name,
                               buffer->bytes, elements, bytes);
    if (elements > 0 && !wl_buffer_aligned(buffer, 0, element_bytes))
        return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                               "%s does not start on a %zu-byte element boundary", name,
                               element_bytes);
    return WARPLAB_OK;
}

/* Where a buffer's bytes are, for overlap tests: on opencl the cl_mem and
 * an offset in it, elsewhere an address. */
static uintptr_t buffer_start(const warplab_buffer *buffer, size_t offset_bytes, const void **space)
{
    if (buffer->context->device->ops->kind == WARPLAB_BACKEND_OPENCL) {
        *space = buffer->handle;
        return buffer->offset + offset_bytes;
    }
    *space = NULL;
    return (uintptr_t)buffer->handle + buffer->offset + offset_bytes;
}

bool wl_buffers_overlap(const warplab_buffer *x, size_t x_offset, size_t x_bytes,
                        const warplab_buffer *y, size_t y_offset, size_t y_bytes)
{
    if (x_bytes == 0 || y_bytes == 0)
        return false;
    const void *x_space, *y_space;
    const uintptr_t x0 = buffer_start(x, x_offset, &x_space);
    const uintptr_t y0 = buffer_start(y, y_offset, &y_space);
    if (x_space != y_space)
        return false;
    return x0 < y0 + y_bytes && y0 < x0 + x_bytes;
}

bool wl_buffers_same_start(const warplab_buffer *x, const warplab_buffer *y)
{
    const void *x_space, *y_space;
    return buffer_start(x, 0, &x_space) == buffer_start(y, 0, &y_space) && x_space == y_space;
}

/* ------------------------------------------------------------------------ */
/* The caller's memory, streams and ordering                                */

static warplab_status warplab_buffer_wrap_checked(warplab_context *context, void *handle,
                                                  size_t bytes, warplab_buffer **buffer)
{
    if (!buffer)
        return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                               "buffer (the result) is NULL");
    *buffer = NULL;
    if (!handle)
        return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                               "warplab_buffer_wrap needs a handle (a device pointer, a cl_mem "
                               "or host memory)");
    wl_backend *device = context->device;
    if (device->ops->wrap_check) {
        warplab_status status = device->ops->wrap_check(device, handle, bytes);
        if (status != WARPLAB_OK)
            return from_backend(context, status);
    }
    warplab_buffer *b = calloc(1, sizeof *b);
    if (!b)
        return WARPLAB_ERROR_HOST_OUT_OF_MEMORY;
    b->context = context;
    atomic_fetch_add(&context->references, 1);
    b->handle = handle;
    b->bytes = bytes;
    b->owned = 0;
    atomic_init(&b->holders, 1);
    *buffer = b;
    return WARPLAB_OK;
}

warplab_status warplab_buffer_wrap(warplab_context *context, void *handle, size_t bytes,
                                   warplab_buffer **buffer)
{
    if (!context)
        return wl_api_no_context("warplab_buffer_wrap", "the context");
    wl_api_begin(context);
    return wl_api_end(context, "warplab_buffer_wrap",
                      warplab_buffer_wrap_checked(context, handle, bytes, buffer));
}

static warplab_status warplab_buffer_view_checked(warplab_buffer *parent, size_t offset_bytes,
                                                  size_t bytes, warplab_buffer **view)
{
    if (!view)
        return wl_context_fail(parent->context, WARPLAB_ERROR_INVALID_ARGUMENT,
                               "view (the result) is NULL");
    *view = NULL;
    if (!range_ok(parent, offset_bytes, bytes))
        return wl_context_fail(parent->context, WARPLAB_ERROR_INVALID_ARGUMENT,
                               "a view of %zu bytes at offset %zu is past the end of a %zu-byte "
                               "buffer",
                               bytes, offset_bytes, parent->bytes);
    warplab_buffer *b = calloc(1, sizeof *b);
    if (!b)
        return WARPLAB_ERROR_HOST_OUT_OF_MEMORY;
    b->context = parent->context;
    atomic_fetch_add(&b->context->references, 1);
    b->handle = parent->handle;
    b->offset = parent->offset + offset_bytes;
    b->bytes = bytes;
    b->owned = 0;
    b->root = parent->root ? parent->root : parent;
    atomic_fetch_add(&b->root->holders, 1);
    *view = b;
    return WARPLAB_OK;
}

warplab_status warplab_buffer_view(warplab_buffer *parent, size_t offset_bytes, size_t bytes,
                                   warplab_buffer **view)
{
    if (!parent)
        return wl_api_no_context("warplab_buffer_view", "the parent buffer");
    wl_api_begin(parent->context);
    return wl_api_end(parent->context, "warplab_buffer_view",
                      warplab_buffer_view_checked(parent, offset_bytes, bytes, view));
}

static warplab_status warplab_buffer_native_checked(const warplab_buffer *buffer, void **handle,
                                                    size_t *offset_bytes)
{
    if (!handle || !offset_bytes)
        return wl_context_fail(buffer->context, WARPLAB_ERROR_INVALID_ARGUMENT,
                               "handle and offset_bytes (the results) are needed");
    *handle = buffer->handle;
    *offset_bytes = buffer->offset;
    return WARPLAB_OK;
}

warplab_status warplab_buffer_native(const warplab_buffer *buffer, void **handle,
                                     size_t *offset_bytes)
{
    if (!buffer)
        return wl_api_no_context("warplab_buffer_native", "the buffer");
    wl_api_begin(buffer->context);
    return wl_api_end(buffer->context, "warplab_buffer_native",
                      warplab_buffer_native_checked(buffer, handle, offset_bytes));
}

void *warplab_context_native(const warplab_context *context)
{
    if (!context || !context->device->ops->native_context)
        return NULL;
    return context->device->ops->native_context(context->device);
}

static warplab_status warplab_context_set_stream_checked(warplab_context *context, void *stream)
{
    if (!context)
        return WARPLAB_ERROR_INVALID_ARGUMENT;
    wl_backend *device = context->device;
    if (!device->ops->set_stream) {
        if (!stream)
            return WARPLAB_OK;
        return wl_context_fail(context, WARPLAB_ERROR_UNSUPPORTED,
                               "the %s backend runs each operation to completion before it "
                               "returns; it has no stream to bind",
                               device->ops->name);
    }
    return from_backend(context, device->ops->set_stream(device, stream));
}

warplab_status warplab_context_set_stream(warplab_context *context, void *stream)
{
    if (!context)
        return wl_api_no_context("warplab_context_set_stream", "the context");
    wl_api_begin(context);
    return wl_api_end(context, "warplab_context_set_stream",
                      warplab_context_set_stream_checked(context, stream));
}

static warplab_status warplab_context_synchronize_checked(warplab_context *context)
{
    if (!context)
        return WARPLAB_ERROR_INVALID_ARGUMENT;
    return from_backend(context, context->device->ops->synchronize(context->device));
}

warplab_status warplab_context_synchronize(warplab_context *context)
{
    if (!context)
        return wl_api_no_context("warplab_context_synchronize", "the context");
    wl_api_begin(context);
    return wl_api_end(context, "warplab_context_synchronize",
                      warplab_context_synchronize_checked(context));
}

/* ------------------------------------------------------------------------ */
/* Running a library operation's implementations                            */

/* The operation's candidates the context's device has, in the operation's
 * order: host candidates only on the cpu backend (their buffers are host
 * memory). Resolved on the operation's first call on the context and kept
 * (a context is used by one thread at a time); NULL when the context holds
 * WL_CONTEXT_OPERATIONS others already. */
static const wl_operation *resolved(warplab_context *context, const wl_op *op)
{
    for (int i = 0; i < context->operation_count; i++)
        if (context->operations[i].op == op)
            return &context->operations[i];
    if (context->operation_count == WL_CONTEXT_OPERATIONS)
        return NULL;
    const wl_backend *device = context->device;
    wl_operation *operation = &context->operations[context->operation_count++];
    operation->op = op;
    operation->count = 0;
    for (size_t i = 0; i < op->count && operation->count < WL_OPERATION_MAX_CANDIDATES; i++) {
        const wl_impl *impl = wl_op_candidate_impl(device->ops, op, i);
        if (!impl)
            continue;
        operation->candidates[operation->count] = &op->candidates[i];
        operation->impls[operation->count++] = impl;
    }
    return operation;
}

const wl_impl *wl_op_candidate_impl(const wl_backend_ops *ops, const wl_op *op, size_t i)
{
    const wl_op_candidate *candidate = &op->candidates[i];
    if (candidate->host && ops->kind != WARPLAB_BACKEND_CPU)
        return NULL;
    return wl_ops_find_impl(ops, op->name, candidate->impl);
}

const wl_impl *wl_op_first_impl(const wl_backend_ops *ops, const wl_op *op)
{
    for (size_t i = 0; i < op->count; i++) {
        const wl_impl *impl = wl_op_candidate_impl(ops, op, i);
        if (impl)
            return impl;
    }
    return NULL;
}

/* Whether a candidate (its limits, then its impl's) takes the problem. */
static warplab_status candidate_takes(wl_backend *device, const wl_op_candidate *candidate,
                                      const wl_impl *impl, const wl_problem *problem, char *reason,
                                      size_t reason_len)
{
    warplab_status status = WARPLAB_OK;
    if (candidate->limits)
        status = candidate->limits(problem, &device->info, reason, reason_len);
    if (status == WARPLAB_OK && impl->supports)
        status = impl->supports(device, problem, reason, reason_len);
    return status;
}

const wl_impl *wl_op_pick(wl_backend *backend, const wl_op *op, const wl_problem *problem,
                          char *reason, size_t reason_len)
{
    if (!problem)
        return wl_op_first_impl(backend->ops, op);
    for (size_t i = 0; i < op->count; i++) {
        const wl_impl *impl = wl_op_candidate_impl(backend->ops, op, i);
        if (impl && candidate_takes(backend, &op->candidates[i], impl, problem, reason,
                                    reason_len) == WARPLAB_OK)
            return impl;
    }
    return NULL;
}

const wl_impl *wl_context_op_impl(warplab_context *context, const wl_op *op)
{
    const wl_operation *operation = resolved(context, op);
    return operation && operation->count > 0 ? operation->impls[0] : NULL;
}

/* The implementation an operation runs for this problem: the first of its
 * resolved candidates whose limits and impl take it. */
static const wl_impl *pick_impl(warplab_context *context, const wl_op *op,
                                const wl_problem *problem, char *reason, size_t reason_len)
{
    wl_backend *device = context->device;
    const wl_operation *operation = resolved(context, op);
    for (int i = 0; operation && i < operation->count; i++)
        if (candidate_takes(device, operation->candidates[i], operation->impls[i], problem, reason,
                            reason_len) == WARPLAB_OK)
            return operation->impls[i];
    return NULL;
}

/* The context's workspace for one implementation, at least bytes long. It
 * is reused from call to call; growing it waits for the work queued on the
 * stream (which may still use the old one) before releasing that, so the
 * first call at a larger size is not asynchronous (nor capturable). *kept
 * tells the rung whether the memory is what its last launch left. */
static warplab_status workspace_for(warplab_context *context, const wl_impl *impl, size_t bytes,
                                    void **handle, int *kept)
{
    wl_backend *device = context->device;
    wl_workspace *slot = NULL;
    for (int i = 0; i < context->workspace_count && !slot; i++)
        if (context->workspaces[i].impl == impl)
            slot = &context->workspaces[i];
    if (slot && slot->bytes >= bytes) {
        *handle = slot->handle;
        *kept = 1;
        return WARPLAB_OK;
    }
    if (!slot) {
        if (context->workspace_count == WL_WORKSPACES)
            return wl_fail(device, WARPLAB_ERROR_UNSUPPORTED,
                           "more than %d operations with a workspace in one context",
                           WL_WORKSPACES);
        slot = &context->workspaces[context->workspace_count++];
        slot->impl = impl;
    }
    if (slot->handle) {
        warplab_status status = device->ops->synchronize(device);
        if (status != WARPLAB_OK)
            return status;
        device->ops->release(device, slot->handle);
        slot->handle = NULL;
        slot->bytes = 0;
    }
    /* Grown with headroom, so that slowly growing sizes do not reallocate
     * every call. */
    size_t grown = bytes <= SIZE_MAX / 2 ? bytes + bytes / 2 : bytes;
    warplab_status status = device->ops->alloc(device, grown, &slot->handle);
    if (status != WARPLAB_OK)
        return status;
    /* Zeroed once, here, not per call: some kernels write their partial sums
     * through the copy engine (TMA bulk stores), whose writes
     * compute-sanitizer's initcheck does not track (docs/DECISIONS.md,
     * "initcheck does not see the copy engine's writes"), so the sum
     * kernel's reads would be reported as reads of unset memory. */
    status = device->ops->fill32(device, slot->handle, 0, 0u, grown & ~(size_t)3);
    if (status != WARPLAB_OK) {
        device->ops->release(device, slot->handle);
        slot->handle = NULL;
        return status;
    }
    slot->bytes = grown;
    *handle = slot->handle;
    *kept = 0;
    return WARPLAB_OK;
}

static void release_workspaces(warplab_context *context)
{
    wl_backend *device = context->device;
    if (!device)
        return;
    for (int i = 0; i < context->workspace_count; i++)
        if (context->workspaces[i].handle)
            device->ops->release(device, context->workspaces[i].handle);
    context->workspace_count = 0;
    if (context->result_host && device->ops->release_mapped)
        device->ops->release_mapped(device, context->result_host);
    else if (context->result_handle)
        device->ops->release(device, context->result_handle);
    context->result_host = context->result_handle = NULL;
}

warplab_status wl_context_result_slot(warplab_context *context, void **handle, void **host)
{
    wl_backend *device = context->device;
    if (!context->result_handle) {
        warplab_status status = WARPLAB_ERROR_UNSUPPORTED;
        if (device->ops->alloc_mapped)
            status = device->ops->alloc_mapped(device, WL_RESULT_SLOT_BYTES,
                                               &context->result_handle, &context->result_host);
        if (status != WARPLAB_OK) {
            context->result_host = NULL;
            status = device->ops->alloc(device, WL_RESULT_SLOT_BYTES, &context->result_handle);
            if (status != WARPLAB_OK) {
                context->result_handle = NULL;
                return from_backend(context, status);
            }
        }
    }
    *handle = context->result_handle;
    *host = context->result_host;
    return WARPLAB_OK;
}

/* Runs one implementation on the context's device with scratch from the
 * context's workspace, asynchronously on the context's stream
 * (wl_context_run_op and wl_context_run_impl). */
static warplab_status run_impl(warplab_context *context, const wl_impl *impl,
                               const wl_problem *problem, const wl_view *views, int count)
{
    wl_backend *device = context->device;
    warplab_status status = WARPLAB_OK;

    wl_launch launch;
    memset(&launch, 0, sizeof launch);
    launch.problem = problem;
    launch.buffers = count;
    for (int i = 0; i < count; i++)
        launch.buf[i] = views[i];
    size_t scratch_bytes = impl->scratch_bytes ? impl->scratch_bytes(device, problem) : 0;
    if (scratch_bytes) {
        status = workspace_for(context, impl, scratch_bytes, &launch.scratch.handle,
                               &launch.scratch_kept);
        if (status != WARPLAB_OK)
            return from_backend(context, status);
        launch.scratch.bytes = scratch_bytes;
    }
    /* No synchronisation: the work is queued on the context's stream, in
     * order with what came before and what comes after. */
    void *state = NULL;
    if (impl->setup)
        status = impl->setup(device, &launch, &state);
    if (status == WARPLAB_OK)
        status = wl_impl_run(device, impl, &launch, state, true);
    if (impl->teardown)
        impl->teardown(device, state);
    return from_backend(context, status);
}

warplab_status wl_context_run_op(warplab_context *context, const wl_op *op,
                                 const wl_problem *problem, const wl_view *views, int count)
{
    wl_backend *device = context->device;
    char reason[256] = "";
    const wl_impl *impl = pick_impl(context, op, problem, reason, sizeof reason);
    if (!impl)
        return wl_context_fail(context, WARPLAB_ERROR_UNSUPPORTED,
                               "the %s backend has no implementation of %s for this problem%s%s",
                               device->ops->name, op->name, reason[0] ? ": " : "", reason);
    return run_impl(context, impl, problem, views, count);
}

warplab_status wl_context_run_impl(warplab_context *context, const wl_impl *impl, const char *what,
                                   const wl_problem *problem, const wl_view *views, int count)
{
    wl_backend *device = context->device;
    if (!impl)
        return wl_context_fail(context, WARPLAB_ERROR_UNSUPPORTED, "the %s backend has no %s",
                               device->ops->name, what);
    char reason[256] = "";
    if (impl->supports && impl->supports(device, problem, reason, sizeof reason) != WARPLAB_OK)
        return wl_context_fail(context, WARPLAB_ERROR_UNSUPPORTED, "%s", reason);
    return run_impl(context, impl, problem, views, count);
}
