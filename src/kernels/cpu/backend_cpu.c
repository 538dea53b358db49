/* The cpu backend: host memory, a monotonic clock, and the course's host
 * loops. It is always present, runs the "GPU vs CPU" rows, and is what the
 * tool falls back to with no GPU and no OpenCL device. */
#define _GNU_SOURCE
#include "cpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct cpu_backend {
    wl_backend base;
    double *starts, *stops;
    int timers;
} cpu_backend;

static void read_cpu_name(char *name, size_t len)
{
    wl_copy_string(name, len, "host CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) == 0) {
            char *colon = strchr(line, ':');
            if (colon) {
                colon++;
                while (*colon == ' ' || *colon == '\t')
                    colon++;
                colon[strcspn(colon, "\n")] = '\0';
                wl_copy_string(name, len, colon);
            }
            break;
        }
    }
    fclose(f);
}

/* One number from a cgroup file ("max" = no limit: SIZE_MAX); false when the
 * file is missing or unreadable. With key, the value of "key N" lines
 * (memory.stat). */
static bool read_cgroup_value(const char *directory, const char *file, const char *key,
                              size_t *value)
{
    char path[1024];
    wl_format(path, sizeof path, "%s/%s", directory, file);
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    char line[256];
    bool found = false;
    while (!found && fgets(line, sizeof line, f)) {
        const char *text = line;
        if (key) {
            size_t length = strlen(key);
            if (strncmp(line, key, length) != 0 || line[length] != ' ')
                continue;
            text = line + length + 1;
        }
        unsigned long long number;
        if (strncmp(text, "max", 3) == 0) {
            *value = SIZE_MAX;
            found = true;
        } else if (sscanf(text, "%llu", &number) == 1) {
            *value = number > SIZE_MAX ? SIZE_MAX : (size_t)number;
            found = true;
        }
    }
    fclose(f);
    return found;
}

size_t wl_cgroup_memory_free(const char *self_cgroup, const char *mount)
{
    FILE *f = fopen(self_cgroup, "r");
    if (!f)
        return SIZE_MAX;
    /* cgroup v2: "0::/path"; v1: "N:controllers:/path" with "memory" among them. */
    char line[1024], v2[1024] = "", v1[1024] = "";
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        char *first = strchr(line, ':');
        char *second = first ? strchr(first + 1, ':') : NULL;
        if (!second)
            continue;
        *second = '\0';
        const char *controllers = first + 1, *path = second + 1;
        if (strncmp(line, "0", 1) == 0 && line + 1 == first && !*controllers)
            wl_copy_string(v2, sizeof v2, path);
        for (const char *c = controllers; *c;) {
            size_t length = strcspn(c, ",");
            if (length == 6 && strncmp(c, "memory", 6) == 0)
                wl_copy_string(v1, sizeof v1, path);
            c += length + (c[length] == ',');
        }
    }
    fclose(f);
    /* Every level from the process's group up to the root limits it. */
    const bool version1 = v1[0] != '\0';
    char relative[1024];
    wl_copy_string(relative, sizeof relative, version1 ? v1 : v2);
    if (!version1 && !v2[0])
        return SIZE_MAX;
    size_t best = SIZE_MAX;
    for (;;) {
        char directory[2048];
        wl_format(directory, sizeof directory, "%s%s%s", mount, version1 ? "/memory" : "",
                  relative);
        size_t limit, usage = 0, inactive = 0;
        if (read_cgroup_value(directory, version1 ? "memory.limit_in_bytes" : "memory.max", NULL,
                              &limit) &&
            limit < ((size_t)1 << 62)) {
            read_cgroup_value(directory, version1 ? "memory.usage_in_bytes" : "memory.current",
                              NULL, &usage);
            /* Inactive file pages are reclaimed before the OOM killer runs. */
            read_cgroup_value(directory, "memory.stat",
                              version1 ? "total_inactive_file" : "inactive_file", &inactive);
            size_t used = usage > inactive ? usage - inactive : 0;
            size_t free_bytes = limit > used ? limit - used : 0;
            if (free_bytes < best)
                best = free_bytes;
        }
        char *slash = strrchr(relative, '/');
        if (!slash || relative[0] == '\0' || (slash == relative && relative[1] == '\0'))
            break;
        slash[slash == relative ? 1 : 0] = '\0';
    }
    return best;
}

/* MemAvailable from /proc/meminfo, in bytes, capped by what the process's
 * memory cgroup (v2 or v1) still allows; 0 when unknown. WARPLAB_CGROUP_ROOT
 * replaces /sys/fs/cgroup (the tests use it). */
static size_t available_memory(size_t *total)
{
    size_t available = 0;
    *total = 0;
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f)
        return 0;
    char line[256];
    unsigned long long kb;
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
            available = (size_t)kb * 1024;
        else if (sscanf(line, "MemTotal: %llu kB", &kb) == 1)
            *total = (size_t)kb * 1024;
    }
    fclose(f);
    const char *mount = getenv("WARPLAB_CGROUP_ROOT");
    size_t cgroup = wl_cgroup_memory_free("/proc/self/cgroup", mount ? mount : "/sys/fs/cgroup");
    if (available && cgroup < available)
        available = cgroup;
    return available;
}

static warplab_status cpu_device_count(int *count)
{
    *count = 1;
    return WARPLAB_OK;
}

