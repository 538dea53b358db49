/* The all-reduce's library calls on real GPUs (docs/MULTIGPU.md):
 *
 *   test_allreduce_cuda
 *     warplab_allreduce over the caller's cudaMalloc'd arrays on every GPU
 *     (odd counts, a misaligned view, in place, float and int32, the
 *     caller's streams), each GPU's result checked against the CPU's
 *     double-precision sum and against rank 0's bits; then warplab_peer_query
 *     (the matrix printed, bandwidths positive where peers have access).
 *
 *   test_allreduce_cuda --rank R --ranks N --id file:PATH|env:NAME
 *     one process of N (tests/cuda/allreduce_ranks.sh starts them): joins
 *     through the id, sums its arrays with the others' by warplab_comm_*
 *     (sizes on both sides of each planner limit, in place, misaligned,
 *     float and int32), checks each result against every rank's inputs
 *     regenerated here and each call's rung against the planner's; through
 *     a file, also a second comm as joined by default (NCCL), and
 *     with WARPLAB_RANKS_TIMING=PATH both timed (rank 0 appends the table).
 *
 * Exits 77 (skip) with fewer than 2 GPUs (N for the ranks) or, for the
 * ranks, in a build without NCCL. */
#include "warplab.h"

#include "../check.h"
#include "kernels/allreduce_plan.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

/* Rank r's element i: floats in [1, 2], int32 over the whole range. */
static uint32_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return (uint32_t)x;
}

static void make_input(int rank, warplab_dtype dtype, size_t count, uint64_t seed,
                       std::vector<uint32_t> &words)
{
    words.resize(count);
    for (size_t i = 0; i < count; i++) {
        uint32_t bits = mix(seed * 1000003u + (uint64_t)rank * 0x9E3779B97F4A7C15ull + i);
        if (dtype == WARPLAB_FLOAT32) {
            float value = 1.0f + (float)(bits >> 8) / 16777216.0f;
            memcpy(&words[i], &value, 4);
        } else {
            words[i] = bits;
        }
    }
}

/* Every element of got against the sum of inputs (double, or int64
 * wrapped); returns the number of bad elements. */
static size_t check_sum(const std::vector<std::vector<uint32_t>> &inputs, warplab_dtype dtype,
                        const std::vector<uint32_t> &got, const char *what)
{
    size_t bad = 0;
    for (size_t i = 0; i < got.size(); i++) {
        bool ok;
        double expected = 0.0, value = 0.0;
        if (dtype == WARPLAB_INT32) {
            uint32_t sum = 0;
            for (const auto &in : inputs)
                sum += in[i];
            ok = sum == got[i];
            expected = (double)(int32_t)sum;
            value = (double)(int32_t)got[i];
        } else {
            double sum = 0.0, magnitude = 0.0;
            for (const auto &in : inputs) {
                float x;
                memcpy(&x, &in[i], 4);
                sum += x;
                magnitude += fabs(x);
            }
            float g;
            memcpy(&g, &got[i], 4);
            expected = sum;
            value = g;
            ok = fabs(value - sum) <= (double)inputs.size() * FLT_EPSILON * magnitude;
        }
        if (!ok && bad++ == 0)
            fprintf(stderr, "%s: element %zu is %.9g, expected %.9g\n", what, i, value, expected);
    }
    return bad;
}

/* ------------------------------------------------------------------------ */
/* One process, every GPU                                                   */

