/* stream_k.cuh's schedule and walk on the CPU, over many unit counts, k
 * tile counts and worker counts: every k tile of every unit is walked
 * exactly once; whole units first; shares only where the last wave leaves
 * workers idle, at most 3/4 of a unit, no unit in more than WL_SK_MAX_SPLIT
 * + 1 pieces; each worker's head piece before its tail, at most one piece a
 * worker that hands its sums over; every tail's list of pieces to add
 * (wl_sk_gather's loop) is exactly the other pieces of its unit, all of
 * lower workers (so the walk finishes when workers start in order). */
#include "cuda_emulate.h"

#include "../../src/cuda/gemm/stream_k.cuh"

#include <algorithm>
#include <cstdio>
#include <map>
#include <random>
#include <vector>

static int failures = 0, checks = 0;

#define EXPECT(condition, ...)                                                                     \
    do {                                                                                           \
        checks++;                                                                                  \
        if (!(condition)) {                                                                        \
            failures++;                                                                            \
            if (failures < 20) {                                                                   \
                std::fprintf(stderr, "FAIL %s: ", #condition);                                     \
                std::fprintf(stderr, __VA_ARGS__);                                                 \
                std::fprintf(stderr, "\n");                                                        \
            }                                                                                      \
        }                                                                                          \
    } while (0)

/* The workers a tail adds, as wl_sk_gather walks them. */
static std::vector<int> gathered(const wl_sk_schedule &s, const wl_sk_piece &tail, int worker)
{
    std::vector<int> out;
    const long long unit_begin = (long long)(tail.unit - s.full_units) * s.k_tiles;
    for (int w = worker - 1; w >= 0 && wl_sk_share_begin(s, w + 1) > unit_begin; w--)
        out.push_back(w);
    return out;
}

/* share_of: 0, a worker takes its own index's share (the ladder's rung);
 * 1, the reverse order (warplab_gemm_ex's tickets, in the order blocks start). */
static void check_schedule(int units, int k_tiles, int capacity, bool streamk, int share_of = 0)
{
    wl_sk_schedule s;
    const int launched = wl_sk_plan(&s, units, k_tiles, capacity, streamk);
    char what[96];
    std::snprintf(what, sizeof what, "%d units of %d k tiles, %d workers%s", units, k_tiles,
                  capacity, streamk ? ", stream-K" : "");
    EXPECT(launched >= 1 && launched <= capacity, "%s: %d launched", what, launched);
    EXPECT(streamk || s.workers == 0, "%s: shares without stream-K", what);
    if (s.workers > 0) {
        const int left = units % capacity;
        EXPECT(left > 0 && s.full_units == units - left, "%s: whole units %d", what, s.full_units);
        EXPECT(s.workers > left && s.workers <= launched, "%s: %d shares", what, s.workers);
        const long long longest = (s.k_shared + s.workers - 1) / s.workers;
        EXPECT(4 * longest <= 3LL * k_tiles, "%s: shares of %lld", what, longest);
        EXPECT(s.workers <= left * WL_SK_MAX_SPLIT, "%s: %d shares for %d units", what, s.workers,
               left);
    }
    /* Every worker's walk; who walked each (unit, k tile). */
    std::vector<int> owner((size_t)units * k_tiles, -1);
    std::map<int, std::vector<int>> writers; /* unit -> workers handing over */
    std::vector<std::pair<wl_sk_piece, int>> tails;
    for (int w = 0; w < launched; w++) {
        const int share = share_of ? launched - 1 - w : w;
        wl_sk_walk walk = wl_sk_walk_start<true>(s, w, launched, share);
        wl_sk_piece piece;
        int hand_overs = 0, share_pieces = 0;
        bool shared = false;
        while (wl_sk_walk_next<true>(walk, s, &piece)) {
            EXPECT(piece.unit >= 0 && piece.unit < units && piece.k_begin >= 0 &&
                       piece.k_begin < piece.k_end && piece.k_end <= k_tiles,
                   "%s: worker %d, piece %d [%d, %d)", what, w, piece.unit, piece.k_begin,
                   piece.k_end);
            if (piece.unit < 0 || piece.unit >= units || piece.k_begin < 0 || piece.k_end > k_tiles)
                break;
            /* Whole units before any share. */
            EXPECT(!shared || piece.unit >= s.full_units, "%s: worker %d whole after shares", what,
                   w);
            if (piece.unit >= s.full_units && s.workers > 0) {
                shared = true;
                share_pieces++;
            }
            for (int k = piece.k_begin; k < piece.k_end; k++) {
                int &o = owner[(size_t)piece.unit * k_tiles + k];
                EXPECT(o == -1, "%s: unit %d k tile %d walked twice", what, piece.unit, k);
                o = w;
            }
            if (piece.k_end < k_tiles) {
                /* A head or a middle piece: the worker's first share piece. */
                hand_overs++;
                EXPECT(share_pieces == 1, "%s: worker %d hands over its piece %d", what, w,
                       share_pieces);
                writers[piece.unit].push_back(share);
            } else if (piece.k_begin > 0) {
                tails.push_back({piece, share});
            }
            if (piece.unit < s.full_units)
                EXPECT(piece.k_begin == 0 && piece.k_end == k_tiles, "%s: unit %d cut", what,
                       piece.unit);
        }
        EXPECT(hand_overs <= 1, "%s: worker %d hands over %d pieces", what, w, hand_overs);
    }
    for (size_t i = 0; i < owner.size(); i++)
        EXPECT(owner[i] >= 0, "%s: unit %zu k tile %zu never walked", what, i / k_tiles,
               i % k_tiles);
    /* Each tail adds exactly its unit's other pieces, all of lower workers,
     * and every piece that hands over has a tail. */
    size_t handed = 0;
    for (const auto &[unit, list] : writers)
        handed += list.size();
    size_t added = 0;
    for (const auto &[tail, w] : tails) {
        std::vector<int> got = gathered(s, tail, w), want = writers[tail.unit];
        std::sort(got.begin(), got.end());
        std::sort(want.begin(), want.end());
        EXPECT(got == want, "%s: unit %d's tail (worker %d) adds %zu pieces of %zu", what,
               tail.unit, w, got.size(), want.size());
        for (int g : got)
            EXPECT(g < w, "%s: worker %d waits for %d", what, w, g);
        EXPECT(want.size() <= WL_SK_MAX_SPLIT, "%s: unit %d in %zu pieces", what, tail.unit,
               want.size() + 1);
        added += got.size();
    }
    EXPECT(added == handed, "%s: %zu pieces handed over, %zu added", what, handed, added);
}

int main()
{
    /* The shapes measured on the H100 (132 SMs; 66 clusters of 2), then
     * random ones. */
    const int known[][3] = {{256, 64, 66}, {1024, 128, 66}, {272, 64, 66},  {144, 128, 66},
                            {576, 96, 66}, {72, 8, 66},     {72, 16, 66},   {140, 16, 132},
                            {1, 1, 132},   {9, 64, 66},     {67, 64, 66},   {300, 3, 66},
                            {133, 2, 132}, {131, 100, 132}, {264, 64, 132}, {265, 1, 132}};
    for (const auto &c : known)
        for (int streamk = 0; streamk < 2; streamk++)
            check_schedule(c[0], c[1], c[2], streamk);
    std::mt19937 random(20261124);
    for (int i = 0; i < 1500; i++)
        check_schedule(1 + (int)(random() % 600), 1 + (int)(random() % 200),
                       1 + (int)(random() % 140), true, i % 2);
    /* Where the schedule must and must not cut: BF16 4096^3 in clusters
     * (shares of 56 of 64 k tiles: none), 4096 x 4352 x 4096 (8 pairs past
     * 4 waves: 32 shares of 16). */
    wl_sk_schedule s;
    wl_sk_plan(&s, 256, 64, 66, true);
    EXPECT(s.workers == 0, "4096^3: %d shares", s.workers);
    wl_sk_plan(&s, 272, 64, 66, true);
    EXPECT(s.workers == 32 && s.full_units == 264 && s.k_shared == 512,
           "4096 x 4352 x 4096: %d shares of %d k tiles after %d units", s.workers, s.k_shared,
           s.full_units);
    std::printf("%d passed, %d failed\n", checks - failures, failures);
    return failures ? 1 : 0;
}
