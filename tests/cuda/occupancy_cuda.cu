/* warplab's occupancy arithmetic against the CUDA runtime's, on the GPU
 * present: for real kernels of different register pressure and shared
 * memory, at many block sizes and dynamic shared-memory sizes,
 *   warplab_occupancy_compute(warplab_arch_from_device(GPU), threads,
 *                             attr.numRegs, attr.sharedSizeBytes + dynamic)
 * must give the blocks per SM that cudaOccupancyMaxActiveBlocksPerMultiprocessor
 * gives, and fail exactly where the runtime says no block fits.
 *
 * Exits 77 (CTest's skip) without a CUDA GPU, and says why. */
#include "warplab_lab.h"

#include <cuda_runtime.h>

#include <climits>
#include <cstdio>
#include <cstring>

#define TEST_SKIP 77

/* Few registers: a copy. */
__global__ void copy_kernel(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i];
}

/* Register pressure that grows with N: N accumulators live across a loop the
 * compiler cannot fold (the trip count and the data come from memory). */
template <int N> __device__ float pressure_body(const float *in, int n, int rounds)
{
    float acc[N];
#pragma unroll
    for (int k = 0; k < N; k++)
        acc[k] = in[(threadIdx.x * 7 + k) % n];
    for (int r = 0; r < rounds; r++) {
#pragma unroll
        for (int k = 0; k < N; k++)
            acc[k] = fmaf(acc[k], acc[(k + 1) % N], in[(r + k) % n]);
    }
    float sum = 0.0f;
#pragma unroll
    for (int k = 0; k < N; k++)
        sum += acc[k] * (float)(k + 1);
    return sum;
}

template <int N> __global__ void pressure_kernel(const float *in, float *out, int n, int rounds)
{
    out[blockIdx.x * blockDim.x + threadIdx.x] = pressure_body<N>(in, n, rounds);
}

/* The same pressure held down by launch bounds instead of -maxrregcount. */
template <int N>
__global__ void __launch_bounds__(1024)
    bounded_1024_kernel(const float *in, float *out, int n, int rounds)
{
    out[blockIdx.x * blockDim.x + threadIdx.x] = pressure_body<N>(in, n, rounds);
}

template <int N>
__global__ void __launch_bounds__(128, 4)
    bounded_128x4_kernel(const float *in, float *out, int n, int rounds)
{
    out[blockIdx.x * blockDim.x + threadIdx.x] = pressure_body<N>(in, n, rounds);
}

/* Static shared memory: the course's two 16x16 tiles (2 KB), and a padded
 * 32x33 tile with dynamic shared memory on top. */
__global__ void tile16_kernel(const float *in, float *out, int n)
{
    __shared__ float ds_a[16][16], ds_b[16][16];
    int tx = threadIdx.x % 16, ty = (threadIdx.x / 16) % 16;
    ds_a[ty][tx] = in[threadIdx.x % n];
    ds_b[ty][tx] = in[(threadIdx.x + 1) % n];
    __syncthreads();
    float sum = 0.0f;
    for (int k = 0; k < 16; k++)
        sum += ds_a[ty][k] * ds_b[k][tx];
    out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

__global__ void static_and_dynamic_kernel(const float *in, float *out, int n)
{
    __shared__ float tile[32][33];
    extern __shared__ float extra[];
    tile[threadIdx.x % 32][threadIdx.x / 32 % 33] = in[threadIdx.x % n];
    extra[threadIdx.x] = in[(threadIdx.x + 3) % n];
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] =
        tile[(threadIdx.x + 1) % 32][threadIdx.x / 32 % 33] + extra[(threadIdx.x + 1) % blockDim.x];
}

/* Only dynamic shared memory, up to the opt-in maximum. */
__global__ void dynamic_kernel(const float *in, float *out, int n)
{
    extern __shared__ float buffer[];
    buffer[threadIdx.x] = in[threadIdx.x % n];
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = buffer[(threadIdx.x + 1) % blockDim.x];
}

typedef struct kernel_case {
    const char *name;
    const void *function;
    bool dynamic; /* takes dynamic shared memory */
} kernel_case;

typedef struct tally {
    int compared, mismatches, both_refused;
    int bound_by[WARPLAB_LIMIT_COUNT];
} tally;

static void compare_one(const warplab_arch *arch, const kernel_case *k,
                        const cudaFuncAttributes *attr, int threads, size_t dynamic, tally *t)
{
    int cuda_blocks = -1;
    cudaError_t error =
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&cuda_blocks, k->function, threads, dynamic);
    if (error != cudaSuccess) {
        cudaGetLastError();
        cuda_blocks = 0;
    }
    const size_t shared = attr->sharedSizeBytes + dynamic;
    warplab_occupancy r;
    warplab_status status = warplab_occupancy_compute(arch, threads, attr->numRegs, shared, &r);
    const int ours = status == WARPLAB_OK ? r.blocks_per_sm : 0;
    t->compared++;
    if (ours == cuda_blocks) {
        if (ours == 0)
            t->both_refused++;
        else
            t->bound_by[r.limit]++;
        return;
    }
    t->mismatches++;
    fprintf(stderr,
            "MISMATCH %s: %d threads, %d registers, %zu static + %zu dynamic shared: CUDA %d "
            "blocks/SM%s%s, warplab %d (%s%s)\n",
            k->name, threads, attr->numRegs, attr->sharedSizeBytes, dynamic, cuda_blocks,
            error != cudaSuccess ? ", " : "", error != cudaSuccess ? cudaGetErrorString(error) : "",
            ours,
            status == WARPLAB_OK ? warplab_occupancy_limit_name(r.limit) : warplab_last_error(NULL),
            status == WARPLAB_OK ? " binds" : "");
}

