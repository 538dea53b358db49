/* The cuda backend's reduction rungs (seeds 001, 003, 004). First what the
 * rungs share (the operations, the host glue that runs a rung for the
 * problem's type and operation, and the level loop of the tree rungs); then
 * each rung in ladder order, its kernel, its launcher and its impl row
 * together, up to the one-pass kernel past the course and the CUB row.
 *
 * Every kernel is a template over the element type (int, float, double) and
 * the operation (OpSum, OpMin, OpMax), and is correct for any n: threads past
 * the end load the operation's identity, so the course's power-of-two
 * assumptions hold inside each block whatever n is. The tree rungs (1-8)
 * write one partial per block and run again on the partials, level after
 * level, until one block writes the result (the course's "kernel launch as a
 * global barrier"); the partials live in the rung's scratch, two regions used
 * in turn. */
/*
 * Contents: the reduce rungs this file implements, in ladder order
 * (number = place on the ladder, as `warplab ladders reduce` lists it):
 *    3. naive -- naive: one launch per level
 *    4. interleaved -- interleaved, divergent tid % (2s)
 *    5. strided_index -- interleaved, strided index
 *    6. sequential -- sequential addressing
 *    7. first_add -- first add during load
 *    8. warp_volatile -- unrolled last warp, volatile (race)
 *    9. warp_syncwarp -- unrolled last warp, __syncwarp
 *   10. complete_unroll -- complete unroll (template)
 *   11. cascade -- many elements per thread (cascading)
 *   12. shuffle -- warp shuffles, two kernels
 *   13. atomic_warp -- shuffles, one atomic per warp
 *   14. atomic_block -- shuffles, one atomic per block
 *   15. single_pass -- one pass, 16-byte loads (Hopper)
 *   16. cub -- cub::DeviceReduce (vendor)
 */
#include "cuda_backend.h"

#include <cub/cub.cuh>
#include <math_constants.h>

#include <atomic>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <type_traits>

#define N (launch->problem->dim[0])

