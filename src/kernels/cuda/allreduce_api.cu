/* The library's all-reduce calls (include/warplab.h, docs/MULTIGPU.md):
 * - warplab_allreduce: the GPUs of one process, over the caller's arrays and
 *   streams, through the engine of src/kernels/cuda/allreduce.cu; the rung
 *   for each call from the planner (src/kernels/allreduce_plan.h: one_shot,
 *   two_shot_flags or NCCL by message size, G and peer access);
 * - warplab_comm_*: one process per GPU joining an NCCL communicator through
 *   an id in a file or an environment variable.
 * Failures are recorded per thread (warplab_last_error(NULL)). NCCL starts
 * only after NCCL_NVLS_ENABLE=0 is set (wl_allreduce_nccl_env). */
#include "../allreduce_plan.h"
#include "allreduce_cuda.h"
#include "vendor_libs.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <unistd.h>

struct warplab_allreduce_group {
    ar_group group;
    wl_backend report; /* collects the engine's failure detail; info.multiprocessors */
    wl_allreduce_topology topology;
    ar_algorithm last; /* the last call's rung */
};

/* A GPU's theoretical memory bandwidth (the course's formula), the
 * planner's GPU class; 0 when CUDA does not say. */
static double memory_gbs(int device)
{
    int bus = 0, clock_khz = 0;
    if (cudaDeviceGetAttribute(&bus, cudaDevAttrGlobalMemoryBusWidth, device) != cudaSuccess ||
        cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, device) != cudaSuccess) {
        cudaGetLastError();
        return 0.0;
    }
    return warplab_theoretical_bandwidth_gbs(bus, clock_khz);
}

static warplab_status fail_from(wl_backend *backend, warplab_status status)
{
    return wl_detached_fail(status, "%s", backend->error[0] ? backend->error : "all-reduce failed");
}

extern "C" warplab_status warplab_allreduce_group_create(int gpus, const int *devices,
                                                         void *const *streams,
                                                         warplab_allreduce_group **out)
{
    wl_detached_error_clear();
    if (!out || !devices || gpus < 2 || gpus > WARPLAB_MAX_GPUS)
        return wl_detached_fail(WARPLAB_ERROR_INVALID_ARGUMENT,
                                "warplab_allreduce_group_create needs 2 to %d devices and a "
                                "place for the group",
                                WARPLAB_MAX_GPUS);
    *out = nullptr;
    warplab_allreduce_group *g =
        static_cast<warplab_allreduce_group *>(calloc(1, sizeof(warplab_allreduce_group)));
    if (!g)
        return wl_detached_fail(WARPLAB_ERROR_HOST_OUT_OF_MEMORY, "all-reduce group");
    cudaStream_t rank_streams[WARPLAB_MAX_GPUS] = {};
    for (int r = 0; streams && r < gpus; r++)
        rank_streams[r] = static_cast<cudaStream_t>(streams[r]);
    int sms = 0;
    if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, devices[0]) == cudaSuccess)
        g->report.info.multiprocessors = sms;
    cudaGetLastError();
    /* Everything the planner may pick: peers and flags where every pair has
     * peer access, NCCL's communicators where NCCL loads (refused where
     * neither). */
    warplab_status status =
        wl_allreduce_group_open(&g->report, &g->group, gpus, devices, rank_streams, AR_PLANNED, 0);
    if (status != WARPLAB_OK) {
        status = fail_from(&g->report, status);
        wl_allreduce_group_close(&g->group);
        free(g);
        return status;
    }
    g->topology.gpus = gpus;
    g->topology.peers = g->group.peers;
    g->topology.nccl = g->group.nccl_ready;
    g->topology.memory_gbs = memory_gbs(devices[0]);
    for (int r = 1; r < gpus; r++) { /* the slowest GPU's */
        const double gbs = memory_gbs(devices[r]);
        if (gbs < g->topology.memory_gbs)
            g->topology.memory_gbs = gbs;
    }
    g->last = AR_PLANNED;
    g->group.every_rank = true;
    *out = g;
    return WARPLAB_OK;
}

extern "C" void warplab_allreduce_group_destroy(warplab_allreduce_group *g)
{
    if (!g)
        return;
    wl_allreduce_group_close(&g->group);
    free(g);
}

extern "C" const char *warplab_allreduce_group_algorithm(const warplab_allreduce_group *g)
{
    if (!g)
        return "none";
    return wl_allreduce_algorithm_name(g->last);
}

