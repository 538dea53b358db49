/* The opencl backend's probe series: the experiments with an OpenCL form
 * (kernels in kernels/probe.cl). Transfers, block size and the fast float
 * intrinsics are CUDA-only: the harness reports them as "cuda only". */
#include "../probe.h"
#include "../probe_kernels.h"
#include "opencl_backend.h"

/* Every probe buffer holds 4-byte elements: a view is a cl_mem and an
 * element offset, two kernel arguments. */
typedef struct probe_args {
    cl_mem mem[WL_MAX_BUFFERS];
    cl_ulong off[WL_MAX_BUFFERS];
    cl_ulong u64[4];
    cl_uint u32[5];
    wl_cl_arg list[20];
    int count;
} probe_args;

/* The views of buffers [0, views), in order. */
static void args_views(probe_args *a, const wl_launch *launch, int views)
{
    a->count = 0;
    for (int i = 0; i < views; i++) {
        a->mem[i] = wl_cl_mem(launch->buf[i]);
        a->off[i] = wl_cl_offset(launch->buf[i], 4);
        a->list[a->count++] = WL_CL_VALUE(a->mem[i]);
        a->list[a->count++] = WL_CL_VALUE(a->off[i]);
    }
}

static void arg_u64(probe_args *a, int slot, cl_ulong value)
{
    a->u64[slot] = value;
    a->list[a->count++] = WL_CL_VALUE(a->u64[slot]);
}

static void arg_u32(probe_args *a, int slot, cl_uint value)
{
    a->u32[slot] = value;
    a->list[a->count++] = WL_CL_VALUE(a->u32[slot]);
}

static warplab_status launch_1d(wl_backend *backend, const char *kernel, size_t work,
                                const probe_args *a)
{
    const size_t local = WL_PROBE_BLOCK;
    return wl_opencl_launch(backend, "probe", kernel, 1, &work, &local, a->count, a->list);
}

#define P (launch->problem)

/* ------------------------------------------------------------------------ */
/* coalescing */

static warplab_status launch_offset(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    probe_args a;
    args_views(&a, launch, 2);
    const size_t n = P->dim[0] - 32;
    arg_u64(&a, 0, n);
    arg_u64(&a, 1, (cl_ulong)P->param);
    return launch_1d(backend, "probe_offset_copy", n, &a);
}

static warplab_status launch_stride(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    probe_args a;
    args_views(&a, launch, 2);
    const size_t n = P->dim[0] / (size_t)P->param;
    arg_u64(&a, 0, n);
    arg_u64(&a, 1, (cl_ulong)P->param);
    return launch_1d(backend, "probe_stride_copy", n, &a);
}

/* ------------------------------------------------------------------------ */
/* banks */

static warplab_status launch_banks(wl_backend *backend, const wl_launch *launch, const char *kernel,
                                   size_t word)
{
    probe_args a;
    args_views(&a, launch, 2);
    arg_u64(&a, 0, P->dim[0]);
    arg_u32(&a, 0, (cl_uint)P->param);
    arg_u32(&a, 1, (cl_uint)P->dim[1]);
    arg_u32(&a, 2, WL_BANKS_WORDS);
    a.list[a.count++] = WL_CL_LOCAL(WL_BANKS_WORDS * word);
    return launch_1d(backend, kernel, P->dim[0], &a);
}

static warplab_status launch_word4(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    return launch_banks(backend, launch, "probe_banks_word4", 4);
}

static warplab_status launch_word8(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    return launch_banks(backend, launch, "probe_banks_word8", 8);
}

/* ------------------------------------------------------------------------ */
/* divergence */

static warplab_status launch_divergence(wl_backend *backend, const wl_launch *launch,
                                        cl_uint selector)
{
    probe_args a;
    args_views(&a, launch, 2);
    arg_u64(&a, 0, P->dim[0]);
    arg_u32(&a, 0, (cl_uint)P->param);
    arg_u32(&a, 1, (cl_uint)P->dim[1]);
    arg_u32(&a, 2, selector);
    return launch_1d(backend, "probe_divergence", P->dim[0], &a);
}

static warplab_status launch_lane(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    return launch_divergence(backend, launch, 0);
}
static warplab_status launch_warp(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    return launch_divergence(backend, launch, 1);
}
static warplab_status launch_block(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    return launch_divergence(backend, launch, 2);
}

/* ------------------------------------------------------------------------ */
/* atomics: counters zeroed before every run, untimed */

static warplab_status launch_atomics(wl_backend *backend, const wl_launch *launch,
                                     const char *kernel, bool local_slots)
{
    probe_args a;
    args_views(&a, launch, 2);
    const size_t addresses = P->dim[0] / (size_t)P->param;
    arg_u64(&a, 0, P->dim[0]);
    arg_u64(&a, 1, addresses);
    arg_u32(&a, 0, (cl_uint)P->dim[1]);
    if (local_slots)
        a.list[a.count++] = WL_CL_LOCAL(WL_PROBE_BLOCK * sizeof(cl_int));
    return launch_1d(backend, kernel, P->dim[0], &a);
}

