/* The GEMM grid (`warplab bench gemm --grid`, include/warplab_lab.h): the
 * planner judged on shapes it was not tuned on.
 *
 * Tuning and judging are kept apart. The planner's constants
 * (src/kernels/gemm_plan.c) were fitted on its tuning set,
 * wl_gemm_plan_tuning_set(): the Llama-3-8B-like decode layers of
 * scripts/gemm_decode_bench.c (m = 1, 2, 7, 8, 16, 24, 32; n x k = 1024,
 * 4096, 6144, 28672 x 4096 and 4096 x 14336), with the ladder's shape set
 * (`warplab bench gemm --shapes`) behind the older choosers' constants;
 * the 16-bit tile model's (gemm_tiles16.c: the waves of a row of tiles,
 * stream-K's shares, the paths for rows not 16-byte aligned) on the fixed
 * shapes of scripts/gemm_tile_tuning.sh (prefill with partial last waves,
 * decode past one wave, odd squares, tall-skinny and large k), and the
 * stream-K constants on the H100 shapes of docs/DECISIONS.md ("Stream-K in
 * warplab_gemm_ex's 16-bit kernel"). This grid is the held-out
 * validation: its shapes are drawn at random from a seed, and no constant
 * is ever fitted on them.
 *
 * Every cell is one call of warplab_gemm_ex as a CUDA program makes it (its
 * own cudaMalloc'd operands, its own stream) and cublasGemmEx on the same
 * contract, timed in turn in the same run (events, warm-up, the median of
 * several, L2 flushed before each), C checked against the double-precision
 * reference (src/ladders/gemm_check.c). */
#include "../ladders/gemm.h"
#include "core/context.h"
#include "ops/ops.h"
#ifdef WARPLAB_HAVE_CUDA
#include "cuda/gemm_grid_cuda.h"
#endif

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* The cells a seed draws                                                   */

/* The LLM dimensions decode and prefill draw n and k from: the hidden and
 * MLP sizes of Llama-2/3-class models (7B-70B) and their GQA projections. */
static const size_t llm_dims[] = {1024, 4096, 5120, 6144, 8192, 11008, 13824, 14336, 28672};
#define LLM_DIMS (sizeof llm_dims / sizeof llm_dims[0])

typedef enum shape_class {
    CLASS_DECODE = 0,  /* m 1..32: m = 1 and an odd m always among them */
    CLASS_PREFILL,     /* m 100..8192 (log-uniform): an odd m always among them */
    CLASS_SQUARE,      /* m = n = k, 64..1024: an odd side always among them */
    CLASS_LARGE_K,     /* m, n 16..512, k 8192..65536 */
    CLASS_TALL_SKINNY, /* m 8192..65536, n 8..256, k 64..4096 */
    CLASS_COUNT
} shape_class;

static const struct {
    const char *name;
    int shapes; /* drawn a seed */
} classes[CLASS_COUNT] = {
    {"decode", 5}, {"prefill", 4}, {"square", 2}, {"large_k", 2}, {"tall_skinny", 2}};

/* Precision x output type, and the layouts each is crossed with. */
static const struct {
    warplab_dtype ab, c;
    warplab_compute compute;
    bool every_layout; /* all four (FP32 compute on float); else N,N and N,T */
} combos[] = {
    {WARPLAB_FLOAT32, WARPLAB_FLOAT32, WARPLAB_COMPUTE_FP32, true},
    {WARPLAB_FLOAT32, WARPLAB_FLOAT32, WARPLAB_COMPUTE_TF32, false},
    {WARPLAB_BFLOAT16, WARPLAB_FLOAT32, WARPLAB_COMPUTE_FP32, false},
    {WARPLAB_BFLOAT16, WARPLAB_BFLOAT16, WARPLAB_COMPUTE_FP32, false},
    {WARPLAB_FLOAT16, WARPLAB_FLOAT32, WARPLAB_COMPUTE_FP32, false},
    {WARPLAB_FLOAT16, WARPLAB_FLOAT16, WARPLAB_COMPUTE_FP32, false},
};
#define COMBOS (sizeof combos / sizeof combos[0])

#define MAX_DRAWS 64

static size_t uniform(wl_rng *rng, size_t lo, size_t hi)
{
    return lo + (size_t)(wl_rng_next(rng) % (uint64_t)(hi - lo + 1));
}

static size_t log_uniform(wl_rng *rng, size_t lo, size_t hi)
{
    const double x =
        exp(log((double)lo) + wl_rng_uniform(rng) * (log((double)hi) - log((double)lo)));
    const size_t v = (size_t)llround(x);
    return v < lo ? lo : v > hi ? hi : v;
}

static size_t llm_dim(wl_rng *rng)
{
    return llm_dims[wl_rng_next(rng) % LLM_DIMS];
}

/* An odd number in [lo, hi] near v. */
static size_t odd_in(size_t v, size_t lo, size_t hi)
{
    v |= 1;
    return v > hi ? (hi % 2 ? hi : hi - 1) : v < lo ? (lo % 2 ? lo : lo + 1) : v;
}

/* One shape of a class; index: its place among the class's shapes (the
 * first ones carry the class's fixed requirements). */
static void draw_shape(wl_rng *rng, shape_class c, int index, size_t dims[3])
{
    switch (c) {
    case CLASS_DECODE:
        dims[0] = index == 0   ? 1
                  : index == 1 ? odd_in(uniform(rng, 3, 31), 3, 31)
                               : uniform(rng, 2, 32);
        dims[1] = llm_dim(rng);
        dims[2] = llm_dim(rng);
        break;
    case CLASS_PREFILL:
        dims[0] = log_uniform(rng, 100, 8192);
        if (index == 0)
            dims[0] = odd_in(dims[0], 101, 8191);
        dims[1] = llm_dim(rng);
        dims[2] = llm_dim(rng);
        break;
    case CLASS_SQUARE:
        dims[0] = uniform(rng, 64, 1024);
        if (index == 0)
            dims[0] = odd_in(dims[0], 65, 1023);
        dims[1] = dims[2] = dims[0];
        break;
    case CLASS_LARGE_K:
        dims[0] = uniform(rng, 16, 512);
        dims[1] = uniform(rng, 16, 512);
        dims[2] = uniform(rng, 8192, 65536);
        break;
    default:
        dims[0] = uniform(rng, 8192, 65536);
        dims[1] = uniform(rng, 8, 256);
        dims[2] = uniform(rng, 64, 4096);
        break;
    }
}

/* Bytes of the shape's operands in FP32 (its largest types): A, B and two
 * Cs (warplab's and cuBLAS's). */