/* The planner's route as the engine's rung. */
static ar_algorithm algorithm_of(wl_allreduce_route route)
{
    switch (route) {
    case WL_ALLREDUCE_ROUTE_ONE_SHOT: return AR_ONE_SHOT;
    case WL_ALLREDUCE_ROUTE_TWO_SHOT_FLAGS: return AR_TWO_SHOT_FLAGS;
    case WL_ALLREDUCE_ROUTE_TWO_SHOT_PUSH: return AR_TWO_SHOT_PUSH;
    case WL_ALLREDUCE_ROUTE_NCCL: return AR_NCCL;
    case WL_ALLREDUCE_ROUTE_NONE: break;
    }
    return AR_PLANNED;
}

/* Whether [a, a + bytes) and [b, b + bytes) share a byte. */
static bool overlap(const void *a, const void *b, size_t bytes)
{
    const uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return x < y ? y - x < bytes : x - y < bytes;
}

/* A device pointer of count x 4 bytes on the device. */
static warplab_status check_array(const void *p, int device, size_t bytes, const char *what,
                                  int rank)
{
    cudaPointerAttributes attributes;
    cudaError_t e = cudaPointerGetAttributes(&attributes, p);
    cudaGetLastError();
    if (!p || e != cudaSuccess ||
        (attributes.type != cudaMemoryTypeDevice && attributes.type != cudaMemoryTypeManaged) ||
        (attributes.type == cudaMemoryTypeDevice && attributes.device != device))
        return wl_detached_fail(WARPLAB_ERROR_INVALID_ARGUMENT,
                                "rank %d's %s (%p, %zu bytes) is not device memory of CUDA "
                                "device %d",
                                rank, what, p, bytes, device);
    if (((uintptr_t)p & 3) != 0)
        return wl_detached_fail(WARPLAB_ERROR_INVALID_ARGUMENT,
                                "rank %d's %s (%p) is not aligned to its 4-byte elements", rank,
                                what, p);
    return WARPLAB_OK;
}

extern "C" warplab_status warplab_allreduce(warplab_allreduce_group *g, warplab_dtype dtype,
                                            void *const *send, void *const *recv, size_t count)
{
    wl_detached_error_clear();
    if (!g || !send || !recv)
        return wl_detached_fail(WARPLAB_ERROR_INVALID_ARGUMENT,
                                "warplab_allreduce needs a group and send and recv arrays");
    if (dtype != WARPLAB_FLOAT32 && dtype != WARPLAB_INT32)
        return wl_detached_fail(WARPLAB_ERROR_INVALID_ARGUMENT,
                                "warplab_allreduce sums float or int32, not %s",
                                warplab_dtype_name(dtype));
    size_t bytes = 0;
    if (!wl_size_mul(count, 4, &bytes))
        return wl_detached_fail(WARPLAB_ERROR_INVALID_ARGUMENT, "count %zu: too many bytes", count);
    if (count == 0)
        return WARPLAB_OK;
    ar_call call;
    memset(&call, 0, sizeof call);
    call.n = count;
    call.dtype = dtype;
    bool in_place = false;
    for (int r = 0; r < g->group.gpus; r++) {
        warplab_status status = check_array(send[r], g->group.devices[r], bytes, "send array", r);
        if (status == WARPLAB_OK)
            status = check_array(recv[r], g->group.devices[r], bytes, "recv array", r);
        if (status != WARPLAB_OK)
            return status;
        if (send[r] != recv[r] && overlap(send[r], recv[r], bytes))
            return wl_detached_fail(WARPLAB_ERROR_INVALID_ARGUMENT,
                                    "rank %d's send and recv arrays overlap without being the "
                                    "same array (in place: recv[r] = send[r])",
                                    r);
        call.in[r] = send[r];
        call.out[r] = recv[r];
        in_place = in_place || send[r] == recv[r];
    }
    const ar_algorithm algorithm =
        algorithm_of(wl_allreduce_plan(count, dtype, &g->topology, in_place));
    if (algorithm == AR_PLANNED)
        return wl_detached_fail(WARPLAB_ERROR_UNSUPPORTED,
                                "warplab_allreduce: no rung for %d GPUs without peer access "
                                "or NCCL",
                                g->group.gpus);
    g->group.algorithm = algorithm;
    g->last = algorithm;
    g->report.error[0] = '\0';
    warplab_status status = wl_allreduce_group_run(&g->report, &g->group, &call);
    return status == WARPLAB_OK ? WARPLAB_OK : fail_from(&g->report, status);
}

/* ------------------------------------------------------------------------ */
/* One process per GPU                                                      */

#ifdef WARPLAB_HAVE_NCCL
/* A rank's area, mapped by every other rank of a comm on its host: the flag
 * words, then the staging of the input (the peers read it), then the
 * staging of the reduced segments (the peers write theirs into it). */
