/* The options, help text, banner and failure listing that warplab bench and
 * warplab probe share: one parser for both, each command naming what it
 * accepts beyond the common set. */
#define _GNU_SOURCE
#include "cli.h"

#include "warplab_lab.h"
#include <getopt.h>
#include <stdio.h>
#include <string.h>

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
    OPT_SHAPES,
    OPT_COUNTERS,
    OPT_HTML,
    OPT_GRID,
    OPT_BATCHED,
    OPT_CANDIDATE
};

/* One option: getopt's entry, whether only bench takes it, and its help
 * (the probe's own text where it says something else; NULL = the same). */
typedef struct run_option {
    struct option getopt;
    bool bench_only;
    const char *usage; /* "  -b, --backend NAME   " */
    const char *bench_help;
    const char *probe_help;
    const char *probe_usage; /* NULL = usage */
} run_option;

#define CONTINUED "\n                       "

static const run_option run_options[] = {
    {{"backend", required_argument, NULL, 'b'},
     false,
     "  -b, --backend NAME   ",
     "cuda, opencl, cpu or auto (default: the best present)",
     NULL,
     NULL},
    {{"device", required_argument, NULL, 'd'},
     false,
     "  -d, --device N       ",
     "device index within the backend (default 0)",
     NULL,
     NULL},
    {{"size", required_argument, NULL, 's'},
     false,
     "  -s, --size LIST      ",
     "sizes, comma-separated: 2^28, 268435456, 256M, 4096x4096" CONTINUED
     "(default: full sizes on a GPU, small ones on a CPU)",
     "the probe's size (see 'warplab probe list'; 2^25, 64M, ...)" CONTINUED
     "(default: seconds on an H100, less on a CPU)",
     "  -s, --size N         "},
    {{"rung", required_argument, NULL, 'r'},
     true,
     "  -r, --rung LIST      ",
     "only these rungs (ids from 'warplab ladders')",
     NULL,
     NULL},
    {{"type", required_argument, NULL, 't'},
     true,
     "  -t, --type NAME      ",
     "element type where the ladder has several (int32, float," CONTINUED
     "double; histogram: uint8, int32, float)",
     NULL,
     NULL},
    {{"op", required_argument, NULL, OPT_OP},
     true,
     "      --op NAME        ",
     "operation where the ladder has several (sum, min, max;" CONTINUED
     "histogram: the data, uniform or skewed)",
     NULL,
     NULL},
    {{"repeat", required_argument, NULL, 'n'},
     false,
     "  -n, --repeat N       ",
     "timed runs per rung (default 50, fewer past the budget)",
     "timed runs per point (default 20, fewer past the budget)",
     NULL},
    {{"warmup", required_argument, NULL, OPT_WARMUP},
     false,
     "      --warmup N       ",
     "untimed runs first (default 3)",
     "untimed runs first (default 2)",
     NULL},
    {{"max-seconds", required_argument, NULL, OPT_MAX_SECONDS},
     false,
     "      --max-seconds S  ",
     "time budget per rung (default 2)",
     "time budget per point (default 0.5)",
     NULL},
    {{"no-flush", no_argument, NULL, OPT_NO_FLUSH},
     false,
     "      --no-flush       ",
     "keep caches warm between timed runs (default: flush L2)",
     NULL,
     NULL},
    {{"seed", required_argument, NULL, OPT_SEED},
     false,
     "      --seed N         ",
     "seed of the random inputs (default: from the clock)",
     NULL,
     NULL},
    {{"csv", no_argument, NULL, OPT_CSV},
     false,
     "      --csv            ",
     "print CSV instead of the table",
     "print CSV (one line per point) instead of the tables",
     NULL},
    {{"markdown", no_argument, NULL, OPT_MARKDOWN},
     false,
     "      --markdown       ",
     "print Markdown instead of the table",
     "print Markdown instead of the tables",
     NULL},
    {{"json", required_argument, NULL, OPT_JSON},
     false,
     "      --json FILE      ",
     "also write the full report as JSON",
     "also write every result as JSON",
     NULL},
    {{"plot", required_argument, NULL, OPT_PLOT},
     false,
     "      --plot FILE      ",
     "also write a bar chart (SVG) of each table",
     "also write the charts as SVG: PATH for one probe; with 'all'" CONTINUED
     "or when PATH is a directory, PATH/probe-NAME.svg per probe",
     "      --plot PATH      "},
    {{"sweep", no_argument, NULL, OPT_SWEEP},
     true,
     "      --sweep          ",
     "GB/s against n, n = 2^10, 2^12, ..., 2^30 (sizes that do" CONTINUED
     "not fit are skipped), for the --rung list plus the vendor" CONTINUED
     "rows: the tables, a GB/s-by-n table, and with --plot a" CONTINUED
     "line chart. Needs a ladder with a 1-D size; --no-flush" CONTINUED
     "keeps L2 warm, as a caller's small inputs often are",
     NULL,
     NULL},
    {{"shapes", no_argument, NULL, OPT_SHAPES},
     true,
     "      --shapes         ",
     "the ladder's named shape set instead of --size (gemm: GEMV" CONTINUED
     "m=1 and n=1, small m 2..64, small squares 128..1024, LLM" CONTINUED
     "projections, large k with small m and n, tall-skinny," CONTINUED
     "odd sizes), for the rungs that name a vendor row (gemm:" CONTINUED
     "the dispatcher vs cuBLAS FP32), those vendor rows and the" CONTINUED
     "copy reference unless --rung says otherwise; the report" CONTINUED
     "ends with each pair's per-shape ratios, geometric mean" CONTINUED "and worst shape",
     NULL,
     NULL},
    {{"grid", no_argument, NULL, OPT_GRID},
     true,
     "      --grid           ",
     "gemm only: the planner's judging grid instead of the rungs:" CONTINUED
     "warplab_gemm_ex against cublasGemmEx, each on the caller's" CONTINUED
     "cudaMalloc memory and stream, over layouts (N,N, N,T; all" CONTINUED
     "four for FP32) x FP32, TF32, BF16, FP16 x FP32 or the input" CONTINUED
     "output x shapes drawn from --seed (default 24301) in each" CONTINUED
     "class: decode m 1..32, prefill m 100..8192 (n, k LLM" CONTINUED
     "dimensions), small squares, large k, tall-skinny. Every" CONTINUED
     "cell verified; per group the geometric mean, decode mean," CONTINUED
     "worst cell and picks. Seeds 24301 and 7 hold FP32 cells" CONTINUED
     "of the planner's tuning set; other seeds are held out" CONTINUED
     "(the rest: scripts/gemm_decode_bench.c). 3-4 minutes" CONTINUED
     "on an H200; --json FILE keeps every cell",
     NULL,
     NULL},
    {{"batched", no_argument, NULL, OPT_BATCHED},
     true,
     "      --batched        ",
     "gemm only: the strided-batched table instead of the rungs:" CONTINUED
     "warplab_gemm_batched_ex against cublasGemmStridedBatchedEx" CONTINUED
     "on attention's per-head products (Q K^T and P V), batch 8," CONTINUED
     "32, 96 x sequence 128..4096 x head size 64, 128, BF16 and" CONTINUED
     "FP16 to FP32 or the input type; the caller's cudaMalloc" CONTINUED
     "memory and stream, every cell verified; geometric mean per" CONTINUED
     "precision. About 30 s on an H200; --json FILE keeps" CONTINUED
     "every cell. With --seed S: 24 shapes drawn from S (batch" CONTINUED
     "2..128, sequence 128..4096, head 64, 80, 96, 128) instead",
     NULL,
     NULL},
    {{"candidate", required_argument, NULL, OPT_CANDIDATE},
     true,
     "      --candidate NAME ",
     "with --grid: force this GEMM planner candidate (a row of" CONTINUED
     "src/kernels/gemm_plan.c's table: gemv_k, fp32_dispatch, ...;" CONTINUED
     "an unknown name lists them) in every cell; cells it" CONTINUED
     "cannot take are skipped and say why",
     NULL,
     NULL},
    {{"counters", no_argument, NULL, OPT_COUNTERS},
     true,
     "      --counters       ",
     "cuda: each rung once more under Nsight Compute (ncu): DRAM" CONTINUED
     "bytes beside the rung's moved bytes, bank conflicts," CONTINUED
     "occupancy, branch efficiency, L2 hit rate, and what each" CONTINUED
     "lesson predicts (a contradicted one flagged); the ladder's" CONTINUED "first size only",
     NULL,
     NULL},
    {{"html", required_argument, NULL, OPT_HTML},
     true,
     "      --html FILE      ",
     "also write one self-contained page: tables, charts, lessons," CONTINUED
     "each rung's code and diff, the device and the settings",
     NULL,
     NULL},
    {{"quiet", no_argument, NULL, 'q'},
     false,
     "  -q, --quiet          ",
     "no progress line",
     NULL,
     NULL},
    {{"help", no_argument, NULL, 'h'}, false, "  -h, --help           ", "this help", NULL, NULL},
};

