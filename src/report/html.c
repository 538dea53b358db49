/* warplab bench --html: one self-contained page for a course handout. The
 * tables are the tool's own (warplab_report_write), the charts the report's
 * SVG (src/report/chart.c), the code and diffs warplab show's (src/lab/show.c); the
 * page carries everything inline and loads nothing. */
#include "lab/show.h"
#include "report/report.h"

#include "warplab_lab.h"
#include <stdlib.h>
#include <string.h>

static void write_escaped(FILE *out, const char *text)
{
    wl_write_svg_text(out, text); /* the XML escapes are HTML's */
}

/* Text a writer produced into memory, escaped into a <pre>. */
typedef warplab_status (*text_writer)(const void *what, FILE *stream);

static warplab_status write_captured(FILE *out, const char *pre_class, text_writer writer,
                                     const void *what)
{
    char *text = NULL;
    size_t len = 0;
    FILE *memory = open_memstream(&text, &len);
    if (!memory)
        return WARPLAB_ERROR_HOST_OUT_OF_MEMORY;
    warplab_status status = writer(what, memory);
    fclose(memory);
    if (status == WARPLAB_OK) {
        fprintf(out, "<pre class=\"%s\">", pre_class);
        write_escaped(out, text ? text : "");
        fputs("</pre>\n", out);
    }
    free(text);
    return status;
}

static warplab_status table_writer(const void *what, FILE *stream)
{
    return warplab_report_write((const warplab_report *)what, WARPLAB_FORMAT_TABLE, stream);
}

typedef struct counters_job {
    const warplab_report *report;
    const warplab_counters *counters;
} counters_job;

static warplab_status counters_writer(const void *what, FILE *stream)
{
    const counters_job *job = what;
    return warplab_counters_write(job->report, job->counters, NULL, stream);
}

/* A diff with its added and removed lines marked for the style sheet. */
static void write_diff_lines(FILE *out, const char *diff)
{
    fputs("<pre class=\"diff\">", out);
    for (const char *p = diff; p && *p;) {
        const char *nl = strchr(p, '\n');
        const size_t len = nl ? (size_t)(nl - p) : strlen(p);
        const char *kind = (len >= 3 && (strncmp(p, "---", 3) == 0 || strncmp(p, "+++", 3) == 0))
                               ? "file"
                           : p[0] == '+' ? "add"
                           : p[0] == '-' ? "del"
                           : p[0] == '@' ? "hunk"
                                         : NULL;
        char *line = malloc(len + 1);
        if (!line)
            break;
        memcpy(line, p, len);
        line[len] = '\0';
        if (kind)
            fprintf(out, "<span class=\"%s\">", kind);
        write_escaped(out, line);
        fputs(kind ? "</span>\n" : "\n", out);
        free(line);
        p = nl ? nl + 1 : NULL;
    }
    fputs("</pre>\n", out);
}

/* The backend a row ran on. */
static warplab_backend_kind row_backend(const warplab_row *row)
{
    warplab_backend_kind kind = WARPLAB_BACKEND_CPU;
    if (warplab_backend_parse(row->backend, &kind) != WARPLAB_OK || kind == WARPLAB_BACKEND_AUTO)
        kind = WARPLAB_BACKEND_CPU;
    return kind;
}

/* The code regions (src/lab/show.h) that more than one rung of a ladder's
 * section uses: the section prints them once, at its top, and each rung
 * its own regions only. */
#define HTML_MAX_REGIONS WL_SHOW_RUNG_REGIONS_MAX
#define HTML_MAX_SHARED WL_SHOW_SHARED_REGIONS_MAX

typedef struct shared_regions {
    const char *begin[HTML_MAX_SHARED];
    size_t count;
} shared_regions;

/* Whether begin is one of list's count region starts. */
static bool region_listed(const char *const *list, size_t count, const char *begin)
{
    for (size_t i = 0; i < count; i++)
        if (list[i] == begin)
            return true;
    return false;
}

static bool region_shared(const shared_regions *shared, const wl_source_region *region)
{
    return region_listed(shared->begin, shared->count, region->begin);
}