#define COMM_FLAG_BYTES ((AR_FLAG_WORDS * sizeof(unsigned) + 255) / 256 * 256)
#define COMM_AREA_BYTES (COMM_FLAG_BYTES + 2 * WL_COMM_STAGING_BYTES)

struct warplab_comm {
    const wl_nccl_api *nccl;
    ncclComm_t comm;
    int device;
    int rank;
    int ranks;
    cudaStream_t stream;
    /* The peer rungs (docs/MULTIGPU.md, "One process per GPU through the
     * flag rungs"): every rank's area mapped here (area[rank]: this rank's
     * own allocation; the others opened through CUDA IPC), agreed by every
     * rank at join, and the flag kernels' grid cap (the fewest SMs). */
    bool peers;
    int blocks;
    double memory_gbs; /* the slowest rank's GPU memory (GB/s), agreed at join */
    char *area[WL_ALLREDUCE_MAX_GPUS];
    unsigned *flags[WL_ALLREDUCE_MAX_GPUS];
    /* The last peer-rung call's end on its stream: a call on another stream
     * waits for it before it overwrites the staging areas. */
    cudaEvent_t staged;
    cudaStream_t staged_on;
    ar_algorithm last;
};

/* What a rank tells the others at join (gathered through NCCL): its area's
 * IPC handle, whether it could make one, where it runs, its SMs. */
struct comm_card {
    cudaIpcMemHandle_t handle;
    char host[96]; /* host name and boot id: IPC works inside one OS only */
    unsigned char uuid[16];
    int sms;
    int memory_gbs; /* its GPU's theoretical memory bandwidth, GB/s */
    int ok;
};

static void host_identity(char *out, size_t len)
{
    char name[64] = "";
    gethostname(name, sizeof name - 1);
    char boot[40] = "";
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (f) {
        if (!fgets(boot, sizeof boot, f))
            boot[0] = '\0';
        fclose(f);
    }
    boot[strcspn(boot, "\n")] = '\0';
    snprintf(out, len, "%s/%s", name, boot);
}

/* Every rank's card on every rank: each writes its own slot of a zeroed
 * array and an int32 sum over NCCL fills the others (no socket layer of our
 * own). Collective: every rank of the comm calls it. */
static warplab_status gather_cards(warplab_comm *c, const comm_card *mine, comm_card *all)
{
    const size_t slot = (sizeof(comm_card) + 3) / 4 * 4, bytes = slot * (size_t)c->ranks;
    char *host = static_cast<char *>(calloc(1, bytes));
    void *device = nullptr;
    if (!host)
        return wl_detached_fail(WARPLAB_ERROR_HOST_OUT_OF_MEMORY, "all-reduce comm cards");
    memcpy(host + slot * (size_t)c->rank, mine, sizeof *mine);
    cudaError_t e = cudaMalloc(&device, bytes);
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(device, host, bytes, cudaMemcpyHostToDevice, c->stream);
    ncclResult_t r = ncclSuccess;
    if (e == cudaSuccess)
        r = c->nccl->all_reduce(device, device, bytes / 4, ncclInt32, ncclSum, c->comm, c->stream);
    if (e == cudaSuccess && r == ncclSuccess)
        e = cudaMemcpyAsync(host, device, bytes, cudaMemcpyDeviceToHost, c->stream);
    if (e == cudaSuccess && r == ncclSuccess)
        e = cudaStreamSynchronize(c->stream);
    cudaFree(device);
    cudaGetLastError();
    warplab_status status = WARPLAB_OK;
    if (e != cudaSuccess || r != ncclSuccess)
        status =
            wl_detached_fail(WARPLAB_ERROR_BACKEND, "rank %d: exchanging comm cards: %s", c->rank,
                             e != cudaSuccess ? cudaGetErrorString(e) : c->nccl->error_string(r));
    else
        for (int q = 0; q < c->ranks; q++)
            memcpy(&all[q], host + slot * (size_t)q, sizeof all[q]);
    free(host);
    return status;
}

static void unmap_peers(warplab_comm *c)
{
    for (int q = 0; q < c->ranks && q < WL_ALLREDUCE_MAX_GPUS; q++) {
        if (!c->area[q])
            continue;
        if (q == c->rank)
            cudaFree(c->area[q]);
        else
            cudaIpcCloseMemHandle(c->area[q]);
        c->area[q] = nullptr;
        c->flags[q] = nullptr;
    }
    if (c->staged)
        cudaEventDestroy(c->staged);
    c->staged = nullptr;
    cudaGetLastError();
    c->peers = false;
}

