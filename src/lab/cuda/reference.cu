/* The device reference (see src/lab/reference.h): input generation, the inputs'
 * integrity check, and each ladder's verification on the GPU, in double
 * precision, with the rules and bounds of the CPU references
 * (the ladders' verify functions, gemm_check.c). Not a rung: it runs outside any timed
 * region, so it may allocate and synchronize. */
#include "../reference.h"
#include "kernels/cuda/cuda_backend.h"
#include "kernels/transpose_layout.h"
#include "ladders/gemm.h"

#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace
{

constexpr unsigned kBlock = 256;

/* What a check kernel reports: bad count, the first bad index (with its
 * values, recorded by a second launch), the worst error/bound ratio. */
struct device_result {
    unsigned long long bad;
    unsigned long long first_bad;
    unsigned long long worst_bits; /* a non-negative double's bits: ordered as integers */
    double got, expected;
};

__host__ __device__ inline void *at_bytes(wl_view view)
{
    return static_cast<char *>(view.handle) + view.offset;
}

/* wl_check_value's rule, on the device. */
__device__ inline void judge(device_result *result, unsigned long long index, double got,
                             double expected, double bound, double &worst,
                             unsigned long long record)
{
    bool ok;
    double ratio = 0.0;
    if (isnan(expected)) {
        ok = isnan(got);
    } else if (isnan(got) || isinf(got) != isinf(expected)) {
        ok = false;
        ratio = INFINITY;
    } else if (isinf(expected)) {
        ok = got == expected;
        ratio = ok ? 0.0 : INFINITY;
    } else {
        const double diff = fabs(got - expected);
        ok = diff <= bound;
        ratio = bound > 0.0 ? diff / bound : (diff == 0.0 ? 0.0 : INFINITY);
    }
    worst = fmax(worst, ratio);
    if (!ok) {
        atomicAdd(&result->bad, 1ull);
        atomicMin(&result->first_bad, index);
    }
    if (index == record) {
        result->got = got;
        result->expected = expected;
    }
}

/* An element that must hold bits it held before (padding, gaps): a failure
 * is reported as got vs NaN ("untouched"), ratio infinite. */
__device__ inline void judge_untouched(device_result *result, unsigned long long index, bool ok,
                                       double got, double &worst, unsigned long long record)
{
    if (!ok) {
        worst = INFINITY;
        atomicAdd(&result->bad, 1ull);
        atomicMin(&result->first_bad, index);
    }
    if (index == record) {
        result->got = got;
        result->expected = NAN;
    }
}

__device__ inline void publish_worst(device_result *result, double worst)
{
    for (int offset = 16; offset > 0; offset /= 2)
        worst = fmax(worst, __shfl_down_sync(0xFFFFFFFFu, worst, offset));
    if ((threadIdx.x & 31) == 0 && worst > 0.0)
        atomicMax(&result->worst_bits,
                  static_cast<unsigned long long>(__double_as_longlong(worst)));
}

/* Grid-stride driver: element(i, result, worst, record) for i in [0, count). */
template <class Element>
__global__ void check_kernel(Element element, size_t count, device_result *result,
                             unsigned long long record)
{
    double worst = 0.0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count;
         i += (size_t)gridDim.x * blockDim.x)
        element(i, result, worst, record);
    publish_worst(result, worst);
}

__device__ inline double load_element(const void *data, warplab_dtype dtype, size_t i)
{
    if (dtype == WARPLAB_FLOAT64)
        return static_cast<const double *>(data)[i];
    if (dtype == WARPLAB_INT32)
        return static_cast<double>(static_cast<const int32_t *>(data)[i]);
    return static_cast<double>(static_cast<const float *>(data)[i]);
}

__device__ inline uint64_t load_bits(const void *data, size_t element_size, size_t i)
{
    if (element_size == 8)
        return static_cast<const uint64_t *>(data)[i];
    return static_cast<const uint32_t *>(data)[i];
}

__device__ inline bool is_poison(const void *data, size_t element_size, size_t i)
{
    const uint64_t poison = element_size == 8
                                ? ((uint64_t)WL_POISON_PATTERN << 32 | WL_POISON_PATTERN)
                                : (uint64_t)WL_POISON_PATTERN;
    return load_bits(data, element_size, i) == poison;
}

