/* What the library's operations (src/ops/) share with the layers above them:
 * the names the operations take, looked up once where a caller's text
 * enters. */
#ifndef WARPLAB_OPS_H
#define WARPLAB_OPS_H

#include "internal.h"

/* The reduction operator named name ("sum", "min", "max", any case);
 * WARPLAB_ERROR_UNKNOWN_NAME, *op untouched, when there is none. Records no
 * error (warplab_reduce_op_parse is the public call that does). */
warplab_status wl_reduce_op_lookup(const char *name, warplab_reduce_op *op);

/* A scan's operation: "sum", "min", "max", each optionally after
 * "exclusive-" or "inclusive-" (*kind: a warplab_scan_kind). Records no
 * error. */
warplab_status wl_scan_op_lookup(const char *name, warplab_reduce_op *op, int *kind);

#endif
