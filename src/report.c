/* Report output: terminal table, Markdown, CSV and JSON. One group per
 * (ladder, problem): the course's tables are per size. */
#include "internal.h"

#include <math.h>
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

static bool row_timed(const warplab_row *row) { return row->runs > 0 && row->median_ms > 0; }

static void format_time(char *out, size_t len, double ms)
{
    if (ms >= 100.0)
        wl_format(out, len, "%.1f ms", ms);
    else if (ms >= 1.0)
        wl_format(out, len, "%.3f ms", ms);
    else
        wl_format(out, len, "%.2f us", ms * 1e3);
}

static void format_speedup(char *out, size_t len, double x)
{
    if (x > 0)
        wl_format(out, len, "%.2fx", x);
    else
        wl_copy_string(out, len, "-");
}

static void format_percent(char *out, size_t len, double pct)
{
    if (pct > 0)
        wl_format(out, len, "%.1f%%", pct);
    else
        wl_copy_string(out, len, "-");
}

static void format_course(char *out, size_t len, const warplab_row *row)
{
    if (row->course_value > 0)
        wl_format(out, len, "%.4g %s %s", row->course_value, row->course_unit,
                  row->course_device);
    else
        wl_copy_string(out, len, "");
}

static void group_heading(const warplab_report *report, const warplab_row *first, char *out,
                          size_t len)
{
    wl_format(out, len, "%s, %s, on %s (%s)", first->ladder, first->problem, report->device,
              report->backend);
}

/* ------------------------------------------------------------------------ */
/* Terminal table                                                           */

static void write_table(const warplab_report *report, FILE *out)
{
    for (size_t begin = 0; begin < report->row_count;) {
        size_t end = group_end(report, begin);
        bool compute = group_is_compute(report, begin, end);
        char heading[512];
        group_heading(report, &report->rows[begin], heading, sizeof heading);
        fprintf(out, "\n%s\n", heading);
        fprintf(out, "%-18s %-36s %11s %7s %10s %7s %7s %7s %8s  %s\n", "rung", "what", "time",
                "noise", compute ? "GFLOP/s" : "GB/s", "%peak", "%copy", "step", "total", "course");
        for (size_t i = begin; i < end; i++) {
            const warplab_row *row = &report->rows[i];
            char title[37];
            wl_copy_string(title, sizeof title, row->title);
            if (!row_timed(row)) {
                fprintf(out, "%-18s %-36s %s: %s\n", row->rung, title, row_state(row), row->note);
                continue;
            }
            char time[24], step[16], total[16], course[64], noise[16], rate[16], peak[16], copy[16];
            format_time(time, sizeof time, row->median_ms);
            format_speedup(step, sizeof step, row->step_speedup);
            format_speedup(total, sizeof total, row->cumulative_speedup);
            format_course(course, sizeof course, row);
            wl_format(noise, sizeof noise, "%.1f%%", row->noise_pct);
            wl_format(rate, sizeof rate, "%.1f", compute ? row->gflops : row->gbs);
            if (!compute && row->pct_of_ceiling > 0)
                wl_format(peak, sizeof peak, "%.1f%%", row->pct_of_ceiling);
            else
                wl_copy_string(peak, sizeof peak, "-");
            format_percent(copy, sizeof copy, compute ? 0.0 : row->pct_of_reference);
            fprintf(out, "%-18s %-36s %11s %7s %10s %7s %7s %7s %8s  %s\n", row->rung, title, time,
                    noise, rate, peak, copy, step, total, course);
            if (row->flags & (WARPLAB_ROW_FAILED | WARPLAB_ROW_UNSAFE))
                fprintf(out, "%-18s   %s: %s\n", "", row_state(row), row->note);
        }
        begin = end;
    }
    if (report->row_count) {
        fprintf(out,
                "\ntime: median of the timed runs; noise: their relative standard deviation; "
                "GB = 1e9 bytes.\n");
        if (report->ceiling_gbs > 0)
            fprintf(out, "%%peak: of %.0f GB/s, %s.\n", report->ceiling_gbs,
                    report->ceiling_source);
        else
            fprintf(out, "%%peak: of the copy reference measured in the same run.\n");
        fprintf(out, "%%copy: of the ladder's copy reference (same bytes, no reordering) for "
                     "the same problem, in the same run.\n");
        fprintf(out, "caches %s between timed runs; seed %llu; %s.\n",
                report->l2_flushed ? "flushed" : "not flushed", report->seed, report->date);
    }
}

/* ------------------------------------------------------------------------ */
/* Markdown                                                                 */

