/* The profiler window of `warplab bench --counters` (src/lab/counters.h): Nsight
 * Compute, started with --profile-from-start off, measures only the kernels
 * launched between cudaProfilerStart and cudaProfilerStop. */
#include "../counters.h"
#include "kernels/cuda/cuda_backend.h"

#include <cuda_profiler_api.h>

extern "C" warplab_status wl_cuda_profile_window(wl_backend *backend, int open)
{
    return wl_cuda_check(backend, open ? cudaProfilerStart() : cudaProfilerStop(),
                         open ? "cudaProfilerStart" : "cudaProfilerStop");
}
