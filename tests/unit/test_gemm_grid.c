/* The GEMM grid's cells (warplab_gemm_grid_make, src/lab/gemm_grid.c) on
 * the host: the same seed always draws the same cells and another seed
 * others; over many seeds every class is drawn within its ranges with its
 * fixed requirements (decode m = 1 and an odd m, prefill and the squares
 * an odd m, n and k from the LLM dimensions), the cross product holds every
 * precision x output x layout for every shape, and every cell that runs is
 * within the size caps (a skipped one says why). Then what can be checked
 * without a GPU: an unknown candidate is refused before anything runs, the
 * grid refuses a backend without cuBLAS, and the writers say what they
 * write. */
#include "../check.h"
#include "warplab_lab.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static const size_t llm[] = {1024, 4096, 5120, 6144, 8192, 11008, 13824, 14336, 28672};

static bool is_llm(size_t d)
{
    for (size_t i = 0; i < sizeof llm / sizeof llm[0]; i++)
        if (llm[i] == d)
            return true;
    return false;
}

static bool same_cells(const warplab_gemm_grid *a, const warplab_gemm_grid *b)
{
    if (a->count != b->count)
        return false;
    for (size_t i = 0; i < a->count; i++) {
        const warplab_gemm_grid_cell *x = &a->cells[i], *y = &b->cells[i];
        if (x->m != y->m || x->n != y->n || x->k != y->k || x->op_a != y->op_a ||
            x->op_b != y->op_b || x->ab_type != y->ab_type || x->c_type != y->c_type ||
            x->compute != y->compute || strcmp(x->shape_class, y->shape_class) != 0 ||
            x->flags != y->flags)
            return false;
    }
    return true;
}

static double fp32_bytes(const warplab_gemm_grid_cell *c)
{
    return 4.0 * ((double)c->m * (double)c->k + (double)c->k * (double)c->n +
                  2.0 * (double)c->m * (double)c->n);
}

/* The groups (precision x output x layout) a shape is crossed with. */
#define GROUPS 14

static int group_of(const warplab_gemm_grid_cell *c)
{
    const int layout = (c->op_a == WARPLAB_OP_T ? 2 : 0) + (c->op_b == WARPLAB_OP_T ? 1 : 0);
    if (c->ab_type == WARPLAB_FLOAT32 && c->compute == WARPLAB_COMPUTE_FP32)
        return layout; /* 0..3 */
    if (layout >= 2)
        return -1; /* T,N and T,T: FP32 only */
    int base = c->compute == WARPLAB_COMPUTE_TF32                                ? 4
               : c->ab_type == WARPLAB_BFLOAT16 && c->c_type == WARPLAB_FLOAT32  ? 6
               : c->ab_type == WARPLAB_BFLOAT16 && c->c_type == WARPLAB_BFLOAT16 ? 8
               : c->ab_type == WARPLAB_FLOAT16 && c->c_type == WARPLAB_FLOAT32   ? 10
               : c->ab_type == WARPLAB_FLOAT16 && c->c_type == WARPLAB_FLOAT16   ? 12
                                                                                 : -100;
    return base + layout;
}

