/* The opencl backend's transpose rungs: the CUDA ladder's kernels in OpenCL
 * C (src/kernels/opencl/kernels/transpose.cl), every rung but the cuBLAS row. The
 * 16-byte rungs (copy, vectorized) mirror the CUDA kernels index for index,
 * so that PoCL checks their edge, pitch and alignment logic on any machine. */
/*
 * Contents: the transpose rungs this file implements, in ladder order
 * (number = place on the ladder, as `warplab ladders transpose` lists it;
 * the sections below do not follow this order yet):
 *    3. copy -- copy, 16-byte accesses (reference)
 *    4. copy_shared -- copy through a shared-memory tile
 *    5. copy_strided -- copy, reads and writes strided
 *    6. naive -- naive, writes strided
 *    7. naive_mirror -- naive mirrored, reads strided
 *    8. tiled -- 32x32 shared-memory tiles
 *    9. padded -- padded tiles [32][33]: no conflicts
 *   10. diagonal -- padded tiles, diagonal block order
 *   11. vectorized -- 16-byte accesses, 4x4 in registers
 *   12. vectorized_strip -- 16-byte, a strip of tiles per block
 *   13. vectorized_out -- 16-byte, blocks along output rows
 *   14. vectorized_grouped -- 16-byte, grouped block order
 *   15. grouped_strip -- 16-byte, grouped, 2 tiles per block
 *   16. persistent -- grouped, persistent grid, prefetch
 */
#include "kernels/transpose_layout.h"
#include "opencl_backend.h"

#include <stdint.h>

/* Work-group shape of the tile kernels: a 32x32 tile, 32x8 work-items. */
#define TILE 32
#define BLOCK_ROWS 8

/* Arguments shared by every transpose kernel:
 * (in, in_off, out, out_off, rows, cols, ld_in, ld_out), the vectorized
 * kernels' (shift_r, shift_c) and the ordered kernels' (items_x, items_y,
 * group). */
#define TRANSPOSE_ARGS 13
typedef struct transpose_args {
    cl_mem in, out;
    cl_ulong in_off, out_off, rows, cols, ld_in, ld_out;
    cl_uint shift_r, shift_c, items_x, items_y, group;
    wl_cl_arg list[TRANSPOSE_ARGS];
} transpose_args;

/* The problem's arguments; a launcher may change the sizes before launching. */
static void make_args(const wl_launch *launch, transpose_args *args)
{
    const wl_transpose_layout m = wl_transpose_layout_of(launch->problem);
    args->in = wl_cl_mem(launch->buf[0]);
    args->out = wl_cl_mem(launch->buf[1]);
    args->in_off = wl_cl_offset(launch->buf[0], m.element_size);
    args->out_off = wl_cl_offset(launch->buf[1], m.element_size);
    args->rows = m.rows;
    args->cols = m.cols;
    args->ld_in = m.ld_in;
    args->ld_out = m.ld_out;
    args->shift_r = args->shift_c = args->items_x = args->items_y = args->group = 0;
    const wl_cl_arg list[TRANSPOSE_ARGS] = {
        WL_CL_VALUE(args->in),      WL_CL_VALUE(args->in_off),  WL_CL_VALUE(args->out),
        WL_CL_VALUE(args->out_off), WL_CL_VALUE(args->rows),    WL_CL_VALUE(args->cols),
        WL_CL_VALUE(args->ld_in),   WL_CL_VALUE(args->ld_out),  WL_CL_VALUE(args->shift_r),
        WL_CL_VALUE(args->shift_c), WL_CL_VALUE(args->items_x), WL_CL_VALUE(args->items_y),
        WL_CL_VALUE(args->group)};
    for (int i = 0; i < TRANSPOSE_ARGS; i++)
        args->list[i] = list[i];
}

/* "transpose_<rung>_u32" or "_u64": the kernel for the problem's element
 * size, with the first arg_count arguments. */
static warplab_status launch_with(wl_backend *backend, const wl_launch *launch, const char *rung,
                                  const transpose_args *args, int arg_count, const size_t global[2],
                                  const size_t local[2])
{
    char kernel[64];
    wl_format(kernel, sizeof kernel, "transpose_%s_%s", rung,
              warplab_dtype_size(launch->problem->dtype) == 8 ? "u64" : "u32");
    return wl_opencl_launch(backend, "transpose", kernel, 2, global, local, arg_count, args->list);
}

