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
 * Two rungs past it, each a variant of the same kernel, BF16,
 * FP16 and TF32 alike:
 *   - *_wgmma_tma_store: C leaves through shared memory and the copy
 *     engine, as in warplab_gemm_ex's kernel (wgmma_ex.sm90a.cu): each
 *     consumer writes 32-column slices of its 64 rows into two 8 KiB
 *     buffers in the 128-byte swizzle and one thread hands each to a bulk
 *     tensor store (whole lines, the edges clipped by the hardware), then
 *     goes on to the next tile's main loop while the stores drain; the
 *     register epilogue's 8-rows-x-32-bytes stores were a tile's fixed
 *     cost. setmaxnreg 24 / 240 instead of 40 / 232, a re-balance of the
 *     same 64,512 registers (the SASS: the producer's code uses 22, the
 *     consumers' 160, within the 168 ptxas gives all: no gain expected).
 *     Beta != 0 or rows of C that are not 16-byte aligned keep the register
 *     epilogue.
 *   - *_wgmma_cluster: two CTAs of a 2 x 1 thread-block cluster take
 *     neighbouring tile rows of one tile column. They multiply the same B
 *     tile, so each loads its own A and half of B, and the half goes into
 *     both CTAs' shared memory at once (.multicast::cluster): a third less
 *     traffic from L2 a k tile. A stage is refilled only when the consumers
 *     of both CTAs have released it (the empty barrier counts 4: two
 *     consumers in each CTA, arriving on their own and the peer's barrier,
 *     relaxed: a release arrive put a GPU-wide fence before each, and the
 *     rung ran at half speed; mbarrier_arrive_cluster, wgmma_ops.cuh).
 *     Tiles are walked in bands of 16 tile rows (8 pairs), and the grid is
 *     as many clusters as can be resident at once.
 *   - *_wgmma_streamk: the cluster rung with its last, partial wave spread
 *     over every cluster (stream-K). When the pairs of tiles are not a
 *     multiple of the clusters, the last wave leaves clusters idle for a
 *     whole tile's time (4096 x 4352 x 4096: 272 pairs on 66 clusters,
 *     4.12 waves, the kernel takes 5). Here the whole waves run as before,
 *     then the k tiles of the pairs left over are cut into equal shares,
 *     one a cluster, at any k tile (where a share is at most 3/4 of a
 *     tile). A piece that ends short of its tile's last k tile writes its
 *     FP32 sums to a workspace slot of its own and raises a flag; the piece
 *     that holds the last k tile adds the others' sums (in order: the
 *     result is the same from run to run) and stores C. A cluster does the
 *     head of its later tile first and the tail of its earlier tile last,
 *     so all clusters stay near the same k tile (L2 hits) and the sums a
 *     tail waits for were written at the start of the others' shares
 *     (stream_k.cuh).
 * Compiled for sm_90a alone (its own CMake target); devices other than
 * compute capability 9.0 are refused before launch. */
/* warplab:rung gemm bf16_wgmma_tma tf32_wgmma_tma bf16_wgmma_tma_store bf16_wgmma_cluster
 * fp16_wgmma_tma_store fp16_wgmma_cluster tf32_wgmma_tma_store tf32_wgmma_cluster
 * bf16_wgmma_streamk fp16_wgmma_streamk tf32_wgmma_streamk */
#include "gemm_launch.h"
#include "tma_encode.cuh"

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdlib.h>
#include <string.h>
#include <type_traits>

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define WL_SM90A_BODY 1
#include "wgmma_ops.cuh"
#else
#define WL_SM90A_BODY 0
#endif
#include "stream_k.cuh"

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
/* Tile rows walked together, for L2 reuse (the cluster: pairs of rows). */
#define TMA_GROUP_ROWS 8

/* The operand types the kernel multiplies: TF32 (FP32 words), BF16, FP16. */
enum { TMA_TF32 = 0, TMA_BF16 = 1, TMA_FP16 = 2 };

