/* warplab_gemm_ex's TMA + wgmma kernel on the operands as stored, with a
 * split of k (sm_90a only): the ex16_wgmma rung.
 *
 * Over gemm_wgmma_tma (wgmma_tma.sm90a.cu, which wants both operands
 * K-major, so that a row-major B (op N) or a transposed A (op T) were
 * copied K-major into the workspace in the call), three changes:
 *   - 16-bit operands are read in their stored layout. wgmma takes an
 *     M-major A and an N-major B from shared memory (the instruction's
 *     transpose immediates): the copy engine writes boxes of 64 m (or n)
 *     x 64 k in the 128-byte swizzle, one 128-byte row per k, 8 rows an
 *     atom of 1024 bytes (the descriptor's stride offset: the next 8 k),
 *     boxes 8 KiB apart along m or n (its leading offset). No copy, no
 *     extra pass over B. TF32 has no transposed form: its operands must be
 *     K-major (the caller copies the others).
 *   - Tiles of 128 x 128 as well as 128 x 256 (6 stages instead of 4 in
 *     the same shared memory), so that mid-size problems have more tiles.
 *   - A narrow tile for m <= 64 (16-bit): 64 x 64, one consumer warpgroup,
 *     12 stages of 16 KiB. cuBLAS streams B for such m in one kernel of
 *     64 to 128 narrow blocks over the whole k; 128 x 128 tiles give only
 *     32 blocks at n = 4096, so k had to be split and the sums added in a
 *     second kernel (4-6 us of a 22 us GEMM). 64 columns give 64 blocks
 *     at n = 4096 with no split, and with m <= 64 the second consumer of
 *     a 128-row tile had nothing to do anyway.
 *   - A tall tile of 192 x 128 (16-bit, BM a template parameter beside
 *     BN): three consumer warpgroups of 64 rows, 512 threads (the
 *     consumers at 152 registers, so that the producer's 40 and theirs fit
 *     in 64K), 4 stages of 40 KiB so that three consumers' 48 KiB of C's
 *     staging fit in the 227 KiB. Where m lies just past a multiple of 128,
 *     128-row tiles pay for up to 127 rows of zeros and land on a partial
 *     last wave; 192-row ones pay for fewer and make whole waves (539 x
 *     11008 x 4096: 258 tiles, two waves, against 215 of 128 x 256). Each
 *     byte of B also feeds 192 rows instead of 128. H200, the 8 16-bit
 *     cells' geomean: 539 x 11008 x 4096 92.4 -> 72.4 us (0.73x -> 0.93x
 *     cuBLAS), 535 x 5120 x 5120 55.5 -> 45.3 us (0.78x -> 0.94x). Over
 *     many full waves it runs 14-22% slower than the 128-row tiles (fewer
 *     stages), which the cost model's rate keeps it off (docs/DECISIONS.md,
 *     "The 192x128 16-bit tile"). No stream-K shares (their hand-over
 *     slots are 128-row), no TF32, no batches: refused.
 *   - A deterministic split of k: the persistent grid walks (split, tile)
 *     units; with more than one split each unit writes its FP32 partial
 *     sums to the workspace and a second kernel adds the splits in order
 *     (ex16_gemm.cu). Problems with few tiles and a long k (m of 256-512,
 *     k of 4096-14336, or 64 x 64 x 65536) fill the SMs.
 * Producer warpgroup (one thread issues the copies), two consumer
 * warpgroups (64 rows each; one for the narrow tile, three for the tall
 * one), full / empty mbarriers a stage, as the ladder's kernel. Where the
 * result is FP32 with 16-byte rows and C is not read (beta 0, or the
 * partial sums of a split), the epilogue goes through
 * shared memory: each consumer writes 32-column slices of its 64 rows into
 * two 8 KiB buffers in the 128-byte swizzle and one thread hands each to
 * the copy engine (cp.async.bulk.tensor store: whole 128-byte lines, the
 * matrix's edges clipped by the hardware), then goes on to the next unit's
 * main loop while the stores drain; a buffer is rewritten only once the
 * store that read it is done reading. On the H100 this took BF16 4096^3
 * from 201 to 183 us and 4096 x 4096 x 64 from 43 to 26 us: the stores of
 * registers straight to global memory (8 rows x 32 bytes an instruction)
 * were the unit's fixed cost. Compiled for sm_90a alone; other devices are
 * refused before. */
#include "gemm_launch.h"
#include "tma_encode.cuh"

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <limits.h>
#include <string.h>

/* warplab:rung gemm ex16_wgmma ex_tf32_wgmma */
#include <type_traits>

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define WL_SM90A_BODY 1
#include "wgmma_ops.cuh"
#else
#define WL_SM90A_BODY 0
#endif
#include "stream_k.cuh"

#define XW_BM 128
#define XW_ROW_BYTES 128 /* a k tile: one swizzle row (64 16-bit or 32 TF32 values) */
#define XW_BOX_BYTES (64 * XW_ROW_BYTES) /* an MN-major box: 64 k rows of 64 m or n */
#define XW_THREADS 384
/* The narrow tile (BN 64, 16-bit only): 64 rows, one consumer warpgroup. */
#define XW_NARROW 64
#define XW_BM_OF(BN) ((BN) == XW_NARROW ? 64 : XW_BM)
/* The tall tile (16-bit, BN 128, one split of k whole tiles): 192 rows,
 * three consumer warpgroups. */
#define XW_TALL 192
/* The producer warpgroup and a warpgroup for each 64 rows. */
#define XW_THREADS_OF(BM) (128 + 2 * (BM))
/* Stages (192 KiB; 160 KiB for the tall tile), the barriers (in a 1 KiB
 * slot), C's staging buffers (two of 8 KiB a consumer; 32 KiB for the
 * 64- and 128-row tiles) and slack to align the base to 1024: at most the
 * 227 KiB a block may opt in to. */
#define XW_RING_BYTES 196608
#define XW_STAGING_BYTES 32768
#define XW_CONSUMER_STAGING 16384
#define XW_SMEM_BYTES ((size_t)XW_RING_BYTES + 1024 + XW_STAGING_BYTES + 1024)
#define XW_SMEM_BYTES_OF(BM)                                                                       \
    ((BM) == XW_TALL                                                                               \
         ? (size_t)4 * (XW_TALL + 128) * XW_ROW_BYTES + 1024 + 3 * XW_CONSUMER_STAGING + 1024      \
         : XW_SMEM_BYTES)
#define XW_GROUP_ROWS 8

enum { XW_TF32 = 0, XW_BF16 = 1, XW_FP16 = 2 };

/* A 16-bit kind's element type. */
template <int KIND>
using xw_half = typename std::conditional<KIND == XW_BF16, __nv_bfloat16, __half>::type;

/* The swapped product's own width (C^T = op(B)^T op(A)^T, the small side
 * along n): 128 rows of n by 96 of m. */
#define XW_SWAP_BN 96
#define XW_SWAP_WIDTH(BN) ((BN) == XW_SWAP_BN)

template <int BM_, int BN> struct xw_shape {
    static_assert(BM_ == XW_BM_OF(BN) || (BM_ == XW_TALL && BN == 128) ||
                      (BM_ == XW_BM && XW_SWAP_WIDTH(BN)),
                  "tiles: 64 x 64, 128 x 128, 128 x 256, 192 x 128 or 128 x 96");
    static constexpr int BM = BM_;
    static constexpr int CONSUMERS = BM / 64;
    static constexpr int A_BYTES = BM * XW_ROW_BYTES;
    static constexpr int B_BYTES = BN * XW_ROW_BYTES;
    static constexpr int STAGE_BYTES = A_BYTES + B_BYTES;
    /* 4 (BN 256), 6 (BN 128), 12 (the narrow 64 x 64) or 4 (192 x 128: 40
     * KiB stages, 160 KiB, so that three consumers' 48 KiB of staging fit);
     * 6 (128 x 96, the swapped product's) */
    static constexpr int STAGES = BM == XW_TALL ? 4 : XW_RING_BYTES / STAGE_BYTES;
    static constexpr int RING_BYTES = STAGES * STAGE_BYTES;
    static constexpr size_t SMEM_BYTES = XW_SMEM_BYTES_OF(BM);
    /* 512 threads (the tall tile) share 64K registers: the producer's 128
     * at 40, the consumers' 384 at 152 (64 accumulators a thread); else
     * 384 threads, the consumers at 232. */
    static constexpr int CONSUMER_REGISTERS = CONSUMERS == 3 ? 152 : 232;
    static_assert(RING_BYTES + 1024 + CONSUMERS * XW_CONSUMER_STAGING + 1024 <= SMEM_BYTES &&
                      SMEM_BYTES <= 232448,
                  "the stages, barriers and staging fit in the 227 KiB opt-in");
    static_assert(128 * 40 + 128 * CONSUMERS * CONSUMER_REGISTERS <= 65536,
                  "the warpgroups' registers fit in the SM's 64K");
};