static double shape_bytes(const size_t d[3])
{
    return 4.0 * ((double)d[0] * (double)d[2] + (double)d[2] * (double)d[1] +
                  2.0 * (double)d[0] * (double)d[1]);
}

static double shape_flops(const size_t d[3])
{
    return 2.0 * (double)d[0] * (double)d[1] * (double)d[2];
}

static bool shape_fits(const size_t d[3])
{
    return shape_bytes(d) <= (double)WARPLAB_GEMM_GRID_MAX_BYTES &&
           shape_flops(d) <= (double)WARPLAB_GEMM_GRID_MAX_FLOPS;
}

warplab_status warplab_gemm_grid_make(unsigned long long seed, warplab_gemm_grid **out)
{
    wl_detached_error_clear();
    if (!out)
        return wl_detached_fail(WARPLAB_ERROR_INVALID_ARGUMENT,
                                "warplab_gemm_grid_make: the grid pointer is NULL");
    *out = NULL;
    if (seed == 0)
        seed = WARPLAB_GEMM_GRID_SEED;
    size_t shapes = 0, per_shape = 0;
    for (int c = 0; c < CLASS_COUNT; c++)
        shapes += (size_t)classes[c].shapes;
    for (size_t i = 0; i < COMBOS; i++)
        per_shape += combos[i].every_layout ? 4 : 2;
    warplab_gemm_grid *grid = calloc(1, sizeof *grid);
    warplab_gemm_grid_cell *cells = calloc(shapes * per_shape, sizeof *cells);
    size_t(*dims)[3] = calloc(shapes, sizeof *dims);
    bool *fits = calloc(shapes, sizeof *fits);
    if (!grid || !cells || !dims || !fits) {
        free(grid);
        free(cells);
        free(dims);
        free(fits);
        return wl_detached_fail(WARPLAB_ERROR_HOST_OUT_OF_MEMORY, "warplab_gemm_grid_make");
    }
    /* The shapes: each class's, drawn again (the same stream) until within
     * the caps, at most MAX_DRAWS times. */
    wl_rng rng;
    wl_rng_seed(&rng, seed);
    size_t s = 0;
    for (int c = 0; c < CLASS_COUNT; c++)
        for (int i = 0; i < classes[c].shapes; i++, s++) {
            for (int draw = 0; draw < MAX_DRAWS && !fits[s]; draw++) {
                draw_shape(&rng, (shape_class)c, i, dims[s]);
                fits[s] = shape_fits(dims[s]);
            }
        }
    /* The cross product: combination, layout, then shape. */
    size_t count = 0;
    for (size_t t = 0; t < COMBOS; t++)
        for (int layout = 0; layout < 4; layout++) {
            const warplab_op op_a = layout & 2 ? WARPLAB_OP_T : WARPLAB_OP_N;
            const warplab_op op_b = layout & 1 ? WARPLAB_OP_T : WARPLAB_OP_N;
            if (op_a == WARPLAB_OP_T && !combos[t].every_layout)
                continue;
            s = 0;
            for (int c = 0; c < CLASS_COUNT; c++)
                for (int i = 0; i < classes[c].shapes; i++, s++) {
                    warplab_gemm_grid_cell *cell = &cells[count++];
                    wl_copy_string(cell->shape_class, sizeof cell->shape_class, classes[c].name);
                    cell->m = dims[s][0];
                    cell->n = dims[s][1];
                    cell->k = dims[s][2];
                    cell->op_a = op_a;
                    cell->op_b = op_b;
                    cell->ab_type = combos[t].ab;
                    cell->c_type = combos[t].c;
                    cell->compute = combos[t].compute;
                    if (!fits[s]) {
                        cell->flags = WARPLAB_ROW_SKIPPED;
                        cell->status = WARPLAB_ERROR_UNSUPPORTED;
                        wl_format(cell->note, sizeof cell->note,
                                  "past the grid's caps (%.2f GB of operands, at most %.2f; %.3g "
                                  "flops, at most %.3g) after %d draws",
                                  shape_bytes(dims[s]) / 1e9,
                                  (double)WARPLAB_GEMM_GRID_MAX_BYTES / 1e9, shape_flops(dims[s]),
                                  (double)WARPLAB_GEMM_GRID_MAX_FLOPS, MAX_DRAWS);
                    }
                }
        }
    free(dims);
    free(fits);
    grid->cells = cells;
    grid->count = count;
    grid->seed = seed;
    *out = grid;
    return WARPLAB_OK;
}

/* The strided-batched table (`warplab bench gemm --batched`): attention's
 * per-head products. Q K^T: m = n = the sequence, k = the head size, op_b
 * = T (K stored seq x head); P V: m = the sequence, n = the head size, k =
 * the sequence, op_b = N (V stored seq x head). */
static const size_t batched_counts[] = {8, 32, 96};
static const size_t batched_seqs[] = {128, 256, 512, 1024, 2048, 4096};
static const size_t batched_heads[] = {64, 128};
static const struct {
    warplab_dtype ab, c;
} batched_combos[] = {{WARPLAB_BFLOAT16, WARPLAB_BFLOAT16},
                      {WARPLAB_BFLOAT16, WARPLAB_FLOAT32},
                      {WARPLAB_FLOAT16, WARPLAB_FLOAT16},
                      {WARPLAB_FLOAT16, WARPLAB_FLOAT32}};
#define ARRAY_COUNT(x) (sizeof(x) / sizeof((x)[0]))

/* A batched cell's bytes: every matrix of A, B and two Cs in their types. */
static double batched_cell_bytes(const warplab_gemm_grid_cell *c)
{
    const double in = (double)warplab_dtype_size(c->ab_type),
                 out = (double)warplab_dtype_size(c->c_type);
    const double m = (double)c->m, n = (double)c->n, k = (double)c->k;
    return (double)c->batch * ((m * k + k * n) * in + 2.0 * m * n * out);
}

/* One batched cell: product 0 is Q K^T, 1 is P V; past the table's cap it
 * is marked skipped, with the reason. */
static void batched_cell(warplab_gemm_grid_cell *cell, int product, size_t batch, size_t seq,
                         size_t head, warplab_dtype ab, warplab_dtype c)
{
    cell->batch = batch;
    wl_format(cell->shape_class, sizeof cell->shape_class, "%s x%zu", product == 0 ? "QK^T" : "PV",
              batch);
    cell->m = seq;
    cell->n = product == 0 ? seq : head;
    cell->k = product == 0 ? head : seq;
    cell->op_a = WARPLAB_OP_N;
    cell->op_b = product == 0 ? WARPLAB_OP_T : WARPLAB_OP_N;
    cell->ab_type = ab;
    cell->c_type = c;
    cell->compute = WARPLAB_COMPUTE_FP32;
    if (batched_cell_bytes(cell) > (double)WARPLAB_GEMM_BATCHED_MAX_BYTES) {
        cell->flags = WARPLAB_ROW_SKIPPED;
        cell->status = WARPLAB_ERROR_UNSUPPORTED;
        wl_format(cell->note, sizeof cell->note,
                  "past the table's cap (%.2f GB of operands, at most %.2f)",
                  batched_cell_bytes(cell) / 1e9, (double)WARPLAB_GEMM_BATCHED_MAX_BYTES / 1e9);
    }
}