/* ---------------------------------------------------------------------- */
/* Generation and the inputs' integrity                                   */

__global__ void fill_kernel(void *data, warplab_dtype dtype, size_t count, double lo, double hi,
                            uint64_t seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count;
         i += (size_t)gridDim.x * blockDim.x) {
        const uint64_t bits = wl_random_element_bits(dtype, seed, i, lo, hi);
        if (dtype == WARPLAB_FLOAT64)
            static_cast<uint64_t *>(data)[i] = bits;
        else
            static_cast<uint32_t *>(data)[i] = static_cast<uint32_t>(bits);
    }
}

__global__ void changed_kernel(const void *data, warplab_dtype dtype, size_t count, double lo,
                               double hi, uint64_t seed, size_t nan_at, unsigned long long *changed)
{
    unsigned long long mine = 0;
    const size_t element_size = dtype == WARPLAB_FLOAT64 ? 8 : 4;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count;
         i += (size_t)gridDim.x * blockDim.x) {
        const uint64_t bits = load_bits(data, element_size, i);
        bool same;
        if (i == nan_at)
            same = element_size == 8 ? isnan(__longlong_as_double((long long)bits))
                                     : isnan(__uint_as_float((unsigned)bits));
        else
            same = bits == wl_random_element_bits(dtype, seed, i, lo, hi);
        mine += same ? 0 : 1;
    }
    for (int offset = 16; offset > 0; offset /= 2)
        mine += __shfl_down_sync(0xFFFFFFFFu, mine, offset);
    if ((threadIdx.x & 31) == 0 && mine)
        atomicAdd(changed, mine);
}

/* ---------------------------------------------------------------------- */
/* Element checks                                                         */

/* vecadd: c = a + b within |a + b| * FLT_EPSILON, or c = a exactly. */
struct vecadd_element {
    const float *a, *b, *c;
    bool copy;
    __device__ void operator()(size_t i, device_result *r, double &worst,
                               unsigned long long record) const
    {
        const double expected = copy ? (double)a[i] : (double)a[i] + (double)b[i];
        judge(r, i, (double)c[i], expected, copy ? 0.0 : fabs(expected) * FLT_EPSILON, worst,
              record);
    }
};

/* transpose: out[c][r] == in[r][c]; the padding of each output row untouched. */
struct transpose_element {
    const void *in, *out;
    warplab_dtype dtype;
    wl_transpose_layout m;
    __device__ void operator()(size_t at, device_result *r, double &worst,
                               unsigned long long record) const
    {
        const size_t c = at / m.ld_out, row = at % m.ld_out;
        if (row < m.rows)
            judge(r, at, load_element(out, dtype, at), load_element(in, dtype, row * m.ld_in + c),
                  0.0, worst, record);
        else
            judge_untouched(r, at, is_poison(out, m.element_size, at), load_element(out, dtype, at),
                            worst, record);
    }
};

/* The copy rows: out holds the input's rows x cols tight, then the rest untouched. */
struct transpose_copy_element {
    const void *in, *out;
    warplab_dtype dtype;
    wl_transpose_layout m;
    __device__ void operator()(size_t i, device_result *r, double &worst,
                               unsigned long long record) const
    {
        if (i < m.rows * m.cols)
            judge(r, i, load_element(out, dtype, i),
                  load_element(in, dtype, (i / m.cols) * m.ld_in + i % m.cols), 0.0, worst, record);
        else
            judge_untouched(r, i, is_poison(out, m.element_size, i), load_element(out, dtype, i),
                            worst, record);
    }
};

/* ---------------------------------------------------------------------- */
/* GEMM: the sampled check of gemm_check.c                                 */

constexpr int kMaxModels = 3;
enum rounding_mode { ROUND_NEAREST_EVEN = 0, ROUND_NEAREST_AWAY, ROUND_TOWARD_ZERO, ROUND_FP16 };

/* gemm_check.c's round_significand and wl_float_to_fp16 / wl_fp16_to_float,
 * on the device (the reference test compares the two references). */