namespace
{

/* ------------------------------------------------------------------------ */
/* Operations: an identity and a combine                                    */

__device__ inline bool is_nan(int)
{
    return false;
}
__device__ inline bool is_nan(float x)
{
    return isnan(x);
}
__device__ inline bool is_nan(double x)
{
    return isnan(x);
}

/* int32 sums wrap modulo 2^32: done in unsigned, where that is defined. */
struct OpSum {
    template <typename T> __device__ static T identity() { return T(0); }
    __device__ static int apply(int a, int b) { return (int)((unsigned)a + (unsigned)b); }
    __device__ static float apply(float a, float b) { return a + b; }
    __device__ static double apply(double a, double b) { return a + b; }
};

template <typename T> struct Extremes;
template <> struct Extremes<int> {
    __device__ static int highest() { return INT_MAX; }
    __device__ static int lowest() { return INT_MIN; }
};
template <> struct Extremes<float> {
    __device__ static float highest() { return CUDART_INF_F; }
    __device__ static float lowest() { return -CUDART_INF_F; }
};
template <> struct Extremes<double> {
    __device__ static double highest() { return CUDART_INF; }
    __device__ static double lowest() { return -CUDART_INF; }
};

/* min and max propagate a NaN (fminf would drop it): a NaN in b wins, and a
 * NaN already in a stays, since b < NaN is false. */
struct OpMin {
    template <typename T> __device__ static T identity() { return Extremes<T>::highest(); }
    template <typename T> __device__ static T apply(T a, T b)
    {
        return (b < a || is_nan(b)) ? b : a;
    }
};

struct OpMax {
    template <typename T> __device__ static T identity() { return Extremes<T>::lowest(); }
    template <typename T> __device__ static T apply(T a, T b)
    {
        return (b > a || is_nan(b)) ? b : a;
    }
};

template <typename T, typename Op> __device__ inline T identity()
{
    return Op::template identity<T>();
}

template <typename T, typename Op>
__device__ inline T load_or_identity(const T *in, size_t n, size_t i)
{
    return i < n ? in[i] : identity<T, Op>();
}

/* Dynamic shared memory as an array of T (one declaration for every T). */
template <typename T> __device__ inline T *shared_array()
{
    extern __shared__ __align__(16) unsigned char shared_bytes[];
    return reinterpret_cast<T *>(shared_bytes);
}

template <typename T, typename Op> __global__ void write_identity_kernel(T *out)
{
    *out = identity<T, Op>();
}

/* ------------------------------------------------------------------------ */
/* Atomics: native where CUDA has them, a compare-and-swap loop elsewhere    */

__device__ inline unsigned to_bits(float x)
{
    return __float_as_uint(x);
}
__device__ inline unsigned long long to_bits(double x)
{
    return (unsigned long long)__double_as_longlong(x);
}
__device__ inline float from_bits(unsigned x)
{
    return __uint_as_float(x);
}
__device__ inline double from_bits(unsigned long long x)
{
    return __longlong_as_double((long long)x);
}

/* Retries until the word holds op(old, v) for the old value it replaced;
 * stops early when op(old, v) is old itself (nothing to write). */
template <typename Op, typename T> __device__ void atomic_combine_cas(T *target, T v)
{
    using Bits = decltype(to_bits(v));
    Bits *word = reinterpret_cast<Bits *>(target);
    Bits old = *reinterpret_cast<volatile Bits *>(word);
    for (;;) {
        const Bits wanted = to_bits(Op::apply(from_bits(old), v));
        if (wanted == old)
            return;
        const Bits seen = atomicCAS(word, old, wanted);
        if (seen == old)
            return;
        old = seen;
    }
}

template <typename Op> __device__ void atomic_combine(int *target, int v)
{
    if constexpr (std::is_same_v<Op, OpSum>)
        atomicAdd(target, v);
    else if constexpr (std::is_same_v<Op, OpMin>)
        atomicMin(target, v);
    else
        atomicMax(target, v);
}

template <typename Op, typename T> __device__ void atomic_combine(T *target, T v)
{
    if constexpr (std::is_same_v<Op, OpSum>)
        atomicAdd(target, v); /* float, and double (sm_60 and later) */
    else
        atomic_combine_cas<Op>(target, v);
}

/* ------------------------------------------------------------------------ */
/* Host side: running a rung for the problem's type and operation            */

/* Calls call(Rung<T, Op>{}) for the problem's element type and operation. */
template <template <typename, typename> class Rung, typename T, typename F>
auto with_op(warplab_reduce_op op, F &call)
{
    switch (op) {
    case WARPLAB_REDUCE_SUM: return call(Rung<T, OpSum>{});
    case WARPLAB_REDUCE_MIN: return call(Rung<T, OpMin>{});
    default: return call(Rung<T, OpMax>{});
    }
}

template <template <typename, typename> class Rung, typename F>
auto with_types(const wl_problem *problem, F &&call)
{
    switch (problem->dtype) {
    case WARPLAB_INT32: return with_op<Rung, int>(problem->op, call);
    case WARPLAB_FLOAT32: return with_op<Rung, float>(problem->op, call);
    default: return with_op<Rung, double>(problem->op, call);
    }
}

template <template <typename, typename> class Rung>
warplab_status launch_rung(wl_backend *backend, const wl_launch *launch, void *state)
{
    return with_types<Rung>(
        launch->problem, [&](auto rung) { return decltype(rung)::launch(backend, launch, state); });
}

template <typename T> T *input_of(const wl_launch *launch)
{
    return static_cast<T *>(wl_view_ptr(launch->buf[0]));
}
template <typename T> T *output_of(const wl_launch *launch)
{
    return static_cast<T *>(wl_view_ptr(launch->buf[1]));
}

/* The result of an empty input, for rungs whose kernels would write nothing. */
template <typename T, typename Op> warplab_status write_identity(wl_backend *backend, T *out)
{
    write_identity_kernel<T, Op><<<1, 1, 0, wl_cuda_stream(backend)>>>(out);
    return WL_CUDA_LAUNCHED(backend, "reduce: writing the identity");
}

warplab_status check_grid(wl_backend *backend, size_t blocks, const char *what)
{
    if (blocks > (size_t)backend->info.max_grid_dim[0])
        return wl_fail(backend, WARPLAB_ERROR_UNSUPPORTED,
                       "%s: %zu blocks are past the grid limit of %d", what, blocks,
                       backend->info.max_grid_dim[0]);
    return WARPLAB_OK;
}

/* ---- the tree rungs: one launch per level ---- */

struct LevelShape {
    unsigned threads;
    size_t blocks;
};

size_t blocks_for(size_t count, size_t per_block)
{
    const size_t blocks = (count + per_block - 1) / per_block;
    return blocks ? blocks : 1;
}

/* Seed 001's choice for the templated rungs: 512 threads, fewer (a power of
 * two, at least 1) when the level has under 1024 elements. */
unsigned unrolled_threads(size_t count)
{
    if (count >= 2 * 512)
        return 512;
    unsigned threads = 1;
    while (threads < (count + 1) / 2)
        threads *= 2;
    return threads;
}

/* warplab:rung reduce interleaved strided_index sequential first_add warp_volatile warp_syncwarp
 * complete_unroll cascade shuffle */
/* Runs Rung's levels: each block of a level writes one partial; the level
 * with one block writes the result. Level 1's partials go to the first region
 * of scratch, level 2's to the second, level 3's to the first again. */
template <typename R>
warplab_status run_levels(wl_backend *backend, const wl_launch *launch, const char *what)
{
    using T = typename R::value_type;
    const T *src = input_of<T>(launch);
    T *out = output_of<T>(launch);
    T *scratch = static_cast<T *>(wl_view_ptr(launch->scratch));
    size_t count = N;
    const size_t first_level = R::shape(backend, count).blocks;
    for (int level = 0;; level++) {
        const LevelShape shape = R::shape(backend, count);
        warplab_status status = check_grid(backend, shape.blocks, what);
        if (status != WARPLAB_OK)
            return status;
        T *dst = shape.blocks == 1 ? out : scratch + (level % 2 ? first_level : 0);
        status =
            wl_cuda_check(backend, R::level(shape, wl_cuda_stream(backend), src, dst, count), what);
        if (status == WARPLAB_OK)
            status = WL_CUDA_LAUNCHED(backend, what);
        if (status != WARPLAB_OK || shape.blocks == 1)
            return status;
        src = dst;
        count = shape.blocks;
    }
}
/* warplab:end */

/* Scratch for run_levels: the first two levels' partials. */
template <template <typename, typename> class Rung>
size_t levels_scratch(wl_backend *backend, const wl_problem *problem)
{
    return with_types<Rung>(problem, [&](auto rung) -> size_t {
        using R = decltype(rung);
        const size_t first = R::shape(backend, problem->dim[0]).blocks;
        if (first <= 1)
            return 0;
        const size_t second = R::shape(backend, first).blocks;
        return (first + (second > 1 ? second : 0)) * sizeof(typename R::value_type);
    });
}

/* warplab:rung reduce interleaved strided_index sequential first_add warp_volatile warp_syncwarp */
/* A tree rung whose kernel takes (in, out, n) with blockDim x sizeof(T)
 * bytes of shared memory, THREADS threads and PER_BLOCK elements per block. */
#define TREE_RUNG(NAME, KERNEL, THREADS, PER_BLOCK)                                                \
    template <typename T, typename Op> struct NAME {                                               \
        using value_type = T;                                                                      \
        static LevelShape shape(const wl_backend *, size_t count)                                  \
        {                                                                                          \
            return {THREADS, blocks_for(count, PER_BLOCK)};                                        \
        }                                                                                          \
        static cudaError_t level(LevelShape s, cudaStream_t stream, const T *src, T *dst,          \
                                 size_t count)                                                     \
        {                                                                                          \
            KERNEL<T, Op><<<(unsigned)s.blocks, s.threads, s.threads * sizeof(T), stream>>>(       \
                src, dst, count);                                                                  \
            return cudaSuccess;                                                                    \
        }                                                                                          \
        static warplab_status launch(wl_backend *backend, const wl_launch *launch, void *)         \
        {                                                                                          \
            return run_levels<NAME>(backend, launch, "reduce " #NAME);                             \
        }                                                                                          \
    };
/* warplab:end */

/* ------------------------------------------------------------------------ */
/* Rung naive (seed 003): v[i] += v[i + stride] for i a multiple of           */
/* 2 * stride, one launch per level, stride 1, 2, 4, ... The first level     */
/* reads the input and writes scratch (the input must stay untouched); later */
/* levels work in place in scratch; the last (2 * stride >= n) writes the    */
/* result. An element with no partner (n not a power of two) is carried up.  */

/* warplab:rung reduce naive */
template <typename T, typename Op>
__global__ void naive_level_kernel(const T *src, T *dst, size_t n, size_t stride)
{
    const size_t i = 2 * stride * (blockIdx.x * (size_t)blockDim.x + threadIdx.x);
    if (i < n)
        dst[i] = i + stride < n ? Op::apply(src[i], src[i + stride]) : src[i];
}
/* warplab:end */

/* ---- rung naive ---- */

/* warplab:rung reduce naive */
template <typename T, typename Op> struct Naive {
    static warplab_status launch(wl_backend *backend, const wl_launch *launch, void *)
    {
        const size_t n = N;
        T *out = output_of<T>(launch);
        if (n == 0)
            return write_identity<T, Op>(backend, out);
        T *scratch = static_cast<T *>(wl_view_ptr(launch->scratch));
        const T *src = input_of<T>(launch);
        const unsigned block = 256;
        for (size_t stride = 1;; stride *= 2) {
            const bool last = 2 * stride >= n;
            const size_t pairs = (n + 2 * stride - 1) / (2 * stride);
            const size_t blocks = (pairs + block - 1) / block;
            warplab_status status = check_grid(backend, blocks, "reduce naive");
            if (status != WARPLAB_OK)
                return status;
            T *dst = last ? out : scratch;
            naive_level_kernel<T, Op>
                <<<(unsigned)blocks, block, 0, wl_cuda_stream(backend)>>>(src, dst, n, stride);
            status = WL_CUDA_LAUNCHED(backend, "reduce naive level");
            if (status != WARPLAB_OK || last)
                return status;
            src = scratch;
        }
    }
};
/* warplab:end */

size_t naive_scratch(wl_backend *backend, const wl_problem *problem)
{
    (void)backend;
    return problem->dim[0] > 2 ? problem->dim[0] * warplab_dtype_size(problem->dtype) : 0;
}

const wl_impl naive_impl = {.ladder = "reduce",
                            .rung = "naive",
                            .scratch_bytes = naive_scratch,
                            .launch = launch_rung<Naive>};

/* ------------------------------------------------------------------------ */
/* Rung interleaved (seed 001 reduce0, seed 004 attempt #1): one element per */
/* thread into shared memory, then a tree with the divergent branch          */
/* tid % (2s) == 0. Threads past n load the identity, so the tree never      */
/* needs n to be a power of two.                                             */

/* warplab:rung reduce interleaved */
template <typename T, typename Op> __global__ void interleaved_kernel(const T *in, T *out, size_t n)
{
    T *s = shared_array<T>();
    const unsigned tid = threadIdx.x;
    s[tid] = load_or_identity<T, Op>(in, n, blockIdx.x * (size_t)blockDim.x + tid);
    __syncthreads();
    for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
        if (tid % (2 * stride) == 0)
            s[tid] = Op::apply(s[tid], s[tid + stride]);
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = s[0];
}
/* warplab:end */

/* 512 threads per block, the course's (seed 001: "Set the GPU thread block
 * size to 512 threads"). */
/* warplab:rung reduce interleaved */
TREE_RUNG(Interleaved, interleaved_kernel, 512, 512)
/* warplab:end */

const wl_impl interleaved_impl = {.ladder = "reduce",
                                  .rung = "interleaved",
                                  .scratch_bytes = levels_scratch<Interleaved>,
                                  .launch = launch_rung<Interleaved>};

/* Rung strided_index (attempt #2): the same tree, index = 2 * s * tid. The   */
/* working threads are now the first ones (no divergence within a warp until */
/* fewer than 32 work), but neighbouring threads hit words 2s apart: bank     */
/* conflicts.                                                                 */
/* warplab:rung reduce strided_index */
template <typename T, typename Op>
__global__ void strided_index_kernel(const T *in, T *out, size_t n)
{
    T *s = shared_array<T>();
    const unsigned tid = threadIdx.x;
    s[tid] = load_or_identity<T, Op>(in, n, blockIdx.x * (size_t)blockDim.x + tid);
    __syncthreads();
    for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
        const unsigned index = 2 * stride * tid;
        if (index < blockDim.x)
            s[index] = Op::apply(s[index], s[index + stride]);
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = s[0];
}
/* warplab:end */

/* warplab:rung reduce strided_index */
TREE_RUNG(StridedIndex, strided_index_kernel, 512, 512)
/* warplab:end */

const wl_impl strided_index_impl = {.ladder = "reduce",
                                    .rung = "strided_index",
                                    .scratch_bytes = levels_scratch<StridedIndex>,
                                    .launch = launch_rung<StridedIndex>};

/* Rung sequential (attempt #3): reversed loop, sdata[tid] += sdata[tid + s]: */
/* a warp reads 32 consecutive words, no conflicts, no divergence above s=32. */
/* warplab:rung reduce sequential */
template <typename T, typename Op> __global__ void sequential_kernel(const T *in, T *out, size_t n)
{
    T *s = shared_array<T>();
    const unsigned tid = threadIdx.x;
    s[tid] = load_or_identity<T, Op>(in, n, blockIdx.x * (size_t)blockDim.x + tid);
    __syncthreads();
    for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (tid < stride)
            s[tid] = Op::apply(s[tid], s[tid + stride]);
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = s[0];
}
/* warplab:end */

/* warplab:rung reduce sequential */
TREE_RUNG(Sequential, sequential_kernel, 512, 512)
/* warplab:end */

const wl_impl sequential_impl = {.ladder = "reduce",
                                 .rung = "sequential",
                                 .scratch_bytes = levels_scratch<Sequential>,
                                 .launch = launch_rung<Sequential>};

/* Two elements per thread, i and i + blockDim, combined during the load (the */
/* first step of the tree, which left half the threads idle).                */
/* warplab:rung reduce first_add warp_volatile warp_syncwarp complete_unroll cascade */
template <typename T, typename Op>
__device__ inline T load_pair(const T *in, size_t n, unsigned block)
{
    const size_t i = blockIdx.x * (size_t)(2 * block) + threadIdx.x;
    return Op::apply(load_or_identity<T, Op>(in, n, i), load_or_identity<T, Op>(in, n, i + block));
}
/* warplab:end */

/* The tree's steps above one warp (s = blockDim/2 down to 64), leaving       */
/* s[0..63] for the last warp. Needs blockDim >= 64.                          */
/* warplab:rung reduce warp_volatile warp_syncwarp */
template <typename T, typename Op> __device__ inline void tree_above_warp(T *s, unsigned tid)
{
    for (unsigned stride = blockDim.x / 2; stride > 32; stride >>= 1) {
        if (tid < stride)
            s[tid] = Op::apply(s[tid], s[tid + stride]);
        __syncthreads();
    }
}
/* warplab:end */

/* Rung first_add (attempt #4): half the blocks, each thread adding twice.   */
/* warplab:rung reduce first_add */
template <typename T, typename Op> __global__ void first_add_kernel(const T *in, T *out, size_t n)
{
    T *s = shared_array<T>();
    const unsigned tid = threadIdx.x;
    s[tid] = load_pair<T, Op>(in, n, blockDim.x);
    __syncthreads();
    for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (tid < stride)
            s[tid] = Op::apply(s[tid], s[tid + stride]);
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = s[0];
}
/* warplab:end */

/* warplab:rung reduce first_add */
TREE_RUNG(FirstAdd, first_add_kernel, 512, 1024)
/* warplab:end */

const wl_impl first_add_impl = {.ladder = "reduce",
                                .rung = "first_add",
                                .scratch_bytes = levels_scratch<FirstAdd>,
                                .launch = launch_rung<FirstAdd>};

/* Rung warp_volatile (attempt #5 as the course wrote it): the last warp     */
/* without barriers, trusting lockstep execution through a volatile pointer. */
/* On Volta and later the lanes of a warp may run apart: lane t can read     */
/* s[t + 16] before lane t + 16 has written it. A data race, kept to show it. */
/* warplab:rung reduce warp_volatile */
template <typename T, typename Op> __device__ void warp_reduce_volatile(volatile T *s, unsigned tid)
{
    s[tid] = Op::apply((T)s[tid], (T)s[tid + 32]);
    s[tid] = Op::apply((T)s[tid], (T)s[tid + 16]);
    s[tid] = Op::apply((T)s[tid], (T)s[tid + 8]);
    s[tid] = Op::apply((T)s[tid], (T)s[tid + 4]);
    s[tid] = Op::apply((T)s[tid], (T)s[tid + 2]);
    s[tid] = Op::apply((T)s[tid], (T)s[tid + 1]);
}

template <typename T, typename Op>
__global__ void warp_volatile_kernel(const T *in, T *out, size_t n)
{
    T *s = shared_array<T>();
    const unsigned tid = threadIdx.x;
    s[tid] = load_pair<T, Op>(in, n, blockDim.x);
    __syncthreads();
    tree_above_warp<T, Op>(s, tid);
    if (tid < 32)
        warp_reduce_volatile<T, Op>(s, tid);
    if (tid == 0)
        out[blockIdx.x] = s[0];
}
/* warplab:end */

/* warplab:rung reduce warp_volatile */
TREE_RUNG(WarpVolatile, warp_volatile_kernel, 512, 1024)
/* warplab:end */

const wl_impl warp_volatile_impl = {.ladder = "reduce",
                                    .rung = "warp_volatile",
                                    .scratch_bytes = levels_scratch<WarpVolatile>,
                                    .launch = launch_rung<WarpVolatile>};

/* Rung warp_syncwarp (5b): the same unrolled last warp made correct. Each   */
/* step reads its partner into a register, waits for the whole warp          */
/* (__syncwarp), then writes, and waits again before the next read.          */
/* warplab:rung reduce warp_syncwarp */
template <typename T, typename Op> __device__ T warp_reduce_syncwarp(T *s, unsigned tid)
{
    T v = s[tid];
#pragma unroll
    for (unsigned offset = 32; offset > 0; offset >>= 1) {
        v = Op::apply(v, s[tid + offset]);
        __syncwarp();
        s[tid] = v;
        __syncwarp();
    }
    return v;
}

template <typename T, typename Op>
__global__ void warp_syncwarp_kernel(const T *in, T *out, size_t n)
{
    T *s = shared_array<T>();
    const unsigned tid = threadIdx.x;
    s[tid] = load_pair<T, Op>(in, n, blockDim.x);
    __syncthreads();
    tree_above_warp<T, Op>(s, tid);
    if (tid < 32) {
        const T v = warp_reduce_syncwarp<T, Op>(s, tid);
        if (tid == 0)
            out[blockIdx.x] = v;
    }
}
/* warplab:end */

/* warplab:rung reduce warp_syncwarp */
TREE_RUNG(WarpSyncwarp, warp_syncwarp_kernel, 512, 1024)
/* warplab:end */

const wl_impl warp_syncwarp_impl = {.ladder = "reduce",
                                    .rung = "warp_syncwarp",
                                    .scratch_bytes = levels_scratch<WarpSyncwarp>,
                                    .launch = launch_rung<WarpSyncwarp>};

/* ------------------------------------------------------------------------ */
/* Rungs complete_unroll (attempt #6) and cascade (attempt #7): the block    */
/* size is a template parameter, so every "if (BLOCK >= ...)" is decided at  */
/* compile time and the tree is straight-line code. The last warp uses 5b's */
/* __syncwarp steps; blocks under 64 threads guard the reads that would      */
/* leave their BLOCK words of shared memory (the course's version reads past */
/* them).                                                                    */

/* warplab:rung reduce complete_unroll cascade */
template <unsigned BLOCK, unsigned OFFSET, typename T, typename Op>
__device__ inline void unrolled_warp_step(T *s, unsigned tid, T &v)
{
    if constexpr (BLOCK >= 2 * OFFSET) {
        constexpr unsigned lanes = BLOCK >= 32 ? 0xffffffffu : (1u << BLOCK) - 1u;
        const bool active = BLOCK >= 64 || tid < OFFSET;
        if (active)
            v = Op::apply(v, s[tid + OFFSET]);
        __syncwarp(lanes);
        if (active)
            s[tid] = v;
        __syncwarp(lanes);
    }
}

template <unsigned BLOCK, unsigned HALF, typename T, typename Op>
__device__ inline void unrolled_block_step(T *s, unsigned tid, T &v)
{
    if constexpr (BLOCK >= 2 * HALF) {
        if (tid < HALF)
            s[tid] = v = Op::apply(v, s[tid + HALF]);
        __syncthreads();
    }
}

/* CASCADE: each thread first combines every element of its grid-stride     */
/* slice, two per trip (i and i + BLOCK, as the course's while loop).        */
template <unsigned BLOCK, bool CASCADE, typename T, typename Op>
__global__ void __launch_bounds__(BLOCK) unrolled_kernel(const T *in, T *out, size_t n)
{
    T *s = shared_array<T>();
    const unsigned tid = threadIdx.x;
    T v;
    if constexpr (CASCADE) {
        v = identity<T, Op>();
        const size_t grid_stride = (size_t)2 * BLOCK * gridDim.x;
        for (size_t i = blockIdx.x * (size_t)(2 * BLOCK) + tid; i < n; i += grid_stride) {
            v = Op::apply(v, in[i]);
            if (i + BLOCK < n)
                v = Op::apply(v, in[i + BLOCK]);
        }
    } else {
        v = load_pair<T, Op>(in, n, BLOCK);
    }
    s[tid] = v;
    __syncthreads();
    unrolled_block_step<BLOCK, 512, T, Op>(s, tid, v);
    unrolled_block_step<BLOCK, 256, T, Op>(s, tid, v);
    unrolled_block_step<BLOCK, 128, T, Op>(s, tid, v);
    unrolled_block_step<BLOCK, 64, T, Op>(s, tid, v);
    if (tid < 32) {
        unrolled_warp_step<BLOCK, 32, T, Op>(s, tid, v);
        unrolled_warp_step<BLOCK, 16, T, Op>(s, tid, v);
        unrolled_warp_step<BLOCK, 8, T, Op>(s, tid, v);
        unrolled_warp_step<BLOCK, 4, T, Op>(s, tid, v);
        unrolled_warp_step<BLOCK, 2, T, Op>(s, tid, v);
        unrolled_warp_step<BLOCK, 1, T, Op>(s, tid, v);
    }
    if (tid == 0)
        out[blockIdx.x] = v;
}

/* The course's switch: one template instance per block size. */
template <bool CASCADE, typename T, typename Op>
cudaError_t launch_unrolled(unsigned threads, size_t blocks, cudaStream_t stream, const T *in,
                            T *out, size_t n)
{
    const dim3 grid((unsigned)blocks);
    const size_t bytes = threads * sizeof(T);
    switch (threads) {
    case 512: unrolled_kernel<512, CASCADE, T, Op><<<grid, 512, bytes, stream>>>(in, out, n); break;
    case 256: unrolled_kernel<256, CASCADE, T, Op><<<grid, 256, bytes, stream>>>(in, out, n); break;
    case 128: unrolled_kernel<128, CASCADE, T, Op><<<grid, 128, bytes, stream>>>(in, out, n); break;
    case 64: unrolled_kernel<64, CASCADE, T, Op><<<grid, 64, bytes, stream>>>(in, out, n); break;
    case 32: unrolled_kernel<32, CASCADE, T, Op><<<grid, 32, bytes, stream>>>(in, out, n); break;
    case 16: unrolled_kernel<16, CASCADE, T, Op><<<grid, 16, bytes, stream>>>(in, out, n); break;
    case 8: unrolled_kernel<8, CASCADE, T, Op><<<grid, 8, bytes, stream>>>(in, out, n); break;
    case 4: unrolled_kernel<4, CASCADE, T, Op><<<grid, 4, bytes, stream>>>(in, out, n); break;
    case 2: unrolled_kernel<2, CASCADE, T, Op><<<grid, 2, bytes, stream>>>(in, out, n); break;
    case 1: unrolled_kernel<1, CASCADE, T, Op><<<grid, 1, bytes, stream>>>(in, out, n); break;
    default: return cudaErrorInvalidValue;
    }
    return cudaSuccess;
}
/* warplab:end */

/* Rung complete_unroll: the block size of each level chosen at run time and
 * dispatched to its template instance. */
/* warplab:rung reduce complete_unroll */
template <typename T, typename Op> struct CompleteUnroll {
    using value_type = T;
    static LevelShape shape(const wl_backend *, size_t count)
    {
        const unsigned threads = unrolled_threads(count);
        return {threads, blocks_for(count, 2 * (size_t)threads)};
    }
    static cudaError_t level(LevelShape s, cudaStream_t stream, const T *src, T *dst, size_t count)
    {
        return launch_unrolled<false, T, Op>(s.threads, s.blocks, stream, src, dst, count);
    }
    static warplab_status launch(wl_backend *backend, const wl_launch *launch, void *)
    {
        return run_levels<CompleteUnroll>(backend, launch, "reduce complete_unroll");
    }
};
/* warplab:end */

const wl_impl complete_unroll_impl = {.ladder = "reduce",
                                      .rung = "complete_unroll",
                                      .scratch_bytes = levels_scratch<CompleteUnroll>,
                                      .launch = launch_rung<CompleteUnroll>};

/* Rung cascade: as complete_unroll, with a grid that just fills the GPU
 * (every SM's resident blocks): each thread sums about n / (grid x block)
 * elements first, and the next level is a single block. */
/* warplab:rung reduce cascade */
template <typename T, typename Op> struct Cascade {
    using value_type = T;
    static LevelShape shape(const wl_backend *backend, size_t count)
    {
        const unsigned threads = unrolled_threads(count);
        return {threads, wl_cuda_grid_for(backend, (count + 1) / 2, threads)};
    }
    static cudaError_t level(LevelShape s, cudaStream_t stream, const T *src, T *dst, size_t count)
    {
        return launch_unrolled<true, T, Op>(s.threads, s.blocks, stream, src, dst, count);
    }
    static warplab_status launch(wl_backend *backend, const wl_launch *launch, void *)
    {
        return run_levels<Cascade>(backend, launch, "reduce cascade");
    }
};
/* warplab:end */

const wl_impl cascade_impl = {.ladder = "reduce",
                              .rung = "cascade",
                              .scratch_bytes = levels_scratch<Cascade>,
                              .launch = launch_rung<Cascade>};

/* ------------------------------------------------------------------------ */
/* Rungs shuffle, atomic_warp, atomic_block (seed 004)                        */

/* Lane 0 ends with the warp's value. */
/* warplab:rung reduce shuffle atomic_warp atomic_block single_pass */
template <typename T, typename Op> __device__ inline T warp_reduce_shuffle(T v)
{
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1)
        v = Op::apply(v, __shfl_down_sync(0xffffffffu, v, offset));
    return v;
}
/* warplab:end */

/* sm_80 and later reduce a warp of 32-bit integers in one instruction
 * (redux.sync); other types and older GPUs shuffle. */
/* warplab:rung reduce shuffle atomic_block single_pass */
template <typename T, typename Op> __device__ inline T warp_reduce_fast(T v)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    if constexpr (std::is_same_v<T, int>) {
        if constexpr (std::is_same_v<Op, OpSum>)
            return __reduce_add_sync(0xffffffffu, v);
        else if constexpr (std::is_same_v<Op, OpMin>)
            return __reduce_min_sync(0xffffffffu, v);
        else
            return __reduce_max_sync(0xffffffffu, v);
    } else {
        return warp_reduce_shuffle<T, Op>(v);
    }
#else
    return warp_reduce_shuffle<T, Op>(v);
#endif
}

