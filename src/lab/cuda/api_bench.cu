/* warplab bench api (cuda): each library operation through the public API
 * against the vendor call with the same contract, in the same run, on the
 * same buffers. The vendor calls are the ladders' own vendor rungs (CUB,
 * cublasSgeam, cublasSgemm in pedantic FP32) run through their wl_impl
 * (setup untimed: CUB's temporary storage, the cuBLAS handle), and a plain
 * float4 kernel for the vector add. Each pair is checked against each other
 * before it is timed; the timed runs alternate warplab and vendor, each
 * after an L2 flush. */
#include "kernels/cuda/cuda_backend.h"
#include "kernels/histogram_bins.h"
#include "lab/harness.h"

#include "warplab_lab.h"
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

namespace
{

/* ---- kernels of the benchmark itself ---- */

/* Values in [-1, 1) from the index: inputs without a host round trip. */
__global__ void fill_pattern(float *data, size_t n, uint32_t seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        uint32_t h = (uint32_t)i * 2654435761u ^ seed;
        h ^= h >> 15;
        h *= 2246822519u;
        h ^= h >> 13;
        data[i] = (float)(h & 0xFFFFFF) / 8388608.0f - 1.0f;
    }
}

/* The largest |x - y| / (|y| + 1) over n elements, as float bits (non-negative
 * floats order like their bit patterns). */
__global__ void max_difference(const float *x, const float *y, size_t n, unsigned *worst)
{
    float w = 0.0f;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        const float d = fabsf(x[i] - y[i]) / (fabsf(y[i]) + 1.0f);
        w = d != d ? INFINITY : fmaxf(w, d); /* NaN counts as the worst */
    }
    atomicMax(worst, __float_as_uint(w));
}

/* How many of n 32-bit words differ (the int32 scan is exact). */
__global__ void count_mismatches(const unsigned *x, const unsigned *y, size_t n, unsigned *count)
{
    unsigned local = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        local += x[i] != y[i];
    if (local)
        atomicAdd(count, local);
}

/* The vector add a CUDA programmer writes: one float4 per thread, a thread
 * per quad, the last n % 4 elements by the first threads. Needs 16-byte
 * aligned arrays (cudaMalloc's are). */
__global__ void plain_float4_add(const float4 *a, const float4 *b, float4 *c, size_t quads,
                                 const float *as, const float *bs, float *cs, size_t n)
{
    const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < quads) {
        const float4 x = a[i], y = b[i];
        c[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
    }
    const size_t tail = quads * 4;
    if (i < n - tail)
        cs[tail + i] = as[tail + i] + bs[tail + i];
}

/* Histogram samples from the index: 8-bit (random bytes, or every byte 0x5A
 * when skewed), int32 in [-1125000, 1125000) around the range
 * [-1000000, 1000000) (or every sample 333333 when skewed), or float in
 * [-0.125, 1.125) around the range [0, 1) (or every sample 1/3 when
 * skewed). */
__global__ void fill_histogram_samples(uint32_t *words, size_t count, uint32_t seed,
                                       int sample_type, bool skewed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count;
         i += (size_t)gridDim.x * blockDim.x) {
        uint32_t h = (uint32_t)i * 2654435761u ^ seed;
        h ^= h >> 15;
        h *= 2246822519u;
        h ^= h >> 13;
        h *= 3266489917u;
        h ^= h >> 16;
        if (sample_type == WL_HISTOGRAM_UINT8)
            words[i] = skewed ? 0x5A5A5A5Au : h;
        else if (sample_type == WL_HISTOGRAM_INT32)
            words[i] = (uint32_t)(skewed ? 333333 : (int32_t)(h % 2250000u) - 1125000);
        else
            words[i] = __float_as_uint(skewed ? 1.0f / 3.0f
                                              : (float)(h & 0xFFFFFF) / 13421772.8f - 0.125f);
    }
}

/* How many of n counts differ. */
__global__ void count_differences(const unsigned *x, const unsigned *y, size_t n, unsigned *bad)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        if (x[i] != y[i])
            atomicAdd(bad, 1u);
}

/* ---- the cases ---- */

enum api_op {
    API_REDUCE_HOST = 0,
    API_REDUCE_DEVICE,
    API_TRANSPOSE,
    API_GEMM,
    API_VECADD,
    API_SCAN,            /* warplab_scan, float inclusive sum */
    API_SCAN_INT32,      /* warplab_scan, int32 inclusive sum (exact) */
    API_HISTOGRAM_U8,    /* 256 bins over [0, 256) */
    API_HISTOGRAM_INT32, /* dim[1] bins over [-1000000, 1000000) */
    API_HISTOGRAM_FLOAT, /* dim[1] bins over [0, 1) */
    API_OPS
};

const char *const op_names[API_OPS] = {
    "reduce",     "reduce_device", "transpose",       "gemm",           "vecadd", "scan",
    "scan_int32", "histogram_u8",  "histogram_int32", "histogram_float"};
