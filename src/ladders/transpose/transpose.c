/* The matrix-transpose ladder (seed 003, 'Transpozice matic'): out = in^T
 * for a row-major rows x cols matrix of floats or doubles, out of place, with
 * optional pitches (see transpose_layout.h).
 *
 * A transpose does no arithmetic: its speed of light is a copy of the same
 * bytes. The course climbs from a naive kernel whose writes are strided
 * (5.3 GB/s on a GTX 280) through shared-memory tiles (75.1) and padded tiles
 * without bank conflicts (93.4) to the speed of its copy, and warns that the
 * matrix size decides which optimisation shows (4000 vs 4096: partition
 * camping). warplab climbs the same ladder, adds diagonal block ordering and
 * a 16-byte-access kernel past the course, and measures cuBLAS beside it. */
#include "../../core/context.h"
#include "../ladder_util.h"
#include "kernels/transpose_layout.h"
#include "ladders/device_reference.h"
#include "ladders/ladders.h"
#include "ops/ops.h"

#include <math.h>
#include <string.h>

enum { TRANSPOSE_IN = 0, TRANSPOSE_OUT };

/* Columns of the input checked together: the output rows they land in stay
 * in the host's cache while the input is read row by row. */
#define VERIFY_BLOCK 32

/* Every rung reads and writes each element once. */
static double transpose_bytes(const wl_problem *p)
{
    return 2.0 * (double)p->dim[0] * (double)p->dim[1] * (double)warplab_dtype_size(p->dtype);
}

static int transpose_buffers(const wl_problem *p, wl_buffer_spec *spec)
{
    const wl_transpose_layout m = wl_transpose_layout_of(p);
    spec[TRANSPOSE_IN] = (wl_buffer_spec){WL_IN, p->dtype, m.rows * m.ld_in, -1.0, 1.0};
    spec[TRANSPOSE_OUT] = (wl_buffer_spec){WL_OUT, p->dtype, m.cols * m.ld_out, 0.0, 0.0};
    return 2;
}

/* Output element i still holds the harness's poison, bit for bit. */
static bool still_poison(const void *out, size_t element_size, size_t i)
{
    if (element_size == 4)
        return ((const uint32_t *)out)[i] == WL_POISON_PATTERN;
    const uint64_t poison = (uint64_t)WL_POISON_PATTERN << 32 | WL_POISON_PATTERN;
    return ((const uint64_t *)out)[i] == poison;
}

/* Pitch padding belongs to the caller: a rung that wrote it fails, whatever
 * it wrote (a NaN included, which a value compare against the poison NaN
 * would let pass). */
static void check_padding(wl_check *check, const wl_problem *p, const void *out, size_t i)
{
    check->checked++;
    if (still_poison(out, warplab_dtype_size(p->dtype), i))
        return;
    if (check->bad++ == 0) {
        check->first_bad = i;
        check->got = wl_element(out, p->dtype, i);
        check->expected = NAN; /* "untouched" */
    }
    check->worst_ratio = INFINITY;
}

typedef struct transpose_check {
    const wl_problem *p;
    wl_transpose_layout m;
    const void *in, *out;
} transpose_check;

/* out[c][r] == in[r][c] exactly (a transpose moves bits), and the padding
 * after each output row is untouched: a block of VERIFY_BLOCK columns a
 * task, on every core. */
static void check_columns(size_t task, wl_check *check, const void *user)
{
    const transpose_check *t = user;
    const wl_transpose_layout m = t->m;
    const size_t c0 = task * VERIFY_BLOCK;
    const size_t c1 = c0 + VERIFY_BLOCK < m.cols ? c0 + VERIFY_BLOCK : m.cols;
    for (size_t r = 0; r < m.ld_out; r++)
        for (size_t c = c0; c < c1; c++) {
            const size_t at = c * m.ld_out + r;
            if (r < m.rows)
                wl_check_value(check, at, wl_element(t->out, t->p->dtype, at),
                               wl_element(t->in, t->p->dtype, r * m.ld_in + c), 0.0);
            else
                check_padding(check, t->p, t->out, at);
        }
}

