/* Probe output: a sweep is pivoted into a table (x down, one column per
 * series with its noise) and a line chart; a comparison is a row per series
 * and a bar chart. Every probe ends with its conclusion, computed from the
 * numbers. CSV and JSON carry one record per point. */
#include "lab/probes/probe.h"
#include "report/report.h"

#include "warplab_lab.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Reading a section                                                        */

typedef struct section_view {
    const warplab_probe_result *result;
    const warplab_probe_section *section;
    const warplab_row *rows;
    const warplab_probe_point *points;
    size_t count;
    const char *series[32]; /* in first-seen order */
    int series_count;
    double xs[128]; /* in first-seen order (the points are generated in order) */
    int x_count;
    bool annotated; /* a point has an annotation (a "predicted" column) */
    bool errors;    /* a point reports its error (a "max error" column) */
} section_view;

static void view_section(const warplab_probe_result *result, size_t index, section_view *view)
{
    memset(view, 0, sizeof *view);
    view->result = result;
    view->section = &result->sections[index];
    view->rows = result->report->rows + view->section->first_row;
    view->points = result->points + view->section->first_row;
    view->count = view->section->row_count;
    for (size_t i = 0; i < view->count; i++) {
        int s = 0;
        while (s < view->series_count && strcmp(view->series[s], view->rows[i].rung) != 0)
            s++;
        if (s == view->series_count && s < 32)
            view->series[view->series_count++] = view->rows[i].rung;
        int x = 0;
        while (x < view->x_count && view->xs[x] != view->rows[i].size)
            x++;
        if (x == view->x_count && x < 128)
            view->xs[view->x_count++] = view->rows[i].size;
        if (view->points[i].annotation[0])
            view->annotated = true;
        if (view->points[i].error_kind[0])
            view->errors = true;
    }
}

/* The row of a series at x in a section; -1 when absent. */
static long find_row(const section_view *view, const char *series, double x)
{
    for (size_t i = 0; i < view->count; i++)
        if (view->rows[i].size == x && strcmp(view->rows[i].rung, series) == 0)
            return (long)i;
    return -1;
}

static bool measured(const section_view *view, long i)
{
    return i >= 0 && view->points[i].value > 0;
}

static const char *annotation_at(const section_view *view, double x)
{
    for (size_t i = 0; i < view->count; i++)
        if (view->rows[i].size == x && view->points[i].annotation[0])
            return view->points[i].annotation;
    return "";
}

static void format_x(const warplab_probe_section *section, double x, char *text, size_t len)
{
    int exponent = 0;
    if (section->x_powers && x >= 1 && frexp(x, &exponent) == 0.5)
        wl_format(text, len, "2^%d", exponent - 1);
    else if (section->x_is_bytes)
        wl_format_bytes(text, len, x);
    else
        wl_format(text, len, "%.10g", x);
}

static void format_value(double value, char *text, size_t len)
{
    if (value >= 100.0)
        wl_format(text, len, "%.1f", value);
    else if (value >= 1.0)
        wl_format(text, len, "%.2f", value);
    else
        wl_format(text, len, "%.3g", value);
}

/* What a cell says when its row has no figure. */
static const char *cell_state(const warplab_row *row)
{
    if (row->flags & WARPLAB_ROW_FAILED)
        return "FAILED";
    return "-";
}

static void format_error(const warplab_probe_point *point, char *text, size_t len)
{
    if (!point->error_kind[0] || !strcmp(point->error_kind, "exact"))
        wl_copy_string(text, len, point->error_kind);
    else
        wl_format(text, len, "%.2g %s", point->error, point->error_kind);
}

/* "7.40x sinf" when both the series and its baseline were measured. */
static void format_versus(const section_view *view, long i, char *text, size_t len)
{
    text[0] = '\0';
    const warplab_probe_point *point = &view->points[i];
    if (!point->baseline[0] || !measured(view, i))
        return;
    long b = find_row(view, point->baseline, view->rows[i].size);
    if (measured(view, b))
        wl_format(text, len, "%.2fx %s", point->value / view->points[b].value, point->baseline);
}

/* ------------------------------------------------------------------------ */
/* Notes: why cells are empty                                               */

/* Whether row i has a note to show: skipped or failed, with a reason. */
static bool noted(const section_view *view, size_t i)
{
    const warplab_row *row = &view->rows[i];
    return row->note[0] && (row->flags & (WARPLAB_ROW_SKIPPED | WARPLAB_ROW_FAILED));
}

static bool same_note(const section_view *view, size_t i, size_t j)
{
    return noted(view, j) && strcmp(view->rows[i].rung, view->rows[j].rung) == 0 &&
           strcmp(view->rows[i].note, view->rows[j].note) == 0;
}

/* One line per (series, reason) with the points it applies to, in the
 * order they first appear. */
