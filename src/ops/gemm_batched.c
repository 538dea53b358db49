/* warplab_gemm_batched_ex (include/warplab.h): warplab_gemm_ex over a batch
 * of matrices a fixed number of elements apart, in the spirit of
 * cublasGemmStridedBatchedEx.
 *
 * Every argument is checked first, every size product and byte count
 * overflow-checked (the last element of the last matrix must lie inside
 * its buffer). Then the GEMM planner (src/kernels/gemm_plan.h) plans the batch
 * as one descriptor: where a row takes batches (wgmma_batched: the batch
 * one more dimension of the kernel's grid, one launch), the backend's
 * "batched" implementation runs it. Elsewhere (other backends, other
 * types, rows or strides off 16 bytes, k = 0, a row forced by name) the
 * batch runs as a loop over its matrices, each one warplab_gemm_ex's own
 * planned run on views of the caller's buffers: the documented fallback,
 * one launch (or more) a matrix, nothing allocated. */
#include "core/context.h"
#include "kernels/gemm_problem.h"
#include "ops/ops.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* The backend implementation {"gemm", WL_GEMM_BATCHED_IMPL} (src/kernels/gemm_problem.h) runs a
 * batch the planner gave a batched row (cuda: src/cuda/gemm/gemm_batched.cu).
 * It answers WARPLAB_ERROR_UNSUPPORTED only before it queues anything, and
 * the batch then runs as the loop. */

/* The batched entry, the one implementation the batch runs as a whole. */
static const wl_op_candidate batched_candidates[] = {{.impl = WL_GEMM_BATCHED_IMPL}};
static const wl_op gemm_batched_op = {.name = "gemm", .candidates = batched_candidates, .count = 1};

static const char *const operand_names[3] = {"buffer A", "buffer B", "buffer C"};

/* Elements that `batch` matrices of `span` elements, `stride` apart, reach:
 * (batch - 1) * stride + span, or 0 when there are none. False on overflow. */
static bool batch_span(size_t batch, size_t stride, size_t span, size_t *elements)
{
    *elements = 0;
    if (batch == 0 || span == 0)
        return true;
    size_t reach = 0;
    return wl_size_mul(batch - 1, stride, &reach) && wl_size_add(reach, span, elements);
}

static bool below_2_31(size_t rows, size_t cols)
{
    return rows == 0 || cols == 0 || (double)rows * (double)cols < 2147483648.0;
}

