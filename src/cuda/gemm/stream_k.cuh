/* Stream-K for the persistent TMA + wgmma kernels: the last, partial wave
 * of a problem's tiles cut into equal shares of k tiles, one a worker (a
 * block, or a 2 x 1 cluster), and the hand-over of the shares' FP32 sums
 * from worker to worker. Shared by the ladder's kernel (wgmma_tma.sm90a.cu,
 * the *_wgmma_streamk rungs) and warplab_gemm_ex's 16-bit kernel
 * (wgmma_ex.sm90a.cu, where gemm_tiles16.c's cost model picks shares). The
 * schedule and the walk are host code too, tested on the CPU
 * (tests/emulate/test_stream_k.cpp).
 *
 * The walk: the whole units first (worker w takes w, w + workers, ...),
 * then the k tiles of the units left over, numbered unit by unit, in
 * equal shares. A share is shorter than a unit (else no unit would be
 * cut), so it holds the head of one unit (from its k tile 0) and the tail
 * of the unit before (to its last k tile), or one piece. Each worker does
 * the head first: every worker's k tile then stays within a unit's length
 * less a share's of every other's, so the workers read the same k tiles of
 * A and B at about the same time and find them in L2 (walked from each
 * share's start instead, BF16 4096^3 ran 199.6 us against 185.2 whole,
 * TF32 411 against 330, H100).
 *
 * The hand-over: a piece short of its unit's last k tile writes its sums
 * to its worker's workspace slot and raises a flag; the piece holding the
 * last k tile (the tail) adds the other pieces' sums in a fixed order (the
 * same result every run) and stores C. The tail is its worker's last
 * piece, and the sums it waits for are heads written at the start of the
 * others' shares (or a whole share inside the unit). A tail waits only for
 * workers of lower index: worker 0 waits for none, so the walk finishes
 * whenever workers start in index order (the hardware's order for the
 * ladder's grid, which fits at once; warplab_gemm_ex's kernel, which may
 * share the GPU with other kernels, numbers its shares by a ticket taken as
 * each block starts). Each flag is lowered once read, so a completed launch
 * leaves them all at 0. */
#ifndef WARPLAB_GEMM_STREAM_K_CUH
#define WARPLAB_GEMM_STREAM_K_CUH

#include "../../kernels/gemm_stream_k.h"

/* Where worker i's share begins (i = workers: the end of the last), in k
 * tiles past full_units'. */
__host__ __device__ __forceinline__ long long wl_sk_share_begin(const wl_sk_schedule &s, int i)
{
    return (long long)i * s.k_shared / s.workers;
}

/* A piece of a worker's walk: k tiles [k_begin, k_end) of one unit. */
struct wl_sk_piece {
    int unit, k_begin, k_end;
};

struct wl_sk_walk {
    int next_unit, step;
    int share_at, share_end; /* what is left of the share */
};

/* STREAMK false: whole units alone, the shares' code not compiled in (with
 * it, ptxas serialised the ladder's register-epilogue kernel's wgmma,
 * C7514). */
/* Worker `worker` of `workers` takes the whole units worker, worker +
 * workers, ..., then share `share` (the rung: its own index; warplab_gemm_ex:
 * a ticket taken as the block starts). */
template <bool STREAMK>
__host__ __device__ __forceinline__ wl_sk_walk wl_sk_walk_start(const wl_sk_schedule &s, int worker,
                                                                int workers, int share)
{
    wl_sk_walk walk;
    walk.next_unit = worker;
    walk.step = workers;
    walk.share_at = walk.share_end = 0;
    if (STREAMK && share < s.workers) {
        walk.share_at = (int)wl_sk_share_begin(s, share);
        walk.share_end = (int)wl_sk_share_begin(s, share + 1);
    }
    return walk;
}