static warplab_status transpose_verify(const wl_problem *p, const void *const *host,
                                       wl_check *check)
{
    transpose_check t = {p, wl_transpose_layout_of(p), host[TRANSPOSE_IN], host[TRANSPOSE_OUT]};
    wl_check_parallel((t.m.cols + VERIFY_BLOCK - 1) / VERIFY_BLOCK, check_columns, &t, check);
    return check->bad ? WARPLAB_ERROR_VERIFICATION_FAILED : WARPLAB_OK;
}

/* The copy rungs write the input's rows x cols, tight, at the start of the
 * output buffer; the rest of it must stay untouched. A block of rows a task;
 * the last task checks the rest. */
#define COPY_ROWS 64
static void check_copy_rows(size_t task, wl_check *check, const void *user)
{
    const transpose_check *t = user;
    const wl_transpose_layout m = t->m;
    const size_t r0 = task * COPY_ROWS;
    if (r0 >= m.rows) {
        for (size_t i = m.rows * m.cols; i < m.cols * m.ld_out; i++)
            check_padding(check, t->p, t->out, i);
        return;
    }
    const size_t r1 = r0 + COPY_ROWS < m.rows ? r0 + COPY_ROWS : m.rows;
    for (size_t r = r0; r < r1; r++)
        for (size_t c = 0; c < m.cols; c++)
            wl_check_value(check, r * m.cols + c, wl_element(t->out, t->p->dtype, r * m.cols + c),
                           wl_element(t->in, t->p->dtype, r * m.ld_in + c), 0.0);
}

static warplab_status copy_verify(const wl_problem *p, const void *const *host, wl_check *check)
{
    transpose_check t = {p, wl_transpose_layout_of(p), host[TRANSPOSE_IN], host[TRANSPOSE_OUT]};
    wl_check_parallel((t.m.rows + COPY_ROWS - 1) / COPY_ROWS + 1, check_copy_rows, &t, check);
    return check->bad ? WARPLAB_ERROR_VERIFICATION_FAILED : WARPLAB_OK;
}

/* The rung warplab_transpose() runs (the library operation): the fastest
 * measured at the default sizes. Any rung with a cuda and an opencl form
 * will do; change it here after a GPU run. */
#define TRANSPOSE_BEST_RUNG "vectorized_out"

#define COURSE_TRANSPOSE "seed 003, 'Transpozice matic'"

