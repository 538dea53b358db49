/* Contexts, devices, buffers and the library's own operations. */
#include "context.h"

#include <stdlib.h>
#include <string.h>

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

const wl_impl *wl_ops_find_impl(const wl_backend_ops *ops, const char *ladder, const char *rung)
{
    for (const wl_impl *const *const *table = ops->impls; table && *table; table++)
        for (const wl_impl *const *impl = *table; *impl; impl++)
            if (strcmp((*impl)->ladder, ladder) == 0 && strcmp((*impl)->rung, rung) == 0)
                return *impl;
    return NULL;
}

warplab_status wl_rung_supports(wl_backend *backend, const wl_rung *rung, const wl_impl *impl,
                                const wl_problem *problem, char *reason, size_t reason_len)
{
    warplab_status status = WARPLAB_OK;
    if (rung->supports)
        status = rung->supports(problem, &backend->info, reason, reason_len);
    if (status == WARPLAB_OK && impl->supports)
        status = impl->supports(backend, problem, reason, reason_len);
    return status;
}

const wl_impl *wl_backend_find_impl(const wl_backend *backend, const char *ladder, const char *rung)
{
    return wl_ops_find_impl(backend->ops, ladder, rung);
}

warplab_status warplab_devices(warplab_backend_kind kind, warplab_device_info *devices,
                               size_t capacity, size_t *count)
{
    if (!count || (capacity > 0 && !devices) || kind == WARPLAB_BACKEND_AUTO ||
        (unsigned)kind >= WARPLAB_BACKEND_COUNT)
        return WARPLAB_ERROR_INVALID_ARGUMENT;
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

/* The detail of the last failed create (or context-free call, such as the
 * occupancy arithmetic), so that warplab_last_error(NULL) can explain it. */
static _Thread_local char create_error[WL_ERROR_LEN];

warplab_status warplab_context_create(warplab_backend_kind kind, int device_index,
                                      warplab_context **context)
{
    if (!context || (unsigned)kind >= WARPLAB_BACKEND_COUNT)
        return WARPLAB_ERROR_INVALID_ARGUMENT;
    *context = NULL;
    create_error[0] = '\0';
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
                                  create_error, sizeof create_error);
    } else {
        status = open_backend(kind, device_index, &ctx->device, create_error, sizeof create_error);
    }
    if (status != WARPLAB_OK) {
        free(ctx);
        return status;
    }
    if (ctx->device->ops->kind == WARPLAB_BACKEND_CPU) {
        ctx->host = ctx->device;
    } else {
        status =
            open_backend(WARPLAB_BACKEND_CPU, 0, &ctx->host, create_error, sizeof create_error);
        if (status != WARPLAB_OK) {
            ctx->device->ops->close(ctx->device);
            free(ctx);
            return status;
        }
    }
    *context = ctx;
    return WARPLAB_OK;
}

void warplab_context_destroy(warplab_context *context)
{
    if (!context)
        return;
    if (context->host && context->host != context->device)
        context->host->ops->close(context->host);
    if (context->device)
        context->device->ops->close(context->device);
    free(context);
}

warplab_backend_kind warplab_context_backend(const warplab_context *context)
{
    return context ? context->device->ops->kind : WARPLAB_BACKEND_AUTO;
}

const warplab_device_info *warplab_context_device(const warplab_context *context)
{
    return context ? &context->device->info : NULL;
}

const char *warplab_last_error(const warplab_context *context)
{
    return context ? context->error : create_error;
}

void wl_detached_error_clear(void)
{
    create_error[0] = '\0';
}

warplab_status wl_detached_fail(warplab_status status, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(create_error, sizeof create_error, format, args);
    va_end(args);
    return status;
}

warplab_status wl_context_fail(warplab_context *context, warplab_status status, const char *format,
                               ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(context->error, sizeof context->error, format, args);
    va_end(args);
    return status;
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

warplab_status warplab_buffer_create(warplab_context *context, size_t bytes,
                                     warplab_buffer **buffer)
{
    if (!context || !buffer)
        return WARPLAB_ERROR_INVALID_ARGUMENT;
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
    b->bytes = bytes;
    *buffer = b;
    return WARPLAB_OK;
}

void warplab_buffer_destroy(warplab_buffer *buffer)
{
    if (!buffer)
        return;
    wl_backend *device = buffer->context->device;
    device->ops->release(device, buffer->handle);
    free(buffer);
}

size_t warplab_buffer_size(const warplab_buffer *buffer)
{
    return buffer ? buffer->bytes : 0;
}

static bool range_ok(const warplab_buffer *buffer, size_t offset, size_t bytes)
{
    return offset <= buffer->bytes && bytes <= buffer->bytes - offset;
}

warplab_status warplab_buffer_write(warplab_buffer *buffer, size_t offset_bytes, const void *source,
                                    size_t bytes)
{
    if (!buffer)
        return wl_detached_fail(WARPLAB_ERROR_INVALID_ARGUMENT, "warplab_buffer_write: no buffer");
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
    return from_backend(context, context->device->ops->upload(context->device, buffer->handle,
                                                              offset_bytes, source, bytes));
}

warplab_status warplab_buffer_read(const warplab_buffer *buffer, size_t offset_bytes,
                                   void *destination, size_t bytes)
{
    if (!buffer)
        return wl_detached_fail(WARPLAB_ERROR_INVALID_ARGUMENT, "warplab_buffer_read: no buffer");
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
                                                                offset_bytes, destination, bytes));
}

