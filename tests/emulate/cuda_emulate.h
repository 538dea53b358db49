/* Just enough of CUDA to run warplab's kernel headers (*.cuh) on the CPU,
 * for the test suite on machines without a GPU.
 *
 * A launch runs its blocks one after another; a block's threads are fibers
 * (user-level contexts, each with its own stack) on the launching thread,
 * so shared memory (a kernel's `__shared__` arrays become function statics,
 * dynamic shared memory one buffer) is really shared, registers are really
 * private, and __syncthreads() is a barrier of the block's threads. A
 * thread runs alone until it reaches a point where CUDA threads meet
 * (__syncthreads, a warp-wide instruction) or exits; then the next thread
 * runs. So every thread finishes a phase before the others start the next,
 * and within a phase each thread runs whole, one after another: in index
 * order in one phase, in reverse order in the next (odd blocks start
 * reversed). A read of what another thread writes in the same phase (a
 * missing barrier) then sees the other thread's write in one order and the
 * value from before it in the other, so such a race shows up as a wrong
 * result, deterministically. Switching costs no system thread, which makes
 * a block of 256 threads cheap on a machine of 2 cores.
 *
 * cp.async copies at once: a pipeline that overwrote a buffer another thread
 * still reads shows up as a wrong result. Dynamic shared memory starts as
 * NaN, so reading what no copy wrote shows up too. Threads that wait for
 * each other forever (a barrier some threads never reach) stop the test
 * with a message instead of hanging.
 *
 * mma.sync (TF32 m16n8k8, BF16 and FP16 m16n8k16) is emulated warp-wide from
 * the PTX ISA's fragment layouts, cvt.rna.tf32 bit for bit. The TF32 mma
 * reads the top 19 bits of each word, as the hardware does (truncation of a
 * word not rounded before).
 *
 * __shfl_xor_sync (float, whole warps) is emulated the same way.
 *
 * What this does not model: timing, other warp instructions (other
 * shuffles, ldmatrix, wgmma), memory ordering beyond the barrier, and the hardware's
 * own checks (that is compute-sanitizer's job on the GPU). */
#ifndef WARPLAB_CUDA_EMULATE_H
#define WARPLAB_CUDA_EMULATE_H

#define WL_EMULATE 1

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include "../../src/ladders/gemm.h" /* the library's 16-bit conversions */

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

/* threadIdx is the running fiber's, set by the scheduler at each switch. */
inline emu_index threadIdx;
inline emu_index blockIdx;
inline dim3 blockDim, gridDim;
inline float *emu_dynamic_smem;

/* ------------------------------------------------------------------------ */
/* Fibers and the points where they meet */

/* A meeting point of `expected` threads (the block, or one warp): its phase
 * advances when the last of them arrives. */
struct emu_sync {
    unsigned expected, arrived, phase;
};

/* Switching fibers. On x86-64 (ELF), a hand-written switch: it saves the
 * registers a called function must preserve (System V ABI: rbx, rbp,
 * r12-r15, the x87 control word and MXCSR's control bits) on the current
 * stack, stores the stack pointer in *save, loads load and restores the
 * registers saved there. That is a few nanoseconds; ucontext's swapcontext,
 * used elsewhere, also saves the signal mask with a system call, which
 * made it most of the tests' time. The function is emitted once per
 * program (a COMDAT group, as an inline function is). Defining
 * EMU_UCONTEXT selects ucontext everywhere (to test that path). */
#if defined(__x86_64__) && defined(__ELF__) && !defined(EMU_UCONTEXT)
#define EMU_FAST_SWITCH 1
extern "C" void emu_switch(void **save, void *load);
asm(".pushsection .text.emu_switch,\"axG\",@progbits,emu_switch,comdat\n"
    ".weak emu_switch\n"
    ".hidden emu_switch\n"
    ".type emu_switch, @function\n"
    "emu_switch:\n"
    "    pushq %rbp\n"
    "    pushq %rbx\n"
    "    pushq %r12\n"
    "    pushq %r13\n"
    "    pushq %r14\n"
    "    pushq %r15\n"
    "    subq $8, %rsp\n"
    "    stmxcsr (%rsp)\n"
    "    fnstcw 4(%rsp)\n"
    "    movq %rsp, (%rdi)\n"
    "    movq %rsi, %rsp\n"
    "    ldmxcsr (%rsp)\n"
    "    fldcw 4(%rsp)\n"
    "    addq $8, %rsp\n"
    "    popq %r15\n"
    "    popq %r14\n"
    "    popq %r13\n"
    "    popq %r12\n"
    "    popq %rbx\n"
    "    popq %rbp\n"
    "    ret\n"
    ".size emu_switch, .-emu_switch\n"
    ".popsection\n");
