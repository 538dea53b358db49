/* Rung sources: the rung files and the marked regions of the embedded kernel
 * sources (see src/lab/show.h), and warplab show's text. */
#include "show.h"
#include "core/context.h"

#include "warplab_lab.h"
#include <stdlib.h>
#include <string.h>

const warplab_backend_kind wl_show_backends[WL_SHOW_BACKENDS] = {
    WARPLAB_BACKEND_CUDA, WARPLAB_BACKEND_OPENCL, WARPLAB_BACKEND_CPU};

const char *wl_show_language(warplab_backend_kind backend)
{
    switch (backend) {
    case WARPLAB_BACKEND_CUDA: return "CUDA C";
    case WARPLAB_BACKEND_OPENCL: return "OpenCL C";
    case WARPLAB_BACKEND_CPU: return "C (cpu backend)";
    default: return "?";
    }
}

#define BEGIN_MARK "warplab:rung "
#define END_MARK "warplab:end"

/* One line of a file: [text, text + len), the newline excluded. */
typedef struct line_cursor {
    const char *text;
    size_t len;
    const char *next; /* the following line, or NULL at the end */
} line_cursor;

static bool line_at(const char *p, line_cursor *line)
{
    if (!p || !*p)
        return false;
    const char *nl = strchr(p, '\n');
    line->text = p;
    line->len = nl ? (size_t)(nl - p) : strlen(p);
    line->next = nl ? nl + 1 : NULL;
    return true;
}

/* The marker on a line: its start, or NULL. */
static const char *find_mark(const line_cursor *line, const char *mark)
{
    const size_t mark_len = strlen(mark);
    for (size_t i = 0; i + mark_len <= line->len; i++)
        if (memcmp(line->text + i, mark, mark_len) == 0)
            return line->text + i;
    return NULL;
}

/* Carries the block-comment state over [from, to) of a line: a // comment
 * ends the scan, string and character literals are skipped. Returns the
 * state at to. */
static bool comment_state(const char *from, const char *to, bool in_comment)
{
    for (const char *p = from; p < to; p++) {
        if (in_comment) {
            if (p + 1 < to && p[0] == '*' && p[1] == '/') {
                in_comment = false;
                p++;
            }
        } else if (p + 1 < to && p[0] == '/' && p[1] == '*') {
            in_comment = true;
            p++;
        } else if (p + 1 < to && p[0] == '/' && p[1] == '/') {
            break;
        } else if (*p == '"' || *p == '\'') {
            const char quote = *p;
            for (p++; p < to && *p != quote; p++)
                if (*p == '\\')
                    p++;
        }
    }
    return in_comment;
}

static bool ends_with_backslash(const line_cursor *line)
{
    size_t len = line->len;
    while (len && (line->text[len - 1] == ' ' || line->text[len - 1] == '\r'))
        len--;
    return len && line->text[len - 1] == '\\';
}

/* The words after "warplab:rung ": words[0] the ladder, then rung ids, up to
 * the end of a // comment's line or a block comment's end (a block comment
 * may go on over several lines, as clang-format wraps it; a continuation
 * line's leading '*' is skipped). *last is the comment's last line, after
 * which the region begins. Returns how many words. */
#define MAX_MARK_WORDS 24
static size_t mark_words(const line_cursor *line, const char *mark, char words[][48], size_t cap,
                         line_cursor *last)
{
    bool block = false;
    for (const char *q = line->text; q + 1 < mark; q++)
        block = block || (q[0] == '/' && q[1] == '*');
    const char *p = mark + strlen(BEGIN_MARK);
    line_cursor current = *line;
    size_t count = 0;
    for (;;) {
        const char *end = current.text + current.len;
        bool closed = !block;
        while (p < end && count < cap) {
            while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
                p++;
            if (p >= end)
                break;
            if (*p == '*' && p + 1 < end && p[1] == '/') {
                closed = true;
                break;
            }
            if (*p == '*') { /* a continuation line's leading star */
                p++;
                continue;
            }
            size_t len = 0;
            while (p + len < end && p[len] != ' ' && p[len] != '\t' && p[len] != '*' &&
                   p[len] != '\r')
                len++;
            if (len >= sizeof words[0])
                len = sizeof words[0] - 1;
            memcpy(words[count], p, len);
            words[count][len] = '\0';
            count++;
            p += len;
        }
        if (closed || count >= cap || !current.next || !line_at(current.next, &current))
            break;
        p = current.text;
    }
    *last = current;
    return count;
}