/* Maps every rank's area in every rank (collective, at join): two exchanges
 * over the comm's NCCL communicator, the cards, then each rank's verdict,
 * so that every rank takes the peer rungs or none does. Leaves the comm on
 * NCCL (peers false) where any rank cannot or would not: another host, a
 * shared GPU, no peer access, no memory, WARPLAB_COMM_PEERS not 1. Fails
 * only where the exchange itself fails. */
static warplab_status map_peers(warplab_comm *c)
{
    comm_card mine, *all = nullptr;
    memset(&mine, 0, sizeof mine);
    /* Opt-in: through the staging copies the peer rungs measured slower
     * than NCCL at most sizes (docs/MULTIGPU.md, "One process per GPU
     * through the flag rungs"), so a comm maps its peers only where
     * WARPLAB_COMM_PEERS=1. */
    const char *allow = getenv("WARPLAB_COMM_PEERS");
    mine.ok = allow && strcmp(allow, "1") == 0;
    cudaDeviceProp prop;
    if (mine.ok && cudaGetDeviceProperties(&prop, c->device) == cudaSuccess) {
        memcpy(mine.uuid, &prop.uuid, sizeof mine.uuid);
        mine.sms = prop.multiProcessorCount;
        mine.memory_gbs = (int)memory_gbs(c->device);
    } else {
        mine.ok = 0;
    }
    void *area = nullptr;
    if (mine.ok && cudaMalloc(&area, COMM_AREA_BYTES) != cudaSuccess)
        mine.ok = 0;
    /* Flag words zeroed before any peer can set one (a peer's first call
     * comes after both exchanges). */
    if (mine.ok && (cudaEventCreateWithFlags(&c->staged, cudaEventDisableTiming) != cudaSuccess ||
                    cudaMemsetAsync(area, 0, COMM_FLAG_BYTES, c->stream) != cudaSuccess ||
                    cudaStreamSynchronize(c->stream) != cudaSuccess ||
                    cudaIpcGetMemHandle(&mine.handle, area) != cudaSuccess))
        mine.ok = 0;
    cudaGetLastError();
    c->area[c->rank] = static_cast<char *>(area);
    host_identity(mine.host, sizeof mine.host);
    all = static_cast<comm_card *>(calloc((size_t)c->ranks, sizeof *all));
    warplab_status status = all ? gather_cards(c, &mine, all)
                                : wl_detached_fail(WARPLAB_ERROR_HOST_OUT_OF_MEMORY, "comm cards");
    int verdict = status == WARPLAB_OK && mine.ok;
    int fewest = AR_FLAG_BLOCKS;
    for (int q = 0; verdict && q < c->ranks; q++) {
        if (!all[q].ok || strncmp(all[q].host, mine.host, sizeof mine.host) != 0)
            verdict = 0;
        for (int k = 0; k < q && verdict; k++)
            if (memcmp(all[k].uuid, all[q].uuid, sizeof mine.uuid) == 0)
                verdict = 0; /* two ranks on one GPU: their blocks need not all be resident */
        if (all[q].sms < fewest)
            fewest = all[q].sms;
        if (q == 0 || all[q].memory_gbs < c->memory_gbs)
            c->memory_gbs = all[q].memory_gbs;
        if (!verdict || q == c->rank)
            continue;
        void *peer = nullptr;
        if (cudaIpcOpenMemHandle(&peer, all[q].handle, cudaIpcMemLazyEnablePeerAccess) !=
            cudaSuccess) {
            cudaGetLastError();
            verdict = 0;
            continue;
        }
        c->area[q] = static_cast<char *>(peer);
    }
    free(all);
    if (status == WARPLAB_OK) {
        /* One answer on every rank: the sum of the verdicts is the ranks. */
        comm_card votes;
        memset(&votes, 0, sizeof votes);
        votes.ok = verdict;
        comm_card *tally = static_cast<comm_card *>(calloc((size_t)c->ranks, sizeof *tally));
        status = tally ? gather_cards(c, &votes, tally)
                       : wl_detached_fail(WARPLAB_ERROR_HOST_OUT_OF_MEMORY, "comm votes");
        int agreed = 0;
        for (int q = 0; status == WARPLAB_OK && q < c->ranks; q++)
            agreed += tally[q].ok;
        free(tally);
        c->peers = status == WARPLAB_OK && agreed == c->ranks && fewest > 0;
    }
    if (!c->peers) {
        unmap_peers(c);
        return status;
    }
    for (int q = 0; q < c->ranks; q++)
        c->flags[q] = reinterpret_cast<unsigned *>(c->area[q]);
    c->blocks = fewest;
    return WARPLAB_OK;
}

