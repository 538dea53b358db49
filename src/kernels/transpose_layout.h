/* The transpose's problem layout, shared by the operation, its ladder and
 * the backends' launchers (C11 and CUDA).
 *
 * The input is a row-major rows x cols matrix whose rows start ld_in
 * elements apart; the output is its transpose, a row-major cols x rows matrix
 * whose rows start ld_out elements apart. The elements between the end of a
 * row and the next row's start (the pitch padding) belong to the caller: no
 * rung may write them.
 *
 * The copy rungs (the speed-of-light reference) move the same bytes without
 * reordering: they read the input as above and write it row-major, rows x
 * cols, with rows cols elements apart (tight), into the start of the output
 * buffer (which holds cols x ld_out >= rows x cols elements). */
#ifndef WARPLAB_TRANSPOSE_LAYOUT_H
#define WARPLAB_TRANSPOSE_LAYOUT_H

#include "internal.h"

typedef struct wl_transpose_layout {
    size_t rows, cols;   /* of the input */
    size_t ld_in;        /* elements between input rows (>= cols) */
    size_t ld_out;       /* elements between output rows (>= rows) */
    size_t element_size; /* 4 (float) or 8 (double) */
} wl_transpose_layout;

/* dim[0] = rows, dim[1] = cols, ld[0] = ld_in, ld[1] = ld_out (0 = tight). */
static inline wl_transpose_layout wl_transpose_layout_of(const wl_problem *problem)
{
    wl_transpose_layout layout;
    layout.rows = problem->dim[0];
    layout.cols = problem->dim[1];
    layout.ld_in = problem->ld[0] ? problem->ld[0] : layout.cols;
    layout.ld_out = problem->ld[1] ? problem->ld[1] : layout.rows;
    layout.element_size = warplab_dtype_size(problem->dtype);
    return layout;
}

/* rows x cols x element and each buffer's bytes fit in a size_t with room
 * for the harness's guards. */
static inline bool wl_transpose_fits(size_t rows, size_t ld_in, size_t cols, size_t ld_out,
                                     size_t element_size)
{
    const size_t limit = SIZE_MAX / 4 / element_size;
    return (rows == 0 || ld_in <= limit / rows) && (cols == 0 || ld_out <= limit / cols);
}

#endif
