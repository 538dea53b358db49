/* The harness's utilities: statistics, the element check, the random fill. */
#include "../check.h"
#include "internal.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void test_stats(void)
{
    wl_stats s;
    /* Odd count: the middle value; sample standard deviation over the mean. */
    double odd[] = {5.0, 1.0, 3.0};
    wl_stats_compute(odd, 3, &s);
    CHECK_NEAR(s.median, 3.0, 0.0);
    CHECK_NEAR(s.min, 1.0, 0.0);
    CHECK_NEAR(s.max, 5.0, 0.0);
    CHECK_NEAR(s.mean, 3.0, 1e-15);
    CHECK_NEAR(s.rel_stddev_pct, 100.0 * 2.0 / 3.0, 1e-12); /* sqrt((4 + 0 + 4) / 2) = 2 */
    CHECK(odd[0] == 1.0 && odd[1] == 3.0 && odd[2] == 5.0); /* sorted in place */

    /* Even count: the mean of the two middle values. */
    double even[] = {4.0, 1.0, 3.0, 2.0};
    wl_stats_compute(even, 4, &s);
    CHECK_NEAR(s.median, 2.5, 0.0);
    CHECK_NEAR(s.mean, 2.5, 1e-15);

    /* The textbook sample: mean 5, sum of squares 32, sample variance 32/7. */
    double known[] = {2, 4, 4, 4, 5, 5, 7, 9};
    wl_stats_compute(known, 8, &s);
    CHECK_NEAR(s.median, 4.5, 0.0);
    CHECK_NEAR(s.mean, 5.0, 1e-15);
    CHECK_NEAR(s.rel_stddev_pct, 100.0 * sqrt(32.0 / 7.0) / 5.0, 1e-12);

    double same[] = {0.25, 0.25, 0.25, 0.25};
    wl_stats_compute(same, 4, &s);
    CHECK_NEAR(s.rel_stddev_pct, 0.0, 0.0);
    CHECK_NEAR(s.median, 0.25, 0.0);

    double one[] = {7.5};
    wl_stats_compute(one, 1, &s);
    CHECK(s.median == 7.5 && s.min == 7.5 && s.max == 7.5 && s.mean == 7.5);
    CHECK(s.rel_stddev_pct == 0.0);

    memset(&s, 0x7F, sizeof s);
    wl_stats_compute(NULL, 0, &s);
    CHECK(s.median == 0.0 && s.min == 0.0 && s.max == 0.0 && s.mean == 0.0 &&
          s.rel_stddev_pct == 0.0);

    /* A median is robust: one outlier moves the mean, not the median. */
    double outlier[] = {1.0, 1.0, 1.0, 1.0, 1000.0};
    wl_stats_compute(outlier, 5, &s);
    CHECK_NEAR(s.median, 1.0, 0.0);
    CHECK(s.mean > 100.0);
}

static void test_check_value(void)
{
    wl_check c;
    wl_check_init(&c);
    CHECK(c.checked == 0 && c.bad == 0 && c.first_bad == (size_t)-1 && c.worst_ratio == 0.0);

    /* Exact compares (bound 0) and bounds. */
    CHECK(wl_check_value(&c, 0, 1.0, 1.0, 0.0));
    CHECK(wl_check_value(&c, 1, 1.5, 1.0, 0.5)); /* on the bound passes */
    CHECK_NEAR(c.worst_ratio, 1.0, 1e-15);
    CHECK(wl_check_value(&c, 2, 0.75, 1.0, 0.5));
    CHECK(c.bad == 0 && c.checked == 3);
    CHECK(!wl_check_value(&c, 3, 2.0, 1.0, 0.5)); /* twice the bound */
    CHECK(c.bad == 1 && c.first_bad == 3 && c.got == 2.0 && c.expected == 1.0);
    CHECK_NEAR(c.worst_ratio, 2.0, 1e-15);
    CHECK(!wl_check_value(&c, 4, 1.0 + 1e-12, 1.0, 0.0)); /* any difference, bound 0 */
    CHECK(isinf(c.worst_ratio));
    CHECK(c.bad == 2 && c.first_bad == 3 && c.got == 2.0); /* the first stays */
    CHECK(c.checked == 5);

    /* NaN passes only where NaN is expected. */
    wl_check_init(&c);
    CHECK(wl_check_value(&c, 0, NAN, NAN, 0.0));
    CHECK(!wl_check_value(&c, 1, 0.0, NAN, 1e30));
    CHECK(!wl_check_value(&c, 2, NAN, 0.0, 1e30));
    CHECK(!wl_check_value(&c, 3, NAN, INFINITY, 1e30));
    CHECK(c.bad == 3 && c.first_bad == 1);

    /* Infinities: equal ones pass, whatever the bound says otherwise. */
    wl_check_init(&c);
    CHECK(wl_check_value(&c, 0, INFINITY, INFINITY, 0.0));
    CHECK(wl_check_value(&c, 1, -INFINITY, -INFINITY, 0.0));
    CHECK(!wl_check_value(&c, 2, -INFINITY, INFINITY, 1e300));
    CHECK(!wl_check_value(&c, 3, INFINITY, 1e308, 1e308));
    CHECK(!wl_check_value(&c, 4, 1e308, INFINITY, 1e308));
    CHECK(c.bad == 3 && c.first_bad == 2 && isinf(c.worst_ratio));

    /* The poison the harness writes (a NaN as float) never passes for a number. */
    uint32_t poison = WL_POISON_PATTERN;
    float poisoned;
    memcpy(&poisoned, &poison, sizeof poisoned);
    CHECK(isnan(poisoned));
    wl_check_init(&c);
    CHECK(!wl_check_value(&c, 0, (double)poisoned, 0.5, 1.0));
}