/* The report's row of a ladder's rung, or NULL when it did not run. */
static const warplab_row *rung_row(const warplab_report *report, const wl_ladder *ladder,
                                   const wl_rung *rung)
{
    for (size_t i = 0; i < report->row_count; i++)
        if (strcmp(report->rows[i].ladder, ladder->name) == 0 &&
            strcmp(report->rows[i].rung, rung->id) == 0)
            return &report->rows[i];
    return NULL;
}

static size_t rung_regions(const wl_ladder *ladder, const wl_rung *rung,
                           warplab_backend_kind backend, wl_source_region *regions)
{
    size_t count = wl_show_regions(ladder->name, rung->id, backend, regions, HTML_MAX_REGIONS);
    return count > HTML_MAX_REGIONS ? HTML_MAX_REGIONS : count;
}

static void write_region(FILE *out, const wl_source_region *region)
{
    fputs("<pre class=\"code\">", out);
    fprintf(out, "// %s:%zu\n", region->file->path, region->begin_line);
    const size_t len = (size_t)(region->end - region->begin);
    char *code = malloc(len + 1);
    if (code) {
        memcpy(code, region->begin, len);
        code[len] = '\0';
        write_escaped(out, code);
        free(code);
    }
    fputs("</pre>\n", out);
}

/* The course's errata about a rung (rung = "": about the whole ladder), each
 * a box: what the course wrote, why it is wrong, what warplab runs instead. */
static void write_errata(FILE *out, const char *ladder, const char *rung)
{
    const warplab_erratum *e;
    for (size_t i = 0; (e = warplab_erratum_get(i)) != NULL; i++) {
        if (strcmp(e->topic, ladder) != 0 || strcmp(e->rung, rung) != 0)
            continue;
        fprintf(out, "<div class=\"erratum\" id=\"erratum-%s\"><b>Erratum</b> (seed ", e->id);
        write_escaped(out, e->seed);
        fputs(", ", out);
        write_escaped(out, e->where);
        fputs("): the course wrote <code>", out);
        write_escaped(out, e->quote);
        fputs("</code>. ", out);
        write_escaped(out, e->why);
        fputs(" <i>warplab:</i> ", out);
        write_escaped(out, e->instead);
        fputs("</div>\n", out);
    }
}

/* One rung: its lesson, the course's reference, its own code (the shared
 * regions are at the section's top) and the diff against the rung below.
 * Lesson and code are open: the page is a handout that may be printed. */
static warplab_status write_rung(FILE *out, const wl_ladder *ladder, const wl_rung *rung,
                                 const warplab_row *row, const shared_regions *shared)
{
    fprintf(out, "<details class=\"rung\" id=\"%s-%s\" open><summary><code>", ladder->name,
            rung->id);
    write_escaped(out, rung->id);
    fputs("</code> ", out);
    write_escaped(out, rung->title ? rung->title : "");
    fputs("</summary>\n<p class=\"lesson\">", out);
    write_escaped(out, rung->lesson ? rung->lesson : "");
    fputs("</p>\n", out);
    char figure[160];
    wl_show_course_figure(rung, figure, sizeof figure);
    if ((rung->course && *rung->course) || figure[0]) {
        fputs("<p class=\"course\">Course: ", out);
        write_escaped(out, rung->course ? rung->course : "");
        if (figure[0]) {
            fputs("; the course's figure: ", out);
            write_escaped(out, figure);
        }
        fputs("</p>\n", out);
    }
    write_errata(out, ladder->name, rung->id);
    if (row && row->note[0]) {
        fputs("<p class=\"note\">", out);
        write_escaped(out, row->note);
        fputs("</p>\n", out);
    }
    const warplab_backend_kind backend = row_backend(row);
    warplab_status status = WARPLAB_OK;
    wl_source_region regions[HTML_MAX_REGIONS];
    const size_t count = rung_regions(ladder, rung, backend, regions);
    if (count == 0) {
        fprintf(out, "<p class=\"nocode\">No %s source of this rung in this build.</p>\n",
                wl_show_language(backend));
        fputs("</details>\n", out);
        return WARPLAB_OK;
    }
    size_t own = 0, common = 0;
    for (size_t i = 0; i < count; i++)
        region_shared(shared, &regions[i]) ? common++ : own++;
    fprintf(out, "<details class=\"code\" open><summary>%s source</summary>\n",
            wl_show_language(backend));
    for (size_t i = 0; i < count; i++)
        if (!region_shared(shared, &regions[i]))
            write_region(out, &regions[i]);
    if (common)
        fprintf(out, "<p class=\"note\">%s%zu shared region%s at the top of the section.</p>\n",
                own ? "Also uses the " : "Only the ", common, common == 1 ? "" : "s");
    fputs("</details>\n", out);
    const wl_rung *below = wl_show_rung_below(ladder, rung, backend);
    if (below) {
        char *base = wl_show_source(ladder, below, backend, false, &status);
        char *mine = base ? wl_show_source(ladder, rung, backend, false, &status) : NULL;
        char *diff = NULL;
        size_t len = 0;
        FILE *memory = mine ? open_memstream(&diff, &len) : NULL;
        if (memory) {
            char old_name[128], new_name[128];
            wl_format(old_name, sizeof old_name, "%s/%s", ladder->name, below->id);
            wl_format(new_name, sizeof new_name, "%s/%s", ladder->name, rung->id);
            status = wl_diff_write(base, mine, old_name, new_name, 3, memory);
            fclose(memory);
            fputs("<details class=\"diff\"><summary>diff against ", out);
            write_escaped(out, below->id);
            fputs("</summary>\n", out);
            if (diff && *diff)
                write_diff_lines(out, diff);
            else
                fputs("<p>The same source: the rungs differ in what they pass it.</p>\n", out);
            fputs("</details>\n", out);
        } else if (status == WARPLAB_OK) {
            status = WARPLAB_ERROR_HOST_OUT_OF_MEMORY;
        }
        free(diff);
        free(base);
        free(mine);
    }
    fputs("</details>\n", out);
    return status;
}

