/* The memories probe: a table read from __constant__ or global memory with
 * d distinct words a warp, a per-thread array kept in registers or, when
 * indexed at run time, in local memory, and a gather through plain loads,
 * __ldg or const __restrict__ pointers. */
#include "probe_cuda.h"

enum { MEM_TABLE = 0, MEM_OUT };

/* The table of the constant series, copied from the input before each run
 * (untimed). One per process: the probe's runs are serial. */
__constant__ int wl_probe_constant_table[WL_CONSTANT_WORDS];

/* Isolates the constant cache's one word a pass: lane l reads word
 * (l mod distinct + 97 k) mod 4096 at step k. */
template <bool CONSTANT>
__global__ void probe_table(const int *table, int *out, size_t threads, unsigned distinct,
                            unsigned steps)
{
    const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned group = (threadIdx.x % WL_PROBE_WARP) % distinct;
    unsigned sum = 0;
    for (unsigned k = 0; k < steps; k++) {
        const unsigned w = (group + 97u * k) % WL_CONSTANT_WORDS;
        sum += (unsigned)(CONSTANT ? wl_probe_constant_table[w] : table[w]);
    }
    if (t < threads)
        out[t] = (int)sum;
}

static warplab_status prepare_constant(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    return wl_cuda_check(backend,
                         cudaMemcpyToSymbolAsync(wl_probe_constant_table,
                                                 view_of<const int>(launch, MEM_TABLE),
                                                 sizeof(int) * WL_CONSTANT_WORDS, 0,
                                                 cudaMemcpyDeviceToDevice, wl_cuda_stream(backend)),
                         "probe memories: the constant table");
}

template <bool CONSTANT>
static warplab_status launch_table(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    const size_t threads = launch->problem->dim[0];
    probe_table<CONSTANT><<<wl_probe_blocks(threads), WL_PROBE_BLOCK, 0, wl_cuda_stream(backend)>>>(
        view_of<const int>(launch, MEM_TABLE), view_of<int>(launch, MEM_OUT), threads,
        (unsigned)launch->problem->param, (unsigned)launch->problem->dim[1]);
    return WL_CUDA_LAUNCHED(backend, "probe memories table");
}

/* Isolates where a per-thread array lives. REGISTERS: a[i] with i unrolled,
 * then the array rotated by one (constant indices throughout); else
 * a[(i + k) mod N], an index known only at run time: local memory. */
template <int N, bool REGISTERS>
__global__ void probe_array(const int *in, int *out, size_t threads, unsigned steps)
{
    const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    unsigned a[N];
#pragma unroll
    for (int j = 0; j < N; j++)
        a[j] = (unsigned)in[(t + j) % WL_LOCAL_MAX];
    unsigned acc = 0;
    for (unsigned k = 0; k < steps; k++) {
        if constexpr (REGISTERS) {
#pragma unroll
            for (int i = 0; i < N; i++)
                acc = 3u * acc + a[i];
            const unsigned first = a[0];
#pragma unroll
            for (int j = 0; j + 1 < N; j++)
                a[j] = a[j + 1];
            a[N - 1] = first;
        } else {
#pragma unroll
            for (int i = 0; i < N; i++)
                acc = 3u * acc + a[(i + k) % N];
        }
    }
    if (t < threads)
        out[t] = (int)acc;
}

template <int N, bool REGISTERS>
static warplab_status launch_array_n(wl_backend *backend, const wl_launch *launch)
{
    const size_t threads = launch->problem->dim[0];
    probe_array<N, REGISTERS>
        <<<wl_probe_blocks(threads), WL_PROBE_BLOCK, 0, wl_cuda_stream(backend)>>>(
            view_of<const int>(launch, MEM_TABLE), view_of<int>(launch, MEM_OUT), threads,
            (unsigned)launch->problem->dim[1]);
    return WL_CUDA_LAUNCHED(backend, "probe memories array");
}

template <bool REGISTERS>
static warplab_status launch_array(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    switch (launch->problem->param) {
    case 4: return launch_array_n<4, REGISTERS>(backend, launch);
    case 8: return launch_array_n<8, REGISTERS>(backend, launch);
    case 16: return launch_array_n<16, REGISTERS>(backend, launch);
    case 32: return launch_array_n<32, REGISTERS>(backend, launch);
    case 64: return launch_array_n<64, REGISTERS>(backend, launch);
    default:
        return wl_fail(backend, WARPLAB_ERROR_UNSUPPORTED, "probe memories: no array of %ld",
                       launch->problem->param);
    }
}

