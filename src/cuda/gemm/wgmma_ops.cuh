/* PTX wrappers for the TMA + wgmma kernels (sm_90a): the m64n256 warpgroup
 * MMAs with their 128 accumulator registers, mbarrier waits and arrivals
 * (in this CTA and across a cluster), the bulk tensor copies (loads, the
 * multicast load, stores), and the epilogue that stages C in shared memory
 * for the copy engine. Included by *.sm90a.cu files only.
 *
 * The accumulator lists are long but regular: register i of a thread holds
 * D[warp * 16 + lane / 4 + 8 * ((i / 2) % 2)][8 * (i / 4) + 2 * (lane % 4) + i % 2]
 * of the warpgroup's 64 x 256 tile. */
#ifndef WARPLAB_WGMMA_OPS_CUH
#define WARPLAB_WGMMA_OPS_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>
#include <string.h>
#include <type_traits>

/* The accumulator registers of an m64nN wgmma (N / 2 a thread): the
 * register list in the instruction and the matching operands, for N = 64,
 * 128 and 256, each list the one before it and the next registers (N =
 * 96 below). */
#define WGMMA_D32_REGISTERS                                                                        \
    "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, "   \
    "%20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
#define WGMMA_D32_OPERANDS(d)                                                                      \
    "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),            \
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),    \
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), \
        "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), \
        "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
#define WGMMA_D64_REGISTERS                                                                        \
    WGMMA_D32_REGISTERS                                                                            \
    ", %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, "      \
    "%49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
#define WGMMA_D64_OPERANDS(d)                                                                      \
    WGMMA_D32_OPERANDS(d), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]),        \
        "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), \
        "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), \
        "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), \
        "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
#define WGMMA_D128_REGISTERS                                                                       \
    WGMMA_D64_REGISTERS                                                                            \
    ", %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, "      \
    "%81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, "        \
    "%98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, "     \
    "%113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"
#define WGMMA_D128_OPERANDS(d)                                                                     \
    WGMMA_D64_OPERANDS(d), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]),        \
        "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), \
        "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), \
        "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), \
        "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), \
        "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]),           \
        "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]),        \
        "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]),        \
        "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]),        \
        "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]),        \
        "+f"(d[127])

/* N = 96 (the swapped product's tile, wgmma_ex.sm90a.cu). */
#define WGMMA_D48_REGISTERS                                                                        \
    WGMMA_D32_REGISTERS                                                                            \
        ", %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47"
#define WGMMA_D48_OPERANDS(d)                                                                      \
    WGMMA_D32_OPERANDS(d), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]),        \
        "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), \
        "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47])

/* D(64 x 256) (+)= A(64 x K) * B(K x 256), both K-major in shared memory,
 * by descriptor; accumulate = 0 overwrites D. TAIL: the immediates after
 * the scale of D (scale A, scale B, and for 16-bit types the transposes). */
#define WGMMA_M64N256(name, instruction, tail)                                                     \
    __device__ __forceinline__ void name(float(&d)[128], uint64_t desc_a, uint64_t desc_b,         \
                                         int accumulate)                                           \
    {                                                                                              \
        asm volatile("{\n"                                                                         \
                     ".reg .pred accumulate;\n"                                                    \
                     "setp.ne.b32 accumulate, %130, 0;\n" instruction " {" WGMMA_D128_REGISTERS    \
                     "}, %128, %129, accumulate, " tail ";\n"                                      \
                     "}\n"                                                                         \
                     : WGMMA_D128_OPERANDS(d)                                                      \
                     : "l"(desc_a), "l"(desc_b), "r"(accumulate));                                 \
    }

/* BF16 operands, K = 16. */
WGMMA_M64N256(wgmma_m64n256k16_bf16, "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16",
              "1, 1, 0, 0")
/* FP16 operands, K = 16 (warplab_gemm_ex). */
WGMMA_M64N256(wgmma_m64n256k16_f16, "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16",
              "1, 1, 0, 0")
/* TF32 operands (FP32 words whose low 13 bits the tensor cores ignore), K = 8. */
WGMMA_M64N256(wgmma_m64n256k8_tf32, "wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32", "1, 1")

/* Keeps the compiler from moving accumulator accesses across the
 * asynchronous wgmma region (wgmma.fence before, wait_group after). */