/* What the rungs add to the kernel: C stored from the registers
 * (*_wgmma_tma, and warplab_gemm_ex), C through the copy engine
 * (*_wgmma_tma_store), that with a 2 x 1 cluster multicasting B
 * (*_wgmma_cluster), and that with the last wave cut into equal shares of
 * k tiles (*_wgmma_streamk). */
enum { TMA_REGISTERS = 0, TMA_STORE = 1, TMA_CLUSTER = 2, TMA_STREAMK = 3 };

/* Stream-K's workspace slot a CTA: its two consumers' 64 x 256 FP32 sums. */
#define TMA_SK_SLOT_FLOATS (TMA_CONSUMERS * 128 * 128)

template <int VARIANT> struct tma_variant {
    static constexpr bool CLUSTER = VARIANT == TMA_CLUSTER || VARIANT == TMA_STREAMK;
    static constexpr bool STREAMK = VARIANT == TMA_STREAMK;
    /* C's staging buffers, two of 8 KiB a consumer, after the stages (the
     * barriers after them): 230,464 bytes in all. */
    static constexpr int STAGING_BYTES = VARIANT == TMA_REGISTERS ? 0 : TMA_CONSUMERS * 2 * 8192;
    static constexpr size_t SMEM_BYTES = TMA_SMEM_BYTES + STAGING_BYTES;
    /* setmaxnreg: producer and consumer registers a thread. */
    static constexpr int PRODUCER_REGISTERS = VARIANT == TMA_REGISTERS ? 40 : 24;
    static constexpr int CONSUMER_REGISTERS = VARIANT == TMA_REGISTERS ? 232 : 240;
    /* A stage's empty barrier hears from every consumer that reads it: in
     * a cluster, the B half a producer multicasts is read in both CTAs. */
    static constexpr unsigned EMPTY_ARRIVALS = CLUSTER ? 2 * TMA_CONSUMERS : TMA_CONSUMERS;
};