/* Seed 004's block_reduce_sum: each warp reduces, lane 0 of each writes one
 * of 32 words, the first warp reduces those. blockDim must be a multiple of
 * 32; thread 0 ends with the block's value. The leading barrier lets a block
 * call it twice (the one-pass kernel does). */
template <typename T, typename Op, bool FAST = false> __device__ T block_reduce(T v)
{
    __shared__ T warp_values[32];
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    v = FAST ? warp_reduce_fast<T, Op>(v) : warp_reduce_shuffle<T, Op>(v);
    __syncthreads();
    if (lane == 0)
        warp_values[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < blockDim.x / 32 ? warp_values[lane] : identity<T, Op>();
        v = FAST ? warp_reduce_fast<T, Op>(v) : warp_reduce_shuffle<T, Op>(v);
    }
    return v;
}
/* warplab:end */

/* Each thread's slice of a grid-stride loop, one element per trip. */
/* warplab:rung reduce shuffle atomic_warp atomic_block */
template <typename T, typename Op> __device__ inline T grid_stride_reduce(const T *in, size_t n)
{
    T v = identity<T, Op>();
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride)
        v = Op::apply(v, in[i]);
    return v;
}
/* warplab:end */

/* warplab:rung reduce shuffle */
template <typename T, typename Op> __global__ void shuffle_kernel(const T *in, T *out, size_t n)
{
    const T v = block_reduce<T, Op>(grid_stride_reduce<T, Op>(in, n));
    if (threadIdx.x == 0)
        out[blockIdx.x] = v;
}
/* warplab:end */

