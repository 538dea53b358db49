/* Which problems the harness verifies on the device, and with what (see
 * reference.h). */
#include "reference.h"

#include <stdlib.h>
#include <string.h>

const wl_device_reference *wl_device_reference_for(const wl_backend *backend)
{
#ifdef WARPLAB_HAVE_CUDA
    if (backend && backend->ops->kind == WARPLAB_BACKEND_CUDA)
        return &wl_cuda_device_reference;
#endif
    (void)backend;
    return NULL;
}

size_t wl_device_verify_threshold(void)
{
    const char *text = getenv("WARPLAB_DEVICE_VERIFY_BYTES");
    if (text && *text) {
        char *end = NULL;
        unsigned long long value = strtoull(text, &end, 10);
        if (end && *end == '\0')
            return (size_t)value;
    }
    return WL_DEVICE_VERIFY_BYTES;
}

void wl_ladder_device_reference(const wl_ladder *ladder, const wl_rung *rung,
                                const wl_problem *problem, wl_reference_request *request)
{
    request->kind = WL_REFERENCE_NONE;
    request->precision = 0;
    if (ladder->device_reference)
        ladder->device_reference(rung, problem, request);
}

const char *wl_reference_name(wl_reference_kind kind)
{
    switch (kind) {
    case WL_REFERENCE_GEMM:
        return "verified on the device (double-precision GEMM reference, sampled)";
    case WL_REFERENCE_REDUCE:
        return "verified on the device (double-precision reduction reference)";
    case WL_REFERENCE_NONE: return "verified on the host";
    default: return "verified on the device (exact compare)";
    }
}