struct tma_params {
    void *c; /* float, or the 16-bit input type (warplab_gemm_ex) */
    int m, n, k, ldc;
    float alpha, beta;
    int tiles_m, tiles_n, k_tiles;
    int cluster_rows;    /* pairs of tile rows (TMA_CLUSTER, TMA_STREAMK) */
    bool tma_store;      /* C through map_c (TMA_STORE, TMA_CLUSTER, TMA_STREAMK) */
    wl_sk_schedule walk; /* tiles (in a cluster, pairs of tiles) over the workers */
    float *partials;     /* stream-K: a slot of TMA_SK_SLOT_FLOATS a CTA */
    int *flags;          /* stream-K: a flag a slot's consumer, 1 once its sums are written */
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

#if WL_SM90A_BODY
/* Unit u of a block's walk -> its tile: tiles in bands of TMA_GROUP_ROWS
 * tile rows; a cluster walks pairs of tile rows (bands of 16 tile rows),
 * rank r taking the pair's row r. */
template <bool CLUSTER>
__device__ __forceinline__ void tma_tile_of_unit(int u, const tma_params &p, int rank, int *tile_m,
                                                 int *tile_n)
{
    if constexpr (CLUSTER) {
        int pair;
        gemm_tile_of_block(u, p.cluster_rows, p.tiles_n, TMA_GROUP_ROWS, &pair, tile_n);
        *tile_m = 2 * pair + rank;
    } else {
        gemm_tile_of_block(u, p.tiles_m, p.tiles_n, TMA_GROUP_ROWS, tile_m, tile_n);
    }
}

/* A consumer is done reading a stage: its producer may refill it (in a
 * cluster, both CTAs' producers, each of which writes half of B into it). */
template <bool CLUSTER> __device__ __forceinline__ void tma_release(uint32_t empty)
{
    if constexpr (CLUSTER) {
        mbarrier_arrive_cluster(empty, 0);
        mbarrier_arrive_cluster(empty, 1);
    } else {
        mbarrier_arrive(empty);
    }
}

#endif

template <int KIND, typename OUT, int VARIANT>
__global__ void __launch_bounds__(TMA_THREADS, 1)
    gemm_wgmma_tma(const __grid_constant__ CUtensorMap map_a,
                   const __grid_constant__ CUtensorMap map_bt,
                   const __grid_constant__ CUtensorMap map_c, const tma_params p)
{
#if WL_SM90A_BODY
    typedef tma_variant<VARIANT> V;
    constexpr int ELEMENT_BYTES = KIND == TMA_TF32 ? 4 : 2;
    extern __shared__ __align__(1024) unsigned char smem_raw[];
    const uint32_t raw = smem_address(smem_raw);
    const uint32_t tiles_base = (raw + 1023) & ~1023u; /* the swizzle wants 1024 */
    const uint32_t staging = tiles_base + TMA_STAGES * TMA_STAGE_BYTES;
    const uint32_t full_bar = staging + V::STAGING_BYTES;
    const uint32_t empty_bar = full_bar + TMA_STAGES * 8;
    const int tid = threadIdx.x, warpgroup = tid / 128;
    /* The walk: tiles, one block after another; in a cluster, pairs of
     * tiles, one cluster after another, this CTA's rank its row of each. */
    const int rank = V::CLUSTER ? (int)cluster_ctarank() : 0;
    const int worker = V::CLUSTER ? (int)cluster_index_x() : (int)blockIdx.x;
    const int workers = V::CLUSTER ? (int)cluster_count_x() : (int)gridDim.x;

    if (tid == 0) {
        for (int s = 0; s < TMA_STAGES; s++) {
            mbarrier_init(full_bar + 8 * s, 1);                  /* the producer's arrival */
            mbarrier_init(empty_bar + 8 * s, V::EMPTY_ARRIVALS); /* the consumers' */
        }
        mbarrier_init_fence();
        tma_prefetch_descriptor(&map_a);
        tma_prefetch_descriptor(&map_bt);
        if (VARIANT != TMA_REGISTERS && p.tma_store)
            tma_prefetch_descriptor(&map_c);
    }
    /* In a cluster, no peer may multicast into or arrive on a barrier that
     * is not yet initialised. */
    if constexpr (V::CLUSTER)
        cluster_sync();
    else
        __syncthreads();

    if (warpgroup == 0) {
        /* Producer: few registers, one thread issuing copies. */
        asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(V::PRODUCER_REGISTERS)
                     : "memory");
        if (tid == 0) {
            int stage = 0;
            uint32_t phase = 0;
            wl_sk_walk walk = wl_sk_walk_start<V::STREAMK>(p.walk, worker, workers, worker);
            wl_sk_piece piece;
            while (wl_sk_walk_next<V::STREAMK>(walk, p.walk, &piece)) {
                int tile_m, tile_n;
                tma_tile_of_unit<V::CLUSTER>(piece.unit, p, rank, &tile_m, &tile_n);
                for (int kt = piece.k_begin; kt < piece.k_end; kt++) {
                    const uint32_t a_tile = tiles_base + stage * TMA_STAGE_BYTES;
                    const uint32_t full = full_bar + 8 * stage;
                    const int k0 = kt * (TMA_ROW_BYTES / ELEMENT_BYTES);
                    if constexpr (V::CLUSTER) {
                        /* The consumers of both CTAs are done with the
                         * stage's last tile (its B halves came from both). */
                        mbarrier_wait_cluster(empty_bar + 8 * stage, phase ^ 1);
                        /* Own A, own B half, the peer's B half: all counted
                         * here (the peer's bytes may come first: the phase
                         * still waits for this arrival). */
                        mbarrier_arrive_expect_bytes(full, TMA_STAGE_BYTES);
                        /* Rank 1 past the last, odd tile row loads real rows
                         * (the last tile row's) and stores nothing; a B half
                         * wholly past n loads the tile's first half instead
                         * (columns of C that are never stored). */
                        const int a_row = (tile_m < p.tiles_m ? tile_m : p.tiles_m - 1) * TMA_BM;
                        int b_row = tile_n * TMA_BN + rank * (TMA_BN / 2);
                        if (b_row >= p.n)
                            b_row = tile_n * TMA_BN;
                        tma_load_2d(a_tile, &map_a, full, k0, a_row);
                        tma_load_2d_multicast(a_tile + TMA_A_BYTES + rank * (TMA_B_BYTES / 2),
                                              &map_bt, full, k0, b_row, 0x3);
                    } else {
                        /* Wait until both consumers are done with the
                         * stage's last tile (at the first pass: at once). */
                        mbarrier_wait(empty_bar + 8 * stage, phase ^ 1);
                        mbarrier_arrive_expect_bytes(full, TMA_STAGE_BYTES);
                        tma_load_2d(a_tile, &map_a, full, k0, tile_m * TMA_BM);
                        tma_load_2d(a_tile + TMA_A_BYTES, &map_bt, full, k0, tile_n * TMA_BN);
                    }
                    if (++stage == TMA_STAGES) {
                        stage = 0;
                        phase ^= 1;
                    }
                }
            }
        }
    } else {
        /* Consumers: 64 rows x 256 columns of each tile, FP32 sums. */
        asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(V::CONSUMER_REGISTERS)
                     : "memory");
        const int consumer = warpgroup - 1, warp = tid % 128 / 32, lane = tid % 32;
        const bool signals = tid % 128 == 0;
        const bool pairs = p.ldc % 2 == 0 && (uintptr_t)p.c % (2 * sizeof(OUT)) == 0;
        int stage = 0;
        uint32_t phase = 0;
        float acc[128];
        wl_sk_walk walk = wl_sk_walk_start<V::STREAMK>(p.walk, worker, workers, worker);
        wl_sk_piece piece;
        while (wl_sk_walk_next<V::STREAMK>(walk, p.walk, &piece)) {
            int tile_m, tile_n;
            tma_tile_of_unit<V::CLUSTER>(piece.unit, p, rank, &tile_m, &tile_n);
#pragma unroll
            for (int i = 0; i < 128; i++)
                acc[i] = 0.0f;
            int previous = -1;
            for (int kt = piece.k_begin; kt < piece.k_end; kt++) {
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
                    tma_release<V::CLUSTER>(empty_bar + 8 * previous);
                previous = stage;
                if (++stage == TMA_STAGES) {
                    stage = 0;
                    phase ^= 1;
                }
            }
            wgmma_wait<0>();
            wgmma_pin(acc);
            if (previous >= 0 && signals)
                tma_release<V::CLUSTER>(empty_bar + 8 * previous);
            if constexpr (V::STREAMK) {
                /* A piece short of its tile's last k tile leaves its sums to
                 * the piece that holds it, which adds the others'. */
                if (piece.k_end < p.k_tiles) {
                    wl_sk_write(p.partials, p.flags, (int)blockIdx.x * TMA_CONSUMERS + consumer,
                                consumer, tid % 128, signals, acc);
                    continue;
                }
                if (piece.k_begin > 0)
                    wl_sk_gather(p.partials, p.flags, p.walk, piece, worker, 2, rank, TMA_CONSUMERS,
                                 consumer, tid % 128, signals, acc);
            }
            /* Nothing to store where this consumer's 64 rows all lie past
             * m: the last tile row's edge, or rank 1 of a cluster past the
             * last, odd tile row (it loaded and released in step with its
             * peer). */
            if (VARIANT != TMA_REGISTERS && tile_m * TMA_BM + consumer * 64 >= p.m)
                continue;

            if (VARIANT != TMA_REGISTERS && p.tma_store) {
                /* Through shared memory, 32 columns at a time, two buffers a
                 * consumer: the copy engine writes whole lines of C while the
                 * next tile's main loop runs. */
                store_c_tile(acc, &map_c, staging + (uint32_t)consumer * 16384, consumer, warp,
                             lane, signals, tile_n * TMA_BN, tile_m * TMA_BM + consumer * 64, 0,
                             p.alpha);
                continue;
            }

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
        /* The block's shared memory lives until its last stores are done. */
        if (VARIANT != TMA_REGISTERS && p.tma_store && signals)
            tma_store_drain();
    }
    /* No CTA of a cluster exits while its peer may still arrive on its
     * barriers (every thread, the producer warpgroup's idle ones too). */
    if constexpr (V::CLUSTER)
        cluster_sync();
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
    CUtensorMap map_a, map_bt, map_c;
    const void *c_mapped; /* the C that map_c describes; NULL: C from the registers */
    unsigned clusters;    /* TMA_CLUSTER, TMA_STREAMK: 2 x 1 clusters resident at once */
    float *partials;      /* TMA_STREAMK: the workspace, when the problem has shares */
    int *flags;
} tma_state;

