/* Rung d2h: the copy of one array back to page-locked host memory (seed
 * 001's cudaMemcpy(..., cudaMemcpyDeviceToHost)), timed apart from the
 * kernels; finish() copies what arrived back into c (the h2d rung's copy,
 * untimed) so that the harness can check it. The staging is h2d's
 * (09_h2d.cu). */
#include "vecadd_rungs.cuh"

namespace
{

warplab_status launch_d2h(wl_backend *backend, const wl_launch *launch, void *state)
{
    return copy_array(backend, ((staging *)state)->host, view_of(launch, VECADD_A),
                      wl_launch_count(launch), cudaMemcpyDeviceToHost, "copy device to host");
}

const wl_impl d2h_impl = {.ladder = "vecadd",
                          .rung = "d2h",
                          .setup = staging_setup,
                          .launch = launch_d2h,
                          .finish = launch_h2d,
                          .teardown = staging_teardown};

} // namespace