const char *const op_calls[API_OPS] = {"warplab_reduce",    "warplab_reduce_to_buffer",
                                       "warplab_transpose", "warplab_gemm",
                                       "warplab_vecadd",    "warplab_scan",
                                       "warplab_scan",      "warplab_histogram",
                                       "warplab_histogram", "warplab_histogram"};
const char *const vendor_calls[API_OPS] = {"cub::DeviceReduce::Sum + copy",
                                           "cub::DeviceReduce::Sum",
                                           "cublasSgeam",
                                           "cublasSgemm",
                                           "float4 kernel",
                                           "cub::DeviceScan::InclusiveSum",
                                           "cub::DeviceScan::InclusiveSum",
                                           "cub::DeviceHistogram::HistogramEven",
                                           "cub::DeviceHistogram::HistogramEven",
                                           "cub::DeviceHistogram::HistogramEven"};
const char *const vendor_ids[API_OPS] = {"cub+copy",
                                         "cub",
                                         "cublas_sgeam",
                                         "cublas_sgemm",
                                         "float4_kernel",
                                         "cub_scan",
                                         "cub_scan_int32",
                                         "cub_histogram_u8",
                                         "cub_histogram_int32",
                                         "cub_histogram_float"};

bool is_histogram(api_op op)
{
    return op == API_HISTOGRAM_U8 || op == API_HISTOGRAM_INT32 || op == API_HISTOGRAM_FLOAT;
}

struct api_case {
    api_op op;
    size_t dim[3]; /* n; rows, cols; m, n, k; histogram: n, bins, skewed (0 or 1) */
};

struct bench_env {
    warplab_context *context;
    wl_backend *device;
    cudaStream_t stream;
    int repeat, warmup;
    double max_seconds;
    bool flush;
    uint32_t seed;
    unsigned *worst; /* device word for max_difference */
};

/* A buffer of the context and its device address. */
struct device_array {
    warplab_buffer *buffer = nullptr;
    float *ptr = nullptr;
};

warplab_status make_array(bench_env &env, size_t count, bool fill, device_array *array)
{
    warplab_status status =
        warplab_buffer_create(env.context, count * sizeof(float), &array->buffer);
    if (status != WARPLAB_OK)
        return wl_fail(env.device, status, "%s", warplab_last_error(env.context));
    void *handle = nullptr;
    size_t offset = 0;
    warplab_buffer_native(array->buffer, &handle, &offset);
    array->ptr = reinterpret_cast<float *>(static_cast<char *>(handle) + offset);
    if (fill) {
        fill_pattern<<<1024, 256, 0, env.stream>>>(array->ptr, count, env.seed++);
        status = WL_CUDA_LAUNCHED(env.device, "filling an input");
    }
    return status;
}

void free_array(device_array *array)
{
    warplab_buffer_destroy(array->buffer);
    array->buffer = nullptr;
}

warplab_status worst_difference(bench_env &env, const float *x, const float *y, size_t n,
                                float *worst)
{
    cudaError_t e = cudaMemsetAsync(env.worst, 0, sizeof(unsigned), env.stream);
    if (e == cudaSuccess) {
        max_difference<<<1024, 256, 0, env.stream>>>(x, y, n, env.worst);
        e = cudaGetLastError();
    }
    unsigned bits = 0;
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(&bits, env.worst, sizeof bits, cudaMemcpyDeviceToHost, env.stream);
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(env.stream);
    memcpy(worst, &bits, sizeof *worst);
    return wl_cuda_check(env.device, e, "comparing the results");
}

/* The state one case's two sides share. */
struct case_state {
    bench_env *env;
    const api_case *c;
    device_array in, in2, out, vendor_out;
    float host_value = 0.0f, vendor_value = 0.0f;
    const wl_impl *vendor = nullptr;
    void *vendor_state = nullptr;
    wl_problem problem;
    wl_launch launch;
};

warplab_status from_context(case_state *s, warplab_status status)
{
    if (status != WARPLAB_OK)
        wl_fail(s->env->device, status, "%s", warplab_last_error(s->env->context));
    return status;
}

