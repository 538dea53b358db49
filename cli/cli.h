/* The warplab command-line tool: thin commands over the library. */
#ifndef WARPLAB_CLI_H
#define WARPLAB_CLI_H

#include "warplab_lab.h"

#include <stdbool.h>
#include <stdio.h>

/* Exit codes: 0 success; 1 a run failed (an error or a wrong result), broke,
 * or ran nothing (every rung skipped); 2 bad usage or bad input; 130
 * interrupted (SIGINT; 128 + the signal for SIGTERM, SIGHUP), after printing
 * what finished. */
enum { CLI_OK = 0, CLI_FAILED = 1, CLI_USAGE = 2, CLI_INTERRUPTED = 130 };

/* Prints "warplab: <context>: <detail> (<status>)" to stderr; returns the
 * exit code the status deserves. */
int cli_fail(warplab_status status, const char *detail, const char *context);
int cli_usage_error(const char *command, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Parses an int / size_t / double option value; false on junk. */
bool cli_parse_int(const char *text, int *value);
bool cli_parse_double(const char *text, double *value);
bool cli_parse_u64(const char *text, unsigned long long *value);

/* Opens a context on --backend / --device (NULL and -1 for the defaults),
 * printing the reason when it cannot. */
int cli_open_context(const char *backend, int device, warplab_context **context);

/* A warplab_progress_fn: "[3/12] ladder rung problem" on stderr, in place
 * on a terminal, a line each otherwise; a NULL ladder clears it. */
void cli_progress_line(void *user, const char *ladder, const char *rung, const char *problem,
                       size_t done, size_t total);

/* An output file (cli/output.c). begin checks path before the run: "-" is
 * standard output; links are followed to their target; a regular file or a
 * new path is written atomically (a temporary file beside it, renamed over
 * it at commit); a character device, FIFO or socket is written through. A
 * path that is a directory or a block device is a usage error (CLI_USAGE);
 * one the user may not write is refused (CLI_FAILED); both name option.
 * The caller writes to cli_output_stream (memory); commit writes it out, or
 * removes the temporary file and says why (the errno) with CLI_FAILED;
 * abandon removes it. */
typedef enum cli_output_kind {
    CLI_OUTPUT_ATOMIC = 0,
    CLI_OUTPUT_THROUGH, /* a character device, a FIFO, a file in a read-only directory */
    CLI_OUTPUT_SOCKET,
    CLI_OUTPUT_STDOUT
} cli_output_kind;
typedef struct cli_output {
    char path[4096];   /* as given */
    char target[4096]; /* path with its links followed */
    char temp[4200];
    cli_output_kind kind;
    bool existed; /* a regular file: its mode and owner are kept */
    unsigned mode, uid, gid;
    int fd;
    FILE *memory;
    char *data;
    size_t size;
} cli_output;
int cli_output_begin(cli_output *out, const char *path, const char *option);
FILE *cli_output_stream(cli_output *out);
int cli_output_commit(cli_output *out, warplab_status status);
void cli_output_abandon(cli_output *out);
/* Unlinks the temporary files of outputs begun and not yet committed or
 * abandoned (async-signal-safe: for the signal handler). */
void cli_output_remove_temporaries(void);

/* Writes a report to an output in a format (or SVG when svg is true). */
int cli_write_file(const warplab_report *report, cli_output *out, warplab_format format, bool svg);
/* Writes a sweep's line chart (GB/s against n) as SVG. */
int cli_write_sweep_svg(const warplab_report *report, cli_output *out);
/* The GEMM grid as JSON into out, then committed. */
int cli_write_grid(const warplab_gemm_grid *grid, cli_output *out);

/* The ladders, a line each ("  name  title"), for the help texts. */
void cli_print_ladders(FILE *out);

/* Prints text word-wrapped to width columns, each line led by indent;
 * newlines in text start new lines. */
void cli_print_wrapped(FILE *out, const char *indent, const char *text, int width);
/* One of the course's errata, as 'warplab errata' prints it, each line led
 * by indent (cmd_errata.c). */
void cli_print_erratum(FILE *out, const char *indent, const warplab_erratum *erratum);

/* SIGINT, SIGTERM and SIGHUP during long runs. graceful (bench): the first
 * one sets a flag that cli_interrupted returns (the signal number; a
 * warplab_bench_options.cancelled callback) and the run stops at the next
 * rung; exit 128 + the signal (130 for Ctrl-C). A second one (other than
 * the same signal within a second: one request delivered twice, as
 * `timeout` and a terminal's Ctrl-C do), or any when not graceful (probe),
 * removes the temporary output files and kills. */
void cli_interrupt_install(bool graceful);
int cli_interrupted(void *user);

/* What warplab bench and warplab probe take (cli/run_options.c): one
 * parser, one help listing, one banner, one failure listing. */
typedef struct cli_run {
    const char *backend, *json, *plot;
    const char *size; /* --size as given (bench: a list; probe: one size) */
    int device;       /* -1: the default */
    bool quiet;
    warplab_format format;
    int repeat, warmup;
    double max_seconds;
    int no_flush;
    unsigned long long seed;
    bool seed_given;
    /* bench only */
    const char *rungs, *dtype, *op;
    bool sweep, shapes;
    /* bench gemm --grid [--candidate NAME] (cli/cmd_bench.c) */
    bool grid;
    const char *candidate;
    /* bench gemm --batched: the strided-batched table (the grid's runner) */
    bool batched;
    /* bench --counters (cli/counters_run.c) and --html FILE */
    bool counters;
    const char *html;
} cli_run;
/* Parses argv for bench (bench-only options accepted) or probe; returns
 * CLI_OK, an exit code, or -1 after printing help (help(stdout)). Leaves
 * optind at the first operand. */
int cli_run_parse(int argc, char **argv, bool bench, cli_run *run, void (*help)(FILE *out));
/* The library's options from the command's (probe: --size checked, a
 * usage error otherwise). */
int cli_run_options(const cli_run *run, bool bench, warplab_run_options *options);
/* The "options:" part of the help, for bench or probe. */
void cli_run_help_options(FILE *out, bool bench);
/* "warplab VERSION<what> on DEVICE (BACKEND backend)" before a table run. */
void cli_run_banner(warplab_context *context, const cli_run *run, const char *what);
/* The rows that failed (and were not expected to), to stderr as
 * "warplab: NAME/rung (problem) failed: note" (NAME: name, else the row's
 * ladder, after a blank line); returns how many. */
size_t cli_list_failures(const warplab_report *report, const char *name);
/* The --json and --plot outputs of a run: nothing begun, and abandoning both. */
void cli_outputs_init(cli_output *json, cli_output *plot);
void cli_outputs_abandon(cli_output *json, cli_output *plot);

/* warplab bench --counters: every cuda rung of the report's first problem
 * of each ladder under Nsight Compute, one process per rung, the counters
 * (one per report row) filled and the counters table printed; where ncu is
 * missing or not permitted, a message to stderr and nothing else. The
 * device's L2 size goes with each row's counters (DRAM writes may trail). */
int cli_counters(const warplab_report *report, const cli_run *run,
                 const warplab_device_info *device, warplab_counters *counters);

/* After a bench run: --counters (above), then --html into html (begun
 * before the run; NULL when not asked), the counters on the page when
 * measured and the command line (argv) as its settings. */
int cli_bench_extras(const warplab_report *report, const cli_run *run,
                     const warplab_device_info *device, int argc, char **argv, cli_output *html);

int cmd_bench(int argc, char **argv);
int cmd_devices(int argc, char **argv);
int cmd_errata(int argc, char **argv);
int cmd_ladders(int argc, char **argv);
int cmd_occupancy(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_show(int argc, char **argv);

#endif
