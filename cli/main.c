/* warplab: the command-line entry point. Parses the command and hands over;
 * the work is in the library. */
#define _GNU_SOURCE
#include "cli.h"

#include "warplab_lab.h"
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} commands[] = {
    {"bench", cmd_bench, "run ladders: verify every rung, time it, print the table"},
    {"ladders", cmd_ladders, "list the ladders, their rungs and what each rung teaches"},
    {"probe", cmd_probe, "run an experiment (coalescing, banks, divergence, ...)"},
    {"devices", cmd_devices, "the course's device query, for every device of every backend"},
    {"occupancy", cmd_occupancy, "blocks and warps per SM for a block size, and what limits it"},
    {"show", cmd_show, "a rung's lesson, course figure, kernel source and diff to the rung below"},
    {"errata", cmd_errata,
     "the course's errata: what it wrote, why it is wrong, what runs instead"},
};

static void print_help(FILE *out)
{
    fprintf(out,
            "usage: warplab COMMAND [OPTIONS]\n"
            "\n"
            "warplab %s: GPU optimisation ladders (vector add, reduction, transpose, matrix\n"
            "multiply), each rung verified against a CPU reference and timed beside the\n"
            "vendor libraries.\n\n"
            "commands:\n",
            warplab_version());
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(out,
            "\n"
            "  warplab COMMAND --help   options of one command\n"
            "  warplab --version        the version\n"
            "\n"
            "backends compiled in: cpu%s%s\n",
            warplab_backend_compiled(WARPLAB_BACKEND_CUDA) ? ", cuda" : "",
            warplab_backend_compiled(WARPLAB_BACKEND_OPENCL) ? ", opencl" : "");
}

/* The library's messages start with the function called ("warplab_bench:
 * ..."), which the tool's user did not call: the detail without them. */
static const char *without_function(const char *detail)
{
    while (detail && strncmp(detail, "warplab_", 8) == 0) {
        const char *end = detail + 8;
        while ((*end >= 'a' && *end <= 'z') || *end == '_')
            end++;
        if (end[0] != ':' || end[1] != ' ')
            break;
        detail = end + 2;
    }
    return detail;
}

int cli_fail(warplab_status status, const char *detail, const char *context)
{
    detail = without_function(detail);
    fprintf(stderr, "warplab: %s%s%s (%s)\n", context ? context : "", context ? ": " : "",
            detail && *detail ? detail : warplab_status_string(status),
            warplab_status_string(status));
    return (status == WARPLAB_ERROR_INVALID_ARGUMENT || status == WARPLAB_ERROR_UNKNOWN_NAME)
               ? CLI_USAGE
               : CLI_FAILED;
}

int cli_usage_error(const char *command, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    fprintf(stderr, "warplab %s: ", command);
    vfprintf(stderr, format, args);
    fprintf(stderr, "\n(see: warplab %s --help)\n", command);
    va_end(args);
    return CLI_USAGE;
}

bool cli_parse_int(const char *text, int *value)
{
    char *end = NULL;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno || end == text || *end || v < -2147483647L || v > 2147483647L)
        return false;
    *value = (int)v;
    return true;
}

bool cli_parse_double(const char *text, double *value)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(text, &end);
    if (errno || end == text || *end)
        return false;
    *value = v;
    return true;
}

bool cli_parse_u64(const char *text, unsigned long long *value)
{
    char *end = NULL;
    errno = 0;
    if (*text == '-')
        return false;
    unsigned long long v = strtoull(text, &end, 0);
    if (errno || end == text || *end)
        return false;
    *value = v;
    return true;
}

int cli_open_context(const char *backend, int device, warplab_context **context)
{
    warplab_backend_kind kind = WARPLAB_BACKEND_AUTO;
    if (backend && warplab_backend_parse(backend, &kind) != WARPLAB_OK) {
        fprintf(stderr, "warplab: unknown backend '%s' (choose cuda, opencl, cpu or auto)\n",
                backend);
        return CLI_USAGE;
    }
    warplab_status status = warplab_context_create(kind, device, context);
    if (status != WARPLAB_OK)
        return cli_fail(status, warplab_last_error(NULL), "cannot open a backend");
    return CLI_OK;
}

