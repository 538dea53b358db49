/* The cuda backend's vector-add rungs (seed 001), one kernel per rung, in
 * ladder order. Every kernel is correct for any n (0 launches nothing) and
 * for views that are not 16-byte aligned. */
/*
 * Contents: the vecadd rungs this file implements, in ladder order
 * (number = place on the ladder, as `warplab ladders vecadd` lists it):
 *    3. one_block -- one block of n threads
 *    4. grid -- grid of 1024-thread blocks
 *    5. grid_stride -- grid-stride loop
 *    6. vectorized -- 16-byte vector loads and stores
 *    7. vectorized_flat -- float4, one per thread, no loop
 *    8. h2d -- explicit copy in (1 array)
 *    9. d2h -- explicit copy out (1 array)
 *   10. managed -- managed memory, pages on demand
 *   11. managed_prefetch -- managed memory, prefetched
 *   12. copy -- device-to-device copy (reference)
 */
#include "cuda_backend.h"
#include "kernels/vecadd.h"

/* The launch's buffer i, as floats. */
static float *view_of(const wl_launch *launch, int i)
{
    return (float *)wl_view_ptr(launch->buf[i]);
}

/* warplab:rung vecadd one_block */
/* Rung one_block: the course's first kernel, vectoradd<<<1, N>>>. One thread
 * per element in a single block, so one SM does all the work; the rung's
 * limit (n <= max threads per block) is checked before the launch. */
__global__ void vecadd_one_block(const float *a, const float *b, float *c)
{
    int i = threadIdx.x;
    c[i] = a[i] + b[i];
}

static warplab_status launch_one_block(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    if (wl_launch_count(launch) == 0)
        return WARPLAB_OK;
    vecadd_one_block<<<1, (unsigned)wl_launch_count(launch), 0, wl_cuda_stream(backend)>>>(
        view_of(launch, VECADD_A), view_of(launch, VECADD_B), view_of(launch, VECADD_C));
    return WL_CUDA_LAUNCHED(backend, "vecadd one_block");
}
/* warplab:end */

static const wl_impl one_block_impl = {
    .ladder = "vecadd", .rung = "one_block", .launch = launch_one_block};

/* warplab:rung vecadd grid managed managed_prefetch */
/* Rung grid: ceil(n / 1024) blocks of 1024 threads, the course's
 * thread_block_size. Over one_block: every SM gets blocks, n is unlimited.
 * The bounds check is ours; the course's kernel writes past the end when n is
 * not a multiple of the block size. The managed rungs launch it too, as the
 * course's managed program does. */
__global__ void vecadd_grid(const float *a, const float *b, float *c, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}

static warplab_status grid_on(wl_backend *backend, const float *a, const float *b, float *c,
                              size_t n)
{
    if (n == 0)
        return WARPLAB_OK;
    const unsigned block = 1024;
    size_t blocks = (n + block - 1) / block;
    if (blocks > (size_t)backend->info.max_grid_dim[0])
        return wl_fail(backend, WARPLAB_ERROR_UNSUPPORTED,
                       "n=%zu needs %zu blocks, past the grid limit of %d", n, blocks,
                       backend->info.max_grid_dim[0]);
    vecadd_grid<<<(unsigned)blocks, block, 0, wl_cuda_stream(backend)>>>(a, b, c, n);
    return WL_CUDA_LAUNCHED(backend, "vecadd grid");
}
/* warplab:end */

/* warplab:rung vecadd grid */
static warplab_status launch_grid(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    return grid_on(backend, view_of(launch, VECADD_A), view_of(launch, VECADD_B),
                   view_of(launch, VECADD_C), wl_launch_count(launch));
}
/* warplab:end */

static const wl_impl grid_impl = {.ladder = "vecadd", .rung = "grid", .launch = launch_grid};

/* warplab:rung vecadd grid_stride */
/* Rung grid_stride: a grid that just fills the GPU (SMs x resident blocks),
 * each thread looping with stride gridDim x blockDim. Over grid: far fewer
 * blocks to schedule, and one launch shape for any n. */
