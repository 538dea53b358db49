/* Can the copy engine (TMA) load a box of 16-bit elements in the 128-byte
 * swizzle at an inner coordinate that is not a multiple of 16 bytes? One
 * load of a 64 x 8 box of a 200 x 8 FP16 matrix (rows of 208 elements, on
 * 16 bytes) at inner coordinate X, then the box's first elements printed.
 * With a second argument J the map is entry J of a kernel parameter of 8
 * maps (the others copies), as a struct of maps passes them.
 *
 * Measured (H200, one process a run, since a fault ends the context):
 * X = 0, 8, 64 load the right elements; X = 1 and X = 3 are an illegal
 * instruction (cudaErrorIllegalInstruction), also from entry 5 of the
 * struct of 8 maps, whose X = 0 and 8 load right. So reading an operand
 * whose rows are off 16 bytes through maps whose bases are moved back to 16
 * bytes (row phases) needs an extra step: the box loaded at the aligned
 * coordinate and its rows shifted in shared memory.
 *
 * Build (from the repository root):
 *   nvcc -O2 -arch=sm_90a -I scripts -o tma_coordinate_probe \
 *     scripts/tma_coordinate_probe.cu -lcuda
 * Run: for a in 0 8 3 "0 5" "3 5"; do ./tma_coordinate_probe $a; done */
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "cuda_check.h"

struct maps8 {
    CUtensorMap map[8];
};

__device__ void load_box(const CUtensorMap *map, int x, unsigned short *out)
{
    __shared__ __align__(1024) unsigned short tile[64 * 8];
    __shared__ __align__(8) unsigned long long bar;
    const unsigned b = (unsigned)__cvta_generic_to_shared(&bar),
                   t = (unsigned)__cvta_generic_to_shared(tile);
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(b));
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(b), "r"(1024));
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes "
                 "[%0], [%1, {%3, %4}], [%2];" ::"r"(t),
                 "l"((uint64_t)map), "r"(b), "r"(x), "r"(0)
                 : "memory");
    asm volatile("{\n.reg .pred p;\nW: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n"
                 "@!p bra W;\n}" ::"r"(b));
    for (int i = 0; i < 64 * 8; i++)
        out[i] = tile[i];
}

__global__ void load(const __grid_constant__ CUtensorMap map, int x, unsigned short *out)
{
    load_box(&map, x, out);
}

__global__ void load8(const __grid_constant__ maps8 maps, int j, int x, unsigned short *out)
{
    load_box(&maps.map[j], x, out);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s X [J]\n", argv[0]);
        return 2;
    }
    const int x = atoi(argv[1]);
    const int cols = 200, rows = 8, ld = 208;
    unsigned short *a, *o;
    CHECK_CUDA(cudaMalloc(&a, ld * rows * 2));
    CHECK_CUDA(cudaMalloc(&o, 64 * 8 * 2));
    unsigned short h[208 * 8];
    for (int i = 0; i < ld * rows; i++)
        h[i] = (unsigned short)i;
    CHECK_CUDA(cudaMemcpy(a, h, sizeof h, cudaMemcpyHostToDevice));
    CUtensorMap map;
    const cuuint64_t dims[2] = {(cuuint64_t)cols, (cuuint64_t)rows},
                     strides[1] = {(cuuint64_t)ld * 2};
    const cuuint32_t box[2] = {64, 8}, element_strides[2] = {1, 1};
    const CUresult r = cuTensorMapEncodeTiled(
        &map, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, a, dims, strides, box, element_strides,
        CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
        CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (argc > 2) {
        maps8 m8;
        for (int j = 0; j < 8; j++)
            m8.map[j] = map;
        load8<<<1, 1>>>(m8, atoi(argv[2]), x, o);
    } else {
        load<<<1, 1>>>(map, x, o);
    }
    const cudaError_t e = cudaDeviceSynchronize();
    unsigned short g[512] = {0};
    if (e == cudaSuccess)
        CHECK_CUDA(cudaMemcpy(g, o, sizeof g, cudaMemcpyDeviceToHost));
    /* Row 0's first 16-byte chunk is not swizzled (chunk 0 ^ row 0). */
    printf("x=%d encode=%d kernel=%s row0[0..3]=%d %d %d %d (want %d..)\n", x, (int)r,
           cudaGetErrorString(e), g[0], g[1], g[2], g[3], x);
    return e != cudaSuccess;
}
