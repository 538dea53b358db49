/* Where a small warplab_gemm_ex call's time goes, beside cublasGemmEx on the
 * same contract (row-major C = op(A) op(B), the caller's cudaMalloc memory
 * and stream): for each case,
 * - launches: the kernels (and memsets/copies) one call puts in a CUDA graph
 *   when captured;
 * - host: microseconds of the host a call costs (calls queued behind a
 *   spinning kernel, so the GPU never waits for them);
 * - b2b: microseconds of GPU a call costs back to back (the same queue,
 *   events around it: launch gaps included, host excluded);
 * - flushed: the median of single calls, each after an L2 flush, events
 *   around it (the grid's method: `warplab bench gemm --grid`).
 * Build (from the repository root, a CUDA build in BUILD):
 *   nvcc -O2 -std=c++17 -arch=sm_90 -I include -o gemm_call_cost \
 *     scripts/gemm_call_cost.cu BUILD/libwarplab.a -lcublas -lcuda
 * Run: ./gemm_call_cost [fp16|bf16 layout m n k c_narrow] ... (no arguments: the
 * default cases below). */
#include "warplab.h"

#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "cuda_check.h"
#include "fill_hash.cuh"
#include "l2_flush.cuh"

__global__ void spin(long long ns)
{
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    } while ((long long)(t - t0) < ns);
}

__global__ void fill16(unsigned short *p, size_t n, unsigned seed, bool bf16)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        const unsigned h = fill_hash(i, seed);
        const float v = (float)(h & 0xFFFF) / 32768.0f - 1.0f;
        p[i] = bf16 ? __bfloat16_as_ushort(__float2bfloat16(v)) : __half_as_ushort(__float2half(v));
    }
}

struct gemm_case {
    bool bf16;
    bool tb; /* op_b = T (op_a N) */
    int m, n, k;
    bool narrow; /* C the input type, else FP32 */
};

struct env {
    cudaStream_t stream;
    warplab_context *ctx;
    cublasHandle_t blas;
    void *flush;
    size_t flush_bytes;
    unsigned *sink;
};

struct operands {
    void *a, *b, *c;
    warplab_buffer *wa, *wb, *wc;
};

static bool call_warplab(const env &e, const gemm_case &g, const operands &o)
{
    const warplab_dtype t = g.bf16 ? WARPLAB_BFLOAT16 : WARPLAB_FLOAT16;
    const warplab_status s = warplab_gemm_ex(
        e.ctx, WARPLAB_OP_N, g.tb ? WARPLAB_OP_T : WARPLAB_OP_N, g.m, g.n, g.k, 1.0f, o.wa, t, 0,
        o.wb, t, 0, 0.0f, o.wc, g.narrow ? t : WARPLAB_FLOAT32, 0, WARPLAB_COMPUTE_FP32);
    if (s != WARPLAB_OK)
        fprintf(stderr, "warplab_gemm_ex: %s\n", warplab_last_error(e.ctx));
    return s == WARPLAB_OK;
}