__device__ __forceinline__ void wgmma_pin(float (&d)[128])
{
#pragma unroll
    for (int i = 0; i < 128; i++)
        asm volatile("" : "+f"(d[i])::"memory");
}

__device__ __forceinline__ void wgmma_fence()
{
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}

__device__ __forceinline__ void wgmma_commit()
{
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}

template <int PENDING> __device__ __forceinline__ void wgmma_wait()
{
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(PENDING) : "memory");
}

/* Shared-memory descriptor of a K-major operand in the 128-byte swizzle
 * the copy engine writes: rows of 128 bytes, 8-row groups 1024 bytes apart
 * (stride byte offset), the tile 1024-byte aligned (base offset 0). The
 * leading byte offset is unused in this mode (the k extent of one wgmma,
 * 32 bytes, stays within a row); a k step within the row adds its byte
 * offset to the start address, and the hardware applies the swizzle to the
 * address it forms. */
__device__ __forceinline__ uint64_t wgmma_descriptor_sw128(uint32_t smem_address)
{
    uint64_t desc = (uint64_t)((smem_address & 0x3FFFF) >> 4);
    desc |= (uint64_t)1 << 16;           /* leading byte offset (unused): 16 bytes */
    desc |= (uint64_t)(1024 >> 4) << 32; /* stride byte offset: next 8 rows */
    desc |= (uint64_t)1 << 62;           /* layout: 128-byte swizzle */
    return desc;
}

__device__ __forceinline__ uint32_t smem_address(const void *p)
{
    return (uint32_t)__cvta_generic_to_shared(p);
}

__device__ __forceinline__ void mbarrier_init(uint32_t bar, unsigned count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}

/* Makes the initialised barriers visible to the copy engine (async proxy). */
__device__ __forceinline__ void mbarrier_init_fence()
{
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}

/* Waits until the barrier's phase with this parity has completed. */
__device__ __forceinline__ void mbarrier_wait(uint32_t bar, uint32_t parity)
{
    asm volatile("{\n"
                 ".reg .pred done;\n"
                 "WAIT:\n"
                 "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
                 "@!done bra WAIT;\n"
                 "}\n" ::"r"(bar),
                 "r"(parity)
                 : "memory");
}

__device__ __forceinline__ void mbarrier_arrive(uint32_t bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}

/* Arrives and tells the barrier to expect this many bytes from copies. */
__device__ __forceinline__ void mbarrier_arrive_expect_bytes(uint32_t bar, uint32_t bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes)
                 : "memory");
}

/* The copy engine copies the box at (inner, outer) of a 2-D tensor map to
 * shared memory (zero-filling what lies outside the tensor) and counts its
 * bytes on the barrier. */
__device__ __forceinline__ void tma_load_2d(uint32_t dst, const void *tensor_map, uint32_t bar,
                                            int inner, int outer)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes "
                 "[%0], [%1, {%3, %4}], [%2];\n" ::"r"(dst),
                 "l"((uint64_t)tensor_map), "r"(bar), "r"(inner), "r"(outer)
                 : "memory");
}

/* The same from a 3-D tensor map: the box at (inner, outer) of plane
 * `plane` (a matrix of a batch). */
__device__ __forceinline__ void tma_load_3d(uint32_t dst, const void *tensor_map, uint32_t bar,
                                            int inner, int outer, int plane)
{
    asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes "
                 "[%0], [%1, {%3, %4, %5}], [%2];\n" ::"r"(dst),
                 "l"((uint64_t)tensor_map), "r"(bar), "r"(inner), "r"(outer), "r"(plane)
                 : "memory");
}

__device__ __forceinline__ void tma_prefetch_descriptor(const void *tensor_map)
{
    asm volatile("prefetch.tensormap [%0];\n" ::"l"((uint64_t)tensor_map) : "memory");
}

/* ------------------------------------------------------------------------ */
/* Thread-block clusters                                                    */

/* This CTA's rank in its cluster, the cluster's index in the grid and the
 * grid's count of clusters (x dimension). */
__device__ __forceinline__ uint32_t cluster_ctarank()
{
    uint32_t rank;
    asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(rank));
    return rank;
}

__device__ __forceinline__ uint32_t cluster_index_x()
{
    uint32_t index;
    asm volatile("mov.u32 %0, %%clusterid.x;\n" : "=r"(index));
    return index;
}

