/* The all-reduce planner (src/kernels/allreduce_plan.h) on the host: the
 * table is well formed (every G from 2 to WARPLAB_MAX_GPUS has rows that
 * end at "every size", limits rise, each row says where it comes from), and
 * over every G and message sizes from 4 bytes to 16 GiB the plan is one the
 * topology can run: in place never one_shot, no peer access only NCCL (or
 * nothing without NCCL), no NCCL never NCCL; as a message grows the plan
 * only moves down the table; other types and G out of range get no route.
 * A comm (one process per GPU, its peers' staging areas mapped) takes the
 * table's route up to its staging area (two_shot_flags for two_shot_push,
 * whose staging slots are a one-process group's) and NCCL past it, in place
 * or not. */
#include "../check.h"
#include "kernels/allreduce_plan.h"

#include <stdint.h>
#include <string.h>

enum { RULES = sizeof wl_allreduce_rules / sizeof wl_allreduce_rules[0] };

/* The GPUs' memory the rows tell apart: unknown, an H100's and an H200's
 * (GB/s by the course's formula). */
static const double memories[] = {0.0, 3352.32, 4814.304};
#define MEMORIES (sizeof memories / sizeof memories[0])

/* Whether row i applies to G GPUs of this memory bandwidth. */
static bool rule_applies(int i, int gpus, double gbs)
{
    const wl_allreduce_rule *rule = &wl_allreduce_rules[i];
    return gpus >= rule->gpus_min && gpus <= rule->gpus_max && gbs >= rule->memory_gbs_min;
}

/* The row a message of bytes picks for G on GPUs of gbs (the table alone),
 * or -1. */
static int rule_for(int gpus, double gbs, size_t bytes)
{
    for (int i = 0; i < RULES; i++)
        if (rule_applies(i, gpus, gbs) && (bytes < wl_allreduce_rules[i].bytes_below ||
                                           wl_allreduce_rules[i].bytes_below == SIZE_MAX))
            return i;
    return -1;
}