template <bool STREAMK>
__host__ __device__ __forceinline__ bool wl_sk_walk_next(wl_sk_walk &walk, const wl_sk_schedule &s,
                                                         wl_sk_piece *piece)
{
    if (walk.next_unit < s.full_units) {
        piece->unit = walk.next_unit;
        piece->k_begin = 0;
        piece->k_end = s.k_tiles;
        walk.next_unit += walk.step;
        return true;
    }
    if (!STREAMK || walk.share_at >= walk.share_end)
        return false;
    /* The share's last unit first: its head, then the tail of the one
     * before (or the one piece). */
    const int last = (walk.share_end - 1) / s.k_tiles, last_begin = last * s.k_tiles;
    piece->unit = s.full_units + last;
    piece->k_end = walk.share_end - last_begin;
    if (walk.share_at < last_begin) {
        piece->k_begin = 0;
        walk.share_end = last_begin;
    } else {
        piece->k_begin = walk.share_at - last_begin;
        walk.share_at = walk.share_end;
    }
    return true;
}

#if WL_SM90A_BODY
/* The hand-over. A slot: each of a CTA's consumer warpgroups' 128 threads'
 * N sums, as N / 4 float4s, the j-th of thread t at [j][t] (a warp writes
 * and reads 512 contiguous bytes); CTA c's consumer's slot and flag at
 * index c * consumers + consumer. */
template <int N> __device__ __forceinline__ float4 *wl_sk_slot(float *slots, int index)
{
    return (float4 *)(slots + (size_t)index * 128 * N);
}

/* Writes the sums, then raises the flag: released at GPU scope after the
 * warpgroup's threads have met, so whoever acquires it sees every store. */
template <int N>
__device__ __forceinline__ void wl_sk_write(float *slots, int *flags, int index, int consumer,
                                            int thread, bool signals, const float (&acc)[N])
{
    float4 *slot = wl_sk_slot<N>(slots, index);
#pragma unroll
    for (int j = 0; j < N / 4; j++)
        __stcg(slot + j * 128 + thread,
               make_float4(acc[4 * j], acc[4 * j + 1], acc[4 * j + 2], acc[4 * j + 3]));
    consumer_sync(consumer);
    if (signals) {
        __threadfence();
        asm volatile("st.release.gpu.global.b32 [%0], %1;\n" ::"l"(flags + index), "r"(1)
                     : "memory");
    }
}

/* A tail adds the sums of its unit's other pieces, in order: those of
 * workers worker - 1, worker - 2, ... whose shares end past the unit's
 * start. A worker's CTAs are ctas consecutive indices (rank: this CTA's),
 * each with `consumers` slots. */
template <int N>
__device__ __forceinline__ void wl_sk_gather(float *slots, int *flags, const wl_sk_schedule &s,
                                             const wl_sk_piece &piece, int worker, int ctas,
                                             int rank, int consumers, int consumer, int thread,
                                             bool signals, float (&acc)[N])
{
    const long long unit_begin = (long long)(piece.unit - s.full_units) * s.k_tiles;
    for (int w = worker - 1; w >= 0 && wl_sk_share_begin(s, w + 1) > unit_begin; w--) {
        const int index = (w * ctas + rank) * consumers + consumer;
        if (signals) {
            int raised;
            do {
                asm volatile("ld.acquire.gpu.global.b32 %0, [%1];\n"
                             : "=r"(raised)
                             : "l"(flags + index)
                             : "memory");
            } while (raised == 0);
            *(volatile int *)(flags + index) = 0;
        }
        consumer_sync(consumer);
        const float4 *slot = wl_sk_slot<N>(slots, index);
#pragma unroll
        for (int j = 0; j < N / 4; j++) {
            const float4 sum = __ldcg(slot + j * 128 + thread);
            acc[4 * j] += sum.x;
            acc[4 * j + 1] += sum.y;
            acc[4 * j + 2] += sum.z;
            acc[4 * j + 3] += sum.w;
        }
    }
}
#endif

#endif