/* The section's shared regions, once, in the order the first rung that
 * uses them lists them. */
static warplab_status write_shared(FILE *out, const wl_ladder *ladder, const warplab_report *report,
                                   const shared_regions *shared)
{
    if (shared->count == 0)
        return WARPLAB_OK;
    fputs("<details class=\"code shared\" open><summary>Code the rungs below share</summary>\n",
          out);
    const char *written[HTML_MAX_SHARED];
    size_t written_count = 0;
    for (size_t r = 0; r < ladder->rung_count; r++) {
        const warplab_row *row = rung_row(report, ladder, &ladder->rungs[r]);
        if (!row)
            continue;
        wl_source_region regions[HTML_MAX_REGIONS];
        const size_t count = rung_regions(ladder, &ladder->rungs[r], row_backend(row), regions);
        for (size_t k = 0; k < count; k++) {
            if (region_listed(written, written_count, regions[k].begin) ||
                !region_shared(shared, &regions[k]))
                continue;
            write_region(out, &regions[k]);
            written[written_count++] = regions[k].begin;
        }
    }
    fputs("</details>\n", out);
    return WARPLAB_OK;
}

static const char style[] =
    "body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}"
    "h1{font-size:1.6em}h2{border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:2em}"
    "pre{background:#f6f8fa;padding:.8em;overflow-x:auto;font-size:12px;line-height:1.35}"
    "details.rung{border:1px solid #ddd;border-radius:4px;margin:.4em 0;padding:.3em .8em}"
    "details.rung>summary{cursor:pointer;font-weight:bold}"
    "details.code,details.diff{margin:.3em 0 .3em 1em}"
    "summary{cursor:pointer}.lesson{margin:.4em 0}.course,.note{color:#555;font-size:.9em}"
    ".erratum{border-left:3px solid #bf8700;background:#fff8c5;padding:.3em .6em;margin:.4em 0;"
    "font-size:.9em}"
    ".diff .add{color:#116329;background:#e6ffec}.diff .del{color:#82071e;background:#ffebe9}"
    ".diff .hunk{color:#0550ae}.diff .file{font-weight:bold}"
    "table.settings td{padding:.1em .8em .1em 0;vertical-align:top}"
    ".chart svg{max-width:100%;height:auto}";

