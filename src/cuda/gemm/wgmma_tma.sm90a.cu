/* Tensor cores fed by the copy engine (sm_90a only): the bf16_wgmma_tma and
 * tf32_wgmma_tma rungs.
 *
 * Over bf16_wgmma (threads copy tiles with cp.async, every warp both loads
 * and multiplies, one barrier a tile for all), three changes, the shape of
 * Hopper's fast GEMMs:
 *   - The copy engine (TMA, cp.async.bulk.tensor) moves each tile: one
 *     thread issues a whole 128 x 128-byte box, the hardware computes the
 *     addresses, zero-fills what lies past the matrix (any m, n, k) and
 *     writes it in the 128-byte swizzle wgmma reads without bank conflicts.
 *   - Warp specialisation: warpgroup 0 is the producer (one thread issues
 *     the copies; its registers are given back with setmaxnreg), warpgroups
 *     1 and 2 are consumers that only multiply, each a 64 x 256 half of a
 *     128 x 256 tile with one m64n256 wgmma per k step. Producer and
 *     consumers meet at mbarriers, one "full" and one "empty" a stage, so
 *     nobody waits at a block-wide barrier.
 *   - A persistent grid: one block an SM walks the tiles (in groups of 8
 *     tile rows, so that neighbours share A and B in L2); the producer
 *     fills the next tile's stages while the consumers store C.
 * The k tile is 128 bytes of a row (64 BF16 or 32 TF32 values), 4 stages
 * of 48 KB. TF32 multiplies FP32 words rounded to TF32 in setup, K-major
 * (wgmma reads TF32 only K-major), like the BF16 copies.
 *
 * Compiled for sm_90a alone (its own CMake target); devices other than
 * compute capability 9.0 are refused before launch. */
/* warplab:rung gemm bf16_wgmma_tma tf32_wgmma_tma */
#include "gemm_launch.h"
#include "tma_encode.cuh"

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdlib.h>
#include <type_traits>

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define WL_SM90A_BODY 1
#include "wgmma_ops.cuh"
#else
#define WL_SM90A_BODY 0
#endif

#define TMA_BM 128
#define TMA_BN 256
#define TMA_ROW_BYTES 128 /* a k tile: one swizzle row */
#define TMA_STAGES 4
#define TMA_CONSUMERS 2
#define TMA_THREADS (128 * (1 + TMA_CONSUMERS))
#define TMA_A_BYTES (TMA_BM * TMA_ROW_BYTES)
#define TMA_B_BYTES (TMA_BN * TMA_ROW_BYTES)
#define TMA_STAGE_BYTES (TMA_A_BYTES + TMA_B_BYTES)
/* Stages, the barriers after them, and slack to align the base to 1024. */
#define TMA_SMEM_BYTES ((size_t)TMA_STAGES * TMA_STAGE_BYTES + 2 * TMA_STAGES * 8 + 1024)
/* Tile rows walked together, for L2 reuse. */
#define TMA_GROUP_ROWS 8

/* The operand types the kernel multiplies: TF32 (FP32 words), BF16, FP16. */
enum { TMA_TF32 = 0, TMA_BF16 = 1, TMA_FP16 = 2 };

struct tma_params {
    void *c; /* float, or the 16-bit input type (warplab_gemm_ex) */
    int m, n, k, ldc;
    float alpha, beta;
    int tiles_m, tiles_n, k_tiles;
};

/* C = alpha * acc + beta * C for one element of a 16-bit C (rounded to
 * nearest even); C is read only when beta != 0. */
template <typename OUT>
__device__ __forceinline__ void store_narrow(OUT *c, float sum, float alpha, float beta)
{
    float value = alpha * sum;
    if (beta != 0.0f) {
        if constexpr (std::is_same<OUT, __nv_bfloat16>::value)
            value += beta * __bfloat162float(*c);
        else
            value += beta * __half2float(*c);
    }
    if constexpr (std::is_same<OUT, __nv_bfloat16>::value)
        *c = __float2bfloat16_rn(value);
    else
        *c = __float2half_rn(value);
}

