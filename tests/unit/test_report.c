/* The report writers on a synthetic report: timed, skipped, failed, unsafe,
 * vendor, host, reference and compute-bound rows, and strings that need
 * escaping in every format. Checks here: JSON structure (strings, escapes,
 * nesting, no NaN), CSV read back field by field, SVG well-formed as XML,
 * Markdown rows with the right number of cells. The files are left behind
 * (test_report.json/.csv/.svg/.md) for the parsers CTest runs next
 * (check_report_json.cmake always, check_report_files.py with python3). */
#include "../check.h"
#include "report/report.h"

#include "warplab_lab.h"
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Kept in step with check_report_files.py. */
#define TRICKY_TITLE "say \"hi\", <b>&amp;</b> | pipe \\ back\ttab"
#define TRICKY_NOTE "skipped, because \"n\" > 1024\nsecond line\r\nthird, <&>"
#define TRICKY_DEVICE "GPU \"quoted\" <&> \\ name"

static warplab_row make_row(const char *ladder, const char *rung, const char *title,
                            const char *problem, unsigned flags, double median_ms)
{
    warplab_row row;
    memset(&row, 0, sizeof row);
    wl_copy_string(row.ladder, sizeof row.ladder, ladder);
    wl_copy_string(row.rung, sizeof row.rung, rung);
    wl_copy_string(row.title, sizeof row.title, title);
    wl_copy_string(row.backend, sizeof row.backend, "cuda");
    wl_copy_string(row.problem, sizeof row.problem, problem);
    row.size = 1000;
    row.flags = flags;
    if (median_ms > 0) {
        row.runs = 10;
        row.median_ms = row.min_ms = row.max_ms = row.mean_ms = median_ms;
        row.noise_pct = 1.5;
        row.bytes = 12000;
        row.gbs = row.bytes / (median_ms * 1e-3) / 1e9;
        row.pct_of_ceiling = 100.0 * row.gbs / 86.4;
    }
    wl_copy_string(row.lesson, sizeof row.lesson, "a lesson");
    return row;
}

static warplab_report *make_report(void)
{
    warplab_report *report = calloc(1, sizeof *report);
    report->row_count = 8;
    report->rows = calloc(report->row_count, sizeof *report->rows);
    wl_copy_string(report->device, sizeof report->device, TRICKY_DEVICE);
    wl_copy_string(report->backend, sizeof report->backend, "cuda");
    wl_copy_string(report->date, sizeof report->date, "2026-11-21T05:00:00Z");
    report->ceiling_gbs = 86.4;
    wl_copy_string(report->ceiling_source, sizeof report->ceiling_source,
                   "theoretical: bus width x data rate / 8");
    report->l2_flushed = 1;
    report->seed = 18446744073709551615ull;
    warplab_row *rows = report->rows;
    const char *p = "n=1000 float";
    rows[0] = make_row("vecadd", "grid", TRICKY_TITLE, p, 0, 0.0005);
    rows[0].step_speedup = 2.0;
    rows[0].cumulative_speedup = 4.0;
    rows[0].course_value = 89.2;
    wl_copy_string(rows[0].course_unit, sizeof rows[0].course_unit, "GB/s");
    wl_copy_string(rows[0].course_device, sizeof rows[0].course_device, "K40");
    wl_copy_string(rows[0].lesson, sizeof rows[0].lesson, "lesson with \"quotes\"\nand \\ too");
    rows[1] = make_row("vecadd", "one_block", "one block", p, WARPLAB_ROW_SKIPPED, 0);
    rows[1].status = WARPLAB_ERROR_UNSUPPORTED;
    wl_copy_string(rows[1].note, sizeof rows[1].note, TRICKY_NOTE);
    rows[2] =
        make_row("vecadd", "unrolled", "warp-synchronous", p,
                 WARPLAB_ROW_UNSAFE | WARPLAB_ROW_FAILED | WARPLAB_ROW_EXPECTED_WRONG, 0.0004);
    rows[2].status = WARPLAB_ERROR_VERIFICATION_FAILED;
    rows[2].max_rel_error = INFINITY;
    wl_copy_string(rows[2].note, sizeof rows[2].note, "wrong: 12 of 1000, first at 3");
    rows[3] = make_row("vecadd", "broken", "broken", p, WARPLAB_ROW_FAILED, 0);
    rows[3].status = WARPLAB_ERROR_BACKEND;
    rows[3].max_rel_error = NAN;
    wl_copy_string(rows[3].note, sizeof rows[3].note, "launch failed:\rtoo many resources");
    rows[4] = make_row("vecadd", "cub", "CUB", p, WARPLAB_ROW_VENDOR, 0.0003);
    rows[5] = make_row("vecadd", "cpu_loop", "CPU loop", p, WARPLAB_ROW_HOST, 0.01);
    rows[6] = make_row("vecadd", "copy", "copy", p, WARPLAB_ROW_REFERENCE, 0.0002);
    rows[7] = make_row("gemm", "tiled", "tiled, TILE_WIDTH 16", "100x100x100 float", 0, 0.02);
    rows[7].flops = 2e6;
    rows[7].gflops = 100.0;
    return report;
}

