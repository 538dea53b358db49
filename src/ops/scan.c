/* The library's scan, warplab_scan (include/warplab.h): the inclusive or
 * exclusive prefix of n elements by sum, min or max, into the caller's
 * buffer (or in place). It checks the call (type, operation, kind, buffers,
 * sizes, overlaps) before any work and runs the scan operation's best
 * implementation on the context's device (wl_context_run_op, its candidates below); the rungs
 * that climb to it are the scan ladder (src/ladders/scan/). */
#include "core/context.h"
#include "kernels/kernel_limits.h"
#include "ops/ops.h"

#include <string.h>

warplab_status wl_scan_op_lookup(const char *name, warplab_reduce_op *op, int *kind)
{
    int parsed = WARPLAB_SCAN_INCLUSIVE;
    if (strncmp(name, "exclusive-", 10) == 0) {
        parsed = WARPLAB_SCAN_EXCLUSIVE;
        name += 10;
    } else if (strncmp(name, "inclusive-", 10) == 0) {
        name += 10;
    }
    warplab_status status = wl_reduce_op_lookup(name, op);
    if (status == WARPLAB_OK)
        *kind = parsed;
    return status;
}

/* The implementations it runs, best first: the rung the ladder climbs to,
 * then, on a backend without it, the ladder's other rungs from the top down
 * (the host loops on the cpu backend). */
static const wl_op_candidate scan_candidates[] = {
    {.impl = "bulk_pipeline"},
    {.impl = "vectorized"},
    {.impl = "lookback"},
    {.impl = "chained"},
    {.impl = "reduce_then_scan"},
    {.impl = "scan_then_propagate"},
    {.impl = "warp_shuffle", .limits = wl_scan_one_block_limits},
    {.impl = "conflict_free", .limits = wl_scan_one_block_limits},
    {.impl = "blelloch", .limits = wl_scan_one_block_limits},
    {.impl = "hillis_steele", .limits = wl_scan_one_block_limits},
    {.impl = "cpu_loop", .host = true},
};
const wl_op wl_scan_op = {.name = "scan",
                          .candidates = scan_candidates,
                          .count = sizeof scan_candidates / sizeof scan_candidates[0]};

static warplab_status warplab_scan_checked(warplab_context *context, warplab_dtype dtype,
                                           warplab_reduce_op op, warplab_scan_kind kind,
                                           const warplab_buffer *input, warplab_buffer *output,
                                           size_t n)
{
    if (!context)
        return WARPLAB_ERROR_INVALID_ARGUMENT;
    if (!input || !output)
        return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                               "warplab_scan needs an input and an output buffer");
    if (dtype != WARPLAB_INT32 && dtype != WARPLAB_FLOAT32 && dtype != WARPLAB_FLOAT64)
        return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                               "scan takes int32, float or double elements, not %s (%d)",
                               warplab_dtype_name(dtype), (int)dtype);
    if ((unsigned)op >= WARPLAB_REDUCE_OP_COUNT)
        return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                               "no scan operation %d (sum, min or max)", (int)op);
    if ((unsigned)kind >= WARPLAB_SCAN_KIND_COUNT)
        return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                               "no scan kind %d (WARPLAB_SCAN_INCLUSIVE or "
                               "WARPLAB_SCAN_EXCLUSIVE)",
                               (int)kind);
    const size_t element = warplab_dtype_size(dtype);
    warplab_status status = wl_check_operand(context, input, "the input buffer", n, element);
    if (status == WARPLAB_OK)
        status = wl_check_operand(context, output, "the output buffer", n, element);
    if (status != WARPLAB_OK)
        return status;
    const size_t bytes = n * element; /* wl_check_operand checked the product */
    if (wl_buffers_overlap(output, 0, bytes, input, 0, bytes) &&
        !wl_buffers_same_start(output, input))
        return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                               "the output overlaps the input without being it (a scan may run "
                               "in place, output = input from the same byte, but not into a "
                               "shifted view of it)");
    if (n == 0)
        return WARPLAB_OK;
    wl_problem problem;
    memset(&problem, 0, sizeof problem);
    problem.dim[0] = n;
    problem.dims = 1;
    problem.dtype = dtype;
    problem.op = op;
    problem.variant = (int)kind;
    wl_view views[2] = {wl_buffer_view(input, 0, bytes), wl_buffer_view(output, 0, bytes)};
    return wl_context_run_op(context, &wl_scan_op, &problem, views, 2);
}

warplab_status warplab_scan(warplab_context *context, warplab_dtype dtype, warplab_reduce_op op,
                            warplab_scan_kind kind, const warplab_buffer *input,
                            warplab_buffer *output, size_t n)
{
    if (!context)
        return wl_api_no_context("warplab_scan", "the context");
    wl_api_begin(context);
    return wl_api_end(context, "warplab_scan",
                      warplab_scan_checked(context, dtype, op, kind, input, output, n));
}