template <int KIND, typename OUT>
__global__ void __launch_bounds__(TMA_THREADS, 1)
    gemm_wgmma_tma(const __grid_constant__ CUtensorMap map_a,
                   const __grid_constant__ CUtensorMap map_bt, const tma_params p)
{
#if WL_SM90A_BODY
    constexpr int ELEMENT_BYTES = KIND == TMA_TF32 ? 4 : 2;
    extern __shared__ __align__(1024) unsigned char smem_raw[];
    const uint32_t raw = smem_address(smem_raw);
    const uint32_t tiles_base = (raw + 1023) & ~1023u; /* the swizzle wants 1024 */
    const uint32_t full_bar = tiles_base + TMA_STAGES * TMA_STAGE_BYTES;
    const uint32_t empty_bar = full_bar + TMA_STAGES * 8;
    const int tid = threadIdx.x, warpgroup = tid / 128;
    const int tiles = p.tiles_m * p.tiles_n;

    if (tid == 0) {
        for (int s = 0; s < TMA_STAGES; s++) {
            mbarrier_init(full_bar + 8 * s, 1);              /* the producer's arrival */
            mbarrier_init(empty_bar + 8 * s, TMA_CONSUMERS); /* one per consumer */
        }
        mbarrier_init_fence();
        tma_prefetch_descriptor(&map_a);
        tma_prefetch_descriptor(&map_bt);
    }
    __syncthreads();

    if (warpgroup == 0) {
        /* Producer: few registers, one thread issuing copies. */
        asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n" ::: "memory");
        if (tid == 0) {
            int stage = 0;
            uint32_t phase = 0;
            for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
                int tile_m, tile_n;
                gemm_tile_of_block(t, p.tiles_m, p.tiles_n, TMA_GROUP_ROWS, &tile_m, &tile_n);
                for (int kt = 0; kt < p.k_tiles; kt++) {
                    /* Wait until both consumers are done with the stage's
                     * last tile (at the first pass: at once). */
                    mbarrier_wait(empty_bar + 8 * stage, phase ^ 1);
                    const uint32_t a_tile = tiles_base + stage * TMA_STAGE_BYTES;
                    mbarrier_arrive_expect_bytes(full_bar + 8 * stage, TMA_STAGE_BYTES);
                    const int k0 = kt * (TMA_ROW_BYTES / ELEMENT_BYTES);
                    tma_load_2d(a_tile, &map_a, full_bar + 8 * stage, k0, tile_m * TMA_BM);
                    tma_load_2d(a_tile + TMA_A_BYTES, &map_bt, full_bar + 8 * stage, k0,
                                tile_n * TMA_BN);
                    if (++stage == TMA_STAGES) {
                        stage = 0;
                        phase ^= 1;
                    }
                }
            }
        }
    } else {
        /* Consumers: 64 rows x 256 columns of each tile, FP32 sums. */
        asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n" ::: "memory");
        const int consumer = warpgroup - 1, warp = tid % 128 / 32, lane = tid % 32;
        const bool signals = tid % 128 == 0;
        const bool pairs = p.ldc % 2 == 0 && (uintptr_t)p.c % (2 * sizeof(OUT)) == 0;
        int stage = 0;
        uint32_t phase = 0;
        float acc[128];
        for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
            int tile_m, tile_n;
            gemm_tile_of_block(t, p.tiles_m, p.tiles_n, TMA_GROUP_ROWS, &tile_m, &tile_n);
#pragma unroll
            for (int i = 0; i < 128; i++)
                acc[i] = 0.0f;
            int previous = -1;
            for (int kt = 0; kt < p.k_tiles; kt++) {
                mbarrier_wait(full_bar + 8 * stage, phase);
                const uint32_t a_tile = tiles_base + stage * TMA_STAGE_BYTES + consumer * 64 * 128;
                const uint32_t b_tile = tiles_base + stage * TMA_STAGE_BYTES + TMA_A_BYTES;
                wgmma_pin(acc);
                wgmma_fence();
                /* 4 k steps of 32 bytes along the 128-byte rows. */
#pragma unroll
                for (int s = 0; s < 4; s++) {
                    const uint64_t desc_a = wgmma_descriptor_sw128(a_tile + 32 * s);
                    const uint64_t desc_b = wgmma_descriptor_sw128(b_tile + 32 * s);
                    if (KIND == TMA_BF16)
                        wgmma_m64n256k16_bf16(acc, desc_a, desc_b, 1);
                    else if (KIND == TMA_FP16)
                        wgmma_m64n256k16_f16(acc, desc_a, desc_b, 1);
                    else
                        wgmma_m64n256k8_tf32(acc, desc_a, desc_b, 1);
                }
                wgmma_commit();
                /* The previous k tile's group is done: its stage is free.
                 * This one stays in flight while the next stage is awaited. */
                wgmma_wait<1>();
                wgmma_pin(acc);
                if (previous >= 0 && signals)
                    mbarrier_arrive(empty_bar + 8 * previous);
                previous = stage;
                if (++stage == TMA_STAGES) {
                    stage = 0;
                    phase ^= 1;
                }
            }
            wgmma_wait<0>();
            wgmma_pin(acc);
            if (previous >= 0 && signals)
                mbarrier_arrive(empty_bar + 8 * previous);

            /* C = alpha * acc + beta * C, straight from the registers: each
             * warp stores 8 rows x 32 bytes per instruction (whole sectors). */
            const int g = lane / 4, q = lane % 4;
            const int row_base = tile_m * TMA_BM + consumer * 64 + warp * 16 + g;
            const int col_base = tile_n * TMA_BN + 2 * q;
#pragma unroll
            for (int i = 0; i < 128; i += 2) {
                const int row = row_base + 8 * ((i / 2) % 2), col = col_base + 8 * (i / 4);
                if (row >= p.m || col >= p.n)
                    continue;
                if constexpr (sizeof(OUT) == 2) {
                    OUT *c = (OUT *)p.c + (size_t)row * p.ldc + col;
                    store_narrow(c, acc[i], p.alpha, p.beta);
                    if (col + 1 < p.n)
                        store_narrow(c + 1, acc[i + 1], p.alpha, p.beta);
                    continue;
                }
                float *c = (float *)p.c + (size_t)row * p.ldc + col;
                if (pairs && col + 1 < p.n) {
                    float2 out = make_float2(p.alpha * acc[i], p.alpha * acc[i + 1]);
                    if (p.beta != 0.0f) {
                        const float2 old = *(const float2 *)c;
                        out.x += p.beta * old.x;
                        out.y += p.beta * old.y;
                    }
                    *(float2 *)c = out;
                } else {
                    c[0] = gemm_epilogue(acc[i], c, p.alpha, p.beta);
                    if (col + 1 < p.n)
                        c[1] = gemm_epilogue(acc[i + 1], c + 1, p.alpha, p.beta);
                }
            }
        }
    }