__device__ inline float round_significand(float x, int drop, rounding_mode mode)
{
    if (isnan(x) || isinf(x))
        return x;
    uint32_t bits = __float_as_uint(x);
    const uint32_t mask = (1u << drop) - 1u, half = 1u << (drop - 1);
    if (mode == ROUND_NEAREST_EVEN)
        bits += half - 1u + ((bits >> drop) & 1u);
    else if (mode == ROUND_NEAREST_AWAY)
        bits += half;
    return __uint_as_float(bits & ~mask);
}

__device__ inline float round_fp16(float x)
{
    const uint32_t bits = __float_as_uint(x);
    const uint32_t sign = bits & 0x80000000u, magnitude = bits & 0x7FFFFFFFu;
    if (magnitude > 0x7F800000u)
        return x;
    if (magnitude >= 0x477FF000u)
        return __uint_as_float(sign | 0x7F800000u);
    if (magnitude >= 0x38800000u) {
        const uint32_t rounded = magnitude + 0xFFFu + ((magnitude >> 13) & 1u);
        return __uint_as_float(sign | (rounded & ~0x1FFFu));
    }
    if (magnitude <= 0x33000000u)
        return __uint_as_float(sign);
    const uint32_t exponent = magnitude >> 23, significand = (magnitude & 0x7FFFFFu) | 0x800000u;
    const uint32_t shift = 126u - exponent;
    uint32_t q = significand >> shift;
    const uint32_t rest = significand & ((1u << shift) - 1u), half = 1u << (shift - 1u);
    if (rest > half || (rest == half && (q & 1u)))
        q++;
    const float value = ldexpf((float)q, -24);
    return sign ? -value : value;
}

struct gemm_setup {
    const float *a, *b, *c;
    size_t m, n, k, ldc, a_i, a_p, b_p, b_j;
    double alpha, beta;
    bool has_c0;
    uint64_t c0_seed;
    double c0_lo, c0_hi;
    int models;
    int drop;                       /* 0: IEEE half */
    rounding_mode mode[kMaxModels]; /* per model */
    bool rounded;                   /* operands rounded per model */
    double gamma, tiny;
};

__device__ inline float c0_value(const gemm_setup &g, size_t index)
{
    return __uint_as_float(
        (uint32_t)wl_random_element_bits(WARPLAB_FLOAT32, g.c0_seed, index, g.c0_lo, g.c0_hi));
}

__device__ inline float model_operand(const gemm_setup &g, float x, int model)
{
    if (!g.rounded)
        return x;
    return g.drop ? round_significand(x, g.drop, g.mode[model]) : round_fp16(x);
}

/* C[i][j] from scratch under each model; the closest model decides. */
__device__ inline void gemm_point(const gemm_setup &g, size_t i, size_t j, device_result *r,
                                  double &worst, unsigned long long record)
{
    double dot[kMaxModels], magnitude[kMaxModels];
    for (int model = 0; model < g.models; model++) {
        dot[model] = 0.0;
        magnitude[model] = 0.0;
    }
    const float *a = g.a + i * g.a_i, *b = g.b + j * g.b_j;
    for (size_t p = 0; p < g.k; p++) {
        const float ap = a[p * g.a_p], bp = b[p * g.b_p];
        for (int model = 0; model < g.models; model++) {
            const double product =
                (double)model_operand(g, ap, model) * (double)model_operand(g, bp, model);
            dot[model] += product;
            magnitude[model] += fabs(product);
        }
    }
    const size_t index = i * g.ldc + j;
    const double got = (double)g.c[index];
    const double c0 = g.has_c0 ? (double)c0_value(g, index) : 0.0;
    double best_expected = 0.0, best_bound = 0.0, best_ratio = INFINITY;
    for (int model = 0; model < g.models; model++) {
        const double expected = g.alpha * dot[model] + (g.has_c0 ? g.beta * c0 : 0.0);
        const double bound =
            g.gamma * (fabs(g.alpha) * magnitude[model] + fabs(g.beta * c0)) + g.tiny;
        const double diff = fabs(got - expected);
        const double ratio = isnan(expected) ? (isnan(got) ? 0.0 : INFINITY)
                             : isnan(diff)   ? INFINITY
                                             : diff / bound;
        if (model == 0 || ratio < best_ratio) {
            best_ratio = ratio;
            best_expected = expected;
            best_bound = bound;
        }
    }
    judge(r, index, got, best_expected, best_bound, worst, record);
}