/* A table cell: pipes escaped, line breaks (which would end the row) as spaces. */
static void markdown_text(FILE *out, const char *text)
{
    for (; *text; text++) {
        if (*text == '|')
            fputs("\\|", out);
        else if (*text == '\n' || *text == '\r')
            fputc(' ', out);
        else
            fputc(*text, out);
    }
}

static void write_markdown(const warplab_report *report, FILE *out)
{
    for (size_t begin = 0; begin < report->row_count;) {
        size_t end = group_end(report, begin);
        bool compute = group_is_compute(report, begin, end);
        char heading[512];
        group_heading(report, &report->rows[begin], heading, sizeof heading);
        fputs("\n#### ", out);
        markdown_text(out, heading);
        fprintf(out,
                "\n\n| rung | what | time | noise | %s | %% of peak | %% of copy | step | total "
                "| course |\n",
                compute ? "GFLOP/s" : "GB/s");
        fputs("|---|---|---:|---:|---:|---:|---:|---:|---:|---|\n", out);
        for (size_t i = begin; i < end; i++) {
            const warplab_row *row = &report->rows[i];
            fprintf(out, "| `%s` | ", row->rung);
            markdown_text(out, row->title);
            if (!row_timed(row)) {
                fprintf(out, " | %s: ", row_state(row));
                markdown_text(out, row->note);
                fputs(" | | | | | | | |\n", out);
                continue;
            }
            char time[24], step[16], total[16], course[64], copy[16];
            format_time(time, sizeof time, row->median_ms);
            format_percent(copy, sizeof copy, compute ? 0.0 : row->pct_of_reference);
            format_speedup(step, sizeof step, row->step_speedup);
            format_speedup(total, sizeof total, row->cumulative_speedup);
            format_course(course, sizeof course, row);
            fprintf(out, "%s | %s | %.1f%% | %.1f | ", strcmp(row_state(row), "ok") ? " (wrong)" : "",
                    time, row->noise_pct, compute ? row->gflops : row->gbs);
            if (!compute && row->pct_of_ceiling > 0)
                fprintf(out, "%.1f%%", row->pct_of_ceiling);
            else
                fputs("-", out);
            fprintf(out, " | %s | %s | %s | %s |\n", copy, step, total, course);
        }
        begin = end;
    }
    if (report->row_count)
        fprintf(out,
                "\nMedian of the timed runs; noise is their relative standard deviation; GB = "
                "1e9 bytes; peak: %s%s; caches %s between runs; %s.\n",
                report->ceiling_gbs > 0 ? "" : "the copy reference in the same run",
                report->ceiling_gbs > 0 ? report->ceiling_source : "",
                report->l2_flushed ? "flushed" : "not flushed", report->date);
}

/* ------------------------------------------------------------------------ */
/* CSV                                                                      */

static void csv_text(FILE *out, const char *text)
{
    if (!strpbrk(text, ",\"\n\r")) {
        fputs(text, out);
        return;
    }
    fputc('"', out);
    for (; *text; text++) {
        if (*text == '"')
            fputc('"', out);
        fputc(*text, out);
    }
    fputc('"', out);
}

static void write_csv(const warplab_report *report, FILE *out)
{
    fputs("ladder,problem,size,rung,title,backend,kind,state,runs,median_ms,min_ms,max_ms,"
          "mean_ms,noise_pct,bytes,flops,gbs,gflops,pct_of_ceiling,step_speedup,"
          "cumulative_speedup,max_rel_error,course_value,course_unit,course_device,note,"
          "pct_of_reference\n",
          out);
    for (size_t i = 0; i < report->row_count; i++) {
        const warplab_row *row = &report->rows[i];
        const char *texts[] = {row->ladder, row->problem};
        for (int t = 0; t < 2; t++) {
            csv_text(out, texts[t]);
            fputc(',', out);
        }
        fprintf(out, "%.17g,", row->size);
        csv_text(out, row->rung);
        fputc(',', out);
        csv_text(out, row->title);
        fprintf(out, ",%s,%s,%s,%d,%.9g,%.9g,%.9g,%.9g,%.4g,%.17g,%.17g,%.6g,%.6g,%.4g,%.4g,%.4g,"
                     "%.4g,%.6g,",
                row->backend, row_kind(row), row_state(row), row->runs, row->median_ms,
                row->min_ms, row->max_ms, row->mean_ms, row->noise_pct, row->bytes, row->flops,
                row->gbs, row->gflops, row->pct_of_ceiling, row->step_speedup,
                row->cumulative_speedup, isfinite(row->max_rel_error) ? row->max_rel_error : -1.0,
                row->course_value);
        csv_text(out, row->course_unit);
        fputc(',', out);
        csv_text(out, row->course_device);
        fputc(',', out);
        csv_text(out, row->note);
        fprintf(out, ",%.4g\n", row->pct_of_reference);
    }
}

