/* The all-reduce planner: which rung warplab_allreduce and
 * warplab_comm_allreduce run for a message (its bytes, the number of GPUs G,
 * the element type) on a topology (whether every pair of GPUs maps the
 * other's memory, whether NCCL loads). C11 and CUDA; tested on the host
 * (tests/unit/test_allreduce_plan.c), no GPU needed.
 *
 * The rule is a table: the first row whose G range holds the group and whose
 * byte limit lies above the message names the rung. Then the topology:
 *   - the peer rungs need every pair's peer access (one process: the peer
 *     query; one process per GPU: every rank's staging area mapped in every
 *     other, agreed by all) and fall back to NCCL without it;
 *   - a comm's peer rungs go through its staging area: a message larger
 *     than the area (peer_bytes_most) goes to NCCL;
 *   - NCCL where it does not load falls back to two_shot_flags (peers) or
 *     to no route;
 *   - one_shot in place (send = recv) would overwrite an input its peers may
 *     still read: two_shot_flags, which never reads what another rank
 *     writes (a comm's peers read its staged copy: it asks with in_place
 *     false);
 *   - two_shot_push's staging slots belong to a group of one process: a
 *     comm (peer_bytes_most set) takes two_shot_flags in its place.
 * float and int32 are both 4-byte sums: the type changes nothing here but
 * the message's bytes. */
#ifndef WARPLAB_ALLREDUCE_PLAN_H
#define WARPLAB_ALLREDUCE_PLAN_H

#include "warplab.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum wl_allreduce_route {
    WL_ALLREDUCE_ROUTE_ONE_SHOT,       /* flags in peer memory, every GPU reads all */
    WL_ALLREDUCE_ROUTE_TWO_SHOT_FLAGS, /* flags in peer memory, segment r on GPU r */
    WL_ALLREDUCE_ROUTE_TWO_SHOT_PUSH,  /* as two_shot_flags, by stores into staging slots */
    WL_ALLREDUCE_ROUTE_NCCL,           /* ncclAllReduce */
    WL_ALLREDUCE_ROUTE_NONE            /* nothing can run it (the reason: the caller's) */
} wl_allreduce_route;

typedef struct wl_allreduce_topology {
    int gpus;   /* G, 2 .. WARPLAB_MAX_GPUS */
    bool peers; /* every pair of the group maps the other's memory */
    bool nccl;  /* NCCL loads */
    /* The largest message the peer rungs take (a comm: its staging area,
     * WL_COMM_STAGING_BYTES); 0: any. */
    size_t peer_bytes_most;
    /* The slowest GPU's theoretical memory bandwidth in GB/s (the course's
     * formula, warplab_theoretical_bandwidth_gbs); 0: unknown. */
    double memory_gbs;
} wl_allreduce_topology;

/* One row: groups of gpus_min .. gpus_max GPUs whose slowest GPU's memory
 * moves at least memory_gbs_min GB/s (0: any GPU), messages under
 * bytes_below. */
typedef struct wl_allreduce_rule {
    int gpus_min, gpus_max;
    size_t bytes_below;
    wl_allreduce_route route;
    const char *source; /* the measurement the limit comes from */
    double memory_gbs_min;
} wl_allreduce_rule;

#define WL_KIB ((size_t)1 << 10)
#define WL_MIB ((size_t)1 << 20)

/* The largest message a comm (one process per GPU) sends through its peer
 * rungs: each rank's staging area holds two of them (the input's copy its
 * peers read, and the reduced segments they write). The table's limit for
 * the peer rungs from G = 3 (32 MiB); past it NCCL, at G = 2 too. */
#define WL_COMM_STAGING_BYTES (32 * WL_MIB)

/* Fitted on the tuning set, 4 x H200 (NV18 between every pair) and 2 of
 * them (WARPLAB_ALLREDUCE_GPUS=2), NCCL 2.28 in the same run: messages of
 * 4 KiB, 16 KiB, .., 1 GiB (n = 2^10, 2^12, .., 2^28 floats); judged on the
 * sizes between and 4 GiB (docs/DECISIONS.md, "The library's all-reduce is
 * picked by size"). A limit sits between the two tuning sizes where the
 * rungs cross. From G = 3 the crossing into NCCL depends on the GPU: the
 * same tuning sizes on 4 x H100 (HBM3, 3352 GB/s by the course's formula)
 * put it at 16 MiB, on 4 x H200 (HBM3e, 4814 GB/s) past 16 MiB (the ceilings
 * in docs/results/h100.json and h200.json); a group
 * whose bandwidth is unknown takes the H100's. */
