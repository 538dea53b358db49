/* warplab show: every rung of every ladder has its code (its own file, or
 * marked source regions) on each backend compiled in that implements it (and
 * none where it does not), the markers and the rung files' names are well
 * formed, the cuda rungs of reduce and transpose are one file each, show
 * prints every rung with its diff against the rung below (a rung file: the
 * file once, then the diff that turns the file below into it), and the line
 * diff is right (its output, applied as a patch, gives the new text back;
 * known small cases print as diff -u does). */
#include "../check.h"
#include "lab/show.h"

#include "warplab_lab.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* The diff                                                                 */

static char *diff_text(const char *a, const char *b, int context)
{
    char *out = NULL;
    size_t len = 0;
    FILE *stream = open_memstream(&out, &len);
    CHECK(wl_diff_write(a, b, "a", "b", context, stream) == WARPLAB_OK);
    fclose(stream);
    return out;
}

/* Applies a unified diff to old: returns the patched text (malloc'd), or
 * NULL when the diff does not apply (a context or deleted line that is not
 * what old has there). */
static char *apply_patch(const char *old, const char *patch)
{
    /* Lines of old. */
    size_t old_count = 0;
    const char *old_lines[4096];
    size_t old_len[4096];
    for (const char *p = old; *p && old_count < 4096;) {
        const char *nl = strchr(p, '\n');
        old_lines[old_count] = p;
        old_len[old_count++] = nl ? (size_t)(nl - p) : strlen(p);
        if (!nl)
            break;
        p = nl + 1;
    }
    char *out = NULL;
    size_t out_len = 0;
    FILE *stream = open_memstream(&out, &out_len);
    size_t at = 0; /* next old line to copy */
    bool ok = true;
    for (const char *p = patch; p && *p && ok;) {
        const char *nl = strchr(p, '\n');
        const size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (len >= 4 && (strncmp(p, "--- ", 4) == 0 || strncmp(p, "+++ ", 4) == 0)) {
        } else if (len >= 2 && strncmp(p, "@@", 2) == 0) {
            unsigned long a_start = 0, a_count = 0, b_start = 0, b_count = 0;
            if (sscanf(p, "@@ -%lu,%lu +%lu,%lu @@", &a_start, &a_count, &b_start, &b_count) != 4) {
                ok = false;
                break;
            }
            size_t first = a_count ? a_start - 1 : a_start; /* 0-based old line of the hunk */
            if (first < at) {
                ok = false;
                break;
            }
            while (at < first)
                fprintf(stream, "%.*s\n", (int)old_len[at], old_lines[at]), at++;
        } else if (len >= 1 && (p[0] == ' ' || p[0] == '-')) {
            if (at >= old_count || old_len[at] != len - 1 ||
                memcmp(old_lines[at], p + 1, len - 1) != 0) {
                ok = false;
                break;
            }
            if (p[0] == ' ')
                fprintf(stream, "%.*s\n", (int)old_len[at], old_lines[at]);
            at++;
        } else if (len >= 1 && p[0] == '+') {
            fprintf(stream, "%.*s\n", (int)(len - 1), p + 1);
        } else {
            ok = false;
        }
        p = nl ? nl + 1 : NULL;
    }
    while (ok && at < old_count)
        fprintf(stream, "%.*s\n", (int)old_len[at], old_lines[at]), at++;
    fclose(stream);
    if (!ok) {
        free(out);
        return NULL;
    }
    return out;
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static unsigned next_random(unsigned below)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (unsigned)(rng_state % below);
}

/* Random texts of lines drawn from a small alphabet (many equal lines, so
 * the diff has real choices to make), each line ending in a newline. */
static char *random_text(unsigned lines, unsigned alphabet)
{
    char *text = malloc((size_t)lines * 8 + 1), *p = text;
    for (unsigned i = 0; i < lines; i++)
        p += sprintf(p, "l%u\n", next_random(alphabet));
    *p = '\0';
    return text;
}

/* Counts the +/- lines of a diff. */
static size_t changed_lines(const char *diff)
{
    size_t count = 0;
    for (const char *p = diff; p && *p;) {
        if ((p[0] == '+' && strncmp(p, "+++ ", 4) != 0) ||
            (p[0] == '-' && strncmp(p, "--- ", 4) != 0))
            count++;
        p = strchr(p, '\n');
        p = p ? p + 1 : NULL;
    }
    return count;
}

