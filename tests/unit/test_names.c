/* The API's small vocabulary: size parsing, status strings, backend and
 * element-type names, the version. */
#include "../check.h"
#include "internal.h"

#include "warplab_lab.h"
#include <stdint.h>
#include <string.h>

static void expect_size(const char *text, int dims, size_t a, size_t b, size_t c)
{
    size_t sizes[3] = {7, 7, 7};
    int given = -1;
    warplab_status status = warplab_parse_size(text, sizes, &given);
    CHECK_MSG(status == WARPLAB_OK, "'%s': %s", text, warplab_status_string(status));
    CHECK_MSG(given == dims, "'%s': %d dimensions, expected %d", text, given, dims);
    const size_t expected[3] = {a, b, c};
    for (int i = 0; i < 3; i++)
        CHECK_MSG(sizes[i] == expected[i], "'%s': dimension %d is %zu, expected %zu", text, i,
                  sizes[i], expected[i]);
}

static void expect_bad_size(const char *text)
{
    size_t sizes[3] = {7, 8, 9};
    int given = -1;
    warplab_status status = warplab_parse_size(text, sizes, &given);
    CHECK_MSG(status == WARPLAB_ERROR_INVALID_ARGUMENT, "'%s' parsed (%s)", text,
              warplab_status_string(status));
    CHECK_MSG(sizes[0] == 7 && sizes[1] == 8 && sizes[2] == 9 && given == -1,
              "'%s': a failed parse wrote its outputs", text);
}