static warplab_status launch_global_int(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    return launch_atomics(backend, launch, "probe_atomic_global_int", false);
}
static warplab_status launch_shared_int(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    return launch_atomics(backend, launch, "probe_atomic_local_int", true);
}
static warplab_status launch_cas_float(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    return launch_atomics(backend, launch, "probe_atomic_cas_float", false);
}

/* ------------------------------------------------------------------------ */
/* intrinsics: the integer pair (buffers: cells, w, first, sum) */

static warplab_status launch_integers(wl_backend *backend, const wl_launch *launch,
                                      const char *kernel, cl_uint divisor_or_shift)
{
    probe_args a;
    args_views(&a, launch, 1);    /* cells */
    for (int i = 2; i < 4; i++) { /* first, sum */
        a.mem[i] = wl_cl_mem(launch->buf[i]);
        a.off[i] = wl_cl_offset(launch->buf[i], 4);
        a.list[a.count++] = WL_CL_VALUE(a.mem[i]);
        a.list[a.count++] = WL_CL_VALUE(a.off[i]);
    }
    arg_u64(&a, 0, P->dim[0]);
    arg_u32(&a, 0, (cl_uint)P->dim[1]);
    arg_u32(&a, 1, divisor_or_shift);
    arg_u32(&a, 2, WL_INT_STEP);
    return launch_1d(backend, kernel, P->dim[0], &a);
}

static warplab_status launch_div_mod(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    return launch_integers(backend, launch, "probe_div_mod", WL_INT_DIVISOR);
}
static warplab_status launch_shift_mask(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    return launch_integers(backend, launch, "probe_shift_mask", WL_INT_SHIFT);
}

/* ------------------------------------------------------------------------ */
/* unroll */

static warplab_status launch_poly(wl_backend *backend, const wl_launch *launch, const char *kernel)
{
    probe_args a;
    args_views(&a, launch, 3);
    arg_u64(&a, 0, P->dim[0]);
    arg_u32(&a, 0, (cl_uint)P->dim[1]);
    arg_u32(&a, 1, WL_UNROLL_DEGREE);
    a.list[a.count++] = WL_CL_LOCAL(WL_UNROLL_DEGREE * sizeof(cl_float));
    return launch_1d(backend, kernel, P->dim[0], &a);
}

static warplab_status launch_rolled(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    return launch_poly(backend, launch, "probe_poly_rolled");
}
static warplab_status launch_compiler(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    return launch_poly(backend, launch, "probe_poly_compiler");
}
static warplab_status launch_pragma(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    return launch_poly(backend, launch, "probe_poly_pragma");
}
static warplab_status launch_by_hand(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    return launch_poly(backend, launch, "probe_poly_by_hand");
}

/* ------------------------------------------------------------------------ */

#define SERIES(ladder_, rung_, launch_)                                                            \
    {                                                                                              \
        .ladder = ladder_, .rung = rung_, .launch = launch_                                        \
    }
#define ATOMIC(rung_, launch_)                                                                     \
    {                                                                                              \
        .ladder = "atomics", .rung = rung_, .prepare = wl_probe_zero_last_buffer,                  \
        .launch = launch_                                                                          \
    }

static const wl_impl offset_impl = SERIES("coalescing", "offset", launch_offset);
static const wl_impl stride_impl = SERIES("coalescing", "stride", launch_stride);
static const wl_impl word4_impl = SERIES("banks", "word4", launch_word4);
static const wl_impl word8_impl = SERIES("banks", "word8", launch_word8);
static const wl_impl lane_impl = SERIES("divergence", "lane", launch_lane);
static const wl_impl warp_impl = SERIES("divergence", "warp", launch_warp);
static const wl_impl block_impl = SERIES("divergence", "block", launch_block);
static const wl_impl global_int_impl = ATOMIC("global_int", launch_global_int);
static const wl_impl shared_int_impl = ATOMIC("shared_int", launch_shared_int);
static const wl_impl cas_float_impl = ATOMIC("cas_float", launch_cas_float);
static const wl_impl div_mod_impl = SERIES("intrinsics", "div_mod", launch_div_mod);
static const wl_impl shift_mask_impl = SERIES("intrinsics", "shift_mask", launch_shift_mask);
static const wl_impl rolled_impl = SERIES("unroll", "rolled", launch_rolled);
static const wl_impl compiler_impl = SERIES("unroll", "compiler", launch_compiler);
static const wl_impl pragma_impl = SERIES("unroll", "pragma", launch_pragma);
static const wl_impl by_hand_impl = SERIES("unroll", "by_hand", launch_by_hand);

const wl_impl *const wl_opencl_probe_impls[] = {&offset_impl,
                                                &stride_impl,
                                                &word4_impl,
                                                &word8_impl,
                                                &lane_impl,
                                                &warp_impl,
                                                &block_impl,
                                                &global_int_impl,
                                                &shared_int_impl,
                                                &cas_float_impl,
                                                &div_mod_impl,
                                                &shift_mask_impl,
                                                &rolled_impl,
                                                &compiler_impl,
                                                &pragma_impl,
                                                &by_hand_impl,
                                                NULL};