static warplab_status launch_named(wl_backend *backend, const wl_launch *launch, const char *rung,
                                   const size_t global[2], const size_t local[2])
{
    transpose_args args;
    make_args(launch, &args);
    return launch_with(backend, launch, rung, &args, 8, global, local);
}

/* A work-group per 32x32 tile; dimension 0 runs along the rows when the
 * kernel's work-items walk down columns (along_rows), else along the
 * columns. */
static warplab_status launch_tiles(wl_backend *backend, const wl_launch *launch, const char *rung,
                                   int along_rows)
{
    const wl_transpose_layout m = wl_transpose_layout_of(launch->problem);
    const size_t fast = along_rows ? m.rows : m.cols, slow = along_rows ? m.cols : m.rows;
    const size_t global[2] = {(fast + TILE - 1) / TILE * TILE,
                              (slow + TILE - 1) / TILE * BLOCK_ROWS};
    const size_t local[2] = {TILE, BLOCK_ROWS};
    return launch_named(backend, launch, rung, global, local);
}

/* warplab:rung transpose naive */
/* Rung naive: work-items along input rows; writes stride by ld_out. */
static warplab_status launch_naive(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    return launch_tiles(backend, launch, "naive", 0);
}
/* warplab:end */

static const wl_impl naive_impl = {.ladder = "transpose", .rung = "naive", .launch = launch_naive};

/* warplab:rung transpose naive_mirror */
/* Rung naive_mirror: work-items down input columns; reads stride by ld_in. */
static warplab_status launch_naive_mirror(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    return launch_tiles(backend, launch, "naive_mirror", 1);
}
/* warplab:end */

static const wl_impl naive_mirror_impl = {
    .ladder = "transpose", .rung = "naive_mirror", .launch = launch_naive_mirror};

/* warplab:rung transpose copy_strided */
/* Rung copy_strided: the copy with work-items down columns: both sides stride. */
static warplab_status launch_copy_strided(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    return launch_tiles(backend, launch, "copy_strided", 1);
}
/* warplab:end */

static const wl_impl copy_strided_impl = {
    .ladder = "transpose", .rung = "copy_strided", .launch = launch_copy_strided};

/* warplab:rung transpose copy_shared */
/* Rung copy_shared: the copy through a 32x32 local-memory tile. */
static warplab_status launch_copy_shared(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    return launch_tiles(backend, launch, "copy_shared", 0);
}
/* warplab:end */

static const wl_impl copy_shared_impl = {
    .ladder = "transpose", .rung = "copy_shared", .launch = launch_copy_shared};

/* warplab:rung transpose tiled */
/* Rung tiled: 32x32 local-memory tiles; both global sides coalesce. */
static warplab_status launch_tiled(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    return launch_tiles(backend, launch, "tiled", 0);
}
/* warplab:end */

static const wl_impl tiled_impl = {.ladder = "transpose", .rung = "tiled", .launch = launch_tiled};

/* warplab:rung transpose padded */
/* Rung padded: tiles of 32x33, no bank conflicts on the column reads. */
static warplab_status launch_padded(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    return launch_tiles(backend, launch, "padded", 0);
}
/* warplab:end */

static const wl_impl padded_impl = {
    .ladder = "transpose", .rung = "padded", .launch = launch_padded};

/* warplab:rung transpose diagonal */
/* Rung diagonal: padded tiles taken in diagonal order. */
static warplab_status launch_diagonal(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    return launch_tiles(backend, launch, "diagonal", 0);
}
/* warplab:end */

static const wl_impl diagonal_impl = {
    .ladder = "transpose", .rung = "diagonal", .launch = launch_diagonal};

/* warplab:rung transpose copy */
/* Rung copy (reference), as CUDA's: a tight input is one long row; each
 * work-group moves COPY_UNROLL x 256 16-byte vectors of a row. */