__device__ __forceinline__ uint32_t cluster_count_x()
{
    uint32_t count;
    asm volatile("mov.u32 %0, %%nclusterid.x;\n" : "=r"(count));
    return count;
}

/* Every thread of every CTA of the cluster meets here: what each wrote
 * before (its barriers' initialisation, its arrivals on a peer's barriers)
 * is visible to all after (release, acquire). Not .aligned: callable where
 * a warp's threads have diverged (the producer's idle lanes). */
__device__ __forceinline__ void cluster_sync()
{
    asm volatile("barrier.cluster.arrive.release;\n"
                 "barrier.cluster.wait.acquire;\n" ::
                     : "memory");
}

/* Waits on a barrier of this CTA that other CTAs of the cluster arrive on:
 * what they did before arriving is visible after (acquire at cluster scope). */
__device__ __forceinline__ void mbarrier_wait_cluster(uint32_t bar, uint32_t parity)
{
    asm volatile("{\n"
                 ".reg .pred done;\n"
                 "WAIT:\n"
                 "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 done, [%0], %1;\n"
                 "@!done bra WAIT;\n"
                 "}\n" ::"r"(bar),
                 "r"(parity)
                 : "memory");
}

/* Arrives on the barrier at the same offset as `bar` in the cluster's CTA
 * of rank `rank` (this one included), relaxed: no memory fence. A thread
 * may arrive on a peer's barrier, never wait on it. For an empty barrier
 * only: the stage's readers were wgmma groups that wgmma.wait_group has
 * already retired, so no access of this thread is left to order before
 * the producer's copy into the stage. The release form (.release.cluster)
 * compiles to MEMBAR.ALL.CTA + MEMBAR.ALL.GPU before the arrive, twice a
 * stage: ncu put 4.3 membar stalls an issued instruction on the cluster
 * rung (none on the TMA-store rung), which ran at 0.47x cublas_bf16 at
 * 4096^3; relaxed, 0.99x (H100). */
__device__ __forceinline__ void mbarrier_arrive_cluster(uint32_t bar, uint32_t rank)
{
    asm volatile("{\n"
                 ".reg .b32 remote;\n"
                 "mapa.shared::cluster.u32 remote, %0, %1;\n"
                 "mbarrier.arrive.relaxed.cluster.shared::cluster.b64 _, [remote];\n"
                 "}\n" ::"r"(bar),
                 "r"(rank)
                 : "memory");
}

/* tma_load_2d into every CTA of ctaMask (bit r: rank r): the box lands at
 * the offset `dst` in each, and each one's barrier at the offset `bar` is
 * credited with the box's bytes. */
__device__ __forceinline__ void tma_load_2d_multicast(uint32_t dst, const void *tensor_map,
                                                      uint32_t bar, int inner, int outer,
                                                      uint16_t cta_mask)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
                 ".multicast::cluster [%0], [%1, {%3, %4}], [%2], %5;\n" ::"r"(dst),
                 "l"((uint64_t)tensor_map), "r"(bar), "r"(inner), "r"(outer), "h"(cta_mask)
                 : "memory");
}

/* ------------------------------------------------------------------------ */
/* C through shared memory and the copy engine                              */

/* A consumer warpgroup's 128 threads meet at a named barrier of their own
 * (1 + consumer; 0 is __syncthreads). */
__device__ __forceinline__ void consumer_sync(int consumer)
{
    asm volatile("bar.sync %0, 128;\n" ::"r"(1 + consumer) : "memory");
}

/* C's box (32 columns x 64 rows, at column x, row y, plane z) from shared
 * memory to global memory, past the edges clipped by the copy engine; one
 * bulk group a box. */
__device__ __forceinline__ void tma_store_3d(const void *tensor_map, uint32_t src, int x, int y,
                                             int z)
{
    asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [%0, {%2, %3, %4}], [%1];\n"
                 "cp.async.bulk.commit_group;\n" ::"l"((uint64_t)tensor_map),
                 "r"(src), "r"(x), "r"(y), "r"(z)
                 : "memory");
}

/* The block's shared memory must outlive the stores that read it: the
 * thread that issued them waits for all before it exits. */
__device__ __forceinline__ void tma_store_drain()
{
    asm volatile("cp.async.bulk.wait_group 0;\n" ::: "memory");
}

