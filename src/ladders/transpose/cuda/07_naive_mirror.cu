/* Rung naive_mirror (seed 003, 'Transpozice matic').
 *
 * Over naive: threads along input columns instead (ALONG_ROWS), still one
 * element a thread: writes coalesce, reads stride. The bytes are the same; which side a GPU
 * forgives more (caches can reuse the lines a strided read fetched, partial writes must be merged)
 * is what this row shows. */
#include "transpose_rungs.cuh"

namespace
{

const wl_impl naive_mirror_impl = {.ladder = "transpose",
                                   .rung = "naive_mirror",
                                   .launch =
                                       launch_typed<elementwise_on<float, true, true, TILE>,
                                                    elementwise_on<double, true, true, TILE>>};

} // namespace