static void to_hex(const ncclUniqueId &id, char *hex)
{
    const unsigned char *bytes = reinterpret_cast<const unsigned char *>(&id);
    for (size_t i = 0; i < sizeof id; i++)
        snprintf(hex + 2 * i, 3, "%02x", bytes[i]);
}

static bool from_hex(const char *hex, ncclUniqueId *id)
{
    unsigned char *bytes = reinterpret_cast<unsigned char *>(id);
    if (strlen(hex) < 2 * sizeof *id)
        return false;
    for (size_t i = 0; i < sizeof *id; i++) {
        unsigned value = 0;
        if (sscanf(hex + 2 * i, "%2x", &value) != 1)
            return false;
        bytes[i] = (unsigned char)value;
    }
    return true;
}

/* Rank 0: the id into PATH (written to PATH.tmp.<pid>, then renamed, so a
 * reader never sees half of it). The others: wait for PATH. */
static warplab_status id_through_file(const wl_nccl_api *nccl, const char *path, int rank,
                                      double timeout_seconds, ncclUniqueId *id)
{
    char hex[WARPLAB_ALLREDUCE_ID_HEX];
    if (rank == 0) {
        ncclResult_t r = nccl->get_unique_id(id);
        if (r != ncclSuccess)
            return wl_detached_fail(WARPLAB_ERROR_BACKEND, "ncclGetUniqueId: %s",
                                    nccl->error_string(r));
        to_hex(*id, hex);
        char temporary[4096];
        snprintf(temporary, sizeof temporary, "%s.tmp.%ld", path, (long)getpid());
        FILE *f = fopen(temporary, "w");
        bool written = f && fprintf(f, "%s\n", hex) > 0;
        if (f && fclose(f) != 0)
            written = false;
        if (!written || rename(temporary, path) != 0) {
            remove(temporary);
            return wl_detached_fail(WARPLAB_ERROR_IO, "cannot write the all-reduce id to %s: %s",
                                    path, strerror(errno));
        }
        return WARPLAB_OK;
    }
    const double deadline = wl_now_seconds() + (timeout_seconds > 0 ? timeout_seconds : 60.0);
    for (;;) {
        FILE *f = fopen(path, "r");
        if (f) {
            bool read = fgets(hex, sizeof hex, f) != nullptr;
            fclose(f);
            if (read && from_hex(hex, id))
                return WARPLAB_OK;
        }
        if (wl_now_seconds() > deadline)
            return wl_detached_fail(WARPLAB_ERROR_IO,
                                    "rank %d: no all-reduce id in %s after %.0f s (is rank 0 "
                                    "running, on a shared file system?)",
                                    rank, path, timeout_seconds > 0 ? timeout_seconds : 60.0);
        struct timespec pause = {0, 20 * 1000 * 1000};
        nanosleep(&pause, nullptr);
    }
}
#else
struct warplab_comm {
    int unused;
};
#endif

extern "C" warplab_status warplab_allreduce_id_create(char hex[WARPLAB_ALLREDUCE_ID_HEX])
{
    wl_detached_error_clear();
    if (!hex)
        return wl_detached_fail(WARPLAB_ERROR_INVALID_ARGUMENT, "no place for the id");
#ifdef WARPLAB_HAVE_NCCL
    char reason[1024];
    const wl_nccl_api *nccl = wl_nccl_load(reason, sizeof reason);
    if (!nccl) {
        hex[0] = '\0';
        return wl_detached_fail(WARPLAB_ERROR_UNSUPPORTED, "%s", reason);
    }
    wl_allreduce_nccl_env();
    ncclUniqueId id;
    ncclResult_t r = nccl->get_unique_id(&id);
    if (r != ncclSuccess)
        return wl_detached_fail(WARPLAB_ERROR_BACKEND, "ncclGetUniqueId: %s",
                                nccl->error_string(r));
    to_hex(id, hex);
    return WARPLAB_OK;
#else
    hex[0] = '\0';
    return wl_detached_fail(WARPLAB_ERROR_UNSUPPORTED, "%s", WL_ALLREDUCE_NO_NCCL);
#endif
}

