/* Rung single_pass (past the course: Hopper's 16-byte accesses, loads in
 * flight, one launch).
 *
 * Over atomic_block: 16-byte loads after a scalar head to alignment, 4 in
 * flight per thread, a grid of every SM's resident blocks, and one launch
 * with no atomic on the result: each block writes a partial, and the last
 * block to finish (an atomic ticket after a __threadfence) reduces the
 * partials and resets the counter to 0 for the next launch. Bytes in flight
 * are what an H100's bandwidth needs; CUB needs a second launch for the last
 * step. A misaligned start is peeled: the first `head` elements (until a
 * 16-byte boundary) and the last (n - head) % W are read one at a time, by
 * the first threads of the grid (a block has 512 >= 4 of them). */
#include "reduce_rungs.cuh"

#include <atomic>

namespace
{

constexpr unsigned ONE_PASS_THREADS = 512;
constexpr unsigned ONE_PASS_LOADS = 4; /* 16-byte loads in flight per thread */
/* Resident blocks asked of the compiler (__launch_bounds__): every thread an
 * SM can hold, 2048 from sm_80 on (at most 32 registers each; ptxas fits the
 * kernel in 30-32 without spilling), 1024 on Turing. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
constexpr unsigned ONE_PASS_MIN_BLOCKS = 2;
#else
constexpr unsigned ONE_PASS_MIN_BLOCKS = 4;
#endif

template <typename T> struct Vector16;
template <> struct Vector16<int> {
    using type = int4;
};
template <> struct Vector16<float> {
    using type = float4;
};
template <> struct Vector16<double> {
    using type = double2;
};

template <typename T, typename Op> __device__ inline T fold(int4 v)
{
    return Op::apply(Op::apply(v.x, v.y), Op::apply(v.z, v.w));
}
template <typename T, typename Op> __device__ inline T fold(float4 v)
{
    return Op::apply(Op::apply(v.x, v.y), Op::apply(v.z, v.w));
}
template <typename T, typename Op> __device__ inline T fold(double2 v)
{
    return Op::apply(v.x, v.y);
}

template <typename T, typename Op>
__global__ void __launch_bounds__(ONE_PASS_THREADS, ONE_PASS_MIN_BLOCKS)
    single_pass_kernel(const T *__restrict__ in, size_t n, size_t head, T *__restrict__ partials,
                       unsigned *__restrict__ tickets, T *__restrict__ out)
{
    using V = typename Vector16<T>::type;
    constexpr size_t WIDTH = sizeof(V) / sizeof(T);
    const size_t tid = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    T v = identity<T, Op>();
    if (tid < head)
        v = Op::apply(v, in[tid]);
    const V *vectors = reinterpret_cast<const V *>(in + head);
    const size_t count = (n - head) / WIDTH;
    size_t k = tid;
    for (; k + (ONE_PASS_LOADS - 1) * stride < count; k += ONE_PASS_LOADS * stride) {
        V loaded[ONE_PASS_LOADS];
#pragma unroll
        for (unsigned j = 0; j < ONE_PASS_LOADS; j++)
            loaded[j] = __ldg(vectors + k + j * stride);
#pragma unroll
        for (unsigned j = 0; j < ONE_PASS_LOADS; j++)
            v = Op::apply(v, fold<T, Op>(loaded[j]));
    }
    for (; k < count; k += stride)
        v = Op::apply(v, fold<T, Op>(__ldg(vectors + k)));
    const size_t tail = head + count * WIDTH;
    if (tid < n - tail)
        v = Op::apply(v, in[tail + tid]);

    v = block_reduce<T, Op, true>(v);
    if (gridDim.x == 1) {
        if (threadIdx.x == 0)
            *out = v;
        return;
    }
    __shared__ bool last_block;
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = v;
        __threadfence(); /* release: the partial is visible before the ticket */
        last_block = atomicAdd(tickets, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last_block)
        return;
    __threadfence(); /* acquire: every other block's partial is visible */
    T r = identity<T, Op>();
    for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x)
        r = Op::apply(r, __ldcg(partials + b)); /* from L2: L1 may hold stale lines */
    r = block_reduce<T, Op, true>(r);
    if (threadIdx.x == 0) {
        *out = r;
        *tickets = 0;
    }
}

/* Scratch: the ticket counter, then one partial per block of the largest
 * grid (every SM full of 512-thread blocks). */
constexpr size_t TICKET_BYTES = 256;

size_t single_pass_max_blocks(const wl_backend *backend)
{
    const int per_sm = backend->info.max_threads_per_multiprocessor > 0
                           ? backend->info.max_threads_per_multiprocessor / (int)ONE_PASS_THREADS
                           : 4;
    return (size_t)(backend->info.multiprocessors > 0 ? backend->info.multiprocessors : 1) *
           (size_t)(per_sm > 0 ? per_sm : 1);
}

