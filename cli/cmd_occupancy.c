/* warplab occupancy. (To be written.) */
#include "cli.h"

#include <stdio.h>

int cmd_occupancy(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "warplab occupancy: not built yet\n");
    return CLI_FAILED;
}
