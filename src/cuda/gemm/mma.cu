/* The mma.sync tensor-core rungs (kernel in mma_kernel.cuh): tf32_mma on
 * the float inputs, bf16_mma and fp16_mma on the BF16 or FP16 copies of A
 * and B made in setup. */
/* warplab:rung gemm tf32_mma bf16_mma fp16_mma */
#include "gemm_launch.h"
#include "mma_kernel.cuh"

#include <stdlib.h>

static warplab_status mma_supports(wl_backend *backend, const wl_problem *problem, char *reason,
                                   size_t len, size_t smem_bytes)
{
    (void)problem;
    warplab_status status =
        wl_gemm_needs_sm80(backend, reason, len, "mma.sync with TF32/BF16/FP16");
    if (status != WARPLAB_OK)
        return status;
    const size_t most = backend->info.shared_memory_per_block_optin;
    if (most > 0 && smem_bytes > most) {
        wl_format(reason, len, "needs %zu bytes of shared memory a block; %s has %zu", smem_bytes,
                  backend->info.name, most);
        return WARPLAB_ERROR_UNSUPPORTED;
    }
    return WARPLAB_OK;
}

static warplab_status tf32_supports(wl_backend *backend, const wl_problem *problem, char *reason,
                                    size_t len)
{
    return mma_supports(backend, problem, reason, len, mma_tiles<false>::SMEM_BYTES);
}

/* BF16 and FP16 alike: the same 16-bit tiles. */
static warplab_status sixteen_bit_supports(wl_backend *backend, const wl_problem *problem,
                                           char *reason, size_t len)
{
    return mma_supports(backend, problem, reason, len, mma_tiles<true>::SMEM_BYTES);
}

template <int KIND, bool VEC>
static cudaError_t run_mma(const mma_params &p, dim3 grid, cudaStream_t stream)
{
    const size_t smem = mma_tiles<KIND != MMA_TF32>::SMEM_BYTES;
    cudaError_t e = cudaSuccess;
    if (smem > 48 * 1024)
        e = cudaFuncSetAttribute(gemm_mma<KIND, VEC>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 (int)smem);
    if (e != cudaSuccess)
        return e;
    gemm_mma<KIND, VEC><<<grid, MMA_THREADS, smem, stream>>>(p);
    return cudaGetLastError();
}

static dim3 mma_grid(const mma_params &p)
{
    return dim3((unsigned)((p.n + MMA_BN - 1) / MMA_BN), (unsigned)((p.m + MMA_BM - 1) / MMA_BM));
}

static warplab_status check_mma_grid(wl_backend *backend, dim3 grid)
{
    if ((int)grid.y > backend->info.max_grid_dim[1] && backend->info.max_grid_dim[1] > 0)
        return wl_fail(backend, WARPLAB_ERROR_UNSUPPORTED,
                       "gemm mma: %u block rows is past this device's grid limit of %d", grid.y,
                       backend->info.max_grid_dim[1]);
    return WARPLAB_OK;
}

static warplab_status launch_tf32(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    const gemm_params g = wl_gemm_params(launch);
    if (g.m == 0 || g.n == 0)
        return WARPLAB_OK;
    const mma_params p = {g.a, g.b, g.c, g.m, g.n, g.k, g.lda, g.ldb, g.ldc, g.alpha, g.beta};
    const dim3 grid = mma_grid(p);
    warplab_status status = check_mma_grid(backend, grid);
    if (status != WARPLAB_OK)
        return status;
    const bool vec = wl_gemm_rows_aligned(g.a, g.lda) && wl_gemm_rows_aligned(g.b, g.ldb);
    cudaStream_t stream = wl_cuda_stream(backend);
    return wl_cuda_check(backend,
                         vec ? run_mma<MMA_TF32, true>(p, grid, stream)
                             : run_mma<MMA_TF32, false>(p, grid, stream),
                         "gemm tf32_mma launch");
}

/* The K-major 16-bit copies of A and B (BF16 or FP16), made untimed. */
template <int KIND>
static warplab_status sixteen_bit_setup(wl_backend *backend, const wl_launch *launch, void **state)
{
    wl_gemm_kmajor *operands = (wl_gemm_kmajor *)calloc(1, sizeof *operands);
    if (!operands)
        return wl_fail(backend, WARPLAB_ERROR_HOST_OUT_OF_MEMORY, "16-bit operands");
    *state = operands;
    return wl_gemm_kmajor_make(backend, launch,
                               KIND == MMA_FP16 ? WL_GEMM_OPERANDS_FP16 : WL_GEMM_OPERANDS_BF16,
                               operands);
}

static void sixteen_bit_teardown(wl_backend *backend, void *state)
{
    (void)backend;
    if (!state)
        return;
    wl_gemm_kmajor_free((wl_gemm_kmajor *)state);
    free(state);
}

template <int KIND>
static warplab_status launch_sixteen_bit(wl_backend *backend, const wl_launch *launch, void *state)
{
    const wl_gemm_kmajor *operands = (const wl_gemm_kmajor *)state;
    const gemm_params g = wl_gemm_params(launch);
    if (g.m == 0 || g.n == 0)
        return WARPLAB_OK;
    const mma_params p = {operands->a,   operands->bt,   g.c,   g.m,     g.n,   g.k,
                          operands->lda, operands->ldbt, g.ldc, g.alpha, g.beta};
    const dim3 grid = mma_grid(p);
    warplab_status status = check_mma_grid(backend, grid);
    if (status != WARPLAB_OK)
        return status;
    return wl_cuda_check(backend, run_mma<KIND, true>(p, grid, wl_cuda_stream(backend)),
                         KIND == MMA_FP16 ? "gemm fp16_mma launch" : "gemm bf16_mma launch");
}

extern "C" const wl_impl wl_gemm_tf32_mma_impl = {
    .ladder = "gemm", .rung = "tf32_mma", .supports = tf32_supports, .launch = launch_tf32};
extern "C" const wl_impl wl_gemm_bf16_mma_impl = {.ladder = "gemm",
                                                  .rung = "bf16_mma",
                                                  .supports = sixteen_bit_supports,
                                                  .setup = sixteen_bit_setup<MMA_BF16>,
                                                  .launch = launch_sixteen_bit<MMA_BF16>,
                                                  .teardown = sixteen_bit_teardown};
extern "C" const wl_impl wl_gemm_fp16_mma_impl = {.ladder = "gemm",
                                                  .rung = "fp16_mma",
                                                  .supports = sixteen_bit_supports,
                                                  .setup = sixteen_bit_setup<MMA_FP16>,
                                                  .launch = launch_sixteen_bit<MMA_FP16>,
                                                  .teardown = sixteen_bit_teardown};
/* warplab:end */
