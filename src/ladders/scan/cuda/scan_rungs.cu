/* The cuda backend's scan rungs, one file each, included here in ladder
 * order (the number in a file's name is the rung's place in `warplab
 * ladders scan`; rung 1, the CPU loop, is the cpu backend's), and the table
 * of their impl rows that the backend reads. One translation unit: the
 * rungs share scan_rungs.cuh's templates and CUB's headers. */
#include "scan_rungs.cuh"

#include "02_hillis_steele.cu"
#include "03_blelloch.cu"
#include "04_conflict_free.cu"
#include "05_warp_shuffle.cu"
#include "06_scan_then_propagate.cu"
#include "07_reduce_then_scan.cu"
#include "08_chained.cu"
#include "09_lookback.cu"
#include "10_vectorized.cu"
#include "11_bulk_pipeline.cu"
#include "13_cub.cu"
#include "14_copy.cu"

extern "C" const wl_impl *const wl_cuda_scan_impls[] = {&hillis_steele_impl,
                                                        &blelloch_impl,
                                                        &conflict_free_impl,
                                                        &warp_shuffle_impl,
                                                        &scan_then_propagate_impl,
                                                        &reduce_then_scan_impl,
                                                        &chained_impl,
                                                        &lookback_impl,
                                                        &vectorized_impl,
                                                        &bulk_pipeline_impl,
                                                        &cub_impl,
                                                        &copy_impl,
                                                        NULL};
