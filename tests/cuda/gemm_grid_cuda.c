/* The GEMM grid on a GPU (warplab_gemm_grid_run), on a tiny grid: every
 * precision x output x layout of the default grid, its shapes replaced by
 * small ones of each class (odd sizes among them). Every cell runs through
 * warplab_gemm_ex and cublasGemmEx, verifies, and gets a time, a ratio and
 * the planner's pick; with a candidate forced, the cells it cannot take are
 * skipped and say why, the others run it and verify; warplab_gemm_ex with a
 * forced candidate that cannot take the call fails and says why. Exit 77
 * without a CUDA GPU. */
#include "../check.h"
#include "warplab_lab.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Small shapes of each class: decode (m = 1, an odd m), prefill-like,
 * a square, large k, tall-skinny. */
static const size_t tiny[][3] = {{1, 1024, 1024}, {7, 4096, 1024}, {129, 1024, 1024},
                                 {97, 97, 97},    {33, 40, 8192},  {9001, 12, 256}};
#define TINY (sizeof tiny / sizeof tiny[0])
static const char *const tiny_class[TINY] = {"decode", "decode",  "prefill",
                                             "square", "large_k", "tall_skinny"};

/* The default grid's groups, each with the tiny shapes. */
static warplab_gemm_grid *tiny_grid(void)
{
    warplab_gemm_grid *grid = NULL;
    if (warplab_gemm_grid_make(0, &grid) != WARPLAB_OK)
        return NULL;
    size_t groups = 0;
    warplab_gemm_grid_cell *cells = calloc(grid->count * TINY, sizeof *cells);
    for (size_t i = 0; cells && i < grid->count; i++) {
        const warplab_gemm_grid_cell *c = &grid->cells[i];
        if (i > 0 && c->op_a == grid->cells[i - 1].op_a && c->op_b == grid->cells[i - 1].op_b &&
            c->ab_type == grid->cells[i - 1].ab_type && c->c_type == grid->cells[i - 1].c_type &&
            c->compute == grid->cells[i - 1].compute)
            continue;
        for (size_t s = 0; s < TINY; s++) {
            warplab_gemm_grid_cell *t = &cells[groups * TINY + s];
            *t = *c;
            t->flags = 0;
            t->note[0] = '\0';
            strcpy(t->shape_class, tiny_class[s]);
            t->m = tiny[s][0];
            t->n = tiny[s][1];
            t->k = tiny[s][2];
        }
        groups++;
    }
    free(grid->cells);
    grid->cells = cells;
    grid->count = cells ? groups * TINY : 0;
    return grid;
}

static bool is_candidate(const char *name)
{
    for (size_t i = 0; warplab_gemm_candidate_name(i); i++)
        if (strcmp(warplab_gemm_candidate_name(i), name) == 0)
            return true;
    return false;
}