static void write_notes(const section_view *view, FILE *out, bool markdown)
{
    for (size_t i = 0; i < view->count; i++) {
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = same_note(view, i, j);
        if (!noted(view, i) || seen)
            continue;
        const warplab_row *row = &view->rows[i];
        const char *state = (row->flags & WARPLAB_ROW_FAILED) ? "FAILED" : "skipped";
        if (view->section->comparison) {
            fprintf(out, "%s%s %s: %s\n", markdown ? "- " : "  ", row->rung, state, row->note);
            continue;
        }
        char where[96] = "";
        int count = 0;
        for (size_t j = i; j < view->count; j++) {
            if (!same_note(view, i, j))
                continue;
            char x[32];
            format_x(view->section, view->rows[j].size, x, sizeof x);
            if (count < 4)
                wl_append(where, sizeof where, "%s%s", count ? ", " : "", x);
            count++;
        }
        if (count > 4)
            wl_append(where, sizeof where, " and %d more", count - 4);
        fprintf(out, "%s%s %s at x = %s: %s\n", markdown ? "- " : "  ", row->rung, state, where,
                row->note);
    }
}

/* ------------------------------------------------------------------------ */
/* Terminal table                                                           */

/* A series whose every point was skipped gets no column (its note says
 * why). */
static bool series_shown(const section_view *view, int s)
{
    for (size_t i = 0; i < view->count; i++)
        if (strcmp(view->rows[i].rung, view->series[s]) == 0 &&
            (measured(view, (long)i) || (view->rows[i].flags & WARPLAB_ROW_FAILED)))
            return true;
    return false;
}

static int series_width(const char *id)
{
    return strlen(id) > 9 ? (int)strlen(id) : 9;
}

static void write_sweep_table(const section_view *view, FILE *out)
{
    const warplab_probe_section *section = view->section;
    int xw = (int)strlen(section->x_label) > 12 ? (int)strlen(section->x_label) : 12;
    fprintf(out, "  %*s", xw, section->x_label);
    for (int s = 0; s < view->series_count; s++)
        if (series_shown(view, s))
            fprintf(out, "  %*s %6s", series_width(view->series[s]), view->series[s], "noise");
    if (view->annotated)
        fprintf(out, "  %s", "predicted");
    fputc('\n', out);
    for (int x = 0; x < view->x_count; x++) {
        char xtext[32];
        format_x(section, view->xs[x], xtext, sizeof xtext);
        fprintf(out, "  %*s", xw, xtext);
        for (int s = 0; s < view->series_count; s++) {
            if (!series_shown(view, s))
                continue;
            long i = find_row(view, view->series[s], view->xs[x]);
            int w = series_width(view->series[s]);
            if (measured(view, i)) {
                char value[32];
                format_value(view->points[i].value, value, sizeof value);
                fprintf(out, "  %*s %5.1f%%", w, value, view->rows[i].noise_pct);
            } else {
                fprintf(out, "  %*s %6s", w, i >= 0 ? cell_state(&view->rows[i]) : "", "");
            }
        }
        if (view->annotated)
            fprintf(out, "  %s", annotation_at(view, view->xs[x]));
        fputc('\n', out);
    }
}

static void write_comparison_table(const section_view *view, FILE *out)
{
    fprintf(out, "  %-14s %-44s %10s %6s %10s  %-16s %s\n", "series", "what", view->section->unit,
            "noise", "time", "vs", view->errors ? "max error" : "");
    for (size_t i = 0; i < view->count; i++) {
        const warplab_row *row = &view->rows[i];
        char title[45], value[32], time[24], versus[64], error[32];
        wl_copy_string(title, sizeof title, row->title);
        format_error(&view->points[i], error, sizeof error);
        if (!measured(view, (long)i)) {
            fprintf(out, "  %-14s %-44s %10s\n", row->rung, title, cell_state(row));
            continue;
        }
        format_value(view->points[i].value, value, sizeof value);
        wl_format_time(time, sizeof time, row->median_ms);
        format_versus(view, (long)i, versus, sizeof versus);
        fprintf(out, "  %-14s %-44s %10s %5.1f%% %10s  %-16s %s\n", row->rung, title, value,
                row->noise_pct, time, versus, error);
    }
}

static void write_heading(const warplab_probe_result *result, FILE *out)
{
    const warplab_report *report = result->report;
    fprintf(out, "\n%s: %s\n", result->probe, result->title);
    fprintf(out, "  on %s (%s)%s%s\n", report->device, report->backend,
            result->course[0] ? "; " : "", result->course);
    fprintf(out, "  %s; caches %s between timed runs; seed %llu; %s\n", result->setup,
            report->l2_flushed ? "flushed" : "not flushed", report->seed, report->date);
}