#endif
}

/* A rows x k K-major operand (rows of ld elements) as boxes of box_rows
 * rows x 128 bytes, 128-byte swizzle, zeros outside. */
static warplab_status encode_operand(wl_backend *backend, encode_tiled_fn encode, CUtensorMap *map,
                                     const void *base, int kind, int rows, int k, int ld,
                                     int box_rows)
{
    const warplab_dtype type = kind == TMA_BF16   ? WARPLAB_BFLOAT16
                               : kind == TMA_FP16 ? WARPLAB_FLOAT16
                                                  : WARPLAB_FLOAT32;
    return tma_encode_2d(backend, encode, map, base, type, rows, k, ld,
                         TMA_ROW_BYTES / (kind == TMA_TF32 ? 4 : 2), box_rows);
}

typedef struct tma_state {
    wl_gemm_kmajor operands;
    CUtensorMap map_a, map_bt;
} tma_state;

static warplab_status tma_supports(wl_backend *backend, const wl_problem *problem, char *reason,
                                   size_t len)
{
    (void)problem;
    return wl_gemm_needs_sm90a(backend, TMA_SMEM_BYTES, "TMA + wgmma", reason, len);
}

template <int KIND>
static warplab_status tma_setup(wl_backend *backend, const wl_launch *launch, void **state)
{
    tma_state *s = (tma_state *)calloc(1, sizeof *s);
    if (!s)
        return wl_fail(backend, WARPLAB_ERROR_HOST_OUT_OF_MEMORY, "TMA gemm state");
    *state = s;
    warplab_status status = wl_gemm_kmajor_make(
        backend, launch, KIND == TMA_BF16 ? WL_GEMM_OPERANDS_BF16 : WL_GEMM_OPERANDS_TF32,
        &s->operands);
    if (status != WARPLAB_OK)
        return status;
    const gemm_params g = wl_gemm_params(launch);
    if (g.m == 0 || g.n == 0)
        return WARPLAB_OK; /* nothing to launch, no maps */
    encode_tiled_fn encode = NULL;
    status = find_encoder(backend, &encode);
    if (status == WARPLAB_OK)
        status = encode_operand(backend, encode, &s->map_a, s->operands.a, KIND, g.m, g.k,
                                s->operands.lda, TMA_BM);
    if (status == WARPLAB_OK)
        status = encode_operand(backend, encode, &s->map_bt, s->operands.bt, KIND, g.n, g.k,
                                s->operands.ldbt, TMA_BN);
    if (status == WARPLAB_OK)
        status = wl_cuda_check(backend,
                               cudaFuncSetAttribute(gemm_wgmma_tma<KIND, float>,
                                                    cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                    (int)TMA_SMEM_BYTES),
                               "raising the shared-memory limit of the TMA wgmma kernel");
    return status;
}

