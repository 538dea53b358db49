/* The course's errata and figures (src/ladders/errata.c, docs/COURSE.md).
 *
 *   test_errata              the table's shape: unique ids, every field given,
 *                            every ladder, probe and rung it names exists, and
 *                            a rung's errata ids as the report lists them
 *   test_errata --course-map docs/COURSE.md
 *                            also the map of the course: every rung, probe and
 *                            erratum it names exists, every erratum is on it
 *   test_errata --seeds DIR  also against the course itself (DIR holds the
 *                            seeds, NNN_*.txt): every erratum's quote is in its
 *                            seed, and every course figure a rung quotes is in
 *                            a seed its reference names; exits 77 (skip) when
 *                            DIR has no seeds */
#include "../check.h"
#include "internal.h"

#include "warplab_lab.h"
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool is_ladder(const char *name)
{
    for (size_t l = 0; l < warplab_ladder_count(); l++)
        if (!strcmp(warplab_ladder_name(l), name))
            return true;
    return false;
}

static bool is_probe(const char *name)
{
    for (size_t p = 0; p < warplab_probe_count(); p++)
        if (!strcmp(warplab_probe_name(p), name))
            return true;
    return false;
}

static void test_table(void)
{
    const size_t count = warplab_errata_count();
    CHECK_MSG(count >= 20, "only %zu errata", count);
    CHECK(warplab_erratum_get(count) == NULL);
    for (size_t i = 0; i < count; i++) {
        const warplab_erratum *e = warplab_erratum_get(i);
        CHECK(e != NULL);
        if (!e)
            continue;
        CHECK_MSG(e->id[0] && e->topic[0] && e->where[0] && e->quote[0] && e->why[0] &&
                      e->instead[0],
                  "erratum %zu ('%s') has an empty field", i, e->id);
        for (size_t j = 0; j < i; j++)
            CHECK_MSG(strcmp(warplab_erratum_get(j)->id, e->id) != 0, "id '%s' twice", e->id);
        CHECK_MSG(strlen(e->seed) == 3 && e->seed[0] == '0' && e->seed[1] == '0' &&
                      e->seed[2] >= '0' && e->seed[2] <= '4',
                  "%s: seed '%s' is not 000..004", e->id, e->seed);
        CHECK_MSG(!strcmp(e->topic, "course") || is_ladder(e->topic) || is_probe(e->topic),
                  "%s: no ladder or probe '%s'", e->id, e->topic);
        if (e->rung[0]) {
            warplab_rung_info info;
            CHECK_MSG(warplab_rung_describe(e->topic, e->rung, &info) == WARPLAB_OK,
                      "%s: no rung '%s' in ladder '%s'", e->id, e->rung, e->topic);
        }
        /* The report names the erratum on its rung's rows. */
        if (e->rung[0]) {
            char ids[512];
            wl_errata_ids(e->topic, e->rung, ids, sizeof ids);
            CHECK_MSG(strstr(ids, e->id) != NULL, "%s: not in its rung's ids '%s'", e->id, ids);
        }
    }
    /* The b[1] erratum is the one the issue names: the whole vecadd ladder. */
    char ids[96];
    wl_errata_ids("vecadd", "", ids, sizeof ids);
    CHECK_MSG(strstr(ids, "vecadd.b1") != NULL, "vecadd's ladder-wide errata: '%s'", ids);
    /* A buffer too small keeps only whole ids. */
    wl_errata_ids("reduce", "cascade", ids, 20);
    CHECK_MSG(!strcmp(ids, "") || !strcmp(ids, "reduce.reduce7_assigns"), "truncated ids '%s'",
              ids);
    wl_errata_ids("reduce", "cascade", ids, sizeof ids);
    CHECK_STR(ids, "reduce.reduce7_assigns reduce.cascade_unguarded");
    wl_errata_ids("reduce", "no_such_rung", ids, sizeof ids);
    CHECK_STR(ids, "");
}

/* ------------------------------------------------------------------------ */
/* Against the seeds                                                        */

/* The length of the white space at p: ASCII blanks, and the no-break
 * (U+00A0) and ideographic (U+3000) spaces of the extracted slides. */
static size_t white_at(const char *p)
{
    const unsigned char *u = (const unsigned char *)p;
    if (u[0] == ' ' || u[0] == '\t' || u[0] == '\n' || u[0] == '\r')
        return 1;
    if (u[0] == 0xc2 && u[1] == 0xa0)
        return 2;
    if (u[0] == 0xe3 && u[1] == 0x80 && u[2] == 0x80)
        return 3;
    return 0;
}

/* Runs of white space as one space (the seeds are extracted from slides). */
static char *squeeze(const char *text)
{
    char *out = malloc(strlen(text) + 1);
    if (!out)
        return NULL;
    size_t n = 0;
    bool space = false;
    for (const char *p = text; *p; p++) {
        const size_t white = white_at(p);
        if (white) {
            space = true;
            p += white - 1;
            continue;
        }
        if (space && n)
            out[n++] = ' ';
        space = false;
        out[n++] = *p;
    }
    out[n] = '\0';
    return out;
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = size >= 0 ? malloc((size_t)size + 1) : NULL;
    if (text && fread(text, 1, (size_t)size, f) != (size_t)size) {
        free(text);
        text = NULL;
    }
    if (text)
        text[size] = '\0';
    fclose(f);
    return text;
}

static char *seed_text[5]; /* squeezed, by seed number */

