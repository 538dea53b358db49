/* Report output: terminal table, Markdown, CSV and JSON. One group per
 * (ladder, problem): the course's tables are per size. */
#include "report/report.h"
#include "ladders/conclusions.h"

#include "warplab_lab.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Rows [begin, end) that share ladder and problem. */
static size_t group_end(const warplab_report *report, size_t begin)
{
    size_t end = begin + 1;
    while (end < report->row_count &&
           strcmp(report->rows[end].ladder, report->rows[begin].ladder) == 0 &&
           strcmp(report->rows[end].problem, report->rows[begin].problem) == 0)
        end++;
    return end;
}

/* Compute-bound groups (matrix multiply) lead with GFLOP/s. */
static bool group_is_compute(const warplab_report *report, size_t begin, size_t end)
{
    for (size_t i = begin; i < end; i++)
        if (report->rows[i].bytes > 0 && report->rows[i].flops / report->rows[i].bytes > 4.0)
            return true;
    return false;
}

static const char *row_state(const warplab_row *row)
{
    if (row->flags & WARPLAB_ROW_SKIPPED)
        return "skipped";
    if (row->flags & WARPLAB_ROW_FAILED)
        return (row->flags & WARPLAB_ROW_UNSAFE) ? "WRONG" : "FAILED";
    return "ok";
}

static const char *row_kind(const warplab_row *row)
{
    if (row->flags & WARPLAB_ROW_VENDOR)
        return "vendor";
    if (row->flags & WARPLAB_ROW_REFERENCE)
        return "reference";
    if (row->flags & WARPLAB_ROW_TRANSFER)
        return "transfer";
    if (row->flags & WARPLAB_ROW_HOST)
        return "host";
    return "rung";
}

static bool row_timed(const warplab_row *row)
{
    return row->runs > 0 && row->median_ms > 0;
}
/* The first baseline row that was timed, for the footers. */
static const warplab_row *any_baseline(const warplab_report *report)
{
    for (size_t i = 0; i < report->row_count; i++)
        if ((report->rows[i].flags & WARPLAB_ROW_BASELINE) && report->rows[i].pct_of_vendor > 0)
            return &report->rows[i];
    return NULL;
}

static bool any_compute_group(const warplab_report *report)
{
    for (size_t begin = 0; begin < report->row_count;) {
        size_t end = group_end(report, begin);
        if (group_is_compute(report, begin, end))
            return true;
        begin = end;
    }
    return false;
}

/* Some row has a % of the copy reference to explain. */
static bool any_reference(const warplab_report *report)
{
    for (size_t i = 0; i < report->row_count; i++)
        if (report->rows[i].pct_of_reference > 0)
            return true;
    return false;
}

/* Every group is compute-bound: no bandwidth %peak column to explain. */
static bool all_compute_groups(const warplab_report *report)
{
    for (size_t begin = 0; begin < report->row_count;) {
        size_t end = group_end(report, begin);
        if (!group_is_compute(report, begin, end))
            return false;
        begin = end;
    }
    return true;
}

/* What the compute tables' extra columns mean. */
static void compute_footer(const warplab_report *report, FILE *out)
{
    const warplab_row *baseline = any_baseline(report);
    if (baseline)
        fprintf(out, "%%vendor: speed as %% of %s (%s) in the same table.\n", baseline->rung,
                baseline->title);
    if (report->fp32_peak_gflops > 0)
        fprintf(out,
                "%%FP32: of the device's FP32 peak, %.0f GFLOP/s (SMs x FP32 lanes x 2 x "
                "clock).\n",
                report->fp32_peak_gflops);
    fprintf(out, "moved: global-memory bytes the rung moves by its own count (its tiles), GB = "
                 "1e9 bytes.\n");
}

static void format_course(char *out, size_t len, const warplab_row *row)
{
    wl_copy_string(out, len, "");
    if (row->course_value > 0)
        wl_format(out, len, "%.4g %s %s%s", row->course_value, row->course_unit, row->course_device,
                  row->course_bound ? " (bound)" : "");
    if (row->course_value2 > 0)
        wl_append(out, len, "%s%.4g %s %s", out[0] ? "; " : "", row->course_value2,
                  row->course_unit2[0] ? row->course_unit2 : row->course_unit, row->course_device2);
}

static void group_heading(const warplab_report *report, const warplab_row *first, char *out,
                          size_t len)
{
    wl_format(out, len, "%s, %s, on %s (%s)", first->ladder, first->problem, report->device,
              report->backend);
}

/* ------------------------------------------------------------------------ */
/* Vendor pairs: rungs that name their vendor row (wl_rung.vendor), summed
 * over the report's problems: geometric mean of vendor time / our time and
 * the worst problem. */

typedef struct vendor_pair {
    const char *ladder, *rung, *vendor;
    int shapes;
    double log_sum, worst;
    const char *worst_problem;
} vendor_pair;

/* The row compares with a vendor row its rung names, and both ran. */
static bool row_is_paired(const warplab_row *row)
{
    if (row->pct_of_vendor <= 0 || !row->vendor[0] ||
        (row->flags & (WARPLAB_ROW_SKIPPED | WARPLAB_ROW_FAILED)))
        return false;
    return (row->flags & WARPLAB_ROW_PAIRED) != 0;
}

/* The report's pairs, into pairs (room for report->row_count: a pair has at
 * least one row). */