/* ------------------------------------------------------------------------ */
/* JSON                                                                     */

static void json_text(FILE *out, const char *text)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", out); break;
        case '\\': fputs("\\\\", out); break;
        case '\n': fputs("\\n", out); break;
        case '\t': fputs("\\t", out); break;
        case '\r': fputs("\\r", out); break;
        default:
            if (*p < 0x20)
                fprintf(out, "\\u%04x", *p);
            else
                fputc(*p, out);
        }
    }
    fputc('"', out);
}

/* JSON has no NaN or infinity: those become null. */
static void json_number(FILE *out, const char *key, double value, bool comma)
{
    fprintf(out, "\"%s\": ", key);
    if (isfinite(value))
        fprintf(out, "%.10g", value);
    else
        fputs("null", out);
    if (comma)
        fputs(", ", out);
}

static void json_field(FILE *out, const char *key, const char *value, bool comma)
{
    fprintf(out, "\"%s\": ", key);
    json_text(out, value);
    if (comma)
        fputs(", ", out);
}

static void write_json(const warplab_report *report, FILE *out)
{
    fputs("{\n  ", out);
    json_field(out, "tool", "warplab", true);
    json_field(out, "version", warplab_version(), true);
    json_field(out, "device", report->device, true);
    fputs("\n  ", out);
    json_field(out, "backend", report->backend, true);
    json_field(out, "date", report->date, true);
    json_number(out, "ceiling_gbs", report->ceiling_gbs, true);
    json_field(out, "ceiling_source", report->ceiling_source, true);
    fputs("\n  ", out);
    fprintf(out, "\"caches_flushed\": %s, \"seed\": %llu, \"gb\": \"1e9 bytes\",\n  \"rows\": [",
            report->l2_flushed ? "true" : "false", report->seed);
    for (size_t i = 0; i < report->row_count; i++) {
        const warplab_row *row = &report->rows[i];
        fputs(i ? ",\n    {" : "\n    {", out);
        json_field(out, "ladder", row->ladder, true);
        json_field(out, "rung", row->rung, true);
        json_field(out, "title", row->title, true);
        json_field(out, "backend", row->backend, true);
        fputs("\n     ", out);
        json_field(out, "problem", row->problem, true);
        json_number(out, "size", row->size, true);
        json_field(out, "kind", row_kind(row), true);
        json_field(out, "state", row_state(row), true);
        fprintf(out, "\"unsafe\": %s, ", (row->flags & WARPLAB_ROW_UNSAFE) ? "true" : "false");
        json_field(out, "status", warplab_status_string(row->status), true);
        fputs("\n     ", out);
        fprintf(out, "\"runs\": %d, ", row->runs);
        json_number(out, "median_ms", row->median_ms, true);
        json_number(out, "min_ms", row->min_ms, true);
        json_number(out, "max_ms", row->max_ms, true);
        json_number(out, "mean_ms", row->mean_ms, true);
        json_number(out, "noise_pct", row->noise_pct, true);
        fputs("\n     ", out);
        json_number(out, "bytes", row->bytes, true);
        json_number(out, "flops", row->flops, true);
        json_number(out, "gbs", row->gbs, true);
        json_number(out, "gflops", row->gflops, true);
        json_number(out, "pct_of_ceiling", row->pct_of_ceiling, true);
        json_number(out, "pct_of_reference", row->pct_of_reference, true);
        fputs("\n     ", out);
        json_number(out, "step_speedup", row->step_speedup, true);
        json_number(out, "cumulative_speedup", row->cumulative_speedup, true);
        json_number(out, "max_rel_error", row->max_rel_error, true);
        fputs("\n     ", out);
        json_number(out, "course_value", row->course_value, true);
        json_field(out, "course_unit", row->course_unit, true);
        json_field(out, "course_device", row->course_device, true);
        fputs("\n     ", out);
        json_field(out, "note", row->note, true);
        json_field(out, "lesson", row->lesson, false);
        fputs("}", out);
    }
    fputs("\n  ]\n}\n", out);
}

warplab_status warplab_report_write(const warplab_report *report, warplab_format format,
                                    FILE *stream)
{
    if (!report || !stream)
        return WARPLAB_ERROR_INVALID_ARGUMENT;
    switch (format) {
    case WARPLAB_FORMAT_TABLE: write_table(report, stream); break;
    case WARPLAB_FORMAT_MARKDOWN: write_markdown(report, stream); break;
    case WARPLAB_FORMAT_CSV: write_csv(report, stream); break;
    case WARPLAB_FORMAT_JSON: write_json(report, stream); break;
    default: return WARPLAB_ERROR_INVALID_ARGUMENT;
    }
    return ferror(stream) ? WARPLAB_ERROR_IO : WARPLAB_OK;
}