static bool mark_names(char words[][48], size_t count, const char *ladder, const char *rung)
{
    if (count < 2 || strcmp(words[0], ladder) != 0)
        return false;
    for (size_t i = 1; i < count; i++)
        if (strcmp(words[i], rung) == 0)
            return true;
    return false;
}

static void add_problem(wl_marker_problem *problems, size_t capacity, size_t *count,
                        const wl_source_file *file, size_t line, const char *format, const char *a,
                        const char *b)
{
    if (problems && *count < capacity) {
        problems[*count].file = file;
        problems[*count].line = line;
        snprintf(problems[*count].what, sizeof problems[*count].what, format, a, b);
    }
    (*count)++;
}

/* A rung file: src/ladders/LADDER/BACKEND/NN_RUNG.EXT, the whole file one
 * rung's code (NN: the rung's place in its ladder, from 01). Fills the
 * ladder's name, the number and the rung's id; false for any other path. */
#define RUNG_FILE_PREFIX "src/ladders/"
static bool parse_rung_file(const char *path, char ladder[48], unsigned *number, char rung[48])
{
    if (strncmp(path, RUNG_FILE_PREFIX, strlen(RUNG_FILE_PREFIX)) != 0)
        return false;
    const char *p = path + strlen(RUNG_FILE_PREFIX);
    const char *slash = strchr(p, '/');
    if (!slash || slash == p || (size_t)(slash - p) >= 48)
        return false;
    memcpy(ladder, p, (size_t)(slash - p));
    ladder[slash - p] = '\0';
    const char *backend_dir = slash + 1;
    const char *name = strchr(backend_dir, '/');
    if (!name || name == backend_dir || strchr(name + 1, '/'))
        return false;
    name++;
    if (name[0] < '0' || name[0] > '9' || name[1] < '0' || name[1] > '9' || name[2] != '_')
        return false;
    *number = (unsigned)(name[0] - '0') * 10u + (unsigned)(name[1] - '0');
    const char *id = name + 3, *dot = strchr(id, '.');
    if (!dot || dot == id || (size_t)(dot - id) >= 48)
        return false;
    memcpy(rung, id, (size_t)(dot - id));
    rung[dot - id] = '\0';
    return true;
}

const wl_source_file *wl_show_rung_file(const char *ladder, const char *rung,
                                        warplab_backend_kind backend)
{
    for (size_t i = 0; i < wl_source_file_count; i++) {
        const wl_source_file *file = &wl_source_files[i];
        char file_ladder[48], file_rung[48];
        unsigned number = 0;
        if (file->backend == backend &&
            parse_rung_file(file->path, file_ladder, &number, file_rung) &&
            strcmp(file_ladder, ladder) == 0 && strcmp(file_rung, rung) == 0)
            return file;
    }
    return NULL;
}

/* A rung file's checks: its name names a rung of its ladder at its place,
 * and it holds no markers (the file is the rung's one region). */
static size_t check_rung_file(const wl_source_file *file, wl_marker_problem *problems,
                              size_t capacity, size_t *regions)
{
    char ladder_name[48], rung_id[48];
    unsigned number = 0;
    size_t count = 0;
    parse_rung_file(file->path, ladder_name, &number, rung_id);
    const wl_ladder *ladder = wl_ladder_find(ladder_name);
    const wl_rung *rung = ladder ? wl_rung_find(ladder, rung_id) : NULL;
    if (!ladder)
        add_problem(problems, capacity, &count, file, 1, "no ladder named '%s'%s", ladder_name, "");
    else if (!rung)
        add_problem(problems, capacity, &count, file, 1, "the %s ladder has no rung '%s'",
                    ladder_name, rung_id);
    else if ((size_t)(rung - ladder->rungs) + 1 != number) {
        char place[64];
        snprintf(place, sizeof place, "%zu (the file says %02u)",
                 (size_t)(rung - ladder->rungs) + 1, number);
        add_problem(problems, capacity, &count, file, 1, "rung %s is number %s", rung_id, place);
    } else if (wl_show_regions(ladder_name, rung_id, file->backend, NULL, 0) > 0)
        add_problem(problems, capacity, &count, file, 1,
                    "rung %s has this file and marked regions too%s", rung_id, "");
    line_cursor line;
    size_t number_of_line = 0;
    for (const char *p = file->text; line_at(p, &line); p = line.next) {
        number_of_line++;
        if (find_mark(&line, BEGIN_MARK) || find_mark(&line, END_MARK))
            add_problem(problems, capacity, &count, file, number_of_line,
                        "a marker in a rung file (the whole file is the rung's code)%s%s", "", "");
        if (!line.next)
            break;
    }
    if (regions)
        (*regions)++;
    return count;
}