static int collect_pairs(const warplab_report *report, vendor_pair *pairs)
{
    int count = 0;
    for (size_t i = 0; i < report->row_count; i++) {
        const warplab_row *row = &report->rows[i];
        if (!row_is_paired(row))
            continue;
        int p = 0;
        while (p < count && !(strcmp(pairs[p].ladder, row->ladder) == 0 &&
                              strcmp(pairs[p].rung, row->rung) == 0 &&
                              strcmp(pairs[p].vendor, row->vendor) == 0))
            p++;
        if (p == count) {
            pairs[count++] = (vendor_pair){row->ladder, row->rung, row->vendor, 0, 0.0, 0.0, ""};
        }
        const double ratio = row->pct_of_vendor / 100.0;
        if (pairs[p].shapes == 0 || ratio < pairs[p].worst) {
            pairs[p].worst = ratio;
            pairs[p].worst_problem = row->problem;
        }
        pairs[p].shapes++;
        pairs[p].log_sum += log(ratio);
    }
    return count;
}

static double pair_geomean(const vendor_pair *pair)
{
    return pair->shapes ? exp(pair->log_sum / pair->shapes) : 0.0;
}

/* Per pair: each problem's times and ratio, then the geometric mean and the
 * worst problem. */
static void write_pairs(const warplab_report *report, vendor_pair *pairs, FILE *out)
{
    const int count = collect_pairs(report, pairs);
    for (int p = 0; p < count; p++) {
        fprintf(out, "\n%s/%s against %s (ratio = %s time / %s time; higher is better)\n",
                pairs[p].ladder, pairs[p].rung, pairs[p].vendor, pairs[p].vendor, pairs[p].rung);
        fprintf(out, "%-36s %11s %11s %7s  %s\n", "problem", pairs[p].rung, pairs[p].vendor,
                "ratio", "note");
        for (size_t i = 0; i < report->row_count; i++) {
            const warplab_row *row = &report->rows[i];
            if (!row_is_paired(row) || strcmp(row->rung, pairs[p].rung) != 0 ||
                strcmp(row->vendor, pairs[p].vendor) != 0 ||
                strcmp(row->ladder, pairs[p].ladder) != 0)
                continue;
            char ours[24], theirs[24];
            wl_format_time(ours, sizeof ours, row->median_ms);
            wl_format_time(theirs, sizeof theirs, row->median_ms * row->pct_of_vendor / 100.0);
            fprintf(out, "%-36s %11s %11s %6.2fx  %s\n", row->problem, ours, theirs,
                    row->pct_of_vendor / 100.0, row->note);
        }
        fprintf(out, "%s vs %s: geometric mean %.3fx over %d problems; worst %.3fx at %s\n",
                pairs[p].rung, pairs[p].vendor, pair_geomean(&pairs[p]), pairs[p].shapes,
                pairs[p].worst, pairs[p].worst_problem);
    }
}

/* ------------------------------------------------------------------------ */
/* The row's columns: every format below writes from this one table.         */

#define ROW(record) ((const warplab_row *)(record))
#define ROW_TEXT_GETTER(field)                                                                     \
    static wl_cell get_##field(const void *record, char *scratch, size_t len)                      \
    {                                                                                              \
        (void)scratch, (void)len;                                                                  \
        return (wl_cell){ROW(record)->field, 0.0};                                                 \
    }
#define ROW_NUMBER_GETTER(field)                                                                   \
    static wl_cell get_##field(const void *record, char *scratch, size_t len)                      \
    {                                                                                              \
        (void)scratch, (void)len;                                                                  \
        return (wl_cell){NULL, (double)ROW(record)->field};                                        \
    }
ROW_TEXT_GETTER(ladder)
ROW_TEXT_GETTER(problem)
ROW_TEXT_GETTER(rung)
ROW_TEXT_GETTER(title)
ROW_TEXT_GETTER(backend)
ROW_TEXT_GETTER(course_unit)
ROW_TEXT_GETTER(course_device)
ROW_TEXT_GETTER(course_device2)
ROW_TEXT_GETTER(course_unit2)
ROW_TEXT_GETTER(errata)
ROW_TEXT_GETTER(note)
ROW_TEXT_GETTER(vendor)
ROW_TEXT_GETTER(lesson)
ROW_NUMBER_GETTER(size)
ROW_NUMBER_GETTER(runs)
ROW_NUMBER_GETTER(median_ms)
ROW_NUMBER_GETTER(min_ms)
ROW_NUMBER_GETTER(max_ms)
ROW_NUMBER_GETTER(mean_ms)
ROW_NUMBER_GETTER(noise_pct)
ROW_NUMBER_GETTER(bytes)
ROW_NUMBER_GETTER(flops)
ROW_NUMBER_GETTER(gbs)
ROW_NUMBER_GETTER(gflops)
ROW_NUMBER_GETTER(busbw_gbs)
ROW_NUMBER_GETTER(wall_s)
ROW_NUMBER_GETTER(pct_of_ceiling)
ROW_NUMBER_GETTER(pct_of_reference)
ROW_NUMBER_GETTER(pct_of_vendor)
ROW_NUMBER_GETTER(pct_of_fp32_peak)
ROW_NUMBER_GETTER(step_speedup)
ROW_NUMBER_GETTER(cumulative_speedup)
ROW_NUMBER_GETTER(max_rel_error)
ROW_NUMBER_GETTER(course_value)
ROW_NUMBER_GETTER(course_value2)

static wl_cell get_kind(const void *record, char *scratch, size_t len)
{
    (void)scratch, (void)len;
    return (wl_cell){row_kind(ROW(record)), 0.0};
}

static wl_cell get_state(const void *record, char *scratch, size_t len)
{
    (void)scratch, (void)len;
    return (wl_cell){row_state(ROW(record)), 0.0};
}

static wl_cell get_status(const void *record, char *scratch, size_t len)
{
    (void)scratch, (void)len;
    return (wl_cell){warplab_status_string(ROW(record)->status), 0.0};
}