size_t single_pass_scratch(wl_backend *backend, const wl_problem *problem)
{
    return TICKET_BYTES + single_pass_max_blocks(backend) * warplab_dtype_size(problem->dtype);
}

typedef struct single_pass_state {
    size_t grid; /* blocks resident at once on the whole GPU */
} single_pass_state;

/* Resident blocks per SM of a kernel, asked of the runtime once per device
 * (the library calls setup on every operation). */
constexpr int OCCUPANCY_DEVICES = 16;

template <typename T, typename Op> cudaError_t single_pass_per_sm(int device, int *per_sm)
{
    static std::atomic<int> cached[OCCUPANCY_DEVICES];
    const bool cacheable = device >= 0 && device < OCCUPANCY_DEVICES;
    if (cacheable && (*per_sm = cached[device].load(std::memory_order_relaxed)) > 0)
        return cudaSuccess;
    cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(per_sm, single_pass_kernel<T, Op>,
                                                                  ONE_PASS_THREADS, 0);
    if (e == cudaSuccess && cacheable)
        cached[device].store(*per_sm, std::memory_order_relaxed);
    return e;
}

template <typename T, typename Op> struct SinglePass {
    /* Untimed: the grid from the kernel's occupancy, and the counter zeroed
     * (each launch leaves it at zero again, so a workspace this rung had last
     * time, scratch_kept, needs no zeroing: no memset on the library's hot
     * path). */
    static warplab_status setup(wl_backend *backend, const wl_launch *launch, void **state)
    {
        int per_sm = 0;
        cudaError_t e = single_pass_per_sm<T, Op>(backend->info.index, &per_sm);
        if (e == cudaSuccess && !launch->scratch_kept)
            e = cudaMemsetAsync(launch->scratch.handle, 0, sizeof(unsigned),
                                wl_cuda_stream(backend));
        warplab_status status = wl_cuda_check(backend, e, "reduce single_pass setup");
        if (status != WARPLAB_OK)
            return status;
        single_pass_state *s = static_cast<single_pass_state *>(malloc(sizeof *s));
        if (!s)
            return wl_fail(backend, WARPLAB_ERROR_HOST_OUT_OF_MEMORY, "out of host memory");
        size_t grid = (size_t)backend->info.multiprocessors * (size_t)(per_sm > 0 ? per_sm : 1);
        const size_t most = single_pass_max_blocks(backend);
        s->grid = grid < most ? grid : most;
        *state = s;
        return WARPLAB_OK;
    }

    static warplab_status launch(wl_backend *backend, const wl_launch *launch, void *state)
    {
        const single_pass_state *s = static_cast<const single_pass_state *>(state);
        const T *in = input_of<T>(launch);
        const uintptr_t address = reinterpret_cast<uintptr_t>(in);
        if (address % sizeof(T))
            return wl_fail(backend, WARPLAB_ERROR_UNSUPPORTED,
                           "reduce single_pass: the input is not aligned to its element size");
        constexpr size_t WIDTH = 16 / sizeof(T);
        const size_t n = wl_launch_count(launch);
        size_t head = (16 - address % 16) % 16 / sizeof(T);
        if (head > n)
            head = n;
        const size_t per_block_trip = (size_t)ONE_PASS_THREADS * ONE_PASS_LOADS;
        const size_t blocks = blocks_for((n - head) / WIDTH, per_block_trip);
        const size_t grid = blocks < s->grid ? blocks : s->grid;
        unsigned char *scratch = static_cast<unsigned char *>(wl_view_ptr(launch->scratch));
        single_pass_kernel<T, Op><<<(unsigned)grid, ONE_PASS_THREADS, 0, wl_cuda_stream(backend)>>>(
            in, n, head, reinterpret_cast<T *>(scratch + TICKET_BYTES),
            reinterpret_cast<unsigned *>(scratch), output_of<T>(launch));
        return WL_CUDA_LAUNCHED(backend, "reduce single_pass");
    }
};

warplab_status single_pass_setup(wl_backend *backend, const wl_launch *launch, void **state)
{
    return with_types<SinglePass>(
        launch->problem, [&](auto rung) { return decltype(rung)::setup(backend, launch, state); });
}

void free_state(wl_backend *backend, void *state)
{
    (void)backend;
    free(state);
}

const wl_impl single_pass_impl = {.ladder = "reduce",
                                  .rung = "single_pass",
                                  .scratch_bytes = single_pass_scratch,
                                  .setup = single_pass_setup,
                                  .launch = launch_rung<SinglePass>,
                                  .teardown = free_state};

} // namespace
