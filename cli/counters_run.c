/* warplab bench --counters: each cuda rung of the run, once more, under
 * Nsight Compute. The tool re-runs itself per rung (`ncu --csv --page raw
 * --profile-from-start off ... warplab bench LADDER --rung RUNG --size
 * SIZE`), with WARPLAB_PROFILE_ENV set so that the harness opens the
 * profiler window around the first timed launch alone; the library parses
 * the CSV and writes the table. */
#define _GNU_SOURCE
#include "cli.h"

#include "warplab_lab.h"
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static bool executable(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* ncu on the PATH, else in the CUDA toolkit ($CUDA_HOME, /usr/local/cuda,
 * and the toolkit's own nsight-compute folder). */
static bool find_ncu(char *path, size_t len)
{
    const char *env = getenv("PATH");
    if (env) {
        char *copy = strdup(env);
        for (char *save = NULL, *dir = copy ? strtok_r(copy, ":", &save) : NULL; dir;
             dir = strtok_r(NULL, ":", &save)) {
            snprintf(path, len, "%s/ncu", *dir ? dir : ".");
            if (executable(path)) {
                free(copy);
                return true;
            }
        }
        free(copy);
    }
    const char *homes[] = {getenv("CUDA_HOME"), getenv("CUDA_PATH"), "/usr/local/cuda"};
    for (size_t i = 0; i < sizeof homes / sizeof homes[0]; i++) {
        if (!homes[i] || !*homes[i])
            continue;
        snprintf(path, len, "%s/bin/ncu", homes[i]);
        if (executable(path))
            return true;
        snprintf(path, len, "%s/nsight-compute/ncu", homes[i]);
        if (executable(path))
            return true;
    }
    /* A stand-alone Nsight Compute, newest version last in glob order. */
    glob_t found;
    bool any = false;
    if (glob("/opt/nvidia/nsight-compute/*/ncu", 0, NULL, &found) == 0) {
        for (size_t i = found.gl_pathc; i-- > 0 && !any;)
            if (executable(found.gl_pathv[i])) {
                snprintf(path, len, "%s", found.gl_pathv[i]);
                any = true;
            }
        globfree(&found);
    }
    return any;
}

/* Runs argv with stdout and stderr into the file out; returns the exit
 * status (or -1 when it could not start). */
static int run_to_file(char *const argv[], const char *out)
{
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int null_fd = open("/dev/null", O_RDONLY);
        if (fd < 0 || null_fd < 0)
            _exit(127);
        dup2(null_fd, 0);
        dup2(fd, 1);
        dup2(fd, 2);
        execv(argv[0], argv);
        _exit(127);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *text = NULL;
    size_t size = 0, used = 0;
    for (;;) {
        if (used + 4096 + 1 > size) {
            size = size ? 2 * size : 65536;
            char *more = realloc(text, size);
            if (!more) {
                free(text);
                fclose(f);
                return NULL;
            }
            text = more;
        }
        size_t got = fread(text + used, 1, size - used - 1, f);
        used += got;
        if (got == 0)
            break;
    }
    fclose(f);
    text[used] = '\0';
    return text;
}

/* The first line of `ncu --version`'s last line ("Version 2025.2.1.0 ..."). */
static void ncu_version(const char *ncu, const char *scratch, char *version, size_t len)
{
    char *argv[] = {(char *)ncu, "--version", NULL};
    snprintf(version, len, "Nsight Compute");
    if (run_to_file(argv, scratch) != 0)
        return;
    char *text = read_file(scratch);
    const char *at = text ? strstr(text, "Version ") : NULL;
    if (at) {
        size_t n = strcspn(at, "\r\n");
        snprintf(version, len, "Nsight Compute %.*s", (int)(n > 8 ? n - 8 : 0), at + 8);
        char *space = strchr(version + 15, ' ');
        if (space)
            *space = '\0';
    }
    free(text);
}

/* The first item of a comma-separated size list. */
static void first_size(const char *list, char *size, size_t len)
{
    size_t n = strcspn(list ? list : "", ",");
    while (n && list[n - 1] == ' ')
        n--;
    while (*list == ' ' && n) {
        list++;
        n--;
    }
    snprintf(size, len, "%.*s", (int)n, list ? list : "");
}

static bool measurable(const warplab_row *row)
{
    return strcmp(row->backend, "cuda") == 0 &&
           !(row->flags & (WARPLAB_ROW_SKIPPED | WARPLAB_ROW_HOST | WARPLAB_ROW_TRANSFER));
}

int cli_counters(const warplab_report *report, const cli_run *run,
                 const warplab_device_info *device, warplab_counters *counters)
{
    for (size_t i = 0; i < report->row_count; i++) {
        memset(&counters[i], 0, sizeof counters[i]);
        snprintf(counters[i].note, sizeof counters[i].note, "not measured");
    }
    if (strcmp(report->backend, "cuda") != 0) {
        fprintf(stderr,
                "warplab bench --counters: the counters are Nsight Compute's, for the "
                "cuda backend; this run is on %s: the table above is the plain one\n",
                report->backend);
        return CLI_OK;
    }
    char ncu[4096];
    if (!find_ncu(ncu, sizeof ncu)) {
        fprintf(stderr, "warplab bench --counters: Nsight Compute (ncu) is not on the PATH nor "
                        "in the CUDA toolkit ($CUDA_HOME/bin, /usr/local/cuda/bin): no counters; "
                        "the table above is the plain one\n");
        return CLI_OK;
    }
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) {
        fprintf(stderr, "warplab bench --counters: cannot find this program's path: no "
                        "counters\n");
        return CLI_OK;
    }
    self[n] = '\0';
    char out_path[] = "/tmp/warplab-ncu-XXXXXX";
    int fd = mkstemp(out_path);
    if (fd < 0) {
        fprintf(stderr, "warplab bench --counters: no temporary file (%s): no counters\n",
                strerror(errno));
        return CLI_OK;
    }
    close(fd);
    char tool[96];
    ncu_version(ncu, out_path, tool, sizeof tool);
    char metrics[1024];
    snprintf(metrics, sizeof metrics, "%s", warplab_counters_metrics());
    char seed[32], device_index[16];
    snprintf(seed, sizeof seed, "%llu", run->seed ? run->seed : 1ull);
    snprintf(device_index, sizeof device_index, "%d", run->device < 0 ? 0 : run->device);
    setenv(WARPLAB_PROFILE_ENV, "1", 1);
    size_t measured = 0, total = 0;
    bool refused = false;
    for (size_t i = 0; i < report->row_count && !refused; i++) {
        const warplab_row *row = &report->rows[i];
        /* The ladder's first problem only: its first row's problem. */
        size_t first = i;
        while (first > 0 && strcmp(report->rows[first - 1].ladder, row->ladder) == 0)
            first--;
        if (!measurable(row) || strcmp(report->rows[first].problem, row->problem) != 0)
            continue;
        if (cli_interrupted(NULL))
            break;
        char size[128];
        first_size(run->size ? run->size : warplab_ladder_default_sizes(row->ladder, 1), size,
                   sizeof size);
        char *argv[64];
        int argc = 0;
        /* --clock-control none: ncu's default locks the GPU's clocks to base
         * while it profiles; warplab never changes the card's clocks. */
        char *const fixed[] = {ncu,
                               "--clock-control",
                               "none",
                               "--csv",
                               "--page",
                               "raw",
                               "--print-units",
                               "base",
                               "--metrics",
                               metrics,
                               "--profile-from-start",
                               "off",
                               "--target-processes",
                               "all",
                               self,
                               "bench",
                               (char *)row->ladder,
                               "--rung",
                               (char *)row->rung,
                               "--size",
                               size,
                               "--repeat",
                               "1",
                               "--warmup",
                               "1",
                               "--quiet",
                               "--backend",
                               "cuda",
                               "--device",
                               device_index,
                               "--seed",
                               seed};
        for (size_t k = 0; k < sizeof fixed / sizeof fixed[0]; k++)
            argv[argc++] = fixed[k];
        if (run->dtype) {
            argv[argc++] = "--type";
            argv[argc++] = (char *)run->dtype;
        }
        if (run->op) {
            argv[argc++] = "--op";
            argv[argc++] = (char *)run->op;
        }
        argv[argc] = NULL;
        total++;
        if (!run->quiet)
            fprintf(stderr, "warplab: counters of %s/%s (%s) under ncu\n", row->ladder, row->rung,
                    size);
        const int rc = run_to_file(argv, out_path);
        char *text = read_file(out_path);
        const warplab_status parsed = warplab_counters_parse(text, &counters[i]);
        if (counters[i].refused) {
            fprintf(stderr,
                    "\nwarplab bench --counters: this user may not read the GPU's performance "
                    "counters (ERR_NVGPUCTRPERM: see "
                    "https://developer.nvidia.com/ERR_NVGPUCTRPERM): no counters; the table "
                    "above is the plain one\n");
            refused = true;
        } else if (parsed != WARPLAB_OK) {
            char note[160];
            snprintf(note, sizeof note, "ncu exit %d: %s", rc, counters[i].note);
            snprintf(counters[i].note, sizeof counters[i].note, "%s", note);
        } else {
            measured++;
        }
        counters[i].l2_cache_bytes = device ? (double)device->l2_cache_bytes : 0.0;
        free(text);
    }
    unsetenv(WARPLAB_PROFILE_ENV);
    unlink(out_path);
    if (refused)
        return CLI_OK;
    warplab_counters_write(report, counters, tool, stdout);
    size_t judged = 0;
    const size_t contradicted = warplab_counters_contradictions(report, counters, &judged);
    printf("\n%zu of %zu rungs measured under %s; %zu lesson predictions judged, %zu "
           "contradicted\n",
           measured, total, tool, judged, contradicted);
    return CLI_OK;
}

int cli_bench_extras(const warplab_report *report, const cli_run *run,
                     const warplab_device_info *device, int argc, char **argv, cli_output *html)
{
    warplab_counters *counters = NULL;
    int code = CLI_OK;
    if (run->counters) {
        counters = calloc(report->row_count ? report->row_count : 1, sizeof *counters);
        if (!counters) {
            fprintf(stderr, "warplab bench --counters: out of memory\n");
            code = CLI_FAILED;
        } else {
            code = cli_counters(report, run, device, counters);
        }
    }
    if (html) {
        /* The settings line: the command as given. */
        char settings[2048] = "warplab";
        size_t used = strlen(settings);
        for (int i = 0; i < argc && used + 1 < sizeof settings; i++) {
            int wrote = snprintf(settings + used, sizeof settings - used, " %s", argv[i]);
            if (wrote < 0)
                break;
            used +=
                (size_t)wrote < sizeof settings - used ? (size_t)wrote : sizeof settings - used - 1;
        }
        FILE *file = cli_output_stream(html);
        int written = CLI_FAILED;
        bool measured = false;
        for (size_t i = 0; counters && i < report->row_count; i++)
            measured = measured || counters[i].valid;
        if (file)
            written = cli_output_commit(
                html,
                warplab_report_write_html(report, measured ? counters : NULL, settings, file));
        else
            cli_output_abandon(html);
        if (code == CLI_OK)
            code = written;
    }
    free(counters);
    return code;
}
