/* warplab_gemm_batched_ex on a CUDA GPU, as a user calls it: the caller's
 * cudaMalloc memory at exactly each batch's size (no guard zones, so
 * compute-sanitizer memcheck sees any stray access), the caller's stream,
 * views off 16 bytes, padded rows and strides, strides of 0 (one B or A
 * for the whole batch), C's matrices side by side in one row pitch,
 * alpha and beta, odd sizes, and a captured and replayed CUDA graph. The
 * attention products (Q K^T: op_b = T, k = head size; P V: op_b = N, k =
 * the sequence) in BF16 and FP16 with a 16-bit or FP32 C, and FP32 / TF32
 * (the loop over matrices). Inputs are fresh random values, C poisoned with
 * NaN where beta = 0 and random otherwise; everything of C outside its
 * matrices must stay as it was. Each result is checked against a CPU
 * reference of the stored values with double accumulation and the
 * contract's bound (warplab.h). On sm_90 the planner must send the
 * aligned 16-bit cases to its batched row (one kernel for the batch).
 *
 * --short: a third of the cases (compute-sanitizer runs).
 * Exits 77 (CTest's skip) without a CUDA GPU. */
#include "../../src/kernels/gemm_plan.h"
#include "warplab.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#define TEST_SKIP 77

static int failures = 0, checks = 0, batched_plans = 0;
static warplab_context *ctx = nullptr;
static cudaStream_t stream = nullptr;

#define CUDA(call)                                                                                 \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        checks++;                                                                                  \
        if (e_ != cudaSuccess) {                                                                   \
            failures++;                                                                            \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
        }                                                                                          \
    } while (0)

#define N WARPLAB_OP_N
#define T WARPLAB_OP_T
#define BF16 WARPLAB_BFLOAT16
#define F16 WARPLAB_FLOAT16
#define F32 WARPLAB_FLOAT32

struct batched_case {
    const char *what;
    warplab_dtype ab, c;
    warplab_compute compute;
    warplab_op op_a, op_b;
    size_t m, n, k, batch;
    size_t pad_a, pad_b, pad_c; /* elements past each stored row */
    long gap_a, gap_b, gap_c;   /* elements past each matrix; -1: stride 0 (A, B) */
    bool side_by_side;          /* C's matrices in one row pitch (stride_c = n) */
    size_t offset;              /* elements every view starts past a 16-byte boundary */
    float alpha, beta;
    bool graph; /* also captured into a graph and replayed */
};

