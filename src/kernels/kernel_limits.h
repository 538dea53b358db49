/* Limits of kernels that every backend's form shares (the kernel's shape,
 * not its backend): one block's threads, the course's tiles without
 * boundary checks, the host loops' time budgets. The ladders' rungs and the
 * library operations' candidates (src/ops/) that run these kernels check
 * the same function. Each writes why not to reason and returns
 * WARPLAB_ERROR_UNSUPPORTED, or WARPLAB_OK. */
#ifndef WARPLAB_KERNEL_LIMITS_H
#define WARPLAB_KERNEL_LIMITS_H

#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Vector add in one block: one thread an element (seed 001). */
warplab_status wl_vecadd_one_block_limits(const wl_problem *p, const warplab_device_info *device,
                                          char *reason, size_t len);

/* Scan in one block: the block walks the array tile by tile, up to 2^24
 * elements. */
warplab_status wl_scan_one_block_limits(const wl_problem *p, const warplab_device_info *device,
                                        char *reason, size_t len);

/* Matrix multiply (dim[] = m, n, k): one block, one thread an element of C
 * (seed 002); the course's tiled kernels (m, n, k multiples of the tile);
 * the host loop on one core (2^30 multiply-adds) and blocked on every core
 * (2^36). */
warplab_status wl_gemm_one_block_limits(const wl_problem *p, const warplab_device_info *device,
                                        char *reason, size_t len);
warplab_status wl_gemm_tiled16_limits(const wl_problem *p, const warplab_device_info *device,
                                      char *reason, size_t len);
warplab_status wl_gemm_tiled32_limits(const wl_problem *p, const warplab_device_info *device,
                                      char *reason, size_t len);
warplab_status wl_gemm_cpu_loop_limits(const wl_problem *p, const warplab_device_info *device,
                                       char *reason, size_t len);
warplab_status wl_gemm_cpu_blocked_limits(const wl_problem *p, const warplab_device_info *device,
                                          char *reason, size_t len);

#ifdef __cplusplus
}
#endif

#endif
