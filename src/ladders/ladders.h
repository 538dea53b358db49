/* The ladders: one wl_ladder (src/internal.h) each, declared from the list
 * in src/core/ladders.def; src/ladders/registry.c lists them in that order.
 * Each ladder's file defines its own, and the lab reaches them through the
 * registry (wl_ladder_at, wl_ladder_find). */
#ifndef WARPLAB_LADDERS_LADDERS_H
#define WARPLAB_LADDERS_LADDERS_H

#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The ladders, and how many there are. */
#define WL_LADDER(name) extern const wl_ladder wl_##name##_ladder;
#include "core/ladders.def"
#undef WL_LADDER
enum {
#define WL_LADDER(name) WL_LADDER_INDEX_##name,
#include "core/ladders.def"
#undef WL_LADDER
    WL_LADDER_COUNT
};

#ifdef __cplusplus
}
#endif

#endif