/* The samples: packed (i, j) pairs. */
struct gemm_sample_element {
    gemm_setup g;
    const unsigned long long *samples; /* i * n + j */
    __device__ void operator()(size_t s, device_result *r, double &worst,
                               unsigned long long record) const
    {
        const unsigned long long packed = samples[s];
        gemm_point(g, packed / g.n, packed % g.n, r, worst, record);
    }
};

/* Every element of the view, i = s / n, j = s % n (small problems). */
struct gemm_all_element {
    gemm_setup g;
    __device__ void operator()(size_t s, device_result *r, double &worst,
                               unsigned long long record) const
    {
        gemm_point(g, s / g.n, s % g.n, r, worst, record);
    }
};

/* Every element of C's span: inside the view finite (unless a NaN was
 * planted), in the gaps between rows what was there before. */
struct gemm_span_element {
    gemm_setup g;
    bool nan_input;
    __device__ void operator()(size_t index, device_result *r, double &worst,
                               unsigned long long record) const
    {
        const size_t j = index % g.ldc;
        const float got = g.c[index];
        if (j >= g.n) {
            const uint32_t want =
                g.has_c0 ? __float_as_uint(c0_value(g, index)) : WL_POISON_PATTERN;
            judge_untouched(r, index, __float_as_uint(got) == want, (double)got, worst, record);
        } else if (!nan_input && !isfinite(got)) {
            /* Inputs in [-1, 1] give finite products: a non-finite element is wrong. */
            gemm_point(g, index / g.ldc, j, r, worst, record);
        }
    }
};

/* ---------------------------------------------------------------------- */
/* Reduction                                                              */

struct reduce_part {
    double sum, compensation, magnitude, best;
    long long int_sum;
    int int_best;
    int nan_seen;
};

__device__ inline void compensated_add(double &sum, double &compensation, double x)
{
    const double t = sum + x;
    if (fabs(sum) >= fabs(x))
        compensation += (sum - t) + x;
    else
        compensation += (x - t) + sum;
    sum = t;
}

__global__ void reduce_kernel(const void *input, warplab_dtype dtype, warplab_reduce_op op,
                              size_t n, reduce_part *parts)
{
    reduce_part mine;
    mine.sum = mine.compensation = mine.magnitude = 0.0;
    mine.best = op == WARPLAB_REDUCE_MIN ? INFINITY : -INFINITY;
    mine.int_sum = 0;
    mine.int_best = op == WARPLAB_REDUCE_MIN ? INT_MAX : INT_MIN;
    mine.nan_seen = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        if (dtype == WARPLAB_INT32) {
            const int x = static_cast<const int32_t *>(input)[i];
            mine.int_sum += x;
            mine.int_best =
                op == WARPLAB_REDUCE_MIN ? min(mine.int_best, x) : max(mine.int_best, x);
            continue;
        }
        const double x = load_element(input, dtype, i);
        if (op == WARPLAB_REDUCE_SUM) {
            compensated_add(mine.sum, mine.compensation, x);
            mine.magnitude += fabs(x);
        } else if (isnan(x)) {
            mine.nan_seen = 1;
        } else {
            mine.best = op == WARPLAB_REDUCE_MIN ? fmin(mine.best, x) : fmax(mine.best, x);
        }
    }
    parts[blockIdx.x * (size_t)blockDim.x + threadIdx.x] = mine;
}

/* ---------------------------------------------------------------------- */
/* Host side                                                              */

unsigned grid_for(wl_backend *backend, size_t count)
{
    return wl_cuda_grid_for(backend, count, kBlock);
}

warplab_status finish(wl_backend *backend, cudaError_t error, const char *what)
{
    return wl_cuda_check(backend, error, what);
}

warplab_status cuda_fill_random(wl_backend *backend, wl_view view, warplab_dtype dtype,
                                size_t count, double lo, double hi, uint64_t seed)
{
    if (count == 0)
        return WARPLAB_OK;
    cudaStream_t stream = wl_cuda_stream(backend);
    fill_kernel<<<grid_for(backend, count), kBlock, 0, stream>>>(at_bytes(view), dtype, count, lo,
                                                                 hi, seed);
    return WL_CUDA_LAUNCHED(backend, "device reference: generating inputs");
}