static const batched_case cases[] = {
    {"QK^T bf16", BF16, BF16, WARPLAB_COMPUTE_FP32,
     N,           T,    130,  130,
     64,          3,    0,    0,
     0,           0,    0,    0,
     false,       0,    1.0f, 0.0f,
     true},
    {"QK^T fp16 f32 out",
     F16,
     F32,
     WARPLAB_COMPUTE_FP32,
     N,
     T,
     200,
     136,
     128,
     4,
     0,
     0,
     0,
     0,
     0,
     0,
     false,
     0,
     0.125f,
     0.0f,
     false},
    {"PV bf16 f32 out",
     BF16,
     F32,
     WARPLAB_COMPUTE_FP32,
     N,
     N,
     128,
     64,
     200,
     4,
     0,
     0,
     0,
     0,
     0,
     0,
     false,
     0,
     1.0f,
     0.0f,
     false},
    {"PV fp16", F16, F16,  WARPLAB_COMPUTE_FP32,
     N,         N,   257,  128,
     136,       2,   0,    0,
     0,         0,   0,    0,
     false,     0,   1.0f, 0.0f,
     false},
    /* Padded rows and strides on 16 bytes, an odd stride of C; beta != 0. */
    {"padded", BF16, BF16, WARPLAB_COMPUTE_FP32, N, T, 77, 99, 72, 3, 8, 16, 3, 8, 24, 4, false, 0,
     1.0f,     0.5f, false},
    /* One K for every head (stride 0), C side by side in one row. */
    {"broadcast B, C side by side",
     F16,
     F16,
     WARPLAB_COMPUTE_FP32,
     N,
     T,
     64,
     40,
     64,
     4,
     0,
     0,
     0,
     0,
     -1,
     0,
     true,
     0,
     1.0f,
     0.0f,
     true},
    {"broadcast A",
     BF16,
     F32,
     WARPLAB_COMPUTE_FP32,
     T,
     N,
     96,
     72,
     48,
     3,
     0,
     0,
     0,
     -1,
     0,
     2,
     false,
     0,
     -1.0f,
     0.25f,
     false},
    /* The tile widths by the batched model (gemm_tiles16.c): the cases
     * above run the narrow 64 x 64 tile (m <= 64 here); these two the
     * 128 x 128 and 128 x 256 tiles, several units an SM. */
    {"128 x 128 tiles",
     BF16,
     BF16,
     WARPLAB_COMPUTE_FP32,
     N,
     T,
     776,
     776,
     96,
     7,
     0,
     0,
     0,
     0,
     0,
     0,
     false,
     0,
     1.0f,
     0.0f,
     false},
    {"128 x 256 tiles",
     F16,
     F16,
     WARPLAB_COMPUTE_FP32,
     N,
     T,
     2056,
     2056,
     64,
     3,
     0,
     0,
     0,
     0,
     0,
     0,
     false,
     0,
     1.0f,
     0.0f,
     false},
    {"narrow", F16,  F32,  WARPLAB_COMPUTE_FP32, N, T, 33, 300, 80, 5, 0, 0, 0, 0, 0, 0, false, 0,
     1.0f,     0.0f, false},
    /* Strides or views off 16 bytes: the loop over matrices. */
    {"stride off 16 bytes",
     BF16,
     BF16,
     WARPLAB_COMPUTE_FP32,
     N,
     T,
     45,
     50,
     64,
     3,
     0,
     0,
     0,
     3,
     0,
     0,
     false,
     0,
     1.0f,
     0.0f,
     false},
    {"views off 16 bytes",
     F16,
     F32,
     WARPLAB_COMPUTE_FP32,
     N,
     N,
     40,
     56,
     40,
     3,
     0,
     0,
     0,
     0,
     0,
     0,
     false,
     1,
     1.0f,
     0.0f,
     false},
    /* FP32 and TF32: the loop. */
    {"fp32", F32,  F32,  WARPLAB_COMPUTE_FP32, T, T, 37, 41, 29, 3, 0, 1, 0, 0, 0, 0, false, 0,
     1.0f,   0.0f, false},
    {"tf32", F32,  F32,  WARPLAB_COMPUTE_TF32, N, T, 130, 70, 96, 2, 0, 0, 0, 0, 0, 0, false, 0,
     1.0f,   0.0f, false},
    /* k = 0 (C = beta C) and batch 1. */
    {"k = 0", BF16, F32,  WARPLAB_COMPUTE_FP32, N, N, 9, 10, 0, 3, 0, 0, 0, 0, 0, 0, false, 0,
     1.0f,    2.0f, false},
    {"batch 1", F16,  F16,  WARPLAB_COMPUTE_FP32, N, T, 131, 67, 64, 1, 0, 0, 0, 0, 0, 0, false, 0,
     1.0f,      0.0f, false},
};

static uint16_t to_bits(float v, warplab_dtype t)
{
    if (t == BF16) {
        const __nv_bfloat16_raw raw = __float2bfloat16_rn(v);
        return raw.x;
    }
    const __half_raw raw = __float2half_rn(v);
    return raw.x;
}

static double get(const std::vector<unsigned char> &bytes, warplab_dtype t, size_t at)
{
    if (t == F32) {
        float v;
        memcpy(&v, &bytes[at * 4], 4);
        return v;
    }
    uint16_t bits;
    memcpy(&bits, &bytes[at * 2], 2);
    if (t == BF16) {
        const uint32_t word = (uint32_t)bits << 16;
        float v;
        memcpy(&v, &word, 4);
        return v;
    }
    __half_raw raw;
    raw.x = bits;
    return __half2float(__half(raw));
}

