/* Rung persistent (past the course: persistent grid, software pipelining;
 * off the ladder, a measured dead end).
 *
 * Over vectorized_grouped: only as many blocks as the GPU holds at once
 * (measured untimed in setup from the kernel's occupancy), each looping over
 * tiles in the grouped order and issuing the loads of its next tile before
 * the stores of this one (transpose_ordered with PREFETCH): loads stay in
 * flight while stores drain, and no block ends and restarts. */
#include "transpose_rungs.cuh"

namespace
{

/* The persistent candidate: the grid is what the device holds at once,
 * measured untimed in setup from the kernel's occupancy. */
typedef struct persistent_state {
    size_t resident; /* blocks resident at once on the whole GPU */
} persistent_state;

template <typename T> warplab_status persistent_blocks(wl_backend *backend, size_t *resident)
{
    int per_sm = 0;
    const warplab_status status =
        wl_cuda_check(backend,
                      cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                          &per_sm, transpose_ordered<T, 1, true>, VEC_THREADS, 0),
                      "transpose persistent occupancy");
    const size_t sms =
        (size_t)(backend->info.multiprocessors > 0 ? backend->info.multiprocessors : 1);
    *resident = sms * (size_t)(per_sm > 0 ? per_sm : 1);
    return status;
}

warplab_status persistent_setup(wl_backend *backend, const wl_launch *launch, void **state)
{
    size_t resident = 0;
    const warplab_status status = wl_transpose_layout_of(launch->problem).element_size == 8
                                      ? persistent_blocks<double>(backend, &resident)
                                      : persistent_blocks<float>(backend, &resident);
    if (status != WARPLAB_OK)
        return status;
    persistent_state *s = static_cast<persistent_state *>(malloc(sizeof *s));
    if (!s)
        return wl_fail(backend, WARPLAB_ERROR_HOST_OUT_OF_MEMORY, "out of host memory");
    s->resident = resident;
    *state = s;
    return WARPLAB_OK;
}

void persistent_teardown(wl_backend *backend, void *state)
{
    (void)backend;
    free(state);
}

warplab_status launch_persistent(wl_backend *backend, const wl_launch *launch, void *state)
{
    const size_t resident = static_cast<const persistent_state *>(state)->resident;
    wl_transpose_layout m;
    const void *in;
    void *out;
    if (!matrix_of(launch, &m, &in, &out))
        return WARPLAB_OK;
    return m.element_size == 8
               ? ordered_on<double, 1, GROUP_TILES, true>(backend, m, in, out, resident)
               : ordered_on<float, 1, GROUP_TILES, true>(backend, m, in, out, resident);
}

/* persistent: the grouped order over a grid of the blocks the device holds
 * at once, each loading its next tile before storing this one. */
const wl_impl persistent_impl = {.ladder = "transpose",
                                 .rung = "persistent",
                                 .setup = persistent_setup,
                                 .launch = launch_persistent,
                                 .teardown = persistent_teardown};

} // namespace
