/* The cuda backend's transpose rungs (seed 003), in ladder order, for float
 * and double (one template per kernel shape, instantiated per rung).
 *
 * Every kernel is correct for any rows x cols (0 launches nothing), any
 * pitch and misaligned views: indices are size_t, every access outside the
 * 16-byte fast paths is bounds-checked, and the pitch padding is never
 * written. Grids larger than the device's y limit loop over the remaining
 * rows of tiles. */
#include "../ladders/transpose_layout.h"
#include "cuda_backend.h"

#include <climits>
#include <cstdint>
#include <cublas_v2.h>

namespace
{

/* The course's shape: a 32x32 tile per block, 32x8 threads, each thread
 * moving TILE / BLOCK_ROWS = 4 elements of a tile column. */
constexpr int TILE = 32;
constexpr int BLOCK_ROWS = 8;

/* ------------------------------------------------------------------------ */
/* One element per thread and step: naive, naive_mirror, copy_strided       */

/* ALONG_ROWS: neighbouring threads take neighbouring rows (one column) of
 * the input instead of neighbouring columns (one row). TRANSPOSE: write
 * out[c][r] (pitch ld_out) instead of the copy's out[r][c] (pitch cols).
 * tiles_slow: tiles along the dimension threadIdx.y walks. */
template <typename T, bool ALONG_ROWS, bool TRANSPOSE>
__global__ void __launch_bounds__(TILE *BLOCK_ROWS)
    move_elements(const T *__restrict__ in, T *__restrict__ out, wl_transpose_layout m,
                  size_t tiles_slow)
{
    const size_t fast = (size_t)blockIdx.x * TILE + threadIdx.x;
    for (size_t tile = blockIdx.y; tile < tiles_slow; tile += gridDim.y)
        for (int k = 0; k < TILE; k += BLOCK_ROWS) {
            const size_t slow = tile * TILE + threadIdx.y + k;
            const size_t r = ALONG_ROWS ? fast : slow, c = ALONG_ROWS ? slow : fast;
            if (r < m.rows && c < m.cols) {
                const T v = in[r * m.ld_in + c];
                if (TRANSPOSE)
                    out[c * m.ld_out + r] = v;
                else
                    out[r * m.cols + c] = v;
            }
        }
}

/* ------------------------------------------------------------------------ */
/* A 32x32 tile through shared memory: copy_shared, tiled, padded, diagonal */

/* The tile is read row by row (coalesced) and written row by row from its
 * columns (TRANSPOSE) or its rows (the copy through shared memory). PAD = 1
 * shifts each tile row by one bank, so a tile column spans all 32 banks.
 * DIAGONAL renumbers the blocks so that blocks running together take tiles
 * along a diagonal of the tile grid (a bijection for any tiles_x x tiles_y:
 * the tile column is offset by the tile row, modulo tiles_x). */
template <typename T, int PAD, bool DIAGONAL, bool TRANSPOSE>
__global__ void __launch_bounds__(TILE *BLOCK_ROWS)
    move_tiles(const T *__restrict__ in, T *__restrict__ out, wl_transpose_layout m, size_t tiles_x,
               size_t tiles_y)
{
    __shared__ T tile[TILE][TILE + PAD];
    const unsigned tx = threadIdx.x, ty = threadIdx.y;
    for (size_t row_of_tiles = blockIdx.y; row_of_tiles < tiles_y; row_of_tiles += gridDim.y) {
        size_t bx = blockIdx.x, by = row_of_tiles;
        if (DIAGONAL) {
            const size_t linear = bx + tiles_x * by;
            by = linear % tiles_y;
            bx = (linear / tiles_y + by) % tiles_x;
        }
        const size_t c = bx * TILE + tx;
        for (int k = 0; k < TILE; k += BLOCK_ROWS) {
            const size_t r = by * TILE + ty + k;
            if (r < m.rows && c < m.cols)
                tile[ty + k][tx] = in[r * m.ld_in + c];
        }
        __syncthreads();
        for (int k = 0; k < TILE; k += BLOCK_ROWS) {
            if (TRANSPOSE) {
                /* Output row = input column bx*32 + ty + k; output column =
                 * input row by*32 + tx: tile[tx][ty + k] was written above
                 * exactly when both are in range. */
                const size_t out_row = bx * TILE + ty + k, out_col = by * TILE + tx;
                if (out_row < m.cols && out_col < m.rows)
                    out[out_row * m.ld_out + out_col] = tile[tx][ty + k];
            } else {
                const size_t r = by * TILE + ty + k;
                if (r < m.rows && c < m.cols)
                    out[r * m.cols + c] = tile[ty + k][tx];
            }
        }
        __syncthreads(); /* the next tile must not overwrite this one early */
    }
}

/* ------------------------------------------------------------------------ */
/* 16-byte accesses                                                          */

/* 16 bytes of T: a float4, or a double2. */
template <typename T> struct vector16;
template <> struct vector16<float> {
    using type = float4;
};
template <> struct vector16<double> {
    using type = double2;
};

/* Four consecutive elements at a 16-byte-aligned address, moved with 16-byte
 * loads and stores (one float4, or two double2), written in PTX:
 * - a plain float4 store of values gathered from four different loads was
 *   split into four 4-byte stores by the compiler (seen in the PTX);
 * - loads through the read-only path (ld.global.nc, what const __restrict__
 *   gives) may be scheduled after later stores, and ptxas did so, issuing
 *   the strip rung's loads in fours between its stores; ordinary loads and
 *   stores to pointers that may alias keep their order, so every load of a
 *   thread is in flight before its first store.
 * The "memory" clobbers keep the compiler from reordering them either. */
__device__ __forceinline__ void load4(const float *p, float (&v)[4])
{
    asm volatile("ld.global.v4.f32 {%0, %1, %2, %3}, [%4];"
                 : "=f"(v[0]), "=f"(v[1]), "=f"(v[2]), "=f"(v[3])
                 : "l"(p)
                 : "memory");
}
__device__ __forceinline__ void store4(float *p, const float (&v)[4])
{
    asm volatile("st.global.v4.f32 [%0], {%1, %2, %3, %4};" ::"l"(p), "f"(v[0]), "f"(v[1]),
                 "f"(v[2]), "f"(v[3])
                 : "memory");
}
__device__ __forceinline__ void load4(const double *p, double (&v)[4])
{
    asm volatile("ld.global.v2.f64 {%0, %1}, [%2];" : "=d"(v[0]), "=d"(v[1]) : "l"(p) : "memory");
    asm volatile("ld.global.v2.f64 {%0, %1}, [%2];"
                 : "=d"(v[2]), "=d"(v[3])
                 : "l"(p + 2)
                 : "memory");
}
__device__ __forceinline__ void store4(double *p, const double (&v)[4])
{
    asm volatile("st.global.v2.f64 [%0], {%1, %2};" ::"l"(p), "d"(v[0]), "d"(v[1]) : "memory");
    asm volatile("st.global.v2.f64 [%0], {%1, %2};" ::"l"(p + 2), "d"(v[2]), "d"(v[3]) : "memory");
}

/* The vectorized rungs' shape: a block of 256 threads takes a 64x64 tile,
 * each thread a 4x4 sub-block of it; the strip rung's block takes STRIP
 * such tiles down a column of tiles. */
constexpr int SUB = 4;
constexpr int VEC_TILE = 64;
constexpr int VEC_THREADS = 256;

/* One 4x4 sub-block at (r0, c0): 16-byte loads and stores when it lies
 * wholly inside the matrix (the caller's grid shift makes it aligned), else
 * element by element with bounds checks. */
template <typename T>
__device__ __forceinline__ void transpose_sub_block(const T *__restrict__ in, T *__restrict__ out,
                                                    const wl_transpose_layout &m, long long r0,
                                                    long long c0)
{
    const long long rows = (long long)m.rows, cols = (long long)m.cols;
    if (r0 >= 0 && c0 >= 0 && r0 + SUB <= rows && c0 + SUB <= cols) {
        T v[SUB][SUB];
#pragma unroll
        for (int k = 0; k < SUB; k++)
            load4(in + (size_t)(r0 + k) * m.ld_in + c0, v[k]);
#pragma unroll
        for (int j = 0; j < SUB; j++) {
            const T column[SUB] = {v[0][j], v[1][j], v[2][j], v[3][j]};
            store4(out + (size_t)(c0 + j) * m.ld_out + r0, column);
        }
        return;
    }
    for (int k = 0; k < SUB; k++)
        for (int j = 0; j < SUB; j++) {
            const long long r = r0 + k, c = c0 + j;
            if (r >= 0 && r < rows && c >= 0 && c < cols)
                out[(size_t)c * m.ld_out + r] = in[(size_t)r * m.ld_in + c];
        }
}

/* Each thread loads its 4x4 sub-block as four 16-byte row pieces, and stores
 * the sub-block's columns as four 16-byte pieces of output rows: the
 * transpose happens in registers (v[k][j] goes out as row j, column k).
 *
 * Lane mapping: a warp covers 8 x 4 sub-blocks (32 input rows x 16 columns),
 * so each load instruction reads 8 rows x 64 contiguous bytes and each store
 * instruction writes 4 rows x 128 contiguous bytes: whole 32-byte sectors on
 * both sides. The 8 warps tile the 64x64 block as 2 x 4.
 *
 * STRIP > 1 (rung vectorized_strip): the block takes STRIP tiles down a
 * column of tiles, and a thread whose STRIP sub-blocks are all inside the
 * matrix issues all their loads before the first store.
 *
 * Alignment: the host guarantees ld_in and ld_out are multiples of the
 * elements per 16 bytes, and shifts the sub-block grid by shift_c columns
 * and shift_r rows so that every full sub-block starts 16-byte aligned on
 * both sides (misaligned views included). Sub-blocks that stick out of the
 * matrix (edges, the shifted first row and column) go element by element. */
template <typename T, int STRIP>
__global__ void __launch_bounds__(VEC_THREADS)
    transpose_vectorized(const T *__restrict__ in, T *__restrict__ out, wl_transpose_layout m,
                         unsigned shift_r, unsigned shift_c, size_t strips_y)
{
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const long long sub_row = (warp / 4) * 8 + lane / 4; /* 0..15 */
    const long long sub_col = (warp % 4) * 4 + lane % 4; /* 0..15 */
    const long long rows = (long long)m.rows, cols = (long long)m.cols;
    const long long c0 = (long long)blockIdx.x * VEC_TILE + SUB * sub_col - shift_c;
    for (size_t strip = blockIdx.y; strip < strips_y; strip += gridDim.y) {
        const long long r0 = (long long)(strip * STRIP) * VEC_TILE + SUB * sub_row - shift_r;
        const long long last_r0 = r0 + (STRIP - 1) * VEC_TILE;
        if (STRIP > 1 && r0 >= 0 && c0 >= 0 && last_r0 + SUB <= rows && c0 + SUB <= cols) {
            T v[STRIP][SUB][SUB];
#pragma unroll
            for (int s = 0; s < STRIP; s++)
#pragma unroll
                for (int k = 0; k < SUB; k++)
                    load4(in + (size_t)(r0 + s * VEC_TILE + k) * m.ld_in + c0, v[s][k]);
#pragma unroll
            for (int s = 0; s < STRIP; s++)
#pragma unroll
                for (int j = 0; j < SUB; j++) {
                    const T column[SUB] = {v[s][0][j], v[s][1][j], v[s][2][j], v[s][3][j]};
                    store4(out + (size_t)(c0 + j) * m.ld_out + r0 + s * VEC_TILE, column);
                }
            continue;
        }
        for (int s = 0; s < STRIP; s++)
            transpose_sub_block(in, out, m, r0 + s * VEC_TILE, c0);
    }
}

/* The copy reference: rows of cols elements from in (pitch ld_in) to out
 * (pitch out_pitch). A block takes COPY_UNROLL x 256 16-byte vectors of a
 * row, all loads issued before the first store. The row's head (until both
 * sides reach a 16-byte boundary) and tail go element by element; a row whose
 * two sides can never be aligned together goes element by element. */
constexpr int COPY_THREADS = 256;
constexpr int COPY_UNROLL = 4;

template <typename T>
__global__ void __launch_bounds__(COPY_THREADS)
    copy_rows(const T *__restrict__ in, T *__restrict__ out, size_t rows, size_t cols, size_t ld_in,
              size_t out_pitch)
{
    using vec = typename vector16<T>::type;
    constexpr unsigned per_vector = sizeof(vec) / sizeof(T);
    const size_t first = (size_t)blockIdx.x * COPY_THREADS * COPY_UNROLL; /* vector or element */
    for (size_t r = blockIdx.y; r < rows; r += gridDim.y) {
        const T *src = in + r * ld_in;
        T *dst = out + r * out_pitch;
        const unsigned phase = (unsigned)((uintptr_t)src / sizeof(T) % per_vector);
        if (phase == (unsigned)((uintptr_t)dst / sizeof(T) % per_vector)) {
            size_t head = (per_vector - phase) % per_vector;
            head = head < cols ? head : cols;
            const size_t vectors = (cols - head) / per_vector;
            const vec *s = reinterpret_cast<const vec *>(src + head);
            vec *d = reinterpret_cast<vec *>(dst + head);
            vec buffer[COPY_UNROLL];
#pragma unroll
            for (int u = 0; u < COPY_UNROLL; u++) {
                const size_t q = first + (size_t)u * COPY_THREADS + threadIdx.x;
                if (q < vectors)
                    buffer[u] = s[q];
            }
#pragma unroll
            for (int u = 0; u < COPY_UNROLL; u++) {
                const size_t q = first + (size_t)u * COPY_THREADS + threadIdx.x;
                if (q < vectors)
                    d[q] = buffer[u];
            }
            const size_t tail = head + vectors * per_vector; /* cols - tail < per_vector */
            if (blockIdx.x == 0 && threadIdx.x < head)
                dst[threadIdx.x] = src[threadIdx.x];
            if (blockIdx.x == 0 && threadIdx.x < cols - tail)
                dst[tail + threadIdx.x] = src[tail + threadIdx.x];
        } else {
            for (unsigned u = 0; u < COPY_UNROLL * per_vector; u++) {
                const size_t e = first * per_vector + (size_t)u * COPY_THREADS + threadIdx.x;
                if (e < cols)
                    dst[e] = src[e];
            }
        }
    }
}

/* ------------------------------------------------------------------------ */
/* Launchers                                                                */

/* A grid of tiles_x x tiles_y blocks; the y dimension is capped at the
 * device's limit and the kernels loop over the rest. */
warplab_status tile_grid(wl_backend *backend, size_t tiles_x, size_t tiles_y, dim3 *grid)
{
    const warplab_device_info *info = &backend->info;
    if (tiles_x > (size_t)info->max_grid_dim[0])
        return wl_fail(backend, WARPLAB_ERROR_UNSUPPORTED,
                       "transpose needs %zu blocks along x, past the grid limit of %d", tiles_x,
                       info->max_grid_dim[0]);
    const size_t y_limit = (size_t)(info->max_grid_dim[1] > 0 ? info->max_grid_dim[1] : 65535);
    grid->x = (unsigned)tiles_x;
    grid->y = (unsigned)(tiles_y < y_limit ? tiles_y : y_limit);
    grid->z = 1;
    return WARPLAB_OK;
}

size_t tiles_of(size_t n, size_t tile)
{
    return (n + tile - 1) / tile;
}

/* The problem's layout and views; false when there is nothing to move. */
bool matrix_of(const wl_launch *launch, wl_transpose_layout *m, const void **in, void **out)
{
    *m = wl_transpose_layout_of(launch->problem);
    *in = wl_view_ptr(launch->buf[0]);
    *out = wl_view_ptr(launch->buf[1]);
    return m->rows > 0 && m->cols > 0;
}

/* A kernel launcher for one element type: (backend, layout, in, out). */
using typed_launcher = warplab_status (*)(wl_backend *, const wl_transpose_layout &, const void *,
                                          void *);

/* A rung's launch: nothing to do for an empty matrix, else the float or the
 * double form. */
template <typed_launcher FLOAT_FORM, typed_launcher DOUBLE_FORM>
warplab_status launch_typed(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    wl_transpose_layout m;
    const void *in;
    void *out;
    if (!matrix_of(launch, &m, &in, &out))
        return WARPLAB_OK;
    return m.element_size == 8 ? DOUBLE_FORM(backend, m, in, out) : FLOAT_FORM(backend, m, in, out);
}

template <typename T, bool ALONG_ROWS, bool TRANSPOSE>
warplab_status elementwise_on(wl_backend *backend, const wl_transpose_layout &m, const void *in,
                              void *out)
{
    const size_t tiles_fast = tiles_of(ALONG_ROWS ? m.rows : m.cols, TILE);
    const size_t tiles_slow = tiles_of(ALONG_ROWS ? m.cols : m.rows, TILE);
    dim3 grid;
    warplab_status status = tile_grid(backend, tiles_fast, tiles_slow, &grid);
    if (status != WARPLAB_OK)
        return status;
    move_elements<T, ALONG_ROWS, TRANSPOSE>
        <<<grid, dim3(TILE, BLOCK_ROWS), 0, wl_cuda_stream(backend)>>>(
            static_cast<const T *>(in), static_cast<T *>(out), m, tiles_slow);
    return WL_CUDA_LAUNCHED(backend, "transpose element kernel");
}

template <typename T, int PAD, bool DIAGONAL, bool TRANSPOSE>
warplab_status tiles_on(wl_backend *backend, const wl_transpose_layout &m, const void *in,
                        void *out)
{
    const size_t tiles_x = tiles_of(m.cols, TILE), tiles_y = tiles_of(m.rows, TILE);
    dim3 grid;
    warplab_status status = tile_grid(backend, tiles_x, tiles_y, &grid);
    if (status != WARPLAB_OK)
        return status;
    move_tiles<T, PAD, DIAGONAL, TRANSPOSE>
        <<<grid, dim3(TILE, BLOCK_ROWS), 0, wl_cuda_stream(backend)>>>(
            static_cast<const T *>(in), static_cast<T *>(out), m, tiles_x, tiles_y);
    return WL_CUDA_LAUNCHED(backend, "transpose tile kernel");
}

/* Rungs vectorized and vectorized_strip: the 16-byte kernel when both
 * pitches are whole 16-byte units and the views are element-aligned;
 * otherwise the padded-tile kernel, the fastest rung with no alignment
 * needs. STRIP: tiles per block down a column of tiles. */
template <typename T, int STRIP>
warplab_status vectorized_on(wl_backend *backend, const wl_transpose_layout &m, const void *in,
                             void *out)
{
    constexpr size_t per_vector = 16 / sizeof(T);
    const uintptr_t in_address = (uintptr_t)in, out_address = (uintptr_t)out;
    if (m.ld_in % per_vector || m.ld_out % per_vector || in_address % sizeof(T) ||
        out_address % sizeof(T))
        return tiles_on<T, 1, false, true>(backend, m, in, out);
    /* Shift the sub-block grid so that full sub-blocks start on 16 bytes:
     * input column c0 is aligned when (in / sizeof(T) + c0) % per_vector == 0,
     * and c0 = 64 bx + 4 j - shift_c. Likewise for output column r0. */
    const unsigned shift_c = (unsigned)(in_address / sizeof(T) % per_vector);
    const unsigned shift_r = (unsigned)(out_address / sizeof(T) % per_vector);
    const size_t tiles_x = tiles_of(m.cols + shift_c, VEC_TILE);
    const size_t strips_y = tiles_of(tiles_of(m.rows + shift_r, VEC_TILE), STRIP);
    dim3 grid;
    warplab_status status = tile_grid(backend, tiles_x, strips_y, &grid);
    if (status != WARPLAB_OK)
        return status;
    transpose_vectorized<T, STRIP><<<grid, VEC_THREADS, 0, wl_cuda_stream(backend)>>>(
        static_cast<const T *>(in), static_cast<T *>(out), m, shift_r, shift_c, strips_y);
    return WL_CUDA_LAUNCHED(backend, "transpose vectorized");
}

/* Rung copy (reference): rows of the input to tight rows of the output. A
 * tight input is one long row, so the whole matrix streams as one array. */
template <typename T>
warplab_status copy_on(wl_backend *backend, const wl_transpose_layout &m, const void *in, void *out)
{
    size_t rows = m.rows, cols = m.cols;
    if (m.ld_in == m.cols) {
        cols = m.rows * m.cols;
        rows = 1;
    }
    const size_t per_block = (size_t)COPY_THREADS * COPY_UNROLL * (16 / sizeof(T));
    dim3 grid;
    warplab_status status = tile_grid(backend, tiles_of(cols, per_block), rows, &grid);
    if (status != WARPLAB_OK)
        return status;
    copy_rows<T><<<grid, COPY_THREADS, 0, wl_cuda_stream(backend)>>>(
        static_cast<const T *>(in), static_cast<T *>(out), rows, cols, m.ld_in, cols);
    return WL_CUDA_LAUNCHED(backend, "transpose copy");
}

/* ------------------------------------------------------------------------ */
/* cuBLAS                                                                   */

warplab_status cublas_check(wl_backend *backend, cublasStatus_t status, const char *what)
{
    if (status == CUBLAS_STATUS_SUCCESS)
        return WARPLAB_OK;
    const warplab_status mapped = status == CUBLAS_STATUS_ALLOC_FAILED
                                      ? WARPLAB_ERROR_DEVICE_OUT_OF_MEMORY
                                      : WARPLAB_ERROR_BACKEND;
    return wl_fail(backend, mapped, "%s: %s", what, cublasGetStatusString(status));
}

/* geam takes int sizes. */
warplab_status cublas_supports(wl_backend *backend, const wl_problem *problem, char *reason,
                               size_t reason_len)
{
    (void)backend;
    const wl_transpose_layout m = wl_transpose_layout_of(problem);
    if (m.rows > INT_MAX || m.cols > INT_MAX || m.ld_in > INT_MAX || m.ld_out > INT_MAX) {
        wl_format(reason, reason_len,
                  "cuBLAS geam takes int sizes; %zux%zu (ld %zu/%zu) is past "
                  "them",
                  m.rows, m.cols, m.ld_in, m.ld_out);
        return WARPLAB_ERROR_UNSUPPORTED;
    }
    return WARPLAB_OK;
}

/* The handle is made (untimed) once per problem, bound to the backend's
 * stream so the timers see the work. */
warplab_status cublas_setup(wl_backend *backend, const wl_launch *launch, void **state)
{
    (void)launch;
    cublasHandle_t handle = NULL;
    warplab_status status = cublas_check(backend, cublasCreate(&handle), "cublasCreate");
    if (status != WARPLAB_OK)
        return status;
    status =
        cublas_check(backend, cublasSetStream(handle, wl_cuda_stream(backend)), "cublasSetStream");
    if (status != WARPLAB_OK) {
        cublasDestroy(handle); /* teardown is not called after a failed setup */
        return status;
    }
    *state = handle;
    return WARPLAB_OK;
}

void cublas_teardown(wl_backend *backend, void *state)
{
    (void)backend;
    if (state)
        cublasDestroy(static_cast<cublasHandle_t>(state));
}

/* Row-major in (rows x cols, pitch ld_in) is column-major A (cols x rows,
 * lda = ld_in); row-major out (cols x rows, pitch ld_out) is column-major C
 * (rows x cols, ldc = ld_out). out = in^T is C = A^T: geam with m = rows,
 * n = cols, transa = T, alpha = 1, beta = 0. B is not used with beta = 0; it
 * is given as A (transb = T, ldb = lda) so that every argument is valid. */
warplab_status launch_cublas(wl_backend *backend, const wl_launch *launch, void *state)
{
    wl_transpose_layout m;
    const void *in;
    void *out;
    if (!matrix_of(launch, &m, &in, &out))
        return WARPLAB_OK;
    cublasHandle_t handle = static_cast<cublasHandle_t>(state);
    const int rows = (int)m.rows, cols = (int)m.cols, ld_in = (int)m.ld_in, ld_out = (int)m.ld_out;
    if (m.element_size == 8) {
        const double one = 1.0, zero = 0.0;
        const double *a = static_cast<const double *>(in);
        return cublas_check(backend,
                            cublasDgeam(handle, CUBLAS_OP_T, CUBLAS_OP_T, rows, cols, &one, a,
                                        ld_in, &zero, a, ld_in, static_cast<double *>(out), ld_out),
                            "cublasDgeam");
    }
    const float one = 1.0f, zero = 0.0f;
    const float *a = static_cast<const float *>(in);
    return cublas_check(backend,
                        cublasSgeam(handle, CUBLAS_OP_T, CUBLAS_OP_T, rows, cols, &one, a, ld_in,
                                    &zero, a, ld_in, static_cast<float *>(out), ld_out),
                        "cublasSgeam");
}

/* ------------------------------------------------------------------------ */
/* The rung table                                                           */

/* Rung copy_shared: the copy through a 32x32 shared tile and a barrier. */
const wl_impl copy_shared_impl = {
    .ladder = "transpose",
    .rung = "copy_shared",
    .launch = launch_typed<tiles_on<float, 0, false, false>, tiles_on<double, 0, false, false>>};
/* Rung copy_strided: threads down columns, copied: both sides strided. */
const wl_impl copy_strided_impl = {
    .ladder = "transpose",
    .rung = "copy_strided",
    .launch =
        launch_typed<elementwise_on<float, true, false>, elementwise_on<double, true, false>>};
/* Rung naive: the course's mtran, threads along input rows: writes stride. */
const wl_impl naive_impl = {
    .ladder = "transpose",
    .rung = "naive",
    .launch =
        launch_typed<elementwise_on<float, false, true>, elementwise_on<double, false, true>>};
/* Rung naive_mirror: threads down input columns: reads stride instead. */
const wl_impl naive_mirror_impl = {
    .ladder = "transpose",
    .rung = "naive_mirror",
    .launch = launch_typed<elementwise_on<float, true, true>, elementwise_on<double, true, true>>};
/* Rung tiled: over naive, a shared 32x32 tile makes both global sides
 * coalesced; reading its columns is a 32-way bank conflict. */
const wl_impl tiled_impl = {
    .ladder = "transpose",
    .rung = "tiled",
    .launch = launch_typed<tiles_on<float, 0, false, true>, tiles_on<double, 0, false, true>>};
/* Rung padded: over tiled, [32][33] removes the bank conflicts. */
const wl_impl padded_impl = {
    .ladder = "transpose",
    .rung = "padded",
    .launch = launch_typed<tiles_on<float, 1, false, true>, tiles_on<double, 1, false, true>>};
/* Rung diagonal: over padded, blocks take tiles in diagonal order against
 * partition camping. */
const wl_impl diagonal_impl = {
    .ladder = "transpose",
    .rung = "diagonal",
    .launch = launch_typed<tiles_on<float, 1, true, true>, tiles_on<double, 1, true, true>>};
/* Rung vectorized: past the course, 16-byte accesses and a 4x4 transpose in
 * registers, one 64x64 tile per block. */
const wl_impl vectorized_impl = {
    .ladder = "transpose",
    .rung = "vectorized",
    .launch = launch_typed<vectorized_on<float, 1>, vectorized_on<double, 1>>};
/* Rung vectorized_strip: over vectorized, a block takes 4 tiles of floats
 * (2 of doubles: 1 KB of each output row it touches, 64 elements of data per
 * thread either way) with all its loads in flight before the first store. */
const wl_impl vectorized_strip_impl = {
    .ladder = "transpose",
    .rung = "vectorized_strip",
    .launch = launch_typed<vectorized_on<float, 4>, vectorized_on<double, 2>>};
const wl_impl copy_impl = {
    .ladder = "transpose", .rung = "copy", .launch = launch_typed<copy_on<float>, copy_on<double>>};
const wl_impl cublas_impl = {.ladder = "transpose",
                             .rung = "cublas",
                             .supports = cublas_supports,
                             .setup = cublas_setup,
                             .launch = launch_cublas,
                             .teardown = cublas_teardown};

} // namespace

extern "C" const wl_impl *const wl_cuda_transpose_impls[] = {
    &copy_impl,         &copy_shared_impl,
    &copy_strided_impl, &naive_impl,
    &naive_mirror_impl, &tiled_impl,
    &padded_impl,       &diagonal_impl,
    &vectorized_impl,   &vectorized_strip_impl,
    &cublas_impl,       NULL};
