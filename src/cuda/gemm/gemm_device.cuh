/* Device-side pieces every CUDA gemm kernel shares: the parameters, the
 * epilogue, bounds-checked loads, and thin wrappers over the PTX the
 * pipelined kernels use (cp.async).
 *
 * The kernel headers (*.cuh) compile with nvcc, and with a host C++ compiler
 * under tests/emulate/cuda_emulate.h (WL_EMULATE), which runs a block's
 * threads as fibers on the CPU: the wrappers below then copy synchronously. That
 * lets the test suite run the CUDA kernels' index logic without a GPU. */
#ifndef WARPLAB_GEMM_DEVICE_CUH
#define WARPLAB_GEMM_DEVICE_CUH

#include <stddef.h>
#include <stdint.h>

#ifndef WL_EMULATE
#include <cuda_runtime.h>
#endif

#include "../../kernels/cuda/dependent_launch.cuh"

/* Threads a block of the tail split's reduction (gemm_tail_reduce) is
 * launched with. */
#define SPLITK_REDUCE_THREADS 256

/* Dynamic shared memory, 16-byte aligned, as an array of T. */
#ifndef WL_EMULATE
#define WL_DYNAMIC_SMEM(T, name) extern __shared__ __align__(16) T name[]
#endif

/* cp.async and the tensor-core instructions exist from sm_80. The library
 * also carries compute_75 PTX; there these kernels are empty and their
 * launchers refuse devices below 8.0 before launching. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#define WL_SM80_BODY 0
#else
#define WL_SM80_BODY 1
#endif

/* What every gemm kernel takes: C = alpha*A*B + beta*C, row-major, with
 * row strides; pointers are the views' first elements. */
struct gemm_params {
    const float *a;
    const float *b;
    float *c;
    int m, n, k;
    int lda, ldb, ldc;
    float alpha, beta;
};

/* C = alpha*sum + beta*C; with beta = 0, C is never read (BLAS semantics:
 * it may hold NaN). */
__device__ __forceinline__ float gemm_epilogue(float sum, const float *c, float alpha, float beta)
{
    return beta == 0.0f ? alpha * sum : alpha * sum + beta * *c;
}

__device__ __forceinline__ float load_or_zero(const float *x, int ld, int rows, int cols, int row,
                                              int col)
{
    return row < rows && col < cols ? x[(size_t)row * ld + col] : 0.0f;
}

/* Four consecutive elements of a row (col a multiple of 4), 0 outside the
 * matrix: one 16-byte load when the rows are 16-byte aligned (ALIGNED: base
 * and stride) and all four are inside, else element by element. */
template <bool ALIGNED>
__device__ __forceinline__ float4 load4_or_zero(const float *x, int ld, int rows, int cols, int row,
                                                int col)
{
    float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (row >= rows)
        return v;
    const float *p = x + (size_t)row * ld + col;
    if (ALIGNED && col + 3 < cols)
        return *reinterpret_cast<const float4 *>(p);
    if (col < cols)
        v.x = p[0];
    if (col + 1 < cols)
        v.y = p[1];
    if (col + 2 < cols)
        v.z = p[2];
    if (col + 3 < cols)
        v.w = p[3];
    return v;
}

/* Block b of a 1-D grid (or step b of a persistent block's walk) -> the
 * tile (tile_m, tile_n) of C it computes: tiles in bands of group_m tile
 * rows, column by column inside a band, so that blocks running together
 * share B's columns and A's rows in L2 (group_m 0: row by row). */
__host__ __device__ __forceinline__ void gemm_tile_of_block(int block, int tiles_m, int tiles_n,
                                                            int group_m, int *tile_m, int *tile_n)
{
    if (group_m == 0) {
        *tile_m = block / tiles_n;
        *tile_n = block % tiles_n;
        return;
    }
    const int band = block / (group_m * tiles_n);
    const int first = band * group_m;
    const int rows = tiles_m - first < group_m ? tiles_m - first : group_m;
    const int within = block - band * group_m * tiles_n;
    *tile_m = first + within % rows;
    *tile_n = within / rows;
}

#ifndef WL_EMULATE
/* Round to TF32, nearest with ties away (the low 13 bits become 0). */
__device__ __forceinline__ unsigned to_tf32(float x)
{
    unsigned out = 0;
#if WL_SM80_BODY
    asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(out) : "f"(x));
#endif
    return out;
}
#endif