int main(void)
{
    int count = 0;
    cudaError_t error = cudaGetDeviceCount(&count);
    if (error != cudaSuccess || count == 0) {
        printf("skip: no CUDA GPU (%s)\n",
               error != cudaSuccess ? cudaGetErrorString(error) : "no devices");
        return TEST_SKIP;
    }
    warplab_device_info device;
    size_t devices = 0;
    if (warplab_devices(WARPLAB_BACKEND_CUDA, &device, 1, &devices) != WARPLAB_OK || devices == 0) {
        fprintf(stderr, "the runtime sees %d GPU(s) but warplab_devices(cuda) finds none\n", count);
        return 1;
    }
    warplab_arch arch;
    if (warplab_arch_from_device(&device, &arch) != WARPLAB_OK) {
        fprintf(stderr, "warplab_arch_from_device: %s\n", warplab_last_error(NULL));
        return 1;
    }
    cudaSetDevice(0);
    printf("%s: %d threads, %d blocks, %d registers, %zu shared bytes per SM; %zu per block "
           "(opt-in)\n",
           arch.name, arch.max_threads_per_sm, arch.max_blocks_per_sm, arch.registers_per_sm,
           arch.shared_memory_per_sm, arch.max_shared_memory_per_block);

    const kernel_case kernels[] = {
        {"copy", (const void *)copy_kernel, false},
        {"pressure<8>", (const void *)pressure_kernel<8>, false},
        {"pressure<32>", (const void *)pressure_kernel<32>, false},
        {"pressure<64>", (const void *)pressure_kernel<64>, false},
        {"pressure<128>", (const void *)pressure_kernel<128>, false},
        {"pressure<200>", (const void *)pressure_kernel<200>, false},
        {"bounded_1024<128>", (const void *)bounded_1024_kernel<128>, false},
        {"bounded_128x4<128>", (const void *)bounded_128x4_kernel<128>, false},
        {"tile16", (const void *)tile16_kernel, false},
        {"static_and_dynamic", (const void *)static_and_dynamic_kernel, true},
        {"dynamic", (const void *)dynamic_kernel, true},
    };
    static const int block_sizes[] = {32,  64,  96,  128, 160, 192, 224, 256, 288,
                                      320, 384, 448, 512, 640, 768, 896, 1024};
    static const size_t dynamic_sizes[] = {0,      1,          1000,      2048,      4096,
                                           8192,   12288,      16384,     24000,     32768,
                                           40000,  48 * 1024,  64 * 1024, 80 * 1024, 100 * 1024,
                                           130000, 160 * 1024, 200000,    220 * 1024};
    tally t;
    memset(&t, 0, sizeof t);
    for (const kernel_case &k : kernels) {
        if (k.dynamic) {
            /* Opt in to the most dynamic shared memory the device gives a block. */
            cudaFuncAttributes before;
            cudaFuncGetAttributes(&before, k.function);
            int most = (int)(device.shared_memory_per_block_optin - before.sharedSizeBytes);
            if (cudaFuncSetAttribute(k.function, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     most) != cudaSuccess) {
                fprintf(stderr, "%s: cudaFuncSetAttribute(%d bytes) failed: %s\n", k.name, most,
                        cudaGetErrorString(cudaGetLastError()));
                return 1;
            }
        }
        cudaFuncAttributes attr;
        if (cudaFuncGetAttributes(&attr, k.function) != cudaSuccess) {
            fprintf(stderr, "%s: cudaFuncGetAttributes: %s\n", k.name,
                    cudaGetErrorString(cudaGetLastError()));
            return 1;
        }
        printf("  %-20s %3d registers, %6zu static shared bytes, up to %4d threads\n", k.name,
               attr.numRegs, attr.sharedSizeBytes, attr.maxThreadsPerBlock);
        for (int threads : block_sizes) {
            if (threads > attr.maxThreadsPerBlock)
                continue;
            if (!k.dynamic) {
                compare_one(&arch, &k, &attr, threads, 0, &t);
                continue;
            }
            for (size_t dynamic : dynamic_sizes) {
                if (attr.sharedSizeBytes + dynamic > device.shared_memory_per_block_optin + 4096)
                    continue;
                compare_one(&arch, &k, &attr, threads, dynamic, &t);
            }
        }
    }
    /* The largest dynamic size, exactly at the limit and one byte past it. */
    for (const kernel_case &k : kernels) {
        if (!k.dynamic)
            continue;
        cudaFuncAttributes attr;
        cudaFuncGetAttributes(&attr, k.function);
        size_t most = device.shared_memory_per_block_optin - attr.sharedSizeBytes;
        compare_one(&arch, &k, &attr, 256, most, &t);
        compare_one(&arch, &k, &attr, 256, most + 1, &t);
    }

    printf("%d cases compared, %d mismatches; both refused %d; bound by threads %d, blocks %d, "
           "registers %d, shared memory %d\n",
           t.compared, t.mismatches, t.both_refused, t.bound_by[WARPLAB_LIMIT_THREADS],
           t.bound_by[WARPLAB_LIMIT_BLOCKS], t.bound_by[WARPLAB_LIMIT_REGISTERS],
           t.bound_by[WARPLAB_LIMIT_SHARED_MEMORY]);
    /* The comparison must have exercised every limit, or it proves little. */
    bool covered = true;
    for (int i = 0; i < WARPLAB_LIMIT_COUNT; i++)
        if (t.bound_by[i] == 0) {
            fprintf(stderr, "no agreeing case where %s bind\n",
                    warplab_occupancy_limit_name((warplab_occupancy_limit)i));
            covered = false;
        }
    return t.mismatches == 0 && covered && t.compared > 100 ? 0 : 1;
}
