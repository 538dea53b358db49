/* The gemm ladder's ex_* rungs: exactly what warplab_gemm_ex runs, on every
 * backend. The ladder's problem holds float A and B (stored transposed when
 * the problem says so); setup converts them, untimed, into the rung's
 * 16-bit type as a user would hold them (row-major, the same layout, each
 * copy starting problem.misalign elements into its buffer), and the timed
 * launch is the backend's gemm_ex implementation (WL_GEMM_EX_IMPL) on those
 * copies: operand conversions and transposes into the workspace included.
 * TF32 takes the float views as they are. The vendor rows of the same
 * contract (cuBLAS) make their copies with wl_gemm_ex_inputs_make too. */
#include "gemm.h"

#include <stdlib.h>
#include <string.h>

/* The problem and launch gemm_ex sees: A and B in the rung's type. */
static wl_problem ex_problem(const wl_problem *problem, warplab_dtype type)
{
    wl_problem p = *problem;
    p.dtype = type;
    p.variant = problem->variant & (WL_GEMM_TRANS_A | WL_GEMM_TRANS_B);
    if (type == WARPLAB_FLOAT32)
        p.variant |= WL_GEMM_COMPUTE_TF32;
    return p;
}

/* The same with one of the 16-bit cuda paths forced (the ex16_* rows). */
static wl_problem ex_problem_forced(const wl_problem *problem, warplab_dtype type, unsigned force)
{
    wl_problem p = ex_problem(problem, type);
    p.variant |= force;
    return p;
}

typedef struct ex_state {
    wl_gemm_ex_inputs inputs;
    const wl_impl *ex;
    void *ex_state;
    wl_problem problem;
} ex_state;

static const wl_impl *find_ex(wl_backend *backend)
{
    return wl_backend_find_impl(backend, "gemm", WL_GEMM_EX_IMPL);
}

/* The launch gemm_ex gets: the rung's views with A and B replaced by the
 * 16-bit copies. */
static wl_launch ex_launch_of(const wl_launch *launch, const ex_state *s)
{
    wl_launch l = *launch;
    l.problem = &s->problem;
    if (s->inputs.a) {
        const size_t misalign = launch->problem->misalign * 2;
        l.buf[GEMM_A] =
            (wl_view){s->inputs.a, misalign, launch->buf[GEMM_A].bytes / sizeof(float) * 2};
        l.buf[GEMM_B] =
            (wl_view){s->inputs.b, misalign, launch->buf[GEMM_B].bytes / sizeof(float) * 2};
    }
    return l;
}

/* On the cpu backend the ex rows are host rows (gemm_ex_cpu.c: plain loops
 * on every core), with the size guard the other host rows have (cpu_loop,
 * cpu_blocked): up to 2^33 multiply-adds (2048^3), seconds a run. The
 * library's warplab_gemm_ex takes any size; only the bench rows stop. */
#define WL_GEMM_EX_HOST_MACS ((double)(1ull << 33))

static warplab_status host_rows_fit(const wl_backend *backend, const wl_problem *problem,
                                    char *reason, size_t len)
{
    if (backend->ops->kind != WARPLAB_BACKEND_CPU)
        return WARPLAB_OK;
    const double macs =
        (double)wl_gemm_m(problem) * (double)wl_gemm_n(problem) * (double)wl_gemm_k(problem);
    if (macs <= WL_GEMM_EX_HOST_MACS)
        return WARPLAB_OK;
    wl_format(reason, len,
              "the cpu backend's plain loops would take minutes at %.3g multiply-adds; they run "
              "up to 2^33 (2048^3)",
              macs);
    return WARPLAB_ERROR_UNSUPPORTED;
}

#define EX_RUNG_FORCED(rung, type, force)                                                          \
    static warplab_status rung##_supports(wl_backend *backend, const wl_problem *problem,          \
                                          char *reason, size_t len)                                \
    {                                                                                              \
        const wl_impl *ex = find_ex(backend);                                                      \
        if (!ex) {                                                                                 \
            wl_format(reason, len, "the %s backend has no gemm_ex", backend->ops->name);           \
            return WARPLAB_ERROR_UNSUPPORTED;                                                      \
        }                                                                                          \
        if (host_rows_fit(backend, problem, reason, len) != WARPLAB_OK)                            \
            return WARPLAB_ERROR_UNSUPPORTED;                                                      \
        const wl_problem p = ex_problem_forced(problem, type, force);                              \
        return ex->supports ? ex->supports(backend, &p, reason, len) : WARPLAB_OK;                 \
    }                                                                                              \
    static size_t rung##_scratch(wl_backend *backend, const wl_problem *problem)                   \
    {                                                                                              \
        const wl_impl *ex = find_ex(backend);                                                      \
        const wl_problem p = ex_problem_forced(problem, type, force);                              \
        return ex && ex->scratch_bytes ? ex->scratch_bytes(backend, &p) : 0;                       \
    }                                                                                              \
    static void rung##_describe(wl_backend *backend, const wl_launch *launch, char *text,          \
                                size_t len)                                                        \
    {                                                                                              \
        const wl_impl *ex = find_ex(backend);                                                      \
        const wl_problem p = ex_problem_forced(launch->problem, type, force);                      \
        wl_launch l = *launch;                                                                     \
        l.problem = &p;                                                                            \
        if (ex && ex->describe)                                                                    \
            ex->describe(backend, &l, text, len);                                                  \
    }

static warplab_status ex_setup(wl_backend *backend, const wl_launch *launch, void **state)
{
    (void)launch;
    ex_state *s = calloc(1, sizeof *s);
    if (!s)
        return wl_fail(backend, WARPLAB_ERROR_HOST_OUT_OF_MEMORY, "gemm_ex rung state");
    *state = s;
    s->ex = find_ex(backend);
    if (!s->ex)
        return wl_fail(backend, WARPLAB_ERROR_UNSUPPORTED, "the %s backend has no gemm_ex",
                       backend->ops->name);
    return WARPLAB_OK;
}