extern "C" warplab_status warplab_comm_join(int device, int rank, int ranks, const char *id_text,
                                            double timeout_seconds, warplab_comm **out)
{
    wl_detached_error_clear();
    if (!out || ranks < 1 || rank < 0 || rank >= ranks)
        return wl_detached_fail(WARPLAB_ERROR_INVALID_ARGUMENT, "warplab_comm_join: rank %d of %d",
                                rank, ranks);
    *out = nullptr;
#ifdef WARPLAB_HAVE_NCCL
    char reason[1024];
    const wl_nccl_api *nccl = wl_nccl_load(reason, sizeof reason);
    if (!nccl)
        return wl_detached_fail(WARPLAB_ERROR_UNSUPPORTED, "%s", reason);
    wl_allreduce_nccl_env();
    if (!id_text)
        id_text = getenv("WARPLAB_ALLREDUCE_ID");
    if (!id_text || !*id_text)
        return wl_detached_fail(WARPLAB_ERROR_INVALID_ARGUMENT,
                                "no all-reduce id: pass \"file:PATH\" or \"env:NAME\", or set "
                                "WARPLAB_ALLREDUCE_ID");
    ncclUniqueId id;
    warplab_status status = WARPLAB_OK;
    if (strncmp(id_text, "file:", 5) == 0) {
        status = id_through_file(nccl, id_text + 5, rank, timeout_seconds, &id);
    } else if (strncmp(id_text, "env:", 4) == 0) {
        /* HOST:PORT (rank 0's host and a free port, as a launcher knows
         * them): NCCL's own NCCL_COMM_ID rendezvous, every rank derives the
         * same id and rank 0 serves it from ncclCommInitRank. Or 256 hex
         * digits from warplab_allreduce_id_create, whose process must live
         * until every rank has joined (it serves the rendezvous). */
        const char *value = getenv(id_text + 4);
        if (value && strchr(value, ':') && strlen(value) < 2 * sizeof id) {
            setenv("NCCL_COMM_ID", value, 1);
            ncclResult_t r = nccl->get_unique_id(&id);
            if (r != ncclSuccess)
                status = wl_detached_fail(WARPLAB_ERROR_INVALID_ARGUMENT,
                                          "%s=%s: not HOST:PORT for NCCL (%s)", id_text + 4, value,
                                          nccl->error_string(r));
        } else if (!value || !from_hex(value, &id)) {
            status = wl_detached_fail(WARPLAB_ERROR_INVALID_ARGUMENT,
                                      "environment variable %s holds no all-reduce id (HOST:PORT "
                                      "of rank 0, or 256 hex digits from "
                                      "warplab_allreduce_id_create)",
                                      id_text + 4);
        }
    } else {
        status = wl_detached_fail(WARPLAB_ERROR_INVALID_ARGUMENT,
                                  "all-reduce id '%s': \"file:PATH\" or \"env:NAME\"", id_text);
    }
    if (status != WARPLAB_OK)
        return status;
    warplab_comm *c = static_cast<warplab_comm *>(calloc(1, sizeof(warplab_comm)));
    if (!c)
        return wl_detached_fail(WARPLAB_ERROR_HOST_OUT_OF_MEMORY, "all-reduce comm");
    c->nccl = nccl;
    c->device = device;
    c->ranks = ranks;
    cudaError_t e = cudaSetDevice(device);
    if (e == cudaSuccess)
        /* Blocking: ordered after the legacy default stream's work. */
        e = cudaStreamCreateWithFlags(&c->stream, cudaStreamDefault);
    if (e != cudaSuccess) {
        cudaGetLastError();
        free(c);
        return wl_detached_fail(WARPLAB_ERROR_BACKEND, "rank %d on CUDA device %d: %s", rank,
                                device, cudaGetErrorString(e));
    }
    ncclResult_t r = nccl->comm_init_rank(&c->comm, ranks, id, rank);
    if (r != ncclSuccess) {
        cudaStreamDestroy(c->stream);
        free(c);
        return wl_detached_fail(WARPLAB_ERROR_BACKEND, "ncclCommInitRank (rank %d of %d): %s", rank,
                                ranks, nccl->error_string(r));
    }
    c->rank = rank;
    c->last = AR_PLANNED;
    /* Every rank takes part (ranks is the same on all of them). */
    if (ranks >= 2 && ranks <= WL_ALLREDUCE_MAX_GPUS)
        status = map_peers(c);
    if (status != WARPLAB_OK) {
        nccl->comm_destroy(c->comm);
        cudaStreamDestroy(c->stream);
        cudaGetLastError();
        free(c);
        return status;
    }
    *out = c;
    return WARPLAB_OK;
#else
    (void)device;
    (void)id_text;
    (void)timeout_seconds;
    return wl_detached_fail(WARPLAB_ERROR_UNSUPPORTED, "%s", WL_ALLREDUCE_NO_NCCL);
#endif
}

#ifdef WARPLAB_HAVE_NCCL
/* The flag rungs between processes (docs/MULTIGPU.md), on the current
 * device (the comm's), queued on s: the input is copied into this rank's
 * staging, which the peers read, then
 * - one_shot: every rank sums every rank's staged input into its recv;
 * - two_shot_flags: rank r sums segment r of the staged inputs and writes it
 *   into segment r of every rank's staged output (its own: straight into
 *   recv where recv is 16-byte aligned), then copies the other segments
 *   from its staged output into recv.
 * The kernel's start barrier says every rank's copy is done; its end
 * barrier says no peer still reads this rank's staged input or writes its
 * staged output, so the copies after it, and the next call's, are safe. */