struct xw_params {
    void *c;
    float *part; /* [split][m][n] when splits > 1 */
    int m, n, k, ldc;
    float alpha, beta;
    int tiles_m, tiles_n, k_tiles, splits, split_tiles;
    bool narrow; /* C has the 16-bit input type */
    /* The tile is of C^T (the swapped product): its element (row, col) goes
     * to C[col][row] (ldc), or to part[split][col][row] (m rows). */
    bool c_transposed;
    bool tma_store; /* C (or the partial sums) stored by the copy engine through map_c */
    bool pairs;     /* C's rows keep column pairs aligned (ldc even, C aligned to a pair) */
    int a_bytes;    /* of A's boxes a k tile: fewer rows than the tile's when m is less */
    /* A batch (wl_gemm_ex_wgmma_run_batched): `batch` matrices, the
     * matrix the slowest index of the units; A's and B's maps 3-D (the
     * matrix their plane) where *_planes, else one matrix for all; C's
     * matrices c_batch_bytes apart (its map's plane where tma_store). */
    int batch;
    bool a_planes, b_planes;
    long long c_batch_bytes;
    /* One split: the tiles over the blocks, the last wave in stream-K
     * shares where walk.workers > 0 (stream_k.cuh); sk_flags[0] is the
     * ticket that numbers the shares in the order the blocks start, then a
     * flag a slot (share s's consumer c: s * 2 + c) of BN / 2 sums a
     * thread. */
    wl_sk_schedule walk;
    int *sk_flags;
    float *sk_slots;
};

#if WL_SM90A_BODY

/* D (64 x N) += A (64 x K) B (K x N), descriptors; 16-bit types take the
 * transpose immediates TA (A M-major) and TB (B N-major). */
#define XW_WGMMA16(name, shape, type, count, registers, operands)                                  \
    template <int TA, int TB>                                                                      \
    __device__ __forceinline__ void name(float(&d)[count], uint64_t desc_a, uint64_t desc_b)       \
    {                                                                                              \
        asm volatile("{\n"                                                                         \
                     ".reg .pred accumulate;\n"                                                    \
                     "setp.ne.b32 accumulate, %" XW_FLAG_##count                                   \
                     ", 0;\n"                                                                      \
                     "wgmma.mma_async.sync.aligned." shape ".f32." type "." type " {" registers    \
                     "}, %" #count ", %" XW_NEXT_##count ", accumulate, 1, 1, %" XW_TA_##count     \
                     ", %" XW_TB_##count ";\n"                                                     \
                                         "}\n"                                                     \
                     : operands(d)                                                                 \
                     : "l"(desc_a), "l"(desc_b), "r"(1), "n"(TA), "n"(TB));                        \
    }
#define XW_NEXT_48 "49"
#define XW_FLAG_48 "50"
#define XW_TA_48 "51"
#define XW_TB_48 "52"
#define XW_NEXT_96 "97"
#define XW_FLAG_96 "98"
#define XW_TA_96 "99"
#define XW_TB_96 "100"
#define XW_NEXT_32 "33"
#define XW_FLAG_32 "34"
#define XW_TA_32 "35"
#define XW_TB_32 "36"
#define XW_NEXT_64 "65"
#define XW_FLAG_64 "66"
#define XW_TA_64 "67"
#define XW_TB_64 "68"
#define XW_NEXT_128 "129"
#define XW_FLAG_128 "130"
#define XW_TA_128 "131"
#define XW_TB_128 "132"
XW_WGMMA16(xw_bf16_n256, "m64n256k16", "bf16", 128, WGMMA_D128_REGISTERS, WGMMA_D128_OPERANDS)
XW_WGMMA16(xw_fp16_n256, "m64n256k16", "f16", 128, WGMMA_D128_REGISTERS, WGMMA_D128_OPERANDS)
XW_WGMMA16(xw_bf16_n128, "m64n128k16", "bf16", 64, WGMMA_D64_REGISTERS, WGMMA_D64_OPERANDS)
XW_WGMMA16(xw_fp16_n128, "m64n128k16", "f16", 64, WGMMA_D64_REGISTERS, WGMMA_D64_OPERANDS)
XW_WGMMA16(xw_bf16_n64, "m64n64k16", "bf16", 32, WGMMA_D32_REGISTERS, WGMMA_D32_OPERANDS)
XW_WGMMA16(xw_fp16_n64, "m64n64k16", "f16", 32, WGMMA_D32_REGISTERS, WGMMA_D32_OPERANDS)
/* The swapped product's widths (K-major B only: TB 0). */
XW_WGMMA16(xw_bf16_n96, "m64n96k16", "bf16", 48, WGMMA_D48_REGISTERS, WGMMA_D48_OPERANDS)
XW_WGMMA16(xw_fp16_n96, "m64n96k16", "f16", 48, WGMMA_D48_REGISTERS, WGMMA_D48_OPERANDS)

#define XW_WGMMA_TF32(name, shape, count, registers, operands)                                     \
    __device__ __forceinline__ void name(float(&d)[count], uint64_t desc_a, uint64_t desc_b)       \
    {                                                                                              \
        asm volatile("{\n"                                                                         \
                     ".reg .pred accumulate;\n"                                                    \
                     "setp.ne.b32 accumulate, %" XW_FLAG_##count                                   \
                     ", 0;\n"                                                                      \
                     "wgmma.mma_async.sync.aligned." shape ".f32.tf32.tf32 {" registers            \
                     "}, %" #count ", %" XW_NEXT_##count ", accumulate, 1, 1;\n"                   \
                                                         "}\n"                                     \
                     : operands(d)                                                                 \
                     : "l"(desc_a), "l"(desc_b), "r"(1));                                          \
    }
XW_WGMMA_TF32(xw_tf32_n256, "m64n256k8", 128, WGMMA_D128_REGISTERS, WGMMA_D128_OPERANDS)
XW_WGMMA_TF32(xw_tf32_n128, "m64n128k8", 64, WGMMA_D64_REGISTERS, WGMMA_D64_OPERANDS)

/* The same with A from registers (four TF32 words a thread: rows g and
 * g + 8 of the warp's 16, k q and q + 4, as mma.sync's m16n8k8 A). */
#define XW_RS_A_64 "{%64, %65, %66, %67}, %68"
#define XW_RS_F_64 "69"
#define XW_RS_A_128 "{%128, %129, %130, %131}, %132"
#define XW_RS_F_128 "133"
#define XW_WGMMA_TF32_RS(name, shape, count, registers, operands)                                  \
    __device__ __forceinline__ void name(float(&d)[count], const uint32_t(&a)[4], uint64_t desc_b) \
    {                                                                                              \
        asm volatile("{\n"                                                                         \
                     ".reg .pred accumulate;\n"                                                    \
                     "setp.ne.b32 accumulate, %" XW_RS_F_##count                                   \
                     ", 0;\n"                                                                      \
                     "wgmma.mma_async.sync.aligned." shape ".f32.tf32.tf32 {" registers            \
                     "}, " XW_RS_A_##count ", accumulate, 1, 1;\n"                                 \
                                           "}\n"                                                   \
                     : operands(d)                                                                 \
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(1));           \
    }
XW_WGMMA_TF32_RS(xw_tf32_rs_n256, "m64n256k8", 128, WGMMA_D128_REGISTERS, WGMMA_D128_OPERANDS)
XW_WGMMA_TF32_RS(xw_tf32_rs_n128, "m64n128k8", 64, WGMMA_D64_REGISTERS, WGMMA_D64_OPERANDS)

template <int N> __device__ __forceinline__ void xw_pin(float (&d)[N])
{
#pragma unroll
    for (int i = 0; i < N; i++)
        asm volatile("" : "+f"(d[i])::"memory");
}

/* Descriptor of an MN-major operand in the 128-byte swizzle: 64 m (n) a
 * 128-byte row, one row a k, 8 rows an atom; atoms along k 1024 bytes
 * apart (stride offset), 64-wide boxes along m (n) XW_BOX_BYTES apart
 * (leading offset). */
__device__ __forceinline__ uint64_t xw_descriptor_mn(uint32_t smem_address)
{
    uint64_t desc = (uint64_t)((smem_address & 0x3FFFF) >> 4);
    desc |= (uint64_t)(XW_BOX_BYTES >> 4) << 16; /* leading: the next 64 m or n */
    desc |= (uint64_t)(1024 >> 4) << 32;         /* stride: the next 8 k */
    desc |= (uint64_t)1 << 62;                   /* 128-byte swizzle */
    return desc;
}

