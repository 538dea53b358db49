/* Limits of kernels that every backend's form shares (kernel_limits.h). */
#include "kernel_limits.h"

warplab_status wl_vecadd_one_block_limits(const wl_problem *p, const warplab_device_info *device,
                                          char *reason, size_t len)
{
    if (device->max_threads_per_block > 0 && p->dim[0] > (size_t)device->max_threads_per_block) {
        wl_format(reason, len,
                  "one block holds at most %d threads on %s; n=%zu needs a grid of blocks",
                  device->max_threads_per_block, device->name, p->dim[0]);
        return WARPLAB_ERROR_UNSUPPORTED;
    }
    return WARPLAB_OK;
}

/* The one-block scans walk the array on one SM: 2^24 elements take them
 * milliseconds, 2^28 seconds a run. Past 2^24 the lesson is made and the
 * time would be the benchmark's, not the table's. */
#define SCAN_ONE_BLOCK_MOST ((size_t)1 << 24)

warplab_status wl_scan_one_block_limits(const wl_problem *p, const warplab_device_info *device,
                                        char *reason, size_t len)
{
    (void)device;
    if (p->dim[0] <= SCAN_ONE_BLOCK_MOST)
        return WARPLAB_OK;
    wl_format(reason, len, "one block walks at most 2^24 elements (n = %zu)", p->dim[0]);
    return WARPLAB_ERROR_UNSUPPORTED;
}

warplab_status wl_gemm_one_block_limits(const wl_problem *p, const warplab_device_info *device,
                                        char *reason, size_t len)
{
    const double elements = (double)p->dim[0] * (double)p->dim[1];
    if (device->max_threads_per_block > 0 && elements > (double)device->max_threads_per_block) {
        wl_format(reason, len,
                  "one block holds at most %d threads on %s; C has %zu x %zu = %.0f elements: "
                  "the course's size limit (seed 002), lifted by a grid of blocks",
                  device->max_threads_per_block, device->name, p->dim[0], p->dim[1], elements);
        return WARPLAB_ERROR_UNSUPPORTED;
    }
    return WARPLAB_OK;
}

static warplab_status multiple_of(const wl_problem *p, size_t tile, char *reason, size_t len)
{
    if (p->dim[0] % tile || p->dim[1] % tile || p->dim[2] % tile) {
        wl_format(reason, len,
                  "the course's tiled kernel has no boundary checks: m, n and k must be "
                  "multiples of TILE_WIDTH %zu (got %zu x %zu x %zu); the next rung handles any "
                  "size",
                  tile, p->dim[0], p->dim[1], p->dim[2]);
        return WARPLAB_ERROR_UNSUPPORTED;
    }
    return WARPLAB_OK;
}

warplab_status wl_gemm_tiled16_limits(const wl_problem *p, const warplab_device_info *device,
                                      char *reason, size_t len)
{
    (void)device;
    return multiple_of(p, 16, reason, len);
}

warplab_status wl_gemm_tiled32_limits(const wl_problem *p, const warplab_device_info *device,
                                      char *reason, size_t len)
{
    (void)device;
    return multiple_of(p, 32, reason, len);
}

static double macs(const wl_problem *p)
{
    return (double)p->dim[0] * (double)p->dim[1] * (double)p->dim[2];
}

/* The host loop is O(mnk) on one core: past 2^30 multiply-adds (1024^3) a
 * run takes seconds to minutes, and the harness needs five. */
warplab_status wl_gemm_cpu_loop_limits(const wl_problem *p, const warplab_device_info *device,
                                       char *reason, size_t len)
{
    (void)device;
    if (macs(p) > (double)(1u << 30)) {
        wl_format(reason, len,
                  "the one-core host loop would take minutes at %.3g multiply-adds; it runs up "
                  "to 2^30 (1024^3)",
                  macs(p));
        return WARPLAB_ERROR_UNSUPPORTED;
    }
    return WARPLAB_OK;
}

/* The blocked host version: up to 2^36 multiply-adds (4096^3). */
warplab_status wl_gemm_cpu_blocked_limits(const wl_problem *p, const warplab_device_info *device,
                                          char *reason, size_t len)
{
    (void)device;
    if (macs(p) > (double)(1ull << 36)) {
        wl_format(reason, len,
                  "the CPU would take minutes at %.3g multiply-adds; it runs up to 2^36 "
                  "(4096^3)",
                  macs(p));
        return WARPLAB_ERROR_UNSUPPORTED;
    }
    return WARPLAB_OK;
}