#define WL_ALLREDUCE_HBM3E_GBS 4000.0
static const wl_allreduce_rule wl_allreduce_rules[] = {
    {2, 2, 128 * WL_KIB, WL_ALLREDUCE_ROUTE_ONE_SHOT,
     "G=2: one_shot 1.62-1.78x NCCL to 64 KiB (two_shot_flags 1.60-1.73x), behind from 256 KiB",
     0.0},
    {2, 2, 8 * WL_MIB, WL_ALLREDUCE_ROUTE_TWO_SHOT_FLAGS,
     "2 x H200: two_shot_flags 1.90x NCCL at 4 MiB (two_shot_push 1.68x: one barrier more)", 0.0},
    {2, 2, SIZE_MAX, WL_ALLREDUCE_ROUTE_TWO_SHOT_PUSH,
     "2 x H200: two_shot_push 1.08x two_shot_flags at 16 MiB, 1.05-1.06x at 64 MiB .. 4 GiB", 0.0},
    {3, 4, 128 * WL_KIB, WL_ALLREDUCE_ROUTE_ONE_SHOT,
     "G=4: one_shot 2.55-2.70x NCCL to 64 KiB (two_shot_flags 2.41-2.69x), behind from 256 KiB",
     0.0},
    {3, 4, 16 * WL_MIB, WL_ALLREDUCE_ROUTE_TWO_SHOT_FLAGS,
     "4 x H100: two_shot_flags 2.04x NCCL at 256 KiB, 1.61x at 4 MiB, 0.99x at 16 MiB", 0.0},
    {3, 4, 32 * WL_MIB, WL_ALLREDUCE_ROUTE_TWO_SHOT_FLAGS,
     "4 x H200: two_shot_flags 2.27x NCCL at 256 KiB, 1.78x at 4 MiB, 1.17x at 16 MiB",
     WL_ALLREDUCE_HBM3E_GBS},
    {3, 4, SIZE_MAX, WL_ALLREDUCE_ROUTE_NCCL,
     "G=4: NCCL ahead from 64 MiB (two_shot_flags 0.91x at 64 MiB, 256 MiB and 1 GiB)", 0.0},
    {5, WARPLAB_MAX_GPUS, 64 * WL_KIB, WL_ALLREDUCE_ROUTE_ONE_SHOT,
     "not measured: one_shot reads (G-1) messages a GPU, so its limit falls as G grows", 0.0},
    {5, WARPLAB_MAX_GPUS, 16 * WL_MIB, WL_ALLREDUCE_ROUTE_TWO_SHOT_FLAGS,
     "not measured: the G=4 limit of the slower GPUs (4 x H100)", 0.0},
    {5, WARPLAB_MAX_GPUS, SIZE_MAX, WL_ALLREDUCE_ROUTE_NCCL, "not measured: the G=4 rule", 0.0},
};

static inline wl_allreduce_route wl_allreduce_plan(size_t count, warplab_dtype dtype,
                                                   const wl_allreduce_topology *topology,
                                                   bool in_place)
{
    const size_t element = dtype == WARPLAB_INT32 || dtype == WARPLAB_FLOAT32 ? 4 : 0;
    if (!topology || element == 0 || topology->gpus < 2 || topology->gpus > WARPLAB_MAX_GPUS)
        return WL_ALLREDUCE_ROUTE_NONE;
    const size_t bytes = count > SIZE_MAX / element ? SIZE_MAX : count * element;
    wl_allreduce_route route = WL_ALLREDUCE_ROUTE_NCCL;
    for (size_t i = 0; i < sizeof wl_allreduce_rules / sizeof wl_allreduce_rules[0]; i++) {
        const wl_allreduce_rule *rule = &wl_allreduce_rules[i];
        if (topology->gpus >= rule->gpus_min && topology->gpus <= rule->gpus_max &&
            topology->memory_gbs >= rule->memory_gbs_min &&
            (bytes < rule->bytes_below || rule->bytes_below == SIZE_MAX)) {
            route = rule->route;
            break;
        }
    }
    if (route == WL_ALLREDUCE_ROUTE_ONE_SHOT && in_place)
        route = WL_ALLREDUCE_ROUTE_TWO_SHOT_FLAGS;
    if (route == WL_ALLREDUCE_ROUTE_TWO_SHOT_PUSH && topology->peer_bytes_most)
        route = WL_ALLREDUCE_ROUTE_TWO_SHOT_FLAGS;
    if (route != WL_ALLREDUCE_ROUTE_NCCL &&
        (!topology->peers || (topology->peer_bytes_most && bytes > topology->peer_bytes_most)))
        route = WL_ALLREDUCE_ROUTE_NCCL;
    if (route == WL_ALLREDUCE_ROUTE_NCCL && !topology->nccl)
        route =
            topology->peers && (!topology->peer_bytes_most || bytes <= topology->peer_bytes_most)
                ? WL_ALLREDUCE_ROUTE_TWO_SHOT_FLAGS
                : WL_ALLREDUCE_ROUTE_NONE;
    return route;
}

/* Whether some message size of a group of gpus with peer access goes to
 * route (NCCL: the group then opens NCCL's communicators too; two_shot_push:
 * its staging slots). */
static inline bool wl_allreduce_plan_uses(int gpus, wl_allreduce_route route)
{
    for (size_t i = 0; i < sizeof wl_allreduce_rules / sizeof wl_allreduce_rules[0]; i++)
        if (gpus >= wl_allreduce_rules[i].gpus_min && gpus <= wl_allreduce_rules[i].gpus_max &&
            wl_allreduce_rules[i].route == route)
            return true;
    return false;
}

static inline bool wl_allreduce_plan_uses_nccl(int gpus)
{
    return wl_allreduce_plan_uses(gpus, WL_ALLREDUCE_ROUTE_NCCL);
}

#endif