/* Walks one file's markers. With a ladder and rung: stores the regions that
 * name them (up to capacity; returns how many). Without: checks the markers
 * into problems. */
static size_t walk_file(const wl_source_file *file, const char *ladder, const char *rung,
                        wl_source_region *regions, size_t capacity, wl_marker_problem *problems,
                        size_t problem_capacity, size_t *problem_count, size_t *region_count)
{
    size_t found = 0, number = 0, open_line = 0;
    bool open = false, wanted = false;
    const char *open_at = NULL;
    line_cursor line, previous = {0};
    bool have_previous = false;
    const bool checking = problem_count != NULL;
    bool in_comment = false;
    for (const char *p = file->text; line_at(p, &line); p = line.next) {
        number++;
        const char *begin = find_mark(&line, BEGIN_MARK);
        const char *end = begin ? NULL : find_mark(&line, END_MARK);
        /* A marker opens its own comment: one inside another comment (a
         * comment's text, or a marker misplaced into a comment) is not one. */
        if ((begin || end) && checking) {
            const char *mark = begin ? begin : end;
            const char *opener = mark;
            while (opener > line.text &&
                   !(opener[-1] == '*' && opener - 1 > line.text && opener[-2] == '/') &&
                   !(opener[-1] == '/' && opener - 1 > line.text && opener[-2] == '/'))
                opener--;
            opener = opener > line.text + 1 ? opener - 2 : line.text;
            if (comment_state(line.text, opener, in_comment))
                add_problem(problems, problem_capacity, problem_count, file, number,
                            "a marker inside a comment%s%s", "", "");
        }
        if ((begin || end) && checking &&
            (ends_with_backslash(&line) || (have_previous && ends_with_backslash(&previous))))
            add_problem(problems, problem_capacity, problem_count, file, number,
                        "a marker inside a macro body%s%s", "", "");
        if (begin) {
            char words[MAX_MARK_WORDS][48];
            line_cursor last;
            const size_t count = mark_words(&line, begin, words, MAX_MARK_WORDS, &last);
            if (open && checking)
                add_problem(problems, problem_capacity, problem_count, file, number,
                            "a region begins inside the region of line %s%s", "", "");
            if (checking) {
                const wl_ladder *named = count ? wl_ladder_find(words[0]) : NULL;
                if (!named)
                    add_problem(problems, problem_capacity, problem_count, file, number,
                                "no ladder named '%s'%s", count ? words[0] : "", "");
                else if (count < 2)
                    add_problem(problems, problem_capacity, problem_count, file, number,
                                "the marker names no rung of %s%s", words[0], "");
                for (size_t i = 1; named && i < count; i++)
                    if (!wl_rung_find(named, words[i]))
                        add_problem(problems, problem_capacity, problem_count, file, number,
                                    "the %s ladder has no rung '%s'", words[0], words[i]);
            }
            /* The region begins after the marker's comment. */
            while (line.text != last.text) {
                in_comment = comment_state(line.text, line.text + line.len, in_comment);
                previous = line;
                line_at(line.next, &line);
                number++;
            }
            open = true;
            open_line = number;
            open_at = line.next;
            wanted = ladder && mark_names(words, count, ladder, rung);
        } else if (end) {
            if (!open && checking)
                add_problem(problems, problem_capacity, problem_count, file, number,
                            "warplab:end without a region%s%s", "", "");
            if (open) {
                if (region_count)
                    (*region_count)++;
                if (wanted) {
                    if (found < capacity) {
                        wl_source_region *r = &regions[found];
                        r->file = file;
                        r->begin_line = open_line + 1;
                        r->lines = number - open_line - 1;
                        r->begin = open_at ? open_at : line.text;
                        r->end = line.text;
                    }
                    found++;
                }
            }
            open = wanted = false;
        }
        in_comment = comment_state(line.text, line.text + line.len, in_comment);
        previous = line;
        have_previous = true;
        if (!line.next)
            break;
    }
    if (open && checking) {
        char at[24];
        snprintf(at, sizeof at, "%zu", open_line);
        add_problem(problems, problem_capacity, problem_count, file, open_line,
                    "the region of line %s has no warplab:end%s", at, "");
    }
    return found;
}

