/*
 * Verification of large problems on the device (C11, and includable from CUDA).
 *
 * On a GPU the CPU double-precision reference dominates a benchmark's time at
 * the largest sizes: every input generated and uploaded on the host, every
 * buffer read back, and the reference computed by the host's cores. Above a
 * size threshold, on a backend that has a device reference (cuda), the
 * harness instead
 *   - poisons every buffer as always, then generates the inputs on the
 *     device from a counter-based generator (element i of a buffer is a
 *     function of the buffer's seed and i, the same on host and device);
 *   - after the checked run, reads back only the heads and guards (they must
 *     still hold the poison), and checks on the device that every input
 *     element still holds its generated value;
 *   - verifies the outputs with the ladder's device reference: the same rule
 *     and tolerance as the CPU reference (exact compares, Higham bounds,
 *     NaN passes only where the reference is NaN), computed in double
 *     precision on the device (src/lab/cuda/reference.cu).
 * The device references are themselves checked against the CPU reference on
 * small problems (tests/test_reference.c). The row's note says which
 * reference verified it.
 */
#ifndef WARPLAB_REFERENCE_H
#define WARPLAB_REFERENCE_H

#include "internal.h"
#include "ladders/device_reference.h"

#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__CUDACC__)
#define WL_HOST_DEVICE __host__ __device__
#else
#define WL_HOST_DEVICE
#endif

/* splitmix64's finalizer over the element's counter: element i of a buffer
 * filled with seed. */
static inline WL_HOST_DEVICE uint64_t wl_random_bits(uint64_t seed, uint64_t i)
{
    uint64_t z = seed + 0x9E3779B97F4A7C15ull * (i + 1u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* The bits of element i (int32 and float: the low 32 bits), drawn in
 * [lo, hi] as wl_fill_random draws them. */
static inline WL_HOST_DEVICE uint64_t wl_random_element_bits(warplab_dtype dtype, uint64_t seed,
                                                             uint64_t i, double lo, double hi)
{
    const uint64_t r = wl_random_bits(seed, i);
    if (dtype == WARPLAB_INT32) {
        const int64_t low = (int64_t)lo, width = (int64_t)hi - low + 1;
        return (uint32_t)(int32_t)(low + (int64_t)(r % (uint64_t)width));
    }
    const double value = lo + (hi - lo) * ((double)(r >> 11) * 0x1.0p-53);
    if (dtype == WARPLAB_FLOAT64) {
        uint64_t bits;
        memcpy(&bits, &value, sizeof bits);
        return bits;
    }
    const float single = (float)value;
    uint32_t bits;
    memcpy(&bits, &single, sizeof bits);
    return bits;
}

/* A backend's device reference (NULL in wl_backend_ops where there is none). */
typedef struct wl_device_reference {
    /* Fills a view with the generator's values (count elements of dtype). */
    warplab_status (*fill_random)(wl_backend *backend, wl_view view, warplab_dtype dtype,
                                  size_t count, double lo, double hi, uint64_t seed);
    /* Counts the elements of an input view that no longer hold the values
     * the generator gave them (the planted NaN: a NaN). */
    warplab_status (*count_changed)(wl_backend *backend, wl_view view, const wl_buffer_spec *spec,
                                    const wl_reference_input *input, size_t *changed);
    /* Verifies the outputs; fills check as the CPU reference would. */
    warplab_status (*verify)(wl_backend *backend, const wl_reference_request *request,
                             wl_check *check);
} wl_device_reference;

#ifdef WARPLAB_HAVE_CUDA
extern const wl_device_reference wl_cuda_device_reference;
#endif

/* The cuda backend's reference, or NULL for a backend without one. */
const wl_device_reference *wl_device_reference_for(const wl_backend *backend);

/* The smallest problem (bytes of all its buffers) the harness verifies on the
 * device by default; WARPLAB_DEVICE_VERIFY_BYTES overrides it (0: every
 * problem, as the reference test does). */
#define WL_DEVICE_VERIFY_BYTES ((size_t)64 << 20)
size_t wl_device_verify_threshold(void);

/* What the ladder's device reference for a rung and problem is
 * (WL_REFERENCE_NONE: the CPU's); sets kind and precision. */
void wl_ladder_device_reference(const wl_ladder *ladder, const wl_rung *rung,
                                const wl_problem *problem, wl_reference_request *request);

/* A short name of a reference for row notes ("device reference (double)"). */
const char *wl_reference_name(wl_reference_kind kind);

#ifdef __cplusplus
}
#endif

#endif