static void write_probe_table(const warplab_probe_result *result, FILE *out)
{
    write_heading(result, out);
    for (size_t s = 0; s < result->section_count; s++) {
        section_view view;
        view_section(result, s, &view);
        if (view.count == 0) /* no series of it on this backend: "not measured here" says so */
            continue;
        fprintf(out,
                "\n  %s (%s, median of the timed runs; noise: their relative standard "
                "deviation)\n",
                view.section->title, view.section->unit);
        if (view.section->comparison)
            write_comparison_table(&view, out);
        else
            write_sweep_table(&view, out);
        write_notes(&view, out, false);
    }
    if (result->missing[0])
        fprintf(out, "  not measured here: %s\n", result->missing);
    fprintf(out, "\n  => %s\n", result->conclusion);
}

/* ------------------------------------------------------------------------ */
/* Markdown                                                                 */

static void write_probe_markdown(const warplab_probe_result *result, FILE *out)
{
    const warplab_report *report = result->report;
    fprintf(out, "\n### %s: ", result->probe);
    wl_write_markdown_text(out, result->title);
    fputs("\n\nOn ", out);
    wl_write_markdown_text(out, report->device);
    fprintf(out, " (%s), %s. ", report->backend, report->date);
    wl_write_markdown_text(out, result->setup);
    fputs(". Where the course teaches it: ", out);
    wl_write_markdown_text(out, result->course);
    fputs(".\n", out);
    for (size_t s = 0; s < result->section_count; s++) {
        section_view view;
        view_section(result, s, &view);
        if (view.count == 0)
            continue;
        fprintf(out, "\n#### ");
        wl_write_markdown_text(out, view.section->title);
        fprintf(out, " (%s)\n\n", view.section->unit);
        if (view.section->comparison) {
            fprintf(out,
                    "| series | what | %s | noise | time | vs | %s |\n"
                    "|---|---|---:|---:|---:|---|---|\n",
                    view.section->unit, view.errors ? "max error" : "");
            for (size_t i = 0; i < view.count; i++) {
                const warplab_row *row = &view.rows[i];
                char value[32] = "", time[24] = "", versus[64] = "", error[32], noise[16] = "";
                format_error(&view.points[i], error, sizeof error);
                if (measured(&view, (long)i)) {
                    format_value(view.points[i].value, value, sizeof value);
                    wl_format_time(time, sizeof time, row->median_ms);
                    format_versus(&view, (long)i, versus, sizeof versus);
                    wl_format(noise, sizeof noise, "%.1f%%", row->noise_pct);
                } else {
                    wl_copy_string(value, sizeof value, cell_state(row));
                }
                fprintf(out, "| `%s` | ", row->rung);
                wl_write_markdown_text(out, row->title);
                fprintf(out, " | %s | %s | %s | %s | %s |\n", value, noise, time, versus, error);
            }
        } else {
            fputs("| ", out);
            wl_write_markdown_text(out, view.section->x_label);
            for (int k = 0; k < view.series_count; k++)
                if (series_shown(&view, k))
                    fprintf(out, " | `%s` | noise", view.series[k]);
            fputs(view.annotated ? " | predicted |\n|---:" : " |\n|---:", out);
            for (int k = 0; k < view.series_count; k++)
                if (series_shown(&view, k))
                    fputs("|---:|---:", out);
            fputs(view.annotated ? "|---|\n" : "|\n", out);
            for (int x = 0; x < view.x_count; x++) {
                char xtext[32];
                format_x(view.section, view.xs[x], xtext, sizeof xtext);
                fprintf(out, "| %s", xtext);
                for (int k = 0; k < view.series_count; k++) {
                    if (!series_shown(&view, k))
                        continue;
                    long i = find_row(&view, view.series[k], view.xs[x]);
                    if (measured(&view, i)) {
                        char value[32];
                        format_value(view.points[i].value, value, sizeof value);
                        fprintf(out, " | %s | %.1f%%", value, view.rows[i].noise_pct);
                    } else {
                        fprintf(out, " | %s | ", i >= 0 ? cell_state(&view.rows[i]) : "");
                    }
                }
                if (view.annotated) {
                    fputs(" | ", out);
                    wl_write_markdown_text(out, annotation_at(&view, view.xs[x]));
                }
                fputs(" |\n", out);
            }
        }
        fputc('\n', out);
        write_notes(&view, out, true);
    }
    if (result->missing[0]) {
        fputs("- not measured here: ", out);
        wl_write_markdown_text(out, result->missing);
        fputc('\n', out);
    }
    fputs("\n**What it shows:** ", out);
    wl_write_markdown_text(out, result->conclusion);
    fputs("\n", out);
}

/* ------------------------------------------------------------------------ */
/* CSV and JSON: one record per point                                       */

static const char *row_state(const warplab_row *row)
{
    if (row->flags & WARPLAB_ROW_SKIPPED)
        return "skipped";
    if (row->flags & WARPLAB_ROW_FAILED)
        return "failed";
    return "ok";
}

