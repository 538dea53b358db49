/* The peer query (warplab_peer_query, `warplab devices --peers`): the
 * peer-access matrix, CUDA's link performance rank, and the one-way and
 * two-way copy bandwidth between every pair of GPUs, in the spirit of
 * nvbandwidth's copy-engine tests: cudaMemcpyPeerAsync of one buffer, timed
 * by CUDA events on the source GPU's stream, best of several runs. Peer
 * access is enabled for the pairs that have it (it stays enabled, as the
 * all-reduce ladder enables it too). No multicast API is used. */
#include "allreduce_cuda.h"

#include <cstring>

namespace
{

struct Side {
    int device = -1;
    void *buffer = nullptr;
    cudaStream_t stream = nullptr;
    cudaEvent_t start = nullptr, stop = nullptr;
};

cudaError_t open_side(Side &side, int device, size_t bytes)
{
    side.device = device;
    cudaError_t e = cudaSetDevice(device);
    if (e == cudaSuccess)
        e = cudaMalloc(&side.buffer, bytes);
    if (e == cudaSuccess)
        e = cudaMemset(side.buffer, 1, bytes);
    if (e == cudaSuccess)
        e = cudaStreamCreateWithFlags(&side.stream, cudaStreamNonBlocking);
    if (e == cudaSuccess)
        e = cudaEventCreate(&side.start);
    if (e == cudaSuccess)
        e = cudaEventCreate(&side.stop);
    return e;
}

void close_side(Side &side)
{
    if (side.device < 0)
        return;
    cudaSetDevice(side.device);
    if (side.stream)
        cudaStreamSynchronize(side.stream);
    if (side.buffer)
        cudaFree(side.buffer);
    if (side.stream)
        cudaStreamDestroy(side.stream);
    if (side.start)
        cudaEventDestroy(side.start);
    if (side.stop)
        cudaEventDestroy(side.stop);
    cudaGetLastError();
}

/* Best of runs: a -> b alone (two_way false), or a -> b on a's stream and
 * b -> a on b's stream started together (b waits for a's start event; a's
 * stop waits for b's), in GB/s of all bytes moved. */
cudaError_t measure(Side &a, Side &b, size_t bytes, bool two_way, double *gbs)
{
    const int runs = 5;
    float best = 0.0f;
    cudaError_t e = cudaSuccess;
    for (int run = 0; run <= runs && e == cudaSuccess; run++) { /* run 0: warm-up */
        e = cudaSetDevice(a.device);
        if (e == cudaSuccess)
            e = cudaEventRecord(a.start, a.stream);
        if (e == cudaSuccess)
            e = cudaMemcpyPeerAsync(b.buffer, b.device, a.buffer, a.device, bytes, a.stream);
        if (e == cudaSuccess && two_way) {
            e = cudaSetDevice(b.device);
            if (e == cudaSuccess)
                e = cudaStreamWaitEvent(b.stream, a.start, 0);
            if (e == cudaSuccess)
                e = cudaMemcpyPeerAsync(a.buffer, a.device, b.buffer, b.device, bytes, b.stream);
            if (e == cudaSuccess)
                e = cudaEventRecord(b.stop, b.stream);
            if (e == cudaSuccess)
                e = cudaSetDevice(a.device);
            if (e == cudaSuccess)
                e = cudaStreamWaitEvent(a.stream, b.stop, 0);
        }
        if (e == cudaSuccess)
            e = cudaEventRecord(a.stop, a.stream);
        if (e == cudaSuccess)
            e = cudaEventSynchronize(a.stop);
        float ms = 0.0f;
        if (e == cudaSuccess)
            e = cudaEventElapsedTime(&ms, a.start, a.stop);
        if (e == cudaSuccess && run > 0 && ms > 0.0f && (best == 0.0f || ms < best))
            best = ms;
    }
    *gbs = best > 0.0f ? (two_way ? 2.0 : 1.0) * (double)bytes / (best * 1e-3) / 1e9 : 0.0;
    return e;
}

} // namespace

extern "C" warplab_status wl_cuda_peer_query(warplab_peer_report *report, size_t bytes, char *error,
                                             size_t error_len)
{
    memset(report, 0, sizeof *report);
    int present = 0;
    if (cudaGetDeviceCount(&present) != cudaSuccess || present == 0) {
        cudaGetLastError();
        wl_copy_string(error, error_len, "no CUDA device");
        return WARPLAB_ERROR_NO_DEVICE;
    }
    int previous = 0;
    cudaGetDevice(&previous);
    report->gpus = present < WARPLAB_MAX_GPUS ? present : WARPLAB_MAX_GPUS;
    report->bytes = bytes;
    cudaError_t e = cudaSuccess;
    for (int a = 0; a < report->gpus && e == cudaSuccess; a++) {
        cudaDeviceProp prop;
        e = cudaGetDeviceProperties(&prop, a);
        if (e == cudaSuccess)
            wl_copy_string(report->names[a], sizeof report->names[a], prop.name);
        for (int b = 0; b < report->gpus && e == cudaSuccess; b++) {
            if (a == b)
                continue;
            int can = 0, rank = 0;
            e = cudaDeviceCanAccessPeer(&can, a, b);
            if (e == cudaSuccess && can)
                e = cudaDeviceGetP2PAttribute(&rank, cudaDevP2PAttrPerformanceRank, a, b);
            report->access[a][b] = can;
            report->performance_rank[a][b] = rank;
            if (e == cudaSuccess && can)
                e = wl_allreduce_enable_peer(a, b);
        }
    }
    for (int a = 0; a < report->gpus && e == cudaSuccess && bytes; a++)
        for (int b = a + 1; b < report->gpus && e == cudaSuccess; b++) {
            Side sa, sb;
            e = open_side(sa, a, bytes);
            if (e == cudaSuccess)
                e = open_side(sb, b, bytes);
            if (e == cudaSuccess)
                e = measure(sa, sb, bytes, false, &report->one_way_gbs[a][b]);
            if (e == cudaSuccess)
                e = measure(sb, sa, bytes, false, &report->one_way_gbs[b][a]);
            if (e == cudaSuccess)
                e = measure(sa, sb, bytes, true, &report->two_way_gbs[a][b]);
            report->two_way_gbs[b][a] = report->two_way_gbs[a][b];
            close_side(sa);
            close_side(sb);
        }
    cudaSetDevice(previous);
    if (e != cudaSuccess) {
        wl_format(error, error_len, "peer query: %s (%s)", cudaGetErrorString(e),
                  cudaGetErrorName(e));
        cudaGetLastError();
        return e == cudaErrorMemoryAllocation ? WARPLAB_ERROR_DEVICE_OUT_OF_MEMORY
                                              : WARPLAB_ERROR_BACKEND;
    }
    return WARPLAB_OK;
}