/* A small device result, zeroed, and its copy back. */
struct scratch_result {
    device_result *device = nullptr;
    device_result host{};
};

warplab_status result_begin(wl_backend *backend, scratch_result &r)
{
    warplab_status status =
        finish(backend, cudaMalloc(&r.device, sizeof(device_result)), "device reference: result");
    if (status != WARPLAB_OK)
        return status;
    device_result zero{};
    zero.first_bad = ULLONG_MAX;
    return finish(backend,
                  cudaMemcpyAsync(r.device, &zero, sizeof zero, cudaMemcpyHostToDevice,
                                  wl_cuda_stream(backend)),
                  "device reference: result");
}

warplab_status result_read(wl_backend *backend, scratch_result &r)
{
    cudaStream_t stream = wl_cuda_stream(backend);
    warplab_status status = finish(
        backend, cudaMemcpyAsync(&r.host, r.device, sizeof r.host, cudaMemcpyDeviceToHost, stream),
        "device reference: reading the result");
    if (status == WARPLAB_OK)
        status = finish(backend, cudaStreamSynchronize(stream), "device reference: checking");
    return status;
}

/* Runs an element check over [0, count): counts, then (when some element
 * failed) again to record the first bad element's values. */
template <class Element>
warplab_status run_check(wl_backend *backend, const Element &element, size_t count, wl_check *check)
{
    if (count == 0)
        return WARPLAB_OK;
    scratch_result r;
    warplab_status status = result_begin(backend, r);
    cudaStream_t stream = wl_cuda_stream(backend);
    if (status == WARPLAB_OK) {
        check_kernel<<<grid_for(backend, count), kBlock, 0, stream>>>(element, count, r.device,
                                                                      ULLONG_MAX);
        status = WL_CUDA_LAUNCHED(backend, "device reference: checking");
    }
    if (status == WARPLAB_OK)
        status = result_read(backend, r);
    if (status == WARPLAB_OK && r.host.bad) {
        /* The second pass counts again: keep the first's counts, take its record. */
        const device_result counted = r.host;
        check_kernel<<<grid_for(backend, count), kBlock, 0, stream>>>(element, count, r.device,
                                                                      counted.first_bad);
        status = WL_CUDA_LAUNCHED(backend, "device reference: checking");
        if (status == WARPLAB_OK)
            status = result_read(backend, r);
        r.host.bad = counted.bad;
        r.host.first_bad = counted.first_bad;
        r.host.worst_bits = counted.worst_bits;
    }
    if (r.device)
        cudaFree(r.device);
    if (status != WARPLAB_OK)
        return status;
    double worst;
    memcpy(&worst, &r.host.worst_bits, sizeof worst);
    if (r.host.bad && check->bad == 0) {
        check->first_bad = (size_t)r.host.first_bad;
        check->got = r.host.got;
        check->expected = r.host.expected;
    }
    check->bad += (size_t)r.host.bad;
    check->checked += count;
    if (worst > check->worst_ratio)
        check->worst_ratio = worst;
    return WARPLAB_OK;
}

warplab_status cuda_count_changed(wl_backend *backend, wl_view view, const wl_buffer_spec *spec,
                                  const wl_reference_input *input, size_t *changed)
{
    *changed = 0;
    if (spec->count == 0)
        return WARPLAB_OK;
    unsigned long long *counter = nullptr;
    cudaStream_t stream = wl_cuda_stream(backend);
    warplab_status status =
        finish(backend, cudaMalloc(&counter, sizeof *counter), "device reference: counter");
    if (status == WARPLAB_OK)
        status = finish(backend, cudaMemsetAsync(counter, 0, sizeof *counter, stream),
                        "device reference: counter");
    if (status == WARPLAB_OK) {
        changed_kernel<<<grid_for(backend, spec->count), kBlock, 0, stream>>>(
            at_bytes(view), spec->dtype, spec->count, spec->lo, spec->hi, input->seed,
            input->nan_at, counter);
        status = WL_CUDA_LAUNCHED(backend, "device reference: comparing inputs");
    }
    unsigned long long host = 0;
    if (status == WARPLAB_OK)
        status = finish(
            backend, cudaMemcpyAsync(&host, counter, sizeof host, cudaMemcpyDeviceToHost, stream),
            "device reference: comparing inputs");
    if (status == WARPLAB_OK)
        status =
            finish(backend, cudaStreamSynchronize(stream), "device reference: comparing inputs");
    if (counter)
        cudaFree(counter);
    *changed = (size_t)host;
    return status;
}