__global__ void vecadd_grid_stride(const float *a, const float *b, float *c, size_t n)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        c[i] = a[i] + b[i];
}

static warplab_status grid_stride_on(wl_backend *backend, const float *a, const float *b, float *c,
                                     size_t n)
{
    if (n == 0)
        return WARPLAB_OK;
    const unsigned block = 256;
    vecadd_grid_stride<<<wl_cuda_grid_for(backend, n, block), block, 0, wl_cuda_stream(backend)>>>(
        a, b, c, n);
    return WL_CUDA_LAUNCHED(backend, "vecadd grid_stride");
}

static warplab_status launch_grid_stride(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    return grid_stride_on(backend, view_of(launch, VECADD_A), view_of(launch, VECADD_B),
                          view_of(launch, VECADD_C), wl_launch_count(launch));
}
/* warplab:end */

static const wl_impl grid_stride_impl = {
    .ladder = "vecadd", .rung = "grid_stride", .launch = launch_grid_stride};

/* warplab:rung vecadd vectorized */
/* Rung vectorized: float4 loads and stores, two of each in flight per loop
 * trip. Over grid_stride: a quarter of the memory instructions for the same
 * bytes, and more bytes in flight per thread, which is what HBM needs to
 * approach a copy's bandwidth. The first `head` elements (until the pointers
 * reach a 16-byte boundary) and the last n % 4 are done one at a time. */
__global__ void vecadd_vectorized(const float *a, const float *b, float *c, size_t n, size_t head)
{
    const size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    const size_t quads = (n - head) / 4;
    const float4 *a4 = reinterpret_cast<const float4 *>(a + head);
    const float4 *b4 = reinterpret_cast<const float4 *>(b + head);
    float4 *c4 = reinterpret_cast<float4 *>(c + head);
    size_t q = tid;
    for (; q + stride < quads; q += 2 * stride) {
        float4 x0 = a4[q], y0 = b4[q];
        float4 x1 = a4[q + stride], y1 = b4[q + stride];
        c4[q] = make_float4(x0.x + y0.x, x0.y + y0.y, x0.z + y0.z, x0.w + y0.w);
        c4[q + stride] = make_float4(x1.x + y1.x, x1.y + y1.y, x1.z + y1.z, x1.w + y1.w);
    }
    if (q < quads) {
        float4 x = a4[q], y = b4[q];
        c4[q] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
    }
    const size_t tail = head + quads * 4;
    if (tid < head)
        c[tid] = a[tid] + b[tid];
    if (tid < n - tail)
        c[tail + tid] = a[tail + tid] + b[tail + tid];
}

/* The float4 rungs' plan: float4 needs the three arrays equally misaligned
 * (otherwise no common head exists and the scalar loop is the honest
 * fallback: false); *head receives the elements before the first 16-byte
 * boundary (at most n). */
static bool float4_head(const float *a, const float *b, const float *c, size_t n, size_t *head)
{
    const uintptr_t misalign = (uintptr_t)a % 16;
    if ((uintptr_t)b % 16 != misalign || (uintptr_t)c % 16 != misalign || misalign % 4)
        return false;
    *head = misalign ? (16 - misalign) / 4 : 0;
    if (*head > n)
        *head = n;
    return true;
}

static warplab_status launch_vectorized(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    const float *a = view_of(launch, VECADD_A), *b = view_of(launch, VECADD_B);
    float *c = view_of(launch, VECADD_C);
    const size_t n = wl_launch_count(launch);
    if (n == 0)
        return WARPLAB_OK;
    size_t head = 0;
    if (!float4_head(a, b, c, n, &head))
        return grid_stride_on(backend, a, b, c, n);
    const unsigned block = 256;
    size_t quads = (n - head) / 4;
    vecadd_vectorized<<<wl_cuda_grid_for(backend, quads > 4 ? quads : 4, block), block, 0,
                        wl_cuda_stream(backend)>>>(a, b, c, n, head);
    return WL_CUDA_LAUNCHED(backend, "vecadd vectorized");
}
/* warplab:end */

static const wl_impl vectorized_impl = {
    .ladder = "vecadd", .rung = "vectorized", .launch = launch_vectorized};