/* A batched table of count cells, zeroed (grid->cells set, count not):
 * NULL where memory runs out. */
static warplab_gemm_grid *batched_grid_alloc(size_t count)
{
    warplab_gemm_grid *grid = calloc(1, sizeof *grid);
    warplab_gemm_grid_cell *cells = calloc(count, sizeof *cells);
    if (!grid || !cells) {
        free(grid);
        free(cells);
        return NULL;
    }
    grid->cells = cells;
    return grid;
}

/* The seeded draws (warplab_gemm_batched_grid_draw): shapes a product. */
#define BATCHED_DRAWS 12
static const size_t batched_drawn_heads[] = {64, 80, 96, 128};

warplab_status warplab_gemm_batched_grid_draw(unsigned long long seed, warplab_gemm_grid **out)
{
    wl_detached_error_clear();
    if (!out)
        return wl_detached_fail(WARPLAB_ERROR_INVALID_ARGUMENT,
                                "warplab_gemm_batched_grid_draw: the grid pointer is NULL");
    *out = NULL;
    if (seed == 0)
        return wl_detached_fail(WARPLAB_ERROR_INVALID_ARGUMENT,
                                "warplab_gemm_batched_grid_draw: seed 0 draws nothing; the fixed "
                                "table is warplab_gemm_batched_grid_make's");
    const size_t count = ARRAY_COUNT(batched_combos) * 2 * BATCHED_DRAWS;
    warplab_gemm_grid *grid = batched_grid_alloc(count);
    if (!grid)
        return wl_detached_fail(WARPLAB_ERROR_HOST_OUT_OF_MEMORY, "warplab_gemm_batched_grid_draw");
    warplab_gemm_grid_cell *cells = grid->cells;
    /* The same shapes for every precision and output: batch 2..128 and the
     * sequence 128..4096 (a multiple of 8, so that every matrix's rows sit
     * on 16 bytes), both log-uniform; the head size one of 64, 80, 96, 128. */
    size_t shapes[2][BATCHED_DRAWS][3];
    wl_rng rng;
    wl_rng_seed(&rng, seed);
    for (int product = 0; product < 2; product++)
        for (int d = 0; d < BATCHED_DRAWS; d++) {
            shapes[product][d][0] = log_uniform(&rng, 2, 128);
            shapes[product][d][1] = 8 * log_uniform(&rng, 16, 512);
            shapes[product][d][2] =
                batched_drawn_heads[wl_rng_next(&rng) % ARRAY_COUNT(batched_drawn_heads)];
        }
    size_t i = 0;
    for (size_t t = 0; t < ARRAY_COUNT(batched_combos); t++)
        for (int product = 0; product < 2; product++)
            for (int d = 0; d < BATCHED_DRAWS; d++)
                batched_cell(&cells[i++], product, shapes[product][d][0], shapes[product][d][1],
                             shapes[product][d][2], batched_combos[t].ab, batched_combos[t].c);
    grid->cells = cells;
    grid->count = count;
    grid->seed = seed;
    grid->batched = 1;
    *out = grid;
    return WARPLAB_OK;
}

warplab_status warplab_gemm_batched_grid_make(warplab_gemm_grid **out)
{
    wl_detached_error_clear();
    if (!out)
        return wl_detached_fail(WARPLAB_ERROR_INVALID_ARGUMENT,
                                "warplab_gemm_batched_grid_make: the grid pointer is NULL");
    *out = NULL;
    const size_t count = ARRAY_COUNT(batched_combos) * 2 * ARRAY_COUNT(batched_counts) *
                         ARRAY_COUNT(batched_seqs) * ARRAY_COUNT(batched_heads);
    warplab_gemm_grid *grid = batched_grid_alloc(count);
    if (!grid)
        return wl_detached_fail(WARPLAB_ERROR_HOST_OUT_OF_MEMORY, "warplab_gemm_batched_grid_make");
    warplab_gemm_grid_cell *cells = grid->cells;
    size_t i = 0;
    for (size_t t = 0; t < ARRAY_COUNT(batched_combos); t++)
        for (int product = 0; product < 2; product++)
            for (size_t b = 0; b < ARRAY_COUNT(batched_counts); b++)
                for (size_t h = 0; h < ARRAY_COUNT(batched_heads); h++)
                    for (size_t q = 0; q < ARRAY_COUNT(batched_seqs); q++)
                        batched_cell(&cells[i++], product, batched_counts[b], batched_seqs[q],
                                     batched_heads[h], batched_combos[t].ab, batched_combos[t].c);
    grid->cells = cells;
    grid->count = count;
    grid->batched = 1;
    *out = grid;
    return WARPLAB_OK;
}

void warplab_gemm_grid_destroy(warplab_gemm_grid *grid)
{
    if (!grid)
        return;
    free(grid->cells);
    free(grid);
}

/* ------------------------------------------------------------------------ */
/* Names                                                                     */

static const char *precision_name(const warplab_gemm_grid_cell *cell)
{
    if (cell->compute == WARPLAB_COMPUTE_TF32)
        return "tf32";
    return cell->ab_type == WARPLAB_BFLOAT16  ? "bf16"
           : cell->ab_type == WARPLAB_FLOAT16 ? "fp16"
                                              : "fp32";
}

static const char *output_name(const warplab_gemm_grid_cell *cell)
{
    return cell->c_type == WARPLAB_BFLOAT16  ? "bf16"
           : cell->c_type == WARPLAB_FLOAT16 ? "fp16"
                                             : "fp32";
}

/* "bf16->bf16 N,T": the cell's group (precision x output x layout); a
 * batched table's cells group by precision x output ("bf16->bf16 batched"). */
static void group_name(const warplab_gemm_grid_cell *cell, char *text, size_t len)
{
    wl_format(text, len, "%s->%s %s", precision_name(cell), output_name(cell),
              cell->batch > 1 ? "batched" : wl_gemm_layout_name(cell->op_a, cell->op_b));
}

