/* warplab probe: the course's experiments, each verified and timed, printed
 * as a table with the one-line conclusion its numbers support, and charted. */
#define _GNU_SOURCE
#include "cli.h"

#include "warplab_lab.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* "cuda, opencl": the backends compiled in where the probe has a form. */
static void probe_backends(const char *name, char *text, size_t len)
{
    text[0] = '\0';
    for (int k = WARPLAB_BACKEND_CUDA; k < WARPLAB_BACKEND_COUNT; k++) {
        if (warplab_probe_supported(name, (warplab_backend_kind)k, NULL, 0) != WARPLAB_OK)
            continue;
        size_t used = strlen(text);
        snprintf(text + used, len - used, "%s%s", used ? ", " : "",
                 warplab_backend_name((warplab_backend_kind)k));
    }
    if (!text[0])
        snprintf(text, len, "no backend in this build");
}

static void probe_help(FILE *out)
{
    fprintf(out,
            "usage: warplab probe NAME|all|list [OPTIONS]\n"
            "\n"
            "Runs the course's experiments on the present device. Every kernel's output is\n"
            "verified against a CPU reference (fresh random inputs, poisoned outputs) before it\n"
            "is timed; each probe prints a table (the figure per point with its noise) and one\n"
            "line saying what the numbers show, computed from them.\n"
            "\n"
            "probes:\n");
    for (size_t i = 0; i < warplab_probe_count(); i++) {
        char where[64];
        probe_backends(warplab_probe_name(i), where, sizeof where);
        fprintf(out, "  %-11s %s\n  %-11s [%s]\n", warplab_probe_name(i), warplab_probe_title(i),
                "", where);
    }
    fprintf(out, "\n  all         every probe with a form on the backend (says which it skipped)\n"
                 "  list        the probes, where each runs and what --size means for it\n");
    cli_run_help_options(out, false);
    fprintf(out,
            "\n"
            "Exit status: 0 when every kernel that ran was verified, 1 when one failed or the\n"
            "run broke, 2 on bad usage (an unknown probe, a bad option).\n");
}

static int probe_list(void)
{
    for (size_t i = 0; i < warplab_probe_count(); i++) {
        char where[64];
        probe_backends(warplab_probe_name(i), where, sizeof where);
        printf("%s: %s\n  runs on: %s\n  --size: %s\n\n", warplab_probe_name(i),
               warplab_probe_title(i), where, warplab_probe_size_meaning(i));
    }
    return CLI_OK;
}

static bool is_directory(const char *path)
{
    struct stat st;
    size_t n = strlen(path);
    return (n > 0 && path[n - 1] == '/') || (stat(path, &st) == 0 && S_ISDIR(st.st_mode));
}

/* Writes results to an output begun beforehand: JSON, or (svg) the first
 * result's charts. */
static int write_file(cli_output *out, const warplab_probe_result *const *results, size_t count,
                      bool svg)
{
    FILE *file = cli_output_stream(out);
    warplab_status status = !file ? WARPLAB_ERROR_HOST_OUT_OF_MEMORY
                            : svg ? warplab_probe_write_svg(results[0], file)
                                  : warplab_probe_write(results, count, WARPLAB_FORMAT_JSON, file);
    return cli_output_commit(out, status);
}

/* The chart of one probe: into single (PATH, begun before the run), or
 * PATH/probe-NAME.svg for a directory. */
static int write_svg(const warplab_probe_result *result, const char *plot, bool directory,
                     cli_output *single)
{
    if (!directory)
        return write_file(single, &result, 1, true);
    char path[4096];
    snprintf(path, sizeof path, "%s%sprobe-%s.svg", plot, plot[strlen(plot) - 1] == '/' ? "" : "/",
             result->probe);
    cli_output out;
    int code = cli_output_begin(&out, path, "--plot");
    return code == CLI_OK ? write_file(&out, &result, 1, true) : CLI_FAILED;
}

/* Which probes to run: one by name, or every one with a form on the
 * backend (the others named on stderr with the reason). */