/* warplab:rung vecadd vectorized_flat */
/* Rung vectorized_flat: the float4 accesses of vectorized, one quad of
 * each array per thread and a grid that covers them all (no loop). The
 * misaligned head and the tail, fewer than 4 elements each, go to the first
 * threads of the grid, as in vectorized. */
__global__ void vecadd_vectorized_flat(const float *a, const float *b, float *c, size_t n,
                                       size_t head, size_t quads)
{
    const size_t q = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (q < quads) {
        const float4 x = reinterpret_cast<const float4 *>(a + head)[q];
        const float4 y = reinterpret_cast<const float4 *>(b + head)[q];
        reinterpret_cast<float4 *>(c + head)[q] =
            make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
    }
    const size_t tail = head + quads * 4;
    if (q < head)
        c[q] = a[q] + b[q];
    if (q < n - tail)
        c[tail + q] = a[tail + q] + b[tail + q];
}

static warplab_status launch_vectorized_flat(wl_backend *backend, const wl_launch *launch,
                                             void *state)
{
    (void)state;
    const float *a = view_of(launch, VECADD_A), *b = view_of(launch, VECADD_B);
    float *c = view_of(launch, VECADD_C);
    const size_t n = wl_launch_count(launch);
    if (n == 0)
        return WARPLAB_OK;
    size_t head = 0;
    if (!float4_head(a, b, c, n, &head))
        return grid_stride_on(backend, a, b, c, n);
    const unsigned block = 256;
    const size_t quads = (n - head) / 4;
    /* Threads for the quads, and at least 4 for the head and the tail. */
    const size_t threads = quads > 4 ? quads : 4;
    const size_t blocks = (threads + block - 1) / block;
    if (blocks > (size_t)backend->info.max_grid_dim[0])
        return launch_vectorized(backend, launch, state);
    vecadd_vectorized_flat<<<(unsigned)blocks, block, 0, wl_cuda_stream(backend)>>>(a, b, c, n,
                                                                                    head, quads);
    return WL_CUDA_LAUNCHED(backend, "vecadd vectorized_flat");
}
/* warplab:end */

static const wl_impl vectorized_flat_impl = {
    .ladder = "vecadd", .rung = "vectorized_flat", .launch = launch_vectorized_flat};

/* warplab:rung vecadd h2d d2h */
/* ------------------------------------------------------------------------ */
/* Transfers, counted apart from the kernels                                */

typedef struct staging {
    float *host; /* page-locked */
    float *managed[3];
} staging;

static warplab_status staging_setup(wl_backend *backend, const wl_launch *launch, void **state)
{
    staging *s = (staging *)calloc(1, sizeof *s);
    if (!s)
        return wl_fail(backend, WARPLAB_ERROR_HOST_OUT_OF_MEMORY, "cannot allocate staging");
    *state = s;
    cudaError_t e = cudaMallocHost((void **)&s->host, wl_launch_count(launch) * sizeof(float) + 16);
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(s->host, view_of(launch, VECADD_A),
                            wl_launch_count(launch) * sizeof(float), cudaMemcpyDeviceToHost,
                            wl_cuda_stream(backend));
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(wl_cuda_stream(backend));
    return wl_cuda_check(backend, e, "allocating page-locked host memory");
}

static void staging_teardown(wl_backend *backend, void *state)
{
    (void)backend;
    staging *s = (staging *)state;
    if (!s)
        return;
    if (s->host)
        cudaFreeHost(s->host);
    for (int i = 0; i < 3; i++)
        if (s->managed[i])
            cudaFree(s->managed[i]);
    free(s);
}
/* warplab:end */

/* warplab:rung vecadd h2d */
/* Rung h2d: the copy of one input array from page-locked host memory. */
static warplab_status launch_h2d(wl_backend *backend, const wl_launch *launch, void *state)
{
    staging *s = (staging *)state;
    return wl_cuda_check(backend,
                         cudaMemcpyAsync(view_of(launch, VECADD_C), s->host,
                                         wl_launch_count(launch) * sizeof(float),
                                         cudaMemcpyHostToDevice, wl_cuda_stream(backend)),
                         "copy host to device");
}
/* warplab:end */

