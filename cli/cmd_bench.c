/* warplab bench: ladders through the harness, printed as the course's tables. */
#define _GNU_SOURCE
#include "cli.h"

#include "warplab_lab.h"
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Where the run's time went, on stderr beside the progress lines: the rows'
 * wall time (buffers, checks and timed runs) summed per ladder, in run order. */
static void print_wall_times(const warplab_report *report)
{
    double total = 0.0;
    for (size_t i = 0; i < report->row_count; i++)
        total += report->rows[i].wall_s;
    if (report->row_count == 0 || !(total > 0.0))
        return;
    fprintf(stderr, "warplab: %zu row%s in %.1f s (", report->row_count,
            report->row_count == 1 ? "" : "s", total);
    for (size_t i = 0; i < report->row_count;) {
        double ladder = 0.0;
        size_t j = i;
        for (; j < report->row_count && strcmp(report->rows[j].ladder, report->rows[i].ladder) == 0;
             j++)
            ladder += report->rows[j].wall_s;
        fprintf(stderr, "%s%s %.1f s", i ? ", " : "", report->rows[i].ladder, ladder);
        i = j;
    }
    fputs(")\n", stderr);
}

static void bench_help(FILE *out)
{
    fprintf(out, "usage: warplab bench [LADDER] [OPTIONS]\n"
                 "\n"
                 "Verifies every rung of a ladder against the CPU reference (fresh random inputs,\n"
                 "poisoned outputs), then times it: warm-up, then the median of many runs with\n"
                 "caches flushed between them. Without LADDER, runs every ladder.\n"
                 "\n"
                 "ladders:\n");
    cli_print_ladders(out);
    fprintf(out, "  %-10s %s\n", "api",
            "the library's calls against CUB, cuBLAS and a float4 kernel (cuda; --rung picks\n"
            "             reduce, reduce_device, transpose, gemm, vecadd, scan, scan_int32,\n"
            "             histogram_u8, histogram_int32, histogram_float)");
    cli_run_help_options(out, true);
    fprintf(out,
            "\n"
            "\n"
            "warplab bench gemm --batched [--seed S] [--json FILE]: warplab_gemm_batched_ex\n"
            "against cublasGemmStridedBatchedEx on attention's products (batch 8, 32, 96),\n"
            "verified; --seed S draws 24 other shapes (batch 2..128, sequence 128..4096,\n"
            "head 64..128) instead. Takes the options --grid takes.\n"
            "\n"
            "warplab bench gemm --grid [--seed S] [--candidate NAME] [--type LIST] [--json FILE]:\n"
            "the GEMM planner's judging grid (held out: its tuning sets are\n"
            "scripts/gemm_decode_bench.c and scripts/gemm_tile_tuning.sh); every cell\n"
            "warplab_gemm_ex against cublasGemmEx, verified; --type fp32,tf32,bf16,fp16 keeps\n"
            "the cells of those precisions. Takes --repeat,\n"
            "--warmup, --max-seconds (a cell's budget, default 0.25), --no-flush, --backend,\n"
            "--device, --quiet. Exit status as below; a cell that fails its check is exit 1.\n"
            "\n"
            "Exit status: 0 when every rung that ran was verified; 1 when one failed, the run\n"
            "broke, an output could not be written or nothing ran (every rung skipped); 2 on\n"
            "bad usage or input (checked before anything runs); 130 when interrupted (Ctrl-C;\n"
            "143 for SIGTERM): the finished rows are printed and written, the JSON marked\n"
            "incomplete.\n");
}

/* Appends ",id" (or "id" first) to list unless it is there; false when it
 * does not fit. */
static bool list_add(char *list, size_t len, const char *id)
{
    for (const char *p = list; (p = strstr(p, id)) != NULL; p += strlen(id))
        if ((p == list || p[-1] == ',') && (p[strlen(id)] == ',' || p[strlen(id)] == '\0'))
            return true;
    size_t used = strlen(list);
    int more = snprintf(list + used, len - used, "%s%s", used ? "," : "", id);
    return more >= 0 && (size_t)more < len - used;
}

