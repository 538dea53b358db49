/* The library's reduction (include/warplab.h): warplab_reduce (one value to
 * the host), warplab_reduce_to_buffer (into the caller's device memory) and
 * the reduction operators' names. Each call checks its arguments, answers
 * n = 0 with the identity, and runs the reduce operation's best
 * implementation on the context's device (wl_context_run_op, its candidates below); the rungs
 * that climb to it are the reduction ladder (src/ladders/reduce/). */
#include "core/context.h"
#include "ops/ops.h"

#include <math.h>
#include <string.h>
#include <strings.h>

static const char *const op_names[WARPLAB_REDUCE_OP_COUNT] = {"sum", "min", "max"};

const char *warplab_reduce_op_name(warplab_reduce_op op)
{
    return (unsigned)op < WARPLAB_REDUCE_OP_COUNT ? op_names[op] : "unknown";
}

warplab_status wl_reduce_op_lookup(const char *name, warplab_reduce_op *op)
{
    for (int i = 0; i < WARPLAB_REDUCE_OP_COUNT; i++)
        if (strcasecmp(name, op_names[i]) == 0) {
            *op = (warplab_reduce_op)i;
            return WARPLAB_OK;
        }
    return WARPLAB_ERROR_UNKNOWN_NAME;
}

/* The implementations it runs, best first: the rung the ladder climbs to,
 * then, on a backend without it, the ladder's other rungs from the top down
 * (the host loops on the cpu backend). */
static const wl_op_candidate reduce_candidates[] = {
    {.impl = "single_pass"},
    {.impl = "atomic_block"},
    {.impl = "atomic_warp"},
    {.impl = "shuffle"},
    {.impl = "cascade"},
    {.impl = "brent"},
    {.impl = "complete_unroll"},
    {.impl = "warp_syncwarp"},
    {.impl = "first_add"},
    {.impl = "sequential"},
    {.impl = "strided_index"},
    {.impl = "interleaved"},
    {.impl = "naive"},
    {.impl = "cpu_threads", .host = true},
    {.impl = "cpu_loop", .host = true},
};
const wl_op wl_reduce_op = {.name = "reduce",
                            .candidates = reduce_candidates,
                            .count = sizeof reduce_candidates / sizeof reduce_candidates[0]};

static warplab_status warplab_reduce_op_parse_checked(const char *name, warplab_reduce_op *op)
{
    warplab_reduce_op parsed;
    if (!name || !op)
        return wl_detached_fail(WARPLAB_ERROR_INVALID_ARGUMENT, "name and op are needed");
    if (wl_reduce_op_lookup(name, &parsed) != WARPLAB_OK)
        return wl_detached_fail(WARPLAB_ERROR_UNKNOWN_NAME, "no reduction '%s' (sum, min, max)",
                                name);
    *op = (warplab_reduce_op)parsed;
    return WARPLAB_OK;
}

warplab_status warplab_reduce_op_parse(const char *name, warplab_reduce_op *op)
{
    wl_api_begin(NULL);
    return wl_api_end(NULL, "warplab_reduce_op_parse", warplab_reduce_op_parse_checked(name, op));
}

/* The result of reducing nothing. */
static void write_identity(warplab_dtype dtype, warplab_reduce_op op, void *result)
{
    switch (dtype) {
    case WARPLAB_INT32: {
        int32_t v = op == WARPLAB_REDUCE_MIN ? INT32_MAX : op == WARPLAB_REDUCE_MAX ? INT32_MIN : 0;
        memcpy(result, &v, sizeof v);
        break;
    }
    case WARPLAB_FLOAT32: {
        float v = op == WARPLAB_REDUCE_MIN ? INFINITY : op == WARPLAB_REDUCE_MAX ? -INFINITY : 0.0f;
        memcpy(result, &v, sizeof v);
        break;
    }
    default: {
        double v = op == WARPLAB_REDUCE_MIN ? INFINITY : op == WARPLAB_REDUCE_MAX ? -INFINITY : 0.0;
        memcpy(result, &v, sizeof v);
        break;
    }
    }
}

/* The checks both reductions share; *bytes receives n's size in bytes. */
static warplab_status check_reduce(warplab_context *context, warplab_dtype dtype,
                                   warplab_reduce_op op, const warplab_buffer *input, size_t n,
                                   size_t *bytes)
{
    if (dtype != WARPLAB_INT32 && dtype != WARPLAB_FLOAT32 && dtype != WARPLAB_FLOAT64)
        return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                               "reduce takes int32, float or double elements, not %s (%d)",
                               warplab_dtype_name(dtype), (int)dtype);
    if ((unsigned)op >= WARPLAB_REDUCE_OP_COUNT)
        return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                               "no reduction %d (sum, min or max)", (int)op);
    const size_t element = warplab_dtype_size(dtype);
    warplab_status status = wl_check_operand(context, input, "the input buffer", n, element);
    if (status != WARPLAB_OK)
        return status;
    *bytes = n * element;
    return WARPLAB_OK;
}

