/* warplab errata: the course's errata (docs/COURSE.md, "Errata"): what the
 * course wrote, why it is wrong, and what warplab runs instead. */
#include "cli.h"

#include "warplab_lab.h"
#include <stdio.h>
#include <string.h>

static void errata_help(FILE *out)
{
    fprintf(out, "usage: warplab errata [LADDER|PROBE|course] [--rung RUNG]\n"
                 "\n"
                 "Lists the course's errata: each bug, wrong figure, unit or label in the\n"
                 "course's documents that a ladder or probe meets, with the passage quoted,\n"
                 "why it is wrong and what warplab runs instead. Without an argument, all of\n"
                 "them; with a ladder or probe name, its own ('course': those about neither).\n"
                 "'warplab ladders LADDER --lessons' and 'warplab show' print them beside the\n"
                 "rungs they concern.\n"
                 "\n"
                 "options:\n"
                 "      --rung RUNG  only those about one rung of the ladder\n"
                 "  -h, --help       this help\n");
}

void cli_print_erratum(FILE *out, const char *indent, const warplab_erratum *erratum)
{
    char line[1024];
    snprintf(line, sizeof line, "erratum %s (seed %s, %s%s%s):", erratum->id, erratum->seed,
             erratum->where, erratum->rung[0] ? "; rung " : "", erratum->rung);
    cli_print_wrapped(out, indent, line, 96);
    char inner[64];
    snprintf(inner, sizeof inner, "%s    ", indent);
    snprintf(line, sizeof line, "the course wrote: \"%s\"", erratum->quote);
    cli_print_wrapped(out, inner, line, 96);
    snprintf(line, sizeof line, "why it is wrong: %s", erratum->why);
    cli_print_wrapped(out, inner, line, 96);
    snprintf(line, sizeof line, "warplab instead: %s", erratum->instead);
    cli_print_wrapped(out, inner, line, 96);
}

static bool topic_known(const char *topic)
{
    if (!strcmp(topic, "course"))
        return true;
    for (size_t l = 0; l < warplab_ladder_count(); l++)
        if (!strcmp(warplab_ladder_name(l), topic))
            return true;
    for (size_t p = 0; p < warplab_probe_count(); p++)
        if (!strcmp(warplab_probe_name(p), topic))
            return true;
    return false;
}

int cmd_errata(int argc, char **argv)
{
    const char *topic = NULL, *rung = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            errata_help(stdout);
            return CLI_OK;
        }
        if (!strcmp(argv[i], "--rung")) {
            if (i + 1 >= argc)
                return cli_usage_error("errata", "--rung needs a rung id");
            if (rung)
                return cli_usage_error("errata", "--rung given twice");
            rung = argv[++i];
            continue;
        }
        if (argv[i][0] == '-')
            return cli_usage_error("errata", "unknown option '%s'", argv[i]);
        if (topic)
            return cli_usage_error("errata", "one ladder or probe at a time (got '%s' and '%s')",
                                   topic, argv[i]);
        topic = argv[i];
    }
    if (topic && !topic_known(topic))
        return cli_usage_error("errata", "no ladder or probe named '%s'", topic);
    if (rung && !topic)
        return cli_usage_error("errata", "--rung needs a ladder");
    if (rung && warplab_rung_flags(topic, rung) == 0) {
        warplab_rung_info info;
        if (warplab_rung_describe(topic, rung, &info) != WARPLAB_OK)
            return cli_usage_error("errata", "the %s ladder has no rung '%s'", topic, rung);
    }
    size_t shown = 0;
    const warplab_erratum *e;
    for (size_t i = 0; (e = warplab_erratum_get(i)) != NULL; i++) {
        if (topic && strcmp(e->topic, topic) != 0)
            continue;
        if (rung && strcmp(e->rung, rung) != 0)
            continue;
        if (!topic && (i == 0 || strcmp(warplab_erratum_get(i - 1)->topic, e->topic) != 0))
            printf("%s%s:\n", shown ? "\n" : "", e->topic);
        cli_print_erratum(stdout, topic ? "" : "  ", e);
        shown++;
    }
    if (!shown)
        printf("no errata%s%s%s%s\n", topic ? " about " : "", topic ? topic : "",
               rung ? ", rung " : "", rung ? rung : "");
    return CLI_OK;
}