static char *write_to_string(const warplab_report *report, int format, const char *path)
{
    FILE *file = fopen(path, "w+");
    CHECK_MSG(file != NULL, "cannot write %s", path);
    if (!file)
        return NULL;
    warplab_status status = format < 0 ? warplab_report_write_svg(report, file)
                                       : warplab_report_write(report, (warplab_format)format, file);
    CHECK_MSG(status == WARPLAB_OK, "%s: %s", path, warplab_status_string(status));
    long length = ftell(file);
    rewind(file);
    char *text = calloc((size_t)length + 1, 1);
    if (text && fread(text, 1, (size_t)length, file) != (size_t)length)
        text[0] = '\0';
    fclose(file);
    return text;
}

/* ------------------------------------------------------------------------ */
/* JSON: strings closed, escapes valid, no raw control characters, brackets
 * nested, no bare NaN or Infinity. */

static bool json_well_formed(const char *text, char *why, size_t why_len)
{
    char stack[64];
    int depth = 0;
    for (const char *p = text; *p; p++) {
        if (*p == '"') {
            for (p++; *p != '"'; p++) {
                if (!*p) {
                    snprintf(why, why_len, "unterminated string");
                    return false;
                }
                if ((unsigned char)*p < 0x20) {
                    snprintf(why, why_len, "raw control character 0x%02x in a string", *p);
                    return false;
                }
                if (*p == '\\') {
                    p++;
                    if (*p == 'u') {
                        for (int i = 1; i <= 4; i++)
                            if (!isxdigit((unsigned char)p[i])) {
                                snprintf(why, why_len, "bad \\u escape");
                                return false;
                            }
                        p += 4;
                    } else if (!*p || !strchr("\"\\/bfnrt", *p)) {
                        snprintf(why, why_len, "bad escape \\%c", *p ? *p : '0');
                        return false;
                    }
                }
            }
            continue;
        }
        if (*p == '{' || *p == '[') {
            if (depth == 64)
                return false;
            stack[depth++] = *p;
        } else if (*p == '}' || *p == ']') {
            if (depth == 0 || stack[depth - 1] != (*p == '}' ? '{' : '[')) {
                snprintf(why, why_len, "unbalanced '%c'", *p);
                return false;
            }
            depth--;
        } else if (isalpha((unsigned char)*p)) {
            const char *word = p;
            while (isalpha((unsigned char)p[1]))
                p++;
            size_t length = (size_t)(p - word) + 1;
            bool keyword =
                (length == 4 && (!strncmp(word, "true", 4) || !strncmp(word, "null", 4))) ||
                (length == 5 && !strncmp(word, "false", 5)) ||
                (length == 1 && (*word == 'e' || *word == 'E'));
            if (!keyword) {
                snprintf(why, why_len, "bare word '%.*s'", (int)length, word);
                return false;
            }
        }
    }
    if (depth != 0) {
        snprintf(why, why_len, "%d brackets left open", depth);
        return false;
    }
    return true;
}

static void test_json(const warplab_report *report)
{
    char *text = write_to_string(report, WARPLAB_FORMAT_JSON, "test_report.json");
    if (!text)
        return;
    char why[128] = "";
    CHECK_MSG(json_well_formed(text, why, sizeof why), "JSON: %s", why);
    CHECK(strstr(text, "\"say \\\"hi\\\", <b>&amp;</b> | pipe \\\\ back\\ttab\"") != NULL);
    CHECK(strstr(text, "\\nsecond line\\r\\nthird") != NULL);
    CHECK(strstr(text, "\"max_rel_error\": null") != NULL); /* infinity and NaN */
    CHECK(strstr(text, "\"state\": \"skipped\"") != NULL);
    CHECK(strstr(text, "\"state\": \"WRONG\"") != NULL);
    CHECK(strstr(text, "\"state\": \"FAILED\"") != NULL);
    CHECK(strstr(text, "\"kind\": \"vendor\"") != NULL);
    /* A string: a JSON number would be rounded to a double by readers. */
    CHECK(strstr(text, "\"seed\": \"18446744073709551615\"") != NULL);
    CHECK(strstr(text, "\"incomplete\": false") != NULL);
    /* The checker itself catches what it is meant to. */
    CHECK(!json_well_formed("{\"a\": [1, 2}", why, sizeof why));
    CHECK(!json_well_formed("{\"a\": \"x\ny\"}", why, sizeof why));
    CHECK(!json_well_formed("{\"a\": nan}", why, sizeof why));
    CHECK(!json_well_formed("{\"a\": \"\\q\"}", why, sizeof why));
    free(text);
}