static void test_diff(void)
{
    /* Equal texts: nothing. */
    char *d = diff_text("x\ny\n", "x\ny\n", 3);
    CHECK_STR(d, "");
    free(d);
    /* One line changed among others, as diff -u prints it. */
    d = diff_text("1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\n2\n3\n4\nfive\n6\n7\n8\n9\n", 3);
    CHECK_STR(d, "--- a\n+++ b\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n");
    free(d);
    /* From nothing, and to nothing. */
    d = diff_text("", "a\nb\n", 3);
    CHECK_STR(d, "--- a\n+++ b\n@@ -0,0 +1,2 @@\n+a\n+b\n");
    free(d);
    d = diff_text("a\nb\n", "", 3);
    CHECK_STR(d, "--- a\n+++ b\n@@ -1,2 +0,0 @@\n-a\n-b\n");
    free(d);
    /* Two changes far apart: two hunks; close together: one. */
    d = diff_text("a\n1\n2\n3\n4\n5\n6\n7\n8\nb\n", "A\n1\n2\n3\n4\n5\n6\n7\n8\nB\n", 1);
    CHECK_STR(d, "--- a\n+++ b\n@@ -1,2 +1,2 @@\n-a\n+A\n 1\n@@ -9,2 +9,2 @@\n 8\n-b\n+B\n");
    free(d);
    d = diff_text("a\n1\n2\nb\n", "A\n1\n2\nB\n", 1);
    CHECK_STR(d, "--- a\n+++ b\n@@ -1,4 +1,4 @@\n-a\n+A\n 1\n 2\n-b\n+B\n");
    free(d);
    /* The classic example of Myers' paper: ABCABBA -> CBABAC takes 5 edits. */
    d = diff_text("A\nB\nC\nA\nB\nB\nA\n", "C\nB\nA\nB\nA\nC\n", 0);
    CHECK_MSG(changed_lines(d) == 5, "%zu edits:\n%s", changed_lines(d), d);
    free(d);
    /* Random pairs: the diff applied to the old text gives the new one, and
     * it is no longer than deleting everything and inserting everything. */
    for (int trial = 0; trial < 300; trial++) {
        char *a = random_text(next_random(60), 1 + next_random(6));
        char *b = random_text(next_random(60), 1 + next_random(6));
        const int context = (int)next_random(4);
        d = diff_text(a, b, context);
        char *patched = apply_patch(a, d);
        CHECK_MSG(patched && strcmp(patched, b) == 0, "trial %d (context %d):\n%s\n-> \n%s\n",
                  trial, context, d, patched ? patched : "(does not apply)");
        size_t lines_a = 0, lines_b = 0;
        for (const char *p = a; *p; p++)
            lines_a += *p == '\n';
        for (const char *p = b; *p; p++)
            lines_b += *p == '\n';
        CHECK(changed_lines(d) <= lines_a + lines_b);
        free(patched);
        free(d);
        free(a);
        free(b);
    }
}

/* ------------------------------------------------------------------------ */
/* The markers                                                              */

static size_t check_text(const char *text, const char *expect)
{
    const wl_source_file file = {"test.cu", WARPLAB_BACKEND_CUDA, text};
    wl_marker_problem problems[4];
    size_t regions = 0;
    size_t count = wl_show_check_file(&file, problems, 4, &regions);
    if (expect) {
        CHECK_MSG(count >= 1 && strstr(problems[0].what, expect), "expected '%s', got %zu: %s",
                  expect, count, count ? problems[0].what : "");
    } else {
        CHECK_MSG(count == 0, "%s", count ? problems[0].what : "");
    }
    return regions;
}

/* The checks of a rung file (the whole file one rung's code), by its path. */
static void check_rung_file_text(const char *path, const char *text, const char *expect)
{
    const wl_source_file file = {path, WARPLAB_BACKEND_CUDA, text};
    wl_marker_problem problems[4];
    size_t regions = 0;
    size_t count = wl_show_check_file(&file, problems, 4, &regions);
    if (expect)
        CHECK_MSG(count >= 1 && strstr(problems[0].what, expect), "%s: expected '%s', got %zu: %s",
                  path, expect, count, count ? problems[0].what : "");
    else
        CHECK_MSG(count == 0, "%s: %s", path, count ? problems[0].what : "");
    CHECK(regions == 1);
}

