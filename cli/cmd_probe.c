/* warplab probe. (To be written.) */
#include "cli.h"

#include <stdio.h>

int cmd_probe(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "warplab probe: not built yet\n");
    return CLI_FAILED;
}