static bool same_group(const warplab_gemm_grid_cell *a, const warplab_gemm_grid_cell *b)
{
    const bool batched = a->batch > 1 && b->batch > 1;
    return a->ab_type == b->ab_type && a->c_type == b->c_type && a->compute == b->compute &&
           (batched ||
            (a->op_a == b->op_a && a->op_b == b->op_b && a->batch <= 1 && b->batch <= 1));
}

static bool cell_ran(const warplab_gemm_grid_cell *cell)
{
    return !(cell->flags & (WARPLAB_ROW_SKIPPED | WARPLAB_ROW_FAILED)) && cell->ratio > 0;
}

/* ------------------------------------------------------------------------ */
/* The run (cuda)                                                           */

#ifdef WARPLAB_HAVE_CUDA

/* The problem warplab_gemm_ex makes of a cell (tight, alpha 1, beta 0). */
static wl_problem cell_problem(const warplab_gemm_grid_cell *cell)
{
    wl_problem p;
    memset(&p, 0, sizeof p);
    p.dim[0] = cell->m;
    p.dim[1] = cell->n;
    p.dim[2] = cell->k;
    p.dims = 3;
    p.alpha = 1.0;
    p.beta = 0.0;
    p.dtype = cell->ab_type;
    p.variant = (cell->op_a == WARPLAB_OP_T ? WL_GEMM_TRANS_A : 0) |
                (cell->op_b == WARPLAB_OP_T ? WL_GEMM_TRANS_B : 0) |
                (cell->compute == WARPLAB_COMPUTE_TF32 ? WL_GEMM_COMPUTE_TF32 : 0) |
                (cell->c_type != WARPLAB_FLOAT32 ? WL_GEMM_C_INPUT_TYPE : 0);
    if (cell->batch > 1) { /* tight: each matrix right after the one before */
        p.batch = cell->batch;
        p.stride[0] = cell->m * cell->k;
        p.stride[1] = cell->k * cell->n;
        p.stride[2] = cell->m * cell->n;
    }
    return p;
}

typedef struct grid_cell_run {
    warplab_context *context;
    wl_cuda_grid *cuda;
    const warplab_gemm_grid_cell *cell;
    warplab_buffer *a, *b, *c;
} grid_cell_run;

static warplab_status run_warplab(void *user)
{
    grid_cell_run *r = user;
    const warplab_gemm_grid_cell *cell = r->cell;
    warplab_status status =
        cell->batch > 1
            ? warplab_gemm_batched_ex(r->context, cell->op_a, cell->op_b, cell->m, cell->n, cell->k,
                                      1.0f, r->a, cell->ab_type, 0, cell->m * cell->k, r->b,
                                      cell->ab_type, 0, cell->k * cell->n, 0.0f, r->c, cell->c_type,
                                      0, cell->m * cell->n, cell->batch, cell->compute)
            : warplab_gemm_ex(r->context, cell->op_a, cell->op_b, cell->m, cell->n, cell->k, 1.0f,
                              r->a, cell->ab_type, 0, r->b, cell->ab_type, 0, 0.0f, r->c,
                              cell->c_type, 0, cell->compute);
    if (status != WARPLAB_OK)
        wl_fail(r->context->device, status, "%s", warplab_last_error(r->context));
    return status;
}

static warplab_status run_cublas(void *user)
{
    grid_cell_run *r = user;
    return wl_cuda_grid_vendor(r->cuda);
}

/* An operand read back and widened to float (16-bit values exactly) into
 * *values (NULL on failure, the backend's error set). */
static warplab_status download_floats(grid_cell_run *r, int operand, warplab_dtype type,
                                      size_t offset, size_t bytes, float **values)
{
    const size_t count = bytes / warplab_dtype_size(type);
    float *v = malloc((count ? count : 1) * sizeof *v);
    uint16_t *raw = type == WARPLAB_FLOAT32 ? NULL : malloc(bytes ? bytes : 1);
    warplab_status status = WARPLAB_OK;
    if (!v || (type != WARPLAB_FLOAT32 && !raw))
        status = wl_fail(r->context->device, WARPLAB_ERROR_HOST_OUT_OF_MEMORY,
                         "host copies of the operands (%zu bytes)", bytes);
    if (status == WARPLAB_OK)
        status =
            wl_cuda_grid_download(r->cuda, operand, offset, bytes, raw ? (void *)raw : (void *)v);
    if (status == WARPLAB_OK && raw)
        for (size_t i = 0; i < count; i++)
            v[i] = type == WARPLAB_BFLOAT16 ? wl_bf16_to_float(raw[i]) : wl_fp16_to_float(raw[i]);
    free(raw);
    if (status != WARPLAB_OK) {
        free(v);
        v = NULL;
    }
    *values = v;
    return status;
}

/* warplab's C against the double-precision reference, with the contract's
 * bound (warplab.h) and a 16-bit C's own rounding. */
/* A batch's matrix `matrix` is checked (each operand's bytes / batch, that
 * many in); one matrix: the whole operands. */
static warplab_status verify_matrix(grid_cell_run *r, const size_t bytes[WL_GRID_OPERANDS],
                                    warplab_gemm_grid_cell *cell, size_t matrix)
{
    const warplab_gemm_grid_cell *c = cell;
    const size_t batch = c->batch > 1 ? c->batch : 1;
    float *a = NULL, *b = NULL, *out = NULL;
    const size_t part[3] = {bytes[WL_GRID_A] / batch, bytes[WL_GRID_B] / batch,
                            bytes[WL_GRID_C] / batch};
    warplab_status status =
        download_floats(r, WL_GRID_A, c->ab_type, matrix * part[0], part[0], &a);
    if (status == WARPLAB_OK)
        status = download_floats(r, WL_GRID_B, c->ab_type, matrix * part[1], part[1], &b);
    if (status == WARPLAB_OK)
        status = download_floats(r, WL_GRID_C, c->c_type, matrix * part[2], part[2], &out);
    if (status == WARPLAB_OK) {
        wl_problem p = cell_problem(c);
        p.dtype = WARPLAB_FLOAT32; /* the check reads the widened values */
        p.batch = 0;
        const void *host[GEMM_BUFFERS] = {a, b, out};
        const wl_gemm_precision precision = c->compute == WARPLAB_COMPUTE_TF32 ? WL_GEMM_TF32_ANY
                                            : c->ab_type == WARPLAB_BFLOAT16   ? WL_GEMM_BF16
                                            : c->ab_type == WARPLAB_FLOAT16    ? WL_GEMM_FP16
                                                                               : WL_GEMM_FP32;
        const double c_u = c->c_type == WARPLAB_BFLOAT16  ? 0x1p-8
                           : c->c_type == WARPLAB_FLOAT16 ? 0x1p-11
                                                          : 0.0;
        const double c_tiny = c->c_type == WARPLAB_FLOAT16 ? 0x1p-25 : 0.0;
        wl_check check;
        wl_check_init(&check);
        status = wl_gemm_verify_rounded(&p, host, &check, precision, c_u, c_tiny);
        if (check.worst_ratio > cell->max_rel_error)
            cell->max_rel_error = check.worst_ratio;
        if (status == WARPLAB_ERROR_VERIFICATION_FAILED)
            wl_format(cell->note, sizeof cell->note,
                      "wrong: matrix %zu C[%zu][%zu] = %.9g, expected %.9g (%zu of %zu checked "
                      "elements outside the bound)",
                      matrix, check.first_bad / cell->n, check.first_bad % cell->n, check.got,
                      check.expected, check.bad, check.checked);
    }
    free(a);
    free(b);
    free(out);
    return status;
}

