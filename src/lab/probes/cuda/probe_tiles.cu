/* The tiles probe: the padded shared-memory transpose (the transpose
 * ladder's padded rung) with its tile side and block shape as template
 * parameters. */
#include "probe_cuda.h"

enum { TILES_IN = 0, TILES_OUT };

/* A TILE x TILE tile of in (rows x cols) goes through shared memory, padded
 * by one column so that reading a column touches 32 different banks, and
 * leaves as a tile of out (cols x rows) in rows. The block is TILE x ROWS
 * threads: each walks the tile's rows ROWS apart. Edge tiles are guarded on
 * both sides, so any rows and cols work. */
template <int TILE, int ROWS>
__global__ void __launch_bounds__(TILE *ROWS)
    probe_tiles(const float *in, float *out, size_t rows, size_t cols)
{
    __shared__ float tile[TILE][TILE + 1];
    const size_t x = (size_t)blockIdx.x * TILE + threadIdx.x;
    const size_t y = (size_t)blockIdx.y * TILE + threadIdx.y;
    if (x < cols)
#pragma unroll
        for (int j = 0; j < TILE; j += ROWS)
            if (y + j < rows)
                tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];
    __syncthreads();
    const size_t ox = (size_t)blockIdx.y * TILE + threadIdx.x; /* along out's rows (= in's rows) */
    const size_t oy = (size_t)blockIdx.x * TILE + threadIdx.y; /* out's row (= in's column) */
    if (ox < rows)
#pragma unroll
        for (int j = 0; j < TILE; j += ROWS)
            if (oy + j < cols)
                out[(oy + j) * rows + ox] = tile[threadIdx.x][threadIdx.y + j];
}

template <int TILE, int ROWS>
static warplab_status launch_tiles(wl_backend *backend, const wl_launch *launch)
{
    const size_t rows = launch->problem->dim[0], cols = launch->problem->dim[1];
    const dim3 grid((unsigned)((cols + TILE - 1) / TILE), (unsigned)((rows + TILE - 1) / TILE));
    probe_tiles<TILE, ROWS><<<grid, dim3(TILE, ROWS), 0, wl_cuda_stream(backend)>>>(
        view_of<const float>(launch, TILES_IN), view_of<float>(launch, TILES_OUT), rows, cols);
    return WL_CUDA_LAUNCHED(backend, "probe tiles");
}

/* The side's instance; the probe's supports() admits only these sides. */
template <bool SQUARE>
static warplab_status launch_side(wl_backend *backend, const wl_launch *launch)
{
    switch (launch->problem->param) {
    case 4: return launch_tiles<4, 4>(backend, launch);
    case 8: return launch_tiles<8, 8>(backend, launch);
    case 16: return launch_tiles < 16, SQUARE ? 16 : 8 > (backend, launch);
    case 32: return launch_tiles < 32, SQUARE ? 32 : 8 > (backend, launch);
    case 48: return launch_tiles<48, 8>(backend, launch);
    case 64: return launch_tiles<64, 8>(backend, launch);
    default:
        return wl_fail(backend, WARPLAB_ERROR_UNSUPPORTED, "probe tiles: no kernel for tile %ld",
                       launch->problem->param);
    }
}

static warplab_status launch_square_block(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    if (launch->problem->param > 32)
        return wl_fail(backend, WARPLAB_ERROR_UNSUPPORTED,
                       "probe tiles: a %ld x %ld block is past 1024 threads",
                       launch->problem->param, launch->problem->param);
    return launch_side<true>(backend, launch);
}

static warplab_status launch_eight_rows(wl_backend *backend, const wl_launch *launch, void *state)
{
    (void)state;
    return launch_side<false>(backend, launch);
}

extern "C" {
const wl_impl wl_cuda_probe_square_block = {
    .ladder = "tiles", .rung = "square_block", .launch = launch_square_block};
const wl_impl wl_cuda_probe_eight_rows = {
    .ladder = "tiles", .rung = "eight_rows", .launch = launch_eight_rows};
}
