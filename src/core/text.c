/* Text for each output format (internal.h): escaped text for JSON, CSV,
 * Markdown and SVG, the JSON field writers and the time format, shared by
 * the report writers (src/report/) and the lab's JSON (the GEMM grid). */
#include "internal.h"

#include <math.h>
#include <string.h>

void wl_format_time(char *out, size_t len, double ms)
{
    if (ms >= 100.0)
        wl_format(out, len, "%.1f ms", ms);
    else if (ms >= 1.0)
        wl_format(out, len, "%.3f ms", ms);
    else
        wl_format(out, len, "%.2f us", ms * 1e3);
}

/* A table cell: pipes escaped, line breaks (which would end the row) as spaces. */
void wl_write_markdown_text(FILE *out, const char *text)
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

void wl_write_csv_text(FILE *out, const char *text)
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

void wl_write_json_text(FILE *out, const char *text)
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
void wl_write_json_number(FILE *out, const char *key, double value, bool comma)
{
    fprintf(out, "\"%s\": ", key);
    if (isfinite(value))
        fprintf(out, "%.10g", value);
    else
        fputs("null", out);
    if (comma)
        fputs(", ", out);
}

void wl_write_json_field(FILE *out, const char *key, const char *value, bool comma)
{
    fprintf(out, "\"%s\": ", key);
    wl_write_json_text(out, value);
    if (comma)
        fputs(", ", out);
}

void wl_write_svg_text(FILE *out, const char *text)
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
