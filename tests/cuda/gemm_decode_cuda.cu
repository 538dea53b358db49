/* warplab_gemm_ex in the decode regime (m or n of 1 to 32) on a CUDA GPU,
 * as a user calls it: the caller's cudaMalloc memory, exact-size buffers
 * (no guard zones, so compute-sanitizer memcheck sees any stray access),
 * padded leading dimensions, views off 16 bytes, alpha and beta. Every
 * input type and output type (BF16 -> BF16 / FP32, FP16 -> FP16 / FP32,
 * TF32, FP32), op_b = T (the weights n x k, read in place by the GEMV
 * family's tensor-core kernel gemv_mma and gemv_k) and op_b = N (TF32 and
 * 16-bit: the tensor-core gemv_mma_rows reading B along n), odd m, n and
 * k, k split or
 * not. Inputs are fresh random values, C is poisoned
 * with NaN first where beta = 0 (every element must be written) and holds
 * random values otherwise; C's padding must stay as it was. Each result is
 * checked against a CPU reference of the stored values with double
 * accumulation: FP32 sums (k + 2 roundings of the products' magnitude),
 * TF32 products (the inputs truncated to 10 bits of mantissa) and the
 * output's rounding; a NaN never passes. On sm_80 and later the planner
 * (src/kernels/gemm_plan.h) must send some cases to each new kernel (the
 * tensor-core GEMVs along k and along B's rows, the register-tiled FP32
 * one, the FP32 one with Y staged at m or n of 4 to 8), so that they run.
 *
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

static int failures = 0, checks = 0;
static warplab_context *ctx = nullptr;

#define CUDA(call)                                                                                 \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        checks++;                                                                                  \
        if (e_ != cudaSuccess) {                                                                   \
            failures++;                                                                            \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
        }                                                                                          \
    } while (0)

struct combo {
    const char *name;
    warplab_dtype ab, c;
    warplab_compute compute;
};

static const combo combos[] = {
    {"bf16->bf16", WARPLAB_BFLOAT16, WARPLAB_BFLOAT16, WARPLAB_COMPUTE_FP32},
    {"bf16->f32", WARPLAB_BFLOAT16, WARPLAB_FLOAT32, WARPLAB_COMPUTE_FP32},
    {"f16->f16", WARPLAB_FLOAT16, WARPLAB_FLOAT16, WARPLAB_COMPUTE_FP32},
    {"f16->f32", WARPLAB_FLOAT16, WARPLAB_FLOAT32, WARPLAB_COMPUTE_FP32},
    {"tf32", WARPLAB_FLOAT32, WARPLAB_FLOAT32, WARPLAB_COMPUTE_TF32},
    {"f32", WARPLAB_FLOAT32, WARPLAB_FLOAT32, WARPLAB_COMPUTE_FP32},
};

struct shape {
    size_t m, n, k;
    warplab_op op_a, op_b;
    size_t pad_a, pad_b, pad_c; /* elements past the stored row */
    size_t offset;              /* elements the views start past a 16-byte boundary */
    float alpha, beta;
};

