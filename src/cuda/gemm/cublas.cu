/* The vendor rows: cuBLAS in pedantic FP32 (the baseline of the %vendor
 * column), TF32 tensor cores on the float inputs and on the TF32-rounded
 * K-major copies the TMA + wgmma TF32 rungs multiply, and BF16 tensor cores
 * on the BF16 copies the BF16 rungs use. Row-major C = A*B is column-major
 * C^T = B^T * A^T: cuBLAS gets (n, m, k) with B first. The handle and the
 * BF16 copies are made in setup, never timed; the handle runs on the
 * backend's stream. */
/* warplab:rung gemm cublas_fp32 cublas_tf32 cublas_bf16 cublas_tf32_kmajor */
#include "../vendor_libs.h"
#include "gemm_launch.h"

#include <stdlib.h>

typedef enum cublas_mode {
    CUBLAS_ROW_FP32 = 0,
    CUBLAS_ROW_TF32,
    CUBLAS_ROW_BF16,
    CUBLAS_ROW_TF32_KMAJOR,
    /* warplab_gemm_ex's contract: the inputs as the user holds them. */
    CUBLAS_ROW_EX_TF32,
    CUBLAS_ROW_EX_BF16,
    CUBLAS_ROW_EX_FP16
} cublas_mode;

typedef struct cublas_state {
    const wl_cublas_api *api; /* cuBLAS, loaded at the first setup */
    cublasHandle_t handle;
    wl_gemm_kmajor copies;    /* the BF16 or TF32 rows' K-major copies */
    wl_gemm_ex_inputs inputs; /* the ex rows' 16-bit copies */
} cublas_state;

static warplab_status cublas_check(wl_backend *backend, const wl_cublas_api *api,
                                   cublasStatus_t status, const char *what)
{
    if (status == CUBLAS_STATUS_SUCCESS)
        return WARPLAB_OK;
    warplab_status code =
        status == CUBLAS_STATUS_ALLOC_FAILED ? WARPLAB_ERROR_DEVICE_OUT_OF_MEMORY
        : status == CUBLAS_STATUS_ARCH_MISMATCH || status == CUBLAS_STATUS_NOT_SUPPORTED
            ? WARPLAB_ERROR_UNSUPPORTED
            : WARPLAB_ERROR_BACKEND;
    return wl_fail(backend, code, "%s: %s", what, api->status_string(status));
}

/* A cuBLAS row is skipped, with why, where cuBLAS cannot be loaded. */
static warplab_status cublas_supports(wl_backend *backend, const wl_problem *problem, char *reason,
                                      size_t reason_len)
{
    (void)backend;
    (void)problem;
    return wl_cublas_load(reason, reason_len) ? WARPLAB_OK : WARPLAB_ERROR_UNSUPPORTED;
}

static void cublas_teardown(wl_backend *backend, void *state)
{
    cublas_state *s = (cublas_state *)state;
    if (!s)
        return;
    if (s->handle)
        s->api->destroy(s->handle);
    wl_gemm_kmajor_free(&s->copies);
    wl_gemm_ex_inputs_free(backend, &s->inputs);
    free(s);
}

static warplab_status cublas_setup_mode(wl_backend *backend, const wl_launch *launch, void **state,
                                        cublas_mode mode)
{
    cublas_state *s = (cublas_state *)calloc(1, sizeof *s);
    if (!s)
        return wl_fail(backend, WARPLAB_ERROR_HOST_OUT_OF_MEMORY, "cuBLAS state");
    *state = s;
    char reason[1024];
    s->api = wl_cublas_load(reason, sizeof reason);
    if (!s->api)
        return wl_fail(backend, WARPLAB_ERROR_UNSUPPORTED, "%s", reason);
    const wl_cublas_api *api = s->api;
    warplab_status status = cublas_check(backend, api, api->create(&s->handle), "cublasCreate");
    if (status == WARPLAB_OK)
        status = cublas_check(backend, api, api->set_stream(s->handle, wl_cuda_stream(backend)),
                              "cublasSetStream");
    if (status == WARPLAB_OK)
        status = cublas_check(backend, api,
                              api->set_math_mode(s->handle, mode == CUBLAS_ROW_FP32
                                                                ? CUBLAS_PEDANTIC_MATH
                                                                : CUBLAS_DEFAULT_MATH),
                              "cublasSetMathMode");
    if (status == WARPLAB_OK && (mode == CUBLAS_ROW_BF16 || mode == CUBLAS_ROW_TF32_KMAJOR))
        status = wl_gemm_kmajor_make(
            backend, launch,
            mode == CUBLAS_ROW_BF16 ? WL_GEMM_OPERANDS_BF16 : WL_GEMM_OPERANDS_TF32, &s->copies);
    if (status == WARPLAB_OK && mode >= CUBLAS_ROW_EX_TF32)
        status = wl_gemm_ex_inputs_make(backend, launch,
                                        mode == CUBLAS_ROW_EX_BF16   ? WARPLAB_BFLOAT16
                                        : mode == CUBLAS_ROW_EX_FP16 ? WARPLAB_FLOAT16
                                                                     : WARPLAB_FLOAT32,
                                        &s->inputs);
    return status;
}

