/* The latency probe: a chain of dependent loads (one thread), and a copy
 * whose threads keep K independent loads in flight. */
#include "probe_cuda.h"

enum { CHASE_WORDS = 0, CHASE_OUT };
enum { FLIGHT_IN = 0, FLIGHT_OUT };

/* Isolates latency: each load's address is the previous index plus the
 * value the previous load returned (0, which the compiler cannot know), so
 * no two loads overlap. */
__global__ void probe_chase(const int *words, int *out, size_t mask, unsigned steps)
{
    size_t i = 0;
    for (unsigned s = 0; s < steps; s++)
        i = (i + WL_CHASE_STRIDE + (unsigned)words[i]) & mask;
    out[0] = (int)i;
}

static warplab_status launch_dependent(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    probe_chase<<<1, 1, 0, wl_cuda_stream(backend)>>>(
        view_of<const int>(launch, CHASE_WORDS), view_of<int>(launch, CHASE_OUT),
        launch->problem->dim[0] - 1, (unsigned)launch->problem->dim[1]);
    return WL_CUDA_LAUNCHED(backend, "probe latency chase");
}

/* Isolates loads in flight: a grid-stride copy in which each thread issues
 * K independent loads (K x gridsize apart, coalesced across the warp)
 * before it stores any of them. */
template <int K>
__global__ void __launch_bounds__(WL_FLIGHT_BLOCK)
    probe_flight(const float *__restrict__ in, float *__restrict__ out, size_t n)
{
    const size_t total = (size_t)gridDim.x * blockDim.x;
    for (size_t base = (size_t)blockIdx.x * blockDim.x + threadIdx.x; base < n; base += total * K) {
        float v[K];
#pragma unroll
        for (int j = 0; j < K; j++) {
            const size_t i = base + j * total;
            v[j] = i < n ? in[i] : 0.0f;
        }
#pragma unroll
        for (int j = 0; j < K; j++) {
            const size_t i = base + j * total;
            if (i < n)
                out[i] = v[j];
        }
    }
}

template <int K>
static warplab_status launch_flight(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    const size_t blocks = (size_t)launch->problem->param / WL_FLIGHT_BLOCK;
    probe_flight<K><<<(unsigned)blocks, WL_FLIGHT_BLOCK, 0, wl_cuda_stream(backend)>>>(
        view_of<const float>(launch, FLIGHT_IN), view_of<float>(launch, FLIGHT_OUT),
        launch->problem->dim[0]);
    return WL_CUDA_LAUNCHED(backend, "probe latency flight");
}

extern "C" {
const wl_impl wl_cuda_probe_dependent = {
    .ladder = "latency_chase", .rung = "dependent", .launch = launch_dependent};
const wl_impl wl_cuda_probe_loads_1 = {
    .ladder = "latency_flight", .rung = "loads_1", .launch = launch_flight<1>};
const wl_impl wl_cuda_probe_loads_4 = {
    .ladder = "latency_flight", .rung = "loads_4", .launch = launch_flight<4>};
const wl_impl wl_cuda_probe_loads_16 = {
    .ladder = "latency_flight", .rung = "loads_16", .launch = launch_flight<16>};
}
