/* Output files (--json, --plot, --html). What a path names decides how it is
 * written, and it is checked before the run starts, so that a path that
 * cannot be written is refused (exit 1) instead of losing a run:
 * - "-": standard output;
 * - a symbolic link: what it points at (followed to the end, a dangling
 *   link's target created), never the link itself;
 * - a regular file or a new path: atomically, a temporary file beside the
 *   target filled at the end and renamed over it (an existing file keeps
 *   its permissions and, where allowed, its owner); a file in a directory
 *   the user may not write into is rewritten in place;
 * - a character device, FIFO or socket: written through (opened, or
 *   connected to, and written; never replaced);
 * - a directory or a block device: refused as bad usage (exit 2).
 * The temporary file exists only while the output is written, so a signal
 * during the run, whoever handles it (an OpenCL runtime's compiler may
 * install handlers of its own), leaves nothing behind. A failed write
 * removes the temporary file and reports the real errno. */
#define _GNU_SOURCE
#include "cli.h"

#include "warplab_lab.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
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

/* The temporary file beside out->target, tracked for the signal handler. */
static bool create_temporary(cli_output *out)
{
    snprintf(out->temp, sizeof out->temp, "%s.tmp-XXXXXX", out->target);
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
        if (out->kind == CLI_OUTPUT_ATOMIC)
            unlink(out->temp);
    }
    out->fd = -1;
}

/* Follows path's symbolic links to what they finally name (which need not
 * exist) into target; false (errno set) on a loop or a name too long. */
static bool resolve_links(const char *path, char *target, size_t size)
{
    if (strlen(path) >= size) {
        errno = ENAMETOOLONG;
        return false;
    }
    strcpy(target, path);
    for (int depth = 0; depth < 40; depth++) {
        struct stat st;
        if (lstat(target, &st) != 0 || !S_ISLNK(st.st_mode))
            return true;
        char link[PATH_MAX];
        ssize_t n = readlink(target, link, sizeof link - 1);
        if (n < 0)
            return false;
        link[n] = '\0';
        if (link[0] == '/') {
            if ((size_t)n >= size) {
                errno = ENAMETOOLONG;
                return false;
            }
            strcpy(target, link);
        } else { /* relative to the link's directory */
            char *slash = strrchr(target, '/');
            size_t keep = slash ? (size_t)(slash - target) + 1 : 0;
            if (keep + (size_t)n >= size) {
                errno = ENAMETOOLONG;
                return false;
            }
            memmove(target + keep, link, (size_t)n + 1);
        }
    }
    errno = ELOOP;
    return false;
}

/* Whether the effective user may write path (root may write a 0444 file). */
static bool may_write(const char *path)
{
    return faccessat(AT_FDCWD, path, W_OK, AT_EACCESS) == 0;
}

static int cannot_write(const char *option, const char *path, int error)
{
    fprintf(stderr, "warplab: %s %s: cannot write there: %s\n", option, path, strerror(error));
    return CLI_FAILED;
}

