/* The FP32 tile kernels' launches (gemm_pipelined and its split-K and
 * tail-split forms over the tile shapes of pipelined_shapes.cuh), for one
 * operand layout at a time: dispatch_tiles_<layout>.cu instantiates one
 * layout each, so that the four build in parallel (the kernels are
 * templates over the layout, the vector paths and the shape: one file held
 * them all, the longest compile of the library), and dispatch.cu's run_plan
 * calls wl_gemm_launch_tiles[trans_a][trans_b]. */
#ifndef WARPLAB_CUDA_GEMM_DISPATCH_TILES_CUH
#define WARPLAB_CUDA_GEMM_DISPATCH_TILES_CUH

#include "gemm_launch.h"
#include "pipelined_shapes.cuh"

/* Launches plan (a tile kernel of gemm_dispatch's table) for one layout. */
typedef cudaError_t (*wl_gemm_tile_launcher)(wl_gemm_kernel kernel, const gemm_params &g,
                                             const wl_gemm_plan &plan, float *partial,
                                             cudaStream_t stream);
/* One per layout (dispatch_tiles_<layout>.cu); dispatch.cu's table of them,
 * [trans_a][trans_b] (A stored k x m, B stored n x k). */
cudaError_t wl_gemm_launch_tiles_nn(wl_gemm_kernel, const gemm_params &, const wl_gemm_plan &,
                                    float *, cudaStream_t);
cudaError_t wl_gemm_launch_tiles_nt(wl_gemm_kernel, const gemm_params &, const wl_gemm_plan &,
                                    float *, cudaStream_t);
cudaError_t wl_gemm_launch_tiles_tn(wl_gemm_kernel, const gemm_params &, const wl_gemm_plan &,
                                    float *, cudaStream_t);
cudaError_t wl_gemm_launch_tiles_tt(wl_gemm_kernel, const gemm_params &, const wl_gemm_plan &,
                                    float *, cudaStream_t);
extern const wl_gemm_tile_launcher wl_gemm_launch_tiles[2][2];

/* warplab:rung gemm tile_32x128 tile_64x64 tile_32x64 dispatch tail_128x128 tail_256x128 */
template <class T, bool VEC, bool STAGE_C, bool TA, bool TB, bool A_VEC>
static cudaError_t launch_tiles_split(const gemm_params &g, const wl_gemm_plan &plan,
                                      float *partial, cudaStream_t stream)
{
    const unsigned tiles = (unsigned)(((g.m + T::BM - 1) / T::BM) * ((g.n + T::BN - 1) / T::BN));
    const size_t smem = T::smem_bytes(TB);
    static unsigned split_smem_set = 0, whole_smem_set = 0, tail_smem_set = 0;
    if (plan.splits > 1 && plan.tail_tiles > 0) {
        /* The tail split: whole tiles, then the tail's pieces; then the
         * tail's reduction (see gemm_pipelined_tail_split). */
        cudaError_t e =
            wl_cuda_allow_smem(reinterpret_cast<const void *>(
                                   gemm_pipelined_tail_split<T, VEC, STAGE_C, TA, TB, A_VEC>),
                               smem, &tail_smem_set);
        if (e != cudaSuccess)
            return e;
        const int full_tiles = (int)tiles - plan.tail_tiles;
        gemm_pipelined_tail_split<T, VEC, STAGE_C, TA, TB, A_VEC>
            <<<(unsigned)full_tiles + (unsigned)(plan.tail_tiles * plan.splits), T::THREADS, smem,
               stream>>>(g, partial, full_tiles, plan.tail_tiles, plan.k_chunk);
        e = cudaGetLastError();
        if (e != cudaSuccess)
            return e;
        const size_t elements = (size_t)plan.tail_tiles * T::BM * T::BN;
        return wl_pdl_launch(
            gemm_tail_reduce<T::BM, T::BN>,
            dim3((unsigned)((elements + SPLITK_REDUCE_THREADS - 1) / SPLITK_REDUCE_THREADS)),
            dim3(SPLITK_REDUCE_THREADS), 0, stream, g, (const float *)partial, full_tiles,
            plan.tail_tiles, plan.splits, (int)T::GROUP_M);
    }
    const cudaError_t e =
        plan.splits > 1
            ? wl_cuda_allow_smem(reinterpret_cast<const void *>(
                                     gemm_pipelined_split<T, VEC, STAGE_C, TA, TB, A_VEC>),
                                 smem, &split_smem_set)
            : wl_cuda_allow_smem(
                  reinterpret_cast<const void *>(gemm_pipelined<T, VEC, STAGE_C, TA, TB, A_VEC>),
                  smem, &whole_smem_set);
    if (e != cudaSuccess)
        return e;
    if (plan.splits > 1)
        gemm_pipelined_split<T, VEC, STAGE_C, TA, TB, A_VEC>
            <<<dim3(tiles, (unsigned)plan.splits), T::THREADS, smem, stream>>>(g, partial,
                                                                               plan.k_chunk);
    else
        gemm_pipelined<T, VEC, STAGE_C, TA, TB, A_VEC><<<tiles, T::THREADS, smem, stream>>>(g);
    return cudaGetLastError();
}

