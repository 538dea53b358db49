/* FP32 compute on transposed float operands (fp32_copy.h): the op T
 * operands copied into the workspace in the N, N layout, then the FP32
 * dispatcher on the copies.
 *
 * Over the tiled fallback (gemm_ex.cu, gemm_ex_tiled: 0.006-0.4x cuBLAS on
 * these layouts): the dispatcher's kernels (cp.async pipelines, 16-byte
 * loads, skinny kernels that stream the big operand, split-K) are written
 * for row-major A and B; a transpose costs a read and a write of the
 * operand, O(mk + nk) bytes against O(mnk) work, at the transpose ladder's
 * rate (about 80% of the bandwidth: docs/ladders/transpose.md). The copies'
 * rows are whole 128-byte lines (16-byte vectors for the tile kernels,
 * whatever the caller's pitch), so the dispatcher sees aligned operands.
 * No allocation or synchronisation: everything lives in launch->scratch. */
#include "fp32_copy.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Where the copies and the dispatcher's workspace sit in the workspace. */
typedef struct fp32_copy_layout {
    bool copy_a, copy_b;
    size_t ld_a, ld_b; /* the copies' rows (elements): op(A) m x k, op(B) k x n */
    size_t a_at, b_at; /* byte offsets of the copies */
    size_t inner_at;   /* byte offset of the dispatcher's workspace */
    wl_problem inner;  /* the N, N problem the dispatcher runs */
} fp32_copy_layout;

static bool round_up_256(size_t bytes, size_t *rounded)
{
    if (!wl_size_add(bytes, 255, rounded))
        return false;
    *rounded = *rounded / 256 * 256;
    return true;
}

/* The layout (overflow-checked: false when a byte count does not fit). */
static bool layout_of(const wl_problem *p, fp32_copy_layout *l)
{
    memset(l, 0, sizeof *l);
    const size_t m = wl_gemm_m(p), n = wl_gemm_n(p), k = wl_gemm_k(p);
    l->copy_a = wl_gemm_trans_a(p);
    l->copy_b = wl_gemm_trans_b(p);
    l->ld_a = l->copy_a ? wl_gemm_line_elements(k, sizeof(float)) : wl_gemm_lda(p);
    l->ld_b = l->copy_b ? wl_gemm_line_elements(n, sizeof(float)) : wl_gemm_ldb(p);
    size_t a_bytes = 0, b_bytes = 0, at = 0;
    if (l->copy_a &&
        (!wl_size_mul(m, l->ld_a, &a_bytes) || !wl_size_mul(a_bytes, sizeof(float), &a_bytes)))
        return false;
    if (l->copy_b &&
        (!wl_size_mul(k, l->ld_b, &b_bytes) || !wl_size_mul(b_bytes, sizeof(float), &b_bytes)))
        return false;
    l->a_at = 0;
    if (!round_up_256(a_bytes, &at))
        return false;
    l->b_at = at;
    if (!wl_size_add(at, b_bytes, &at) || !round_up_256(at, &l->inner_at))
        return false;
    l->inner = *p;
    l->inner.variant = 0; /* FP32 compute, N, N */
    l->inner.param = 0;
    l->inner.misalign = 0;
    l->inner.ld[0] = l->ld_a;
    l->inner.ld[1] = l->ld_b;
    l->inner.ld[2] = wl_gemm_ldc(p);
    return (l->ld_a <= INT32_MAX && l->ld_b <= INT32_MAX);
}

static const wl_impl *dispatcher(wl_backend *backend)
{
    return wl_backend_find_impl(backend, "gemm", "dispatch");
}

/* The dispatcher's workspace for the N, N problem. Its plan depends on
 * whether each operand's rows are 16-byte aligned, known from the views
 * only at the launch: the copies always are; the caller's operand (N, T and
 * T, N) is priced both ways and the larger need kept. */
static bool inner_scratch(wl_backend *backend, const fp32_copy_layout *l, size_t *bytes)
{
    const wl_impl *d = dispatcher(backend);
    *bytes = 0;
    if (!d || !d->scratch_bytes)
        return d != NULL;
    *bytes = d->scratch_bytes(backend, &l->inner);
    if (l->copy_a != l->copy_b) {
        wl_problem off = l->inner;
        const int caller = l->copy_a ? 1 : 0; /* the operand read as the caller holds it */
        if (off.ld[caller] % 4 == 0)
            off.ld[caller] += 1; /* rows off 16 bytes, as a misaligned base makes them */
        const size_t other = d->scratch_bytes(backend, &off);
        *bytes = other > *bytes ? other : *bytes;
    }
    return *bytes != SIZE_MAX;
}

size_t wl_fp32_copy_scratch(wl_backend *backend, const wl_problem *p)
{
    fp32_copy_layout l;
    size_t inner = 0, total = 0;
    if (!layout_of(p, &l) || !inner_scratch(backend, &l, &inner) ||
        !wl_size_add(l.inner_at, inner, &total))
        return SIZE_MAX;
    return total;
}

