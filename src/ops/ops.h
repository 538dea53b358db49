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
 * warplab_gemm's FP32 row-major path (src/ops/gemm.c). */
extern const wl_op wl_vecadd_op;
extern const wl_op wl_reduce_op;
extern const wl_op wl_transpose_op;
extern const wl_op wl_scan_op;
extern const wl_op wl_histogram_op;
extern const wl_op wl_gemm_op;

/* The GEMM calls inside the library (src/ops/gemm.c), for the batched call
 * and the lab's GEMM grid. wl_gemm_force_candidate is
 * warplab_gemm_force_candidate with no call of its own (failures are the
 * caller's call's): the context's calls run the named planner row (NULL:
 * the planner); WARPLAB_ERROR_UNKNOWN_NAME, listing the rows, for a name
 * the table lacks. */
warplab_status wl_gemm_force_candidate(warplab_context *context, const char *candidate);
/* The contract warplab_gemm_ex and warplab_gemm_batched_ex share (buffers,
 * ops, compute mode, types): WARPLAB_OK or the failure, recorded. */
warplab_status wl_gemm_check_contract(warplab_context *context, const warplab_buffer *a,
                                      const warplab_buffer *b, const warplab_buffer *c,
                                      warplab_op op_a, warplab_op op_b, warplab_dtype a_type,
                                      warplab_dtype b_type, warplab_dtype c_type,
                                      warplab_compute compute);
/* The problem of a checked warplab_gemm_ex call (leading dimensions as
 * given, 0 = tight), and its run on views of A, B and C: the forced
 * candidate, warplab_gemm's path, or the backend's gemm_ex impl, as the
 * planner says. warplab_gemm_batched_ex runs a batch no planner row takes
 * as one such run a matrix. */
wl_problem wl_gemm_ex_problem(warplab_op op_a, warplab_op op_b, size_t m, size_t n, size_t k,
                              float alpha, warplab_dtype a_type, size_t lda, size_t ldb, float beta,
                              warplab_dtype c_type, size_t ldc, warplab_compute compute);
warplab_status wl_gemm_ex_run(warplab_context *context, const wl_problem *problem,
                              const wl_view views[3]);

/* The reduction operator named name ("sum", "min", "max", any case);
 * WARPLAB_ERROR_UNKNOWN_NAME, *op untouched, when there is none. Records no
 * error (warplab_reduce_op_parse is the public call that does). */
warplab_status wl_reduce_op_lookup(const char *name, warplab_reduce_op *op);

/* A scan's operation: "sum", "min", "max", each optionally after
 * "exclusive-" or "inclusive-" (*kind: a warplab_scan_kind). Records no
 * error. */
warplab_status wl_scan_op_lookup(const char *name, warplab_reduce_op *op, int *kind);

#endif