warplab_status run_warplab(void *user)
{
    case_state *s = static_cast<case_state *>(user);
    warplab_context *ctx = s->env->context;
    const size_t *d = s->c->dim;
    switch (s->c->op) {
    case API_REDUCE_HOST:
        return from_context(s, warplab_reduce(ctx, WARPLAB_FLOAT32, WARPLAB_REDUCE_SUM,
                                              s->in.buffer, d[0], &s->host_value));
    case API_REDUCE_DEVICE:
        return from_context(s, warplab_reduce_to_buffer(ctx, WARPLAB_FLOAT32, WARPLAB_REDUCE_SUM,
                                                        s->in.buffer, d[0], s->out.buffer, 0));
    case API_TRANSPOSE:
        return from_context(s, warplab_transpose(ctx, WARPLAB_FLOAT32, d[0], d[1], s->in.buffer, 0,
                                                 s->out.buffer, 0));
    case API_GEMM:
        return from_context(s, warplab_gemm(ctx, d[0], d[1], d[2], 1.0f, s->in.buffer, 0,
                                            s->in2.buffer, 0, 0.0f, s->out.buffer, 0));
    case API_VECADD:
        return from_context(s,
                            warplab_vecadd(ctx, s->in.buffer, s->in2.buffer, s->out.buffer, d[0]));
    case API_SCAN:
    case API_SCAN_INT32:
        return from_context(s, warplab_scan(ctx, s->problem.dtype, WARPLAB_REDUCE_SUM,
                                            WARPLAB_SCAN_INCLUSIVE, s->in.buffer, s->out.buffer,
                                            d[0]));
    case API_HISTOGRAM_U8:
        return from_context(s, warplab_histogram(ctx, WARPLAB_HISTOGRAM_UINT8, s->in.buffer, d[0],
                                                 d[1], 0.0, 256.0, s->out.buffer, 0));
    case API_HISTOGRAM_INT32:
        return from_context(s, warplab_histogram(ctx, WARPLAB_HISTOGRAM_INT32, s->in.buffer, d[0],
                                                 d[1], -1e6, 1e6, s->out.buffer, 0));
    case API_HISTOGRAM_FLOAT:
        return from_context(s, warplab_histogram(ctx, WARPLAB_HISTOGRAM_FLOAT32, s->in.buffer, d[0],
                                                 d[1], 0.0, 1.0, s->out.buffer, 0));
    default: return WARPLAB_ERROR_INVALID_ARGUMENT;
    }
}

warplab_status run_vendor(void *user)
{
    case_state *s = static_cast<case_state *>(user);
    bench_env &env = *s->env;
    if (s->c->op == API_VECADD) {
        const size_t n = s->c->dim[0], quads = n / 4;
        const size_t threads = quads > n - quads * 4 ? quads : n - quads * 4;
        const unsigned blocks = (unsigned)((threads + 255) / 256);
        plain_float4_add<<<blocks ? blocks : 1, 256, 0, env.stream>>>(
            reinterpret_cast<const float4 *>(s->in.ptr),
            reinterpret_cast<const float4 *>(s->in2.ptr),
            reinterpret_cast<float4 *>(s->vendor_out.ptr), quads, s->in.ptr, s->in2.ptr,
            s->vendor_out.ptr, n);
        return WL_CUDA_LAUNCHED(env.device, "float4 kernel");
    }
    warplab_status status = s->vendor->launch(env.device, &s->launch, s->vendor_state);
    if (status != WARPLAB_OK || s->c->op != API_REDUCE_HOST)
        return status;
    /* The caller's copy: into pageable host memory, as cudaMemcpy of a
     * local variable does, then the wait. */
    cudaError_t e = cudaMemcpyAsync(&s->vendor_value, s->vendor_out.ptr, sizeof(float),
                                    cudaMemcpyDeviceToHost, env.stream);
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(env.stream);
    return wl_cuda_check(env.device, e, "cudaMemcpy of CUB's result");
}

size_t case_elements(const api_case &c)
{
    return c.op == API_GEMM        ? c.dim[0] * c.dim[1]
           : c.op == API_TRANSPOSE ? c.dim[0] * c.dim[1]
                                   : c.dim[0];
}

void describe_case(const api_case &c, char *text, size_t len)
{
    switch (c.op) {
    case API_HISTOGRAM_U8:
    case API_HISTOGRAM_INT32:
    case API_HISTOGRAM_FLOAT:
        wl_format(text, len, "n=%zu %s %zu bins %s", c.dim[0],
                  c.op == API_HISTOGRAM_U8      ? "uint8"
                  : c.op == API_HISTOGRAM_INT32 ? "int32"
                                                : "float",
                  c.dim[1], c.dim[2] ? "skewed" : "uniform");
        break;
    case API_TRANSPOSE: wl_format(text, len, "%zux%zu float", c.dim[0], c.dim[1]); break;
    case API_GEMM: wl_format(text, len, "%zux%zux%zu float", c.dim[0], c.dim[1], c.dim[2]); break;
    case API_SCAN_INT32: wl_format(text, len, "n=%zu int32", c.dim[0]); break;
    default: wl_format(text, len, "n=%zu float", c.dim[0]); break;
    }
}