warplab_status verify_reduce(wl_backend *backend, const wl_reference_request *q, wl_check *check)
{
    const wl_problem *p = q->problem;
    const size_t n = p->dim[0];
    const unsigned blocks = n ? grid_for(backend, n) : 1;
    const size_t threads = (size_t)blocks * kBlock;
    reduce_part *device_parts = nullptr;
    cudaStream_t stream = wl_cuda_stream(backend);
    reduce_part *parts = static_cast<reduce_part *>(calloc(threads, sizeof(reduce_part)));
    if (!parts)
        return WARPLAB_ERROR_HOST_OUT_OF_MEMORY;
    warplab_status status = finish(backend, cudaMalloc(&device_parts, threads * sizeof *parts),
                                   "device reference: reduction");
    if (status == WARPLAB_OK) {
        reduce_kernel<<<blocks, kBlock, 0, stream>>>(at_bytes(q->launch->buf[0]), p->dtype, p->op,
                                                     n, device_parts);
        status = WL_CUDA_LAUNCHED(backend, "device reference: reduction");
    }
    double got = 0.0;
    if (status == WARPLAB_OK)
        status = finish(backend,
                        cudaMemcpyAsync(parts, device_parts, threads * sizeof *parts,
                                        cudaMemcpyDeviceToHost, stream),
                        "device reference: reduction");
    const size_t element = warplab_dtype_size(p->dtype);
    unsigned char out[8] = {0};
    if (status == WARPLAB_OK)
        status = finish(backend,
                        cudaMemcpyAsync(out, at_bytes(q->launch->buf[1]), element,
                                        cudaMemcpyDeviceToHost, stream),
                        "device reference: reduction");
    if (status == WARPLAB_OK)
        status = finish(backend, cudaStreamSynchronize(stream), "device reference: reduction");
    if (device_parts)
        cudaFree(device_parts);
    if (status != WARPLAB_OK) {
        free(parts);
        return status;
    }
    if (p->dtype == WARPLAB_INT32) {
        int32_t v;
        memcpy(&v, out, 4);
        got = v;
    } else if (p->dtype == WARPLAB_FLOAT32) {
        float v;
        memcpy(&v, out, 4);
        got = v;
    } else {
        memcpy(&got, out, 8);
    }
    /* Combined on the host in a fixed order, as reduce_reference combines its chunks. */
    long long int_sum = 0;
    int int_best = p->op == WARPLAB_REDUCE_MIN ? INT_MAX : INT_MIN;
    double sum = 0.0, compensation = 0.0, magnitude = 0.0;
    double best = p->op == WARPLAB_REDUCE_MIN ? INFINITY : -INFINITY;
    bool nan_seen = false;
    for (size_t t = 0; t < threads; t++) {
        const reduce_part &part = parts[t];
        int_sum += part.int_sum;
        int_best = p->op == WARPLAB_REDUCE_MIN
                       ? (part.int_best < int_best ? part.int_best : int_best)
                       : (part.int_best > int_best ? part.int_best : int_best);
        const double t_sum = sum + part.sum;
        if (fabs(sum) >= fabs(part.sum))
            compensation += (sum - t_sum) + part.sum;
        else
            compensation += (part.sum - t_sum) + sum;
        sum = t_sum;
        compensation += part.compensation;
        magnitude += part.magnitude;
        nan_seen = nan_seen || part.nan_seen;
        best = p->op == WARPLAB_REDUCE_MIN ? fmin(best, part.best) : fmax(best, part.best);
    }
    free(parts);
    double expected, bound = 0.0;
    if (p->dtype == WARPLAB_INT32) {
        expected = p->op == WARPLAB_REDUCE_SUM ? (double)(int32_t)(uint32_t)(uint64_t)int_sum
                                               : (double)int_best;
    } else if (p->op == WARPLAB_REDUCE_SUM) {
        const double eps = p->dtype == WARPLAB_FLOAT32 ? FLT_EPSILON : DBL_EPSILON;
        expected = sum + compensation;
        bound = (double)n * eps * magnitude;
    } else {
        expected = nan_seen ? NAN : best;
    }
    wl_check_value(check, 0, got, expected, bound);
    return WARPLAB_OK;
}