static int select_probes(const char *name, warplab_backend_kind backend, const char **chosen,
                         size_t *count)
{
    *count = 0;
    if (strcmp(name, "all") != 0) {
        char reason[256] = "";
        warplab_status status = warplab_probe_supported(name, backend, reason, sizeof reason);
        if (status == WARPLAB_ERROR_UNKNOWN_NAME) {
            char known[256] = "";
            for (size_t i = 0; i < warplab_probe_count(); i++) {
                size_t used = strlen(known);
                snprintf(known + used, sizeof known - used, "%s%s", i ? ", " : "",
                         warplab_probe_name(i));
            }
            return cli_usage_error("probe", "no probe named '%s' (probes: %s, or all, list)", name,
                                   known);
        }
        if (status != WARPLAB_OK) {
            fprintf(stderr, "warplab probe: %s (see: warplab probe list)\n", reason);
            return CLI_FAILED;
        }
        chosen[(*count)++] = name;
        return CLI_OK;
    }
    for (size_t i = 0; i < warplab_probe_count(); i++) {
        char reason[256] = "";
        const char *probe = warplab_probe_name(i);
        if (warplab_probe_supported(probe, backend, reason, sizeof reason) == WARPLAB_OK)
            chosen[(*count)++] = probe;
        else
            fprintf(stderr, "warplab probe: skipping %s: %s\n", probe, reason);
    }
    if (*count == 0) {
        fprintf(stderr, "warplab probe: no probe has a form on the %s backend\n",
                warplab_backend_name(backend));
        return CLI_FAILED;
    }
    return CLI_OK;
}

int cmd_probe(int argc, char **argv)
{
    cli_run cli;
    warplab_probe_options options;
    int code = cli_run_parse(argc, argv, false, &cli, probe_help);
    if (code == CLI_OK)
        code = cli_run_options(&cli, false, &options);
    if (code != CLI_OK)
        return code < 0 ? CLI_OK : code;
    if (optind >= argc)
        return cli_usage_error("probe", "name a probe, 'all' or 'list'");
    const char *name = argv[optind++];
    if (optind < argc)
        return cli_usage_error("probe",
                               "one probe at a time (got '%s' too); 'all' runs every "
                               "probe",
                               argv[optind]);
    if (strcmp(name, "list") == 0)
        return probe_list();
    if (!cli.quiet)
        options.progress = cli_progress_line;

    cli_interrupt_install(false); /* no early stop: a signal kills, leaving no temporary file */
    /* Output paths are checked before anything runs. */
    const bool directory = cli.plot && (strcmp(name, "all") == 0 || is_directory(cli.plot));
    cli_output json_out, plot_out;
    cli_outputs_init(&json_out, &plot_out);
    if (cli.json && (code = cli_output_begin(&json_out, cli.json, "--json")) != CLI_OK)
        return code;
    if (cli.plot && directory && access(cli.plot, W_OK) != 0) {
        fprintf(stderr, "warplab: --plot %s: cannot write charts into that directory: %s\n",
                cli.plot, strerror(errno));
        cli_output_abandon(&json_out);
        return CLI_FAILED;
    }
    if (cli.plot && !directory &&
        (code = cli_output_begin(&plot_out, cli.plot, "--plot")) != CLI_OK) {
        cli_output_abandon(&json_out);
        return code;
    }

    warplab_context *context = NULL;
    code = cli_open_context(cli.backend, cli.device, &context);
    if (code != CLI_OK) {
        cli_outputs_abandon(&json_out, &plot_out);
        return code;
    }
    const warplab_backend_kind backend = warplab_context_backend(context);
    const char *chosen[64];
    size_t count = 0;
    code = select_probes(name, backend, chosen, &count);
    if (code != CLI_OK) {
        cli_outputs_abandon(&json_out, &plot_out);
        warplab_context_destroy(context);
        return code;
    }
    cli_run_banner(context, &cli, " probes");

    warplab_probe_result *results[64] = {NULL};
    size_t done = 0, failed = 0;
    for (size_t i = 0; i < count; i++) {
        warplab_status status = warplab_probe_run(context, chosen[i], &options, &results[done]);
        if (status != WARPLAB_OK) {
            code = cli_fail(status, warplab_last_error(context), chosen[i]);
            break;
        }
        const warplab_probe_result *result = results[done++];
        /* Tables and Markdown as each probe ends; CSV (one header) at the end. */
        if (cli.format != WARPLAB_FORMAT_CSV) {
            warplab_probe_write(&result, 1, cli.format, stdout);
            fflush(stdout);
        }
        failed += cli_list_failures(result->report, result->probe);
        if (cli.plot && code == CLI_OK)
            code = write_svg(result, cli.plot, directory, &plot_out);
    }
    if (cli.format == WARPLAB_FORMAT_CSV && done)
        warplab_probe_write((const warplab_probe_result *const *)results, done, WARPLAB_FORMAT_CSV,
                            stdout);
    if (cli.json && done && code == CLI_OK)
        code = write_file(&json_out, (const warplab_probe_result *const *)results, done, false);
    /* What was not written (a failed run) leaves no file. */
    cli_outputs_abandon(&json_out, &plot_out);
    for (size_t i = 0; i < done; i++)
        warplab_probe_result_destroy(results[i]);
    warplab_context_destroy(context);
    if (failed && code == CLI_OK)
        code = CLI_FAILED;
    return code;
}
