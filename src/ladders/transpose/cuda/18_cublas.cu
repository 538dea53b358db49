/* Vendor row cublas: cublasSgeam / cublasDgeam computing C = op(A) with op =
 * transpose, alpha 1, beta 0: NVIDIA's own transpose, timed in the same run
 * as the rungs. */
#include "kernels/cuda/vendor_libs.h"
#include "transpose_rungs.cuh"

#include <climits>

namespace
{

/* ------------------------------------------------------------------------ */
/* cuBLAS                                                                   */

warplab_status cublas_check(wl_backend *backend, const wl_cublas_api *api, cublasStatus_t status,
                            const char *what)
{
    if (status == CUBLAS_STATUS_SUCCESS)
        return WARPLAB_OK;
    const warplab_status mapped = status == CUBLAS_STATUS_ALLOC_FAILED
                                      ? WARPLAB_ERROR_DEVICE_OUT_OF_MEMORY
                                      : WARPLAB_ERROR_BACKEND;
    return wl_fail(backend, mapped, "%s: %s", what, api->status_string(status));
}

/* geam takes int sizes; skipped, with why, where cuBLAS cannot be loaded. */
warplab_status cublas_supports(wl_backend *backend, const wl_problem *problem, char *reason,
                               size_t reason_len)
{
    (void)backend;
    if (!wl_cublas_load(reason, reason_len))
        return WARPLAB_ERROR_UNSUPPORTED;
    const wl_transpose_layout m = wl_transpose_layout_of(problem);
    if (m.rows > INT_MAX || m.cols > INT_MAX || m.ld_in > INT_MAX || m.ld_out > INT_MAX) {
        wl_format(reason, reason_len,
                  "cuBLAS geam takes int sizes; %zux%zu (ld %zu/%zu) is past "
                  "them",
                  m.rows, m.cols, m.ld_in, m.ld_out);
        return WARPLAB_ERROR_UNSUPPORTED;
    }
    return WARPLAB_OK;
}

/* The handle is made (untimed) once per problem, bound to the backend's
 * stream so the timers see the work. */
struct cublas_state {
    const wl_cublas_api *api;
    cublasHandle_t handle;
};

warplab_status cublas_setup(wl_backend *backend, const wl_launch *launch, void **state)
{
    (void)launch;
    char reason[1024];
    const wl_cublas_api *api = wl_cublas_load(reason, sizeof reason);
    if (!api)
        return wl_fail(backend, WARPLAB_ERROR_UNSUPPORTED, "%s", reason);
    cublasHandle_t handle = NULL;
    warplab_status status = cublas_check(backend, api, api->create(&handle), "cublasCreate");
    if (status != WARPLAB_OK)
        return status;
    status = cublas_check(backend, api, api->set_stream(handle, wl_cuda_stream(backend)),
                          "cublasSetStream");
    cublas_state *s = nullptr;
    if (status == WARPLAB_OK) {
        s = static_cast<cublas_state *>(malloc(sizeof *s));
        if (!s)
            status = wl_fail(backend, WARPLAB_ERROR_HOST_OUT_OF_MEMORY, "cuBLAS state");
    }
    if (status != WARPLAB_OK) {
        api->destroy(handle); /* teardown is not called after a failed setup */
        return status;
    }
    *s = {api, handle};
    *state = s;
    return WARPLAB_OK;
}

void cublas_teardown(wl_backend *backend, void *state)
{
    (void)backend;
    cublas_state *s = static_cast<cublas_state *>(state);
    if (!s)
        return;
    s->api->destroy(s->handle);
    free(s);
}

/* Row-major in (rows x cols, pitch ld_in) is column-major A (cols x rows,
 * lda = ld_in); row-major out (cols x rows, pitch ld_out) is column-major C
 * (rows x cols, ldc = ld_out). out = in^T is C = A^T: geam with m = rows,
 * n = cols, transa = T, alpha = 1, beta = 0. B is not used with beta = 0; it
 * is given as A (transb = T, ldb = lda) so that every argument is valid. */
warplab_status launch_cublas(wl_backend *backend, const wl_launch *launch, void *state)
{
    wl_transpose_layout m;
    const void *in;
    void *out;
    if (!matrix_of(launch, &m, &in, &out))
        return WARPLAB_OK;
    const cublas_state *s = static_cast<const cublas_state *>(state);
    const int rows = (int)m.rows, cols = (int)m.cols, ld_in = (int)m.ld_in, ld_out = (int)m.ld_out;
    if (m.element_size == 8) {
        const double one = 1.0, zero = 0.0;
        const double *a = static_cast<const double *>(in);
        return cublas_check(backend, s->api,
                            s->api->dgeam(s->handle, CUBLAS_OP_T, CUBLAS_OP_T, rows, cols, &one, a,
                                          ld_in, &zero, a, ld_in, static_cast<double *>(out),
                                          ld_out),
                            "cublasDgeam");
    }
    const float one = 1.0f, zero = 0.0f;
    const float *a = static_cast<const float *>(in);
    return cublas_check(backend, s->api,
                        s->api->sgeam(s->handle, CUBLAS_OP_T, CUBLAS_OP_T, rows, cols, &one, a,
                                      ld_in, &zero, a, ld_in, static_cast<float *>(out), ld_out),
                        "cublasSgeam");
}

const wl_impl cublas_impl = {.ladder = "transpose",
                             .rung = "cublas",
                             .supports = cublas_supports,
                             .setup = cublas_setup,
                             .launch = launch_cublas,
                             .teardown = cublas_teardown};

} // namespace
