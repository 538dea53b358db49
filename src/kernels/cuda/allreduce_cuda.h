/* The all-reduce engine of the cuda backend (src/kernels/cuda/allreduce.cu): a group
 * of G GPUs of this process, and one all-reduce over arrays on them. The
 * ladder's rungs run it on the harness's buffers; docs/MULTIGPU.md. */
#ifndef WARPLAB_ALLREDUCE_CUDA_H
#define WARPLAB_ALLREDUCE_CUDA_H

#include "cuda_backend.h"

#ifdef WARPLAB_HAVE_NCCL
#include <nccl.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define AR_RING_STREAMS 4
/* The flag rungs (one_shot, two_shot_flags, two_shot_push): threads a
 * block, and the most blocks a grid. Every rank's flag words: one a block,
 * phase and peer, then one a block counting the block's calls (AR_FLAG_CALLS
 * on); then two_shot_push's numbered barriers: one a block and peer (the
 * peer's last arrival, AR_PUSH_ARRIVALS on), then one a block (its last
 * barrier's number, AR_PUSH_COUNTS on). */
#define AR_FLAG_THREADS 512
#define AR_FLAG_BLOCKS 256
#define AR_FLAG_CALLS (2 * AR_FLAG_BLOCKS * WL_ALLREDUCE_MAX_GPUS)
#define AR_PUSH_ARRIVALS (AR_FLAG_CALLS + AR_FLAG_BLOCKS)
#define AR_PUSH_COUNTS (AR_PUSH_ARRIVALS + AR_FLAG_BLOCKS * WL_ALLREDUCE_MAX_GPUS)
#define AR_FLAG_WORDS (AR_PUSH_COUNTS + AR_FLAG_BLOCKS)
/* two_shot_push's round: 2^20 16-byte vectors (16 MiB of each rank's
 * input); each rank's staging holds two rounds' slots (G slots of a G-th of
 * a round each), 32 MiB. */
#define AR_PUSH_ROUND_VECTORS ((size_t)1 << 20)

/* Why the NCCL rows are missing from a build without NCCL. */
#define WL_ALLREDUCE_NO_NCCL                                                                       \
    "built without NCCL: CMake found no nccl.h and libnccl (install NCCL or set NCCL_ROOT, "       \
    "then reconfigure)"

typedef enum ar_algorithm {
    AR_HOST_STAGING,
    AR_THROUGH_ONE,
    AR_PEER_READ,
    AR_RING,
    AR_NCCL,
    AR_TWO_SHOT,
    AR_ONE_SHOT,
    AR_TWO_SHOT_FLAGS,
    AR_TWO_SHOT_PUSH,
    AR_PLANNED /* a group open for every algorithm; each call sets one */
} ar_algorithm;

typedef struct ar_group {
    ar_algorithm algorithm;
    int gpus;
    int devices[WL_ALLREDUCE_MAX_GPUS]; /* rank -> CUDA device; rank 0 is the caller's */
    int streams;                        /* per rank (the ring: one per chunk) */
    /* stream[0][0] is the caller's stream (not owned); the others are. */
    cudaStream_t stream[WL_ALLREDUCE_MAX_GPUS][AR_RING_STREAMS];
    cudaEvent_t event[WL_ALLREDUCE_MAX_GPUS][AR_RING_STREAMS];
    bool borrowed[WL_ALLREDUCE_MAX_GPUS]; /* stream[r][0] is the caller's */
    /* Every rank's first stream waits for every rank before and after a run
     * (the library's calls); else only rank 0's stream orders the others
     * (the harness times and waits on rank 0's stream alone). */
    bool every_rank;
    cudaEvent_t start, summed;         /* on rank 0's device */
    void *host[WL_ALLREDUCE_MAX_GPUS]; /* host staging: pinned arrays */
    size_t host_n;
    warplab_dtype host_dtype;
    /* The flag rungs: every rank's flag words (AR_FLAG_WORDS, on its device,
     * zeroed at open) and the grid's cap (the fewest SMs of the group: every
     * block must be resident at once). */
    unsigned *flags[WL_ALLREDUCE_MAX_GPUS];
    int flag_blocks;
    /* two_shot_push: every rank's staging slots (two rounds' worth, on its
     * device), which the peers' stores fill. */
    void *staging[WL_ALLREDUCE_MAX_GPUS];
    bool peers;      /* every pair has peer access, enabled */
    bool nccl_ready; /* comms holds the group's NCCL communicators */
#ifdef WARPLAB_HAVE_NCCL
    ncclComm_t comms[WL_ALLREDUCE_MAX_GPUS]; /* kept by the process, not owned */
#endif
} ar_group;

