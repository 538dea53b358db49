/* warplab dropped into a CUDA program: the program owns the memory
 * (cudaMalloc), the stream, and kernels of its own; warplab works on the
 * same memory, on the same stream, between them, with no copies and no
 * waits. Built and run by the tests (exit 77 without a GPU).
 *
 *   x = i-th value;  (the program's kernel)
 *   y = x + x;       (warplab_vecadd on wrapped memory)
 *   y = y * 0.5;     (the program's kernel: y is x again)
 *   s = sum(y);      (warplab_reduce_to_buffer: s stays on the device)
 *   yT = y^T;        (warplab_transpose of y seen as rows x cols)
 * then one copy back and one wait. */
#include <warplab.h>

#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <vector>

__global__ void fill(float *x, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        x[i] = (float)(i % 1000) * 0.001f;
}

__global__ void halve(float *y, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        y[i] *= 0.5f;
}

static bool ok(warplab_status status, warplab_context *ctx, const char *what)
{
    if (status != WARPLAB_OK)
        fprintf(stderr, "%s: %s (%s)\n", what, warplab_status_string(status),
                warplab_last_error(ctx));
    return status == WARPLAB_OK;
}

int main()
{
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        printf("skipped: no CUDA GPU\n");
        return 77;
    }
    const size_t rows = 1000, cols = 3001, n = rows * cols;

    /* The program's own memory and stream. */
    float *x = nullptr, *y = nullptr, *yt = nullptr, *s = nullptr;
    cudaStream_t stream;
    if (cudaMalloc(&x, n * sizeof(float)) != cudaSuccess ||
        cudaMalloc(&y, n * sizeof(float)) != cudaSuccess ||
        cudaMalloc(&yt, n * sizeof(float)) != cudaSuccess ||
        cudaMalloc(&s, sizeof(float)) != cudaSuccess ||
        cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess) {
        fprintf(stderr, "CUDA setup failed\n");
        return 1;
    }

    /* warplab on the same device, bound to the program's stream, with the
     * program's memory wrapped (warplab never frees it). */
    warplab_context *ctx = nullptr;
    if (!ok(warplab_context_create(WARPLAB_BACKEND_CUDA, 0, &ctx), nullptr, "context"))
        return 1;
    warplab_buffer *bx = nullptr, *by = nullptr, *byt = nullptr, *bs = nullptr;
    bool good = ok(warplab_context_set_stream(ctx, stream), ctx, "set_stream") &&
                ok(warplab_buffer_wrap(ctx, x, n * sizeof(float), &bx), ctx, "wrap x") &&
                ok(warplab_buffer_wrap(ctx, y, n * sizeof(float), &by), ctx, "wrap y") &&
                ok(warplab_buffer_wrap(ctx, yt, n * sizeof(float), &byt), ctx, "wrap yt") &&
                ok(warplab_buffer_wrap(ctx, s, sizeof(float), &bs), ctx, "wrap s");

    /* The pipeline: the program's kernels and warplab's, one stream, no waits. */
    std::vector<float> host_yt(n);
    float sum = 0.0f;
    if (good) {
        fill<<<256, 256, 0, stream>>>(x, n);
        good = ok(warplab_vecadd(ctx, bx, bx, by, n), ctx, "vecadd");
        halve<<<256, 256, 0, stream>>>(y, n);
        good = good &&
               ok(warplab_reduce_to_buffer(ctx, WARPLAB_FLOAT32, WARPLAB_REDUCE_SUM, by, n, bs, 0),
                  ctx, "reduce");
        good = good && ok(warplab_transpose(ctx, WARPLAB_FLOAT32, rows, cols, by, 0, byt, 0), ctx,
                          "transpose");
        cudaMemcpyAsync(&sum, s, sizeof sum, cudaMemcpyDeviceToHost, stream);
        cudaMemcpyAsync(host_yt.data(), yt, n * sizeof(float), cudaMemcpyDeviceToHost, stream);
        good = good && cudaStreamSynchronize(stream) == cudaSuccess;
    }

    /* Check on the host. */
    size_t wrong = 0;
    double exact = 0.0;
    for (size_t r = 0; r < rows; r++)
        for (size_t c = 0; c < cols; c++) {
            const float v = (float)((r * cols + c) % 1000) * 0.001f;
            exact += v;
            wrong += host_yt[c * rows + r] != v;
        }
    const bool sum_ok = std::fabs(sum - exact) <= 1e-5 * exact;
    if (good)
        printf("sum %.3f (exact %.3f), transpose: %zu of %zu wrong\n", (double)sum, exact, wrong,
               n);

    warplab_buffer_destroy(bx);
    warplab_buffer_destroy(by);
    warplab_buffer_destroy(byt);
    warplab_buffer_destroy(bs);
    warplab_context_destroy(ctx);
    cudaStreamDestroy(stream);
    cudaFree(x);
    cudaFree(y);
    cudaFree(yt);
    cudaFree(s);
    return good && sum_ok && wrong == 0 ? 0 : 1;
}
