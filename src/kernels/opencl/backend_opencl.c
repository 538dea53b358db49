/* The opencl backend: the portable model the course names (seed 001). Runs
 * on any OpenCL device, GPUs first, and on the CPU through PoCL, so that the
 * test suite executes real kernels on machines without a GPU. Kernel sources
 * are compiled into the binary and built per ladder on first use. */
#include "opencl_backend.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEVICES 32
#define MAX_PROGRAMS 16
#define MAX_KERNELS 128

typedef struct cached_kernel {
    const char *program;
    char name[64];
    cl_kernel kernel;
} cached_kernel;

typedef struct opencl_backend {
    wl_backend base;
    cl_device_id device;
    cl_context context;
    cl_command_queue queue;            /* the bound queue: the caller's, or own_queue */
    cl_command_queue own_queue;        /* the backend's own */
    cl_program programs[MAX_PROGRAMS]; /* indexed like wl_opencl_sources */
    cached_kernel kernels[MAX_KERNELS];
    int kernel_count;
    cl_event *starts, *stops;
    double *host_starts, *host_stops;
    int timers;
    bool host_clock; /* the markers gave no profiling: time on the host */
} opencl_backend;

const char *wl_opencl_error_name(cl_int error)
{
    switch (error) {
    case CL_DEVICE_NOT_FOUND: return "CL_DEVICE_NOT_FOUND";
    case CL_DEVICE_NOT_AVAILABLE: return "CL_DEVICE_NOT_AVAILABLE";
    case CL_MEM_OBJECT_ALLOCATION_FAILURE: return "CL_MEM_OBJECT_ALLOCATION_FAILURE";
    case CL_OUT_OF_RESOURCES: return "CL_OUT_OF_RESOURCES";
    case CL_OUT_OF_HOST_MEMORY: return "CL_OUT_OF_HOST_MEMORY";
    case CL_PROFILING_INFO_NOT_AVAILABLE: return "CL_PROFILING_INFO_NOT_AVAILABLE";
    case CL_BUILD_PROGRAM_FAILURE: return "CL_BUILD_PROGRAM_FAILURE";
    case CL_INVALID_VALUE: return "CL_INVALID_VALUE";
    case CL_INVALID_DEVICE: return "CL_INVALID_DEVICE";
    case CL_INVALID_MEM_OBJECT: return "CL_INVALID_MEM_OBJECT";
    case CL_INVALID_PROGRAM_EXECUTABLE: return "CL_INVALID_PROGRAM_EXECUTABLE";
    case CL_INVALID_KERNEL_NAME: return "CL_INVALID_KERNEL_NAME";
    case CL_INVALID_KERNEL_ARGS: return "CL_INVALID_KERNEL_ARGS";
    case CL_INVALID_ARG_INDEX: return "CL_INVALID_ARG_INDEX";
    case CL_INVALID_ARG_VALUE: return "CL_INVALID_ARG_VALUE";
    case CL_INVALID_ARG_SIZE: return "CL_INVALID_ARG_SIZE";
    case CL_INVALID_WORK_DIMENSION: return "CL_INVALID_WORK_DIMENSION";
    case CL_INVALID_WORK_GROUP_SIZE: return "CL_INVALID_WORK_GROUP_SIZE";
    case CL_INVALID_WORK_ITEM_SIZE: return "CL_INVALID_WORK_ITEM_SIZE";
    case CL_INVALID_GLOBAL_WORK_SIZE: return "CL_INVALID_GLOBAL_WORK_SIZE";
    case CL_INVALID_BUFFER_SIZE: return "CL_INVALID_BUFFER_SIZE";
    case CL_INVALID_EVENT: return "CL_INVALID_EVENT";
    case CL_INVALID_OPERATION: return "CL_INVALID_OPERATION";
    case CL_MISALIGNED_SUB_BUFFER_OFFSET: return "CL_MISALIGNED_SUB_BUFFER_OFFSET";
    default: return "OpenCL error";
    }
}

warplab_status wl_opencl_check(wl_backend *backend, cl_int error, const char *what)
{
    if (error == CL_SUCCESS)
        return WARPLAB_OK;
    warplab_status status = (error == CL_MEM_OBJECT_ALLOCATION_FAILURE ||
                             error == CL_OUT_OF_RESOURCES || error == CL_INVALID_BUFFER_SIZE)
                                ? WARPLAB_ERROR_DEVICE_OUT_OF_MEMORY
                                : WARPLAB_ERROR_BACKEND;
    return wl_fail(backend, status, "%s: %s (%d)", what, wl_opencl_error_name(error), (int)error);
}