/* Buffers, the vendor's setup and a check that both sides agree. */
warplab_status prepare_case(case_state *s, char *note, size_t note_len)
{
    bench_env &env = *s->env;
    const api_case &c = *s->c;
    const size_t *d = c.dim;
    memset(&s->problem, 0, sizeof s->problem);
    memset(&s->launch, 0, sizeof s->launch);
    s->problem.dtype = WARPLAB_FLOAT32;
    warplab_status status = WARPLAB_OK;
    size_t out_count = 1;
    switch (c.op) {
    case API_REDUCE_HOST:
    case API_REDUCE_DEVICE:
        status = make_array(env, d[0], true, &s->in);
        s->problem.dim[0] = d[0];
        s->problem.dims = 1;
        s->problem.op = WARPLAB_REDUCE_SUM;
        break;
    case API_TRANSPOSE:
        status = make_array(env, d[0] * d[1], true, &s->in);
        out_count = d[0] * d[1];
        s->problem.dim[0] = d[0];
        s->problem.dim[1] = d[1];
        s->problem.dims = 2;
        s->problem.ld[0] = d[1];
        s->problem.ld[1] = d[0];
        break;
    case API_GEMM:
        status = make_array(env, d[0] * d[2], true, &s->in);
        if (status == WARPLAB_OK)
            status = make_array(env, d[2] * d[1], true, &s->in2);
        out_count = d[0] * d[1];
        for (int i = 0; i < 3; i++)
            s->problem.dim[i] = d[i];
        s->problem.dims = 3;
        s->problem.ld[0] = d[2];
        s->problem.ld[1] = d[1];
        s->problem.ld[2] = d[1];
        s->problem.alpha = 1.0;
        s->problem.beta = 0.0;
        break;
    case API_VECADD:
        status = make_array(env, d[0], true, &s->in);
        if (status == WARPLAB_OK)
            status = make_array(env, d[0], true, &s->in2);
        out_count = d[0];
        break;
    case API_SCAN:
    case API_SCAN_INT32:
        /* int32: the float pattern's bits as integers (every sum wraps). */
        status = make_array(env, d[0], true, &s->in);
        out_count = d[0];
        s->problem.dim[0] = d[0];
        s->problem.dims = 1;
        s->problem.op = WARPLAB_REDUCE_SUM;
        s->problem.variant = WARPLAB_SCAN_INCLUSIVE;
        s->problem.dtype = c.op == API_SCAN_INT32 ? WARPLAB_INT32 : WARPLAB_FLOAT32;
        break;
    case API_HISTOGRAM_U8:
    case API_HISTOGRAM_INT32:
    case API_HISTOGRAM_FLOAT: {
        const bool bytes = c.op == API_HISTOGRAM_U8;
        const wl_histogram_sample sample = bytes                         ? WL_HISTOGRAM_UINT8
                                           : c.op == API_HISTOGRAM_INT32 ? WL_HISTOGRAM_INT32
                                                                         : WL_HISTOGRAM_FLOAT32;
        const size_t words = bytes ? (d[0] + 3) / 4 : d[0];
        status = make_array(env, words, false, &s->in);
        if (status == WARPLAB_OK) {
            fill_histogram_samples<<<1024, 256, 0, env.stream>>>(
                reinterpret_cast<uint32_t *>(s->in.ptr), words, env.seed++, (int)sample, d[2] != 0);
            status = WL_CUDA_LAUNCHED(env.device, "filling the samples");
        }
        out_count = d[1];
        s->problem.dim[0] = d[0];
        s->problem.dim[1] = d[1];
        s->problem.dims = 2;
        s->problem.variant = sample;
        s->problem.dtype = sample == WL_HISTOGRAM_FLOAT32 ? WARPLAB_FLOAT32 : WARPLAB_INT32;
        s->problem.alpha = sample == WL_HISTOGRAM_INT32 ? -1e6 : 0.0;
        s->problem.beta = bytes ? 256.0 : sample == WL_HISTOGRAM_INT32 ? 1e6 : 1.0;
        s->problem.param = d[2] ? WL_HISTOGRAM_SKEWED : WL_HISTOGRAM_UNIFORM;
        break;
    }
    default: break;
    }
    if (status == WARPLAB_OK)
        status = make_array(env, out_count, false, &s->out);
    if (status == WARPLAB_OK)
        status = make_array(env, out_count, false, &s->vendor_out);
    if (status != WARPLAB_OK)
        return status;
    if (c.op != API_VECADD) {
        static const char *const ladders[API_OPS] = {
            "reduce", "reduce", "transpose", "gemm",      "",
            "scan",   "scan",   "histogram", "histogram", "histogram"};
        static const char *const rungs[API_OPS] = {"cub", "cub", "cublas", "cublas_fp32", "",
                                                   "cub", "cub", "cub",    "cub",         "cub"};
        s->vendor = wl_backend_find_impl(env.device, ladders[c.op], rungs[c.op]);
        if (!s->vendor)
            return wl_fail(env.device, WARPLAB_ERROR_UNSUPPORTED, "no vendor rung %s/%s",
                           ladders[c.op], rungs[c.op]);
        s->launch.problem = &s->problem;
        s->launch.buffers = c.op == API_GEMM ? 3 : 2;
        const size_t in_count = c.op == API_GEMM       ? d[0] * d[2]
                                : is_histogram(c.op)   ? d[0]
                                : s->problem.dims == 1 ? d[0]
                                                       : d[0] * d[1];
        s->launch.buf[0] = {s->in.ptr, 0,
                            in_count * (c.op == API_HISTOGRAM_U8 ? 1 : sizeof(float))};
        if (c.op == API_GEMM) {
            s->launch.buf[1] = {s->in2.ptr, 0, d[2] * d[1] * sizeof(float)};
            s->launch.buf[2] = {s->vendor_out.ptr, 0, out_count * sizeof(float)};
        } else {
            s->launch.buf[1] = {s->vendor_out.ptr, 0, out_count * sizeof(float)};
        }
        if (s->vendor->setup)
            status = s->vendor->setup(env.device, &s->launch, &s->vendor_state);
        if (status != WARPLAB_OK)
            return status;
    }
    /* Both once, then compared. */
    status = run_warplab(s);
    if (status == WARPLAB_OK)
        status = run_vendor(s);
    if (status == WARPLAB_OK)
        status = wl_cuda_check(env.device, cudaStreamSynchronize(env.stream), "the checked run");
    if (status != WARPLAB_OK)
        return status;
    float worst = 0.0f, bound = 0.0f;
    if (is_histogram(c.op)) {
        /* Counts: exactly equal, bin for bin. */
        cudaError_t e = cudaMemsetAsync(env.worst, 0, sizeof(unsigned), env.stream);
        if (e == cudaSuccess) {
            count_differences<<<256, 256, 0, env.stream>>>(
                reinterpret_cast<const unsigned *>(s->out.ptr),
                reinterpret_cast<const unsigned *>(s->vendor_out.ptr), d[1], env.worst);
            e = cudaGetLastError();
        }
        unsigned bad = 0;
        if (e == cudaSuccess)
            e = cudaMemcpyAsync(&bad, env.worst, sizeof bad, cudaMemcpyDeviceToHost, env.stream);
        if (e == cudaSuccess)
            e = cudaStreamSynchronize(env.stream);
        if (e != cudaSuccess)
            return wl_cuda_check(env.device, e, "comparing the counts");
        worst = (float)bad;
        if (bad)
            wl_format(note, note_len, "%u of %zu counts differ from CUB's", bad, d[1]);
    } else if (c.op == API_REDUCE_HOST || c.op == API_REDUCE_DEVICE) {
        float got = s->host_value, want = s->vendor_value;
        cudaError_t e = cudaSuccess;
        if (c.op == API_REDUCE_DEVICE) {
            e = cudaMemcpy(&got, s->out.ptr, sizeof got, cudaMemcpyDeviceToHost);
            if (e == cudaSuccess)
                e = cudaMemcpy(&want, s->vendor_out.ptr, sizeof want, cudaMemcpyDeviceToHost);
        }
        if (e != cudaSuccess)
            return wl_cuda_check(env.device, e, "reading the sums");
        /* Values in [-1, 1): both sums within n * eps * sum|x| <= n^2 eps / 1 of
         * the exact one. */
        worst = fabsf(got - want);
        bound = 2.0f * (float)d[0] * FLT_EPSILON * (float)d[0];
        if (!(worst <= bound))
            wl_format(note, note_len, "sums differ: warplab %.9g, vendor %.9g", (double)got,
                      (double)want);
    } else if (c.op == API_SCAN_INT32) {
        cudaError_t e = cudaMemsetAsync(env.worst, 0, sizeof(unsigned), env.stream);
        if (e == cudaSuccess) {
            count_mismatches<<<1024, 256, 0, env.stream>>>(
                reinterpret_cast<const unsigned *>(s->out.ptr),
                reinterpret_cast<const unsigned *>(s->vendor_out.ptr), out_count, env.worst);
            e = cudaGetLastError();
        }
        unsigned mismatches = 0;
        if (e == cudaSuccess)
            e = cudaMemcpy(&mismatches, env.worst, sizeof mismatches, cudaMemcpyDeviceToHost);
        if (e != cudaSuccess)
            return wl_cuda_check(env.device, e, "comparing the scans");
        worst = (float)mismatches;
        if (mismatches)
            wl_format(note, note_len, "%u of %zu int32 prefix sums differ from CUB's", mismatches,
                      out_count);
    } else {
        status = worst_difference(env, s->out.ptr, s->vendor_out.ptr, out_count, &worst);
        if (status != WARPLAB_OK)
            return status;
        /* Transpose and vector add are exact; the matrix products may round
         * in another order (k terms in [-1, 1)); a float prefix of i terms in
         * [-1, 1) is within i * eps * i of the exact one, either order. */
        bound = c.op == API_GEMM   ? 1e-4f * (float)(d[2] > 16 ? d[2] : 16) / 16.0f
                : c.op == API_SCAN ? 2.0f * (float)d[0] * FLT_EPSILON * (float)d[0]
                                   : 0.0f;
        if (!(worst <= bound))
            wl_format(note, note_len,
                      "results differ: worst |warplab - vendor| / (|vendor| + 1) "
                      "= %g (bound %g)",
                      (double)worst, (double)bound);
    }
    return worst <= bound ? WARPLAB_OK : WARPLAB_ERROR_VERIFICATION_FAILED;
}