static void set(std::vector<unsigned char> &bytes, warplab_dtype t, size_t at, float v)
{
    if (t == F32) {
        memcpy(&bytes[at * 4], &v, 4);
        return;
    }
    const uint16_t bits = to_bits(v, t);
    memcpy(&bytes[at * 2], &bits, 2);
}

static double tf32(double v)
{
    float f = (float)v;
    uint32_t bits;
    memcpy(&bits, &f, 4);
    bits &= ~0x1FFFu;
    memcpy(&f, &bits, 4);
    return f;
}

/* The caller's memory: exactly `bytes`, or a view `skip` bytes into an
 * allocation of bytes + skip (its own bytes exact). */
struct device_array {
    void *allocation = nullptr, *view = nullptr;
    warplab_buffer *buffer = nullptr;
};

static device_array upload(const std::vector<unsigned char> &host, size_t skip)
{
    device_array d;
    /* An operand of no elements (k = 0) is still a buffer: 16 bytes. */
    const size_t bytes = host.empty() ? 16 : host.size();
    CUDA(cudaMalloc(&d.allocation, bytes + skip));
    d.view = (unsigned char *)d.allocation + skip;
    if (!host.empty())
        CUDA(cudaMemcpy(d.view, host.data(), host.size(), cudaMemcpyHostToDevice));
    if (warplab_buffer_wrap(ctx, d.view, bytes, &d.buffer) != WARPLAB_OK) {
        failures++;
        fprintf(stderr, "warplab_buffer_wrap: %s\n", warplab_last_error(ctx));
    }
    return d;
}

static void release(device_array &d)
{
    warplab_buffer_destroy(d.buffer);
    CUDA(cudaFree(d.allocation));
}

static size_t span(size_t rows, size_t cols, size_t ld)
{
    return rows && cols ? (rows - 1) * ld + cols : 0;
}