/* The staged-C variant or not (frag_256x128_s6's where C, or a split's
 * partial rows, is off 16 bytes). */
template <class T, bool VEC, bool TA, bool TB, bool A_VEC>
static cudaError_t launch_tiles_staged(const gemm_params &g, const wl_gemm_plan &plan,
                                       float *partial, cudaStream_t stream)
{
    if constexpr (T::C_STAGED_VARIANT)
        if (gemm_stage_c<T>(g))
            return launch_tiles_split<T, VEC, true, TA, TB, A_VEC>(g, plan, partial, stream);
    return launch_tiles_split<T, VEC, T::C_STAGED, TA, TB, A_VEC>(g, plan, partial, stream);
}

/* One layout (TA: A stored k x m; TB: B stored n x k): 16-byte row copies
 * of each operand copied row by row (B of op N: VEC; A of op T: A_VEC)
 * whose rows are 16-byte aligned. */
template <class T, bool TA, bool TB>
static cudaError_t launch_tile_layout(const gemm_params &g, const wl_gemm_plan &plan,
                                      float *partial, cudaStream_t stream)
{
    const bool a_vec = TA && wl_gemm_rows_aligned(g.a, g.lda);
    const bool b_vec = !TB && wl_gemm_rows_aligned(g.b, g.ldb);
    (void)a_vec;
    (void)b_vec;
    if constexpr (TB && !TA)
        return launch_tiles_staged<T, false, TA, TB, false>(g, plan, partial, stream);
    else if constexpr (TB)
        return a_vec ? launch_tiles_staged<T, false, TA, TB, true>(g, plan, partial, stream)
                     : launch_tiles_staged<T, false, TA, TB, false>(g, plan, partial, stream);
    else if constexpr (!TA)
        return b_vec ? launch_tiles_staged<T, true, TA, TB, false>(g, plan, partial, stream)
                     : launch_tiles_staged<T, false, TA, TB, false>(g, plan, partial, stream);
    else if (a_vec)
        return b_vec ? launch_tiles_staged<T, true, TA, TB, true>(g, plan, partial, stream)
                     : launch_tiles_staged<T, false, TA, TB, true>(g, plan, partial, stream);
    else
        return b_vec ? launch_tiles_staged<T, true, TA, TB, false>(g, plan, partial, stream)
                     : launch_tiles_staged<T, false, TA, TB, false>(g, plan, partial, stream);
}

/* One layout's tile kernels, by the plan's kernel. */
template <bool TA, bool TB>
static cudaError_t launch_tile_kernel(wl_gemm_kernel kernel, const gemm_params &g,
                                      const wl_gemm_plan &plan, float *partial, cudaStream_t stream)
{
    switch (kernel) {
    case WL_GEMM_KERNEL_TILE_32X128:
        return launch_tile_layout<tile_32x128_shape, TA, TB>(g, plan, partial, stream);
    case WL_GEMM_KERNEL_TILE_64X64:
        return launch_tile_layout<tile_64x64_shape, TA, TB>(g, plan, partial, stream);
    case WL_GEMM_KERNEL_TILE_128X32:
        return launch_tile_layout<tile_128x32_shape, TA, TB>(g, plan, partial, stream);
    case WL_GEMM_KERNEL_TILE_32X64:
        return launch_tile_layout<tile_32x64_shape, TA, TB>(g, plan, partial, stream);
    case WL_GEMM_KERNEL_TILE_64X128:
        return launch_tile_layout<tile_64x128_shape, TA, TB>(g, plan, partial, stream);
    case WL_GEMM_KERNEL_TILE_128X128:
        return launch_tile_layout<frag_128x128_shape, TA, TB>(g, plan, partial, stream);
    default: return launch_tile_layout<frag_256x128_s6_shape, TA, TB>(g, plan, partial, stream);
    }
}
/* warplab:end */

#endif