warplab_status warplab_report_write_html(const warplab_report *report,
                                         const warplab_counters *counters, const char *settings,
                                         FILE *out)
{
    if (!report || !out)
        return WARPLAB_ERROR_INVALID_ARGUMENT;
    fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                 "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                 "<title>warplab ");
    write_escaped(out, warplab_version());
    fputs(" on ", out);
    write_escaped(out, report->device);
    fprintf(out, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>warplab ", style);
    write_escaped(out, warplab_version());
    fputs(": GPU optimisation ladders</h1>\n<table class=\"settings\">\n<tr><td>device</td><td>",
          out);
    write_escaped(out, report->device);
    fputs("</td></tr>\n<tr><td>backend</td><td>", out);
    write_escaped(out, report->backend);
    fputs("</td></tr>\n<tr><td>date</td><td>", out);
    write_escaped(out, report->date);
    fputs("</td></tr>\n", out);
    /* A ceiling only where one is known (a theoretical figure, or the copy
     * reference measured): never "0.0 GB/s". */
    if (report->ceiling_gbs > 0) {
        fprintf(out, "<tr><td>bandwidth ceiling</td><td>%.1f GB/s (", report->ceiling_gbs);
        write_escaped(out, report->ceiling_source);
        fputs(")</td></tr>\n", out);
    }
    fprintf(out,
            "<tr><td>L2</td><td>%s</td></tr>\n<tr><td>seed</td><td>%llu</td>"
            "</tr>\n",
            report->l2_flushed ? "flushed before each timed run" : "warm", report->seed);
    if (settings && *settings) {
        fputs("<tr><td>command</td><td><code>", out);
        write_escaped(out, settings);
        fputs("</code></td></tr>\n", out);
    }
    if (report->incomplete)
        fputs("<tr><td>note</td><td>interrupted: the rows that finished</td></tr>\n", out);
    fputs("</table>\n<h2>Charts</h2>\n<div class=\"chart\">\n", out);
    warplab_status status = warplab_report_write_svg(report, out);
    fputs("</div>\n<h2>Tables</h2>\n", out);
    if (status == WARPLAB_OK)
        status = write_captured(out, "table", table_writer, report);
    if (status == WARPLAB_OK && counters) {
        const counters_job job = {report, counters};
        fputs("<h2>Hardware counters</h2>\n", out);
        status = write_captured(out, "counters", counters_writer, &job);
    }
    /* Each ladder of the report: its rungs in ladder order, those that ran. */
    for (size_t l = 0; l < wl_ladder_count() && status == WARPLAB_OK; l++) {
        const wl_ladder *ladder = wl_ladder_at(l);
        bool heading = false;
        /* The regions two rungs of the section or more use, found first. */
        shared_regions shared = {.count = 0};
        const char *seen[WL_SHOW_LADDER_REGIONS_MAX];
        size_t seen_count = 0;
        for (size_t r = 0; r < ladder->rung_count; r++) {
            const warplab_row *row = rung_row(report, ladder, &ladder->rungs[r]);
            if (!row)
                continue;
            wl_source_region regions[HTML_MAX_REGIONS];
            const size_t count = rung_regions(ladder, &ladder->rungs[r], row_backend(row), regions);
            for (size_t k = 0; k < count; k++) {
                const bool before = region_listed(seen, seen_count, regions[k].begin);
                if (!before && seen_count < sizeof seen / sizeof seen[0])
                    seen[seen_count++] = regions[k].begin;
                else if (before && !region_shared(&shared, &regions[k]) &&
                         shared.count < HTML_MAX_SHARED)
                    shared.begin[shared.count++] = regions[k].begin;
            }
        }
        for (size_t r = 0; r < ladder->rung_count && status == WARPLAB_OK; r++) {
            const wl_rung *rung = &ladder->rungs[r];
            const warplab_row *row = rung_row(report, ladder, rung);
            if (!row)
                continue;
            if (!heading) {
                fprintf(out, "<h2 id=\"%s\">%s: ", ladder->name, ladder->name);
                write_escaped(out, ladder->title);
                fputs("</h2>\n<p>Each rung: what it changed over the rung below and why, where "
                      "the course teaches it, its own code as compiled into this build and the "
                      "diff against the rung below.</p>\n",
                      out);
                heading = true;
                write_errata(out, ladder->name, "");
                status = write_shared(out, ladder, report, &shared);
            }
            if (status == WARPLAB_OK)
                status = write_rung(out, ladder, rung, row, &shared);
        }
    }
    fputs("</body>\n</html>\n", out);
    return status;
}
