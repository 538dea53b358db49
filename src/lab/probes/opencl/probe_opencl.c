/* The opencl backend's probe series: the experiments with an OpenCL form,
 * one file per probe (probe_<name>_opencl.c, kernels in
 * kernels/probe_<name>.cl); this is their table. Transfers, block size and
 * the fast float intrinsics are CUDA-only: the harness reports them as "cuda
 * only". */
#include "probe_opencl.h"

const wl_impl *const wl_opencl_probe_impls[] = {&wl_opencl_probe_offset,
                                                &wl_opencl_probe_stride,
                                                &wl_opencl_probe_word4,
                                                &wl_opencl_probe_word8,
                                                &wl_opencl_probe_lane,
                                                &wl_opencl_probe_warp,
                                                &wl_opencl_probe_block,
                                                &wl_opencl_probe_global_int,
                                                &wl_opencl_probe_shared_int,
                                                &wl_opencl_probe_cas_float,
                                                &wl_opencl_probe_div_mod,
                                                &wl_opencl_probe_shift_mask,
                                                &wl_opencl_probe_rolled,
                                                &wl_opencl_probe_compiler,
                                                &wl_opencl_probe_pragma,
                                                &wl_opencl_probe_by_hand,
                                                &wl_opencl_probe_atomic_functions[0],
                                                &wl_opencl_probe_atomic_functions[1],
                                                &wl_opencl_probe_atomic_functions[2],
                                                &wl_opencl_probe_atomic_functions[3],
                                                &wl_opencl_probe_atomic_functions[4],
                                                &wl_opencl_probe_atomic_functions[5],
                                                &wl_opencl_probe_atomic_functions[6],
                                                &wl_opencl_probe_atomic_functions[7],
                                                &wl_opencl_probe_atomic_functions[8],
                                                &wl_opencl_probe_atomic_functions[9],
                                                &wl_opencl_probe_square_block,
                                                &wl_opencl_probe_eight_rows,
                                                NULL};