/* A point of a probe as a record of the column table. */
typedef struct probe_record {
    const warplab_probe_result *result;
    size_t index;
} probe_record;

#define RECORD(record) ((const probe_record *)(record))
#define RECORD_ROW(record) (&RECORD(record)->result->report->rows[RECORD(record)->index])
#define RECORD_POINT(record) (&RECORD(record)->result->points[RECORD(record)->index])
#define RECORD_SECTION(record) (&RECORD(record)->result->sections[RECORD_POINT(record)->section])
#define PROBE_GETTER(name, expression)                                                             \
    static wl_cell get_##name(const void *record, char *scratch, size_t len)                       \
    {                                                                                              \
        (void)record, (void)scratch, (void)len;                                                    \
        return expression;                                                                         \
    }
#define TEXT(value) ((wl_cell){(value), 0.0})
#define NUMBER(value) ((wl_cell){NULL, (double)(value)})
PROBE_GETTER(probe, TEXT(RECORD(record)->result->probe))
PROBE_GETTER(section, TEXT(RECORD_SECTION(record)->name))
PROBE_GETTER(series, TEXT(RECORD_ROW(record)->rung))
PROBE_GETTER(title, TEXT(RECORD_ROW(record)->title))
PROBE_GETTER(x, NUMBER(RECORD_POINT(record)->x))
PROBE_GETTER(value, NUMBER(RECORD_POINT(record)->value))
PROBE_GETTER(unit, TEXT(RECORD_SECTION(record)->unit))
PROBE_GETTER(low, NUMBER(RECORD_POINT(record)->low))
PROBE_GETTER(high, NUMBER(RECORD_POINT(record)->high))
PROBE_GETTER(noise_pct, NUMBER(RECORD_ROW(record)->noise_pct))
PROBE_GETTER(median_ms, NUMBER(RECORD_ROW(record)->median_ms))
PROBE_GETTER(runs, NUMBER(RECORD_ROW(record)->runs))
PROBE_GETTER(state, TEXT(row_state(RECORD_ROW(record))))
PROBE_GETTER(error, NUMBER(RECORD_POINT(record)->error))
PROBE_GETTER(error_kind, TEXT(RECORD_POINT(record)->error_kind))
PROBE_GETTER(baseline, TEXT(RECORD_POINT(record)->baseline))
PROBE_GETTER(annotation, TEXT(RECORD_POINT(record)->annotation))
PROBE_GETTER(problem, TEXT(RECORD_ROW(record)->problem))
PROBE_GETTER(device, TEXT(RECORD(record)->result->report->device))
PROBE_GETTER(backend, TEXT(RECORD_ROW(record)->backend))
PROBE_GETTER(note, TEXT(RECORD_ROW(record)->note))

/* One record per point; CSV's columns in the order CSV has always had. */
static const wl_column point_columns[] = {
    {"probe", NULL, NULL, WL_CELL_TEXT, 0, WL_IN_CSV, get_probe},
    {"section", NULL, NULL, WL_CELL_TEXT, 0, WL_IN_CSV, get_section},
    {"series", NULL, NULL, WL_CELL_TEXT, 0, WL_IN_CSV | WL_IN_JSON, get_series},
    {"title", NULL, NULL, WL_CELL_TEXT, 0, WL_IN_JSON, get_title},
    {"x", NULL, NULL, WL_CELL_NUMBER, 10, WL_IN_CSV | WL_IN_JSON, get_x},
    {"value", NULL, NULL, WL_CELL_NUMBER, 6, WL_IN_CSV | WL_IN_JSON, get_value},
    {"unit", NULL, NULL, WL_CELL_TEXT, 0, WL_IN_CSV, get_unit},
    {"low", NULL, NULL, WL_CELL_NUMBER, 6, WL_IN_CSV | WL_IN_JSON, get_low},
    {"high", NULL, NULL, WL_CELL_NUMBER, 6, WL_IN_CSV | WL_IN_JSON, get_high},
    {"noise_pct", NULL, NULL, WL_CELL_NOISE, 4, WL_IN_CSV | WL_IN_JSON, get_noise_pct},
    {"median_ms", NULL, NULL, WL_CELL_TIME, 9, WL_IN_CSV | WL_IN_JSON, get_median_ms},
    {"runs", NULL, NULL, WL_CELL_INTEGER, 0, WL_IN_CSV | WL_IN_JSON, get_runs},
    {"state", NULL, NULL, WL_CELL_TEXT, 0, WL_IN_CSV | WL_IN_JSON, get_state},
    {"error", NULL, NULL, WL_CELL_NUMBER, 4, WL_IN_CSV | WL_IN_JSON, get_error},
    {"error_kind", NULL, NULL, WL_CELL_TEXT, 0, WL_IN_CSV | WL_IN_JSON, get_error_kind},
    {"baseline", NULL, NULL, WL_CELL_TEXT, 0, WL_IN_CSV | WL_IN_JSON, get_baseline},
    {"annotation", NULL, NULL, WL_CELL_TEXT, 0, WL_IN_CSV | WL_IN_JSON, get_annotation},
    {"problem", NULL, NULL, WL_CELL_TEXT, 0, WL_IN_JSON, get_problem},
    {"device", NULL, NULL, WL_CELL_TEXT, 0, WL_IN_CSV, get_device},
    {"backend", NULL, NULL, WL_CELL_TEXT, 0, WL_IN_CSV, get_backend},
    {"note", NULL, NULL, WL_CELL_TEXT, 0, WL_IN_CSV | WL_IN_JSON, get_note},
};
#define POINT_COLUMN_COUNT (sizeof point_columns / sizeof point_columns[0])