#define N WARPLAB_OP_N
#define T WARPLAB_OP_T
static const shape shapes[] = {
    /* op_b = T, rows on 16 bytes: the tensor-core rows (16-bit, TF32). */
    {1, 1000, 4096, N, T, 0, 0, 0, 0, 1.0f, 0.0f},
    {2, 333, 1536, N, T, 0, 0, 3, 0, 1.0f, 0.0f},
    {3, 517, 1000, N, T, 8, 8, 0, 0, 0.75f, 0.0f},
    {7, 1031, 2304, N, T, 0, 0, 0, 0, 1.0f, 0.5f},
    {13, 300, 777, N, T, 7, 7, 1, 0, 1.0f, 0.0f},
    {17, 257, 1100, N, T, 4, 4, 0, 0, -1.0f, 0.0f},
    {24, 1024, 4096, N, T, 0, 0, 0, 0, 1.0f, 0.0f},
    {31, 99, 2051, N, T, 5, 5, 2, 0, 1.0f, 0.25f},
    {32, 640, 3000, N, T, 0, 0, 0, 0, 1.5f, -0.5f},
    /* FP32 at m = 9-16 with a large B: the register-tiled GEMV (from 17 the
     * FP32 tiles take these; tests/unit/test_gemm_plan.c pins the picks). */
    {12, 1031, 2304, N, T, 0, 0, 0, 0, 1.0f, 0.0f},
    {16, 1000, 3000, N, T, 0, 0, 0, 0, 1.0f, 0.5f},
    /* op T, T at m = 2-8: B^T along k, A^T strided (FP32: Y staged a
     * 4-byte copy at a time), a padded B, a view off 16 bytes, beta. */
    {5, 1024, 3000, T, T, 0, 3, 0, 0, 1.0f, 0.0f},
    {8, 777, 4100, T, T, 2, 0, 1, 1, 1.0f, 0.5f},
    /* n small: X = A (m x k, op N) along k. */
    {1000, 5, 1500, N, T, 4, 4, 3, 0, 1.0f, 0.0f},
    {513, 29, 640, N, T, 0, 0, 0, 0, 1.0f, 1.0f},
    /* Views off 16 bytes and odd pitches: the rows that take any alignment. */
    {8, 300, 512, N, T, 0, 0, 0, 1, 1.0f, 0.0f},
    {20, 130, 333, N, T, 0, 0, 0, 0, 1.0f, 0.0f},
    /* op_b = N and op_a = T: the other paths of the same calls. */
    {5, 700, 900, N, N, 0, 3, 0, 0, 1.0f, 0.0f},
    /* op_b = N with 16-byte rows of A and B (TF32: the tensor-core GEMV
     * that reads B along n, gemv_mma_rows): odd m, n and k, a partial last
     * 16 bytes of B's rows, padded rows, a view 16 bytes in, k split in
     * many parts (few columns) or none, alpha and beta. */
    {1, 1027, 4096, N, N, 0, 1, 0, 0, 1.0f, 0.0f},
    {3, 517, 1001, N, N, 3, 3, 1, 0, 0.75f, 0.0f},
    {9, 333, 1003, N, N, 1, 3, 0, 0, 1.0f, 0.0f},
    {13, 300, 1536, N, N, 4, 4, 2, 0, 1.0f, 0.5f},
    {19, 1025, 2052, N, N, 0, 3, 0, 4, 1.0f, 0.0f},
    {25, 97, 4096, N, N, 0, 3, 5, 0, -1.0f, 0.25f},
    {32, 641, 3000, N, N, 0, 3, 0, 0, 1.5f, -0.5f},
    {27, 400, 640, N, N, 0, 0, 0, 0, 1.0f, 0.5f},
    /* op_b = N with rows of A and B on 16 bytes at 16 bits too (16-bit:
     * gemv_mma_rows16, m = 1 by the models): odd n (a partial 64-column
     * strip) and k, padded rows, a view 16 bytes (8 16-bit elements) in,
     * k split in many parts (three strips, k = 8200) or none. */
    {1, 1031, 4096, N, N, 0, 1, 0, 0, 1.0f, 0.0f},
    {2, 130, 8200, N, N, 0, 6, 0, 0, 1.0f, 0.0f},
    {5, 517, 1003, N, N, 5, 3, 1, 0, 0.75f, 0.0f},
    {13, 2049, 777, N, N, 7, 7, 0, 8, 1.0f, 0.5f},
    {24, 333, 2056, N, N, 0, 3, 2, 0, -1.0f, 0.25f},
    {31, 1000, 1500, N, N, 4, 0, 0, 0, 1.5f, -0.5f},
    {32, 4100, 640, N, N, 0, 4, 0, 0, 1.0f, 0.0f},
    {20, 333, 640, T, T, 0, 0, 0, 0, 1.0f, 0.0f},
    /* y = A^T x (n = 1, op_a = T: X along its rows): 16-bit, the GEMV row
     * gemv_rows16 with k split; a padded A (element loads of X). */
    {1031, 1, 2050, T, N, 0, 0, 0, 0, 1.0f, 0.5f},
    {777, 1, 3001, T, N, 3, 0, 0, 0, 1.0f, 0.0f},
};

static uint16_t to_bits(float v, warplab_dtype t)
{
    if (t == WARPLAB_BFLOAT16) {
        const __nv_bfloat16_raw raw = __float2bfloat16_rn(v);
        return raw.x;
    }
    const __half_raw raw = __float2half_rn(v);
    return raw.x;
}

static float from_bits(uint16_t bits, warplab_dtype t)
{
    if (t == WARPLAB_BFLOAT16) {
        const uint32_t word = (uint32_t)bits << 16;
        float v;
        memcpy(&v, &word, 4);
        return v;
    }
    __half_raw raw;
    raw.x = bits;
    return __half2float(__half(raw));
}

