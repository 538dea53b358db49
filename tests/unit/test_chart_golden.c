/* The charts on canned rows, compared byte for byte with the SVGs committed
 * in tests/unit/golden/: the ladder bar chart (a memory group with its
 * ceiling, a compute group, skipped and failed rows), the ladder sweep's line
 * chart, and a probe's line chart and bar chart. The golden files were written
 * by the charts before they were shared between the ladder and probe
 * writers; a change to the drawing shows here as a diff.
 * `test_chart_golden --write DIR` writes the files instead of comparing. */
#include "../check.h"
#include "internal.h"

#include "warplab_lab.h"
#include <stdlib.h>
#include <string.h>

#ifndef WARPLAB_GOLDEN_DIR
#define WARPLAB_GOLDEN_DIR "tests/unit/golden"
#endif

static warplab_row canned_row(const char *ladder, const char *rung, const char *problem,
                              double size, unsigned flags, double median_ms, double bytes,
                              double flops)
{
    warplab_row row;
    memset(&row, 0, sizeof row);
    wl_copy_string(row.ladder, sizeof row.ladder, ladder);
    wl_copy_string(row.rung, sizeof row.rung, rung);
    wl_copy_string(row.title, sizeof row.title, rung);
    wl_copy_string(row.backend, sizeof row.backend, "cpu");
    wl_copy_string(row.problem, sizeof row.problem, problem);
    row.size = size;
    row.flags = flags;
    if (median_ms > 0) {
        row.runs = 5;
        row.median_ms = row.min_ms = row.max_ms = row.mean_ms = median_ms;
        row.noise_pct = 2.5;
        row.bytes = bytes;
        row.flops = flops;
        row.gbs = bytes / (median_ms * 1e-3) / 1e9;
        row.gflops = flops / (median_ms * 1e-3) / 1e9;
    }
    if (flags & WARPLAB_ROW_SKIPPED)
        wl_copy_string(row.note, sizeof row.note, "too large for one block");
    return row;
}

static void canned_report(warplab_report *report, warplab_row *rows, size_t count)
{
    memset(report, 0, sizeof *report);
    report->rows = rows;
    report->row_count = count;
    wl_copy_string(report->device, sizeof report->device, "Canned <device> & co");
    wl_copy_string(report->backend, sizeof report->backend, "cpu");
    wl_copy_string(report->date, sizeof report->date, "2026-11-23T05:00:00Z");
    report->ceiling_gbs = 40.0;
    wl_copy_string(report->ceiling_source, sizeof report->ceiling_source, "canned");
    report->l2_flushed = 1;
    report->seed = 7;
}

/* The bar chart: a memory-bound group (rungs, host, vendor, reference,
 * failed, skipped) under a ceiling, and a compute-bound group. */
static void write_bars(FILE *out)
{
    warplab_row rows[] = {
        canned_row("vecadd", "cpu_loop", "n=65536", 65536, WARPLAB_ROW_HOST, 0.20, 786432, 65536),
        canned_row("vecadd", "one_block", "n=65536", 65536, WARPLAB_ROW_SKIPPED, 0, 0, 0),
        canned_row("vecadd", "grid", "n=65536", 65536, 0, 0.05, 786432, 65536),
        canned_row("vecadd", "vectorized", "n=65536", 65536, 0, 0.031, 786432, 65536),
        canned_row("vecadd", "broken", "n=65536", 65536, WARPLAB_ROW_FAILED, 0.04, 786432, 65536),
        canned_row("vecadd", "h2d", "n=65536", 65536, WARPLAB_ROW_TRANSFER, 0.5, 786432, 0),
        canned_row("vecadd", "cublas", "n=65536", 65536, WARPLAB_ROW_VENDOR, 0.03, 786432, 65536),
        canned_row("vecadd", "copy", "n=65536", 65536, WARPLAB_ROW_REFERENCE, 0.025, 524288, 0),
        canned_row("gemm", "naive", "64x64x64", 64, 0, 0.9, 49152, 524288),
        canned_row("gemm", "tiled", "64x64x64", 64, 0, 0.3, 49152, 524288),
        canned_row("gemm", "cublas", "64x64x64", 64, WARPLAB_ROW_VENDOR, 0.1, 49152, 524288),
    };
    warplab_report report;
    canned_report(&report, rows, sizeof rows / sizeof rows[0]);
    CHECK(warplab_report_write_svg(&report, out) == WARPLAB_OK);
}

/* The sweep's line chart: two rungs and a vendor row over 2^10..2^20, with a
 * gap where a size failed and one where it did not run. */
static void write_sweep(FILE *out)
{
    warplab_row rows[3 * 6];
    size_t count = 0;
    const char *rungs[] = {"grid", "vectorized", "cublas"};
    for (int r = 0; r < 3; r++)
        for (int e = 10; e <= 20; e += 2) {
            double n = (double)(1u << e), ms = 0.002 * n / 1024.0 / (1.0 + r * 0.3 + e * 0.05);
            unsigned flags = r == 2 ? WARPLAB_ROW_VENDOR : 0;
            if (r == 1 && e == 14)
                flags |= WARPLAB_ROW_FAILED;
            rows[count++] = canned_row("vecadd", rungs[r], "n", n, flags,
                                       r == 0 && e == 18 ? 0 : ms, 12 * n, n);
        }
    warplab_report report;
    canned_report(&report, rows, count);
    CHECK(warplab_report_write_sweep_svg(&report, out) == WARPLAB_OK);
}

/* A probe: a sweep section (two series over strides, one measured at one x
 * only, one not measured there) and a comparison section with baselines,
 * ratios and errors. */