static wl_cell get_course_bound(const void *record, char *scratch, size_t len)
{
    (void)scratch, (void)len;
    return (wl_cell){NULL, ROW(record)->course_bound ? 1.0 : 0.0};
}

static wl_cell get_unsafe(const void *record, char *scratch, size_t len)
{
    (void)scratch, (void)len;
    return (wl_cell){NULL, (ROW(record)->flags & WARPLAB_ROW_UNSAFE) ? 1.0 : 0.0};
}

/* The vendor time / ours, as a factor (JSON's per-problem ratio); none = null. */
static wl_cell get_vendor_ratio(const void *record, char *scratch, size_t len)
{
    (void)scratch, (void)len;
    const double pct = ROW(record)->pct_of_vendor;
    return (wl_cell){NULL, pct > 0 ? pct / 100.0 : NAN};
}

/* The course's figures in one cell: "15.72 GiB/s K40; 2.083 GB/s seed 004 GPU". */
static wl_cell get_course(const void *record, char *scratch, size_t len)
{
    format_course(scratch, len, ROW(record));
    return (wl_cell){scratch, 0.0};
}

/* CSV's columns come first, in the order CSV has always had; then what JSON
 * adds; then what only the tables show. */
static const wl_column row_columns[] = {
    {"ladder", NULL, NULL, WL_CELL_TEXT, 0, WL_IN_CSV | WL_IN_JSON, get_ladder},
    {"problem", NULL, NULL, WL_CELL_TEXT, 0, WL_IN_CSV | WL_IN_JSON, get_problem},
    {"size", NULL, NULL, WL_CELL_NUMBER, 17, WL_IN_CSV | WL_IN_JSON, get_size},
    {"rung", "rung", NULL, WL_CELL_TEXT, 0, WL_IN_CSV | WL_IN_JSON, get_rung},
    {"title", "what", NULL, WL_CELL_TEXT, 0, WL_IN_CSV | WL_IN_JSON, get_title},
    {"backend", NULL, NULL, WL_CELL_TEXT, 0, WL_IN_CSV | WL_IN_JSON, get_backend},
    {"kind", NULL, NULL, WL_CELL_TEXT, 0, WL_IN_CSV | WL_IN_JSON, get_kind},
    {"state", NULL, NULL, WL_CELL_TEXT, 0, WL_IN_CSV | WL_IN_JSON, get_state},
    {"runs", NULL, NULL, WL_CELL_INTEGER, 0, WL_IN_CSV | WL_IN_JSON, get_runs},
    {"median_ms", "time", NULL, WL_CELL_TIME, 0, WL_IN_CSV | WL_IN_JSON, get_median_ms},
    {"min_ms", NULL, NULL, WL_CELL_TIME, 0, WL_IN_CSV | WL_IN_JSON, get_min_ms},
    {"max_ms", NULL, NULL, WL_CELL_TIME, 0, WL_IN_CSV | WL_IN_JSON, get_max_ms},
    {"mean_ms", NULL, NULL, WL_CELL_TIME, 0, WL_IN_CSV | WL_IN_JSON, get_mean_ms},
    {"noise_pct", "noise", NULL, WL_CELL_NOISE, 0, WL_IN_CSV | WL_IN_JSON, get_noise_pct},
    {"bytes", "moved", NULL, WL_CELL_BYTES, 0, WL_IN_CSV | WL_IN_JSON, get_bytes},
    {"flops", NULL, NULL, WL_CELL_NUMBER, 17, WL_IN_CSV | WL_IN_JSON, get_flops},
    {"gbs", "GB/s", NULL, WL_CELL_RATE, 0, WL_IN_CSV | WL_IN_JSON, get_gbs},
    {"gflops", "GFLOP/s", NULL, WL_CELL_RATE, 0, WL_IN_CSV | WL_IN_JSON, get_gflops},
    /* all-reduce: nccl-tests' bus bandwidth (gbs is then the algbw) */
    {"busbw_gbs", NULL, NULL, WL_CELL_RATE, 0, WL_IN_JSON_IF_SET, get_busbw_gbs},
    /* the row's wall time, buffers and checks included */
    {"wall_s", NULL, NULL, WL_CELL_NUMBER, 4, WL_IN_JSON_IF_SET, get_wall_s},
    {"pct_of_ceiling", "%peak", "% of peak", WL_CELL_PERCENT, 0, WL_IN_CSV | WL_IN_JSON,
     get_pct_of_ceiling},
    {"step_speedup", "step", NULL, WL_CELL_SPEEDUP, 0, WL_IN_CSV | WL_IN_JSON, get_step_speedup},
    {"cumulative_speedup", "total", NULL, WL_CELL_SPEEDUP, 0, WL_IN_CSV | WL_IN_JSON,
     get_cumulative_speedup},
    {"max_rel_error", NULL, NULL, WL_CELL_NUMBER, 0, WL_IN_CSV | WL_IN_JSON, get_max_rel_error},
    {"course_value", NULL, NULL, WL_CELL_NUMBER, 6, WL_IN_CSV | WL_IN_JSON, get_course_value},
    {"course_unit", NULL, NULL, WL_CELL_TEXT, 0, WL_IN_CSV | WL_IN_JSON, get_course_unit},
    {"course_device", NULL, NULL, WL_CELL_TEXT, 0, WL_IN_CSV | WL_IN_JSON, get_course_device},
    {"note", NULL, NULL, WL_CELL_TEXT, 0, WL_IN_CSV | WL_IN_JSON, get_note},
    {"pct_of_reference", "%copy", "% of copy", WL_CELL_PERCENT, 0, WL_IN_CSV | WL_IN_JSON,
     get_pct_of_reference},
    {"course_value2", NULL, NULL, WL_CELL_NUMBER, 6, WL_IN_CSV | WL_IN_JSON, get_course_value2},
    {"course_device2", NULL, NULL, WL_CELL_TEXT, 0, WL_IN_CSV | WL_IN_JSON, get_course_device2},
    {"pct_of_vendor", "%vendor", "% of vendor", WL_CELL_PERCENT, 0, WL_IN_CSV | WL_IN_JSON,
     get_pct_of_vendor},
    {"pct_of_fp32_peak", "%FP32", "% of FP32 peak", WL_CELL_PERCENT, 0, WL_IN_CSV | WL_IN_JSON,
     get_pct_of_fp32_peak},
    {"unsafe", NULL, NULL, WL_CELL_BOOL, 0, WL_IN_JSON, get_unsafe},
    {"status", NULL, NULL, WL_CELL_TEXT, 0, WL_IN_JSON, get_status},
    {"vendor", NULL, NULL, WL_CELL_TEXT, 0, WL_IN_JSON, get_vendor},
    {"vendor_ratio", NULL, NULL, WL_CELL_NUMBER, 0, WL_IN_JSON, get_vendor_ratio},
    {"lesson", NULL, NULL, WL_CELL_TEXT, 0, WL_IN_JSON, get_lesson},
    {"course_bound", NULL, NULL, WL_CELL_BOOL, 0, WL_IN_JSON, get_course_bound},
    {"course_unit2", NULL, NULL, WL_CELL_TEXT, 0, WL_IN_JSON, get_course_unit2},
    /* the ids of the top-level "errata" entries that concern the row's rung */
    {"errata", NULL, NULL, WL_CELL_TEXT, 0, WL_IN_JSON, get_errata},
    {"course", "course", NULL, WL_CELL_TEXT, 0, 0, get_course},
};
#define ROW_COLUMN_COUNT (sizeof row_columns / sizeof row_columns[0])

