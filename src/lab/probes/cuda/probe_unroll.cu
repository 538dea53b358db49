/* The unroll probe (seed 003, 'Skalární optimalizace'): a small loop
 * rolled, unrolled by the compiler, by #pragma unroll and by hand. */
#include "probe_cuda.h"

/* ------------------------------------------------------------------------ */
/* unroll. Buffers: x, coefficients, out.                                   */

enum { UNROLL_X = 0, UNROLL_COEFFICIENTS, UNROLL_OUT };
enum { ROLLED = 0, COMPILER, PRAGMA, BY_HAND };

/* One Horner evaluation, the inner loop written four ways. */
template <int Shape>
static __device__ __forceinline__ float horner(const float *c, unsigned degree, float x)
{
    float y = 0.0f;
    if (Shape == ROLLED) {
#pragma unroll 1
        for (unsigned k = 0; k < degree; k++)
            y = __fmaf_rn(y, x, c[k]);
    } else if (Shape == COMPILER) {
        for (unsigned k = 0; k < degree; k++)
            y = __fmaf_rn(y, x, c[k]);
    } else if (Shape == PRAGMA) {
#pragma unroll
        for (unsigned k = 0; k < WL_UNROLL_DEGREE; k++)
            y = __fmaf_rn(y, x, c[k]);
    } else {
        unsigned k = 0;
#pragma unroll 1
        for (; k + 4 <= degree; k += 4) {
            y = __fmaf_rn(y, x, c[k]);
            y = __fmaf_rn(y, x, c[k + 1]);
            y = __fmaf_rn(y, x, c[k + 2]);
            y = __fmaf_rn(y, x, c[k + 3]);
        }
#pragma unroll 1
        for (; k < degree; k++)
            y = __fmaf_rn(y, x, c[k]);
    }
    return y;
}

/* Isolates loop overhead: R Horner evaluations of 64 coefficients in shared
 * memory at x and -x alternately; only the inner loop's shape differs
 * between the series (the outer loop is never unrolled). */
template <int Shape>
__global__ void probe_poly(const float *x, const float *coefficients, float *out, size_t threads,
                           unsigned repeats, unsigned degree)
{
    __shared__ float c[WL_UNROLL_DEGREE];
    for (unsigned i = threadIdx.x; i < degree; i += blockDim.x)
        c[i] = coefficients[i];
    __syncthreads();
    const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= threads)
        return;
    float xs = x[t], acc = 0.0f;
#pragma unroll 1
    for (unsigned r = 0; r < repeats; r++) {
        acc += horner<Shape>(c, degree, xs);
        xs = -xs;
    }
    out[t] = acc;
}

template <int Shape>
static warplab_status launch_poly(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    const size_t threads = launch->problem->dim[0];
    probe_poly<Shape><<<wl_probe_blocks(threads), WL_PROBE_BLOCK, 0, wl_cuda_stream(backend)>>>(
        view_of<const float>(launch, UNROLL_X), view_of<const float>(launch, UNROLL_COEFFICIENTS),
        view_of<float>(launch, UNROLL_OUT), threads, (unsigned)launch->problem->dim[1],
        WL_UNROLL_DEGREE);
    return WL_CUDA_LAUNCHED(backend, "probe unroll");
}

#define SERIES(ladder_, rung_, launch_)                                                            \
    {                                                                                              \
        .ladder = ladder_, .rung = rung_, .launch = launch_                                        \
    }

extern "C" {
const wl_impl wl_cuda_probe_rolled = SERIES("unroll", "rolled", launch_poly<ROLLED>);
const wl_impl wl_cuda_probe_compiler = SERIES("unroll", "compiler", launch_poly<COMPILER>);
const wl_impl wl_cuda_probe_pragma = SERIES("unroll", "pragma", launch_poly<PRAGMA>);
const wl_impl wl_cuda_probe_by_hand = SERIES("unroll", "by_hand", launch_poly<BY_HAND>);
}
