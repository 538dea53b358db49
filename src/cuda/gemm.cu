/* The cuda backend's matrix-multiply rungs (seeds 000 and 002), in ladder
 * order: the course's kernels, then register blocking, 16-byte loads,
 * conflict-free layouts and the cp.async pipeline at several shapes. The
 * kernels live in the .cuh files of src/cuda/gemm; cuBLAS and the tensor-core
 * rungs in its .cu files. Every launcher checks its grid against the device and
 * every launch with WL_CUDA_LAUNCHED. */
/*
 * Contents: the gemm rungs the cuda backend implements, in ladder order
 * (number = place on the ladder, as `warplab ladders gemm` lists it); those
 * with a [file] live there (their kernels, launchers and impl rows), the
 * others in this file (kernels in gemm/course_kernels.cuh,
 * gemm/blocked_kernels.cuh and gemm/pipelined_*.cuh). This file's table
 * lists them all.
 *   3. one_block -- one block, one thread per element
 *   4. many_blocks -- grid of 16x16 blocks, global memory
 *   5. tiled16 -- shared-memory tiles, TILE_WIDTH 16
 *   6. tiled32 -- shared-memory tiles, TILE_WIDTH 32
 *   7. tiled_bounds -- tiles with boundary checks, any size
 *   8. regblock_1d -- 1-D register blocking (8 outputs/thread)
 *   9. regblock_2d -- 2-D register blocking (8x8 outputs/thread)
 *  10. vectorized -- float4 loads, transposed A tile
 *  11. conflict_free -- bank-conflict-free shared layouts
 *  12. double_buffered -- double-buffered tiles (cp.async)
 *  13. warptile -- warp tiling
 *  14. tuned -- tuned for sm_90: 128x256x16, 4 stages
 *  15. tuned_128x128 -- sm_90 alternative: 128x128x16, 4 stages
 *  16. tuned_256x128 -- sm_90 alternative: 256x128x16, 4 stages
 *  17. frag_128x256 -- sm_90 candidate: tuned's shape, barrier a step early
 *  18. frag_128x128 -- sm_90 candidate: 128x128x16, 8x8 a thread, barrier early
 *  19. frag_128x128_w64 -- sm_90 candidate: 128x128x16, 4 warps of 64x64, barrier early
 *  20. frag_128x128_k8 -- sm_90 candidate: 128x128x8, 4 stages, barrier early
 *  21. frag_256x128 -- sm_90 candidate: 256x128x16, barrier early
 *  22. frag_256x128_s6 -- early barrier, 256x128, 6 stages
 *  23. skinny_m -- GEMV / skinny m: stream B once [gemm/dispatch.cu]
 *  24. skinny_n -- GEMV / skinny n: stream A once [gemm/dispatch.cu]
 *  25. tile_32x128 -- small tiles 32x128, split-K [gemm/dispatch.cu]
 *  26. tile_64x64 -- small tiles 64x64, split-K [gemm/dispatch.cu]
 *  27. tile_32x64 -- small tiles 32x64, 4x4 a thread, split-K [gemm/dispatch.cu]
 *  28. tail_128x128 -- 128x128 tiles, last wave split over k [gemm/dispatch.cu]
 *  29. tail_256x128 -- 256x128 tiles, last wave split over k [gemm/dispatch.cu]
 *  30. dispatch -- shape-aware dispatcher [gemm/dispatch.cu]
 *  31. copy_ab -- copy of A and B (device to device) [gemm/dispatch.cu]
 *  32. tf32_mma -- tensor cores, TF32 (mma.sync) [gemm/mma.cu]
 *  33. bf16_mma -- tensor cores, BF16 (mma.sync) [gemm/mma.cu]
 *  34. fp16_mma -- tensor cores, FP16 (mma.sync) [gemm/mma.cu]
 *  35. bf16_wgmma -- tensor cores, BF16 (wgmma, sm_90a) [gemm/wgmma_bf16.sm90a.cu]
 *  36. tf32_wgmma_tma -- tensor cores, TF32 (TMA + wgmma, sm_90a) [gemm/wgmma_tma.sm90a.cu]
 *  37. tf32_tile_64x64 -- tensor cores, TF32 64x64 tiles, either op, split-K [gemm/tf32_tiles.cu]
 *  38. tf32_tile_128x64 -- tensor cores, TF32 128x64 tiles, either op, split-K [gemm/tf32_tiles.cu]
 *  39. tf32_tile_128x128 -- tensor cores, TF32 128x128 tiles, either op, split-K
 * [gemm/tf32_tiles.cu]
 *  40. tf32_tiles -- tensor cores, TF32 small tiles, planned [gemm/tf32_tiles.cu]
 *  41. bf16_wgmma_tma -- tensor cores, BF16 (TMA + wgmma, sm_90a) [gemm/wgmma_tma.sm90a.cu]
 *  42. bf16_wgmma_tma_store -- tensor cores, BF16 (TMA + wgmma, C by TMA store, sm_90a)
 * [gemm/wgmma_tma.sm90a.cu]
 *  43. bf16_wgmma_cluster -- tensor cores, BF16 (TMA store, 2x1 cluster multicasting B, sm_90a)
 * [gemm/wgmma_tma.sm90a.cu]
 *  44. fp16_wgmma_tma_store -- tensor cores, FP16 (TMA + wgmma, C by TMA store, sm_90a)
 * [gemm/wgmma_tma.sm90a.cu]
 *  45. fp16_wgmma_cluster -- tensor cores, FP16 (TMA store, 2x1 cluster multicasting B, sm_90a)
 * [gemm/wgmma_tma.sm90a.cu]
 *  46. tf32_wgmma_tma_store -- tensor cores, TF32 (TMA + wgmma, C by TMA store, sm_90a)
 * [gemm/wgmma_tma.sm90a.cu]
 *  47. tf32_wgmma_cluster -- tensor cores, TF32 (TMA store, 2x1 cluster multicasting B, sm_90a)
 * [gemm/wgmma_tma.sm90a.cu]
 *  48. bf16_wgmma_streamk -- tensor cores, BF16 (cluster rung, last wave as stream-K shares,
 * sm_90a) [gemm/wgmma_tma.sm90a.cu]
 *  49. fp16_wgmma_streamk -- tensor cores, FP16 (cluster rung, last wave as stream-K shares,
 * sm_90a) [gemm/wgmma_tma.sm90a.cu]
 *  50. tf32_wgmma_streamk -- tensor cores, TF32 (cluster rung, last wave as stream-K shares,
 * sm_90a) [gemm/wgmma_tma.sm90a.cu]
 *  51. ex_tf32 -- warplab_gemm_ex, TF32 compute [gemm/gemm_ex.cu]
 *  52. ex_bf16 -- warplab_gemm_ex, BF16 inputs [gemm/gemm_ex.cu]
 *  53. ex_fp16 -- warplab_gemm_ex, FP16 inputs [gemm/gemm_ex.cu]
 *  54. ex16_mma -- gemm_ex BF16: mma.sync tiles on the operands as stored, split k
 * [gemm/ex16_gemm.cu]
 *  55. ex16_tma -- gemm_ex BF16: TMA + wgmma on K-major operands [gemm/ex16_gemm.cu]
 *  56. ex16_wgmma -- gemm_ex BF16: TMA + wgmma on the operands as stored, split k
 * [gemm/wgmma_ex.sm90a.cu]
 *  57. ex16_thin -- gemm_ex BF16: m or n <= 64, mma.sync fragments from global memory, split k
 * [gemm/ex16_thin.cuh]
 *  58. ex_tf32_wgmma -- gemm_ex TF32: TMA + wgmma, row-major B read as stored, split k
 * [gemm/wgmma_ex.sm90a.cu]
 *  59. cublas_fp32 -- cuBLAS sgemm, pedantic FP32 [gemm/cublas.cu]
 *  60. cublas_tf32 -- cuBLAS, TF32 tensor cores [gemm/cublas.cu]
 *  61. cublas_bf16 -- cuBLAS, BF16 tensor cores [gemm/cublas.cu]
 *  62. cublas_tf32_kmajor -- cuBLAS, TF32 tensor cores, the TMA rungs' copies [gemm/cublas.cu]
 *  63. cublas_ex_tf32 -- cuBLAS GemmEx, TF32, op(A) op(B) [gemm/cublas.cu]
 *  64. cublas_ex_bf16 -- cuBLAS GemmEx, BF16 inputs, op(A) op(B) [gemm/cublas.cu]
 *  65. cublas_ex_fp16 -- cuBLAS GemmEx, FP16 inputs, op(A) op(B) [gemm/cublas.cu]
 */
