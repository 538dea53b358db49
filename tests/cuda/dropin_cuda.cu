/* warplab in a CUDA program: memory from cudaMalloc, cudaMallocAsync and
 * cudaMallocManaged (whole, and exact-size views at unaligned offsets inside
 * a larger allocation), the caller's streams (warplab's work in order with
 * the caller's kernels, asynchronous: a call returns while the stream is
 * still busy; a new stream is ordered after the old), device results, and a
 * sequence of warplab calls captured into a CUDA graph and replayed.
 *
 * Exits 77 (CTest's skip) without a CUDA GPU. */
#include "cuda_check.h"
#include "warplab.h"

#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

static warplab_context *ctx = nullptr;

__global__ void scale(float *x, size_t n, float by)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        x[i] *= by;
}

/* Keeps the stream busy for about `cycles` clock ticks. */
__global__ void spin(long long cycles)
{
    const long long start = clock64();
    while (clock64() - start < cycles) {
    }
}

static float value_at(size_t i, unsigned salt)
{
    unsigned h = (unsigned)i * 2654435761u ^ salt * 40503u;
    h ^= h >> 13;
    return (float)(h % 2001) / 1000.0f - 1.0f;
}

static std::vector<float> pattern(size_t n, unsigned salt)
{
    std::vector<float> v(n);
    for (size_t i = 0; i < n; i++)
        v[i] = value_at(i, salt);
    return v;
}

/* vecadd, both reductions and a transpose on three wrapped arrays of n
 * floats at a, b, c (device addresses of any 4-byte alignment). */
static void run_all_on(float *a, float *b, float *c, size_t n, cudaStream_t stream,
                       const char *what)
{
    const std::vector<float> ha = pattern(n, 1), hb = pattern(n, 2);
    CUDA(cudaMemcpyAsync(a, ha.data(), n * 4, cudaMemcpyHostToDevice, stream));
    CUDA(cudaMemcpyAsync(b, hb.data(), n * 4, cudaMemcpyHostToDevice, stream));
    warplab_buffer *wa = nullptr, *wb = nullptr, *wc = nullptr;
    CHECK_OK(ctx, warplab_buffer_wrap(ctx, a, n * 4, &wa));
    CHECK_OK(ctx, warplab_buffer_wrap(ctx, b, n * 4, &wb));
    CHECK_OK(ctx, warplab_buffer_wrap(ctx, c, n * 4, &wc));
    CHECK_OK(ctx, warplab_vecadd(ctx, wa, wb, wc, n));
    std::vector<float> hc(n);
    CUDA(cudaMemcpyAsync(hc.data(), c, n * 4, cudaMemcpyDeviceToHost, stream));
    CUDA(cudaStreamSynchronize(stream));
    size_t bad = 0;
    double sum = 0.0, sum_abs = 0.0;
    for (size_t i = 0; i < n; i++) {
        bad += hc[i] != ha[i] + hb[i];
        sum += hc[i];
        sum_abs += fabs(hc[i]);
    }
    if (bad)
        fprintf(stderr, "%s: vecadd n=%zu: %zu wrong\n", what, n, bad);
    CHECK(bad == 0);
    float host_sum = 0.0f;
    CHECK_OK(ctx, warplab_reduce(ctx, WARPLAB_FLOAT32, WARPLAB_REDUCE_SUM, wc, n, &host_sum));
    CHECK(fabs(host_sum - sum) <= n * 1.2e-7 * sum_abs + 1e-6);
    /* The sum into a (its last element), on the device. */
    CHECK_OK(ctx, warplab_reduce_to_buffer(ctx, WARPLAB_FLOAT32, WARPLAB_REDUCE_SUM, wc, n, wa,
                                           (n - 1) * 4));
    float device_sum = 0.0f;
    CUDA(cudaMemcpyAsync(&device_sum, a + n - 1, 4, cudaMemcpyDeviceToHost, stream));
    CUDA(cudaStreamSynchronize(stream));
    CHECK(device_sum == host_sum);
    /* c seen as rows x cols, transposed into b. */
    size_t rows = 1;
    for (size_t r = 2; r * r <= n; r++)
        if (n % r == 0)
            rows = r;
    const size_t cols = n / rows;
    CHECK_OK(ctx, warplab_transpose(ctx, WARPLAB_FLOAT32, rows, cols, wc, 0, wb, 0));
    std::vector<float> ht(n);
    CUDA(cudaMemcpyAsync(ht.data(), b, n * 4, cudaMemcpyDeviceToHost, stream));
    CUDA(cudaStreamSynchronize(stream));
    bad = 0;
    for (size_t r = 0; r < rows; r++)
        for (size_t col = 0; col < cols; col++)
            bad += ht[col * rows + r] != hc[r * cols + col];
    if (bad)
        fprintf(stderr, "%s: transpose %zux%zu: %zu wrong\n", what, rows, cols, bad);
    CHECK(bad == 0);
    warplab_buffer_destroy(wa);
    warplab_buffer_destroy(wb);
    warplab_buffer_destroy(wc);
}