static void write_probe(FILE *out)
{
    warplab_row rows[24];
    warplab_probe_point points[24];
    memset(points, 0, sizeof points);
    size_t count = 0;
    for (int s = 0; s < 2; s++)
        for (int x = 1; x <= 32; x *= 2) {
            if (s == 1 && x > 1) {
                rows[count] = canned_row("stride", "single", "x", x, WARPLAB_ROW_SKIPPED, 0, 0, 0);
            } else {
                rows[count] =
                    canned_row("stride", s ? "single" : "copy", "x", x, 0, 0.01 * x, 4096, 0);
                points[count].value = 400.0 / x + s;
                points[count].low = points[count].value * 0.9;
                points[count].high = points[count].value * 1.05;
            }
            points[count].section = 0;
            points[count].x = x;
            count++;
        }
    const struct {
        const char *series, *baseline, *error_kind;
        double value, error;
    } compared[] = {
        {"sinf", "", "", 12.5, 0},    {"__sinf", "sinf", "abs", 92.5, 2.4e-7},
        {"div", "", "exact", 40, 0},  {"shift", "div", "exact", 160, 0},
        {"missing", "div", "", 0, 0},
    };
    const size_t first_comparison = count;
    for (size_t i = 0; i < sizeof compared / sizeof compared[0]; i++) {
        rows[count] = canned_row("ops", compared[i].series, "x", 0,
                                 compared[i].value > 0 ? 0 : WARPLAB_ROW_FAILED,
                                 compared[i].value > 0 ? 0.02 : 0, 0, 1e6);
        points[count].section = 1;
        points[count].value = compared[i].value;
        points[count].error = compared[i].error;
        wl_copy_string(points[count].error_kind, sizeof points[count].error_kind,
                       compared[i].error_kind);
        wl_copy_string(points[count].baseline, sizeof points[count].baseline, compared[i].baseline);
        count++;
    }
    warplab_report report;
    canned_report(&report, rows, count);
    warplab_probe_result result;
    memset(&result, 0, sizeof result);
    wl_copy_string(result.probe, sizeof result.probe, "canned");
    wl_copy_string(result.title, sizeof result.title, "a canned probe <for> the charts");
    wl_copy_string(result.course, sizeof result.course, "nowhere");
    wl_copy_string(result.setup, sizeof result.setup,
                   "4096 threads in blocks of 256, a setup line long enough to wrap once it "
                   "passes the width of the chart's paragraph, which is about one hundred and "
                   "thirty characters");
    wl_copy_string(result.conclusion, sizeof result.conclusion,
                   "copies at stride 1 are the fastest; __sinf is 7.40x sinf");
    result.report = &report;
    result.points = points;
    result.section_count = 2;
    warplab_probe_section *sweep = &result.sections[0], *comparison = &result.sections[1];
    wl_copy_string(sweep->name, sizeof sweep->name, "stride");
    wl_copy_string(sweep->title, sizeof sweep->title, "copy bandwidth against stride");
    wl_copy_string(sweep->x_label, sizeof sweep->x_label, "stride (elements)");
    wl_copy_string(sweep->unit, sizeof sweep->unit, "GB/s");
    sweep->log_x = 1;
    sweep->first_row = 0;
    sweep->row_count = first_comparison;
    wl_copy_string(comparison->name, sizeof comparison->name, "ops");
    wl_copy_string(comparison->title, sizeof comparison->title, "intrinsics & exact ops");
    wl_copy_string(comparison->x_label, sizeof comparison->x_label, "");
    wl_copy_string(comparison->unit, sizeof comparison->unit, "Gop/s");
    comparison->comparison = 1;
    comparison->first_row = first_comparison;
    comparison->row_count = count - first_comparison;
    CHECK(warplab_probe_write_svg(&result, out) == WARPLAB_OK);
}

static const struct {
    const char *name;
    void (*write)(FILE *out);
} charts[] = {
    {"bars.svg", write_bars},
    {"sweep.svg", write_sweep},
    {"probe.svg", write_probe},
};

static char *read_all(FILE *file, size_t *length)
{
    fseek(file, 0, SEEK_END);
    long size = ftell(file);
    rewind(file);
    char *text = malloc((size_t)(size > 0 ? size : 0) + 1);
    *length = text ? fread(text, 1, (size_t)(size > 0 ? size : 0), file) : 0;
    if (text)
        text[*length] = '\0';
    return text;
}

int main(int argc, char **argv)
{
    const bool writing = argc == 3 && strcmp(argv[1], "--write") == 0;
    for (size_t c = 0; c < sizeof charts / sizeof charts[0]; c++) {
        char path[512];
        wl_format(path, sizeof path, "%s/%s", writing ? argv[2] : WARPLAB_GOLDEN_DIR,
                  charts[c].name);
        if (writing) {
            FILE *file = fopen(path, "wb");
            CHECK(file != NULL);
            if (file) {
                charts[c].write(file);
                fclose(file);
            }
            continue;
        }
        FILE *rendered = tmpfile(), *golden = fopen(path, "rb");
        CHECK(rendered != NULL);
        CHECK(golden != NULL);
        if (!rendered || !golden)
            continue;
        charts[c].write(rendered);
        size_t got_length = 0, want_length = 0;
        char *got = read_all(rendered, &got_length), *want = read_all(golden, &want_length);
        bool same = got && want && got_length == want_length && memcmp(got, want, got_length) == 0;
        if (!same && got && want) {
            size_t at = 0;
            while (at < got_length && at < want_length && got[at] == want[at])
                at++;
            fprintf(stderr, "%s differs from %s at byte %zu:\n  got  \"%.80s\"\n  want \"%.80s\"\n",
                    charts[c].name, path, at, got + at, want + at);
        }
        CHECK(same);
        free(got);
        free(want);
        fclose(rendered);
        fclose(golden);
    }
    return check_report("test_chart_golden");
}