/* A table's view of the row: which columns, in which order, how wide
 * (negative: left-aligned and cut to that width; 0: the last, as it is). */
typedef struct view_column {
    const char *key;
    int width;
} view_column;

/* Bandwidth-bound groups: GB/s, % of the ceiling and of the copy reference. */
static const view_column bandwidth_view[] = {
    {"rung", -18},           {"title", -36},      {"median_ms", 11},
    {"noise_pct", 7},        {"gbs", 10},         {"pct_of_ceiling", 7},
    {"pct_of_reference", 7}, {"step_speedup", 7}, {"cumulative_speedup", 8},
    {"course", 0},
};

/* Compute-bound groups (matrix multiply): GFLOP/s, % of the vendor baseline
 * and of the FP32 peak, and the bytes each rung moves by its own count. */
static const view_column compute_view[] = {
    {"rung", -18},
    {"title", -36},
    {"median_ms", 10},
    {"noise_pct", 6},
    {"gflops", 9},
    {"pct_of_vendor", 8},
    {"pct_of_fp32_peak", 6},
    {"step_speedup", 7},
    {"cumulative_speedup", 8},
    {"bytes", 8},
    {"course", 0},
};

#define VIEW_COUNT(view) (sizeof(view) / sizeof((view)[0]))

static const wl_column *view_column_of(const view_column *entry)
{
    return wl_column_find(row_columns, ROW_COLUMN_COUNT, entry->key);
}

/* ------------------------------------------------------------------------ */
/* Terminal table                                                           */

static void write_terminal_cell(FILE *out, const view_column *entry, const char *text, bool first)
{
    if (!first)
        fputs(entry->width == 0 ? "  " : " ", out);
    if (entry->width < 0)
        fprintf(out, "%-*.*s", -entry->width, -entry->width, text);
    else if (entry->width > 0)
        fprintf(out, "%*s", entry->width, text);
    else
        fputs(text, out);
}

/* Ladders with a bus bandwidth (all-reduce): a line under the row with
 * nccl-tests' algbw (the GB/s column) and busbw, and the ratio to the row's
 * vendor row. */
static void write_bus_bandwidth(const warplab_row *row, int rung_width, FILE *out)
{
    if (!(row->busbw_gbs > 0))
        return;
    fprintf(out, "%-*s   algbw %.1f GB/s, busbw %.1f GB/s", rung_width, "", row->gbs,
            row->busbw_gbs);
    if (row->pct_of_vendor > 0 && row->vendor[0] && strcmp(row->vendor, row->rung) != 0)
        fprintf(out, ", %.2fx %s", row->pct_of_vendor / 100.0, row->vendor);
    fputc('\n', out);
}

static void write_terminal_group(const warplab_report *report, size_t begin, size_t end,
                                 const view_column *shared_view, size_t count, FILE *out)
{
    /* The rung column is as wide as the group's longest id (18 at least),
     * so that every row's columns line up. */
    view_column view[16];
    if (count > sizeof view / sizeof view[0])
        count = sizeof view / sizeof view[0];
    memcpy(view, shared_view, count * sizeof view[0]);
    int rung_width = 18;
    for (size_t i = begin; i < end; i++)
        if ((int)strlen(report->rows[i].rung) > rung_width)
            rung_width = (int)strlen(report->rows[i].rung);
    view[0].width = -rung_width;
    for (size_t c = 0; c < count; c++)
        write_terminal_cell(out, &view[c], view_column_of(&view[c])->heading, c == 0);
    fputc('\n', out);
    for (size_t i = begin; i < end; i++) {
        const warplab_row *row = &report->rows[i];
        if (!row_timed(row)) {
            fprintf(out, "%-*s %-36.36s %s: %s\n", rung_width, row->rung, row->title,
                    row_state(row), row->note);
            continue;
        }
        for (size_t c = 0; c < count; c++) {
            char text[512];
            wl_column_display(view_column_of(&view[c]), row, text, sizeof text);
            write_terminal_cell(out, &view[c], text, c == 0);
        }
        fputc('\n', out);
        if (row->flags & (WARPLAB_ROW_FAILED | WARPLAB_ROW_UNSAFE))
            fprintf(out, "%-*s   %s: %s\n", rung_width, "", row_state(row), row->note);
        write_bus_bandwidth(row, rung_width, out);
    }
}

