/* warplab_gemm_ex on cuda (the "ex" implementation of the gemm ladder):
 *
 * - The planner (src/kernels/gemm_plan.h) plans every call first, once an
 *   entry point (the launch on the caller's views, the workspace size on the
 *   problem alone), and the route is passed down: where it picks a GEMV row
 *   (gemv_k, gemv_rows, gemv_mma, gemv_mma_tf32, gemv_mma_rows_tf32,
 *   gemv_tiled: m or n small, decode), the GEMV family (gemv.cuh) runs it,
 *   every layout and type read in place. Its ex16_chooser and
 *   tf32_chooser rows carry their tile model's plan in the route (made
 *   and cached by the planner), which the paths below run; the ladder's
 *   forced rungs (WL_GEMM_EX16_FORCE_*) and rows that fall through ask the
 *   tile models, whose plans are kept per thread once a problem
 *   (plan_cache.h), as the planner keeps its routes.
 * - TF32 compute: tf32_choose (below: wl_tf32_choose's plan, the TF32 tile
 *   model of src/kernels/gemm_tiles_tf32.c) picks by modelled time among the
 *   FP32 dispatcher (op N, N), the small-tile mma.sync kernel that reads
 *   either op in place with split-K (tf32_tiles.cu) and the TMA + wgmma
 *   kernel; the skinny problems stay with the FP32 path or the GEMV family.
 * - TF32 compute and 16-bit inputs on sm_90a: the TMA + wgmma kernel
 *   (wgmma_tma.sm90a.cu). It reads A (m x k) and B^T (n x k) K-major. A with
 *   op N and B with op T already are, and are read in place when their rows
 *   are 16-byte aligned; the others are first copied into the workspace
 *   (kmajor_transpose: A with op T, B with op N; kmajor_restride: rows not
 *   16-byte aligned), on the stream, in the call. That transpose is what the
 *   row-major B of the N, N case costs: a read and a write of B.
 * - Float operands with a transposed one, where the planner picks
 *   fp32_tiles: the FP32 dispatcher's tile kernels read op T in place
 *   (dispatch.cu, pipelined_kernel.cuh); forced, fp32_dispatch_copy: the
 *   op T operands copied into the workspace, the dispatcher on N, N
 *   (fp32_copy.cu). Both run the dispatcher's plan the route carries
 *   (route.fp32), made by the planner.
 * - Everything else (k = 0, devices without sm_80 or sm_90a): gemm_ex_tiled,
 *   64 x 64 tiles, 4 x 4 outputs a thread, operands widened to float in
 *   shared memory (TF32: truncated), FP32 sums.
 * FP32 compute on op N, N float operands comes here only where the planner
 * picks the GEMV family: warplab_gemm_ex runs warplab_gemm's path for the
 * rest. No allocation or synchronisation: the copies and partial sums live
 * in launch->scratch, sized by ex_scratch. */
/* warplab:rung gemm ex_tf32 ex_bf16 ex_fp16 */
#include "ex16.h"
#include "fp32_copy.h"
#include "gemm_launch.h"
#include "gemv.h"
#include "plan_cache.h"
#include "small_mma.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

struct ex_params {
    const void *a, *b;
    void *c;
    int m, n, k, lda, ldb, ldc;
    float alpha, beta;
    bool trans_a, trans_b, tf32;
};

__device__ __forceinline__ float widen(float x, bool tf32)
{
    return tf32 && !isnan(x) ? __uint_as_float(__float_as_uint(x) & 0xFFFFE000u) : x;
}
__device__ __forceinline__ float widen(__nv_bfloat16 x, bool)
{
    return __bfloat162float(x);
}
__device__ __forceinline__ float widen(__half x, bool)
{
    return __half2float(x);
}

template <typename T> __device__ __forceinline__ T narrow(float x);
template <> __device__ __forceinline__ float narrow<float>(float x)
{
    return x;
}
template <> __device__ __forceinline__ __nv_bfloat16 narrow<__nv_bfloat16>(float x)
{
    return __float2bfloat16_rn(x);
}
template <> __device__ __forceinline__ __half narrow<__half>(float x)
{
    return __float2half_rn(x);
}

#define EX_BM 64
#define EX_BN 64
#define EX_BK 16
#define EX_THREADS 256

/* C = alpha * op(A) op(B) + beta * C, one 64 x 64 tile a block. Each thread
 * loads 4 elements of each 64 x 16 / 16 x 64 tile, consecutive threads
 * along the stored rows (coalesced for N and T alike), and computes a 4 x 4
 * block of C from shared memory. */
template <typename T, typename OUT>
__global__ void __launch_bounds__(EX_THREADS) gemm_ex_tiled(ex_params p)
{
    __shared__ float as[EX_BK][EX_BM + 4];
    __shared__ float bs[EX_BK][EX_BN + 4];
    const T *a = (const T *)p.a, *b = (const T *)p.b;
    const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
    const int row0 = blockIdx.y * EX_BM, col0 = blockIdx.x * EX_BN;
    float acc[4][4];
#pragma unroll
    for (int r = 0; r < 4; r++)
#pragma unroll
        for (int c = 0; c < 4; c++)
            acc[r][c] = 0.0f;
    for (int k0 = 0; k0 < p.k; k0 += EX_BK) {
#pragma unroll
        for (int r = 0; r < 4; r++) {
            const int e = tid + EX_THREADS * r;
            int i = p.trans_a ? e % EX_BM : e / EX_BK, q = p.trans_a ? e / EX_BM : e % EX_BK;
            int gi = row0 + i, gq = k0 + q;
            float v = 0.0f;
            if (gi < p.m && gq < p.k)
                v = widen(a[p.trans_a ? (size_t)gq * p.lda + gi : (size_t)gi * p.lda + gq], p.tf32);
            as[q][i] = v;
            const int j = p.trans_b ? e / EX_BK : e % EX_BN;
            q = p.trans_b ? e % EX_BK : e / EX_BN;
            const int gj = col0 + j;
            gq = k0 + q;
            v = 0.0f;
            if (gj < p.n && gq < p.k)
                v = widen(b[p.trans_b ? (size_t)gj * p.ldb + gq : (size_t)gq * p.ldb + gj], p.tf32);
            bs[q][j] = v;
        }
        __syncthreads();
#pragma unroll
        for (int q = 0; q < EX_BK; q++) {
            float av[4], bv[4];
#pragma unroll
            for (int r = 0; r < 4; r++) {
                av[r] = as[q][ty * 4 + r];
                bv[r] = bs[q][tx * 4 + r];
            }
#pragma unroll
            for (int r = 0; r < 4; r++)
#pragma unroll
                for (int c = 0; c < 4; c++)
                    acc[r][c] = fmaf(av[r], bv[c], acc[r][c]);
        }
        __syncthreads();
    }
    OUT *c = (OUT *)p.c;
#pragma unroll
    for (int r = 0; r < 4; r++)
#pragma unroll
        for (int cc = 0; cc < 4; cc++) {
            const int gi = row0 + ty * 4 + r, gj = col0 + tx * 4 + cc;
            if (gi >= p.m || gj >= p.n)
                continue;
            OUT *out = c + (size_t)gi * p.ldc + gj;
            float value = p.alpha * acc[r][cc];
            if (p.beta != 0.0f)
                value += p.beta * widen(*out, false);
            *out = narrow<OUT>(value);
        }
}