static void check_allocations(cudaStream_t stream)
{
    /* WARPLAB_TEST_SMALL (under the sanitizers): the largest size left out. */
    static const size_t sizes[] = {1, 7, 4096, 1000003, 3001 * 4000};
    const bool small = getenv("WARPLAB_TEST_SMALL") != nullptr;
    for (size_t n : sizes) {
        if (small && n > 1000003)
            continue;
        /* Whole cudaMalloc allocations, exact size. */
        float *a, *b, *c;
        CUDA(cudaMalloc(&a, n * 4));
        CUDA(cudaMalloc(&b, n * 4));
        CUDA(cudaMalloc(&c, n * 4));
        run_all_on(a, b, c, n, stream, "cudaMalloc");
        CUDA(cudaFree(a));
        CUDA(cudaFree(b));
        CUDA(cudaFree(c));
        /* One allocation, three exact-size views at unaligned offsets (4,
         * 8 and 12 bytes past 16-byte boundaries, different for each). The
         * allocation ends where the last view ends. */
        char *big;
        const size_t stride = (n * 4 + 15) / 16 * 16 + 16;
        CUDA(cudaMalloc(&big, 2 * stride + 12 + n * 4));
        run_all_on(reinterpret_cast<float *>(big + 4), reinterpret_cast<float *>(big + stride + 8),
                   reinterpret_cast<float *>(big + 2 * stride + 12), n, stream,
                   "offsets into one allocation");
        CUDA(cudaFree(big));
        /* cudaMallocAsync (stream-ordered) and managed memory. */
        float *x, *y, *z;
        CUDA(cudaMallocAsync(&x, n * 4, stream));
        CUDA(cudaMallocAsync(&y, n * 4, stream));
        CUDA(cudaMallocManaged(&z, n * 4));
        run_all_on(x, y, z, n, stream, "cudaMallocAsync/managed");
        CUDA(cudaFreeAsync(x, stream));
        CUDA(cudaFreeAsync(y, stream));
        CUDA(cudaStreamSynchronize(stream));
        CUDA(cudaFree(z));
    }
    /* Host memory CUDA does not know is refused; wrapped memory is not freed. */
    std::vector<float> host(16);
    warplab_buffer *refused = nullptr;
    CHECK(warplab_buffer_wrap(ctx, host.data(), 64, &refused) == WARPLAB_ERROR_INVALID_ARGUMENT);
    float *kept;
    CUDA(cudaMalloc(&kept, 64));
    warplab_buffer *w = nullptr;
    CHECK_OK(ctx, warplab_buffer_wrap(ctx, kept, 64, &w));
    warplab_buffer_destroy(w);
    CUDA(cudaMemset(kept, 0, 64)); /* still ours */
    CUDA(cudaFree(kept));
}

/* The caller's kernels and warplab's on one stream, no waits between:
 * a *= 2; c = a + b; c *= 3; sum of c into r; then one copy back. A call
 * returns while the stream is still busy with the caller's long kernel. */