/* A problem's tiles and k tiles (the walk: tma_schedule). */
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
    p.cluster_rows = (p.tiles_m + 1) / 2;
    p.tma_store = false;
    memset(&p.walk, 0, sizeof p.walk);
    p.partials = NULL;
    p.flags = NULL;
    return p;
}

/* The walk over `capacity` workers (blocks, or clusters; stream_k.cuh);
 * returns how many to launch. */
static int tma_schedule(tma_params *p, bool cluster, bool streamk, int capacity)
{
    const int units = cluster ? p->cluster_rows * p->tiles_n : p->tiles_m * p->tiles_n;
    return wl_sk_plan(&p->walk, units, p->k_tiles, capacity, streamk);
}

/* The persistent grid without clusters: one block an SM at most. */
static unsigned tma_blocks(const wl_backend *backend, tma_params *p)
{
    const int sms = backend->info.multiprocessors > 0 ? backend->info.multiprocessors : 1;
    return (unsigned)tma_schedule(p, false, false, sms);
}

template <int VARIANT>
static warplab_status tma_supports(wl_backend *backend, const wl_problem *problem, char *reason,
                                   size_t len)
{
    (void)problem;
    return wl_gemm_needs_sm90a(backend, tma_variant<VARIANT>::SMEM_BYTES, "TMA + wgmma", reason,
                               len);
}