#else
#define EMU_FAST_SWITCH 0
#endif

/* One thread of the block. Its stack has an unmapped page below it, so an
 * overflow stops the test instead of writing over another thread's. */
struct emu_fiber {
#if EMU_FAST_SWITCH
    void *sp; /* where emu_switch saved its registers */
#else
    ucontext_t context;
#endif
    char *stack;
    emu_index index;
    const emu_sync *waiting; /* null, or the meeting point it waits at */
    unsigned waiting_phase;  /* the phase it arrived in */
    bool done;
};

/* Generous: a kernel's register arrays and the emulation's frames take a few
 * KiB (4 KiB at most over the gemm test's kernels); untouched pages of the
 * reservation cost nothing. */
constexpr size_t EMU_STACK_BYTES = 256 * 1024;

inline emu_fiber *emu_current;
inline emu_sync emu_block_sync;
inline std::vector<emu_sync> emu_warp_syncs; /* one per warp of the block */
inline void (*emu_kernel_body)(void *);
inline void *emu_kernel_arg;

#if EMU_FAST_SWITCH
inline void *emu_scheduler_sp;

inline void emu_to_fiber(emu_fiber &f)
{
    emu_switch(&emu_scheduler_sp, f.sp);
}

inline void emu_to_scheduler(emu_fiber &f)
{
    emu_switch(&f.sp, emu_scheduler_sp);
}

/* f's stack as emu_switch leaves it, returning into start: the control
 * registers as now, the others zero; start is entered with the stack
 * aligned as after a call (its return address, never used, zero). */
inline void emu_prepare(emu_fiber &f, void (*start)())
{
    uintptr_t top = (reinterpret_cast<uintptr_t>(f.stack) + EMU_STACK_BYTES) & ~uintptr_t(15);
    uint64_t *frame = reinterpret_cast<uint64_t *>(top) - 9;
    uint32_t control[2];
    asm volatile("stmxcsr %0\n\tfnstcw %1" : "=m"(control[0]), "=m"(control[1]));
    std::memcpy(&frame[0], control, sizeof control);
    for (int i = 1; i <= 6; i++)
        frame[i] = 0; /* r15, r14, r13, r12, rbx, rbp */
    frame[7] = reinterpret_cast<uint64_t>(start);
    frame[8] = 0;
    f.sp = frame;
}
#else
inline ucontext_t emu_scheduler;

inline void emu_to_fiber(emu_fiber &f)
{
    swapcontext(&emu_scheduler, &f.context);
}

inline void emu_to_scheduler(emu_fiber &f)
{
    swapcontext(&f.context, &emu_scheduler);
}

inline void emu_prepare(emu_fiber &f, void (*start)())
{
    f.context.uc_stack.ss_sp = f.stack;
    f.context.uc_stack.ss_size = EMU_STACK_BYTES;
    f.context.uc_link = &emu_scheduler;
    makecontext(&f.context, start, 0);
}
#endif

/* Fibers are made once and reused by every block and launch, each kept in
 * place on the heap (a ucontext_t points into itself). */
