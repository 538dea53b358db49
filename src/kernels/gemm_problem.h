/* The matrix multiply as the kernels read it, on every backend (C and
 * CUDA): the problem's layout, the contract's variant bits, the 16-bit
 * storage types, the backends' library entries and the planner's view of a
 * problem. The library's GEMM calls (src/ops/gemm.c) and the GEMM ladder
 * (src/ladders/gemm.c) read it from above.
 *
 * C = alpha * op(A) * op(B) + beta * C, row-major:
 *   A is m x k (op N; k x m stored for op T) with row stride lda, B is k x n
 *   (op N; n x k for op T) with ldb, C is m x n with ldc >= n; strides in
 *   elements (problem.ld[], 0 = tight). problem.dim[] = {m, n, k};
 *   problem.dtype is the type of A and B (warplab_gemm: float, N, N). With
 *   beta = 0, C is only written (BLAS semantics: it may hold anything, NaN
 *   included, and is never read). */
#ifndef WARPLAB_KERNELS_GEMM_PROBLEM_H
#define WARPLAB_KERNELS_GEMM_PROBLEM_H

#include "internal.h"
#include "kernels/gemm_dispatch.h"
#include "kernels/gemm_plan.h"

#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { GEMM_A = 0, GEMM_B, GEMM_C, GEMM_BUFFERS };

static inline size_t wl_gemm_m(const wl_problem *p)
{
    return p->dim[0];
}
static inline size_t wl_gemm_n(const wl_problem *p)
{
    return p->dim[1];
}
static inline size_t wl_gemm_k(const wl_problem *p)
{
    return p->dim[2];
}
/* warplab_gemm_ex's problems: bits of problem.variant (0: warplab_gemm's
 * row-major N, N float problem). problem.dtype is the type of A and B. */
enum {
    WL_GEMM_TRANS_A = 1,      /* A stored k x m (lda >= m): op(A) = A^T */
    WL_GEMM_TRANS_B = 2,      /* B stored n x k (ldb >= k): op(B) = B^T */
    WL_GEMM_COMPUTE_TF32 = 4, /* TF32 tensor-core products (float inputs) */
    WL_GEMM_C_INPUT_TYPE = 8  /* C has the input type (problem.dtype), not float */
};
/* The ladder's ex16_* rows (16-bit inputs, cuda): one path of gemm_ex,
 * forced instead of chosen by the cost model (ex16.h). */
enum {
    WL_GEMM_EX16_FORCE_MMA = 32,    /* mma.sync tiles on the operands as stored */
    WL_GEMM_EX16_FORCE_TMA = 64,    /* TMA + wgmma on K-major operands (copies) */
    WL_GEMM_EX16_FORCE_WGMMA = 128, /* TMA + wgmma on the operands as stored, split k */
    WL_GEMM_EX16_FORCE_THIN = 256,  /* mma.sync from registers, m or n <= 64, split k */
    WL_GEMM_EX16_FORCE = WL_GEMM_EX16_FORCE_MMA | WL_GEMM_EX16_FORCE_TMA |
                         WL_GEMM_EX16_FORCE_WGMMA | WL_GEMM_EX16_FORCE_THIN
};

static inline bool wl_gemm_trans_a(const wl_problem *p)
{
    return (p->variant & WL_GEMM_TRANS_A) != 0;
}
static inline bool wl_gemm_trans_b(const wl_problem *p)
{
    return (p->variant & WL_GEMM_TRANS_B) != 0;
}
/* Rows and columns of A and B as stored. */
static inline size_t wl_gemm_a_rows(const wl_problem *p)
{
    return wl_gemm_trans_a(p) ? p->dim[2] : p->dim[0];
}
static inline size_t wl_gemm_a_cols(const wl_problem *p)
{
    return wl_gemm_trans_a(p) ? p->dim[0] : p->dim[2];
}
static inline size_t wl_gemm_b_rows(const wl_problem *p)
{
    return wl_gemm_trans_b(p) ? p->dim[1] : p->dim[2];
}
static inline size_t wl_gemm_b_cols(const wl_problem *p)
{
    return wl_gemm_trans_b(p) ? p->dim[2] : p->dim[1];
}
static inline size_t wl_gemm_lda(const wl_problem *p)
{
    return p->ld[0] ? p->ld[0] : wl_gemm_a_cols(p);
}
static inline size_t wl_gemm_ldb(const wl_problem *p)
{
    return p->ld[1] ? p->ld[1] : wl_gemm_b_cols(p);
}
static inline size_t wl_gemm_ldc(const wl_problem *p)
{
    return p->ld[2] ? p->ld[2] : p->dim[1];
}