/* warplab's C against the double-precision reference: one matrix, or a
 * batch's first, middle and last. */
static warplab_status verify_cell(grid_cell_run *r, const size_t bytes[WL_GRID_OPERANDS],
                                  warplab_gemm_grid_cell *cell)
{
    cell->max_rel_error = 0.0;
    const size_t batch = cell->batch > 1 ? cell->batch : 1;
    const size_t matrices[3] = {0, batch / 2, batch - 1};
    warplab_status status = WARPLAB_OK;
    for (int i = 0; i < (batch > 1 ? 3 : 1) && status == WARPLAB_OK; i++)
        status = verify_matrix(r, bytes, cell, matrices[i]);
    return status;
}

/* What the picked candidate runs (its own plan: the tile, the split, the
 * kernel of a delegate), as the library describes it. */
static void describe_plan(warplab_context *context, const warplab_gemm_grid_cell *cell,
                          const char *candidate, void *const ptr[WL_GRID_OPERANDS],
                          const size_t bytes[WL_GRID_OPERANDS], char *text, size_t len)
{
    wl_problem p = cell_problem(cell);
    if (context->gemm_candidate > 0)
        p.param = context->gemm_candidate;
    const wl_impl *impl = wl_backend_find_impl(context->device, "gemm", WL_GEMM_EX_IMPL);
    const int row = wl_gemm_candidate_find(candidate);
    size_t rows = 0;
    if (row >= 0 && wl_gemm_candidates(&rows)[row].batched)
        impl = wl_backend_find_impl(context->device, "gemm", WL_GEMM_BATCHED_IMPL);
    else if (cell->batch > 1)
        p.batch = 0; /* a loop over the matrices: each one's own plan */
    if (strcmp(candidate, "fp32_dispatch") == 0) {
        p.variant = 0;
        impl = wl_backend_find_impl(context->device, "gemm", "dispatch");
    }
    text[0] = '\0';
    if (!impl || !impl->describe)
        return;
    wl_launch launch;
    memset(&launch, 0, sizeof launch);
    launch.problem = &p;
    launch.buffers = 3;
    for (int i = 0; i < 3; i++)
        launch.buf[i] = (wl_view){ptr[i], 0, bytes[i]};
    impl->describe(context->device, &launch, text, len);
}

static void run_cell(warplab_context *context, wl_cuda_grid *cuda,
                     const warplab_gemm_grid_options *options, const char *force, uint64_t seed,
                     warplab_gemm_grid_cell *cell)
{
    wl_backend *device = context->device;
    /* The plan the call gets: the planner's pick, or the forced candidate
     * where it takes the cell (the descriptor of a cudaMalloc'd, tight
     * call: 16-byte rows where the row length allows). */
    const wl_problem problem = cell_problem(cell);
    const wl_gemm_desc desc = wl_gemm_desc_of(&problem, NULL, NULL, NULL);
    const wl_gemm_target target = wl_gemm_target_for(device);
    wl_gemm_route plan = wl_gemm_plan_cached(&desc, &target, force);
    size_t count = 0;
    const wl_gemm_candidate *rows = wl_gemm_candidates(&count);
    if (plan.candidate < 0 && cell->batch > 1) {
        /* No batched row takes it: the loop over matrices, each planned alone. */
        wl_gemm_desc one = desc;
        one.batch = 1;
        one.stride_a = one.stride_b = one.stride_c = 0;
        plan = wl_gemm_plan_cached(&one, &target, force);
    }
    if (plan.candidate < 0) {
        cell->flags = WARPLAB_ROW_SKIPPED;
        cell->status = WARPLAB_ERROR_UNSUPPORTED;
        wl_copy_string(cell->candidate, sizeof cell->candidate, force ? force : "(none)");
        const int row = force ? wl_gemm_candidate_find(force) : -1;
        const char *why = row >= 0 ? wl_gemm_candidate_refusal(&rows[row], &desc, &target) : NULL;
        wl_format(cell->note, sizeof cell->note, "%s cannot take this cell: %s",
                  force ? force : "no candidate", why ? why : "no row of the table takes it");
        return;
    }
    wl_copy_string(cell->candidate, sizeof cell->candidate, rows[plan.candidate].name);
    size_t free_bytes = 0, total_bytes = 0;
    device->ops->mem_info(device, &free_bytes, &total_bytes);
    const double in = (double)warplab_dtype_size(cell->ab_type),
                 out = (double)warplab_dtype_size(cell->c_type);
    const double m = (double)cell->m, n = (double)cell->n, k = (double)cell->k;
    const double batch = cell->batch > 1 ? (double)cell->batch : 1.0;
    cell->bytes = batch * ((m * k + k * n) * in + m * n * out);
    const double need = cell->bytes + batch * m * n * out;
    if (need > 0.75 * (double)free_bytes) {
        cell->flags = WARPLAB_ROW_SKIPPED;
        cell->status = WARPLAB_ERROR_DEVICE_OUT_OF_MEMORY;
        wl_format(cell->note, sizeof cell->note, "needs %.2f GB, %.2f GB free", need / 1e9,
                  (double)free_bytes / 1e9);
        return;
    }
    const wl_cuda_gemm_call call = {cell->op_a,   cell->op_b,    cell->m,
                                    cell->n,      cell->k,       cell->ab_type,
                                    cell->c_type, cell->compute, cell->batch > 1 ? cell->batch : 1};
    void *ptr[WL_GRID_OPERANDS];
    size_t bytes[WL_GRID_OPERANDS];
    grid_cell_run r = {context, cuda, cell, NULL, NULL, NULL};
    warplab_status status = wl_cuda_grid_operands(cuda, &call, seed, ptr, bytes);
    /* The caller's memory, wrapped at exactly its size. */
    if (status == WARPLAB_OK &&
        (warplab_buffer_wrap(context, ptr[WL_GRID_A], bytes[WL_GRID_A], &r.a) != WARPLAB_OK ||
         warplab_buffer_wrap(context, ptr[WL_GRID_B], bytes[WL_GRID_B], &r.b) != WARPLAB_OK ||
         warplab_buffer_wrap(context, ptr[WL_GRID_C], bytes[WL_GRID_C], &r.c) != WARPLAB_OK))
        status = wl_fail(device, WARPLAB_ERROR_BACKEND, "%s", warplab_last_error(context));
    /* Checked once (C poisoned), then timed. */
    if (status == WARPLAB_OK)
        status = run_warplab(&r);
    if (status == WARPLAB_OK)
        status = run_cublas(&r);
    if (status == WARPLAB_OK)
        status = device->ops->synchronize(device);
    if (status == WARPLAB_OK) {
        describe_plan(context, cell, cell->candidate, ptr, bytes, cell->plan, sizeof cell->plan);
        status = verify_cell(&r, bytes, cell);
    }
    if (status == WARPLAB_OK) {
        const wl_timed_call calls[2] = {{run_warplab, &r}, {run_cublas, &r}};
        wl_stats stats[2];
        memset(stats, 0, sizeof stats);
        const int repeat = options->repeat > 0 ? options->repeat : 15;
        const int warmup = options->warmup > 0 ? options->warmup : 2;
        const double budget = options->max_seconds > 0 ? options->max_seconds : 0.25;
        status = wl_time_pair(device, calls, false, repeat, warmup, budget,
                              !options->no_flush && device->ops->flush_caches, stats, &cell->runs);
        if (status == WARPLAB_OK) {
            cell->warplab_us = stats[0].median * 1e3;
            cell->cublas_us = stats[1].median * 1e3;
            cell->warplab_noise_pct = stats[0].rel_stddev_pct;
            cell->cublas_noise_pct = stats[1].rel_stddev_pct;
            cell->ratio = cell->warplab_us > 0 ? cell->cublas_us / cell->warplab_us : 0.0;
            cell->warplab_gbs = cell->warplab_us > 0 ? cell->bytes / (cell->warplab_us * 1e3) : 0;
        }
    }
    cell->status = status;
    if (status != WARPLAB_OK) {
        cell->flags = WARPLAB_ROW_FAILED;
        if (!cell->note[0])
            wl_copy_string(cell->note, sizeof cell->note, device->error);
    }
    warplab_buffer_destroy(r.a);
    warplab_buffer_destroy(r.b);
    warplab_buffer_destroy(r.c);
    wl_cuda_grid_release(cuda);
}