static void check_stream_order(cudaStream_t stream)
{
    const size_t n = 1 << 22;
    float *a, *b, *c, *r;
    CUDA(cudaMalloc(&a, n * 4));
    CUDA(cudaMalloc(&b, n * 4));
    CUDA(cudaMalloc(&c, n * 4));
    CUDA(cudaMalloc(&r, 16));
    warplab_buffer *wa, *wb, *wc, *wr;
    CHECK_OK(ctx, warplab_buffer_wrap(ctx, a, n * 4, &wa));
    CHECK_OK(ctx, warplab_buffer_wrap(ctx, b, n * 4, &wb));
    CHECK_OK(ctx, warplab_buffer_wrap(ctx, c, n * 4, &wc));
    CHECK_OK(ctx, warplab_buffer_wrap(ctx, r, 16, &wr));
    /* Defined contents before anything reads them (initcheck). */
    CUDA(cudaMemset(a, 0, n * 4));
    CUDA(cudaMemset(b, 0, n * 4));
    CUDA(cudaMemset(r, 0, 16));
    /* Once at these sizes, so that the workspace exists. */
    CHECK_OK(ctx, warplab_vecadd(ctx, wa, wb, wc, n));
    CHECK_OK(ctx, warplab_reduce_to_buffer(ctx, WARPLAB_FLOAT32, WARPLAB_REDUCE_SUM, wc, n, wr, 8));
    CHECK_OK(ctx, warplab_context_synchronize(ctx));

    const std::vector<float> ha = pattern(n, 3), hb = pattern(n, 4);
    CUDA(cudaMemcpyAsync(a, ha.data(), n * 4, cudaMemcpyHostToDevice, stream));
    CUDA(cudaMemcpyAsync(b, hb.data(), n * 4, cudaMemcpyHostToDevice, stream));
    CUDA(cudaStreamSynchronize(stream));
    spin<<<1, 1, 0, stream>>>(200LL * 1000 * 1000); /* ~0.1 s at 2 GHz */
    scale<<<256, 256, 0, stream>>>(a, n, 2.0f);
    CHECK_OK(ctx, warplab_vecadd(ctx, wa, wb, wc, n));
    CHECK_OK(ctx, warplab_reduce_to_buffer(ctx, WARPLAB_FLOAT32, WARPLAB_REDUCE_SUM, wc, n, wr, 8));
    /* Nothing waited: the caller's spin is still running. */
    CHECK(cudaStreamQuery(stream) == cudaErrorNotReady);
    scale<<<256, 256, 0, stream>>>(c, n, 3.0f);
    CHECK_OK(ctx, warplab_reduce_to_buffer(ctx, WARPLAB_FLOAT32, WARPLAB_REDUCE_MAX, wc, n, wr, 4));
    std::vector<float> hc(n);
    float result[4];
    CUDA(cudaMemcpyAsync(hc.data(), c, n * 4, cudaMemcpyDeviceToHost, stream));
    CUDA(cudaMemcpyAsync(result, r, 16, cudaMemcpyDeviceToHost, stream));
    CHECK_OK(ctx, warplab_context_synchronize(ctx));
    size_t bad = 0;
    double sum = 0.0, sum_abs = 0.0;
    float most = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        const float v = 2.0f * ha[i] + hb[i];
        bad += hc[i] != 3.0f * v;
        sum += v;
        sum_abs += fabs(v);
        most = fmaxf(most, 3.0f * v);
    }
    CHECK(bad == 0);
    CHECK(fabs(result[2] - sum) <= n * 1.2e-7 * sum_abs);
    CHECK(result[1] == most);

    /* A second stream of the caller's: work queued there after the switch
     * comes after what warplab queued on the first (the spin delays it). */
    cudaStream_t second;
    CUDA(cudaStreamCreateWithFlags(&second, cudaStreamNonBlocking));
    spin<<<1, 1, 0, stream>>>(100LL * 1000 * 1000);
    CHECK_OK(ctx, warplab_vecadd(ctx, wb, wb, wc, n)); /* c = 2b, after the spin */
    CHECK_OK(ctx, warplab_context_set_stream(ctx, second));
    CHECK_OK(ctx, warplab_reduce_to_buffer(ctx, WARPLAB_FLOAT32, WARPLAB_REDUCE_MAX, wc, n, wr, 0));
    float max2 = 0.0f;
    CUDA(cudaMemcpyAsync(&max2, r, 4, cudaMemcpyDeviceToHost, second));
    CUDA(cudaStreamSynchronize(second));
    float want = -INFINITY;
    for (size_t i = 0; i < n; i++)
        want = fmaxf(want, 2.0f * hb[i]);
    CHECK(max2 == want);
    /* The host-result reduction waits for the bound stream. */
    float host_max = 0.0f;
    CHECK_OK(ctx, warplab_reduce(ctx, WARPLAB_FLOAT32, WARPLAB_REDUCE_MAX, wc, n, &host_max));
    CHECK(host_max == want);
    CHECK_OK(ctx, warplab_context_set_stream(ctx, stream));
    CUDA(cudaStreamSynchronize(stream));
    CUDA(cudaStreamDestroy(second));
    warplab_buffer *all[] = {wa, wb, wc, wr};
    for (warplab_buffer *w : all)
        warplab_buffer_destroy(w);
    CUDA(cudaFree(a));
    CUDA(cudaFree(b));
    CUDA(cudaFree(c));
    CUDA(cudaFree(r));
}

/* A graph of: copy new input in (from pinned memory), c = a + b, the max of
 * c into r[1], the sum of c into r[3] (multi-block: the ticket counter must
 * be back at zero after every replay), c^T into t. Replayed with new inputs. */