/* The rungs of a shape-set run: each rung that names its vendor row, that
 * row, and the copy references. */
static bool shape_set_rungs(const char *ladder, char *out, size_t len)
{
    out[0] = '\0';
    for (size_t i = 0; warplab_ladder_rung(ladder, i, NULL); i++) {
        const char *id = warplab_ladder_rung(ladder, i, NULL);
        warplab_rung_info info;
        if (warplab_rung_describe(ladder, id, &info) != WARPLAB_OK)
            continue;
        if (info.vendor[0] && (!list_add(out, len, id) || !list_add(out, len, info.vendor)))
            return false;
    }
    for (size_t i = 0; warplab_ladder_rung(ladder, i, NULL); i++) {
        const char *id = warplab_ladder_rung(ladder, i, NULL);
        if ((warplab_rung_flags(ladder, id) & WARPLAB_ROW_REFERENCE) && !list_add(out, len, id))
            return false;
    }
    return true;
}

/* warplab bench api: the pairs as op, size, warplab, vendor, ratio. */
static void print_api_table(const warplab_report *report)
{
    printf("\n%-14s %-20s %12s %12s %7s %7s  %s\n", "op", "size", "warplab", "vendor", "ratio",
           "noise", "vendor call");
    for (size_t i = 0; i + 1 < report->row_count; i += 2) {
        const warplab_row *ours = &report->rows[i], *vendor = &report->rows[i + 1];
        if (ours->flags & (WARPLAB_ROW_SKIPPED | WARPLAB_ROW_FAILED)) {
            printf("%-14s %-20s %s: %s\n", ours->rung, ours->problem,
                   ours->flags & WARPLAB_ROW_SKIPPED ? "skipped" : "FAILED", ours->note);
            continue;
        }
        const double noise =
            ours->noise_pct > vendor->noise_pct ? ours->noise_pct : vendor->noise_pct;
        printf("%-14s %-20s %9.2f us %9.2f us %6.3fx %6.1f%%  %s\n", ours->rung, ours->problem,
               ours->median_ms * 1e3, vendor->median_ms * 1e3, ours->pct_of_vendor / 100.0, noise,
               vendor->title);
    }
    printf("\nratio = vendor time / warplab time (> 1: warplab is faster); medians of the runs, "
           "L2 %s\n",
           report->l2_flushed ? "flushed before each" : "warm");
}

static int bench_api(const cli_run *run, warplab_bench_options *bench)
{
    const char *json = run->json;
    const warplab_format format = run->format;
    /* The output file is checked (and begun) before anything runs. */
    cli_output json_out, unused;
    cli_outputs_init(&json_out, &unused);
    int code = CLI_OK;
    if (json && (code = cli_output_begin(&json_out, json, "--json")) != CLI_OK)
        return code;
    warplab_context *context = NULL;
    code = cli_open_context(run->backend, run->device, &context);
    if (code != CLI_OK) {
        cli_output_abandon(&json_out);
        return code;
    }
    if (warplab_context_backend(context) != WARPLAB_BACKEND_CUDA) {
        cli_output_abandon(&json_out);
        printf("warplab bench api: skipped: it compares the library with CUB and cuBLAS, which "
               "need the cuda backend (this run has %s: %s)\n",
               warplab_backend_name(warplab_context_backend(context)),
               warplab_context_device(context)->name);
        warplab_context_destroy(context);
        return CLI_OK;
    }
    if (format == WARPLAB_FORMAT_TABLE)
        printf("warplab %s bench api on %s (cuda backend)\n", warplab_version(),
               warplab_context_device(context)->name);
    warplab_report *report = NULL;
    warplab_status status = warplab_bench_api(context, bench, &report);
    if (status != WARPLAB_OK) {
        code = cli_fail(status, warplab_last_error(context), "bench api");
        cli_output_abandon(&json_out);
        warplab_context_destroy(context);
        return code;
    }
    if (format == WARPLAB_FORMAT_TABLE)
        print_api_table(report);
    else
        warplab_report_write(report, format, stdout);
    fflush(stdout);
    if (json)
        code = cli_write_file(report, &json_out, WARPLAB_FORMAT_JSON, false);
    for (size_t i = 0; i < report->row_count; i++)
        if ((report->rows[i].flags & WARPLAB_ROW_FAILED) && code == CLI_OK)
            code = CLI_FAILED;
    warplab_report_destroy(report);
    warplab_context_destroy(context);
    return code;
}