size_t wl_show_check_file(const wl_source_file *file, wl_marker_problem *problems, size_t capacity,
                          size_t *regions)
{
    char ladder[48], rung[48];
    unsigned number = 0;
    if (parse_rung_file(file->path, ladder, &number, rung))
        return check_rung_file(file, problems, capacity, regions);
    size_t count = 0, region_count = 0;
    walk_file(file, NULL, NULL, NULL, 0, problems, capacity, &count, &region_count);
    if (regions)
        *regions += region_count;
    return count;
}

size_t wl_show_check_markers(wl_marker_problem *problems, size_t capacity, size_t *regions)
{
    size_t count = 0;
    if (regions)
        *regions = 0;
    for (size_t i = 0; i < wl_source_file_count; i++)
        count += wl_show_check_file(&wl_source_files[i], count < capacity ? problems + count : NULL,
                                    count < capacity ? capacity - count : 0, regions);
    return count;
}

size_t wl_show_regions(const char *ladder, const char *rung, warplab_backend_kind backend,
                       wl_source_region *regions, size_t capacity)
{
    size_t found = 0;
    for (size_t i = 0; i < wl_source_file_count; i++) {
        const wl_source_file *file = &wl_source_files[i];
        char file_ladder[48], file_rung[48];
        unsigned number = 0;
        if (file->backend != backend ||
            parse_rung_file(file->path, file_ladder, &number, file_rung))
            continue;
        found += walk_file(file, ladder, rung, found < capacity ? regions + found : NULL,
                           found < capacity ? capacity - found : 0, NULL, 0, NULL, NULL);
    }
    return found;
}

char *wl_show_source(const wl_ladder *ladder, const wl_rung *rung, warplab_backend_kind backend,
                     bool line_numbers, warplab_status *status)
{
    const wl_source_file *own = wl_show_rung_file(ladder->name, rung->id, backend);
    if (own) {
        const size_t bytes = strlen(own->path) + strlen(own->text) + 16;
        char *text = malloc(bytes);
        *status = text ? WARPLAB_OK : WARPLAB_ERROR_HOST_OUT_OF_MEMORY;
        if (text)
            snprintf(text, bytes, "// %s%s\n%s", own->path, line_numbers ? ":1" : "", own->text);
        return text;
    }
    const size_t count = wl_show_regions(ladder->name, rung->id, backend, NULL, 0);
    *status = WARPLAB_ERROR_UNKNOWN_NAME;
    if (count == 0)
        return NULL;
    wl_source_region *regions = calloc(count, sizeof *regions);
    *status = WARPLAB_ERROR_HOST_OUT_OF_MEMORY;
    if (!regions)
        return NULL;
    wl_show_regions(ladder->name, rung->id, backend, regions, count);
    size_t bytes = 1;
    for (size_t i = 0; i < count; i++)
        bytes += (size_t)(regions[i].end - regions[i].begin) + strlen(regions[i].file->path) + 40;
    char *text = malloc(bytes);
    if (!text) {
        free(regions);
        return NULL;
    }
    size_t used = 0;
    for (size_t i = 0; i < count; i++) {
        if (line_numbers)
            used += (size_t)snprintf(text + used, bytes - used, "%s// %s:%zu\n", i ? "\n" : "",
                                     regions[i].file->path, regions[i].begin_line);
        else
            used += (size_t)snprintf(text + used, bytes - used, "%s// %s\n", i ? "\n" : "",
                                     regions[i].file->path);
        const size_t len = (size_t)(regions[i].end - regions[i].begin);
        memcpy(text + used, regions[i].begin, len);
        used += len;
    }
    text[used] = '\0';
    free(regions);
    *status = WARPLAB_OK;
    return text;
}