/* A stored matrix of rows x cols (ld >= cols) as its bytes and its values. */
struct host_matrix {
    warplab_dtype type;
    size_t rows, cols, ld;
    std::vector<unsigned char> bytes;
    size_t element() const { return warplab_dtype_size(type); }
    size_t span() const { return rows ? (rows - 1) * ld + cols : 0; }
    double get(size_t r, size_t c) const
    {
        const size_t at = r * ld + c;
        if (type == WARPLAB_FLOAT32) {
            float v;
            memcpy(&v, &bytes[at * 4], 4);
            return v;
        }
        uint16_t bits;
        memcpy(&bits, &bytes[at * 2], 2);
        return from_bits(bits, type);
    }
    void set_at(size_t at, float v)
    {
        if (type == WARPLAB_FLOAT32) {
            memcpy(&bytes[at * 4], &v, 4);
        } else {
            const uint16_t bits = to_bits(v, type);
            memcpy(&bytes[at * 2], &bits, 2);
        }
    }
};

static host_matrix make(warplab_dtype type, size_t rows, size_t cols, size_t ld, std::mt19937 &rng,
                        float padding)
{
    host_matrix h;
    h.type = type;
    h.rows = rows;
    h.cols = cols;
    h.ld = ld;
    h.bytes.assign(h.span() * h.element(), 0);
    std::uniform_real_distribution<float> value(-1.0f, 1.0f);
    for (size_t at = 0; at < h.span(); at++)
        h.set_at(at, at % ld < cols ? value(rng) : padding);
    return h;
}

/* A device copy: exact size where offset = 0, else a view offset elements
 * past a 16-byte boundary of a larger allocation (its own bytes exact). */
struct device_matrix {
    void *allocation = nullptr, *view = nullptr;
    warplab_buffer *buffer = nullptr;
};

static device_matrix upload(const host_matrix &h, size_t offset)
{
    device_matrix d;
    const size_t bytes = h.bytes.size(), skip = offset * h.element();
    CUDA(cudaMalloc(&d.allocation, bytes + skip > 0 ? bytes + skip : 1));
    d.view = (unsigned char *)d.allocation + skip;
    if (bytes)
        CUDA(cudaMemcpy(d.view, h.bytes.data(), bytes, cudaMemcpyHostToDevice));
    if (warplab_buffer_wrap(ctx, d.view, bytes, &d.buffer) != WARPLAB_OK) {
        failures++;
        fprintf(stderr, "warplab_buffer_wrap: %s\n", warplab_last_error(ctx));
    }
    return d;
}

static void release(device_matrix &d)
{
    warplab_buffer_destroy(d.buffer);
    CUDA(cudaFree(d.allocation));
}

static double tf32(double v)
{
    float f = (float)v;
    if (std::isnan(f))
        return v;
    uint32_t bits;
    memcpy(&bits, &f, 4);
    bits &= ~0x1FFFu;
    memcpy(&f, &bits, 4);
    return f;
}

/* Cases planned on each GEMV kernel (WL_GEMV_KERNEL_*), and on
 * gemv_mma_rows with 16-bit inputs. */
static int kernel_plans[WL_GEMV_KERNELS] = {0};
static int rows16_plans = 0;

