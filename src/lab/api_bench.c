/* warplab_bench_api: the library's operations against the vendor calls with
 * the same contract (the cuda backend's src/lab/cuda/api_bench.cu does the work). */
#include "core/context.h"

#include "warplab_lab.h"
#include <string.h>

#ifdef WARPLAB_HAVE_CUDA
warplab_status wl_cuda_bench_api(warplab_context *context, wl_backend *device,
                                 const warplab_bench_options *options, warplab_report **report);
#endif

static warplab_status warplab_bench_api_checked(warplab_context *context,
                                                const warplab_bench_options *options,
                                                warplab_report **report)
{
    if (!context || !report)
        return WARPLAB_ERROR_INVALID_ARGUMENT;
    *report = NULL;
    warplab_bench_options defaults;
    if (!options) {
        memset(&defaults, 0, sizeof defaults);
        options = &defaults;
    }
    if (context->device->ops->kind != WARPLAB_BACKEND_CUDA)
        return wl_context_fail(context, WARPLAB_ERROR_UNSUPPORTED,
                               "bench api compares warplab with CUB and cuBLAS, which need the "
                               "cuda backend; this context runs on %s",
                               context->device->ops->name);
#ifdef WARPLAB_HAVE_CUDA
    warplab_status status = wl_cuda_bench_api(context, context->device, options, report);
    if (status != WARPLAB_OK)
        wl_copy_string(context->error, sizeof context->error, context->device->error);
    return status;
#else
    return WARPLAB_ERROR_BACKEND_UNAVAILABLE;
#endif
}

warplab_status warplab_bench_api(warplab_context *context, const warplab_bench_options *options,
                                 warplab_report **report)
{
    if (!context)
        return wl_api_no_context("warplab_bench_api", "the context");
    wl_api_begin(context);
    return wl_api_end(context, "warplab_bench_api",
                      warplab_bench_api_checked(context, options, report));
}