void cli_progress_line(void *user, const char *ladder, const char *rung, const char *problem,
                       size_t done, size_t total)
{
    (void)user;
    if (isatty(STDERR_FILENO)) {
        if (ladder)
            fprintf(stderr, "\r\033[K[%zu/%zu] %s %s %s", done + 1, total, ladder, rung, problem);
        else
            fprintf(stderr, "\r\033[K");
    } else if (ladder) {
        fprintf(stderr, "[%zu/%zu] %s %s %s\n", done + 1, total, ladder, rung, problem);
    }
    fflush(stderr);
}

static volatile sig_atomic_t interrupt_seen = 0; /* the signal number, 0 = none */
static bool interrupt_graceful = false;
static struct timespec interrupt_first; /* when the first signal came */

static double seconds_since(const struct timespec *then)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now); /* async-signal-safe */
    return (double)(now.tv_sec - then->tv_sec) + (now.tv_nsec - then->tv_nsec) * 1e-9;
}

static void on_interrupt(int signal_number)
{
    if (interrupt_graceful && !interrupt_seen) {
        clock_gettime(CLOCK_MONOTONIC, &interrupt_first);
        interrupt_seen = signal_number;
        return;
    }
    /* The same signal again within a second is the same request delivered
     * twice: `timeout` signals the command and then its process group, and a
     * terminal's Ctrl-C reaches every process of the group. */
    if (interrupt_graceful && signal_number == interrupt_seen &&
        seconds_since(&interrupt_first) < 1.0)
        return;
    /* A second signal, or a command that cannot stop early: leave no
     * temporary output behind, then die of the signal as usual. */
    cli_output_remove_temporaries();
    signal(signal_number, SIG_DFL);
    raise(signal_number);
}

void cli_interrupt_install(bool graceful)
{
    interrupt_graceful = graceful;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_interrupt;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    sigaction(SIGINT, &action, NULL);
    sigaction(SIGTERM, &action, NULL);
    sigaction(SIGHUP, &action, NULL);
}

int cli_interrupted(void *user)
{
    (void)user;
    return interrupt_seen;
}

/* PoCL compiles kernels into a cache directory that must be writable; give it
 * one under /tmp unless the user chose. */
static void default_pocl_cache(void)
{
    if (getenv("POCL_CACHE_DIR"))
        return;
    char path[256];
    snprintf(path, sizeof path, "%s/warplab-pocl-%d", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
             (int)getuid());
    setenv("POCL_CACHE_DIR", path, 0);
}

/* What went to stdout must have arrived: a write error there (a full disk,
 * /dev/full, a closed pipe's EPIPE) is a failure, not exit 0. */
static int finish_stdout(int code)
{
    errno = 0;
    if (fflush(stdout) != 0 || ferror(stdout)) {
        int error = errno;
        fprintf(stderr, "warplab: writing to standard output failed%s%s\n", error ? ": " : "",
                error ? strerror(error) : "");
        return code == CLI_OK ? CLI_FAILED : code;
    }
    return code;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        print_help(stderr);
        return CLI_USAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        print_help(stdout);
        return finish_stdout(CLI_OK);
    }
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V") || !strcmp(argv[1], "version")) {
        printf("warplab %s\n", warplab_version());
        return finish_stdout(CLI_OK);
    }
    default_pocl_cache();
    /* A file past the size limit is a failed write (EFBIG), not a signal. */
    signal(SIGXFSZ, SIG_IGN);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name))
            return finish_stdout(commands[i].run(argc - 1, argv + 1));
    fprintf(stderr, "warplab: unknown command '%s'\n\n", argv[1]);
    print_help(stderr);
    return CLI_USAGE;
}