static void run_case(const batched_case &s, unsigned seed)
{
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> value(-1.0f, 1.0f);
    const bool ta = s.op_a == T, tb = s.op_b == T;
    const size_t a_rows = ta ? s.k : s.m, a_cols = ta ? s.m : s.k;
    const size_t b_rows = tb ? s.n : s.k, b_cols = tb ? s.k : s.n;
    const size_t lda = a_cols + s.pad_a, ldb = b_cols + s.pad_b;
    const size_t ldc = s.side_by_side ? s.batch * s.n + s.pad_c : s.n + s.pad_c;
    const size_t sa = span(a_rows, a_cols, lda), sb = span(b_rows, b_cols, ldb);
    const size_t sc = span(s.m, s.n, ldc);
    const size_t stride_a = s.gap_a < 0 ? 0 : sa + (size_t)s.gap_a;
    const size_t stride_b = s.gap_b < 0 ? 0 : sb + (size_t)s.gap_b;
    const size_t stride_c = s.side_by_side ? s.n : sc + (size_t)s.gap_c;
    const size_t ea = (s.batch - 1) * stride_a + sa, eb = (s.batch - 1) * stride_b + sb;
    const size_t ec = (s.batch - 1) * stride_c + sc;
    const size_t in = warplab_dtype_size(s.ab), out = warplab_dtype_size(s.c);
    std::vector<unsigned char> ha(ea * in), hb(eb * in), hc(ec * out);
    for (size_t i = 0; i < ea; i++)
        set(ha, s.ab, i, value(rng));
    for (size_t i = 0; i < eb; i++)
        set(hb, s.ab, i, value(rng));
    for (size_t i = 0; i < ec; i++)
        set(hc, s.c, i, s.beta == 0.0f ? NAN : value(rng));
    const std::vector<unsigned char> before = hc;
    device_array da = upload(ha, s.offset * in), db = upload(hb, s.offset * in),
                 dc = upload(hc, s.offset * out);

    /* The plan the call gets. */
    wl_gemm_desc d;
    memset(&d, 0, sizeof d);
    d.m = s.m;
    d.n = s.n;
    d.k = s.k;
    d.batch = s.batch;
    d.op_a = s.op_a;
    d.op_b = s.op_b;
    d.ab_type = s.ab;
    d.c_type = s.c;
    d.compute = s.compute;
    d.lda = lda;
    d.ldb = ldb;
    d.ldc = ldc;
    d.stride_a = stride_a;
    d.stride_b = stride_b;
    d.stride_c = stride_c;
    const unsigned fold_a = wl_gemm_alignment(stride_a * in, 0, 1);
    const unsigned fold_b = wl_gemm_alignment(stride_b * in, 0, 1);
    d.align_a = std::min(wl_gemm_alignment((uintptr_t)da.view, lda, in), fold_a);
    d.align_b = std::min(wl_gemm_alignment((uintptr_t)db.view, ldb, in), fold_b);
    d.align_c = wl_gemm_alignment((uintptr_t)dc.view, ldc, out);
    const warplab_device_info *info = warplab_context_device(ctx);
    const wl_gemm_target target =
        wl_gemm_target_of(info, info->cc_major == 9 && info->cc_minor == 0);
    const wl_gemm_route plan = wl_gemm_plan_make(&d, &target, nullptr);
    size_t rows = 0;
    const wl_gemm_candidate *table = wl_gemm_candidates(&rows);
    const bool batched = plan.candidate >= 0 && table[plan.candidate].batched;
    batched_plans += batched ? 1 : 0;

    const warplab_status st = warplab_gemm_batched_ex(
        ctx, s.op_a, s.op_b, s.m, s.n, s.k, s.alpha, da.buffer, s.ab, lda, stride_a, db.buffer,
        s.ab, ldb, stride_b, s.beta, dc.buffer, s.c, ldc, stride_c, s.batch, s.compute);
    checks++;
    if (st != WARPLAB_OK) {
        failures++;
        fprintf(stderr, "%s: warplab_gemm_batched_ex: %s\n", s.what, warplab_last_error(ctx));
    }
    CUDA(cudaStreamSynchronize(stream));
    CUDA(cudaMemcpy(hc.data(), dc.view, hc.size(), cudaMemcpyDeviceToHost));

    const double out_u = s.c == BF16 ? 1.0 / 256 : s.c == F16 ? 1.0 / 2048 : 0.0;
    const bool use_tf32 = s.compute == WARPLAB_COMPUTE_TF32;
    size_t bad = 0, stray = 0;
    double worst = 0.0;
    std::vector<bool> inside(ec, false);
    for (size_t q = 0; q < s.batch; q++)
        for (size_t i = 0; i < s.m; i++)
            for (size_t j = 0; j < s.n; j++) {
                double sum = 0.0, magnitude = 0.0;
                for (size_t p = 0; p < s.k; p++) {
                    double x = get(ha, s.ab, q * stride_a + (ta ? p * lda + i : i * lda + p));
                    double y = get(hb, s.ab, q * stride_b + (tb ? j * ldb + p : p * ldb + j));
                    if (use_tf32) {
                        x = tf32(x);
                        y = tf32(y);
                    }
                    sum += x * y;
                    magnitude += std::fabs(x * y);
                }
                const size_t at = q * stride_c + i * ldc + j;
                inside[at] = true;
                const double old = s.beta != 0.0f ? get(before, s.c, at) : 0.0;
                const double want = s.alpha * sum + s.beta * old;
                const double scale = std::fabs(s.alpha) * magnitude + std::fabs(s.beta * old);
                const double bound = ((double)s.k + 2) * 1.2e-7 * scale +
                                     (use_tf32 ? 2.0 * 9.8e-4 * scale : 0.0) +
                                     out_u * std::fabs(want) + 1e-30;
                const double got = get(hc, s.c, at), err = std::fabs(got - want) / bound;
                if (!(err <= 1.0)) {
                    if (bad < 3)
                        fprintf(stderr, "  %s: matrix %zu C[%zu][%zu] = %g, want %g\n", s.what, q,
                                i, j, got, want);
                    bad++;
                }
                worst = err > worst ? err : worst;
            }
    for (size_t at = 0; at < ec; at++)
        if (!inside[at] && memcmp(&hc[at * out], &before[at * out], out) != 0)
            stray++;

    /* The same call captured into a graph and replayed (C poisoned again):
     * the same bytes. */
    size_t graph_diff = 0;
    if (s.graph && st == WARPLAB_OK) {
        const std::vector<unsigned char> first = hc;
        CUDA(cudaMemcpy(dc.view, before.data(), before.size(), cudaMemcpyHostToDevice));
        cudaGraph_t graph = nullptr;
        cudaGraphExec_t exec = nullptr;
        CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
        const warplab_status captured = warplab_gemm_batched_ex(
            ctx, s.op_a, s.op_b, s.m, s.n, s.k, s.alpha, da.buffer, s.ab, lda, stride_a, db.buffer,
            s.ab, ldb, stride_b, s.beta, dc.buffer, s.c, ldc, stride_c, s.batch, s.compute);
        CUDA(cudaStreamEndCapture(stream, &graph));
        checks++;
        if (captured != WARPLAB_OK) {
            failures++;
            fprintf(stderr, "%s: captured call: %s\n", s.what, warplab_last_error(ctx));
        }
        if (graph) {
            CUDA(cudaGraphInstantiate(&exec, graph, 0));
            CUDA(cudaGraphLaunch(exec, stream));
            CUDA(cudaStreamSynchronize(stream));
            CUDA(cudaMemcpy(hc.data(), dc.view, hc.size(), cudaMemcpyDeviceToHost));
            graph_diff = memcmp(hc.data(), first.data(), hc.size()) != 0;
            if (exec)
                cudaGraphExecDestroy(exec);
            cudaGraphDestroy(graph);
        }
    }
    checks++;
    const bool failed = bad || stray || graph_diff || st != WARPLAB_OK;
    if (failed)
        failures++;
    char route[200];
    wl_gemm_route_describe(&plan, route, sizeof route);
    printf("%s %-28s %4zu x %4zu x %4zu batch %zu op %c%c strides %zu/%zu/%zu off %zu: worst %.3f "
           "of bound, %zu wrong, %zu stray%s; %s\n",
           failed ? "FAIL" : "ok  ", s.what, s.m, s.n, s.k, s.batch, ta ? 'T' : 'N', tb ? 'T' : 'N',
           stride_a, stride_b, stride_c, s.offset, worst, bad, stray,
           s.graph ? (graph_diff ? ", graph differs" : ", graph replay same") : "",
           batched ? route : "loop over matrices");
    release(da);
    release(db);
    release(dc);
}