static warplab_status setup_fp32(wl_backend *backend, const wl_launch *launch, void **state)
{
    return cublas_setup_mode(backend, launch, state, CUBLAS_ROW_FP32);
}

static warplab_status setup_tf32(wl_backend *backend, const wl_launch *launch, void **state)
{
    return cublas_setup_mode(backend, launch, state, CUBLAS_ROW_TF32);
}

static warplab_status setup_bf16(wl_backend *backend, const wl_launch *launch, void **state)
{
    return cublas_setup_mode(backend, launch, state, CUBLAS_ROW_BF16);
}

static warplab_status setup_tf32_kmajor(wl_backend *backend, const wl_launch *launch, void **state)
{
    return cublas_setup_mode(backend, launch, state, CUBLAS_ROW_TF32_KMAJOR);
}

/* cuBLAS wants every leading dimension >= 1, even for an empty matrix. */
static int ld_at_least_1(int ld)
{
    return ld > 0 ? ld : 1;
}

static warplab_status launch_fp32(wl_backend *backend, const wl_launch *launch, void *state)
{
    cublas_state *s = (cublas_state *)state;
    const gemm_params g = wl_gemm_params(launch);
    if (g.m == 0 || g.n == 0)
        return WARPLAB_OK;
    return cublas_check(backend, s->api,
                        s->api->sgemm(s->handle, CUBLAS_OP_N, CUBLAS_OP_N, g.n, g.m, g.k, &g.alpha,
                                      g.b, ld_at_least_1(g.ldb), g.a, ld_at_least_1(g.lda), &g.beta,
                                      g.c, ld_at_least_1(g.ldc)),
                        "cublasSgemm");
}

static warplab_status launch_tf32(wl_backend *backend, const wl_launch *launch, void *state)
{
    cublas_state *s = (cublas_state *)state;
    const gemm_params g = wl_gemm_params(launch);
    if (g.m == 0 || g.n == 0)
        return WARPLAB_OK;
    return cublas_check(backend, s->api,
                        s->api->gemm_ex(s->handle, CUBLAS_OP_N, CUBLAS_OP_N, g.n, g.m, g.k,
                                        &g.alpha, g.b, CUDA_R_32F, ld_at_least_1(g.ldb), g.a,
                                        CUDA_R_32F, ld_at_least_1(g.lda), &g.beta, g.c, CUDA_R_32F,
                                        ld_at_least_1(g.ldc), CUBLAS_COMPUTE_32F_FAST_TF32,
                                        CUBLAS_GEMM_DEFAULT),
                        "cublasGemmEx (TF32)");
}

/* C^T (n x m) = B^T as stored (n x k rows: CUBLAS_OP_T of the column-major
 * k x n it is) times A^T: the "TN" product, K-major on both sides, on the
 * state's copies of A and B^T. */
static warplab_status launch_kmajor(wl_backend *backend, const wl_launch *launch, void *state,
                                    cudaDataType_t type, cublasComputeType_t compute,
                                    const char *what)
{
    cublas_state *s = (cublas_state *)state;
    const gemm_params g = wl_gemm_params(launch);
    if (g.m == 0 || g.n == 0)
        return WARPLAB_OK;
    return cublas_check(backend, s->api,
                        s->api->gemm_ex(s->handle, CUBLAS_OP_T, CUBLAS_OP_N, g.n, g.m, g.k,
                                        &g.alpha, s->copies.bt, type, s->copies.ldbt, s->copies.a,
                                        type, s->copies.lda, &g.beta, g.c, CUDA_R_32F,
                                        ld_at_least_1(g.ldc), compute, CUBLAS_GEMM_DEFAULT),
                        what);
}

/* On the BF16 rungs' copies. */
static warplab_status launch_bf16(wl_backend *backend, const wl_launch *launch, void *state)
{
    return launch_kmajor(backend, launch, state, CUDA_R_16BF, CUBLAS_COMPUTE_32F,
                         "cublasGemmEx (BF16)");
}

/* On the TF32 rungs' copies: FP32 words rounded to TF32 (the low 13 bits
 * zero), K-major. The tensor cores multiply the same values as from the
 * float inputs up to the rounding, but words with zero low bits cost less
 * power: at the H100's power limit, tf32_wgmma_tma ran at 1.70 GHz on them
 * and 1.64 GHz on the raw words (docs/DECISIONS.md, "TF32 parity: the rungs
 * are compared with cuBLAS on the same rounded inputs"), so these rungs are
 * compared with cuBLAS on the same copies. */
static warplab_status launch_tf32_kmajor(wl_backend *backend, const wl_launch *launch, void *state)
{
    return launch_kmajor(backend, launch, state, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32,
                         "cublasGemmEx (TF32, K-major copies)");
}

extern "C" const wl_impl wl_gemm_cublas_fp32_impl = {.ladder = "gemm",
                                                     .rung = "cublas_fp32",
                                                     .supports = cublas_supports,
                                                     .setup = setup_fp32,
                                                     .launch = launch_fp32,
                                                     .teardown = cublas_teardown};
