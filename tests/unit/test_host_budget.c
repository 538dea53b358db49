/* The time budget of a host (CPU) row in a run on another device
 * (src/lab/harness.c, host_row_budget): a row whose run the same rung's run
 * at a smaller size predicts past the budget is skipped, the prediction its
 * reason; one the smaller run predicts inside it runs. The device is PoCL's
 * (a host row is budgeted only where the device is not the host); exits 77
 * without an OpenCL device. */
#include "../check.h"
#include "core/context.h"
#include "lab/harness.h"

#include "warplab_lab.h"
#include <string.h>

static int make(const wl_ladder *ladder, size_t n, wl_problem *problem)
{
    const size_t size[3] = {n, 0, 0};
    char error[256];
    return ladder->make_problem(size, 1, "float", NULL, problem, error, sizeof error) == WARPLAB_OK;
}

int main(void)
{
    warplab_context *context = NULL;
    if (warplab_context_create(WARPLAB_BACKEND_OPENCL, 0, &context) != WARPLAB_OK) {
        printf("SKIP: no OpenCL device (a host row is budgeted only beside another device)\n");
        return 77;
    }
    const wl_ladder *ladder = wl_ladder_find("vecadd");
    const wl_rung *rung = ladder ? wl_rung_find(ladder, "cpu_loop") : NULL;
    CHECK(rung != NULL);
    wl_problem small, large;
    CHECK(ladder && make(ladder, 1u << 12, &small) && make(ladder, 1u << 16, &large));
    if (check_failures) {
        warplab_context_destroy(context);
        return 1;
    }
    const wl_impl *impl = wl_rung_impl(context->device, context->host, ladder, rung);
    wl_run_config config = {.repeat = 3,
                            .warmup = 1,
                            .max_seconds = 0.05,
                            .verify = true,
                            .time = true,
                            .seed = 5,
                            .host_run_budget = 3.0,
                            .host_previous = &small};

    /* 0.5 s at 2^12 predicts 8 s at 2^16: skipped, the prediction said. */
    config.host_previous_seconds = 0.5;
    warplab_row row;
    warplab_status status =
        wl_run_rung(context->device, context->host, ladder, rung, impl, &large, &config, &row);
    CHECK(status == WARPLAB_ERROR_UNSUPPORTED);
    CHECK(row.flags & WARPLAB_ROW_SKIPPED);
    CHECK(strstr(row.note, "about 8.0 s") != NULL);
    CHECK(strstr(row.note, "smaller size") != NULL);

    /* 1 ms at 2^12 predicts 16 ms: it runs and verifies. */
    config.host_previous_seconds = 1e-3;
    status = wl_run_rung(context->device, context->host, ladder, rung, impl, &large, &config, &row);
    CHECK(status == WARPLAB_OK);
    CHECK(!(row.flags & WARPLAB_ROW_SKIPPED) && row.runs >= 1);

    /* A smaller run of the same size or larger predicts nothing. */
    config.host_previous = &large;
    config.host_previous_seconds = 100.0;
    status = wl_run_rung(context->device, context->host, ladder, rung, impl, &small, &config, &row);
    CHECK(status == WARPLAB_OK);

    warplab_context_destroy(context);
    return check_report("test_host_budget");
}