template <int KIND, int BN, int TA, int TB>
__device__ __forceinline__ void xw_step(float (&acc)[BN / 2], uint32_t a_tile, uint32_t b_tile,
                                        int s)
{
    /* K-major: the k step is a byte offset along the 128-byte rows (32
     * bytes: 16 values, or 8 TF32); MN-major: 16 k are two atoms. */
    const uint64_t da =
        TA ? xw_descriptor_mn(a_tile + 2048 * s) : wgmma_descriptor_sw128(a_tile + 32 * s);
    const uint64_t db =
        TB ? xw_descriptor_mn(b_tile + 2048 * s) : wgmma_descriptor_sw128(b_tile + 32 * s);
    if constexpr (KIND == XW_TF32) {
        static_assert(BN != XW_NARROW, "the narrow tile is 16-bit only");
        if constexpr (BN == 256)
            xw_tf32_n256(acc, da, db);
        else
            xw_tf32_n128(acc, da, db);
    } else if constexpr (KIND == XW_BF16) {
        if constexpr (BN == 256)
            xw_bf16_n256<TA, TB>(acc, da, db);
        else if constexpr (BN == 128)
            xw_bf16_n128<TA, TB>(acc, da, db);
        else if constexpr (BN == 96)
            xw_bf16_n96<TA, TB>(acc, da, db);
        else
            xw_bf16_n64<TA, TB>(acc, da, db);
    } else {
        if constexpr (BN == 256)
            xw_fp16_n256<TA, TB>(acc, da, db);
        else if constexpr (BN == 128)
            xw_fp16_n128<TA, TB>(acc, da, db);
        else if constexpr (BN == 96)
            xw_fp16_n96<TA, TB>(acc, da, db);
        else
            xw_fp16_n64<TA, TB>(acc, da, db);
    }
}

#endif

template <typename OUT>
__device__ __forceinline__ void xw_store(OUT *c, float sum, float alpha, float beta)
{
    float value = alpha * sum;
    if constexpr (std::is_same<OUT, float>::value) {
        if (beta != 0.0f)
            value += beta * *c;
        *c = value;
    } else if constexpr (std::is_same<OUT, __nv_bfloat16>::value) {
        if (beta != 0.0f)
            value += beta * __bfloat162float(*c);
        *c = __float2bfloat16_rn(value);
    } else {
        if (beta != 0.0f)
            value += beta * __half2float(*c);
        *c = __float2half_rn(value);
    }
}

/* FP32 C (or partial sums) at out[0] and, where `both`, out[1]: one 8-byte
 * store where the pair is aligned, so that a warp's stores cover whole
 * 32-byte sectors. */
__device__ __forceinline__ void xw_store_pair(float *out, float x, float y, bool both, bool aligned,
                                              float alpha, float beta)
{
    if (both && aligned) {
        float2 v = make_float2(alpha * x, alpha * y);
        if (beta != 0.0f) {
            const float2 old = *(const float2 *)out;
            v.x += beta * old.x;
            v.y += beta * old.y;
        }
        *(float2 *)out = v;
    } else {
        xw_store(out, x, alpha, beta);
        if (both)
            xw_store(out + 1, y, alpha, beta);
    }
}

/* Element (row, col) of the swapped product's C^T: C[col][row], or its
 * split's partial sum part[col][row] (p.m rows). */
template <int KIND>
__device__ __forceinline__ void xw_store_transposed(const xw_params &p, void *c, float *part,
                                                    int row, int col, float v)
{
    if (p.splits > 1)
        part[(size_t)col * p.m + row] = v;
    else if (KIND == XW_TF32 || !p.narrow)
        xw_store((float *)c + (size_t)col * p.ldc + row, v, p.alpha, p.beta);
    else
        xw_store((xw_half<KIND> *)c + (size_t)col * p.ldc + row, v, p.alpha, p.beta);
}

/* A box of an operand's matrix `matrix` (planes: a 3-D map, one matrix a
 * plane) or of its one matrix (a 2-D map). */
__device__ __forceinline__ void xw_load(uint32_t dst, const CUtensorMap *map, uint32_t bar,
                                        int inner, int outer, bool planes, int matrix)
{
#if WL_SM90A_BODY
    if (planes)
        tma_load_3d(dst, map, bar, inner, outer, matrix);
    else
        tma_load_2d(dst, map, bar, inner, outer);
#endif
}

/* A 16-bit C's tile through the copy engine (a batch's, beta 0): the
 * consumer's 64 rows x N / 2 columns, alpha applied and rounded to nearest
 * even, 64 columns (one 128-byte row of 16-bit values) a slice, in the
 * 128-byte swizzle (16-byte chunk c of row r at c ^ (r % 8): a warp's
 * 4-byte stores fall in distinct banks), through two 8 KiB buffers as
 * store_c_tile (wgmma_ops.cuh) does for FP32. The register stores it
 * replaces wrote 8 rows x 16 bytes an instruction: Q K^T in BF16 (k = 64,
 * C the bytes that count) ran at 0.25x cublasGemmStridedBatchedEx on an
 * H200 where the FP32 C through the copy engine ran at 0.92-1.0x. */
template <int KIND, int N>
__device__ __forceinline__ void
xw_store_c16_tile(const float (&acc)[N], const void *map_c, uint32_t staging, int consumer,
                  int warp, int lane, bool signals, int x, int y, int z, float scale)
{
#if WL_SM90A_BODY
    const int g = lane / 4, q = lane % 4;
#pragma unroll
    for (int j = 0; j < N / 32; j++) {
        const uint32_t buffer = staging + (uint32_t)(j % 2) * 8192;
        /* The store that last read the buffer is done reading: slice j - 2's,
         * or with one slice a tile (the 64-wide tile) the previous tile's. */
        if (signals && N / 32 == 1)
            asm volatile("cp.async.bulk.wait_group.read 0;\n" ::: "memory");
        else if (signals)
            asm volatile("cp.async.bulk.wait_group.read 1;\n" ::: "memory");
        consumer_sync(consumer);
#pragma unroll
        for (int i = 32 * j; i < 32 * j + 32; i += 2) {
            /* Registers i, i + 1: row g + 8 ((i / 2) % 2) of the warp's 16,
             * columns 8 (i / 4) + 2 q and the next. */
            const int r = warp * 16 + g + 8 * ((i / 2) % 2), chunk = (i / 4) % 8;
            const uint32_t address =
                buffer + (uint32_t)r * 128 + (uint32_t)((chunk ^ g) << 4) + (uint32_t)q * 4;
            uint32_t word;
            if constexpr (KIND == XW_BF16) {
                const __nv_bfloat162 v = __floats2bfloat162_rn(scale * acc[i], scale * acc[i + 1]);
                memcpy(&word, &v, 4);
            } else {
                const __half2 v = __floats2half2_rn(scale * acc[i], scale * acc[i + 1]);
                memcpy(&word, &v, 4);
            }
            asm volatile("st.shared.b32 [%0], %1;\n" ::"r"(address), "r"(word) : "memory");
        }
        /* The copy engine (async proxy) sees the threads' writes. */
        asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
        consumer_sync(consumer);
        if (signals)
            tma_store_3d(map_c, buffer, x + 64 * j, y, z);
    }
#endif
}
#if WL_SM90A_BODY
/* The next piece of a block's walk: SK, the tiles and their stream-K
 * shares (stream_k.cuh, one split, one matrix); else unit u is matrix
 * u / (tiles x splits), split (u mod tiles x splits) / tiles, tile u mod
 * tiles, blocks taking units in turn. */
template <bool SK>
__device__ __forceinline__ bool xw_next_piece(wl_sk_walk &walk, const xw_params &p,
                                              wl_sk_piece *piece, int *split, int *matrix)
{
    if constexpr (SK) {
        *split = 0;
        *matrix = 0;
        return wl_sk_walk_next<true>(walk, p.walk, piece);
    }
    const int tiles = p.tiles_m * p.tiles_n, per_matrix = tiles * p.splits, u = walk.next_unit;
    if (u >= per_matrix * p.batch)
        return false;
    walk.next_unit += walk.step;
    *matrix = u / per_matrix;
    *split = u % per_matrix / tiles;
    piece->unit = u % tiles;
    piece->k_begin = *split * p.split_tiles;
    piece->k_end = min(p.k_tiles, piece->k_begin + p.split_tiles);
    return true;
}
#endif

/* TA: A stored k x m (op T), M-major boxes; else m x k, K-major boxes.
 * TB: B stored k x n (op N), N-major boxes; else n x k, K-major boxes. */
/* SK: the last wave in stream-K shares (one split). A kernel of its own:
 * with the shares' code compiled into every launch, the kernels without
 * shares ran 0.3-2 us slower on small shapes (the shape set's BF16 mean
 * 0.981x -> 0.965x, H100). */