struct emu_fiber_pool {
    std::vector<std::unique_ptr<emu_fiber>> fibers;
    size_t guard = 0;
    ~emu_fiber_pool()
    {
        for (const std::unique_ptr<emu_fiber> &f : fibers)
            munmap(f->stack - guard, guard + EMU_STACK_BYTES);
    }
    emu_fiber &operator[](unsigned i) { return *fibers[i]; }
    void reserve(unsigned threads)
    {
        guard = (size_t)sysconf(_SC_PAGESIZE);
        while (fibers.size() < threads) {
            void *map = mmap(nullptr, guard + EMU_STACK_BYTES, PROT_READ | PROT_WRITE,
                             MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
            std::unique_ptr<emu_fiber> f(new emu_fiber{});
            bool made = map != MAP_FAILED && mprotect(map, guard, PROT_NONE) == 0;
#if !EMU_FAST_SWITCH
            made = made && getcontext(&f->context) == 0;
#endif
            if (!made) {
                std::fprintf(stderr, "cuda_emulate: cannot make a fiber of %zu bytes\n",
                             EMU_STACK_BYTES);
                std::abort();
            }
            f->stack = static_cast<char *>(map) + guard;
            fibers.push_back(std::move(f));
        }
    }
};
inline emu_fiber_pool emu_fibers;

/* Arrives at s and waits for the others: back to the scheduler, which
 * resumes this thread once s's phase has advanced. */
inline void emu_wait(emu_sync &s)
{
    emu_fiber &me = *emu_current;
    me.waiting = &s;
    me.waiting_phase = s.phase;
    if (++s.arrived == s.expected) {
        s.arrived = 0;
        s.phase++;
    }
    emu_to_scheduler(me);
}

inline void __syncthreads()
{
    emu_wait(emu_block_sync);
}

/* A fiber's life: the kernel, then out of the block's barrier (an exited
 * thread no longer counts there, as on the GPU), then back to the
 * scheduler for good. */
inline void emu_fiber_main()
{
    emu_kernel_body(emu_kernel_arg);
    emu_sync &block = emu_block_sync;
    block.expected--;
    if (block.arrived > 0 && block.arrived == block.expected) {
        block.arrived = 0;
        block.phase++;
    }
    emu_current->done = true;
    emu_to_scheduler(*emu_current);
}

/* Runs the block's threads to the end: rounds over the threads, alternately
 * in index order and reversed, each runnable thread to its next meeting
 * point. A round in which no thread can run while some have not exited is
 * a deadlock. */
inline void emu_run_block(unsigned threads, const dim3 &block, bool reverse_first)
{
    for (unsigned t = 0; t < threads; t++) {
        emu_fiber &f = emu_fibers[t];
        f.index = emu_index{t % block.x, (t / block.x) % block.y, t / (block.x * block.y)};
        f.waiting = nullptr;
        f.done = false;
        emu_prepare(f, emu_fiber_main);
    }
    for (unsigned round = reverse_first ? 1 : 0;; round++) {
        bool live = false, ran = false;
        for (unsigned i = 0; i < threads; i++) {
            emu_fiber &f = emu_fibers[round % 2 ? threads - 1 - i : i];
            if (f.done)
                continue;
            live = true;
            if (f.waiting && f.waiting->phase == f.waiting_phase)
                continue;
            f.waiting = nullptr;
            emu_current = &f;
            threadIdx = f.index;
            emu_to_fiber(f);
            ran = true;
        }
        if (!live)
            return;
        if (!ran) {
            std::fprintf(stderr,
                         "cuda_emulate: block (%u, %u, %u) deadlocked: its threads wait at "
                         "barriers that some never reach\n",
                         blockIdx.x, blockIdx.y, blockIdx.z);
            std::abort();
        }
    }
}

struct float4 {
    float x, y, z, w;
};

inline float4 make_float4(float x, float y, float z, float w)
{
    return float4{x, y, z, w};
}

struct float2 {
    float x, y;
};

struct uint4 {
    unsigned x, y, z, w;
};

template <class T> inline T __ldg(const T *p)
{
    return *p;
}

/* A 16-byte vector load: its address must be 16-byte aligned (the device
 * faults otherwise), so a misaligned one stops the test here. */
inline uint4 __ldg(const uint4 *p)
{
    if (reinterpret_cast<uintptr_t>(p) % 16 != 0) {
        std::fprintf(stderr, "emulate: a 16-byte load from %p, off 16 bytes\n", (const void *)p);
        std::abort();
    }
    return *p;
}

inline uint4 __ldcs(const uint4 *p)
{
    return __ldg(p);
}

/* The streaming load (evict first): a plain load here. */
template <class T> inline T __ldcs(const T *p)
{
    return *p;
}

/* PRMT's default mode: byte i of the result is byte (s >> 4i) & 7 of the
 * pair (y:x), x the low four. */
inline unsigned __byte_perm(unsigned x, unsigned y, unsigned s)
{
    const unsigned long long pair = ((unsigned long long)y << 32) | x;
    unsigned r = 0;
    for (int i = 0; i < 4; i++)
        r |= (unsigned)((pair >> (8 * ((s >> (4 * i)) & 7u))) & 0xFFu) << (8 * i);
    return r;
}

inline int min(int a, int b)
{
    return a < b ? a : b;
}

inline unsigned __float_as_uint(float x)
{
    unsigned bits;
    std::memcpy(&bits, &x, sizeof bits);
    return bits;
}

inline float __uint_as_float(unsigned bits)
{
    float x;
    std::memcpy(&x, &bits, sizeof x);
    return x;
}

/* cuda_fp16.h and cuda_bf16.h: the two 16-bit types as their bits, the
 * conversions the kernels use through the library's own (round to nearest
 * even, NaN kept), which the test suite checks against the hardware's
 * rules. */
struct __half {
    uint16_t bits;
};
struct __nv_bfloat16 {
    uint16_t bits;
};

inline __half __ushort_as_half(unsigned short bits)
{
    return __half{bits};
}
inline unsigned short __half_as_ushort(__half h)
{
    return h.bits;
}
inline float __half2float(__half h)
{
    return wl_fp16_to_float(h.bits);
}
inline __half __float2half_rn(float x)
{
    return __half{wl_float_to_fp16(x)};
}
inline unsigned short __bfloat16_as_ushort(__nv_bfloat16 h)
{
    return h.bits;
}
inline __nv_bfloat16 __float2bfloat16_rn(float x)
{
    return __nv_bfloat16{wl_float_to_bf16(x)};
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

/* ------------------------------------------------------------------------ */
/* Warp-wide tensor-core instructions: each lane posts its fragments, the
 * warp meets, each lane computes its own outputs from everyone's fragments
 * (layouts as the PTX ISA gives them), the warp meets again. */

struct emu_mma_post {
    unsigned a[4], b[2];
};
inline std::vector<emu_mma_post> emu_mma_posts; /* one per thread of the block */

inline unsigned emu_thread()
{
    return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}

/* cvt.rna.tf32.f32 */
inline unsigned to_tf32(float x)
{
    const unsigned bits = __float_as_uint(x);
    if (std::isnan(x))
        return bits;
    return (bits + 0x1000u) & ~0x1FFFu;
}

/* get(lane, register, half) -> the element; layout(row, k) and (k, col)
 * give the owning lane, register and half. */
template <int K, class ElementA, class ElementB>
inline void emu_mma(float d[4], const unsigned a[4], const unsigned b[2], ElementA element_a,
                    ElementB element_b)
{
    const unsigned me = emu_thread(), warp = me / 32, lane = me % 32;
    emu_mma_post &post = emu_mma_posts[me];
    std::memcpy(post.a, a, sizeof post.a);
    std::memcpy(post.b, b, sizeof post.b);
    emu_wait(emu_warp_syncs[warp]);
    const emu_mma_post *warp_posts = &emu_mma_posts[warp * 32];
    const unsigned g = lane / 4, t = lane % 4;
    for (int r = 0; r < 4; r++) {
        const unsigned row = g + (r / 2) * 8, col = 2 * t + r % 2;
        float sum = d[r];
        for (unsigned k = 0; k < (unsigned)K; k++)
            sum += element_a(warp_posts, row, k) * element_b(warp_posts, k, col);
        d[r] = sum;
    }
    emu_wait(emu_warp_syncs[warp]);
}

inline void mma_tf32_m16n8k8(float d[4], const unsigned a[4], const unsigned b[2])
{
    /* A: a0 (g, t), a1 (g+8, t), a2 (g, t+4), a3 (g+8, t+4); B: b0 (t, g), b1 (t+4, g). */
    emu_mma<8>(
        d, a, b,
        [](const emu_mma_post *posts, unsigned row, unsigned k) {
            const unsigned lane = (row % 8) * 4 + k % 4, reg = (row / 8) + 2 * (k / 4);
            return __uint_as_float(posts[lane].a[reg] & ~0x1FFFu);
        },
        [](const emu_mma_post *posts, unsigned k, unsigned col) {
            return __uint_as_float(posts[col * 4 + k % 4].b[k / 4] & ~0x1FFFu);
        });
}

inline float emu_bf16(unsigned word, unsigned half)
{
    return wl_bf16_to_float((uint16_t)((word >> (16 * half)) & 0xFFFFu));
}

inline void mma_bf16_m16n8k16(float d[4], const unsigned a[4], const unsigned b[2])
{
    /* A: a0 (g, 2t..), a1 (g+8, 2t..), a2 (g, 2t+8..), a3 (g+8, 2t+8..);
     * B: b0 (2t.., g), b1 (2t+8.., g); the low half holds the lower k. */
    emu_mma<16>(
        d, a, b,
        [](const emu_mma_post *posts, unsigned row, unsigned k) {
            const unsigned lane = (row % 8) * 4 + (k % 8) / 2, reg = (row / 8) + 2 * (k / 8);
            return emu_bf16(posts[lane].a[reg], k % 2);
        },
        [](const emu_mma_post *posts, unsigned k, unsigned col) {
            return emu_bf16(posts[col * 4 + (k % 8) / 2].b[k / 8], k % 2);
        });
}

/* An IEEE half (the low or high 16 bits of a word) as the float it is. */
inline float emu_f16(unsigned word, unsigned half)
{
    return wl_fp16_to_float((uint16_t)((word >> (16 * half)) & 0xFFFFu));
}

/* The same fragment layout as BF16 (the ISA gives one table for both). */
inline void mma_f16_m16n8k16(float d[4], const unsigned a[4], const unsigned b[2])
{
    emu_mma<16>(
        d, a, b,
        [](const emu_mma_post *posts, unsigned row, unsigned k) {
            const unsigned lane = (row % 8) * 4 + (k % 8) / 2, reg = (row / 8) + 2 * (k / 8);
            return emu_f16(posts[lane].a[reg], k % 2);
        },
        [](const emu_mma_post *posts, unsigned k, unsigned col) {
            return emu_f16(posts[col * 4 + (k % 8) / 2].b[k / 8], k % 2);
        });
}

/* __shfl_xor_sync over the whole warp: each lane posts its value, the warp
 * meets, each lane reads its partner's, the warp meets again. */
inline std::vector<float> emu_shfl_posts; /* one per thread of the block */

inline float __shfl_xor_sync(unsigned mask, float value, int lane_mask)
{
    (void)mask;
    const unsigned me = emu_thread(), warp = me / 32, lane = me % 32;
    emu_shfl_posts[me] = value;
    emu_wait(emu_warp_syncs[warp]);
    const float other = emu_shfl_posts[warp * 32 + (lane ^ (unsigned)lane_mask)];
    emu_wait(emu_warp_syncs[warp]);
    return other;
}

/* Runs kernel() as a grid of blocks of threads. */
template <class Kernel>
void emu_launch(dim3 grid, dim3 block, size_t dynamic_smem_bytes, Kernel kernel)
{
    std::vector<float> smem(dynamic_smem_bytes / sizeof(float) + 4);
    gridDim = grid;
    blockDim = block;
    const unsigned threads = block.x * block.y * block.z, warps = (threads + 31) / 32;
    emu_fibers.reserve(threads);
    emu_kernel_body = [](void *k) { (*static_cast<Kernel *>(k))(); };
    emu_kernel_arg = &kernel;
    emu_mma_posts.assign(threads, emu_mma_post{});
    emu_shfl_posts.assign(threads, 0.0f);
    emu_warp_syncs.resize(warps);
    unsigned number = 0;
    for (unsigned bz = 0; bz < grid.z; bz++)
        for (unsigned by = 0; by < grid.y; by++)
            for (unsigned bx = 0; bx < grid.x; bx++) {
                blockIdx = emu_index{bx, by, bz};
                for (float &x : smem)
                    x = std::numeric_limits<float>::quiet_NaN();
                uintptr_t base = reinterpret_cast<uintptr_t>(smem.data());
                emu_dynamic_smem = reinterpret_cast<float *>((base + 15) / 16 * 16);
                emu_block_sync = emu_sync{threads, 0, 0};
                for (unsigned w = 0; w < warps; w++)
                    emu_warp_syncs[w] =
                        emu_sync{threads - 32 * w < 32 ? threads - 32 * w : 32, 0, 0};
                emu_run_block(threads, block, number++ % 2 == 1);
            }
}

#endif
