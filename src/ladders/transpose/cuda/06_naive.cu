/* Rung naive (seed 003, 'Transpozice matic': the course's mtran).
 *
 * Over the CPU loops below it: a thread per element, threads along input
 * rows (move_elements with TRANSPOSE), in 32 x 32 blocks: one element a
 * thread, as the course's kernel (the rungs above move four). A warp's reads
 * are one contiguous row; its writes go to 32 different output rows, one
 * transaction each. */
#include "transpose_rungs.cuh"

namespace
{

const wl_impl naive_impl = {.ladder = "transpose",
                            .rung = "naive",
                            .launch = launch_typed<elementwise_on<float, false, true, TILE>,
                                                   elementwise_on<double, false, true, TILE>>};

} // namespace