template <int KIND, int BM, int BN, int TA, int TB, bool SK>
__global__ void __launch_bounds__(XW_THREADS_OF(BM), 1)
    gemm_ex_wgmma(const __grid_constant__ CUtensorMap map_a,
                  const __grid_constant__ CUtensorMap map_b,
                  const __grid_constant__ CUtensorMap map_c, const xw_params p)
{
#if WL_SM90A_BODY
    if (p.splits > 1) /* wl_splitk_finish follows */
        wl_pdl_release();
    typedef xw_shape<BM, BN> S;
    static_assert(BM != XW_TALL || (KIND != XW_TF32 && !SK),
                  "the 192-row tile is 16-bit, without stream-K shares");
    constexpr int ELEMENT_BYTES = KIND == XW_TF32 ? 4 : 2;
    constexpr int K_PER_TILE = XW_ROW_BYTES / ELEMENT_BYTES;
    extern __shared__ __align__(1024) unsigned char smem_raw[];
    const uint32_t tiles_base = (smem_address(smem_raw) + 1023) & ~1023u;
    const uint32_t full_bar = tiles_base + S::STAGES * S::STAGE_BYTES;
    const uint32_t empty_bar = full_bar + S::STAGES * 8;
    const int tid = threadIdx.x, warpgroup = tid / 128;
    /* With stream-K shares, a block's share is numbered by a ticket taken as
     * it starts (kept in the barriers' slot, after them): a tail waits only
     * for shares of lower number, whose blocks have started, even beside
     * other kernels. Whole units stay with blockIdx: numbered by ticket too,
     * the blocks' order no longer matched the hardware's placement, and 2048
     * x 11008 x 4096 ran 278 us against 259 (H100, ncu). */
    const uint32_t ticket_slot = empty_bar + S::STAGES * 8;

    if (tid == 0) {
        for (int s = 0; s < S::STAGES; s++) {
            mbarrier_init(full_bar + 8 * s, 1);
            mbarrier_init(empty_bar + 8 * s, 4 * S::CONSUMERS); /* every consumer warp */
        }
        mbarrier_init_fence();
        tma_prefetch_descriptor(&map_a);
        tma_prefetch_descriptor(&map_b);
        if constexpr (SK) {
            wl_pdl_wait();
            asm volatile("st.shared.u32 [%0], %1;\n" ::"r"(ticket_slot),
                         "r"(atomicAdd(p.sk_flags, 1))
                         : "memory");
        }
    }
    __syncthreads();
    /* Launched as the dependent of the operands' copy (after_copy): the set-up
     * above ran beside it; nothing is read or written before it is done. A
     * no-op for a plain launch. */
    wl_pdl_wait();
    int share = (int)blockIdx.x;
    if constexpr (SK)
        asm volatile("ld.shared.u32 %0, [%1];\n" : "=r"(share) : "r"(ticket_slot) : "memory");

    if (warpgroup == 0) {
        asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n" ::: "memory");
        if (tid == 0) {
            int stage = 0;
            uint32_t phase = 0;
            wl_sk_walk walk = wl_sk_walk_start<SK>(p.walk, blockIdx.x, gridDim.x, share);
            wl_sk_piece piece;
            int split, matrix;
            while (xw_next_piece<SK>(walk, p, &piece, &split, &matrix)) {
                int tile_m, tile_n;
                gemm_tile_of_block(piece.unit, p.tiles_m, p.tiles_n, XW_GROUP_ROWS, &tile_m,
                                   &tile_n);
                for (int kt = piece.k_begin; kt < piece.k_end; kt++) {
                    mbarrier_wait(empty_bar + 8 * stage, phase ^ 1);
                    const uint32_t a_tile = tiles_base + stage * S::STAGE_BYTES;
                    const uint32_t b_tile = a_tile + S::A_BYTES, bar = full_bar + 8 * stage;
                    /* N-major B: boxes wholly past n are not loaded (the copy
                     * engine's zero fill is slow, and those columns of the
                     * tile are never stored: each column of C reads its own
                     * column of B alone). P V with n = 64 in 128-wide tiles. */
                    const int b_boxes = TB ? min(BN / 64, (p.n - tile_n * BN + 63) / 64) : 0;
                    mbarrier_arrive_expect_bytes(
                        bar, p.a_bytes + (TB ? b_boxes * XW_BOX_BYTES : S::B_BYTES));
                    const int k0 = kt * K_PER_TILE;
                    if (TA) {
#pragma unroll
                        for (int box = 0; box < S::BM / 64; box++)
                            xw_load(a_tile + box * XW_BOX_BYTES, &map_a, bar,
                                    tile_m * S::BM + box * 64, k0, p.a_planes, matrix);
                    } else {
                        xw_load(a_tile, &map_a, bar, k0, tile_m * S::BM, p.a_planes, matrix);
                    }
                    if (TB) {
#pragma unroll
                        for (int box = 0; box < BN / 64; box++)
                            if (box < b_boxes)
                                xw_load(b_tile + box * XW_BOX_BYTES, &map_b, bar,
                                        tile_n * BN + box * 64, k0, p.b_planes, matrix);
                    } else {
                        xw_load(b_tile, &map_b, bar, k0, tile_n * BN, p.b_planes, matrix);
                    }
                    if (++stage == S::STAGES) {
                        stage = 0;
                        phase ^= 1;
                    }
                }
            }
        }
    } else {
        asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(S::CONSUMER_REGISTERS)
                     : "memory");
        const int consumer = warpgroup - 1, warp = tid % 128 / 32, lane = tid % 32;
        const bool signals = tid % 128 == 0;
        /* Each consumer warp releases a stage itself (its lane 0), once it
         * is past the stage's full barrier: a stage is refilled only after
         * every warp that waits on it has seen it full, so no warp can fall
         * a whole ring behind and wait on a parity that has come round
         * again. One arrival a warpgroup sufficed only while the warps were
         * kept in step by their wgmma groups; the consumer that skips a
         * tile's rows (below) has none, and its warps, which leave the
         * register epilogue at different times (C's loads), drifted apart:
         * BF16 2200^3 with beta != 0 hung on the H100, one warp waiting on
         * a full barrier whose phase had come round twice while its
         * warpgroup's other warps waited for it in the next tile's wgmma. */
        const bool releases = lane == 0;
        int stage = 0;
        uint32_t phase = 0;
        float acc[BN / 2];
        wl_sk_walk walk = wl_sk_walk_start<SK>(p.walk, blockIdx.x, gridDim.x, share);
        wl_sk_piece piece;
        int split, matrix;
        while (xw_next_piece<SK>(walk, p, &piece, &split, &matrix)) {
            int tile_m, tile_n;
            gemm_tile_of_block(piece.unit, p.tiles_m, p.tiles_n, XW_GROUP_ROWS, &tile_m, &tile_n);
            const int kt0 = piece.k_begin, kt1 = piece.k_end;
#pragma unroll
            for (int i = 0; i < BN / 2; i++)
                acc[i] = 0.0f;
            /* A consumer whose 64 rows are all past m (m <= 64, or the last
             * tile's edge) keeps the barriers' count but issues no wgmma:
             * the other consumers have the tensor cores to themselves. */
            if (tile_m * S::BM + consumer * 64 >= p.m) {
                for (int kt = kt0; kt < kt1; kt++) {
                    mbarrier_wait(full_bar + 8 * stage, phase);
                    if (releases)
                        mbarrier_arrive(empty_bar + 8 * stage);
                    if (++stage == S::STAGES) {
                        stage = 0;
                        phase ^= 1;
                    }
                }
                continue; /* no rows to store */
            }
            int previous = -1;
            for (int kt = kt0; kt < kt1; kt++) {
                mbarrier_wait(full_bar + 8 * stage, phase);
                const uint32_t stage_base = tiles_base + stage * S::STAGE_BYTES;
                /* This consumer's 64 rows: K-major, 64 rows of 128 bytes;
                 * M-major, the second 64-wide box. */
                const uint32_t a_tile = stage_base + consumer * (TA ? XW_BOX_BYTES : 64 * 128);
                const uint32_t b_tile = stage_base + S::A_BYTES;
                xw_pin(acc);
                wgmma_fence();
#pragma unroll
                for (int s = 0; s < 4; s++)
                    xw_step<KIND, BN, TA, TB>(acc, a_tile, b_tile, s);
                wgmma_commit();
                wgmma_wait<1>();
                xw_pin(acc);
                if (previous >= 0 && releases)
                    mbarrier_arrive(empty_bar + 8 * previous);
                previous = stage;
                if (++stage == S::STAGES) {
                    stage = 0;
                    phase ^= 1;
                }
            }
            wgmma_wait<0>();
            xw_pin(acc);
            if (previous >= 0 && releases)
                mbarrier_arrive(empty_bar + 8 * previous);
            if constexpr (SK) {
                /* A piece short of its tile's last k tile leaves its sums to
                 * the piece that holds it (the tail), which adds the others'.
                 * (A consumer with no rows skipped every piece of the tile
                 * above, its writes and its tail's reads alike.) */
                const int slot = share * S::CONSUMERS + consumer;
                if (kt1 < p.k_tiles) {
                    wl_sk_write(p.sk_slots, p.sk_flags + 1, slot, consumer, tid % 128, signals,
                                acc);
                    continue;
                }
                if (kt0 > 0)
                    wl_sk_gather(p.sk_slots, p.sk_flags + 1, p.walk, piece, share, 1, 0,
                                 S::CONSUMERS, consumer, tid % 128, signals, acc);
            }

            if (p.tma_store) {
                /* Through shared memory, 32 columns at a time, two buffers
                 * a consumer: the copy engine writes whole lines of C (or of
                 * the partial sums) while the next unit's main loop runs. */
                const uint32_t staging =
                    tiles_base + S::RING_BYTES + 1024 + (uint32_t)consumer * XW_CONSUMER_STAGING;
                if constexpr (KIND != XW_TF32) {
                    /* A 16-bit C, rounded as it is staged: half the bytes of
                     * an FP32 C, and whole lines (stored from the registers,
                     * a warp's 4-byte pairs cover half sectors, and the
                     * next unit waits for them). A batch's C map has a plane
                     * a matrix and 64 x 64 boxes (xw_store_c16_tile). */
                    if (p.narrow && p.splits == 1) {
                        if (p.batch > 1) {
                            xw_store_c16_tile<KIND>(
                                acc, &map_c, staging, consumer, warp, lane, signals, tile_n * BN,
                                tile_m * S::BM + consumer * 64, matrix, p.alpha);
                            continue;
                        }
                        typedef xw_half<KIND> T16;
                        store_c_tile<T16>(acc, &map_c, staging, consumer, warp, lane, signals,
                                          tile_n * BN, tile_m * S::BM + consumer * 64, 0, p.alpha);
                        continue;
                    }
                }
                store_c_tile(acc, &map_c, staging, consumer, warp, lane, signals, tile_n * BN,
                             tile_m * S::BM + consumer * 64, p.splits > 1 ? split : matrix,
                             p.splits > 1 ? 1.0f : p.alpha);
                continue;
            }

            /* Registers i, i + 1: row g + 8 ((i / 2) % 2) of the warp's 16,
             * columns 8 (i / 4) + 2 q and the next: stored as a pair (8 or 4
             * bytes) where the row keeps pairs aligned, so that a warp's
             * store covers whole 32-byte sectors. */
            const int g = lane / 4, q = lane % 4;
            const int row_base = tile_m * S::BM + consumer * 64 + warp * 16 + g;
            const int col_base = tile_n * BN + 2 * q;
            void *const c_matrix = (char *)p.c + matrix * p.c_batch_bytes;
            float *part = p.part + (size_t)split * p.m * p.n;
            if constexpr (XW_SWAP_WIDTH(BN)) {
                /* The swapped product's tile is of C^T (its own code: the
                 * branch in the loop below slowed the register stores of
                 * the other tiles by up to 30%, H200, 757^3). The 8 lanes
                 * of rows g store 8 adjacent elements of a row of C (or of
                 * the partial sums): whole 32-byte sectors of FP32, half
                 * sectors of 16 bits. */
#pragma unroll
                for (int i = 0; i < BN / 2; i += 2) {
                    const int row = row_base + 8 * ((i / 2) % 2), col = col_base + 8 * (i / 4);
                    if (row >= p.m || col >= p.n)
                        continue;
                    xw_store_transposed<KIND>(p, c_matrix, part, row, col, acc[i]);
                    if (col + 1 < p.n)
                        xw_store_transposed<KIND>(p, c_matrix, part, row, col + 1, acc[i + 1]);
                }
            } else {
#pragma unroll
                for (int i = 0; i < BN / 2; i += 2) {
                    const int row = row_base + 8 * ((i / 2) % 2), col = col_base + 8 * (i / 4);
                    if (row >= p.m || col >= p.n)
                        continue;
                    const bool both = col + 1 < p.n;
                    if (p.splits > 1) {
                        xw_store_pair(part + (size_t)row * p.n + col, acc[i], acc[i + 1], both,
                                      p.n % 2 == 0, 1.0f, 0.0f);
                    } else if (KIND == XW_TF32 || !p.narrow) {
                        xw_store_pair((float *)c_matrix + (size_t)row * p.ldc + col, acc[i],
                                      acc[i + 1], both, p.pairs, p.alpha, p.beta);
                    } else {
                        typedef xw_half<KIND> T16;
                        T16 *out = (T16 *)c_matrix + (size_t)row * p.ldc + col;
                        if (both && p.pairs) {
                            T16 v[2]; /* C is read only when beta != 0 */
                            if (p.beta != 0.0f) {
                                v[0] = out[0];
                                v[1] = out[1];
                            }
                            xw_store(&v[0], acc[i], p.alpha, p.beta);
                            xw_store(&v[1], acc[i + 1], p.alpha, p.beta);
                            *(uint32_t *)out = *(const uint32_t *)v;
                        } else {
                            xw_store(out, acc[i], p.alpha, p.beta);
                            if (both)
                                xw_store(out + 1, acc[i + 1], p.alpha, p.beta);
                        }
                    }
                }
            }
        }
        /* The block's shared memory lives until its last stores are done. */
        if (p.tma_store && signals)
            tma_store_drain();
    }