/* ------------------------------------------------------------------------ */
/* CSV (RFC 4180): quoted fields may hold commas, quotes (doubled) and line
 * breaks; every record has the header's number of fields. */

typedef struct csv_table {
    char *fields[16][40];
    int columns[16];
    int records;
} csv_table;

static bool csv_parse(const char *text, csv_table *table)
{
    memset(table, 0, sizeof *table);
    const char *p = text;
    while (*p) {
        if (table->records == 16)
            return false;
        int r = table->records++;
        for (;;) {
            if (table->columns[r] == 40)
                return false;
            char *field = calloc(strlen(p) + 1, 1);
            size_t n = 0;
            if (*p == '"') {
                for (p++;; p++) {
                    if (!*p)
                        return false; /* unterminated */
                    if (*p == '"') {
                        if (p[1] != '"')
                            break;
                        p++;
                    }
                    field[n++] = *p;
                }
                p++;
                if (*p && *p != ',' && *p != '\n' && !(*p == '\r' && p[1] == '\n'))
                    return false; /* text after a closing quote */
            } else {
                while (*p && *p != ',' && *p != '\n' && *p != '\r') {
                    if (*p == '"')
                        return false; /* a quote inside an unquoted field */
                    field[n++] = *p++;
                }
                if (*p == '\r' && p[1] != '\n')
                    return false; /* a bare carriage return */
            }
            table->fields[r][table->columns[r]++] = field;
            if (*p == ',') {
                p++;
                continue;
            }
            if (*p == '\r')
                p++;
            if (*p == '\n')
                p++;
            break;
        }
    }
    return true;
}

static void csv_free(csv_table *table)
{
    for (int r = 0; r < 16; r++)
        for (int c = 0; c < 40; c++)
            free(table->fields[r][c]);
}

static int csv_column(const csv_table *table, const char *name)
{
    for (int c = 0; c < table->columns[0]; c++)
        if (!strcmp(table->fields[0][c], name))
            return c;
    return -1;
}

static void test_csv(const warplab_report *report)
{
    char *text = write_to_string(report, WARPLAB_FORMAT_CSV, "test_report.csv");
    if (!text)
        return;
    csv_table table;
    bool parsed = csv_parse(text, &table);
    CHECK_MSG(parsed, "the CSV does not parse");
    if (parsed) {
        CHECK(table.records == 1 + (int)report->row_count);
        for (int r = 1; r < table.records; r++)
            CHECK_MSG(table.columns[r] == table.columns[0], "record %d has %d fields, not %d", r,
                      table.columns[r], table.columns[0]);
        int title = csv_column(&table, "title"), note = csv_column(&table, "note");
        int state = csv_column(&table, "state"), kind = csv_column(&table, "kind");
        CHECK(title >= 0 && note >= 0 && state >= 0 && kind >= 0);
        if (title >= 0 && note >= 0 && state >= 0 && kind >= 0 && table.records == 9) {
            CHECK_STR(table.fields[1][title], TRICKY_TITLE);
            CHECK_STR(table.fields[2][note], TRICKY_NOTE);
            CHECK_STR(table.fields[2][state], "skipped");
            CHECK_STR(table.fields[3][state], "WRONG");
            CHECK_STR(table.fields[4][state], "FAILED");
            CHECK_STR(table.fields[5][kind], "vendor");
            CHECK_STR(table.fields[6][kind], "host");
            CHECK_STR(table.fields[7][kind], "reference");
            CHECK_STR(table.fields[4][note], "launch failed:\rtoo many resources");
        }
    }
    csv_free(&table);
    free(text);
}

/* ------------------------------------------------------------------------ */
/* SVG as XML: one root, tags nested and closed, attributes quoted, '&' only
 * in entities, no '<' in text or attributes. */