int main(int argc, char **argv)
{
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        printf("no CUDA GPU: skipped\n");
        return TEST_SKIP;
    }
    if (warplab_context_create(WARPLAB_BACKEND_CUDA, 0, &ctx) != WARPLAB_OK) {
        fprintf(stderr, "warplab context: %s\n", warplab_last_error(nullptr));
        return 1;
    }
    CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    if (warplab_context_set_stream(ctx, stream) != WARPLAB_OK) {
        fprintf(stderr, "warplab_context_set_stream: %s\n", warplab_last_error(ctx));
        return 1;
    }
    const bool short_list = argc > 1 && strcmp(argv[1], "--short") == 0;
    unsigned seed = 7;
    const size_t count = sizeof cases / sizeof cases[0];
    for (size_t i = 0; i < count; i++) {
        seed++;
        if (!short_list || i % 3 == 0)
            run_case(cases[i], seed);
    }
    const warplab_device_info *info = warplab_context_device(ctx);
    if (info->cc_major == 9 && info->cc_minor == 0) {
        checks++;
        if (batched_plans == 0) {
            failures++;
            fprintf(stderr, "no case was planned on the batched row on sm_90\n");
        }
    }
    warplab_context_set_stream(ctx, nullptr);
    warplab_context_destroy(ctx);
    cudaStreamDestroy(stream);
    printf("test_gemm_batched_cuda: %d checks, %d failed (%d cases on the batched row)\n", checks,
           failures, batched_plans);
    return failures ? 1 : 0;
}
