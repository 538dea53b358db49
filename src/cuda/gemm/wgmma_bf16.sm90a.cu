/* Tensor cores through wgmma (sm_90a only): the bf16_wgmma rung.
 *
 * Hopper's warpgroup MMA: 4 warps (a warpgroup) issue one asynchronous
 * wgmma.mma_async that reads both operands from shared memory through
 * 64-bit descriptors and accumulates in registers. Two warpgroups a block,
 * each 64 rows x 256 columns of a 128 x 256 tile of C (two m64n128k16 per
 * 16 k), FP32 sums, on the K-major BF16 copies of A and B^T made in setup.
 *
 * Tiles reach shared memory by cp.async (16 bytes, zero-filled outside the
 * matrices) through a 4-stage ring, k tiles of 64, in the canonical K-major
 * layout without swizzle: 8 x 8 "core matrices" of 128 contiguous bytes (8
 * rows of 16 bytes), the 8 core matrices along k of a row group next to each
 * other (LBO = 128 bytes), row groups 1024 bytes apart (SBO). A warp's 32
 * copies land in 512 contiguous bytes (no bank conflicts), and each thread
 * fences the async proxy before the barrier that hands the tile to wgmma.
 * One barrier a tile; wgmma groups are waited for before the barrier after
 * which their stage is refilled.
 *
 * The next rung, bf16_wgmma_tma (wgmma_tma.sm90a.cu), adds what this one
 * lacks: TMA with the 128-byte swizzle, producer/consumer warpgroups and a
 * persistent grid. Compiled for sm_90a alone (its own CMake target); devices
 * other than compute capability 9.0 are refused before launch. */
/* warplab:rung gemm bf16_wgmma */
#include "gemm_launch.h"

#include <stdlib.h>

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define WL_SM90A_BODY 1
#else
#define WL_SM90A_BODY 0
#endif

#define WG_BM 128
#define WG_BN 256
#define WG_BK 64
#define WG_STAGES 4
#define WG_THREADS 256
/* Bytes of one stage's A and B^T tiles (BF16). */
#define WG_A_STAGE (WG_BM * WG_BK * 2)
#define WG_B_STAGE (WG_BN * WG_BK * 2)
#define WG_SMEM_BYTES ((size_t)WG_STAGES * (WG_A_STAGE + WG_B_STAGE))
/* Core-matrix strides of the no-swizzle K-major layout. */
#define WG_CORE_BYTES 128
#define WG_GROUP_BYTES (WG_BK / 8 * WG_CORE_BYTES)

struct wgmma_params {
    const uint16_t *a;  /* BF16 A, m x k, row stride lda */
    const uint16_t *bt; /* BF16 B^T, n x k, row stride ldbt */
    float *c;
    int m, n, k, lda, ldbt, ldc;
    float alpha, beta;
};

#if WL_SM90A_BODY
/* Descriptor of a K-major, no-swizzle operand starting at smem. */
__device__ __forceinline__ uint64_t wgmma_descriptor(const void *smem)
{
    const uint32_t address = (uint32_t)__cvta_generic_to_shared(smem);
    uint64_t desc = (uint64_t)((address & 0x3FFFF) >> 4);
    desc |= (uint64_t)((WG_CORE_BYTES & 0x3FFFF) >> 4) << 16;  /* leading: next 8 k */
    desc |= (uint64_t)((WG_GROUP_BYTES & 0x3FFFF) >> 4) << 32; /* stride: next 8 rows */
    return desc; /* base offset 0, swizzle mode 0 (none) */
}

/* D(64 x 128) += A(64 x 16) * B(16 x 128), both K-major in shared memory. */
__device__ __forceinline__ void wgmma_m64n128k16(float d[64], uint64_t desc_a, uint64_t desc_b)
{
    asm volatile(
        "{\n"
        ".reg .pred p;\n"
        "setp.ne.b32 p, %66, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, "
        "%19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, "
        "%37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, "
        "%55, %56, %57, %58, %59, %60, %61, %62, %63}, %64, %65, p, 1, 1, 0, 0;\n"
        "}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
          "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
          "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
          "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
          "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]),
          "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
          "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
          "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]),
          "+f"(d[63])
        : "l"(desc_a), "l"(desc_b), "r"(1));
}