#include "gemm/blocked_kernels.cuh"
#include "gemm/course_kernels.cuh"
#include "gemm/gemm_launch.h"
#include "gemm/pipelined_shapes.cuh"

/* Grid dimensions past the device's limits get a clear error. */
static warplab_status check_grid(wl_backend *backend, dim3 grid, const char *what)
{
    const int *most = backend->info.max_grid_dim;
    if ((most[0] > 0 && grid.x > (unsigned)most[0]) || (most[1] > 0 && grid.y > (unsigned)most[1]))
        return wl_fail(backend, WARPLAB_ERROR_UNSUPPORTED,
                       "%s: a grid of %u x %u blocks is past this device's %d x %d", what, grid.x,
                       grid.y, most[0], most[1]);
    return WARPLAB_OK;
}

/* A 2-D grid of tile_m x tile_n tiles over C. */
static dim3 tile_grid(const gemm_params &g, int tile_m, int tile_n)
{
    return dim3((unsigned)((g.n + tile_n - 1) / tile_n), (unsigned)((g.m + tile_m - 1) / tile_m));
}

/* One block a tile_m x tile_n tile of C: the launch every 2-D rung shares
 * (nothing for an empty C, the grid checked against the device). */
typedef void (*gemm_kernel)(gemm_params);

static warplab_status launch_tiles(wl_backend *backend, const wl_launch *launch, int tile_m,
                                   int tile_n, dim3 block, gemm_kernel kernel, const char *what)
{
    const gemm_params g = wl_gemm_params(launch);
    if (g.m == 0 || g.n == 0)
        return WARPLAB_OK;
    const dim3 grid = tile_grid(g, tile_m, tile_n);
    warplab_status status = check_grid(backend, grid, what);
    if (status != WARPLAB_OK)
        return status;
    kernel<<<grid, block, 0, wl_cuda_stream(backend)>>>(g);
    return WL_CUDA_LAUNCHED(backend, what);
}