static void check_graph(cudaStream_t stream)
{
    const size_t rows = 1531, cols = 2003, n = rows * cols;
    float *a, *b, *c, *t, *r, *pinned;
    CUDA(cudaMalloc(&a, n * 4));
    CUDA(cudaMalloc(&b, n * 4));
    CUDA(cudaMalloc(&c, n * 4));
    CUDA(cudaMalloc(&t, n * 4 + 4));
    CUDA(cudaMalloc(&r, 16));
    CUDA(cudaMallocHost(&pinned, n * 4));
    warplab_buffer *wa, *wb, *wc, *wt, *wr;
    CHECK_OK(ctx, warplab_buffer_wrap(ctx, a, n * 4, &wa));
    CHECK_OK(ctx, warplab_buffer_wrap(ctx, b, n * 4, &wb));
    CHECK_OK(ctx, warplab_buffer_wrap(ctx, c, n * 4, &wc));
    CHECK_OK(ctx, warplab_buffer_wrap(ctx, t + 1, n * 4, &wt)); /* unaligned output */
    CHECK_OK(ctx, warplab_buffer_wrap(ctx, r, 16, &wr));
    const std::vector<float> hb = pattern(n, 6);
    CUDA(cudaMemcpy(b, hb.data(), n * 4, cudaMemcpyHostToDevice));
    CUDA(cudaMemset(r, 0, 16));
    memset(pinned, 0, n * 4);
    auto sequence = [&]() {
        CUDA(cudaMemcpyAsync(a, pinned, n * 4, cudaMemcpyHostToDevice, stream));
        CHECK_OK(ctx, warplab_vecadd(ctx, wa, wb, wc, n));
        CHECK_OK(ctx,
                 warplab_reduce_to_buffer(ctx, WARPLAB_FLOAT32, WARPLAB_REDUCE_MAX, wc, n, wr, 4));
        CHECK_OK(ctx,
                 warplab_reduce_to_buffer(ctx, WARPLAB_FLOAT32, WARPLAB_REDUCE_SUM, wc, n, wr, 12));
        CHECK_OK(ctx, warplab_transpose(ctx, WARPLAB_FLOAT32, rows, cols, wc, 0, wt, 0));
    };
    /* Once outside the graph: the workspace is made here, not in capture. */
    sequence();
    CUDA(cudaStreamSynchronize(stream));
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    sequence();
    CUDA(cudaStreamEndCapture(stream, &graph));
    CUDA(cudaGraphInstantiate(&exec, graph, 0));
    std::vector<float> ht(n);
    for (int replay = 0; replay < 3 && exec; replay++) {
        for (size_t i = 0; i < n; i++)
            pinned[i] = value_at(i, 10 + (unsigned)replay);
        CUDA(cudaGraphLaunch(exec, stream));
        float result[4];
        CUDA(cudaMemcpyAsync(result, r, 16, cudaMemcpyDeviceToHost, stream));
        CUDA(cudaMemcpyAsync(ht.data(), t + 1, n * 4, cudaMemcpyDeviceToHost, stream));
        CUDA(cudaStreamSynchronize(stream));
        float most = -INFINITY;
        double sum = 0.0, sum_abs = 0.0;
        size_t bad = 0;
        for (size_t i = 0; i < rows; i++)
            for (size_t j = 0; j < cols; j++) {
                const float v = pinned[i * cols + j] + hb[i * cols + j];
                most = fmaxf(most, v);
                sum += v;
                sum_abs += fabs(v);
                bad += ht[j * rows + i] != v;
            }
        if (bad || result[1] != most)
            fprintf(stderr, "graph replay %d: %zu wrong, max %g vs %g\n", replay, bad,
                    (double)result[1], (double)most);
        CHECK(bad == 0);
        CHECK(result[1] == most);
        CHECK(fabs(result[3] - sum) <= n * 1.2e-7 * sum_abs);
    }
    if (exec)
        CUDA(cudaGraphExecDestroy(exec));
    if (graph)
        CUDA(cudaGraphDestroy(graph));
    warplab_buffer *all[] = {wa, wb, wc, wt, wr};
    for (warplab_buffer *w : all)
        warplab_buffer_destroy(w);
    CUDA(cudaFree(a));
    CUDA(cudaFree(b));
    CUDA(cudaFree(c));
    CUDA(cudaFree(t));
    CUDA(cudaFree(r));
    CUDA(cudaFreeHost(pinned));
}

int main()
{
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        printf("skipped: no CUDA GPU\n");
        return TEST_SKIP;
    }
    if (warplab_context_create(WARPLAB_BACKEND_CUDA, 0, &ctx) != WARPLAB_OK) {
        printf("skipped: %s\n", warplab_last_error(nullptr));
        return TEST_SKIP;
    }
    cudaStream_t stream;
    CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CHECK_OK(ctx, warplab_context_set_stream(ctx, stream));
    check_allocations(stream);
    check_stream_order(stream);
    check_graph(stream);
    CHECK_OK(ctx, warplab_context_set_stream(ctx, nullptr));
    warplab_context_destroy(ctx);
    /* The caller's stream outlives the context. */
    CUDA(cudaStreamSynchronize(stream));
    CUDA(cudaStreamDestroy(stream));
    printf("dropin_cuda: %d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