cl_command_queue wl_opencl_queue(wl_backend *backend)
{
    return ((opencl_backend *)backend)->queue;
}

/* Platform and device discovery, and context creation and release, one
 * thread at a time: PoCL initialises its platform lazily on the first
 * clGetPlatformIDs and reads device strings it has not finished writing when
 * two threads race there (8 threads creating contexts at once crashed in
 * clGetDeviceInfo). Everything else on a context is the caller's thread's. */
static pthread_mutex_t discovery_lock = PTHREAD_MUTEX_INITIALIZER;

/* Every device of every platform, GPUs first (the best backend is the GPU). */
static int list_devices(cl_device_id *devices, int capacity)
{
    cl_platform_id platforms[8];
    cl_uint platform_count = 0;
    if (clGetPlatformIDs(8, platforms, &platform_count) != CL_SUCCESS)
        return 0;
    if (platform_count > 8)
        platform_count = 8;
    int count = 0;
    const cl_device_type passes[2] = {CL_DEVICE_TYPE_GPU,
                                      CL_DEVICE_TYPE_ALL & ~(cl_device_type)CL_DEVICE_TYPE_GPU};
    for (int pass = 0; pass < 2; pass++)
        for (cl_uint p = 0; p < platform_count; p++) {
            cl_uint found = 0;
            cl_device_id ids[MAX_DEVICES];
            if (clGetDeviceIDs(platforms[p], passes[pass], MAX_DEVICES, ids, &found) != CL_SUCCESS)
                continue;
            if (found > MAX_DEVICES)
                found = MAX_DEVICES;
            for (cl_uint d = 0; d < found && count < capacity; d++) {
                cl_device_type type = 0;
                clGetDeviceInfo(ids[d], CL_DEVICE_TYPE, sizeof type, &type, NULL);
                /* The second pass takes what the first did not. */
                if (pass == 1 && (type & CL_DEVICE_TYPE_GPU))
                    continue;
                devices[count++] = ids[d];
            }
        }
    return count;
}

static warplab_status opencl_device_count(int *count)
{
    cl_device_id devices[MAX_DEVICES];
    pthread_mutex_lock(&discovery_lock);
    *count = list_devices(devices, MAX_DEVICES);
    pthread_mutex_unlock(&discovery_lock);
    return WARPLAB_OK;
}

static void device_string(cl_device_id device, cl_device_info what, char *out, size_t len)
{
    out[0] = '\0';
    size_t size = 0;
    if (clGetDeviceInfo(device, what, len, out, &size) != CL_SUCCESS)
        out[0] = '\0';
    out[len - 1] = '\0';
}

#ifndef CL_DEVICE_WARP_SIZE_NV
#define CL_DEVICE_WARP_SIZE_NV 0x4003
#endif
#ifndef CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV
#define CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV 0x4000
#define CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV 0x4001
#endif

static void describe_device(cl_device_id device, int index, warplab_device_info *info)
{
    memset(info, 0, sizeof *info);
    info->backend = WARPLAB_BACKEND_OPENCL;
    info->index = index;
    device_string(device, CL_DEVICE_NAME, info->name, sizeof info->name);
    device_string(device, CL_DEVICE_VENDOR, info->vendor, sizeof info->vendor);
    device_string(device, CL_DRIVER_VERSION, info->driver_version, sizeof info->driver_version);
    cl_device_type type = 0;
    cl_uint units = 0, clock = 0, warp = 0, cc = 0;
    size_t group = 0, item_sizes[3] = {0, 0, 0};
    cl_ulong local = 0, global = 0, cache = 0;
    clGetDeviceInfo(device, CL_DEVICE_TYPE, sizeof type, &type, NULL);
    clGetDeviceInfo(device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, NULL);
    clGetDeviceInfo(device, CL_DEVICE_MAX_CLOCK_FREQUENCY, sizeof clock, &clock, NULL);
    clGetDeviceInfo(device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof group, &group, NULL);
    clGetDeviceInfo(device, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof item_sizes, item_sizes, NULL);
    clGetDeviceInfo(device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof local, &local, NULL);
    clGetDeviceInfo(device, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof global, &global, NULL);
    clGetDeviceInfo(device, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, sizeof cache, &cache, NULL);
    info->gpu = (type & CL_DEVICE_TYPE_GPU) != 0;
    if (clGetDeviceInfo(device, CL_DEVICE_WARP_SIZE_NV, sizeof warp, &warp, NULL) == CL_SUCCESS &&
        warp > 0) {
        info->warp_size = (int)warp;
        if (clGetDeviceInfo(device, CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV, sizeof cc, &cc, NULL) ==
            CL_SUCCESS)
            info->cc_major = (int)cc;
        if (clGetDeviceInfo(device, CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV, sizeof cc, &cc, NULL) ==
            CL_SUCCESS)
            info->cc_minor = (int)cc;
    } else {
        info->warp_size = info->gpu ? 32 : 1;
    }
    info->multiprocessors = (int)units;
    info->core_clock_khz = (int)clock * 1000;
    info->max_threads_per_block = (int)group;
    for (int i = 0; i < 3; i++)
        info->max_block_dim[i] = (int)(item_sizes[i] > 0x7fffffff ? 0x7fffffff : item_sizes[i]);
    info->shared_memory_per_block = (size_t)local;
    info->global_memory_bytes = (size_t)global;
    info->l2_cache_bytes = (size_t)cache;
}