static warplab_status grid_run_cuda(warplab_context *context,
                                    const warplab_gemm_grid_options *options,
                                    warplab_gemm_grid *grid)
{
    wl_backend *device = context->device;
    wl_cuda_grid *cuda = NULL;
    void *stream = NULL;
    warplab_status status = wl_cuda_grid_open(device, &cuda, &stream);
    if (status != WARPLAB_OK)
        return wl_context_fail(context, status, "%s", device->error);
    /* The caller's stream bound, as a CUDA program binds it. */
    status = warplab_context_set_stream(context, stream);
    if (status == WARPLAB_OK && options->candidate)
        status = wl_gemm_force_candidate(context, options->candidate);
    if (status != WARPLAB_OK) {
        warplab_context_set_stream(context, NULL);
        wl_cuda_grid_close(cuda);
        return status;
    }
    const double start = wl_now_seconds();
    for (size_t i = 0; i < grid->count; i++) {
        warplab_gemm_grid_cell *cell = &grid->cells[i];
        if (cell->flags & WARPLAB_ROW_SKIPPED)
            continue;
        if (options->cancelled && options->cancelled(options->cancel_user)) {
            for (size_t j = i; j < grid->count; j++)
                if (!(grid->cells[j].flags & WARPLAB_ROW_SKIPPED)) {
                    grid->cells[j].flags = WARPLAB_ROW_SKIPPED;
                    wl_copy_string(grid->cells[j].note, sizeof grid->cells[j].note,
                                   "not reached: the run was interrupted");
                }
            grid->incomplete = 1;
            break;
        }
        if (options->progress) {
            char group[48], shape[64];
            group_name(cell, group, sizeof group);
            wl_format(shape, sizeof shape, "%s %zux%zux%zu", cell->shape_class, cell->m, cell->n,
                      cell->k);
            options->progress(options->progress_user, "gemm_grid", group, shape, i, grid->count);
        }
        run_cell(context, cuda, options, options->candidate, grid->seed * 1000003ull + i, cell);
        /* A sticky CUDA error ends the run; others are the cell's. */
        if (device->ops->synchronize(device) != WARPLAB_OK) {
            status = wl_context_fail(context, WARPLAB_ERROR_BACKEND, "%s", device->error);
            break;
        }
    }
    if (options->progress)
        options->progress(options->progress_user, NULL, NULL, NULL, grid->count, grid->count);
    grid->seconds = wl_now_seconds() - start;
    wl_gemm_force_candidate(context, NULL);
    warplab_context_set_stream(context, NULL);
    wl_cuda_grid_close(cuda);
    return status;
}
#endif

static warplab_status grid_run_checked(warplab_context *context,
                                       const warplab_gemm_grid_options *options,
                                       warplab_gemm_grid *grid)
{
    if (!grid)
        return wl_context_fail(context, WARPLAB_ERROR_INVALID_ARGUMENT, "the grid is NULL");
    warplab_gemm_grid_options defaults;
    if (!options) {
        memset(&defaults, 0, sizeof defaults);
        options = &defaults;
    }
    if (options->candidate && wl_gemm_candidate_find(options->candidate) < 0)
        return wl_gemm_force_candidate(context, options->candidate); /* says which exist */
    if (context->device->ops->kind != WARPLAB_BACKEND_CUDA)
        return wl_context_fail(context, WARPLAB_ERROR_UNSUPPORTED,
                               "the GEMM grid compares warplab_gemm_ex with cuBLAS, which needs "
                               "the cuda backend; this context runs on %s",
                               context->device->ops->name);
    wl_copy_string(grid->candidate, sizeof grid->candidate,
                   options->candidate ? options->candidate : "");
    wl_copy_string(grid->device, sizeof grid->device, context->device->info.name);
    wl_format_utc_now(grid->date, sizeof grid->date);
    grid->l2_flushed = !options->no_flush;
#ifdef WARPLAB_HAVE_CUDA
    return grid_run_cuda(context, options, grid);
#else
    return wl_context_fail(context, WARPLAB_ERROR_BACKEND_UNAVAILABLE, "built without CUDA");
#endif
}