static void write_csv_header(FILE *out)
{
    wl_write_csv_header(out, point_columns, POINT_COLUMN_COUNT);
}

static void write_probe_csv(const warplab_probe_result *result, FILE *out)
{
    for (size_t i = 0; i < result->report->row_count; i++)
        wl_write_csv_record(out, point_columns, POINT_COLUMN_COUNT, &(probe_record){result, i});
}

static void write_probe_json(const warplab_probe_result *result, FILE *out)
{
    fputs("    {", out);
    wl_write_json_field(out, "probe", result->probe, true);
    wl_write_json_field(out, "title", result->title, true);
    /* JSON keys kept as released: "seed" is where the course teaches it,
     * "seed_value" the RNG seed. */
    wl_write_json_field(out, "seed", result->course, true);
    fputs("\n     ", out);
    wl_write_json_field(out, "setup", result->setup, true);
    wl_write_json_field(out, "conclusion", result->conclusion, true);
    wl_write_json_field(out, "missing", result->missing, true);
    fputs("\n     ", out);
    wl_write_json_field(out, "device", result->report->device, true);
    wl_write_json_field(out, "backend", result->report->backend, true);
    wl_write_json_field(out, "date", result->report->date, true);
    fprintf(out, "\"caches_flushed\": %s, \"seed_value\": \"%llu\",\n     \"sections\": [",
            result->report->l2_flushed ? "true" : "false", result->report->seed);
    for (size_t s = 0; s < result->section_count; s++) {
        const warplab_probe_section *section = &result->sections[s];
        fputs(s ? ",\n      {" : "\n      {", out);
        wl_write_json_field(out, "name", section->name, true);
        wl_write_json_field(out, "title", section->title, true);
        wl_write_json_field(out, "x_label", section->x_label, true);
        wl_write_json_field(out, "unit", section->unit, true);
        fprintf(out, "\"log_x\": %s, \"comparison\": %s,\n       \"points\": [",
                section->log_x ? "true" : "false", section->comparison ? "true" : "false");
        for (size_t i = section->first_row; i < section->first_row + section->row_count; i++) {
            fputs(i > section->first_row ? ",\n        {" : "\n        {", out);
            wl_write_json_members(out, point_columns, POINT_COLUMN_COUNT,
                                  &(probe_record){result, i}, "         ", 6);
            fputs("}", out);
        }
        fputs("]}", out);
    }
    fputs("]}", out);
}

warplab_status warplab_probe_write(const warplab_probe_result *const *results, size_t count,
                                   warplab_format format, FILE *out)
{
    if ((!results && count) || !out)
        return WARPLAB_ERROR_INVALID_ARGUMENT;
    for (size_t i = 0; i < count; i++)
        if (!results[i] || !results[i]->report)
            return WARPLAB_ERROR_INVALID_ARGUMENT;
    switch (format) {
    case WARPLAB_FORMAT_TABLE:
        for (size_t i = 0; i < count; i++)
            write_probe_table(results[i], out);
        break;
    case WARPLAB_FORMAT_MARKDOWN:
        for (size_t i = 0; i < count; i++)
            write_probe_markdown(results[i], out);
        break;
    case WARPLAB_FORMAT_CSV:
        write_csv_header(out);
        for (size_t i = 0; i < count; i++)
            write_probe_csv(results[i], out);
        break;
    case WARPLAB_FORMAT_JSON:
        fprintf(out,
                "{\"tool\": \"warplab\", \"version\": \"%s\", \"gb\": \"1e9 bytes\",\n "
                "\"probes\": [\n",
                warplab_version());
        for (size_t i = 0; i < count; i++) {
            write_probe_json(results[i], out);
            fputs(i + 1 < count ? ",\n" : "\n", out);
        }
        fputs(" ]}\n", out);
        break;
    default: return WARPLAB_ERROR_INVALID_ARGUMENT;
    }
    return ferror(out) ? WARPLAB_ERROR_IO : WARPLAB_OK;
}

