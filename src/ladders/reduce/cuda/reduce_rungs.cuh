/* What the cuda backend's reduction rungs share (seeds 001, 003, 004): the
 * operations, the host glue that runs a rung for the problem's type and
 * operation, the tree rungs' level loop, and the device pieces that several
 * rungs use (the paired load, the unrolled tree, the warp and block
 * reductions, the atomic combine). Each rung's own kernel, launcher and impl
 * row are in the numbered file beside this one (NN_<rung>.cu, NN = its place
 * in `warplab ladders reduce`); reduce_rungs.cu includes them in ladder order
 * and lists their impl rows for the backend.
 *
 * Every kernel is a template over the element type (int, float, double) and
 * the operation (OpSum, OpMin, OpMax), and is correct for any n: threads past
 * the end load the operation's identity, so the course's power-of-two
 * assumptions hold inside each block whatever n is. The tree rungs
 * (interleaved .. shuffle) write one partial per block and run again on the
 * partials, level after level, until one block writes the result (the
 * course's "kernel launch as a global barrier"); the partials live in the
 * rung's scratch, two regions used in turn. */
#ifndef WARPLAB_REDUCE_RUNGS_CUH
#define WARPLAB_REDUCE_RUNGS_CUH

#include "kernels/cuda/cuda_backend.h"

#include <math_constants.h>

#include <climits>
#include <cstdint>
#include <cstdlib>
#include <type_traits>

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

/* The templated rungs' block: LARGEST threads (seed 001's 512, or seed 004's
 * 128 for the course's forms), fewer (a power of two, at least 1) when the
 * level has under 2 * LARGEST elements. */
unsigned unrolled_threads(size_t count, unsigned largest = 512)
{
    if (count >= 2 * (size_t)largest)
        return largest;
    unsigned threads = 1;
    while (threads < (count + 1) / 2)
        threads *= 2;
    return threads;
}

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
    size_t count = wl_launch_count(launch);
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

/* Two elements per thread, i and i + blockDim, combined during the load (the */
/* first step of the tree, which left half the threads idle).                */
template <typename T, typename Op>
__device__ inline T load_pair(const T *in, size_t n, unsigned block)
{
    const size_t i = blockIdx.x * (size_t)(2 * block) + threadIdx.x;
    return Op::apply(load_or_identity<T, Op>(in, n, i), load_or_identity<T, Op>(in, n, i + block));
}

/* The tree's steps above one warp (s = blockDim/2 down to 64), leaving       */
/* s[0..63] for the last warp. Needs blockDim >= 64.                          */
template <typename T, typename Op> __device__ inline void tree_above_warp(T *s, unsigned tid)
{
    for (unsigned stride = blockDim.x / 2; stride > 32; stride >>= 1) {
        if (tid < stride)
            s[tid] = Op::apply(s[tid], s[tid + stride]);
        __syncthreads();
    }
}

/* ------------------------------------------------------------------------ */
/* Rungs complete_unroll (attempt #6) and cascade (attempt #7): the block    */
/* size is a template parameter, so every "if (BLOCK >= ...)" is decided at  */
/* compile time and the tree is straight-line code. The last warp uses 5b's */
/* __syncwarp steps; blocks under 64 threads guard the reads that would      */
/* leave their BLOCK words of shared memory (the course's version reads past */
/* them).                                                                    */

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

/* ------------------------------------------------------------------------ */
/* Rungs shuffle, atomic_warp, atomic_block (seed 004)                        */

/* Lane 0 ends with the warp's value. */
template <typename T, typename Op> __device__ inline T warp_reduce_shuffle(T v)
{
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1)
        v = Op::apply(v, __shfl_down_sync(0xffffffffu, v, offset));
    return v;
}

/* sm_80 and later reduce a warp of 32-bit integers in one instruction
 * (redux.sync); other types and older GPUs shuffle. */
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

/* Each thread's slice of a grid-stride loop, one element per trip. */
template <typename T, typename Op> __device__ inline T grid_stride_reduce(const T *in, size_t n)
{
    T v = identity<T, Op>();
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride)
        v = Op::apply(v, in[i]);
    return v;
}

/* Seed 004's grid: 512-thread blocks, one element per thread, at most 1024. */
size_t seed004_blocks(size_t count)
{
    const size_t blocks = blocks_for(count, 512);
    return blocks < 1024 ? blocks : 1024;
}

/* Rungs atomic_warp and atomic_block: the result starts as the identity (a
 * one-thread kernel, timed: it is part of the work), then one kernel of
 * seed 004's shape (the rung's) combines into it atomically. */
template <typename T, typename Op>
warplab_status run_atomic(wl_backend *backend, const wl_launch *launch,
                          void (*kernel)(const T *, T *, size_t), const char *what)
{
    T *out = output_of<T>(launch);
    warplab_status status = write_identity<T, Op>(backend, out);
    const size_t n = wl_launch_count(launch);
    if (status != WARPLAB_OK || n == 0)
        return status;
    kernel<<<(unsigned)seed004_blocks(n), 512, 0, wl_cuda_stream(backend)>>>(input_of<T>(launch),
                                                                             out, n);
    return WL_CUDA_LAUNCHED(backend, what);
}

} // namespace

#endif
