/* warplab ladders: the ladders and their rungs, with the lesson of each. */
#include "cli.h"

#include "warplab_lab.h"
#include <stdio.h>
#include <string.h>

static void ladders_help(FILE *out)
{
    fprintf(out, "usage: warplab ladders [LADDER] [--lessons | --unsafe]\n"
                 "\n"
                 "Lists every ladder (or one) with its rungs in order; rung ids are what\n"
                 "'warplab bench --rung' takes.\n"
                 "\n"
                 "options:\n"
                 "      --lessons   each rung's lesson (what changed over the rung below, and why\n"
                 "                  it is faster), where the course teaches it, the figure the\n"
                 "                  course measured (or the bound it computed), and the course's\n"
                 "                  errata about it (all of them: 'warplab errata')\n"
                 "      --unsafe    only the rungs known to be unsafe on today's GPUs, as\n"
                 "                  LADDER/RUNG, one per line\n"
                 "  -h, --help      this help\n");
}

/* "host", "vendor, unsafe": the kinds a rung's flags name ("" for a plain rung). */
static void format_kinds(char *out, size_t len, unsigned flags)
{
    static const struct {
        unsigned flag;
        const char *name;
    } kinds[] = {{WARPLAB_ROW_HOST, "host"},
                 {WARPLAB_ROW_VENDOR, "vendor"},
                 {WARPLAB_ROW_REFERENCE, "reference"},
                 {WARPLAB_ROW_TRANSFER, "transfer"},
                 {WARPLAB_ROW_UNSAFE, "unsafe"}};
    out[0] = '\0';
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        if (!(flags & kinds[i].flag))
            continue;
        size_t used = strlen(out);
        snprintf(out + used, len - used, "%s%s", used ? ", " : "", kinds[i].name);
    }
}

/* The course's errata about one rung (rung "": the whole ladder). */
static void print_errata(const char *ladder, const char *rung)
{
    const warplab_erratum *e;
    for (size_t i = 0; (e = warplab_erratum_get(i)) != NULL; i++)
        if (!strcmp(e->topic, ladder) && !strcmp(e->rung, rung))
            cli_print_erratum(stdout, "      ", e);
}

static void print_lesson(const char *ladder, const char *rung)
{
    warplab_rung_info info;
    if (warplab_rung_describe(ladder, rung, &info) != WARPLAB_OK)
        return;
    char kinds[64];
    format_kinds(kinds, sizeof kinds, info.flags);
    printf("  %s: %s%s%s%s\n", info.id, info.title, kinds[0] ? " [" : "", kinds,
           kinds[0] ? "]" : "");
    cli_print_wrapped(stdout, "      ", info.lesson, 96);
    if (info.course[0]) {
        char where[256];
        snprintf(where, sizeof where, "see: %s", info.course);
        cli_print_wrapped(stdout, "      ", where, 96);
    }
    if (info.course_value > 0)
        printf("      %s there: %.4g %s on %s\n", info.course_bound ? "bound" : "measured",
               info.course_value, info.course_unit,
               info.course_device[0] ? info.course_device : "the course's GPU");
    if (info.course_value2 > 0)
        printf("      and: %.4g %s on %s\n", info.course_value2, info.course_unit2,
               info.course_device2[0] ? info.course_device2 : "another GPU");
    print_errata(ladder, rung);
    printf("\n");
}

int cmd_ladders(int argc, char **argv)
{
    const char *only = NULL;
    bool unsafe_only = false, lessons = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            ladders_help(stdout);
            return CLI_OK;
        }
        if (!strcmp(argv[i], "--unsafe")) {
            unsafe_only = true;
            continue;
        }
        if (!strcmp(argv[i], "--lessons")) {
            lessons = true;
            continue;
        }
        if (argv[i][0] == '-')
            return cli_usage_error("ladders", "unknown option '%s'", argv[i]);
        if (only)
            return cli_usage_error("ladders", "one ladder at a time (got '%s' and '%s')", only,
                                   argv[i]);
        only = argv[i];
    }
    if (unsafe_only && lessons)
        return cli_usage_error("ladders", "--lessons or --unsafe, not both");
    bool found = false;
    for (size_t l = 0; l < warplab_ladder_count(); l++) {
        const char *name = warplab_ladder_name(l);
        if (only && strcmp(only, name) != 0)
            continue;
        found = true;
        if (unsafe_only) {
            const char *rung;
            for (size_t r = 0; (rung = warplab_ladder_rung(name, r, NULL)) != NULL; r++)
                if (warplab_rung_flags(name, rung) & WARPLAB_ROW_UNSAFE)
                    printf("%s/%s\n", name, rung);
            continue;
        }
        printf("%s: %s\n", name, warplab_ladder_title(l));
        if (lessons) {
            print_errata(name, "");
            printf("\n");
        }
        const char *title = NULL, *rung;
        for (size_t r = 0; (rung = warplab_ladder_rung(name, r, &title)) != NULL; r++) {
            if (lessons)
                print_lesson(name, rung);
            else
                printf("  %-20s %s\n", rung, title);
        }
        if (!lessons)
            printf("\n");
    }
    if (only && !found)
        return cli_usage_error("ladders", "no ladder named '%s'", only);
    return CLI_OK;
}