int main(void)
{
    warplab_context *context = NULL;
    if (warplab_context_create(WARPLAB_BACKEND_CUDA, 0, &context) != WARPLAB_OK) {
        printf("test_gemm_grid_cuda: skipped: no CUDA GPU (%s)\n", warplab_last_error(NULL));
        return TEST_SKIP;
    }
    warplab_gemm_grid *grid = tiny_grid();
    CHECK(grid && grid->count == 14 * TINY);
    warplab_gemm_grid_options options;
    memset(&options, 0, sizeof options);
    options.repeat = 5;
    options.warmup = 1;
    options.max_seconds = 0.05;
    if (grid) {
        CHECK(warplab_gemm_grid_run(context, &options, grid) == WARPLAB_OK);
        for (size_t i = 0; i < grid->count; i++) {
            const warplab_gemm_grid_cell *c = &grid->cells[i];
            CHECK_MSG(c->flags == 0 && c->status == WARPLAB_OK, "cell %zu (%zux%zux%zu): %s", i,
                      c->m, c->n, c->k, c->note);
            CHECK_MSG(c->runs >= 3 && c->warplab_us > 0 && c->cublas_us > 0 && c->ratio > 0,
                      "cell %zu: %d runs, %g us, %g us", i, c->runs, c->warplab_us, c->cublas_us);
            CHECK_MSG(is_candidate(c->candidate), "cell %zu picked '%s'", i, c->candidate);
            CHECK_MSG(c->max_rel_error <= 1.0, "cell %zu: %g of its bound", i, c->max_rel_error);
        }
        CHECK(grid->device[0] && !grid->incomplete);
        warplab_gemm_grid_write(grid, WARPLAB_FORMAT_TABLE, stdout);
    }
    warplab_gemm_grid_destroy(grid);

    /* A candidate forced: where it takes a cell it runs and verifies, and
     * elsewhere the cell says why it did not run. */
    static const char *const forced[] = {"gemv_k", "tiled"};
    for (size_t f = 0; f < 2; f++) {
        grid = tiny_grid();
        if (!grid)
            continue;
        options.candidate = forced[f];
        CHECK(warplab_gemm_grid_run(context, &options, grid) == WARPLAB_OK);
        size_t ran = 0, skipped = 0;
        for (size_t i = 0; i < grid->count; i++) {
            const warplab_gemm_grid_cell *c = &grid->cells[i];
            CHECK_STR(c->candidate, forced[f]);
            if (c->flags & WARPLAB_ROW_SKIPPED) {
                skipped++;
                CHECK_MSG(strstr(c->note, "cannot take"), "cell %zu: %s", i, c->note);
            } else {
                ran++;
                CHECK_MSG(c->flags == 0 && c->ratio > 0, "cell %zu forced %s: %s", i, forced[f],
                          c->note);
            }
        }
        CHECK_MSG(ran > 0 && skipped > 0, "%s: %zu ran, %zu skipped", forced[f], ran, skipped);
        CHECK_STR(grid->candidate, forced[f]);
        warplab_gemm_grid_destroy(grid);
    }

    /* warplab_gemm_ex itself: a forced candidate that cannot take the call
     * fails and says why; restored, the planner runs it. */
    const size_t n = 256;
    warplab_buffer *a = NULL, *b = NULL, *c = NULL;
    CHECK(warplab_buffer_create(context, n * n * 4, &a) == WARPLAB_OK);
    CHECK(warplab_buffer_create(context, n * n * 4, &b) == WARPLAB_OK);
    CHECK(warplab_buffer_create(context, n * n * 4, &c) == WARPLAB_OK);
    if (a && b && c) {
        CHECK(warplab_gemm_force_candidate(context, "gemv_k") == WARPLAB_OK);
        CHECK(warplab_gemm_ex(context, WARPLAB_OP_N, WARPLAB_OP_T, n, n, n, 1.0f, a,
                              WARPLAB_FLOAT32, 0, b, WARPLAB_FLOAT32, 0, 0.0f, c, WARPLAB_FLOAT32,
                              0, WARPLAB_COMPUTE_FP32) == WARPLAB_ERROR_UNSUPPORTED);
        CHECK(strstr(warplab_last_error(context), "gemv_k cannot take") != NULL);
        CHECK(warplab_gemm_force_candidate(context, NULL) == WARPLAB_OK);
        CHECK(warplab_gemm_ex(context, WARPLAB_OP_N, WARPLAB_OP_T, n, n, n, 1.0f, a,
                              WARPLAB_FLOAT32, 0, b, WARPLAB_FLOAT32, 0, 0.0f, c, WARPLAB_FLOAT32,
                              0, WARPLAB_COMPUTE_FP32) == WARPLAB_OK);
        CHECK(warplab_context_synchronize(context) == WARPLAB_OK);
    }
    warplab_buffer_destroy(a);
    warplab_buffer_destroy(b);
    warplab_buffer_destroy(c);
    warplab_context_destroy(context);
    return check_report("test_gemm_grid_cuda");
}