/* A launch of `blocks` CTAs in 2 x 1 clusters. */
static void tma_cluster_config(cudaLaunchConfig_t *config, cudaLaunchAttribute *attribute,
                               unsigned blocks, size_t smem_bytes, cudaStream_t stream)
{
    *config = cudaLaunchConfig_t{};
    *attribute = cudaLaunchAttribute{};
    attribute->id = cudaLaunchAttributeClusterDimension;
    attribute->val.clusterDim.x = 2;
    attribute->val.clusterDim.y = 1;
    attribute->val.clusterDim.z = 1;
    config->gridDim = dim3(blocks, 1, 1);
    config->blockDim = dim3(TMA_THREADS, 1, 1);
    config->dynamicSmemBytes = smem_bytes;
    config->stream = stream;
    config->attrs = attribute;
    config->numAttrs = 1;
}

/* The persistent cluster grid: as many 2 x 1 clusters as the device holds
 * at once, which is not simply half the SMs (a cluster's CTAs share a GPC,
 * and a GPC may have an odd count of usable SMs). */
static warplab_status tma_cluster_capacity(wl_backend *backend, const void *kernel,
                                           size_t smem_bytes, unsigned *clusters)
{
    cudaLaunchConfig_t config;
    cudaLaunchAttribute attribute;
    tma_cluster_config(&config, &attribute, 2, smem_bytes, wl_cuda_stream(backend));
    int count = 0;
    const cudaError_t e = cudaOccupancyMaxActiveClusters(&count, kernel, &config);
    if (e != cudaSuccess)
        return wl_cuda_check(backend, e, "counting the resident 2 x 1 clusters of the TMA kernel");
    if (count < 1)
        return wl_fail(backend, WARPLAB_ERROR_UNSUPPORTED,
                       "%s cannot hold a 2 x 1 cluster of the TMA wgmma kernel",
                       backend->info.name);
    *clusters = (unsigned)count;
    return WARPLAB_OK;
}

