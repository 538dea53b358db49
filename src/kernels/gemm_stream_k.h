/* Stream-K's schedule (src/cuda/gemm/stream_k.cuh): the last, partial wave
 * of a problem's tiles cut into equal shares of k tiles, one a worker, and
 * the workspace of the shares' hand-over. Host C (and CUDA: stream_k.cuh
 * includes it for its kernels' walk), so that the 16-bit tile model
 * (gemm_tiles16.c) prices the shares the kernels take, on the host. */
#ifndef WARPLAB_KERNELS_GEMM_STREAM_K_H
#define WARPLAB_KERNELS_GEMM_STREAM_K_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#if defined(__CUDACC__)
#define WL_SK_HOST_DEVICE __host__ __device__
#else
#define WL_SK_HOST_DEVICE
#endif

/* No more than WL_SK_MAX_SPLIT shares a left-over unit (a unit's tail reads
 * the other pieces' sums; shares start anywhere, so a unit may be cut into
 * one piece more), and no share shorter than WL_SK_MIN_PIECE k tiles. */
#define WL_SK_MAX_SPLIT 4
#define WL_SK_MIN_PIECE 2

typedef struct wl_sk_schedule {
    int units;      /* tiles (a cluster's: pairs of tiles) */
    int full_units; /* the first, whole, a worker's in turn */
    int k_tiles;    /* a unit's */
    int workers;    /* workers with a share; 0: no shares */
    int k_shared;   /* the k tiles of the units past full_units, in all */
} wl_sk_schedule;

/* The schedule of `units` units of k_tiles each over `capacity` workers;
 * returns how many workers to launch. Shares (streamk) only where the last
 * wave would leave workers idle and a share would be at most 3/4 of a
 * unit: the hand-over (a slot of sums written to L2 and read back a share)
 * costs more than the idle quarter it saves. H100, BF16 4096^3 (128 x 256
 * tiles in 2 x 1 clusters), shares of 56 k tiles of 64: 193 us with the
 * hand-over, 184 with the sums dropped (timing only), 187 whole. */
static inline WL_SK_HOST_DEVICE int wl_sk_plan(wl_sk_schedule *s, int units, int k_tiles,
                                               int capacity, bool streamk)
{
    s->units = units;
    s->full_units = units;
    s->k_tiles = k_tiles;
    s->workers = 0;
    s->k_shared = 0;
    const int whole = units < capacity ? units : capacity;
    const int left = units % capacity; /* all of them, where fewer than capacity */
    if (!streamk || left == 0)
        return whole;
    const long long shared = (long long)left * k_tiles;
    if (shared > INT_MAX)
        return whole;
    long long shares = capacity;
    if (shares > (long long)left * WL_SK_MAX_SPLIT)
        shares = (long long)left * WL_SK_MAX_SPLIT;
    if (shares > shared / WL_SK_MIN_PIECE)
        shares = shared / WL_SK_MIN_PIECE;
    if (shares <= left || 4 * ((shared + shares - 1) / shares) > 3LL * k_tiles)
        return whole;
    s->full_units = units - left;
    s->workers = (int)shares;
    s->k_shared = (int)shared;
    return units >= capacity ? capacity : (int)shares;
}

/* The hand-over's workspace: a ticket (warplab_gemm_ex's kernel) and a flag
 * a slot, to 256 bytes, then the slots. */
static inline WL_SK_HOST_DEVICE size_t wl_sk_flag_bytes(int slots)
{
    return ((size_t)(1 + slots) * sizeof(int) + 255) / 256 * 256;
}

#endif
