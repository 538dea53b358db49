/* warplab_scan in a CUDA program: the caller's cudaMalloc'd arrays and
 * stream; the look-back's flags on every launch: the first launch on a
 * fresh context, back-to-back launches with no wait between them, a scan
 * captured into a CUDA graph and replayed on new inputs, a capture that is
 * abandoned (its graph never launched) followed by direct calls and by the
 * replays of the earlier graph, and in place. Each output is poisoned
 * (all bits set) before its scan, so an element the scan leaves unwritten
 * shows as wrong. (That also keeps compute-sanitizer's initcheck, which
 * does not see the bulk copy engine's stores, from taking the scan's
 * output for unwritten: docs/DECISIONS.md.)
 *
 * Exits 77 (CTest's skip) without a CUDA GPU. */
#include "cuda_check.h"
#include "warplab.h"

#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

static warplab_context *ctx = nullptr;

/* Integers that wrap (the int32 scan is exact: any flag read wrong shows). */
static std::vector<int32_t> pattern(size_t n, unsigned salt)
{
    std::vector<int32_t> v(n);
    for (size_t i = 0; i < n; i++) {
        uint32_t h = (uint32_t)i * 2654435761u ^ salt * 40503u;
        h ^= h >> 13;
        h *= 2246822519u;
        v[i] = (int32_t)h;
    }
    return v;
}

/* How many of the n elements of got differ from the scan of x. */
static size_t wrong(const std::vector<int32_t> &x, const std::vector<int32_t> &got, bool exclusive)
{
    uint32_t acc = 0;
    size_t bad = 0;
    for (size_t i = 0; i < x.size(); i++) {
        if (exclusive)
            bad += got[i] != (int32_t)acc;
        acc += (uint32_t)x[i];
        if (!exclusive)
            bad += got[i] != (int32_t)acc;
    }
    return bad;
}

static void check_direct(cudaStream_t stream, size_t n)
{
    int32_t *in, *out;
    CUDA(cudaMalloc(&in, n * 4));
    CUDA(cudaMalloc(&out, n * 4 + 4));
    warplab_buffer *win = nullptr, *wout = nullptr;
    CHECK_OK(ctx, warplab_buffer_wrap(ctx, in, n * 4, &win));
    CHECK_OK(ctx, warplab_buffer_wrap(ctx, out + 1, n * 4, &wout)); /* not on 16 bytes */
    std::vector<std::vector<int32_t>> inputs;
    for (unsigned k = 0; k < 4; k++)
        inputs.push_back(pattern(n, k + 1));
    std::vector<int32_t> got(n);
    /* Back-to-back: the four scans are queued before any is waited for,
     * each on the input the one before it left. */
    for (unsigned k = 0; k < 4; k++) {
        CUDA(cudaMemcpyAsync(in, inputs[k].data(), n * 4, cudaMemcpyHostToDevice, stream));
        CUDA(cudaMemsetAsync(out, 0xff, n * 4 + 4, stream));
        CHECK_OK(ctx, warplab_scan(ctx, WARPLAB_INT32, WARPLAB_REDUCE_SUM,
                                   k % 2 ? WARPLAB_SCAN_EXCLUSIVE : WARPLAB_SCAN_INCLUSIVE, win,
                                   wout, n));
        CUDA(cudaMemcpyAsync(got.data(), out + 1, n * 4, cudaMemcpyDeviceToHost, stream));
        CUDA(cudaStreamSynchronize(stream));
        const size_t bad = wrong(inputs[k], got, k % 2);
        if (bad)
            fprintf(stderr, "direct scan %u of n=%zu: %zu wrong\n", k, n, bad);
        CHECK(bad == 0);
    }
    /* In place on the caller's aligned array. */
    CUDA(cudaMemcpyAsync(in, inputs[0].data(), n * 4, cudaMemcpyHostToDevice, stream));
    CHECK_OK(ctx, warplab_scan(ctx, WARPLAB_INT32, WARPLAB_REDUCE_SUM, WARPLAB_SCAN_INCLUSIVE, win,
                               win, n));
    CUDA(cudaMemcpyAsync(got.data(), in, n * 4, cudaMemcpyDeviceToHost, stream));
    CUDA(cudaStreamSynchronize(stream));
    CHECK(wrong(inputs[0], got, false) == 0);
    warplab_buffer_destroy(win);
    warplab_buffer_destroy(wout);
    CUDA(cudaFree(in));
    CUDA(cudaFree(out));
}

