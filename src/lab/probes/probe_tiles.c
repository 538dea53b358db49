/* The tiles probe (seed 003, 'Transpozice matic', 'Odstranění prokládání':
 * "16 x 16, 32 x 32 and 48 x 48 come into question ... the best size we
 * determine experimentally"): the transpose ladder's padded shared-memory
 * tile swept over tile sides 4..64, the experiment the course names and does
 * not show.
 *
 * Every series is the padded rung's kernel (a TILE x (TILE + 1) tile of
 * floats in shared memory: read a tile in rows, write it out in rows of the
 * transposed matrix, the padding keeping the column reads free of bank
 * conflicts); only the tile side and the block's shape change:
 *   square_block -- a TILE x TILE block, one element a thread (the course's
 *                   launch; a block holds at most 1024 threads today, 512 on
 *                   the course's GTX 280, so TILE <= 32 and 48 x 48 never
 *                   launches in this form);
 *   eight_rows   -- a TILE x min(TILE, 8) block, TILE / 8 elements a thread
 *                   (the transpose ladder's rungs from tiled on).
 * The sides: 4, 8, 16, 32, 48 (the course's third candidate) and 64.
 * Small tiles make short rows (a 4-float row is 16 bytes: a quarter of a
 * 64-byte run of sectors) and tiny blocks; large ones cost shared memory per
 * block and so blocks per SM.
 *
 * Problem: dim[0] = rows, dim[1] = cols (the input is rows x cols, row-major),
 * param = the tile side. */
#include "ladders/ladder_util.h"
#include "probe.h"

#include <math.h>
#include <string.h>

enum { TILES_IN = 0, TILES_OUT };

#define TILE_MAX 64

/* The sides swept; every kernel form is instantiated for these. */
static const long tile_sides[] = {4, 8, 16, 32, 48, 64};
#define TILE_SIDES (sizeof tile_sides / sizeof tile_sides[0])

static int tiles_buffers(const wl_problem *p, wl_buffer_spec *spec)
{
    const size_t n = p->dim[0] * p->dim[1];
    spec[TILES_IN] = (wl_buffer_spec){WL_IN, WARPLAB_FLOAT32, n, -1.0, 1.0};
    spec[TILES_OUT] = (wl_buffer_spec){WL_OUT, WARPLAB_FLOAT32, n, 0.0, 0.0};
    return 2;
}

/* out (cols x rows) must be in transposed, exactly. */
static warplab_status tiles_verify(const wl_problem *p, const void *const *host, wl_check *check)
{
    const float *in = host[TILES_IN], *out = host[TILES_OUT];
    const size_t rows = p->dim[0], cols = p->dim[1];
    for (size_t r = 0; r < rows; r++)
        for (size_t c = 0; c < cols; c++)
            wl_check_value(check, c * rows + r, (double)out[c * rows + r], (double)in[r * cols + c],
                           0.0);
    return check->bad ? WARPLAB_ERROR_VERIFICATION_FAILED : WARPLAB_OK;
}

static double tiles_bytes(const wl_problem *p)
{
    return 8.0 * (double)p->dim[0] * (double)p->dim[1];
}

/* The tile sides both series take (tile_sides), and grids within CUDA's
 * 65535 blocks along y (rows / tile). */
static warplab_status tile_supported(const wl_problem *p, char *reason, size_t len)
{
    const long t = p->param;
    bool known = false;
    for (size_t i = 0; i < TILE_SIDES; i++)
        known = known || tile_sides[i] == t;
    if (!known) {
        wl_format(reason, len, "tile sides are 4, 8, 16, 32, 48 and 64");
        return WARPLAB_ERROR_UNSUPPORTED;
    }
    if ((p->dim[0] + (size_t)t - 1) / (size_t)t > 65535) {
        wl_format(reason, len, "%zu rows need more than 65535 tiles of %ld along y", p->dim[0], t);
        return WARPLAB_ERROR_UNSUPPORTED;
    }
    return WARPLAB_OK;
}

static warplab_status square_supported(const wl_problem *p, const warplab_device_info *device,
                                       char *reason, size_t len)
{
    warplab_status status = tile_supported(p, reason, len);
    if (status != WARPLAB_OK)
        return status;
    /* 1024 threads: CUDA's limit since Fermi, and so the series' on every
     * backend, whatever a device's work-group limit is. */
    long limit = 1024;
    if (device->max_threads_per_block > 0 && device->max_threads_per_block < limit)
        limit = device->max_threads_per_block;
    const long threads = p->param * p->param;
    if (threads > limit) {
        wl_format(reason, len, "a %ld x %ld block is %ld threads, past the %ld a block holds",
                  p->param, p->param, threads, limit);
        return WARPLAB_ERROR_UNSUPPORTED;
    }
    return WARPLAB_OK;
}

static warplab_status rows_supported(const wl_problem *p, const warplab_device_info *device,
                                     char *reason, size_t len)
{
    (void)device;
    return tile_supported(p, reason, len);
}

static const wl_rung tiles_series[] = {
    {.id = "square_block",
     .title = "TILE x TILE threads, one element each",
     .lesson = "The course's launch: one thread per element of the tile, so the tile side "
               "sets the block size too (4 x 4 = 16 threads, half a warp; 32 x 32 = 1024, the "
               "most a block holds; the course's 48 x 48 cannot launch this way).",
     .course = "seed 003, 'Odstranění prokládání'",
     .supports = square_supported},
    {.id = "eight_rows",
     .title = "TILE x 8 threads, TILE / 8 elements each",
     .lesson = "The transpose ladder's shape: eight rows of threads walk the tile, so a large "
               "tile keeps a block of at most 512 threads and each thread moves several "
               "elements.",
     .course = "seed 003, 'Odstranění prokládání'",
     .supports = rows_supported},
};

