/* The warplab command-line tool: thin commands over the library. */
#ifndef WARPLAB_CLI_H
#define WARPLAB_CLI_H

#include "warplab.h"

#include <stdbool.h>
#include <stdio.h>

/* Exit codes: 0 success; 1 a run failed (an error or a wrong result); 2 bad
 * usage or bad input. */
enum { CLI_OK = 0, CLI_FAILED = 1, CLI_USAGE = 2 };

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

/* Opens path for writing, saying why on stderr when it cannot (NULL). */
FILE *cli_open_output(const char *path);
/* Closes a file cli_open_output gave after writing it with `status`; an exit
 * code, with the reason on stderr when the write or the close failed. */
int cli_close_output(FILE *file, const char *path, warplab_status status);

/* Writes a report to a file in a format (or SVG when svg is true). */
int cli_write_file(const warplab_report *report, const char *path, warplab_format format, bool svg);
/* Writes a sweep's line chart (GB/s against n) as SVG. */
int cli_write_sweep_svg(const warplab_report *report, const char *path);

/* Prints text word-wrapped to width columns, each line led by indent;
 * newlines in text start new lines. */
void cli_print_wrapped(FILE *out, const char *indent, const char *text, int width);

int cmd_bench(int argc, char **argv);
int cmd_devices(int argc, char **argv);
int cmd_ladders(int argc, char **argv);
int cmd_occupancy(int argc, char **argv);
int cmd_probe(int argc, char **argv);

#endif
