/* The transfers probe: host-device copies from pageable and from pinned
 * memory, the overlap of copies with kernels on several streams, and the
 * FMA chain end to end (copies in and out, pinned or pageable) or alone,
 * against the CPU (intensity, latency_bound). Host arrays are allocated and
 * filled in setup, never timed. */
#include "probe_cuda.h"

#include <stdlib.h>
#include <string.h>

enum { TRANSFER_IN = 0, TRANSFER_OUT };

/* The host side of a copy: pageable (malloc) or pinned (cudaMallocHost). */
typedef struct host_array {
    float *data;
    bool pinned;
} host_array;

static warplab_status host_alloc(wl_backend *backend, host_array *host, size_t bytes, bool pinned)
{
    host->pinned = pinned;
    if (pinned)
        return wl_cuda_check(backend, cudaMallocHost((void **)&host->data, bytes ? bytes : 4),
                             "allocating pinned host memory");
    host->data = (float *)malloc(bytes ? bytes : 4);
    return host->data ? WARPLAB_OK
                      : wl_fail(backend, WARPLAB_ERROR_HOST_OUT_OF_MEMORY,
                                "cannot allocate %zu bytes of host memory", bytes);
}

static void host_free(host_array *host)
{
    if (host->data && host->pinned)
        cudaFreeHost(host->data);
    else
        free(host->data);
    host->data = NULL;
}

/* The poison in a host array: a copy that never happened leaves NaNs. */
static void host_poison(host_array *host, size_t floats)
{
    const uint32_t poison = WL_POISON_PATTERN;
    for (size_t i = 0; i < floats; i++)
        memcpy(&host->data[i], &poison, sizeof poison);
}

/* ------------------------------------------------------------------------ */
/* bandwidth                                                                */

/* h2d: the host array holds the input's values; d2h: it is poisoned. */
template <bool Pinned, bool ToDevice>
static warplab_status copy_setup(wl_backend *backend, const wl_launch *launch, void **state)
{
    host_array *host = (host_array *)calloc(1, sizeof *host);
    if (!host)
        return wl_fail(backend, WARPLAB_ERROR_HOST_OUT_OF_MEMORY, "cannot allocate a host array");
    *state = host;
    const size_t bytes = launch->problem->dim[0] * sizeof(float);
    warplab_status status = host_alloc(backend, host, bytes, Pinned);
    if (status != WARPLAB_OK)
        return status;
    if (!ToDevice) {
        host_poison(host, launch->problem->dim[0]);
        return WARPLAB_OK;
    }
    return backend->ops->download(backend, launch->buf[TRANSFER_IN].handle,
                                  launch->buf[TRANSFER_IN].offset, host->data, bytes);
}

static void copy_teardown(wl_backend *backend, void *state)
{
    (void)backend;
    if (!state)
        return;
    host_free((host_array *)state);
    free(state);
}

/* Series *_h2d: isolates one host-to-device copy. */
static warplab_status launch_h2d(wl_backend *backend, const wl_launch *launch, void *state)
{
    const host_array *host = (const host_array *)state;
    return wl_cuda_check(backend,
                         cudaMemcpyAsync(view_of<float>(launch, TRANSFER_OUT), host->data,
                                         launch->problem->dim[0] * sizeof(float),
                                         cudaMemcpyHostToDevice, wl_cuda_stream(backend)),
                         "copy host to device");
}

/* Series *_d2h: isolates one device-to-host copy; finish() puts what
 * arrived into out for the check. */
static warplab_status launch_d2h(wl_backend *backend, const wl_launch *launch, void *state)
{
    host_array *host = (host_array *)state;
    return wl_cuda_check(backend,
                         cudaMemcpyAsync(host->data, view_of<const float>(launch, TRANSFER_IN),
                                         launch->problem->dim[0] * sizeof(float),
                                         cudaMemcpyDeviceToHost, wl_cuda_stream(backend)),
                         "copy device to host");
}

static warplab_status finish_d2h(wl_backend *backend, const wl_launch *launch, void *state)
{
    const host_array *host = (const host_array *)state;
    warplab_status status = backend->ops->synchronize(backend);
    if (status != WARPLAB_OK)
        return status;
    return backend->ops->upload(backend, launch->buf[TRANSFER_OUT].handle,
                                launch->buf[TRANSFER_OUT].offset, host->data,
                                launch->problem->dim[0] * sizeof(float));
}

/* ------------------------------------------------------------------------ */
/* overlap                                                                  */

#define MAX_STREAMS 8