static void table_is_well_formed(void)
{
    for (int i = 0; i < RULES; i++) {
        const wl_allreduce_rule *rule = &wl_allreduce_rules[i];
        CHECK_MSG(rule->gpus_min >= 2 && rule->gpus_min <= rule->gpus_max &&
                      rule->gpus_max <= WARPLAB_MAX_GPUS,
                  "row %d: G %d..%d", i, rule->gpus_min, rule->gpus_max);
        CHECK_MSG(rule->source && strlen(rule->source) > 10, "row %d: no source", i);
        CHECK(rule->route != WL_ALLREDUCE_ROUTE_NONE);
    }
    for (int gpus = 2; gpus <= WARPLAB_MAX_GPUS; gpus++)
        for (size_t m = 0; m < MEMORIES; m++) {
            size_t below = 0;
            bool ends = false;
            for (int i = 0; i < RULES; i++) {
                if (!rule_applies(i, gpus, memories[m]))
                    continue;
                const wl_allreduce_rule *rule = &wl_allreduce_rules[i];
                CHECK_MSG(!ends, "G=%d: row %d after the row for every size", gpus, i);
                CHECK_MSG(rule->bytes_below > below,
                          "G=%d, %.0f GB/s: row %d's limit does not rise", gpus, memories[m], i);
                below = rule->bytes_below;
                ends = below == SIZE_MAX;
            }
            CHECK_MSG(ends, "G=%d: no row for the largest messages", gpus);
        }
    /* The faster memory keeps the peer rungs at least as far: its rows never
     * hand a message to NCCL that the slower GPUs' keep on peers. */
    for (int gpus = 2; gpus <= WARPLAB_MAX_GPUS; gpus++)
        for (int octave = 10; octave <= 34; octave++) {
            const int slow = rule_for(gpus, memories[1], (size_t)1 << octave);
            const int fast = rule_for(gpus, memories[2], (size_t)1 << octave);
            CHECK_MSG(wl_allreduce_rules[slow].route == WL_ALLREDUCE_ROUTE_NCCL ||
                          wl_allreduce_rules[fast].route != WL_ALLREDUCE_ROUTE_NCCL,
                      "G=%d 2^%d bytes: NCCL on the faster GPUs only", gpus, octave);
        }
    /* Where the two GPUs' rows part: 4 x H100 hands 16 MiB to NCCL, 4 x
     * H200 keeps it on two_shot_flags to 32 MiB; unknown memory is the
     * H100's. */
    const wl_allreduce_topology h100 = {4, true, true, 0, 3352.32};
    const wl_allreduce_topology h200 = {4, true, true, 0, 4814.304};
    const wl_allreduce_topology unknown = {4, true, true, 0, 0.0};
    const size_t n16 = 16 * WL_MIB / 4, n24 = 24 * WL_MIB / 4, n32 = 32 * WL_MIB / 4;
    CHECK(wl_allreduce_plan(n16 - 1, WARPLAB_FLOAT32, &h100, false) ==
          WL_ALLREDUCE_ROUTE_TWO_SHOT_FLAGS);
    CHECK(wl_allreduce_plan(n16, WARPLAB_FLOAT32, &h100, false) == WL_ALLREDUCE_ROUTE_NCCL);
    CHECK(wl_allreduce_plan(n24, WARPLAB_FLOAT32, &unknown, false) == WL_ALLREDUCE_ROUTE_NCCL);
    CHECK(wl_allreduce_plan(n24, WARPLAB_FLOAT32, &h200, false) ==
          WL_ALLREDUCE_ROUTE_TWO_SHOT_FLAGS);
    CHECK(wl_allreduce_plan(n32, WARPLAB_FLOAT32, &h200, false) == WL_ALLREDUCE_ROUTE_NCCL);
    /* At G = 2 the stores take over from two_shot_flags at 8 MiB, in place
     * too (a rank's output segment is written after it pushed it). */
    const wl_allreduce_topology pair = {2, true, true, 0, 4814.304};
    const size_t n8 = 8 * WL_MIB / 4;
    CHECK(wl_allreduce_plan(n8 - 1, WARPLAB_FLOAT32, &pair, false) ==
          WL_ALLREDUCE_ROUTE_TWO_SHOT_FLAGS);
    CHECK(wl_allreduce_plan(n8, WARPLAB_FLOAT32, &pair, false) == WL_ALLREDUCE_ROUTE_TWO_SHOT_PUSH);
    CHECK(wl_allreduce_plan(n8, WARPLAB_INT32, &pair, true) == WL_ALLREDUCE_ROUTE_TWO_SHOT_PUSH);
    CHECK(wl_allreduce_plan((size_t)1 << 30, WARPLAB_FLOAT32, &pair, false) ==
          WL_ALLREDUCE_ROUTE_TWO_SHOT_PUSH);
}

static void plans_fit_the_topology(void)
{
    for (int gpus = 2; gpus <= WARPLAB_MAX_GPUS; gpus++)
        for (int t = 0; t < 2; t++) {
            const warplab_dtype dtype = t ? WARPLAB_INT32 : WARPLAB_FLOAT32;
            /* 1 to 2^32 elements, three sizes an octave (and the octave's
             * neighbours): every limit's both sides. */
            for (int octave = 0; octave <= 32; octave++)
                for (int trial = 0; trial < 5 * (int)MEMORIES; trial++) {
                    const int step = trial % 5; /* on each GPU memory */
                    const double gbs = memories[trial / 5];
                    const size_t base = (size_t)1 << octave;
                    const size_t count = step == 0   ? base
                                         : step == 1 ? base - 1 + (base == 1)
                                         : step == 2 ? base + 1
                                         : step == 3 ? base + base / 2
                                                     : base + base / 4;
                    const wl_allreduce_topology full = {gpus, true, true, 0, gbs};
                    const wl_allreduce_topology no_nccl = {gpus, true, false, 0, gbs};
                    const wl_allreduce_topology no_peers = {gpus, false, true, 0, gbs};
                    const wl_allreduce_topology neither = {gpus, false, false, 0, gbs};
                    for (int in_place = 0; in_place < 2; in_place++) {
                        const wl_allreduce_route route =
                            wl_allreduce_plan(count, dtype, &full, in_place);
                        const int rule = rule_for(gpus, gbs, count * 4);
                        CHECK(rule >= 0);
                        if (rule < 0)
                            continue;
                        wl_allreduce_route expected = wl_allreduce_rules[rule].route;
                        if (in_place && expected == WL_ALLREDUCE_ROUTE_ONE_SHOT)
                            expected = WL_ALLREDUCE_ROUTE_TWO_SHOT_FLAGS;
                        CHECK_MSG(route == expected, "G=%d n=%zu%s: route %d, table's %d", gpus,
                                  count, in_place ? " in place" : "", (int)route, (int)expected);
                        CHECK(!in_place || route != WL_ALLREDUCE_ROUTE_ONE_SHOT);
                        const wl_allreduce_route without =
                            wl_allreduce_plan(count, dtype, &no_nccl, in_place);
                        CHECK(without != WL_ALLREDUCE_ROUTE_NCCL &&
                              without != WL_ALLREDUCE_ROUTE_NONE);
                        CHECK(wl_allreduce_plan(count, dtype, &no_peers, in_place) ==
                              WL_ALLREDUCE_ROUTE_NCCL);
                        CHECK(wl_allreduce_plan(count, dtype, &neither, in_place) ==
                              WL_ALLREDUCE_ROUTE_NONE);
                    }
                }
        }
}