void finish_case(case_state *s)
{
    if (s->vendor && s->vendor->teardown && s->vendor_state)
        s->vendor->teardown(s->env->device, s->vendor_state);
    free_array(&s->in);
    free_array(&s->in2);
    free_array(&s->out);
    free_array(&s->vendor_out);
}

void fill_row(warplab_row *row, const api_case &c, bool vendor, const wl_stats &stats, int runs,
              const warplab_device_info *info)
{
    memset(row, 0, sizeof *row);
    wl_copy_string(row->ladder, sizeof row->ladder, "api");
    wl_copy_string(row->rung, sizeof row->rung, vendor ? vendor_ids[c.op] : op_names[c.op]);
    wl_copy_string(row->title, sizeof row->title, vendor ? vendor_calls[c.op] : op_calls[c.op]);
    wl_copy_string(row->backend, sizeof row->backend, "cuda");
    describe_case(c, row->problem, sizeof row->problem);
    row->size = (double)case_elements(c);
    row->flags = vendor ? (WARPLAB_ROW_VENDOR | WARPLAB_ROW_BASELINE) : 0;
    wl_row_set_times(row, &stats, runs);
    switch (c.op) {
    case API_REDUCE_HOST:
    case API_REDUCE_DEVICE: row->bytes = 4.0 * (double)c.dim[0]; break;
    case API_TRANSPOSE: row->bytes = 8.0 * (double)c.dim[0] * (double)c.dim[1]; break;
    case API_VECADD: row->bytes = 12.0 * (double)c.dim[0]; break;
    case API_SCAN:
    case API_SCAN_INT32: row->bytes = 8.0 * (double)c.dim[0]; break;
    case API_HISTOGRAM_U8: row->bytes = (double)c.dim[0] + 4.0 * (double)c.dim[1]; break;
    case API_HISTOGRAM_INT32:
    case API_HISTOGRAM_FLOAT: row->bytes = 4.0 * ((double)c.dim[0] + (double)c.dim[1]); break;
    case API_GEMM:
        row->flops = 2.0 * (double)c.dim[0] * (double)c.dim[1] * (double)c.dim[2];
        row->bytes =
            4.0 * ((double)c.dim[0] * (double)c.dim[2] + (double)c.dim[2] * (double)c.dim[1] +
                   (double)c.dim[0] * (double)c.dim[1]);
        break;
    default: break;
    }
    const double seconds = stats.median * 1e-3;
    if (seconds > 0) {
        row->gbs = row->bytes / seconds / 1e9;
        row->gflops = row->flops / seconds / 1e9;
        if (info->theoretical_bandwidth_gbs > 0)
            row->pct_of_ceiling = 100.0 * row->gbs / info->theoretical_bandwidth_gbs;
        if (info->fp32_peak_gflops > 0 && row->flops > 0)
            row->pct_of_fp32_peak = 100.0 * row->gflops / info->fp32_peak_gflops;
    }
}