constexpr size_t kSampleRows = 8, kSampleColumns = 8, kSamplePoints = 2048;

warplab_status verify_gemm(wl_backend *backend, const wl_reference_request *q, wl_check *check)
{
    const wl_problem *p = q->problem;
    gemm_setup g{};
    g.m = wl_gemm_m(p);
    g.n = wl_gemm_n(p);
    g.k = wl_gemm_k(p);
    const size_t lda = wl_gemm_lda(p), ldb = wl_gemm_ldb(p);
    g.ldc = wl_gemm_ldc(p);
    g.a_i = wl_gemm_trans_a(p) ? 1 : lda;
    g.a_p = wl_gemm_trans_a(p) ? lda : 1;
    g.b_p = wl_gemm_trans_b(p) ? 1 : ldb;
    g.b_j = wl_gemm_trans_b(p) ? ldb : 1;
    g.alpha = (double)(float)p->alpha;
    g.beta = (double)(float)p->beta;
    g.a = static_cast<const float *>(at_bytes(q->launch->buf[GEMM_A]));
    g.b = static_cast<const float *>(at_bytes(q->launch->buf[GEMM_B]));
    g.c = static_cast<const float *>(at_bytes(q->launch->buf[GEMM_C]));
    g.has_c0 = p->beta != 0.0;
    g.c0_seed = q->input[GEMM_C].seed;
    g.c0_lo = q->spec[GEMM_C].lo;
    g.c0_hi = q->spec[GEMM_C].hi;
    if (g.m == 0 || g.n == 0)
        return WARPLAB_OK;
    double u = 0x1p-24, operand_rounding = 0.0;
    g.models = 1;
    g.drop = 0;
    g.rounded = false;
    switch ((wl_gemm_precision)q->precision) {
    case WL_GEMM_FP32: break;
    case WL_GEMM_TF32_ANY:
        u = 0x1p-23;
        operand_rounding = 0x1p-9 + 0x1p-20;
        break;
    case WL_GEMM_TF32:
        u = 0x1p-23;
        g.rounded = true;
        g.models = 3;
        g.drop = 13;
        g.mode[0] = ROUND_NEAREST_AWAY;
        g.mode[1] = ROUND_TOWARD_ZERO;
        g.mode[2] = ROUND_NEAREST_EVEN;
        break;
    case WL_GEMM_BF16:
        u = 0x1p-23;
        g.rounded = true;
        g.drop = 16;
        g.mode[0] = ROUND_NEAREST_EVEN;
        break;
    case WL_GEMM_FP16:
        u = 0x1p-23;
        g.rounded = true;
        g.drop = 0;
        g.mode[0] = ROUND_FP16;
        break;
    }
    u += 0x1p-53;
    const double steps = (double)g.k + 2.0;
    g.gamma = steps * u / (1.0 - steps * u) + operand_rounding;
    g.tiny = steps * FLT_MIN * (fabs(g.alpha) + 1.0);

    /* Every element of the span: the gaps untouched, the view finite. */
    const size_t span = wl_gemm_span(g.m, g.n, g.ldc);
    warplab_status status =
        run_check(backend, gemm_span_element{g, p->nan_input != 0}, span, check);
    /* The span pass counts only its failures as checked (as gemm_check.c's
     * gap and finiteness passes do); the samples below are the comparisons. */
    if (status != WARPLAB_OK)
        return status;
    check->checked -= span;

    /* Whole rows, whole columns and random points, or every element when
     * the problem is small (as gemm_check.c). */
    const bool full = (double)g.m * (double)g.n * (double)g.k <= (double)(1u << 27);
    size_t rows[kSampleRows], columns[kSampleColumns], row_count = 0, column_count = 0;
    size_t total = 0;
    if (full) {
        total = g.m * g.n;
    } else {
        wl_rng rng;
        wl_rng_seed(&rng, q->sample_seed);
        row_count = wl_gemm_sample_lines(&rng, g.m, rows, kSampleRows);
        column_count = wl_gemm_sample_lines(&rng, g.n, columns, kSampleColumns);
        total = row_count * g.n + column_count * g.m + kSamplePoints;
        unsigned long long *samples =
            static_cast<unsigned long long *>(malloc(total * sizeof *samples));
        if (!samples)
            return WARPLAB_ERROR_HOST_OUT_OF_MEMORY;
        size_t used = 0;
        for (size_t r = 0; r < row_count; r++)
            for (size_t j = 0; j < g.n; j++)
                samples[used++] = (unsigned long long)rows[r] * g.n + j;
        for (size_t i = 0; i < g.m; i++)
            for (size_t c = 0; c < column_count; c++)
                samples[used++] = (unsigned long long)i * g.n + columns[c];
        for (size_t s = 0; s < kSamplePoints; s++) {
            const size_t i = (size_t)(wl_rng_next(&rng) % g.m),
                         j = (size_t)(wl_rng_next(&rng) % g.n);
            samples[used++] = (unsigned long long)i * g.n + j;
        }
        unsigned long long *device_samples = nullptr;
        status = finish(backend, cudaMalloc(&device_samples, total * sizeof *samples),
                        "device reference: samples");
        if (status == WARPLAB_OK)
            status = finish(backend,
                            cudaMemcpyAsync(device_samples, samples, total * sizeof *samples,
                                            cudaMemcpyHostToDevice, wl_cuda_stream(backend)),
                            "device reference: samples");
        if (status == WARPLAB_OK)
            status = finish(backend, cudaStreamSynchronize(wl_cuda_stream(backend)),
                            "device reference: samples");
        free(samples);
        if (status == WARPLAB_OK)
            status = run_check(backend, gemm_sample_element{g, device_samples}, total, check);
        if (device_samples)
            cudaFree(device_samples);
        return status;
    }
    /* Small: every element (no sample list). */
    return run_check(backend, gemm_all_element{g}, total, check);
}