typedef struct pipeline {
    host_array in, out; /* pinned */
    cudaStream_t streams[MAX_STREAMS];
    cudaEvent_t fork, joins[MAX_STREAMS];
    int stream_count;
} pipeline;

/* The work per element: the FMA chain, so that a chunk's kernel takes time
 * comparable to its copies. */
__global__ void probe_overlap_chain(const float *in, float *out, size_t n, unsigned steps)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = wl_probe_chain(in[i], WL_OVERLAP_B, steps);
}

static void pipeline_teardown(wl_backend *backend, void *state)
{
    pipeline *p = (pipeline *)state;
    if (!p)
        return;
    cudaStreamSynchronize(wl_cuda_stream(backend));
    for (int s = 0; s < p->stream_count; s++) {
        cudaStreamDestroy(p->streams[s]);
        cudaEventDestroy(p->joins[s]);
    }
    if (p->fork)
        cudaEventDestroy(p->fork);
    host_free(&p->in);
    host_free(&p->out);
    free(p);
}

/* The host arrays (pinned or pageable) and, for the overlap section, param
 * streams (the end-to-end sections run on the harness's stream alone). */
template <bool Pinned, bool Streams>
static warplab_status pipeline_setup(wl_backend *backend, const wl_launch *launch, void **state)
{
    pipeline *p = (pipeline *)calloc(1, sizeof *p);
    if (!p)
        return wl_fail(backend, WARPLAB_ERROR_HOST_OUT_OF_MEMORY, "cannot allocate a pipeline");
    *state = p;
    const size_t bytes = launch->problem->dim[0] * sizeof(float);
    warplab_status status = host_alloc(backend, &p->in, bytes, Pinned);
    if (status == WARPLAB_OK)
        status = host_alloc(backend, &p->out, bytes, Pinned);
    if (status != WARPLAB_OK)
        return status;
    host_poison(&p->out, launch->problem->dim[0]);
    status = backend->ops->download(backend, launch->buf[TRANSFER_IN].handle,
                                    launch->buf[TRANSFER_IN].offset, p->in.data, bytes);
    cudaError_t e = cudaEventCreateWithFlags(&p->fork, cudaEventDisableTiming);
    const int streams = Streams ? (int)launch->problem->param : 0;
    for (int s = 0; s < streams && s < MAX_STREAMS && e == cudaSuccess; s++) {
        e = cudaStreamCreateWithFlags(&p->streams[s], cudaStreamNonBlocking);
        if (e == cudaSuccess) {
            e = cudaEventCreateWithFlags(&p->joins[s], cudaEventDisableTiming);
            if (e != cudaSuccess)
                cudaStreamDestroy(p->streams[s]);
            else
                p->stream_count++;
        }
    }
    return status != WARPLAB_OK ? status : wl_cuda_check(backend, e, "creating streams");
}

/* Copy in, run, copy out one range on one stream. */
static cudaError_t process(const wl_launch *launch, const pipeline *p, float *staging, size_t first,
                           size_t count, cudaStream_t stream)
{
    float *out = view_of<float>(launch, TRANSFER_OUT);
    const size_t bytes = count * sizeof(float);
    cudaError_t e =
        cudaMemcpyAsync(staging + first, p->in.data + first, bytes, cudaMemcpyHostToDevice, stream);
    if (e != cudaSuccess)
        return e;
    probe_overlap_chain<<<wl_probe_blocks(count), WL_PROBE_BLOCK, 0, stream>>>(
        staging + first, out + first, count, (unsigned)launch->problem->dim[1]);
    e = cudaGetLastError();
    if (e != cudaSuccess)
        return e;
    return cudaMemcpyAsync(p->out.data + first, out + first, bytes, cudaMemcpyDeviceToHost, stream);
}

/* Series serial: the whole array in, the kernel, the whole array out, on
 * the harness's stream. */
static warplab_status launch_serial(wl_backend *backend, const wl_launch *launch, void *state)
{
    const pipeline *p = (const pipeline *)state;
    if (launch->problem->dim[0] == 0)
        return WARPLAB_OK;
    return wl_cuda_check(backend,
                         process(launch, p, (float *)launch->scratch.handle, 0,
                                 launch->problem->dim[0], wl_cuda_stream(backend)),
                         "serial pipeline");
}

/* Series chunked: the chunks round-robin on the streams, forked from and
 * joined back to the harness's stream by events, so its timer events
 * bracket the whole pipeline. */
