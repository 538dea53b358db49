/* The cuda backend's reduction rungs, one file each, included here in ladder
 * order (the number in a file's name is the rung's place in `warplab ladders
 * reduce`), and the table of their impl rows that the backend reads. One
 * translation unit: the rungs share reduce_rungs.cuh's templates and CUB's
 * headers, which nvcc would otherwise parse and instantiate once per rung. */
#include "reduce_rungs.cuh"

#include "03_naive.cu"
#include "04_interleaved.cu"
#include "05_interleaved_128.cu"
#include "06_strided_index.cu"
#include "07_strided_index_128.cu"
#include "08_sequential.cu"
#include "09_sequential_128.cu"
#include "10_first_add.cu"
#include "11_first_add_128.cu"
#include "12_warp_volatile.cu"
#include "13_warp_volatile_128.cu"
#include "14_warp_syncwarp.cu"
#include "15_complete_unroll.cu"
#include "16_complete_unroll_128.cu"
#include "17_brent.cu"
#include "18_brent_128.cu"
#include "19_cascade.cu"
#include "20_shuffle.cu"
#include "21_atomic_warp.cu"
#include "22_atomic_block.cu"
#include "23_single_pass.cu"
#include "25_cub.cu"

extern "C" const wl_impl *const wl_cuda_reduce_impls[] = {&naive_impl,
                                                          &interleaved_impl,
                                                          &interleaved_128_impl,
                                                          &strided_index_impl,
                                                          &strided_index_128_impl,
                                                          &sequential_impl,
                                                          &sequential_128_impl,
                                                          &first_add_impl,
                                                          &first_add_128_impl,
                                                          &warp_volatile_impl,
                                                          &warp_volatile_128_impl,
                                                          &warp_syncwarp_impl,
                                                          &complete_unroll_impl,
                                                          &complete_unroll_128_impl,
                                                          &brent_impl,
                                                          &brent_128_impl,
                                                          &cascade_impl,
                                                          &shuffle_impl,
                                                          &atomic_warp_impl,
                                                          &atomic_block_impl,
                                                          &single_pass_impl,
                                                          &cub_impl,
                                                          NULL};