#endif
}

/* TF32 with a row-major B (op N): wgmma reads TF32 only K-major from
 * shared memory, and B (k x n) is N-major. Instead of a transposed copy of
 * B, the kernel computes C^T = B^T A^T: B^T is wgmma's A operand, taken
 * from registers (the consumers read their 64 rows of n x 8 k per step
 * from the copy engine's N-major boxes of 32 n x 32 k), and A (m x k,
 * K-major as stored) is its B operand from shared memory. A tile is BM
 * rows of m (the instruction's N: 128 or 256) x 128 columns of n (64 per
 * consumer); the accumulator holds C^T, stored transposed (a warp's store:
 * two whole 32-byte sectors of n in each of 4 rows of C). Register operands
 * stay live until their wgmma group completes, so each consumer keeps two
 * sets of fragments: the next k tile's are read while this tile's group
 * runs, and only the group before it is waited for (wait_group 1). */
#define XW_RS_BN 128
template <int BM> struct xw_rs_shape {
    static constexpr int A_BYTES = BM * XW_ROW_BYTES;
    static constexpr int B_BYTES = XW_RS_BN * XW_ROW_BYTES; /* 4 boxes of 32 k x 32 n */
    static constexpr int STAGE_BYTES = A_BYTES + B_BYTES;
    static constexpr int STAGES = 196608 / STAGE_BYTES; /* 4 (BM 256) or 6 (BM 128) */
};

#if WL_SM90A_BODY
/* A consumer's B^T fragments of one k tile (4 k steps of 8): for k = 8 s +
 * q (+ 4), the thread's two fragment rows are the adjacent n and n + 1
 * (see the row map in gemm_ex_tf32_rs), one 8-byte load from the k's
 * 128-byte row of the 32-wide box; the swizzle XORs the 16-byte chunk with
 * k % 8. */
__device__ __forceinline__ void xw_rs_fragments(uint32_t (&frag)[4][4], uint32_t b_box, int q,
                                                int chunk, uint32_t within)
{
#pragma unroll
    for (int s = 0; s < 4; s++)
#pragma unroll
        for (int h = 0; h < 2; h++) {
            const int k = 8 * s + q + 4 * h, x = k % 8;
            const uint32_t address = b_box + (uint32_t)k * 128 + ((chunk ^ x) << 4) + within;
            asm volatile("ld.shared.v2.b32 {%0, %1}, [%2];\n"
                         : "=r"(frag[s][2 * h]), "=r"(frag[s][2 * h + 1])
                         : "r"(address));
        }
}

/* One k tile of gemm_ex_tf32_rs's consumer: the wgmma group on `use`
 * (read before), then, once the previous group is done (its stage is
 * released), the next tile's fragments into `load` while this group runs. */
template <int BM, typename S>
__device__ __forceinline__ void xw_rs_tile(float (&acc)[BM / 2], const uint32_t (&use)[4][4],
                                           uint32_t (&load)[4][4], uint32_t tiles_base,
                                           uint32_t full_bar, uint32_t empty_bar, int &stage,
                                           uint32_t &phase, int &previous, bool more, bool signals,
                                           uint32_t box_offset, int q, int chunk, uint32_t within)
{
    const uint32_t a_tile = tiles_base + stage * S::STAGE_BYTES;
    xw_pin(acc);
    wgmma_fence();
#pragma unroll
    for (int s = 0; s < 4; s++) {
        const uint64_t db = wgmma_descriptor_sw128(a_tile + 32 * s);
        if constexpr (BM == 256)
            xw_tf32_rs_n256(acc, use[s], db);
        else
            xw_tf32_rs_n128(acc, use[s], db);
    }
    wgmma_commit();
    wgmma_wait<1>(); /* the previous group: `load`'s registers and its stage are free */
    xw_pin(acc);
    if (previous >= 0 && signals)
        mbarrier_arrive(empty_bar + 8 * previous);
    previous = stage;
    if (++stage == S::STAGES) {
        stage = 0;
        phase ^= 1;
    }
    if (more) {
        mbarrier_wait(full_bar + 8 * stage, phase);
        xw_rs_fragments(load, tiles_base + stage * S::STAGE_BYTES + S::A_BYTES + box_offset, q,
                        chunk, within);
    }
}
#endif