/* The default sweep: 2^10 .. 2^28 elements and the two odd shapes. */
int default_cases(api_op op, api_case *cases, int capacity)
{
    int count = 0;
    auto add = [&](size_t a, size_t b, size_t k) {
        if (count < capacity)
            cases[count++] = {op, {a, b, k}};
    };
    switch (op) {
    case API_TRANSPOSE:
        for (int e = 10; e <= 28; e += 2)
            add((size_t)1 << (e / 2), (size_t)1 << (e / 2), 0);
        add(3001, 4000, 0);
        add(4001, 3, 0);
        break;
    case API_GEMM:
        add(1024, 1024, 1024);
        add(2048, 2048, 2048);
        add(4096, 4096, 4096);
        add(3001, 4000, 1024);
        add(4001, 3, 1024);
        break;
    case API_HISTOGRAM_U8:
    case API_HISTOGRAM_INT32:
    case API_HISTOGRAM_FLOAT:
        /* The targets' shapes: 2^24 and 2^28 samples, uniform and skewed;
         * 256 bins of 8-bit samples, 1024 and 4096 of int32 and float. */
        for (int e = 24; e <= 28; e += 4)
            for (size_t skewed = 0; skewed < 2; skewed++) {
                if (op == API_HISTOGRAM_U8) {
                    add((size_t)1 << e, 256, skewed);
                } else {
                    add((size_t)1 << e, 1024, skewed);
                    add((size_t)1 << e, 4096, skewed);
                }
            }
        break;
    default:
        for (int e = 10; e <= 28; e += 2)
            add((size_t)1 << e, 0, 0);
        if (op == API_SCAN || op == API_SCAN_INT32)
            add((size_t)1 << 30, 0, 0); /* the scan's targets run to 2^30 */
        add(3001 * 4000, 0, 0);
        add(4001 * 3, 0, 0);
        break;
    }
    return count;
}

