/* The cuda backend's reduction rungs, one file each, included here in ladder
 * order (the number in a file's name is the rung's place in `warplab ladders
 * reduce`), and the table of their impl rows that the backend reads. One
 * translation unit: the rungs share reduce_rungs.cuh's templates and CUB's
 * headers, which nvcc would otherwise parse and instantiate once per rung. */
#include "reduce_rungs.cuh"

#include "03_naive.cu"
#include "04_interleaved.cu"
#include "05_strided_index.cu"
#include "06_sequential.cu"
#include "07_first_add.cu"
#include "08_warp_volatile.cu"
#include "09_warp_syncwarp.cu"
#include "10_complete_unroll.cu"
#include "11_brent.cu"
#include "12_cascade.cu"
#include "13_shuffle.cu"
#include "14_atomic_warp.cu"
#include "15_atomic_block.cu"
#include "16_single_pass.cu"
#include "17_cub.cu"

extern "C" const wl_impl *const wl_cuda_reduce_impls[] = {&naive_impl,
                                                          &interleaved_impl,
                                                          &strided_index_impl,
                                                          &sequential_impl,
                                                          &first_add_impl,
                                                          &warp_volatile_impl,
                                                          &warp_syncwarp_impl,
                                                          &complete_unroll_impl,
                                                          &brent_impl,
                                                          &cascade_impl,
                                                          &shuffle_impl,
                                                          &atomic_warp_impl,
                                                          &atomic_block_impl,
                                                          &single_pass_impl,
                                                          &cub_impl,
                                                          NULL};
