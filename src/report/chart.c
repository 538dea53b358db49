/* The pieces every report writer shares, ladders and probes alike: the SVG
 * chart parts (series colours, a value axis, legend entries and one bar
 * chart fed a neutral list of bars). The text escapers for each format, the
 * JSON field writers and the time format are core's (src/core/text.c): the
 * lab's JSON writes with them too. */
#include "report/report.h"

#include <math.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* SVG chart parts                                                          */

/* Colours for count series, none repeated within a chart: a ten-colour
 * qualitative palette up to ten, evenly spaced hues (two lightnesses) past
 * that. */
void wl_series_color(int index, int count, char *out, size_t len)
{
    static const char *const palette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                          "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
    const int size = (int)(sizeof palette / sizeof palette[0]);
    if (count <= size && index >= 0 && index < size) {
        wl_copy_string(out, len, palette[index]);
        return;
    }
    double hue = 360.0 * (double)index / (double)(count > 0 ? count : 1);
    double light = index % 2 ? 0.35 : 0.55, saturation = 0.75;
    double chroma = (1.0 - fabs(2.0 * light - 1.0)) * saturation;
    double h = hue / 60.0, x = chroma * (1.0 - fabs(fmod(h, 2.0) - 1.0)), m = light - chroma / 2;
    double rgb[3] = {0, 0, 0};
    int sector = (int)h % 6;
    const int order[6][3] = {{0, 1, 2}, {1, 0, 2}, {1, 2, 0}, {2, 1, 0}, {2, 0, 1}, {0, 2, 1}};
    rgb[order[sector][0]] = chroma;
    rgb[order[sector][1]] = x;
    wl_format(out, len, "#%02x%02x%02x", (int)lround(255 * (rgb[0] + m)),
              (int)lround(255 * (rgb[1] + m)), (int)lround(255 * (rgb[2] + m)));
}

double wl_chart_round_step(double span, int target)
{
    double raw = span / target, magnitude = pow(10.0, floor(log10(raw)));
    double unit = raw / magnitude;
    return magnitude * (unit <= 1 ? 1 : unit <= 2 ? 2 : unit <= 5 ? 5 : 10);
}

void wl_svg_value_axis(FILE *out, double x0, double width, double y, double top, double largest,
                       const char *label)
{
    fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>\n", x0, y,
            x0 + width, y);
    double step = wl_chart_round_step(largest > 0 ? largest : 1, 5);
    for (double v = 0; v <= largest * (1 + 1e-9); v += step) {
        double x = x0 + width * v / largest;
        fprintf(out,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n"
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>\n"
                "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" fill=\"#333\">%g</text>\n",
                x, top, x, y, x, y, x, y + 4, x, y + 16, v);
    }
    fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", x0 + width / 2, y + 32);
    wl_write_svg_text(out, label);
    fputs("</text>\n", out);
}

double wl_svg_legend_entry(FILE *out, double x, double y, const char *color, const char *text)
{
    fprintf(out,
            "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"10\" fill=\"%s\"/>\n"
            "<text x=\"%.1f\" y=\"%.1f\">",
            x, y - 9, color, x + 18, y);
    wl_write_svg_text(out, text);
    fputs("</text>\n", out);
    return x + 18 + 7.0 * (double)strlen(text) + 16;
}

double wl_svg_bar_chart(FILE *out, const wl_bar_chart *chart)
{
    const double left = chart->left, plot = chart->plot_width, bar = chart->bar_height;
    const int digits = chart->text_y_digits;
    double largest = chart->largest > 0 ? chart->largest : 1;
    for (size_t i = 0; i < chart->bar_count; i++) {
        const wl_bar *b = &chart->bars[i];
        double y = chart->top + bar * (double)i;
        fprintf(out, "<text x=\"%.0f\" y=\"%.*f\" text-anchor=\"end\">", left - 8, digits,
                y + bar * 0.7);
        wl_write_svg_text(out, b->label);
        fputs("</text>\n", out);
        if (b->state) {
            fprintf(out, "<text x=\"%.0f\" y=\"%.*f\" fill=\"#999\">%s</text>\n", left + 4, digits,
                    y + bar * 0.7, b->state);
            continue;
        }
        double w = plot * b->value / largest;
        fprintf(out,
                "<rect x=\"%.0f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>\n"
                "<text x=\"%.1f\" y=\"%.*f\">",
                left, y + 3, w, bar - 6, b->color, left + w + 4, digits, y + bar * 0.7);
        wl_write_svg_text(out, b->value_text);
        fputs("</text>\n", out);
    }
    const double axis_y = chart->top + bar * (double)chart->bar_count;
    if (chart->marker > 0) {
        double x = left + plot * chart->marker / largest;
        fprintf(out,
                "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"#c0392b\" "
                "stroke-dasharray=\"5,4\"/>\n<text x=\"%.1f\" y=\"%.0f\" fill=\"#c0392b\" "
                "text-anchor=\"middle\">%.0f %s</text>\n",
                x, chart->top - 4, x, axis_y, x, chart->top - 8, chart->marker, chart->marker_unit);
    }
    wl_svg_value_axis(out, left, plot, axis_y, chart->top - chart->grid_above, largest,
                      chart->axis_label);
    double lx = left;
    for (size_t k = 0; k < chart->legend_count; k++) {
        const wl_legend_entry *entry = &chart->legend[k];
        double next = wl_svg_legend_entry(out, lx, axis_y + 54, entry->color, entry->text);
        lx = entry->width > 0 ? lx + entry->width : next;
    }
    if (chart->marker > 0 && chart->marker_legend)
        fprintf(out,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#c0392b\" "
                "stroke-dasharray=\"5,4\"/>\n<text x=\"%.1f\" y=\"%.1f\">",
                lx, axis_y + 50, lx + 18, axis_y + 50, lx + 24, axis_y + 54);
    if (chart->marker > 0 && chart->marker_legend) {
        wl_write_svg_text(out, chart->marker_legend);
        fputs("</text>\n", out);
    }
    return axis_y;
}