static warplab_status opencl_device_info(int index, warplab_device_info *info)
{
    cl_device_id devices[MAX_DEVICES];
    pthread_mutex_lock(&discovery_lock);
    int count = list_devices(devices, MAX_DEVICES);
    if (index >= 0 && index < count)
        describe_device(devices[index], index, info);
    pthread_mutex_unlock(&discovery_lock);
    return index < 0 || index >= count ? WARPLAB_ERROR_NO_DEVICE : WARPLAB_OK;
}

static void opencl_close(wl_backend *backend);

/* Whether markers carry profiling times here (the spec allows either). */
static bool markers_profile(opencl_backend *cl)
{
    cl_event events[2] = {NULL, NULL};
    bool ok = clEnqueueMarkerWithWaitList(cl->queue, 0, NULL, &events[0]) == CL_SUCCESS &&
              clEnqueueMarkerWithWaitList(cl->queue, 0, NULL, &events[1]) == CL_SUCCESS &&
              clFinish(cl->queue) == CL_SUCCESS;
    for (int i = 0; i < 2 && ok; i++) {
        cl_ulong end = 0;
        ok = clGetEventProfilingInfo(events[i], CL_PROFILING_COMMAND_END, sizeof end, &end, NULL) ==
                 CL_SUCCESS &&
             end > 0;
    }
    for (int i = 0; i < 2; i++)
        if (events[i])
            clReleaseEvent(events[i]);
    return ok;
}

static warplab_status open_locked(int index, wl_backend **out, char *error, size_t error_len);

static warplab_status opencl_open(int index, wl_backend **out, char *error, size_t error_len)
{
    pthread_mutex_lock(&discovery_lock);
    warplab_status status = open_locked(index, out, error, error_len);
    pthread_mutex_unlock(&discovery_lock);
    return status;
}

static void close_locked(opencl_backend *cl);

/* Under discovery_lock (opencl_open). */
static warplab_status open_locked(int index, wl_backend **out, char *error, size_t error_len)
{
    cl_device_id devices[MAX_DEVICES];
    int count = list_devices(devices, MAX_DEVICES);
    if (index < 0 || index >= count) {
        wl_copy_string(error, error_len, "no such OpenCL device");
        return WARPLAB_ERROR_NO_DEVICE;
    }
    opencl_backend *cl = calloc(1, sizeof *cl);
    if (!cl)
        return WARPLAB_ERROR_HOST_OUT_OF_MEMORY;
    cl->base.ops = &wl_opencl_backend_ops;
    cl->device = devices[index];
    describe_device(cl->device, index, &cl->base.info);
    cl_int e = CL_SUCCESS;
    cl->context = clCreateContext(NULL, 1, &cl->device, NULL, NULL, &e);
    if (e == CL_SUCCESS)
        cl->own_queue = cl->queue =
            clCreateCommandQueue(cl->context, cl->device, CL_QUEUE_PROFILING_ENABLE, &e);
    if (e != CL_SUCCESS) {
        wl_opencl_check(&cl->base, e, "creating the OpenCL context");
        wl_copy_string(error, error_len, cl->base.error);
        close_locked(cl);
        return WARPLAB_ERROR_BACKEND;
    }
    cl->host_clock = !markers_profile(cl);
    *out = &cl->base;
    return WARPLAB_OK;
}