/* Seed 004's grid: 512-thread blocks, one element per thread, at most 1024. */
size_t seed004_blocks(size_t count)
{
    const size_t blocks = blocks_for(count, 512);
    return blocks < 1024 ? blocks : 1024;
}

/* Rung shuffle: seed 004's two kernels, 512 threads and at most 1024 blocks,
 * then <<<1, 1024>>> over the partials (one launch when n <= 1024). */
/* warplab:rung reduce shuffle */
template <typename T, typename Op> struct Shuffle {
    using value_type = T;
    static LevelShape shape(const wl_backend *, size_t count)
    {
        if (count <= 1024)
            return {1024, 1};
        return {512, seed004_blocks(count)};
    }
    static cudaError_t level(LevelShape s, cudaStream_t stream, const T *src, T *dst, size_t count)
    {
        shuffle_kernel<T, Op><<<(unsigned)s.blocks, s.threads, 0, stream>>>(src, dst, count);
        return cudaSuccess;
    }
    static warplab_status launch(wl_backend *backend, const wl_launch *launch, void *)
    {
        return run_levels<Shuffle>(backend, launch, "reduce shuffle");
    }
};
/* warplab:end */

const wl_impl shuffle_impl = {.ladder = "reduce",
                              .rung = "shuffle",
                              .scratch_bytes = levels_scratch<Shuffle>,
                              .launch = launch_rung<Shuffle>};