template <int BM>
__global__ void __launch_bounds__(XW_THREADS, 1)
    gemm_ex_tf32_rs(const __grid_constant__ CUtensorMap map_a,
                    const __grid_constant__ CUtensorMap map_b, const xw_params p)
{
#if WL_SM90A_BODY
    if (p.splits > 1) /* the split sums follow */
        wl_pdl_release();
    typedef xw_rs_shape<BM> S;
    extern __shared__ __align__(1024) unsigned char smem_raw[];
    const uint32_t tiles_base = (smem_address(smem_raw) + 1023) & ~1023u;
    const uint32_t full_bar = tiles_base + S::STAGES * S::STAGE_BYTES;
    const uint32_t empty_bar = full_bar + S::STAGES * 8;
    const int tid = threadIdx.x, warpgroup = tid / 128;
    const int tiles = p.tiles_m * p.tiles_n, units = tiles * p.splits;

    if (tid == 0) {
        for (int s = 0; s < S::STAGES; s++) {
            mbarrier_init(full_bar + 8 * s, 1);
            mbarrier_init(empty_bar + 8 * s, 2);
        }
        mbarrier_init_fence();
        tma_prefetch_descriptor(&map_a);
        tma_prefetch_descriptor(&map_b);
    }
    __syncthreads();

    if (warpgroup == 0) {
        asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n" ::: "memory");
        if (tid == 0) {
            int stage = 0;
            uint32_t phase = 0;
            for (int u = blockIdx.x; u < units; u += gridDim.x) {
                const int split = u / tiles;
                int tile_m, tile_n;
                gemm_tile_of_block(u % tiles, p.tiles_m, p.tiles_n, XW_GROUP_ROWS, &tile_m,
                                   &tile_n);
                const int kt0 = split * p.split_tiles;
                const int kt1 = min(p.k_tiles, kt0 + p.split_tiles);
                for (int kt = kt0; kt < kt1; kt++) {
                    mbarrier_wait(empty_bar + 8 * stage, phase ^ 1);
                    const uint32_t a_tile = tiles_base + stage * S::STAGE_BYTES;
                    const uint32_t b_tile = a_tile + S::A_BYTES, bar = full_bar + 8 * stage;
                    mbarrier_arrive_expect_bytes(bar, S::STAGE_BYTES);
                    const int k0 = kt * 32;
                    tma_load_2d(a_tile, &map_a, bar, k0, tile_m * BM);
#pragma unroll
                    for (int box = 0; box < XW_RS_BN / 32; box++)
                        tma_load_2d(b_tile + box * 4096, &map_b, bar, tile_n * XW_RS_BN + box * 32,
                                    k0);
                    if (++stage == S::STAGES) {
                        stage = 0;
                        phase ^= 1;
                    }
                }
            }
        }
    } else {
        asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n" ::: "memory");
        const int consumer = warpgroup - 1, warp = tid % 128 / 32, lane = tid % 32;
        const int g = lane / 4, q = lane % 4;
        const bool signals = tid % 128 == 0;
        /* The thread's fragment rows g and g + 8 of the warp's 16 are the
         * adjacent n_box and n_box + 1 of the warp's half of a 32-wide box
         * (two warps a box), n_box = 8 (warp % 2) + 2 (g % 2) + 16 (g / 2 %
         * 2) + 4 (g / 4): both rows come in one 8-byte load, and each
         * half-warp's loads (four k rows, one a q) fall on 32 distinct
         * banks in the swizzle. Rows g and g + 8 as n_local + g and + g + 8
         * (the obvious map) put two lanes on each bank: twice the
         * shared-memory time for the same bytes, which the wgmma reading A
         * from the same memory could not hide. */
        const int n_box = 8 * (warp % 2) + 2 * (g % 2) + 16 * (g / 2 % 2) + 4 * (g / 4);
        const int box = consumer * 2 + warp / 2;
        const uint32_t box_offset = (uint32_t)box * 4096;
        const int chunk = n_box / 4;
        const uint32_t within = (uint32_t)(n_box % 4) * 4;
        int stage = 0;
        uint32_t phase = 0;
        float acc[BM / 2];
        for (int u = blockIdx.x; u < units; u += gridDim.x) {
            const int split = u / tiles;
            int tile_m, tile_n;
            gemm_tile_of_block(u % tiles, p.tiles_m, p.tiles_n, XW_GROUP_ROWS, &tile_m, &tile_n);
            const int kt0 = split * p.split_tiles;
            const int kt1 = min(p.k_tiles, kt0 + p.split_tiles);
#pragma unroll
            for (int i = 0; i < BM / 2; i++)
                acc[i] = 0.0f;
            /* Two sets of fragments: the next k tile's are read from shared
             * memory while this one's wgmma group runs, and a group is
             * waited for only when its fragments are to be overwritten
             * (wait_group 1: the previous group), as the 16-bit kernels'
             * stages. The loop is unrolled by two so that each set stays in
             * registers. */
            uint32_t frag[2][4][4];
            int previous = -1;
            if (kt0 < kt1) {
                mbarrier_wait(full_bar + 8 * stage, phase);
                xw_rs_fragments(frag[0],
                                tiles_base + stage * S::STAGE_BYTES + S::A_BYTES + box_offset, q,
                                chunk, within);
            }
#pragma unroll 1
            for (int kt = kt0; kt < kt1; kt += 2) {
                xw_rs_tile<BM, S>(acc, frag[0], frag[1], tiles_base, full_bar, empty_bar, stage,
                                  phase, previous, kt + 1 < kt1, signals, box_offset, q, chunk,
                                  within);
                if (kt + 1 >= kt1)
                    break;
                xw_rs_tile<BM, S>(acc, frag[1], frag[0], tiles_base, full_bar, empty_bar, stage,
                                  phase, previous, kt + 2 < kt1, signals, box_offset, q, chunk,
                                  within);
            }
            wgmma_wait<0>();
            xw_pin(acc);
            if (previous >= 0 && signals)
                mbarrier_arrive(empty_bar + 8 * previous);

            /* Registers i and i + 2 (i % 4 < 2): C^T rows (n) n_box and n_box
             * + 1, column (m) 8 (i / 4) + 2 q + i % 2: a pair of C's row m. */
            const int n = tile_n * XW_RS_BN + box * 32 + n_box;
            const int m_base = tile_m * BM + 2 * q;
            const bool both = n + 1 < p.n;
            float *part = p.part + (size_t)split * p.m * p.n;
#pragma unroll
            for (int i = 0; i < BM / 2; i++) {
                const int m = m_base + 8 * (i / 4) + i % 2;
                if (i % 4 >= 2 || n >= p.n || m >= p.m)
                    continue;
                if (p.splits > 1)
                    xw_store_pair(part + (size_t)m * p.n + n, acc[i], acc[i + 2], both,
                                  p.n % 2 == 0, 1.0f, 0.0f);
                else
                    xw_store_pair((float *)p.c + (size_t)m * p.ldc + n, acc[i], acc[i + 2], both,
                                  p.pairs, p.alpha, p.beta);
            }
        }
    }
#endif
}

/* ------------------------------------------------------------------------ */
/* Host side                                                                */

/* A row-major matrix (rows x cols, rows ld elements apart) as boxes of
 * box_cols x box_rows, 128-byte swizzle, zeros outside. */
static warplab_status xw_encode(wl_backend *backend, encode_tiled_fn encode, CUtensorMap *map,
                                const void *base, int kind, int rows, int cols, int ld,
                                int box_cols, int box_rows)
{
    const warplab_dtype type = kind == XW_BF16   ? WARPLAB_BFLOAT16
                               : kind == XW_FP16 ? WARPLAB_FLOAT16
                                                 : WARPLAB_FLOAT32;
    return tma_encode_2d(backend, encode, map, base, type, rows, cols, ld, box_cols, box_rows);
}

/* dependent: launched as the dependent of the copy kernel before it
 * (wl_gemm_ex_wgmma_call's after_copy). */
template <int KIND, int BM, int BN, int TA, int TB, bool SK>
static warplab_status xw_launch_sk(wl_backend *backend, const CUtensorMap &map_a,
                                   const CUtensorMap &map_b, const CUtensorMap &map_c,
                                   const xw_params &p, unsigned blocks, bool dependent)
{
    static unsigned allowed = 0;
    auto kernel = gemm_ex_wgmma<KIND, BM, BN, TA, TB, SK>;
    const size_t smem = XW_SMEM_BYTES_OF(BM);
    cudaError_t e = wl_cuda_allow_smem((const void *)kernel, smem, &allowed);
    if (e != cudaSuccess)
        return wl_cuda_check(backend, e, "raising the shared-memory limit of gemm_ex_wgmma");
    e = wl_launch_after(dependent && !SK, kernel, dim3(blocks), dim3(XW_THREADS_OF(BM)), smem,
                        wl_cuda_stream(backend), map_a, map_b, map_c, p);
    return wl_cuda_check(backend, e,
                         SK          ? "gemm_ex TMA + wgmma kernel (stream-K shares)"
                         : dependent ? "gemm_ex TMA + wgmma kernel (after the copy)"
                                     : "gemm_ex TMA + wgmma kernel (operands as stored)");
}

/* The kernel with stream-K shares where the walk has them (16-bit, 128
 * rows, 128 or 256 columns; wl_gemm_ex_wgmma_run plans none elsewhere). */
template <int KIND, int BM, int BN, int TA, int TB>
static warplab_status xw_launch(wl_backend *backend, const CUtensorMap &map_a,
                                const CUtensorMap &map_b, const CUtensorMap &map_c,
                                const xw_params &p, unsigned blocks, bool dependent)
{
    if constexpr (KIND != XW_TF32 && BM == XW_BM) {
        if (p.walk.workers > 0)
            return xw_launch_sk<KIND, BM, BN, TA, TB, true>(backend, map_a, map_b, map_c, p, blocks,
                                                            false);
    }
    return xw_launch_sk<KIND, BM, BN, TA, TB, false>(backend, map_a, map_b, map_c, p, blocks,
                                                     dependent);
}

