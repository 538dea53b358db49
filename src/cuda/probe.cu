/* The cuda backend's probe series: every experiment has a CUDA form. The
 * kernels live by topic in probe_*.cu; this is their table. */
#include "probe_cuda.h"

extern "C" const wl_impl *const wl_cuda_probe_impls[] = {&wl_cuda_probe_offset,
                                                         &wl_cuda_probe_stride,
                                                         &wl_cuda_probe_word4,
                                                         &wl_cuda_probe_word8,
                                                         &wl_cuda_probe_lane,
                                                         &wl_cuda_probe_warp,
                                                         &wl_cuda_probe_block,
                                                         &wl_cuda_probe_global_int,
                                                         &wl_cuda_probe_global_float,
                                                         &wl_cuda_probe_shared_int,
                                                         &wl_cuda_probe_shared_float,
                                                         &wl_cuda_probe_cas_float,
                                                         NULL};
