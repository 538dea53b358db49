/* warplab bench: ladders through the harness, printed as the course's tables. */
#define _GNU_SOURCE
#include "cli.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

static void bench_help(FILE *out)
{
    fprintf(out, "usage: warplab bench [LADDER] [OPTIONS]\n"
                 "\n"
                 "Verifies every rung of a ladder against the CPU reference (fresh random inputs,\n"
                 "poisoned outputs), then times it: warm-up, then the median of many runs with\n"
                 "caches flushed between them. Without LADDER, runs every ladder.\n"
                 "\n"
                 "ladders:\n");
    for (size_t i = 0; i < warplab_ladder_count(); i++)
        fprintf(out, "  %-10s %s\n", warplab_ladder_name(i), warplab_ladder_title(i));
    fprintf(out, "  %-10s %s\n", "api",
            "the library's calls against CUB, cuBLAS and a float4 kernel (cuda; --rung picks\n"
            "             reduce, reduce_device, transpose, gemm, vecadd)");
    fprintf(out,
            "\noptions:\n"
            "  -b, --backend NAME   cuda, opencl, cpu or auto (default: the best present)\n"
            "  -d, --device N       device index within the backend (default 0)\n"
            "  -s, --size LIST      sizes, comma-separated: 2^28, 268435456, 256M, 4096x4096\n"
            "                       (default: full sizes on a GPU, small ones on a CPU)\n"
            "  -r, --rung LIST      only these rungs (ids from 'warplab ladders')\n"
            "  -t, --type NAME      element type where the ladder has several (int32, float,\n"
            "                       double)\n"
            "      --op NAME        operation where the ladder has several (sum, min, max)\n"
            "  -n, --repeat N       timed runs per rung (default 50, fewer past the budget)\n"
            "      --warmup N       untimed runs first (default 3)\n"
            "      --max-seconds S  time budget per rung (default 2)\n"
            "      --no-flush       keep caches warm between timed runs (default: flush L2)\n"
            "      --seed N         seed of the random inputs (default: from the clock)\n"
            "      --csv            print CSV instead of the table\n"
            "      --markdown       print Markdown instead of the table\n"
            "      --json FILE      also write the full report as JSON\n"
            "      --plot FILE      also write a bar chart (SVG) of each table\n"
            "      --sweep          GB/s against n, n = 2^10, 2^12, ..., 2^30 (sizes that do\n"
            "                       not fit are skipped), for the --rung list plus the vendor\n"
            "                       rows: the tables, a GB/s-by-n table, and with --plot a\n"
            "                       line chart. Needs a ladder with a 1-D size; --no-flush\n"
            "                       keeps L2 warm, as a caller's small inputs often are\n"
            "      --shapes         the ladder's named shape set instead of --size (gemm: GEMV\n"
            "                       m=1 and n=1, small m 2..64, small squares 128..1024, LLM\n"
            "                       projections, large k with small m and n, tall-skinny,\n"
            "                       odd sizes), for the rungs that name a vendor row (gemm:\n"
            "                       the dispatcher vs cuBLAS FP32), those vendor rows and the\n"
            "                       copy reference unless --rung says otherwise; the report\n"
            "                       ends with each pair's per-shape ratios, geometric mean\n"
            "                       and worst shape\n"
            "  -q, --quiet          no progress line\n"
            "  -h, --help           this help\n"
            "\n"
            "Exit status: 0 when every rung that ran was verified; 1 when one failed, the run\n"
            "broke, an output could not be written or nothing ran (every rung skipped); 2 on\n"
            "bad usage or input (checked before anything runs); 130 when interrupted (Ctrl-C;\n"
            "143 for SIGTERM): the finished rows are printed and written, the JSON marked\n"
            "incomplete.\n");
}

enum {
    OPT_OP = 256,
    OPT_WARMUP,
    OPT_MAX_SECONDS,
    OPT_NO_FLUSH,
    OPT_SEED,
    OPT_CSV,
    OPT_MARKDOWN,
    OPT_JSON,
    OPT_PLOT,
    OPT_SWEEP,
    OPT_SHAPES
};

/* The sweep's sizes: launch latency at the small end, bandwidth at the top. */
#define SWEEP_SIZES "2^10,2^12,2^14,2^16,2^18,2^20,2^22,2^24,2^26,2^28,2^30"

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

/* The --rung list plus the ladder's vendor rows not already in it; false
 * when it does not fit. */
