/* The opencl backend's transpose kernels (seed 003), mirroring the CUDA
 * rungs. A transpose moves bits, so each kernel exists for 32-bit (uint:
 * float) and 64-bit (ulong: double) elements, suffixed _u32 and _u64; no
 * device needs double-precision arithmetic for them.
 *
 * Matrices arrive as a buffer and an element offset (views may be
 * misaligned), with rows, cols and the pitches ld_in and ld_out in elements
 * (see src/kernels/transpose_layout.h). Work-group counts are rounded up, so
 * every access is bounds-checked. The copy kernels write the input's layout,
 * tight (cols elements per row), into the output buffer. */

#define TILE 32
#define BLOCK_ROWS 8 /* a work-group is TILE x BLOCK_ROWS: each item moves TILE / BLOCK_ROWS */

#define MATRIX_ARGS(T)                                                                             \
    __global const T *in, ulong in_off, __global T *out, ulong out_off, ulong rows, ulong cols,    \
        ulong ld_in, ulong ld_out

/* warplab:rung transpose naive naive_mirror copy_strided */
/* One element per work-item and step, the work-group walking a TILE x TILE
 * block of the input. ALONG_ROWS: neighbouring work-items take neighbouring
 * rows (one column) instead of neighbouring columns (one row). TRANSPOSE:
 * write out[c][r] (pitch ld_out) instead of the copy out[r][c] (pitch cols).
 *   naive         threads along a row, transposed: reads coalesce, writes stride
 *   naive_mirror  threads down a column, transposed: reads stride, writes coalesce
 *   copy_strided  threads down a column, copied: both sides stride */
#define ELEMENTWISE(NAME, T, S, ALONG_ROWS, TRANSPOSE)                                             \
    __kernel void transpose_##NAME##_##S(MATRIX_ARGS(T))                                           \
    {                                                                                              \
        const ulong fast = get_group_id(0) * TILE + get_local_id(0);                               \
        for (ulong k = 0; k < TILE; k += BLOCK_ROWS) {                                             \
            const ulong slow = get_group_id(1) * TILE + get_local_id(1) + k;                       \
            const ulong r = ALONG_ROWS ? fast : slow, c = ALONG_ROWS ? slow : fast;                \
            if (r < rows && c < cols) {                                                            \
                const T v = in[in_off + r * ld_in + c];                                            \
                if (TRANSPOSE)                                                                     \
                    out[out_off + c * ld_out + r] = v;                                             \
                else                                                                               \
                    out[out_off + r * cols + c] = v;                                               \
            }                                                                                      \
        }                                                                                          \
    }
/* warplab:end */

/* warplab:rung transpose naive */
ELEMENTWISE(naive, uint, u32, 0, 1)
ELEMENTWISE(naive, ulong, u64, 0, 1)
/* warplab:end */
/* warplab:rung transpose naive_mirror */
ELEMENTWISE(naive_mirror, uint, u32, 1, 1)
ELEMENTWISE(naive_mirror, ulong, u64, 1, 1)
/* warplab:end */
/* warplab:rung transpose copy_strided */
ELEMENTWISE(copy_strided, uint, u32, 1, 0)
ELEMENTWISE(copy_strided, ulong, u64, 1, 0)
/* warplab:end */

/* warplab:rung transpose copy_shared tiled padded diagonal */
/* A TILE x TILE block through local memory: read row by row (coalesced),
 * then written row by row from the tile's columns (TRANSPOSE) or rows (the
 * copy through local memory). PAD 1 adds a column so that a tile column
 * spans every bank. DIAGONAL renumbers the work-groups so that groups
 * running together take tiles along a diagonal.
 *   copy_shared  PAD 0, copied
 *   tiled        PAD 0, transposed: bank conflicts reading tile columns
 *   padded       PAD 1, transposed
 *   diagonal     PAD 1, transposed, diagonal tile order */
