/* What a run's rows show about the course's open questions (partition
 * camping, GPU against CPU with the transfers, the multi-block matrix
 * multiply's bound), each sentence computed from the rows; one emit per
 * conclusion whose rows the report holds (src/ladders/conclusions.c). */
#ifndef WARPLAB_LADDERS_CONCLUSIONS_H
#define WARPLAB_LADDERS_CONCLUSIONS_H

#include "warplab_lab.h"

#define WL_CONCLUSION_MAX 1024
typedef void (*wl_conclusion_emit)(void *user, const char *ladder, const char *text);
void wl_ladder_conclusions(const warplab_report *report, wl_conclusion_emit emit, void *user);

#endif