/* warplab:rung reduce atomic_warp */
template <typename T, typename Op> __global__ void atomic_warp_kernel(const T *in, T *out, size_t n)
{
    const T v = warp_reduce_shuffle<T, Op>(grid_stride_reduce<T, Op>(in, n));
    if (threadIdx.x % 32 == 0)
        atomic_combine<Op>(out, v);
}
/* warplab:end */

/* warplab:rung reduce atomic_block */
template <typename T, typename Op>
__global__ void atomic_block_kernel(const T *in, T *out, size_t n)
{
    const T v = block_reduce<T, Op>(grid_stride_reduce<T, Op>(in, n));
    if (threadIdx.x == 0)
        atomic_combine<Op>(out, v);
}
/* warplab:end */

/* Rungs atomic_warp and atomic_block: the result starts as the identity (a
 * one-thread kernel, timed: it is part of the work), then one kernel of
 * seed 004's shape adds into it atomically. */
/* warplab:rung reduce atomic_warp atomic_block */
template <typename T, typename Op, bool PER_WARP>
warplab_status run_atomic(wl_backend *backend, const wl_launch *launch)
{
    T *out = output_of<T>(launch);
    warplab_status status = write_identity<T, Op>(backend, out);
    if (status != WARPLAB_OK || N == 0)
        return status;
    const size_t blocks = seed004_blocks(N);
    if (PER_WARP)
        atomic_warp_kernel<T, Op>
            <<<(unsigned)blocks, 512, 0, wl_cuda_stream(backend)>>>(input_of<T>(launch), out, N);
    else
        atomic_block_kernel<T, Op>
            <<<(unsigned)blocks, 512, 0, wl_cuda_stream(backend)>>>(input_of<T>(launch), out, N);
    return WL_CUDA_LAUNCHED(backend, PER_WARP ? "reduce atomic_warp" : "reduce atomic_block");
}