static void release_timers(opencl_backend *cl)
{
    for (int i = 0; i < cl->timers; i++) {
        if (cl->starts[i])
            clReleaseEvent(cl->starts[i]);
        if (cl->stops[i])
            clReleaseEvent(cl->stops[i]);
        cl->starts[i] = cl->stops[i] = NULL;
    }
}

static void opencl_close(wl_backend *backend)
{
    pthread_mutex_lock(&discovery_lock);
    close_locked((opencl_backend *)backend);
    pthread_mutex_unlock(&discovery_lock);
}

static void close_locked(opencl_backend *cl)
{
    if (cl->queue)
        clFinish(cl->queue);
    release_timers(cl);
    free(cl->starts);
    free(cl->stops);
    free(cl->host_starts);
    free(cl->host_stops);
    for (int i = 0; i < cl->kernel_count; i++)
        clReleaseKernel(cl->kernels[i].kernel);
    for (int i = 0; i < MAX_PROGRAMS; i++)
        if (cl->programs[i])
            clReleaseProgram(cl->programs[i]);
    if (cl->queue && cl->queue != cl->own_queue)
        clReleaseCommandQueue(cl->queue); /* the caller's: our retain */
    if (cl->own_queue)
        clReleaseCommandQueue(cl->own_queue);
    if (cl->context)
        clReleaseContext(cl->context);
    free(cl);
}

static warplab_status opencl_alloc(wl_backend *backend, size_t bytes, void **handle)
{
    opencl_backend *cl = (opencl_backend *)backend;
    cl_ulong max_alloc = 0;
    clGetDeviceInfo(cl->device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc, &max_alloc, NULL);
    if (max_alloc && bytes > max_alloc)
        return wl_fail(backend, WARPLAB_ERROR_DEVICE_OUT_OF_MEMORY,
                       "a %.2f GB buffer is past this OpenCL device's largest allocation (%.2f GB)",
                       bytes / 1e9, (double)max_alloc / 1e9);
    cl_int e = CL_SUCCESS;
    cl_mem mem = clCreateBuffer(cl->context, CL_MEM_READ_WRITE, bytes ? bytes : 4, NULL, &e);
    if (e != CL_SUCCESS)
        return wl_opencl_check(backend, e, "clCreateBuffer");
    *handle = mem;
    return WARPLAB_OK;
}

static void opencl_release(wl_backend *backend, void *handle)
{
    (void)backend;
    if (handle)
        clReleaseMemObject((cl_mem)handle);
}

static warplab_status opencl_upload(wl_backend *backend, void *handle, size_t offset,
                                    const void *source, size_t bytes)
{
    opencl_backend *cl = (opencl_backend *)backend;
    if (bytes == 0)
        return WARPLAB_OK;
    return wl_opencl_check(backend,
                           clEnqueueWriteBuffer(cl->queue, (cl_mem)handle, CL_TRUE, offset, bytes,
                                                source, 0, NULL, NULL),
                           "clEnqueueWriteBuffer");
}

static warplab_status opencl_download(wl_backend *backend, const void *handle, size_t offset,
                                      void *destination, size_t bytes)
{
    opencl_backend *cl = (opencl_backend *)backend;
    if (bytes == 0)
        return WARPLAB_OK;
    return wl_opencl_check(backend,
                           clEnqueueReadBuffer(cl->queue, (cl_mem)handle, CL_TRUE, offset, bytes,
                                               destination, 0, NULL, NULL),
                           "clEnqueueReadBuffer");
}

static warplab_status opencl_fill32(wl_backend *backend, void *handle, size_t offset,
                                    uint32_t pattern, size_t bytes)
{
    opencl_backend *cl = (opencl_backend *)backend;
    if (bytes < 4)
        return WARPLAB_OK;
    cl_int e = clEnqueueFillBuffer(cl->queue, (cl_mem)handle, &pattern, sizeof pattern, offset,
                                   bytes & ~(size_t)3, 0, NULL, NULL);
    if (e == CL_SUCCESS)
        e = clFinish(cl->queue);
    return wl_opencl_check(backend, e, "clEnqueueFillBuffer");
}

