/* What the library's operations (src/ops/) share with the layers above them:
 * each operation's dispatch (its candidates, in its order of preference:
 * the ladders' tests check that they are the ladder's rungs the library may
 * run, the ladder's best first), and the names the operations take, looked
 * up once where a caller's text enters. */
#ifndef WARPLAB_OPS_H
#define WARPLAB_OPS_H

#include "core/context.h"

/* The operations' dispatch: warplab_vecadd, warplab_reduce (and
 * warplab_reduce_to), warplab_transpose, warplab_scan, warplab_histogram,
 * warplab_gemm's FP32 row-major path. */
extern const wl_op wl_vecadd_op;
extern const wl_op wl_reduce_op;
extern const wl_op wl_transpose_op;
extern const wl_op wl_scan_op;
extern const wl_op wl_histogram_op;
extern const wl_op wl_gemm_op;

/* The reduction operator named name ("sum", "min", "max", any case);
 * WARPLAB_ERROR_UNKNOWN_NAME, *op untouched, when there is none. Records no
 * error (warplab_reduce_op_parse is the public call that does). */
warplab_status wl_reduce_op_lookup(const char *name, warplab_reduce_op *op);

/* A scan's operation: "sum", "min", "max", each optionally after
 * "exclusive-" or "inclusive-" (*kind: a warplab_scan_kind). Records no
 * error. */
warplab_status wl_scan_op_lookup(const char *name, warplab_reduce_op *op, int *kind);

#endif