static bool sweep_rungs(const char *ladder, const char *rungs, char *out, size_t len)
{
    int used = snprintf(out, len, "%s", rungs);
    if (used < 0 || (size_t)used >= len)
        return false;
    for (size_t i = 0; warplab_ladder_rung(ladder, i, NULL); i++) {
        const char *id = warplab_ladder_rung(ladder, i, NULL);
        if (!(warplab_rung_flags(ladder, id) & WARPLAB_ROW_VENDOR))
            continue;
        bool listed = false;
        for (const char *p = rungs; (p = strstr(p, id)) != NULL; p += strlen(id))
            if ((p == rungs || p[-1] == ',') && (p[strlen(id)] == ',' || p[strlen(id)] == '\0'))
                listed = true;
        if (listed)
            continue;
        int more = snprintf(out + used, len - (size_t)used, ",%s", id);
        if (more < 0 || (size_t)more >= len - (size_t)used)
            return false;
        used += more;
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

static int bench_api(const char *backend, int device, warplab_bench_options *bench,
                     warplab_format format, const char *json)
{
    /* The output file is checked (and begun) before anything runs. */
    cli_output json_out;
    memset(&json_out, 0, sizeof json_out);
    json_out.fd = -1;
    int code = CLI_OK;
    if (json && (code = cli_output_begin(&json_out, json, "--json")) != CLI_OK)
        return code;
    warplab_context *context = NULL;
    code = cli_open_context(backend, device, &context);
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

int cmd_bench(int argc, char **argv)
{
    static const struct option options[] = {
        {"backend", required_argument, NULL, 'b'},
        {"device", required_argument, NULL, 'd'},
        {"size", required_argument, NULL, 's'},
        {"rung", required_argument, NULL, 'r'},
        {"type", required_argument, NULL, 't'},
        {"op", required_argument, NULL, OPT_OP},
        {"repeat", required_argument, NULL, 'n'},
        {"warmup", required_argument, NULL, OPT_WARMUP},
        {"max-seconds", required_argument, NULL, OPT_MAX_SECONDS},
        {"no-flush", no_argument, NULL, OPT_NO_FLUSH},
        {"seed", required_argument, NULL, OPT_SEED},
        {"csv", no_argument, NULL, OPT_CSV},
        {"markdown", no_argument, NULL, OPT_MARKDOWN},
        {"json", required_argument, NULL, OPT_JSON},
        {"plot", required_argument, NULL, OPT_PLOT},
        {"sweep", no_argument, NULL, OPT_SWEEP},
        {"shapes", no_argument, NULL, OPT_SHAPES},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    warplab_bench_options bench;
    memset(&bench, 0, sizeof bench);
    const char *backend = NULL, *json = NULL, *plot = NULL;
    int device = -1;
    bool quiet = false, sweep = false, shapes = false;
    char rung_list[1024];
    warplab_format format = WARPLAB_FORMAT_TABLE;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "b:d:s:r:t:n:qh", options, NULL)) != -1) {
        switch (c) {
        case 'b': backend = optarg; break;
        case 'd':
            if (!cli_parse_int(optarg, &device) || device < 0)
                return cli_usage_error("bench", "--device needs an index >= 0, not '%s'", optarg);
            break;
        case 's': bench.sizes = optarg; break;
        case 'r': bench.rungs = optarg; break;
        case 't': bench.dtype = optarg; break;
        case OPT_OP: bench.op = optarg; break;
        case 'n':
            if (!cli_parse_int(optarg, &bench.repeat) || bench.repeat < 1)
                return cli_usage_error("bench", "--repeat needs a count >= 1, not '%s'", optarg);
            break;
        case OPT_WARMUP:
            if (!cli_parse_int(optarg, &bench.warmup) || bench.warmup < 1)
                return cli_usage_error("bench", "--warmup needs a count >= 1, not '%s'", optarg);
            break;
        case OPT_MAX_SECONDS:
            if (!cli_parse_double(optarg, &bench.max_seconds) || bench.max_seconds <= 0)
                return cli_usage_error("bench", "--max-seconds needs seconds > 0, not '%s'",
                                       optarg);
            break;
        case OPT_NO_FLUSH: bench.no_flush = 1; break;
        case OPT_SEED:
            if (!cli_parse_u64(optarg, &bench.seed))
                return cli_usage_error("bench", "--seed needs a number, not '%s'", optarg);
            break;
        case OPT_CSV: format = WARPLAB_FORMAT_CSV; break;
        case OPT_MARKDOWN: format = WARPLAB_FORMAT_MARKDOWN; break;
        case OPT_JSON: json = optarg; break;
        case OPT_PLOT: plot = optarg; break;
        case OPT_SWEEP: sweep = true; break;
        case OPT_SHAPES: shapes = true; break;
        case 'q': quiet = true; break;
        case 'h': bench_help(stdout); return CLI_OK;
        default: return cli_usage_error("bench", "unknown option");
        }
    }
    if (optind < argc)
        bench.ladder = argv[optind++];
    if (optind < argc)
        return cli_usage_error("bench",
                               "one ladder at a time (got '%s' too); without one, "
                               "every ladder runs",
                               argv[optind]);
    if (sweep) {
        if (!bench.ladder)
            return cli_usage_error("bench", "--sweep needs a ladder (e.g. warplab bench reduce "
                                            "--sweep --rung single_pass)");
        if (bench.sizes)
            return cli_usage_error("bench", "--sweep chooses the sizes (2^10 to 2^30); leave "
                                            "out --size");
        bench.sizes = SWEEP_SIZES;
        if (bench.rungs) {
            if (!sweep_rungs(bench.ladder, bench.rungs, rung_list, sizeof rung_list))
                return cli_usage_error("bench", "the --rung list is too long");
            bench.rungs = rung_list;
        }
    }
    if (bench.sizes && !*bench.sizes)
        return cli_usage_error("bench",
                               "--size needs sizes, not '': comma-separated, each dimension 1 "
                               "or more (2^28, 268435456, 256M, 4096x4096)");
    if (shapes) {
        if (!bench.ladder)
            return cli_usage_error("bench", "--shapes needs a ladder (e.g. warplab bench gemm "
                                            "--shapes)");
        if (sweep || bench.sizes)
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
    if (!quiet)
        bench.progress = cli_progress_line;
    if (bench.ladder && strcmp(bench.ladder, "api") == 0) {
        if (sweep)
            return cli_usage_error("bench", "bench api has its own sizes; leave out --sweep");
        return bench_api(backend, device, &bench, format, json);
    }

    /* Everything that can be wrong with the command is found before the
     * banner and before any rung runs: the output files first. */
    /* Ctrl-C (or SIGTERM, SIGHUP) stops the run at the next rung (or timed
     * run): the rows that finished are printed and written, marked
     * incomplete. A second one (not the same one delivered twice) kills at
     * once, leaving no temporary file. */
    cli_interrupt_install(true);
    cli_output json_out, plot_out;
    memset(&json_out, 0, sizeof json_out);
    memset(&plot_out, 0, sizeof plot_out);
    json_out.fd = plot_out.fd = -1;
    int code = CLI_OK;
    if (json && (code = cli_output_begin(&json_out, json, "--json")) != CLI_OK)
        return code;
    if (plot && (code = cli_output_begin(&plot_out, plot, "--plot")) != CLI_OK) {
        cli_output_abandon(&json_out);
        return code;
    }
    warplab_context *context = NULL;
    code = cli_open_context(backend, device, &context);
    warplab_status status = WARPLAB_OK;
    if (code == CLI_OK && (status = warplab_bench_validate(context, &bench)) != WARPLAB_OK)
        code = cli_fail(status, warplab_last_error(context), "bench");
    if (code != CLI_OK) {
        cli_output_abandon(&json_out);
        cli_output_abandon(&plot_out);
        warplab_context_destroy(context);
        return code;
    }
    const warplab_device_info *info = warplab_context_device(context);
    if (warplab_context_backend(context) == WARPLAB_BACKEND_CPU && !backend)
        fprintf(stderr, "warplab: no GPU and no OpenCL device found: running on the cpu "
                        "backend\n");
    if (format == WARPLAB_FORMAT_TABLE)
        printf("warplab %s on %s (%s backend)\n", warplab_version(), info->name,
               warplab_backend_name(warplab_context_backend(context)));
    fflush(stdout);

    bench.cancelled = cli_interrupted;
    warplab_report *report = NULL;
    status = warplab_bench(context, &bench, &report);
    if (status != WARPLAB_OK) {
        code = cli_fail(status, warplab_last_error(context), "bench");
        cli_output_abandon(&json_out);
        cli_output_abandon(&plot_out);
        warplab_context_destroy(context);
        return code;
    }
    warplab_report_write(report, format, stdout);
    if (sweep && format == WARPLAB_FORMAT_TABLE)
        warplab_report_write_sweep(report, stdout);
    fflush(stdout);
    if (json)
        code = cli_write_file(report, &json_out, WARPLAB_FORMAT_JSON, false);
    if (plot) {
        int plotted = sweep ? cli_write_sweep_svg(report, &plot_out)
                            : cli_write_file(report, &plot_out, WARPLAB_FORMAT_TABLE, true);
        if (code == CLI_OK)
            code = plotted;
    }

    size_t failed = 0, ran = 0;
    for (size_t i = 0; i < report->row_count; i++) {
        const warplab_row *row = &report->rows[i];
        if (!(row->flags & WARPLAB_ROW_SKIPPED))
            ran++;
        if ((row->flags & WARPLAB_ROW_FAILED) && !(row->flags & WARPLAB_ROW_EXPECTED_WRONG)) {
            if (!failed)
                fprintf(stderr, "\n");
            fprintf(stderr, "warplab: %s/%s (%s) failed: %s\n", row->ladder, row->rung,
                    row->problem, row->note);
            failed++;
        }
    }
    if (report->incomplete) {
        fprintf(stderr, "warplab: interrupted: %zu row%s finished%s\n", report->row_count,
                report->row_count == 1 ? "" : "s", json ? " (the JSON is marked incomplete)" : "");
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