#define RUN_OPTION_COUNT (sizeof run_options / sizeof run_options[0])

void cli_run_help_options(FILE *out, bool bench)
{
    fprintf(out, "\noptions:\n");
    for (size_t i = 0; i < RUN_OPTION_COUNT; i++) {
        const run_option *option = &run_options[i];
        if (option->bench_only && !bench)
            continue;
        const char *text = !bench && option->probe_help ? option->probe_help : option->bench_help;
        const char *usage = !bench && option->probe_usage ? option->probe_usage : option->usage;
        fprintf(out, "%s%s\n", usage, text);
    }
}

int cli_run_parse(int argc, char **argv, bool bench, cli_run *run, void (*help)(FILE *out))
{
    const char *command = bench ? "bench" : "probe";
    memset(run, 0, sizeof *run);
    run->device = -1;
    run->format = WARPLAB_FORMAT_TABLE;
    struct option options[RUN_OPTION_COUNT + 1];
    size_t count = 0;
    for (size_t i = 0; i < RUN_OPTION_COUNT; i++)
        if (bench || !run_options[i].bench_only)
            options[count++] = run_options[i].getopt;
    memset(&options[count], 0, sizeof options[count]);
    optind = 1;
    opterr = 0; /* one message per mistake, ours */
    bool format_given = false;
    int c;
    while ((c = getopt_long(argc, argv, bench ? ":b:d:s:r:t:n:qh" : ":b:d:s:n:qh", options,
                            NULL)) != -1) {
        /* A name given empty (--rung "", as --size= is) or an output given
         * twice is refused, never read as "all" or "the last one". */
        /* The option as typed: before its value when that came apart. */
        const char *given = optarg && optind >= 2 && optarg == argv[optind - 1] ? argv[optind - 2]
                                                                                : argv[optind - 1];
        switch (c) {
        case 'b':
        case 'r':
        case 't':
        case OPT_OP:
        case OPT_CANDIDATE:
            if (!*optarg)
                return cli_usage_error(command, "%.*s needs a value, not ''",
                                       (int)strcspn(given, "="), given);
            break;
        case OPT_JSON:
        case OPT_PLOT:
        case OPT_HTML: {
            const char *previous = c == OPT_JSON   ? run->json
                                   : c == OPT_PLOT ? run->plot
                                                   : run->html;
            if (previous)
                return cli_usage_error(command, "%s given twice ('%s' and '%s'): one file each",
                                       c == OPT_JSON   ? "--json"
                                       : c == OPT_PLOT ? "--plot"
                                                       : "--html",
                                       previous, optarg);
            break;
        }
        case OPT_CSV:
        case OPT_MARKDOWN:
            if (format_given)
                return cli_usage_error(command, "one output format: --csv or --markdown, once");
            format_given = true;
            break;
        default: break;
        }
        switch (c) {
        case ':':
            return cli_usage_error(command, "%.*s needs a value", (int)strcspn(given, "="), given);
        case '?': return cli_usage_error(command, "unknown option '%s'", given);
        case 'b': run->backend = optarg; break;
        case 'd':
            if (!cli_parse_int(optarg, &run->device) || run->device < 0)
                return cli_usage_error(command, "--device needs an index >= 0, not '%s'", optarg);
            break;
        case 's': run->size = optarg; break;
        case 'r': run->rungs = optarg; break;
        case 't': run->dtype = optarg; break;
        case OPT_OP: run->op = optarg; break;
        case 'n':
            if (!cli_parse_int(optarg, &run->repeat) || run->repeat < 1)
                return cli_usage_error(
                    command, "--repeat needs a count from 1 to 2147483647, not '%s'", optarg);
            break;
        case OPT_WARMUP:
            if (!cli_parse_int(optarg, &run->warmup) || run->warmup < 1)
                return cli_usage_error(
                    command, "--warmup needs a count from 1 to 2147483647, not '%s'", optarg);
            break;
        case OPT_MAX_SECONDS:
            if (!cli_parse_double(optarg, &run->max_seconds) || !(run->max_seconds > 0))
                return cli_usage_error(command, "--max-seconds needs seconds > 0, not '%s'",
                                       optarg);
            break;
        case OPT_NO_FLUSH: run->no_flush = 1; break;
        case OPT_SEED:
            if (!cli_parse_u64(optarg, &run->seed))
                return cli_usage_error(command, "--seed needs a number, not '%s'", optarg);
            run->seed_given = true;
            break;
        case OPT_CSV: run->format = WARPLAB_FORMAT_CSV; break;
        case OPT_MARKDOWN: run->format = WARPLAB_FORMAT_MARKDOWN; break;
        case OPT_JSON: run->json = optarg; break;
        case OPT_PLOT: run->plot = optarg; break;
        case OPT_SWEEP: run->sweep = true; break;
        case OPT_SHAPES: run->shapes = true; break;
        case OPT_COUNTERS: run->counters = true; break;
        case OPT_GRID: run->grid = true; break;
        case OPT_BATCHED: run->batched = true; break;
        case OPT_CANDIDATE: run->candidate = optarg; break;
        case OPT_HTML: run->html = optarg; break;
        case 'q': run->quiet = true; break;
        case 'h': help(stdout); return -1;
        default: return cli_usage_error(command, "unknown option '%s'", given);
        }
    }
    return CLI_OK;
}

