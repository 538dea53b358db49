/* Vendor row cub: cub::DeviceHistogram::HistogramEven from the CUDA toolkit,
 * measured in the same run as the rungs: bins + 1 levels over [lower, upper)
 * (int levels for 8-bit and int32 samples, float levels for float), uint32
 * counts, an int sample count; its temporary storage is allocated once,
 * untimed, in setup. CUB zeroes the counts itself. */
#include "histogram_rungs.cuh"

#include <cub/device/device_histogram.cuh>

#include <type_traits>

namespace
{

template <typename S>
cudaError_t cub_histogram(void *temp, size_t &bytes, const wl_launch *launch, cudaStream_t stream)
{
    const wl_histogram_rule rule = wl_histogram_rule_of(launch->problem);
    const int levels = (int)rule.bins + 1, n = (int)launch->problem->dim[0];
    if constexpr (std::is_floating_point_v<S>)
        return cub::DeviceHistogram::HistogramEven(temp, bytes, samples_of<S>(launch),
                                                   counts_of(launch), levels, rule.lower_float,
                                                   rule.upper_float, n, stream);
    else
        return cub::DeviceHistogram::HistogramEven(temp, bytes, samples_of<S>(launch),
                                                   counts_of(launch), levels, rule.lower_int,
                                                   rule.upper_int, n, stream);
}

typedef struct cub_state {
    void *temp;
    size_t bytes;
} cub_state;

warplab_status cub_setup(wl_backend *backend, const wl_launch *launch, void **state)
{
    cub_state *s = static_cast<cub_state *>(calloc(1, sizeof *s));
    if (!s)
        return wl_fail(backend, WARPLAB_ERROR_HOST_OUT_OF_MEMORY, "out of host memory");
    cudaError_t e = with_sample(launch->problem, [&](auto sample) {
        return cub_histogram<decltype(sample)>(nullptr, s->bytes, launch, wl_cuda_stream(backend));
    });
    if (e == cudaSuccess)
        e = cudaMalloc(&s->temp, s->bytes ? s->bytes : 1);
    if (e != cudaSuccess) {
        free(s);
        return wl_cuda_check(backend, e, "cub::DeviceHistogram temporary storage");
    }
    *state = s;
    return WARPLAB_OK;
}

warplab_status cub_launch(wl_backend *backend, const wl_launch *launch, void *state)
{
    cub_state *s = static_cast<cub_state *>(state);
    size_t bytes = s->bytes;
    const cudaError_t e = with_sample(launch->problem, [&](auto sample) {
        return cub_histogram<decltype(sample)>(s->temp, bytes, launch, wl_cuda_stream(backend));
    });
    return wl_cuda_check(backend, e, "cub::DeviceHistogram::HistogramEven");
}

void cub_teardown(wl_backend *, void *state)
{
    cub_state *s = static_cast<cub_state *>(state);
    if (!s)
        return;
    if (s->temp)
        cudaFree(s->temp);
    free(s);
}

const wl_impl cub_impl = {.ladder = "histogram",
                          .rung = "cub",
                          .setup = cub_setup,
                          .launch = cub_launch,
                          .teardown = cub_teardown};

} // namespace
