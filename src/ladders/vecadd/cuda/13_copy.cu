/* Reference row copy: cudaMemcpy of one array, device to device. The
 * bytes a streaming kernel moves, with no arithmetic and the driver's own
 * copy: the bandwidth the vector-add rungs are measured against. */
#include "vecadd_rungs.cuh"

namespace
{

warplab_status launch_copy(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    return wl_cuda_check(backend,
                         cudaMemcpyAsync(view_of(launch, VECADD_C), view_of(launch, VECADD_A),
                                         wl_launch_count(launch) * sizeof(float),
                                         cudaMemcpyDeviceToDevice, wl_cuda_stream(backend)),
                         "device-to-device copy");
}

const wl_impl copy_impl = {.ladder = "vecadd", .rung = "copy", .launch = launch_copy};

} // namespace