static const wl_rung transpose_rungs[] = {
    {.id = "cpu_loop",
     .title = "CPU double loop, one core",
     .lesson = "The host loop out[c][r] = in[r][c]: reads walk a row, writes jump a whole output "
               "row each step, so nearly every write misses the cache. The baseline of 'GPU vs "
               "CPU'.",
     .course = COURSE_TRANSPOSE,
     .flags = WL_RUNG_HOST},
    {.id = "cpu_blocked",
     .title = "CPU 64x64 blocks, all cores",
     .lesson = "The CPU's own tiling: 64x64 blocks whose output rows stay in cache while the "
               "block is written, spread over every core. The same idea as the GPU's shared-"
               "memory tiles, with the cache as the tile.",
     .course = "seed 003, 'GPU vs. CPU'",
     .flags = WL_RUNG_HOST},
    {.id = "copy",
     .title = "copy, 16-byte accesses (reference)",
     .lesson = "The same bytes moved without reordering: the speed of light of a transpose. "
               "The course's copy moved one float per thread; this one moves 16-byte vectors, "
               "several in flight per thread, so it is the ceiling on today's GPUs.",
     .course = COURSE_TRANSPOSE,
     .course_value = 112.4,
     .course_unit = "GB/s",
     .course_device = "GTX 280",
     .flags = WL_RUNG_REFERENCE,
     .flops = wl_zero_work,
     .verify = copy_verify},
    {.id = "copy_shared",
     .title = "copy through a shared-memory tile",
     .lesson = "The copy with the tiled kernel's shape: a 32x32 tile through shared memory, "
               "32x8 threads, a barrier. What a tiled transpose can hope for; the course found "
               "it 16% below the plain copy.",
     .course = COURSE_TRANSPOSE,
     .course_value = 94.9,
     .course_unit = "GB/s",
     .course_device = "GTX 280",
     .flags = WL_RUNG_OFF_LADDER,
     .flops = wl_zero_work,
     .verify = copy_verify},
    {.id = "copy_strided",
     .title = "copy, reads and writes strided",
     .lesson = "The copy with threads walking down columns: every access of a warp lands in a "
               "different row, so neither side coalesces. The course's 'strided idata too' "
               "figure: half the naive transpose, which is strided on one side only.",
     .course = COURSE_TRANSPOSE,
     .course_value = 2.7,
     .course_unit = "GB/s",
     .course_device = "GTX 280",
     .flags = WL_RUNG_OFF_LADDER,
     .flops = wl_zero_work,
     .verify = copy_verify},
    {.id = "naive",
     .title = "naive, writes strided",
     .lesson = "The course's mtran: a thread per element (32 x 32 blocks, one element each), "
               "threads along input rows. Reads of a warp are one contiguous row; its writes go "
               "to 32 different output rows, one transaction each.",
     .course = COURSE_TRANSPOSE,
     .course_value = 5.3,
     .course_unit = "GB/s",
     .course_device = "GTX 280"},
    {.id = "naive_mirror",
     .title = "naive mirrored, reads strided",
     .lesson = "Threads along input columns instead: writes coalesce, reads stride. The "
               "bytes are the same; which side a GPU forgives more (caches can reuse the lines "
               "a strided read fetched, partial writes must be merged) is what this row shows.",
     .course = COURSE_TRANSPOSE},
    {.id = "tiled",
     .title = "32x32 shared-memory tiles",
     .lesson = "A 32x32 tile is read row by row into shared memory and written out row by row "
               "from its columns: both global sides coalesce. Reading a tile column hits one "
               "bank 32 times: bank conflicts. From here on a block is 32 x 8 threads, four "
               "elements each (the course's block was the tile, one element a thread; `warplab "
               "probe tiles` measures both shapes).",
     .course = COURSE_TRANSPOSE,
     .course_value = 75.1,
     .course_unit = "GB/s",
     .course_device = "GTX 280"},
    {.id = "padded",
     .title = "padded tiles [32][33]: no conflicts",
     .lesson = "One unused column per tile row shifts each row by one bank, so a tile column "
               "spans all 32 banks: the conflicts are gone at the cost of 32 floats.",
     .course = COURSE_TRANSPOSE,
     .course_value = 93.4,
     .course_unit = "GB/s",
     .course_device = "GTX 280"},
    {.id = "diagonal",
     .title = "padded tiles, diagonal block order",
     .lesson = "Blocks take tiles along diagonals, so blocks running together read and write "
               "different memory partitions: the usual cure for the partition camping the "
               "course warns of at 4096x4096 (not 4000x4000). Both sizes show if HBM cares.",
     .course = "seed 003, 'Význam optimalizací' (partition camping)"},
    {.id = "vectorized",
     .title = "16-byte accesses, 4x4 in registers",
     .lesson = "Each thread reads a 4x4 block as four 16-byte rows, transposes it in registers "
               "and writes four 16-byte rows; a warp's accesses fill whole 32-byte sectors. No "
               "shared memory, no barrier. Pitches not a multiple of 16 bytes take the padded "
               "kernel.",
     .course = "past the course (Hopper: 16-byte accesses, bytes in flight)"},
    {.id = "vectorized_strip",
     .title = "16-byte, a strip of tiles per block",
     .lesson = "Over vectorized: a block takes 4 tiles (2 of doubles) down a column, and a "
               "thread issues all 16 of its 16-byte loads before its first store: 4x the bytes "
               "in flight per thread, a quarter of the blocks, 1 KB of each output row from "
               "one block.",
     .course = "past the course (Hopper: bytes in flight)"},
    /* Past vectorized: at 8192^2 and 16384^2 it falls to 92-94% of the copy
     * while cuBLAS climbs to 97%. Four block orders were compared in one run
     * on an H200 (docs/DECISIONS.md, "Blocks along output rows is the library's
     * transpose"): vectorized_out won at every size (98-99% of
     * the copy, 1.01-1.07x cuBLAS) and is the rung warplab_transpose() uses;
     * the three after it stay off the ladder as measured dead ends. */
    {.id = "vectorized_out",
     .title = "16-byte, blocks along output rows",
     .lesson = "Over vectorized: consecutive blocks take the tiles down a column of the input, "
               "which sit side by side along the same output rows. The blocks running at once "
               "write a few output rows in long runs (and read many input rows in short ones) "
               "instead of writing every output row a few hundred bytes at a time.",
     .course = "past the course (block order against DRAM page misses)"},
    {.id = "vectorized_grouped",
     .title = "16-byte, grouped block order",
     .lesson = "Over vectorized: tiles dealt in bands 32 tiles tall, walked column by column, so "
               "the ~1000 blocks a Hopper GPU runs at once cover a near-square patch: about 2K "
               "input rows read and 2K output rows written, 8 KiB of each at a time, whatever "
               "the matrix size. The diagonal rung's idea (spread the running blocks well), "
               "aimed at DRAM pages rather than partitions.",
     .course = "past the course (block order against DRAM page misses)",
     .flags = WL_RUNG_OFF_LADDER},
    {.id = "grouped_strip",
     .title = "16-byte, grouped, 2 tiles per block",
     .lesson = "Over vectorized_grouped: a block takes 2 tiles down a column (bands 16 items "
               "tall: the same patch), so it writes 512 B runs of each output row it touches "
               "and a thread has 8 16-byte loads in flight before its first store.",
     .course = "past the course (block order, bytes in flight)",
     .flags = WL_RUNG_OFF_LADDER},
    {.id = "persistent",
     .title = "grouped, persistent grid, prefetch",
     .lesson = "Over vectorized_grouped: only as many blocks as the GPU holds at once, each "
               "looping over tiles in the grouped order and issuing the loads of its next tile "
               "before the stores of this one: loads stay in flight while stores drain, and no "
               "block ends and restarts.",
     .course = "past the course (persistent grid, software pipelining)",
     .flags = WL_RUNG_OFF_LADDER},
    {.id = "library",
     .title = "warplab_transpose: the library call",
     .lesson =
         "The top of the climb as a program calls it: the rung warplab_transpose runs for this "
         "problem on this backend, the first of the operation's candidates that takes it "
         "(src/ops/transpose.c: vectorized_out on cuda, the host loops on cpu), so its row matches "
         "that rung's and its note "
         "names the rung. Timed here as every rung is; `warplab bench api` times the public "
         "call itself, with its checks, beside the vendor.",
     .course = "the library (include/warplab.h)",
     .op = &wl_transpose_op},
    {.id = "cublas",
     .title = "cuBLAS geam (vendor)",
     .lesson = "cublasSgeam/cublasDgeam computing C = op(A) with op = transpose, alpha 1, beta "
               "0: NVIDIA's own transpose, timed in the same run.",
     .course = "vendor library",
     .flags = WL_RUNG_VENDOR},
};

