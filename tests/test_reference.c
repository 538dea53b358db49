/* The device reference (src/lab/reference.h, src/lab/cuda/reference.cu) against the
 * CPU reference: on the same small problems, with the same inputs and the
 * same outputs (right, slightly off, NaN), both must pass and fail the same
 * elements. Also: the generator is the same on host and device, and the
 * inputs' integrity check sees a changed element.
 *
 *   test_reference            (exits 77 without a CUDA device)
 */
#include "../src/core/context.h"
#include "../src/kernels/transpose_layout.h"
#include "../src/lab/reference.h"
#include "../src/ladders/gemm.h"
#include "check.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct fixture {
    wl_backend *backend;
    const wl_device_reference *reference;
    const wl_ladder *ladder;
    const wl_problem *problem;
    wl_buffer_spec spec[WL_MAX_BUFFERS];
    int buffers;
    void *host[2 * WL_MAX_BUFFERS]; /* the CPU reference's view; [buffers + i]: C0 */
    void *handle[WL_MAX_BUFFERS];
    wl_launch launch;
    wl_reference_request request;
} fixture;

static void generate(const wl_buffer_spec *spec, uint64_t seed, void *out)
{
    const size_t size = warplab_dtype_size(spec->dtype);
    for (size_t i = 0; i < spec->count; i++) {
        uint64_t bits = wl_random_element_bits(spec->dtype, seed, i, spec->lo, spec->hi);
        if (size == 8)
            memcpy((char *)out + i * 8, &bits, 8);
        else {
            uint32_t low = (uint32_t)bits;
            memcpy((char *)out + i * 4, &low, 4);
        }
    }
}

/* Buffers on both sides: inputs from the generator (made on the device,
 * compared with the host's generation), outputs poisoned. */
static bool fixture_open(fixture *f, wl_backend *backend, const char *ladder,
                         const wl_problem *problem, const char *rung_id)
{
    memset(f, 0, sizeof *f);
    f->backend = backend;
    f->reference = wl_device_reference_for(backend);
    f->ladder = wl_ladder_find(ladder);
    f->problem = problem;
    f->buffers = f->ladder->buffers(problem, f->spec);
    wl_ladder_device_reference(f->ladder, wl_rung_find(f->ladder, rung_id), problem, &f->request);
    CHECK_MSG(f->request.kind != WL_REFERENCE_NONE, "%s/%s has a device reference", ladder,
              rung_id);
    f->launch.problem = problem;
    f->launch.buffers = f->buffers;
    for (int i = 0; i < f->buffers; i++) {
        const size_t bytes = f->spec[i].count * warplab_dtype_size(f->spec[i].dtype);
        f->host[i] = malloc(bytes ? bytes : 1);
        CHECK(backend->ops->alloc(backend, bytes ? bytes : 4, &f->handle[i]) == WARPLAB_OK);
        f->launch.buf[i] = (wl_view){f->handle[i], 0, bytes};
        f->request.input[i].seed = 0x1234567ull * (uint64_t)(i + 3);
        f->request.input[i].nan_at = SIZE_MAX;
        if (f->spec[i].role == WL_OUT) {
            CHECK(backend->ops->fill32(backend, f->handle[i], 0, WL_POISON_PATTERN,
                                       bytes & ~(size_t)3) == WARPLAB_OK);
            CHECK(backend->ops->download(backend, f->handle[i], 0, f->host[i], bytes) ==
                  WARPLAB_OK);
            continue;
        }
        CHECK(f->reference->fill_random(backend, f->launch.buf[i], f->spec[i].dtype,
                                        f->spec[i].count, f->spec[i].lo, f->spec[i].hi,
                                        f->request.input[i].seed) == WARPLAB_OK);
        void *expected = malloc(bytes ? bytes : 1);
        generate(&f->spec[i], f->request.input[i].seed, expected);
        CHECK(backend->ops->download(backend, f->handle[i], 0, f->host[i], bytes) == WARPLAB_OK);
        CHECK_MSG(memcmp(expected, f->host[i], bytes) == 0,
                  "buffer %d: the device's generator matches the host's", i);
        if (f->spec[i].role == WL_INOUT) {
            f->host[f->buffers + i] = expected;
            continue;
        }
        free(expected);
        size_t changed = 99;
        CHECK(f->reference->count_changed(backend, f->launch.buf[i], &f->spec[i],
                                          &f->request.input[i], &changed) == WARPLAB_OK);
        CHECK_MSG(changed == 0, "buffer %d: %zu inputs changed right after generation", i, changed);
    }
    f->request.problem = problem;
    f->request.spec = f->spec;
    f->request.buffers = f->buffers;
    f->request.launch = &f->launch;
    f->request.sample_seed = 99;
    return true;
}

static void fixture_close(fixture *f)
{
    for (int i = 0; i < f->buffers; i++) {
        f->backend->ops->release(f->backend, f->handle[i]);
        free(f->host[i]);
        free(f->host[f->buffers + i]);
    }
}

