/* Does compute-sanitizer's initcheck see global memory written by the copy
 * engine (a cp.async.bulk.tensor store)? The gemm_ex epilogue through
 * shared memory and TMA stores gave initcheck 15260 reports while memcheck,
 * racecheck and synccheck were clean and the results were verified
 * (docs/DECISIONS.md, "initcheck does not see the copy engine's writes").
 *
 * The program fills a 64 x 32 FP32 box in shared memory (every element
 * written by a thread first), stores it with one TMA store into an
 * exact-size buffer of ROWS x COLS floats (the box clipped at the edges when
 * the buffer is smaller), then reads the buffer with a kernel and with
 * cudaMemcpy, and checks the values. Run on an sm_90 GPU:
 *
 *   nvcc -arch=sm_90a -o tma-store-initcheck scripts/tma-store-initcheck.cu -lcuda
 *   ./tma-store-initcheck                 # TMA store, 64 x 32: must print "ok"
 *   ./tma-store-initcheck edge            # TMA store clipped to 50 x 28
 *   ./tma-store-initcheck plain           # st.global instead (the control)
 *   compute-sanitizer --tool initcheck ./tma-store-initcheck [edge|plain]
 *   compute-sanitizer --tool initcheck --check-bulk-copy yes ./tma-store-initcheck
 *
 * If initcheck reports the TMA runs and not the plain one, the tool does not
 * track the copy engine's writes, and its reports on gemm_ex's TMA-stored
 * C (or partial sums) say nothing about the library. Not built by CMake. */
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define BOX_ROWS 64
#define BOX_COLS 32

__global__ void store_box_tma(const __grid_constant__ CUtensorMap map)
{
    __shared__ __align__(1024) float box[BOX_ROWS * BOX_COLS];
    for (int i = threadIdx.x; i < BOX_ROWS * BOX_COLS; i += blockDim.x)
        box[i] = (float)i;
    /* The threads' writes made visible to the copy engine (async proxy). */
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();
    if (threadIdx.x == 0) {
        const uint32_t src = (uint32_t)__cvta_generic_to_shared(box);
        asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];\n"
                     "cp.async.bulk.commit_group;\n"
                     "cp.async.bulk.wait_group 0;\n" ::"l"((uint64_t)&map),
                     "r"(src), "r"(0), "r"(0)
                     : "memory");
    }
}

__global__ void store_box_plain(float *out, int rows, int cols)
{
    for (int i = threadIdx.x; i < rows * cols; i += blockDim.x)
        out[i] = (float)(i / cols * BOX_COLS + i % cols);
}

__global__ void sum_buffer(const float *in, int count, double *sum)
{
    if (threadIdx.x == 0) {
        double s = 0;
        for (int i = 0; i < count; i++)
            s += in[i];
        *sum = s;
    }
}

int main(int argc, char **argv)
{
    const bool plain = argc > 1 && strcmp(argv[1], "plain") == 0;
    const bool edge = argc > 1 && strcmp(argv[1], "edge") == 0;
    const int rows = edge ? 50 : BOX_ROWS,
              cols = edge ? 28 : BOX_COLS; /* rows of 16-byte multiples */
    float *out;
    double *sum;
    if (cudaMalloc(&out, (size_t)rows * cols * sizeof(float)) != cudaSuccess ||
        cudaMalloc(&sum, sizeof(double)) != cudaSuccess) {
        printf("FAILED: cudaMalloc\n");
        return 1;
    }
    if (plain) {
        store_box_plain<<<1, 128>>>(out, rows, cols);
    } else {
        CUtensorMap map;
        const cuuint64_t dims[2] = {(cuuint64_t)cols, (cuuint64_t)rows};
        const cuuint64_t strides[1] = {(cuuint64_t)cols * sizeof(float)};
        const cuuint32_t box[2] = {BOX_COLS, BOX_ROWS}, element_strides[2] = {1, 1};
        const CUresult r = cuTensorMapEncodeTiled(
            &map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, out, dims, strides, box, element_strides,
            CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
            CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
        if (r != CUDA_SUCCESS) {
            printf("FAILED: cuTensorMapEncodeTiled: %d\n", (int)r);
            return 1;
        }
        store_box_tma<<<1, 128>>>(map);
    }
    sum_buffer<<<1, 32>>>(out, rows * cols, sum);
    static float host[BOX_ROWS * BOX_COLS];
    double device_sum = 0, expected = 0;
    cudaMemcpy(host, out, (size_t)rows * cols * sizeof(float), cudaMemcpyDeviceToHost);
    cudaMemcpy(&device_sum, sum, sizeof(double), cudaMemcpyDeviceToHost);
    const cudaError_t e = cudaDeviceSynchronize();
    int wrong = 0;
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++) {
            const float want = (float)(r * BOX_COLS + c);
            expected += want;
            wrong += host[r * cols + c] != want;
        }
    const bool ok = e == cudaSuccess && wrong == 0 && device_sum == expected;
    printf("%s: %s store of %d x %d: %d wrong, device sum %.0f (expected %.0f), %s\n",
           ok ? "ok" : "FAILED", plain ? "st.global" : "TMA", rows, cols, wrong, device_sum,
           expected, cudaGetErrorString(e));
    return ok ? 0 : 1;
}