/* One all-reduce: n elements of dtype (float or int32) from in[r] into
 * out[r] on rank r's device; gather: (G-1) x n elements on rank 0's device
 * (through_one only). */
typedef struct ar_call {
    size_t n;
    warplab_dtype dtype;
    void *in[WL_ALLREDUCE_MAX_GPUS];
    void *out[WL_ALLREDUCE_MAX_GPUS];
    void *gather;
} ar_call;

/* Sets NCCL_NVLS_ENABLE=0 (unless already "0"): call before any NCCL call. */
void wl_allreduce_nccl_env(void);
/* The group's devices: home first, then the others in index order. */
warplab_status wl_allreduce_devices(int gpus, int home, int *devices, char *reason, size_t len);
/* Whether every device of the list can access every other's memory. */
warplab_status wl_allreduce_peer_check(int gpus, const int *devices, char *reason, size_t len);
/* Enables device a's access to device b's memory once per process (later
 * calls return at once). */
cudaError_t wl_allreduce_enable_peer(int a, int b);
/* The rung's name ("two_shot_flags"). */
const char *wl_allreduce_algorithm_name(ar_algorithm algorithm);
/* Streams, events, peer access, staging memory (bytes per rank) or NCCL
 * communicators for the algorithm over gpus distinct devices (AR_PLANNED
 * algorithm = everything the library's planner may pick: peers, flags, the
 * ring's streams, NCCL's communicators where NCCL loads); rank r's
 * first stream is streams[r] where streams and streams[r] are not NULL (the
 * caller's), else the group's own. Allocates and may synchronise: once,
 * before the runs. backend (may be NULL) receives the failure's detail. */
warplab_status wl_allreduce_group_open(wl_backend *backend, ar_group *group, int gpus,
                                       const int *devices, const cudaStream_t *streams,
                                       ar_algorithm algorithm, size_t bytes);
void wl_allreduce_group_close(ar_group *group);
/* Queues one all-reduce: ordered after the work on rank 0's stream, and
 * rank 0's stream ordered after it; never waits on the host. */
warplab_status wl_allreduce_group_run(wl_backend *backend, ar_group *group, const ar_call *call);

/* The flag rungs one rank at a time (the one-process rungs and the comm's
 * staged path, src/kernels/cuda/allreduce_api.cu). The part of [0, n)
 * that segment k of G holds (a multiple of 4 elements each). */
void wl_allreduce_segment(size_t n, int gpus, int k, size_t *first, size_t *count);
/* The flag kernels' grid for a rank's largest piece of largest elements:
 * one block of AR_FLAG_THREADS per 4 x AR_FLAG_THREADS elements, at most cap
 * (the fewest SMs of the ranks: every block must be resident at once).
 * Every rank of a call must launch the same grid. */
unsigned wl_allreduce_flag_grid(size_t largest, int cap);
/* Queues rank me's flagged_reduce on stream (the current device must be
 * me's): sources[0..gpus) summed in order into destinations (1 or gpus of
 * them), count elements each, between the start and end barriers of the
 * ranks' flag words (flag_words[r]: rank r's AR_FLAG_WORDS, mapped here). */
cudaError_t wl_allreduce_flagged_rank(int gpus, int me, unsigned blocks, cudaStream_t stream,
                                      warplab_dtype dtype, const void *const *sources,
                                      void *const *destinations, int destination_count,
                                      size_t count, unsigned *const *flag_words);

/* The rung of a comm's last call (warplab_comm_allreduce): "one_shot",
 * "two_shot_flags" or "nccl"; "planned" before the first call. For the
 * tests (tests/cuda/allreduce_cuda.cu) and the timings of the ranks. */
const char *wl_comm_algorithm(const warplab_comm *comm);

#ifdef __cplusplus
}
#endif

#endif