static void one_case(warplab_allreduce_group *group, int gpus, const int *devices,
                     cudaStream_t *streams, warplab_dtype dtype, size_t count, size_t offset,
                     bool in_place, uint64_t seed)
{
    const size_t bytes = count * 4;
    std::vector<std::vector<uint32_t>> inputs(gpus);
    std::vector<void *> base(gpus), send(gpus), recv(gpus);
    for (int r = 0; r < gpus; r++) {
        make_input(r, dtype, count, seed, inputs[r]);
        cudaSetDevice(devices[r]);
        CHECK(cudaMalloc(&base[r], 2 * (bytes + offset) + 256) == cudaSuccess);
        send[r] = (char *)base[r] + offset;
        recv[r] =
            in_place ? send[r] : (char *)base[r] + ((bytes + offset + 255) / 256 * 256) + offset;
        CHECK(cudaMemcpy(send[r], inputs[r].data(), bytes, cudaMemcpyHostToDevice) == cudaSuccess);
        if (!in_place)
            CHECK(cudaMemset(recv[r], 0xFF, bytes) == cudaSuccess);
    }
    /* The copies and the poison ran on the legacy default stream, which the
     * caller's non-blocking streams do not wait for: finished before the
     * call, or its kernels may read inputs still in flight and the poison
     * land on its results. */
    for (int r = 0; r < gpus; r++) {
        cudaSetDevice(devices[r]);
        CHECK(cudaDeviceSynchronize() == cudaSuccess);
    }
    warplab_status status = warplab_allreduce(group, dtype, send.data(), recv.data(), count);
    CHECK_MSG(status == WARPLAB_OK, "warplab_allreduce: %s", warplab_last_error(NULL));
    printf("%d GPUs, %s n=%zu offset %zu%s: %s\n", gpus, dtype == WARPLAB_INT32 ? "int32" : "float",
           count, offset, in_place ? " in place" : "", warplab_allreduce_group_algorithm(group));
    std::vector<uint32_t> first;
    for (int r = 0; r < gpus; r++) {
        cudaSetDevice(devices[r]);
        CHECK(cudaStreamSynchronize(streams[r]) == cudaSuccess);
        std::vector<uint32_t> got(count);
        CHECK(cudaMemcpy(got.data(), recv[r], bytes, cudaMemcpyDeviceToHost) == cudaSuccess);
        char what[128];
        snprintf(what, sizeof what, "%s n=%zu offset %zu%s (%s), GPU %d",
                 dtype == WARPLAB_INT32 ? "int32" : "float", count, offset,
                 in_place ? " in place" : "", warplab_allreduce_group_algorithm(group), devices[r]);
        CHECK_MSG(check_sum(inputs, dtype, got, what) == 0, "%s: wrong sums", what);
        if (r == 0)
            first = got;
        else
            CHECK_MSG(got == first, "%s: not the same bits as GPU %d", what, devices[0]);
    }
    for (int r = 0; r < gpus; r++) {
        cudaSetDevice(devices[r]);
        cudaFree(base[r]);
    }
}