/* ------------------------------------------------------------------------ */
/* The course                                                               */

/* warplab:rung gemm one_block */
static warplab_status launch_one_block(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    const gemm_params g = wl_gemm_params(launch);
    if (g.m == 0 || g.n == 0)
        return WARPLAB_OK;
    /* The rung's supports() has checked m*n against the block size. */
    gemm_one_block<<<1, dim3((unsigned)g.n, (unsigned)g.m), 0, wl_cuda_stream(backend)>>>(g);
    return WL_CUDA_LAUNCHED(backend, "gemm one_block");
}
/* warplab:end */

/* warplab:rung gemm many_blocks */
static warplab_status launch_many_blocks(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    return launch_tiles(backend, launch, MANY_BLOCKS_TILE, MANY_BLOCKS_TILE,
                        dim3(MANY_BLOCKS_TILE, MANY_BLOCKS_TILE), gemm_many_blocks,
                        "gemm many_blocks");
}
/* warplab:end */

/* warplab:rung gemm tiled16 tiled32 */
/* The rung's supports() has checked that TILE divides m, n and k. */
template <int TILE>
static warplab_status launch_tiled(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    return launch_tiles(backend, launch, TILE, TILE, dim3(TILE, TILE), gemm_tiled<TILE>,
                        "gemm tiled");
}
/* warplab:end */