static warplab_status opencl_mem_info(wl_backend *backend, size_t *free_bytes, size_t *total)
{
    /* OpenCL cannot say what is free; the total is the honest upper bound. */
    *total = backend->info.global_memory_bytes;
    *free_bytes = *total;
    return *total ? WARPLAB_OK : WARPLAB_ERROR_UNSUPPORTED;
}

static warplab_status opencl_synchronize(wl_backend *backend)
{
    return wl_opencl_check(backend, clFinish(((opencl_backend *)backend)->queue), "clFinish");
}

static warplab_status opencl_timers_reserve(wl_backend *backend, int count)
{
    opencl_backend *cl = (opencl_backend *)backend;
    release_timers(cl);
    if (count > cl->timers) {
        cl_event *starts = realloc(cl->starts, (size_t)count * sizeof *starts);
        if (starts)
            cl->starts = starts;
        cl_event *stops = realloc(cl->stops, (size_t)count * sizeof *stops);
        if (stops)
            cl->stops = stops;
        double *hs = realloc(cl->host_starts, (size_t)count * sizeof *hs);
        if (hs)
            cl->host_starts = hs;
        double *he = realloc(cl->host_stops, (size_t)count * sizeof *he);
        if (he)
            cl->host_stops = he;
        if (!starts || !stops || !hs || !he)
            return wl_fail(backend, WARPLAB_ERROR_HOST_OUT_OF_MEMORY, "cannot allocate timers");
        cl->timers = count;
    }
    memset(cl->starts, 0, (size_t)cl->timers * sizeof *cl->starts);
    memset(cl->stops, 0, (size_t)cl->timers * sizeof *cl->stops);
    return WARPLAB_OK;
}

/* Markers on a profiling queue: the time between the start marker's end and
 * the stop marker's end is the device time of what was enqueued between. If
 * the implementation gives no profiling for markers, the host clock around a
 * clFinish is used instead. */
static warplab_status opencl_timer_start(wl_backend *backend, int slot)
{
    opencl_backend *cl = (opencl_backend *)backend;
    if (cl->host_clock) {
        cl_int e = clFinish(cl->queue);
        cl->host_starts[slot] = wl_now_seconds();
        return wl_opencl_check(backend, e, "clFinish");
    }
    return wl_opencl_check(backend,
                           clEnqueueMarkerWithWaitList(cl->queue, 0, NULL, &cl->starts[slot]),
                           "clEnqueueMarkerWithWaitList");
}

static warplab_status opencl_timer_stop(wl_backend *backend, int slot)
{
    opencl_backend *cl = (opencl_backend *)backend;
    if (cl->host_clock) {
        cl_int e = clFinish(cl->queue);
        cl->host_stops[slot] = wl_now_seconds();
        return wl_opencl_check(backend, e, "clFinish");
    }
    return wl_opencl_check(backend,
                           clEnqueueMarkerWithWaitList(cl->queue, 0, NULL, &cl->stops[slot]),
                           "clEnqueueMarkerWithWaitList");
}

static warplab_status opencl_timers_read(wl_backend *backend, int count, double *milliseconds)
{
    opencl_backend *cl = (opencl_backend *)backend;
    cl_int e = clFinish(cl->queue);
    if (e != CL_SUCCESS)
        return wl_opencl_check(backend, e, "clFinish");
    if (cl->host_clock) {
        for (int i = 0; i < count; i++)
            milliseconds[i] = 1e3 * (cl->host_stops[i] - cl->host_starts[i]);
        return WARPLAB_OK;
    }
    for (int i = 0; i < count; i++) {
        cl_ulong start = 0, stop = 0;
        e = clGetEventProfilingInfo(cl->starts[i], CL_PROFILING_COMMAND_END, sizeof start, &start,
                                    NULL);
        if (e == CL_SUCCESS)
            e = clGetEventProfilingInfo(cl->stops[i], CL_PROFILING_COMMAND_END, sizeof stop, &stop,
                                        NULL);
        if (e != CL_SUCCESS || stop < start) {
            release_timers(cl);
            return wl_opencl_check(backend, e != CL_SUCCESS ? e : CL_PROFILING_INFO_NOT_AVAILABLE,
                                   "reading OpenCL marker times");
        }
        milliseconds[i] = (double)(stop - start) * 1e-6;
    }
    release_timers(cl);
    return WARPLAB_OK;
}

static int source_index(const char *program)
{
    for (size_t i = 0; i < wl_opencl_source_count; i++)
        if (strcmp(wl_opencl_sources[i].name, program) == 0)
            return (int)i;
    return -1;
}