/* ------------------------------------------------------------------------ */
/* SVG                                                                      */

#define SVG_WIDTH 900.0

typedef struct axes {
    double left, top, width, height;
    double x_lo, x_hi, y_hi;
    bool log_x;
} axes;

static double axis_x(const axes *a, double x)
{
    double t = a->log_x ? (log2(x) - log2(a->x_lo)) / (log2(a->x_hi) - log2(a->x_lo))
                        : (x - a->x_lo) / (a->x_hi - a->x_lo);
    if (!(a->x_hi > a->x_lo))
        t = 0.5;
    return a->left + t * a->width;
}

static double axis_y(const axes *a, double y)
{
    return a->top + a->height * (1.0 - y / a->y_hi);
}

/* Writes text at (x, y), wrapping at about `chars` characters a line. */
static double svg_paragraph(FILE *out, double x, double y, const char *text, size_t chars,
                            const char *style)
{
    char line[256];
    while (*text) {
        size_t n = strlen(text);
        if (n > chars) {
            n = chars;
            while (n > 0 && text[n] != ' ')
                n--;
            if (n == 0)
                n = chars;
        }
        if (n >= sizeof line)
            n = sizeof line - 1;
        memcpy(line, text, n);
        line[n] = '\0';
        fprintf(out, "<text x=\"%.0f\" y=\"%.0f\" %s>", x, y, style);
        wl_write_svg_text(out, line);
        fputs("</text>\n", out);
        y += 16;
        text += n;
        while (*text == ' ')
            text++;
    }
    return y;
}

/* A grid line at x and its label under the plot. */
static void svg_x_tick(const section_view *view, const axes *a, double x, FILE *out)
{
    const double bottom = a->top + a->height;
    char text[32];
    format_x(view->section, x, text, sizeof text);
    fprintf(out,
            "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n"
            "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" fill=\"#333\">%s</text>\n",
            axis_x(a, x), a->top, axis_x(a, x), bottom, axis_x(a, x), bottom + 16, text);
}

static void svg_x_ticks(const section_view *view, const axes *a, FILE *out)
{
    if (a->log_x) {
        int first = (int)ceil(log2(a->x_lo)), last = (int)floor(log2(a->x_hi));
        int every = (last - first) > 12 ? 2 : 1;
        for (int e = first; e <= last; e += every) {
            double x = ldexp(1.0, e);
            svg_x_tick(view, a, x, out);
        }
        return;
    }
    double step = wl_chart_round_step(a->x_hi - a->x_lo, 8);
    if (step < 1.0)
        step = 1.0;
    for (double x = ceil(a->x_lo / step) * step; x <= a->x_hi + 1e-9; x += step) {
        svg_x_tick(view, a, x, out);
    }
}

static void svg_y_ticks(const axes *a, FILE *out)
{
    double step = wl_chart_round_step(a->y_hi, 6);
    for (double y = 0; y <= a->y_hi + 1e-12; y += step) {
        fprintf(out,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n"
                "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" fill=\"#333\">%g</text>\n",
                a->left, axis_y(a, y), a->left + a->width, axis_y(a, y), a->left - 6,
                axis_y(a, y) + 4, y);
    }
}

/* A sweep: one line per series (markers at the points, a bar from the
 * slowest to the fastest run); a series measured at one x only is drawn as
 * a dashed level across the chart. Returns the height used. */