static cudaError_t comm_flagged_queue(warplab_comm *c, bool two_shot, warplab_dtype dtype,
                                      void *recv, size_t count, cudaStream_t s,
                                      char *const *staged_in, char *const *staged_out, bool aligned)
{
    const int G = c->ranks, me = c->rank;
    const size_t bytes = count * 4;
    cudaError_t e = cudaSuccess;
    const void *sources[WL_ALLREDUCE_MAX_GPUS];
    void *destinations[WL_ALLREDUCE_MAX_GPUS];
    if (!two_shot) {
        for (int q = 0; q < G; q++)
            sources[q] = staged_in[q];
        destinations[0] = aligned ? recv : staged_out[me];
        e = wl_allreduce_flagged_rank(G, me, wl_allreduce_flag_grid(count, c->blocks), s, dtype,
                                      sources, destinations, 1, count, c->flags);
        if (e == cudaSuccess && !aligned)
            e = cudaMemcpyAsync(recv, staged_out[me], bytes, cudaMemcpyDeviceToDevice, s);
        return e;
    }
    size_t first = 0, length = 0, largest = 0;
    wl_allreduce_segment(count, G, 0, &first, &largest);
    wl_allreduce_segment(count, G, me, &first, &length);
    for (int q = 0; q < G; q++) {
        sources[q] = staged_in[q] + first * 4;
        destinations[q] = staged_out[q] + first * 4;
    }
    if (aligned)
        destinations[me] = static_cast<char *>(recv) + first * 4;
    e = wl_allreduce_flagged_rank(G, me, wl_allreduce_flag_grid(largest, c->blocks), s, dtype,
                                  sources, destinations, G, length, c->flags);
    /* The other ranks' segments (all of it where recv is not aligned). */
    const size_t own_begin = aligned ? first : count, own_end = aligned ? first + length : count;
    if (e == cudaSuccess && own_begin > 0)
        e = cudaMemcpyAsync(recv, staged_out[me], own_begin * 4, cudaMemcpyDeviceToDevice, s);
    if (e == cudaSuccess && own_end < count)
        e = cudaMemcpyAsync(static_cast<char *>(recv) + own_end * 4, staged_out[me] + own_end * 4,
                            (count - own_end) * 4, cudaMemcpyDeviceToDevice, s);
    return e;
}

/* The call: the input's copy into this rank's staging, then the above; on a
 * stream other than the last peer-rung call's, after that call's end (its
 * peers may still read the staged input until then). */
static cudaError_t comm_flagged(warplab_comm *c, bool two_shot, warplab_dtype dtype,
                                const void *send, void *recv, size_t count, cudaStream_t s)
{
    const int G = c->ranks, me = c->rank;
    const size_t bytes = count * 4;
    char *staged_in[WL_ALLREDUCE_MAX_GPUS], *staged_out[WL_ALLREDUCE_MAX_GPUS];
    for (int q = 0; q < G; q++) {
        staged_in[q] = c->area[q] + COMM_FLAG_BYTES;
        staged_out[q] = staged_in[q] + WL_COMM_STAGING_BYTES;
    }
    const bool aligned = ((uintptr_t)recv & 15) == 0;
    cudaError_t e = cudaSuccess;
    if (c->staged_on && c->staged_on != s)
        e = cudaStreamWaitEvent(s, c->staged, 0);
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(staged_in[me], send, bytes, cudaMemcpyDeviceToDevice, s);
    if (e != cudaSuccess)
        return e;
    e = comm_flagged_queue(c, two_shot, dtype, recv, count, s, staged_in, staged_out, aligned);
    if (e == cudaSuccess)
        e = cudaEventRecord(c->staged, s);
    c->staged_on = s;
    return e;
}
#endif

