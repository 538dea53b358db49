/* warplab ladders: the ladders and their rungs, with the lesson of each. */
#include "cli.h"

#include <stdio.h>
#include <string.h>

int cmd_ladders(int argc, char **argv)
{
    const char *only = NULL;
    bool unsafe_only = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("usage: warplab ladders [LADDER] [--unsafe]\n\n"
                   "Lists every ladder (or one) with its rungs in order; rung ids are what\n"
                   "'warplab bench --rung' takes. --unsafe prints only the rungs known to be\n"
                   "unsafe on today's GPUs, as LADDER/RUNG, one per line.\n");
            return CLI_OK;
        }
        if (!strcmp(argv[i], "--unsafe")) {
            unsafe_only = true;
            continue;
        }
        if (argv[i][0] == '-')
            return cli_usage_error("ladders", "unknown option '%s'", argv[i]);
        only = argv[i];
    }
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
        const char *title = NULL, *rung;
        for (size_t r = 0; (rung = warplab_ladder_rung(name, r, &title)) != NULL; r++)
            printf("  %-20s %s\n", rung, title);
        printf("\n");
    }
    if (only && !found)
        return cli_usage_error("ladders", "no ladder named '%s'", only);
    return CLI_OK;
}