static int single_process(void)
{
    int present = 0;
    if (cudaGetDeviceCount(&present) != cudaSuccess || present < 2) {
        printf("SKIP: the all-reduce needs 2 CUDA GPUs or more (%d present)\n", present);
        return TEST_SKIP;
    }
    const int gpus = present < WARPLAB_MAX_GPUS ? present : WARPLAB_MAX_GPUS;
    std::vector<int> devices(gpus);
    std::vector<cudaStream_t> streams(gpus);
    for (int r = 0; r < gpus; r++) {
        devices[r] = r;
        cudaSetDevice(r);
        CHECK(cudaStreamCreateWithFlags(&streams[r], cudaStreamNonBlocking) == cudaSuccess);
    }
    warplab_allreduce_group *group = NULL;
    warplab_status status =
        warplab_allreduce_group_create(gpus, devices.data(), (void *const *)streams.data(), &group);
    CHECK_MSG(status == WARPLAB_OK, "group: %s", warplab_last_error(NULL));
    if (status != WARPLAB_OK)
        return check_report("test_allreduce_cuda");
    CHECK_STR(warplab_allreduce_group_algorithm(group), "planned");
    /* Every route of the planner (src/kernels/allreduce_plan.h): one_shot
     * (small, not in place), two_shot_flags (in place, and larger),
     * two_shot_push (from 8 MiB at G = 2; the last count: two rounds, in place
     * too), NCCL (past 32 MiB from G = 3 on, where NCCL loads). */
    const size_t counts[] = {1, 3, 1000, 65537, (1u << 20) + 3, (1u << 23) + 5};
    for (int t = 0; t < 2; t++)
        for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
            const warplab_dtype dtype = t ? WARPLAB_INT32 : WARPLAB_FLOAT32;
            one_case(group, gpus, devices.data(), streams.data(), dtype, counts[c], 0, false,
                     11 + c);
            one_case(group, gpus, devices.data(), streams.data(), dtype, counts[c], 4, false,
                     23 + c);
            one_case(group, gpus, devices.data(), streams.data(), dtype, counts[c], 0, true,
                     37 + c);
        }
    /* Arguments the call refuses. */
    void *host_pointers[WARPLAB_MAX_GPUS] = {};
    int on_host = 0;
    for (int r = 0; r < gpus; r++)
        host_pointers[r] = &on_host;
    CHECK(warplab_allreduce(group, WARPLAB_FLOAT32, host_pointers, host_pointers, 1) ==
          WARPLAB_ERROR_INVALID_ARGUMENT);
    CHECK(warplab_allreduce(group, WARPLAB_FLOAT64, host_pointers, host_pointers, 1) ==
          WARPLAB_ERROR_INVALID_ARGUMENT);
    /* recv one element past send on every rank: overlapping, not in place. */
    std::vector<void *> base(gpus), send(gpus), recv(gpus);
    for (int r = 0; r < gpus; r++) {
        cudaSetDevice(devices[r]);
        CHECK(cudaMalloc(&base[r], 4096) == cudaSuccess);
        send[r] = base[r];
        recv[r] = (char *)base[r] + 4;
    }
    CHECK(warplab_allreduce(group, WARPLAB_FLOAT32, send.data(), recv.data(), 100) ==
          WARPLAB_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(warplab_last_error(NULL), "overlap") != NULL);
    for (int r = 0; r < gpus; r++) {
        cudaSetDevice(devices[r]);
        cudaFree(base[r]);
    }
    warplab_allreduce_group_destroy(group);
    int same[2] = {0, 0};
    CHECK(warplab_allreduce_group_create(2, same, NULL, &group) != WARPLAB_OK);

    /* The peer query. */
    static warplab_peer_report report;
    status = warplab_peer_query(&report, (size_t)64 << 20);
    CHECK_MSG(status == WARPLAB_OK, "peer query: %s", warplab_last_error(NULL));
    CHECK(report.gpus == gpus);
    printf("peer access and copy bandwidth (GB/s, one way a->b / both ways a<->b, 64 MiB):\n");
    for (int a = 0; a < report.gpus; a++) {
        printf("  GPU %d %-28s", a, report.names[a]);
        for (int b = 0; b < report.gpus; b++) {
            if (a == b) {
                printf("  %-22s", "-");
                continue;
            }
            printf("  %s %6.1f / %6.1f      ", report.access[a][b] ? "P2P" : "no ",
                   report.one_way_gbs[a][b], report.two_way_gbs[a][b]);
            CHECK_MSG(report.one_way_gbs[a][b] > 0 && report.two_way_gbs[a][b] > 0,
                      "GPU %d -> %d: no bandwidth measured", a, b);
            CHECK(report.access[a][b] == report.access[b][a]);
        }
        printf("\n");
    }
    for (int r = 0; r < gpus; r++) {
        cudaSetDevice(r);
        cudaStreamDestroy(streams[r]);
    }
    /* NCCL never sees NVLink multicast. */
    char id[WARPLAB_ALLREDUCE_ID_HEX];
    if (warplab_allreduce_id_create(id) == WARPLAB_OK) {
        const char *nvls = getenv("NCCL_NVLS_ENABLE");
        CHECK(nvls && strcmp(nvls, "0") == 0);
    }
    return check_report("test_allreduce_cuda");
}