bool wl_show_has_code(const wl_ladder *ladder, const wl_rung *rung, warplab_backend_kind backend)
{
    return wl_show_rung_file(ladder->name, rung->id, backend) != NULL ||
           wl_show_regions(ladder->name, rung->id, backend, NULL, 0) > 0;
}

/* Vendor, copy reference and transfer rungs are compared among themselves. */
static unsigned rung_kind(const wl_rung *rung)
{
    return rung->flags & (WL_RUNG_VENDOR | WL_RUNG_REFERENCE | WL_RUNG_TRANSFER);
}

const wl_rung *wl_show_rung_below(const wl_ladder *ladder, const wl_rung *rung,
                                  warplab_backend_kind backend)
{
    const size_t index = (size_t)(rung - ladder->rungs);
    /* A rung on the ladder climbs from the rung on the ladder below it: the
     * off-ladder rows between (another block size, a copy) are not steps. */
    const bool on_ladder = !(rung->flags & WL_RUNG_OFF_LADDER);
    for (size_t i = index; i-- > 0;) {
        const wl_rung *below = &ladder->rungs[i];
        if (on_ladder && (below->flags & WL_RUNG_OFF_LADDER))
            continue;
        if (rung_kind(below) == rung_kind(rung) && wl_show_has_code(ladder, below, backend))
            return below;
    }
    return NULL;
}

/* ------------------------------------------------------------------------ */
/* warplab show's text                                                      */

/* Prints text word-wrapped at width columns, the first line led by first,
 * the others by as many spaces. */
static void write_wrapped(FILE *stream, const char *first, const char *text, size_t width)
{
    wl_write_wrapped(stream, first, text, width, strlen(first));
}

void wl_show_course_figure(const wl_rung *rung, char *text, size_t len)
{
    text[0] = '\0';
    const char *unit = rung->course_unit ? rung->course_unit : "";
    const char *unit2 = rung->course_unit2 ? rung->course_unit2 : unit;
    if (rung->course_value > 0)
        wl_format(text, len, "%.4g %s%s on %s", rung->course_value, unit,
                  rung->course_bound ? " (a bound, not measured)" : "",
                  rung->course_device ? rung->course_device : "?");
    if (rung->course_value > 0 && rung->course_value2 > 0)
        wl_append(text, len, ", %.4g %s on %s", rung->course_value2, unit2,
                  rung->course_device2 ? rung->course_device2 : "?");
}

void wl_show_errata(FILE *stream, const char *topic, const char *rung, bool ladder_wide)
{
    const warplab_erratum *e;
    for (size_t i = 0; (e = warplab_erratum_get(i)) != NULL; i++) {
        if (strcmp(e->topic, topic) != 0)
            continue;
        if (strcmp(e->rung, rung) != 0 && !(ladder_wide && !e->rung[0]))
            continue;
        fprintf(stream, "  erratum %s (seed %s, %s%s):\n", e->id, e->seed, e->where,
                e->rung[0] ? "" : "; the whole ladder");
        char quoted[512];
        wl_format(quoted, sizeof quoted, "\"%s\"", e->quote);
        write_wrapped(stream, "    the course wrote: ", quoted, 78);
        write_wrapped(stream, "    why it is wrong: ", e->why, 78);
        write_wrapped(stream, "    warplab instead: ", e->instead, 78);
    }
}

static bool backend_embedded(warplab_backend_kind backend)
{
    return warplab_backend_compiled(backend) != 0;
}