static void run_case(const combo &cb, const shape &s, unsigned seed)
{
    std::mt19937 rng(seed);
    const bool ta = s.op_a == T, tb = s.op_b == T;
    /* Stored: A m x k (op N) or k x m; B k x n (op N) or n x k; C m x n. */
    const size_t a_rows = ta ? s.k : s.m, a_cols = ta ? s.m : s.k;
    const size_t b_rows = tb ? s.n : s.k, b_cols = tb ? s.k : s.n;
    host_matrix a = make(cb.ab, a_rows, a_cols, a_cols + s.pad_a, rng, NAN);
    host_matrix b = make(cb.ab, b_rows, b_cols, b_cols + s.pad_b, rng, NAN);
    /* C: NaN where beta = 0 (poison), random values otherwise; padding 7. */
    host_matrix c = make(cb.c, s.m, s.n, s.n + s.pad_c, rng, 7.0f);
    if (s.beta == 0.0f)
        for (size_t i = 0; i < s.m; i++)
            for (size_t j = 0; j < s.n; j++)
                c.set_at(i * c.ld + j, NAN);
    const host_matrix c_before = c;
    device_matrix da = upload(a, s.offset), db = upload(b, s.offset), dc = upload(c, s.offset);

    /* The plan the call gets (the planner as the library calls it). */
    wl_gemm_desc d;
    memset(&d, 0, sizeof d);
    d.m = s.m;
    d.n = s.n;
    d.k = s.k;
    d.batch = 1;
    d.op_a = s.op_a;
    d.op_b = s.op_b;
    d.ab_type = cb.ab;
    d.c_type = cb.c;
    d.compute = cb.compute;
    d.lda = a.ld;
    d.ldb = b.ld;
    d.ldc = c.ld;
    d.align_a = wl_gemm_alignment((uintptr_t)da.view, a.ld, a.element());
    d.align_b = wl_gemm_alignment((uintptr_t)db.view, b.ld, b.element());
    d.align_c = wl_gemm_alignment((uintptr_t)dc.view, c.ld, c.element());
    const warplab_device_info *info = warplab_context_device(ctx);
    const wl_gemm_target target =
        wl_gemm_target_of(info, info->cc_major == 9 && info->cc_minor == 0);
    const wl_gemm_route plan = wl_gemm_plan_make(&d, &target, nullptr);
    char route[200];
    wl_gemm_route_describe(&plan, route, sizeof route);
    if (plan.candidate >= 0 && plan.schedule == WL_GEMM_SCHEDULE_GEMV && plan.gemv_kernel >= 0 &&
        plan.gemv_kernel < WL_GEMV_KERNELS)
        kernel_plans[plan.gemv_kernel]++;
    if (plan.candidate >= 0 && plan.schedule == WL_GEMM_SCHEDULE_GEMV &&
        plan.gemv_kernel == WL_GEMV_KERNEL_MMA_ROWS && cb.ab != WARPLAB_FLOAT32)
        rows16_plans++;

    const warplab_status st =
        warplab_gemm_ex(ctx, s.op_a, s.op_b, s.m, s.n, s.k, s.alpha, da.buffer, cb.ab, a.ld,
                        db.buffer, cb.ab, b.ld, s.beta, dc.buffer, cb.c, c.ld, cb.compute);
    checks++;
    if (st != WARPLAB_OK) {
        failures++;
        fprintf(stderr, "%s %zux%zux%zu: warplab_gemm_ex: %s\n", cb.name, s.m, s.n, s.k,
                warplab_last_error(ctx));
    }
    CUDA(cudaDeviceSynchronize());
    CUDA(cudaMemcpy(c.bytes.data(), dc.view, c.bytes.size(), cudaMemcpyDeviceToHost));

    const bool use_tf32 = cb.compute == WARPLAB_COMPUTE_TF32;
    const double out_u = cb.c == WARPLAB_BFLOAT16  ? 1.0 / 256
                         : cb.c == WARPLAB_FLOAT16 ? 1.0 / 2048
                                                   : 0.0;
    int bad = 0, stray = 0;
    double worst = 0.0;
    for (size_t i = 0; i < s.m; i++)
        for (size_t j = 0; j < s.n; j++) {
            double sum = 0.0, magnitude = 0.0;
            for (size_t q = 0; q < s.k; q++) {
                double x = ta ? a.get(q, i) : a.get(i, q), y = tb ? b.get(j, q) : b.get(q, j);
                if (use_tf32) {
                    x = tf32(x);
                    y = tf32(y);
                }
                sum += x * y;
                magnitude += std::fabs(x * y);
            }
            const double before = s.beta != 0.0f ? c_before.get(i, j) : 0.0;
            const double want = s.alpha * sum + s.beta * before;
            const double scale = std::fabs(s.alpha) * magnitude + std::fabs(s.beta * before);
            /* FP32 sums; TF32 compute may also truncate the products
             * differently from the reference (an FP32 path meets the bound). */
            const double bound = ((double)s.k + 2) * 1.2e-7 * scale +
                                 (use_tf32 ? 2.0 * 9.8e-4 * scale : 0.0) + out_u * std::fabs(want) +
                                 1e-30;
            const double got = c.get(i, j), err = std::fabs(got - want) / bound;
            if (!(err <= 1.0)) {
                if (bad < 3)
                    fprintf(stderr, "  %s %zux%zux%zu C[%zu][%zu] = %g, want %g\n", cb.name, s.m,
                            s.n, s.k, i, j, got, want);
                bad++;
            }
            worst = err > worst ? err : worst;
        }
    for (size_t i = 0; i + 1 < s.m; i++) /* C's padding as it was */
        for (size_t j = s.n; j < c.ld; j++)
            stray += c.get(i, j) == c_before.get(i, j) ? 0 : 1;
    checks++;
    if (bad || stray || st != WARPLAB_OK)
        failures++;
    printf("%s %-10s %4zu x %5zu x %5zu op %c%c ld+%zu/%zu/%zu off %zu: worst %.3f of bound, %d "
           "wrong, %d stray; %s\n",
           bad || stray || st != WARPLAB_OK ? "FAIL" : "ok  ", cb.name, s.m, s.n, s.k,
           ta ? 'T' : 'N', tb ? 'T' : 'N', s.pad_a, s.pad_b, s.pad_c, s.offset, worst, bad, stray,
           route);
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
    /* --short: every combo on a third of the shapes (compute-sanitizer runs).
     * --mma-rows: TF32, BF16 -> BF16 and FP16 -> FP32 on the op N, N
     * shapes alone, the calls that reach gemv_mma_rows (racecheck,
     * synccheck and initcheck on that kernel, both element widths and both
     * C widths).
     * --rows16: 16-bit inputs with the big operand along its rows (op_b = N
     * for m small, op_a = T for n small): gemv_rows16 (gemv_along_big's
     * shared-memory sums), gemv_mma_rows16 and the 16-bit chooser's tiles
     * beside them. */
    const bool short_list = argc > 1 && strcmp(argv[1], "--short") == 0;
    const bool mma_rows = argc > 1 && strcmp(argv[1], "--mma-rows") == 0;
    const bool rows16 = argc > 1 && strcmp(argv[1], "--rows16") == 0;
    unsigned seed = 1;
    const size_t n_shapes = sizeof shapes / sizeof shapes[0];
    for (const combo &cb : combos)
        for (size_t i = 0; i < n_shapes; i++) {
            seed++;
            const bool rows_combo = cb.compute == WARPLAB_COMPUTE_TF32 ||
                                    strcmp(cb.name, "bf16->bf16") == 0 ||
                                    strcmp(cb.name, "f16->f32") == 0;
            if (mma_rows && (!rows_combo || shapes[i].op_a != N || shapes[i].op_b != N))
                continue;
            const bool along_rows =
                shapes[i].m <= shapes[i].n ? shapes[i].op_b == N : shapes[i].op_a == T;
            if (rows16 && (cb.ab == WARPLAB_FLOAT32 || !along_rows))
                continue;
            if (!short_list || (i + seed) % 3 == 0)
                run_case(cb, shapes[i], seed);
        }
    /* The new kernels ran: the tensor-core GEMVs, the register-tiled one and Y staged
     * (sm_80 and later; the full list, where every combo meets them). */
    const warplab_device_info *info = warplab_context_device(ctx);
    if (info->cc_major >= 8 && mma_rows) {
        checks++;
        if (kernel_plans[WL_GEMV_KERNEL_MMA_ROWS] == 0 || rows16_plans == 0) {
            failures++;
            fprintf(stderr, "--mma-rows: %d calls planned on gemv_mma_rows, %d of them 16-bit\n",
                    kernel_plans[WL_GEMV_KERNEL_MMA_ROWS], rows16_plans);
        }
    } else if (info->cc_major >= 8 && !short_list && !rows16) {
        checks++;
        if (kernel_plans[WL_GEMV_KERNEL_MMA] == 0 || kernel_plans[WL_GEMV_KERNEL_TILED] == 0 ||
            kernel_plans[WL_GEMV_KERNEL_MMA_ROWS] == 0 || rows16_plans == 0 ||
            kernel_plans[WL_GEMV_KERNEL_STAGED] == 0) {
            failures++;
            fprintf(stderr,
                    "GEMV kernels planned: %d FMA, %d tiled, %d mma, %d mma along rows (%d "
                    "16-bit), %d staged\n",
                    kernel_plans[0], kernel_plans[1], kernel_plans[2], kernel_plans[3],
                    rows16_plans, kernel_plans[4]);
        }
    }
    warplab_context_destroy(ctx);
    printf("test_gemm_decode_cuda: %d checks, %d failed (GEMV plans: %d FMA, %d tiled, %d mma, "
           "%d mma along rows, %d staged)\n",
           checks, failures, kernel_plans[0], kernel_plans[1], kernel_plans[2], kernel_plans[3],
           kernel_plans[4]);
    return failures ? 1 : 0;
}
