/* The device query's arithmetic (seed 000 'Device Query', seed 004
 * 'Calculate bandwidth on your GPU') and what warplab_devices reports on the
 * backends present without a GPU. */
#include "../check.h"
#include "internal.h"

#include <string.h>

/* "384-bit memory interface, 900MHz DDR: 384 * 1800 / 8 = 86.4 GB/s". */
static void test_theoretical_bandwidth(void)
{
    CHECK_NEAR(warplab_theoretical_bandwidth_gbs(384, 900000), 86.4, 1e-9);
    /* The H200 of docs/DECISIONS.md (the bandwidth ceiling):
     * 6016 bit x 2 x 3201 MHz / 8 = 4814 GB/s. */
    CHECK_NEAR(warplab_theoretical_bandwidth_gbs(6016, 3201000), 4814.304, 1e-6);
    CHECK(warplab_theoretical_bandwidth_gbs(0, 900000) == 0.0);
    CHECK(warplab_theoretical_bandwidth_gbs(384, 0) == 0.0);
    CHECK(warplab_theoretical_bandwidth_gbs(-384, 900000) == 0.0);
}

/* Every backend compiled in answers; the cpu backend always has one device;
 * a CUDA device's bandwidth is the course's formula over what it reports. */
static void test_devices(void)
{
    for (int k = WARPLAB_BACKEND_CUDA; k < WARPLAB_BACKEND_COUNT; k++) {
        warplab_backend_kind kind = (warplab_backend_kind)k;
        warplab_device_info devices[8];
        size_t count = 99;
        warplab_status status = warplab_devices(kind, devices, 8, &count);
        CHECK_MSG(status == WARPLAB_OK, "%s: %s", warplab_backend_name(kind),
                  warplab_status_string(status));
        if (!warplab_backend_compiled(kind))
            CHECK(count == 0);
        if (kind == WARPLAB_BACKEND_CPU)
            CHECK(count == 1);
        for (size_t i = 0; i < count && i < 8; i++) {
            const warplab_device_info *d = &devices[i];
            CHECK(d->backend == kind);
            CHECK(d->index == (int)i);
            CHECK(d->name[0] != '\0');
            CHECK(d->multiprocessors > 0);
            CHECK(d->warp_size > 0);
            CHECK(d->max_threads_per_block > 0);
            if (kind == WARPLAB_BACKEND_CUDA) {
                CHECK_NEAR(d->theoretical_bandwidth_gbs,
                           warplab_theoretical_bandwidth_gbs(d->memory_bus_width_bits,
                                                             d->memory_clock_khz),
                           1e-9);
                CHECK(d->cc_major > 0);
            }
        }
        /* The count alone. */
        size_t alone = 0;
        CHECK(warplab_devices(kind, NULL, 0, &alone) == WARPLAB_OK && alone == count);
    }
    size_t count = 0;
    warplab_device_info device;
    CHECK(warplab_devices(WARPLAB_BACKEND_AUTO, &device, 1, &count) ==
          WARPLAB_ERROR_INVALID_ARGUMENT);
    CHECK(warplab_devices(WARPLAB_BACKEND_CPU, NULL, 1, &count) == WARPLAB_ERROR_INVALID_ARGUMENT);
    CHECK(warplab_devices(WARPLAB_BACKEND_CPU, &device, 1, NULL) == WARPLAB_ERROR_INVALID_ARGUMENT);
}

int main(void)
{
    test_theoretical_bandwidth();
    test_devices();
    return check_report("test_device_query");
}