wl_view wl_buffer_view(const warplab_buffer *buffer, size_t offset, size_t bytes)
{
    wl_view view = {buffer->handle, offset, bytes};
    return view;
}

/* ------------------------------------------------------------------------ */
/* Running a ladder's best rung as a library operation                      */

/* The rung a library operation uses on this backend: the ladder's best when
 * the backend has it, else the highest safe rung it has. Host rungs qualify
 * only on the cpu backend (their buffers are host memory). */
static const wl_rung *pick_rung(const wl_backend *device, const wl_ladder *ladder,
                                const wl_problem *problem, const wl_impl **impl, char *reason,
                                size_t reason_len)
{
    const unsigned never = WL_RUNG_VENDOR | WL_RUNG_REFERENCE | WL_RUNG_TRANSFER | WL_RUNG_UNSAFE |
                           WL_RUNG_MAY_BE_WRONG | WL_RUNG_OFF_LADDER;
    const wl_rung *best = wl_rung_find(ladder, ladder->best_rung);
    for (size_t i = ladder->rung_count + 1; i-- > 0;) {
        const wl_rung *rung = i == ladder->rung_count ? best : &ladder->rungs[i];
        if (!rung || (rung->flags & never))
            continue;
        if ((rung->flags & WL_RUNG_HOST) && device->ops->kind != WARPLAB_BACKEND_CPU)
            continue;
        const wl_impl *candidate = wl_backend_find_impl(device, ladder->name, rung->id);
        if (!candidate)
            continue;
        if (wl_rung_supports((wl_backend *)device, rung, candidate, problem, reason, reason_len) ==
            WARPLAB_OK) {
            *impl = candidate;
            return rung;
        }
    }
    return NULL;
}

warplab_status wl_context_run_best(warplab_context *context, const char *ladder_name,
                                   const wl_problem *problem, const wl_view *views, int count)
{
    const wl_ladder *ladder = wl_ladder_find(ladder_name);
    if (!ladder)
        return wl_context_fail(context, WARPLAB_ERROR_UNKNOWN_NAME, "no ladder named '%s'",
                               ladder_name);
    wl_backend *device = context->device;
    const wl_impl *impl = NULL;
    char reason[256] = "";
    const wl_rung *rung = pick_rung(device, ladder, problem, &impl, reason, sizeof reason);
    if (!rung)
        return wl_context_fail(context, WARPLAB_ERROR_UNSUPPORTED,
                               "the %s backend has no rung of %s for this problem%s%s",
                               device->ops->name, ladder->name, reason[0] ? ": " : "", reason);
    warplab_status status = WARPLAB_OK;

    wl_launch launch;
    memset(&launch, 0, sizeof launch);
    launch.problem = problem;
    launch.buffers = count;
    for (int i = 0; i < count; i++)
        launch.buf[i] = views[i];
    void *scratch = NULL;
    size_t scratch_bytes = impl->scratch_bytes ? impl->scratch_bytes(device, problem) : 0;
    if (scratch_bytes) {
        status = device->ops->alloc(device, scratch_bytes, &scratch);
        if (status != WARPLAB_OK)
            return from_backend(context, status);
        launch.scratch.handle = scratch;
        launch.scratch.bytes = scratch_bytes;
    }
    void *state = NULL;
    if (impl->setup)
        status = impl->setup(device, &launch, &state);
    if (status == WARPLAB_OK && impl->prepare)
        status = impl->prepare(device, &launch, state);
    if (status == WARPLAB_OK)
        status = impl->launch(device, &launch, state);
    if (status == WARPLAB_OK && impl->finish)
        status = impl->finish(device, &launch, state);
    if (status == WARPLAB_OK)
        status = device->ops->synchronize(device);
    if (impl->teardown)
        impl->teardown(device, state);
    if (scratch)
        device->ops->release(device, scratch);
    return from_backend(context, status);
}