static bool xml_well_formed(const char *text, char *why, size_t why_len)
{
    char stack[32][32];
    int depth = 0, roots = 0;
    for (const char *p = text; *p;) {
        if (*p == '&') {
            const char *q = p + 1;
            if (*q == '#')
                q++;
            while (isalnum((unsigned char)*q))
                q++;
            if (*q != ';' || q == p + 1) {
                snprintf(why, why_len, "a bare '&'");
                return false;
            }
            p = q + 1;
            continue;
        }
        if (*p != '<') {
            if (depth == 0 && !isspace((unsigned char)*p)) {
                snprintf(why, why_len, "text outside the root");
                return false;
            }
            p++;
            continue;
        }
        bool closing = p[1] == '/';
        const char *name = p + 1 + closing;
        size_t length =
            strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-:_0123456789");
        if (length == 0 || length >= 32) {
            snprintf(why, why_len, "a tag without a name");
            return false;
        }
        const char *q = name + length;
        /* Attributes: name="value" with no '<' inside; '&' only as entities. */
        while (*q && *q != '>' && !(*q == '/' && q[1] == '>')) {
            if (*q == '"') {
                for (q++; *q && *q != '"'; q++)
                    if (*q == '<') {
                        snprintf(why, why_len, "'<' in an attribute");
                        return false;
                    }
                if (!*q)
                    return false;
            } else if (*q == '<') {
                snprintf(why, why_len, "'<' inside a tag");
                return false;
            }
            q++;
        }
        if (!*q) {
            snprintf(why, why_len, "an unclosed tag");
            return false;
        }
        bool empty = *q == '/';
        if (closing) {
            if (depth == 0 || strlen(stack[depth - 1]) != length ||
                strncmp(stack[depth - 1], name, length) != 0) {
                snprintf(why, why_len, "</%.*s> closes nothing open", (int)length, name);
                return false;
            }
            depth--;
        } else if (!empty) {
            if (depth == 0)
                roots++;
            if (depth == 32)
                return false;
            memcpy(stack[depth], name, length);
            stack[depth++][length] = '\0';
        } else if (depth == 0) {
            roots++;
        }
        p = q + (empty ? 2 : 1);
    }
    if (depth != 0 || roots != 1) {
        snprintf(why, why_len, "%d elements left open, %d roots", depth, roots);
        return false;
    }
    return true;
}

static void test_svg(const warplab_report *report)
{
    char *text = write_to_string(report, -1, "test_report.svg");
    if (!text)
        return;
    char why[128] = "";
    CHECK_MSG(xml_well_formed(text, why, sizeof why), "SVG: %s", why);
    CHECK(strstr(text, "GPU &quot;quoted&quot; &lt;&amp;&gt;") != NULL);
    CHECK(strstr(text, "<svg") == text);
    /* One bar per timed row (16 pixels high), text for the others. */
    size_t bars = 0;
    for (const char *p = text; (p = strstr(p, "height=\"16.0\"")) != NULL; p++)
        bars++;
    CHECK_MSG(bars == 6, "%zu bars", bars);
    /* A labelled value axis on each chart, and a legend of what was drawn. */
    CHECK(strstr(text, ">GB/s (bytes moved / median time, 1e9 B/s)</text>") != NULL);
    CHECK(strstr(text, ">GFLOP/s (flops / median time)</text>") != NULL);
    const char *drawn[] = {">rung</text>",           ">CPU (host)</text>",
                           ">vendor library</text>", ">copy reference</text>",
                           ">failed check</text>",   ">bandwidth ceiling</text>"};
    for (size_t i = 0; i < sizeof drawn / sizeof drawn[0]; i++)
        CHECK_MSG(strstr(text, drawn[i]) != NULL, "legend lacks %s", drawn[i]);
    CHECK(strstr(text, ">host-device transfer</text>") == NULL); /* no such row */
    CHECK(!xml_well_formed("<svg><text>a & b</text></svg>", why, sizeof why));
    CHECK(!xml_well_formed("<svg><text>a</svg>", why, sizeof why));
    CHECK(!xml_well_formed("<svg/><svg/>", why, sizeof why));
    free(text);
}

/* ------------------------------------------------------------------------ */
/* Markdown and the terminal table. */

static int unescaped_pipes(const char *line, size_t length)
{
    int pipes = 0;
    for (size_t i = 0; i < length; i++)
        if (line[i] == '|' && (i == 0 || line[i - 1] != '\\'))
            pipes++;
    return pipes;
}