static warplab_status gemm_batched_checked(warplab_context *context, warplab_op op_a,
                                           warplab_op op_b, size_t m, size_t n, size_t k,
                                           float alpha, const warplab_buffer *a,
                                           warplab_dtype a_type, size_t lda, size_t stride_a,
                                           const warplab_buffer *b, warplab_dtype b_type,
                                           size_t ldb, size_t stride_b, float beta,
                                           warplab_buffer *c, warplab_dtype c_type, size_t ldc,
                                           size_t stride_c, size_t batch, warplab_compute compute)
{
    const warplab_status contract =
        wl_gemm_check_contract(context, a, b, c, op_a, op_b, a_type, b_type, c_type, compute);
    if (contract != WARPLAB_OK)
        return contract;
    const bool trans_a = op_a == WARPLAB_OP_T, trans_b = op_b == WARPLAB_OP_T;
    const size_t rows[3] = {trans_a ? k : m, trans_b ? n : k, m};
    const size_t cols[3] = {trans_a ? m : k, trans_b ? k : n, n};
    size_t ld[3] = {lda, ldb, ldc};
    for (int i = 0; i < 3; i++)
        ld[i] = ld[i] ? ld[i] : cols[i];
    if (ld[0] < cols[0] || ld[1] < cols[1] || ld[2] < cols[2])
        return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                               "row strides too small: A is stored %zu x %zu (lda=%zu), B %zu x "
                               "%zu (ldb=%zu), C %zu x %zu (ldc=%zu)",
                               rows[0], cols[0], ld[0], rows[1], cols[1], ld[1], m, n, ld[2]);
    if (!isfinite(alpha) || !isfinite(beta))
        return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                               "alpha and beta must be finite (got %g, %g)", (double)alpha,
                               (double)beta);
    for (int i = 0; i < 3; i++)
        if (!below_2_31(rows[i], ld[i]))
            return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                                   "%zu x %zu x %zu: each matrix of A, B and C must span fewer "
                                   "than 2^31 elements (%s: %zu rows of %zu)",
                                   m, n, k, operand_names[i], rows[i], ld[i]);
    if (batch > (size_t)INT32_MAX)
        return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                               "batch is at most 2^31 - 1 (got %zu)", batch);
    const size_t span_c = wl_gemm_span(m, n, ld[2]);
    /* C's matrices are written at once: they must not share an element.
     * Either each one's span ends before the next begins, or their rows
     * interleave (the matrices side by side in one row pitch: stride_c at
     * least n, and the last one's row inside ldc). */
    if (batch > 1 && span_c > 0) {
        size_t last = 0, row_end = 0;
        const bool apart = stride_c >= span_c;
        const bool side_by_side = stride_c >= n && wl_size_mul(batch - 1, stride_c, &last) &&
                                  wl_size_add(last, n, &row_end) && row_end <= ld[2];
        if (!apart && !side_by_side)
            return wl_context_fail(
                context, WARPLAB_ERROR_INVALID_ARGUMENT,
                "stride_c = %zu makes C's matrices overlap: each one spans %zu elements (m = %zu "
                "rows of ldc = %zu); stride_c must be at least that, or at least n = %zu with the "
                "batch's rows side by side in ldc ((batch - 1) * stride_c + n <= ldc)%s",
                stride_c, span_c, m, ld[2], n,
                stride_c == 0 ? "; stride 0 (one matrix for the whole batch) is for A and B" : "");
    }
    const warplab_buffer *all[3] = {a, b, c};
    const size_t sizes[3] = {warplab_dtype_size(a_type), warplab_dtype_size(b_type),
                             warplab_dtype_size(c_type)};
    const size_t strides[3] = {stride_a, stride_b, stride_c};
    size_t spans[3], totals[3];
    for (int i = 0; i < 3; i++) {
        spans[i] = wl_gemm_span(rows[i], cols[i], ld[i]);
        if (!batch_span(batch, strides[i], spans[i], &totals[i]))
            return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                                   "%s: %zu matrices of %zu elements, %zu apart, reach past "
                                   "2^64 elements",
                                   operand_names[i], batch, spans[i], strides[i]);
        const warplab_status status =
            wl_check_operand(context, all[i], operand_names[i], totals[i], sizes[i]);
        if (status != WARPLAB_OK)
            return status;
    }
    for (int i = 0; i < 2; i++)
        if (totals[2] > 0 && (c == all[i] || wl_buffers_overlap(c, 0, totals[2] * sizes[2], all[i],
                                                                0, totals[i] * sizes[i])))
            return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                                   "C overlaps %s in memory; C must be a buffer of its own (it "
                                   "is written while A and B are read)",
                                   operand_names[i]);
    if (m == 0 || n == 0 || batch == 0)
        return WARPLAB_OK;

    wl_problem problem = wl_gemm_ex_problem(op_a, op_b, m, n, k, alpha, a_type, ld[0], ld[1], beta,
                                            c_type, ld[2], compute);
    wl_backend *device = context->device;
    if (batch > 1 && device->info.backend == WARPLAB_BACKEND_CUDA) {
        wl_view views[3];
        for (int i = 0; i < 3; i++) {
            views[i] = wl_buffer_view(all[i], 0, totals[i] * sizes[i]);
            problem.stride[i] = strides[i];
        }
        problem.batch = batch;
        size_t count = 0;
        const wl_gemm_candidate *table = wl_gemm_candidates(&count);
        const char *force =
            context->gemm_candidate > 0 ? table[context->gemm_candidate - 1].name : NULL;
        const wl_gemm_desc desc = wl_gemm_desc_of(&problem, wl_view_ptr(views[0]),
                                                  wl_view_ptr(views[1]), wl_view_ptr(views[2]));
        const wl_gemm_target target = wl_gemm_target_for(device);
        const wl_gemm_route plan = wl_gemm_plan_cached(&desc, &target, force);
        if (plan.candidate >= 0 && table[plan.candidate].batched) {
            const wl_impl *impl = wl_context_op_impl(context, &gemm_batched_op);
            const warplab_status status =
                wl_context_run_impl(context, impl, "gemm implementation '" WL_GEMM_BATCHED_IMPL "'",
                                    &problem, views, 3);
            if (status != WARPLAB_ERROR_UNSUPPORTED)
                return status;
            context->error[0] = '\0'; /* nothing was queued: the loop runs it */
        }
        problem.batch = 0;
        memset(problem.stride, 0, sizeof problem.stride);
    }
    /* The loop: one warplab_gemm_ex run a matrix, on views of the caller's
     * buffers (no allocation: the views are values). */
    for (size_t i = 0; i < batch; i++) {
        wl_view views[3];
        for (int o = 0; o < 3; o++)
            views[o] = wl_buffer_view(all[o], i * strides[o] * sizes[o], spans[o] * sizes[o]);
        const warplab_status status = wl_gemm_ex_run(context, &problem, views);
        if (status != WARPLAB_OK)
            return status;
    }
    return WARPLAB_OK;
}

warplab_status warplab_gemm_batched_ex(warplab_context *context, warplab_op op_a, warplab_op op_b,
                                       size_t m, size_t n, size_t k, float alpha,
                                       const warplab_buffer *a, warplab_dtype a_type, size_t lda,
                                       size_t stride_a, const warplab_buffer *b,
                                       warplab_dtype b_type, size_t ldb, size_t stride_b,
                                       float beta, warplab_buffer *c, warplab_dtype c_type,
                                       size_t ldc, size_t stride_c, size_t batch,
                                       warplab_compute compute)
{
    if (!context)
        return wl_api_no_context("warplab_gemm_batched_ex", "the context");
    wl_api_begin(context);
    return wl_api_end(context, "warplab_gemm_batched_ex",
                      gemm_batched_checked(context, op_a, op_b, m, n, k, alpha, a, a_type, lda,
                                           stride_a, b, b_type, ldb, stride_b, beta, c, c_type, ldc,
                                           stride_c, batch, compute));
}