extern "C" warplab_status warplab_comm_allreduce(warplab_comm *c, warplab_dtype dtype,
                                                 const void *send, void *recv, size_t count,
                                                 void *stream)
{
    wl_detached_error_clear();
    if (!c || (count && (!send || !recv)))
        return wl_detached_fail(WARPLAB_ERROR_INVALID_ARGUMENT,
                                "warplab_comm_allreduce needs a comm and send and recv arrays");
    if (dtype != WARPLAB_FLOAT32 && dtype != WARPLAB_INT32)
        return wl_detached_fail(WARPLAB_ERROR_INVALID_ARGUMENT,
                                "warplab_comm_allreduce sums float or int32, not %s",
                                warplab_dtype_name(dtype));
#ifdef WARPLAB_HAVE_NCCL
    size_t bytes = 0;
    if (!wl_size_mul(count, 4, &bytes))
        return wl_detached_fail(WARPLAB_ERROR_INVALID_ARGUMENT, "count %zu: too many bytes", count);
    if (count == 0)
        return WARPLAB_OK;
    warplab_status status = check_array(send, c->device, bytes, "send array", 0);
    if (status == WARPLAB_OK)
        status = check_array(recv, c->device, bytes, "recv array", 0);
    if (status != WARPLAB_OK)
        return status;
    /* The planner, as warplab_allreduce asks it: peer memory where every
     * rank mapped every other's area (agreed at join, so every rank plans
     * alike), messages up to the staging area; in place asks nothing more
     * (the peers read the staged copy of the input). A single rank is
     * NCCL's (its copy), and so are more ranks than the peer rungs take
     * (several hosts: peers is false there). */
    const int planned = c->ranks < 2                  ? 2
                        : c->ranks > WARPLAB_MAX_GPUS ? WARPLAB_MAX_GPUS
                                                      : c->ranks;
    const wl_allreduce_topology topology = {planned, c->peers, true, WL_COMM_STAGING_BYTES,
                                            c->memory_gbs};
    const ar_algorithm algorithm = algorithm_of(wl_allreduce_plan(count, dtype, &topology, false));
    if (algorithm == AR_PLANNED)
        return wl_detached_fail(WARPLAB_ERROR_UNSUPPORTED,
                                "all-reduce planner: no route for a comm");
    cudaStream_t s = stream ? static_cast<cudaStream_t>(stream) : c->stream;
    int previous = 0;
    cudaGetDevice(&previous);
    cudaSetDevice(c->device);
    c->last = algorithm;
    if (algorithm == AR_NCCL) {
        ncclResult_t r =
            c->nccl->all_reduce(send, recv, count, dtype == WARPLAB_INT32 ? ncclInt32 : ncclFloat32,
                                ncclSum, c->comm, s);
        cudaSetDevice(previous);
        if (r != ncclSuccess)
            return wl_detached_fail(WARPLAB_ERROR_BACKEND, "ncclAllReduce: %s",
                                    c->nccl->error_string(r));
        return WARPLAB_OK;
    }
    cudaError_t e = comm_flagged(c, algorithm == AR_TWO_SHOT_FLAGS, dtype, send, recv, count, s);
    cudaSetDevice(previous);
    if (e != cudaSuccess) {
        cudaGetLastError();
        return wl_detached_fail(WARPLAB_ERROR_BACKEND, "rank %d's %s: %s", c->rank,
                                wl_allreduce_algorithm_name(algorithm), cudaGetErrorString(e));
    }
    return WARPLAB_OK;
#else
    (void)send;
    (void)recv;
    (void)count;
    (void)stream;
    return wl_detached_fail(WARPLAB_ERROR_UNSUPPORTED, "%s", WL_ALLREDUCE_NO_NCCL);
#endif
}

extern "C" const char *wl_comm_algorithm(const warplab_comm *c)
{
    if (!c)
        return "none";
#ifdef WARPLAB_HAVE_NCCL
    return wl_allreduce_algorithm_name(c->last);
#else
    return "none";
#endif
}

extern "C" warplab_status warplab_comm_synchronize(warplab_comm *c)
{
    wl_detached_error_clear();
    if (!c)
        return wl_detached_fail(WARPLAB_ERROR_INVALID_ARGUMENT, "no comm");
#ifdef WARPLAB_HAVE_NCCL
    cudaError_t e = cudaStreamSynchronize(c->stream);
    if (e != cudaSuccess) {
        cudaGetLastError();
        return wl_detached_fail(WARPLAB_ERROR_BACKEND, "all-reduce: %s", cudaGetErrorString(e));
    }
#endif
    return WARPLAB_OK;
}

extern "C" void warplab_comm_destroy(warplab_comm *c)
{
    if (!c)
        return;
#ifdef WARPLAB_HAVE_NCCL
    /* After this rank's last call no peer touches its area (each call's end
     * barrier), nor it the peers': the mappings close without waiting for
     * the other ranks. */
    int previous = 0;
    cudaGetDevice(&previous);
    cudaSetDevice(c->device);
    cudaStreamSynchronize(c->stream);
    cudaDeviceSynchronize(); /* calls queued on the caller's streams */
    unmap_peers(c);
    cudaSetDevice(previous);
    c->nccl->comm_destroy(c->comm);
    cudaStreamDestroy(c->stream);
    cudaGetLastError();
#endif
    free(c);
}
