/* The intrinsics probe (seed 003, 'Skalární optimalizace'): fast
 * intrinsics against full-precision functions, integer division against
 * shifts. */
#include "probe_cuda.h"

/* ------------------------------------------------------------------------ */
/* intrinsics. Buffers: cells, w, first, sum.                               */

enum { CELLS = 0, W, FIRST, SUM };
enum { F_SIN = 0, F_EXP, F_DIV };

/* x on its grid (exact, as the CPU reference computes it). */
template <int Function> static __device__ __forceinline__ float argument(unsigned cell)
{
    if (Function == F_SIN)
        return WL_SIN_LO + (float)(cell % WL_SIN_CELLS) * WL_INTRINSICS_GRID;
    if (Function == F_EXP)
        return WL_EXP_LO + (float)(cell % WL_EXP_CELLS) * WL_INTRINSICS_GRID;
    return WL_DIV_LO + (float)(cell % WL_DIV_CELLS) * WL_INTRINSICS_GRID;
}

template <int Function, bool Fast>
static __device__ __forceinline__ float evaluate(float x, float divisor)
{
    if (Function == F_SIN)
        return Fast ? __sinf(x) : sinf(x);
    if (Function == F_EXP)
        return Fast ? __expf(x) : expf(x);
    return Fast ? __fdividef(x, divisor) : x / divisor;
}

/* Isolates one function's throughput: K dependent-free evaluations per
 * thread at x + k 2^-12 (the division: x / ((c + k)(c + k + 1)), a new
 * divisor every step so no reciprocal can be hoisted), summed so none can
 * be dropped; the first value alone measures the accuracy. */
template <int Function, bool Fast>
__global__ void probe_function(const int *cells, const float *w, float *first, float *sum,
                               size_t threads, unsigned evaluations)
{
    const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= threads)
        return;
    const float x = argument<Function>((unsigned)cells[t]);
    float c = 1.0f + (float)(int)(w[t] * WL_DIV_C_CELLS) * WL_DIV_C_GRID;
    first[t] = evaluate<Function, Fast>(x, c * (c + 1.0f));
    float arg = x, s = 0.0f;
    for (unsigned k = 0; k < evaluations; k++) {
        if (Function == F_DIV) {
            s += evaluate<Function, Fast>(x, c * (c + 1.0f));
            c += 1.0f;
        } else {
            s += evaluate<Function, Fast>(arg, 0.0f);
            arg += WL_INTRINSICS_STEP;
        }
    }
    sum[t] = s;
}

/* Isolates integer division: v / d + v % d with d known only at run time,
 * against the shift and mask it equals for d = 2^shift. */
template <bool ShiftMask>
__global__ void probe_integer(const int *cells, unsigned *first, unsigned *sum, size_t threads,
                              unsigned evaluations, unsigned divisor, unsigned shift)
{
    const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= threads)
        return;
    const unsigned mask = (1u << shift) - 1u;
    unsigned v = (unsigned)cells[t], s = 0;
    first[t] = ShiftMask ? (v >> shift) + (v & mask) : v / divisor + v % divisor;
    for (unsigned k = 0; k < evaluations; k++) {
        s += ShiftMask ? (v >> shift) + (v & mask) : v / divisor + v % divisor;
        v += WL_INT_STEP;
    }
    sum[t] = s;
}

template <int Function, bool Fast>
static warplab_status launch_function(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    const size_t threads = launch->problem->dim[0];
    probe_function<Function, Fast>
        <<<wl_probe_blocks(threads), WL_PROBE_BLOCK, 0, wl_cuda_stream(backend)>>>(
            view_of<const int>(launch, CELLS), view_of<const float>(launch, W),
            view_of<float>(launch, FIRST), view_of<float>(launch, SUM), threads,
            (unsigned)launch->problem->dim[1]);
    return WL_CUDA_LAUNCHED(backend, "probe intrinsics");
}

template <bool ShiftMask>
static warplab_status launch_integer(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    const size_t threads = launch->problem->dim[0];
    probe_integer<ShiftMask>
        <<<wl_probe_blocks(threads), WL_PROBE_BLOCK, 0, wl_cuda_stream(backend)>>>(
            view_of<const int>(launch, CELLS), view_of<unsigned>(launch, FIRST),
            view_of<unsigned>(launch, SUM), threads, (unsigned)launch->problem->dim[1],
            WL_INT_DIVISOR, WL_INT_SHIFT);
    return WL_CUDA_LAUNCHED(backend, "probe integer division");
}

#define SERIES(ladder_, rung_, launch_)                                                            \
    {                                                                                              \
        .ladder = ladder_, .rung = rung_, .launch = launch_                                        \
    }

extern "C" {
const wl_impl wl_cuda_probe_sinf = SERIES("intrinsics", "sinf", (launch_function<F_SIN, false>));
const wl_impl wl_cuda_probe_fast_sin =
    SERIES("intrinsics", "__sinf", (launch_function<F_SIN, true>));
const wl_impl wl_cuda_probe_expf = SERIES("intrinsics", "expf", (launch_function<F_EXP, false>));
const wl_impl wl_cuda_probe_fast_exp =
    SERIES("intrinsics", "__expf", (launch_function<F_EXP, true>));
const wl_impl wl_cuda_probe_div = SERIES("intrinsics", "div", (launch_function<F_DIV, false>));
const wl_impl wl_cuda_probe_fast_div =
    SERIES("intrinsics", "__fdividef", (launch_function<F_DIV, true>));
const wl_impl wl_cuda_probe_div_mod = SERIES("intrinsics", "div_mod", launch_integer<false>);
const wl_impl wl_cuda_probe_shift_mask = SERIES("intrinsics", "shift_mask", launch_integer<true>);
}