static warplab_status transpose_make_problem(const size_t size[3], int dims, const char *dtype,
                                             const char *op, wl_problem *problem, char *error,
                                             size_t error_len)
{
    if (op && *op) {
        wl_format(error, error_len, "transpose has no --op (asked for '%s')", op);
        return WARPLAB_ERROR_INVALID_ARGUMENT;
    }
    warplab_dtype type = WARPLAB_FLOAT32;
    if (dtype && *dtype &&
        (warplab_dtype_parse(dtype, &type) != WARPLAB_OK ||
         (type != WARPLAB_FLOAT32 && type != WARPLAB_FLOAT64))) {
        wl_format(error, error_len, "transpose moves float or double elements (asked for '%s')",
                  dtype);
        return WARPLAB_ERROR_INVALID_ARGUMENT;
    }
    if (dims < 1 || dims > 2) {
        wl_format(error, error_len,
                  "the transpose ladder takes ROWSxCOLS (or one number for a square), not %d "
                  "sizes",
                  dims);
        return WARPLAB_ERROR_INVALID_ARGUMENT;
    }
    memset(problem, 0, sizeof *problem);
    problem->dim[0] = size[0];
    problem->dim[1] = dims == 2 ? size[1] : size[0];
    problem->dims = 2;
    problem->dtype = type;
    if (!wl_transpose_fits(problem->dim[0], problem->dim[1], problem->dim[1], problem->dim[0],
                           warplab_dtype_size(type))) {
        wl_format(error, error_len, "%zux%zu %s is too large to address", problem->dim[0],
                  problem->dim[1], warplab_dtype_name(type));
        return WARPLAB_ERROR_INVALID_ARGUMENT;
    }
    return WARPLAB_OK;
}

