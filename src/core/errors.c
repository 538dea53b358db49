/* Status strings and where a failure's detail is kept: the context's slot,
 * or the thread's for calls without a context (warplab_last_error), and the
 * wrapper every public call goes through (wl_api_begin / wl_api_end). */
#include "core/context.h"

#include <stdarg.h>
#include <string.h>

const char *warplab_status_string(warplab_status status)
{
    switch (status) {
    case WARPLAB_OK: return "success";
    case WARPLAB_ERROR_INVALID_ARGUMENT: return "invalid argument";
    case WARPLAB_ERROR_UNKNOWN_NAME: return "unknown name";
    case WARPLAB_ERROR_HOST_OUT_OF_MEMORY: return "out of host memory";
    case WARPLAB_ERROR_DEVICE_OUT_OF_MEMORY: return "not enough device memory";
    case WARPLAB_ERROR_NO_DEVICE: return "no device found";
    case WARPLAB_ERROR_BACKEND_UNAVAILABLE: return "backend not compiled into this build";
    case WARPLAB_ERROR_UNSUPPORTED: return "outside the rung's limits";
    case WARPLAB_ERROR_VERIFICATION_FAILED: return "result disagrees with the CPU reference";
    case WARPLAB_ERROR_BACKEND: return "device runtime error";
    case WARPLAB_ERROR_IO: return "input/output error";
    case WARPLAB_STATUS_COUNT: break;
    }
    return "unknown status code";
}

/* The detail of the last failed create (or context-free call, such as the
 * occupancy arithmetic), so that warplab_last_error(NULL) can explain it. */
static _Thread_local char create_error[WL_ERROR_LEN];

char *wl_detached_error_slot(void)
{
    return create_error;
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

void wl_api_begin(warplab_context *context)
{
    if (context)
        context->error[0] = '\0';
    else
        create_error[0] = '\0';
}

warplab_status wl_api_end(warplab_context *context, const char *function, warplab_status status)
{
    if (status == WARPLAB_OK)
        return status;
    char *slot = context ? context->error : create_error;
    const size_t name = strlen(function);
    if (!slot[0]) {
        snprintf(slot, WL_ERROR_LEN, "%s: %s", function, warplab_status_string(status));
    } else if ((strncmp(slot, function, name) != 0 || slot[name] != ':') &&
               name + 2 < WL_ERROR_LEN) {
        /* "function: " before the detail, which loses its tail if need be. */
        size_t keep = strlen(slot);
        if (keep > WL_ERROR_LEN - 1 - (name + 2))
            keep = WL_ERROR_LEN - 1 - (name + 2);
        memmove(slot + name + 2, slot, keep);
        slot[name + 2 + keep] = '\0';
        memcpy(slot, function, name);
        slot[name] = ':';
        slot[name + 1] = ' ';
    }
    return status;
}

warplab_status wl_api_no_context(const char *function, const char *what)
{
    return wl_detached_fail(WARPLAB_ERROR_INVALID_ARGUMENT, "%s: %s is NULL", function, what);
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
