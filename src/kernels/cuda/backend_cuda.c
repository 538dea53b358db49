/* The cuda backend: device memory, one stream, CUDA events as timers, an L2
 * flush between timed runs, and the device query of the course (seed 000,
 * 'Device Query'), with what CUDA 13 moved out of cudaDeviceProp read through
 * cudaDeviceGetAttribute. */
#include "cuda_backend.h"

#include <stdlib.h>
#include <string.h>

typedef struct cuda_backend {
    wl_backend base;
    int device;
    cudaStream_t stream;     /* the bound stream: the caller's, or own_stream */
    cudaStream_t own_stream; /* the backend's own */
    cudaEvent_t order_event; /* orders a newly bound stream after the old one */
    cudaEvent_t *starts, *stops;
    int timers;
    void *flush_buffer;
    size_t flush_bytes;
    unsigned *flush_sink;
} cuda_backend;

warplab_status wl_cuda_check(wl_backend *backend, cudaError_t error, const char *what)
{
    if (error == cudaSuccess)
        return WARPLAB_OK;
    /* Clear a non-sticky error so that it does not surface again in the next
     * call's cudaGetLastError (a sticky one stays, and every call will say so). */
    cudaGetLastError();
    warplab_status status = error == cudaErrorMemoryAllocation ? WARPLAB_ERROR_DEVICE_OUT_OF_MEMORY
                                                               : WARPLAB_ERROR_BACKEND;
    return wl_fail(backend, status, "%s: %s (%s)", what, cudaGetErrorString(error),
                   cudaGetErrorName(error));
}

cudaStream_t wl_cuda_stream(wl_backend *backend)
{
    return ((cuda_backend *)backend)->stream;
}

unsigned wl_cuda_grid_for(const wl_backend *backend, size_t work_items, unsigned block)
{
    const warplab_device_info *info = &backend->info;
    int per_sm = info->max_threads_per_multiprocessor > 0
                     ? info->max_threads_per_multiprocessor / (int)block
                     : 2;
    if (per_sm < 1)
        per_sm = 1;
    size_t full = (size_t)info->multiprocessors * (size_t)per_sm;
    size_t needed = (work_items + block - 1) / block;
    size_t grid = needed < full ? needed : full;
    return grid ? (unsigned)grid : 1u;
}

static warplab_status cuda_device_count(int *count)
{
    *count = 0;
    cudaError_t error = cudaGetDeviceCount(count);
    if (error != cudaSuccess) {
        /* No driver, no device, or a driver too old: the backend is absent. */
        cudaGetLastError();
        *count = 0;
    }
    return WARPLAB_OK;
}

/* FP32 lanes per SM by architecture, for the FP32 peak. */
static int fp32_lanes_per_sm(int major, int minor)
{
    if (major == 7 || (major == 8 && minor == 0))
        return 64;
    if (major >= 8)
        return 128;
    return 0;
}