static const wl_impl h2d_impl = {.ladder = "vecadd",
                                 .rung = "h2d",
                                 .setup = staging_setup,
                                 .launch = launch_h2d,
                                 .teardown = staging_teardown};

/* warplab:rung vecadd d2h */
/* Rung d2h: the copy of one array back to page-locked host memory; finish()
 * puts it in c so that the harness can check what arrived. */
static warplab_status launch_d2h(wl_backend *backend, const wl_launch *launch, void *state)
{
    staging *s = (staging *)state;
    return wl_cuda_check(backend,
                         cudaMemcpyAsync(s->host, view_of(launch, VECADD_A),
                                         wl_launch_count(launch) * sizeof(float),
                                         cudaMemcpyDeviceToHost, wl_cuda_stream(backend)),
                         "copy device to host");
}

static warplab_status finish_d2h(wl_backend *backend, const wl_launch *launch, void *state)
{
    staging *s = (staging *)state;
    return wl_cuda_check(backend,
                         cudaMemcpyAsync(view_of(launch, VECADD_C), s->host,
                                         wl_launch_count(launch) * sizeof(float),
                                         cudaMemcpyHostToDevice, wl_cuda_stream(backend)),
                         "copy host to device");
}
/* warplab:end */

static const wl_impl d2h_impl = {.ladder = "vecadd",
                                 .rung = "d2h",
                                 .setup = staging_setup,
                                 .launch = launch_d2h,
                                 .finish = finish_d2h,
                                 .teardown = staging_teardown};

/* warplab:rung vecadd managed managed_prefetch */
/* Managed memory: never ask for more than the card has free (on these
 * machines, oversubscribing managed memory can hang the GPU). */
static warplab_status managed_setup(wl_backend *backend, const wl_launch *launch, void **state)
{
    if (!backend->info.managed_memory)
        return wl_fail(backend, WARPLAB_ERROR_UNSUPPORTED, "%s has no managed memory",
                       backend->info.name);
    size_t free_bytes = 0, total = 0;
    warplab_status status =
        wl_cuda_check(backend, cudaMemGetInfo(&free_bytes, &total), "cudaMemGetInfo");
    if (status != WARPLAB_OK)
        return status;
    const size_t bytes = wl_launch_count(launch) * sizeof(float) + 16;
    const size_t spare = (size_t)512 << 20;
    if (3 * bytes + spare > free_bytes)
        return wl_fail(backend, WARPLAB_ERROR_DEVICE_OUT_OF_MEMORY,
                       "managed memory: 3 arrays of %.2f GB need more than the %.2f GB free; "
                       "refusing to oversubscribe",
                       bytes / 1e9, free_bytes / 1e9);
    staging *s = (staging *)calloc(1, sizeof *s);
    if (!s)
        return wl_fail(backend, WARPLAB_ERROR_HOST_OUT_OF_MEMORY, "cannot allocate staging");
    *state = s;
    cudaStream_t stream = wl_cuda_stream(backend);
    cudaError_t e = cudaSuccess;
    for (int i = 0; i < 3 && e == cudaSuccess; i++)
        e = cudaMallocManaged((void **)&s->managed[i], bytes, cudaMemAttachGlobal);
    for (int i = 0; i < 2 && e == cudaSuccess; i++)
        e = cudaMemcpyAsync(s->managed[i], view_of(launch, i),
                            wl_launch_count(launch) * sizeof(float), cudaMemcpyDefault, stream);
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(stream);
    return wl_cuda_check(backend, e, "allocating managed memory");
}

/* Before each run, untimed: every page back on the host, as if the host had
 * just written the inputs. */