static void test_marker_checker(void)
{
    /* Rung files: named by the rung's place in its ladder. */
    const wl_ladder *reduce = wl_ladder_find("reduce");
    const wl_rung *sequential = wl_rung_find(reduce, "sequential");
    char path[128];
    snprintf(path, sizeof path, "src/ladders/reduce/cuda/%02zu_sequential.cu",
             (size_t)(sequential - reduce->rungs) + 1);
    check_rung_file_text(path, "x\n", NULL);
    snprintf(path, sizeof path, "src/ladders/reduce/cuda/%02zu_sequential.cu",
             (size_t)(sequential - reduce->rungs) + 2);
    check_rung_file_text(path, "x\n", "is number");
    check_rung_file_text("src/ladders/reduce/cuda/03_nosuch.cu", "x\n", "no rung 'nosuch'");
    check_rung_file_text("src/ladders/nope/cuda/03_naive.cu", "x\n", "no ladder named 'nope'");
    snprintf(path, sizeof path, "src/ladders/reduce/cuda/%02zu_sequential.cu",
             (size_t)(sequential - reduce->rungs) + 1);
    check_rung_file_text(path, "x\n/* warplab:rung reduce sequential */\ny\n/* warplab:end */\n",
                         "a marker in a rung file");

    CHECK(check_text("// warplab:rung reduce naive interleaved\nx\n// warplab:end\n", NULL) == 1);
    check_text("// warplab:rung nope naive\nx\n// warplab:end\n", "no ladder named 'nope'");
    check_text("// warplab:rung reduce nosuch\nx\n// warplab:end\n", "no rung 'nosuch'");
    check_text("// warplab:rung reduce\nx\n// warplab:end\n", "names no rung");
    check_text("// warplab:rung reduce naive\nx\n", "has no warplab:end");
    check_text("x\n// warplab:end\n", "without a region");
    check_text("// warplab:rung reduce naive\n// warplab:rung reduce naive\n// warplab:end\n",
               "begins inside");
    check_text("#define K(x) \\\n  // warplab:rung reduce naive\n// warplab:end\n", "macro body");
    check_text("/* warplab:rung reduce naive */\nx\n/* warplab:end */\n", NULL);
    check_text("/* a comment\n/* warplab:rung reduce naive */\nx\n/* warplab:end */\n",
               "inside a comment");
    check_text("/* warplab:rung reduce naive\n * interleaved */\nx\n/* warplab:end */\n", NULL);
    check_text("const char *s = \"/*\";\n/* warplab:rung reduce naive */\nx\n/* warplab:end */\n",
               NULL);
}

/* Every marker of this build's sources is well formed; every rung that a
 * backend compiled in implements has code there, and no rung has code on a
 * backend that does not implement it. */
static void test_markers(void)
{
    wl_marker_problem problems[32];
    size_t regions = 0;
    size_t count = wl_show_check_markers(problems, 32, &regions);
    for (size_t i = 0; i < count && i < 32; i++)
        fprintf(stderr, "%s:%zu: %s\n", problems[i].file->path, problems[i].line, problems[i].what);
    CHECK_MSG(count == 0, "%zu marker problems", count);
    CHECK(regions > 0);
    CHECK(wl_source_file_count > 0);
    size_t missing = 0, extra = 0, rungs = 0;
    for (size_t l = 0; l < wl_ladder_count(); l++) {
        const wl_ladder *ladder = wl_ladder_at(l);
        for (size_t r = 0; r < ladder->rung_count; r++) {
            const wl_rung *rung = &ladder->rungs[r];
            rungs++;
            for (int b = 0; b < WL_SHOW_BACKENDS; b++) {
                const warplab_backend_kind kind = wl_show_backends[b];
                const wl_backend_ops *ops = wl_backend_ops_for(kind);
                if (!ops)
                    continue;
                /* Host rungs run on the cpu backend whatever the device. */
                const bool runs_here = (rung->flags & WL_RUNG_HOST)
                                           ? kind == WARPLAB_BACKEND_CPU
                                           : wl_ops_find_impl(ops, ladder->name, rung->id) != NULL;
                const bool found = wl_show_has_code(ladder, rung, kind);
                if (runs_here && !found) {
                    fprintf(stderr, "no marked source: %s/%s on %s\n", ladder->name, rung->id,
                            ops->name);
                    missing++;
                } else if (!runs_here && found) {
                    fprintf(stderr, "marked source of a rung %s does not run: %s/%s\n", ops->name,
                            ladder->name, rung->id);
                    extra++;
                }
            }
        }
    }
    CHECK_MSG(missing == 0, "%zu rung forms without marked source", missing);
    CHECK_MSG(extra == 0, "%zu marked regions on backends without the rung", extra);
    CHECK(rungs > 0);
}

/* warplab show on every ladder: every rung's header, code on some backend
 * for every rung that runs anywhere in this build, and a diff against the
 * rung below where there is one. */
