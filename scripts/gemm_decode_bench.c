/* The GEMM planner's tuning set (src/kernels/gemm_plan.c, WL_GEMM_PLAN_TUNING_SET):
 * the decode layers of a Llama-3-8B-like block through warplab_gemm_ex,
 * the user's entry point, against cublasGemmEx on the same contract, in
 * the same process, on the caller's cudaMalloc memory and stream.
 *
 * Shapes: k = 4096 or 14336; n = 1024, 4096, 6144 or 28672 (k = 4096) and
 * 4096 (k = 14336); m = 1, 2, 7, 8, 16, 24, 32; op_a = N; op_b = N and T
 * (PyTorch nn.Linear's layout). Types: BF16 -> BF16, BF16 -> FP32, FP16 ->
 * FP16, TF32 (FP32 in and out) and FP32. Timing: CUDA events around each
 * call, L2 flushed (a memset of twice its size) before every run, warm-up,
 * the median of the runs, warplab and cuBLAS interleaved. m = 1 also gives
 * the fraction of the device-to-device copy bandwidth (measured in the
 * same run) at which the call moves the bytes it must (B once, A once, C
 * once). Results agree with cuBLAS's to the contract's tolerance or the
 * cell says so.
 *
 * Build (a CUDA build of warplab in BUILD):
 *   cc -O2 -Iinclude scripts/gemm_decode_bench.c BUILD/libwarplab.a \
 *      -I$CUDA/include -L$CUDA/lib64 -lcublas -lcudart -lstdc++ -lpthread -lm
 * Run: ./a.out [runs] [csv|-] [combo] [N|T] [candidate]
 *   runs: timed runs a cell, default 15; csv: a file for every cell (-: none);
 *   combo, N|T: only that combination (tf32, bf16->bf16, ...) and op_b;
 *   candidate: the planner's row forced by name (warplab_gemm_force_candidate),
 *   so that the rows' speeds can be compared on the tuning set.
 * Environment (optional): GDB_TOKENS="1,2,3,5,8" (m, at most 32) and
 * GDB_LAYERS="4096x4096,11008x4096" (n x k, n * k at most 28672 x 4096,
 * k at most 14336) in place of the tuning set's. */
#include "warplab.h"
#include "warplab_lab.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"

/* The library's 16-bit conversions (src/ladders/gemm.h). */
uint16_t wl_float_to_bf16(float x);
float wl_bf16_to_float(uint16_t h);
uint16_t wl_float_to_fp16(float x);
float wl_fp16_to_float(uint16_t h);

typedef struct combo {
    const char *name;
    warplab_dtype ab, c;
    warplab_compute compute;
    cudaDataType_t cu_ab, cu_c;
    cublasComputeType_t cu_compute;
    double tolerance; /* relative to max |C| */
} combo;

static const combo combos[] = {
    {"bf16->bf16", WARPLAB_BFLOAT16, WARPLAB_BFLOAT16, WARPLAB_COMPUTE_FP32, CUDA_R_16BF,
     CUDA_R_16BF, CUBLAS_COMPUTE_32F, 2e-2},
    {"bf16->f32", WARPLAB_BFLOAT16, WARPLAB_FLOAT32, WARPLAB_COMPUTE_FP32, CUDA_R_16BF, CUDA_R_32F,
     CUBLAS_COMPUTE_32F, 1e-3},
    {"f16->f16", WARPLAB_FLOAT16, WARPLAB_FLOAT16, WARPLAB_COMPUTE_FP32, CUDA_R_16F, CUDA_R_16F,
     CUBLAS_COMPUTE_32F, 4e-3},
    {"tf32", WARPLAB_FLOAT32, WARPLAB_FLOAT32, WARPLAB_COMPUTE_TF32, CUDA_R_32F, CUDA_R_32F,
     CUBLAS_COMPUTE_32F_FAST_TF32, 1e-2},
    {"f32", WARPLAB_FLOAT32, WARPLAB_FLOAT32, WARPLAB_COMPUTE_FP32, CUDA_R_32F, CUDA_R_32F,
     CUBLAS_COMPUTE_32F, 1e-4},
};

static size_t layer_nk[16][2] = {
    {1024, 4096}, {4096, 4096}, {6144, 4096}, {28672, 4096}, {4096, 14336}};