warplab_status cuda_verify(wl_backend *backend, const wl_reference_request *q, wl_check *check)
{
    const wl_problem *p = q->problem;
    warplab_status status = WARPLAB_OK;
    switch (q->kind) {
    case WL_REFERENCE_VECADD:
    case WL_REFERENCE_COPY: {
        const bool copy = q->kind == WL_REFERENCE_COPY;
        vecadd_element e{static_cast<const float *>(at_bytes(q->launch->buf[0])),
                         static_cast<const float *>(at_bytes(q->launch->buf[1])),
                         static_cast<const float *>(at_bytes(q->launch->buf[q->buffers - 1])),
                         copy};
        status = run_check(backend, e, p->dim[0], check);
        break;
    }
    case WL_REFERENCE_TRANSPOSE: {
        const wl_transpose_layout m = wl_transpose_layout_of(p);
        transpose_element e{at_bytes(q->launch->buf[0]), at_bytes(q->launch->buf[1]), p->dtype, m};
        status = run_check(backend, e, m.cols * m.ld_out, check);
        break;
    }
    case WL_REFERENCE_TRANSPOSE_COPY: {
        const wl_transpose_layout m = wl_transpose_layout_of(p);
        transpose_copy_element e{at_bytes(q->launch->buf[0]), at_bytes(q->launch->buf[1]), p->dtype,
                                 m};
        status = run_check(backend, e, m.cols * m.ld_out, check);
        break;
    }
    case WL_REFERENCE_REDUCE: status = verify_reduce(backend, q, check); break;
    case WL_REFERENCE_GEMM: status = verify_gemm(backend, q, check); break;
    default:
        return wl_fail(backend, WARPLAB_ERROR_UNSUPPORTED, "no device reference for this check");
    }
    if (status != WARPLAB_OK)
        return status;
    return check->bad ? WARPLAB_ERROR_VERIFICATION_FAILED : WARPLAB_OK;
}

} // namespace

extern "C" const wl_device_reference wl_cuda_device_reference = {
    cuda_fill_random,
    cuda_count_changed,
    cuda_verify,
};
