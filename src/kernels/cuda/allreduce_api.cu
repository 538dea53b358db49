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
struct warplab_comm {
    const wl_nccl_api *nccl;
    ncclComm_t comm;
    int device;
    int ranks;
    cudaStream_t stream;
};

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
    *out = c;
    return WARPLAB_OK;
#else
    (void)device;
    (void)id_text;
    (void)timeout_seconds;
    return wl_detached_fail(WARPLAB_ERROR_UNSUPPORTED, "%s", WL_ALLREDUCE_NO_NCCL);
#endif
}

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
    /* The planner, with no peer memory: processes share none (warplab's peer
     * rungs would need IPC handles), so every size is NCCL's. A single rank
     * is NCCL's too (its copy). */
    const wl_allreduce_topology topology = {c->ranks < 2 ? 2 : c->ranks, false, true};
    if (wl_allreduce_plan(count, dtype, &topology, send == recv) != WL_ALLREDUCE_ROUTE_NCCL)
        return wl_detached_fail(WARPLAB_ERROR_UNSUPPORTED,
                                "all-reduce planner: no route for a comm");
    int previous = 0;
    cudaGetDevice(&previous);
    cudaSetDevice(c->device);
    ncclResult_t r = c->nccl->all_reduce(
        send, recv, count, dtype == WARPLAB_INT32 ? ncclInt32 : ncclFloat32, ncclSum, c->comm,
        stream ? static_cast<cudaStream_t>(stream) : c->stream);
    cudaSetDevice(previous);
    if (r != ncclSuccess)
        return wl_detached_fail(WARPLAB_ERROR_BACKEND, "ncclAllReduce: %s",
                                c->nccl->error_string(r));
    return WARPLAB_OK;
#else
    (void)send;
    (void)recv;
    (void)count;
    (void)stream;
    return wl_detached_fail(WARPLAB_ERROR_UNSUPPORTED, "%s", WL_ALLREDUCE_NO_NCCL);
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
    cudaStreamSynchronize(c->stream);
    c->nccl->comm_destroy(c->comm);
    cudaStreamDestroy(c->stream);
    cudaGetLastError();
#endif
    free(c);
}