/* ------------------------------------------------------------------------ */
/* Conclusions: what the rows show about the course's open questions        */

typedef struct conclusion_sink {
    FILE *out;
    warplab_format format;
    size_t count;
} conclusion_sink;

static void write_conclusion(void *user, const char *ladder, const char *text)
{
    conclusion_sink *sink = user;
    switch (sink->format) {
    case WARPLAB_FORMAT_MARKDOWN:
        fputs(sink->count ? "\n- " : "\n**Conclusions, computed from the rows above**\n\n- ",
              sink->out);
        wl_write_markdown_text(sink->out, text);
        break;
    case WARPLAB_FORMAT_JSON:
        fputs(sink->count ? ",\n    {" : "\n    {", sink->out);
        wl_write_json_field(sink->out, "ladder", ladder, true);
        wl_write_json_field(sink->out, "text", text, false);
        fputs("}", sink->out);
        break;
    default:
        char first[48];
        wl_format(first, sizeof first, "%s: ", ladder);
        if (!sink->count)
            fputs("\nconclusions (computed from the rows):\n", sink->out);
        wl_write_wrapped(sink->out, first, text, 100, 2);
        break;
    }
    sink->count++;
}

static size_t write_conclusions(const warplab_report *report, warplab_format format, FILE *out)
{
    conclusion_sink sink = {out, format, 0};
    wl_ladder_conclusions(report, write_conclusion, &sink);
    if (format == WARPLAB_FORMAT_MARKDOWN && sink.count)
        fputc('\n', out);
    return sink.count;
}

static void write_table(const warplab_report *report, vendor_pair *pairs, FILE *out)
{
    for (size_t begin = 0; begin < report->row_count;) {
        size_t end = group_end(report, begin);
        char heading[512];
        group_heading(report, &report->rows[begin], heading, sizeof heading);
        fprintf(out, "\n%s\n", heading);
        if (group_is_compute(report, begin, end))
            write_terminal_group(report, begin, end, compute_view, VIEW_COUNT(compute_view), out);
        else
            write_terminal_group(report, begin, end, bandwidth_view, VIEW_COUNT(bandwidth_view),
                                 out);
        begin = end;
    }
    if (report->row_count) {
        fprintf(out, "\ntime: median of the timed runs; noise: their relative standard deviation; "
                     "GB = 1e9 bytes.\n");
        if (!all_compute_groups(report) && report->ceiling_gbs > 0)
            fprintf(out, "%%peak: of %.0f GB/s, %s.\n", report->ceiling_gbs,
                    report->ceiling_source);
        else if (!all_compute_groups(report))
            fprintf(out, "%%peak: of the copy reference measured in the same run.\n");
        if (any_reference(report))
            fprintf(out, "%%copy: of the ladder's copy reference (same bytes, no reordering) for "
                         "the same problem, in the same run.\n");
        if (any_compute_group(report))
            compute_footer(report, out);
        fprintf(out, "caches %s between timed runs; seed %llu; %s.\n",
                report->l2_flushed ? "flushed" : "not flushed", report->seed, report->date);
    }
    write_conclusions(report, WARPLAB_FORMAT_TABLE, out);
    write_pairs(report, pairs, out);
}

/* ------------------------------------------------------------------------ */
/* Markdown                                                                 */

static void write_markdown_group(const warplab_report *report, size_t begin, size_t end,
                                 const view_column *view, size_t count, FILE *out)
{
    fputs("\n\n|", out);
    for (size_t c = 0; c < count; c++) {
        const wl_column *column = view_column_of(&view[c]);
        fprintf(out, " %s |", column->markdown ? column->markdown : column->heading);
    }
    fputs("\n|", out);
    for (size_t c = 0; c < count; c++)
        fputs(view_column_of(&view[c])->format == WL_CELL_TEXT ? "---|" : "---:|", out);
    fputc('\n', out);
    for (size_t i = begin; i < end; i++) {
        const warplab_row *row = &report->rows[i];
        fprintf(out, "| `%s` | ", row->rung);
        wl_write_markdown_text(out, row->title);
        if (!row_timed(row)) {
            fprintf(out, " | %s: ", row_state(row));
            wl_write_markdown_text(out, row->note);
            for (size_t c = 3; c <= count; c++)
                fputs(" |", out);
            fputc('\n', out);
            continue;
        }
        fputs(strcmp(row_state(row), "ok") ? " (wrong) |" : " |", out);
        for (size_t c = 2; c < count; c++) {
            char text[512];
            wl_column_display(view_column_of(&view[c]), row, text, sizeof text);
            fputc(' ', out);
            wl_write_markdown_text(out, text);
            fputs(" |", out);
        }
        fputc('\n', out);
    }
}