template <typename T, typename Op> struct AtomicWarp {
    static warplab_status launch(wl_backend *backend, const wl_launch *launch, void *)
    {
        return run_atomic<T, Op, true>(backend, launch);
    }
};

template <typename T, typename Op> struct AtomicBlock {
    static warplab_status launch(wl_backend *backend, const wl_launch *launch, void *)
    {
        return run_atomic<T, Op, false>(backend, launch);
    }
};
/* warplab:end */

const wl_impl atomic_warp_impl = {
    .ladder = "reduce", .rung = "atomic_warp", .launch = launch_rung<AtomicWarp>};

const wl_impl atomic_block_impl = {
    .ladder = "reduce", .rung = "atomic_block", .launch = launch_rung<AtomicBlock>};

/* ------------------------------------------------------------------------ */
/* Rung single_pass (past the course): 16-byte loads, several in flight, a   */
/* grid of every SM's resident blocks, and one launch. Each block reduces    */
/* its grid-stride slice and writes a partial; the block that takes the last */
/* ticket (an atomic counter, after a __threadfence that publishes the       */
/* partial) reduces the partials and resets the counter to 0 for the next    */
/* launch. CUB needs a second launch for that step. A misaligned start is    */
/* peeled: the first `head` elements (until a 16-byte boundary) and the last */
/* (n - head) % W are read one at a time, by the first threads of the grid */
/* (a block has 512 >= 4 of them).                                          */

