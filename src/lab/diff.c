/* A unified line diff (Myers, "An O(ND) Difference Algorithm and Its
 * Variations", 1986): the shortest edit script between two texts, printed
 * as diff -u prints it. warplab show uses it for a rung against the rung
 * below; it needs no external tool. */
#include "show.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct diff_line {
    const char *text;
    size_t len; /* without the newline */
    uint64_t hash;
} diff_line;

typedef struct diff_text {
    diff_line *lines;
    size_t count;
} diff_text;

/* FNV-1a over the line's bytes. */
static uint64_t line_hash(const char *text, size_t len)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)text[i]) * 1099511628211ull;
    return h;
}

static bool split_lines(const char *text, diff_text *out)
{
    out->lines = NULL;
    out->count = 0;
    size_t count = 0;
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        count++;
        if (!nl)
            break;
        p = nl + 1;
    }
    if (count == 0)
        return true;
    out->lines = malloc(count * sizeof *out->lines);
    if (!out->lines)
        return false;
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        out->lines[out->count++] = (diff_line){p, len, line_hash(p, len)};
        if (!nl)
            break;
        p = nl + 1;
    }
    return true;
}

static bool same_line(const diff_line *a, const diff_line *b)
{
    return a->hash == b->hash && a->len == b->len && memcmp(a->text, b->text, a->len) == 0;
}

typedef enum { EDIT_SAME, EDIT_DELETE, EDIT_INSERT } edit_kind;

typedef struct edit {
    edit_kind kind;
    size_t old_line, new_line; /* 0-based positions before this edit */
} edit;

/* The shortest edit script from a to b, in order; NULL when memory runs
 * out. The furthest-reaching x on each diagonal k is kept for every d (the
 * diagonals -d-1..d+1 only), and the path is walked back from (N, M). */
static edit *shortest_edit(const diff_text *a, const diff_text *b, size_t *count)
{
    const size_t n = a->count, m = b->count;
    *count = 0;
    if (n > INT_MAX / 4 || m > INT_MAX / 4)
        return NULL;
    const long max = (long)(n + m);
    long *v = calloc((size_t)(2 * max + 3), sizeof *v);
    long **trace = calloc((size_t)max + 1, sizeof *trace);
    edit *edits = malloc((n + m + 1) * sizeof *edits);
    long found = -1;
    if (!v || !trace || !edits)
        goto fail;
    const long offset = max + 1;
    v[offset + 1] = 0;
    for (long d = 0; d <= max && found < 0; d++) {
        /* Before step d: the diagonals -d-1..d+1 of the state after d-1. */
        trace[d] = malloc((size_t)(2 * d + 3) * sizeof **trace);
        if (!trace[d])
            goto fail;
        memcpy(trace[d], &v[offset - d - 1], (size_t)(2 * d + 3) * sizeof *v);
        for (long k = -d; k <= d; k += 2) {
            long x = (k == -d || (k != d && v[offset + k - 1] < v[offset + k + 1]))
                         ? v[offset + k + 1]
                         : v[offset + k - 1] + 1;
            long y = x - k;
            while (x < (long)n && y < (long)m && same_line(&a->lines[x], &b->lines[y])) {
                x++;
                y++;
            }
            v[offset + k] = x;
            if (x >= (long)n && y >= (long)m) {
                found = d;
                break;
            }
        }
    }
    if (found < 0)
        goto fail;
    /* Walk back, writing the script from its end. */
    size_t at = n + m + 1;
    long x = (long)n, y = (long)m;
    for (long d = found; d >= 0; d--) {
        const long *saved = trace[d]; /* saved[j] is diagonal j - d - 1 */
#define SAVED(k) saved[(k) + d + 1]
        const long k = x - y;
        const long prev_k = (k == -d || (k != d && SAVED(k - 1) < SAVED(k + 1))) ? k + 1 : k - 1;
        const long prev_x = SAVED(prev_k), prev_y = prev_x - prev_k;
#undef SAVED
        while (x > prev_x && y > prev_y) {
            x--;
            y--;
            edits[--at] = (edit){EDIT_SAME, (size_t)x, (size_t)y};
        }
        if (d > 0) {
            if (x == prev_x)
                edits[--at] = (edit){EDIT_INSERT, (size_t)prev_x, (size_t)prev_y};
            else
                edits[--at] = (edit){EDIT_DELETE, (size_t)prev_x, (size_t)prev_y};
        }
        x = prev_x;
        y = prev_y;
    }
    *count = n + m + 1 - at;
    memmove(edits, &edits[at], *count * sizeof *edits);
    for (long d = 0; d <= max; d++)
        free(trace[d]);
    free(trace);
    free(v);
    return edits;
fail:
    if (trace)
        for (long d = 0; d <= max; d++)
            free(trace[d]);
    free(trace);
    free(v);
    free(edits);
    return NULL;
}