/* ------------------------------------------------------------------------ */
/* One process of several                                                   */

/* The rung of a comm's last call (src/kernels/cuda/allreduce_api.cu; not
 * public: the tests check the planner's choice through it). */
extern "C" const char *wl_comm_algorithm(const warplab_comm *comm);

/* The planner's GPU class for a comm of `ranks` ranks on this host (rank r
 * runs on GPU r modulo the GPUs present): the slowest GPU's theoretical
 * memory bandwidth by the course's formula, as the ranks agree at join; 0
 * when CUDA does not say. */
static double slowest_memory_gbs(int ranks)
{
    double slowest = 0.0;
    int present = 0;
    if (cudaGetDeviceCount(&present) != cudaSuccess || present < 1) {
        cudaGetLastError();
        return 0.0;
    }
    for (int r = 0; r < ranks; r++) {
        int bus = 0, clock_khz = 0;
        const int device = r % present;
        if (cudaDeviceGetAttribute(&bus, cudaDevAttrGlobalMemoryBusWidth, device) != cudaSuccess ||
            cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, device) != cudaSuccess) {
            cudaGetLastError();
            return 0.0;
        }
        const double gbs = warplab_theoretical_bandwidth_gbs(bus, clock_khz);
        if (r == 0 || gbs < slowest)
            slowest = gbs;
    }
    return slowest;
}

/* The comm's calls on one rank: every count of counts, float and int32, in
 * place and not, misaligned by 4 bytes and not, each result checked against
 * every rank's inputs regenerated here; the rung of each call checked
 * against the planner's (peers: whether the comm should have mapped its
 * peers' staging areas). */
static void comm_cases(warplab_comm *comm, int rank, int ranks, int device, bool peers,
                       const char *label)
{
    /* Both sides of each planner limit: one_shot (< 128 KiB), two_shot_flags
     * (from G = 3 to 16 MiB, to 32 MiB where every GPU has HBM3e-class
     * memory; to the staging area at G = 2), NCCL past them (the staging
     * area is 32 MiB); the calls alternate between the routes. */
    const size_t counts[] = {1,     1000,           32767,          32768 + 3,
                             65537, (1u << 20) + 3, (1u << 23) - 4, (1u << 23) + 5};
    const wl_allreduce_topology topology = {ranks, peers, true, WL_COMM_STAGING_BYTES,
                                            slowest_memory_gbs(ranks)};
    static const char *const names[] = {"one_shot", "two_shot_flags", "two_shot_push", "nccl",
                                        "none"};
    /* WARPLAB_RANKS_LARGEST=N: the counts up to N only (under a sanitizer). */
    const char *largest_text = getenv("WARPLAB_RANKS_LARGEST");
    const size_t largest = largest_text ? strtoull(largest_text, NULL, 10) : SIZE_MAX;
    int index = 0;
    for (int t = 0; t < 2; t++)
        for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++)
            for (int form = 0; form < 2; form++, index++) {
                const warplab_dtype dtype = t ? WARPLAB_INT32 : WARPLAB_FLOAT32;
                const size_t count = counts[c], bytes = count * 4;
                if (count > largest)
                    continue;
                const bool in_place = form == 1 && index % 4 == 1;
                const size_t offset = form == 1 && !in_place ? 4 : 0;
                std::vector<std::vector<uint32_t>> inputs(ranks);
                for (int r = 0; r < ranks; r++)
                    make_input(r, dtype, count, 5 + c + 17 * t, inputs[r]);
                char *base = NULL;
                cudaSetDevice(device);
                CHECK(cudaMalloc((void **)&base, 2 * bytes + 512) == cudaSuccess);
                char *send = base + offset;
                char *recv = in_place ? send : base + (bytes + 255) / 256 * 256 + 256 + offset;
                CHECK(cudaMemcpy(send, inputs[rank].data(), bytes, cudaMemcpyHostToDevice) ==
                      cudaSuccess);
                if (!in_place)
                    CHECK(cudaMemset(recv, 0xFF, bytes) == cudaSuccess);
                /* The comm's own stream is a blocking one: ordered after the
                 * legacy default stream's copy and poison. */
                warplab_status status =
                    warplab_comm_allreduce(comm, dtype, send, recv, count, NULL);
                CHECK_MSG(status == WARPLAB_OK, "rank %d: %s", rank, warplab_last_error(NULL));
                CHECK(warplab_comm_synchronize(comm) == WARPLAB_OK);
                const char *expected = names[wl_allreduce_plan(count, dtype, &topology, false)];
                char what[160];
                snprintf(what, sizeof what, "%s: rank %d of %d, %s n=%zu%s%s (%s)", label, rank,
                         ranks, t ? "int32" : "float", count, in_place ? " in place" : "",
                         offset ? " offset 4" : "", wl_comm_algorithm(comm));
                CHECK_MSG(strcmp(wl_comm_algorithm(comm), expected) == 0, "%s: planner says %s",
                          what, expected);
                std::vector<uint32_t> got(count);
                CHECK(cudaMemcpy(got.data(), recv, bytes, cudaMemcpyDeviceToHost) == cudaSuccess);
                CHECK_MSG(check_sum(inputs, dtype, got, what) == 0, "%s: wrong sums", what);
                if (rank == 0)
                    printf("%s\n", what);
                cudaFree(base);
            }
}