extern "C" const wl_impl wl_gemm_cublas_tf32_impl = {.ladder = "gemm",
                                                     .rung = "cublas_tf32",
                                                     .supports = cublas_supports,
                                                     .setup = setup_tf32,
                                                     .launch = launch_tf32,
                                                     .teardown = cublas_teardown};
extern "C" const wl_impl wl_gemm_cublas_bf16_impl = {.ladder = "gemm",
                                                     .rung = "cublas_bf16",
                                                     .supports = cublas_supports,
                                                     .setup = setup_bf16,
                                                     .launch = launch_bf16,
                                                     .teardown = cublas_teardown};
extern "C" const wl_impl wl_gemm_cublas_tf32_kmajor_impl = {.ladder = "gemm",
                                                            .rung = "cublas_tf32_kmajor",
                                                            .supports = cublas_supports,
                                                            .setup = setup_tf32_kmajor,
                                                            .launch = launch_tf32_kmajor,
                                                            .teardown = cublas_teardown};

/* warplab:end */
/* warplab:rung gemm cublas_ex_tf32 cublas_ex_bf16 cublas_ex_fp16 */
/* ------------------------------------------------------------------------ */
/* The rows warplab_gemm_ex's rungs compare with: cublasGemmEx on A and B as
 * the user holds them (row-major, op(A) and op(B) as the problem stores
 * them; 16-bit copies made in setup the rungs' way), FP32 C. Row-major
 * C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T, and a row-major
 * matrix is its transpose column-major: cuBLAS gets (op_b, op_a, n, m, k)
 * with B first and the ops as the problem states them. */

static warplab_status cublas_ex_launch(wl_backend *backend, const wl_launch *launch, void *state)
{
    cublas_state *s = (cublas_state *)state;
    const wl_problem *p = launch->problem;
    const gemm_params g = wl_gemm_params(launch);
    if (g.m == 0 || g.n == 0)
        return WARPLAB_OK;
    const void *a = g.a, *b = g.b;
    cudaDataType_t type = CUDA_R_32F;
    cublasComputeType_t compute = CUBLAS_COMPUTE_32F_FAST_TF32;
    if (s->inputs.a) {
        a = (const char *)s->inputs.a + p->misalign * 2;
        b = (const char *)s->inputs.b + p->misalign * 2;
        type = s->inputs.type == WARPLAB_BFLOAT16 ? CUDA_R_16BF : CUDA_R_16F;
        compute = CUBLAS_COMPUTE_32F;
    }
    const cublasOperation_t op_a = wl_gemm_trans_a(p) ? CUBLAS_OP_T : CUBLAS_OP_N;
    const cublasOperation_t op_b = wl_gemm_trans_b(p) ? CUBLAS_OP_T : CUBLAS_OP_N;
    return cublas_check(backend, s->api,
                        s->api->gemm_ex(s->handle, op_b, op_a, g.n, g.m, g.k, &g.alpha, b, type,
                                        ld_at_least_1(g.ldb), a, type, ld_at_least_1(g.lda),
                                        &g.beta, g.c, CUDA_R_32F, ld_at_least_1(g.ldc), compute,
                                        CUBLAS_GEMM_DEFAULT),
                        "cublasGemmEx");
}

static warplab_status setup_ex_tf32(wl_backend *backend, const wl_launch *launch, void **state)
{
    return cublas_setup_mode(backend, launch, state, CUBLAS_ROW_EX_TF32);
}
static warplab_status setup_ex_bf16(wl_backend *backend, const wl_launch *launch, void **state)
{
    return cublas_setup_mode(backend, launch, state, CUBLAS_ROW_EX_BF16);
}
static warplab_status setup_ex_fp16(wl_backend *backend, const wl_launch *launch, void **state)
{
    return cublas_setup_mode(backend, launch, state, CUBLAS_ROW_EX_FP16);
}

extern "C" const wl_impl wl_gemm_cublas_ex_tf32_impl = {.ladder = "gemm",
                                                        .rung = "cublas_ex_tf32",
                                                        .supports = cublas_supports,
                                                        .setup = setup_ex_tf32,
                                                        .launch = cublas_ex_launch,
                                                        .teardown = cublas_teardown};
extern "C" const wl_impl wl_gemm_cublas_ex_bf16_impl = {.ladder = "gemm",
                                                        .rung = "cublas_ex_bf16",
                                                        .supports = cublas_supports,
                                                        .setup = setup_ex_bf16,
                                                        .launch = cublas_ex_launch,
                                                        .teardown = cublas_teardown};
extern "C" const wl_impl wl_gemm_cublas_ex_fp16_impl = {.ladder = "gemm",
                                                        .rung = "cublas_ex_fp16",
                                                        .supports = cublas_supports,
                                                        .setup = setup_ex_fp16,
                                                        .launch = cublas_ex_launch,
                                                        .teardown = cublas_teardown};
/* warplab:end */
