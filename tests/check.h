/* A minimal test vocabulary: CHECK keeps going and counts, the program's
 * exit status is the verdict (0 pass, 1 fail, 77 skip for CTest). */
#ifndef WARPLAB_TEST_CHECK_H
#define WARPLAB_TEST_CHECK_H

#include <math.h>
#include <stdio.h>
#include <string.h>

static int check_failures = 0;
static int check_count = 0;

#define CHECK(condition)                                                                           \
    do {                                                                                           \
        check_count++;                                                                             \
        if (!(condition)) {                                                                        \
            check_failures++;                                                                      \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #condition);          \
        }                                                                                          \
    } while (0)

#define CHECK_MSG(condition, ...)                                                                  \
    do {                                                                                           \
        check_count++;                                                                             \
        if (!(condition)) {                                                                        \
            check_failures++;                                                                      \
            fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #condition);          \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
        }                                                                                          \
    } while (0)

#define CHECK_NEAR(a, b, tolerance)                                                                \
    CHECK_MSG(fabs((double)(a) - (double)(b)) <= (tolerance), "%.17g vs %.17g", (double)(a),       \
              (double)(b))

#define CHECK_STR(a, b) CHECK_MSG(strcmp((a), (b)) == 0, "'%s' vs '%s'", (a), (b))

static inline int check_report(const char *name)
{
    printf("%s: %d checks, %d failed\n", name, check_count, check_failures);
    return check_failures ? 1 : 0;
}

#define TEST_SKIP 77

#endif