warplab_status warplab_gemm_grid_run(warplab_context *context,
                                     const warplab_gemm_grid_options *options,
                                     warplab_gemm_grid *grid)
{
    if (!context)
        return wl_api_no_context("warplab_gemm_grid_run", "the context");
    wl_api_begin(context);
    return wl_api_end(context, "warplab_gemm_grid_run", grid_run_checked(context, options, grid));
}

/* ------------------------------------------------------------------------ */
/* The report                                                               */

/* One group's summary: the cells that ran. */
typedef struct group_summary {
    size_t first; /* index of the group's first cell */
    int cells, ran, failed, skipped, decode;
    double log_sum, decode_log_sum;
    const warplab_gemm_grid_cell *worst;
    /* The picks: candidate names and how many cells each took. */
    const char *pick[8];
    int picks[8];
    int pick_count;
} group_summary;

static group_summary summarize(const warplab_gemm_grid *grid, size_t first)
{
    group_summary g;
    memset(&g, 0, sizeof g);
    g.first = first;
    for (size_t i = first; i < grid->count && same_group(&grid->cells[i], &grid->cells[first]);
         i++) {
        const warplab_gemm_grid_cell *cell = &grid->cells[i];
        g.cells++;
        if (cell->flags & WARPLAB_ROW_FAILED)
            g.failed++;
        if (cell->flags & WARPLAB_ROW_SKIPPED)
            g.skipped++;
        if (!cell_ran(cell))
            continue;
        g.ran++;
        g.log_sum += log(cell->ratio);
        if (cell->m <= 32) {
            g.decode++;
            g.decode_log_sum += log(cell->ratio);
        }
        if (!g.worst || cell->ratio < g.worst->ratio)
            g.worst = cell;
        int p = 0;
        while (p < g.pick_count && strcmp(g.pick[p], cell->candidate) != 0)
            p++;
        if (p == g.pick_count && g.pick_count < 8)
            g.pick[g.pick_count++] = cell->candidate;
        if (p < g.pick_count)
            g.picks[p]++;
    }
    return g;
}

static double geomean(double log_sum, int count)
{
    return count ? exp(log_sum / count) : 0.0;
}

static void picks_text(const group_summary *g, char *text, size_t len)
{
    text[0] = '\0';
    for (int p = 0; p < g->pick_count; p++)
        wl_format(text + strlen(text), len - strlen(text), "%s%s %d", p ? ", " : "", g->pick[p],
                  g->picks[p]);
}

static void write_table(const warplab_gemm_grid *grid, FILE *out)
{
    fprintf(out, "%-16s %-11s %6s %6s %6s  %-14s %10s %10s %7s %6s  %s\n", "group", "class", "m",
            "n", "k", "pick", "warplab", "cuBLAS", "ratio", "noise", "plan / note");
    for (size_t i = 0; i < grid->count; i++) {
        const warplab_gemm_grid_cell *cell = &grid->cells[i];
        char group[48];
        group_name(cell, group, sizeof group);
        fprintf(out, "%-16s %-11s %6zu %6zu %6zu  %-14s ", group, cell->shape_class, cell->m,
                cell->n, cell->k, cell->candidate[0] ? cell->candidate : "-");
        if (!cell_ran(cell)) {
            fprintf(out, "%s: %s\n", cell->flags & WARPLAB_ROW_FAILED ? "FAILED" : "skipped",
                    cell->note);
            continue;
        }
        const double noise = cell->warplab_noise_pct > cell->cublas_noise_pct
                                 ? cell->warplab_noise_pct
                                 : cell->cublas_noise_pct;
        fprintf(out, "%7.1f us %7.1f us %6.3fx %5.1f%%  %s\n", cell->warplab_us, cell->cublas_us,
                cell->ratio, noise, cell->plan);
    }
    fprintf(out,
            "\nsummary: ratio = cuBLAS time / warplab time (> 1: warplab is faster), geometric "
            "means over the cells that ran; decode: m <= 32\n");
    fprintf(out, "%-16s %5s %8s %8s  %-36s %s\n", "group", "cells", "geomean", "decode",
            "worst cell (m x n x k, ratio)", "picks (cells)");
    for (size_t i = 0; i < grid->count;) {
        const group_summary g = summarize(grid, i);
        char group[48], worst[64] = "-", picks[160];
        group_name(&grid->cells[i], group, sizeof group);
        if (g.worst)
            wl_format(worst, sizeof worst, "%zux%zux%zu %.3fx %s", g.worst->m, g.worst->n,
                      g.worst->k, g.worst->ratio, g.worst->candidate);
        picks_text(&g, picks, sizeof picks);
        fprintf(out, "%-16s %5d %7.3fx %7.3fx  %-36s %s", group, g.ran, geomean(g.log_sum, g.ran),
                geomean(g.decode_log_sum, g.decode), worst, picks);
        if (g.failed || g.skipped)
            fprintf(out, " (%d failed, %d skipped)", g.failed, g.skipped);
        fputc('\n', out);
        i += (size_t)g.cells;
    }
    size_t ran = 0;
    for (size_t i = 0; i < grid->count; i++)
        ran += cell_ran(&grid->cells[i]);
    if (grid->batched) {
        /* Per input precision, both outputs: the strided-batched target's mean. */
        const warplab_dtype types[2] = {WARPLAB_BFLOAT16, WARPLAB_FLOAT16};
        for (int t = 0; t < 2; t++) {
            double log_sum = 0.0;
            int cells = 0;
            for (size_t i = 0; i < grid->count; i++)
                if (grid->cells[i].ab_type == types[t] && cell_ran(&grid->cells[i])) {
                    log_sum += log(grid->cells[i].ratio);
                    cells++;
                }
            fprintf(out,
                    "%s, every output: %.3fx over %d cells (cublasGemmStridedBatchedEx / "
                    "warplab_gemm_batched_ex)\n",
                    t == 0 ? "bf16" : "fp16", geomean(log_sum, cells), cells);
        }
        fprintf(out,
                "%zu of %zu cells ran in %.0f s%s; L2 %s; matrices of each batch tight, one "
                "after the other; the first, middle and last checked against the double "
                "reference\n",
                ran, grid->count, grid->seconds, grid->incomplete ? " (interrupted)" : "",
                grid->l2_flushed ? "flushed before every run" : "warm");
        return;
    }
    fprintf(out,
            "seed %llu%s%s; %zu of %zu cells ran in %.0f s%s; L2 %s; the planner's tuning set: %s "
            "(%s)\n",
            grid->seed, grid->candidate[0] ? ", candidate forced: " : "", grid->candidate, ran,
            grid->count, grid->seconds, grid->incomplete ? " (interrupted)" : "",
            grid->l2_flushed ? "flushed before every run" : "warm", wl_gemm_plan_tuning_set(),
            grid->seed == WL_GEMM_PLAN_TUNING_GRID_SEED
                ? "this grid's FP32 large_k and square cells are in it; its other cells are "
                  "held out, and other seeds hold out all"
            : grid->seed == WL_GEMM_PLAN_TUNING_GRID_SEED_FP32
                ? "this grid's FP32 cells are in it; its other cells are held out, and other "
                  "seeds hold out all"
                : "this grid is its held-out validation");
}