/* warplab:rung gemm tiled_bounds */
static warplab_status launch_tiled_bounds(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    return launch_tiles(backend, launch, BOUNDS_TILE, BOUNDS_TILE, dim3(BOUNDS_TILE, BOUNDS_TILE),
                        gemm_tiled_bounds, "gemm tiled_bounds");
}
/* warplab:end */

/* ------------------------------------------------------------------------ */
/* Register blocking, 16-byte loads, conflict-free layouts                  */

/* warplab:rung gemm regblock_1d */
static warplab_status launch_regblock_1d(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    return launch_tiles(backend, launch, RB1_BM, RB1_BN, dim3(RB1_THREADS), gemm_regblock_1d,
                        "gemm regblock_1d");
}
/* warplab:end */

/* warplab:rung gemm regblock_2d */
static warplab_status launch_regblock_2d(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    return launch_tiles(backend, launch, RB2_BM, RB2_BN, dim3(RB2_THREADS), gemm_regblock_2d,
                        "gemm regblock_2d");
}
/* warplab:end */

/* warplab:rung gemm vectorized conflict_free */
/* vectorized and conflict_free: the 16-byte path when A's and B's rows are
 * 16-byte aligned, else the same kernel loading element by element. */
template <bool CONFLICT_FREE>
static warplab_status launch_vector_loads(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    const gemm_params g = wl_gemm_params(launch);
    const bool aligned = wl_gemm_rows_aligned(g.a, g.lda) && wl_gemm_rows_aligned(g.b, g.ldb);
    gemm_kernel kernel = CONFLICT_FREE
                             ? (aligned ? gemm_conflict_free<true> : gemm_conflict_free<false>)
                             : (aligned ? gemm_vectorized<true> : gemm_vectorized<false>);
    return launch_tiles(backend, launch, RB2_BM, RB2_BN, dim3(RB2_THREADS), kernel,
                        CONFLICT_FREE ? "gemm conflict_free" : "gemm vectorized");
}
/* warplab:end */

/* ------------------------------------------------------------------------ */
/* The cp.async pipeline at its shapes                                      */

/* The shapes (double_buffered_shape .. tuned_shape): gemm/pipelined_shapes.cuh. */

/* warplab:rung gemm double_buffered warptile tuned tuned_128x128 tuned_256x128 frag_128x256
 * frag_128x128 frag_128x128_w64 frag_128x128_k8 frag_256x128 frag_256x128_s6 */
template <class T>
static warplab_status pipelined_supports(wl_backend *backend, const wl_problem *problem,
                                         char *reason, size_t len)
{
    (void)problem;
    warplab_status status = wl_gemm_needs_sm80(backend, reason, len, "cp.async");
    if (status != WARPLAB_OK)
        return status;
    const size_t most = backend->info.shared_memory_per_block_optin;
    if (most > 0 && T::SMEM_BYTES > most) {
        wl_format(reason, len, "this shape needs %zu bytes of shared memory a block; %s has %zu",
                  T::SMEM_BYTES, backend->info.name, most);
        return WARPLAB_ERROR_UNSUPPORTED;
    }
    return WARPLAB_OK;
}

template <class T, bool B_VEC>
static cudaError_t run_pipelined(const gemm_params &g, unsigned blocks, cudaStream_t stream)
{
    if (T::SMEM_BYTES > 48 * 1024) {
        cudaError_t e =
            cudaFuncSetAttribute(gemm_pipelined<T, B_VEC>,
                                 cudaFuncAttributeMaxDynamicSharedMemorySize, (int)T::SMEM_BYTES);
        if (e != cudaSuccess)
            return e;
    }
    gemm_pipelined<T, B_VEC><<<blocks, T::THREADS, T::SMEM_BYTES, stream>>>(g);
    return cudaGetLastError();
}