#define TILED(NAME, T, S, PAD, DIAGONAL, TRANSPOSE)                                                \
    __kernel void transpose_##NAME##_##S(MATRIX_ARGS(T))                                           \
    {                                                                                              \
        __local T tile[TILE][TILE + PAD];                                                          \
        const ulong tiles_x = get_num_groups(0), tiles_y = get_num_groups(1);                      \
        ulong bx = get_group_id(0), by = get_group_id(1);                                          \
        if (DIAGONAL) {                                                                            \
            const ulong linear = bx + tiles_x * by;                                                \
            by = linear % tiles_y;                                                                 \
            bx = (linear / tiles_y + by) % tiles_x;                                                \
        }                                                                                          \
        const uint tx = get_local_id(0), ty = get_local_id(1);                                     \
        const ulong c = bx * TILE + tx;                                                            \
        for (uint k = 0; k < TILE; k += BLOCK_ROWS) {                                              \
            const ulong r = by * TILE + ty + k;                                                    \
            if (r < rows && c < cols)                                                              \
                tile[ty + k][tx] = in[in_off + r * ld_in + c];                                     \
        }                                                                                          \
        barrier(CLK_LOCAL_MEM_FENCE);                                                              \
        for (uint k = 0; k < TILE; k += BLOCK_ROWS) {                                              \
            if (TRANSPOSE) {                                                                       \
                const ulong out_row = bx * TILE + ty + k, out_col = by * TILE + tx;                \
                if (out_row < cols && out_col < rows)                                              \
                    out[out_off + out_row * ld_out + out_col] = tile[tx][ty + k];                  \
            } else {                                                                               \
                const ulong r = by * TILE + ty + k;                                                \
                if (r < rows && c < cols)                                                          \
                    out[out_off + r * cols + c] = tile[ty + k][tx];                                \
            }                                                                                      \
        }                                                                                          \
    }
/* warplab:end */

/* warplab:rung transpose copy_shared */
TILED(copy_shared, uint, u32, 0, 0, 0)
TILED(copy_shared, ulong, u64, 0, 0, 0)
/* warplab:end */
/* warplab:rung transpose tiled */
TILED(tiled, uint, u32, 0, 0, 1)
TILED(tiled, ulong, u64, 0, 0, 1)
/* warplab:end */
/* warplab:rung transpose padded */
TILED(padded, uint, u32, 1, 0, 1)
TILED(padded, ulong, u64, 1, 0, 1)
/* warplab:end */
/* warplab:rung transpose diagonal */
TILED(diagonal, uint, u32, 1, 1, 1)
TILED(diagonal, ulong, u64, 1, 1, 1)
/* warplab:end */

/* warplab:rung transpose copy vectorized vectorized_strip vectorized_out vectorized_grouped
 * grouped_strip persistent */
/* 16 bytes of elements, moved with one 16-byte access (uint4, ulong2): the
 * CUDA kernels' float4 and double2. Callers guarantee 16-byte alignment. */
typedef uint4 vector16_u32;
typedef ulong2 vector16_u64;
#define PER_VECTOR_u32 4
#define PER_VECTOR_u64 2

/* Four consecutive elements at a 16-byte boundary: one uint4 or two ulong2. */
void load4_u32(__global const uint *p, uint *v)
{
    const uint4 x = *(__global const uint4 *)p;
    v[0] = x.s0;
    v[1] = x.s1;
    v[2] = x.s2;
    v[3] = x.s3;
}
void store4_u32(__global uint *p, const uint *v)
{
    *(__global uint4 *)p = (uint4)(v[0], v[1], v[2], v[3]);
}
void load4_u64(__global const ulong *p, ulong *v)
{
    const ulong2 x = ((__global const ulong2 *)p)[0], y = ((__global const ulong2 *)p)[1];
    v[0] = x.s0;
    v[1] = x.s1;
    v[2] = y.s0;
    v[3] = y.s1;
}
void store4_u64(__global ulong *p, const ulong *v)
{
    ((__global ulong2 *)p)[0] = (ulong2)(v[0], v[1]);
    ((__global ulong2 *)p)[1] = (ulong2)(v[2], v[3]);
}
/* warplab:end */

/* warplab:rung transpose copy */
/* Rung copy (reference), as CUDA's copy_rows: rows of cols elements from in
 * (pitch ld_in) to out (pitch ld_out; the host passes cols, and a tight input
 * as a single row). A work-group of COPY_THREADS takes COPY_UNROLL x
 * COPY_THREADS vectors of a row, all loads before the first store; the head
 * (until both sides reach 16 bytes; buffers start 16-byte aligned, so the
 * element offset tells) and the tail go element by element, and so does a
 * row whose two sides can never be aligned together. */