/* dst (rows x k, rows dst_ld elements apart) = the K-major form of an
 * operand: src[r][q] as stored (rows x k, ld), or transposed: src[q][r]
 * (stored k x rows). W is the element's width (2 or 4 bytes, moved as
 * bits). The transpose goes through 64 x 64 tiles in shared memory, read
 * and written along rows; with PAIRS (src 2-element aligned, ld even) each
 * thread moves two neighbours per access (4 or 8 bytes), so that twice the
 * bytes are in flight: this copy is the N, N case's price, paid in the call. */
template <typename W> struct pair_of;
template <> struct pair_of<uint16_t> {
    typedef uint32_t type;
    static __device__ __forceinline__ type pack(uint16_t lo, uint16_t hi)
    {
        return (uint32_t)lo | (uint32_t)hi << 16;
    }
    static __device__ __forceinline__ void unpack(type v, uint16_t &lo, uint16_t &hi)
    {
        lo = (uint16_t)(v & 0xFFFFu);
        hi = (uint16_t)(v >> 16);
    }
};
template <> struct pair_of<uint32_t> {
    typedef uint2 type;
    static __device__ __forceinline__ type pack(uint32_t lo, uint32_t hi)
    {
        return make_uint2(lo, hi);
    }
    static __device__ __forceinline__ void unpack(type v, uint32_t &lo, uint32_t &hi)
    {
        lo = v.x;
        hi = v.y;
    }
};

#define COPY_TILE 64

template <typename W, bool PAIRS>
__global__ void __launch_bounds__(256)
    kmajor_transpose(const W *src, int ld, W *dst, int dst_ld, int rows, int k)
{
    typedef pair_of<W> P;
    __shared__ W tile[COPY_TILE][COPY_TILE + 1]; /* odd pitch: few bank conflicts */
    const int r0 = blockIdx.x * COPY_TILE, tx = threadIdx.x, ty = threadIdx.y;
    for (int q0 = blockIdx.y * COPY_TILE; q0 < k; q0 += gridDim.y * COPY_TILE) {
        /* Rows q of src, elements r = r0 + 2 tx, +1. */
        for (int y = ty; y < COPY_TILE; y += blockDim.y) {
            const int q = q0 + y, r = r0 + 2 * tx;
            W lo = 0, hi = 0;
            if (q < k) {
                const W *row = src + (size_t)q * ld;
                if (PAIRS && r + 1 < rows) {
                    P::unpack(*(const typename P::type *)(row + r), lo, hi);
                } else {
                    if (r < rows)
                        lo = row[r];
                    if (r + 1 < rows)
                        hi = row[r + 1];
                }
            }
            tile[y][2 * tx] = lo;
            tile[y][2 * tx + 1] = hi;
        }
        __syncthreads();
        /* Rows r of dst, elements q = q0 + 2 tx, +1 (dst_ld even, dst aligned). */
        for (int y = ty; y < COPY_TILE; y += blockDim.y) {
            const int r = r0 + y, q = q0 + 2 * tx;
            if (r >= rows)
                continue;
            W *row = dst + (size_t)r * dst_ld;
            if (q + 1 < k) {
                *(typename P::type *)(row + q) = P::pack(tile[2 * tx][y], tile[2 * tx + 1][y]);
            } else if (q < k) {
                row[q] = tile[2 * tx][y];
            }
        }
        __syncthreads();
    }
}

/* The same operand re-strided (K-major already, rows not 16-byte aligned):
 * a thread an element of a row, rows along the grid's y (no 64-bit division
 * an element, as the flat loop had: 3001 x 2999 x 1001 BF16 spent most of
 * its 125 us in these copies). */
template <typename W>
__global__ void kmajor_restride(const W *src, int ld, W *dst, int dst_ld, int rows, int k)
{
    const int q = blockIdx.x * blockDim.x + threadIdx.x;
    if (q >= k)
        return;
    for (int r = blockIdx.y; r < rows; r += gridDim.y)
        dst[(size_t)r * dst_ld + q] = src[(size_t)r * ld + q];
}

/* ------------------------------------------------------------------------ */
/* Host side                                                                */

static size_t element_bytes(const wl_problem *p)
{
    return warplab_dtype_size(p->dtype);
}

/* Elements of a row of `cols` in the workspace: whole 128-byte lines, so
 * that each of the copy engine's 128-byte box rows is one line of L2. */
static size_t line_ld(const wl_problem *p, size_t cols)
{
    return wl_gemm_line_elements(cols, element_bytes(p));
}

/* Elements of a K-major row in the workspace. */
static size_t kmajor_ld(const wl_problem *p)
{
    return line_ld(p, wl_gemm_k(p));
}