/* As a message grows the table's row never moves back up. */
static void rows_only_move_down(void)
{
    for (int gpus = 2; gpus <= WARPLAB_MAX_GPUS; gpus++) {
        int last = -1;
        for (int octave = 0; octave <= 34; octave++)
            for (int quarter = 4; quarter < 8; quarter++) {
                const size_t bytes = ((size_t)quarter << octave) / 4;
                const int rule = rule_for(gpus, 0.0, bytes);
                CHECK_MSG(rule >= last, "G=%d %zu bytes: back up the table", gpus, bytes);
                last = rule;
            }
    }
}

static void refusals(void)
{
    const wl_allreduce_topology full = {4, true, true, 0, 0.0};
    CHECK(wl_allreduce_plan(1000, WARPLAB_FLOAT64, &full, false) == WL_ALLREDUCE_ROUTE_NONE);
    CHECK(wl_allreduce_plan(1000, WARPLAB_FLOAT32, NULL, false) == WL_ALLREDUCE_ROUTE_NONE);
    const wl_allreduce_topology one = {1, true, true, 0, 0.0};
    const wl_allreduce_topology nine = {WARPLAB_MAX_GPUS + 1, true, true, 0, 0.0};
    CHECK(wl_allreduce_plan(1000, WARPLAB_FLOAT32, &one, false) == WL_ALLREDUCE_ROUTE_NONE);
    CHECK(wl_allreduce_plan(1000, WARPLAB_FLOAT32, &nine, false) == WL_ALLREDUCE_ROUTE_NONE);
    /* A count whose bytes overflow: the row for the largest messages. */
    const wl_allreduce_route huge = wl_allreduce_plan(SIZE_MAX, WARPLAB_INT32, &full, false);
    CHECK(huge == wl_allreduce_rules[rule_for(4, 0.0, SIZE_MAX)].route);
    /* The smallest message on peers is a one-step rung, its in-place form
     * the two-step one; no NCCL group needs NCCL's communicators where the
     * table never routes to it. */
    CHECK(wl_allreduce_plan(1024, WARPLAB_FLOAT32, &full, false) == WL_ALLREDUCE_ROUTE_ONE_SHOT);
    CHECK(wl_allreduce_plan(1024, WARPLAB_FLOAT32, &full, true) ==
          WL_ALLREDUCE_ROUTE_TWO_SHOT_FLAGS);
    for (int gpus = 2; gpus <= WARPLAB_MAX_GPUS; gpus++) {
        bool routes = false;
        for (int octave = 0; octave < 40; octave++) {
            const wl_allreduce_topology t = {gpus, true, true, 0, 0.0};
            routes = routes || wl_allreduce_plan((size_t)1 << octave, WARPLAB_FLOAT32, &t, false) ==
                                   WL_ALLREDUCE_ROUTE_NCCL;
        }
        CHECK(routes == wl_allreduce_plan_uses_nccl(gpus));
    }
    /* wl_allreduce_plan_uses names every route some size of G takes (a
     * group allocates two_shot_push's staging slots by it). */
    for (int gpus = 2; gpus <= WARPLAB_MAX_GPUS; gpus++)
        for (int r = 0; r < (int)WL_ALLREDUCE_ROUTE_NONE; r++) {
            bool routes = false;
            for (int octave = 0; octave < 40; octave++) {
                const wl_allreduce_topology t = {gpus, true, true, 0, 4814.304};
                routes = routes || wl_allreduce_plan((size_t)1 << octave, WARPLAB_FLOAT32, &t,
                                                     false) == (wl_allreduce_route)r;
            }
            CHECK_MSG(!routes || wl_allreduce_plan_uses(gpus, (wl_allreduce_route)r),
                      "G=%d: route %d taken but not named", gpus, r);
        }
}

