/* Reference row copy (seed 003, 'Transpozice matic': the copy the course
 * measures a transpose against).
 *
 * The same bytes moved without reordering: the speed of light of a
 * transpose. The course's copy moved one float per thread; this one moves
 * 16-byte vectors, several in flight per thread, so that it is the ceiling
 * on today's GPUs. Its kernel is its own (no other rung uses it). */
#include "transpose_rungs.cuh"

namespace
{

/* The copy reference: rows of cols elements from in (pitch ld_in) to out
 * (pitch out_pitch). A block takes COPY_UNROLL x 256 16-byte vectors of a
 * row, all loads issued before the first store. The row's head (until both
 * sides reach a 16-byte boundary) and tail go element by element; a row whose
 * two sides can never be aligned together goes element by element. */
constexpr int COPY_THREADS = 256;
constexpr int COPY_UNROLL = 4;

template <typename T>
__global__ void __launch_bounds__(COPY_THREADS)
    copy_rows(const T *__restrict__ in, T *__restrict__ out, size_t rows, size_t cols, size_t ld_in,
              size_t out_pitch)
{
    using vec = typename vector16<T>::type;
    constexpr unsigned per_vector = sizeof(vec) / sizeof(T);
    const size_t first = (size_t)blockIdx.x * COPY_THREADS * COPY_UNROLL; /* vector or element */
    for (size_t r = blockIdx.y; r < rows; r += gridDim.y) {
        const T *src = in + r * ld_in;
        T *dst = out + r * out_pitch;
        const unsigned phase = (unsigned)((uintptr_t)src / sizeof(T) % per_vector);
        if (phase == (unsigned)((uintptr_t)dst / sizeof(T) % per_vector)) {
            size_t head = (per_vector - phase) % per_vector;
            head = head < cols ? head : cols;
            const size_t vectors = (cols - head) / per_vector;
            const vec *s = reinterpret_cast<const vec *>(src + head);
            vec *d = reinterpret_cast<vec *>(dst + head);
            vec buffer[COPY_UNROLL];
#pragma unroll
            for (int u = 0; u < COPY_UNROLL; u++) {
                const size_t q = first + (size_t)u * COPY_THREADS + threadIdx.x;
                if (q < vectors)
                    buffer[u] = s[q];
            }
#pragma unroll
            for (int u = 0; u < COPY_UNROLL; u++) {
                const size_t q = first + (size_t)u * COPY_THREADS + threadIdx.x;
                if (q < vectors)
                    d[q] = buffer[u];
            }
            const size_t tail = head + vectors * per_vector; /* cols - tail < per_vector */
            if (blockIdx.x == 0 && threadIdx.x < head)
                dst[threadIdx.x] = src[threadIdx.x];
            if (blockIdx.x == 0 && threadIdx.x < cols - tail)
                dst[tail + threadIdx.x] = src[tail + threadIdx.x];
        } else {
            for (unsigned u = 0; u < COPY_UNROLL * per_vector; u++) {
                const size_t e = first * per_vector + (size_t)u * COPY_THREADS + threadIdx.x;
                if (e < cols)
                    dst[e] = src[e];
            }
        }
    }
}

/* Rung copy (reference): rows of the input to tight rows of the output. A
 * tight input is one long row, so the whole matrix streams as one array. */
template <typename T>
warplab_status copy_on(wl_backend *backend, const wl_transpose_layout &m, const void *in, void *out)
{
    size_t rows = m.rows, cols = m.cols;
    if (m.ld_in == m.cols) {
        cols = m.rows * m.cols;
        rows = 1;
    }
    const size_t per_block = (size_t)COPY_THREADS * COPY_UNROLL * (16 / sizeof(T));
    dim3 grid;
    warplab_status status = tile_grid(backend, tiles_of(cols, per_block), rows, &grid);
    if (status != WARPLAB_OK)
        return status;
    copy_rows<T><<<grid, COPY_THREADS, 0, wl_cuda_stream(backend)>>>(
        static_cast<const T *>(in), static_cast<T *>(out), rows, cols, m.ld_in, cols);
    return WL_CUDA_LAUNCHED(backend, "transpose copy");
}

const wl_impl copy_impl = {
    .ladder = "transpose", .rung = "copy", .launch = launch_typed<copy_on<float>, copy_on<double>>};

} // namespace