template <int KIND, int VARIANT>
static warplab_status tma_setup(wl_backend *backend, const wl_launch *launch, void **state)
{
    typedef tma_variant<VARIANT> V;
    tma_state *s = (tma_state *)calloc(1, sizeof *s);
    if (!s)
        return wl_fail(backend, WARPLAB_ERROR_HOST_OUT_OF_MEMORY, "TMA gemm state");
    *state = s;
    warplab_status status = wl_gemm_kmajor_make(backend, launch,
                                                KIND == TMA_BF16   ? WL_GEMM_OPERANDS_BF16
                                                : KIND == TMA_FP16 ? WL_GEMM_OPERANDS_FP16
                                                                   : WL_GEMM_OPERANDS_TF32,
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
    /* A cluster's CTA loads half of the B tile (and multicasts it). */
    if (status == WARPLAB_OK)
        status = encode_operand(backend, encode, &s->map_bt, s->operands.bt, KIND, g.n, g.k,
                                s->operands.ldbt, V::CLUSTER ? TMA_BN / 2 : TMA_BN);
    /* The copy engine stores C where C is not read (beta 0) and its base and
     * rows are 16-byte aligned; elsewhere C leaves from the registers. */
    if (status == WARPLAB_OK && VARIANT != TMA_REGISTERS && g.beta == 0.0f &&
        wl_gemm_rows_aligned(g.c, g.ldc)) {
        status = tma_encode_c(backend, encode, &s->map_c, g.c, g.m, g.n, g.ldc, 1);
        if (status == WARPLAB_OK)
            s->c_mapped = g.c;
    }
    if (status == WARPLAB_OK)
        status = wl_cuda_check(backend,
                               cudaFuncSetAttribute(gemm_wgmma_tma<KIND, float, VARIANT>,
                                                    cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                    (int)V::SMEM_BYTES),
                               "raising the shared-memory limit of the TMA wgmma kernel");
    if (status == WARPLAB_OK && V::CLUSTER)
        status = tma_cluster_capacity(backend, (const void *)gemm_wgmma_tma<KIND, float, VARIANT>,
                                      V::SMEM_BYTES, &s->clusters);
    if (status == WARPLAB_OK && V::STREAMK) {
        /* A workspace slot and two flags a CTA of the shares, the flags
         * lowered (each finishing share lowers the flags it read). */
        tma_params p =
            tma_make_params(g.c, g.m, g.n, g.k, g.ldc, g.alpha, g.beta, KIND == TMA_TF32 ? 4 : 2);
        tma_schedule(&p, true, true, (int)s->clusters);
        if (p.walk.workers > 0) {
            const size_t ctas = 2 * (size_t)p.walk.workers;
            cudaError_t e =
                cudaMalloc((void **)&s->partials, ctas * TMA_SK_SLOT_FLOATS * sizeof(float));
            if (e == cudaSuccess)
                e = cudaMalloc((void **)&s->flags, ctas * TMA_CONSUMERS * sizeof(int));
            if (e == cudaSuccess)
                e = cudaMemsetAsync(s->flags, 0, ctas * TMA_CONSUMERS * sizeof(int),
                                    wl_cuda_stream(backend));
            if (e == cudaSuccess)
                e = cudaStreamSynchronize(wl_cuda_stream(backend));
            status = wl_cuda_check(backend, e, "allocating the stream-K workspace");
        }
    }
    return status;
}

static void tma_teardown(wl_backend *backend, void *state)
{
    (void)backend;
    if (!state)
        return;
    tma_state *s = (tma_state *)state;
    wl_gemm_kmajor_free(&s->operands);
    cudaFree(s->partials);
    cudaFree(s->flags);
    free(s);
}

template <int KIND, int VARIANT> static const char *tma_launch_name()
{
    static const char *const names[3][4] = {{"gemm tf32_wgmma_tma", "gemm tf32_wgmma_tma_store",
                                             "gemm tf32_wgmma_cluster", "gemm tf32_wgmma_streamk"},
                                            {"gemm bf16_wgmma_tma", "gemm bf16_wgmma_tma_store",
                                             "gemm bf16_wgmma_cluster", "gemm bf16_wgmma_streamk"},
                                            {"gemm fp16_wgmma_tma", "gemm fp16_wgmma_tma_store",
                                             "gemm fp16_wgmma_cluster", "gemm fp16_wgmma_streamk"}};
    return names[KIND][VARIANT];
}

template <int KIND, int VARIANT>
static warplab_status tma_launch(wl_backend *backend, const wl_launch *launch, void *state)
{
    typedef tma_variant<VARIANT> V;
    const tma_state *s = (const tma_state *)state;
    const gemm_params g = wl_gemm_params(launch);
    if (g.m == 0 || g.n == 0)
        return WARPLAB_OK;
    tma_params p =
        tma_make_params(g.c, g.m, g.n, g.k, g.ldc, g.alpha, g.beta, KIND == TMA_TF32 ? 4 : 2);
    p.tma_store = s->c_mapped && s->c_mapped == (const void *)g.c;
    const char *what = tma_launch_name<KIND, VARIANT>();
    if constexpr (V::CLUSTER) {
        /* Pairs of tile rows x tile columns, one cluster each at a time. */
        const unsigned clusters = (unsigned)tma_schedule(&p, true, V::STREAMK, (int)s->clusters);
        p.partials = s->partials;
        p.flags = s->flags;
        if (p.walk.workers > 0 && !s->partials)
            return wl_fail(backend, WARPLAB_ERROR_INVALID_ARGUMENT,
                           "%s: launched on a problem its stream-K workspace was not set up for",
                           what);
        cudaLaunchConfig_t config;
        cudaLaunchAttribute attribute;
        tma_cluster_config(&config, &attribute, 2 * clusters, V::SMEM_BYTES,
                           wl_cuda_stream(backend));
        const cudaError_t e = cudaLaunchKernelEx(&config, gemm_wgmma_tma<KIND, float, VARIANT>,
                                                 s->map_a, s->map_bt, s->map_c, p);
        if (e != cudaSuccess)
            return wl_cuda_check(backend, e, what);
        return WL_CUDA_LAUNCHED(backend, what);
    }
    const unsigned blocks = tma_blocks(backend, &p);
    gemm_wgmma_tma<KIND, float, VARIANT>
        <<<blocks, TMA_THREADS, V::SMEM_BYTES, wl_cuda_stream(backend)>>>(s->map_a, s->map_bt,
                                                                          s->map_c, p);
    return WL_CUDA_LAUNCHED(backend, what);
}

/* The row's note for the new rungs: how C left, and the cluster grid. */
template <int KIND, int VARIANT>
static void tma_describe(wl_backend *backend, const wl_launch *launch, char *text, size_t len)
{
    typedef tma_variant<VARIANT> V;
    const gemm_params g = wl_gemm_params(launch);
    const char *c_path = g.beta == 0.0f && wl_gemm_rows_aligned(g.c, g.ldc)
                             ? "C by TMA store"
                             : "C from the registers (beta != 0 or rows not 16-byte aligned)";
    if (!V::CLUSTER || g.m == 0 || g.n == 0) {
        wl_format(text, len, "%s", c_path);
        return;
    }
    cudaLaunchConfig_t config;
    cudaLaunchAttribute attribute;
    tma_cluster_config(&config, &attribute, 2, V::SMEM_BYTES, wl_cuda_stream(backend));
    int resident = 0;
    if (cudaOccupancyMaxActiveClusters(
            &resident, (const void *)gemm_wgmma_tma<KIND, float, VARIANT>, &config) != cudaSuccess)
        (void)cudaGetLastError(); /* a note only: leave no error behind */
    tma_params p =
        tma_make_params(g.c, g.m, g.n, g.k, g.ldc, g.alpha, g.beta, KIND == TMA_TF32 ? 4 : 2);
    const int clusters = tma_schedule(&p, true, V::STREAMK, resident > 0 ? resident : 1);
    wl_format(text, len, "%s; %d clusters of 2 CTAs (%d fit at once) over %d pairs of tiles",
              c_path, clusters, resident, p.walk.units);
    const size_t used = strlen(text);
    if (p.walk.workers > 0 && used + 1 < len)
        wl_format(text + used, len - used,
                  "; stream-K: the last %d pairs' %d k tiles in %d shares of about %d",
                  p.walk.units - p.walk.full_units, p.walk.k_shared, p.walk.workers,
                  p.walk.k_shared / p.walk.workers);
}

#define TMA_IMPL(name, id, kind, variant, describer)                                               \
    extern "C" const wl_impl name = {.ladder = "gemm",                                             \
                                     .rung = id,                                                   \
                                     .supports = tma_supports<variant>,                            \
                                     .setup = tma_setup<kind, variant>,                            \
                                     .launch = tma_launch<kind, variant>,                          \
                                     .teardown = tma_teardown,                                     \
                                     .describe = describer}
/* The rungs past *_wgmma_tma describe how C left and the cluster grid. */
#define TMA_IMPL_DESCRIBED(name, id, kind, variant)                                                \
    TMA_IMPL(name, id, kind, variant, (tma_describe<kind, variant>))
TMA_IMPL(wl_gemm_bf16_wgmma_tma_impl, "bf16_wgmma_tma", TMA_BF16, TMA_REGISTERS, NULL);
TMA_IMPL(wl_gemm_tf32_wgmma_tma_impl, "tf32_wgmma_tma", TMA_TF32, TMA_REGISTERS, NULL);
TMA_IMPL_DESCRIBED(wl_gemm_bf16_wgmma_tma_store_impl, "bf16_wgmma_tma_store", TMA_BF16, TMA_STORE);
TMA_IMPL_DESCRIBED(wl_gemm_bf16_wgmma_cluster_impl, "bf16_wgmma_cluster", TMA_BF16, TMA_CLUSTER);
TMA_IMPL_DESCRIBED(wl_gemm_fp16_wgmma_tma_store_impl, "fp16_wgmma_tma_store", TMA_FP16, TMA_STORE);
TMA_IMPL_DESCRIBED(wl_gemm_fp16_wgmma_cluster_impl, "fp16_wgmma_cluster", TMA_FP16, TMA_CLUSTER);
TMA_IMPL_DESCRIBED(wl_gemm_tf32_wgmma_tma_store_impl, "tf32_wgmma_tma_store", TMA_TF32, TMA_STORE);
TMA_IMPL_DESCRIBED(wl_gemm_tf32_wgmma_cluster_impl, "tf32_wgmma_cluster", TMA_TF32, TMA_CLUSTER);
TMA_IMPL_DESCRIBED(wl_gemm_bf16_wgmma_streamk_impl, "bf16_wgmma_streamk", TMA_BF16, TMA_STREAMK);
TMA_IMPL_DESCRIBED(wl_gemm_fp16_wgmma_streamk_impl, "fp16_wgmma_streamk", TMA_FP16, TMA_STREAMK);
TMA_IMPL_DESCRIBED(wl_gemm_tf32_wgmma_streamk_impl, "tf32_wgmma_streamk", TMA_TF32, TMA_STREAMK);

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
            cudaFuncSetAttribute(gemm_wgmma_tma<KIND, OUT, TMA_REGISTERS>,
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
    tma_params p = tma_make_params(o->c, o->m, o->n, o->k, o->ldc, o->alpha, o->beta,
                                   KIND == TMA_TF32 ? 4 : 2);
    CUtensorMap map_c; /* unused: C leaves from the registers */
    memset(&map_c, 0, sizeof map_c);
    const unsigned blocks = tma_blocks(backend, &p);
    gemm_wgmma_tma<KIND, OUT, TMA_REGISTERS>
        <<<blocks, TMA_THREADS, TMA_SMEM_BYTES, wl_cuda_stream(backend)>>>(map_a, map_bt, map_c, p);
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