static double median(std::vector<float> v)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
}

/* warplab_comm_allreduce with the peer rungs (WARPLAB_COMM_PEERS=1) timed
 * against the same call on a comm joined by default (NCCL), in the same
 * processes, alternating call by call: CUDA events on a
 * stream of this rank's, every rank's L2 flushed (a 128 MiB memset) before
 * each timed call, 5 warm-up calls, the median of 40; rank 0's times (every
 * call waits for every rank, so each rank's time is the collective's).
 * Results checked after the timed calls. Rank 0 appends the table to path. */
static void comm_timings(warplab_comm *comm, warplab_comm *nccl, int rank, int ranks, int device,
                         const char *path)
{
    const size_t largest = (size_t)1 << 24;
    const size_t counts[] = {1u << 10, 1u << 12, 1u << 14,          1u << 16, 1u << 18,
                             1u << 20, 1u << 22, (1u << 23) - 1024, 1u << 23, 1u << 24};
    const int warm = 5, timed = 40;
    cudaSetDevice(device);
    cudaStream_t stream = NULL;
    void *send = NULL, *recv = NULL, *flush = NULL;
    const size_t flush_bytes = (size_t)128 << 20;
    CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) == cudaSuccess);
    CHECK(cudaMalloc(&send, largest * 4) == cudaSuccess);
    CHECK(cudaMalloc(&recv, largest * 4) == cudaSuccess);
    CHECK(cudaMalloc(&flush, flush_bytes) == cudaSuccess);
    std::vector<cudaEvent_t> events(4 * timed);
    for (auto &e : events)
        CHECK(cudaEventCreate(&e) == cudaSuccess);
    FILE *out = NULL;
    if (rank == 0) {
        cudaDeviceProp prop;
        cudaGetDeviceProperties(&prop, device);
        out = fopen(path, "a");
        CHECK_MSG(out != NULL, "cannot append to %s", path);
        if (out)
            fprintf(out,
                    "warplab_comm_allreduce, %d processes (one a GPU, %s), float: median of %d "
                    "(us), busbw = algbw x 2(G-1)/G (GB/s); the comm with WARPLAB_COMM_PEERS=1 "
                    "beside one without (NCCL) in the same run\n"
                    "%12s %10s %-15s %10s %10s %10s %10s %8s %12s\n",
                    ranks, prop.name, timed, "bytes", "n", "library", "lib us", "nccl us",
                    "lib busbw", "nccl busbw", "x nccl", "spread lib");
    }
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        const size_t count = counts[c], bytes = count * 4;
        std::vector<std::vector<uint32_t>> inputs(ranks);
        for (int r = 0; r < ranks; r++)
            make_input(r, WARPLAB_FLOAT32, count, 101 + c, inputs[r]);
        CHECK(cudaMemcpy(send, inputs[rank].data(), bytes, cudaMemcpyHostToDevice) == cudaSuccess);
        CHECK(cudaDeviceSynchronize() == cudaSuccess);
        bool ok = true;
        for (int i = 0; i < warm && ok; i++)
            ok = warplab_comm_allreduce(comm, WARPLAB_FLOAT32, send, recv, count, stream) ==
                     WARPLAB_OK &&
                 warplab_comm_allreduce(nccl, WARPLAB_FLOAT32, send, recv, count, stream) ==
                     WARPLAB_OK;
        for (int i = 0; i < timed && ok; i++)
            for (int which = 0; which < 2 && ok; which++) {
                cudaMemsetAsync(flush, i & 0xFF, flush_bytes, stream);
                cudaEventRecord(events[4 * i + 2 * which], stream);
                ok = warplab_comm_allreduce(which ? nccl : comm, WARPLAB_FLOAT32, send, recv, count,
                                            stream) == WARPLAB_OK;
                cudaEventRecord(events[4 * i + 2 * which + 1], stream);
            }
        /* The last call was NCCL's: the library's once more, for the check. */
        if (ok)
            ok = warplab_comm_allreduce(comm, WARPLAB_FLOAT32, send, recv, count, stream) ==
                 WARPLAB_OK;
        CHECK_MSG(ok, "rank %d: timed call: %s", rank, warplab_last_error(NULL));
        const char *route = wl_comm_algorithm(comm);
        CHECK(cudaStreamSynchronize(stream) == cudaSuccess);
        if (!ok)
            break;
        std::vector<uint32_t> got(count);
        CHECK(cudaMemcpy(got.data(), recv, bytes, cudaMemcpyDeviceToHost) == cudaSuccess);
        char what[96];
        snprintf(what, sizeof what, "timed, rank %d of %d, n=%zu (%s)", rank, ranks, count, route);
        CHECK_MSG(check_sum(inputs, WARPLAB_FLOAT32, got, what) == 0, "%s: wrong sums", what);
        std::vector<float> lib(timed), vendor(timed);
        for (int i = 0; i < timed; i++) {
            cudaEventElapsedTime(&lib[i], events[4 * i], events[4 * i + 1]);
            cudaEventElapsedTime(&vendor[i], events[4 * i + 2], events[4 * i + 3]);
        }
        std::vector<float> sorted = lib;
        std::sort(sorted.begin(), sorted.end());
        const double lib_ms = median(lib), nccl_ms = median(vendor);
        const double spread = (sorted[timed * 9 / 10] - sorted[timed / 10]) / lib_ms;
        const double factor = 2.0 * (ranks - 1) / ranks;
        if (out && lib_ms > 0 && nccl_ms > 0)
            fprintf(out, "%12zu %10zu %-15s %10.1f %10.1f %10.1f %10.1f %8.2f %11.0f%%\n", bytes,
                    count, route, lib_ms * 1e3, nccl_ms * 1e3, bytes / lib_ms / 1e6 * factor,
                    bytes / nccl_ms / 1e6 * factor, nccl_ms / lib_ms, spread * 100);
    }
    if (out)
        fclose(out);
    for (auto &e : events)
        cudaEventDestroy(e);
    cudaFree(send);
    cudaFree(recv);
    cudaFree(flush);
    cudaStreamDestroy(stream);
}