/* warplab:rung reduce single_pass */
constexpr unsigned ONE_PASS_THREADS = 512;
constexpr unsigned ONE_PASS_LOADS = 4; /* 16-byte loads in flight per thread */
/* Resident blocks asked of the compiler (__launch_bounds__): every thread an
 * SM can hold, 2048 from sm_80 on (at most 32 registers each; ptxas fits the
 * kernel in 30-32 without spilling), 1024 on Turing. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
constexpr unsigned ONE_PASS_MIN_BLOCKS = 2;
#else
constexpr unsigned ONE_PASS_MIN_BLOCKS = 4;
#endif

template <typename T> struct Vector16;
template <> struct Vector16<int> {
    using type = int4;
};
template <> struct Vector16<float> {
    using type = float4;
};
template <> struct Vector16<double> {
    using type = double2;
};

template <typename T, typename Op> __device__ inline T fold(int4 v)
{
    return Op::apply(Op::apply(v.x, v.y), Op::apply(v.z, v.w));
}
template <typename T, typename Op> __device__ inline T fold(float4 v)
{
    return Op::apply(Op::apply(v.x, v.y), Op::apply(v.z, v.w));
}
template <typename T, typename Op> __device__ inline T fold(double2 v)
{
    return Op::apply(v.x, v.y);
}

template <typename T, typename Op>
__global__ void __launch_bounds__(ONE_PASS_THREADS, ONE_PASS_MIN_BLOCKS)
    single_pass_kernel(const T *__restrict__ in, size_t n, size_t head, T *__restrict__ partials,
                       unsigned *__restrict__ tickets, T *__restrict__ out)
{
    using V = typename Vector16<T>::type;
    constexpr size_t WIDTH = sizeof(V) / sizeof(T);
    const size_t tid = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    T v = identity<T, Op>();
    if (tid < head)
        v = Op::apply(v, in[tid]);
    const V *vectors = reinterpret_cast<const V *>(in + head);
    const size_t count = (n - head) / WIDTH;
    size_t k = tid;
    for (; k + (ONE_PASS_LOADS - 1) * stride < count; k += ONE_PASS_LOADS * stride) {
        V loaded[ONE_PASS_LOADS];
#pragma unroll
        for (unsigned j = 0; j < ONE_PASS_LOADS; j++)
            loaded[j] = __ldg(vectors + k + j * stride);
#pragma unroll
        for (unsigned j = 0; j < ONE_PASS_LOADS; j++)
            v = Op::apply(v, fold<T, Op>(loaded[j]));
    }
    for (; k < count; k += stride)
        v = Op::apply(v, fold<T, Op>(__ldg(vectors + k)));
    const size_t tail = head + count * WIDTH;
    if (tid < n - tail)
        v = Op::apply(v, in[tail + tid]);

    v = block_reduce<T, Op, true>(v);
    if (gridDim.x == 1) {
        if (threadIdx.x == 0)
            *out = v;
        return;
    }
    __shared__ bool last_block;
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = v;
        __threadfence(); /* release: the partial is visible before the ticket */
        last_block = atomicAdd(tickets, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last_block)
        return;
    __threadfence(); /* acquire: every other block's partial is visible */
    T r = identity<T, Op>();
    for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x)
        r = Op::apply(r, __ldcg(partials + b)); /* from L2: L1 may hold stale lines */
    r = block_reduce<T, Op, true>(r);
    if (threadIdx.x == 0) {
        *out = r;
        *tickets = 0;
    }
}
/* warplab:end */

/* ---- rung single_pass ---- */

/* Scratch: the ticket counter, then one partial per block of the largest
 * grid (every SM full of 512-thread blocks). */
constexpr size_t TICKET_BYTES = 256;

size_t single_pass_max_blocks(const wl_backend *backend)
{
    const int per_sm = backend->info.max_threads_per_multiprocessor > 0
                           ? backend->info.max_threads_per_multiprocessor / (int)ONE_PASS_THREADS
                           : 4;
    return (size_t)(backend->info.multiprocessors > 0 ? backend->info.multiprocessors : 1) *
           (size_t)(per_sm > 0 ? per_sm : 1);
}

size_t single_pass_scratch(wl_backend *backend, const wl_problem *problem)
{
    return TICKET_BYTES + single_pass_max_blocks(backend) * warplab_dtype_size(problem->dtype);
}

typedef struct single_pass_state {
    size_t grid; /* blocks resident at once on the whole GPU */
} single_pass_state;

/* Resident blocks per SM of a kernel, asked of the runtime once per device
 * (the library calls setup on every operation). */
constexpr int OCCUPANCY_DEVICES = 16;

template <typename T, typename Op> cudaError_t single_pass_per_sm(int device, int *per_sm)
{
    static std::atomic<int> cached[OCCUPANCY_DEVICES];
    const bool cacheable = device >= 0 && device < OCCUPANCY_DEVICES;
    if (cacheable && (*per_sm = cached[device].load(std::memory_order_relaxed)) > 0)
        return cudaSuccess;
    cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(per_sm, single_pass_kernel<T, Op>,
                                                                  ONE_PASS_THREADS, 0);
    if (e == cudaSuccess && cacheable)
        cached[device].store(*per_sm, std::memory_order_relaxed);
    return e;
}

