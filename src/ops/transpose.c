/* The library's transpose, warplab_transpose (include/warplab.h): out = in^T
 * for a row-major rows x cols matrix of floats or doubles, out of place, with
 * optional pitches (src/kernels/transpose_layout.h). It checks the call
 * (types, pitches, sizes, overlaps) and runs the transpose operation's best
 * implementation on the context's device (wl_context_run_op, its candidates below); the rungs
 * that climb to it are the transpose ladder (src/ladders/transpose/). */
#include "core/context.h"
#include "kernels/transpose_layout.h"
#include "ops/ops.h"

#include <string.h>

/* The implementations it runs, best first: the rung the ladder climbs to,
 * then, on a backend without it, the ladder's other rungs from the top down
 * (the host loops on the cpu backend). */
static const wl_op_candidate transpose_candidates[] = {
    {.impl = "vectorized_out"},
    {.impl = "vectorized_strip"},
    {.impl = "vectorized"},
    {.impl = "diagonal"},
    {.impl = "padded"},
    {.impl = "tiled"},
    {.impl = "naive_mirror"},
    {.impl = "naive"},
    {.impl = "cpu_blocked", .host = true},
    {.impl = "cpu_loop", .host = true},
};
const wl_op wl_transpose_op = {.name = "transpose",
                               .candidates = transpose_candidates,
                               .count =
                                   sizeof transpose_candidates / sizeof transpose_candidates[0]};

static warplab_status warplab_transpose_checked(warplab_context *context, warplab_dtype dtype,
                                                size_t rows, size_t cols, const warplab_buffer *in,
                                                size_t ld_in, warplab_buffer *out, size_t ld_out)
{
    if (!context)
        return WARPLAB_ERROR_INVALID_ARGUMENT;
    if (!in || !out)
        return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                               "transpose: the input and output buffers must not be NULL");
    if (dtype != WARPLAB_FLOAT32 && dtype != WARPLAB_FLOAT64)
        return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                               "transpose moves float or double elements, not %s",
                               warplab_dtype_name(dtype));
    if (in == out)
        return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                               "transpose is out of place: input and output must be different "
                               "buffers");
    if (ld_in == 0)
        ld_in = cols;
    if (ld_out == 0)
        ld_out = rows;
    if (ld_in < cols || ld_out < rows)
        return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                               "transpose of %zux%zu: ld_in %zu must be >= cols and ld_out %zu "
                               ">= rows",
                               rows, cols, ld_in, ld_out);
    const size_t element = warplab_dtype_size(dtype);
    if (!wl_transpose_fits(rows, ld_in, cols, ld_out, element))
        return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                               "transpose of %zux%zu (ld %zu/%zu) is too large to address", rows,
                               cols, ld_in, ld_out);
    /* The last row needs no padding after it. */
    const bool empty = rows == 0 || cols == 0;
    const size_t in_elements = empty ? 0 : (rows - 1) * ld_in + cols;
    const size_t out_elements = empty ? 0 : (cols - 1) * ld_out + rows;
    warplab_status status =
        wl_check_operand(context, in, "the transpose's input buffer", in_elements, element);
    if (status == WARPLAB_OK)
        status =
            wl_check_operand(context, out, "the transpose's output buffer", out_elements, element);
    if (status != WARPLAB_OK || empty)
        return status;
    const size_t in_bytes = in_elements * element, out_bytes = out_elements * element;
    if (wl_buffers_overlap(in, 0, in_bytes, out, 0, out_bytes))
        return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                               "transpose is out of place: the output overlaps the input");
    wl_problem problem;
    memset(&problem, 0, sizeof problem);
    problem.dim[0] = rows;
    problem.dim[1] = cols;
    problem.dims = 2;
    problem.ld[0] = ld_in;
    problem.ld[1] = ld_out;
    problem.dtype = dtype;
    wl_view views[2] = {wl_buffer_view(in, 0, in_bytes), wl_buffer_view(out, 0, out_bytes)};
    return wl_context_run_op(context, &wl_transpose_op, &problem, views, 2);
}

warplab_status warplab_transpose(warplab_context *context, warplab_dtype dtype, size_t rows,
                                 size_t cols, const warplab_buffer *in, size_t ld_in,
                                 warplab_buffer *out, size_t ld_out)
{
    if (!context)
        return wl_api_no_context("warplab_transpose", "the context");
    wl_api_begin(context);
    return wl_api_end(
        context, "warplab_transpose",
        warplab_transpose_checked(context, dtype, rows, cols, in, ld_in, out, ld_out));
}