/* ------------------------------------------------------------------------ */
/* Split-K sums, launched as dependents (sm_90's programmatic launch).      */

/* A split-K product is two launches: the split kernel writes partial sums,
 * a sum kernel adds them. Launched plainly, the sum kernel starts only after
 * the split kernel has drained and its launch has been processed: 2-4 us of
 * an idle GPU, as long as a GEMV's whole sum. Launched as a dependent
 * (wl_pdl_launch, src/kernels/cuda/dependent_launch.cuh), its blocks are
 * placed while the split kernel runs, once every block of that kernel has
 * called wl_pdl_release, and wait in wl_pdl_wait until it has finished and
 * its writes are visible. Before sm_90, under the emulator, and for a kernel
 * launched plainly, both are no-ops. */

/* part[0 * stride + e] + part[1 * stride + e] + ..., added in split order
 * (the same bits as a plain loop). The sum is a chain of round trips to
 * the L2, where the partial sums are: a plain loop, unrolled 4 ways by the
 * compiler, keeps 4 loads in flight; loads written 8 at a time before
 * their adds keep 8 (SASS of ex16_finish). Batches of 32 compiled to the
 * same 8 in flight (nvcc places the adds among the loads, and issue is in
 * order) and measured the same: BF16 1x4096x4096 20.4 us with 8, 20.6 with
 * 32 (H100). */
__device__ __forceinline__ float wl_split_sum(const float *part, int splits, size_t stride,
                                              size_t e)
{
    float sum = 0.0f;
    int s = 0;
    for (; s + 8 <= splits; s += 8) {
        float v[8];
#pragma unroll
        for (int i = 0; i < 8; i++)
            v[i] = part[(size_t)(s + i) * stride + e];
#pragma unroll
        for (int i = 0; i < 8; i++)
            sum += v[i];
    }
    for (; s < splits; s++)
        sum += part[(size_t)s * stride + e];
    return sum;
}

/* ------------------------------------------------------------------------ */
/* cp.async (sm_80+): global -> shared copies that bypass registers.        */

#ifndef WL_EMULATE
/* 4 bytes, or 4 zero bytes when !valid (src is then not read). */
__device__ __forceinline__ void cp_async_4(float *dst, const float *src, bool valid)
{
#if WL_SM80_BODY
    const unsigned address = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(address), "l"(src),
                 "r"(valid ? 4 : 0));
#else
    *dst = valid ? *src : 0.0f;
#endif
}

/* 16 bytes (dst and src 16-byte aligned), of which the first src_bytes are
 * read and the rest zero-filled. */
__device__ __forceinline__ void cp_async_16(float *dst, const float *src, int src_bytes)
{
#if WL_SM80_BODY
    const unsigned address = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(address), "l"(src),
                 "r"(src_bytes));
#else
    for (int i = 0; i < 4; i++)
        dst[i] = 4 * i < src_bytes ? src[i] : 0.0f;
#endif
}

__device__ __forceinline__ void cp_async_commit()
{
#if WL_SM80_BODY
    asm volatile("cp.async.commit_group;\n" ::);
#endif
}

/* Waits until at most PENDING of this thread's groups are in flight. */
template <int PENDING> __device__ __forceinline__ void cp_async_wait()
{
#if WL_SM80_BODY
    asm volatile("cp.async.wait_group %0;\n" ::"n"(PENDING));
#endif
}
#endif /* !WL_EMULATE */

/* 16 bytes of shared memory at dst (16-byte aligned) from the first `valid`
 * (0..4) of the 4 floats at src, the rest zero. One 16-byte cp.async only
 * when all four are inside the matrix (src then 16-byte aligned); at an edge,
 * 4-byte copies of the valid floats and zeros for the others. A 16-byte copy
 * whose window leaves the buffer is never issued, not even a partial one
 * (cp.async's src-size still names a 16-byte window, and an exact-size
 * allocation ends inside it: compute-sanitizer reports it, and a buffer that
 * ends at a page boundary would fault). src must point inside the matrix
 * when valid > 0; it is not read when valid == 0. */
__device__ __forceinline__ void cp_async_16_edge(float *dst, const float *src, int valid)
{
    if (valid >= 4) {
        cp_async_16(dst, src, 16);
        return;
    }
#pragma unroll
    for (int i = 0; i < 4; i++) {
        if (i < valid)
            cp_async_4(dst + i, src + i, true);
        else
            dst[i] = 0.0f; /* a plain store: ordered by the same barrier as the copies */
    }
}

#endif