#define COPY_THREADS 256
#define COPY_UNROLL 4
#define COPY_ROWS(T, S)                                                                            \
    __kernel void transpose_copy_##S(MATRIX_ARGS(T))                                               \
    {                                                                                              \
        const uint t = get_local_id(0), per_vector = PER_VECTOR_##S;                               \
        const ulong first = get_group_id(0) * COPY_THREADS * COPY_UNROLL, r = get_group_id(1);     \
        if (r >= rows)                                                                             \
            return;                                                                                \
        __global const T *src = in + in_off + r * ld_in;                                           \
        __global T *dst = out + out_off + r * ld_out;                                              \
        const uint phase = (uint)((in_off + r * ld_in) % per_vector);                              \
        if (phase == (uint)((out_off + r * ld_out) % per_vector)) {                                \
            const ulong head = min((ulong)((per_vector - phase) % per_vector), cols);              \
            const ulong vectors = (cols - head) / per_vector;                                      \
            __global const vector16_##S *s = (__global const vector16_##S *)(src + head);          \
            __global vector16_##S *d = (__global vector16_##S *)(dst + head);                      \
            vector16_##S buffer[COPY_UNROLL];                                                      \
            for (uint u = 0; u < COPY_UNROLL; u++) {                                               \
                const ulong q = first + u * COPY_THREADS + t;                                      \
                if (q < vectors)                                                                   \
                    buffer[u] = s[q];                                                              \
            }                                                                                      \
            for (uint u = 0; u < COPY_UNROLL; u++) {                                               \
                const ulong q = first + u * COPY_THREADS + t;                                      \
                if (q < vectors)                                                                   \
                    d[q] = buffer[u];                                                              \
            }                                                                                      \
            const ulong tail = head + vectors * per_vector;                                        \
            if (get_group_id(0) == 0 && t < head)                                                  \
                dst[t] = src[t];                                                                   \
            if (get_group_id(0) == 0 && t < cols - tail)                                           \
                dst[tail + t] = src[tail + t];                                                     \
        } else {                                                                                   \
            for (uint u = 0; u < COPY_UNROLL * per_vector; u++) {                                  \
                const ulong e = first * per_vector + u * COPY_THREADS + t;                         \
                if (e < cols)                                                                      \
                    dst[e] = src[e];                                                               \
            }                                                                                      \
        }                                                                                          \
    }

COPY_ROWS(uint, u32)
COPY_ROWS(ulong, u64)
/* warplab:end */

/* warplab:rung transpose vectorized vectorized_strip vectorized_out vectorized_grouped
 * grouped_strip persistent */
/* One 4x4 sub-block at (r0, c0) of the vectorized kernels: 16-byte pieces
 * when it lies wholly inside the matrix (the host's grid shift makes it
 * aligned), else element by element with bounds checks. */
#define SUB 4
#define VEC_TILE 64
#define SUB_BLOCK(T, S)                                                                            \
    void transpose_sub_block_##S(__global const T *src, __global T *dst, long rows, long cols,     \
                                 ulong ld_in, ulong ld_out, long r0, long c0)                      \
    {                                                                                              \
        if (r0 >= 0 && c0 >= 0 && r0 + SUB <= rows && c0 + SUB <= cols) {                          \
            T v[SUB][SUB];                                                                         \
            for (int k = 0; k < SUB; k++)                                                          \
                load4_##S(src + (ulong)(r0 + k) * ld_in + c0, v[k]);                               \
            for (int j = 0; j < SUB; j++) {                                                        \
                const T column[SUB] = {v[0][j], v[1][j], v[2][j], v[3][j]};                        \
                store4_##S(dst + (ulong)(c0 + j) * ld_out + r0, column);                           \
            }                                                                                      \
            return;                                                                                \
        }                                                                                          \
        for (int k = 0; k < SUB; k++)                                                              \
            for (int j = 0; j < SUB; j++) {                                                        \
                const long r = r0 + k, c = c0 + j;                                                 \
                if (r >= 0 && r < rows && c >= 0 && c < cols)                                      \
                    dst[(ulong)c * ld_out + r] = src[(ulong)r * ld_in + c];                        \
            }                                                                                      \
    }

SUB_BLOCK(uint, u32)
SUB_BLOCK(ulong, u64)
/* warplab:end */

/* warplab:rung transpose vectorized vectorized_strip */
/* Rungs vectorized and vectorized_strip, as CUDA's transpose_vectorized: a
 * work-group of 256 takes STRIP 64x64 tiles down a column of tiles, each
 * work-item a 4x4 sub-block of each, loaded as four 16-byte row pieces and
 * stored as four 16-byte pieces of output rows (the transpose happens in
 * registers). A warp-sized run of 32 work-items covers 8 x 4 sub-blocks:
 * loads read 8 rows x 64 bytes, stores write 4 rows x 128 bytes. With
 * STRIP > 1, a work-item whose sub-blocks are all inside issues every load
 * before the first store. The host passes ld_in and ld_out as multiples of
 * the elements per 16 bytes and shifts the sub-block grid by shift_r rows
 * and shift_c columns so that full sub-blocks start 16-byte aligned. */
