/* The library's matrix multiply (include/warplab.h): warplab_gemm (FP32,
 * row-major N, N), warplab_gemm_ex (any layout, FP32/BF16/FP16 inputs,
 * FP32 or the input type out, FP32 or TF32 compute) and
 * warplab_gemm_force_candidate. Every argument is checked first; then the
 * GEMM planner (src/kernels/gemm_plan.h) says which path runs: warplab_gemm's
 * (the candidates below, the shape-aware dispatcher on cuda) or the
 * backend's gemm_ex entry. warplab_gemm_batched_ex is gemm_batched.c. The
 * rungs that climb to these calls are the GEMM ladder (src/ladders/gemm.c). */
#include "core/context.h"
#include "kernels/gemm_problem.h"
#include "kernels/kernel_limits.h"
#include "ops/ops.h"

#include <math.h>
#include <string.h>

/* warplab_gemm's FP32 row-major path: the implementations it runs, best
 * first: the shape-aware dispatcher the ladder climbs to, then, on a backend
 * without it, the ladder's other rungs from the top down (the host loops on
 * the cpu backend). */
static const wl_op_candidate gemm_candidates[] = {
    {.impl = "dispatch"},
    {.impl = "frag_256x128_s6"},
    {.impl = "tuned"},
    {.impl = "warptile"},
    {.impl = "double_buffered"},
    {.impl = "conflict_free"},
    {.impl = "vectorized"},
    {.impl = "regblock_2d"},
    {.impl = "regblock_1d"},
    {.impl = "tiled_bounds"},
    {.impl = "tiled32", .limits = wl_gemm_tiled32_limits},
    {.impl = "tiled16", .limits = wl_gemm_tiled16_limits},
    {.impl = "many_blocks"},
    {.impl = "one_block", .limits = wl_gemm_one_block_limits},
    {.impl = "cpu_blocked", .host = true, .limits = wl_gemm_cpu_blocked_limits},
    {.impl = "cpu_loop", .host = true, .limits = wl_gemm_cpu_loop_limits},
};
const wl_op wl_gemm_op = {.name = "gemm",
                          .candidates = gemm_candidates,
                          .count = sizeof gemm_candidates / sizeof gemm_candidates[0]};

/* warplab_gemm_ex's entry on each backend (not a rung: the ladder's ex_*
 * rungs run it), and warplab_gemm_batched_ex's batched one. */
static const wl_op_candidate gemm_ex_candidates[] = {{.impl = WL_GEMM_EX_IMPL}};
static const wl_op gemm_ex_op = {.name = "gemm", .candidates = gemm_ex_candidates, .count = 1};

static const wl_impl *gemm_ex_impl(warplab_context *context)
{
    return wl_context_op_impl(context, &gemm_ex_op);
}

/* ------------------------------------------------------------------------ */
/* warplab_gemm_ex                                                          */

static bool gemm_ex_input_type(warplab_dtype type)
{
    return type == WARPLAB_FLOAT32 || type == WARPLAB_BFLOAT16 || type == WARPLAB_FLOAT16;
}

/* The contract warplab_gemm_ex and warplab_gemm_batched_ex share: the three
 * buffers, the ops, the compute mode and the types. */
warplab_status wl_gemm_check_contract(warplab_context *context, const warplab_buffer *a,
                                      const warplab_buffer *b, const warplab_buffer *c,
                                      warplab_op op_a, warplab_op op_b, warplab_dtype a_type,
                                      warplab_dtype b_type, warplab_dtype c_type,
                                      warplab_compute compute)
{
    if (!a || !b || !c)
        return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                               "needs buffers A, B and C (%s%s%s is NULL)", a ? "" : "A ",
                               b ? "" : "B ", c ? "" : "C");
    if ((unsigned)op_a >= WARPLAB_OP_COUNT || (unsigned)op_b >= WARPLAB_OP_COUNT)
        return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                               "op_a and op_b are WARPLAB_OP_N or WARPLAB_OP_T (got %d, %d)",
                               (int)op_a, (int)op_b);
    if ((unsigned)compute >= WARPLAB_COMPUTE_COUNT)
        return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                               "compute is WARPLAB_COMPUTE_FP32 or WARPLAB_COMPUTE_TF32 (got %d)",
                               (int)compute);
    if (!gemm_ex_input_type(a_type) || b_type != a_type)
        return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                               "A and B must have one type, float, bf16 or fp16 (got %s and %s)",
                               warplab_dtype_name(a_type), warplab_dtype_name(b_type));
    if (c_type != WARPLAB_FLOAT32 && c_type != a_type)
        return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                               "C is float or the input type %s (got %s)",
                               warplab_dtype_name(a_type), warplab_dtype_name(c_type));
    if (compute == WARPLAB_COMPUTE_TF32 && a_type != WARPLAB_FLOAT32)
        return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                               "TF32 compute takes float inputs (got %s); 16-bit inputs are "
                               "multiplied exactly with FP32 sums (WARPLAB_COMPUTE_FP32)",
                               warplab_dtype_name(a_type));
    return WARPLAB_OK;
}