/* "4000x4000 float", "33x31 double ld 36/40 misaligned" */
static void transpose_describe(const wl_problem *p, char *text, size_t len)
{
    const wl_transpose_layout m = wl_transpose_layout_of(p);
    char pitch[64] = "";
    if (m.ld_in != m.cols || m.ld_out != m.rows)
        wl_format(pitch, sizeof pitch, " ld %zu/%zu", m.ld_in, m.ld_out);
    wl_format(text, len, "%zux%zu %s%s%s", m.rows, m.cols, warplab_dtype_name(p->dtype), pitch,
              p->misalign ? " misaligned" : "");
}

static double transpose_leading_size(const wl_problem *p)
{
    return (double)p->dim[0] * (double)p->dim[1];
}

/* ------------------------------------------------------------------------ */
/* Test problems                                                            */

typedef struct problem_list {
    wl_problem *problems;
    int count, capacity;
} problem_list;

static void add_problem(problem_list *list, size_t rows, size_t cols, warplab_dtype dtype,
                        size_t ld_in, size_t ld_out, size_t misalign)
{
    if (list->count >= list->capacity)
        return;
    wl_problem *p = &list->problems[list->count++];
    memset(p, 0, sizeof *p);
    p->dim[0] = rows;
    p->dim[1] = cols;
    p->dims = 2;
    p->ld[0] = ld_in;
    p->ld[1] = ld_out;
    p->dtype = dtype;
    p->misalign = misalign;
}

static size_t round_up4(size_t x)
{
    return (x + 3) / 4 * 4;
}

/* The test shapes, each in float and double:
 * - small and odd shapes (empty, 1x1, 1xN, Nx1, primes, non-multiples of the
 *   32- and 64-element tiles and of the 4-element vectors) in five layouts:
 *   tight, tight misaligned, odd pitches, 16-byte pitches, 16-byte pitches
 *   misaligned (the vector kernel's phase shift);
 * - the large shapes (3001x4000, 4000x4000, 4096x4096) tight;
 * - on a GPU the large shapes pitched and misaligned too, and 8192x8192
 *   (both types) and 16384x16384 (float only: the doubles' host-side work
 *   dominated the GPU test's time); a CPU device would take minutes, and
 *   PoCL cannot allocate 1 GiB buffers;
 * - on a CPU device (the cpu backend, PoCL) medium shapes pitched and
 *   misaligned instead of the large ones: 2500x300 crosses a band of the
 *   ordered rungs (32 item rows of 64: 2048 rows) into a partial band with
 *   several item columns, and 300x4500 has rows of two of the row copy's
 *   work-groups (4096 floats) in both types. They reach the paths the
 *   pitched large shapes reach (tile, vector, strip, band and work-group
 *   edges, the persistent loop; no 32-bit limit is near either) with a
 *   ninth of their data. */