static warplab_status managed_prepare(wl_backend *backend, const wl_launch *launch, void *state)
{
    staging *s = (staging *)state;
    if (wl_launch_count(launch) == 0)
        return WARPLAB_OK; /* a zero-byte prefetch is an invalid argument */
    cudaMemLocation host;
    host.type = cudaMemLocationTypeHost;
    host.id = 0;
    cudaError_t e = cudaSuccess;
    for (int i = 0; i < 3 && e == cudaSuccess; i++)
        e = cudaMemPrefetchAsync(s->managed[i], wl_launch_count(launch) * sizeof(float), host, 0,
                                 wl_cuda_stream(backend));
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(wl_cuda_stream(backend));
    return wl_cuda_check(backend, e, "moving managed pages to the host");
}
/* warplab:end */

/* warplab:rung vecadd managed */
/* Rung managed: the course's launch (grid: ceil(n / 1024) blocks of 1024) on
 * managed arrays; pages fault over on first touch, inside the timed kernel. */
static warplab_status launch_managed(wl_backend *backend, const wl_launch *launch, void *state)
{
    staging *s = (staging *)state;
    return grid_on(backend, s->managed[0], s->managed[1], s->managed[2], wl_launch_count(launch));
}
/* warplab:end */

/* warplab:rung vecadd managed_prefetch */
/* Rung managed_prefetch: one bulk prefetch of the three arrays, then the
 * kernel, both timed. */
static warplab_status launch_managed_prefetch(wl_backend *backend, const wl_launch *launch,
                                              void *state)
{
    staging *s = (staging *)state;
    cudaMemLocation device;
    device.type = cudaMemLocationTypeDevice;
    int ordinal = 0;
    cudaGetDevice(&ordinal);
    device.id = ordinal;
    cudaError_t e = cudaSuccess;
    for (int i = 0; i < 3 && e == cudaSuccess && wl_launch_count(launch) > 0; i++)
        e = cudaMemPrefetchAsync(s->managed[i], wl_launch_count(launch) * sizeof(float), device, 0,
                                 wl_cuda_stream(backend));
    if (e != cudaSuccess)
        return wl_cuda_check(backend, e, "prefetching managed memory");
    return grid_on(backend, s->managed[0], s->managed[1], s->managed[2], wl_launch_count(launch));
}
/* warplab:end */

/* warplab:rung vecadd managed managed_prefetch */
static warplab_status managed_finish(wl_backend *backend, const wl_launch *launch, void *state)
{
    staging *s = (staging *)state;
    return wl_cuda_check(backend,
                         cudaMemcpyAsync(view_of(launch, VECADD_C), s->managed[2],
                                         wl_launch_count(launch) * sizeof(float), cudaMemcpyDefault,
                                         wl_cuda_stream(backend)),
                         "reading managed memory");
}
/* warplab:end */

static const wl_impl managed_impl = {.ladder = "vecadd",
                                     .rung = "managed",
                                     .setup = managed_setup,
                                     .prepare = managed_prepare,
                                     .launch = launch_managed,
                                     .finish = managed_finish,
                                     .teardown = staging_teardown};

static const wl_impl managed_prefetch_impl = {.ladder = "vecadd",
                                              .rung = "managed_prefetch",
                                              .setup = managed_setup,
                                              .prepare = managed_prepare,
                                              .launch = launch_managed_prefetch,
                                              .finish = managed_finish,
                                              .teardown = staging_teardown};

/* warplab:rung vecadd copy */
/* Rung copy (reference): cudaMemcpy of one array, device to device. */
static warplab_status launch_copy(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    return wl_cuda_check(backend,
                         cudaMemcpyAsync(view_of(launch, VECADD_C), view_of(launch, VECADD_A),
                                         wl_launch_count(launch) * sizeof(float),
                                         cudaMemcpyDeviceToDevice, wl_cuda_stream(backend)),
                         "device-to-device copy");
}
/* warplab:end */

static const wl_impl copy_impl = {.ladder = "vecadd", .rung = "copy", .launch = launch_copy};

extern "C" const wl_impl *const wl_cuda_vecadd_impls[] = {&one_block_impl,
                                                          &grid_impl,
                                                          &grid_stride_impl,
                                                          &vectorized_impl,
                                                          &vectorized_flat_impl,
                                                          &h2d_impl,
                                                          &d2h_impl,
                                                          &managed_impl,
                                                          &managed_prefetch_impl,
                                                          &copy_impl,
                                                          NULL};