static int one_rank(int rank, int ranks, const char *id)
{
    int present = 0;
    if (cudaGetDeviceCount(&present) != cudaSuccess)
        present = 0;
    const char *one_host = getenv("WARPLAB_RANKS_ONE_HOST");
    const bool same_host = one_host && *one_host == '1';
    if (same_host && present < ranks) {
        printf("SKIP: rank %d: %d ranks on one host need %d GPUs, %d present\n", rank, ranks, ranks,
               present);
        return TEST_SKIP;
    }
    if (present < 1) {
        printf("SKIP: rank %d: no CUDA GPU\n", rank);
        return TEST_SKIP;
    }
    char probe[WARPLAB_ALLREDUCE_ID_HEX];
    if (warplab_allreduce_id_create(probe) == WARPLAB_ERROR_UNSUPPORTED) {
        printf("SKIP: rank %d: %s\n", rank, warplab_last_error(NULL));
        return TEST_SKIP;
    }
    const int device = rank % present;
    /* One rank a GPU of one host where every pair has peer access: the comm
     * must map its peers' staging areas and take the peer rungs by size. */
    bool peers = same_host && ranks <= WARPLAB_MAX_GPUS;
    for (int a = 0; peers && a < ranks; a++)
        for (int b = 0; b < ranks; b++) {
            int can = 0;
            if (a != b && (cudaDeviceCanAccessPeer(&can, a, b) != cudaSuccess || !can))
                peers = false;
        }
    /* The first comm takes the peer rungs by size (WARPLAB_COMM_PEERS=1, the
     * opt-in; WARPLAB_COMM_PEERS=0 from the caller keeps it on NCCL too). */
    const char *allow = getenv("WARPLAB_COMM_PEERS");
    if (allow && strcmp(allow, "0") == 0)
        peers = false;
    else
        setenv("WARPLAB_COMM_PEERS", "1", 1);
    warplab_comm *comm = NULL;
    warplab_status status = warplab_comm_join(device, rank, ranks, id, 120.0, &comm);
    CHECK_MSG(status == WARPLAB_OK, "rank %d: join: %s", rank, warplab_last_error(NULL));
    if (status != WARPLAB_OK)
        return check_report("test_allreduce_cuda rank");
    const char *nvls = getenv("NCCL_NVLS_ENABLE");
    CHECK(nvls && strcmp(nvls, "0") == 0);
    CHECK_STR(wl_comm_algorithm(comm), "planned");
    comm_cases(comm, rank, ranks, device, peers, "comm");
    /* A second comm of the same ranks as a user gets it by default (no
     * WARPLAB_COMM_PEERS: NCCL): that path stays tested, and it is the
     * vendor the timings compare with. Through a file only (a second id
     * from the same file's name; HOST:PORT would need a second port). */
    if (strncmp(id, "file:", 5) == 0) {
        char second[4200];
        snprintf(second, sizeof second, "%s.nccl", id);
        unsetenv("WARPLAB_COMM_PEERS");
        warplab_comm *nccl = NULL;
        status = warplab_comm_join(device, rank, ranks, second, 120.0, &nccl);
        if (allow)
            setenv("WARPLAB_COMM_PEERS", allow, 1);
        CHECK_MSG(status == WARPLAB_OK, "rank %d: join (NCCL): %s", rank, warplab_last_error(NULL));
        if (status == WARPLAB_OK) {
            comm_cases(nccl, rank, ranks, device, false, "nccl comm");
            const char *timings = getenv("WARPLAB_RANKS_TIMING");
            if (timings && *timings)
                comm_timings(comm, nccl, rank, ranks, device, timings);
            warplab_comm_destroy(nccl);
        }
    }
    warplab_comm_destroy(comm);
    printf("rank %d of %d on GPU %d: all-reduce results checked (%s)\n", rank, ranks, device,
           peers ? "peer rungs by size, and a comm kept on NCCL" : "NCCL");
    return check_report("test_allreduce_cuda rank");
}

int main(int argc, char **argv)
{
    int rank = -1, ranks = 0;
    const char *id = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--rank"))
            rank = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--ranks"))
            ranks = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--id"))
            id = argv[i + 1];
    }
    if (rank >= 0)
        return one_rank(rank, ranks, id);
    return single_process();
}
