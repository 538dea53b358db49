/* Output files written atomically: a temporary file beside the target,
 * filled at the end and renamed over the target. Before the run starts the
 * same temporary file is created and removed at once, so that a path that
 * cannot be written is a usage error, not a lost run; it exists again only
 * while the output is written, so a signal during the run, whoever handles
 * it (an OpenCL runtime's compiler may install handlers of its own), leaves
 * nothing behind. A failed write removes the temporary file and reports the
 * real errno. */
#define _GNU_SOURCE
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The temporary files that exist now, for the signal handler. */
#define MAX_PENDING 8
static cli_output *volatile pending[MAX_PENDING];

static void track(cli_output *out, bool add)
{
    for (int i = 0; i < MAX_PENDING; i++)
        if (add ? pending[i] == NULL : pending[i] == out) {
            pending[i] = add ? out : NULL;
            return;
        }
}

void cli_output_remove_temporaries(void)
{
    for (int i = 0; i < MAX_PENDING; i++) {
        cli_output *out = pending[i];
        if (out && out->fd >= 0)
            unlink(out->temp);
    }
}

/* The temporary file beside out->path, tracked for the signal handler. */
static bool create_temporary(cli_output *out)
{
    snprintf(out->temp, sizeof out->temp, "%s.tmp-XXXXXX", out->path);
    out->fd = mkstemp(out->temp);
    if (out->fd < 0)
        return false;
    track(out, true);
    return true;
}

static void remove_temporary(cli_output *out)
{
    track(out, false);
    if (out->fd >= 0) {
        close(out->fd);
        unlink(out->temp);
    }
    out->fd = -1;
}

int cli_output_begin(cli_output *out, const char *path, const char *option)
{
    memset(out, 0, sizeof *out);
    out->fd = -1;
    if (!path || !*path) {
        fprintf(stderr, "warplab: %s needs a file name\n", option);
        return CLI_USAGE;
    }
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        fprintf(stderr, "warplab: %s %s: is a directory, not a file\n", option, path);
        return CLI_USAGE;
    }
    if (strlen(path) >= sizeof out->path ||
        strlen(path) + sizeof ".tmp-XXXXXX" > sizeof out->temp) {
        fprintf(stderr, "warplab: %s: the path is too long\n", option);
        return CLI_USAGE;
    }
    memcpy(out->path, path, strlen(path) + 1);
    if (!create_temporary(out)) {
        fprintf(stderr, "warplab: %s %s: cannot write there: %s\n", option, path, strerror(errno));
        return CLI_USAGE;
    }
    /* Writable: removed until the output is written (cli_output_commit). */
    remove_temporary(out);
    return CLI_OK;
}

void cli_output_abandon(cli_output *out)
{
    remove_temporary(out);
    if (out->memory)
        fclose(out->memory);
    free(out->data);
    out->memory = NULL;
    out->data = NULL;
}

FILE *cli_output_stream(cli_output *out)
{
    if (!out->memory)
        out->memory = open_memstream(&out->data, &out->size);
    return out->memory;
}

static int output_failed(cli_output *out, const char *what, int error)
{
    fprintf(stderr, "warplab: writing %s failed: %s%s%s\n", out->path, what, error ? ": " : "",
            error ? strerror(error) : "");
    cli_output_abandon(out);
    return CLI_FAILED;
}

int cli_output_commit(cli_output *out, warplab_status status)
{
    if (!out->memory)
        return output_failed(out, "nothing was written", 0);
    if (status != WARPLAB_OK)
        return output_failed(out, warplab_status_string(status), 0);
    if (fclose(out->memory) != 0) {
        out->memory = NULL;
        return output_failed(out, "out of memory", errno);
    }
    out->memory = NULL;
    if (!create_temporary(out))
        return output_failed(out, "create", errno);
    for (size_t done = 0; done < out->size;) {
        ssize_t n = write(out->fd, out->data + done, out->size - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return output_failed(out, "write", errno);
        done += (size_t)n;
    }
    /* The permissions a plain fopen would give (mkstemp makes it 0600). */
    mode_t mask = umask(0);
    umask(mask);
    if (fchmod(out->fd, 0666 & ~mask) != 0 || fsync(out->fd) != 0)
        return output_failed(out, "fsync", errno);
    int fd = out->fd;
    track(out, false);
    out->fd = -1;
    if (close(fd) != 0) {
        unlink(out->temp);
        return output_failed(out, "close", errno);
    }
    if (rename(out->temp, out->path) != 0) {
        int error = errno;
        unlink(out->temp);
        return output_failed(out, "rename", error);
    }
    free(out->data);
    out->data = NULL;
    return CLI_OK;
}

int cli_write_file(const warplab_report *report, cli_output *out, warplab_format format, bool svg)
{
    FILE *file = cli_output_stream(out);
    if (!file)
        return output_failed(out, "out of memory", errno);
    warplab_status status =
        svg ? warplab_report_write_svg(report, file) : warplab_report_write(report, format, file);
    return cli_output_commit(out, status);
}

int cli_write_sweep_svg(const warplab_report *report, cli_output *out)
{
    FILE *file = cli_output_stream(out);
    if (!file)
        return output_failed(out, "out of memory", errno);
    return cli_output_commit(out, warplab_report_write_sweep_svg(report, file));
}

void cli_print_ladders(FILE *out)
{
    for (size_t i = 0; i < warplab_ladder_count(); i++)
        fprintf(out, "  %-10s %s\n", warplab_ladder_name(i), warplab_ladder_title(i));
}
