/* Just enough of CUDA to run warplab's kernel headers (*.cuh) on the CPU,
 * for the test suite on machines without a GPU.
 *
 * A launch runs its blocks one after another; a block's threads are host
 * threads, so shared memory (a kernel's `__shared__` arrays become function
 * statics, dynamic shared memory one buffer) is really shared, registers are
 * really private, and __syncthreads() is a barrier of the block's threads.
 * cp.async copies at once: a pipeline that overwrote a buffer another thread
 * still reads shows up as a wrong result. Dynamic shared memory starts as
 * NaN, so reading what no copy wrote shows up too.
 *
 * What this does not model: timing, warps as a unit (no shuffles or warp
 * instructions are emulated), memory ordering beyond the barrier, and the
 * hardware's own checks (that is compute-sanitizer's job on the GPU). */
#ifndef WARPLAB_CUDA_EMULATE_H
#define WARPLAB_CUDA_EMULATE_H

#define WL_EMULATE 1

#include <barrier>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <thread>
#include <vector>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))
#define __shared__ static

struct dim3 {
    unsigned x, y, z;
    dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};

struct emu_index {
    unsigned x, y, z;
};

inline thread_local emu_index threadIdx;
inline emu_index blockIdx;
inline dim3 blockDim, gridDim;
inline std::barrier<> *emu_barrier;
inline float *emu_dynamic_smem;

inline void __syncthreads()
{
    emu_barrier->arrive_and_wait();
}

struct float4 {
    float x, y, z, w;
};

inline float4 make_float4(float x, float y, float z, float w)
{
    return float4{x, y, z, w};
}

#define WL_DYNAMIC_SMEM(T, name) T *name = reinterpret_cast<T *>(emu_dynamic_smem)

/* cp.async, done at once. */
inline void cp_async_4(float *dst, const float *src, bool valid)
{
    *dst = valid ? *src : 0.0f;
}
inline void cp_async_16(float *dst, const float *src, int src_bytes)
{
    for (int i = 0; i < 4; i++)
        dst[i] = 4 * i < src_bytes ? src[i] : 0.0f;
}
inline void cp_async_commit() {}
template <int PENDING> inline void cp_async_wait() {}

/* Runs kernel() as a grid of blocks of threads. */
template <class Kernel>
void emu_launch(dim3 grid, dim3 block, size_t dynamic_smem_bytes, Kernel kernel)
{
    std::vector<float> smem(dynamic_smem_bytes / sizeof(float) + 4);
    gridDim = grid;
    blockDim = block;
    const unsigned threads = block.x * block.y * block.z;
    for (unsigned bz = 0; bz < grid.z; bz++)
        for (unsigned by = 0; by < grid.y; by++)
            for (unsigned bx = 0; bx < grid.x; bx++) {
                blockIdx = emu_index{bx, by, bz};
                for (float &x : smem)
                    x = std::numeric_limits<float>::quiet_NaN();
                uintptr_t base = reinterpret_cast<uintptr_t>(smem.data());
                emu_dynamic_smem = reinterpret_cast<float *>((base + 15) / 16 * 16);
                std::barrier<> barrier((std::ptrdiff_t)threads);
                emu_barrier = &barrier;
                std::vector<std::thread> pool;
                pool.reserve(threads);
                for (unsigned t = 0; t < threads; t++)
                    pool.emplace_back([&, t] {
                        threadIdx = emu_index{t % block.x, (t / block.x) % block.y,
                                              t / (block.x * block.y)};
                        kernel();
                        /* An exited thread no longer counts at barriers, as on the GPU. */
                        emu_barrier->arrive_and_drop();
                    });
                for (std::thread &thread : pool)
                    thread.join();
            }
}

#endif