static size_t round_up_1k(size_t bytes)
{
    return (bytes + 1023) / 1024 * 1024;
}

/* A skinny problem: m or n at most WL_GEMM_EX_SKINNY (gemm_tiles_tf32.h:
 * the GEMV family's, as the planner plans them), and k > 0. */
static bool use_skinny(const wl_problem *p)
{
    return wl_gemm_k(p) > 0 &&
           (wl_gemm_m(p) <= WL_GEMM_EX_SKINNY || wl_gemm_n(p) <= WL_GEMM_EX_SKINNY);
}

/* The FP32 dispatcher takes FP32 N, N problems on this backend (what the
 * TF32 tile model's FP32 route reads; its supports sees the device and
 * op(B) alone): a fact of the backend, kept per thread for the last one
 * (with the device facts it reads: a backend at a freed one's address),
 * since every plan asks. */
static bool fp32_dispatcher_runs(wl_backend *backend)
{
    static thread_local const wl_backend *known = NULL;
    static thread_local int known_cc = 0;
    static thread_local size_t known_smem = 0;
    static thread_local bool runs = false;
    if (backend == known && backend->info.cc_major == known_cc &&
        backend->info.shared_memory_per_block_optin == known_smem)
        return runs;
    const wl_impl *dispatch = wl_backend_find_impl(backend, "gemm", "dispatch");
    wl_problem nn;
    memset(&nn, 0, sizeof nn);
    nn.dims = 3;
    nn.dtype = WARPLAB_FLOAT32;
    char reason[8];
    runs = dispatch && (!dispatch->supports ||
                        dispatch->supports(backend, &nn, reason, sizeof reason) == WARPLAB_OK);
    known = backend;
    known_cc = backend->info.cc_major;
    known_smem = backend->info.shared_memory_per_block_optin;
    return runs;
}

extern "C" void wl_gemm_cuda_target_facts(const wl_backend *backend, wl_gemm_target *target)
{
    wl_backend *b = const_cast<wl_backend *>(backend);
    target->tma = wl_gemm_ex_tma_available(b);
    target->fp32_dispatcher = fp32_dispatcher_runs(b);
}

/* The planner's plan for a problem (its views' alignment where the launch
 * is known, the problem's misalignment otherwise); force: a candidate's
 * name or NULL. The target (wl_gemm_target_for) carries what the 16-bit
 * and TF32 tile models read of this backend (the TMA path, the FP32
 * dispatcher). */
static wl_gemm_route planned(wl_backend *backend, const wl_problem *p, const wl_launch *launch,
                             const char *force)
{
    const wl_gemm_desc desc =
        launch ? wl_gemm_desc_of(p, wl_view_ptr(launch->buf[GEMM_A]),
                                 wl_view_ptr(launch->buf[GEMM_B]), wl_view_ptr(launch->buf[GEMM_C]))
               : wl_gemm_desc_of(p, NULL, NULL, NULL);
    const wl_gemm_target target = wl_gemm_target_for(backend);
    return wl_gemm_plan_cached(&desc, &target, force);
}

/* The GEMV row for a problem's layout (its big operand along k or not). */
static const char *gemv_row(const wl_problem *p)
{
    const wl_gemm_desc d = wl_gemm_desc_of(p, NULL, NULL, NULL);
    return wl_gemm_x_along_k(&d) ? "gemv_k" : "gemv_rows";
}

/* The planner candidate a call is forced to (problem.param: its row + 1,
 * set by warplab_gemm_force_candidate), or NULL: the planner's pick. */
static const char *forced_candidate(const wl_problem *p)
{
    size_t count = 0;
    const wl_gemm_candidate *rows = wl_gemm_candidates(&count);
    return p->param > 0 && (size_t)p->param <= count ? rows[p->param - 1].name : NULL;
}

/* The fallback forced: the tiled kernel whatever the shape. */
static bool tiled_forced(const wl_problem *p)
{
    const char *force = forced_candidate(p);
    return force && strcmp(force, "tiled") == 0;
}

/* A call's route, made once by each entry point (ex_launch and
 * ex_describe on the caller's views, ex_scratch on the problem alone) and
 * passed down to the helpers below, which read it and plan nothing: the
 * planner's route for the problem and the candidate it is forced to, or
 * no candidate (-1) where the ladder forces a kernel (WL_GEMM_EX16_FORCE
 * bits: the ex16_* rungs keep their own paths, no plan). */
static wl_gemm_route ex_route_of(wl_backend *backend, const wl_problem *p, const wl_launch *launch)
{
    if (!(p->variant & WL_GEMM_EX16_FORCE))
        return planned(backend, p, launch, forced_candidate(p));
    wl_gemm_route none;
    memset(&none, 0, sizeof none);
    none.candidate = -1;
    return none;
}

/* The route's candidate is the row named `row`. */
static bool route_is(const wl_gemm_route *route, const char *row)
{
    return route->candidate >= 0 && route->candidate == wl_gemm_candidate_find(row);
}

/* The GEMV family runs the problem: the planner's pick (or the forced
 * candidate), or (forced) the skinny problems that the TF32 and tiled
 * paths below leave to it. */
static bool gemv_planned(const wl_gemm_route *route)
{
    return route->candidate >= 0 && route->schedule == WL_GEMM_SCHEDULE_GEMV;
}

/* The planner picked (or the call forces) fp32_dispatch_copy: the op T
 * operands copied, the FP32 dispatcher on N, N (fp32_copy.h). */
static bool fp32_copy_planned(const wl_gemm_route *route)
{
    return route_is(route, "fp32_dispatch_copy");
}

/* The planner picked (or the call forces) small_mma or small_mma_tf32: the
 * small mma.sync kernel on the operands as stored, one launch, no
 * workspace (small_mma.cu). */
static bool small_mma_planned(const wl_gemm_route *route)
{
    return route_is(route, "small_mma") || route_is(route, "small_mma_tf32");
}