#define COPY_THREADS 256
#define COPY_UNROLL 4
static warplab_status launch_copy(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    transpose_args args;
    make_args(launch, &args);
    if (args.rows == 0 || args.cols == 0)
        return WARPLAB_OK;
    if (args.ld_in == args.cols) {
        args.cols *= args.rows;
        args.rows = 1;
    }
    args.ld_out = args.cols;
    const size_t per_group =
        (size_t)COPY_THREADS * COPY_UNROLL * (16 / warplab_dtype_size(launch->problem->dtype));
    const size_t groups = ((size_t)args.cols + per_group - 1) / per_group;
    const size_t global[2] = {groups * COPY_THREADS, (size_t)args.rows};
    const size_t local[2] = {COPY_THREADS, 1};
    return launch_with(backend, launch, "copy", &args, 8, global, local);
}
/* warplab:end */

static const wl_impl copy_impl = {.ladder = "transpose", .rung = "copy", .launch = launch_copy};

/* warplab:rung transpose vectorized vectorized_strip */
/* Rungs vectorized and vectorized_strip, as CUDA's: the 16-byte kernel when
 * both pitches are whole 16-byte units, the sub-block grid shifted so that
 * full sub-blocks are aligned (buffers start 16-byte aligned, so the element
 * offsets tell); otherwise the padded kernel. A work-group takes strip tiles
 * down a column of tiles (the kernel's STRIP). */
#define VEC_TILE 64
#define VEC_THREADS 256
static warplab_status vectorized_tiles(wl_backend *backend, const wl_launch *launch,
                                       const char *rung, size_t strip)
{
    transpose_args args;
    make_args(launch, &args);
    const cl_ulong per_vector = 16 / warplab_dtype_size(launch->problem->dtype);
    if (args.ld_in % per_vector || args.ld_out % per_vector)
        return launch_tiles(backend, launch, "padded", 0);
    args.shift_c = (cl_uint)(args.in_off % per_vector);
    args.shift_r = (cl_uint)(args.out_off % per_vector);
    const size_t tiles_x = ((size_t)args.cols + args.shift_c + VEC_TILE - 1) / VEC_TILE;
    const size_t tiles_y = ((size_t)args.rows + args.shift_r + VEC_TILE - 1) / VEC_TILE;
    const size_t strips_y = (tiles_y + strip - 1) / strip;
    const size_t global[2] = {args.rows && args.cols ? tiles_x * VEC_THREADS : 0, strips_y};
    const size_t local[2] = {VEC_THREADS, 1};
    return launch_with(backend, launch, rung, &args, 10, global, local);
}
/* warplab:end */

/* warplab:rung transpose vectorized */
static warplab_status launch_vectorized(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    return vectorized_tiles(backend, launch, "vectorized", 1);
}
/* warplab:end */

static const wl_impl vectorized_impl = {
    .ladder = "transpose", .rung = "vectorized", .launch = launch_vectorized};

/* warplab:rung transpose vectorized_strip */
/* 4 tiles of floats, 2 of doubles per work-group, as in the kernel. */
static warplab_status launch_vectorized_strip(wl_backend *backend, const wl_launch *launch,
                                              void *state)
{
    (void)state;
    return vectorized_tiles(backend, launch, "vectorized_strip",
                            warplab_dtype_size(launch->problem->dtype) == 8 ? 2 : 4);
}
/* warplab:end */

static const wl_impl vectorized_strip_impl = {
    .ladder = "transpose", .rung = "vectorized_strip", .launch = launch_vectorized_strip};

/* warplab:rung transpose vectorized_out vectorized_grouped grouped_strip persistent */
/* The ordered candidates, as CUDA's ordered_on: the vectorized kernels'
 * alignment rules and shift, items (strips of `strip` tiles) dealt in the
 * order of transpose_order.h, bands `group` item rows tall (0: all of them).
 * persistent: a range of a few work-groups per compute unit, each looping
 * over items with the next one's loads before this one's stores. Past 2^32
 * items the vectorized kernel's own range takes over. */