static void test_show_every_rung(void)
{
    for (size_t l = 0; l < wl_ladder_count(); l++) {
        const wl_ladder *ladder = wl_ladder_at(l);
        char *out = NULL;
        size_t len = 0;
        FILE *stream = open_memstream(&out, &len);
        CHECK(warplab_show_write(ladder->name, NULL, WARPLAB_BACKEND_AUTO, stream) == WARPLAB_OK);
        fclose(stream);
        for (size_t r = 0; r < ladder->rung_count; r++) {
            const wl_rung *rung = &ladder->rungs[r];
            char header[160];
            snprintf(header, sizeof header, "%s / %s: ", ladder->name, rung->id);
            CHECK_MSG(strstr(out, header) != NULL, "no '%s'", header);
            /* One rung alone prints the same section. */
            char *one = NULL;
            size_t one_len = 0;
            FILE *s1 = open_memstream(&one, &one_len);
            CHECK(warplab_show_write(ladder->name, rung->id, WARPLAB_BACKEND_AUTO, s1) ==
                  WARPLAB_OK);
            fclose(s1);
            CHECK_MSG(strncmp(one, header, strlen(header)) == 0, "%s", one);
            CHECK_MSG(strstr(out, one) != NULL, "%s/%s alone differs from the walk", ladder->name,
                      rung->id);
            for (int b = 0; b < WL_SHOW_BACKENDS; b++) {
                const warplab_backend_kind kind = wl_show_backends[b];
                if (!warplab_backend_compiled(kind) || !wl_show_has_code(ladder, rung, kind))
                    continue;
                char section[64];
                snprintf(section, sizeof section, "== %s ==", wl_show_language(kind));
                CHECK_MSG(strstr(one, section) != NULL, "%s/%s lacks %s", ladder->name, rung->id,
                          section);
                const wl_rung *below = wl_show_rung_below(ladder, rung, kind);
                if (below) {
                    char diff_header[160];
                    snprintf(diff_header, sizeof diff_header, "--- %s/%s (%s)\n+++ %s/%s (%s)\n",
                             ladder->name, below->id, wl_show_language(kind), ladder->name,
                             rung->id, wl_show_language(kind));
                    CHECK_MSG(below < rung, "%s below %s", below->id, rung->id);
                    char same[160];
                    snprintf(same, sizeof same, "the same source as the rung below, %s ",
                             below->id);
                    CHECK_MSG(strstr(one, diff_header) != NULL || strstr(one, same) != NULL,
                              "%s/%s: no diff against %s", ladder->name, rung->id, below->id);
                }
            }
            free(one);
        }
        free(out);
    }
    /* The course's figure is quoted where the rung has one. */
    char *one = NULL;
    size_t one_len = 0;
    FILE *s1 = open_memstream(&one, &one_len);
    CHECK(warplab_show_write("reduce", "sequential", WARPLAB_BACKEND_AUTO, s1) == WARPLAB_OK);
    fclose(s1);
    const wl_rung *sequential = wl_rung_find(wl_ladder_find("reduce"), "sequential");
    char figure[160];
    wl_show_course_figure(sequential, figure, sizeof figure);
    CHECK(figure[0] != '\0');
    CHECK_MSG(strstr(one, figure) != NULL, "no '%s' in\n%s", figure, one);
    CHECK(strstr(one, sequential->course) != NULL);
    free(one);
    /* Errors. */
    FILE *null_stream = fopen("/dev/null", "w");
    CHECK(warplab_show_write("nope", NULL, WARPLAB_BACKEND_AUTO, null_stream) ==
          WARPLAB_ERROR_UNKNOWN_NAME);
    CHECK(strstr(warplab_last_error(NULL), "nope") != NULL);
    CHECK(warplab_show_write("reduce", "nope", WARPLAB_BACKEND_AUTO, null_stream) ==
          WARPLAB_ERROR_UNKNOWN_NAME);
    fclose(null_stream);
}

/* Counts the lines of text that start with prefix. */
static size_t lines_starting(const char *text, const char *prefix)
{
    size_t count = 0;
    for (const char *p = text; p && *p;) {
        count += strncmp(p, prefix, strlen(prefix)) == 0;
        p = strchr(p, '\n');
        p = p ? p + 1 : NULL;
    }
    return count;
}

/* The cuda rungs of reduce and transpose are one file each, numbered by
 * their place in the ladder (so that `ls` is the climb), and warplab show
 * prints such a rung as its file, once, and the diff against the rung
 * below's file, which applied to that file gives this one. */