/* The planner picked (or the call forces) fp32_tiles: the FP32 dispatcher's
 * tile kernels reading the op T operands in place (dispatch.cu), on the
 * problem with its layout bits alone (FP32 products: within TF32's bound),
 * the route's plan (route->fp32). */
static bool fp32_tiles_planned(wl_backend *backend, const wl_problem *p, const wl_gemm_route *route,
                               wl_problem *on_tiles, const wl_impl **dispatcher)
{
    if (!route_is(route, "fp32_tiles"))
        return false;
    *dispatcher = wl_backend_find_impl(backend, "gemm", "dispatch");
    *on_tiles = *p;
    on_tiles->variant = p->variant & (WL_GEMM_TRANS_A | WL_GEMM_TRANS_B);
    on_tiles->param = 0;
    return *dispatcher != NULL;
}

/* The tensor-core path: TF32 or 16-bit inputs, sm_90a, C of at least one
 * 64-row slab in each direction, k > 0. */
static bool use_tma(wl_backend *backend, const wl_problem *p)
{
    const bool tensor = p->dtype != WARPLAB_FLOAT32 || (p->variant & WL_GEMM_COMPUTE_TF32);
    return tensor && !use_skinny(p) && wl_gemm_k(p) > 0 && wl_gemm_ex_tma_available(backend);
}

/* TF32 compute on float operands: the FP32 dispatcher, the small-tile
 * mma.sync kernel (tf32_tiles.cu) or the TMA + wgmma kernel, the one with
 * the least modelled time (wl_tf32_choose, src/kernels/gemm_tiles_tf32.h:
 * a function of the problem alone, the same at scratch_bytes and at
 * launch), with the dispatcher that runs its FP32 route. */
typedef struct tf32_choice : wl_tf32_plan {
    const wl_impl *fp32;     /* WL_TF32_ROUTE_FP32: the dispatcher */
    wl_problem fp32_problem; /* WL_TF32_ROUTE_FP32: the problem with FP32 compute */
} tf32_choice;

/* The tile models' plans where no route carries one (the ladder's forced
 * kernels, WL_GEMM_EX16_FORCE_*; rows that fall through), kept per thread
 * once a problem and backend (plan_cache.h: the key holds all the models
 * read of both; extra: the backend facts passed to them), so that a forced
 * rung's launch models no more than the library call's, whose plan the
 * planner's cache keeps. */
static wl_ex16_plan ex16_modelled(wl_backend *backend, const wl_problem *p)
{
    static thread_local wl_plan_cache<wl_ex16_plan> cache;
    const bool tma = wl_gemm_ex_tma_available(backend);
    const wl_plan_key key = wl_plan_key_of(backend, p, tma ? 1 : 0);
    const wl_ex16_plan *kept = cache.find(key);
    if (kept)
        return *kept;
    const wl_ex16_plan plan = wl_ex16_choose(&backend->info, p, tma);
    cache.keep(key, plan);
    return plan;
}

static wl_tf32_plan tf32_modelled(wl_backend *backend, const wl_problem *p)
{
    static thread_local wl_plan_cache<wl_tf32_plan> cache;
    const bool fp32 = p->variant == WL_GEMM_COMPUTE_TF32 && fp32_dispatcher_runs(backend);
    const bool tma = wl_gemm_ex_tma_available(backend);
    const wl_plan_key key = wl_plan_key_of(backend, p, (tma ? 1 : 0) | (fp32 ? 2 : 0));
    const wl_tf32_plan *kept = cache.find(key);
    if (kept)
        return *kept;
    const wl_tf32_plan plan = wl_tf32_choose(&backend->info, p, fp32, tma);
    cache.keep(key, plan);
    return plan;
}

/* Where the route's row is tf32_chooser, the route carries the TF32 tile
 * model's plan (made and cached once a descriptor: gemm_plan.h). Where
 * another row runs the problem (the tiled fallback, a forced row that
 * cannot take it) or the ladder forces a kernel (no route), the plan is
 * the tile model's own (tf32_modelled). */
static tf32_choice tf32_choose(wl_backend *backend, const wl_problem *p, const wl_gemm_route *route)
{
    tf32_choice c;
    memset(&c, 0, sizeof c);
    if (route_is(route, "tf32_chooser"))
        static_cast<wl_tf32_plan &>(c) = route->tf32;
    else
        static_cast<wl_tf32_plan &>(c) = tf32_modelled(backend, p);
    if (c.route == WL_TF32_ROUTE_FP32) {
        /* The FP32 route: the dispatcher on the problem with FP32 compute
         * (alpha and beta are no part of the plan: the caller's). */
        c.fp32 = wl_backend_find_impl(backend, "gemm", "dispatch");
        c.fp32_problem = *p;
        c.fp32_problem.variant = 0;
    }
    return c;
}

/* 16-bit inputs: the plan of ex16.h's cost model (skinny, mma.sync, TMA +
 * wgmma, or the tiled fallback), the route's where the planner picked
 * ex16_chooser, else (another row, or a forced kernel) the model's own
 * (ex16_modelled). */
static wl_ex16_plan ex16_plan_of(wl_backend *backend, const wl_problem *p,
                                 const wl_gemm_route *route)
{
    if (route_is(route, "ex16_chooser"))
        return route->ex16;
    return ex16_modelled(backend, p);
}

/* The workspace's room for B, after A's: B^T copied K-major (every
 * kernel but the register-B one), row-major B copied onto 128-byte lines
 * (the register-B kernel, where the plan says so), or none (the register-B
 * kernel reading B as stored). tf32: the TF32 wgmma plan, NULL otherwise. */
static size_t b_copy_bytes(const wl_problem *p, const tf32_choice *tf32)
{
    if (!tf32 || !tf32->wgmma_rs)
        return wl_gemm_n(p) * kmajor_ld(p) * element_bytes(p);
    return tf32->wgmma_line_b ? wl_gemm_k(p) * line_ld(p, wl_gemm_n(p)) * element_bytes(p) : 0;
}