static wl_problem reduce_problem(warplab_dtype dtype, warplab_reduce_op op, size_t n)
{
    wl_problem problem;
    memset(&problem, 0, sizeof problem);
    problem.dim[0] = n;
    problem.dims = 1;
    problem.dtype = dtype;
    problem.op = (warplab_reduce_op)op;
    return problem;
}

/* The host result: the kernel writes the context's result slot (mapped host
 * memory on cuda, so no copy is queued at all); one wait, then the value is
 * read. Nothing is allocated after the first call. */
static warplab_status warplab_reduce_checked(warplab_context *context, warplab_dtype dtype,
                                             warplab_reduce_op op, const warplab_buffer *input,
                                             size_t n, void *result)
{
    if (!context)
        return WARPLAB_ERROR_INVALID_ARGUMENT;
    if (!input || !result)
        return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                               "warplab_reduce needs an input buffer and a result pointer");
    size_t bytes = 0;
    warplab_status status = check_reduce(context, dtype, op, input, n, &bytes);
    if (status != WARPLAB_OK)
        return status;
    if (n == 0) {
        write_identity(dtype, op, result);
        return WARPLAB_OK;
    }
    const size_t element = warplab_dtype_size(dtype);
    void *slot = NULL, *slot_host = NULL;
    status = wl_context_result_slot(context, &slot, &slot_host);
    if (status != WARPLAB_OK)
        return status;
    const wl_problem problem = reduce_problem(dtype, op, n);
    wl_view views[2] = {wl_buffer_view(input, 0, bytes), {slot, 0, element}};
    status = wl_context_run_op(context, &wl_reduce_op, &problem, views, 2);
    if (status != WARPLAB_OK)
        return status;
    wl_backend *device = context->device;
    unsigned char value[8];
    if (slot_host) {
        status = device->ops->synchronize(device);
        if (status == WARPLAB_OK)
            memcpy(value, slot_host, element);
    } else {
        status = device->ops->download(device, slot, 0, value, element);
    }
    if (status != WARPLAB_OK)
        return wl_context_fail(context, status, "%s", device->error);
    memcpy(result, value, element);
    return WARPLAB_OK;
}

warplab_status warplab_reduce(warplab_context *context, warplab_dtype dtype, warplab_reduce_op op,
                              const warplab_buffer *input, size_t n, void *result)
{
    if (!context)
        return wl_api_no_context("warplab_reduce", "the context");
    wl_api_begin(context);
    return wl_api_end(context, "warplab_reduce",
                      warplab_reduce_checked(context, dtype, op, input, n, result));
}

static warplab_status warplab_reduce_to_buffer_checked(warplab_context *context,
                                                       warplab_dtype dtype, warplab_reduce_op op,
                                                       const warplab_buffer *input, size_t n,
                                                       warplab_buffer *output,
                                                       size_t output_offset_bytes)
{
    if (!context)
        return WARPLAB_ERROR_INVALID_ARGUMENT;
    if (!input || !output)
        return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                               "warplab_reduce_to_buffer needs an input and an output buffer");
    size_t bytes = 0;
    warplab_status status = check_reduce(context, dtype, op, input, n, &bytes);
    if (status != WARPLAB_OK)
        return status;
    const size_t element = warplab_dtype_size(dtype);
    if (output->context != context)
        return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                               "the output buffer belongs to another context");
    if (output_offset_bytes > warplab_buffer_size(output) ||
        warplab_buffer_size(output) - output_offset_bytes < element)
        return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                               "a %zu-byte result at offset %zu is past the end of a %zu-byte "
                               "output buffer",
                               element, output_offset_bytes, warplab_buffer_size(output));
    if (!wl_buffer_aligned(output, output_offset_bytes, element))
        return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                               "the result's place (offset %zu) is not aligned to its element "
                               "size (%zu bytes)",
                               output_offset_bytes, element);
    if (wl_buffers_overlap(output, output_offset_bytes, element, input, 0, bytes))
        return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                               "the result's place (offset %zu) is among the %zu input elements "
                               "being reduced; it must be memory of its own",
                               output_offset_bytes, n);
    if (n == 0) {
        unsigned char identity[8];
        write_identity(dtype, op, identity);
        return warplab_buffer_write(output, output_offset_bytes, identity, element);
    }
    const wl_problem problem = reduce_problem(dtype, op, n);
    wl_view views[2] = {wl_buffer_view(input, 0, bytes),
                        wl_buffer_view(output, output_offset_bytes, element)};
    return wl_context_run_op(context, &wl_reduce_op, &problem, views, 2);
}

warplab_status warplab_reduce_to_buffer(warplab_context *context, warplab_dtype dtype,
                                        warplab_reduce_op op, const warplab_buffer *input, size_t n,
                                        warplab_buffer *output, size_t output_offset_bytes)
{
    if (!context)
        return wl_api_no_context("warplab_reduce_to_buffer", "the context");
    wl_api_begin(context);
    return wl_api_end(context, "warplab_reduce_to_buffer",
                      warplab_reduce_to_buffer_checked(context, dtype, op, input, n, output,
                                                       output_offset_bytes));
}
