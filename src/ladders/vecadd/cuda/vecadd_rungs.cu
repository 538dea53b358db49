/* The cuda backend's vector-add rungs, one file each, included here in
 * ladder order (the number in a file's name is the rung's place in
 * `warplab ladders vecadd`; 01 and 02 are the CPU loops), and the table of
 * their impl rows that the backend reads. One translation unit, so that the
 * rungs that reuse a lower rung's kernel (the managed rungs launch grid's,
 * the float4 rungs fall back to grid_stride's) call it where it is. */
#include "vecadd_rungs.cuh"

#include "03_one_block.cu"
#include "04_grid.cu"
#include "05_grid_stride.cu"
#include "06_vectorized.cu"
#include "07_vectorized_flat.cu"
#include "09_h2d.cu"
#include "10_d2h.cu"
#include "11_managed.cu"
#include "12_managed_prefetch.cu"
#include "13_copy.cu"

extern "C" const wl_impl *const wl_cuda_vecadd_impls[] = {&one_block_impl,
                                                          &grid_impl,
                                                          &grid_stride_impl,
                                                          &vectorized_impl,
                                                          &vectorized_flat_impl,
                                                          &h2d_impl,
                                                          &d2h_impl,
                                                          &managed_impl,
                                                          &managed_prefetch_impl,
                                                          &copy_impl,
                                                          NULL};