static warplab_status cpu_device_info(int index, warplab_device_info *info)
{
    memset(info, 0, sizeof *info);
    info->backend = WARPLAB_BACKEND_CPU;
    info->index = index;
    read_cpu_name(info->name, sizeof info->name);
    wl_copy_string(info->vendor, sizeof info->vendor, "host");
    info->multiprocessors = wl_cpu_threads();
    info->warp_size = 1;
    info->max_threads_per_block = 1;
    size_t total = 0;
    available_memory(&total);
    info->global_memory_bytes = total;
    return WARPLAB_OK;
}

static warplab_status cpu_open(int index, wl_backend **backend, char *error, size_t error_len)
{
    (void)error;
    (void)error_len;
    cpu_backend *cpu = calloc(1, sizeof *cpu);
    if (!cpu)
        return WARPLAB_ERROR_HOST_OUT_OF_MEMORY;
    cpu->base.ops = &wl_cpu_backend_ops;
    cpu_device_info(index, &cpu->base.info);
    *backend = &cpu->base;
    return WARPLAB_OK;
}

static void cpu_close(wl_backend *backend)
{
    cpu_backend *cpu = (cpu_backend *)backend;
    free(cpu->starts);
    free(cpu->stops);
    free(cpu);
}

static warplab_status cpu_alloc(wl_backend *backend, size_t bytes, void **handle)
{
    /* 64-byte alignment: a cache line, and enough for any vector width. */
    if (bytes > SIZE_MAX - 63)
        return wl_fail(backend, WARPLAB_ERROR_HOST_OUT_OF_MEMORY,
                       "cannot allocate %zu bytes of host memory: past the address space", bytes);
    size_t rounded = (bytes + 63) & ~(size_t)63;
    void *p = aligned_alloc(64, rounded ? rounded : 64);
    if (!p)
        return wl_fail(backend, WARPLAB_ERROR_HOST_OUT_OF_MEMORY,
                       "cannot allocate %zu bytes of host memory", bytes);
    *handle = p;
    return WARPLAB_OK;
}

static void cpu_release(wl_backend *backend, void *handle)
{
    (void)backend;
    free(handle);
}

static warplab_status cpu_upload(wl_backend *backend, void *handle, size_t offset,
                                 const void *source, size_t bytes)
{
    (void)backend;
    memcpy((char *)handle + offset, source, bytes);
    return WARPLAB_OK;
}

static warplab_status cpu_download(wl_backend *backend, const void *handle, size_t offset,
                                   void *destination, size_t bytes)
{
    (void)backend;
    memcpy(destination, (const char *)handle + offset, bytes);
    return WARPLAB_OK;
}

static warplab_status cpu_fill32(wl_backend *backend, void *handle, size_t offset, uint32_t pattern,
                                 size_t bytes)
{
    (void)backend;
    unsigned char *p = (unsigned char *)handle + offset;
    for (size_t i = 0; i + 4 <= bytes; i += 4)
        memcpy(p + i, &pattern, 4);
    return WARPLAB_OK;
}

static warplab_status cpu_mem_info(wl_backend *backend, size_t *free_bytes, size_t *total_bytes)
{
    (void)backend;
    *free_bytes = available_memory(total_bytes);
    return *free_bytes ? WARPLAB_OK : WARPLAB_ERROR_UNSUPPORTED;
}

static warplab_status cpu_synchronize(wl_backend *backend)
{
    (void)backend;
    return WARPLAB_OK;
}

static warplab_status cpu_timers_reserve(wl_backend *backend, int count)
{
    cpu_backend *cpu = (cpu_backend *)backend;
    if (count <= cpu->timers)
        return WARPLAB_OK;
    double *starts = realloc(cpu->starts, (size_t)count * sizeof *starts);
    if (starts)
        cpu->starts = starts;
    double *stops = realloc(cpu->stops, (size_t)count * sizeof *stops);
    if (stops)
        cpu->stops = stops;
    if (!starts || !stops)
        return wl_fail(backend, WARPLAB_ERROR_HOST_OUT_OF_MEMORY, "cannot allocate timers");
    cpu->timers = count;
    return WARPLAB_OK;
}

static warplab_status cpu_timer_start(wl_backend *backend, int slot)
{
    ((cpu_backend *)backend)->starts[slot] = wl_now_seconds();
    return WARPLAB_OK;
}

static warplab_status cpu_timer_stop(wl_backend *backend, int slot)
{
    ((cpu_backend *)backend)->stops[slot] = wl_now_seconds();
    return WARPLAB_OK;
}

static warplab_status cpu_timers_read(wl_backend *backend, int count, double *milliseconds)
{
    cpu_backend *cpu = (cpu_backend *)backend;
    for (int i = 0; i < count; i++)
        milliseconds[i] = 1e3 * (cpu->stops[i] - cpu->starts[i]);
    return WARPLAB_OK;
}

static const wl_impl *const *const cpu_impls[] = {
#define WL_LADDER(name) wl_cpu_##name##_impls,
#include "core/ladders.def"
#undef WL_LADDER
    wl_cpu_probe_impls,
    NULL,
};

const wl_backend_ops wl_cpu_backend_ops = {
    .kind = WARPLAB_BACKEND_CPU,
    .name = "cpu",
    .device_count = cpu_device_count,
    .device_info = cpu_device_info,
    .open = cpu_open,
    .close = cpu_close,
    .alloc = cpu_alloc,
    .release = cpu_release,
    .upload = cpu_upload,
    .download = cpu_download,
    .fill32 = cpu_fill32,
    .mem_info = cpu_mem_info,
    .synchronize = cpu_synchronize,
    .flush_caches = NULL,
    .timers_reserve = cpu_timers_reserve,
    .timer_start = cpu_timer_start,
    .timer_stop = cpu_timer_stop,
    .timers_read = cpu_timers_read,
    .impls = cpu_impls,
};