template <class T>
static warplab_status launch_pipelined(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    const gemm_params g = wl_gemm_params(launch);
    if (g.m == 0 || g.n == 0)
        return WARPLAB_OK;
    const size_t blocks = (size_t)((g.m + T::BM - 1) / T::BM) * (size_t)((g.n + T::BN - 1) / T::BN);
    const int most = backend->info.max_grid_dim[0];
    if (most > 0 && blocks > (size_t)most)
        return wl_fail(backend, WARPLAB_ERROR_UNSUPPORTED,
                       "gemm: %zu blocks is past this device's grid limit of %d", blocks, most);
    cudaStream_t stream = wl_cuda_stream(backend);
    cudaError_t e = wl_gemm_rows_aligned(g.b, g.ldb)
                        ? run_pipelined<T, true>(g, (unsigned)blocks, stream)
                        : run_pipelined<T, false>(g, (unsigned)blocks, stream);
    return wl_cuda_check(backend, e, "gemm pipelined kernel launch");
}
/* warplab:end */

/* ------------------------------------------------------------------------ */
/* The table                                                                */

#define GEMM_IMPL(var, id, fn)                                                                     \
    static const wl_impl var = {.ladder = "gemm", .rung = id, .launch = fn}
#define PIPELINED_IMPL(var, id, shape)                                                             \
    static const wl_impl var = {.ladder = "gemm",                                                  \
                                .rung = id,                                                        \
                                .supports = pipelined_supports<shape>,                             \
                                .launch = launch_pipelined<shape>}

/* warplab:rung gemm one_block */
GEMM_IMPL(one_block_impl, "one_block", launch_one_block);
/* warplab:end */
/* warplab:rung gemm many_blocks */
GEMM_IMPL(many_blocks_impl, "many_blocks", launch_many_blocks);
/* warplab:end */
/* warplab:rung gemm tiled16 */
GEMM_IMPL(tiled16_impl, "tiled16", launch_tiled<16>);
/* warplab:end */
/* warplab:rung gemm tiled32 */
GEMM_IMPL(tiled32_impl, "tiled32", launch_tiled<32>);
/* warplab:end */
/* warplab:rung gemm tiled_bounds */
GEMM_IMPL(tiled_bounds_impl, "tiled_bounds", launch_tiled_bounds);
/* warplab:end */
/* warplab:rung gemm regblock_1d */
GEMM_IMPL(regblock_1d_impl, "regblock_1d", launch_regblock_1d);
/* warplab:end */
/* warplab:rung gemm regblock_2d */
GEMM_IMPL(regblock_2d_impl, "regblock_2d", launch_regblock_2d);
/* warplab:end */
/* warplab:rung gemm vectorized */
GEMM_IMPL(vectorized_impl, "vectorized", launch_vector_loads<false>);
/* warplab:end */
/* warplab:rung gemm conflict_free */
GEMM_IMPL(conflict_free_impl, "conflict_free", launch_vector_loads<true>);
/* warplab:end */
/* warplab:rung gemm double_buffered */
PIPELINED_IMPL(double_buffered_impl, "double_buffered", double_buffered_shape);
/* warplab:end */
/* warplab:rung gemm warptile */
PIPELINED_IMPL(warptile_impl, "warptile", warptile_shape);
/* warplab:end */
/* warplab:rung gemm tuned */
PIPELINED_IMPL(tuned_impl, "tuned", tuned_shape);
/* warplab:end */
/* warplab:rung gemm tuned_128x128 */
PIPELINED_IMPL(tuned_128x128_impl, "tuned_128x128", tuned_128x128_shape);
/* warplab:end */
/* warplab:rung gemm tuned_256x128 */
PIPELINED_IMPL(tuned_256x128_impl, "tuned_256x128", tuned_256x128_shape);
/* warplab:end */
/* warplab:rung gemm frag_128x256 */
PIPELINED_IMPL(frag_128x256_impl, "frag_128x256", frag_128x256_shape);
/* warplab:end */
/* warplab:rung gemm frag_128x128 */
PIPELINED_IMPL(frag_128x128_impl, "frag_128x128", frag_128x128_shape);
/* warplab:end */
/* warplab:rung gemm frag_128x128_w64 */
PIPELINED_IMPL(frag_128x128_w64_impl, "frag_128x128_w64", frag_128x128_w64_shape);
/* warplab:end */
/* warplab:rung gemm frag_128x128_k8 */
PIPELINED_IMPL(frag_128x128_k8_impl, "frag_128x128_k8", frag_128x128_k8_shape);
/* warplab:end */
/* warplab:rung gemm frag_256x128 */
PIPELINED_IMPL(frag_256x128_impl, "frag_256x128", frag_256x128_shape);
/* warplab:end */
/* warplab:rung gemm frag_256x128_s6 */
PIPELINED_IMPL(frag_256x128_s6_impl, "frag_256x128_s6", frag_256x128_s6_shape);
/* warplab:end */