#define VECTORIZED(NAME, T, S, STRIP)                                                              \
    __kernel void transpose_##NAME##_##S(MATRIX_ARGS(T), uint shift_r, uint shift_c)               \
    {                                                                                              \
        const uint lane = get_local_id(0) % 32, warp = get_local_id(0) / 32;                       \
        const long sub_row = (warp / 4) * 8 + lane / 4, sub_col = (warp % 4) * 4 + lane % 4;       \
        const long rows_ = (long)rows, cols_ = (long)cols;                                         \
        const long r0 =                                                                            \
            (long)(get_group_id(1) * STRIP) * VEC_TILE + SUB * sub_row - (long)shift_r;            \
        const long c0 = (long)get_group_id(0) * VEC_TILE + SUB * sub_col - (long)shift_c;          \
        const long last_r0 = r0 + (STRIP - 1) * VEC_TILE;                                          \
        __global const T *src = in + in_off;                                                       \
        __global T *dst = out + out_off;                                                           \
        if (STRIP > 1 && r0 >= 0 && c0 >= 0 && last_r0 + SUB <= rows_ && c0 + SUB <= cols_) {      \
            T v[STRIP][SUB][SUB];                                                                  \
            for (int s = 0; s < STRIP; s++)                                                        \
                for (int k = 0; k < SUB; k++)                                                      \
                    load4_##S(src + (ulong)(r0 + s * VEC_TILE + k) * ld_in + c0, v[s][k]);         \
            for (int s = 0; s < STRIP; s++)                                                        \
                for (int j = 0; j < SUB; j++) {                                                    \
                    const T column[SUB] = {v[s][0][j], v[s][1][j], v[s][2][j], v[s][3][j]};        \
                    store4_##S(dst + (ulong)(c0 + j) * ld_out + r0 + s * VEC_TILE, column);        \
                }                                                                                  \
            return;                                                                                \
        }                                                                                          \
        for (int s = 0; s < STRIP; s++)                                                            \
            transpose_sub_block_##S(src, dst, rows_, cols_, ld_in, ld_out, r0 + s * VEC_TILE, c0); \
    }
/* warplab:end */

/* warplab:rung transpose vectorized */
VECTORIZED(vectorized, uint, u32, 1)
VECTORIZED(vectorized, ulong, u64, 1)
/* warplab:end */
/* warplab:rung transpose vectorized_strip */
VECTORIZED(vectorized_strip, uint, u32, 4)
VECTORIZED(vectorized_strip, ulong, u64, 2)
/* warplab:end */

/* warplab:rung transpose vectorized_out vectorized_grouped grouped_strip persistent */
/* The ordered candidates, as CUDA's transpose_ordered: the vectorized
 * kernels' tile and lane mapping, work items (strips of STRIP tiles) dealt
 * over a 1-D range in the order of src/ladders/transpose/transpose_order.h, spelled
 * again here: bands of `group` item rows, each walked down one item column
 * after another. Work-group g takes items g, g + groups, ...; with PREFETCH
 * (the persistent rung) a work-item issues the loads of its next item
 * before the stores of this one. */
void transpose_item(uint linear, uint items_x, uint items_y, uint group, uint *ix, uint *iy)
{
    const uint band_items = group * items_x;
    const uint band = linear / band_items;
    const uint first = band * group;
    const uint tall = min(items_y - first, group);
    const uint local_ = linear - band * band_items;
    *iy = first + local_ % tall;
    *ix = local_ / tall;
}