static void write_markdown(const warplab_report *report, vendor_pair *pairs, FILE *out)
{
    for (size_t begin = 0; begin < report->row_count;) {
        size_t end = group_end(report, begin);
        char heading[512];
        group_heading(report, &report->rows[begin], heading, sizeof heading);
        fputs("\n#### ", out);
        wl_write_markdown_text(out, heading);
        if (group_is_compute(report, begin, end))
            write_markdown_group(report, begin, end, compute_view, VIEW_COUNT(compute_view), out);
        else
            write_markdown_group(report, begin, end, bandwidth_view, VIEW_COUNT(bandwidth_view),
                                 out);
        begin = end;
    }
    if (report->row_count)
        fprintf(out,
                "\nMedian of the timed runs; noise is their relative standard deviation; GB = "
                "1e9 bytes; peak: %s%s; caches %s between runs; %s.\n",
                report->ceiling_gbs > 0 ? "" : "the copy reference in the same run",
                report->ceiling_gbs > 0 ? report->ceiling_source : "",
                report->l2_flushed ? "flushed" : "not flushed", report->date);
    if (any_compute_group(report)) {
        fputc('\n', out);
        compute_footer(report, out);
    }
    write_conclusions(report, WARPLAB_FORMAT_MARKDOWN, out);
    const int pair_count = collect_pairs(report, pairs);
    for (int p = 0; p < pair_count; p++) {
        fprintf(out,
                "\n`%s` against `%s` (vendor time / our time): geometric mean %.3fx over %d "
                "problems; worst %.3fx at ",
                pairs[p].rung, pairs[p].vendor, pair_geomean(&pairs[p]), pairs[p].shapes,
                pairs[p].worst);
        wl_write_markdown_text(out, pairs[p].worst_problem);
        fputs(".\n", out);
    }
}

/* ------------------------------------------------------------------------ */
/* CSV and JSON                                                             */

static void write_csv(const warplab_report *report, FILE *out)
{
    wl_write_csv_header(out, row_columns, ROW_COLUMN_COUNT);
    for (size_t i = 0; i < report->row_count; i++)
        wl_write_csv_record(out, row_columns, ROW_COLUMN_COUNT, &report->rows[i]);
}

/* Whether an erratum concerns a row of the report (its ladder, and its rung
 * or the whole ladder). */
static bool erratum_in_report(const warplab_report *report, const warplab_erratum *erratum)
{
    for (size_t i = 0; i < report->row_count; i++) {
        const warplab_row *row = &report->rows[i];
        if (!strcmp(row->ladder, erratum->topic) &&
            (!erratum->rung[0] || !strcmp(row->rung, erratum->rung)))
            return true;
    }
    return false;
}

/* The course's errata that concern the report's rows, whole (the rows name
 * them by id). */
static void write_json_errata(const warplab_report *report, FILE *out)
{
    size_t written = 0;
    const warplab_erratum *e;
    for (size_t i = 0; (e = warplab_erratum_get(i)) != NULL; i++) {
        if (!erratum_in_report(report, e))
            continue;
        fputs(written++ ? ",\n    {" : "\n    {", out);
        wl_write_json_field(out, "id", e->id, true);
        wl_write_json_field(out, "ladder", e->topic, true);
        wl_write_json_field(out, "rung", e->rung, true);
        wl_write_json_field(out, "seed", e->seed, true);
        wl_write_json_field(out, "where", e->where, true);
        wl_write_json_field(out, "quote", e->quote, true);
        wl_write_json_field(out, "why", e->why, true);
        wl_write_json_field(out, "instead", e->instead, false);
        fputs("}", out);
    }
    fputs(written ? "\n  ]" : "]", out);
}

static void write_json(const warplab_report *report, vendor_pair *pairs, FILE *out)
{
    fputs("{\n  ", out);
    wl_write_json_field(out, "tool", "warplab", true);
    wl_write_json_field(out, "version", warplab_version(), true);
    wl_write_json_field(out, "device", report->device, true);
    fputs("\n  ", out);
    wl_write_json_field(out, "backend", report->backend, true);
    wl_write_json_field(out, "date", report->date, true);
    wl_write_json_number(out, "ceiling_gbs", report->ceiling_gbs, true);
    wl_write_json_field(out, "ceiling_source", report->ceiling_source, true);
    wl_write_json_number(out, "fp32_peak_gflops", report->fp32_peak_gflops, true);
    fputs("\n  ", out);
    /* The seed as a string: JSON readers hold numbers as doubles, which round
     * a 64-bit seed (and the run could not be reproduced from it). */
    fprintf(out,
            "\"caches_flushed\": %s, \"seed\": \"%llu\", \"incomplete\": %s, "
            "\"gb\": \"1e9 bytes\",\n  \"rows\": [",
            report->l2_flushed ? "true" : "false", report->seed,
            report->incomplete ? "true" : "false");
    for (size_t i = 0; i < report->row_count; i++) {
        fputs(i ? ",\n    {" : "\n    {", out);
        wl_write_json_members(out, row_columns, ROW_COLUMN_COUNT, &report->rows[i], "     ", 6);
        fputs("}", out);
    }
    fputs("\n  ],\n  \"vendor_pairs\": [", out);
    const int pair_count = collect_pairs(report, pairs);
    for (int p = 0; p < pair_count; p++) {
        fputs(p ? ",\n    {" : "\n    {", out);
        wl_write_json_field(out, "ladder", pairs[p].ladder, true);
        wl_write_json_field(out, "rung", pairs[p].rung, true);
        wl_write_json_field(out, "vendor", pairs[p].vendor, true);
        fprintf(out, "\"problems\": %d, ", pairs[p].shapes);
        wl_write_json_number(out, "geomean_ratio", pair_geomean(&pairs[p]), true);
        wl_write_json_number(out, "worst_ratio", pairs[p].worst, true);
        wl_write_json_field(out, "worst_problem", pairs[p].worst_problem, false);
        fputs("}", out);
    }
    fputs(pair_count ? "\n  ],\n  \"errata\": [" : "],\n  \"errata\": [", out);
    write_json_errata(report, out);
    fputs(",\n  \"conclusions\": [", out);
    fputs(write_conclusions(report, WARPLAB_FORMAT_JSON, out) ? "\n  ]" : "]", out);
    fputs("\n}\n", out);
}