/* A comm asks with in_place false (its peers read a staged copy of the
 * input) and its staging area's size: the table's route up to it, NCCL past
 * it; a comm whose ranks could not map each other's areas: NCCL. */
static void comm_plans(void)
{
    CHECK(WL_COMM_STAGING_BYTES >= 4 * WL_MIB && WL_COMM_STAGING_BYTES % 16 == 0);
    for (int gpus = 2; gpus <= WARPLAB_MAX_GPUS; gpus++) {
        const wl_allreduce_topology staged = {gpus, true, true, WL_COMM_STAGING_BYTES, 0.0};
        const wl_allreduce_topology unmapped = {gpus, false, true, WL_COMM_STAGING_BYTES, 0.0};
        bool peer_route = false;
        for (int octave = 0; octave <= 32; octave++)
            for (int step = -1; step <= 1; step++) {
                const size_t count = ((size_t)1 << octave) + (size_t)(octave ? step : 0);
                const size_t bytes = count * 4;
                const wl_allreduce_route route =
                    wl_allreduce_plan(count, WARPLAB_FLOAT32, &staged, false);
                wl_allreduce_route table = wl_allreduce_rules[rule_for(gpus, 0.0, bytes)].route;
                if (table == WL_ALLREDUCE_ROUTE_TWO_SHOT_PUSH)
                    table = WL_ALLREDUCE_ROUTE_TWO_SHOT_FLAGS;
                const wl_allreduce_route expected =
                    bytes > WL_COMM_STAGING_BYTES ? WL_ALLREDUCE_ROUTE_NCCL : table;
                CHECK(route != WL_ALLREDUCE_ROUTE_TWO_SHOT_PUSH);
                CHECK_MSG(route == expected, "comm G=%d n=%zu: route %d, expected %d", gpus, count,
                          (int)route, (int)expected);
                CHECK(wl_allreduce_plan(count, WARPLAB_INT32, &staged, false) == route);
                CHECK(wl_allreduce_plan(count, WARPLAB_FLOAT32, &unmapped, false) ==
                      WL_ALLREDUCE_ROUTE_NCCL);
                peer_route = peer_route || route != WL_ALLREDUCE_ROUTE_NCCL;
            }
        /* Every G's small messages take a peer rung: one_shot. */
        CHECK_MSG(peer_route, "comm G=%d: never a peer rung", gpus);
        CHECK(wl_allreduce_plan(256, WARPLAB_FLOAT32, &staged, false) ==
              WL_ALLREDUCE_ROUTE_ONE_SHOT);
        /* The area's last element is a peer rung's, the next NCCL's. */
        const size_t most = WL_COMM_STAGING_BYTES / 4;
        wl_allreduce_route one_process = wl_allreduce_plan(
            most, WARPLAB_FLOAT32, &(wl_allreduce_topology){gpus, true, true, 0, 0.0}, false);
        if (one_process == WL_ALLREDUCE_ROUTE_TWO_SHOT_PUSH)
            one_process = WL_ALLREDUCE_ROUTE_TWO_SHOT_FLAGS;
        CHECK(wl_allreduce_plan(most, WARPLAB_FLOAT32, &staged, false) == one_process);
        CHECK(wl_allreduce_plan(most + 1, WARPLAB_FLOAT32, &staged, false) ==
              WL_ALLREDUCE_ROUTE_NCCL);
        /* Without NCCL a staged comm has no route past its area. */
        const wl_allreduce_topology staged_no_nccl = {gpus, true, false, WL_COMM_STAGING_BYTES,
                                                      0.0};
        CHECK(wl_allreduce_plan(most + 1, WARPLAB_FLOAT32, &staged_no_nccl, false) ==
              WL_ALLREDUCE_ROUTE_NONE);
        CHECK(wl_allreduce_plan(most, WARPLAB_FLOAT32, &staged_no_nccl, false) !=
              WL_ALLREDUCE_ROUTE_NONE);
    }
}

int main(void)
{
    table_is_well_formed();
    plans_fit_the_topology();
    rows_only_move_down();
    refusals();
    comm_plans();
    return check_report("test_allreduce_plan");
}