/* The precision of a grid cell as --type names it: fp32, tf32, bf16, fp16. */
static const char *grid_cell_precision(const warplab_gemm_grid_cell *cell)
{
    if (cell->compute == WARPLAB_COMPUTE_TF32)
        return "tf32";
    return cell->ab_type == WARPLAB_BFLOAT16  ? "bf16"
           : cell->ab_type == WARPLAB_FLOAT16 ? "fp16"
                                              : "fp32";
}

/* Whether every name of a --type list is a grid precision; with cell, also
 * whether the cell's precision is among them. */
static bool grid_precisions(const char *list, const warplab_gemm_grid_cell *cell)
{
    static const char *const names[] = {"fp32", "tf32", "bf16", "fp16"};
    bool valid = true, listed = false;
    for (const char *p = list;; p++) { /* each name, empty ones refused */
        const size_t len = strcspn(p, ",");
        bool known = false;
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
            if (len == strlen(names[i]) && strncmp(p, names[i], len) == 0) {
                known = true;
                listed = listed || (cell && strcmp(grid_cell_precision(cell), names[i]) == 0);
            }
        valid = valid && known;
        p += len;
        if (*p != ',')
            break;
    }
    return valid && (!cell || listed);
}

/* warplab bench gemm --grid: options the grid does not take are refused,
 * with what it does instead. */
static int grid_usage(const cli_run *run, const warplab_bench_options *bench)
{
    const char *flag = run->batched ? "--batched" : "--grid";
    if (!bench->ladder || strcmp(bench->ladder, "gemm") != 0)
        return cli_usage_error("bench", "%s is the gemm ladder's (warplab bench gemm %s)%s%s", flag,
                               flag, bench->ladder ? ", not " : "",
                               bench->ladder ? bench->ladder : "");
    const struct {
        bool given;
        const char *option;
    } refused[] = {{run->size != NULL, "--size"},
                   {run->sweep, "--sweep"},
                   {run->shapes, "--shapes"},
                   {run->rungs != NULL, "--rung"},
                   {run->op != NULL, "--op"},
                   {run->counters, "--counters"},
                   {run->html != NULL, "--html"},
                   {run->plot != NULL, "--plot"},
                   {run->format == WARPLAB_FORMAT_CSV, "--csv"},
                   {run->format == WARPLAB_FORMAT_MARKDOWN, "--markdown"}};
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
        if (refused[i].given)
            return cli_usage_error("bench",
                                   "%s chooses its shapes, types and layouts and prints one "
                                   "table (--json FILE keeps every cell); leave out %s",
                                   flag, refused[i].option);
    if (run->dtype && !grid_precisions(run->dtype, NULL))
        return cli_usage_error("bench",
                               "--type with %s takes a comma-separated list of fp32, tf32, "
                               "bf16 and fp16 (the cells' precisions), not '%s'",
                               flag, run->dtype);
    if (run->seed_given && run->seed == 0 && run->batched)
        return cli_usage_error("bench", "--seed with --batched needs a number from 1 to "
                                        "18446744073709551615, not 0 (without --seed: the "
                                        "fixed table)");
    if (run->seed_given && run->seed == 0)
        return cli_usage_error("bench",
                               "--seed with --grid needs a number from 1 to "
                               "18446744073709551615, not 0 (without --seed: %llu)",
                               WARPLAB_GEMM_GRID_SEED);
    if (run->candidate) {
        bool known = false;
        char names[256] = "";
        for (size_t i = 0; warplab_gemm_candidate_name(i); i++) {
            const char *name = warplab_gemm_candidate_name(i);
            known = known || strcmp(name, run->candidate) == 0;
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "",
                     name);
        }
        if (!known)
            return cli_usage_error("bench", "--candidate: no GEMM planner candidate '%s' (%s)",
                                   run->candidate, names);
    }
    return CLI_OK;
}

