/* warplab_histogram in a CUDA program: the caller's cudaMalloc memory wrapped
 * at an unaligned byte offset, the caller's stream, a call captured into a
 * CUDA graph and replayed on new samples written by the caller's kernel
 * between replays (the counts are zeroed inside the graph), and every count
 * compared with cub::DeviceHistogram::HistogramEven's on the same samples
 * (8-bit with 256 bins; float with 1024 and 4096 bins; uniform and skewed).
 *
 * Exits 77 (CTest's skip) without a CUDA GPU. */
#include "cuda_check.h"
#include "warplab.h"

#include <cub/device/device_histogram.cuh>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

static warplab_context *ctx = nullptr;

/* Random bytes, or one value everywhere (skewed); floats over [-0.1, 1.1). */
__global__ void fill_samples(unsigned char *bytes, size_t n, unsigned seed, bool is_float,
                             bool skewed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        unsigned h = (unsigned)i * 2654435761u ^ seed * 40503u;
        h ^= h >> 15;
        h *= 2246822519u;
        h ^= h >> 13;
        if (is_float)
            reinterpret_cast<float *>(bytes)[i] =
                skewed ? 0.25f : (float)(h & 0xFFFFFF) / 13981013.3f - 0.1f;
        else
            bytes[i] = skewed ? (unsigned char)(seed & 0xFF) : (unsigned char)(h >> 9);
    }
}

/* One shape: n samples at byte offset `offset` of a cudaMalloc'd block. */
static void check_shape(cudaStream_t stream, bool is_float, size_t n, size_t bins, size_t offset,
                        bool skewed)
{
    const size_t element = is_float ? 4 : 1, bytes = n * element;
    unsigned char *block = nullptr;
    unsigned *counts = nullptr, *cub_counts = nullptr;
    CUDA(cudaMalloc(&block, bytes + offset + 16));
    CUDA(cudaMalloc(&counts, bins * 4));
    CUDA(cudaMalloc(&cub_counts, bins * 4));
    CUDA(cudaMemset(counts, 0xAB, bins * 4)); /* garbage: the call zeroes it */
    warplab_buffer *in = nullptr, *out = nullptr;
    CHECK_OK(ctx, warplab_buffer_wrap(ctx, block + offset, bytes, &in));
    CHECK_OK(ctx, warplab_buffer_wrap(ctx, counts, bins * 4, &out));
    const warplab_histogram_sample sample =
        is_float ? WARPLAB_HISTOGRAM_FLOAT32 : WARPLAB_HISTOGRAM_UINT8;
    const double upper = is_float ? 1.0 : 256.0;
    /* Once outside the capture (the rule: run an operation once at its size
     * before capturing it), then captured. */
    fill_samples<<<256, 256, 0, stream>>>(block + offset, n, 1, is_float, skewed);
    CHECK_OK(ctx, warplab_histogram(ctx, sample, in, n, bins, 0.0, upper, out, 0));
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    CHECK_OK(ctx, warplab_histogram(ctx, sample, in, n, bins, 0.0, upper, out, 0));
    CUDA(cudaStreamEndCapture(stream, &graph));
    CUDA(cudaGraphInstantiate(&exec, graph, 0));
    void *temp = nullptr;
    size_t temp_bytes = 0;
    auto run_cub = [&](void *storage, size_t &size) {
        if (is_float)
            return cub::DeviceHistogram::HistogramEven(
                storage, size, reinterpret_cast<const float *>(block + offset), cub_counts,
                (int)bins + 1, 0.0f, 1.0f, (int)n, stream);
        return cub::DeviceHistogram::HistogramEven(storage, size, block + offset, cub_counts,
                                                   (int)bins + 1, 0, 256, (int)n, stream);
    };
    CUDA(run_cub(nullptr, temp_bytes));
    CUDA(cudaMalloc(&temp, temp_bytes ? temp_bytes : 1));
    std::vector<unsigned> got(bins), want(bins);
    for (unsigned replay = 2; replay < 5; replay++) {
        fill_samples<<<256, 256, 0, stream>>>(block + offset, n, replay * 7919u, is_float, skewed);
        CUDA(cudaGraphLaunch(exec, stream));
        CUDA(run_cub(temp, temp_bytes));
        CUDA(cudaMemcpyAsync(got.data(), counts, bins * 4, cudaMemcpyDeviceToHost, stream));
        CUDA(cudaMemcpyAsync(want.data(), cub_counts, bins * 4, cudaMemcpyDeviceToHost, stream));
        CUDA(cudaStreamSynchronize(stream));
        size_t bad = 0, first = 0;
        for (size_t b = 0; b < bins; b++)
            if (got[b] != want[b] && bad++ == 0)
                first = b;
        checks++;
        if (bad) {
            failures++;
            fprintf(stderr,
                    "%s n=%zu bins=%zu offset %zu%s replay %u: %zu counts differ from "
                    "CUB's, first bin %zu: %u vs %u\n",
                    is_float ? "float" : "uint8", n, bins, offset, skewed ? " skewed" : "", replay,
                    bad, first, got[first], want[first]);
        }
    }
    CUDA(cudaGraphExecDestroy(exec));
    CUDA(cudaGraphDestroy(graph));
    warplab_buffer_destroy(in);
    warplab_buffer_destroy(out);
    cudaFree(temp);
    cudaFree(block);
    cudaFree(counts);
    cudaFree(cub_counts);
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
    cudaStream_t stream = nullptr;
    CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CHECK_OK(ctx, warplab_context_set_stream(ctx, stream));
    const bool small = getenv("WARPLAB_TEST_SMALL") != nullptr;
    const size_t n = small ? 100003 : 5000011;
    for (int skewed = 0; skewed < 2; skewed++) {
        check_shape(stream, false, n, 256, 3, skewed);
        check_shape(stream, true, n, 1024, 4, skewed);
        check_shape(stream, true, n, 4096, 8, skewed);
    }
    check_shape(stream, false, 17, 256, 1, false);
    CHECK_OK(ctx, warplab_context_set_stream(ctx, nullptr));
    warplab_context_destroy(ctx);
    cudaStreamDestroy(stream);
    printf("histogram_cuda: %d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
