/* Report output: terminal table, Markdown, CSV and JSON. One group per
 * (ladder, problem): the course's tables are per size. */
#include "internal.h"

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

static void format_speedup(char *out, size_t len, double x)
{
    if (x > 0)
        wl_format(out, len, "%.2fx", x);
    else
        wl_copy_string(out, len, "-");
}

/* Bytes in decimal units: "17.2 GB", "550 GB", "1.10 TB". */
static void format_bytes(char *out, size_t len, double bytes)
{
    static const char *const units[] = {"B", "kB", "MB", "GB", "TB", "PB"};
    int unit = 0;
    while (bytes >= 1000.0 && unit < 5) {
        bytes /= 1000.0;
        unit++;
    }
    int decimals = bytes >= 100.0 || unit == 0 ? 0 : (bytes >= 10.0 ? 1 : 2);
    if (bytes <= 0)
        wl_copy_string(out, len, "-");
    else
        wl_format(out, len, "%.*f %s", decimals, bytes, units[unit]);
}

static void format_percent(char *out, size_t len, double pct)
{
    if (pct > 0)
        wl_format(out, len, "%.1f%%", pct);
    else
        wl_copy_string(out, len, "-");
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
        wl_format(out, len, "%.4g %s %s", row->course_value, row->course_unit, row->course_device);
    if (row->course_value2 > 0) {
        size_t used = strlen(out);
        wl_format(out + used, len - used, "%s%.4g %s %s", used ? "; " : "", row->course_value2,
                  row->course_unit, row->course_device2);
    }
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

#define MAX_PAIRS 16

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
            if (count == MAX_PAIRS)
                continue;
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
static void write_pairs(const warplab_report *report, FILE *out)
{
    vendor_pair pairs[MAX_PAIRS];
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
/* Terminal table                                                           */

/* The cells of a timed row in a compute-bound table. */
typedef struct compute_cells {
    char time[24], noise[16], rate[16], vendor[16], peak[16], step[16], total[16], moved[16],
        course[64];
} compute_cells;

static void make_compute_cells(const warplab_row *row, compute_cells *cells)
{
    wl_format_time(cells->time, sizeof cells->time, row->median_ms);
    wl_format(cells->noise, sizeof cells->noise, "%.1f%%", row->noise_pct);
    wl_format(cells->rate, sizeof cells->rate, "%.1f", row->gflops);
    format_percent(cells->vendor, sizeof cells->vendor, row->pct_of_vendor);
    format_percent(cells->peak, sizeof cells->peak, row->pct_of_fp32_peak);
    format_speedup(cells->step, sizeof cells->step, row->step_speedup);
    format_speedup(cells->total, sizeof cells->total, row->cumulative_speedup);
    format_bytes(cells->moved, sizeof cells->moved, row->bytes);
    format_course(cells->course, sizeof cells->course, row);
}

/* A compute-bound group (matrix multiply): GFLOP/s, % of the vendor baseline
 * and of the FP32 peak, and the bytes each rung moves by its own count. */
static void write_compute_table(const warplab_report *report, size_t begin, size_t end, FILE *out)
{
    fprintf(out, "%-18s %-36s %10s %6s %9s %8s %6s %7s %8s %8s  %s\n", "rung", "what", "time",
            "noise", "GFLOP/s", "%vendor", "%FP32", "step", "total", "moved", "course");
    for (size_t i = begin; i < end; i++) {
        const warplab_row *row = &report->rows[i];
        char title[37];
        wl_copy_string(title, sizeof title, row->title);
        if (!row_timed(row)) {
            fprintf(out, "%-18s %-36s %s: %s\n", row->rung, title, row_state(row), row->note);
            continue;
        }
        compute_cells c;
        make_compute_cells(row, &c);
        fprintf(out, "%-18s %-36s %10s %6s %9s %8s %6s %7s %8s %8s  %s\n", row->rung, title, c.time,
                c.noise, c.rate, c.vendor, c.peak, c.step, c.total, c.moved, c.course);
        if (row->flags & (WARPLAB_ROW_FAILED | WARPLAB_ROW_UNSAFE))
            fprintf(out, "%-18s   %s: %s\n", "", row_state(row), row->note);
    }
}

/* Ladders with a bus bandwidth (all-reduce): a line under the row with
 * nccl-tests' algbw (the GB/s column) and busbw, and the ratio to the row's
 * vendor row. */
static void write_bus_bandwidth(const warplab_row *row, FILE *out)
{
    if (!(row->busbw_gbs > 0))
        return;
    fprintf(out, "%-18s   algbw %.1f GB/s, busbw %.1f GB/s", "", row->gbs, row->busbw_gbs);
    if (row->pct_of_vendor > 0 && row->vendor[0] && strcmp(row->vendor, row->rung) != 0)
        fprintf(out, ", %.2fx %s", row->pct_of_vendor / 100.0, row->vendor);
    fputc('\n', out);
}

static void write_table(const warplab_report *report, FILE *out)
{
    for (size_t begin = 0; begin < report->row_count;) {
        size_t end = group_end(report, begin);
        bool compute = group_is_compute(report, begin, end);
        char heading[512];
        group_heading(report, &report->rows[begin], heading, sizeof heading);
        fprintf(out, "\n%s\n", heading);
        if (compute) {
            write_compute_table(report, begin, end, out);
            begin = end;
            continue;
        }
        fprintf(out, "%-18s %-36s %11s %7s %10s %7s %7s %7s %8s  %s\n", "rung", "what", "time",
                "noise", "GB/s", "%peak", "%copy", "step", "total", "course");
        for (size_t i = begin; i < end; i++) {
            const warplab_row *row = &report->rows[i];
            char title[37];
            wl_copy_string(title, sizeof title, row->title);
            if (!row_timed(row)) {
                fprintf(out, "%-18s %-36s %s: %s\n", row->rung, title, row_state(row), row->note);
                continue;
            }
            char time[24], step[16], total[16], course[96], noise[16], rate[16], peak[16], copy[16];
            wl_format_time(time, sizeof time, row->median_ms);
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
            write_bus_bandwidth(row, out);
        }
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
    write_pairs(report, out);
}

/* ------------------------------------------------------------------------ */
/* Markdown                                                                 */

static void write_compute_markdown(const warplab_report *report, size_t begin, size_t end,
                                   FILE *out)
{
    fputs("\n\n| rung | what | time | noise | GFLOP/s | % of vendor | % of FP32 peak | step | "
          "total | moved | course |\n",
          out);
    fputs("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n", out);
    for (size_t i = begin; i < end; i++) {
        const warplab_row *row = &report->rows[i];
        fprintf(out, "| `%s` | ", row->rung);
        wl_write_markdown_text(out, row->title);
        if (!row_timed(row)) {
            fprintf(out, " | %s: ", row_state(row));
            wl_write_markdown_text(out, row->note);
            fputs(" | | | | | | | | |\n", out);
            continue;
        }
        compute_cells c;
        make_compute_cells(row, &c);
        fprintf(out, "%s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
                strcmp(row_state(row), "ok") ? " (wrong)" : "", c.time, c.noise, c.rate, c.vendor,
                c.peak, c.step, c.total, c.moved, c.course);
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
        wl_write_markdown_text(out, heading);
        if (compute) {
            write_compute_markdown(report, begin, end, out);
            begin = end;
            continue;
        }
        fprintf(out,
                "\n\n| rung | what | time | noise | %s | %% of peak | %% of copy | step | total "
                "| course |\n",
                compute ? "GFLOP/s" : "GB/s");
        fputs("|---|---|---:|---:|---:|---:|---:|---:|---:|---|\n", out);
        for (size_t i = begin; i < end; i++) {
            const warplab_row *row = &report->rows[i];
            fprintf(out, "| `%s` | ", row->rung);
            wl_write_markdown_text(out, row->title);
            if (!row_timed(row)) {
                fprintf(out, " | %s: ", row_state(row));
                wl_write_markdown_text(out, row->note);
                fputs(" | | | | | | | |\n", out);
                continue;
            }
            char time[24], step[16], total[16], course[96], copy[16];
            wl_format_time(time, sizeof time, row->median_ms);
            format_percent(copy, sizeof copy, compute ? 0.0 : row->pct_of_reference);
            format_speedup(step, sizeof step, row->step_speedup);
            format_speedup(total, sizeof total, row->cumulative_speedup);
            format_course(course, sizeof course, row);
            fprintf(out, "%s | %s | %.1f%% | %.1f | ",
                    strcmp(row_state(row), "ok") ? " (wrong)" : "", time, row->noise_pct,
                    compute ? row->gflops : row->gbs);
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
    if (any_compute_group(report)) {
        fputc('\n', out);
        compute_footer(report, out);
    }
    vendor_pair pairs[MAX_PAIRS];
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
/* CSV                                                                      */

static void write_csv(const warplab_report *report, FILE *out)
{
    fputs("ladder,problem,size,rung,title,backend,kind,state,runs,median_ms,min_ms,max_ms,"
          "mean_ms,noise_pct,bytes,flops,gbs,gflops,pct_of_ceiling,step_speedup,"
          "cumulative_speedup,max_rel_error,course_value,course_unit,course_device,note,"
          "pct_of_reference,course_value2,course_device2,pct_of_vendor,pct_of_fp32_peak\n",
          out);
    for (size_t i = 0; i < report->row_count; i++) {
        const warplab_row *row = &report->rows[i];
        const char *texts[] = {row->ladder, row->problem};
        for (int t = 0; t < 2; t++) {
            wl_write_csv_text(out, texts[t]);
            fputc(',', out);
        }
        fprintf(out, "%.17g,", row->size);
        wl_write_csv_text(out, row->rung);
        fputc(',', out);
        wl_write_csv_text(out, row->title);
        fprintf(out,
                ",%s,%s,%s,%d,%.9g,%.9g,%.9g,%.9g,%.4g,%.17g,%.17g,%.6g,%.6g,%.4g,%.4g,%.4g,"
                "%.4g,%.6g,",
                row->backend, row_kind(row), row_state(row), row->runs, row->median_ms, row->min_ms,
                row->max_ms, row->mean_ms, row->noise_pct, row->bytes, row->flops, row->gbs,
                row->gflops, row->pct_of_ceiling, row->step_speedup, row->cumulative_speedup,
                isfinite(row->max_rel_error) ? row->max_rel_error : -1.0, row->course_value);
        wl_write_csv_text(out, row->course_unit);
        fputc(',', out);
        wl_write_csv_text(out, row->course_device);
        fputc(',', out);
        wl_write_csv_text(out, row->note);
        fprintf(out, ",%.4g,%.6g,", row->pct_of_reference, row->course_value2);
        wl_write_csv_text(out, row->course_device2);
        fprintf(out, ",%.4g,%.4g\n", row->pct_of_vendor, row->pct_of_fp32_peak);
    }
}

/* ------------------------------------------------------------------------ */
/* JSON                                                                     */

static void write_json(const warplab_report *report, FILE *out)
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
        const warplab_row *row = &report->rows[i];
        fputs(i ? ",\n    {" : "\n    {", out);
        wl_write_json_field(out, "ladder", row->ladder, true);
        wl_write_json_field(out, "rung", row->rung, true);
        wl_write_json_field(out, "title", row->title, true);
        wl_write_json_field(out, "backend", row->backend, true);
        fputs("\n     ", out);
        wl_write_json_field(out, "problem", row->problem, true);
        wl_write_json_number(out, "size", row->size, true);
        wl_write_json_field(out, "kind", row_kind(row), true);
        wl_write_json_field(out, "state", row_state(row), true);
        fprintf(out, "\"unsafe\": %s, ", (row->flags & WARPLAB_ROW_UNSAFE) ? "true" : "false");
        wl_write_json_field(out, "status", warplab_status_string(row->status), true);
        fputs("\n     ", out);
        fprintf(out, "\"runs\": %d, ", row->runs);
        wl_write_json_number(out, "median_ms", row->median_ms, true);
        wl_write_json_number(out, "min_ms", row->min_ms, true);
        wl_write_json_number(out, "max_ms", row->max_ms, true);
        wl_write_json_number(out, "mean_ms", row->mean_ms, true);
        wl_write_json_number(out, "noise_pct", row->noise_pct, true);
        fputs("\n     ", out);
        wl_write_json_number(out, "bytes", row->bytes, true);
        wl_write_json_number(out, "flops", row->flops, true);
        wl_write_json_number(out, "gbs", row->gbs, true);
        if (row->busbw_gbs > 0) /* all-reduce: gbs is algbw */
            wl_write_json_number(out, "busbw_gbs", row->busbw_gbs, true);
        wl_write_json_number(out, "gflops", row->gflops, true);
        wl_write_json_number(out, "pct_of_ceiling", row->pct_of_ceiling, true);
        wl_write_json_number(out, "pct_of_reference", row->pct_of_reference, true);
        wl_write_json_number(out, "pct_of_vendor", row->pct_of_vendor, true);
        wl_write_json_number(out, "pct_of_fp32_peak", row->pct_of_fp32_peak, true);
        fputs("\n     ", out);
        wl_write_json_number(out, "step_speedup", row->step_speedup, true);
        wl_write_json_number(out, "cumulative_speedup", row->cumulative_speedup, true);
        wl_write_json_number(out, "max_rel_error", row->max_rel_error, true);
        fputs("\n     ", out);
        wl_write_json_number(out, "course_value", row->course_value, true);
        wl_write_json_field(out, "course_unit", row->course_unit, true);
        wl_write_json_field(out, "course_device", row->course_device, true);
        wl_write_json_number(out, "course_value2", row->course_value2, true);
        wl_write_json_field(out, "course_device2", row->course_device2, true);
        fputs("\n     ", out);
        wl_write_json_field(out, "note", row->note, true);
        wl_write_json_field(out, "vendor", row->vendor, true);
        wl_write_json_number(out, "vendor_ratio",
                             row->pct_of_vendor > 0 ? row->pct_of_vendor / 100.0 : NAN, true);
        wl_write_json_field(out, "lesson", row->lesson, false);
        fputs("}", out);
    }
    fputs("\n  ],\n  \"vendor_pairs\": [", out);
    vendor_pair pairs[MAX_PAIRS];
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
    fputs(pair_count ? "\n  ]\n}\n" : "]\n}\n", out);
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
/* Sweeps: GB/s against n, one series per rung (warplab bench --sweep)      */

#define SWEEP_MAX_SERIES 32
#define SWEEP_MAX_SIZES 64

typedef struct sweep {
    const warplab_row *series[SWEEP_MAX_SERIES]; /* each rung's first row */
    int series_count;
    double sizes[SWEEP_MAX_SIZES]; /* ascending */
    int size_count;
} sweep;

static bool same_rung(const warplab_row *a, const warplab_row *b)
{
    return strcmp(a->ladder, b->ladder) == 0 && strcmp(a->rung, b->rung) == 0;
}

static void sweep_collect(const warplab_report *report, sweep *s)
{
    memset(s, 0, sizeof *s);
    for (size_t i = 0; i < report->row_count; i++) {
        const warplab_row *row = &report->rows[i];
        int k = 0;
        while (k < s->series_count && !same_rung(s->series[k], row))
            k++;
        if (k == s->series_count && k < SWEEP_MAX_SERIES)
            s->series[s->series_count++] = row;
        int j = 0;
        while (j < s->size_count && s->sizes[j] < row->size)
            j++;
        if ((j == s->size_count || s->sizes[j] != row->size) && s->size_count < SWEEP_MAX_SIZES) {
            memmove(&s->sizes[j + 1], &s->sizes[j], (size_t)(s->size_count - j) * sizeof(double));
            s->sizes[j] = row->size;
            s->size_count++;
        }
    }
}

/* The GB/s of a rung at a size; 0 where it was not timed or failed. */
static double sweep_point(const warplab_report *report, const warplab_row *series, double size)
{
    for (size_t i = 0; i < report->row_count; i++) {
        const warplab_row *row = &report->rows[i];
        if (row->size == size && same_rung(row, series))
            return row_timed(row) && !(row->flags & WARPLAB_ROW_FAILED) ? row->gbs : 0.0;
    }
    return 0.0;
}

/* "2^20" for powers of two, the number otherwise. */
static void format_size(char *out, size_t len, double size)
{
    int exponent = 0;
    double mantissa = frexp(size, &exponent);
    if (size >= 1 && mantissa == 0.5)
        wl_format(out, len, "2^%d", exponent - 1);
    else
        wl_format(out, len, "%.0f", size);
}

warplab_status warplab_report_write_sweep(const warplab_report *report, FILE *out)
{
    if (!report || !out)
        return WARPLAB_ERROR_INVALID_ARGUMENT;
    sweep s;
    sweep_collect(report, &s);
    if (s.series_count == 0)
        return ferror(out) ? WARPLAB_ERROR_IO : WARPLAB_OK;
    fprintf(out, "\n%s sweep on %s (%s): GB/s against n (input bytes / median time)\n",
            s.series[0]->ladder, report->device, report->backend);
    fprintf(out, "%-10s", "n");
    for (int k = 0; k < s.series_count; k++)
        fprintf(out, " %14s", s.series[k]->rung);
    fputc('\n', out);
    for (int j = 0; j < s.size_count; j++) {
        char label[32];
        format_size(label, sizeof label, s.sizes[j]);
        fprintf(out, "%-10s", label);
        for (int k = 0; k < s.series_count; k++) {
            double gbs = sweep_point(report, s.series[k], s.sizes[j]);
            if (gbs > 0)
                fprintf(out, " %14.1f", gbs);
            else
                fprintf(out, " %14s", "-");
        }
        fputc('\n', out);
    }
    if (report->ceiling_gbs > 0)
        fprintf(out, "ceiling: %.0f GB/s, %s; '-': not run (too large, or failed)\n",
                report->ceiling_gbs, report->ceiling_source);
    return ferror(out) ? WARPLAB_ERROR_IO : WARPLAB_OK;
}

warplab_status warplab_report_write_sweep_svg(const warplab_report *report, FILE *out)
{
    if (!report || !out)
        return WARPLAB_ERROR_INVALID_ARGUMENT;
    const double width = 900, height = 520, left = 70, right = 180, top = 50, bottom = 60;
    const double plot_w = width - left - right, plot_h = height - top - bottom;
    sweep s;
    sweep_collect(report, &s);
    double x_lo = 0, x_hi = 1, y_hi = report->ceiling_gbs;
    if (s.size_count > 0) {
        x_lo = log2(s.sizes[0] > 1 ? s.sizes[0] : 1);
        x_hi = log2(s.sizes[s.size_count - 1] > 1 ? s.sizes[s.size_count - 1] : 1);
    }
    if (x_hi <= x_lo)
        x_hi = x_lo + 1;
    for (int k = 0; k < s.series_count; k++)
        for (int j = 0; j < s.size_count; j++) {
            double gbs = sweep_point(report, s.series[k], s.sizes[j]);
            if (gbs > y_hi)
                y_hi = gbs;
        }
    if (y_hi <= 0)
        y_hi = 1;
    y_hi *= 1.05;
#define SWEEP_X(size) (left + plot_w * (log2(size) - x_lo) / (x_hi - x_lo))
#define SWEEP_Y(gbs) (top + plot_h * (1.0 - (gbs) / y_hi))
    fprintf(out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
            "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"12\">\n"
            "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
            width, height, width, height);
    fprintf(out, "<text x=\"10\" y=\"20\" font-size=\"14\" font-weight=\"bold\">");
    wl_write_svg_text(out, s.series_count ? s.series[0]->ladder : "");
    fputs(" sweep on ", out);
    wl_write_svg_text(out, report->device);
    fprintf(out,
            " (%s)</text>\n<text x=\"10\" y=\"38\" fill=\"#555\">GB/s (input bytes / median "
            "time) against n; caches %s between runs</text>\n",
            report->backend, report->l2_flushed ? "flushed" : "warm");
    /* Axes, with a tick per power of two on x and five steps on y. */
    fprintf(out,
            "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"#333\"/>\n"
            "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"#333\"/>\n",
            left, top, left, top + plot_h, left, top + plot_h, left + plot_w, top + plot_h);
    const int first = (int)ceil(x_lo), label_every = (int)ceil((x_hi - x_lo) / 12.0);
    for (int e = first; e <= (int)floor(x_hi); e++) {
        double x = SWEEP_X(ldexp(1.0, e));
        fprintf(out, "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"#eee\"/>\n", x,
                top, x, top + plot_h);
        if ((e - first) % (label_every > 0 ? label_every : 1) == 0)
            fprintf(out, "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">2^%d</text>\n", x,
                    top + plot_h + 18, e);
    }
    /* y ticks at a round step (1, 2 or 5 times a power of ten), about five. */
    const double step = wl_chart_round_step(y_hi, 5);
    for (double gbs = step; gbs <= y_hi; gbs += step) {
        double y = SWEEP_Y(gbs);
        fprintf(out,
                "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"#eee\"/>\n"
                "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%.4g</text>\n",
                left, y, left + plot_w, y, left - 6, y + 4, gbs);
    }
    fprintf(out,
            "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">n (elements, log scale)</text>\n"
            "<text x=\"18\" y=\"%.1f\" transform=\"rotate(-90 18 %.1f)\" "
            "text-anchor=\"middle\">GB/s (input bytes / median time)</text>\n",
            left + plot_w / 2, height - 15, top + plot_h / 2, top + plot_h / 2);
    if (report->ceiling_gbs > 0) {
        double y = SWEEP_Y(report->ceiling_gbs);
        fprintf(out,
                "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"#c0392b\" "
                "stroke-dasharray=\"5,4\"/>\n<text x=\"%.0f\" y=\"%.1f\" fill=\"#c0392b\">%.0f "
                "GB/s</text>\n",
                left, y, left + plot_w, y, left + 4, y - 4, report->ceiling_gbs);
    }
    /* One line per rung that has a point; a gap where a size did not run.
     * Only those are in the legend, each in its own colour. */
    int drawn = 0, shown = 0;
    for (int k = 0; k < s.series_count; k++)
        for (int j = 0; j < s.size_count; j++)
            if (sweep_point(report, s.series[k], s.sizes[j]) > 0 && s.sizes[j] >= 1) {
                drawn++;
                break;
            }
    for (int k = 0; k < s.series_count; k++) {
        bool has_point = false;
        for (int j = 0; j < s.size_count && !has_point; j++)
            has_point = sweep_point(report, s.series[k], s.sizes[j]) > 0 && s.sizes[j] >= 1;
        if (!has_point)
            continue;
        char color[16];
        wl_series_color(shown, drawn, color, sizeof color);
        const char *dash =
            (s.series[k]->flags & WARPLAB_ROW_VENDOR) ? " stroke-dasharray=\"6,3\"" : "";
        bool drawing = false;
        for (int j = 0; j < s.size_count; j++) {
            double gbs = sweep_point(report, s.series[k], s.sizes[j]);
            if (gbs <= 0 || s.sizes[j] < 1) {
                if (drawing)
                    fputs("\"/>\n", out);
                drawing = false;
                continue;
            }
            if (!drawing)
                fprintf(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s points=\"",
                        color, dash);
            fprintf(out, "%.1f,%.1f ", SWEEP_X(s.sizes[j]), SWEEP_Y(gbs));
            drawing = true;
        }
        if (drawing)
            fputs("\"/>\n", out);
        double ly = top + 16.0 * shown++;
        fprintf(out,
                "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"%s\" "
                "stroke-width=\"2\"%s/>\n<text x=\"%.0f\" y=\"%.0f\">",
                left + plot_w + 12, ly, left + plot_w + 36, ly, color, dash, left + plot_w + 42,
                ly + 4);
        wl_write_svg_text(out, s.series[k]->rung);
        fputs("</text>\n", out);
    }
#undef SWEEP_X
#undef SWEEP_Y
    fputs("</svg>\n", out);
    return ferror(out) ? WARPLAB_ERROR_IO : WARPLAB_OK;
}