static void check_seed(unsigned long long seed, int *odd_decode, int *odd_prefill, int *odd_square)
{
    warplab_gemm_grid *grid = NULL;
    CHECK(warplab_gemm_grid_make(seed, &grid) == WARPLAB_OK && grid);
    if (!grid)
        return;
    CHECK(grid->seed == seed);
    /* Shapes: the cells of group 0 (FP32 N,N), in class order. */
    size_t shapes = 0;
    while (shapes < grid->count && group_of(&grid->cells[shapes]) == 0)
        shapes++;
    CHECK_MSG(grid->count == shapes * GROUPS, "%zu cells, %zu shapes", grid->count, shapes);
    bool decode_one = false, decode_odd = false, prefill_odd = false, square_odd = false;
    int classes_seen[5] = {0, 0, 0, 0, 0};
    static const char *const class_names[5] = {"decode", "prefill", "square", "large_k",
                                               "tall_skinny"};
    for (size_t i = 0; i < grid->count; i++) {
        const warplab_gemm_grid_cell *c = &grid->cells[i];
        const warplab_gemm_grid_cell *shape = &grid->cells[i % shapes];
        /* The cross product: every group holds every shape, in one order. */
        CHECK_MSG(group_of(c) == (int)(i / shapes), "cell %zu in group %d", i, group_of(c));
        CHECK(c->m == shape->m && c->n == shape->n && c->k == shape->k &&
              strcmp(c->shape_class, shape->shape_class) == 0);
        /* The caps: a cell that runs is within them; a skipped one says why. */
        if (c->flags & WARPLAB_ROW_SKIPPED)
            CHECK_MSG(c->note[0] && strstr(c->note, "caps"), "skipped without why: %s", c->note);
        else
            CHECK_MSG(fp32_bytes(c) <= (double)WARPLAB_GEMM_GRID_MAX_BYTES &&
                          2.0 * (double)c->m * (double)c->n * (double)c->k <=
                              (double)WARPLAB_GEMM_GRID_MAX_FLOPS,
                      "%zux%zux%zu past the caps", c->m, c->n, c->k);
        CHECK(c->flags == 0 || c->flags == WARPLAB_ROW_SKIPPED);
        if (i >= shapes)
            continue;
        int cls = -1;
        for (int k = 0; k < 5; k++)
            if (strcmp(c->shape_class, class_names[k]) == 0)
                cls = k;
        CHECK_MSG(cls >= 0, "class '%s'", c->shape_class);
        if (cls >= 0)
            classes_seen[cls]++;
        switch (cls) {
        case 0:
            CHECK(c->m >= 1 && c->m <= 32 && is_llm(c->n) && is_llm(c->k));
            decode_one = decode_one || c->m == 1;
            decode_odd = decode_odd || (c->m > 1 && c->m % 2 == 1);
            break;
        case 1:
            CHECK(c->m >= 100 && c->m <= 8192 && is_llm(c->n) && is_llm(c->k));
            prefill_odd = prefill_odd || c->m % 2 == 1;
            break;
        case 2:
            CHECK(c->m == c->n && c->n == c->k && c->m >= 64 && c->m <= 1024);
            square_odd = square_odd || c->m % 2 == 1;
            break;
        case 3:
            CHECK(c->m >= 16 && c->m <= 512 && c->n >= 16 && c->n <= 512 && c->k >= 8192);
            break;
        case 4:
            CHECK(c->m >= 8192 && c->n >= 8 && c->n <= 256 && c->k >= 64 && c->k <= 4096);
            break;
        default: break;
        }
    }
    for (int k = 0; k < 5; k++)
        CHECK_MSG(classes_seen[k] >= 2, "class %s: %d shapes", class_names[k], classes_seen[k]);
    CHECK_MSG(decode_one && decode_odd, "seed %llu: decode m = 1 %d, odd m > 1 %d", seed,
              decode_one, decode_odd);
    CHECK_MSG(prefill_odd, "seed %llu: no odd prefill m", seed);
    CHECK_MSG(square_odd, "seed %llu: no odd square", seed);
    *odd_decode += decode_odd;
    *odd_prefill += prefill_odd;
    *odd_square += square_odd;
    warplab_gemm_grid_destroy(grid);
}

/* The seeded strided-batched tables: the same seed gives the same cells,
 * another seed others; every cell an attention product in range, the
 * same shapes in each precision x output group, the cap respected. */
static void check_batched_draws(void)
{
    warplab_gemm_grid *a = NULL, *b = NULL, *c = NULL, *fixed = NULL;
    CHECK(warplab_gemm_batched_grid_draw(5, &a) == WARPLAB_OK && a);
    CHECK(warplab_gemm_batched_grid_draw(5, &b) == WARPLAB_OK && b);
    CHECK(warplab_gemm_batched_grid_draw(6, &c) == WARPLAB_OK && c);
    CHECK(warplab_gemm_batched_grid_make(&fixed) == WARPLAB_OK && fixed);
    warplab_gemm_grid *none = NULL;
    CHECK(warplab_gemm_batched_grid_draw(0, &none) == WARPLAB_ERROR_INVALID_ARGUMENT && !none);
    CHECK(warplab_gemm_batched_grid_draw(5, NULL) == WARPLAB_ERROR_INVALID_ARGUMENT);
    if (!a || !b || !c || !fixed)
        return;
    CHECK(a->batched == 1 && a->seed == 5 && a->count == 96 && same_cells(a, b));
    CHECK(!same_cells(a, c));
    for (unsigned long long seed = 1; seed <= 200; seed++) {
        warplab_gemm_grid *g = NULL;
        CHECK(warplab_gemm_batched_grid_draw(seed * 0x9E3779B97F4A7C15ull + 3, &g) == WARPLAB_OK);
        if (!g)
            continue;
        const size_t per_group = g->count / 4;
        for (size_t i = 0; i < g->count; i++) {
            const warplab_gemm_grid_cell *x = &g->cells[i], *first = &g->cells[i % per_group];
            const bool qk = x->op_b == WARPLAB_OP_T;
            const size_t seq = x->m, head = qk ? x->k : x->n;
            CHECK(x->batch >= 2 && x->batch <= 128);
            CHECK(seq >= 128 && seq <= 4096 && seq % 8 == 0);
            CHECK(head == 64 || head == 80 || head == 96 || head == 128);
            CHECK(qk ? (x->n == seq && x->k == head) : (x->k == seq && x->op_b == WARPLAB_OP_N));
            CHECK(x->op_a == WARPLAB_OP_N && x->compute == WARPLAB_COMPUTE_FP32);
            CHECK(x->m == first->m && x->n == first->n && x->k == first->k &&
                  x->batch == first->batch && x->op_b == first->op_b);
            const double in = (double)warplab_dtype_size(x->ab_type),
                         out = (double)warplab_dtype_size(x->c_type);
            const double bytes =
                (double)x->batch * (((double)x->m * x->k + (double)x->k * x->n) * in +
                                    2.0 * (double)x->m * x->n * out);
            CHECK((x->flags == WARPLAB_ROW_SKIPPED) ==
                  (bytes > (double)WARPLAB_GEMM_BATCHED_MAX_BYTES));
        }
        warplab_gemm_grid_destroy(g);
    }
    warplab_gemm_grid_destroy(a);
    warplab_gemm_grid_destroy(b);
    warplab_gemm_grid_destroy(c);
    warplab_gemm_grid_destroy(fixed);
}

