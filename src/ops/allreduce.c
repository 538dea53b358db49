/* The library's all-reduce (include/warplab.h): the peer query, and where
 * the cuda backend is not built in, the all-reduce and communicator calls,
 * each saying so. With CUDA the calls are src/kernels/cuda/allreduce_api.cu;
 * the rungs that climb to them are the all-reduce ladder
 * (src/ladders/allreduce.c, docs/MULTIGPU.md). */
#include "internal.h"

#include <string.h>

warplab_status warplab_peer_query(warplab_peer_report *report, size_t bytes)
{
    wl_detached_error_clear();
    if (!report)
        return wl_detached_fail(WARPLAB_ERROR_INVALID_ARGUMENT, "no place for the peer report");
    memset(report, 0, sizeof *report);
#ifdef WARPLAB_HAVE_CUDA
    char error[256] = "";
    warplab_status status = wl_cuda_peer_query(report, bytes, error, sizeof error);
    return status == WARPLAB_OK ? WARPLAB_OK : wl_detached_fail(status, "%s", error);
#else
    (void)bytes;
    return wl_detached_fail(WARPLAB_ERROR_NO_DEVICE,
                            "the cuda backend is not compiled into this build");
#endif
}

#ifndef WARPLAB_HAVE_CUDA
/* Without CUDA there is no all-reduce: every call says so
 * (src/kernels/cuda/allreduce_api.cu has the real ones). */
struct warplab_allreduce_group {
    int unused;
};
struct warplab_comm {
    int unused;
};

static warplab_status no_cuda(void)
{
    return wl_detached_fail(WARPLAB_ERROR_BACKEND_UNAVAILABLE,
                            "the all-reduce needs the cuda backend, not compiled into this build");
}

warplab_status warplab_allreduce_group_create(int gpus, const int *devices, void *const *streams,
                                              warplab_allreduce_group **group)
{
    (void)gpus;
    (void)devices;
    (void)streams;
    if (group)
        *group = NULL;
    return no_cuda();
}

void warplab_allreduce_group_destroy(warplab_allreduce_group *group)
{
    (void)group;
}

warplab_status warplab_allreduce(warplab_allreduce_group *group, warplab_dtype dtype,
                                 void *const *send, void *const *recv, size_t count)
{
    (void)group;
    (void)dtype;
    (void)send;
    (void)recv;
    (void)count;
    return no_cuda();
}

const char *warplab_allreduce_group_algorithm(const warplab_allreduce_group *group)
{
    (void)group;
    return "none";
}

warplab_status warplab_allreduce_id_create(char hex[WARPLAB_ALLREDUCE_ID_HEX])
{
    if (hex)
        hex[0] = '\0';
    return no_cuda();
}

warplab_status warplab_comm_join(int device, int rank, int ranks, const char *id,
                                 double timeout_seconds, warplab_comm **comm)
{
    (void)device;
    (void)rank;
    (void)ranks;
    (void)id;
    (void)timeout_seconds;
    if (comm)
        *comm = NULL;
    return no_cuda();
}

warplab_status warplab_comm_allreduce(warplab_comm *comm, warplab_dtype dtype, const void *send,
                                      void *recv, size_t count, void *stream)
{
    (void)comm;
    (void)dtype;
    (void)send;
    (void)recv;
    (void)count;
    (void)stream;
    return no_cuda();
}

warplab_status warplab_comm_synchronize(warplab_comm *comm)
{
    (void)comm;
    return no_cuda();
}

void warplab_comm_destroy(warplab_comm *comm)
{
    (void)comm;
}
#endif
