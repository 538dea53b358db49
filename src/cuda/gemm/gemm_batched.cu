/* warplab_gemm_batched_ex on cuda: the planner's wgmma_batched row
 * (src/kernels/gemm_plan.c). The TMA + wgmma kernel of warplab_gemm_ex on the
 * operands as stored (wgmma_ex.sm90a.cu) with the batch as one more index
 * of its persistent grid's units: a unit is (matrix, tile), the matrix the
 * slowest, so that one launch covers the whole batch and the SMs stay
 * busy across the matrices' boundaries (a host loop of launches would pay
 * a launch and a partial last wave a matrix). A and B are 3-D tensor maps,
 * the matrix their plane (a stride of 0: one 2-D map for every matrix); C
 * is written at its matrix's offset (FP32 with beta 0: through the copy
 * engine, C's map 3-D as well). k is never split: the batch gives the
 * parallelism.
 *
 * Where the call's views or strides are off 16 bytes, or the driver
 * refuses a 3-D map, the launch answers WARPLAB_ERROR_UNSUPPORTED before
 * anything is queued, and warplab_gemm_batched_ex runs the batch as a loop
 * of warplab_gemm_ex calls (src/ops/gemm_batched.c). */
#include "../../kernels/gemm_tiles16.h"
#include "gemm_launch.h"

/* The tile width of a batch (256 or 128: 128-row tiles; 64: the narrow
 * 64 x 64 tile), by the 16-bit wgmma model over the batch's units
 * (gemm_tiles16.c, wl_ex16_batched_tile). */
static int batched_width(const wl_backend *backend, const wl_problem *p)
{
    return wl_ex16_batched_tile(&backend->info, wl_gemm_m(p), wl_gemm_n(p), wl_gemm_k(p), p->batch,
                                (p->variant & WL_GEMM_C_INPUT_TYPE) ? 2 : 4, NULL);
}

static warplab_status batched_supports(wl_backend *backend, const wl_problem *p, char *reason,
                                       size_t len)
{
    if (!wl_gemm_ex_wgmma_available(backend)) {
        wl_format(reason, len, "the batched kernel needs sm_90a (TMA + wgmma)");
        return WARPLAB_ERROR_UNSUPPORTED;
    }
    if ((p->dtype != WARPLAB_BFLOAT16 && p->dtype != WARPLAB_FLOAT16) ||
        (p->variant & WL_GEMM_COMPUTE_TF32) || wl_gemm_k(p) == 0 || p->batch < 2) {
        wl_format(reason, len,
                  "the batched kernel takes 16-bit inputs, k > 0, a batch of 2 or more");
        return WARPLAB_ERROR_UNSUPPORTED;
    }
    return WARPLAB_OK;
}

static bool on_16_bytes(const void *base, size_t ld, size_t stride)
{
    return (uintptr_t)base % 16 == 0 && ld * 2 % 16 == 0 && stride * 2 % 16 == 0;
}

static warplab_status batched_launch(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    const wl_problem *p = launch->problem;
    wl_gemm_ex_wgmma_call call;
    memset(&call, 0, sizeof call);
    call.a = wl_view_ptr(launch->buf[GEMM_A]);
    call.b = wl_view_ptr(launch->buf[GEMM_B]);
    call.c = wl_view_ptr(launch->buf[GEMM_C]);
    if (!on_16_bytes(call.a, wl_gemm_lda(p), p->stride[0]) ||
        !on_16_bytes(call.b, wl_gemm_ldb(p), p->stride[1]))
        return wl_fail(backend, WARPLAB_ERROR_UNSUPPORTED,
                       "gemm batched: A's or B's rows or matrices are not on 16 bytes");
    call.lda = (int)wl_gemm_lda(p);
    call.ldb = (int)wl_gemm_ldb(p);
    call.a_m_major = wl_gemm_trans_a(p);
    call.b_n_major = !wl_gemm_trans_b(p);
    call.ldc = (int)wl_gemm_ldc(p);
    call.m = (int)wl_gemm_m(p);
    call.n = (int)wl_gemm_n(p);
    call.k = (int)wl_gemm_k(p);
    call.alpha = (float)p->alpha;
    call.beta = (float)p->beta;
    call.type = p->dtype;
    call.c_narrow = (p->variant & WL_GEMM_C_INPUT_TYPE) != 0;
    call.bn = batched_width(backend, p);
    call.splits = 1;
    call.k_chunk = (call.k + 63) / 64 * 64;
    call.part = NULL;
    const wl_gemm_ex_wgmma_batch batch = {(int)p->batch, (long long)p->stride[0],
                                          (long long)p->stride[1], (long long)p->stride[2]};
    return wl_gemm_ex_wgmma_run_batched(backend, &call, &batch);
}

static void batched_describe(wl_backend *backend, const wl_launch *launch, char *text, size_t len)
{
    const wl_problem *p = launch->problem;
    const int bn = batched_width(backend, p);
    wl_format(text, len, "wgmma batched, %dx%d tiles, %zu matrices in one grid",
              bn == 64 ? 64 : 128, bn, p->batch);
}

extern "C" const wl_impl wl_gemm_batched_cuda_impl = {.ladder = "gemm",
                                                      .rung = WL_GEMM_BATCHED_IMPL,
                                                      .supports = batched_supports,
                                                      .launch = batched_launch,
                                                      .describe = batched_describe};