static void check_graph(cudaStream_t stream, size_t n)
{
    int32_t *in, *out, *pinned;
    CUDA(cudaMalloc(&in, n * 4));
    CUDA(cudaMalloc(&out, n * 4));
    CUDA(cudaMallocHost(&pinned, n * 4));
    warplab_buffer *win = nullptr, *wout = nullptr;
    CHECK_OK(ctx, warplab_buffer_wrap(ctx, in, n * 4, &win));
    CHECK_OK(ctx, warplab_buffer_wrap(ctx, out, n * 4, &wout));
    auto sequence = [&]() {
        CUDA(cudaMemcpyAsync(in, pinned, n * 4, cudaMemcpyHostToDevice, stream));
        CUDA(cudaMemsetAsync(out, 0xff, n * 4, stream));
        CHECK_OK(ctx, warplab_scan(ctx, WARPLAB_INT32, WARPLAB_REDUCE_SUM, WARPLAB_SCAN_INCLUSIVE,
                                   win, wout, n));
    };
    memset(pinned, 0, n * 4);
    sequence(); /* the workspace is made here, not in the capture */
    CUDA(cudaStreamSynchronize(stream));
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    sequence();
    CUDA(cudaStreamEndCapture(stream, &graph));
    CUDA(cudaGraphInstantiate(&exec, graph, 0));
    std::vector<int32_t> got(n);
    for (int round = 0; round < 6 && exec; round++) {
        const std::vector<int32_t> x = pattern(n, 100 + (unsigned)round);
        memcpy(pinned, x.data(), n * 4);
        if (round == 2) {
            /* An abandoned capture: queued into a graph that never runs. */
            cudaGraph_t dropped = nullptr;
            CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
            CHECK_OK(ctx, warplab_scan(ctx, WARPLAB_INT32, WARPLAB_REDUCE_SUM,
                                       WARPLAB_SCAN_EXCLUSIVE, win, wout, n));
            CUDA(cudaStreamEndCapture(stream, &dropped));
            if (dropped)
                CUDA(cudaGraphDestroy(dropped));
        }
        if (round == 4) /* a direct call between replays */
            sequence();
        else
            CUDA(cudaGraphLaunch(exec, stream));
        CUDA(cudaMemcpyAsync(got.data(), out, n * 4, cudaMemcpyDeviceToHost, stream));
        CUDA(cudaStreamSynchronize(stream));
        const size_t bad = wrong(x, got, false);
        if (bad)
            fprintf(stderr, "graph round %d of n=%zu: %zu wrong\n", round, n, bad);
        CHECK(bad == 0);
    }
    if (exec)
        CUDA(cudaGraphExecDestroy(exec));
    if (graph)
        CUDA(cudaGraphDestroy(graph));
    warplab_buffer_destroy(win);
    warplab_buffer_destroy(wout);
    CUDA(cudaFree(in));
    CUDA(cudaFree(out));
    CUDA(cudaFreeHost(pinned));
}

int main()
{
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        printf("skipped: no CUDA GPU\n");
        return TEST_SKIP;
    }
    cudaStream_t stream;
    CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    /* Each size on a fresh context: its first launch meets a new workspace. */
    /* WARPLAB_TEST_SMALL (under the sanitizers): fewer tiles. */
    const bool small = getenv("WARPLAB_TEST_SMALL") != nullptr;
    const size_t sizes[] = {small ? (size_t)100003 : (1u << 22) + 5, 4096 * 37 + 1, 100};
    for (size_t n : sizes) {
        if (warplab_context_create(WARPLAB_BACKEND_CUDA, 0, &ctx) != WARPLAB_OK) {
            printf("skipped: %s\n", warplab_last_error(nullptr));
            return TEST_SKIP;
        }
        CHECK_OK(ctx, warplab_context_set_stream(ctx, stream));
        check_direct(stream, n);
        check_graph(stream, n);
        CHECK_OK(ctx, warplab_context_set_stream(ctx, nullptr));
        warplab_context_destroy(ctx);
        ctx = nullptr;
    }
    CUDA(cudaStreamSynchronize(stream));
    CUDA(cudaStreamDestroy(stream));
    printf("scan_cuda: %d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
