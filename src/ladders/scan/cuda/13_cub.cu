/* Vendor row cub: cub::DeviceScan from the CUDA toolkit (CUB), measured in
 * the same run as the rungs. Sums run InclusiveSum / ExclusiveSum; min and
 * max run InclusiveScan / ExclusiveScan with warplab's operators (a NaN
 * propagates, as warplab defines it) and the identity as the exclusive
 * initial value. Its temporary storage is allocated once, untimed, in
 * setup. CUB's own single pass also resets its tile states before each
 * scan (an initialisation kernel). */
#include "scan_rungs.cuh"

#include <cub/cub.cuh>

namespace
{

template <typename Op> struct CubOperator {
    template <typename T> __device__ T operator()(const T &a, const T &b) const
    {
        return Op::apply(a, b);
    }
};

/* CUB's offsets: 32-bit when n fits, as a caller with an int count gets. */
template <typename T, typename Op, typename N>
cudaError_t cub_scan_n(void *temp, size_t &bytes, const T *in, T *out, N items, bool exclusive,
                       cudaStream_t stream)
{
    if constexpr (std::is_same_v<Op, ScanSum>) {
        if (exclusive)
            return cub::DeviceScan::ExclusiveSum(temp, bytes, in, out, items, stream);
        return cub::DeviceScan::InclusiveSum(temp, bytes, in, out, items, stream);
    } else {
        if (exclusive)
            return cub::DeviceScan::ExclusiveScan(temp, bytes, in, out, CubOperator<Op>{},
                                                  Op::template identity<T>(), items, stream);
        return cub::DeviceScan::InclusiveScan(temp, bytes, in, out, CubOperator<Op>{}, items,
                                              stream);
    }
}

template <typename T, typename Op>
cudaError_t cub_scan(void *temp, size_t &bytes, const T *in, T *out, size_t n, bool exclusive,
                     cudaStream_t stream)
{
    if (n <= (size_t)INT_MAX)
        return cub_scan_n<T, Op>(temp, bytes, in, out, (int)n, exclusive, stream);
    return cub_scan_n<T, Op>(temp, bytes, in, out, (long long)n, exclusive, stream);
}

typedef struct cub_scan_state {
    void *temp;
    size_t bytes;
} cub_scan_state;

template <typename T, typename Op> struct CubScan {
    static warplab_status setup(wl_backend *backend, const wl_launch *launch, void **state)
    {
        cub_scan_state *s = static_cast<cub_scan_state *>(calloc(1, sizeof *s));
        if (!s)
            return wl_fail(backend, WARPLAB_ERROR_HOST_OUT_OF_MEMORY, "out of host memory");
        cudaError_t e = cub_scan<T, Op>(nullptr, s->bytes, scan_input<T>(launch),
                                        scan_output<T>(launch), wl_launch_count(launch),
                                        scan_exclusive(launch), wl_cuda_stream(backend));
        if (e == cudaSuccess)
            e = cudaMalloc(&s->temp, s->bytes ? s->bytes : 1);
        if (e != cudaSuccess) {
            free(s);
            return wl_cuda_check(backend, e, "cub::DeviceScan temporary storage");
        }
        *state = s;
        return WARPLAB_OK;
    }

    static warplab_status launch(wl_backend *backend, const wl_launch *launch, void *state)
    {
        cub_scan_state *s = static_cast<cub_scan_state *>(state);
        if (wl_launch_count(launch) == 0)
            return WARPLAB_OK;
        size_t bytes = s->bytes;
        return wl_cuda_check(backend,
                             cub_scan<T, Op>(s->temp, bytes, scan_input<T>(launch),
                                             scan_output<T>(launch), wl_launch_count(launch),
                                             scan_exclusive(launch), wl_cuda_stream(backend)),
                             "cub::DeviceScan");
    }
};

warplab_status cub_scan_setup(wl_backend *backend, const wl_launch *launch, void **state)
{
    return scan_with_types<CubScan>(
        launch->problem, [&](auto rung) { return decltype(rung)::setup(backend, launch, state); });
}

void cub_scan_teardown(wl_backend *, void *state)
{
    cub_scan_state *s = static_cast<cub_scan_state *>(state);
    if (!s)
        return;
    if (s->temp)
        cudaFree(s->temp);
    free(s);
}

const wl_impl cub_impl = {.ladder = "scan",
                          .rung = "cub",
                          .setup = cub_scan_setup,
                          .launch = scan_launch_rung<CubScan>,
                          .teardown = cub_scan_teardown};

} // namespace