void cli_run_banner(warplab_context *context, const cli_run *run, const char *what)
{
    if (run->format == WARPLAB_FORMAT_TABLE)
        printf("warplab %s%s on %s (%s backend)\n", warplab_version(), what,
               warplab_context_device(context)->name,
               warplab_backend_name(warplab_context_backend(context)));
}

size_t cli_list_failures(const warplab_report *report, const char *name)
{
    size_t failed = 0;
    for (size_t i = 0; i < report->row_count; i++) {
        const warplab_row *row = &report->rows[i];
        if (!(row->flags & WARPLAB_ROW_FAILED) || (row->flags & WARPLAB_ROW_EXPECTED_WRONG))
            continue;
        if (!failed && !name)
            fprintf(stderr, "\n");
        fprintf(stderr, "warplab: %s/%s (%s) failed: %s\n", name ? name : row->ladder, row->rung,
                row->problem, row->note);
        failed++;
    }
    return failed;
}

void cli_outputs_init(cli_output *json, cli_output *plot)
{
    memset(json, 0, sizeof *json);
    memset(plot, 0, sizeof *plot);
    json->fd = plot->fd = -1;
}

void cli_outputs_abandon(cli_output *json, cli_output *plot)
{
    cli_output_abandon(json);
    cli_output_abandon(plot);
}

int cli_run_options(const cli_run *run, bool bench, warplab_run_options *options)
{
    memset(options, 0, sizeof *options);
    if (!bench && run->size) { /* the library says it too; here the message names --size */
        size_t dims[3];
        int given = 0;
        if (warplab_parse_size(run->size, dims, &given) != WARPLAB_OK || given != 1 || dims[0] == 0)
            return cli_usage_error(
                "probe", "--size needs one size > 0 (2^25, 33554432, 32M), not '%s'", run->size);
    }
    options->sizes = run->size;
    options->rungs = run->rungs;
    options->dtype = run->dtype;
    options->op = run->op;
    options->sweep = run->sweep;
    options->repeat = run->repeat;
    options->warmup = run->warmup;
    options->max_seconds = run->max_seconds;
    options->no_flush = run->no_flush;
    options->seed = run->seed;
    return CLI_OK;
}