/* A size from the options as a case of op: n for the 1-D operations (a
 * matrix gives its element count); rows x cols for transpose (n: the square
 * nearest to n elements); m x n x k for gemm (m x n: k = 1024; n: a cube of
 * about sqrt(n) on a side). */
api_case case_from_size(api_op op, const size_t size[3], int dims)
{
    api_case c = {op, {0, 0, 0}};
    const size_t total = dims >= 2 ? size[0] * size[1] : size[0];
    const size_t side = (size_t)llround(sqrt((double)total));
    switch (op) {
    case API_TRANSPOSE:
        c.dim[0] = dims >= 2 ? size[0] : side;
        c.dim[1] = dims >= 2 ? size[1] : side;
        break;
    case API_GEMM:
        c.dim[0] = dims >= 2 ? size[0] : side;
        c.dim[1] = dims >= 2 ? size[1] : side;
        c.dim[2] = dims >= 3 ? size[2] : dims == 2 ? 1024 : side;
        break;
    case API_HISTOGRAM_U8:
    case API_HISTOGRAM_INT32:
    case API_HISTOGRAM_FLOAT: /* N, NxBINS, NxBINSxS (S = 1: skewed) */
        c.dim[0] = size[0];
        c.dim[1] = dims >= 2 ? size[1] : op == API_HISTOGRAM_U8 ? 256 : 1024;
        c.dim[2] = dims >= 3 && size[2] == 1 ? 1 : 0;
        break;
    default: c.dim[0] = total; break;
    }
    return c;
}

bool op_selected(const char *list, api_op op)
{
    if (!list || !list[0])
        return true;
    const size_t len = strlen(op_names[op]);
    for (const char *p = list; *p;) {
        const char *end = strchr(p, ',');
        const size_t item = end ? (size_t)(end - p) : strlen(p);
        if (item == len && strncmp(p, op_names[op], len) == 0)
            return true;
        if (!end)
            break;
        p = end + 1;
    }
    return false;
}

} // namespace