static size_t layers_count = 5;
static size_t tokens[32] = {1, 2, 7, 8, 16, 24, 32};
static size_t tokens_count = 7;

/* Up to most numbers separated by ',' or 'x' from the environment variable
 * name into out; the count, or 0 where it is unset or empty. */
static size_t env_numbers(const char *name, size_t *out, size_t most)
{
    const char *text = getenv(name);
    size_t count = 0;
    while (text && *text && count < most) {
        char *end;
        const unsigned long long v = strtoull(text, &end, 10);
        if (end == text)
            break;
        out[count++] = (size_t)v;
        text = *end ? end + 1 : end;
    }
    return count;
}

static int compare_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, compare_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static double to_double(const void *base, size_t i, warplab_dtype t)
{
    if (t == WARPLAB_FLOAT32)
        return ((const float *)base)[i];
    const uint16_t h = ((const uint16_t *)base)[i];
    return t == WARPLAB_BFLOAT16 ? wl_bf16_to_float(h) : wl_fp16_to_float(h);
}

int main(int argc, char **argv)
{
    const int runs = argc > 1 ? atoi(argv[1]) : 15;
    FILE *csv = argc > 2 && strcmp(argv[2], "-") != 0 ? fopen(argv[2], "w") : NULL;
    const char *only_combo = argc > 3 ? argv[3] : NULL;
    const char *only_op_b = argc > 4 ? argv[4] : NULL;
    const char *candidate = argc > 5 ? argv[5] : NULL;
    size_t numbers[32];
    size_t count = env_numbers("GDB_TOKENS", numbers, 32);
    if (count) {
        tokens_count = 0;
        for (size_t i = 0; i < count; i++)
            if (numbers[i] >= 1 && numbers[i] <= 32)
                tokens[tokens_count++] = numbers[i];
    }
    count = env_numbers("GDB_LAYERS", numbers, 32);
    if (count) {
        layers_count = 0;
        for (size_t i = 0; i + 1 < count; i += 2)
            if (numbers[i] >= 1 && numbers[i] <= 28672 && numbers[i + 1] >= 1 &&
                numbers[i + 1] <= 14336 && numbers[i] * numbers[i + 1] <= 28672 * 4096) {
                layer_nk[layers_count][0] = numbers[i];
                layer_nk[layers_count++][1] = numbers[i + 1];
            }
    }
    struct cudaDeviceProp prop;
    CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
    cudaStream_t stream;
    CHECK_CUDA(cudaStreamCreate(&stream));
    warplab_context *ctx;
    if (warplab_context_create(WARPLAB_BACKEND_CUDA, 0, &ctx) != WARPLAB_OK ||
        warplab_context_set_stream(ctx, stream) != WARPLAB_OK) {
        fprintf(stderr, "warplab context: %s\n", warplab_last_error(NULL));
        return 1;
    }
    if (candidate && warplab_gemm_force_candidate(ctx, candidate) != WARPLAB_OK) {
        fprintf(stderr, "candidate %s: %s\n", candidate, warplab_last_error(ctx));
        return 1;
    }
    cublasHandle_t handle;
    if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS || cublasSetStream(handle, stream))
        return 1;
    /* The largest operands: B 28672 x 4096 or 4096 x 14336 FP32, A 32 x 14336, C 32 x 28672. */
    const size_t b_elems = 28672 * 4096, a_elems = 32 * 14336, c_elems = 32 * 28672;
    void *b32, *b16, *a32, *a16, *c_wl, *c_cu, *flush;
    const size_t flush_bytes = 2 * (size_t)prop.l2CacheSize;
    CHECK_CUDA(cudaMalloc(&b32, b_elems * 4));
    CHECK_CUDA(cudaMalloc(&b16, b_elems * 2));
    CHECK_CUDA(cudaMalloc(&a32, a_elems * 4));
    CHECK_CUDA(cudaMalloc(&a16, a_elems * 2));
    CHECK_CUDA(cudaMalloc(&c_wl, c_elems * 4));
    CHECK_CUDA(cudaMalloc(&c_cu, c_elems * 4));
    CHECK_CUDA(cudaMalloc(&flush, flush_bytes));
    /* Random values in [-1, 1); the 16-bit buffers hold BF16 or FP16 per combo. */
    float *host = malloc(b_elems * 4);
    uint16_t *host16 = malloc(b_elems * 2);
    uint64_t s = 88172645463325252ull;
    for (size_t i = 0; i < b_elems; i++) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        host[i] = (float)((double)(s >> 11) / 9007199254740992.0 * 2.0 - 1.0);
    }
    CHECK_CUDA(cudaMemcpy(b32, host, b_elems * 4, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(a32, host + 12345, a_elems * 4, cudaMemcpyHostToDevice));
    /* The copy bandwidth: device to device, bytes read plus written. */
    cudaEvent_t e0, e1;
    CHECK_CUDA(cudaEventCreate(&e0));
    CHECK_CUDA(cudaEventCreate(&e1));
    double copy_ms[9];
    for (int r = 0; r < 9; r++) {
        CHECK_CUDA(cudaEventRecord(e0, stream));
        CHECK_CUDA(cudaMemcpyAsync(b16, b32, b_elems * 2, cudaMemcpyDeviceToDevice, stream));
        CHECK_CUDA(cudaEventRecord(e1, stream));
        CHECK_CUDA(cudaEventSynchronize(e1));
        float ms;
        CHECK_CUDA(cudaEventElapsedTime(&ms, e0, e1));
        copy_ms[r] = ms;
    }
    const double copy_gbs = 2.0 * (double)b_elems * 2 / (median(copy_ms, 9) * 1e6);
    printf("device: %s, %d SMs, L2 %d MB; copy bandwidth %.0f GB/s (read + write); %d runs a "
           "cell, median, L2 flushed\n",
           prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20, copy_gbs, runs);
    if (csv)
        fprintf(csv, "combo,op_b,m,n,k,warplab_us,cublas_us,ratio,pct_copy,max_rel_diff\n");
    printf("%-10s %4s %3s %6s %6s %10s %10s %7s %6s %9s\n", "combo", "op_b", "m", "n", "k",
           "warplab", "cublas", "ratio", "%copy", "rel.diff");
    const size_t n_combos = sizeof combos / sizeof combos[0];
    for (size_t ci = 0; ci < n_combos; ci++) {
        const combo *cb = &combos[ci];
        if (only_combo && strcmp(only_combo, cb->name) != 0)
            continue;
        if (cb->ab != WARPLAB_FLOAT32) {
            for (size_t i = 0; i < b_elems; i++)
                host16[i] = cb->ab == WARPLAB_BFLOAT16 ? wl_float_to_bf16(host[i])
                                                       : wl_float_to_fp16(host[i]);
            CHECK_CUDA(cudaMemcpy(b16, host16, b_elems * 2, cudaMemcpyHostToDevice));
            CHECK_CUDA(cudaMemcpy(a16, host16 + 12345, a_elems * 2, cudaMemcpyHostToDevice));
        }
        const size_t in = cb->ab == WARPLAB_FLOAT32 ? 4 : 2, out = cb->c == WARPLAB_FLOAT32 ? 4 : 2;
        void *a = in == 4 ? a32 : a16, *b = in == 4 ? b32 : b16;
        double log_sum[2] = {0, 0}, worst[2] = {1e9, 1e9};
        int cells[2] = {0, 0};
        for (int tb = 0; tb < 2; tb++)
            for (size_t li = 0; !(only_op_b && only_op_b[0] != "NT"[tb]) && li < layers_count; li++)
                for (size_t ti = 0; ti < tokens_count; ti++) {
                    const size_t m = tokens[ti], n = layer_nk[li][0], k = layer_nk[li][1];
                    const size_t lda = k, ldb = tb ? k : n, ldc = n;
                    warplab_buffer *wa, *wb, *wc;
                    warplab_buffer_wrap(ctx, a, m * k * in, &wa);
                    warplab_buffer_wrap(ctx, b, n * k * in, &wb);
                    warplab_buffer_wrap(ctx, c_wl, m * n * out, &wc);
                    const float alpha = 1.0f, beta = 0.0f;
                    double t_wl[64], t_cu[64];
                    int bad = 0;
                    for (int r = -3; r < runs && r < 64; r++) {
                        float ms;
                        CHECK_CUDA(cudaMemsetAsync(flush, r & 0xFF, flush_bytes, stream));
                        CHECK_CUDA(cudaEventRecord(e0, stream));
                        warplab_status st = warplab_gemm_ex(
                            ctx, WARPLAB_OP_N, tb ? WARPLAB_OP_T : WARPLAB_OP_N, m, n, k, alpha, wa,
                            cb->ab, lda, wb, cb->ab, ldb, beta, wc, cb->c, ldc, cb->compute);
                        CHECK_CUDA(cudaEventRecord(e1, stream));
                        if (st != WARPLAB_OK) {
                            fprintf(stderr, "warplab_gemm_ex: %s\n", warplab_last_error(ctx));
                            bad = 1;
                        }
                        CHECK_CUDA(cudaEventSynchronize(e1));
                        CHECK_CUDA(cudaEventElapsedTime(&ms, e0, e1));
                        if (r >= 0)
                            t_wl[r] = ms * 1e3;
                        CHECK_CUDA(cudaMemsetAsync(flush, r & 0xFF, flush_bytes, stream));
                        CHECK_CUDA(cudaEventRecord(e0, stream));
                        cublasStatus_t cs = cublasGemmEx(
                            handle, tb ? CUBLAS_OP_T : CUBLAS_OP_N, CUBLAS_OP_N, (int)n, (int)m,
                            (int)k, &alpha, b, cb->cu_ab, (int)ldb, a, cb->cu_ab, (int)lda, &beta,
                            c_cu, cb->cu_c, (int)ldc, cb->cu_compute, CUBLAS_GEMM_DEFAULT);
                        CHECK_CUDA(cudaEventRecord(e1, stream));
                        if (cs != CUBLAS_STATUS_SUCCESS)
                            bad = 1;
                        CHECK_CUDA(cudaEventSynchronize(e1));
                        CHECK_CUDA(cudaEventElapsedTime(&ms, e0, e1));
                        if (r >= 0)
                            t_cu[r] = ms * 1e3;
                    }
                    const int got = runs < 64 ? runs : 64;
                    const double us_wl = median(t_wl, got), us_cu = median(t_cu, got);
                    /* Agreement with cuBLAS, relative to the largest |C|. */
                    static unsigned char h_wl[32 * 28672 * 4], h_cu[32 * 28672 * 4];
                    CHECK_CUDA(cudaMemcpy(h_wl, c_wl, m * n * out, cudaMemcpyDeviceToHost));
                    CHECK_CUDA(cudaMemcpy(h_cu, c_cu, m * n * out, cudaMemcpyDeviceToHost));
                    double big = 0, diff = 0;
                    for (size_t i = 0; i < m * n; i++) {
                        const double x = to_double(h_wl, i, cb->c), y = to_double(h_cu, i, cb->c);
                        big = fmax(big, fabs(y));
                        diff = isnan(x) || isnan(y) ? INFINITY : fmax(diff, fabs(x - y));
                    }
                    const double rel = diff / (big > 0 ? big : 1);
                    const double ratio = us_cu / us_wl;
                    const double bytes = (double)(n * k + m * k) * in + (double)(m * n) * out;
                    const double pct = m == 1 ? 100.0 * bytes / (us_wl * 1e3) / copy_gbs : 0.0;
                    printf("%-10s %4s %3zu %6zu %6zu %10.1f %10.1f %7.3f %6.1f %9.1e%s\n", cb->name,
                           tb ? "T" : "N", m, n, k, us_wl, us_cu, ratio, pct, rel,
                           bad || !(rel <= cb->tolerance) ? "  DIFFERS" : "");
                    if (csv)
                        fprintf(csv, "%s,%s,%zu,%zu,%zu,%.2f,%.2f,%.4f,%.1f,%.2e\n", cb->name,
                                tb ? "T" : "N", m, n, k, us_wl, us_cu, ratio, pct, rel);
                    log_sum[tb] += log(ratio);
                    worst[tb] = fmin(worst[tb], ratio);
                    cells[tb]++;
                    warplab_buffer_destroy(wa);
                    warplab_buffer_destroy(wb);
                    warplab_buffer_destroy(wc);
                }
        for (int tb = 0; tb < 2; tb++)
            if (cells[tb])
                printf("SUMMARY %-10s op_b=%s: geomean %.3f, worst %.3f over %d cells\n", cb->name,
                       tb ? "T" : "N", exp(log_sum[tb] / cells[tb]), worst[tb], cells[tb]);
    }
    if (csv)
        fclose(csv);
    cublasDestroy(handle);
    warplab_context_destroy(ctx);
    return 0;
}