/* ------------------------------------------------------------------------ */
/* SVG: one bar chart per group, a bar per timed rung, the ceiling dashed.   */

static void svg_text(FILE *out, const char *text)
{
    for (; *text; text++) {
        switch (*text) {
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '&': fputs("&amp;", out); break;
        case '"': fputs("&quot;", out); break;
        default: fputc(*text, out);
        }
    }
}

warplab_status warplab_report_write_svg(const warplab_report *report, FILE *out)
{
    if (!report || !out)
        return WARPLAB_ERROR_INVALID_ARGUMENT;
    const double width = 900, bar_height = 22, left = 260, right = 110, top = 48, gap = 40;
    /* Height: every group's heading plus its bars. */
    double height = 20;
    for (size_t begin = 0; begin < report->row_count;) {
        size_t end = group_end(report, begin);
        height += top + bar_height * (double)(end - begin) + gap;
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
            if (!compute && ceiling <= 0 && (row->flags & WARPLAB_ROW_REFERENCE) &&
                row_timed(row))
                ceiling = row->gbs;
        }
        if (largest <= 0)
            largest = 1;
        char heading[512];
        group_heading(report, &report->rows[begin], heading, sizeof heading);
        fprintf(out, "<text x=\"10\" y=\"%.0f\" font-size=\"14\" font-weight=\"bold\">", y + 16);
        svg_text(out, heading);
        fprintf(out, "</text>\n<text x=\"10\" y=\"%.0f\" fill=\"#555\">%s per rung%s</text>\n",
                y + 34, compute ? "GFLOP/s" : "GB/s",
                ceiling > 0 ? "; dashed line: the bandwidth ceiling" : "");
        double plot = width - left - right, y0 = y + top;
        for (size_t i = begin; i < end; i++) {
            const warplab_row *row = &report->rows[i];
            double by = y0 + bar_height * (double)(i - begin);
            fprintf(out, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\">", left - 8,
                    by + bar_height * 0.7);
            svg_text(out, row->rung);
            fputs("</text>\n", out);
            if (!row_timed(row)) {
                fprintf(out, "<text x=\"%.0f\" y=\"%.0f\" fill=\"#999\">%s</text>\n", left + 4,
                        by + bar_height * 0.7, row_state(row));
                continue;
            }
            double value = compute ? row->gflops : row->gbs;
            const char *color = (row->flags & WARPLAB_ROW_FAILED)      ? "#c0392b"
                                : (row->flags & WARPLAB_ROW_VENDOR)    ? "#7f8c8d"
                                : (row->flags & WARPLAB_ROW_REFERENCE) ? "#95a5a6"
                                : (row->flags & WARPLAB_ROW_HOST)      ? "#e67e22"
                                : (row->flags & WARPLAB_ROW_TRANSFER)  ? "#9b59b6"
                                                                       : "#2e86c1";
            fprintf(out,
                    "<rect x=\"%.0f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>\n"
                    "<text x=\"%.1f\" y=\"%.0f\">%.1f</text>\n",
                    left, by + 3, plot * value / largest, bar_height - 6, color,
                    left + plot * value / largest + 4, by + bar_height * 0.7, value);
        }
        if (ceiling > 0) {
            double x = left + plot * ceiling / largest;
            fprintf(out,
                    "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"#c0392b\" "
                    "stroke-dasharray=\"5,4\"/>\n<text x=\"%.1f\" y=\"%.0f\" fill=\"#c0392b\" "
                    "text-anchor=\"middle\">%.0f GB/s</text>\n",
                    x, y0 - 4, x, y0 + bar_height * (double)(end - begin), x, y0 - 8, ceiling);
        }
        y = y0 + bar_height * (double)(end - begin) + gap;
        begin = end;
    }
    fputs("</svg>\n", out);
    return ferror(out) ? WARPLAB_ERROR_IO : WARPLAB_OK;
}

/* ------------------------------------------------------------------------ */
/* The escapers and the time format, for the probe writers (probe_report.c). */

void wl_write_json_text(FILE *out, const char *text) { json_text(out, text); }
void wl_write_json_number(FILE *out, const char *key, double value, bool comma)
{
    json_number(out, key, value, comma);
}
void wl_write_csv_text(FILE *out, const char *text) { csv_text(out, text); }
void wl_write_markdown_text(FILE *out, const char *text) { markdown_text(out, text); }
void wl_write_svg_text(FILE *out, const char *text) { svg_text(out, text); }
void wl_format_time(char *out, size_t len, double ms) { format_time(out, len, ms); }