#define GROUP_TILES 32
static warplab_status ordered_tiles(wl_backend *backend, const wl_launch *launch, const char *rung,
                                    cl_uint strip, cl_uint group, int persistent)
{
    transpose_args args;
    make_args(launch, &args);
    const cl_ulong per_vector = 16 / warplab_dtype_size(launch->problem->dtype);
    if (args.ld_in % per_vector || args.ld_out % per_vector)
        return launch_tiles(backend, launch, "padded", 0);
    if (args.rows == 0 || args.cols == 0)
        return WARPLAB_OK;
    args.shift_c = (cl_uint)(args.in_off % per_vector);
    args.shift_r = (cl_uint)(args.out_off % per_vector);
    const size_t items_x = ((size_t)args.cols + args.shift_c + VEC_TILE - 1) / VEC_TILE;
    const size_t tiles_y = ((size_t)args.rows + args.shift_r + VEC_TILE - 1) / VEC_TILE;
    const size_t items_y = (tiles_y + strip - 1) / strip;
    if (items_y > UINT32_MAX || items_x > UINT32_MAX / items_y)
        return vectorized_tiles(backend, launch, "vectorized", 1);
    args.items_x = (cl_uint)items_x;
    args.items_y = (cl_uint)items_y;
    args.group = group == 0 || group > args.items_y ? args.items_y : group;
    size_t groups = items_x * items_y;
    if (persistent) {
        const warplab_device_info *info = &backend->info;
        const size_t units = (size_t)(info->multiprocessors > 0 ? info->multiprocessors : 1);
        const size_t per_unit = info->max_threads_per_multiprocessor >= VEC_THREADS
                                    ? (size_t)info->max_threads_per_multiprocessor / VEC_THREADS
                                    : 4;
        if (units * per_unit < groups)
            groups = units * per_unit;
    }
    const size_t global[2] = {groups * VEC_THREADS, 1};
    const size_t local[2] = {VEC_THREADS, 1};
    return launch_with(backend, launch, rung, &args, TRANSPOSE_ARGS, global, local);
}
/* warplab:end */

/* warplab:rung transpose vectorized_out */
static warplab_status launch_vectorized_out(wl_backend *backend, const wl_launch *launch,
                                            void *state)
{
    (void)state;
    return ordered_tiles(backend, launch, "vectorized_out", 1, 0, 0);
}
/* warplab:end */

static const wl_impl vectorized_out_impl = {
    .ladder = "transpose", .rung = "vectorized_out", .launch = launch_vectorized_out};

/* warplab:rung transpose vectorized_grouped */
static warplab_status launch_vectorized_grouped(wl_backend *backend, const wl_launch *launch,
                                                void *state)
{
    (void)state;
    return ordered_tiles(backend, launch, "vectorized_grouped", 1, GROUP_TILES, 0);
}
/* warplab:end */

static const wl_impl vectorized_grouped_impl = {
    .ladder = "transpose", .rung = "vectorized_grouped", .launch = launch_vectorized_grouped};

/* warplab:rung transpose grouped_strip */
static warplab_status launch_grouped_strip(wl_backend *backend, const wl_launch *launch,
                                           void *state)
{
    (void)state;
    return ordered_tiles(backend, launch, "grouped_strip", 2, GROUP_TILES / 2, 0);
}
/* warplab:end */

static const wl_impl grouped_strip_impl = {
    .ladder = "transpose", .rung = "grouped_strip", .launch = launch_grouped_strip};

/* warplab:rung transpose persistent */
static warplab_status launch_persistent(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    return ordered_tiles(backend, launch, "persistent", 1, GROUP_TILES, 1);
}
/* warplab:end */

static const wl_impl persistent_impl = {
    .ladder = "transpose", .rung = "persistent", .launch = launch_persistent};

const wl_impl *const wl_opencl_transpose_impls[] = {&copy_impl,
                                                    &copy_shared_impl,
                                                    &copy_strided_impl,
                                                    &naive_impl,
                                                    &naive_mirror_impl,
                                                    &tiled_impl,
                                                    &padded_impl,
                                                    &diagonal_impl,
                                                    &vectorized_impl,
                                                    &vectorized_strip_impl,
                                                    &vectorized_out_impl,
                                                    &vectorized_grouped_impl,
                                                    &grouped_strip_impl,
                                                    &persistent_impl,
                                                    NULL};