/* warplab bench gemm --grid: the planner's judging grid against cuBLAS. */
static int bench_gemm_grid(const cli_run *run)
{
    cli_interrupt_install(true);
    cli_output json_out, unused;
    cli_outputs_init(&json_out, &unused);
    int code = CLI_OK;
    if (run->json && (code = cli_output_begin(&json_out, run->json, "--json")) != CLI_OK)
        return code;
    const char *what = run->batched ? "bench gemm --batched" : "bench gemm --grid";
    warplab_gemm_grid *grid = NULL;
    warplab_status status =
        run->batched ? (run->seed_given ? warplab_gemm_batched_grid_draw(run->seed, &grid)
                                        : warplab_gemm_batched_grid_make(&grid))
                     : warplab_gemm_grid_make(run->seed_given ? run->seed : 0, &grid);
    if (status != WARPLAB_OK) {
        cli_output_abandon(&json_out);
        return cli_fail(status, warplab_last_error(NULL), what);
    }
    if (run->dtype) { /* only the cells of the precisions listed, in their order */
        size_t kept = 0;
        for (size_t i = 0; i < grid->count; i++)
            if (grid_precisions(run->dtype, &grid->cells[i]))
                grid->cells[kept++] = grid->cells[i];
        grid->count = kept;
    }
    warplab_context *context = NULL;
    code = cli_open_context(run->backend, run->device, &context);
    if (code != CLI_OK) {
        cli_output_abandon(&json_out);
        warplab_gemm_grid_destroy(grid);
        return code;
    }
    if (warplab_context_backend(context) != WARPLAB_BACKEND_CUDA) {
        cli_output_abandon(&json_out);
        printf("warplab %s: skipped: it compares warplab with cuBLAS, "
               "which needs the cuda backend (this run has %s: %s)\n",
               what, warplab_backend_name(warplab_context_backend(context)),
               warplab_context_device(context)->name);
        warplab_gemm_grid_destroy(grid);
        warplab_context_destroy(context);
        return CLI_OK;
    }
    if (run->batched) {
        char shapes[64] = "the fixed table";
        if (run->seed_given)
            snprintf(shapes, sizeof shapes, "the shapes of seed %llu", grid->seed);
        printf("warplab %s bench gemm --batched on %s (cuda backend): %s, %zu cells%s%s%s%s\n",
               warplab_version(), warplab_context_device(context)->name, shapes, grid->count,
               run->dtype ? " of " : "", run->dtype ? run->dtype : "",
               run->candidate ? ", candidate forced: " : "", run->candidate ? run->candidate : "");
    } else
        printf(
            "warplab %s bench gemm --grid on %s (cuda backend): seed %llu%s, %zu cells%s%s%s%s\n",
            warplab_version(), warplab_context_device(context)->name, grid->seed,
            run->seed_given ? "" : " (the default; --seed S draws other shapes)", grid->count,
            run->dtype ? " of " : "", run->dtype ? run->dtype : "",
            run->candidate ? ", candidate forced: " : "", run->candidate ? run->candidate : "");
    fflush(stdout);
    warplab_gemm_grid_options options;
    memset(&options, 0, sizeof options);
    options.candidate = run->candidate;
    options.repeat = run->repeat;
    options.warmup = run->warmup;
    options.max_seconds = run->max_seconds;
    options.no_flush = run->no_flush;
    options.cancelled = cli_interrupted;
    if (!run->quiet)
        options.progress = cli_progress_line;
    status = warplab_gemm_grid_run(context, &options, grid);
    if (status != WARPLAB_OK) {
        code = cli_fail(status, warplab_last_error(context), what);
        cli_output_abandon(&json_out);
        warplab_gemm_grid_destroy(grid);
        warplab_context_destroy(context);
        return code;
    }
    warplab_gemm_grid_write(grid, WARPLAB_FORMAT_TABLE, stdout);
    fflush(stdout);
    if (run->json)
        code = cli_write_grid(grid, &json_out);
    size_t failed = 0, ran = 0;
    for (size_t i = 0; i < grid->count; i++) {
        const warplab_gemm_grid_cell *cell = &grid->cells[i];
        if (cell->flags & WARPLAB_ROW_FAILED) {
            fprintf(stderr, "%swarplab: gemm grid %s %zux%zux%zu failed: %s\n", failed ? "" : "\n",
                    cell->shape_class, cell->m, cell->n, cell->k, cell->note);
            failed++;
        } else if (!(cell->flags & WARPLAB_ROW_SKIPPED)) {
            ran++;
        }
    }
    if (grid->incomplete) {
        fprintf(stderr, "warplab: interrupted%s\n",
                run->json ? " (the JSON is marked incomplete)" : "");
        code = 128 + cli_interrupted(NULL);
    } else if (failed && code == CLI_OK) {
        code = CLI_FAILED;
    } else if (ran == 0 && code == CLI_OK) {
        fprintf(stderr, "warplab: nothing ran: every cell was skipped (the reasons are in the "
                        "table)\n");
        code = CLI_FAILED;
    }
    warplab_gemm_grid_destroy(grid);
    warplab_context_destroy(context);
    return code;
}