/* Elements a view of a rows x cols matrix with row stride ld spans: the last
 * row ends at its last column (no padding after it). */
static inline size_t wl_gemm_span(size_t rows, size_t cols, size_t ld)
{
    return rows == 0 || cols == 0 ? 0 : (rows - 1) * ld + cols;
}

/* Whether rows x cols is below 2^31 (the kernels' int indices): a matrix's
 * rows times its row stride, or a problem's sides. */
static inline bool wl_gemm_fits_int32(size_t rows, size_t cols)
{
    return rows == 0 || cols == 0 || ((double)rows * (double)cols < 2147483648.0);
}

/* A float's bits and back (memcpy: no aliasing of the two types). */
static inline uint32_t wl_float_bits(float x)
{
    uint32_t bits;
    memcpy(&bits, &x, sizeof bits);
    return bits;
}
static inline float wl_bits_float(uint32_t bits)
{
    float x;
    memcpy(&x, &bits, sizeof x);
    return x;
}

/* Rows of `cols` elements rounded up to whole 128-byte lines: each of the
 * copy engine's 128-byte box rows is then one line of L2. */
static inline size_t wl_gemm_line_elements(size_t cols, size_t element_bytes)
{
    const size_t per_line = 128 / element_bytes;
    return (cols + per_line - 1) / per_line * per_line;
}

/* How rows of row_bytes starting start_bytes into a line sit on L2's
 * 128-byte lines: 128 (every row starts a line), 64 or 32 (every row starts
 * on that boundary), or 16 (less: rows cross 32-byte sectors). The line
 * costs of the tensor-core models (gemm_tiles_tf32.c, gemm_tiles16.c) are priced by
 * it. */
static inline int wl_gemm_row_phase(size_t row_bytes, size_t start_bytes)
{
    const size_t both = row_bytes | start_bytes;
    return both % 128 == 0 ? 128 : both % 64 == 0 ? 64 : both % 32 == 0 ? 32 : 16;
}

/* The SM count and theoretical bandwidth (GB/s) the tensor-core tile
 * models (gemm_tiles16.c, gemm_tiles_tf32.c) and the CUDA launches that
 * size their grids by them price a device at: its own, or 132 SMs (an H100
 * SXM) and 3000 GB/s where the device does not report them. */
static inline int wl_gemm_model_sms(const warplab_device_info *device)
{
    return device->multiprocessors > 0 ? device->multiprocessors : 132;
}

static inline double wl_gemm_model_bandwidth_gbs(const warplab_device_info *device)
{
    return device->theoretical_bandwidth_gbs > 0 ? device->theoretical_bandwidth_gbs : 3000.0;
}

/* A deterministic split of k (k > 0) into *splits chunks of *k_chunk: the
 * `wanted` splits, at most `most` (the kernel's own limits), and within the
 * grid's 1 .. 65535; the chunk rounded up to a multiple of `step`, and the
 * count of chunks that k then needs. */
static inline void wl_gemm_split_k(long long k, long long wanted, long long most, long long step,
                                   int *k_chunk, int *splits)
{
    long long count = wanted < most ? wanted : most;
    if (count > 65535)
        count = 65535;
    if (count < 1)
        count = 1;
    const long long chunk = ((k + count - 1) / count + step - 1) / step * step;
    *k_chunk = (int)chunk;
    *splits = (int)((k + chunk - 1) / chunk);
}

