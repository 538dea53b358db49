/* Hardware counters of one launch of a rung (warplab bench --counters): the
 * harness opens the profiler window around the first timed launch when the
 * environment asks for it, so that Nsight Compute (ncu --profile-from-start
 * off) measures exactly that launch; src/lab/counters.c parses ncu's CSV and
 * writes the counters table with the lessons' predictions. */
#ifndef WARPLAB_COUNTERS_H
#define WARPLAB_COUNTERS_H

#include "internal.h"

#include "warplab_lab.h"
#ifdef __cplusplus
extern "C" {
#endif

/* Whether the profiler window is asked for on this backend (cuda, with
 * WARPLAB_PROFILE_ENV set to 1). */
bool wl_profile_requested(const wl_backend *backend);
/* Opens (open = 1) or closes the window. */
warplab_status wl_profile_window(wl_backend *backend, int open);

#ifdef WARPLAB_HAVE_CUDA
warplab_status wl_cuda_profile_window(wl_backend *backend, int open);
#endif

#ifdef __cplusplus
}
#endif

#endif
