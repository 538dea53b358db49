/* The course's device-query arithmetic (seed 000, 'Device Query'; seed 004,
 * 'Calculate bandwidth on your GPU'). */
#include "internal.h"

double warplab_theoretical_bandwidth_gbs(int memory_bus_width_bits, int memory_clock_khz)
{
    if (memory_bus_width_bits <= 0 || memory_clock_khz <= 0)
        return 0.0;
    const double bytes_per_transfer = (double)memory_bus_width_bits / 8.0;
    /* Double data rate: two transfers per memory clock. */
    const double transfers_per_second = 2.0 * (double)memory_clock_khz * 1e3;
    return bytes_per_transfer * transfers_per_second / 1e9;
}
