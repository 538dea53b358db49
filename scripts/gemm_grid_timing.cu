/* The cells of `warplab bench gemm --grid --seed S` (warplab_gemm_grid_make),
 * timed as the grid times them (the caller's cudaMalloc memory and stream,
 * warplab_gemm_ex against cublasGemmEx on the same contract, alternately,
 * events, L2 flushed before every run, 2 warm-ups, the median of 15) but
 * without the grid's host check of C (about a second a cell): C is only
 * compared with cuBLAS's on the GPU (the largest |w - c| / (|c| + 1),
 * a NaN counts as infinite), a guard against a gross error, not the
 * contract's check (the tests and the grid itself are). The summary is the
 * grid's own (warplab_gemm_grid_write). For before/after comparisons of two
 * builds on a time budget.
 * Build (from the repository root, a CUDA build in BUILD):
 *   nvcc -O2 -std=c++17 -arch=sm_90 -I include -o gemm_grid_timing \
 *     scripts/gemm_grid_timing.cu BUILD/libwarplab.a -lcublas
 * Run: ./gemm_grid_timing SEED fp16,bf16,fp32,tf32 [MxNxK ...]
 * With shapes (a tuning set, scripts/gemm_tile_tuning.sh): those instead of
 * the seed's, each in N,N and N,T, BF16 and FP16, FP32 and the input type
 * out (the grid's 16-bit cells; the class column says "tuning"), and where
 * the types name tf32, TF32 compute on float operands, FP32 out, N,N and
 * N,T. The operands are tight (lda = k, ldb = n or k): odd k or n puts
 * their rows off 16 bytes.
 * GGT_CANDIDATE=NAME in the environment forces one planner candidate (a row
 * of src/kernels/gemm_plan.c's table) for every warplab call.
 * GGT_CANDIDATES=A,B,... (or "all") also times each named candidate on
 * every cell after the planner's pick, on the same inputs (the same flush,
 * warm-ups and median), and GGT_CSV=FILE writes a line per cell and
 * candidate: the pick's and each candidate's median beside cuBLAS's (a
 * candidate that cannot take the cell: its status and no time). The
 * candidates' times are the data the planner's constants are fitted on. */
#include "warplab.h"
#include "warplab_lab.h"

#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cuda_check.h"
#include "l2_flush.cuh"

__device__ float value_of(size_t i, unsigned seed)
{
    unsigned h = (unsigned)i * 2654435761u ^ seed ^ (unsigned)(i >> 32) * 40503u;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    return (float)(h & 0xFFFF) / 32768.0f - 1.0f;
}

__global__ void fill(void *p, size_t n, unsigned seed, int type)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        const float v = value_of(i, seed);
        if (type == WARPLAB_BFLOAT16)
            ((__nv_bfloat16 *)p)[i] = __float2bfloat16(v);
        else if (type == WARPLAB_FLOAT16)
            ((__half *)p)[i] = __float2half(v);
        else
            ((float *)p)[i] = v;
    }
}

__device__ float load(const void *p, size_t i, int type)
{
    return type == WARPLAB_BFLOAT16  ? __bfloat162float(((const __nv_bfloat16 *)p)[i])
           : type == WARPLAB_FLOAT16 ? __half2float(((const __half *)p)[i])
                                     : ((const float *)p)[i];
}

__global__ void difference(const void *w, const void *c, size_t n, int type, unsigned *worst)
{
    float d = 0.0f;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        const float x = load(w, i, type), y = load(c, i, type);
        const float e = fabsf(x - y) / (fabsf(y) + 1.0f);
        d = e != e ? INFINITY : fmaxf(d, e);
    }
    atomicMax(worst, __float_as_uint(d));
}

static cudaDataType cuda_type(warplab_dtype t)
{
    return t == WARPLAB_BFLOAT16 ? CUDA_R_16BF : t == WARPLAB_FLOAT16 ? CUDA_R_16F : CUDA_R_32F;
}

static bool wanted(const warplab_gemm_grid_cell &c, const char *types)
{
    const char *name = c.compute == WARPLAB_COMPUTE_TF32 ? "tf32"
                       : c.ab_type == WARPLAB_BFLOAT16   ? "bf16"
                       : c.ab_type == WARPLAB_FLOAT16    ? "fp16"
                                                         : "fp32";
    return strstr(types, name) != nullptr;
}

/* The median over reps runs (us) of the times between events 4 r + first
 * and 4 r + first + 1 (first 0: warplab's, 2: cuBLAS's). */
static double median_us(const std::vector<cudaEvent_t> &ev, int reps, int first)
{
    std::vector<double> t(reps);
    for (int r = 0; r < reps; r++) {
        float ms;
        CHECK_CUDA(cudaEventElapsedTime(&ms, ev[4 * r + first], ev[4 * r + first + 1]));
        t[r] = 1e3 * ms;
    }
    std::sort(t.begin(), t.end());
    return t[reps / 2];
}

