/* Vendor row cub: cub::DeviceReduce::Sum/Min/Max from the CUDA toolkit (CUB),
 * measured in the same run as the rungs; its temporary storage is allocated
 * once, untimed, in setup. */
#include "reduce_rungs.cuh"

#include <cub/cub.cuh>

namespace
{

/* CUB's offsets: 32-bit when n fits, as a caller with an int count gets. */
template <typename T, typename Op>
cudaError_t cub_reduce(void *temp, size_t &bytes, const T *in, T *out, size_t n,
                       cudaStream_t stream)
{
    if (n <= (size_t)INT_MAX) {
        const int items = (int)n;
        if constexpr (std::is_same_v<Op, OpSum>)
            return cub::DeviceReduce::Sum(temp, bytes, in, out, items, stream);
        else if constexpr (std::is_same_v<Op, OpMin>)
            return cub::DeviceReduce::Min(temp, bytes, in, out, items, stream);
        else
            return cub::DeviceReduce::Max(temp, bytes, in, out, items, stream);
    }
    const long long items = (long long)n;
    if constexpr (std::is_same_v<Op, OpSum>)
        return cub::DeviceReduce::Sum(temp, bytes, in, out, items, stream);
    else if constexpr (std::is_same_v<Op, OpMin>)
        return cub::DeviceReduce::Min(temp, bytes, in, out, items, stream);
    else
        return cub::DeviceReduce::Max(temp, bytes, in, out, items, stream);
}

typedef struct cub_state {
    void *temp;
    size_t bytes;
} cub_state;

template <typename T, typename Op> struct Cub {
    static warplab_status setup(wl_backend *backend, const wl_launch *launch, void **state)
    {
        cub_state *s = static_cast<cub_state *>(calloc(1, sizeof *s));
        if (!s)
            return wl_fail(backend, WARPLAB_ERROR_HOST_OUT_OF_MEMORY, "out of host memory");
        cudaError_t e =
            cub_reduce<T, Op>(nullptr, s->bytes, input_of<T>(launch), output_of<T>(launch),
                              wl_launch_count(launch), wl_cuda_stream(backend));
        if (e == cudaSuccess)
            e = cudaMalloc(&s->temp, s->bytes ? s->bytes : 1);
        if (e != cudaSuccess) {
            free(s);
            return wl_cuda_check(backend, e, "cub::DeviceReduce temporary storage");
        }
        *state = s;
        return WARPLAB_OK;
    }

    static warplab_status launch(wl_backend *backend, const wl_launch *launch, void *state)
    {
        cub_state *s = static_cast<cub_state *>(state);
        size_t bytes = s->bytes;
        return wl_cuda_check(backend,
                             cub_reduce<T, Op>(s->temp, bytes, input_of<T>(launch),
                                               output_of<T>(launch), wl_launch_count(launch),
                                               wl_cuda_stream(backend)),
                             "cub::DeviceReduce");
    }
};

warplab_status cub_setup(wl_backend *backend, const wl_launch *launch, void **state)
{
    return with_types<Cub>(
        launch->problem, [&](auto rung) { return decltype(rung)::setup(backend, launch, state); });
}

void cub_teardown(wl_backend *backend, void *state)
{
    (void)backend;
    cub_state *s = static_cast<cub_state *>(state);
    if (!s)
        return;
    if (s->temp)
        cudaFree(s->temp);
    free(s);
}

const wl_impl cub_impl = {.ladder = "reduce",
                          .rung = "cub",
                          .setup = cub_setup,
                          .launch = launch_rung<Cub>,
                          .teardown = cub_teardown};

} // namespace