static bool same_bytes(const void *a, const void *b, size_t n)
{
    return memcmp(a, b, n) == 0;
}

static void test_fill_random(void)
{
    /* Across the parallel chunks (2^20 elements each): deterministic per seed. */
    const size_t n = ((size_t)1 << 20) * 2 + 12345;
    float *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    CHECK(a && b);
    if (!a || !b)
        return;
    wl_fill_random(a, WARPLAB_FLOAT32, n, -1.0, 1.0, 42);
    wl_fill_random(b, WARPLAB_FLOAT32, n, -1.0, 1.0, 42);
    CHECK(same_bytes(a, b, n * sizeof *a));
    wl_fill_random(b, WARPLAB_FLOAT32, n, -1.0, 1.0, 43);
    CHECK(!same_bytes(a, b, n * sizeof *a));
    size_t zeros = 0, negative = 0, equal_neighbours = 0;
    float lo = 1.0f, hi = -1.0f;
    for (size_t i = 0; i < n; i++) {
        zeros += a[i] == 0.0f;
        negative += a[i] < 0.0f;
        equal_neighbours += i > 0 && a[i] == a[i - 1];
        lo = a[i] < lo ? a[i] : lo;
        hi = a[i] > hi ? a[i] : hi;
    }
    CHECK(lo >= -1.0f && hi <= 1.0f);
    CHECK(lo < -0.99f && hi > 0.99f); /* the whole range is used */
    CHECK(zeros < 16);                /* never all zero, nor mostly */
    CHECK(negative > n / 2 - n / 50 && negative < n / 2 + n / 50);
    CHECK(equal_neighbours < 64);
    /* Chunks differ from one another (each has its own stream). */
    CHECK(!same_bytes(a, a + ((size_t)1 << 20), 4096 * sizeof *a));
    free(a);
    free(b);

    /* Integers: the range is inclusive at both ends. */
    const size_t m = 100000;
    int32_t *ints = malloc(m * sizeof *ints);
    CHECK(ints != NULL);
    if (ints) {
        wl_fill_random(ints, WARPLAB_INT32, m, -3.0, 3.0, 7);
        size_t seen[7] = {0};
        bool in_range = true;
        for (size_t i = 0; i < m; i++) {
            if (ints[i] < -3 || ints[i] > 3)
                in_range = false;
            else
                seen[ints[i] + 3]++;
        }
        CHECK(in_range);
        for (int v = 0; v < 7; v++)
            CHECK_MSG(seen[v] > m / 7 - m / 50 && seen[v] < m / 7 + m / 50, "%d drawn %zu times",
                      v - 3, seen[v]);
        /* A one-value range gives that value. */
        wl_fill_random(ints, WARPLAB_INT32, 100, 5.0, 5.0, 7);
        bool all_five = true;
        for (size_t i = 0; i < 100; i++)
            all_five = all_five && ints[i] == 5;
        CHECK(all_five);
        free(ints);
    }

    /* Doubles: in range, deterministic. */
    double d1[1000], d2[1000];
    wl_fill_random(d1, WARPLAB_FLOAT64, 1000, 10.0, 20.0, 99);
    wl_fill_random(d2, WARPLAB_FLOAT64, 1000, 10.0, 20.0, 99);
    CHECK(same_bytes(d1, d2, sizeof d1));
    bool d_in_range = true;
    for (int i = 0; i < 1000; i++)
        d_in_range = d_in_range && d1[i] >= 10.0 && d1[i] <= 20.0;
    CHECK(d_in_range);

    /* Zero elements write nothing. */
    float untouched[4] = {1, 2, 3, 4};
    wl_fill_random(untouched, WARPLAB_FLOAT32, 0, -1.0, 1.0, 1);
    CHECK(untouched[0] == 1 && untouched[3] == 4);
}

static void test_rng(void)
{
    wl_rng r1, r2;
    wl_rng_seed(&r1, 123);
    wl_rng_seed(&r2, 123);
    bool same = true, in_unit = true;
    for (int i = 0; i < 1000; i++) {
        same = same && wl_rng_next(&r1) == wl_rng_next(&r2);
        double u = wl_rng_uniform(&r1);
        (void)wl_rng_uniform(&r2);
        in_unit = in_unit && u >= 0.0 && u < 1.0;
    }
    CHECK(same && in_unit);
    /* Seed 0 is a seed like any other (splitmix64 avoids an all-zero state). */
    wl_rng_seed(&r1, 0);
    CHECK(r1.s[0] | r1.s[1] | r1.s[2] | r1.s[3]);
    CHECK(wl_rng_next(&r1) != wl_rng_next(&r1));
}

static void test_strings(void)
{
    char small[8];
    wl_copy_string(small, sizeof small, "abcdefghijkl");
    CHECK_STR(small, "abcdefg");
    wl_copy_string(small, sizeof small, NULL);
    CHECK_STR(small, "");
    wl_format(small, sizeof small, "%d-%s", 12345, "xyz");
    CHECK_STR(small, "12345-x");
}

int main(void)
{
    test_stats();
    test_check_value();
    test_fill_random();
    test_rng();
    test_strings();
    return check_report("test_util");
}
