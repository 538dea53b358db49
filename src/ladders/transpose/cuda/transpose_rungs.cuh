/* What the cuda backend's transpose rungs share (seed 003, 'Transpozice
 * matic'): the launchers, and one template per kernel family, of which each
 * rung is an instance (elements one per thread: copy_strided, naive,
 * naive_mirror; a 32x32 shared tile: copy_shared, tiled, padded, diagonal;
 * 16-byte accesses with a 4x4 transpose in registers: vectorized,
 * vectorized_strip; the same in a chosen block order: vectorized_out,
 * vectorized_grouped, grouped_strip, persistent). Each rung's file beside
 * this one (NN_<rung>.cu, NN = its place in `warplab ladders transpose`)
 * holds its impl row (the instance it runs) and what only it uses;
 * transpose_rungs.cu includes them in ladder order and lists their impl rows
 * for the backend.
 *
 * Every kernel is correct for any rows x cols (0 launches nothing), float and
 * double, any pitch and misaligned views: indices are size_t, every access
 * outside the 16-byte fast paths is bounds-checked, and the pitch padding is
 * never written. Grids larger than the device's y limit loop over the
 * remaining rows of tiles. */
#ifndef WARPLAB_TRANSPOSE_RUNGS_CUH
#define WARPLAB_TRANSPOSE_RUNGS_CUH

#include "../transpose_order.h"
#include "kernels/transpose_layout.h"

#include "kernels/cuda/cuda_backend.h"

#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <type_traits>