/* Keeps the compiler from moving accumulator accesses across the
 * asynchronous wgmma region. */
__device__ __forceinline__ void pin(float d[64])
{
#pragma unroll
    for (int i = 0; i < 64; i++)
        asm volatile("" : "+f"(d[i])::"memory");
}

__device__ __forceinline__ void cp_async_16_bytes(void *dst, const void *src, bool valid)
{
    const unsigned address = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(address), "l"(src),
                 "r"(valid ? 16 : 0));
}
#endif

__global__ void __launch_bounds__(WG_THREADS, 1) gemm_wgmma_bf16(wgmma_params p)
{
#if WL_SM90A_BODY
    extern __shared__ __align__(128) unsigned char smem[];
    const int tid = threadIdx.x, warpgroup = tid / 128, warp = (tid % 128) / 32, lane = tid % 32;
    const int row0 = blockIdx.y * WG_BM, col0 = blockIdx.x * WG_BN;
    const int tiles = (p.k + WG_BK - 1) / WG_BK;

    /* Chunk c (16 bytes: 8 k of one row) of a tile: row (c / 64) * 8 + c % 8,
     * k group (c / 8) % 8; placed at its core matrix. */
    auto load_rows = [&](unsigned char *tile, const uint16_t *x, int ld, int rows, int first_row,
                         int chunks, int k0) {
#pragma unroll
        for (int l = 0; l < chunks / WG_THREADS; l++) {
            const int c = tid + l * WG_THREADS;
            const int r8 = c % 8, kg = (c / 8) % 8, rg = c / 64;
            const int row = first_row + rg * 8 + r8, col = k0 + kg * 8;
            const bool ok = row < rows && col < p.k;
            const uint16_t *src = ok ? x + (size_t)row * ld + col : x;
            cp_async_16_bytes(tile + (rg * 8 + kg) * WG_CORE_BYTES + r8 * 16, src, ok);
        }
    };
    auto load_tile = [&](int t, int stage) {
        unsigned char *a_tile = smem + stage * (WG_A_STAGE + WG_B_STAGE);
        load_rows(a_tile, p.a, p.lda, p.m, row0, WG_BM * WG_BK / 8, t * WG_BK);
        load_rows(a_tile + WG_A_STAGE, p.bt, p.ldbt, p.n, col0, WG_BN * WG_BK / 8, t * WG_BK);
    };

    float acc[2][64];
#pragma unroll
    for (int h = 0; h < 2; h++)
#pragma unroll
        for (int i = 0; i < 64; i++)
            acc[h][i] = 0.0f;

            /* The ring runs WG_STAGES - 2 tiles ahead: the stage refilled at tile t
             * held tile t-2, whose wgmma group every warpgroup has waited for (one
             * group stays in flight, so the tensor cores do not drain between
             * tiles). */
#pragma unroll
    for (int s = 0; s < WG_STAGES - 2; s++) {
        if (s < tiles)
            load_tile(s, s);
        asm volatile("cp.async.commit_group;\n" ::);
    }
    int stage = 0;
    for (int t = 0; t < tiles; t++) {
        asm volatile("cp.async.wait_group %0;\n" ::"n"(WG_STAGES - 3)); /* tile t landed */
        asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
        __syncthreads(); /* all of tile t landed; every group <= t-2 is done */
        const int next = t + WG_STAGES - 2;
        if (next < tiles)
            load_tile(next, next % WG_STAGES);
        asm volatile("cp.async.commit_group;\n" ::);

        const unsigned char *a_tile =
            smem + stage * (WG_A_STAGE + WG_B_STAGE) + warpgroup * 8 * WG_GROUP_BYTES;
        const unsigned char *b_tile = smem + stage * (WG_A_STAGE + WG_B_STAGE) + WG_A_STAGE;
        pin(acc[0]);
        pin(acc[1]);
        asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
        for (int s = 0; s < WG_BK / 16; s++) {
            const uint64_t desc_a = wgmma_descriptor(a_tile + s * 2 * WG_CORE_BYTES);
#pragma unroll
            for (int h = 0; h < 2; h++)
                wgmma_m64n128k16(
                    acc[h], desc_a,
                    wgmma_descriptor(b_tile + h * 16 * WG_GROUP_BYTES + s * 2 * WG_CORE_BYTES));
        }
        asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
        asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory"); /* group t-1 done */
        pin(acc[0]);
        pin(acc[1]);
        stage = stage + 1 == WG_STAGES ? 0 : stage + 1;
    }
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
    pin(acc[0]);
    pin(acc[1]);
    asm volatile("cp.async.wait_group 0;\n" ::);

    /* The accumulator layout of m64nNk16 (per warp 16 rows, as mma.sync's
     * m16n8 C fragment repeated every 8 columns). */
    const int g = lane / 4, q = lane % 4;
#pragma unroll
    for (int h = 0; h < 2; h++)
#pragma unroll
        for (int i = 0; i < 64; i++) {
            const int row = row0 + warpgroup * 64 + warp * 16 + g + 8 * ((i / 2) % 2);
            const int col = col0 + h * 128 + 8 * (i / 4) + 2 * q + i % 2;
            if (row < p.m && col < p.n) {
                float *c = p.c + (size_t)row * p.ldc + col;
                *c = gemm_epilogue(acc[h][i], c, p.alpha, p.beta);
            }
        }
#endif
}