template <int KIND, int BM, int BN>
static warplab_status xw_launch_ops(wl_backend *backend, const CUtensorMap &map_a,
                                    const CUtensorMap &map_b, const CUtensorMap &map_c,
                                    const xw_params &p, unsigned blocks, bool ta, bool tb,
                                    bool dependent)
{
    if (KIND == XW_TF32 || (!ta && !tb))
        return xw_launch<KIND, BM, BN, 0, 0>(backend, map_a, map_b, map_c, p, blocks, dependent);
    if (!ta)
        return xw_launch<KIND, BM, BN, 0, 1>(backend, map_a, map_b, map_c, p, blocks, dependent);
    if (!tb)
        return xw_launch<KIND, BM, BN, 1, 0>(backend, map_a, map_b, map_c, p, blocks, dependent);
    return xw_launch<KIND, BM, BN, 1, 1>(backend, map_a, map_b, map_c, p, blocks, dependent);
}

/* bm: the tile's rows (XW_TALL, or the width's: 64 for the narrow tile,
 * else 128). */
template <int KIND>
static warplab_status xw_launch_bn(wl_backend *backend, const CUtensorMap &map_a,
                                   const CUtensorMap &map_b, const CUtensorMap &map_c,
                                   const xw_params &p, unsigned blocks, int bm, int bn, bool ta,
                                   bool tb, bool dependent)
{
    if (bn == 256)
        return xw_launch_ops<KIND, XW_BM, 256>(backend, map_a, map_b, map_c, p, blocks, ta, tb,
                                               dependent);
    if constexpr (KIND != XW_TF32) {
        /* The swapped product's width: B K-major (the caller refuses tb),
         * whole tiles or splits, no shares. */
        if (XW_SWAP_WIDTH(bn))
            return ta ? xw_launch_sk<KIND, XW_BM, XW_SWAP_BN, 1, 0, false>(
                            backend, map_a, map_b, map_c, p, blocks, dependent)
                      : xw_launch_sk<KIND, XW_BM, XW_SWAP_BN, 0, 0, false>(
                            backend, map_a, map_b, map_c, p, blocks, dependent);
        if (bn == XW_NARROW)
            return xw_launch_ops<KIND, 64, XW_NARROW>(backend, map_a, map_b, map_c, p, blocks, ta,
                                                      tb, dependent);
        if (bm == XW_TALL)
            return xw_launch_ops<KIND, XW_TALL, 128>(backend, map_a, map_b, map_c, p, blocks, ta,
                                                     tb, dependent);
    }
    return xw_launch_ops<KIND, XW_BM, 128>(backend, map_a, map_b, map_c, p, blocks, ta, tb,
                                           dependent);
}

template <int BM>
static warplab_status xw_launch_rs(wl_backend *backend, const CUtensorMap &map_a,
                                   const CUtensorMap &map_b, const xw_params &p, unsigned blocks)
{
    static unsigned allowed = 0;
    const cudaError_t e =
        wl_cuda_allow_smem((const void *)gemm_ex_tf32_rs<BM>, XW_SMEM_BYTES, &allowed);
    if (e != cudaSuccess)
        return wl_cuda_check(backend, e, "raising the shared-memory limit of gemm_ex_tf32_rs");
    gemm_ex_tf32_rs<BM>
        <<<blocks, XW_THREADS, XW_SMEM_BYTES, wl_cuda_stream(backend)>>>(map_a, map_b, p);
    return WL_CUDA_LAUNCHED(backend, "gemm_ex TF32 wgmma kernel (B from registers)");
}

extern "C" bool wl_gemm_ex_wgmma_available(wl_backend *backend)
{
    char reason[8];
    return wl_gemm_needs_sm90a(backend, XW_SMEM_BYTES, "TMA + wgmma", reason, sizeof reason) ==
           WARPLAB_OK;
}

/* The 3-D map of `planes` matrices like xw_encode's, `plane_stride`
 * elements apart (a multiple of 16 bytes); WARPLAB_ERROR_UNSUPPORTED where
 * the driver refuses it (nothing is launched: the caller loops instead). */