/* The 16 accumulator registers [16 j, 16 j + 16) of a consumer thread (its
 * 32-column slice j of the tile) into a staging buffer of 64 rows x 128
 * bytes in the copy engine's 128-byte swizzle (16-byte chunk c of row r at
 * c ^ (r % 8)): a warp's 8-byte stores fall in distinct banks. */
template <int N>
__device__ __forceinline__ void stage_c_slice(const float (&acc)[N], int j, uint32_t buffer,
                                              int warp, int g, int q, float scale)
{
#pragma unroll
    for (int i = 16 * j; i < 16 * j + 16; i += 2) {
        const int r = warp * 16 + g + 8 * ((i / 2) % 2), col = 8 * ((i / 4) % 4) + 2 * q;
        const uint32_t address =
            buffer + (uint32_t)r * 128 + (uint32_t)(((col / 4) ^ g) << 4) + (uint32_t)(col % 4) * 4;
        asm volatile("st.shared.v2.f32 [%0], {%1, %2};\n" ::"r"(address), "f"(scale * acc[i]),
                     "f"(scale * acc[i + 1])
                     : "memory");
    }
}

/* stage_c_slice for a 16-bit C: the results, times scale, rounded to
 * nearest (T16: __nv_bfloat16 or __half) into a staging buffer of 64 rows x
 * 64 bytes in the copy engine's 64-byte swizzle (16-byte chunk c of row r
 * at c ^ ((r / 2) % 4)): a warp's 4-byte stores fall in distinct banks. */
template <typename T16, int N>
__device__ __forceinline__ void stage_c16_slice(const float (&acc)[N], int j, uint32_t buffer,
                                                int warp, int g, int q, float scale)
{
#pragma unroll
    for (int i = 16 * j; i < 16 * j + 16; i += 2) {
        const int r = warp * 16 + g + 8 * ((i / 2) % 2), col = 8 * ((i / 4) % 4) + 2 * q;
        const uint32_t address = buffer + (uint32_t)r * 64 +
                                 (uint32_t)(((col / 8) ^ ((r / 2) % 4)) << 4) +
                                 (uint32_t)(col % 8) * 2;
        uint32_t bits;
        if constexpr (std::is_same<T16, __nv_bfloat16>::value) {
            const __nv_bfloat162 v = __floats2bfloat162_rn(scale * acc[i], scale * acc[i + 1]);
            memcpy(&bits, &v, sizeof bits);
        } else {
            const __half2 v = __floats2half2_rn(scale * acc[i], scale * acc[i + 1]);
            memcpy(&bits, &v, sizeof bits);
        }
        asm volatile("st.shared.b32 [%0], %1;\n" ::"r"(address), "r"(bits) : "memory");
    }
}

/* A consumer's 64 x (N / 2) results, times scale, to C's tensor map at
 * (column x, row y, plane z), as OUT: float (tma_encode_c's map), or a
 * 16-bit C (tma_encode_c16's, slices of 4 KiB): 32 columns at a time through two 8 KiB
 * staging buffers (1024-byte aligned, `staging` and staging + 8192), so
 * the copy engine writes whole lines while the warpgroup goes on (to the
 * next tile's main loop after the last slice). A buffer is rewritten only
 * once the store that read it two slices ago is done reading; the stores
 * still in flight are the caller's to drain (tma_store_drain) before the
 * block exits. `signals`: the warpgroup's one thread that issues. */
template <typename OUT = float, int N>
__device__ __forceinline__ void store_c_tile(const float (&acc)[N], const void *map_c,
                                             uint32_t staging, int consumer, int warp, int lane,
                                             bool signals, int x, int y, int z, float scale)
{
#pragma unroll
    for (int j = 0; j < N / 16; j++) {
        const uint32_t buffer = staging + (uint32_t)(j % 2) * 8192;
        if (signals) /* the store of slice j - 2 has read the buffer */
            asm volatile("cp.async.bulk.wait_group.read 1;\n" ::: "memory");
        consumer_sync(consumer);
        if constexpr (std::is_same<OUT, float>::value)
            stage_c_slice(acc, j, buffer, warp, lane / 4, lane % 4, scale);
        else
            stage_c16_slice<OUT>(acc, j, buffer, warp, lane / 4, lane % 4, scale);
        /* The copy engine (async proxy) sees the threads' writes. */
        asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
        consumer_sync(consumer);
        if (signals)
            tma_store_3d(map_c, buffer, x + 32 * j, y, z);
    }
}

#endif