/* dst (cols x rows, ld_out) = the transpose of src (rows x cols, ld_in),
 * by the rung warplab_transpose runs, on the backend's stream. */
static warplab_status transpose_into(wl_backend *backend, wl_view src, size_t rows, size_t cols,
                                     size_t ld_in, wl_view dst, size_t ld_out)
{
    const wl_ladder *ladder = wl_ladder_find("transpose");
    const wl_impl *impl =
        ladder ? wl_backend_find_impl(backend, "transpose", ladder->best_rung) : NULL;
    if (!impl || !impl->launch)
        return wl_fail(backend, WARPLAB_ERROR_UNSUPPORTED,
                       "gemm_ex: the %s backend has no transpose to copy an operand with",
                       backend->ops->name);
    wl_problem t;
    memset(&t, 0, sizeof t);
    t.dims = 2;
    t.dim[0] = rows;
    t.dim[1] = cols;
    t.ld[0] = ld_in;
    t.ld[1] = ld_out;
    t.dtype = WARPLAB_FLOAT32;
    wl_launch launch;
    memset(&launch, 0, sizeof launch);
    launch.problem = &t;
    launch.buffers = 2;
    launch.buf[0] = src;
    launch.buf[1] = dst;
    return impl->launch(backend, &launch, NULL);
}

/* A view of bytes of the workspace from byte at. */
static wl_view workspace_view(const wl_launch *launch, size_t at, size_t bytes)
{
    wl_view v = launch->scratch;
    v.offset += at;
    v.bytes = bytes;
    return v;
}

warplab_status wl_fp32_copy_run(wl_backend *backend, const wl_launch *launch,
                                const wl_gemm_plan *plan)
{
    const wl_problem *p = launch->problem;
    const size_t m = wl_gemm_m(p), n = wl_gemm_n(p), k = wl_gemm_k(p);
    if (m == 0 || n == 0)
        return WARPLAB_OK;
    fp32_copy_layout l;
    size_t inner = 0, need = 0;
    if (!layout_of(p, &l) || !inner_scratch(backend, &l, &inner) ||
        !wl_size_add(l.inner_at, inner, &need))
        return wl_fail(backend, WARPLAB_ERROR_INVALID_ARGUMENT,
                       "gemm_ex: the workspace for copies of a %zu x %zu x %zu product does not "
                       "fit in a size_t",
                       m, n, k);
    const wl_impl *d = dispatcher(backend);
    if (!d)
        return wl_fail(backend, WARPLAB_ERROR_UNSUPPORTED,
                       "gemm_ex: the %s backend has no FP32 dispatcher", backend->ops->name);
    if (launch->scratch.bytes < need || !launch->scratch.handle)
        return wl_fail(backend, WARPLAB_ERROR_INVALID_ARGUMENT,
                       "gemm_ex: a workspace of %zu bytes; the operand copies and the FP32 "
                       "dispatcher need %zu",
                       launch->scratch.bytes, need);
    wl_launch on_nn = *launch;
    on_nn.problem = &l.inner;
    warplab_status status = WARPLAB_OK;
    if (l.copy_a) { /* A stored k x m: op(A) = A^T, m x k */
        on_nn.buf[GEMM_A] = workspace_view(launch, l.a_at, m * l.ld_a * sizeof(float));
        status = transpose_into(backend, launch->buf[GEMM_A], k, m, wl_gemm_lda(p),
                                on_nn.buf[GEMM_A], l.ld_a);
    }
    if (status == WARPLAB_OK && l.copy_b) { /* B stored n x k: op(B) = B^T, k x n */
        on_nn.buf[GEMM_B] = workspace_view(launch, l.b_at, k * l.ld_b * sizeof(float));
        status = transpose_into(backend, launch->buf[GEMM_B], n, k, wl_gemm_ldb(p),
                                on_nn.buf[GEMM_B], l.ld_b);
    }
    if (status != WARPLAB_OK)
        return status;
    on_nn.scratch = workspace_view(launch, l.inner_at, launch->scratch.bytes - l.inner_at);
    return wl_gemm_fp32_run(backend, &on_nn, plan);
}

void wl_fp32_copy_describe(wl_backend *backend, const wl_launch *launch, const wl_gemm_plan *plan,
                           char *text, size_t len)
{
    fp32_copy_layout l;
    text[0] = '\0';
    if (!layout_of(launch->problem, &l))
        return;
    const wl_impl *d = dispatcher(backend);
    const wl_ladder *ladder = wl_ladder_find("transpose");
    char planned[160] = "";
    if (d && d->describe)
        wl_gemm_plan_describe(plan, planned, sizeof planned);
    snprintf(text, len, "%s copied (transpose %s), then the FP32 dispatcher: %s",
             l.copy_a && l.copy_b ? "A^T and B^T"
             : l.copy_a           ? "A^T"
                                  : "B^T",
             ladder ? ladder->best_rung : "?", planned);
}
