/* Rung naive: the course's first GPU reduction (seed 003, 'Naivni pristup').
 *
 * Over the CPU loops below it: the work is spread over the GPU, one thread
 * per pair, v[i] += v[i + stride] for i a multiple of 2 * stride, and one
 * launch per level (stride 1, 2, 4, ...) acts as the barrier between levels.
 * Three global accesses per add, strided at the upper levels: the baseline
 * the tree rungs improve on. */
#include "reduce_rungs.cuh"

namespace
{

/* Rung naive (seed 003): v[i] += v[i + stride] for i a multiple of           */
/* 2 * stride, one launch per level, stride 1, 2, 4, ... The first level     */
/* reads the input and writes scratch (the input must stay untouched); later */
/* levels work in place in scratch; the last (2 * stride >= n) writes the    */
/* result. An element with no partner (n not a power of two) is carried up.  */

template <typename T, typename Op>
__global__ void naive_level_kernel(const T *src, T *dst, size_t n, size_t stride)
{
    const size_t i = 2 * stride * (blockIdx.x * (size_t)blockDim.x + threadIdx.x);
    if (i < n)
        dst[i] = i + stride < n ? Op::apply(src[i], src[i + stride]) : src[i];
}

template <typename T, typename Op> struct Naive {
    static warplab_status launch(wl_backend *backend, const wl_launch *launch, void *)
    {
        const size_t n = wl_launch_count(launch);
        T *out = output_of<T>(launch);
        if (n == 0)
            return write_identity<T, Op>(backend, out);
        T *scratch = static_cast<T *>(wl_view_ptr(launch->scratch));
        const T *src = input_of<T>(launch);
        const unsigned block = 256;
        for (size_t stride = 1;; stride *= 2) {
            const bool last = 2 * stride >= n;
            const size_t pairs = (n + 2 * stride - 1) / (2 * stride);
            const size_t blocks = (pairs + block - 1) / block;
            warplab_status status = check_grid(backend, blocks, "reduce naive");
            if (status != WARPLAB_OK)
                return status;
            T *dst = last ? out : scratch;
            naive_level_kernel<T, Op>
                <<<(unsigned)blocks, block, 0, wl_cuda_stream(backend)>>>(src, dst, n, stride);
            status = WL_CUDA_LAUNCHED(backend, "reduce naive level");
            if (status != WARPLAB_OK || last)
                return status;
            src = scratch;
        }
    }
};

size_t naive_scratch(wl_backend *backend, const wl_problem *problem)
{
    (void)backend;
    return problem->dim[0] > 2 ? problem->dim[0] * warplab_dtype_size(problem->dtype) : 0;
}

const wl_impl naive_impl = {.ladder = "reduce",
                            .rung = "naive",
                            .scratch_bytes = naive_scratch,
                            .launch = launch_rung<Naive>};

} // namespace