static void test_markdown(const warplab_report *report)
{
    char *text = write_to_string(report, WARPLAB_FORMAT_MARKDOWN, "test_report.md");
    if (!text)
        return;
    /* Each table (one per group; their columns may differ) keeps its
     * header's cell count on every line. */
    int header_pipes = -1, rows = 0, tables = 0;
    for (const char *line = text; *line;) {
        size_t length = strcspn(line, "\n");
        if (line[0] != '|') {
            header_pipes = -1;
        } else {
            int pipes = unescaped_pipes(line, length);
            if (header_pipes < 0) {
                header_pipes = pipes;
                tables++;
                CHECK(pipes > 8); /* rung, what, time, ..., course */
            }
            CHECK_MSG(pipes == header_pipes, "a Markdown row with %d cells, not %d: %.*s",
                      pipes - 1, header_pipes - 1, (int)length, line);
            rows++;
        }
        line += length + (line[length] == '\n');
    }
    CHECK(tables == 2);
    CHECK_MSG(rows == 2 * 2 + 8, "%d table lines", rows); /* 2 headers + 2 rules + 8 rows */
    CHECK(strstr(text, "\\| pipe") != NULL);
    free(text);

    text = write_to_string(report, WARPLAB_FORMAT_TABLE, "test_report.txt");
    if (!text)
        return;
    CHECK(strstr(text, "skipped: skipped, because") != NULL);
    CHECK(strstr(text, "WRONG") != NULL);
    CHECK(strstr(text, "89.2 GB/s K40") != NULL);
    CHECK(strstr(text, "GFLOP/s") != NULL); /* the compute-bound group */
    free(text);
}

static void test_bad_arguments(const warplab_report *report)
{
    FILE *sink = fopen("/dev/null", "w");
    CHECK(warplab_report_write(NULL, WARPLAB_FORMAT_JSON, sink) == WARPLAB_ERROR_INVALID_ARGUMENT);
    CHECK(warplab_report_write(report, WARPLAB_FORMAT_JSON, NULL) ==
          WARPLAB_ERROR_INVALID_ARGUMENT);
    CHECK(warplab_report_write(report, (warplab_format)99, sink) == WARPLAB_ERROR_INVALID_ARGUMENT);
    CHECK(warplab_report_write_svg(NULL, sink) == WARPLAB_ERROR_INVALID_ARGUMENT);
    if (sink)
        fclose(sink);
    /* A stream that cannot be written reports an I/O error. */
    FILE *read_only = fopen("test_report.json", "r");
    if (read_only) {
        CHECK(warplab_report_write(report, WARPLAB_FORMAT_JSON, read_only) == WARPLAB_ERROR_IO);
        fclose(read_only);
    }
    /* An empty report writes valid, empty output. */
    warplab_report empty;
    memset(&empty, 0, sizeof empty);
    char *text = write_to_string(&empty, WARPLAB_FORMAT_JSON, "test_report_empty.json");
    char why[128] = "";
    CHECK_MSG(text && json_well_formed(text, why, sizeof why), "empty JSON: %s", why);
    free(text);
    text = write_to_string(&empty, -1, "test_report_empty.svg");
    CHECK_MSG(text && xml_well_formed(text, why, sizeof why), "empty SVG: %s", why);
    free(text);
    warplab_report_destroy(NULL);
}

/* The sweep chart: a legend of the lines drawn only, each its own colour,
 * a labelled y axis; colours never repeat within a chart. */