static warplab_status xw_encode_planes(encode_tiled_fn encode, CUtensorMap *map, const void *base,
                                       int kind, int rows, int cols, int ld, int box_cols,
                                       int box_rows, int planes, long long plane_stride)
{
    const size_t element_bytes = kind == XW_TF32 ? 4 : 2;
    const cuuint64_t dims[3] = {(cuuint64_t)cols, (cuuint64_t)rows, (cuuint64_t)planes};
    const cuuint64_t strides[2] = {(cuuint64_t)ld * element_bytes,
                                   (cuuint64_t)plane_stride * element_bytes};
    const cuuint32_t box[3] = {(cuuint32_t)box_cols, (cuuint32_t)box_rows, 1};
    const cuuint32_t element_strides[3] = {1, 1, 1};
    const CUtensorMapDataType type = kind == XW_BF16   ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                                     : kind == XW_FP16 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
                                                       : CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
    const CUresult r =
        encode(map, type, 3, (void *)base, dims, strides, box, element_strides,
               CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
               CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    return r == CUDA_SUCCESS ? WARPLAB_OK : WARPLAB_ERROR_UNSUPPORTED;
}

/* FP32 C of `planes` matrices, plane_stride elements apart, for the copy
 * engine's stores (tma_encode_c's boxes). False where the driver refuses
 * it: the register epilogue stores C instead. */
static bool xw_encode_c_planes(encode_tiled_fn encode, CUtensorMap *map, void *base, int rows,
                               int cols, int ld, int planes, long long plane_stride)
{
    const cuuint64_t dims[3] = {(cuuint64_t)cols, (cuuint64_t)rows, (cuuint64_t)planes};
    const cuuint64_t strides[2] = {(cuuint64_t)ld * 4, (cuuint64_t)plane_stride * 4};
    const cuuint32_t box[3] = {32, 64, 1};
    const cuuint32_t element_strides[3] = {1, 1, 1};
    return encode(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 3, base, dims, strides, box,
                  element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                  CU_TENSOR_MAP_L2_PROMOTION_NONE,
                  CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

extern "C" warplab_status wl_gemm_ex_wgmma_run(wl_backend *backend, const wl_gemm_ex_wgmma_call *c)
{
    const wl_gemm_ex_wgmma_batch one = {1, 0, 0, 0};
    return wl_gemm_ex_wgmma_run_batched(backend, c, &one);
}

extern "C" warplab_status wl_gemm_ex_wgmma_run_batched(wl_backend *backend,
                                                       const wl_gemm_ex_wgmma_call *c,
                                                       const wl_gemm_ex_wgmma_batch *batch)
{
    const int kind = c->type == WARPLAB_BFLOAT16  ? XW_BF16
                     : c->type == WARPLAB_FLOAT16 ? XW_FP16
                                                  : XW_TF32;
    const int element_bytes = kind == XW_TF32 ? 4 : 2;
    /* The tall tile (192 x 128): 16-bit, no stream-K shares (refused, not
     * half supported: the shares' hand-over slots are 128-row). */
    const bool tall = c->bm == XW_TALL;
    /* The swapped product: 128 x 96 tiles (and they only it), 16-bit, K-major
     * B, one matrix, no stream-K shares. */
    const bool swap_width = XW_SWAP_WIDTH(c->bn);
    if (swap_width != c->c_transposed ||
        (swap_width && (kind == XW_TF32 || c->b_n_major || c->bm != 0 || c->sk_workers != 0 ||
                        batch->count != 1)))
        return wl_fail(backend, WARPLAB_ERROR_INVALID_ARGUMENT,
                       "gemm_ex wgmma: the swapped 16-bit product runs 128 x 96 tiles alone (tiles "
                       "128x%d%s)",
                       c->bn, c->c_transposed ? ", C transposed" : "");
    if ((c->bn != 128 && c->bn != 256 && !swap_width && (c->bn != XW_NARROW || kind == XW_TF32)) ||
        (c->bm != 0 && !tall) ||
        (tall && (c->bn != 128 || kind == XW_TF32 || c->sk_workers != 0)) || c->splits < 1 ||
        c->m <= 0 || c->n <= 0 || c->k <= 0 || (kind == XW_TF32 && c->a_m_major))
        return wl_fail(backend, WARPLAB_ERROR_INVALID_ARGUMENT,
                       "gemm_ex wgmma: an invalid plan (tiles %dx%d, %d splits)", c->bm, c->bn,
                       c->splits);
    /* A batch: 16-bit, k whole, A's and B's matrices on 16 bytes. */
    const bool batched = batch->count > 1;
    /* The 192-row tile is not planned for batches (gemm_batched.cu's width
     * choice keeps 128-row tiles): refused rather than run untested. */
    if (batch->count < 1 ||
        (batched && (kind == XW_TF32 || c->splits != 1 || tall || batch->stride_a * 2 % 16 != 0 ||
                     batch->stride_b * 2 % 16 != 0)))
        return wl_fail(backend, WARPLAB_ERROR_INVALID_ARGUMENT,
                       "gemm_ex wgmma: an invalid batch (%d matrices, %d splits)", batch->count,
                       c->splits);
    static encode_tiled_fn encode = NULL;
    if (!encode) {
        const warplab_status status = find_encoder(backend, &encode);
        if (status != WARPLAB_OK)
            return status;
    }
    const int box_k = XW_ROW_BYTES / element_bytes;
    CUtensorMap map_a, map_b;
    /* TF32 with B N-major: C^T = B^T A^T, B^T from registers, tiles of bn
     * rows of m x 128 columns of n; A K-major boxes of bn rows. */
    const bool rs = kind == XW_TF32 && c->b_n_major;
    const int bm = rs ? c->bn : tall ? XW_TALL : XW_BM_OF(c->bn), tiles_m = (c->m + bm - 1) / bm;
    /* K-major A with one tile row: boxes of m rows (to the next 8, a
     * swizzle atom), not the tile's. Rows past m are never stored, and the
     * copy engine's zero fill of a box mostly past the edge is slow (the
     * narrow tile: 2 x 4096 x 4096 took 22 us, 64 x 4096 x 4096 17). */
    const int m_rows = (c->m + 7) / 8 * 8;
    const int a_rows = !rs && !c->a_m_major && tiles_m == 1 && m_rows < bm ? m_rows : bm;
    warplab_status status;
    const bool a_planes = batched && batch->stride_a != 0,
               b_planes = batched && batch->stride_b != 0;
    if (a_planes && c->a_m_major)
        status = xw_encode_planes(encode, &map_a, c->a, kind, c->k, c->m, c->lda, 64, 64,
                                  batch->count, batch->stride_a);
    else if (a_planes)
        status = xw_encode_planes(encode, &map_a, c->a, kind, c->m, c->k, c->lda, box_k, a_rows,
                                  batch->count, batch->stride_a);
    else if (c->a_m_major)
        status = xw_encode(backend, encode, &map_a, c->a, kind, c->k, c->m, c->lda, 64, 64);
    else
        status = xw_encode(backend, encode, &map_a, c->a, kind, c->m, c->k, c->lda, box_k, a_rows);
    if (status == WARPLAB_OK && b_planes && c->b_n_major)
        status = xw_encode_planes(encode, &map_b, c->b, kind, c->k, c->n, c->ldb, 64, 64,
                                  batch->count, batch->stride_b);
    else if (status == WARPLAB_OK && b_planes)
        status = xw_encode_planes(encode, &map_b, c->b, kind, c->n, c->k, c->ldb, box_k, c->bn,
                                  batch->count, batch->stride_b);
    else if (status == WARPLAB_OK && rs)
        status = xw_encode(backend, encode, &map_b, c->b, kind, c->k, c->n, c->ldb, 32, 32);
    else if (status == WARPLAB_OK && c->b_n_major)
        status = xw_encode(backend, encode, &map_b, c->b, kind, c->k, c->n, c->ldb, 64, 64);
    else if (status == WARPLAB_OK)
        status = xw_encode(backend, encode, &map_b, c->b, kind, c->n, c->k, c->ldb, box_k, c->bn);
    if (status != WARPLAB_OK)
        return status;
    xw_params p;
    p.c = c->c;
    p.part = c->part;
    p.m = c->m;
    p.n = c->n;
    p.k = c->k;
    p.ldc = c->ldc;
    p.alpha = c->alpha;
    p.beta = c->beta;
    p.narrow = c->c_narrow;
    p.tma_store = false;
    const size_t c_element = kind == XW_TF32 || !c->c_narrow ? 4 : 2;
    p.pairs = c->ldc % 2 == 0 && (uintptr_t)c->c % (2 * c_element) == 0;
    p.a_bytes = a_rows * XW_ROW_BYTES;
    p.batch = batch->count;
    p.a_planes = a_planes;
    p.b_planes = b_planes;
    p.c_batch_bytes = batch->stride_c * (long long)c_element;
    /* Pairs stay aligned in every matrix only with an even stride. */
    p.pairs = p.pairs && (!batched || batch->stride_c % 2 == 0);
    p.tiles_m = tiles_m;
    p.tiles_n = rs ? (c->n + XW_RS_BN - 1) / XW_RS_BN : (c->n + c->bn - 1) / c->bn;
    p.k_tiles = (c->k + box_k - 1) / box_k;
    p.split_tiles = (c->k_chunk + box_k - 1) / box_k;
    if (p.split_tiles < 1)
        p.split_tiles = 1;
    p.splits = (p.k_tiles + p.split_tiles - 1) / p.split_tiles;
    p.c_transposed = c->c_transposed;
    if (p.splits != c->splits || (p.splits > 1 && !c->part))
        return wl_fail(backend, WARPLAB_ERROR_INVALID_ARGUMENT,
                       "gemm_ex wgmma: %d splits of %d k do not match the plan's %d", p.splits,
                       c->k_chunk, c->splits);
    const long long tiles = (long long)p.tiles_m * p.tiles_n, units = tiles * p.splits * p.batch;
    if (units > INT_MAX)
        return wl_fail(backend, WARPLAB_ERROR_UNSUPPORTED,
                       "gemm_ex wgmma: %lld tiles are more than the kernel counts", units);
    const int sms = backend->info.multiprocessors > 0 ? backend->info.multiprocessors : 1;
    unsigned blocks = (unsigned)(units < sms ? units : sms);
    memset(&p.walk, 0, sizeof p.walk);
    p.sk_flags = NULL;
    p.sk_slots = NULL;
    if (p.splits == 1 && !rs && p.batch == 1) {
        /* The tiles over the SMs; with stream-K's workspace, the last wave
         * in shares: the ticket and the flags lowered first (a launch leaves
         * the flags lowered, not the ticket). */
        const bool streamk = c->sk_space && kind != XW_TF32 && c->bn != XW_NARROW && !tall;
        blocks = (unsigned)wl_sk_plan(&p.walk, (int)tiles, p.k_tiles, sms, streamk);
        if (p.walk.workers != (streamk ? c->sk_workers : 0))
            return wl_fail(backend, WARPLAB_ERROR_INVALID_ARGUMENT,
                           "gemm_ex wgmma: %d stream-K shares planned, %d on this device",
                           c->sk_workers, p.walk.workers);
        if (p.walk.workers > 0) {
            p.sk_flags = (int *)c->sk_space;
            p.sk_slots = (float *)((char *)c->sk_space + wl_sk_flag_bytes(2 * p.walk.workers));
            const cudaError_t e =
                cudaMemsetAsync(p.sk_flags, 0, (1 + 2 * (size_t)p.walk.workers) * sizeof(int),
                                wl_cuda_stream(backend));
            if (e != cudaSuccess)
                return wl_cuda_check(backend, e, "lowering gemm_ex's stream-K flags");
        }
    }
    if (rs)
        return c->bn == 256 ? xw_launch_rs<256>(backend, map_a, map_b, p, blocks)
                            : xw_launch_rs<128>(backend, map_a, map_b, p, blocks);
    /* Results (FP32 C or the partial sums of a split; a 16-bit C) with
     * 16-byte rows and no C to read (beta 0) go through the copy engine. */
    CUtensorMap map_c;
    memset(&map_c, 0, sizeof map_c);
    void *store = p.splits > 1 ? (void *)p.part : p.c;
    const int store_ld = p.splits > 1 ? p.n : p.ldc;
    const bool c16 = p.splits == 1 && kind != XW_TF32 && p.narrow;
    p.tma_store = !p.c_transposed && (p.splits > 1 || p.beta == 0.0f) &&
                  (uintptr_t)store % 16 == 0 && store_ld % (c16 ? 8 : 4) == 0;
    if (p.tma_store && batched) {
        /* A batch: C's map has a plane a matrix, its strides 16-byte too
         * (a 16-bit C: xw_store_c16_tile's 64 x 64 boxes). */
        p.tma_store = c16 ? batch->stride_c % 8 == 0 &&
                                xw_encode_planes(encode, &map_c, p.c, kind, p.m, p.n, p.ldc, 64, 64,
                                                 p.batch, batch->stride_c) == WARPLAB_OK
                          : batch->stride_c % 4 == 0 &&
                                xw_encode_c_planes(encode, &map_c, store, p.m, p.n, store_ld,
                                                   p.batch, batch->stride_c);
    } else if (p.tma_store && c16) {
        status = tma_encode_c16(backend, encode, &map_c, store,
                                kind == XW_BF16 ? WARPLAB_BFLOAT16 : WARPLAB_FLOAT16, p.m, p.n,
                                store_ld);
        if (status != WARPLAB_OK)
            return status;
    } else if (p.tma_store) {
        status = tma_encode_c(backend, encode, &map_c, store, p.m, p.n, store_ld, p.splits);
        if (status != WARPLAB_OK)
            return status;
    }
    if (kind == XW_BF16)
        return xw_launch_bn<XW_BF16>(backend, map_a, map_b, map_c, p, blocks, bm, c->bn,
                                     c->a_m_major, c->b_n_major, c->after_copy);
    if (kind == XW_FP16)
        return xw_launch_bn<XW_FP16>(backend, map_a, map_b, map_c, p, blocks, bm, c->bn,
                                     c->a_m_major, c->b_n_major, c->after_copy);
    return xw_launch_bn<XW_TF32>(backend, map_a, map_b, map_c, p, blocks, bm, c->bn, false, false,
                                 c->after_copy);
}
/* warplab:end */