static bool call_cublas(const env &e, const gemm_case &g, const operands &o)
{
    const cudaDataType t = g.bf16 ? CUDA_R_16BF : CUDA_R_16F;
    const float alpha = 1.0f, beta = 0.0f;
    const int ldb = g.tb ? g.k : g.n;
    const cublasStatus_t s =
        cublasGemmEx(e.blas, g.tb ? CUBLAS_OP_T : CUBLAS_OP_N, CUBLAS_OP_N, g.n, g.m, g.k, &alpha,
                     o.b, t, ldb, o.a, t, g.k, &beta, o.c, g.narrow ? t : CUDA_R_32F, g.n,
                     CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    if (s != CUBLAS_STATUS_SUCCESS)
        fprintf(stderr, "cublasGemmEx: %d\n", (int)s);
    return s == CUBLAS_STATUS_SUCCESS;
}

typedef bool (*call_fn)(const env &, const gemm_case &, const operands &);

struct cost {
    int kernels, others;
    double host_us, b2b_us, flushed_us;
};

static cost measure(const env &e, const gemm_case &g, const operands &o, call_fn call)
{
    cost r = {};
    for (int i = 0; i < 5; i++)
        call(e, g, o);
    CHECK_CUDA(cudaStreamSynchronize(e.stream));
    /* Launches: one call captured. */
    cudaGraph_t graph;
    CHECK_CUDA(cudaStreamBeginCapture(e.stream, cudaStreamCaptureModeThreadLocal));
    const bool ok = call(e, g, o);
    CHECK_CUDA(cudaStreamEndCapture(e.stream, &graph));
    if (ok) {
        size_t count = 0;
        CHECK_CUDA(cudaGraphGetNodes(graph, nullptr, &count));
        std::vector<cudaGraphNode_t> nodes(count);
        CHECK_CUDA(cudaGraphGetNodes(graph, nodes.data(), &count));
        for (size_t i = 0; i < count; i++) {
            cudaGraphNodeType type;
            CHECK_CUDA(cudaGraphNodeGetType(nodes[i], &type));
            if (type == cudaGraphNodeTypeKernel)
                r.kernels++;
            else
                r.others++;
        }
    }
    CHECK_CUDA(cudaGraphDestroy(graph));
    /* Host cost and back-to-back GPU cost: calls queued behind a spin. */
    const int calls = 200;
    cudaEvent_t e0, e1;
    CHECK_CUDA(cudaEventCreate(&e0));
    CHECK_CUDA(cudaEventCreate(&e1));
    spin<<<1, 1, 0, e.stream>>>(20000000); /* 20 ms */
    CHECK_CUDA(cudaEventRecord(e0, e.stream));
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < calls; i++)
        call(e, g, o);
    const auto t1 = std::chrono::steady_clock::now();
    CHECK_CUDA(cudaEventRecord(e1, e.stream));
    CHECK_CUDA(cudaStreamSynchronize(e.stream));
    float ms = 0;
    CHECK_CUDA(cudaEventElapsedTime(&ms, e0, e1));
    r.host_us = std::chrono::duration<double, std::micro>(t1 - t0).count() / calls;
    r.b2b_us = 1e3 * ms / calls;
    /* Flushed single calls. */
    const int reps = 31;
    std::vector<cudaEvent_t> starts(reps), stops(reps);
    for (int i = 0; i < reps; i++) {
        CHECK_CUDA(cudaEventCreate(&starts[i]));
        CHECK_CUDA(cudaEventCreate(&stops[i]));
    }
    for (int i = 0; i < reps; i++) {
        flush_read<<<1024, 256, 0, e.stream>>>((const uint4 *)e.flush, e.flush_bytes / 16, e.sink);
        CHECK_CUDA(cudaEventRecord(starts[i], e.stream));
        call(e, g, o);
        CHECK_CUDA(cudaEventRecord(stops[i], e.stream));
    }
    CHECK_CUDA(cudaStreamSynchronize(e.stream));
    std::vector<double> t(reps);
    for (int i = 0; i < reps; i++) {
        CHECK_CUDA(cudaEventElapsedTime(&ms, starts[i], stops[i]));
        t[i] = 1e3 * ms;
        CHECK_CUDA(cudaEventDestroy(starts[i]));
        CHECK_CUDA(cudaEventDestroy(stops[i]));
    }
    std::sort(t.begin(), t.end());
    r.flushed_us = t[reps / 2];
    CHECK_CUDA(cudaEventDestroy(e0));
    CHECK_CUDA(cudaEventDestroy(e1));
    return r;
}