static void upload_output(fixture *f, int i)
{
    const size_t bytes = f->spec[i].count * warplab_dtype_size(f->spec[i].dtype);
    CHECK(f->backend->ops->upload(f->backend, f->handle[i], 0, f->host[i], bytes) == WARPLAB_OK);
}

/* Both references on the current outputs: the same verdicts. */
static void compare(fixture *f, const wl_rung *rung, const char *what, bool expect_pass)
{
    wl_check cpu, gpu;
    wl_check_init(&cpu);
    wl_check_init(&gpu);
    const void *const *host = (const void *const *)f->host;
    warplab_status cpu_status = rung && rung->verify ? rung->verify(f->problem, host, &cpu)
                                                     : f->ladder->verify(f->problem, host, &cpu);
    warplab_status gpu_status = f->reference->verify(f->backend, &f->request, &gpu);
    char problem[64];
    f->ladder->describe(f->problem, problem, sizeof problem);
    CHECK_MSG((cpu_status == WARPLAB_OK) == expect_pass, "%s %s, %s: CPU reference says %s",
              f->ladder->name, problem, what, warplab_status_string(cpu_status));
    CHECK_MSG((gpu_status == WARPLAB_OK) == expect_pass, "%s %s, %s: device reference says %s",
              f->ladder->name, problem, what, warplab_status_string(gpu_status));
    CHECK_MSG(cpu.bad == gpu.bad, "%s %s, %s: %zu bad on the CPU, %zu on the device",
              f->ladder->name, problem, what, cpu.bad, gpu.bad);
    if (cpu.bad && gpu.bad)
        CHECK_MSG(cpu.first_bad == gpu.first_bad &&
                      (cpu.got == gpu.got || (isnan(cpu.got) && isnan(gpu.got))),
                  "%s %s, %s: first bad %zu (got %g) vs %zu (got %g)", f->ladder->name, problem,
                  what, cpu.first_bad, cpu.got, gpu.first_bad, gpu.got);
    if (isfinite(cpu.worst_ratio))
        CHECK_MSG(fabs(cpu.worst_ratio - gpu.worst_ratio) <= 1e-6 * (1.0 + cpu.worst_ratio),
                  "%s %s, %s: worst ratio %.9g on the CPU, %.9g on the device", f->ladder->name,
                  problem, what, cpu.worst_ratio, gpu.worst_ratio);
}

static float *as_float(fixture *f, int i)
{
    return (float *)f->host[i];
}

static void test_vecadd(wl_backend *backend, const char *rung_id, bool copy)
{
    wl_problem p = {.dim = {100003}, .dims = 1, .dtype = WARPLAB_FLOAT32};
    fixture f;
    fixture_open(&f, backend, "vecadd", &p, rung_id);
    const wl_rung *rung = wl_rung_find(f.ladder, rung_id);
    float *a = as_float(&f, 0), *b = as_float(&f, 1), *c = as_float(&f, 2);
    compare(&f, rung, "poisoned output", false);
    for (size_t i = 0; i < p.dim[0]; i++)
        c[i] = copy ? a[i] : a[i] + b[i];
    upload_output(&f, 2);
    compare(&f, rung, "right", true);
    c[777] = nextafterf(nextafterf(c[777], 2.0f), 2.0f);
    c[5000] = NAN;
    upload_output(&f, 2);
    compare(&f, rung, "two wrong elements", false);
    fixture_close(&f);
}

static void test_transpose(wl_backend *backend, warplab_dtype dtype, size_t ld_in, size_t ld_out,
                           const char *rung_id, bool copy)
{
    wl_problem p = {.dim = {129, 257}, .dims = 2, .ld = {ld_in, ld_out}, .dtype = dtype};
    fixture f;
    fixture_open(&f, backend, "transpose", &p, rung_id);
    const wl_rung *rung = wl_rung_find(f.ladder, rung_id);
    const wl_transpose_layout m = wl_transpose_layout_of(&p);
    const size_t size = m.element_size;
    char *in = f.host[0], *out = f.host[1];
    for (size_t r = 0; r < m.rows; r++)
        for (size_t c = 0; c < m.cols; c++) {
            const size_t to = copy ? r * m.cols + c : c * m.ld_out + r;
            memcpy(out + to * size, in + (r * m.ld_in + c) * size, size);
        }
    upload_output(&f, 1);
    compare(&f, rung, "right", true);
    /* A wrong element, and (where there is padding) a written pad after it
     * in both references' order (the CPU's goes by blocks of columns). */
    out[(3 * m.ld_out + 5) * size] ^= 0x10;
    if (m.ld_out > m.rows && !copy)
        memset(out + (10 * m.ld_out + m.ld_out - 1) * size, 0, size);
    upload_output(&f, 1);
    compare(&f, rung, "wrong element and padding", false);
    fixture_close(&f);
}