extern "C" warplab_status wl_cuda_bench_api(warplab_context *context, wl_backend *device,
                                            const warplab_bench_options *options,
                                            warplab_report **out)
{
    /* The operations named in options->rungs must exist. */
    if (options->rungs && options->rungs[0]) {
        char list[256];
        wl_copy_string(list, sizeof list, options->rungs);
        for (char *item = strtok(list, ","); item; item = strtok(NULL, ",")) {
            bool known = false;
            for (int op = 0; op < API_OPS; op++)
                known = known || strcmp(item, op_names[op]) == 0;
            if (!known)
                return wl_fail(device, WARPLAB_ERROR_UNKNOWN_NAME,
                               "no operation '%s' in bench api (reduce, reduce_device, "
                               "transpose, gemm, vecadd, scan, scan_int32, histogram_u8, "
                               "histogram_int32, histogram_float)",
                               item);
        }
    }
    enum { MAX_CASES = 160 };
    api_case *cases = static_cast<api_case *>(calloc(MAX_CASES, sizeof *cases));
    if (!cases)
        return wl_fail(device, WARPLAB_ERROR_HOST_OUT_OF_MEMORY, "bench api cases");
    int count = 0;
    for (int op = 0; op < API_OPS; op++) {
        if (!op_selected(options->rungs, (api_op)op))
            continue;
        if (!options->sizes) {
            count += default_cases((api_op)op, cases + count, MAX_CASES - count);
            continue;
        }
        char list[1024];
        wl_copy_string(list, sizeof list, options->sizes);
        for (char *item = strtok(list, ","); item && count < MAX_CASES; item = strtok(NULL, ",")) {
            size_t size[3] = {0, 0, 0};
            int dims = 0;
            if (warplab_parse_size(item, size, &dims) != WARPLAB_OK) {
                free(cases);
                return wl_fail(device, WARPLAB_ERROR_INVALID_ARGUMENT, "bad size '%s'", item);
            }
            cases[count++] = case_from_size((api_op)op, size, dims);
        }
    }
    warplab_report *report = static_cast<warplab_report *>(calloc(1, sizeof *report));
    warplab_row *rows = static_cast<warplab_row *>(calloc(2 * (size_t)count + 1, sizeof *rows));
    unsigned *worst = nullptr;
    cudaError_t e = cudaMalloc(&worst, sizeof *worst);
    if (!report || !rows || e != cudaSuccess) {
        free(cases);
        free(report);
        free(rows);
        if (worst)
            cudaFree(worst);
        return e != cudaSuccess ? wl_cuda_check(device, e, "bench api")
                                : wl_fail(device, WARPLAB_ERROR_HOST_OUT_OF_MEMORY, "bench api");
    }
    bench_env env;
    env.context = context;
    env.device = device;
    env.stream = wl_cuda_stream(device);
    env.repeat = options->repeat > 0 ? options->repeat : 50;
    env.warmup = options->warmup > 0 ? options->warmup : 3;
    env.max_seconds = options->max_seconds > 0 ? options->max_seconds : 2.0;
    env.flush = !options->no_flush && device->ops->flush_caches;
    env.seed = (uint32_t)(options->seed ? options->seed : wl_clock_seed());
    env.worst = worst;
    const warplab_device_info *info = &device->info;

    size_t free_bytes = 0, total_bytes = 0;
    device->ops->mem_info(device, &free_bytes, &total_bytes);
    warplab_status status = WARPLAB_OK;
    size_t row_count = 0;
    for (int i = 0; i < count && status == WARPLAB_OK; i++) {
        const api_case &c = cases[i];
        char problem[64];
        describe_case(c, problem, sizeof problem);
        if (options->progress)
            options->progress(options->progress_user, "api", op_names[c.op], problem, (size_t)i,
                              (size_t)count);
        warplab_row *pair = &rows[row_count];
        wl_stats stats[2];
        memset(stats, 0, sizeof stats);
        int runs = 0;
        char note[256] = "";
        /* Buffers of 4 or 5 arrays of the case's largest size: skip what
         * does not fit (with a quarter of the free memory to spare). */
        const double need =
            4.0 * (double)case_elements(c) * 5.0 +
            (c.op == API_GEMM ? 8.0 * (double)c.dim[2] * (double)(c.dim[0] + c.dim[1]) : 0.0);
        case_state s;
        s.env = &env;
        s.c = &c;
        warplab_status case_status = WARPLAB_OK;
        if (need > 0.75 * (double)free_bytes) {
            case_status = WARPLAB_ERROR_DEVICE_OUT_OF_MEMORY;
            wl_format(note, sizeof note, "needs %.2f GB, %.2f GB free", need / 1e9,
                      free_bytes / 1e9);
        } else {
            case_status = prepare_case(&s, note, sizeof note);
            if (case_status == WARPLAB_OK) {
                /* A result on the host: timed on the host clock, call to
                 * value in hand; on the device: by the backend's events. */
                const bool host_result = c.op == API_REDUCE_HOST;
                const wl_timed_call sides[2] = {{run_warplab, &s}, {run_vendor, &s}};
                case_status = wl_time_pair(env.device, sides, host_result, env.repeat, env.warmup,
                                           env.max_seconds, env.flush, stats, &runs);
            }
            finish_case(&s);
        }
        if (case_status != WARPLAB_OK && !note[0])
            wl_copy_string(note, sizeof note, device->error);
        fill_row(&pair[0], c, false, stats[0], runs, info);
        fill_row(&pair[1], c, true, stats[1], runs, info);
        /* Too large for the free memory, or a side that cannot run here (the
         * vendor library not loadable): skipped, with the reason; anything
         * else failed. */
        const bool skipped = case_status == WARPLAB_ERROR_DEVICE_OUT_OF_MEMORY ||
                             case_status == WARPLAB_ERROR_UNSUPPORTED;
        for (int k = 0; k < 2; k++) {
            pair[k].status = case_status;
            if (case_status != WARPLAB_OK) {
                pair[k].flags |= skipped ? WARPLAB_ROW_SKIPPED : WARPLAB_ROW_FAILED;
                wl_copy_string(pair[k].note, sizeof pair[k].note, note);
            }
        }
        if (case_status == WARPLAB_OK && stats[0].median > 0)
            pair[0].pct_of_vendor = 100.0 * stats[1].median / stats[0].median;
        row_count += 2;
        /* A sticky CUDA error ends the run; others are the row's. */
        const cudaError_t sticky = cudaDeviceSynchronize();
        if (sticky != cudaSuccess)
            status = wl_cuda_check(device, sticky, "bench api");
    }
    if (options->progress)
        options->progress(options->progress_user, NULL, NULL, NULL, (size_t)count, (size_t)count);
    cudaFree(worst);
    free(cases);
    if (status != WARPLAB_OK) {
        free(rows);
        free(report);
        return status;
    }
    report->rows = rows;
    report->row_count = row_count;
    wl_copy_string(report->device, sizeof report->device, info->name);
    wl_copy_string(report->backend, sizeof report->backend, "cuda");
    wl_format_utc_now(report->date, sizeof report->date);
    report->ceiling_gbs = info->theoretical_bandwidth_gbs;
    wl_copy_string(report->ceiling_source, sizeof report->ceiling_source,
                   "theoretical (bus x rate)");
    report->l2_flushed = env.flush ? 1 : 0;
    report->seed = env.seed;
    report->fp32_peak_gflops = info->fp32_peak_gflops;
    *out = report;
    return WARPLAB_OK;
}