#define ORDERED(NAME, T, S, STRIP, PREFETCH)                                                       \
    bool load_strip_##NAME##_##S(__global const T *src, long rows, long cols, ulong ld_in,         \
                                 long r0, long c0, T v[STRIP][SUB][SUB])                           \
    {                                                                                              \
        if (r0 < 0 || c0 < 0 || r0 + (STRIP - 1) * VEC_TILE + SUB > rows || c0 + SUB > cols)       \
            return false;                                                                          \
        for (int s = 0; s < STRIP; s++)                                                            \
            for (int k = 0; k < SUB; k++)                                                          \
                load4_##S(src + (ulong)(r0 + s * VEC_TILE + k) * ld_in + c0, v[s][k]);             \
        return true;                                                                               \
    }                                                                                              \
    void store_strip_##NAME##_##S(__global const T *src, __global T *dst, long rows, long cols,    \
                                  ulong ld_in, ulong ld_out, long r0, long c0, bool fast,          \
                                  T v[STRIP][SUB][SUB])                                            \
    {                                                                                              \
        if (!fast) {                                                                               \
            for (int s = 0; s < STRIP; s++)                                                        \
                transpose_sub_block_##S(src, dst, rows, cols, ld_in, ld_out, r0 + s * VEC_TILE,    \
                                        c0);                                                       \
            return;                                                                                \
        }                                                                                          \
        for (int s = 0; s < STRIP; s++)                                                            \
            for (int j = 0; j < SUB; j++) {                                                        \
                const T column[SUB] = {v[s][0][j], v[s][1][j], v[s][2][j], v[s][3][j]};            \
                store4_##S(dst + (ulong)(c0 + j) * ld_out + r0 + s * VEC_TILE, column);            \
            }                                                                                      \
    }                                                                                              \
    __kernel void transpose_##NAME##_##S(MATRIX_ARGS(T), uint shift_r, uint shift_c, uint items_x, \
                                         uint items_y, uint group)                                 \
    {                                                                                              \
        const uint lane = get_local_id(0) % 32, warp = get_local_id(0) / 32;                       \
        const long sub_row = (warp / 4) * 8 + lane / 4, sub_col = (warp % 4) * 4 + lane % 4;       \
        const long rows_ = (long)rows, cols_ = (long)cols;                                         \
        const ulong items = (ulong)items_x * items_y, step = get_num_groups(0);                    \
        __global const T *src = in + in_off;                                                       \
        __global T *dst = out + out_off;                                                           \
        ulong item = get_group_id(0);                                                              \
        if (item >= items)                                                                         \
            return;                                                                                \
        uint ix, iy;                                                                               \
        transpose_item((uint)item, items_x, items_y, group, &ix, &iy);                             \
        long r0 = (long)iy * (STRIP * VEC_TILE) + SUB * sub_row - (long)shift_r;                   \
        long c0 = (long)ix * VEC_TILE + SUB * sub_col - (long)shift_c;                             \
        T v[STRIP][SUB][SUB];                                                                      \
        bool fast = load_strip_##NAME##_##S(src, rows_, cols_, ld_in, r0, c0, v);                  \
        for (;;) {                                                                                 \
            const ulong next = item + step;                                                        \
            long next_r0 = 0, next_c0 = 0;                                                         \
            T w[STRIP][SUB][SUB];                                                                  \
            bool next_fast = false;                                                                \
            if (PREFETCH && next < items) {                                                        \
                transpose_item((uint)next, items_x, items_y, group, &ix, &iy);                     \
                next_r0 = (long)iy * (STRIP * VEC_TILE) + SUB * sub_row - (long)shift_r;           \
                next_c0 = (long)ix * VEC_TILE + SUB * sub_col - (long)shift_c;                     \
                next_fast =                                                                        \
                    load_strip_##NAME##_##S(src, rows_, cols_, ld_in, next_r0, next_c0, w);        \
            }                                                                                      \
            store_strip_##NAME##_##S(src, dst, rows_, cols_, ld_in, ld_out, r0, c0, fast, v);      \
            if (next >= items)                                                                     \
                return;                                                                            \
            item = next;                                                                           \
            if (!PREFETCH) {                                                                       \
                transpose_item((uint)next, items_x, items_y, group, &ix, &iy);                     \
                next_r0 = (long)iy * (STRIP * VEC_TILE) + SUB * sub_row - (long)shift_r;           \
                next_c0 = (long)ix * VEC_TILE + SUB * sub_col - (long)shift_c;                     \
                next_fast =                                                                        \
                    load_strip_##NAME##_##S(src, rows_, cols_, ld_in, next_r0, next_c0, w);        \
            }                                                                                      \
            r0 = next_r0;                                                                          \
            c0 = next_c0;                                                                          \
            fast = next_fast;                                                                      \
            for (int s = 0; s < STRIP; s++)                                                        \
                for (int k = 0; k < SUB; k++)                                                      \
                    for (int j = 0; j < SUB; j++)                                                  \
                        v[s][k][j] = w[s][k][j];                                                   \
        }                                                                                          \
    }
/* warplab:end */

/* warplab:rung transpose vectorized_out */
ORDERED(vectorized_out, uint, u32, 1, 0)
ORDERED(vectorized_out, ulong, u64, 1, 0)
/* warplab:end */
/* warplab:rung transpose vectorized_grouped */
ORDERED(vectorized_grouped, uint, u32, 1, 0)
ORDERED(vectorized_grouped, ulong, u64, 1, 0)
/* warplab:end */
/* warplab:rung transpose grouped_strip */
ORDERED(grouped_strip, uint, u32, 2, 0)
ORDERED(grouped_strip, ulong, u64, 2, 0)
/* warplab:end */
/* warplab:rung transpose persistent */
ORDERED(persistent, uint, u32, 1, 1)
ORDERED(persistent, ulong, u64, 1, 1)
/* warplab:end */