/* ------------------------------------------------------------------------ */
/* Columns: one table per record kind, every format written from it          */

const wl_column *wl_column_find(const wl_column *columns, size_t count, const char *key)
{
    for (size_t i = 0; i < count; i++)
        if (strcmp(columns[i].key, key) == 0)
            return &columns[i];
    return NULL;
}

/* Bytes in decimal units: "17.2 GB", "550 GB", "1.10 TB". */
static void format_decimal_bytes(char *out, size_t len, double bytes)
{
    static const char *const units[] = {"B", "kB", "MB", "GB", "TB", "PB"};
    int unit = 0;
    while (bytes >= 1000.0 && unit < 5) {
        bytes /= 1000.0;
        unit++;
    }
    const int decimals = bytes >= 100.0 || unit == 0 ? 0 : (bytes >= 10.0 ? 1 : 2);
    wl_format(out, len, "%.*f %s", decimals, bytes, units[unit]);
}

void wl_column_display(const wl_column *column, const void *record, char *out, size_t len)
{
    char scratch[512] = "";
    const wl_cell cell = column->get(record, scratch, sizeof scratch);
    if (cell.text) {
        wl_copy_string(out, len, cell.text);
        return;
    }
    const double x = cell.number;
    /* The optional figures show "-" where there is none. */
    const bool optional = column->format == WL_CELL_PERCENT || column->format == WL_CELL_SPEEDUP ||
                          column->format == WL_CELL_BYTES;
    if (optional && !(x > 0 && isfinite(x))) {
        wl_copy_string(out, len, "-");
        return;
    }
    switch (column->format) {
    case WL_CELL_TEXT:
    case WL_CELL_NUMBER: wl_format(out, len, "%.4g", x); break;
    case WL_CELL_INTEGER: wl_format(out, len, "%.0f", x); break;
    case WL_CELL_BOOL: wl_copy_string(out, len, x != 0 ? "yes" : "no"); break;
    case WL_CELL_TIME: wl_format_time(out, len, x); break;
    case WL_CELL_RATE: wl_format(out, len, "%.1f", x); break;
    case WL_CELL_NOISE:
    case WL_CELL_PERCENT: wl_format(out, len, "%.1f%%", x); break;
    case WL_CELL_SPEEDUP: wl_format(out, len, "%.2fx", x); break;
    case WL_CELL_BYTES: format_decimal_bytes(out, len, x); break;
    }
}

/* CSV digits when the column names none: exact for counts of bytes and flops,
 * enough for a timer's resolution, four for percentages and factors. */
static int csv_digits(const wl_column *column)
{
    if (column->csv_digits > 0)
        return column->csv_digits;
    switch (column->format) {
    case WL_CELL_TIME: return 9;
    case WL_CELL_BYTES: return 17;
    case WL_CELL_RATE: return 6;
    default: return 4;
    }
}

void wl_write_csv_header(FILE *out, const wl_column *columns, size_t count)
{
    bool first = true;
    for (size_t i = 0; i < count; i++) {
        if (!(columns[i].in & WL_IN_CSV))
            continue;
        fprintf(out, "%s%s", first ? "" : ",", columns[i].key);
        first = false;
    }
    fputc('\n', out);
}

void wl_write_csv_record(FILE *out, const wl_column *columns, size_t count, const void *record)
{
    bool first = true;
    for (size_t i = 0; i < count; i++) {
        const wl_column *column = &columns[i];
        if (!(column->in & WL_IN_CSV))
            continue;
        if (!first)
            fputc(',', out);
        first = false;
        char scratch[512] = "";
        const wl_cell cell = column->get(record, scratch, sizeof scratch);
        if (cell.text)
            wl_write_csv_text(out, cell.text);
        else if (!isfinite(cell.number))
            fputs("-1", out); /* CSV has no NaN: -1 where no figure exists */
        else if (column->format == WL_CELL_INTEGER || column->format == WL_CELL_BOOL)
            fprintf(out, "%.0f", cell.number);
        else
            fprintf(out, "%.*g", csv_digits(column), cell.number);
    }
    fputc('\n', out);
}

void wl_write_json_members(FILE *out, const wl_column *columns, size_t count, const void *record,
                           const char *indent, int per_line)
{
    int written = 0;
    for (size_t i = 0; i < count; i++) {
        const wl_column *column = &columns[i];
        if (!(column->in & (WL_IN_JSON | WL_IN_JSON_IF_SET)))
            continue;
        char scratch[512] = "";
        const wl_cell cell = column->get(record, scratch, sizeof scratch);
        const bool set = cell.text ? cell.text[0] != '\0' : cell.number > 0;
        if (!(column->in & WL_IN_JSON) && !set)
            continue;
        if (written)
            fputs(per_line > 0 && written % per_line == 0 ? ",\n" : ", ", out);
        if (written && per_line > 0 && written % per_line == 0)
            fputs(indent, out);
        written++;
        if (cell.text)
            wl_write_json_field(out, column->key, cell.text, false);
        else if (column->format == WL_CELL_BOOL)
            fprintf(out, "\"%s\": %s", column->key, cell.number != 0 ? "true" : "false");
        else if (column->format == WL_CELL_INTEGER && isfinite(cell.number))
            fprintf(out, "\"%s\": %.0f", column->key, cell.number);
        else
            wl_write_json_number(out, column->key, cell.number, false);
    }
}