static double svg_sweep(const section_view *view, double top, FILE *out)
{
    axes a = {.left = 80,
              .top = top + 30,
              .width = SVG_WIDTH - 80 - 190,
              .height = 300,
              .log_x = view->section->log_x};
    a.x_lo = INFINITY;
    a.x_hi = -INFINITY;
    a.y_hi = 0;
    for (int x = 0; x < view->x_count; x++) {
        if (a.log_x && view->xs[x] <= 0)
            continue;
        a.x_lo = fmin(a.x_lo, view->xs[x]);
        a.x_hi = fmax(a.x_hi, view->xs[x]);
    }
    for (size_t i = 0; i < view->count; i++)
        a.y_hi = fmax(a.y_hi, fmax(view->points[i].value, view->points[i].high));
    if (!isfinite(a.x_lo)) {
        a.x_lo = 0;
        a.x_hi = 1;
    }
    /* A bandwidth ceiling near the figures is drawn, and the axis reaches it. */
    const double ceiling = view->result->report->ceiling_gbs;
    const bool show_ceiling = ceiling > 0 && strcmp(view->section->unit, "GB/s") == 0 &&
                              a.y_hi > 0 && ceiling <= 2.0 * a.y_hi;
    if (show_ceiling)
        a.y_hi = fmax(a.y_hi, ceiling);
    a.y_hi = a.y_hi > 0 ? a.y_hi * 1.08 : 1.0;
    fprintf(out, "<text x=\"10\" y=\"%.0f\" font-size=\"14\" font-weight=\"bold\">", top + 16);
    wl_write_svg_text(out, view->section->title);
    fputs("</text>\n", out);
    svg_x_ticks(view, &a, out);
    svg_y_ticks(&a, out);
    fprintf(out,
            "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
            "stroke=\"#333\"/>\n<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
            a.left, a.top, a.width, a.height, a.left + a.width / 2, a.top + a.height + 36);
    wl_write_svg_text(out, view->section->x_label);
    fprintf(out,
            "%s</text>\n<text x=\"20\" y=\"%.1f\" transform=\"rotate(-90 20 %.1f)\" "
            "text-anchor=\"middle\">%s</text>\n",
            a.log_x ? " (log scale)" : "", a.top + a.height / 2, a.top + a.height / 2,
            view->section->unit);
    if (show_ceiling) {
        const double y = axis_y(&a, ceiling);
        fprintf(out,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#c0392b\" "
                "stroke-dasharray=\"5,4\"/>\n<text x=\"%.1f\" y=\"%.1f\" fill=\"#c0392b\">%.0f "
                "GB/s ceiling</text>\n",
                a.left, y, a.left + a.width, y, a.left + 4, y - 4, ceiling);
    }
    /* Series with no measured point draw nothing and stay out of the legend;
     * the others each get their own colour. */
    int drawn = 0, shown = 0;
    for (int s = 0; s < view->series_count; s++)
        for (int x = 0; x < view->x_count; x++)
            if (measured(view, find_row(view, view->series[s], view->xs[x])) &&
                (!a.log_x || view->xs[x] > 0)) {
                drawn++;
                break;
            }
    for (int s = 0; s < view->series_count; s++) {
        int found = 0;
        long only = -1;
        for (int x = 0; x < view->x_count; x++) {
            long i = find_row(view, view->series[s], view->xs[x]);
            if (measured(view, i) && (!a.log_x || view->xs[x] > 0)) {
                found++;
                only = i;
            }
        }
        if (found == 0)
            continue;
        char color[16];
        wl_series_color(shown, drawn, color, sizeof color);
        if (found == 1 && view->x_count > 1) {
            double y = axis_y(&a, view->points[only].value);
            fprintf(out,
                    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                    "stroke-dasharray=\"6,4\" stroke-width=\"2\"/>\n",
                    a.left, y, a.left + a.width, y, color);
        }
        /* A vendor's series is dashed; the line breaks where a point did not
         * run or failed. */
        long first = find_row(view, view->series[s], view->xs[0]);
        for (int x = 1; first < 0 && x < view->x_count; x++)
            first = find_row(view, view->series[s], view->xs[x]);
        const char *dash = first >= 0 && (view->rows[first].flags & WARPLAB_ROW_VENDOR)
                               ? " stroke-dasharray=\"6,3\""
                               : "";
        bool drawing = false;
        for (int x = 0; x < view->x_count; x++) {
            long i = find_row(view, view->series[s], view->xs[x]);
            if (!measured(view, i) || (a.log_x && view->xs[x] <= 0)) {
                if (drawing && i >= 0)
                    fputs("\"/>\n", out);
                drawing = drawing && i < 0; /* a point not in the section: no break */
                continue;
            }
            if (!drawing)
                fprintf(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s points=\"",
                        color, dash);
            drawing = true;
            fprintf(out, "%.1f,%.1f ", axis_x(&a, view->xs[x]), axis_y(&a, view->points[i].value));
        }
        if (drawing)
            fputs("\"/>\n", out);
        for (int x = 0; x < view->x_count; x++) {
            long i = find_row(view, view->series[s], view->xs[x]);
            if (!measured(view, i) || (a.log_x && view->xs[x] <= 0))
                continue;
            const warplab_probe_point *p = &view->points[i];
            double px = axis_x(&a, view->xs[x]);
            fprintf(out,
                    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                    "opacity=\"0.5\"/>\n<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n",
                    px, axis_y(&a, p->low > 0 ? p->low : p->value), px,
                    axis_y(&a, p->high > 0 ? p->high : p->value), color, px, axis_y(&a, p->value),
                    color);
        }
        double ly = a.top + 14 + 20.0 * shown++;
        fprintf(out,
                "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"4\" fill=\"%s\"/>\n"
                "<text x=\"%.1f\" y=\"%.1f\">",
                a.left + a.width + 14, ly - 6, color, a.left + a.width + 34, ly);
        wl_write_svg_text(out, view->series[s]);
        fputs("</text>\n", out);
    }
    return a.height + 80;
}

/* A comparison: a bar per series, with its ratio to its baseline; a value
 * axis and a legend of the two kinds of bar under them. Returns the height
 * used, or -1 when out of memory. */