/* The 16-bit storage types, on the host: conversions to and from float,
 * rounding to nearest even (NaN stays NaN, FP16 overflows to infinity). */
uint16_t wl_float_to_bf16(float x);
float wl_bf16_to_float(uint16_t h);
uint16_t wl_float_to_fp16(float x);
float wl_fp16_to_float(uint16_t h);

/* ------------------------------------------------------------------------ */
/* The library's GEMM entries on a backend                                  */

/* warplab_gemm_ex's path is the impl {"gemm", WL_GEMM_EX_IMPL} of each
 * backend: it runs a problem with the WL_GEMM_* variant bits on views of A,
 * B and C in their own types (problem.dtype for A and B). */
#define WL_GEMM_EX_IMPL "ex"
/* ... and warplab_gemm_batched_ex's batched row is {"gemm", WL_GEMM_BATCHED_IMPL}
 * (src/ops/gemm_batched.c). Neither is a rung. */
#define WL_GEMM_BATCHED_IMPL "batched"

/* The planner's descriptor (gemm_plan.h) of a gemm_ex problem on views
 * starting at a, b and c (NULL: the problem's misalignment from an aligned
 * base), and the planner's target for the backend's device, with the
 * backend's facts (on cuda: wl_gemm_cuda_target_facts): one target a
 * device, whichever layer plans (warplab_gemm_ex's entry, the cuda
 * launches, the grid), so that a descriptor has one entry in the plan
 * cache. */
wl_gemm_desc wl_gemm_desc_of(const wl_problem *p, const void *a, const void *b, const void *c);
wl_gemm_target wl_gemm_target_for(const wl_backend *backend);
#ifdef WARPLAB_HAVE_CUDA
/* The cuda backend's facts the tile models read (src/cuda/gemm/gemm_ex.cu):
 * tma, the TMA + wgmma path runs; fp32_dispatcher, the FP32 dispatcher
 * takes FP32 N, N problems. */
void wl_gemm_cuda_target_facts(const wl_backend *backend, wl_gemm_target *target);
#endif

/* The GEMM ladder's rungs that run exactly warplab_gemm_ex's path on a float
 * problem (the inputs converted to the rung's 16-bit type in setup,
 * untimed), backend independent (src/ladders/gemm_ex.c), listed in the
 * backends' impl tables; and cuBLAS's rows with the same contract
 * (cuda/gemm/cublas.cu). */
extern const wl_impl wl_gemm_ex_tf32_impl;
extern const wl_impl wl_gemm_ex_bf16_impl;
/* The ex16_* rows (cuda only): gemm_ex's 16-bit paths, one forced. */
extern const wl_impl wl_gemm_ex16_mma_impl;
extern const wl_impl wl_gemm_ex16_tma_impl;
extern const wl_impl wl_gemm_ex16_wgmma_impl;
extern const wl_impl wl_gemm_ex16_thin_impl;
extern const wl_impl wl_gemm_ex_tf32_wgmma_impl;
extern const wl_impl wl_gemm_ex_fp16_impl;
/* 16-bit copies of a float problem's A and B (as stored) in device memory,
 * each starting problem.misalign elements into its buffer: what the ex_*
 * rungs and the vendor rows of the same contract multiply; NULL pointers
 * for TF32 (the float views as they are). Freed with
 * wl_gemm_ex_inputs_free. */
typedef struct wl_gemm_ex_inputs {
    void *a, *b;        /* backend buffers (NULL: use the float views) */
    warplab_dtype type; /* of a and b */
} wl_gemm_ex_inputs;
warplab_status wl_gemm_ex_inputs_make(wl_backend *backend, const wl_launch *launch,
                                      warplab_dtype type, wl_gemm_ex_inputs *inputs);
void wl_gemm_ex_inputs_free(wl_backend *backend, wl_gemm_ex_inputs *inputs);

#ifdef __cplusplus
}
#endif

#endif
