/* What the report writers share (src/report/chart.c): the chart pieces and
 * the column tables every format writes from (the text escaping per format
 * is in internal.h: the lab writes JSON too). */
#ifndef WARPLAB_REPORT_H
#define WARPLAB_REPORT_H

#include "internal.h"

#include "warplab_lab.h"
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Chart pieces (src/report/chart.c): the colour of series index of count (no colour
 * repeats within a chart); a step of 1, 2 or 5 x 10^k that cuts span into
 * about target parts; a horizontal value axis from 0 to largest along
 * [x0, x0 + width] at y, with grid lines up to top, ticks at round steps and
 * label under it; a legend entry (a swatch and its text) at (x, y) that
 * returns the x after it. */
void wl_series_color(int index, int count, char *out, size_t len);
double wl_chart_round_step(double span, int target);
void wl_svg_value_axis(FILE *out, double x0, double width, double y, double top, double largest,
                       const char *label);
double wl_svg_legend_entry(FILE *out, double x, double y, const char *color, const char *text);

/* One bar chart, for the ladder report and the probe comparisons: a bar per
 * entry (or its state in grey where it has no figure), an optional dashed
 * marker (a ceiling), the value axis and a legend under it. */
typedef struct wl_bar {
    const char *label;    /* left of the bar */
    const char *state;    /* non-NULL: no bar, this text instead */
    double value;         /* the bar's length against the chart's largest */
    const char *color;    /* the bar's fill */
    char value_text[160]; /* right of the bar */
} wl_bar;

typedef struct wl_legend_entry {
    const char *color, *text;
    double width; /* the room it takes; 0: from its text */
} wl_legend_entry;

typedef struct wl_bar_chart {
    double left, plot_width, bar_height;
    double top;        /* of the first bar */
    double grid_above; /* the axis's grid lines start this far above top */
    int text_y_digits; /* decimals of the labels' y coordinates */
    const wl_bar *bars;
    size_t bar_count;
    double largest;            /* the axis's end */
    double marker;             /* > 0: a dashed line at this value ... */
    const char *marker_unit;   /* ... labelled "value unit" */
    const char *marker_legend; /* and this legend entry after the others */
    const char *axis_label;
    const wl_legend_entry *legend;
    size_t legend_count;
} wl_bar_chart;

/* Draws the chart; returns the y of its value axis (the legend is 54 below). */
double wl_svg_bar_chart(FILE *out, const wl_bar_chart *chart);

/* A report's columns, as one table that every format writes from (in the
 * spirit of nvbench's summaries): a column is its key (the CSV header and the
 * JSON key), its heading in the terminal and Markdown tables, a format hint,
 * the formats it goes into, and a getter that reads its value from a record
 * (a warplab_row for ladders, a probe point for probes). A writer walks the
 * table, or a view of it (a list of keys), instead of listing the fields. */
typedef enum wl_cell_format {
    WL_CELL_TEXT,    /* as it is */
    WL_CELL_INTEGER, /* a count: "%.0f" */
    WL_CELL_BOOL,    /* true/false in JSON, 1/0 in CSV */
    WL_CELL_NUMBER,  /* "%.4g" in tables */
    WL_CELL_TIME,    /* milliseconds, shown "1.234 ms" or "56.78 us" */
    WL_CELL_RATE,    /* GB/s or GFLOP/s, shown "%.1f" */
    WL_CELL_NOISE,   /* a percentage, shown "12.3%" */
    WL_CELL_PERCENT, /* a percentage, shown "12.3%", or "-" when not above 0 */
    WL_CELL_SPEEDUP, /* a factor, shown "1.23x", or "-" when not above 0 */
    WL_CELL_BYTES,   /* bytes, shown in decimal units ("17.2 GB"), or "-" */
} wl_cell_format;

/* Where a column goes: CSV, JSON, or JSON only where its number is > 0
 * (a field only some ladders fill). */
enum { WL_IN_CSV = 1u, WL_IN_JSON = 2u, WL_IN_JSON_IF_SET = 4u };

typedef struct wl_cell {
    const char *text; /* non-NULL: a text value */
    double number;    /* otherwise this number (not finite: null in JSON, -1 in CSV) */
} wl_cell;

typedef struct wl_column {
    const char *key;       /* CSV header, JSON key */
    const char *heading;   /* terminal table heading; NULL: in no table */
    const char *markdown;  /* Markdown heading; NULL: the terminal's */
    wl_cell_format format; /* how tables show it, and CSV's digits */
    int csv_digits;        /* significant digits in CSV (JSON: 10); 0 = the format's */
    unsigned in;           /* WL_IN_CSV | WL_IN_JSON */
    /* The value for a record; text may point into scratch (len bytes). */
    wl_cell (*get)(const void *record, char *scratch, size_t len);
} wl_column;

/* The column with this key, or NULL. */
const wl_column *wl_column_find(const wl_column *columns, size_t count, const char *key);
/* The cell as a table shows it (format hint applied). */
void wl_column_display(const wl_column *column, const void *record, char *out, size_t len);
/* CSV: the header line (keys of the WL_IN_CSV columns) and one record's line. */
void wl_write_csv_header(FILE *out, const wl_column *columns, size_t count);
void wl_write_csv_record(FILE *out, const wl_column *columns, size_t count, const void *record);
/* JSON: one record's members ("key": value, ...) of the WL_IN_JSON columns,
 * no braces, a line break and indent every per_line members. */
void wl_write_json_members(FILE *out, const wl_column *columns, size_t count, const void *record,
                           const char *indent, int per_line);

#ifdef __cplusplus
}
#endif

#endif