namespace
{

/* The course's shape: a 32x32 tile per block, 32x8 threads, each thread
 * moving TILE / BLOCK_ROWS = 4 elements of a tile column. */
constexpr int TILE = 32;
constexpr int BLOCK_ROWS = 8;

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

/* ------------------------------------------------------------------------ */
/* One element per thread and step: naive, naive_mirror, copy_strided       */

/* ALONG_ROWS: neighbouring threads take neighbouring rows (one column) of
 * the input instead of neighbouring columns (one row). TRANSPOSE: write
 * out[c][r] (pitch ld_out) instead of the copy's out[r][c] (pitch cols).
 * tiles_slow: tiles along the dimension threadIdx.y walks. ROWS: threads
 * along y; each moves TILE / ROWS elements of a tile (ROWS = TILE: one
 * element a thread, the course's launch). */
template <typename T, bool ALONG_ROWS, bool TRANSPOSE, int ROWS>
__global__ void __launch_bounds__(TILE *ROWS)
    move_elements(const T *__restrict__ in, T *__restrict__ out, wl_transpose_layout m,
                  size_t tiles_slow)
{
    const size_t fast = (size_t)blockIdx.x * TILE + threadIdx.x;
    for (size_t tile = blockIdx.y; tile < tiles_slow; tile += gridDim.y)
        for (int k = 0; k < TILE; k += ROWS) {
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

template <typename T, bool ALONG_ROWS, bool TRANSPOSE, int ROWS = BLOCK_ROWS>
warplab_status elementwise_on(wl_backend *backend, const wl_transpose_layout &m, const void *in,
                              void *out)
{
    const size_t tiles_fast = tiles_of(ALONG_ROWS ? m.rows : m.cols, TILE);
    const size_t tiles_slow = tiles_of(ALONG_ROWS ? m.cols : m.rows, TILE);
    dim3 grid;
    warplab_status status = tile_grid(backend, tiles_fast, tiles_slow, &grid);
    if (status != WARPLAB_OK)
        return status;
    move_elements<T, ALONG_ROWS, TRANSPOSE, ROWS>
        <<<grid, dim3(TILE, ROWS), 0, wl_cuda_stream(backend)>>>(
            static_cast<const T *>(in), static_cast<T *>(out), m, tiles_slow);
    return WL_CUDA_LAUNCHED(backend, "transpose element kernel");
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

/* ------------------------------------------------------------------------ */
/* 16-byte accesses in a chosen block order: the ordered candidates          */

/* One thread's part of a strip of STRIP tiles whose first sub-block is at
 * (r0, c0): true (and the loads issued) when all STRIP sub-blocks lie inside
 * the matrix, so that they go as 16-byte pieces. */
template <typename T, int STRIP>
__device__ __forceinline__ bool load_strip(const T *__restrict__ in, const wl_transpose_layout &m,
                                           long long r0, long long c0, T (&v)[STRIP][SUB][SUB])
{
    const long long last_r0 = r0 + (STRIP - 1) * VEC_TILE;
    if (r0 < 0 || c0 < 0 || last_r0 + SUB > (long long)m.rows || c0 + SUB > (long long)m.cols)
        return false;
#pragma unroll
    for (int s = 0; s < STRIP; s++)
#pragma unroll
        for (int k = 0; k < SUB; k++)
            load4(in + (size_t)(r0 + s * VEC_TILE + k) * m.ld_in + c0, v[s][k]);
    return true;
}

/* Stores what load_strip loaded (fast), or moves the strip element by
 * element with bounds checks (it stuck out of the matrix). */
template <typename T, int STRIP>
__device__ __forceinline__ void store_strip(const T *__restrict__ in, T *__restrict__ out,
                                            const wl_transpose_layout &m, long long r0,
                                            long long c0, bool fast, const T (&v)[STRIP][SUB][SUB])
{
    if (!fast) {
        for (int s = 0; s < STRIP; s++)
            transpose_sub_block(in, out, m, r0 + s * VEC_TILE, c0);
        return;
    }
#pragma unroll
    for (int s = 0; s < STRIP; s++)
#pragma unroll
        for (int j = 0; j < SUB; j++) {
            const T column[SUB] = {v[s][0][j], v[s][1][j], v[s][2][j], v[s][3][j]};
            store4(out + (size_t)(c0 + j) * m.ld_out + r0 + s * VEC_TILE, column);
        }
}

/* Where the item's thread works: the first row and column of its sub-block
 * (same lane mapping as transpose_vectorized). */
struct item_grid {
    uint32_t items, items_x, items_y, group;
    unsigned shift_r, shift_c;
};

__device__ __forceinline__ void item_origin(const item_grid &g, uint32_t item, int strip,
                                            long long sub_row, long long sub_col, long long *r0,
                                            long long *c0)
{
    uint32_t ix, iy;
    wl_transpose_item(item, g.items_x, g.items_y, g.group, &ix, &iy);
    *r0 = (long long)iy * (strip * VEC_TILE) + SUB * sub_row - g.shift_r;
    *c0 = (long long)ix * VEC_TILE + SUB * sub_col - g.shift_c;
}

/* The vectorized kernel's tile and lane mapping (a 64x64 tile per item,
 * STRIP tiles down a column per item), with the items dealt in the order of
 * transpose_order.h over a 1-D grid: block b takes items b, b + gridDim.x,
 * ... (once each when the grid covers them all).
 *
 * PREFETCH (the persistent rung, whose grid is only as large as the device
 * holds at once): before storing item i, a thread issues the loads of its
 * next item, so that 16-byte loads are in flight while the stores drain, and
 * no block ever ends and restarts. The loads and stores are asm volatile
 * with "memory" clobbers: they are issued in exactly this order. Two items'
 * data live at once: keeping only the pending item's store address and
 * moving edge items one element at a time brings floats from 79 registers
 * (3 blocks of 256 per SM) to 56 (4 blocks; the launch bound keeps it so). */
template <typename T, int STRIP, bool PREFETCH>
__global__ void __launch_bounds__(VEC_THREADS, PREFETCH && sizeof(T) == 4 ? 4 : 1)
    transpose_ordered(const T *__restrict__ in, T *__restrict__ out, wl_transpose_layout m,
                      item_grid g)
{
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const long long sub_row = (warp / 4) * 8 + lane / 4; /* 0..15 */
    const long long sub_col = (warp % 4) * 4 + lane % 4; /* 0..15 */
    if (!PREFETCH) {
        for (uint64_t item = blockIdx.x; item < g.items; item += gridDim.x) {
            long long r0, c0;
            item_origin(g, (uint32_t)item, STRIP, sub_row, sub_col, &r0, &c0);
            T v[STRIP][SUB][SUB];
            const bool fast = load_strip<T, STRIP>(in, m, r0, c0, v);
            store_strip<T, STRIP>(in, out, m, r0, c0, fast, v);
        }
        return;
    }
    /* A pending item: its registers, where its 16-byte stores start (fast),
     * and its index (the slow path finds its origin again). */
    uint64_t item = blockIdx.x;
    if (item >= g.items)
        return;
    long long r0, c0;
    item_origin(g, (uint32_t)item, STRIP, sub_row, sub_col, &r0, &c0);
    T v[STRIP][SUB][SUB];
    bool fast = load_strip<T, STRIP>(in, m, r0, c0, v);
    T *dst = out + (size_t)c0 * m.ld_out + r0;
    for (;;) {
        const uint64_t next = item + gridDim.x;
        T w[STRIP][SUB][SUB];
        T *next_dst = out;
        bool next_fast = false;
        if (next < g.items) {
            item_origin(g, (uint32_t)next, STRIP, sub_row, sub_col, &r0, &c0);
            next_fast = load_strip<T, STRIP>(in, m, r0, c0, w);
            next_dst = out + (size_t)c0 * m.ld_out + r0;
        }
        if (fast) {
#pragma unroll
            for (int s = 0; s < STRIP; s++)
#pragma unroll
                for (int j = 0; j < SUB; j++) {
                    const T column[SUB] = {v[s][0][j], v[s][1][j], v[s][2][j], v[s][3][j]};
                    store4(dst + (size_t)j * m.ld_out + s * VEC_TILE, column);
                }
        } else {
            /* Element by element, one at a time: the fewest registers live
             * beside the next item's. */
            item_origin(g, (uint32_t)item, STRIP, sub_row, sub_col, &r0, &c0);
#pragma unroll 1
            for (int e = 0; e < STRIP * SUB * SUB; e++) {
                const long long r = r0 + (e / (SUB * SUB)) * VEC_TILE + e / SUB % SUB,
                                c = c0 + e % SUB;
                if (r >= 0 && r < (long long)m.rows && c >= 0 && c < (long long)m.cols)
                    out[(size_t)c * m.ld_out + r] = in[(size_t)r * m.ld_in + c];
            }
        }
        if (next >= g.items)
            return;
        item = next;
        dst = next_dst;
        fast = next_fast;
        if (next_fast) {
#pragma unroll
            for (int s = 0; s < STRIP; s++)
#pragma unroll
                for (int k = 0; k < SUB; k++)
#pragma unroll
                    for (int j = 0; j < SUB; j++)
                        v[s][k][j] = w[s][k][j];
        }
    }
}

/* The ordered rungs' kernel for a problem whose input pitch is whole
 * 16-byte units but whose output pitch is not (3001x4000: out rows of 3001
 * floats start 4, 8, 12 bytes off a 16-byte boundary, so no vector store
 * fits them): 64x64 tiles, the input read with 16-byte loads (the grid
 * shifted by shift_c so that they are aligned; a vector that would leave the
 * matrix is read one element at a time), transposed through a padded shared
 * tile, and written as 64 consecutive elements per output row, two 32-wide
 * coalesced stores per warp. Over the padded-tile kernel it would otherwise
 * take: a quarter of the load instructions, 4 (8 doubles) loads in flight per
 * thread before the first store, and 64-element runs written per row. */
constexpr int HALF_TILE = 64;

template <typename T>
__global__ void __launch_bounds__(VEC_THREADS)
    transpose_vector_loads(const T *__restrict__ in, T *__restrict__ out, wl_transpose_layout m,
                           unsigned shift_c, size_t tiles_c)
{
    using V = typename std::conditional<sizeof(T) == 4, float4, double2>::type;
    constexpr int W = 16 / sizeof(T);
    constexpr int VECTORS_PER_ROW = HALF_TILE / W;
    constexpr int LOADS = HALF_TILE * VECTORS_PER_ROW / VEC_THREADS;
    __shared__ T tile[HALF_TILE][HALF_TILE + 1];
    const long long rows = (long long)m.rows, cols = (long long)m.cols;
    const long long r0 = (long long)blockIdx.x * HALF_TILE;
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    for (size_t tc = blockIdx.y; tc < tiles_c; tc += gridDim.y) {
        const long long c0 = (long long)tc * HALF_TILE - shift_c;
        V v[LOADS];
#pragma unroll
        for (int j = 0; j < LOADS; j++) {
            const int slot = threadIdx.x + j * VEC_THREADS;
            const long long r = r0 + slot / VECTORS_PER_ROW;
            const long long c = c0 + (long long)(slot % VECTORS_PER_ROW) * W;
            if (r < rows && c >= 0 && c + W <= cols) {
                v[j] = *reinterpret_cast<const V *>(in + (size_t)r * m.ld_in + c);
            } else {
                T e[W];
#pragma unroll
                for (int k = 0; k < W; k++)
                    e[k] = r < rows && c + k >= 0 && c + k < cols ? in[(size_t)r * m.ld_in + c + k]
                                                                  : T(0);
                memcpy(&v[j], e, sizeof v[j]);
            }
        }
#pragma unroll
        for (int j = 0; j < LOADS; j++) {
            const int slot = threadIdx.x + j * VEC_THREADS;
            const int lr = slot / VECTORS_PER_ROW, lc = (slot % VECTORS_PER_ROW) * W;
            T e[W];
            memcpy(e, &v[j], sizeof e);
#pragma unroll
            for (int k = 0; k < W; k++)
                tile[lr][lc + k] = e[k];
        }
        __syncthreads();
        /* Output row c0 + lc holds input column c0 + lc: elements r0 .. r0+63. */
        for (int lc = warp; lc < HALF_TILE; lc += VEC_THREADS / 32) {
            const long long c = c0 + lc;
            if (c < 0 || c >= cols)
                continue;
            T *row = out + (size_t)c * m.ld_out;
#pragma unroll
            for (int half = 0; half < HALF_TILE; half += 32) {
                const long long r = r0 + half + lane;
                if (r < rows)
                    row[r] = tile[half + lane][lc];
            }
        }
        __syncthreads();
    }
}

/* The ordered candidates: the vectorized rungs' alignment rules and grid
 * shift, items dealt in the order of transpose_order.h. GROUP: item rows
 * per band, 0 for all of them (write-major). resident: blocks the device
 * holds at once (the persistent grid), 0 for one block per item. Past 2^32
 * items (no buffer that large exists today) the vectorized rung's own grid
 * takes over. */
/* Input rows of whole 16-byte units, output rows not: 16-byte loads,
 * element stores (transpose_vector_loads). */
template <typename T>
warplab_status vector_loads_on(wl_backend *backend, const wl_transpose_layout &m, const void *in,
                               void *out)
{
    constexpr size_t per_vector = 16 / sizeof(T);
    const unsigned shift_c = (unsigned)((uintptr_t)in / sizeof(T) % per_vector);
    const size_t tiles_r = tiles_of(m.rows, HALF_TILE);
    const size_t tiles_c = tiles_of(m.cols + shift_c, HALF_TILE);
    dim3 grid;
    warplab_status status = tile_grid(backend, tiles_r, tiles_c, &grid);
    if (status != WARPLAB_OK)
        return status;
    transpose_vector_loads<T><<<grid, VEC_THREADS, 0, wl_cuda_stream(backend)>>>(
        static_cast<const T *>(in), static_cast<T *>(out), m, shift_c, tiles_c);
    return WL_CUDA_LAUNCHED(backend, "transpose vector loads");
}

template <typename T, int STRIP, unsigned GROUP, bool PREFETCH>
warplab_status ordered_on(wl_backend *backend, const wl_transpose_layout &m, const void *in,
                          void *out, size_t resident)
{
    constexpr size_t per_vector = 16 / sizeof(T);
    const uintptr_t in_address = (uintptr_t)in, out_address = (uintptr_t)out;
    /* The kernel by alignment: both pitches whole 16-byte units, the ordered
     * vector kernel below; only the input's (3001x4000 floats), 16-byte loads
     * and element stores (H100: 34.2 us against the padded tiles' 44.1 and
     * cublasSgeam's 36.9); neither, the padded-tile kernel. */
    if (in_address % sizeof(T) || out_address % sizeof(T))
        return tiles_on<T, 1, false, true>(backend, m, in, out);
    if (m.ld_in % per_vector == 0 && m.ld_out % per_vector)
        return vector_loads_on<T>(backend, m, in, out);
    if (m.ld_in % per_vector || m.ld_out % per_vector)
        return tiles_on<T, 1, false, true>(backend, m, in, out);
    item_grid g;
    g.shift_c = (unsigned)(in_address / sizeof(T) % per_vector);
    g.shift_r = (unsigned)(out_address / sizeof(T) % per_vector);
    const size_t items_x = tiles_of(m.cols + g.shift_c, VEC_TILE);
    const size_t items_y = tiles_of(tiles_of(m.rows + g.shift_r, VEC_TILE), STRIP);
    if (items_y > UINT32_MAX || items_x > UINT32_MAX / items_y)
        return vectorized_on<T, 1>(backend, m, in, out);
    g.items_x = (uint32_t)items_x;
    g.items_y = (uint32_t)items_y;
    g.items = g.items_x * g.items_y;
    g.group = GROUP == 0 || GROUP > g.items_y ? g.items_y : GROUP;
    size_t blocks = g.items;
    if (resident > 0 && resident < blocks)
        blocks = resident;
    const size_t x_limit =
        (size_t)(backend->info.max_grid_dim[0] > 0 ? backend->info.max_grid_dim[0] : 65535);
    if (blocks > x_limit)
        blocks = x_limit;
    transpose_ordered<T, STRIP, PREFETCH>
        <<<(unsigned)blocks, VEC_THREADS, 0, wl_cuda_stream(backend)>>>(
            static_cast<const T *>(in), static_cast<T *>(out), m, g);
    return WL_CUDA_LAUNCHED(backend, "transpose ordered");
}

/* Item rows per band of the grouped candidates: 32 tiles (2048 input rows)
 * tall, so that the ~1000 blocks an H100/H200 holds at once span about 32
 * item columns: ~2K input rows read 8 KiB at a time and ~2K output rows
 * written 8 KiB at a time, instead of (row-major at 16384^2) 256 rows read
 * whole and all 16384 output rows written 1 KiB at a time. */
constexpr unsigned GROUP_TILES = 32;

template <typename T, int STRIP, unsigned GROUP>
warplab_status ordered_all(wl_backend *backend, const wl_transpose_layout &m, const void *in,
                           void *out)
{
    return ordered_on<T, STRIP, GROUP, false>(backend, m, in, out, 0);
}

} // namespace

#endif
