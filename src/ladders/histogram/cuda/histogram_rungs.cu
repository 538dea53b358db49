/* The cuda backend's histogram rungs, one file each, included here in
 * ladder order (the number in a file's name is the rung's place in `warplab
 * ladders histogram`; 01, the CPU loop, is the cpu backend's), and the table
 * of their impl rows that the backend reads. One translation unit: the rungs
 * share histogram_rungs.cuh's kernel template and CUB's headers. */
#include "histogram_rungs.cuh"

#include "02_global_atomics.cu"
#include "03_block_shared.cu"
#include "04_warp_shared.cu"
#include "05_vector_loads.cu"
#include "06_run_aggregate.cu"
#include "07_dispatch.cu"
#include "08_cub.cu"

extern "C" const wl_impl *const wl_cuda_histogram_impls[] = {
    &global_atomics_impl, &block_shared_impl, &warp_shared_impl, &vector_loads_impl,
    &run_aggregate_impl,  &dispatch_impl,     &cub_impl,         NULL};
