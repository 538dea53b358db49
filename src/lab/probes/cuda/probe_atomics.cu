/* The atomics probe: thread t adds its value to counter t mod A, again and
 * again; A = threads / contention is a power of two. The counters are
 * zeroed before every run (wl_probe_zero_last_buffer, untimed). */
#include "probe_cuda.h"

enum { ATOMICS_VALUES = 0, ATOMICS_COUNTERS };

/* Isolates global-memory atomics: `iterations` atomicAdds per thread on the
 * thread's counter (int or float), at the L2. */
template <typename T>
__global__ void probe_atomic_global(const int *values, T *counters, size_t threads, size_t mask,
                                    unsigned iterations)
{
    const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= threads)
        return;
    const T v = (T)values[t];
    T *counter = counters + (t & mask);
    for (unsigned k = 0; k < iterations; k++)
        atomicAdd(counter, v);
}

/* Isolates staging: the same adds go to per-block counters in shared memory
 * (min(A, block) of them); then each block adds each counter to global
 * memory once. */
template <typename T>
__global__ void probe_atomic_shared(const int *values, T *counters, size_t threads, size_t mask,
                                    unsigned iterations)
{
    __shared__ T slots[WL_PROBE_BLOCK];
    const unsigned count = mask + 1 < blockDim.x ? (unsigned)(mask + 1) : blockDim.x;
    for (unsigned i = threadIdx.x; i < count; i += blockDim.x)
        slots[i] = 0;
    __syncthreads();
    const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t < threads) {
        const T v = (T)values[t];
        T *slot = &slots[threadIdx.x & (count - 1)];
        for (unsigned k = 0; k < iterations; k++)
            atomicAdd(slot, v);
    }
    __syncthreads();
    const size_t first = (size_t)blockIdx.x * blockDim.x;
    for (unsigned i = threadIdx.x; i < count; i += blockDim.x)
        atomicAdd(&counters[(first + i) & mask], slots[i]);
}

/* Isolates the compare-and-swap loop: a float add built from atomicCAS, as
 * one builds an atomic the hardware lacks; a failed swap retries. */
__global__ void probe_atomic_cas_float(const int *values, int *counters, size_t threads,
                                       size_t mask, unsigned iterations)
{
    const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= threads)
        return;
    const float v = (float)values[t];
    int *counter = counters + (t & mask);
    for (unsigned k = 0; k < iterations; k++) {
        int seen = *(volatile int *)counter, expected;
        do {
            expected = seen;
            seen = atomicCAS(counter, expected, __float_as_int(__int_as_float(expected) + v));
        } while (seen != expected);
    }
}

/* Isolates one atomic function of seed 002's list on int counters: the
 * same loop as probe_atomic_global<int>, another instruction. */
template <wl_atomic_function F>
__global__ void probe_atomic_function(const int *values, int *counters, size_t threads, size_t mask,
                                      unsigned iterations)
{
    const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= threads)
        return;
    const int v = values[t];
    int *counter = counters + (t & mask);
    unsigned *word = reinterpret_cast<unsigned *>(counter);
    for (unsigned k = 0; k < iterations; k++) {
        if constexpr (F == WL_ATOMIC_ADD)
            atomicAdd(counter, v);
        else if constexpr (F == WL_ATOMIC_SUB)
            atomicSub(counter, v);
        else if constexpr (F == WL_ATOMIC_EXCH)
            atomicExch(counter, v);
        else if constexpr (F == WL_ATOMIC_MIN)
            atomicMin(counter, v);
        else if constexpr (F == WL_ATOMIC_MAX)
            atomicMax(counter, v);
        else if constexpr (F == WL_ATOMIC_INC)
            atomicInc(word, 0xffffffffu);
        else if constexpr (F == WL_ATOMIC_DEC)
            atomicDec(word, 0xffffffffu);
        else if constexpr (F == WL_ATOMIC_AND)
            atomicAnd(counter, v);
        else if constexpr (F == WL_ATOMIC_OR)
            atomicOr(counter, v);
        else
            atomicXor(counter, v);
    }
}