int main(void)
{
    /* The default seed, and the same seed twice. */
    warplab_gemm_grid *a = NULL, *b = NULL, *c = NULL;
    CHECK(warplab_gemm_grid_make(0, &a) == WARPLAB_OK);
    CHECK(warplab_gemm_grid_make(WARPLAB_GEMM_GRID_SEED, &b) == WARPLAB_OK);
    CHECK(warplab_gemm_grid_make(7, &c) == WARPLAB_OK);
    if (a && b && c) {
        CHECK(a->seed == WARPLAB_GEMM_GRID_SEED);
        CHECK(same_cells(a, b));
        CHECK(!same_cells(a, c)); /* another seed meets other shapes */
        CHECK(a->count > 100);
    }
    /* Many seeds: ranges, requirements, cross product, caps. */
    int odd_decode = 0, odd_prefill = 0, odd_square = 0;
    for (unsigned long long seed = 1; seed <= 300; seed++)
        check_seed(seed * 0x9E3779B97F4A7C15ull + 1, &odd_decode, &odd_prefill, &odd_square);
    CHECK(odd_decode == 300 && odd_prefill == 300 && odd_square == 300);
    /* Distinct shapes across seeds: the draws are not a fixed list. */
    if (a && c) {
        size_t differing = 0;
        for (size_t i = 0; i < a->count && i < c->count; i++)
            differing += a->cells[i].m != c->cells[i].m || a->cells[i].n != c->cells[i].n ||
                         a->cells[i].k != c->cells[i].k;
        CHECK(differing > a->count / 2);
    }
    CHECK(warplab_gemm_grid_make(1, NULL) == WARPLAB_ERROR_INVALID_ARGUMENT);

    /* The candidates: the planner's table, by name. */
    CHECK(warplab_gemm_candidate_name(0) != NULL);
    size_t candidates = 0;
    while (warplab_gemm_candidate_name(candidates))
        candidates++;
    CHECK(candidates >= 4);

    /* Without a GPU (the cpu backend here): an unknown candidate is refused
     * first, then the backend. */
    warplab_context *context = NULL;
    if (warplab_context_create(WARPLAB_BACKEND_CPU, 0, &context) == WARPLAB_OK) {
        warplab_gemm_grid_options options;
        memset(&options, 0, sizeof options);
        options.candidate = "no_such_kernel";
        CHECK(warplab_gemm_grid_run(context, &options, a) == WARPLAB_ERROR_UNKNOWN_NAME);
        CHECK(strstr(warplab_last_error(context), "no_such_kernel") != NULL);
        CHECK(strstr(warplab_last_error(context), warplab_gemm_candidate_name(0)) != NULL);
        options.candidate = warplab_gemm_candidate_name(0);
        CHECK(warplab_gemm_grid_run(context, &options, a) == WARPLAB_ERROR_UNSUPPORTED);
        CHECK(strstr(warplab_last_error(context), "cuda") != NULL);
        CHECK(warplab_gemm_force_candidate(context, "no_such_kernel") ==
              WARPLAB_ERROR_UNKNOWN_NAME);
        CHECK(warplab_gemm_force_candidate(context, warplab_gemm_candidate_name(0)) == WARPLAB_OK);
        CHECK(warplab_gemm_force_candidate(context, NULL) == WARPLAB_OK);
        CHECK(warplab_gemm_force_candidate(NULL, NULL) == WARPLAB_ERROR_INVALID_ARGUMENT);
        warplab_context_destroy(context);
    }

    /* The writers: a grid that has not run says so cell by cell. */
    if (a) {
        char *text = NULL;
        size_t len = 0;
        FILE *out = open_memstream(&text, &len);
        CHECK(warplab_gemm_grid_write(a, WARPLAB_FORMAT_TABLE, out) == WARPLAB_OK);
        CHECK(warplab_gemm_grid_write(a, WARPLAB_FORMAT_JSON, out) == WARPLAB_OK);
        CHECK(warplab_gemm_grid_write(a, WARPLAB_FORMAT_CSV, out) == WARPLAB_ERROR_UNSUPPORTED);
        fclose(out);
        CHECK(text && strstr(text, "summary") && strstr(text, "\"cells\": [") &&
              strstr(text, "\"seed\": \"24301\"") && strstr(text, "tuning set"));
        free(text);
    }
    warplab_gemm_grid_destroy(a);
    warplab_gemm_grid_destroy(b);
    warplab_gemm_grid_destroy(c);
    check_batched_draws();
    return check_report("test_gemm_grid");
}