/* One CSV line: the cell, who ran it, the medians (0: not run) and the
 * largest |w - c| / (|c| + 1) against cuBLAS's C, and why not where it
 * did not run. */
static void write_line(FILE *csv, unsigned long long seed, const warplab_gemm_grid_cell &c,
                       const char *who, double warplab_us, double cublas_us, double error,
                       const char *why)
{
    const char *type = c.compute == WARPLAB_COMPUTE_TF32 ? "tf32"
                       : c.ab_type == WARPLAB_BFLOAT16   ? "bf16"
                       : c.ab_type == WARPLAB_FLOAT16    ? "fp16"
                                                         : "fp32";
    fprintf(csv, "%llu,%s,%zu,%zu,%zu,%c%c,%s,%s,%s,%.3f,%.3f,%.3g,\"", seed, c.shape_class, c.m,
            c.n, c.k, c.op_a == WARPLAB_OP_T ? 'T' : 'N', c.op_b == WARPLAB_OP_T ? 'T' : 'N', type,
            c.c_type == WARPLAB_FLOAT32 ? "f32" : "in", who, warplab_us, cublas_us, error);
    for (const char *p = why; *p; p++)
        if (*p != '"' && *p != '\n')
            fputc(*p, csv);
    fputs("\"\n", csv);
    fflush(csv);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s SEED fp16,bf16,fp32,tf32\n", argv[0]);
        return 2;
    }
    const unsigned long long seed = strtoull(argv[1], nullptr, 10);
    const char *types = argv[2];
    warplab_gemm_grid *grid = nullptr;
    if (warplab_gemm_grid_make(seed, &grid) != WARPLAB_OK)
        return 1;
    if (argc > 3) { /* the shapes given, over the grid's first cells, in the grid's group order */
        const int shapes = argc - 3;
        const int groups = strstr(types, "tf32") ? 10 : 8;
        if ((size_t)shapes * groups > grid->count) {
            fprintf(stderr, "more shapes than %zu cells hold\n", grid->count / groups);
            return 2;
        }
        size_t count = 0;
        /* The groups in the grid's order: BF16 then FP16; FP32 C then 16-bit; N,N then N,T;
         * then TF32 N,N and N,T. */
        for (int group = 0; group < groups; group++)
            for (int a = 3; a < argc; a++) {
                size_t m = 0, n = 0, k = 0;
                if (sscanf(argv[a], "%zux%zux%zu", &m, &n, &k) != 3 || m * n * k == 0) {
                    fprintf(stderr, "not a shape MxNxK: %s\n", argv[a]);
                    return 2;
                }
                warplab_gemm_grid_cell &c = grid->cells[count++];
                snprintf(c.shape_class, sizeof c.shape_class, "tuning");
                c.m = m, c.n = n, c.k = k;
                c.op_a = WARPLAB_OP_N;
                c.op_b = group & 1 ? WARPLAB_OP_T : WARPLAB_OP_N;
                c.ab_type = group & 4 ? WARPLAB_FLOAT16 : WARPLAB_BFLOAT16;
                c.c_type = group & 2 ? c.ab_type : WARPLAB_FLOAT32;
                c.compute = WARPLAB_COMPUTE_FP32;
                if (group >= 8) {
                    c.ab_type = c.c_type = WARPLAB_FLOAT32;
                    c.compute = WARPLAB_COMPUTE_TF32;
                }
                c.flags = 0;
                c.batch = 0;
            }
        grid->count = count;
    }
    cudaStream_t stream;
    CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    warplab_context *ctx = nullptr;
    if (warplab_context_create(WARPLAB_BACKEND_CUDA, 0, &ctx) != WARPLAB_OK ||
        warplab_context_set_stream(ctx, stream) != WARPLAB_OK)
        return 1;
    /* GGT_CANDIDATE=NAME: every warplab call runs that planner candidate
     * (warplab_gemm_force_candidate); a cell it cannot take fails with the
     * library's status. */
    if (const char *force = getenv("GGT_CANDIDATE")) {
        if (warplab_gemm_force_candidate(ctx, force) != WARPLAB_OK) {
            fprintf(stderr, "GGT_CANDIDATE=%s: %s\n", force, warplab_last_error(ctx));
            return 2;
        }
        printf("every warplab call forced to the planner candidate %s\n", force);
    }
    /* GGT_CANDIDATES and GGT_CSV: every named candidate timed on every cell. */
    std::vector<std::string> candidates;
    FILE *csv = nullptr;
    if (const char *list = getenv("GGT_CANDIDATES")) {
        const std::string all = list;
        for (size_t i = 0; strcmp(list, "all") == 0 && warplab_gemm_candidate_name(i); i++)
            candidates.push_back(warplab_gemm_candidate_name(i));
        for (size_t at = 0; strcmp(list, "all") != 0 && at <= all.size();) {
            const size_t comma = std::min(all.find(',', at), all.size());
            if (comma > at)
                candidates.push_back(all.substr(at, comma - at));
            at = comma + 1;
        }
        const char *path = getenv("GGT_CSV");
        csv = path ? fopen(path, "w") : stdout;
        if (!csv) {
            fprintf(stderr, "GGT_CSV=%s: cannot open\n", path);
            return 2;
        }
        fprintf(csv, "seed,class,m,n,k,ops,type,c,who,warplab_us,cublas_us,max_rel_error,why\n");
    }
    cublasHandle_t blas;
    if (cublasCreate(&blas) != CUBLAS_STATUS_SUCCESS || cublasSetStream(blas, stream))
        return 1;
    cudaDeviceProp prop;
    CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
    snprintf(grid->device, sizeof grid->device, "%s", prop.name);
    const size_t flush_bytes = 2 * (size_t)prop.l2CacheSize;
    void *flush;
    unsigned *sink, *worst;
    CHECK_CUDA(cudaMalloc(&flush, flush_bytes));
    CHECK_CUDA(cudaMemset(flush, 1, flush_bytes));
    CHECK_CUDA(cudaMalloc(&sink, 4));
    CHECK_CUDA(cudaMalloc(&worst, 4));
    const int reps = 15;
    std::vector<cudaEvent_t> ev(4 * reps);
    for (auto &e : ev)
        CHECK_CUDA(cudaEventCreate(&e));
    grid->l2_flushed = 1;
    for (size_t i = 0; i < grid->count; i++) {
        warplab_gemm_grid_cell &c = grid->cells[i];
        if ((c.flags & WARPLAB_ROW_SKIPPED) || !wanted(c, types)) {
            c.flags = WARPLAB_ROW_SKIPPED;
            c.status = WARPLAB_ERROR_UNSUPPORTED;
            snprintf(c.note, sizeof c.note, "not timed here");
            continue;
        }
        const size_t in = warplab_dtype_size(c.ab_type), out = warplab_dtype_size(c.c_type);
        const size_t na = c.m * c.k, nb = c.k * c.n, nc = c.m * c.n;
        void *a, *b, *cw, *cc;
        CHECK_CUDA(cudaMalloc(&a, na * in));
        CHECK_CUDA(cudaMalloc(&b, nb * in));
        CHECK_CUDA(cudaMalloc(&cw, nc * out));
        CHECK_CUDA(cudaMalloc(&cc, nc * out));
        fill<<<1024, 256, 0, stream>>>(a, na, (unsigned)(seed * 3 + i), c.ab_type);
        fill<<<1024, 256, 0, stream>>>(b, nb, (unsigned)(seed * 5 + i), c.ab_type);
        CHECK_CUDA(cudaMemsetAsync(cw, 0xFF, nc * out, stream));
        CHECK_CUDA(cudaStreamSynchronize(stream));
        warplab_buffer *wa, *wb, *wc;
        if (warplab_buffer_wrap(ctx, a, na * in, &wa) != WARPLAB_OK ||
            warplab_buffer_wrap(ctx, b, nb * in, &wb) != WARPLAB_OK ||
            warplab_buffer_wrap(ctx, cw, nc * out, &wc) != WARPLAB_OK)
            return 1;
        const int lda = (int)(c.op_a == WARPLAB_OP_T ? c.m : c.k);
        const int ldb = (int)(c.op_b == WARPLAB_OP_T ? c.k : c.n);
        const float alpha = 1.0f, beta = 0.0f;
        const cublasComputeType_t compute =
            c.compute == WARPLAB_COMPUTE_TF32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
        auto run_w = [&]() {
            return warplab_gemm_ex(ctx, c.op_a, c.op_b, c.m, c.n, c.k, 1.0f, wa, c.ab_type, 0, wb,
                                   c.ab_type, 0, 0.0f, wc, c.c_type, 0, c.compute) == WARPLAB_OK;
        };
        auto run_c = [&]() {
            return cublasGemmEx(blas, c.op_b == WARPLAB_OP_T ? CUBLAS_OP_T : CUBLAS_OP_N,
                                c.op_a == WARPLAB_OP_T ? CUBLAS_OP_T : CUBLAS_OP_N, (int)c.n,
                                (int)c.m, (int)c.k, &alpha, b, cuda_type(c.ab_type), ldb, a,
                                cuda_type(c.ab_type), lda, &beta, cc, cuda_type(c.c_type), (int)c.n,
                                compute, CUBLAS_GEMM_DEFAULT) == CUBLAS_STATUS_SUCCESS;
        };
        /* The largest |w - c| / (|c| + 1) between warplab's C and cuBLAS's. */
        auto max_difference = [&]() {
            CHECK_CUDA(cudaMemsetAsync(worst, 0, 4, stream));
            difference<<<1024, 256, 0, stream>>>(cw, cc, nc, c.c_type, worst);
            unsigned bits = 0;
            CHECK_CUDA(cudaMemcpyAsync(&bits, worst, 4, cudaMemcpyDeviceToHost, stream));
            CHECK_CUDA(cudaStreamSynchronize(stream));
            float d;
            memcpy(&d, &bits, 4);
            return d;
        };
        bool ok = run_w() && run_c();
        CHECK_CUDA(cudaStreamSynchronize(stream));
        if (ok) {
            c.max_rel_error = max_difference();
            for (int w = 0; w < 2 && ok; w++)
                ok = run_w() && run_c();
            for (int r = 0; r < reps && ok; r++) {
                flush_read<<<1024, 256, 0, stream>>>((const uint4 *)flush, flush_bytes / 16, sink);
                CHECK_CUDA(cudaEventRecord(ev[4 * r], stream));
                ok = ok && run_w();
                CHECK_CUDA(cudaEventRecord(ev[4 * r + 1], stream));
                flush_read<<<1024, 256, 0, stream>>>((const uint4 *)flush, flush_bytes / 16, sink);
                CHECK_CUDA(cudaEventRecord(ev[4 * r + 2], stream));
                ok = ok && run_c();
                CHECK_CUDA(cudaEventRecord(ev[4 * r + 3], stream));
            }
            CHECK_CUDA(cudaStreamSynchronize(stream));
        }
        if (ok) {
            c.warplab_us = median_us(ev, reps, 0);
            c.cublas_us = median_us(ev, reps, 2);
            c.ratio = c.cublas_us / c.warplab_us;
            c.runs = reps;
            c.status = WARPLAB_OK;
            c.flags = 0;
            snprintf(c.candidate, sizeof c.candidate, "%s",
                     c.max_rel_error > 0.05 ? "DIFFERS" : "-");
            snprintf(c.plan, sizeof c.plan, "max |w - c| / (|c| + 1) vs cuBLAS %.2g",
                     c.max_rel_error);
        } else {
            c.flags = WARPLAB_ROW_FAILED;
            c.status = WARPLAB_ERROR_BACKEND;
            snprintf(c.note, sizeof c.note, "%s", warplab_last_error(ctx));
        }
        /* Each named candidate on the same inputs: the check against
         * cuBLAS's C, 2 warm-ups, then the median of reps flushed runs. */
        if (ok && csv) {
            write_line(csv, seed, c, "pick", c.warplab_us, c.cublas_us, c.max_rel_error, "");
            for (const std::string &name : candidates) {
                if (warplab_gemm_force_candidate(ctx, name.c_str()) != WARPLAB_OK)
                    return 1;
                CHECK_CUDA(cudaMemsetAsync(cw, 0xFF, nc * out, stream));
                bool run = run_w();
                if (!run) {
                    write_line(csv, seed, c, name.c_str(), 0.0, 0.0, 0.0, warplab_last_error(ctx));
                } else {
                    const float d = max_difference();
                    for (int w = 0; w < 2 && run; w++)
                        run = run_w();
                    for (int r = 0; r < reps && run; r++) {
                        flush_read<<<1024, 256, 0, stream>>>((const uint4 *)flush, flush_bytes / 16,
                                                             sink);
                        CHECK_CUDA(cudaEventRecord(ev[4 * r], stream));
                        run = run && run_w();
                        CHECK_CUDA(cudaEventRecord(ev[4 * r + 1], stream));
                    }
                    CHECK_CUDA(cudaStreamSynchronize(stream));
                    write_line(csv, seed, c, name.c_str(), run ? median_us(ev, reps, 0) : 0.0,
                               c.cublas_us, d, run ? "" : warplab_last_error(ctx));
                }
                if (warplab_gemm_force_candidate(ctx, nullptr) != WARPLAB_OK)
                    return 1;
            }
        }
        warplab_buffer_destroy(wa);
        warplab_buffer_destroy(wb);
        warplab_buffer_destroy(wc);
        CHECK_CUDA(cudaFree(a));
        CHECK_CUDA(cudaFree(b));
        CHECK_CUDA(cudaFree(cw));
        CHECK_CUDA(cudaFree(cc));
    }
    if (csv && csv != stdout)
        fclose(csv);
    warplab_gemm_grid_write(grid, WARPLAB_FORMAT_TABLE, stdout);
    warplab_gemm_grid_destroy(grid);
    cublasDestroy(blas);
    warplab_context_destroy(ctx);
    return 0;
}