#define COMPARED "#2e86c1"
#define BASELINE "#95a5a6"
#define COMPARISON_AXIS_ROOM 50.0
static double svg_comparison(const section_view *view, double top, FILE *out)
{
    bool compared = false, baselines = false;
    const double left = 160, bar = 24, width = SVG_WIDTH - left - 270;
    double largest = 0;
    for (size_t i = 0; i < view->count; i++)
        largest = fmax(largest, view->points[i].value);
    if (largest <= 0)
        largest = 1;
    fprintf(out, "<text x=\"10\" y=\"%.0f\" font-size=\"14\" font-weight=\"bold\">", top + 16);
    wl_write_svg_text(out, view->section->title);
    fprintf(out, " (%s)</text>\n", view->section->unit);
    wl_bar *bars = calloc(view->count ? view->count : 1, sizeof *bars);
    if (!bars)
        return -1.0; /* out of memory */
    for (size_t i = 0; i < view->count; i++) {
        wl_bar *b = &bars[i];
        b->label = view->rows[i].rung;
        if (!measured(view, (long)i)) {
            b->state = cell_state(&view->rows[i]);
            continue;
        }
        char value[32], versus[64], error[32];
        format_value(view->points[i].value, value, sizeof value);
        format_versus(view, (long)i, versus, sizeof versus);
        format_error(&view->points[i], error, sizeof error);
        b->value = view->points[i].value;
        b->color = view->points[i].baseline[0] ? COMPARED : BASELINE;
        wl_format(b->value_text, sizeof b->value_text, "%s %s%s%s", value, versus,
                  error[0] ? "; error " : "", error);
        if (view->points[i].baseline[0])
            compared = true;
        else
            baselines = true;
    }
    wl_legend_entry legend[2];
    size_t legend_count = 0;
    if (baselines)
        legend[legend_count++] = (wl_legend_entry){BASELINE, "baseline", 100};
    if (compared)
        legend[legend_count++] =
            (wl_legend_entry){COMPARED, "compared with its baseline (ratio after the value)", 0};
    char label[96];
    wl_format(label, sizeof label, "%s (higher is better)", view->section->unit);
    const wl_bar_chart chart = {
        .left = left,
        .plot_width = width,
        .bar_height = bar,
        .top = top + 30,
        .grid_above = 0,
        .text_y_digits = 1,
        .bars = bars,
        .bar_count = view->count,
        .largest = largest,
        .axis_label = label,
        .legend = legend,
        .legend_count = legend_count,
    };
    wl_svg_bar_chart(out, &chart);
    free(bars);
    return 40 + bar * (double)view->count + 20 + COMPARISON_AXIS_ROOM;
}

warplab_status warplab_probe_write_svg(const warplab_probe_result *result, FILE *out)
{
    if (!result || !result->report || !out)
        return WARPLAB_ERROR_INVALID_ARGUMENT;
    section_view views[WL_PROBE_MAX_SECTIONS];
    double height = 70 + 16.0 * (double)(strlen(result->setup) / 120 + 1);
    for (size_t s = 0; s < result->section_count && s < WL_PROBE_MAX_SECTIONS; s++) {
        view_section(result, s, &views[s]);
        if (views[s].count == 0) /* a section with no series on this backend: no chart */
            continue;
        height += views[s].section->comparison
                      ? 60 + 24.0 * (double)views[s].count + COMPARISON_AXIS_ROOM
                      : 410;
    }
    height += 16.0 * (double)(strlen(result->conclusion) / 100 + 2);
    fprintf(out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
            "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"12\">\n"
            "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
            "<text x=\"10\" y=\"22\" font-size=\"16\" font-weight=\"bold\">",
            SVG_WIDTH, height, SVG_WIDTH, height);
    wl_write_svg_text(out, result->probe);
    fputs(": ", out);
    wl_write_svg_text(out, result->title);
    fputs("</text>\n<text x=\"10\" y=\"42\" fill=\"#555\">", out);
    wl_write_svg_text(out, result->report->device);
    fprintf(out, " (%s), %s</text>\n", result->report->backend, result->report->date);
    double y = svg_paragraph(out, 10, 58, result->setup, 130, "fill=\"#555\"");
    for (size_t s = 0; s < result->section_count && s < WL_PROBE_MAX_SECTIONS; s++) {
        if (views[s].count == 0)
            continue;
        double used = views[s].section->comparison ? svg_comparison(&views[s], y, out)
                                                   : svg_sweep(&views[s], y, out);
        if (used < 0)
            return WARPLAB_ERROR_HOST_OUT_OF_MEMORY;
        y += used;
    }
    svg_paragraph(out, 10, y + 10, result->conclusion, 110, "fill=\"#000\"");
    fputs("</svg>\n", out);
    return ferror(out) ? WARPLAB_ERROR_IO : WARPLAB_OK;
}