/* warplab:rung reduce single_pass */
template <typename T, typename Op> struct SinglePass {
    /* Untimed: the grid from the kernel's occupancy, and the counter zeroed
     * (each launch leaves it at zero again, so a workspace this rung had last
     * time, scratch_kept, needs no zeroing: no memset on the library's hot
     * path). */
    static warplab_status setup(wl_backend *backend, const wl_launch *launch, void **state)
    {
        int per_sm = 0;
        cudaError_t e = single_pass_per_sm<T, Op>(backend->info.index, &per_sm);
        if (e == cudaSuccess && !launch->scratch_kept)
            e = cudaMemsetAsync(launch->scratch.handle, 0, sizeof(unsigned),
                                wl_cuda_stream(backend));
        warplab_status status = wl_cuda_check(backend, e, "reduce single_pass setup");
        if (status != WARPLAB_OK)
            return status;
        single_pass_state *s = static_cast<single_pass_state *>(malloc(sizeof *s));
        if (!s)
            return wl_fail(backend, WARPLAB_ERROR_HOST_OUT_OF_MEMORY, "out of host memory");
        size_t grid = (size_t)backend->info.multiprocessors * (size_t)(per_sm > 0 ? per_sm : 1);
        const size_t most = single_pass_max_blocks(backend);
        s->grid = grid < most ? grid : most;
        *state = s;
        return WARPLAB_OK;
    }

    static warplab_status launch(wl_backend *backend, const wl_launch *launch, void *state)
    {
        const single_pass_state *s = static_cast<const single_pass_state *>(state);
        const T *in = input_of<T>(launch);
        const uintptr_t address = reinterpret_cast<uintptr_t>(in);
        if (address % sizeof(T))
            return wl_fail(backend, WARPLAB_ERROR_UNSUPPORTED,
                           "reduce single_pass: the input is not aligned to its element size");
        constexpr size_t WIDTH = 16 / sizeof(T);
        const size_t n = N;
        size_t head = (16 - address % 16) % 16 / sizeof(T);
        if (head > n)
            head = n;
        const size_t per_block_trip = (size_t)ONE_PASS_THREADS * ONE_PASS_LOADS;
        const size_t blocks = blocks_for((n - head) / WIDTH, per_block_trip);
        const size_t grid = blocks < s->grid ? blocks : s->grid;
        unsigned char *scratch = static_cast<unsigned char *>(wl_view_ptr(launch->scratch));
        single_pass_kernel<T, Op><<<(unsigned)grid, ONE_PASS_THREADS, 0, wl_cuda_stream(backend)>>>(
            in, n, head, reinterpret_cast<T *>(scratch + TICKET_BYTES),
            reinterpret_cast<unsigned *>(scratch), output_of<T>(launch));
        return WL_CUDA_LAUNCHED(backend, "reduce single_pass");
    }
};
/* warplab:end */

warplab_status single_pass_setup(wl_backend *backend, const wl_launch *launch, void **state)
{
    return with_types<SinglePass>(
        launch->problem, [&](auto rung) { return decltype(rung)::setup(backend, launch, state); });
}

void free_state(wl_backend *backend, void *state)
{
    (void)backend;
    free(state);
}

const wl_impl single_pass_impl = {.ladder = "reduce",
                                  .rung = "single_pass",
                                  .scratch_bytes = single_pass_scratch,
                                  .setup = single_pass_setup,
                                  .launch = launch_rung<SinglePass>,
                                  .teardown = free_state};

/* ---- vendor row: cub::DeviceReduce ---- */

/* CUB's offsets: 32-bit when n fits, as a caller with an int count gets. */
/* warplab:rung reduce cub */
template <typename T, typename Op>
cudaError_t cub_reduce(void *temp, size_t &bytes, const T *in, T *out, size_t n,
                       cudaStream_t stream)
{
    if (n <= (size_t)INT_MAX) {
        const int items = (int)n;
        if constexpr (std::is_same_v<Op, OpSum>)
            return cub::DeviceReduce::Sum(temp, bytes, in, out, items, stream);
        else if constexpr (std::is_same_v<Op, OpMin>)
            return cub::DeviceReduce::Min(temp, bytes, in, out, items, stream);
        else
            return cub::DeviceReduce::Max(temp, bytes, in, out, items, stream);
    }
    const long long items = (long long)n;
    if constexpr (std::is_same_v<Op, OpSum>)
        return cub::DeviceReduce::Sum(temp, bytes, in, out, items, stream);
    else if constexpr (std::is_same_v<Op, OpMin>)
        return cub::DeviceReduce::Min(temp, bytes, in, out, items, stream);
    else
        return cub::DeviceReduce::Max(temp, bytes, in, out, items, stream);
}

typedef struct cub_state {
    void *temp;
    size_t bytes;
} cub_state;

template <typename T, typename Op> struct Cub {
    static warplab_status setup(wl_backend *backend, const wl_launch *launch, void **state)
    {
        cub_state *s = static_cast<cub_state *>(calloc(1, sizeof *s));
        if (!s)
            return wl_fail(backend, WARPLAB_ERROR_HOST_OUT_OF_MEMORY, "out of host memory");
        cudaError_t e = cub_reduce<T, Op>(nullptr, s->bytes, input_of<T>(launch),
                                          output_of<T>(launch), N, wl_cuda_stream(backend));
        if (e == cudaSuccess)
            e = cudaMalloc(&s->temp, s->bytes ? s->bytes : 1);
        if (e != cudaSuccess) {
            free(s);
            return wl_cuda_check(backend, e, "cub::DeviceReduce temporary storage");
        }
        *state = s;
        return WARPLAB_OK;
    }

    static warplab_status launch(wl_backend *backend, const wl_launch *launch, void *state)
    {
        cub_state *s = static_cast<cub_state *>(state);
        size_t bytes = s->bytes;
        return wl_cuda_check(backend,
                             cub_reduce<T, Op>(s->temp, bytes, input_of<T>(launch),
                                               output_of<T>(launch), N, wl_cuda_stream(backend)),
                             "cub::DeviceReduce");
    }
};

warplab_status cub_setup(wl_backend *backend, const wl_launch *launch, void **state)
{
    return with_types<Cub>(
        launch->problem, [&](auto rung) { return decltype(rung)::setup(backend, launch, state); });
}

void cub_teardown(wl_backend *backend, void *state)
{
    (void)backend;
    cub_state *s = static_cast<cub_state *>(state);
    if (!s)
        return;
    if (s->temp)
        cudaFree(s->temp);
    free(s);
}
/* warplab:end */

const wl_impl cub_impl = {.ladder = "reduce",
                          .rung = "cub",
                          .setup = cub_setup,
                          .launch = launch_rung<Cub>,
                          .teardown = cub_teardown};

} // namespace

extern "C" const wl_impl *const wl_cuda_reduce_impls[] = {&naive_impl,
                                                          &interleaved_impl,
                                                          &strided_index_impl,
                                                          &sequential_impl,
                                                          &first_add_impl,
                                                          &warp_volatile_impl,
                                                          &warp_syncwarp_impl,
                                                          &complete_unroll_impl,
                                                          &cascade_impl,
                                                          &shuffle_impl,
                                                          &atomic_warp_impl,
                                                          &atomic_block_impl,
                                                          &single_pass_impl,
                                                          &cub_impl,
                                                          NULL};
