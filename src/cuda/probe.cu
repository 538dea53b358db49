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
                                                         &wl_cuda_probe_sinf,
                                                         &wl_cuda_probe_fast_sin,
                                                         &wl_cuda_probe_expf,
                                                         &wl_cuda_probe_fast_exp,
                                                         &wl_cuda_probe_div,
                                                         &wl_cuda_probe_fast_div,
                                                         &wl_cuda_probe_div_mod,
                                                         &wl_cuda_probe_shift_mask,
                                                         &wl_cuda_probe_rolled,
                                                         &wl_cuda_probe_compiler,
                                                         &wl_cuda_probe_pragma,
                                                         &wl_cuda_probe_by_hand,
                                                         NULL};