static void test_parse_size(void)
{
    expect_size("268435456", 1, 268435456, 0, 0);
    expect_size("2^28", 1, 268435456, 0, 0);
    expect_size("256M", 1, 268435456, 0, 0);
    expect_size("256m", 1, 268435456, 0, 0);
    expect_size("1K", 1, 1024, 0, 0);
    expect_size("1k", 1, 1024, 0, 0);
    expect_size("4G", 1, (size_t)4 << 30, 0, 0);
    expect_size("0", 1, 0, 0, 0);
    expect_size("1", 1, 1, 0, 0);
    expect_size("2^0", 1, 1, 0, 0);
    expect_size("2^10K", 1, 1u << 20, 0, 0);
    expect_size("4096x4096", 2, 4096, 4096, 0);
    expect_size("4096X4096", 2, 4096, 4096, 0);
    expect_size("4096*4096", 2, 4096, 4096, 0);
    expect_size("64x64x64", 3, 64, 64, 64);
    expect_size("1Kx2^10x3", 3, 1024, 1024, 3);
    expect_size("0x10", 2, 0, 10, 0); /* zero by ten, not hexadecimal */
    expect_size("16777216G", 1, (size_t)1 << 54, 0, 0);
    expect_size("2^63", 1, (size_t)1 << 63, 0, 0);
    expect_size("18446744073709551615", 1, SIZE_MAX, 0, 0);

    const char *bad[] = {"",
                         "x",
                         "2^",
                         "12abc",
                         "1x2x3x4",
                         "2^64",
                         "-5",
                         " 5",
                         "5 ",
                         "1x",
                         "x1",
                         "1xx1",
                         "^2",
                         "2^x",
                         "2^3^4",
                         "1T",
                         "1KK",
                         "K",
                         "18446744073709551616",
                         "3^41",
                         "17179869184G",
                         "1.5M",
                         "+5"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        expect_bad_size(bad[i]);

    size_t sizes[3];
    int dims;
    CHECK(warplab_parse_size(NULL, sizes, &dims) == WARPLAB_ERROR_INVALID_ARGUMENT);
    CHECK(warplab_parse_size("1", NULL, &dims) == WARPLAB_ERROR_INVALID_ARGUMENT);
    CHECK(warplab_parse_size("1", sizes, NULL) == WARPLAB_ERROR_INVALID_ARGUMENT);
}

static void test_status_strings(void)
{
    for (int a = 0; a < WARPLAB_STATUS_COUNT; a++) {
        const char *text = warplab_status_string((warplab_status)a);
        CHECK_MSG(text && *text, "status %d has no string", a);
        CHECK_MSG(strcmp(text, warplab_status_string(WARPLAB_STATUS_COUNT)) != 0,
                  "status %d reads as unknown", a);
        for (int b = 0; b < a; b++)
            CHECK_MSG(strcmp(text, warplab_status_string((warplab_status)b)) != 0,
                      "statuses %d and %d share '%s'", a, b, text);
    }
    CHECK_STR(warplab_status_string(WARPLAB_OK), "success");
    const char *unknown = warplab_status_string((warplab_status)1000);
    CHECK(unknown && *unknown);
    CHECK_STR(unknown, warplab_status_string((warplab_status)-1));
}

static void test_backend_names(void)
{
    static const struct {
        const char *name;
        warplab_backend_kind kind;
    } names[] = {{"auto", WARPLAB_BACKEND_AUTO},     {"cuda", WARPLAB_BACKEND_CUDA},
                 {"CUDA", WARPLAB_BACKEND_CUDA},     {"opencl", WARPLAB_BACKEND_OPENCL},
                 {"OpenCL", WARPLAB_BACKEND_OPENCL}, {"cpu", WARPLAB_BACKEND_CPU}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        warplab_backend_kind kind = (warplab_backend_kind)-1;
        CHECK_MSG(warplab_backend_parse(names[i].name, &kind) == WARPLAB_OK &&
                      kind == names[i].kind,
                  "'%s'", names[i].name);
    }
    for (int k = 0; k < WARPLAB_BACKEND_COUNT; k++) {
        warplab_backend_kind kind = (warplab_backend_kind)-1;
        const char *name = warplab_backend_name((warplab_backend_kind)k);
        CHECK(warplab_backend_parse(name, &kind) == WARPLAB_OK && kind == (warplab_backend_kind)k);
    }
    warplab_backend_kind kind = WARPLAB_BACKEND_CPU;
    CHECK(warplab_backend_parse("gpu", &kind) == WARPLAB_ERROR_UNKNOWN_NAME);
    CHECK(warplab_backend_parse("", &kind) == WARPLAB_ERROR_UNKNOWN_NAME);
    CHECK(warplab_backend_parse("cud", &kind) == WARPLAB_ERROR_UNKNOWN_NAME);
    CHECK(kind == WARPLAB_BACKEND_CPU);
    CHECK(warplab_backend_parse(NULL, &kind) == WARPLAB_ERROR_INVALID_ARGUMENT);
    CHECK(warplab_backend_parse("cpu", NULL) == WARPLAB_ERROR_INVALID_ARGUMENT);
    CHECK_STR(warplab_backend_name(WARPLAB_BACKEND_COUNT), "unknown");
    CHECK(warplab_backend_compiled(WARPLAB_BACKEND_CPU) == 1);
    CHECK(warplab_backend_compiled(WARPLAB_BACKEND_AUTO) == 1);
#ifdef WARPLAB_HAVE_CUDA
    CHECK(warplab_backend_compiled(WARPLAB_BACKEND_CUDA) == 1);
#else
    CHECK(warplab_backend_compiled(WARPLAB_BACKEND_CUDA) == 0);
#endif
#ifdef WARPLAB_HAVE_OPENCL
    CHECK(warplab_backend_compiled(WARPLAB_BACKEND_OPENCL) == 1);
#else
    CHECK(warplab_backend_compiled(WARPLAB_BACKEND_OPENCL) == 0);
#endif
}

static void test_dtype_names(void)
{
    static const struct {
        const char *name;
        warplab_dtype dtype;
    } names[] = {
        {"int32", WARPLAB_INT32},   {"int", WARPLAB_INT32},       {"i32", WARPLAB_INT32},
        {"float", WARPLAB_FLOAT32}, {"float32", WARPLAB_FLOAT32}, {"FP32", WARPLAB_FLOAT32},
        {"f32", WARPLAB_FLOAT32},   {"double", WARPLAB_FLOAT64},  {"float64", WARPLAB_FLOAT64},
        {"f64", WARPLAB_FLOAT64},   {"bf16", WARPLAB_BFLOAT16},   {"bfloat16", WARPLAB_BFLOAT16},
        {"fp16", WARPLAB_FLOAT16},  {"half", WARPLAB_FLOAT16}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        warplab_dtype dtype = (warplab_dtype)-1;
        CHECK_MSG(warplab_dtype_parse(names[i].name, &dtype) == WARPLAB_OK &&
                      dtype == names[i].dtype,
                  "'%s'", names[i].name);
    }
    for (int t = 0; t < WARPLAB_DTYPE_COUNT; t++) {
        warplab_dtype dtype = (warplab_dtype)-1;
        CHECK(warplab_dtype_parse(warplab_dtype_name((warplab_dtype)t), &dtype) == WARPLAB_OK &&
              dtype == (warplab_dtype)t);
    }
    CHECK(warplab_dtype_size(WARPLAB_INT32) == 4);
    CHECK(warplab_dtype_size(WARPLAB_FLOAT32) == 4);
    CHECK(warplab_dtype_size(WARPLAB_FLOAT64) == 8);
    CHECK(warplab_dtype_size(WARPLAB_BFLOAT16) == 2);
    CHECK(warplab_dtype_size(WARPLAB_FLOAT16) == 2);
    CHECK(warplab_dtype_size(WARPLAB_DTYPE_COUNT) == 0);
    CHECK_STR(warplab_dtype_name(WARPLAB_DTYPE_COUNT), "unknown");
    warplab_dtype dtype = WARPLAB_FLOAT64;
    CHECK(warplab_dtype_parse("quarter", &dtype) == WARPLAB_ERROR_UNKNOWN_NAME);
    CHECK(warplab_dtype_parse("", &dtype) == WARPLAB_ERROR_UNKNOWN_NAME);
    CHECK(dtype == WARPLAB_FLOAT64);
    CHECK(warplab_dtype_parse(NULL, &dtype) == WARPLAB_ERROR_INVALID_ARGUMENT);
    CHECK(warplab_dtype_parse("float", NULL) == WARPLAB_ERROR_INVALID_ARGUMENT);
}

static void test_version(void)
{
    CHECK_STR(warplab_version(), WARPLAB_VERSION_STRING);
    char expected[32];
    snprintf(expected, sizeof expected, "%d.%d.%d", WARPLAB_VERSION_MAJOR, WARPLAB_VERSION_MINOR,
             WARPLAB_VERSION_PATCH);
    CHECK_STR(warplab_version(), expected);
}

int main(void)
{
    test_parse_size();
    test_status_strings();
    test_backend_names();
    test_dtype_names();
    test_version();
    return check_report("test_names");
}