static warplab_status launch_chunked(wl_backend *backend, const wl_launch *launch, void *state)
{
    const pipeline *p = (const pipeline *)state;
    cudaStream_t main_stream = wl_cuda_stream(backend);
    const size_t n = launch->problem->dim[0], chunks = launch->problem->dim[2];
    const size_t chunk = (n + chunks - 1) / chunks;
    cudaError_t e = cudaEventRecord(p->fork, main_stream);
    for (int s = 0; s < p->stream_count && e == cudaSuccess; s++)
        e = cudaStreamWaitEvent(p->streams[s], p->fork, 0);
    for (size_t c = 0; c < chunks && e == cudaSuccess; c++) {
        const size_t first = c * chunk;
        if (first >= n)
            break;
        const size_t count = n - first < chunk ? n - first : chunk;
        e = process(launch, p, (float *)launch->scratch.handle, first, count,
                    p->streams[c % (size_t)p->stream_count]);
    }
    for (int s = 0; s < p->stream_count && e == cudaSuccess; s++) {
        e = cudaEventRecord(p->joins[s], p->streams[s]);
        if (e == cudaSuccess)
            e = cudaStreamWaitEvent(main_stream, p->joins[s], 0);
    }
    return wl_cuda_check(backend, e, "chunked pipeline");
}

/* Series resident and small_resident: the chain alone, in to out on the
 * GPU, no bus. */
static warplab_status launch_resident(wl_backend *backend, const wl_launch *launch, void *)
{
    const size_t n = launch->problem->dim[0];
    if (n == 0)
        return WARPLAB_OK;
    probe_overlap_chain<<<wl_probe_blocks(n), WL_PROBE_BLOCK, 0, wl_cuda_stream(backend)>>>(
        view_of<const float>(launch, TRANSFER_IN), view_of<float>(launch, TRANSFER_OUT), n,
        (unsigned)launch->problem->dim[1]);
    return WL_CUDA_LAUNCHED(backend, "the FMA chain");
}

/* What came back to the host becomes out, for the check. */
static warplab_status pipeline_finish(wl_backend *backend, const wl_launch *launch, void *state)
{
    const pipeline *p = (const pipeline *)state;
    warplab_status status = backend->ops->synchronize(backend);
    if (status != WARPLAB_OK)
        return status;
    return backend->ops->upload(backend, launch->buf[TRANSFER_OUT].handle,
                                launch->buf[TRANSFER_OUT].offset, p->out.data,
                                launch->problem->dim[0] * sizeof(float));
}

static size_t staging_bytes(wl_backend *backend, const wl_problem *problem)
{
    (void)backend;
    return problem->dim[0] * sizeof(float);
}

#define H2D(pinned_)                                                                               \
    {                                                                                              \
        .ladder = "transfers", .rung = pinned_ ? "pinned_h2d" : "pageable_h2d",                    \
        .setup = copy_setup<pinned_, true>, .launch = launch_h2d, .teardown = copy_teardown        \
    }
#define D2H(pinned_)                                                                               \
    {                                                                                              \
        .ladder = "transfers", .rung = pinned_ ? "pinned_d2h" : "pageable_d2h",                    \
        .setup = copy_setup<pinned_, false>, .launch = launch_d2h, .finish = finish_d2h,           \
        .teardown = copy_teardown                                                                  \
    }
#define PIPELINE(ladder_, rung_, launch_, pinned_, streams_)                                       \
    {                                                                                              \
        .ladder = ladder_, .rung = rung_, .scratch_bytes = staging_bytes,                          \
        .setup = pipeline_setup<pinned_, streams_>, .launch = launch_, .finish = pipeline_finish,  \
        .teardown = pipeline_teardown                                                              \
    }

extern "C" {
const wl_impl wl_cuda_probe_pageable_h2d = H2D(false);
const wl_impl wl_cuda_probe_pinned_h2d = H2D(true);
const wl_impl wl_cuda_probe_pageable_d2h = D2H(false);
const wl_impl wl_cuda_probe_pinned_d2h = D2H(true);
const wl_impl wl_cuda_probe_serial = PIPELINE("overlap", "serial", launch_serial, true, true);
const wl_impl wl_cuda_probe_chunked = PIPELINE("overlap", "chunked", launch_chunked, true, true);
const wl_impl wl_cuda_probe_end_to_end[] = {
    PIPELINE("intensity", "pinned", launch_serial, true, false),
    PIPELINE("intensity", "pageable", launch_serial, false, false),
    {.ladder = "intensity", .rung = "resident", .launch = launch_resident},
    PIPELINE("latency_bound", "small_pinned", launch_serial, true, false),
    {.ladder = "latency_bound", .rung = "small_resident", .launch = launch_resident},
};
}