static warplab_status
warplab_gemm_ex_checked(warplab_context *context, warplab_op op_a, warplab_op op_b, size_t m,
                        size_t n, size_t k, float alpha, const warplab_buffer *a,
                        warplab_dtype a_type, size_t lda, const warplab_buffer *b,
                        warplab_dtype b_type, size_t ldb, float beta, warplab_buffer *c,
                        warplab_dtype c_type, size_t ldc, warplab_compute compute)
{
    if (!context)
        return WARPLAB_ERROR_INVALID_ARGUMENT;
    const warplab_status contract =
        wl_gemm_check_contract(context, a, b, c, op_a, op_b, a_type, b_type, c_type, compute);
    if (contract != WARPLAB_OK)
        return contract;
    const bool trans_a = op_a == WARPLAB_OP_T, trans_b = op_b == WARPLAB_OP_T;
    const size_t a_rows = trans_a ? k : m, a_cols = trans_a ? m : k;
    const size_t b_rows = trans_b ? n : k, b_cols = trans_b ? k : n;
    if (lda == 0)
        lda = a_cols;
    if (ldb == 0)
        ldb = b_cols;
    if (ldc == 0)
        ldc = n;
    if (lda < a_cols || ldb < b_cols || ldc < n)
        return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                               "row strides too small: A is stored %zu x %zu (lda=%zu), B %zu x "
                               "%zu (ldb=%zu), C %zu x %zu (ldc=%zu)",
                               a_rows, a_cols, lda, b_rows, b_cols, ldb, m, n, ldc);
    if (!isfinite(alpha) || !isfinite(beta))
        return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                               "alpha and beta must be finite (got %g, %g)", (double)alpha,
                               (double)beta);
    if (!wl_gemm_fits_int32(a_rows, lda) || !wl_gemm_fits_int32(b_rows, ldb) ||
        !wl_gemm_fits_int32(m, ldc))
        return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                               "%zu x %zu x %zu: A, B and C must each span fewer than 2^31 "
                               "elements",
                               m, n, k);
    const warplab_buffer *all[3] = {a, b, c};
    const size_t spans[3] = {wl_gemm_span(a_rows, a_cols, lda), wl_gemm_span(b_rows, b_cols, ldb),
                             wl_gemm_span(m, n, ldc)};
    const size_t sizes[3] = {warplab_dtype_size(a_type), warplab_dtype_size(b_type),
                             warplab_dtype_size(c_type)};
    static const char *const names[3] = {"buffer A", "buffer B", "buffer C"};
    for (int i = 0; i < 3; i++) {
        warplab_status status = wl_check_operand(context, all[i], names[i], spans[i], sizes[i]);
        if (status != WARPLAB_OK)
            return status;
    }
    /* C is written while A and B are read: its span must not overlap
     * theirs, whether the same buffer or views of one memory. */
    for (int i = 0; i < 2; i++)
        if (spans[2] > 0 && (c == all[i] || wl_buffers_overlap(c, 0, spans[2] * sizes[2], all[i], 0,
                                                               spans[i] * sizes[i])))
            return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT,
                                   "C overlaps %s in memory; C must be a buffer of its own (it "
                                   "is written while A and B are read)",
                                   names[i]);
    if (m == 0 || n == 0)
        return WARPLAB_OK;
    const wl_problem problem = wl_gemm_ex_problem(op_a, op_b, m, n, k, alpha, a_type, lda, ldb,
                                                  beta, c_type, ldc, compute);
    wl_view views[3];
    for (int i = 0; i < 3; i++)
        views[i] = wl_buffer_view(all[i], 0, spans[i] * sizes[i]);
    return wl_gemm_ex_run(context, &problem, views);
}