int cli_output_begin(cli_output *out, const char *path, const char *option)
{
    memset(out, 0, sizeof *out);
    out->fd = -1;
    if (!path || !*path) {
        fprintf(stderr, "warplab: %s needs a file name\n", option);
        return CLI_USAGE;
    }
    if (strlen(path) >= sizeof out->path) {
        fprintf(stderr, "warplab: %s: the path is too long\n", option);
        return CLI_USAGE;
    }
    memcpy(out->path, path, strlen(path) + 1);
    if (strcmp(path, "-") == 0) {
        out->kind = CLI_OUTPUT_STDOUT;
        return CLI_OK;
    }
    if (!resolve_links(path, out->target, sizeof out->target))
        return cannot_write(option, path, errno);
    struct stat st;
    if (stat(out->target, &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            fprintf(stderr, "warplab: %s %s: is a directory, not a file\n", option, path);
            return CLI_USAGE;
        }
        if (S_ISBLK(st.st_mode)) {
            fprintf(stderr, "warplab: %s %s: is a block device, not a file\n", option, path);
            return CLI_USAGE;
        }
        if (!may_write(out->target))
            return cannot_write(option, path, errno);
        if (!S_ISREG(st.st_mode)) { /* a character device, FIFO or socket */
            out->kind = S_ISSOCK(st.st_mode) ? CLI_OUTPUT_SOCKET : CLI_OUTPUT_THROUGH;
            return CLI_OK;
        }
        out->existed = true;
        out->mode = st.st_mode & 07777;
        out->uid = st.st_uid;
        out->gid = st.st_gid;
    } else if (errno != ENOENT) {
        return cannot_write(option, path, errno);
    }
    if (strlen(out->target) + sizeof ".tmp-XXXXXX" > sizeof out->temp) {
        fprintf(stderr, "warplab: %s: the path is too long\n", option);
        return CLI_USAGE;
    }
    out->kind = CLI_OUTPUT_ATOMIC;
    if (!create_temporary(out)) {
        int error = errno;
        if (!out->existed)
            return cannot_write(option, path, error);
        /* A writable file in a directory we may not write into: in place. */
        out->kind = CLI_OUTPUT_THROUGH;
        return CLI_OK;
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

/* Opens what out names for writing through: a socket connected to, anything
 * else opened (a regular file truncated); -1 with errno set. */
static int open_through(const cli_output *out)
{
    if (out->kind == CLI_OUTPUT_STDOUT)
        return dup(STDOUT_FILENO);
    if (out->kind == CLI_OUTPUT_SOCKET) {
        struct sockaddr_un address;
        memset(&address, 0, sizeof address);
        address.sun_family = AF_UNIX;
        if (strlen(out->target) >= sizeof address.sun_path) {
            errno = ENAMETOOLONG;
            return -1;
        }
        strcpy(address.sun_path, out->target);
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd >= 0 && connect(fd, (const struct sockaddr *)&address, sizeof address) != 0) {
            int error = errno;
            close(fd);
            errno = error;
            return -1;
        }
        return fd;
    }
    struct stat st;
    int flags = O_WRONLY | O_NOCTTY | O_CLOEXEC;
    if (stat(out->target, &st) == 0 && S_ISREG(st.st_mode))
        flags |= O_TRUNC;
    return open(out->target, flags);
}

static int write_all(int fd, const char *data, size_t size)
{
    for (size_t done = 0; done < size;) {
        ssize_t n = write(fd, data + done, size - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return errno;
        done += (size_t)n;
    }
    return 0;
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
    if (out->kind != CLI_OUTPUT_ATOMIC) {
        if (out->kind == CLI_OUTPUT_STDOUT)
            fflush(stdout);
        int fd = open_through(out);
        if (fd < 0)
            return output_failed(out, "open", errno);
        int error = write_all(fd, out->data, out->size);
        if (close(fd) != 0 && !error && errno != EINTR)
            error = errno;
        if (error)
            return output_failed(out, "write", error);
        free(out->data);
        out->data = NULL;
        return CLI_OK;
    }
    if (!create_temporary(out))
        return output_failed(out, "create", errno);
    int error = write_all(out->fd, out->data, out->size);
    if (error)
        return output_failed(out, "write", error);
    /* An existing file keeps its permissions and owner; a new one gets what
     * a plain fopen would give (mkstemp makes it 0600). */
    mode_t mode = out->mode;
    if (!out->existed) {
        mode_t mask = umask(0);
        umask(mask);
        mode = 0666 & ~mask;
    } else if (fchown(out->fd, out->uid, out->gid) != 0) {
        /* Not the owner and not root: the file becomes the writer's. */
    }
    if (fchmod(out->fd, mode) != 0 || fsync(out->fd) != 0)
        return output_failed(out, "fsync", errno);
    int fd = out->fd;
    track(out, false);
    out->fd = -1;
    if (close(fd) != 0) {
        unlink(out->temp);
        return output_failed(out, "close", errno);
    }
    if (rename(out->temp, out->target) != 0) {
        error = errno;
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

int cli_write_grid(const warplab_gemm_grid *grid, cli_output *out)
{
    FILE *file = cli_output_stream(out);
    if (!file)
        return output_failed(out, "out of memory", errno);
    return cli_output_commit(out, warplab_gemm_grid_write(grid, WARPLAB_FORMAT_JSON, file));
}

void cli_print_ladders(FILE *out)
{
    for (size_t i = 0; i < warplab_ladder_count(); i++)
        fprintf(out, "  %-10s %s\n", warplab_ladder_name(i), warplab_ladder_title(i));
}
