/* The library's vector add, warplab_vecadd (include/warplab.h): c = a + b over
 * n floats in the caller's buffers. It checks the call (buffers, sizes,
 * overlaps) and runs the vecadd operation's best implementation on the
 * context's device (wl_context_run_op, its candidates below); the rungs that climb to it are the
 * vecadd ladder (src/ladders/vecadd/). */
#include "kernels/vecadd.h"
#include "core/context.h"
#include "kernels/kernel_limits.h"
#include "ops/ops.h"

#include <string.h>

/* The implementations it runs, best first: the rung the ladder climbs to,
 * then, on a backend without it, the ladder's other rungs from the top down
 * (the host loops on the cpu backend). */
static const wl_op_candidate vecadd_candidates[] = {
    {.impl = "vectorized_flat"},
    {.impl = "vectorized"},
    {.impl = "grid_stride"},
    {.impl = "grid"},
    {.impl = "one_block", .limits = wl_vecadd_one_block_limits},
    {.impl = "cpu_threads", .host = true},
    {.impl = "cpu_loop", .host = true},
};
const wl_op wl_vecadd_op = {.name = "vecadd",
                            .candidates = vecadd_candidates,
                            .count = sizeof vecadd_candidates / sizeof vecadd_candidates[0]};

static warplab_status warplab_vecadd_checked(warplab_context *context, const warplab_buffer *a,
                                             const warplab_buffer *b, warplab_buffer *c, size_t n)
{
    if (!context)
        return WARPLAB_ERROR_INVALID_ARGUMENT;
    const warplab_buffer *all[3] = {a, b, c};
    for (int i = 0; i < 3; i++)
        if (!all[i])
            return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT, "buffer %c is NULL",
                                   'a' + i);
    static const char *const names[3] = {"buffer a", "buffer b", "buffer c"};
    for (int i = 0; i < 3; i++) {
        warplab_status status = wl_check_operand(context, all[i], names[i], n, sizeof(float));
        if (status != WARPLAB_OK)
            return status;
    }
    const size_t bytes = n * sizeof(float);
    /* c may be a or b exactly (in place); any other overlap is refused. */
    for (int i = 0; i < 2; i++)
        if (wl_buffers_overlap(c, 0, bytes, all[i], 0, bytes) && !wl_buffers_same_start(c, all[i]))
            return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                                   "buffer c overlaps buffer %c without being it (c may be a or b "
                                   "exactly, in place, but not a shifted view of either)",
                                   'a' + i);
    if (n == 0)
        return WARPLAB_OK;
    wl_problem problem;
    memset(&problem, 0, sizeof problem);
    problem.dim[0] = n;
    problem.dims = 1;
    problem.dtype = WARPLAB_FLOAT32;
    wl_view views[3] = {wl_buffer_view(a, 0, bytes), wl_buffer_view(b, 0, bytes),
                        wl_buffer_view(c, 0, bytes)};
    return wl_context_run_op(context, &wl_vecadd_op, &problem, views, 3);
}

warplab_status warplab_vecadd(warplab_context *context, const warplab_buffer *a,
                              const warplab_buffer *b, warplab_buffer *c, size_t n)
{
    if (!context)
        return wl_api_no_context("warplab_vecadd", "the context");
    wl_api_begin(context);
    return wl_api_end(context, "warplab_vecadd", warplab_vecadd_checked(context, a, b, c, n));
}