extern "C" const wl_impl *const wl_cuda_gemm_impls[] = {
    &one_block_impl, &many_blocks_impl, &tiled16_impl, &tiled32_impl, &tiled_bounds_impl,
    &regblock_1d_impl, &regblock_2d_impl, &vectorized_impl, &conflict_free_impl,
    &double_buffered_impl, &warptile_impl, &tuned_impl, &tuned_128x128_impl, &tuned_256x128_impl,
    &frag_128x256_impl, &frag_128x128_impl, &frag_128x128_w64_impl, &frag_128x128_k8_impl,
    &frag_256x128_impl, &frag_256x128_s6_impl, &wl_gemm_skinny_m_impl, &wl_gemm_skinny_n_impl,
    &wl_gemm_tile_32x128_impl, &wl_gemm_tile_64x64_impl, &wl_gemm_tile_32x64_impl,
    &wl_gemm_dispatch_impl, &wl_gemm_tail_128x128_impl, &wl_gemm_tail_256x128_impl,
    &wl_gemm_copy_ab_impl, &wl_gemm_tf32_mma_impl, &wl_gemm_bf16_mma_impl, &wl_gemm_fp16_mma_impl,
    &wl_gemm_bf16_wgmma_impl, &wl_gemm_bf16_wgmma_tma_impl, &wl_gemm_tf32_wgmma_tma_impl,
    &wl_gemm_bf16_wgmma_tma_store_impl, &wl_gemm_bf16_wgmma_cluster_impl,
    &wl_gemm_fp16_wgmma_tma_store_impl, &wl_gemm_fp16_wgmma_cluster_impl,
    &wl_gemm_tf32_wgmma_tma_store_impl, &wl_gemm_tf32_wgmma_cluster_impl,
    &wl_gemm_bf16_wgmma_streamk_impl, &wl_gemm_fp16_wgmma_streamk_impl,
    &wl_gemm_tf32_wgmma_streamk_impl, &wl_gemm_cublas_fp32_impl, &wl_gemm_cublas_tf32_impl,
    &wl_gemm_cublas_bf16_impl, &wl_gemm_cublas_tf32_kmajor_impl,
    /* warplab_gemm_ex and its rungs */
    &wl_gemm_ex_cuda_impl, &wl_gemm_batched_cuda_impl, &wl_gemm_ex_tf32_impl, &wl_gemm_ex_bf16_impl,
    &wl_gemm_ex_fp16_impl, &wl_gemm_ex16_mma_impl, &wl_gemm_ex16_tma_impl, &wl_gemm_ex16_wgmma_impl,
    &wl_gemm_ex16_thin_impl, &wl_gemm_ex_tf32_wgmma_impl, &wl_gemm_cublas_ex_tf32_impl,
    &wl_gemm_cublas_ex_bf16_impl, &wl_gemm_cublas_ex_fp16_impl, &wl_gemm_tf32_tile_64x64_impl,
    &wl_gemm_tf32_tile_128x64_impl, &wl_gemm_tf32_tile_128x128_impl, &wl_gemm_tf32_tiles_impl,
    NULL};
