/* The course's matrix-multiply kernels (seeds 000 and 002), with row
 * strides, alpha and beta. One output element per thread throughout. */
#ifndef WARPLAB_GEMM_COURSE_KERNELS_CUH
#define WARPLAB_GEMM_COURSE_KERNELS_CUH

#include "gemm_device.cuh"

/* warplab:rung gemm one_block */
/* Rung one_block: seed 002's MatrixMulKernel in one block. The CPU's two
 * outer loops become threadIdx.y (row) and threadIdx.x (column); each
 * thread walks a row of A and a column of B in global memory. The block is
 * exactly n x m threads, so C is limited by the block size. */
__global__ void gemm_one_block(gemm_params p)
{
    const int row = threadIdx.y, col = threadIdx.x;
    if (row >= p.m || col >= p.n)
        return;
    float sum = 0.0f;
    for (int q = 0; q < p.k; q++)
        sum += p.a[(size_t)row * p.lda + q] * p.b[(size_t)q * p.ldb + col];
    float *c = p.c + (size_t)row * p.ldc + col;
    *c = gemm_epilogue(sum, c, p.alpha, p.beta);
}
/* warplab:end */

/* warplab:rung gemm many_blocks */
/* Rung many_blocks: the same thread, placed by blockIdx too (seed 002's
 * "Pd tile per block"), 16 x 16 threads a block. Any size; the bounds check
 * (the course's "if it does not divide, pad with zeros") guards the edges.
 * Every multiply-add still loads two floats from global memory. */
#define MANY_BLOCKS_TILE 16
__global__ void __launch_bounds__(MANY_BLOCKS_TILE *MANY_BLOCKS_TILE)
    gemm_many_blocks(gemm_params p)
{
    const int row = blockIdx.y * MANY_BLOCKS_TILE + threadIdx.y;
    const int col = blockIdx.x * MANY_BLOCKS_TILE + threadIdx.x;
    if (row >= p.m || col >= p.n)
        return;
    float sum = 0.0f;
    for (int q = 0; q < p.k; q++)
        sum += p.a[(size_t)row * p.lda + q] * p.b[(size_t)q * p.ldb + col];
    float *c = p.c + (size_t)row * p.ldc + col;
    *c = gemm_epilogue(sum, c, p.alpha, p.beta);
}
/* warplab:end */

/* warplab:rung gemm tiled16 tiled32 */
/* Rungs tiled16 / tiled32: lecture 2.6's kernel. Phase t loads one TILE x
 * TILE tile of A and of B into shared memory (one element per thread), and
 * each thread reuses the tiles TILE times: global loads / TILE. m, n and k
 * must be multiples of TILE (no boundary checks, as in the course). */
template <int TILE> __global__ void __launch_bounds__(TILE *TILE) gemm_tiled(gemm_params p)
{
    __shared__ float ds_a[TILE][TILE];
    __shared__ float ds_b[TILE][TILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float sum = 0.0f;
    for (int t = 0; t < p.k / TILE; t++) {
        ds_a[ty][tx] = p.a[(size_t)row * p.lda + t * TILE + tx];
        ds_b[ty][tx] = p.b[(size_t)(t * TILE + ty) * p.ldb + col];
        __syncthreads();
#pragma unroll
        for (int i = 0; i < TILE; i++)
            sum += ds_a[ty][i] * ds_b[i][tx];
        __syncthreads();
    }
    float *c = p.c + (size_t)row * p.ldc + col;
    *c = gemm_epilogue(sum, c, p.alpha, p.beta);
}
/* warplab:end */

/* warplab:rung gemm tiled_bounds */
/* Rung tiled_bounds: lecture 2.8's kernel for arbitrary sizes, TILE_WIDTH
 * 32. Elements outside A or B load as 0 (which adds nothing), every thread
 * helps load even when its own C element is outside, and only elements
 * inside C are written. */
#define BOUNDS_TILE 32
__global__ void __launch_bounds__(BOUNDS_TILE *BOUNDS_TILE) gemm_tiled_bounds(gemm_params p)
{
    __shared__ float ds_a[BOUNDS_TILE][BOUNDS_TILE];
    __shared__ float ds_b[BOUNDS_TILE][BOUNDS_TILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * BOUNDS_TILE + ty, col = blockIdx.x * BOUNDS_TILE + tx;
    float sum = 0.0f;
    for (int t = 0; t < (p.k + BOUNDS_TILE - 1) / BOUNDS_TILE; t++) {
        ds_a[ty][tx] = load_or_zero(p.a, p.lda, p.m, p.k, row, t * BOUNDS_TILE + tx);
        ds_b[ty][tx] = load_or_zero(p.b, p.ldb, p.k, p.n, t * BOUNDS_TILE + ty, col);
        __syncthreads();
#pragma unroll
        for (int i = 0; i < BOUNDS_TILE; i++)
            sum += ds_a[ty][i] * ds_b[i][tx];
        __syncthreads();
    }
    if (row < p.m && col < p.n) {
        float *c = p.c + (size_t)row * p.ldc + col;
        *c = gemm_epilogue(sum, c, p.alpha, p.beta);
    }
}
/* warplab:end */

#endif