static void test_sweep_svg(void)
{
    for (int count = 1; count <= 40; count++) {
        char colors[40][16];
        for (int i = 0; i < count; i++) {
            wl_series_color(i, count, colors[i], sizeof colors[i]);
            CHECK(colors[i][0] == '#' && strlen(colors[i]) == 7);
            for (int j = 0; j < i; j++)
                CHECK_MSG(strcmp(colors[i], colors[j]) != 0, "%d series: %d and %d share %s", count,
                          i, j, colors[i]);
        }
    }
    warplab_report report;
    memset(&report, 0, sizeof report);
    wl_copy_string(report.device, sizeof report.device, "GPU");
    wl_copy_string(report.backend, sizeof report.backend, "cuda");
    report.ceiling_gbs = 20; /* near the figures (12 GB/s at most): drawn */
    warplab_row rows[16 * 3];
    report.rows = rows;
    for (int r = 0; r < 16; r++)
        for (int j = 0; j < 3; j++) {
            char rung[16], problem[32];
            snprintf(rung, sizeof rung, "rung%02d", r);
            snprintf(problem, sizeof problem, "n=%d", 1 << (10 + 2 * j));
            /* Two of the sixteen rungs ran; the others were skipped. */
            warplab_row *row = &rows[report.row_count++];
            *row = make_row("vecadd", rung, rung, problem, r < 2 ? 0 : WARPLAB_ROW_SKIPPED,
                            r < 2 ? 0.001 * (j + 1) : 0);
            row->size = (double)(1 << (10 + 2 * j));
        }
    FILE *file = fopen("test_report_sweep.svg", "w+");
    CHECK(file != NULL);
    if (!file)
        return;
    CHECK(warplab_report_write_sweep_svg(&report, file) == WARPLAB_OK);
    long length = ftell(file);
    rewind(file);
    char *text = calloc((size_t)length + 1, 1);
    CHECK(text && fread(text, 1, (size_t)length, file) == (size_t)length);
    fclose(file);
    if (!text)
        return;
    char why[128] = "";
    CHECK_MSG(xml_well_formed(text, why, sizeof why), "sweep SVG: %s", why);
    CHECK(strstr(text, ">rung00</text>") && strstr(text, ">rung01</text>"));
    CHECK_MSG(strstr(text, ">rung02</text>") == NULL, "an undrawn series is in the legend");
    size_t lines = 0;
    for (const char *p = text; (p = strstr(p, "<polyline")) != NULL; p++)
        lines++;
    CHECK_MSG(lines == 2, "%zu lines", lines);
    CHECK(strstr(text, ">vecadd: GB/s against n</text>") != NULL); /* the section's title */
    CHECK(strstr(text, ">2^12</text>") != NULL);                   /* n as powers of two */
    CHECK(strstr(text, "20 GB/s ceiling</text>") != NULL);
    char first[16], second[16];
    wl_series_color(0, 2, first, sizeof first);
    wl_series_color(1, 2, second, sizeof second);
    CHECK(strstr(text, first) && strstr(text, second) && strcmp(first, second) != 0);
    free(text);
}

/* ------------------------------------------------------------------------ */
/* Bus bandwidth (the all-reduce ladder): busbw under the row in the table
 * with the ratio to the paired vendor row, busbw_gbs in the JSON; nothing of
 * it for rows without one (the other ladders' output is unchanged). */

static void test_bus_bandwidth(const warplab_report *plain)
{
    warplab_report report = *plain;
    warplab_row rows[2];
    const char *p = "n=262144 float x 2 GPUs";
    rows[0] = make_row("allreduce", "nccl", "ncclAllReduce (vendor)", p, WARPLAB_ROW_VENDOR, 0.028);
    rows[1] = make_row("allreduce", "two_shot", "one kernel per GPU", p, 0, 0.021);
    for (int i = 0; i < 2; i++)
        rows[i].busbw_gbs = rows[i].gbs * 1.5;
    rows[1].pct_of_vendor = 100.0 * 0.028 / 0.021;
    wl_copy_string(rows[1].vendor, sizeof rows[1].vendor, "nccl");
    report.rows = rows;
    report.row_count = 2;
    char *text = write_to_string(&report, WARPLAB_FORMAT_TABLE, "test_report_busbw.txt");
    char line[128];
    snprintf(line, sizeof line, "algbw %.1f GB/s, busbw %.1f GB/s, 1.33x nccl", rows[1].gbs,
             rows[1].busbw_gbs);
    CHECK_MSG(text && strstr(text, line), "no line '%s' in the table", line);
    free(text);
    text = write_to_string(&report, WARPLAB_FORMAT_JSON, "test_report_busbw.json");
    char why[128] = "";
    CHECK_MSG(text && json_well_formed(text, why, sizeof why), "JSON: %s", why);
    CHECK(text && strstr(text, "\"busbw_gbs\": ") != NULL);
    free(text);
    text = write_to_string(plain, WARPLAB_FORMAT_JSON, "test_report_busbw_none.json");
    CHECK(text && strstr(text, "busbw") == NULL);
    free(text);
    text = write_to_string(plain, WARPLAB_FORMAT_TABLE, "test_report_busbw_none.txt");
    CHECK(text && strstr(text, "busbw") == NULL);
    free(text);
}

int main(void)
{
    test_sweep_svg();
    warplab_report *report = make_report();
    test_json(report);
    test_csv(report);
    test_svg(report);
    test_markdown(report);
    test_bad_arguments(report);
    test_bus_bandwidth(report);
    warplab_report_destroy(report);
    return check_report("test_report");
}