static void tiles_describe(const wl_problem *p, char *text, size_t len)
{
    wl_format(text, len, "tile %ld, %zux%zu float", p->param, p->dim[0], p->dim[1]);
}

static int tiles_test_problems(const warplab_device_info *device, wl_problem *problems,
                               int capacity)
{
    (void)device;
    static const size_t shapes[][2] = {{100, 37}, {33, 65}, {1, 130}, {129, 1}};
    int count = 0;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (size_t t = 0; t < TILE_SIDES && count < capacity; t++)
            problems[count++] = wl_probe_point(shapes[s][0], shapes[s][1], 0, tile_sides[t]);
    return count;
}

static const wl_ladder tiles_ladder = {
    .name = "tiles",
    .title = "tiles: the padded transpose against its tile side",
    .rungs = tiles_series,
    .rung_count = sizeof tiles_series / sizeof tiles_series[0],
    .describe = tiles_describe,
    .leading_size = wl_probe_leading_size,
    .buffers = tiles_buffers,
    .verify = tiles_verify,
    .bytes = tiles_bytes,
    .test_problems = tiles_test_problems,
};

/* The side of the square matrix: size = its elements (default 2^26, an
 * 8192^2 matrix of 256 MiB, far past L2, on a GPU; 2^20 elsewhere). */
static size_t tiles_side(const warplab_device_info *device, size_t size)
{
    const size_t elements = size ? size : device->gpu ? (size_t)1 << 26 : (size_t)1 << 20;
    size_t side = (size_t)sqrt((double)elements);
    while (side > 1 && side * side > elements)
        side--;
    return side ? side : 1;
}

static int tiles_points(const warplab_device_info *device, size_t size, wl_problem *problems,
                        int capacity)
{
    const size_t side = tiles_side(device, size);
    int count = 0;
    for (size_t t = 0; t < TILE_SIDES && count < capacity; t++)
        problems[count++] = wl_probe_point(side, side, 0, tile_sides[t]);
    return count;
}

static void tiles_setup(const warplab_device_info *device, size_t size, char *text, size_t len)
{
    const size_t side = tiles_side(device, size);
    char bytes[32];
    wl_format_bytes(bytes, sizeof bytes, 4.0 * (double)side * (double)side);
    wl_format(text, len,
              "a %zux%zu float matrix (%s) transposed out of place; tiles of 4..%d floats a "
              "side, padded by one column",
              side, side, bytes, TILE_MAX);
}

/* "best: tile 32 (eight_rows) at 3900 GB/s; square_block's best: tile 16 at
 * 0.93x; eight_rows at tile 4: 0.21x, 8: ..., and the course's three
 * candidates". */
static void tiles_conclude(const warplab_probe_result *r, char *text, size_t len)
{
    text[0] = '\0';
    static const char *const series[] = {"square_block", "eight_rows"};
    const char *best_series = NULL;
    double best_x = 0, best = 0;
    double series_x[2] = {0, 0};
    for (int s = 0; s < 2; s++) {
        double x, v;
        if (!wl_probe_extreme(r, series[s], 1, TILE_MAX, true, &x, &v))
            continue;
        series_x[s] = x;
        if (v > best) {
            best = v;
            best_x = x;
            best_series = series[s];
        }
    }
    if (!best_series) {
        wl_copy_string(text, len, "nothing was measured");
        return;
    }
    wl_append(text, len, "best: tile %.0f (%s) at %.4g GB/s", best_x, best_series, best);
    for (int s = 0; s < 2; s++)
        if (series_x[s] > 0 && strcmp(series[s], best_series) != 0) {
            wl_append(text, len, "; %s's best: tile %.0f at ", series[s], series_x[s]);
            wl_probe_append_ratio(text, len, r, series[s], series_x[s], best_series, best_x);
        }
    wl_append(text, len, "; %s against its best at tile", best_series);
    int listed = 0;
    for (size_t i = 0; i < TILE_SIDES; i++) {
        if ((double)tile_sides[i] == best_x)
            continue;
        wl_append(text, len, "%s %ld: ", listed++ ? "," : "", tile_sides[i]);
        wl_probe_append_ratio(text, len, r, best_series, (double)tile_sides[i], best_series,
                              best_x);
    }
}

static const wl_probe_section tiles_sections[] = {
    {.ladder = &tiles_ladder,
     .name = "tiles",
     .title = "transpose bandwidth against the shared-memory tile's side",
     .x_label = "tile side (floats)",
     .unit = "GB/s",
     .metric = WL_PROBE_BYTES,
     .log_x = true,
     .points = tiles_points},
};

const wl_probe wl_probe_tiles = {
    .name = "tiles",
    .title = "the padded transpose swept over tile sides 4..64, two block shapes",
    .course = "seed 003, 'Odstranění prokládání' (the tile size determined experimentally)",
    .size_meaning = "elements of the square matrix (default 2^26 = 8192^2 on a GPU)",
    .sections = tiles_sections,
    .section_count = 1,
    .setup = tiles_setup,
    .conclude = tiles_conclude,
};
