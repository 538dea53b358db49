/*
 * Rung sources (warplab show): the kernel code of each rung as compiled into
 * this build, and a line diff. A rung's code on a backend is one of two
 * things:
 *
 * - Its own file: src/ladders/LADDER/BACKEND/NN_RUNG.EXT (the cuda rungs of
 *   reduce and transpose: src/ladders/reduce/cuda/06_sequential.cu), where NN
 *   is the rung's place in its ladder (`warplab ladders LADDER`, from 01).
 *   The whole file is the rung's code; what several rungs share lives in the
 *   ladder's header beside it and is not part of any rung's code.
 *
 * - Marked regions elsewhere (the other ladders and backends): the text
 *   between a line holding
 *       warplab:rung LADDER ID [ID ...]
 *   and the next line holding
 *       warplab:end
 *   (in a comment: // or / * * /, in CUDA C, OpenCL C and C alike; outside
 *   any macro body, since a comment line would end it). A region may name
 *   several rungs of one ladder (a kernel they share); a rung may have
 *   several regions on a backend (its kernel, its launcher), shown in file
 *   order. Regions do not nest.
 *
 * A rung has one or the other on a backend, never both, and a rung file holds
 * no markers (wl_show_check_markers). cmake/embed_sources.cmake embeds every
 * rung file and every backend source file that has a marker (src/cuda,
 * src/opencl, src/cpu; each backend's only when it is compiled in).
 */
#ifndef WARPLAB_SHOW_H
#define WARPLAB_SHOW_H

#include "internal.h"

#include <stdio.h>

typedef struct wl_source_file {
    const char *path; /* relative to the source tree: "src/ladders/vecadd/cuda/04_grid.cu" */
    warplab_backend_kind backend;
    const char *text;
} wl_source_file;

/* Generated (cmake/embed_sources.cmake); the last entry is all zero. */
extern const wl_source_file wl_source_files[];
extern const size_t wl_source_file_count;

/* One marked region of a source file. */
typedef struct wl_source_region {
    const wl_source_file *file;
    size_t begin_line; /* 1-based line of the first line of code (after the marker) */
    size_t lines;      /* lines of code (markers excluded) */
    const char *begin; /* the code: lines characters-worth up to end */
    const char *end;
} wl_source_region;

/* A marker that is wrong (the test's and the show command's check). */
typedef struct wl_marker_problem {
    const wl_source_file *file;
    size_t line;
    char what[160];
} wl_marker_problem;

/* Walks every embedded file's markers: counts regions (a rung file is one),
 * and stores up to capacity problems (an unknown ladder or rung, a region
 * never closed, an end without a begin, a begin inside a region, a marker
 * inside a macro body; a rung file whose name is not its rung's place in
 * its ladder, that holds a marker, or whose rung is marked elsewhere too);
 * returns how many problems there are. */
size_t wl_show_check_markers(wl_marker_problem *problems, size_t capacity, size_t *regions);

/* The same check of one file (problems counted from 0; regions added to). */
size_t wl_show_check_file(const wl_source_file *file, wl_marker_problem *problems, size_t capacity,
                          size_t *regions);

/* The rung's own file on a backend (src/ladders/LADDER/BACKEND/NN_RUNG.*),
 * or NULL when its code there is marked regions or nothing. */
const wl_source_file *wl_show_rung_file(const char *ladder, const char *rung,
                                        warplab_backend_kind backend);

/* Whether a rung has code on a backend: its own file or marked regions. */
bool wl_show_has_code(const wl_ladder *ladder, const wl_rung *rung, warplab_backend_kind backend);

/* The marked regions of a rung on a backend, in file order (none for a rung
 * with its own file); returns how many (up to capacity stored). */
size_t wl_show_regions(const char *ladder, const char *rung, warplab_backend_kind backend,
                       wl_source_region *regions, size_t capacity);

/* The rung's code on a backend as one string, malloc'd: its own file whole,
 * or each of its regions, each led by a "// path:line" line ("// path"
 * without line_numbers); NULL with *status set when it has none
 * (WARPLAB_ERROR_UNKNOWN_NAME) or memory runs out. */
char *wl_show_source(const wl_ladder *ladder, const wl_rung *rung, warplab_backend_kind backend,
                     bool line_numbers, warplab_status *status);

/* The rung its diff is taken against on a backend: the nearest rung before
 * it in ladder order that has code on that backend, of the same kind
 * (vendor, copy reference and transfer rungs compare among themselves), and
 * on the ladder when the rung is (an off-ladder row, such as reduce's
 * <rung>_128, is skipped); NULL when there is none. */
const wl_rung *wl_show_rung_below(const wl_ladder *ladder, const wl_rung *rung,
                                  warplab_backend_kind backend);

/* A unified diff of two texts line by line (Myers' O(ND) algorithm), with
 * context lines around each change, to stream. Writes nothing when the
 * texts are equal. Returns WARPLAB_ERROR_HOST_OUT_OF_MEMORY when it cannot. */
warplab_status wl_diff_write(const char *old_text, const char *new_text, const char *old_name,
                             const char *new_name, int context, FILE *stream);

/* The backends whose sources are embedded, in display order. */
#define WL_SHOW_BACKENDS 3
/* The HTML handout's room, per backend: the code regions of one rung, the
 * distinct regions of one ladder's rungs, and those that two rungs or more
 * share (test_registry checks each against the embedded sources). */
#define WL_SHOW_RUNG_REGIONS_MAX 16
#define WL_SHOW_LADDER_REGIONS_MAX 256
#define WL_SHOW_SHARED_REGIONS_MAX 64
extern const warplab_backend_kind wl_show_backends[WL_SHOW_BACKENDS];
/* "CUDA C", "OpenCL C", "C (cpu backend)" */
const char *wl_show_language(warplab_backend_kind backend);

/* The course's figure of a rung: "15.72 GiB/s on K40" (and a second device's);
 * "" when it has none. */
void wl_show_course_figure(const wl_rung *rung, char *text, size_t len);

/* The course's errata about a rung of a ladder (or probe), as text: what the
 * course wrote, why it is wrong, what warplab runs instead; with ladder_wide,
 * the ones about the whole ladder too. */
void wl_show_errata(FILE *stream, const char *topic, const char *rung, bool ladder_wide);

#endif