int cmd_bench(int argc, char **argv)
{
    cli_run run;
    warplab_bench_options bench;
    int code = cli_run_parse(argc, argv, true, &run, bench_help);
    if (code != CLI_OK)
        return code < 0 ? CLI_OK : code;
    code = cli_run_options(&run, true, &bench);
    if (code != CLI_OK)
        return code;
    char rung_list[1024];
    if (optind < argc)
        bench.ladder = argv[optind++];
    if (optind < argc)
        return cli_usage_error("bench",
                               "one ladder at a time (got '%s' too); without one, "
                               "every ladder runs",
                               argv[optind]);
    if (run.batched && run.grid)
        return cli_usage_error("bench", "--batched and --grid are two tables: one at a time");
    if (run.candidate && !run.grid && !run.batched)
        return cli_usage_error("bench", "--candidate needs --grid (warplab bench gemm --grid "
                                        "--candidate NAME)");
    if (run.grid || run.batched) {
        code = grid_usage(&run, &bench);
        return code != CLI_OK ? code : bench_gemm_grid(&run);
    }
    if (run.sweep) {
        if (!bench.ladder)
            return cli_usage_error("bench", "--sweep needs a ladder (e.g. warplab bench reduce "
                                            "--sweep --rung single_pass)");
        if (bench.sizes)
            return cli_usage_error("bench", "--sweep chooses the sizes (2^10 to 2^30); leave "
                                            "out --size");
    }
    if (bench.sizes && !*bench.sizes)
        return cli_usage_error("bench",
                               "--size needs sizes, not '': comma-separated, each dimension 1 "
                               "or more (2^28, 268435456, 256M, 4096x4096)");
    if (run.shapes) {
        if (!bench.ladder)
            return cli_usage_error("bench", "--shapes needs a ladder (e.g. warplab bench gemm "
                                            "--shapes)");
        if (run.sweep || bench.sizes)
            return cli_usage_error("bench", "--shapes chooses the sizes; leave out --size and "
                                            "--sweep");
        bench.sizes = warplab_ladder_shape_set(bench.ladder);
        if (!bench.sizes)
            return cli_usage_error("bench", "the %s ladder has no shape set", bench.ladder);
        if (!bench.rungs) {
            if (!shape_set_rungs(bench.ladder, rung_list, sizeof rung_list))
                return cli_usage_error("bench", "too many paired rungs for one run");
            if (rung_list[0])
                bench.rungs = rung_list;
        }
    }
    if (!run.quiet)
        bench.progress = cli_progress_line;
    if (bench.ladder && strcmp(bench.ladder, "api") == 0) {
        if (run.sweep)
            return cli_usage_error("bench", "bench api has its own sizes; leave out --sweep");
        return bench_api(&run, &bench);
    }

    /* Everything that can be wrong with the command is found before the
     * banner and before any rung runs: the output files first. */
    /* Ctrl-C (or SIGTERM, SIGHUP) stops the run at the next rung (or timed
     * run): the rows that finished are printed and written, marked
     * incomplete. A second one (not the same one delivered twice) kills at
     * once, leaving no temporary file. */
    cli_interrupt_install(true);
    cli_output json_out, plot_out;
    cli_outputs_init(&json_out, &plot_out);
    if (run.json && (code = cli_output_begin(&json_out, run.json, "--json")) != CLI_OK)
        return code;
    if (run.plot && (code = cli_output_begin(&plot_out, run.plot, "--plot")) != CLI_OK) {
        cli_output_abandon(&json_out);
        return code;
    }
    cli_output html_out, no_output;
    cli_outputs_init(&html_out, &no_output);
    if (run.html && (code = cli_output_begin(&html_out, run.html, "--html")) != CLI_OK) {
        cli_outputs_abandon(&json_out, &plot_out);
        return code;
    }
    warplab_context *context = NULL;
    code = cli_open_context(run.backend, run.device, &context);
    warplab_status status = WARPLAB_OK;
    /* The plan checked here is the one that runs. */
    bench.cancelled = cli_interrupted;
    warplab_bench_plan *plan = NULL;
    if (code == CLI_OK &&
        (status = warplab_bench_plan_create(context, &bench, &plan)) != WARPLAB_OK)
        code = cli_fail(status, warplab_last_error(context), "bench");
    if (code != CLI_OK) {
        cli_outputs_abandon(&json_out, &plot_out);
        cli_output_abandon(&html_out);
        warplab_context_destroy(context);
        return code;
    }
    if (warplab_context_backend(context) == WARPLAB_BACKEND_CPU && !run.backend)
        fprintf(stderr, "warplab: no GPU and no OpenCL device found: running on the cpu "
                        "backend\n");
    cli_run_banner(context, &run, "");
    fflush(stdout);

    warplab_report *report = NULL;
    status = warplab_bench_plan_run(plan, &report);
    warplab_bench_plan_destroy(plan);
    if (status != WARPLAB_OK) {
        code = cli_fail(status, warplab_last_error(context), "bench");
        cli_outputs_abandon(&json_out, &plot_out);
        cli_output_abandon(&html_out);
        warplab_context_destroy(context);
        return code;
    }
    warplab_report_write(report, run.format, stdout);
    if (run.sweep && run.format == WARPLAB_FORMAT_TABLE)
        warplab_report_write_sweep(report, stdout);
    fflush(stdout);
    if (run.json)
        code = cli_write_file(report, &json_out, WARPLAB_FORMAT_JSON, false);
    if (run.plot) {
        int plotted = run.sweep ? cli_write_sweep_svg(report, &plot_out)
                                : cli_write_file(report, &plot_out, WARPLAB_FORMAT_TABLE, true);
        if (code == CLI_OK)
            code = plotted;
    }
    if (run.counters || run.html) {
        /* Hardware counters (cuda, ncu) and the course handout. */
        const int extra = cli_bench_extras(report, &run, warplab_context_device(context), argc,
                                           argv, run.html ? &html_out : NULL);
        if (code == CLI_OK)
            code = extra;
    }

    if (!run.quiet)
        print_wall_times(report);
    size_t ran = 0;
    for (size_t i = 0; i < report->row_count; i++)
        if (!(report->rows[i].flags & WARPLAB_ROW_SKIPPED))
            ran++;
    size_t failed = cli_list_failures(report, NULL);
    if (report->incomplete) {
        fprintf(stderr, "warplab: interrupted: %zu row%s finished%s\n", report->row_count,
                report->row_count == 1 ? "" : "s",
                run.json ? " (the JSON is marked incomplete)" : "");
        code = 128 + cli_interrupted(NULL); /* 130 for SIGINT, 143 for SIGTERM */
    } else if (failed && code == CLI_OK) {
        code = CLI_FAILED;
    } else if (ran == 0 && code == CLI_OK) {
        fprintf(stderr, "warplab: nothing ran: every rung was skipped (the reasons are in the "
                        "table)\n");
        code = CLI_FAILED;
    }
    warplab_report_destroy(report);
    warplab_context_destroy(context);
    return code;
}