/* Isolates the load path of a gather: thread t reads table[hash(t, k) & mask]
 * for k < steps (WL_GATHER_INDEX, probe_kernels.h). FORM 0: plain loads
 * through a pointer that may alias out (LDG.E); FORM 1: __ldg, the read-only
 * path (ld.global.nc in PTX). The restrict form (FORM 2, below) compiles
 * to ld.global.nc too (nvcc 13, sm_90): the compiler proves the table
 * read-only. */
template <int FORM>
__global__ void probe_gather(const int *table, int *out, size_t threads, unsigned mask,
                             unsigned steps)
{
    const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= threads)
        return;
    unsigned sum = 0;
    for (unsigned k = 0; k < steps; k++) {
        const int *word = &table[WL_GATHER_INDEX(t, k) & mask];
        sum += (unsigned)(FORM == 1 ? __ldg(word) : *word);
    }
    out[t] = (int)sum;
}

/* The same plain indexing with both pointers restrict: the compiler may pick
 * the read-only path itself. */
__global__ void probe_gather_restrict(const int *__restrict__ table, int *__restrict__ out,
                                      size_t threads, unsigned mask, unsigned steps)
{
    const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= threads)
        return;
    unsigned sum = 0;
    for (unsigned k = 0; k < steps; k++)
        sum += (unsigned)table[WL_GATHER_INDEX(t, k) & mask];
    out[t] = (int)sum;
}

template <int FORM>
static warplab_status launch_gather(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    const wl_problem *p = launch->problem;
    const size_t threads = p->dim[0];
    if (threads == 0)
        return WARPLAB_OK;
    const unsigned mask = (unsigned)(p->dim[2] - 1), steps = (unsigned)p->dim[1];
    const int *table = view_of<const int>(launch, MEM_TABLE);
    int *out = view_of<int>(launch, MEM_OUT);
    cudaStream_t stream = wl_cuda_stream(backend);
    if constexpr (FORM == 2)
        probe_gather_restrict<<<wl_probe_blocks(threads), WL_PROBE_BLOCK, 0, stream>>>(
            table, out, threads, mask, steps);
    else
        probe_gather<FORM><<<wl_probe_blocks(threads), WL_PROBE_BLOCK, 0, stream>>>(
            table, out, threads, mask, steps);
    return WL_CUDA_LAUNCHED(backend, "probe memories gather");
}

template <int N> static size_t local_bytes(bool registers)
{
    cudaFuncAttributes attributes;
    const cudaError_t e = registers ? cudaFuncGetAttributes(&attributes, probe_array<N, true>)
                                    : cudaFuncGetAttributes(&attributes, probe_array<N, false>);
    return e == cudaSuccess ? attributes.localSizeBytes : (size_t)-1;
}

extern "C" warplab_status wl_cuda_probe_local_bytes(int n, size_t *in_registers, size_t *in_local)
{
    switch (n) {
    case 4: *in_registers = local_bytes<4>(true), *in_local = local_bytes<4>(false); break;
    case 8: *in_registers = local_bytes<8>(true), *in_local = local_bytes<8>(false); break;
    case 16: *in_registers = local_bytes<16>(true), *in_local = local_bytes<16>(false); break;
    case 32: *in_registers = local_bytes<32>(true), *in_local = local_bytes<32>(false); break;
    case 64: *in_registers = local_bytes<64>(true), *in_local = local_bytes<64>(false); break;
    default: return WARPLAB_ERROR_UNSUPPORTED;
    }
    return *in_registers == (size_t)-1 || *in_local == (size_t)-1 ? WARPLAB_ERROR_BACKEND
                                                                  : WARPLAB_OK;
}

extern "C" {
const wl_impl wl_cuda_probe_constant = {.ladder = "memories_constant",
                                        .rung = "constant",
                                        .prepare = prepare_constant,
                                        .launch = launch_table<true>};
const wl_impl wl_cuda_probe_global_table = {
    .ladder = "memories_constant", .rung = "global", .launch = launch_table<false>};
const wl_impl wl_cuda_probe_registers = {
    .ladder = "memories_local", .rung = "registers", .launch = launch_array<true>};
const wl_impl wl_cuda_probe_local = {
    .ladder = "memories_local", .rung = "local", .launch = launch_array<false>};
const wl_impl wl_cuda_probe_gather[3] = {
    {.ladder = "memories_readonly", .rung = "plain", .launch = launch_gather<0>},
    {.ladder = "memories_readonly", .rung = "ldg", .launch = launch_gather<1>},
    {.ladder = "memories_readonly", .rung = "restrict", .launch = launch_gather<2>},
};
}