static int attribute(enum cudaDeviceAttr what, int device)
{
    int value = 0;
    if (cudaDeviceGetAttribute(&value, what, device) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return value;
}

static warplab_status cuda_device_info(int index, warplab_device_info *info)
{
    memset(info, 0, sizeof *info);
    struct cudaDeviceProp prop;
    cudaError_t error = cudaGetDeviceProperties(&prop, index);
    if (error != cudaSuccess)
        return wl_cuda_check(NULL, error, "cudaGetDeviceProperties");
    info->backend = WARPLAB_BACKEND_CUDA;
    info->index = index;
    info->gpu = 1;
    wl_copy_string(info->name, sizeof info->name, prop.name);
    wl_copy_string(info->vendor, sizeof info->vendor, "NVIDIA");
    int driver = 0;
    cudaDriverGetVersion(&driver);
    wl_format(info->driver_version, sizeof info->driver_version, "CUDA %d.%d", driver / 1000,
              (driver % 1000) / 10);
    info->cc_major = prop.major;
    info->cc_minor = prop.minor;
    info->multiprocessors = prop.multiProcessorCount;
    info->warp_size = prop.warpSize;
    info->max_threads_per_block = prop.maxThreadsPerBlock;
    info->max_threads_per_multiprocessor = prop.maxThreadsPerMultiProcessor;
    info->max_blocks_per_multiprocessor = prop.maxBlocksPerMultiProcessor;
    info->registers_per_block = prop.regsPerBlock;
    info->registers_per_multiprocessor = prop.regsPerMultiprocessor;
    info->shared_memory_per_block = prop.sharedMemPerBlock;
    info->shared_memory_per_block_optin = prop.sharedMemPerBlockOptin;
    info->shared_memory_per_multiprocessor = prop.sharedMemPerMultiprocessor;
    info->l2_cache_bytes = (size_t)prop.l2CacheSize;
    info->global_memory_bytes = prop.totalGlobalMem;
    /* Gone from cudaDeviceProp in CUDA 13: clocks come from attributes. */
    info->memory_bus_width_bits = attribute(cudaDevAttrGlobalMemoryBusWidth, index);
    info->memory_clock_khz = attribute(cudaDevAttrMemoryClockRate, index);
    info->core_clock_khz = attribute(cudaDevAttrClockRate, index);
    /* The course: bus width x data rate / 8, data rate = 2 x memory clock
     * (384 bit, 1800 MHz effective -> 86.4 GB/s). */
    info->theoretical_bandwidth_gbs =
        warplab_theoretical_bandwidth_gbs(info->memory_bus_width_bits, info->memory_clock_khz);
    info->fp32_peak_gflops = (double)info->multiprocessors *
                             fp32_lanes_per_sm(prop.major, prop.minor) * 2.0 *
                             (double)info->core_clock_khz * 1e3 / 1e9;
    for (int i = 0; i < 3; i++) {
        info->max_block_dim[i] = prop.maxThreadsDim[i];
        info->max_grid_dim[i] = prop.maxGridSize[i];
    }
    info->concurrent_kernels = prop.concurrentKernels;
    info->async_engines = prop.asyncEngineCount;
    info->managed_memory = prop.managedMemory;
    return WARPLAB_OK;
}

static void cuda_close(wl_backend *backend);

static warplab_status cuda_open(int index, wl_backend **out, char *error, size_t error_len)
{
    cuda_backend *cuda = calloc(1, sizeof *cuda);
    if (!cuda)
        return WARPLAB_ERROR_HOST_OUT_OF_MEMORY;
    cuda->base.ops = &wl_cuda_backend_ops;
    cuda->device = index;
    warplab_status status = cuda_device_info(index, &cuda->base.info);
    cudaError_t e = cudaSuccess;
    if (status == WARPLAB_OK)
        e = cudaSetDevice(index);
    if (status == WARPLAB_OK && e == cudaSuccess)
        /* A blocking stream: with no stream bound, the library's work is
         * ordered after the caller's work on CUDA's legacy default stream
         * (cudaMemcpy, cudaMemset, kernels on stream 0), as a vendor library's
         * default stream is. */
        e = cudaStreamCreateWithFlags(&cuda->own_stream, cudaStreamDefault);
    cuda->stream = cuda->own_stream;
    if (status == WARPLAB_OK && e == cudaSuccess)
        e = cudaEventCreateWithFlags(&cuda->order_event, cudaEventDisableTiming);
    /* The flush buffer: twice the L2, read before each timed run. */
    cuda->flush_bytes =
        2 * (cuda->base.info.l2_cache_bytes ? cuda->base.info.l2_cache_bytes : ((size_t)64 << 20));
    if (status == WARPLAB_OK && e == cudaSuccess)
        e = cudaMalloc(&cuda->flush_buffer, cuda->flush_bytes);
    if (status == WARPLAB_OK && e == cudaSuccess)
        e = cudaMemset(cuda->flush_buffer, 1, cuda->flush_bytes);
    if (status == WARPLAB_OK && e == cudaSuccess)
        e = cudaMalloc((void **)&cuda->flush_sink, sizeof(unsigned));
    if (status == WARPLAB_OK && e != cudaSuccess)
        status = wl_cuda_check(&cuda->base, e, "opening the CUDA device");
    if (status != WARPLAB_OK) {
        wl_copy_string(error, error_len,
                       cuda->base.error[0] ? cuda->base.error : "cannot open the CUDA device");
        cuda_close(&cuda->base);
        return status;
    }
    *out = &cuda->base;
    return WARPLAB_OK;
}

static void cuda_close(wl_backend *backend)
{
    cuda_backend *cuda = (cuda_backend *)backend;
    for (int i = 0; i < cuda->timers; i++) {
        cudaEventDestroy(cuda->starts[i]);
        cudaEventDestroy(cuda->stops[i]);
    }
    free(cuda->starts);
    free(cuda->stops);
    if (cuda->flush_buffer)
        cudaFree(cuda->flush_buffer);
    if (cuda->flush_sink)
        cudaFree(cuda->flush_sink);
    if (cuda->order_event)
        cudaEventDestroy(cuda->order_event);
    if (cuda->own_stream)
        cudaStreamDestroy(cuda->own_stream);
    free(cuda);
}

static warplab_status cuda_alloc(wl_backend *backend, size_t bytes, void **handle)
{
    cudaError_t e = cudaMalloc(handle, bytes ? bytes : 4);
    if (e == cudaErrorMemoryAllocation) {
        cudaGetLastError();
        size_t free_bytes = 0, total = 0;
        cudaMemGetInfo(&free_bytes, &total);
        return wl_fail(backend, WARPLAB_ERROR_DEVICE_OUT_OF_MEMORY,
                       "cudaMalloc of %.2f GB failed: %.2f GB of %.2f GB free", bytes / 1e9,
                       free_bytes / 1e9, total / 1e9);
    }
    return wl_cuda_check(backend, e, "cudaMalloc");
}

static void cuda_release(wl_backend *backend, void *handle)
{
    (void)backend;
    cudaFree(handle);
}

static warplab_status cuda_upload(wl_backend *backend, void *handle, size_t offset,
                                  const void *source, size_t bytes)
{
    cuda_backend *cuda = (cuda_backend *)backend;
    cudaError_t e = cudaMemcpyAsync((char *)handle + offset, source, bytes, cudaMemcpyHostToDevice,
                                    cuda->stream);
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(cuda->stream);
    return wl_cuda_check(backend, e, "copy to the device");
}

static warplab_status cuda_download(wl_backend *backend, const void *handle, size_t offset,
                                    void *destination, size_t bytes)
{
    cuda_backend *cuda = (cuda_backend *)backend;
    cudaError_t e = cudaMemcpyAsync(destination, (const char *)handle + offset, bytes,
                                    cudaMemcpyDeviceToHost, cuda->stream);
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(cuda->stream);
    return wl_cuda_check(backend, e, "copy from the device");
}

static warplab_status cuda_fill32(wl_backend *backend, void *handle, size_t offset,
                                  uint32_t pattern, size_t bytes)
{
    cuda_backend *cuda = (cuda_backend *)backend;
    if (bytes < 4)
        return WARPLAB_OK;
    /* cudaMemset fills bytes; the poison is a 32-bit pattern. */
    cudaError_t e = wl_cuda_fill32_async(cuda->stream, (char *)handle + offset, pattern, bytes / 4);
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(cuda->stream);
    return wl_cuda_check(backend, e, "poisoning a buffer");
}

static warplab_status cuda_mem_info(wl_backend *backend, size_t *free_bytes, size_t *total_bytes)
{
    return wl_cuda_check(backend, cudaMemGetInfo(free_bytes, total_bytes), "cudaMemGetInfo");
}

static warplab_status cuda_synchronize(wl_backend *backend)
{
    cuda_backend *cuda = (cuda_backend *)backend;
    return wl_cuda_check(backend, cudaStreamSynchronize(cuda->stream), "running on the GPU");
}

static warplab_status cuda_flush_caches(wl_backend *backend)
{
    cuda_backend *cuda = (cuda_backend *)backend;
    return wl_cuda_check(
        backend,
        wl_cuda_flush_l2(cuda->stream, cuda->flush_buffer, cuda->flush_bytes, cuda->flush_sink),
        "flushing L2");
}

static warplab_status cuda_timers_reserve(wl_backend *backend, int count)
{
    cuda_backend *cuda = (cuda_backend *)backend;
    if (count <= cuda->timers)
        return WARPLAB_OK;
    cudaEvent_t *starts = realloc(cuda->starts, (size_t)count * sizeof *starts);
    if (starts)
        cuda->starts = starts;
    cudaEvent_t *stops = realloc(cuda->stops, (size_t)count * sizeof *stops);
    if (stops)
        cuda->stops = stops;
    if (!starts || !stops)
        return wl_fail(backend, WARPLAB_ERROR_HOST_OUT_OF_MEMORY, "cannot allocate timers");
    for (; cuda->timers < count; cuda->timers++) {
        cudaError_t e = cudaEventCreate(&cuda->starts[cuda->timers]);
        if (e == cudaSuccess) {
            e = cudaEventCreate(&cuda->stops[cuda->timers]);
            if (e != cudaSuccess)
                cudaEventDestroy(cuda->starts[cuda->timers]);
        }
        if (e != cudaSuccess)
            return wl_cuda_check(backend, e, "cudaEventCreate");
    }
    return WARPLAB_OK;
}

static warplab_status cuda_timer_start(wl_backend *backend, int slot)
{
    cuda_backend *cuda = (cuda_backend *)backend;
    return wl_cuda_check(backend, cudaEventRecord(cuda->starts[slot], cuda->stream),
                         "cudaEventRecord");
}

static warplab_status cuda_timer_stop(wl_backend *backend, int slot)
{
    cuda_backend *cuda = (cuda_backend *)backend;
    return wl_cuda_check(backend, cudaEventRecord(cuda->stops[slot], cuda->stream),
                         "cudaEventRecord");
}

static warplab_status cuda_timers_read(wl_backend *backend, int count, double *milliseconds)
{
    cuda_backend *cuda = (cuda_backend *)backend;
    cudaError_t e = cudaStreamSynchronize(cuda->stream);
    for (int i = 0; i < count && e == cudaSuccess; i++) {
        float ms = 0.0f;
        e = cudaEventElapsedTime(&ms, cuda->starts[i], cuda->stops[i]);
        milliseconds[i] = ms;
    }
    return wl_cuda_check(backend, e, "reading CUDA events");
}

/* ---- the caller's streams and memory ---- */

static warplab_status cuda_set_stream(wl_backend *backend, void *stream)
{
    cuda_backend *cuda = (cuda_backend *)backend;
    cudaStream_t next = stream ? (cudaStream_t)stream : cuda->own_stream;
    if (next == cuda->stream)
        return WARPLAB_OK;
    enum cudaStreamCaptureStatus old_capture = cudaStreamCaptureStatusNone;
    enum cudaStreamCaptureStatus new_capture = cudaStreamCaptureStatusNone;
    cudaError_t e = cudaStreamIsCapturing(cuda->stream, &old_capture);
    if (e == cudaSuccess)
        e = cudaStreamIsCapturing(next, &new_capture);
    if (e != cudaSuccess)
        return wl_cuda_check(backend, e, "binding a stream");
    /* What warplab queued before (it may use the workspace) comes first. A
     * stream being captured cannot wait on an ordinary event: the caller
     * orders those. */
    if (old_capture == cudaStreamCaptureStatusNone && new_capture == cudaStreamCaptureStatusNone) {
        e = cudaEventRecord(cuda->order_event, cuda->stream);
        if (e == cudaSuccess)
            e = cudaStreamWaitEvent(next, cuda->order_event, 0);
        if (e != cudaSuccess)
            return wl_cuda_check(backend, e, "ordering the new stream after the old one");
    }
    cuda->stream = next;
    return WARPLAB_OK;
}

static warplab_status cuda_wrap_check(wl_backend *backend, void *handle, size_t bytes)
{
    (void)bytes;
    cuda_backend *cuda = (cuda_backend *)backend;
    struct cudaPointerAttributes attributes;
    memset(&attributes, 0, sizeof attributes);
    cudaError_t e = cudaPointerGetAttributes(&attributes, handle);
    if (e != cudaSuccess)
        return wl_cuda_check(backend, e, "warplab_buffer_wrap: cudaPointerGetAttributes");
    switch (attributes.type) {
    case cudaMemoryTypeDevice:
        if (attributes.device != cuda->device)
            return wl_fail(backend, WARPLAB_ERROR_INVALID_ARGUMENT,
                           "warplab_buffer_wrap: the memory is on CUDA device %d, the context "
                           "on device %d",
                           attributes.device, cuda->device);
        return WARPLAB_OK;
    case cudaMemoryTypeManaged:
    case cudaMemoryTypeHost: /* pinned host memory: kernels reach it through UVA */
        return WARPLAB_OK;
    default:
        return wl_fail(backend, WARPLAB_ERROR_INVALID_ARGUMENT,
                       "warplab_buffer_wrap: %p is not memory CUDA knows (cudaMalloc, "
                       "cudaMallocAsync, cudaMallocManaged or pinned host memory)",
                       handle);
    }
}

static warplab_status cuda_alloc_mapped(wl_backend *backend, size_t bytes, void **device_handle,
                                        void **host)
{
    *host = NULL;
    cudaError_t e = cudaHostAlloc(host, bytes, cudaHostAllocMapped);
    if (e == cudaSuccess)
        e = cudaHostGetDevicePointer(device_handle, *host, 0);
    if (e != cudaSuccess && *host) {
        cudaFreeHost(*host);
        *host = NULL;
    }
    return wl_cuda_check(backend, e, "mapped host memory for results");
}

static void cuda_release_mapped(wl_backend *backend, void *host)
{
    (void)backend;
    cudaFreeHost(host);
}

static const wl_impl *const *const cuda_impls[] = {
#define WL_LADDER(name) wl_cuda_##name##_impls,
#include "core/ladders.def"
#undef WL_LADDER
    wl_cuda_probe_impls,
    NULL,
};

const wl_backend_ops wl_cuda_backend_ops = {
    .kind = WARPLAB_BACKEND_CUDA,
    .name = "cuda",
    .device_count = cuda_device_count,
    .device_info = cuda_device_info,
    .open = cuda_open,
    .close = cuda_close,
    .alloc = cuda_alloc,
    .release = cuda_release,
    .upload = cuda_upload,
    .download = cuda_download,
    .fill32 = cuda_fill32,
    .mem_info = cuda_mem_info,
    .synchronize = cuda_synchronize,
    .flush_caches = cuda_flush_caches,
    .timers_reserve = cuda_timers_reserve,
    .timer_start = cuda_timer_start,
    .timer_stop = cuda_timer_stop,
    .timers_read = cuda_timers_read,
    .impls = cuda_impls,
    .set_stream = cuda_set_stream,
    .wrap_check = cuda_wrap_check,
    .alloc_mapped = cuda_alloc_mapped,
    .release_mapped = cuda_release_mapped,
};