static bool load_seeds(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return false;
    struct dirent *entry;
    while ((entry = readdir(d)) != NULL) {
        const char *name = entry->d_name;
        if (strlen(name) < 8 || name[0] != '0' || name[1] != '0' || name[2] < '0' ||
            name[2] > '4' || name[3] != '_' || strcmp(name + strlen(name) - 4, ".txt") != 0)
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, name);
        char *raw = read_file(path);
        if (raw) {
            free(seed_text[name[2] - '0']);
            seed_text[name[2] - '0'] = squeeze(raw);
        }
        free(raw);
    }
    closedir(d);
    for (int s = 0; s < 5; s++)
        if (!seed_text[s])
            return false;
    return true;
}

static void test_quotes(void)
{
    const warplab_erratum *e;
    for (size_t i = 0; (e = warplab_erratum_get(i)) != NULL; i++) {
        char *quote = squeeze(e->quote);
        CHECK(quote != NULL);
        if (quote)
            CHECK_MSG(strstr(seed_text[e->seed[2] - '0'], quote) != NULL,
                      "%s: seed %s does not contain \"%s\"", e->id, e->seed, e->quote);
        free(quote);
    }
}

/* A figure as the course prints it: 15.72, 2.083, 345.6, 15. */
static bool figure_in_seeds(double value, const char *reference)
{
    char text[32];
    snprintf(text, sizeof text, "%g", value);
    for (const char *p = strstr(reference, "seed "); p; p = strstr(p + 5, "seed ")) {
        if (p[5] != '0' || p[6] != '0' || p[7] < '0' || p[7] > '4')
            continue;
        const char *seed = seed_text[p[7] - '0'];
        for (const char *hit = strstr(seed, text); hit; hit = strstr(hit + 1, text)) {
            /* a whole number, not part of a longer one: 15.7 is not in 15.72 */
            const char after = hit[strlen(text)];
            const char before = hit == seed ? ' ' : hit[-1];
            if (!(after >= '0' && after <= '9') && !(before >= '0' && before <= '9') &&
                before != '.' &&
                !(after == '.' && hit[strlen(text) + 1] >= '0' && hit[strlen(text) + 1] <= '9'))
                return true;
        }
    }
    return false;
}

static void test_figures(void)
{
    size_t figures = 0;
    for (size_t l = 0; l < warplab_ladder_count(); l++) {
        const char *ladder = warplab_ladder_name(l);
        const char *rung;
        for (size_t r = 0; (rung = warplab_ladder_rung(ladder, r, NULL)) != NULL; r++) {
            warplab_rung_info info;
            if (warplab_rung_describe(ladder, rung, &info) != WARPLAB_OK)
                continue;
            const double values[2] = {info.course_value, info.course_value2};
            for (int v = 0; v < 2; v++) {
                if (values[v] <= 0)
                    continue;
                figures++;
                CHECK_MSG(figure_in_seeds(values[v], info.course),
                          "%s/%s: the course figure %g is in none of the seeds named by \"%s\"",
                          ladder, rung, values[v], info.course);
            }
        }
    }
    CHECK_MSG(figures >= 10, "only %zu course figures", figures);
}

/* ------------------------------------------------------------------------ */
/* docs/COURSE.md's map                                                     */

/* Every `LADDER/RUNG`, `probe NAME` and `erratum ID` the map names exists,
 * and every erratum is on the map. */
static void test_course_map(const char *path)
{
    char *text = read_file(path);
    CHECK_MSG(text != NULL, "cannot read %s", path);
    if (!text)
        return;
    size_t names = 0;
    const size_t errata_count = warplab_errata_count();
    bool *mapped = calloc(errata_count ? errata_count : 1, sizeof *mapped);
    for (char *open = strchr(text, '`'); open; open = strchr(open + 1, '`')) {
        char *close = strchr(open + 1, '`');
        if (!close)
            break;
        char token[160];
        const size_t len = (size_t)(close - open - 1);
        if (len < sizeof token) {
            memcpy(token, open + 1, len);
            token[len] = '\0';
            char *slash = strchr(token, '/');
            if (!strncmp(token, "probe ", 6)) {
                names++;
                CHECK_MSG(is_probe(token + 6), "%s: no probe '%s'", path, token + 6);
            } else if (!strncmp(token, "erratum ", 8)) {
                names++;
                bool found = false;
                for (size_t i = 0; i < errata_count; i++)
                    if (!strcmp(warplab_erratum_get(i)->id, token + 8))
                        found = mapped[i] = true;
                CHECK_MSG(found, "%s: no erratum '%s'", path, token + 8);
            } else if (slash && !strchr(token, ' ') && !strchr(token, '.') &&
                       is_ladder((*slash = '\0', token))) {
                names++;
                warplab_rung_info info;
                CHECK_MSG(warplab_rung_describe(token, slash + 1, &info) == WARPLAB_OK,
                          "%s: no rung '%s' in ladder '%s'", path, slash + 1, token);
            }
        }
        open = close;
    }
    CHECK_MSG(names >= 50, "%s names only %zu rungs, probes and errata", path, names);
    for (size_t i = 0; i < errata_count; i++)
        CHECK_MSG(mapped[i], "erratum %s is not on %s's map", warplab_erratum_get(i)->id, path);
    free(mapped);
    free(text);
}

int main(int argc, char **argv)
{
    const char *seeds = NULL, *course_map = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seeds") && i + 1 < argc)
            seeds = argv[++i];
        else if (!strcmp(argv[i], "--course-map") && i + 1 < argc)
            course_map = argv[++i];
        else {
            fprintf(stderr, "usage: test_errata [--course-map docs/COURSE.md] [--seeds DIR]\n");
            return 2;
        }
    }
    test_table();
    if (course_map)
        test_course_map(course_map);
    if (seeds) {
        if (!load_seeds(seeds)) {
            printf("test_errata: the course's seeds (000..004_*.txt) are not in %s: skipped\n",
                   seeds);
            return TEST_SKIP;
        }
        test_quotes();
        test_figures();
    }
    return check_report("test_errata");
}