wl_problem wl_gemm_ex_problem(warplab_op op_a, warplab_op op_b, size_t m, size_t n, size_t k,
                              float alpha, warplab_dtype a_type, size_t lda, size_t ldb, float beta,
                              warplab_dtype c_type, size_t ldc, warplab_compute compute)
{
    const bool trans_a = op_a == WARPLAB_OP_T, trans_b = op_b == WARPLAB_OP_T;
    wl_problem problem;
    memset(&problem, 0, sizeof problem);
    problem.dim[0] = m;
    problem.dim[1] = n;
    problem.dim[2] = k;
    problem.dims = 3;
    problem.ld[0] = lda;
    problem.ld[1] = ldb;
    problem.ld[2] = ldc;
    problem.alpha = (double)alpha;
    problem.beta = (double)beta;
    problem.dtype = a_type;
    problem.variant = (trans_a ? WL_GEMM_TRANS_A : 0) | (trans_b ? WL_GEMM_TRANS_B : 0) |
                      (compute == WARPLAB_COMPUTE_TF32 ? WL_GEMM_COMPUTE_TF32 : 0) |
                      (c_type != WARPLAB_FLOAT32 ? WL_GEMM_C_INPUT_TYPE : 0);
    return problem;
}

warplab_status wl_gemm_ex_run(warplab_context *context, const wl_problem *problem_in,
                              const wl_view views[3])
{
    wl_problem problem = *problem_in;
    const size_t m = wl_gemm_m(&problem), n = wl_gemm_n(&problem), k = wl_gemm_k(&problem);
    const warplab_op op_a = wl_gemm_trans_a(&problem) ? WARPLAB_OP_T : WARPLAB_OP_N;
    const warplab_op op_b = wl_gemm_trans_b(&problem) ? WARPLAB_OP_T : WARPLAB_OP_N;
    const warplab_dtype a_type = problem.dtype;
    /* A candidate forced (warplab_gemm_force_candidate, cuda): it runs the
     * call or the call fails, never another path. fp32_dispatch is
     * warplab_gemm's path (FP32 products meet the TF32 contract); the
     * others are the ex path's, told by problem.param. */
    if (context->gemm_candidate > 0 && context->device->info.backend == WARPLAB_BACKEND_CUDA) {
        size_t count = 0;
        const wl_gemm_candidate *row = &wl_gemm_candidates(&count)[context->gemm_candidate - 1];
        const wl_gemm_desc desc = wl_gemm_desc_of(&problem, wl_view_ptr(views[0]),
                                                  wl_view_ptr(views[1]), wl_view_ptr(views[2]));
        const wl_gemm_target target = wl_gemm_target_for(context->device);
        const char *refusal = wl_gemm_candidate_refusal(row, &desc, &target);
        if (refusal)
            return wl_context_fail(context, WARPLAB_ERROR_UNSUPPORTED,
                                   "the forced candidate %s cannot take %zu x %zu x %zu (%s): %s",
                                   row->name, m, n, k, wl_gemm_layout_name(op_a, op_b), refusal);
        if (context->gemm_candidate - 1 == wl_gemm_candidate_find("fp32_dispatch")) {
            problem.variant = 0;
            return wl_context_run_op(context, &wl_gemm_op, &problem, views, 3);
        }
        problem.param = context->gemm_candidate;
        return wl_context_run_impl(context, gemm_ex_impl(context),
                                   "gemm implementation '" WL_GEMM_EX_IMPL "'", &problem, views, 3);
    }
    /* FP32 on float row-major operands is warplab_gemm's problem: its path
     * (the ladder's best rung, the shape-aware dispatcher on cuda), unless
     * the planner (src/kernels/gemm_plan.h) picks another candidate for it on
     * cuda (the GEMV family for m or n small), which the ex path runs. */
    if (problem.variant == 0 && a_type == WARPLAB_FLOAT32) {
        bool planned_elsewhere = false;
        if (context->device->info.backend == WARPLAB_BACKEND_CUDA) {
            const wl_gemm_desc desc = wl_gemm_desc_of(&problem, NULL, NULL, NULL);
            const wl_gemm_target target = wl_gemm_target_for(context->device);
            const wl_gemm_route plan = wl_gemm_plan_cached(&desc, &target, NULL);
            planned_elsewhere =
                plan.candidate >= 0 && plan.candidate != wl_gemm_candidate_find("fp32_dispatch");
        }
        if (!planned_elsewhere)
            return wl_context_run_op(context, &wl_gemm_op, &problem, views, 3);
    }
    /* TF32 on float N, N operands where the planner picks fp32_dispatch:
     * its pick runs (FP32 products meet TF32's bound), as when forced, not
     * the TF32 chooser's own choice. */
    if (problem.variant == WL_GEMM_COMPUTE_TF32 && a_type == WARPLAB_FLOAT32 &&
        context->device->info.backend == WARPLAB_BACKEND_CUDA) {
        const wl_gemm_desc desc = wl_gemm_desc_of(&problem, wl_view_ptr(views[0]),
                                                  wl_view_ptr(views[1]), wl_view_ptr(views[2]));
        const wl_gemm_target target = wl_gemm_target_for(context->device);
        const wl_gemm_route plan = wl_gemm_plan_cached(&desc, &target, NULL);
        if (plan.candidate >= 0 && plan.candidate == wl_gemm_candidate_find("fp32_dispatch")) {
            problem.variant = 0;
            return wl_context_run_op(context, &wl_gemm_op, &problem, views, 3);
        }
    }
    return wl_context_run_impl(context, gemm_ex_impl(context),
                               "gemm implementation '" WL_GEMM_EX_IMPL "'", &problem, views, 3);
}

