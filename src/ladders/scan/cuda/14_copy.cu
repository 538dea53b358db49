/* Reference row copy: cudaMemcpyAsync of the n input elements into the n
 * output places, device to device: the 2n bytes a single-pass scan must
 * move, at the copy engine's or the SMs' best (the scan's speed of light). */
#include "scan_rungs.cuh"

namespace
{

warplab_status launch_scan_copy(wl_backend *backend, const wl_launch *launch, void *)
{
    const size_t bytes = wl_launch_count(launch) * warplab_dtype_size(launch->problem->dtype);
    if (bytes == 0)
        return WARPLAB_OK;
    return wl_cuda_check(backend,
                         cudaMemcpyAsync(wl_view_ptr(launch->buf[1]), wl_view_ptr(launch->buf[0]),
                                         bytes, cudaMemcpyDeviceToDevice, wl_cuda_stream(backend)),
                         "scan copy");
}

const wl_impl copy_impl = {.ladder = "scan", .rung = "copy", .launch = launch_scan_copy};

} // namespace