warplab_status warplab_report_write(const warplab_report *report, warplab_format format,
                                    FILE *stream)
{
    if (!report || !stream)
        return WARPLAB_ERROR_INVALID_ARGUMENT;
    if ((int)format < (int)WARPLAB_FORMAT_TABLE || (int)format > (int)WARPLAB_FORMAT_JSON)
        return WARPLAB_ERROR_INVALID_ARGUMENT;
    /* Every vendor pair the report holds: at most one a row. */
    vendor_pair *pairs = calloc(report->row_count ? report->row_count : 1, sizeof *pairs);
    if (!pairs)
        return WARPLAB_ERROR_HOST_OUT_OF_MEMORY;
    switch (format) {
    case WARPLAB_FORMAT_TABLE: write_table(report, pairs, stream); break;
    case WARPLAB_FORMAT_MARKDOWN: write_markdown(report, pairs, stream); break;
    case WARPLAB_FORMAT_CSV: write_csv(report, stream); break;
    case WARPLAB_FORMAT_JSON: write_json(report, pairs, stream); break;
    }
    free(pairs);
    return ferror(stream) ? WARPLAB_ERROR_IO : WARPLAB_OK;
}

/* ------------------------------------------------------------------------ */
/* SVG: one bar chart per group, a bar per timed rung, the ceiling dashed.   */

/* The kinds of bar a chart draws, in legend order. */
static const struct {
    unsigned flag; /* 0: the ladder's own rungs */
    const char *color, *text;
} bar_kinds[] = {
    {0, "#2e86c1", "rung"},
    {WARPLAB_ROW_HOST, "#e67e22", "CPU (host)"},
    {WARPLAB_ROW_TRANSFER, "#9b59b6", "host-device transfer"},
    {WARPLAB_ROW_VENDOR, "#5d6d7e", "vendor library"},
    {WARPLAB_ROW_REFERENCE, "#aab7b8", "copy reference"},
    {WARPLAB_ROW_FAILED, "#c0392b", "failed check"},
};

static int bar_kind(const warplab_row *row)
{
    const unsigned order[] = {WARPLAB_ROW_FAILED, WARPLAB_ROW_VENDOR, WARPLAB_ROW_REFERENCE,
                              WARPLAB_ROW_HOST, WARPLAB_ROW_TRANSFER};
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++)
        if (row->flags & order[i])
            for (int k = 1; k < (int)(sizeof bar_kinds / sizeof bar_kinds[0]); k++)
                if (bar_kinds[k].flag == order[i])
                    return k;
    return 0;
}

warplab_status warplab_report_write_svg(const warplab_report *report, FILE *out)
{
    if (!report || !out)
        return WARPLAB_ERROR_INVALID_ARGUMENT;
    const double width = 900, bar_height = 22, left = 260, right = 110, top = 48, gap = 40,
                 axis_room = 62; /* the value axis, its label and the legend */
    /* Height: every group's heading plus its bars. */
    double height = 20;
    for (size_t begin = 0; begin < report->row_count;) {
        size_t end = group_end(report, begin);
        height += top + bar_height * (double)(end - begin) + axis_room + gap;
        begin = end;
    }
    fprintf(out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
            "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"12\">\n"
            "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
            width, height, width, height);
    double y = 20;
    for (size_t begin = 0; begin < report->row_count;) {
        size_t end = group_end(report, begin);
        bool compute = group_is_compute(report, begin, end);
        double ceiling = compute ? 0.0 : report->ceiling_gbs, largest = ceiling;
        for (size_t i = begin; i < end; i++) {
            const warplab_row *row = &report->rows[i];
            double value = compute ? row->gflops : row->gbs;
            if (row_timed(row) && value > largest)
                largest = value;
            if (!compute && ceiling <= 0 && (row->flags & WARPLAB_ROW_REFERENCE) && row_timed(row))
                ceiling = row->gbs;
        }
        if (largest <= 0)
            largest = 1;
        char heading[512];
        group_heading(report, &report->rows[begin], heading, sizeof heading);
        fprintf(out, "<text x=\"10\" y=\"%.0f\" font-size=\"14\" font-weight=\"bold\">", y + 16);
        wl_write_svg_text(out, heading);
        fprintf(out, "</text>\n<text x=\"10\" y=\"%.0f\" fill=\"#555\">%s per rung%s</text>\n",
                y + 34, compute ? "GFLOP/s" : "GB/s",
                ceiling > 0 ? "; dashed line: the bandwidth ceiling" : "");
        wl_bar *bars = calloc(end - begin, sizeof *bars);
        if (!bars)
            return WARPLAB_ERROR_HOST_OUT_OF_MEMORY;
        /* The legend: the kinds of bar drawn here, in their order. */
        bool drawn[sizeof bar_kinds / sizeof bar_kinds[0]] = {false};
        for (size_t i = begin; i < end; i++) {
            const warplab_row *row = &report->rows[i];
            wl_bar *bar = &bars[i - begin];
            bar->label = row->rung;
            if (!row_timed(row)) {
                bar->state = row_state(row);
                continue;
            }
            bar->value = compute ? row->gflops : row->gbs;
            bar->color = bar_kinds[bar_kind(row)].color;
            wl_format(bar->value_text, sizeof bar->value_text, "%.1f", bar->value);
            drawn[bar_kind(row)] = true;
        }
        wl_legend_entry legend[sizeof bar_kinds / sizeof bar_kinds[0]];
        size_t legend_count = 0;
        for (size_t k = 0; k < sizeof bar_kinds / sizeof bar_kinds[0]; k++)
            if (drawn[k])
                legend[legend_count++] =
                    (wl_legend_entry){.color = bar_kinds[k].color, .text = bar_kinds[k].text};
        const wl_bar_chart chart = {
            .left = left,
            .plot_width = width - left - right,
            .bar_height = bar_height,
            .top = y + top,
            .grid_above = 2,
            .text_y_digits = 0,
            .bars = bars,
            .bar_count = end - begin,
            .largest = largest,
            .marker = ceiling,
            .marker_unit = "GB/s",
            .marker_legend = "bandwidth ceiling",
            .axis_label = compute ? "GFLOP/s (flops / median time)"
                                  : "GB/s (bytes moved / median time, 1e9 B/s)",
            .legend = legend,
            .legend_count = legend_count,
        };
        double axis_y = wl_svg_bar_chart(out, &chart);
        free(bars);
        y = axis_y + axis_room + gap;
        begin = end;
    }
    fputs("</svg>\n", out);
    return ferror(out) ? WARPLAB_ERROR_IO : WARPLAB_OK;
}