template <wl_atomic_function F>
static warplab_status launch_function(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    const size_t threads = launch->problem->dim[0],
                 mask = threads / (size_t)launch->problem->param - 1;
    probe_atomic_function<F>
        <<<wl_probe_blocks(threads), WL_PROBE_BLOCK, 0, wl_cuda_stream(backend)>>>(
            view_of<const int>(launch, ATOMICS_VALUES), view_of<int>(launch, ATOMICS_COUNTERS),
            threads, mask, (unsigned)launch->problem->dim[1]);
    return WL_CUDA_LAUNCHED(backend, "probe atomic functions");
}

template <typename T, bool Shared>
static warplab_status launch_atomic(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    const size_t threads = launch->problem->dim[0],
                 mask = threads / (size_t)launch->problem->param - 1;
    const unsigned blocks = wl_probe_blocks(threads);
    cudaStream_t stream = wl_cuda_stream(backend);
    if constexpr (Shared)
        probe_atomic_shared<T><<<blocks, WL_PROBE_BLOCK, 0, stream>>>(
            view_of<const int>(launch, ATOMICS_VALUES), view_of<T>(launch, ATOMICS_COUNTERS),
            threads, mask, (unsigned)launch->problem->dim[1]);
    else
        probe_atomic_global<T><<<blocks, WL_PROBE_BLOCK, 0, stream>>>(
            view_of<const int>(launch, ATOMICS_VALUES), view_of<T>(launch, ATOMICS_COUNTERS),
            threads, mask, (unsigned)launch->problem->dim[1]);
    return WL_CUDA_LAUNCHED(backend, "probe atomics");
}

static warplab_status launch_cas_float(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    const size_t threads = launch->problem->dim[0],
                 mask = threads / (size_t)launch->problem->param - 1;
    probe_atomic_cas_float<<<wl_probe_blocks(threads), WL_PROBE_BLOCK, 0,
                             wl_cuda_stream(backend)>>>(
        view_of<const int>(launch, ATOMICS_VALUES), view_of<int>(launch, ATOMICS_COUNTERS), threads,
        mask, (unsigned)launch->problem->dim[1]);
    return WL_CUDA_LAUNCHED(backend, "probe atomicCAS loop");
}

#define ATOMIC(rung_, launch_)                                                                     \
    {                                                                                              \
        .ladder = "atomics", .rung = rung_, .prepare = wl_probe_zero_last_buffer,                  \
        .launch = launch_                                                                          \
    }

extern "C" {
const wl_impl wl_cuda_probe_global_int = ATOMIC("global_int", (launch_atomic<int, false>));
const wl_impl wl_cuda_probe_global_float = ATOMIC("global_float", (launch_atomic<float, false>));
const wl_impl wl_cuda_probe_shared_int = ATOMIC("shared_int", (launch_atomic<int, true>));
const wl_impl wl_cuda_probe_shared_float = ATOMIC("shared_float", (launch_atomic<float, true>));
const wl_impl wl_cuda_probe_cas_float = ATOMIC("cas_float", launch_cas_float);

#define FUNCTION(rung_, f_, prepare_)                                                              \
    {                                                                                              \
        .ladder = "atomic_functions", .rung = rung_, .prepare = prepare_,                          \
        .launch = launch_function<f_>                                                              \
    }
const wl_impl wl_cuda_probe_atomic_functions[10] = {
    FUNCTION("add", WL_ATOMIC_ADD, wl_probe_zero_last_buffer),
    FUNCTION("sub", WL_ATOMIC_SUB, wl_probe_zero_last_buffer),
    FUNCTION("exch", WL_ATOMIC_EXCH, wl_probe_zero_last_buffer),
    FUNCTION("min", WL_ATOMIC_MIN, wl_probe_zero_last_buffer),
    FUNCTION("max", WL_ATOMIC_MAX, wl_probe_zero_last_buffer),
    FUNCTION("inc", WL_ATOMIC_INC, wl_probe_zero_last_buffer),
    FUNCTION("dec", WL_ATOMIC_DEC, wl_probe_zero_last_buffer),
    FUNCTION("and", WL_ATOMIC_AND, wl_probe_ones_last_buffer),
    FUNCTION("or", WL_ATOMIC_OR, wl_probe_zero_last_buffer),
    FUNCTION("xor", WL_ATOMIC_XOR, wl_probe_zero_last_buffer),
};
}