static int transpose_test_problems(const warplab_device_info *device, wl_problem *problems,
                                   int capacity)
{
    static const size_t small[][2] = {
        {0, 5},   {1, 1},   {1, 7},    {7, 1},    {2, 3},      {5, 0},      {31, 37},    {33, 31},
        {32, 32}, {64, 64}, {65, 129}, {127, 66}, {1, 100003}, {100003, 1}, {257, 1000},
    };
    static const warplab_dtype types[] = {WARPLAB_FLOAT32, WARPLAB_FLOAT64};
    problem_list list = {problems, 0, capacity};
    for (size_t s = 0; s < sizeof small / sizeof small[0]; s++)
        for (int t = 0; t < 2; t++) {
            const size_t rows = small[s][0], cols = small[s][1];
            const size_t wide_in = round_up4(cols + 1) + 4, wide_out = round_up4(rows + 1) + 8;
            add_problem(&list, rows, cols, types[t], 0, 0, 0);
            add_problem(&list, rows, cols, types[t], 0, 0, 1);
            add_problem(&list, rows, cols, types[t], cols + 3, rows + 1, 0);
            add_problem(&list, rows, cols, types[t], wide_in, wide_out, 0);
            add_problem(&list, rows, cols, types[t], wide_in, wide_out, 1);
        }
    static const size_t large[][2] = {{3001, 4000}, {4000, 4000}, {4096, 4096}};
    for (size_t s = 0; s < sizeof large / sizeof large[0]; s++)
        for (int t = 0; t < 2; t++)
            add_problem(&list, large[s][0], large[s][1], types[t], 0, 0, 0);
    if (!device || !device->gpu) {
        /* 16-byte pitches (the vector kernel), odd pitches (its fallback), misaligned. */
        add_problem(&list, 2500, 300, WARPLAB_FLOAT32, 308, 2512, 1);
        add_problem(&list, 2500, 300, WARPLAB_FLOAT64, 308, 2512, 1);
        add_problem(&list, 2500, 300, WARPLAB_FLOAT32, 0, 0, 1);
        add_problem(&list, 300, 4500, WARPLAB_FLOAT32, 4508, 312, 1);
        add_problem(&list, 300, 4500, WARPLAB_FLOAT64, 4503, 301, 0);
        return list.count;
    }
    /* 16-byte pitches (the vector kernel), odd pitches (its fallback), misaligned. */
    add_problem(&list, 4000, 4000, WARPLAB_FLOAT32, 4100, 4096, 1);
    add_problem(&list, 4000, 4000, WARPLAB_FLOAT64, 4001, 4010, 0);
    add_problem(&list, 3001, 4000, WARPLAB_FLOAT32, 0, 0, 1);
    add_problem(&list, 8192, 8192, WARPLAB_FLOAT32, 0, 0, 0);
    add_problem(&list, 8192, 8192, WARPLAB_FLOAT64, 0, 0, 0);
    add_problem(&list, 8192, 8192, WARPLAB_FLOAT32, 8200, 8196, 1);
    /* Float only: 16384^2 doubles (2 GiB a buffer) cost minutes of host
     * work per rung for no index the 8192^2 doubles and 16384^2 floats
     * do not already reach. */
    add_problem(&list, 16384, 16384, WARPLAB_FLOAT32, 0, 0, 0);
    return list.count;
}

const wl_ladder wl_transpose_ladder = {
    .name = "transpose",
    .title = "matrix transpose (seed 003)",
    .rungs = transpose_rungs,
    .rung_count = sizeof transpose_rungs / sizeof transpose_rungs[0],
    .make_problem = transpose_make_problem,
    .default_sizes_gpu = "4000x4000,4096x4096,8192x8192,16384x16384",
    .default_sizes_cpu = "2000x2000,2048x2048",
    .describe = transpose_describe,
    .leading_size = transpose_leading_size,
    .buffers = transpose_buffers,
    .verify = transpose_verify,
    .bytes = transpose_bytes,
    .flops = wl_zero_work,
    .best_rung = TRANSPOSE_BEST_RUNG,
    .test_problems = transpose_test_problems,
    .device_reference = wl_transpose_device_reference,
};

/* The device reference (device_reference.h): the transpose, or the copy rows'
 * tight copy, both exact, with the padding untouched. */
void wl_transpose_device_reference(const wl_rung *rung, const wl_problem *problem,
                                   wl_reference_request *request)
{
    if (problem->dtype != WARPLAB_FLOAT32 && problem->dtype != WARPLAB_FLOAT64)
        return;
    if (!rung->verify)
        request->kind = WL_REFERENCE_TRANSPOSE;
    else if (rung->verify == copy_verify)
        request->kind = WL_REFERENCE_TRANSPOSE_COPY;
}