static warplab_status build_program(opencl_backend *cl, int index)
{
    wl_backend *backend = &cl->base;
    if (cl->programs[index])
        return WARPLAB_OK;
    const char *text = wl_opencl_sources[index].text;
    cl_int e = CL_SUCCESS;
    cl_program program = clCreateProgramWithSource(cl->context, 1, &text, NULL, &e);
    if (e != CL_SUCCESS)
        return wl_opencl_check(backend, e, "clCreateProgramWithSource");
    e = clBuildProgram(program, 1, &cl->device, "-cl-std=CL1.2", NULL, NULL);
    if (e != CL_SUCCESS) {
        char log[WL_ERROR_LEN - 96] = "";
        clGetProgramBuildInfo(program, cl->device, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
        log[sizeof log - 1] = '\0';
        clReleaseProgram(program);
        return wl_fail(backend, WARPLAB_ERROR_BACKEND, "building OpenCL program %s: %s: %s",
                       wl_opencl_sources[index].name, wl_opencl_error_name(e), log);
    }
    cl->programs[index] = program;
    return WARPLAB_OK;
}

static warplab_status find_kernel(opencl_backend *cl, const char *program, const char *name,
                                  cl_kernel *kernel)
{
    wl_backend *backend = &cl->base;
    for (int i = 0; i < cl->kernel_count; i++)
        if (strcmp(cl->kernels[i].program, program) == 0 &&
            strcmp(cl->kernels[i].name, name) == 0) {
            *kernel = cl->kernels[i].kernel;
            return WARPLAB_OK;
        }
    int index = source_index(program);
    if (index < 0 || index >= MAX_PROGRAMS)
        return wl_fail(backend, WARPLAB_ERROR_UNKNOWN_NAME, "no OpenCL program named %s", program);
    warplab_status status = build_program(cl, index);
    if (status != WARPLAB_OK)
        return status;
    if (cl->kernel_count == MAX_KERNELS)
        return wl_fail(backend, WARPLAB_ERROR_BACKEND, "too many OpenCL kernels");
    cl_int e = CL_SUCCESS;
    cl_kernel made = clCreateKernel(cl->programs[index], name, &e);
    if (e != CL_SUCCESS)
        return wl_opencl_check(backend, e, name);
    cached_kernel *entry = &cl->kernels[cl->kernel_count++];
    entry->program = wl_opencl_sources[index].name;
    wl_copy_string(entry->name, sizeof entry->name, name);
    entry->kernel = made;
    *kernel = made;
    return WARPLAB_OK;
}

warplab_status wl_opencl_launch(wl_backend *backend, const char *program, const char *kernel_name,
                                cl_uint dims, const size_t *global, const size_t *local,
                                int arg_count, const wl_cl_arg *args)
{
    opencl_backend *cl = (opencl_backend *)backend;
    cl_kernel kernel = NULL;
    warplab_status status = find_kernel(cl, program, kernel_name, &kernel);
    if (status != WARPLAB_OK)
        return status;
    for (int i = 0; i < arg_count; i++) {
        cl_int e = clSetKernelArg(kernel, (cl_uint)i, args[i].size, args[i].value);
        if (e != CL_SUCCESS) {
            char what[96];
            wl_format(what, sizeof what, "%s argument %d", kernel_name, i);
            return wl_opencl_check(backend, e, what);
        }
    }
    size_t rounded[3] = {0, 0, 0};
    for (cl_uint d = 0; d < dims; d++) {
        if (global[d] == 0)
            return WARPLAB_OK; /* nothing to do */
        size_t group = local ? local[d] : 1;
        rounded[d] = (global[d] + group - 1) / group * group;
    }
    return wl_opencl_check(
        backend,
        clEnqueueNDRangeKernel(cl->queue, kernel, dims, NULL, rounded, local, 0, NULL, NULL),
        kernel_name);
}

/* ---- the caller's queues and memory ---- */

static warplab_status opencl_set_stream(wl_backend *backend, void *stream)
{
    opencl_backend *cl = (opencl_backend *)backend;
    cl_command_queue next = stream ? (cl_command_queue)stream : cl->own_queue;
    if (next == cl->queue)
        return WARPLAB_OK;
    if (stream) {
        cl_context owner = NULL;
        cl_device_id device = NULL;
        cl_int e = clGetCommandQueueInfo(next, CL_QUEUE_CONTEXT, sizeof owner, &owner, NULL);
        if (e == CL_SUCCESS)
            e = clGetCommandQueueInfo(next, CL_QUEUE_DEVICE, sizeof device, &device, NULL);
        if (e != CL_SUCCESS)
            return wl_opencl_check(backend, e, "binding a command queue");
        if (owner != cl->context || device != cl->device)
            return wl_fail(backend, WARPLAB_ERROR_INVALID_ARGUMENT,
                           "the command queue belongs to another cl_context or device: create "
                           "it in warplab_context_native()'s context");
        cl_command_queue_properties properties = 0;
        e = clGetCommandQueueInfo(next, CL_QUEUE_PROPERTIES, sizeof properties, &properties, NULL);
        if (e != CL_SUCCESS)
            return wl_opencl_check(backend, e, "binding a command queue");
        if (properties & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)
            return wl_fail(backend, WARPLAB_ERROR_INVALID_ARGUMENT,
                           "the command queue is out of order: warplab needs an in-order queue");
    }
    /* What warplab queued before comes first: a marker on the old queue that
     * the new one waits for. */
    cl_event marker = NULL;
    cl_int e = clEnqueueMarkerWithWaitList(cl->queue, 0, NULL, &marker);
    if (e == CL_SUCCESS)
        e = clEnqueueBarrierWithWaitList(next, 1, &marker, NULL);
    if (marker)
        clReleaseEvent(marker);
    if (e == CL_SUCCESS)
        e = clFlush(cl->queue);
    if (e != CL_SUCCESS)
        return wl_opencl_check(backend, e, "ordering the new command queue after the old one");
    if (stream)
        clRetainCommandQueue(next);
    if (cl->queue != cl->own_queue)
        clReleaseCommandQueue(cl->queue);
    cl->queue = next;
    return WARPLAB_OK;
}

static warplab_status opencl_wrap_check(wl_backend *backend, void *handle, size_t bytes)
{
    opencl_backend *cl = (opencl_backend *)backend;
    cl_context owner = NULL;
    size_t size = 0;
    cl_int e = clGetMemObjectInfo((cl_mem)handle, CL_MEM_CONTEXT, sizeof owner, &owner, NULL);
    if (e == CL_SUCCESS)
        e = clGetMemObjectInfo((cl_mem)handle, CL_MEM_SIZE, sizeof size, &size, NULL);
    if (e != CL_SUCCESS)
        return wl_opencl_check(backend, e, "warplab_buffer_wrap: not a cl_mem");
    if (owner != cl->context)
        return wl_fail(backend, WARPLAB_ERROR_INVALID_ARGUMENT,
                       "warplab_buffer_wrap: the cl_mem belongs to another cl_context: create "
                       "it in warplab_context_native()'s context");
    if (bytes > size)
        return wl_fail(backend, WARPLAB_ERROR_INVALID_ARGUMENT,
                       "warplab_buffer_wrap: %zu bytes asked of a %zu-byte cl_mem", bytes, size);
    return WARPLAB_OK;
}

static void *opencl_native_context(wl_backend *backend)
{
    return ((opencl_backend *)backend)->context;
}

static const wl_impl *const *const opencl_impls[] = {
#define WL_LADDER(name) wl_opencl_##name##_impls,
#include "core/ladders.def"
#undef WL_LADDER
    wl_opencl_probe_impls,
    wl_opencl_gemm_ex_impls,
    NULL,
};

const wl_backend_ops wl_opencl_backend_ops = {
    .kind = WARPLAB_BACKEND_OPENCL,
    .name = "opencl",
    .device_count = opencl_device_count,
    .device_info = opencl_device_info,
    .open = opencl_open,
    .close = opencl_close,
    .alloc = opencl_alloc,
    .release = opencl_release,
    .upload = opencl_upload,
    .download = opencl_download,
    .fill32 = opencl_fill32,
    .mem_info = opencl_mem_info,
    .synchronize = opencl_synchronize,
    .flush_caches = NULL,
    .timers_reserve = opencl_timers_reserve,
    .timer_start = opencl_timer_start,
    .timer_stop = opencl_timer_stop,
    .timers_read = opencl_timers_read,
    .impls = opencl_impls,
    .set_stream = opencl_set_stream,
    .wrap_check = opencl_wrap_check,
    .native_context = opencl_native_context,
};
