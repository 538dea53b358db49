/* What the cuda backend's scan rungs share: the operations, the host glue
 * that runs a rung for the problem's type and operation, the warp and block
 * scans in registers, and the tile scan that the rungs from warp_shuffle up
 * are built on. Each rung's own kernel, launcher and impl row are in the
 * numbered file beside this one (NN_<rung>.cu, NN = its place in `warplab
 * ladders scan`); scan_rungs.cu includes them in ladder order.
 *
 * Every kernel is a template over the element type (int, float, double) and
 * the operation (ScanSum, ScanMin, ScanMax); inclusive or exclusive is a
 * run-time argument (one branch, the same for the whole grid). Every kernel
 * is correct for any n, and in place: no pointer is __restrict__, and a
 * tile is read whole before any of it is written. */
#ifndef WARPLAB_SCAN_RUNGS_CUH
#define WARPLAB_SCAN_RUNGS_CUH

#include "kernels/cuda/cuda_backend.h"

#include <math_constants.h>

#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace
{

/* ------------------------------------------------------------------------ */
/* Operations: an identity and a combine (a comes before b)                  */

__device__ inline bool scan_is_nan(int)
{
    return false;
}
__device__ inline bool scan_is_nan(float x)
{
    return isnan(x);
}
__device__ inline bool scan_is_nan(double x)
{
    return isnan(x);
}

template <typename T> struct ScanLimits;
template <> struct ScanLimits<int> {
    __host__ __device__ static int highest() { return INT_MAX; }
    __host__ __device__ static int lowest() { return INT_MIN; }
};
template <> struct ScanLimits<float> {
    __host__ __device__ static float highest() { return __builtin_huge_valf(); }
    __host__ __device__ static float lowest() { return -__builtin_huge_valf(); }
};
template <> struct ScanLimits<double> {
    __host__ __device__ static double highest() { return __builtin_huge_val(); }
    __host__ __device__ static double lowest() { return -__builtin_huge_val(); }
};

/* int32 sums wrap modulo 2^32: done in unsigned, where that is defined. */
struct ScanSum {
    template <typename T> __host__ __device__ static T identity() { return T(0); }
    __device__ static int apply(int a, int b) { return (int)((unsigned)a + (unsigned)b); }
    __device__ static float apply(float a, float b) { return a + b; }
    __device__ static double apply(double a, double b) { return a + b; }
};

/* min and max propagate a NaN: a NaN in b wins, one in a stays. */
struct ScanMin {
    template <typename T> __host__ __device__ static T identity()
    {
        return ScanLimits<T>::highest();
    }
    template <typename T> __device__ static T apply(T a, T b)
    {
        return (b < a || scan_is_nan(b)) ? b : a;
    }
};

struct ScanMax {
    template <typename T> __host__ __device__ static T identity()
    {
        return ScanLimits<T>::lowest();
    }
    template <typename T> __device__ static T apply(T a, T b)
    {
        return (b > a || scan_is_nan(b)) ? b : a;
    }
};

template <typename T, typename Op> __device__ inline T scan_identity()
{
    return Op::template identity<T>();
}

/* Dynamic shared memory as an array of T. */
template <typename T> __device__ inline T *scan_shared()
{
    extern __shared__ __align__(16) unsigned char scan_shared_bytes[];
    return reinterpret_cast<T *>(scan_shared_bytes);
}

/* ------------------------------------------------------------------------ */
/* Host side: running a rung for the problem's type and operation            */

template <template <typename, typename> class Rung, typename T, typename F>
auto scan_with_op(warplab_reduce_op op, F &call)
{
    switch (op) {
    case WARPLAB_REDUCE_SUM: return call(Rung<T, ScanSum>{});
    case WARPLAB_REDUCE_MIN: return call(Rung<T, ScanMin>{});
    default: return call(Rung<T, ScanMax>{});
    }
}

template <template <typename, typename> class Rung, typename F>
auto scan_with_types(const wl_problem *problem, F &&call)
{
    switch (problem->dtype) {
    case WARPLAB_INT32: return scan_with_op<Rung, int>(problem->op, call);
    case WARPLAB_FLOAT32: return scan_with_op<Rung, float>(problem->op, call);
    default: return scan_with_op<Rung, double>(problem->op, call);
    }
}

template <template <typename, typename> class Rung>
warplab_status scan_launch_rung(wl_backend *backend, const wl_launch *launch, void *state)
{
    return scan_with_types<Rung>(
        launch->problem, [&](auto rung) { return decltype(rung)::launch(backend, launch, state); });
}

template <typename T> const T *scan_input(const wl_launch *launch)
{
    return static_cast<const T *>(wl_view_ptr(launch->buf[0]));
}
template <typename T> T *scan_output(const wl_launch *launch)
{
    return static_cast<T *>(wl_view_ptr(launch->buf[1]));
}
inline bool scan_exclusive(const wl_launch *launch)
{
    return launch->problem->variant == WARPLAB_SCAN_EXCLUSIVE;
}

inline size_t scan_ceil_div(size_t a, size_t b)
{
    return a / b + (a % b != 0);
}

inline warplab_status scan_check_grid(wl_backend *backend, size_t blocks, const char *what)
{
    if (blocks > (size_t)backend->info.max_grid_dim[0])
        return wl_fail(backend, WARPLAB_ERROR_UNSUPPORTED,
                       "%s: %zu blocks are past the grid limit of %d", what, blocks,
                       backend->info.max_grid_dim[0]);
    return WARPLAB_OK;
}

/* ------------------------------------------------------------------------ */
/* Scans in registers (warp_shuffle and up)                                  */

constexpr unsigned FULL_MASK = 0xffffffffu;

/* Inclusive scan of the warp's 32 values, lane order (Kogge-Stone on
 * __shfl_up_sync: 5 steps, no shared memory). */
template <typename T, typename Op> __device__ inline T warp_inclusive(T v)
{
    const unsigned lane = threadIdx.x % 32;
#pragma unroll
    for (unsigned d = 1; d < 32; d <<= 1) {
        const T up = __shfl_up_sync(FULL_MASK, v, d);
        if (lane >= d)
            v = Op::apply(up, v);
    }
    return v;
}

/* The warp's combined value in every lane (butterfly; sum, min and max
 * commute, and float sums stay within the bound in any order). */
template <typename T, typename Op> __device__ inline T warp_all(T v)
{
#pragma unroll
    for (unsigned d = 16; d > 0; d >>= 1)
        v = Op::apply(v, __shfl_xor_sync(FULL_MASK, v, d));
    return v;
}

/* ------------------------------------------------------------------------ */
/* The tile scan                                                              */

/* A tile is THREADS x STEPS x WIDTH elements. Warp w owns a contiguous
 * stretch of 32 x STEPS x WIDTH of them; in step j, lane l holds the WIDTH
 * consecutive elements at 32 * WIDTH * j + WIDTH * l of that stretch (one
 * 16-byte access when WIDTH x sizeof(T) = 16: a warp reads 512 contiguous
 * bytes per step). Each lane scans its WIDTH in registers, the warp scans
 * the lanes' totals with shuffles, step after step with a running carry;
 * the warps' totals meet in shared memory. PrefixOf(aggregate) is then
 * called by warp 0 (all its lanes) with the tile's total and returns, in
 * lane 0, what comes before the tile (the look-back, a carry, ...); every
 * thread adds it and writes. */
template <typename T, unsigned THREADS, unsigned STEPS, unsigned WIDTH> struct TileShape {
    static constexpr unsigned WARPS = THREADS / 32;
    static constexpr unsigned PER_WARP = 32 * STEPS * WIDTH;
    static constexpr unsigned ITEMS = THREADS * STEPS * WIDTH;
};

template <typename T> struct Vec16;
template <> struct Vec16<int> {
    using type = int4;
};
template <> struct Vec16<float> {
    using type = float4;
};
template <> struct Vec16<double> {
    using type = double2;
};

/* Shared memory a tile scan needs: the warps' totals and the prefix. */
template <typename T, unsigned WARPS> struct TileShared {
    T warp_totals[WARPS];
    T prefix;
};

/* The barrier of the THREADS threads that scan a tile: the whole block
 * (ID 0), or named barrier ID when the block has other warps beside them. */
template <unsigned THREADS, unsigned ID> __device__ inline void tile_barrier()
{
    if constexpr (ID == 0)
        __syncthreads();
    else
        asm volatile("bar.sync %0, %1;" ::"n"(ID), "n"(THREADS) : "memory");
}

/* The tile in registers (x[j][k]: step j, lane's element k, as above)
 * becomes its results: each lane's WIDTH in order, then the lanes' totals
 * step after step with a running carry, the warps' totals in shared
 * memory, PrefixOf(tile total) in warp 0, and every element combined with
 * what comes before it. The caller synchronises the block before the
 * shared words are written again (the next tile). */
template <typename T, typename Op, unsigned THREADS, unsigned STEPS, unsigned WIDTH,
          unsigned BARRIER = 0, typename PrefixOf>
__device__ inline void scan_registers(T (&x)[STEPS][WIDTH], bool exclusive,
                                      TileShared<T, THREADS / 32> &shared, PrefixOf prefix_of)
{
    using Shape = TileShape<T, THREADS, STEPS, WIDTH>;
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    /* Each step: the lane's WIDTH in order, then the lanes' totals. pre[j]
     * is what comes before the lane's first element of step j within the
     * warp's stretch. */
    T carry = scan_identity<T, Op>();
#pragma unroll
    for (unsigned j = 0; j < STEPS; j++) {
        T own = x[j][0];
#pragma unroll
        for (unsigned k = 1; k < WIDTH; k++)
            own = Op::apply(own, x[j][k]);
        const T inclusive = warp_inclusive<T, Op>(own);
        T before = __shfl_up_sync(FULL_MASK, inclusive, 1);
        if (lane == 0)
            before = scan_identity<T, Op>();
        /* x becomes each element's prefix within the warp's stretch (only
         * x stays live across the look-back: fewer registers). */
        T acc = Op::apply(carry, before);
#pragma unroll
        for (unsigned k = 0; k < WIDTH; k++) {
            const T v = x[j][k];
            if (exclusive) {
                x[j][k] = acc;
                acc = Op::apply(acc, v);
            } else {
                acc = Op::apply(acc, v);
                x[j][k] = acc;
            }
        }
        carry = Op::apply(carry, __shfl_sync(FULL_MASK, inclusive, 31));
    }
    if (lane == 31)
        shared.warp_totals[warp] = carry;
    tile_barrier<THREADS, BARRIER>();
    if (warp == 0) {
        T total = lane < Shape::WARPS ? shared.warp_totals[lane] : scan_identity<T, Op>();
        total = warp_inclusive<T, Op>(total);
        if (lane < Shape::WARPS)
            shared.warp_totals[lane] = total; /* inclusive over the warps */
        const T tile_total = __shfl_sync(FULL_MASK, total, Shape::WARPS - 1);
        const T prefix = prefix_of(tile_total);
        if (lane == 0)
            shared.prefix = prefix;
    }
    tile_barrier<THREADS, BARRIER>();
    T running = shared.prefix;
    if (warp > 0)
        running = Op::apply(running, shared.warp_totals[warp - 1]);
#pragma unroll
    for (unsigned j = 0; j < STEPS; j++)
#pragma unroll
        for (unsigned k = 0; k < WIDTH; k++)
            x[j][k] = Op::apply(running, x[j][k]);
}

/* Element k of step j of a lane, from the warp's first element. */
template <unsigned WIDTH> __device__ inline size_t lane_offset(unsigned j, unsigned k)
{
    return (size_t)32 * WIDTH * j + (size_t)WIDTH * (threadIdx.x % 32) + k;
}

/* The tile scan: loads (16-byte ones where the tile is whole and the views
 * on 16 bytes), scan_registers, stores. */
template <typename T, typename Op, unsigned THREADS, unsigned STEPS, unsigned WIDTH,
          bool STREAM = false, typename PrefixOf>
__device__ inline void scan_tile(const T *in, T *out, size_t n, size_t base, bool exclusive,
                                 bool vector_ok, TileShared<T, THREADS / 32> &shared,
                                 PrefixOf prefix_of)
{
    using Shape = TileShape<T, THREADS, STEPS, WIDTH>;
    const unsigned warp = threadIdx.x / 32;
    const size_t warp_base = base + (size_t)warp * Shape::PER_WARP;
    T x[STEPS][WIDTH];
    /* A whole tile on 16-byte boundaries takes vector accesses; the last
     * tile and misaligned views go one element at a time. */
    const bool whole = base + Shape::ITEMS <= n;
    if constexpr (WIDTH * sizeof(T) == 16) {
        using V = typename Vec16<T>::type;
        if (whole && vector_ok) {
#pragma unroll
            for (unsigned j = 0; j < STEPS; j++) {
                const V *at =
                    reinterpret_cast<const V *>(in + warp_base + lane_offset<WIDTH>(j, 0));
                const V v = STREAM ? __ldcs(at) : *at;
                memcpy(x[j], &v, sizeof v);
            }
        }
    }
    if (!(WIDTH * sizeof(T) == 16 && whole && vector_ok)) {
#pragma unroll
        for (unsigned j = 0; j < STEPS; j++)
#pragma unroll
            for (unsigned k = 0; k < WIDTH; k++) {
                const size_t i = warp_base + lane_offset<WIDTH>(j, k);
                x[j][k] = i < n ? in[i] : scan_identity<T, Op>();
            }
    }
    scan_registers<T, Op, THREADS, STEPS, WIDTH>(x, exclusive, shared, prefix_of);
    __syncthreads(); /* the shared words are free for the next tile */
    if constexpr (WIDTH * sizeof(T) == 16) {
        using V = typename Vec16<T>::type;
        if (whole && vector_ok) {
#pragma unroll
            for (unsigned j = 0; j < STEPS; j++) {
                V v;
                memcpy(&v, x[j], sizeof v);
                V *at = reinterpret_cast<V *>(out + warp_base + lane_offset<WIDTH>(j, 0));
                if (STREAM)
                    __stcs(at, v);
                else
                    *at = v;
            }
            return;
        }
    }
#pragma unroll
    for (unsigned j = 0; j < STEPS; j++)
#pragma unroll
        for (unsigned k = 0; k < WIDTH; k++) {
            const size_t i = warp_base + lane_offset<WIDTH>(j, k);
            if (i < n)
                out[i] = x[j][k];
        }
}

/* One block walks [begin, end) tile by tile, carrying the running total
 * from start (warp_shuffle; reduce_then_scan's passes). */
template <typename T, typename Op, unsigned THREADS, unsigned STEPS, unsigned WIDTH>
__device__ inline void scan_stretch(const T *in, T *out, size_t begin, size_t end, T start,
                                    bool exclusive, bool vector_ok,
                                    TileShared<T, THREADS / 32> &shared)
{
    constexpr size_t ITEMS = TileShape<T, THREADS, STEPS, WIDTH>::ITEMS;
    T carry = start; /* the same in every thread */
    for (size_t base = begin; base < end; base += ITEMS) {
        T tile_total = carry;
        scan_tile<T, Op, THREADS, STEPS, WIDTH>(in, out, end, base, exclusive, vector_ok, shared,
                                                [&](T total) {
                                                    tile_total = total;
                                                    return carry;
                                                });
        /* Warp 0 saw the total; share it for the next tile's carry. */
        if (threadIdx.x == 0)
            shared.prefix = Op::apply(carry, tile_total);
        __syncthreads();
        carry = shared.prefix;
        __syncthreads();
    }
}

/* Whether both views start on 16 bytes (the vector accesses). */
inline bool scan_vectors_aligned(const wl_launch *launch)
{
    return reinterpret_cast<uintptr_t>(wl_view_ptr(launch->buf[0])) % 16 == 0 &&
           reinterpret_cast<uintptr_t>(wl_view_ptr(launch->buf[1])) % 16 == 0;
}

} // namespace

#endif