static void test_rung_files(void)
{
    if (!warplab_backend_compiled(WARPLAB_BACKEND_CUDA)) {
        printf("the cuda backend is not compiled in: its rung files not checked\n");
        return;
    }
    const char *ladders[] = {"reduce", "transpose"};
    const wl_backend_ops *ops = wl_backend_ops_for(WARPLAB_BACKEND_CUDA);
    CHECK(ops != NULL);
    for (size_t l = 0; ops && l < sizeof ladders / sizeof ladders[0]; l++) {
        const wl_ladder *ladder = wl_ladder_find(ladders[l]);
        size_t files = 0;
        for (size_t r = 0; r < ladder->rung_count; r++) {
            const wl_rung *rung = &ladder->rungs[r];
            const wl_source_file *file =
                wl_show_rung_file(ladder->name, rung->id, WARPLAB_BACKEND_CUDA);
            if (!wl_ops_find_impl(ops, ladder->name, rung->id)) {
                CHECK_MSG(!file, "%s/%s has a cuda file but no cuda impl", ladder->name, rung->id);
                continue;
            }
            CHECK_MSG(file != NULL, "%s/%s: no file of its own on cuda", ladder->name, rung->id);
            if (!file)
                continue;
            files++;
            char path[160];
            snprintf(path, sizeof path, "src/ladders/%s/cuda/%02zu_%s.cu", ladder->name, r + 1,
                     rung->id);
            CHECK_STR(file->path, path);
            CHECK_MSG(wl_show_regions(ladder->name, rung->id, WARPLAB_BACKEND_CUDA, NULL, 0) == 0,
                      "%s/%s: a file and marked regions", ladder->name, rung->id);
        }
        CHECK(files >= 10);
    }

    /* warplab show reduce sequential: one file, then the diff against the
     * rung below's file. */
    const wl_ladder *reduce = wl_ladder_find("reduce");
    const wl_rung *sequential = wl_rung_find(reduce, "sequential");
    const wl_rung *below = wl_show_rung_below(reduce, sequential, WARPLAB_BACKEND_CUDA);
    CHECK(below == wl_rung_find(reduce, "strided_index"));
    const wl_source_file *file = wl_show_rung_file("reduce", "sequential", WARPLAB_BACKEND_CUDA);
    const wl_source_file *below_file =
        wl_show_rung_file("reduce", "strided_index", WARPLAB_BACKEND_CUDA);
    CHECK(file && below_file);
    if (!file || !below_file || !below)
        return;
    char *out = NULL;
    size_t len = 0;
    FILE *stream = open_memstream(&out, &len);
    CHECK(warplab_show_write("reduce", "sequential", WARPLAB_BACKEND_CUDA, stream) == WARPLAB_OK);
    fclose(stream);
    /* The file, whole, once: one "// path" line, and the text after it. */
    CHECK_MSG(lines_starting(out, "// ") == 1, "%zu files shown:\n%s", lines_starting(out, "// "),
              out);
    char *expected = malloc(strlen(file->path) + strlen(file->text) + 16);
    sprintf(expected, "// %s:1\n%s", file->path, file->text);
    CHECK_MSG(strstr(out, expected) != NULL, "the file is not shown whole:\n%s", out);
    free(expected);
    /* Then the diff, which turns the file below into this one. */
    const char *diff =
        strstr(out, "--- reduce/strided_index (CUDA C)\n+++ reduce/sequential (CUDA C)\n");
    CHECK_MSG(diff != NULL, "no diff against strided_index:\n%s", out);
    if (diff) {
        CHECK(strstr(out, file->text) < diff);
        warplab_status status = WARPLAB_OK;
        char *old_text = wl_show_source(reduce, below, WARPLAB_BACKEND_CUDA, false, &status);
        char *new_text = wl_show_source(reduce, sequential, WARPLAB_BACKEND_CUDA, false, &status);
        CHECK(old_text && new_text);
        char *patched = old_text ? apply_patch(old_text, diff) : NULL;
        CHECK_MSG(patched && new_text && strcmp(patched, new_text) == 0,
                  "the diff does not give sequential's file:\n%s", diff);
        CHECK(strstr(old_text, below_file->text) != NULL);
        CHECK(strstr(new_text, file->text) != NULL);
        free(patched);
        free(old_text);
        free(new_text);
    }
    free(out);
}

int main(void)
{
    test_diff();
    test_marker_checker();
    test_markers();
    test_rung_files();
    test_show_every_rung();
    return check_report("test_show");
}