static void write_line(FILE *stream, char mark, const diff_line *line)
{
    fputc(mark, stream);
    fwrite(line->text, 1, line->len, stream);
    fputc('\n', stream);
}

warplab_status wl_diff_write(const char *old_text, const char *new_text, const char *old_name,
                             const char *new_name, int context, FILE *stream)
{
    diff_text a, b;
    if (context < 0)
        context = 0;
    if (!split_lines(old_text ? old_text : "", &a))
        return WARPLAB_ERROR_HOST_OUT_OF_MEMORY;
    if (!split_lines(new_text ? new_text : "", &b)) {
        free(a.lines);
        return WARPLAB_ERROR_HOST_OUT_OF_MEMORY;
    }
    size_t count = 0;
    edit *edits = shortest_edit(&a, &b, &count);
    if (!edits) {
        free(a.lines);
        free(b.lines);
        return WARPLAB_ERROR_HOST_OUT_OF_MEMORY;
    }
    const size_t c = (size_t)context;
    bool header = false;
    for (size_t i = 0; i < count;) {
        if (edits[i].kind == EDIT_SAME) {
            i++;
            continue;
        }
        /* A hunk: from c lines before this change to c lines after the
         * last change that follows within 2c unchanged lines. */
        const size_t start = i >= c ? i - c : 0;
        size_t last = i, j = i;
        while (j < count) {
            if (edits[j].kind != EDIT_SAME) {
                last = j++;
                continue;
            }
            size_t run = 0;
            while (j + run < count && edits[j + run].kind == EDIT_SAME)
                run++;
            if (j + run < count && run <= 2 * c) {
                j += run;
                continue;
            }
            break;
        }
        const size_t stop = last + 1 + c < count ? last + 1 + c : count;
        size_t old_count = 0, new_count = 0;
        for (size_t e = start; e < stop; e++) {
            old_count += edits[e].kind != EDIT_INSERT;
            new_count += edits[e].kind != EDIT_DELETE;
        }
        if (!header) {
            fprintf(stream, "--- %s\n+++ %s\n", old_name, new_name);
            header = true;
        }
        const size_t old_start = edits[start].old_line + (old_count ? 1 : 0);
        const size_t new_start = edits[start].new_line + (new_count ? 1 : 0);
        fprintf(stream, "@@ -%zu,%zu +%zu,%zu @@\n", old_start, old_count, new_start, new_count);
        for (size_t e = start; e < stop; e++) {
            if (edits[e].kind == EDIT_SAME)
                write_line(stream, ' ', &a.lines[edits[e].old_line]);
            else if (edits[e].kind == EDIT_DELETE)
                write_line(stream, '-', &a.lines[edits[e].old_line]);
            else
                write_line(stream, '+', &b.lines[edits[e].new_line]);
        }
        i = stop;
    }
    free(edits);
    free(a.lines);
    free(b.lines);
    return WARPLAB_OK;
}