#define EX_RUNG(rung, type) EX_RUNG_FORCED(rung, type, 0u)

static warplab_status ex_setup_forced(wl_backend *backend, const wl_launch *launch, void **state,
                                      warplab_dtype type, unsigned force)
{
    warplab_status status = ex_setup(backend, launch, state);
    if (status != WARPLAB_OK)
        return status;
    ex_state *s = *state;
    s->problem = ex_problem_forced(launch->problem, type, force);
    status = wl_gemm_ex_inputs_make(backend, launch, type, &s->inputs);
    if (status == WARPLAB_OK && s->ex->setup) {
        const wl_launch l = ex_launch_of(launch, s);
        status = s->ex->setup(backend, &l, &s->ex_state);
    }
    return status;
}

static warplab_status ex_setup_typed(wl_backend *backend, const wl_launch *launch, void **state,
                                     warplab_dtype type)
{
    return ex_setup_forced(backend, launch, state, type, 0u);
}

static warplab_status ex_launch(wl_backend *backend, const wl_launch *launch, void *state)
{
    const ex_state *s = state;
    const wl_launch l = ex_launch_of(launch, s);
    return s->ex->launch(backend, &l, s->ex_state);
}

static void ex_teardown(wl_backend *backend, void *state)
{
    ex_state *s = state;
    if (!s)
        return;
    if (s->ex && s->ex->teardown)
        s->ex->teardown(backend, s->ex_state);
    wl_gemm_ex_inputs_free(backend, &s->inputs);
    free(s);
}

EX_RUNG(ex_tf32, WARPLAB_FLOAT32)
EX_RUNG(ex_bf16, WARPLAB_BFLOAT16)
EX_RUNG(ex_fp16, WARPLAB_FLOAT16)

static warplab_status ex_tf32_setup(wl_backend *backend, const wl_launch *launch, void **state)
{
    return ex_setup_typed(backend, launch, state, WARPLAB_FLOAT32);
}
static warplab_status ex_bf16_setup(wl_backend *backend, const wl_launch *launch, void **state)
{
    return ex_setup_typed(backend, launch, state, WARPLAB_BFLOAT16);
}
/* The ex16_* rows: BF16 inputs, one cuda path forced (the cost model's
 * candidates, each verified and timed alone). */
EX_RUNG_FORCED(ex16_mma, WARPLAB_BFLOAT16, WL_GEMM_EX16_FORCE_MMA)
EX_RUNG_FORCED(ex16_tma, WARPLAB_BFLOAT16, WL_GEMM_EX16_FORCE_TMA)
EX_RUNG_FORCED(ex16_wgmma, WARPLAB_BFLOAT16, WL_GEMM_EX16_FORCE_WGMMA)
EX_RUNG_FORCED(ex16_thin, WARPLAB_BFLOAT16, WL_GEMM_EX16_FORCE_THIN)
/* TF32: the wgmma kernel forced (B of op N read as stored, from registers). */
EX_RUNG_FORCED(ex_tf32_wgmma, WARPLAB_FLOAT32, WL_GEMM_EX16_FORCE_WGMMA)

static warplab_status ex16_mma_setup(wl_backend *backend, const wl_launch *launch, void **state)
{
    return ex_setup_forced(backend, launch, state, WARPLAB_BFLOAT16, WL_GEMM_EX16_FORCE_MMA);
}
static warplab_status ex16_tma_setup(wl_backend *backend, const wl_launch *launch, void **state)
{
    return ex_setup_forced(backend, launch, state, WARPLAB_BFLOAT16, WL_GEMM_EX16_FORCE_TMA);
}
static warplab_status ex16_wgmma_setup(wl_backend *backend, const wl_launch *launch, void **state)
{
    return ex_setup_forced(backend, launch, state, WARPLAB_BFLOAT16, WL_GEMM_EX16_FORCE_WGMMA);
}
static warplab_status ex16_thin_setup(wl_backend *backend, const wl_launch *launch, void **state)
{
    return ex_setup_forced(backend, launch, state, WARPLAB_BFLOAT16, WL_GEMM_EX16_FORCE_THIN);
}
static warplab_status ex_tf32_wgmma_setup(wl_backend *backend, const wl_launch *launch,
                                          void **state)
{
    return ex_setup_forced(backend, launch, state, WARPLAB_FLOAT32, WL_GEMM_EX16_FORCE_WGMMA);
}

static warplab_status ex_fp16_setup(wl_backend *backend, const wl_launch *launch, void **state)
{
    return ex_setup_typed(backend, launch, state, WARPLAB_FLOAT16);
}

#define EX_IMPL(id, rung_id)                                                                       \
    const wl_impl wl_gemm_##id##_impl = {.ladder = "gemm",                                         \
                                         .rung = rung_id,                                          \
                                         .supports = id##_supports,                                \
                                         .scratch_bytes = id##_scratch,                            \
                                         .setup = id##_setup,                                      \
                                         .launch = ex_launch,                                      \
                                         .teardown = ex_teardown,                                  \
                                         .describe = id##_describe}

EX_IMPL(ex_tf32, "ex_tf32");
EX_IMPL(ex_bf16, "ex_bf16");
EX_IMPL(ex_fp16, "ex_fp16");
EX_IMPL(ex16_mma, "ex16_mma");
EX_IMPL(ex16_tma, "ex16_tma");
EX_IMPL(ex16_wgmma, "ex16_wgmma");
EX_IMPL(ex16_thin, "ex16_thin");
EX_IMPL(ex_tf32_wgmma, "ex_tf32_wgmma");