warplab_status warplab_gemm_ex(warplab_context *context, warplab_op op_a, warplab_op op_b, size_t m,
                               size_t n, size_t k, float alpha, const warplab_buffer *a,
                               warplab_dtype a_type, size_t lda, const warplab_buffer *b,
                               warplab_dtype b_type, size_t ldb, float beta, warplab_buffer *c,
                               warplab_dtype c_type, size_t ldc, warplab_compute compute)
{
    if (!context)
        return wl_api_no_context("warplab_gemm_ex", "the context");
    wl_api_begin(context);
    return wl_api_end(context, "warplab_gemm_ex",
                      warplab_gemm_ex_checked(context, op_a, op_b, m, n, k, alpha, a, a_type, lda,
                                              b, b_type, ldb, beta, c, c_type, ldc, compute));
}

warplab_status wl_gemm_force_candidate(warplab_context *context, const char *candidate)
{
    if (!candidate) {
        context->gemm_candidate = 0;
        return WARPLAB_OK;
    }
    const int row = wl_gemm_candidate_find(candidate);
    if (row < 0) {
        char names[256] = "";
        size_t count = 0;
        const wl_gemm_candidate *rows = wl_gemm_candidates(&count);
        for (size_t i = 0; i < count; i++)
            wl_format(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "",
                      rows[i].name);
        return wl_context_fail(context, WARPLAB_ERROR_UNKNOWN_NAME,
                               "no GEMM planner candidate '%s' (%s)", candidate, names);
    }
    context->gemm_candidate = row + 1;
    return WARPLAB_OK;
}

warplab_status warplab_gemm(warplab_context *context, size_t m, size_t n, size_t k, float alpha,
                            const warplab_buffer *a, size_t lda, const warplab_buffer *b,
                            size_t ldb, float beta, warplab_buffer *c, size_t ldc)
{
    /* The FP32, op N, N case of warplab_gemm_ex: the same checks, the ladder's
     * best rung; failures name warplab_gemm. */
    if (!context)
        return wl_api_no_context("warplab_gemm", "the context");
    wl_api_begin(context);
    return wl_api_end(context, "warplab_gemm",
                      warplab_gemm_ex_checked(context, WARPLAB_OP_N, WARPLAB_OP_N, m, n, k, alpha,
                                              a, WARPLAB_FLOAT32, lda, b, WARPLAB_FLOAT32, ldb,
                                              beta, c, WARPLAB_FLOAT32, ldc, WARPLAB_COMPUTE_FP32));
}