static warplab_status show_rung(const wl_ladder *ladder, const wl_rung *rung,
                                warplab_backend_kind only, FILE *stream)
{
    fprintf(stream, "%s / %s: %s\n", ladder->name, rung->id, rung->title ? rung->title : "");
    if (rung->lesson && *rung->lesson)
        write_wrapped(stream, "  lesson: ", rung->lesson, 78);
    char figure[160];
    wl_show_course_figure(rung, figure, sizeof figure);
    if (rung->course && *rung->course)
        fprintf(stream, "  course: %s%s%s\n", rung->course,
                figure[0] ? "; the course's figure: " : "", figure);
    else if (figure[0])
        fprintf(stream, "  the course's figure: %s\n", figure);
    wl_show_errata(stream, ladder->name, rung->id, true);
    bool any = false;
    for (int b = 0; b < WL_SHOW_BACKENDS; b++) {
        const warplab_backend_kind backend = wl_show_backends[b];
        if ((only != WARPLAB_BACKEND_AUTO && backend != only) || !backend_embedded(backend))
            continue;
        warplab_status status = WARPLAB_OK;
        char *code = wl_show_source(ladder, rung, backend, true, &status);
        if (!code) {
            if (status != WARPLAB_ERROR_UNKNOWN_NAME)
                return status;
            continue;
        }
        any = true;
        fprintf(stream, "\n  == %s ==\n%s", wl_show_language(backend), code);
        if (code[0] && code[strlen(code) - 1] != '\n')
            fputc('\n', stream);
        const wl_rung *below = wl_show_rung_below(ladder, rung, backend);
        free(code);
        code = NULL;
        if (below) {
            /* The diff leaves out the line numbers: only the code's changes. */
            char *base = wl_show_source(ladder, below, backend, false, &status);
            code = base ? wl_show_source(ladder, rung, backend, false, &status) : NULL;
            if (!code) {
                free(base);
                return status;
            }
            char old_name[128], new_name[128];
            wl_format(old_name, sizeof old_name, "%s/%s (%s)", ladder->name, below->id,
                      wl_show_language(backend));
            wl_format(new_name, sizeof new_name, "%s/%s (%s)", ladder->name, rung->id,
                      wl_show_language(backend));
            if (strcmp(base, code) == 0) {
                fprintf(stream,
                        "\n  -- the same source as the rung below, %s (they differ in "
                        "what they pass it) --\n",
                        below->id);
            } else {
                fprintf(stream, "\n  -- diff against the rung below, %s --\n", below->id);
                status = wl_diff_write(base, code, old_name, new_name, 3, stream);
            }
            free(base);
        } else {
            fprintf(stream, "\n  -- no rung below it on %s to compare with --\n",
                    wl_show_language(backend));
        }
        free(code);
        if (status != WARPLAB_OK)
            return status;
    }
    if (!any && rung->op && rung->op->count > 0)
        fprintf(stream,
                "\n  (the library call has no kernel of its own: its candidates are in "
                "src/ops/%s.c; on cuda it runs %s -- warplab show %s %s)\n",
                rung->op->name, rung->op->candidates[0].impl, ladder->name,
                rung->op->candidates[0].impl);
    else if (!any)
        fprintf(stream, "\n  (no kernel source of this rung in this build%s%s)\n",
                only != WARPLAB_BACKEND_AUTO ? " for the " : "",
                only != WARPLAB_BACKEND_AUTO ? warplab_backend_name(only) : "");
    return WARPLAB_OK;
}

warplab_status warplab_show_write(const char *ladder_name, const char *rung_id,
                                  warplab_backend_kind backend, FILE *stream)
{
    wl_detached_error_clear();
    if (!ladder_name || !stream)
        return wl_detached_fail(WARPLAB_ERROR_INVALID_ARGUMENT,
                                "warplab_show_write: no ladder or no stream");
    const wl_ladder *ladder = wl_ladder_find(ladder_name);
    if (!ladder)
        return wl_detached_fail(WARPLAB_ERROR_UNKNOWN_NAME, "no ladder named '%s'", ladder_name);
    if (backend != WARPLAB_BACKEND_AUTO && !warplab_backend_compiled(backend))
        return wl_detached_fail(WARPLAB_ERROR_BACKEND_UNAVAILABLE,
                                "the %s backend is not compiled into this build",
                                warplab_backend_name(backend));
    if (rung_id && *rung_id) {
        const wl_rung *rung = wl_rung_find(ladder, rung_id);
        if (!rung)
            return wl_detached_fail(WARPLAB_ERROR_UNKNOWN_NAME, "the %s ladder has no rung '%s'",
                                    ladder->name, rung_id);
        return show_rung(ladder, rung, backend, stream);
    }
    fprintf(stream, "%s: %s (%zu rungs)\n", ladder->name, ladder->title, ladder->rung_count);
    for (size_t i = 0; i < ladder->rung_count; i++) {
        fprintf(stream, "\n========================================================================"
                        "========\n");
        warplab_status status = show_rung(ladder, &ladder->rungs[i], backend, stream);
        if (status != WARPLAB_OK)
            return wl_detached_fail(status, "warplab_show_write: out of memory");
    }
    return WARPLAB_OK;
}