int main(int argc, char **argv)
{
    std::vector<gemm_case> cases;
    for (int i = 1; i + 5 < argc; i += 6)
        cases.push_back({strcmp(argv[i], "bf16") == 0, strcmp(argv[i + 1], "NT") == 0,
                         atoi(argv[i + 2]), atoi(argv[i + 3]), atoi(argv[i + 4]),
                         atoi(argv[i + 5]) != 0});
    if (cases.empty())
        for (int bf16 = 0; bf16 < 2; bf16++) {
            const gemm_case list[] = {
                {false, false, 103, 103, 103, true},  {false, true, 103, 103, 103, true},
                {false, false, 103, 103, 103, false}, {false, false, 128, 128, 128, true},
                {false, false, 64, 64, 64, true},     {false, false, 256, 256, 256, true},
                {false, false, 419, 419, 419, true},  {false, false, 49, 57, 93, true},
                {false, true, 7, 4096, 4096, true},   {false, true, 1, 4096, 4096, true},
                {false, false, 7, 4096, 4096, true},  {false, true, 16, 4096, 4096, true},
            };
            for (gemm_case g : list) {
                g.bf16 = bf16 != 0;
                cases.push_back(g);
            }
        }
    env e = {};
    CHECK_CUDA(cudaStreamCreateWithFlags(&e.stream, cudaStreamNonBlocking));
    if (warplab_context_create(WARPLAB_BACKEND_CUDA, 0, &e.ctx) != WARPLAB_OK) {
        fprintf(stderr, "no cuda context: %s\n", warplab_last_error(nullptr));
        return 1;
    }
    if (warplab_context_set_stream(e.ctx, e.stream) != WARPLAB_OK)
        return 1;
    if (cublasCreate(&e.blas) != CUBLAS_STATUS_SUCCESS || cublasSetStream(e.blas, e.stream))
        return 1;
    e.flush_bytes = (size_t)120 << 20;
    CHECK_CUDA(cudaMalloc(&e.flush, e.flush_bytes));
    CHECK_CUDA(cudaMemset(e.flush, 1, e.flush_bytes));
    CHECK_CUDA(cudaMalloc(&e.sink, 4));
    cudaDeviceProp prop;
    CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
    printf("device: %s\n", prop.name);
    printf("%-5s %-2s %-16s %-5s | %-28s | %-28s | ratio\n", "type", "op", "m x n x k", "C",
           "warplab: launches host b2b flushed", "cublas: launches host b2b flushed");
    for (const gemm_case &g : cases) {
        operands o = {};
        const size_t in = 2, out = g.narrow ? 2 : 4;
        CHECK_CUDA(cudaMalloc(&o.a, (size_t)g.m * g.k * in));
        CHECK_CUDA(cudaMalloc(&o.b, (size_t)g.k * g.n * in));
        CHECK_CUDA(cudaMalloc(&o.c, (size_t)g.m * g.n * out));
        fill16<<<256, 256, 0, e.stream>>>((unsigned short *)o.a, (size_t)g.m * g.k, 1, g.bf16);
        fill16<<<256, 256, 0, e.stream>>>((unsigned short *)o.b, (size_t)g.k * g.n, 2, g.bf16);
        CHECK_CUDA(cudaStreamSynchronize(e.stream));
        if (warplab_buffer_wrap(e.ctx, o.a, (size_t)g.m * g.k * in, &o.wa) != WARPLAB_OK ||
            warplab_buffer_wrap(e.ctx, o.b, (size_t)g.k * g.n * in, &o.wb) != WARPLAB_OK ||
            warplab_buffer_wrap(e.ctx, o.c, (size_t)g.m * g.n * out, &o.wc) != WARPLAB_OK)
            return 1;
        if (getenv("GEMM_CALL_COST_WARM_ONLY")) { /* for a profiler: three calls of each */
            for (int i = 0; i < 3; i++)
                call_warplab(e, g, o);
            CHECK_CUDA(cudaStreamSynchronize(e.stream));
            for (int i = 0; i < 3; i++)
                call_cublas(e, g, o);
            CHECK_CUDA(cudaStreamSynchronize(e.stream));
            continue;
        }
        const cost w = measure(e, g, o, call_warplab);
        const cost c = measure(e, g, o, call_cublas);
        char shape[32];
        snprintf(shape, sizeof shape, "%dx%dx%d", g.m, g.n, g.k);
        printf("%-5s %-2s %-16s %-5s | %2d+%d %6.2f %6.2f %6.2f    | %2d+%d %6.2f %6.2f %6.2f    | "
               "%.3f (b2b %.3f)\n",
               g.bf16 ? "bf16" : "fp16", g.tb ? "NT" : "NN", shape,
               g.narrow ? (g.bf16 ? "bf16" : "fp16") : "fp32", w.kernels, w.others, w.host_us,
               w.b2b_us, w.flushed_us, c.kernels, c.others, c.host_us, c.b2b_us, c.flushed_us,
               c.flushed_us / w.flushed_us, c.b2b_us / w.b2b_us);
        warplab_buffer_destroy(o.wa);
        warplab_buffer_destroy(o.wb);
        warplab_buffer_destroy(o.wc);
        CHECK_CUDA(cudaFree(o.a));
        CHECK_CUDA(cudaFree(o.b));
        CHECK_CUDA(cudaFree(o.c));
    }
    cublasDestroy(e.blas);
    warplab_context_destroy(e.ctx);
    return 0;
}