static warplab_status wgmma_supports(wl_backend *backend, const wl_problem *problem, char *reason,
                                     size_t len)
{
    (void)problem;
    return wl_gemm_needs_sm90a(backend, WG_SMEM_BYTES, "wgmma", reason, len);
}

static warplab_status wgmma_setup(wl_backend *backend, const wl_launch *launch, void **state)
{
    wl_gemm_kmajor *operands = (wl_gemm_kmajor *)calloc(1, sizeof *operands);
    if (!operands)
        return wl_fail(backend, WARPLAB_ERROR_HOST_OUT_OF_MEMORY, "BF16 operands");
    *state = operands;
    warplab_status status = wl_gemm_kmajor_make(backend, launch, WL_GEMM_OPERANDS_BF16, operands);
    if (status != WARPLAB_OK)
        return status;
    return wl_cuda_check(backend,
                         cudaFuncSetAttribute(gemm_wgmma_bf16,
                                              cudaFuncAttributeMaxDynamicSharedMemorySize,
                                              (int)WG_SMEM_BYTES),
                         "raising the shared-memory limit of the wgmma kernel");
}

static void wgmma_teardown(wl_backend *backend, void *state)
{
    (void)backend;
    if (!state)
        return;
    wl_gemm_kmajor_free((wl_gemm_kmajor *)state);
    free(state);
}

static warplab_status wgmma_launch(wl_backend *backend, const wl_launch *launch, void *state)
{
    const wl_gemm_kmajor *operands = (const wl_gemm_kmajor *)state;
    const gemm_params g = wl_gemm_params(launch);
    if (g.m == 0 || g.n == 0)
        return WARPLAB_OK;
    const wgmma_params p = {(const uint16_t *)operands->a,
                            (const uint16_t *)operands->bt,
                            g.c,
                            g.m,
                            g.n,
                            g.k,
                            operands->lda,
                            operands->ldbt,
                            g.ldc,
                            g.alpha,
                            g.beta};
    const dim3 grid((unsigned)((g.n + WG_BN - 1) / WG_BN), (unsigned)((g.m + WG_BM - 1) / WG_BM));
    if (backend->info.max_grid_dim[1] > 0 && (int)grid.y > backend->info.max_grid_dim[1])
        return wl_fail(backend, WARPLAB_ERROR_UNSUPPORTED,
                       "gemm bf16_wgmma: %u block rows is past this device's grid limit of %d",
                       grid.y, backend->info.max_grid_dim[1]);
    gemm_wgmma_bf16<<<grid, WG_THREADS, WG_SMEM_BYTES, wl_cuda_stream(backend)>>>(p);
    return WL_CUDA_LAUNCHED(backend, "gemm bf16_wgmma");
}

extern "C" const wl_impl wl_gemm_bf16_wgmma_impl = {.ladder = "gemm",
                                                    .rung = "bf16_wgmma",
                                                    .supports = wgmma_supports,
                                                    .setup = wgmma_setup,
                                                    .launch = wgmma_launch,
                                                    .teardown = wgmma_teardown};
/* warplab:end */
