/* The divergence probe: a branch whose condition depends on the lane, the
 * warp or the block, with 1..32 distinct paths. */
#include "probe_cuda.h"

enum { DIVERGENCE_IN = 0, DIVERGENCE_OUT };
enum { BY_LANE = 0, BY_WARP, BY_BLOCK };

/* Isolates control divergence: every thread runs its own path's chain of
 * `steps` FMAs exactly once, reached through `for q < paths: if (path == q)`,
 * so a warp runs the chain once per distinct path among its lanes. With
 * Selector == BY_LANE the paths differ inside every warp; with BY_WARP or
 * BY_BLOCK each warp has one path. */
template <int Selector>
__global__ void probe_divergence(const float *in, float *out, size_t threads, unsigned paths,
                                 unsigned steps)
{
    const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= threads)
        return;
    const size_t key = Selector == BY_LANE   ? threadIdx.x % WL_PROBE_WARP
                       : Selector == BY_WARP ? t / WL_PROBE_WARP
                                             : blockIdx.x;
    const unsigned path = (unsigned)(key % paths);
    float y = in[t];
    for (unsigned q = 0; q < paths; q++)
        if (path == q)
            y = wl_probe_chain(y, WL_DIVERGENCE_B(q), steps);
    out[t] = y;
}

template <int Selector>
static warplab_status launch_divergence(wl_backend *backend, const wl_launch *launch)
{
    const size_t threads = launch->problem->dim[0];
    probe_divergence<Selector>
        <<<wl_probe_blocks(threads), WL_PROBE_BLOCK, 0, wl_cuda_stream(backend)>>>(
            view_of<const float>(launch, DIVERGENCE_IN), view_of<float>(launch, DIVERGENCE_OUT),
            threads, (unsigned)launch->problem->param, (unsigned)launch->problem->dim[1]);
    return WL_CUDA_LAUNCHED(backend, "probe divergence");
}

static warplab_status launch_lane(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    return launch_divergence<BY_LANE>(backend, launch);
}
static warplab_status launch_warp(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    return launch_divergence<BY_WARP>(backend, launch);
}
static warplab_status launch_block(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    return launch_divergence<BY_BLOCK>(backend, launch);
}

extern "C" {
const wl_impl wl_cuda_probe_lane = {.ladder = "divergence", .rung = "lane", .launch = launch_lane};
const wl_impl wl_cuda_probe_warp = {.ladder = "divergence", .rung = "warp", .launch = launch_warp};
const wl_impl wl_cuda_probe_block = {
    .ladder = "divergence", .rung = "block", .launch = launch_block};
}