static void tma_teardown(wl_backend *backend, void *state)
{
    (void)backend;
    if (!state)
        return;
    wl_gemm_kmajor_free(&((tma_state *)state)->operands);
    free(state);
}

/* The persistent grid over a problem's tiles: one block an SM at most. */
static tma_params tma_make_params(void *c, int m, int n, int k, int ldc, float alpha, float beta,
                                  int element_bytes)
{
    tma_params p;
    p.c = c;
    p.m = m;
    p.n = n;
    p.k = k;
    p.ldc = ldc;
    p.alpha = alpha;
    p.beta = beta;
    p.tiles_m = (m + TMA_BM - 1) / TMA_BM;
    p.tiles_n = (n + TMA_BN - 1) / TMA_BN;
    const int k_per_tile = TMA_ROW_BYTES / element_bytes;
    p.k_tiles = (k + k_per_tile - 1) / k_per_tile;
    return p;
}

static unsigned tma_blocks(const wl_backend *backend, const tma_params &p)
{
    const long long tiles = (long long)p.tiles_m * p.tiles_n;
    const int sms = backend->info.multiprocessors > 0 ? backend->info.multiprocessors : 1;
    return (unsigned)(tiles < sms ? tiles : sms);
}

template <int KIND>
static warplab_status tma_launch(wl_backend *backend, const wl_launch *launch, void *state)
{
    const tma_state *s = (const tma_state *)state;
    const gemm_params g = wl_gemm_params(launch);
    if (g.m == 0 || g.n == 0)
        return WARPLAB_OK;
    const tma_params p =
        tma_make_params(g.c, g.m, g.n, g.k, g.ldc, g.alpha, g.beta, KIND == TMA_TF32 ? 4 : 2);
    gemm_wgmma_tma<KIND, float>
        <<<tma_blocks(backend, p), TMA_THREADS, TMA_SMEM_BYTES, wl_cuda_stream(backend)>>>(
            s->map_a, s->map_bt, p);
    return WL_CUDA_LAUNCHED(backend,
                            KIND == TMA_BF16 ? "gemm bf16_wgmma_tma" : "gemm tf32_wgmma_tma");
}