static void write_json(const warplab_gemm_grid *grid, FILE *out)
{
    fputs("{\n  ", out);
    wl_write_json_field(out, "tool", "warplab", true);
    wl_write_json_field(out, "version", warplab_version(), true);
    wl_write_json_field(out, "kind", "gemm_grid", true);
    wl_write_json_field(out, "device", grid->device, true);
    fputs("\n  ", out);
    wl_write_json_field(out, "date", grid->date, true);
    /* The seed as a string (JSON readers round 64-bit numbers). */
    fprintf(out, "\"seed\": \"%llu\", ", grid->seed);
    wl_write_json_field(out, "candidate", grid->candidate, true);
    fprintf(out, "\"caches_flushed\": %s, \"incomplete\": %s, ",
            grid->l2_flushed ? "true" : "false", grid->incomplete ? "true" : "false");
    wl_write_json_number(out, "seconds", grid->seconds, true);
    fputs("\n  ", out);
    wl_write_json_field(out, "tuning_set", wl_gemm_plan_tuning_set(), true);
    wl_write_json_number(out, "max_bytes", (double)WARPLAB_GEMM_GRID_MAX_BYTES, true);
    wl_write_json_number(out, "max_flops", (double)WARPLAB_GEMM_GRID_MAX_FLOPS, true);
    fputs("\"ratio\": \"cublas_us / warplab_us\",\n  \"cells\": [", out);
    for (size_t i = 0; i < grid->count; i++) {
        const warplab_gemm_grid_cell *c = &grid->cells[i];
        fputs(i ? ",\n    {" : "\n    {", out);
        wl_write_json_field(out, "class", c->shape_class, true);
        wl_write_json_field(out, "precision", precision_name(c), true);
        wl_write_json_field(out, "output", output_name(c), true);
        wl_write_json_field(out, "layout", wl_gemm_layout_name(c->op_a, c->op_b), true);
        fprintf(out, "\"m\": %zu, \"n\": %zu, \"k\": %zu, \"batch\": %zu, ", c->m, c->n, c->k,
                c->batch > 1 ? c->batch : 1);
        fputs("\n     ", out);
        wl_write_json_field(out, "pick", c->candidate, true);
        wl_write_json_field(out, "plan", c->plan, true);
        wl_write_json_field(out, "state",
                            c->flags & WARPLAB_ROW_FAILED    ? "failed"
                            : c->flags & WARPLAB_ROW_SKIPPED ? "skipped"
                                                             : "ok",
                            true);
        wl_write_json_field(out, "status", warplab_status_string(c->status), true);
        wl_write_json_field(out, "note", c->note, true);
        fputs("\n     ", out);
        fprintf(out, "\"runs\": %d, ", c->runs);
        wl_write_json_number(out, "warplab_us", c->warplab_us, true);
        wl_write_json_number(out, "cublas_us", c->cublas_us, true);
        wl_write_json_number(out, "ratio", c->ratio, true);
        wl_write_json_number(out, "warplab_noise_pct", c->warplab_noise_pct, true);
        wl_write_json_number(out, "cublas_noise_pct", c->cublas_noise_pct, true);
        wl_write_json_number(out, "bytes", c->bytes, true);
        wl_write_json_number(out, "warplab_gbs", c->warplab_gbs, true);
        wl_write_json_number(out, "max_rel_error", c->max_rel_error, false);
        fputs("}", out);
    }
    fputs("\n  ],\n  \"groups\": [", out);
    bool first = true;
    for (size_t i = 0; i < grid->count;) {
        const group_summary g = summarize(grid, i);
        const warplab_gemm_grid_cell *c = &grid->cells[i];
        fputs(first ? "\n    {" : ",\n    {", out);
        first = false;
        wl_write_json_field(out, "precision", precision_name(c), true);
        wl_write_json_field(out, "output", output_name(c), true);
        wl_write_json_field(out, "layout", wl_gemm_layout_name(c->op_a, c->op_b), true);
        fprintf(out, "\"cells\": %d, \"ran\": %d, \"failed\": %d, \"skipped\": %d, ", g.cells,
                g.ran, g.failed, g.skipped);
        wl_write_json_number(out, "geomean_ratio", geomean(g.log_sum, g.ran), true);
        wl_write_json_number(out, "decode_geomean_ratio", geomean(g.decode_log_sum, g.decode),
                             true);
        wl_write_json_number(out, "worst_ratio", g.worst ? g.worst->ratio : 0.0, true);
        char worst[64] = "";
        if (g.worst)
            wl_format(worst, sizeof worst, "%zux%zux%zu", g.worst->m, g.worst->n, g.worst->k);
        wl_write_json_field(out, "worst_cell", worst, true);
        wl_write_json_field(out, "worst_pick", g.worst ? g.worst->candidate : "", true);
        fputs("\"picks\": {", out);
        for (int p = 0; p < g.pick_count; p++)
            fprintf(out, "%s\"%s\": %d", p ? ", " : "", g.pick[p], g.picks[p]);
        fputs("}}", out);
        i += (size_t)g.cells;
    }
    fputs(first ? "]\n}\n" : "\n  ]\n}\n", out);
}

warplab_status warplab_gemm_grid_write(const warplab_gemm_grid *grid, warplab_format format,
                                       FILE *stream)
{
    wl_detached_error_clear();
    if (!grid || !stream)
        return wl_detached_fail(WARPLAB_ERROR_INVALID_ARGUMENT,
                                "warplab_gemm_grid_write: the grid or the stream is NULL");
    if (format == WARPLAB_FORMAT_TABLE)
        write_table(grid, stream);
    else if (format == WARPLAB_FORMAT_JSON)
        write_json(grid, stream);
    else
        return wl_detached_fail(WARPLAB_ERROR_UNSUPPORTED,
                                "warplab_gemm_grid_write: the grid is written as a table or JSON");
    return ferror(stream) ? WARPLAB_ERROR_IO : WARPLAB_OK;
}