static void test_reduce(wl_backend *backend, warplab_dtype dtype, warplab_reduce_op op, size_t n)
{
    wl_problem p = {.dim = {n}, .dims = 1, .dtype = dtype, .op = op};
    fixture f;
    fixture_open(&f, backend, "reduce", &p, "cascade");
    /* The CPU reference's own answer, written as the output. */
    wl_check cpu;
    wl_check_init(&cpu);
    f.ladder->verify(&p, (const void *const *)f.host, &cpu);
    CHECK(cpu.bad == 1);
    const double right = cpu.expected;
    if (dtype == WARPLAB_INT32)
        *(int32_t *)f.host[1] = (int32_t)right;
    else if (dtype == WARPLAB_FLOAT32)
        *(float *)f.host[1] = (float)right;
    else
        *(double *)f.host[1] = right;
    upload_output(&f, 1);
    compare(&f, NULL, "right", true);
    /* Past any bound: the sums' bound n * eps * sum|x| is 12% of a float sum. */
    const double wrong =
        op == WARPLAB_REDUCE_SUM && dtype != WARPLAB_INT32 ? 2.0 * right + 1.0 : right + 1.0;
    if (dtype == WARPLAB_INT32)
        *(int32_t *)f.host[1] = (int32_t)((uint32_t)(int32_t)right + 1u);
    else if (dtype == WARPLAB_FLOAT32)
        *(float *)f.host[1] = (float)wrong;
    else
        *(double *)f.host[1] = wrong;
    upload_output(&f, 1);
    compare(&f, NULL, "wrong", false);
    fixture_close(&f);
}

static void test_gemm(wl_backend *backend, const char *rung_id, size_t m, size_t n, size_t k,
                      double beta, int variant)
{
    wl_problem p = {.dim = {m, n, k},
                    .dims = 3,
                    .dtype = WARPLAB_FLOAT32,
                    .alpha = 1.5,
                    .beta = beta,
                    .variant = variant};
    fixture f;
    fixture_open(&f, backend, "gemm", &p, rung_id);
    const wl_rung *rung = wl_rung_find(f.ladder, rung_id);
    const float *a = as_float(&f, GEMM_A), *b = as_float(&f, GEMM_B);
    float *c = as_float(&f, GEMM_C);
    const float *c0 = f.host[GEMM_BUFFERS + GEMM_C];
    const size_t lda = wl_gemm_lda(&p), ldb = wl_gemm_ldb(&p), ldc = wl_gemm_ldc(&p);
    const bool ta = wl_gemm_trans_a(&p), tb = wl_gemm_trans_b(&p);
    /* Exact products of the unrounded operands: right for FP32, and for the
     * rounding rungs wrong in the same elements for both references. */
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++) {
            double sum = 0.0;
            for (size_t q = 0; q < k; q++)
                sum += (double)a[ta ? q * lda + i : i * lda + q] *
                       (double)b[tb ? j * ldb + q : q * ldb + j];
            c[i * ldc + j] =
                (float)(1.5 * sum + (beta != 0.0 ? beta * (double)c0[i * ldc + j] : 0.0));
        }
    upload_output(&f, GEMM_C);
    compare(&f, rung, "double-precision product", strcmp(rung_id, "tiled_bounds") == 0);
    c[(m / 2) * ldc + n / 3] += 0.25f;
    upload_output(&f, GEMM_C);
    compare(&f, rung, "one element off", false);
    fixture_close(&f);
}

int main(void)
{
    if (!warplab_backend_compiled(WARPLAB_BACKEND_CUDA)) {
        printf("SKIP: the cuda backend is not compiled into this build\n");
        return TEST_SKIP;
    }
    warplab_context *context = NULL;
    warplab_status status = warplab_context_create(WARPLAB_BACKEND_CUDA, 0, &context);
    if (status == WARPLAB_ERROR_NO_DEVICE) {
        printf("SKIP: no CUDA device (%s)\n", warplab_last_error(NULL));
        return TEST_SKIP;
    }
    CHECK_MSG(status == WARPLAB_OK, "cannot open cuda: %s", warplab_last_error(NULL));
    if (status != WARPLAB_OK)
        return check_report("test_reference");
    wl_backend *backend = context->device;
    test_vecadd(backend, "grid", false);
    test_vecadd(backend, "copy", true);
    test_transpose(backend, WARPLAB_FLOAT32, 0, 0, "tiled", false);
    test_transpose(backend, WARPLAB_FLOAT64, 261, 133, "padded", false);
    test_transpose(backend, WARPLAB_FLOAT32, 260, 136, "copy", true);
    for (int t = WARPLAB_INT32; t <= WARPLAB_FLOAT64; t++)
        for (int o = 0; o < WARPLAB_REDUCE_OP_COUNT; o++)
            test_reduce(backend, (warplab_dtype)t, (warplab_reduce_op)o, 1000003);
    test_gemm(backend, "tiled_bounds", 67, 45, 33, 0.0, 0);
    test_gemm(backend, "tiled_bounds", 67, 45, 333, 0.5, 0);
    test_gemm(backend, "tf32_mma", 64, 64, 64, 0.0, 0);
    test_gemm(backend, "bf16_mma", 64, 64, 64, 0.25, 0);
    test_gemm(backend, "fp16_mma", 64, 64, 64, 0.25, 0);
    warplab_context_destroy(context);
    return check_report("test_reference");
}