extern "C" const wl_impl wl_gemm_bf16_wgmma_tma_impl = {.ladder = "gemm",
                                                        .rung = "bf16_wgmma_tma",
                                                        .supports = tma_supports,
                                                        .setup = tma_setup<TMA_BF16>,
                                                        .launch = tma_launch<TMA_BF16>,
                                                        .teardown = tma_teardown};
extern "C" const wl_impl wl_gemm_tf32_wgmma_tma_impl = {.ladder = "gemm",
                                                        .rung = "tf32_wgmma_tma",
                                                        .supports = tma_supports,
                                                        .setup = tma_setup<TMA_TF32>,
                                                        .launch = tma_launch<TMA_TF32>,
                                                        .teardown = tma_teardown};

/* ------------------------------------------------------------------------ */
/* warplab_gemm_ex's tensor-core path                                       */

extern "C" bool wl_gemm_ex_tma_available(wl_backend *backend)
{
    char reason[8];
    return wl_gemm_needs_sm90a(backend, TMA_SMEM_BYTES, "TMA + wgmma", reason, sizeof reason) ==
           WARPLAB_OK;
}

/* Raises the kernel's shared-memory limit (a host-side attribute, once per
 * instantiation and process), maps the K-major operands and launches. */
template <int KIND, typename OUT>
static warplab_status tma_run(wl_backend *backend, const wl_gemm_ex_operands *o)
{
    static bool raised = false;
    if (!raised) {
        warplab_status status = wl_cuda_check(
            backend,
            cudaFuncSetAttribute(gemm_wgmma_tma<KIND, OUT>,
                                 cudaFuncAttributeMaxDynamicSharedMemorySize, (int)TMA_SMEM_BYTES),
            "raising the shared-memory limit of the TMA wgmma kernel");
        if (status != WARPLAB_OK)
            return status;
        raised = true;
    }
    static encode_tiled_fn encode = NULL;
    if (!encode) {
        warplab_status status = find_encoder(backend, &encode);
        if (status != WARPLAB_OK)
            return status;
    }
    CUtensorMap map_a, map_bt;
    warplab_status status =
        encode_operand(backend, encode, &map_a, o->a, KIND, o->m, o->k, o->lda, TMA_BM);
    if (status == WARPLAB_OK)
        status = encode_operand(backend, encode, &map_bt, o->bt, KIND, o->n, o->k, o->ldbt, TMA_BN);
    if (status != WARPLAB_OK)
        return status;
    const tma_params p = tma_make_params(o->c, o->m, o->n, o->k, o->ldc, o->alpha, o->beta,
                                         KIND == TMA_TF32 ? 4 : 2);
    gemm_wgmma_tma<KIND, OUT>
        <<<tma_blocks(backend, p), TMA_THREADS, TMA_SMEM_BYTES, wl_cuda_stream(backend)>>>(
            map_a, map_bt, p);
    return WL_CUDA_LAUNCHED(backend, "gemm_ex TMA + wgmma kernel");
}

extern "C" warplab_status wl_gemm_ex_tma_run(wl_backend *backend, const wl_gemm_ex_operands *o)
{
    switch (o->type) {
    case WARPLAB_BFLOAT16:
        return o->c_narrow ? tma_run<TMA_BF16, __nv_bfloat16>(backend, o)
                           : tma_run<TMA_BF16, float>(backend, o);
    case WARPLAB_FLOAT16:
        return o->c_narrow ? tma_run<TMA_FP16, __half>(backend, o)
                           : tma_run<TMA_FP16, float>(backend, o);
    default: return tma_run<TMA_TF32, float>(backend, o);
    }
}
/* warplab:end */