/* Room for K-major copies of both operands (whether a call needs them
 * depends on its views' alignment, known only at launch). */

static size_t ex_scratch_chosen(wl_backend *backend, const wl_problem *p,
                                const wl_gemm_route *route);

/* The workspace is sized from the problem alone (its misalignment, no
 * pointers), but the plan at launch sees the caller's views: where the
 * planned row needs 16-byte rows (the tensor-core GEMV), a view off 16
 * bytes plans another row at launch, so the workspace has room for that
 * one too (the GEMV row of a misaligned view, or the choosers' path). */
static size_t ex_scratch(wl_backend *backend, const wl_problem *p)
{
    const wl_gemm_route route = ex_route_of(backend, p, NULL);
    if (!gemv_planned(&route))
        return ex_scratch_chosen(backend, p, &route);
    size_t count;
    if (wl_gemm_candidates(&count)[route.candidate].min_align <= 1)
        return route.scratch;
    wl_problem misaligned = *p;
    misaligned.misalign = 1;
    const wl_gemm_route other = ex_route_of(backend, &misaligned, NULL);
    const size_t other_bytes =
        gemv_planned(&other) ? other.scratch : ex_scratch_chosen(backend, p, &route);
    return route.scratch > other_bytes ? route.scratch : other_bytes;
}

/* The workspace of the path that runs a problem the GEMV family does not
 * (route: the problem's, made by ex_scratch). */
static size_t ex_scratch_chosen(wl_backend *backend, const wl_problem *p,
                                const wl_gemm_route *route)
{
    if (fp32_copy_planned(route))
        return wl_fp32_copy_scratch(backend, p);
    if (small_mma_planned(route)) {
        /* No workspace; but a problem whose misalignment alone puts its rows
         * off 16 bytes may come with views on them at the launch, which
         * plans another row: room for that one. */
        if (p->misalign == 0)
            return 0;
        wl_problem on_lines = *p;
        on_lines.misalign = 0;
        return ex_scratch(backend, &on_lines);
    }
    wl_problem on_tiles;
    const wl_impl *dispatcher = NULL;
    if (fp32_tiles_planned(backend, p, route, &on_tiles, &dispatcher))
        return wl_gemm_fp32_scratch(backend, &on_tiles, &route->fp32);
    if (tiled_forced(p))
        return 0;
    if (p->dtype != WARPLAB_FLOAT32) {
        const wl_ex16_plan plan = ex16_plan_of(backend, p, route);
        if (plan.kind == WL_EX16_MMA || plan.kind == WL_EX16_WGMMA || plan.kind == WL_EX16_THIN)
            return wl_ex16_scratch(backend, p, &plan);
        if (plan.kind == WL_EX16_TILED)
            return 0;
    }
    const tf32_choice tf32 = tf32_choose(backend, p, route);
    if (tf32.route == WL_TF32_ROUTE_FP32)
        return tf32.fp32->scratch_bytes ? tf32.fp32->scratch_bytes(backend, &tf32.fp32_problem) : 0;
    if (tf32.route == WL_TF32_ROUTE_TILES)
        return wl_tf32_tiles_scratch(&tf32.tiles, wl_gemm_m(p), wl_gemm_n(p));
    if (use_skinny(p))
        return planned(backend, p, NULL, gemv_row(p)).scratch;
    if (!use_tma(backend, p))
        return 0;
    const size_t row = kmajor_ld(p) * element_bytes(p);
    size_t bytes = round_up_1k(wl_gemm_m(p) * row) +
                   round_up_1k(b_copy_bytes(p, tf32.route == WL_TF32_ROUTE_WGMMA ? &tf32 : NULL));
    if (tf32.route == WL_TF32_ROUTE_WGMMA && tf32.wgmma_splits > 1) /* the partial sums */
        bytes += (size_t)tf32.wgmma_splits * wl_gemm_m(p) * wl_gemm_n(p) * sizeof(float);
    return bytes;
}

static bool rows_16_aligned(const void *base, size_t ld, size_t element)
{
    return (uintptr_t)base % 16 == 0 && ld * element % 16 == 0;
}

template <typename W>
static void kmajor_launch(wl_backend *backend, const void *src, int ld, bool transposed, void *dst,
                          int dst_ld, int rows, int k)
{
    cudaStream_t stream = wl_cuda_stream(backend);
    if (!transposed) {
        const unsigned block = 256;
        const dim3 grid((unsigned)((k + block - 1) / block),
                        (unsigned)(rows < 65535 ? rows : 65535));
        kmajor_restride<W>
            <<<grid, block, 0, stream>>>((const W *)src, ld, (W *)dst, dst_ld, rows, k);
        return;
    }
    const dim3 block(COPY_TILE / 2, 8);
    const unsigned k_tiles = (unsigned)((k + COPY_TILE - 1) / COPY_TILE);
    const dim3 grid((unsigned)((rows + COPY_TILE - 1) / COPY_TILE),
                    k_tiles < 65535 ? k_tiles : 65535);
    const bool pairs = (uintptr_t)src % (2 * sizeof(W)) == 0 && ld % 2 == 0;
    if (pairs)
        kmajor_transpose<W, true>
            <<<grid, block, 0, stream>>>((const W *)src, ld, (W *)dst, dst_ld, rows, k);
    else
        kmajor_transpose<W, false>
            <<<grid, block, 0, stream>>>((const W *)src, ld, (W *)dst, dst_ld, rows, k);
}

/* Copies an operand into the workspace in K-major form (a transpose, or a
 * re-stride to 16-byte rows). */
static warplab_status kmajor_into(wl_backend *backend, const void *src, int ld, bool transposed,
                                  void *dst, int dst_ld, int rows, int k, size_t element)
{
    if (element == 2)
        kmajor_launch<uint16_t>(backend, src, ld, transposed, dst, dst_ld, rows, k);
    else
        kmajor_launch<uint32_t>(backend, src, ld, transposed, dst, dst_ld, rows, k);
    return WL_CUDA_LAUNCHED(backend, "gemm_ex K-major operand copy");
}

