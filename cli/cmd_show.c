/* warplab show: a rung's lesson, the course's reference and figure, its
 * kernel source as compiled into this build, and the diff against the rung
 * below. Needs no device. */
#define _GNU_SOURCE
#include "cli.h"

#include "warplab_lab.h"
#include <getopt.h>
#include <stdio.h>
#include <string.h>

static void show_help(FILE *out)
{
    fprintf(out, "usage: warplab show LADDER [RUNG] [OPTIONS]\n"
                 "\n"
                 "Prints a rung's title, lesson and the course's reference with its figure, then\n"
                 "the rung's kernel source as compiled into this build (CUDA C, OpenCL C, and the\n"
                 "cpu backend's C where it has the rung), each with a unified diff against the\n"
                 "rung below on the same backend. Without RUNG, walks the whole ladder.\n"
                 "Needs no GPU.\n"
                 "\n"
                 "options:\n"
                 "  -b, --backend NAME   only this backend's source (cuda, opencl, cpu)\n"
                 "  -h, --help           this help\n"
                 "\n"
                 "ladders:\n");
    cli_print_ladders(out);
}

int cmd_show(int argc, char **argv)
{
    static const struct option options[] = {{"backend", required_argument, NULL, 'b'},
                                            {"help", no_argument, NULL, 'h'},
                                            {NULL, 0, NULL, 0}};
    const char *backend_name = NULL;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "b:h", options, NULL)) != -1) {
        switch (c) {
        case 'b': backend_name = optarg; break;
        case 'h': show_help(stdout); return CLI_OK;
        default: return cli_usage_error("show", "unknown option");
        }
    }
    if (optind >= argc)
        return cli_usage_error("show", "which ladder? (warplab show reduce, warplab show reduce "
                                       "sequential)");
    const char *ladder = argv[optind++];
    const char *rung = optind < argc ? argv[optind++] : NULL;
    if (optind < argc)
        return cli_usage_error("show", "one ladder and at most one rung (got '%s' too)",
                               argv[optind]);
    warplab_backend_kind backend = WARPLAB_BACKEND_AUTO;
    if (backend_name && (warplab_backend_parse(backend_name, &backend) != WARPLAB_OK ||
                         backend == WARPLAB_BACKEND_AUTO))
        return cli_usage_error("show", "unknown backend '%s' (choose cuda, opencl or cpu)",
                               backend_name);
    warplab_status status = warplab_show_write(ladder, rung, backend, stdout);
    if (status != WARPLAB_OK)
        return cli_fail(status, warplab_last_error(NULL), "show");
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "warplab show: cannot write the output\n");
        return CLI_FAILED;
    }
    return CLI_OK;
}
