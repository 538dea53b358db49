/* The cuda backend's transpose rungs, one file each, included here in ladder
 * order (the number in a file's name is the rung's place in `warplab ladders
 * transpose`), and the table of their impl rows that the backend reads. One
 * translation unit: most rungs are instances of transpose_rungs.cuh's kernel
 * templates, which nvcc would otherwise parse once per rung. */
#include "transpose_rungs.cuh"

#include "03_copy.cu"
#include "04_copy_shared.cu"
#include "05_copy_strided.cu"
#include "06_naive.cu"
#include "07_naive_mirror.cu"
#include "08_tiled.cu"
#include "09_padded.cu"
#include "10_diagonal.cu"
#include "11_vectorized.cu"
#include "12_vectorized_strip.cu"
#include "13_vectorized_out.cu"
#include "14_vectorized_grouped.cu"
#include "15_grouped_strip.cu"
#include "16_persistent.cu"
#include "18_cublas.cu"

extern "C" const wl_impl *const wl_cuda_transpose_impls[] = {
    &copy_impl,           &copy_shared_impl,
    &copy_strided_impl,   &naive_impl,
    &naive_mirror_impl,   &tiled_impl,
    &padded_impl,         &diagonal_impl,
    &vectorized_impl,     &vectorized_strip_impl,
    &vectorized_out_impl, &vectorized_grouped_impl,
    &grouped_strip_impl,  &persistent_impl,
    &cublas_impl,         NULL};