/* The K-major operands (copied into the workspace where needed), then the
 * 16-bit TMA kernel (tf32 NULL) or the TF32 plan on the wgmma kernel of
 * wgmma_ex.sm90a.cu, its partial sums after the copies. */
static warplab_status run_tma(wl_backend *backend, const wl_launch *launch, const tf32_choice *tf32)
{
    const wl_problem *p = launch->problem;
    const size_t element = element_bytes(p);
    const int m = (int)wl_gemm_m(p), n = (int)wl_gemm_n(p), k = (int)wl_gemm_k(p);
    const int lda = (int)wl_gemm_lda(p), ldb = (int)wl_gemm_ldb(p);
    const void *a = wl_view_ptr(launch->buf[GEMM_A]), *b = wl_view_ptr(launch->buf[GEMM_B]);
    const size_t needed = ex_scratch(backend, p);
    if (launch->scratch.bytes < needed)
        return wl_fail(backend, WARPLAB_ERROR_INVALID_ARGUMENT,
                       "gemm_ex: a workspace of %zu bytes, %zu needed", launch->scratch.bytes,
                       needed);
    char *workspace = (char *)wl_view_ptr(launch->scratch);
    /* The copies' rows (a few elements past k or n) as the kernels' int
     * strides: the views' spans (< 2^31 elements) keep them in range on
     * this path (m, n > 8); checked all the same. */
    if (kmajor_ld(p) > INT_MAX || line_ld(p, wl_gemm_n(p)) > INT_MAX)
        return wl_fail(backend, WARPLAB_ERROR_INVALID_ARGUMENT,
                       "gemm_ex: rows of %zu or %zu elements exceed the kernels' 32-bit strides",
                       kmajor_ld(p), line_ld(p, wl_gemm_n(p)));
    const int ld_k = (int)kmajor_ld(p);
    wl_gemm_ex_operands o;
    o.c = wl_view_ptr(launch->buf[GEMM_C]);
    o.ldc = (int)wl_gemm_ldc(p);
    o.m = m;
    o.n = n;
    o.k = k;
    o.alpha = (float)p->alpha;
    o.beta = (float)p->beta;
    o.type = p->dtype;
    o.c_narrow = (p->variant & WL_GEMM_C_INPUT_TYPE) != 0;
    warplab_status status = WARPLAB_OK;
    const bool line_a = tf32 && tf32->wgmma_line_a, line_b = tf32 && tf32->wgmma_line_b;
    if (!wl_gemm_trans_a(p) && rows_16_aligned(a, (size_t)lda, element) && !line_a) {
        o.a = a;
        o.lda = lda;
    } else {
        o.a = workspace;
        o.lda = ld_k;
        status = kmajor_into(backend, a, lda, wl_gemm_trans_a(p), workspace, ld_k, m, k, element);
    }
    if (status != WARPLAB_OK)
        return status;
    char *bt_space = workspace + round_up_1k((size_t)m * ld_k * element);
    const bool rs = tf32 && tf32->wgmma_rs;
    if (rs && !line_b && !rows_16_aligned(b, (size_t)ldb, element))
        return wl_fail(backend, WARPLAB_ERROR_INVALID_ARGUMENT,
                       "gemm_ex: B's rows are not 16-byte aligned at the call, as its problem "
                       "said they would be");
    const int ld_n = (int)line_ld(p, (size_t)n);
    if (rs && line_b) { /* row-major k x n on 128-byte lines */
        o.bt = bt_space;
        o.ldbt = ld_n;
        status = kmajor_into(backend, b, ldb, false, bt_space, ld_n, k, n, element);
    } else if (rs) {
        o.bt = b; /* row-major k x n, read N-major by gemm_ex_tf32_rs */
        o.ldbt = ldb;
    } else if (wl_gemm_trans_b(p) && rows_16_aligned(b, (size_t)ldb, element) && !line_b) {
        o.bt = b;
        o.ldbt = ldb;
    } else {
        o.bt = bt_space;
        o.ldbt = ld_k;
        status = kmajor_into(backend, b, ldb, !wl_gemm_trans_b(p), bt_space, ld_k, n, k, element);
    }
    if (status != WARPLAB_OK)
        return status;
    if (!tf32)
        return wl_gemm_ex_tma_run(backend, &o);
    wl_gemm_ex_wgmma_call call;
    call.a = o.a;
    call.b = o.bt;
    call.lda = o.lda;
    call.ldb = o.ldbt;
    call.a_m_major = false;
    call.b_n_major = rs;
    call.c = o.c;
    call.ldc = o.ldc;
    call.m = m;
    call.n = n;
    call.k = k;
    call.alpha = o.alpha;
    call.beta = o.beta;
    call.type = WARPLAB_FLOAT32;
    call.c_narrow = false;
    call.bn = tf32->wgmma_bn;
    call.bm = 0;
    call.splits = tf32->wgmma_splits;
    call.k_chunk = tf32->wgmma_k_chunk;
    call.part =
        tf32->wgmma_splits > 1 ? (float *)(bt_space + round_up_1k(b_copy_bytes(p, tf32))) : NULL;
    call.c_transposed = false;
    call.sk_space = NULL;
    call.sk_workers = 0;
    call.after_copy = false;
    status = wl_gemm_ex_wgmma_run(backend, &call);
    if (status != WARPLAB_OK || call.splits == 1)
        return status;
    return wl_ex16_finish(backend, false, call.part, call.splits, m, n, o.c, o.ldc, 1, false,
                          o.alpha, o.beta);
}

template <typename T, typename OUT>
static void launch_tiled(const ex_params &params, dim3 grid, cudaStream_t stream)
{
    gemm_ex_tiled<T, OUT><<<grid, EX_THREADS, 0, stream>>>(params);
}