/* ------------------------------------------------------------------------ */
/* Sweeps (warplab bench --sweep): read as a probe of one section, x = n,
 * one series per rung, so that one table and one line chart serve both.     */

/* "2^20" for powers of two, the number otherwise. */
static void format_n(char *out, size_t len, double n)
{
    int exponent = 0;
    if (n >= 1 && frexp(n, &exponent) == 0.5)
        wl_format(out, len, "2^%d", exponent - 1);
    else
        wl_format(out, len, "%.0f", n);
}

/* What the sweep shows, from its figures: each rung's best GB/s and where,
 * and its GB/s at the largest n it ran; the ceiling. */
static void sweep_conclusion(const warplab_report *report, const warplab_probe_point *points,
                             char *text, size_t len)
{
    text[0] = '\0';
    for (size_t i = 0; i < report->row_count; i++) {
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = strcmp(report->rows[j].rung, report->rows[i].rung) == 0;
        if (seen)
            continue;
        long best = -1, largest = -1;
        for (size_t j = i; j < report->row_count; j++) {
            if (strcmp(report->rows[j].rung, report->rows[i].rung) != 0 || points[j].value <= 0)
                continue;
            if (best < 0 || points[j].value > points[best].value)
                best = (long)j;
            if (largest < 0 || points[j].x > points[largest].x)
                largest = (long)j;
        }
        if (best < 0)
            continue;
        char at[32], end[32];
        format_n(at, sizeof at, points[best].x);
        format_n(end, sizeof end, points[largest].x);
        wl_append(text, len, "%s%s: best %.0f GB/s at n = %s, %.0f GB/s at n = %s",
                  text[0] ? "; " : "", report->rows[i].rung, points[best].value, at,
                  points[largest].value, end);
    }
    if (!text[0])
        wl_copy_string(text, len, "nothing was measured");
    if (report->ceiling_gbs > 0)
        wl_append(text, len, "; ceiling %.0f GB/s, %s", report->ceiling_gbs,
                  report->ceiling_source);
}

/* The sweep as a probe result over the report's rows; free points after. */
static warplab_status sweep_as_probe(const warplab_report *report, warplab_probe_result *result)
{
    memset(result, 0, sizeof *result);
    result->points = calloc(report->row_count ? report->row_count : 1, sizeof *result->points);
    if (!result->points)
        return WARPLAB_ERROR_HOST_OUT_OF_MEMORY;
    result->report = (warplab_report *)report; /* only read */
    const char *ladder = report->row_count ? report->rows[0].ladder : "";
    wl_copy_string(result->probe, sizeof result->probe, ladder);
    wl_copy_string(result->title, sizeof result->title, "sweep of n, every rung at every size");
    wl_format(result->setup, sizeof result->setup,
              "GB/s = input bytes / median time; a point per size that fits");
    warplab_probe_section *section = &result->sections[0];
    result->section_count = 1;
    wl_copy_string(section->name, sizeof section->name, "sweep");
    wl_format(section->title, sizeof section->title, "%s: GB/s against n", ladder);
    wl_copy_string(section->x_label, sizeof section->x_label, "n (elements)");
    wl_copy_string(section->unit, sizeof section->unit, "GB/s");
    section->log_x = 1;
    section->x_powers = 1;
    section->row_count = report->row_count;
    for (size_t i = 0; i < report->row_count; i++) {
        const warplab_row *row = &report->rows[i];
        warplab_probe_point *point = &result->points[i];
        point->x = row->size;
        if (row->flags & (WARPLAB_ROW_SKIPPED | WARPLAB_ROW_FAILED) || !row_timed(row))
            continue;
        point->value = row->gbs;
        /* The slowest and the fastest run, as the probes' points have them. */
        point->low = row->max_ms > 0 ? row->gbs * row->median_ms / row->max_ms : 0;
        point->high = row->min_ms > 0 ? row->gbs * row->median_ms / row->min_ms : 0;
    }
    sweep_conclusion(report, result->points, result->conclusion, sizeof result->conclusion);
    return WARPLAB_OK;
}

static warplab_status write_sweep(const warplab_report *report, FILE *out, bool svg)
{
    if (!report || !out)
        return WARPLAB_ERROR_INVALID_ARGUMENT;
    warplab_probe_result result;
    warplab_status status = sweep_as_probe(report, &result);
    if (status != WARPLAB_OK)
        return status;
    const warplab_probe_result *one = &result;
    status = svg ? warplab_probe_write_svg(one, out)
                 : warplab_probe_write(&one, 1, WARPLAB_FORMAT_TABLE, out);
    free(result.points);
    return status;
}

warplab_status warplab_report_write_sweep(const warplab_report *report, FILE *out)
{
    return write_sweep(report, out, false);
}

warplab_status warplab_report_write_sweep_svg(const warplab_report *report, FILE *out)
{
    return write_sweep(report, out, true);
}