static warplab_status run_tiled(wl_backend *backend, const wl_launch *launch)
{
    const wl_problem *p = launch->problem;
    ex_params params;
    params.a = wl_view_ptr(launch->buf[GEMM_A]);
    params.b = wl_view_ptr(launch->buf[GEMM_B]);
    params.c = wl_view_ptr(launch->buf[GEMM_C]);
    params.m = (int)wl_gemm_m(p);
    params.n = (int)wl_gemm_n(p);
    params.k = (int)wl_gemm_k(p);
    params.lda = (int)wl_gemm_lda(p);
    params.ldb = (int)wl_gemm_ldb(p);
    params.ldc = (int)wl_gemm_ldc(p);
    params.alpha = (float)p->alpha;
    params.beta = (float)p->beta;
    params.trans_a = wl_gemm_trans_a(p);
    params.trans_b = wl_gemm_trans_b(p);
    params.tf32 = (p->variant & WL_GEMM_COMPUTE_TF32) != 0;
    const dim3 grid((unsigned)((params.n + EX_BN - 1) / EX_BN),
                    (unsigned)((params.m + EX_BM - 1) / EX_BM));
    const int *most = backend->info.max_grid_dim;
    if ((most[0] > 0 && grid.x > (unsigned)most[0]) || (most[1] > 0 && grid.y > (unsigned)most[1]))
        return wl_fail(backend, WARPLAB_ERROR_UNSUPPORTED,
                       "gemm_ex: a grid of %u x %u blocks is past this device's %d x %d", grid.x,
                       grid.y, most[0], most[1]);
    const bool narrow_c = (p->variant & WL_GEMM_C_INPUT_TYPE) != 0;
    cudaStream_t stream = wl_cuda_stream(backend);
    switch (p->dtype) {
    case WARPLAB_BFLOAT16:
        if (narrow_c)
            launch_tiled<__nv_bfloat16, __nv_bfloat16>(params, grid, stream);
        else
            launch_tiled<__nv_bfloat16, float>(params, grid, stream);
        break;
    case WARPLAB_FLOAT16:
        if (narrow_c)
            launch_tiled<__half, __half>(params, grid, stream);
        else
            launch_tiled<__half, float>(params, grid, stream);
        break;
    default: launch_tiled<float, float>(params, grid, stream); break;
    }
    return WL_CUDA_LAUNCHED(backend, "gemm_ex tiled kernel");
}

static warplab_status ex_launch(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    const wl_problem *p = launch->problem;
    if (wl_gemm_m(p) == 0 || wl_gemm_n(p) == 0)
        return WARPLAB_OK;
    const wl_gemm_route route = ex_route_of(backend, p, launch);
    if (small_mma_planned(&route))
        return wl_small_mma_run(backend, launch, &route);
    if (gemv_planned(&route))
        return wl_gemv_run(backend, launch, &route);
    if (fp32_copy_planned(&route))
        return wl_fp32_copy_run(backend, launch, &route.fp32);
    wl_problem on_tiles;
    const wl_impl *dispatcher = NULL;
    if (fp32_tiles_planned(backend, p, &route, &on_tiles, &dispatcher)) {
        wl_launch in_place = *launch;
        in_place.problem = &on_tiles;
        return wl_gemm_fp32_run(backend, &in_place, &route.fp32);
    }
    if (tiled_forced(p))
        return run_tiled(backend, launch);
    if (p->dtype != WARPLAB_FLOAT32) {
        const wl_ex16_plan plan = ex16_plan_of(backend, p, &route);
        if (plan.kind == WL_EX16_MMA || plan.kind == WL_EX16_WGMMA || plan.kind == WL_EX16_THIN)
            return wl_ex16_run(backend, launch, &plan);
        return plan.kind == WL_EX16_TMA ? run_tma(backend, launch, NULL)
                                        : run_tiled(backend, launch);
    }
    const tf32_choice tf32 = tf32_choose(backend, p, &route);
    if (tf32.route == WL_TF32_ROUTE_FP32) {
        wl_launch on_fp32 = *launch;
        on_fp32.problem = &tf32.fp32_problem;
        return tf32.fp32->launch(backend, &on_fp32, NULL);
    }
    if (tf32.route == WL_TF32_ROUTE_TILES) {
        wl_tf32_tiles_call call;
        call.a = (const float *)wl_view_ptr(launch->buf[GEMM_A]);
        call.b = (const float *)wl_view_ptr(launch->buf[GEMM_B]);
        call.c = (float *)wl_view_ptr(launch->buf[GEMM_C]);
        call.m = (int)wl_gemm_m(p);
        call.n = (int)wl_gemm_n(p);
        call.k = (int)wl_gemm_k(p);
        call.lda = (int)wl_gemm_lda(p);
        call.ldb = (int)wl_gemm_ldb(p);
        call.ldc = (int)wl_gemm_ldc(p);
        call.alpha = (float)p->alpha;
        call.beta = (float)p->beta;
        call.trans_a = wl_gemm_trans_a(p);
        call.trans_b = wl_gemm_trans_b(p);
        return wl_tf32_tiles_run(backend, &call, &tf32.tiles, wl_view_ptr(launch->scratch),
                                 launch->scratch.bytes);
    }
    if (use_skinny(p)) {
        const wl_gemm_route forced = planned(backend, p, launch, gemv_row(p));
        return wl_gemv_run(backend, launch, &forced);
    }
    if (tf32.route == WL_TF32_ROUTE_WGMMA)
        return run_tma(backend, launch, &tf32);
    return run_tiled(backend, launch);
}

/* The ex16_* rows' forced paths: 16-bit inputs, sm_80 (ex16_thin m or n
 * <= 64; TMA + wgmma sm_90a and m, n > 8). Unforced problems run
 * everywhere. */
static warplab_status ex_supports(wl_backend *backend, const wl_problem *p, char *reason,
                                  size_t len)
{
    const unsigned force = p->variant & WL_GEMM_EX16_FORCE;
    if (!force)
        return WARPLAB_OK;
    if (p->dtype == WARPLAB_FLOAT32 && force == WL_GEMM_EX16_FORCE_WGMMA &&
        (p->variant & WL_GEMM_COMPUTE_TF32)) {
        if (wl_gemm_ex_wgmma_available(backend))
            return WARPLAB_OK;
        wl_format(reason, len, "TMA + wgmma needs sm_90a; %s is %d.%d", backend->info.name,
                  backend->info.cc_major, backend->info.cc_minor);
        return WARPLAB_ERROR_UNSUPPORTED;
    }
    if (p->dtype == WARPLAB_FLOAT32) {
        wl_format(reason, len, "the ex16 paths take 16-bit inputs");
        return WARPLAB_ERROR_UNSUPPORTED;
    }
    warplab_status status = wl_gemm_needs_sm80(backend, reason, len, "the 16-bit kernels");
    if (status != WARPLAB_OK)
        return status;
    const size_t m = wl_gemm_m(p), n = wl_gemm_n(p), small = m < n ? m : n;
    if ((force & WL_GEMM_EX16_FORCE_THIN) && small > EX16_THIN_SMALL) {
        wl_format(reason, len, "ex16_thin takes m or n <= %d (%zu x %zu)", EX16_THIN_SMALL, m, n);
        return WARPLAB_ERROR_UNSUPPORTED;
    }
    if ((force & WL_GEMM_EX16_FORCE_WGMMA) && !wl_gemm_ex_wgmma_available(backend)) {
        wl_format(reason, len, "TMA + wgmma needs sm_90a; %s is %d.%d", backend->info.name,
                  backend->info.cc_major, backend->info.cc_minor);
        return WARPLAB_ERROR_UNSUPPORTED;
    }
    if (force & WL_GEMM_EX16_FORCE_TMA) {
        if (small <= WL_GEMM_EX_SKINNY) {
            wl_format(reason, len, "TMA + wgmma takes m and n > %d (%zu x %zu)", WL_GEMM_EX_SKINNY,
                      m, n);
            return WARPLAB_ERROR_UNSUPPORTED;
        }
        if (!wl_gemm_ex_tma_available(backend)) {
            wl_format(reason, len, "TMA + wgmma needs sm_90a; %s is %d.%d", backend->info.name,
                      backend->info.cc_major, backend->info.cc_minor);
            return WARPLAB_ERROR_UNSUPPORTED;
        }
    }
    return WARPLAB_OK;
}

/* The kernel a call runs: the 16-bit plan, or the TF32 route (exact FP32: no note). */
static void ex_describe(wl_backend *backend, const wl_launch *launch, char *text, size_t len)
{
    const wl_problem *p = launch->problem;
    text[0] = 0;
    const wl_gemm_route route = ex_route_of(backend, p, launch);
    if (gemv_planned(&route)) {
        wl_gemm_route_describe(&route, text, len);
        return;
    }
    if (fp32_copy_planned(&route)) {
        wl_fp32_copy_describe(backend, launch, &route.fp32, text, len);
        return;
    }
    if (small_mma_planned(&route)) {
        wl_small_mma_describe(launch, &route, text, len);
        return;
    }
    wl_problem on_tiles;
    const wl_impl *dispatcher = NULL;
    if (fp32_tiles_planned(backend, p, &route, &on_tiles, &dispatcher)) {
        char plan[160] = "";
        wl_gemm_plan_describe(&route.fp32, plan, sizeof plan);
        snprintf(text, len, "FP32 tiles, %s read in place: %s",
                 wl_gemm_trans_a(p) && wl_gemm_trans_b(p) ? "A^T and B^T"
                 : wl_gemm_trans_a(p)                     ? "A^T"
                                                          : "B^T",
                 plan);
        return;
    }
    if (tiled_forced(p)) {
        snprintf(text, len, "tiled (CUDA cores, %d x %d tiles)", EX_BM, EX_BN);
        return;
    }
    if (p->dtype != WARPLAB_FLOAT32) {
        const wl_ex16_plan plan = ex16_plan_of(backend, p, &route);
        wl_ex16_describe(&plan, text, len);
        return;
    }
    const tf32_choice tf32 = tf32_choose(backend, p, &route);
    char plan[160];
    switch (tf32.route) {
    case WL_TF32_ROUTE_FP32:
        plan[0] = 0;
        if (tf32.fp32->describe) {
            wl_launch on_fp32 = *launch;
            on_fp32.problem = &tf32.fp32_problem;
            tf32.fp32->describe(backend, &on_fp32, plan, sizeof plan);
        }
        snprintf(text, len, "TF32 on the FP32 dispatcher: %s", plan);
        break;
    case WL_TF32_ROUTE_TILES: wl_tf32_tiles_describe(&tf32.tiles, text, len); break;
    case WL_TF32_ROUTE_WGMMA: {
        const char *lines = tf32.wgmma_line_a && tf32.wgmma_line_b
                                ? ", A and B copied onto 128-byte lines"
                            : tf32.wgmma_line_a ? ", A copied onto 128-byte lines"
                            : tf32.wgmma_line_b ? ", B copied onto 128-byte lines"
                                                : "";
        if (tf32.wgmma_rs)
            snprintf(text, len,
                     "tf32 TMA + wgmma, B from registers, %dx128 tiles, %d split%s%s (model %.1f "
                     "us)",
                     tf32.wgmma_bn, tf32.wgmma_splits, tf32.wgmma_splits == 1 ? "" : "s", lines,
                     tf32.wgmma_us);
        else
            snprintf(text, len, "tf32 TMA + wgmma, 128x%d tiles, %d split%s%s (model %.1f us)",
                     tf32.wgmma_bn, tf32.wgmma_splits, tf32.wgmma_splits == 1 ? "" : "s", lines,
                     tf32.wgmma_us);
        break;
    }
    default: break;
    }
}

extern "C" const wl_impl wl_gemm_ex_cuda_impl = {.ladder = "gemm",
                                                 .rung = WL_GEMM_EX_IMPL,
                                                 .supports = ex_supports,
                                                 .scratch_bytes = ex_scratch,
                                                 .launch = ex_launch,
                                                 .describe = ex_describe};
/* warplab:end */
