/* Misuse is refused, and every failure says so where warplab_last_error
 * looks, naming the function called.
 *   test_misuse --backend cpu|opencl|cuda
 * 1. Failure paths (context-free ones on the thread's slot, the others on
 *    the context's): each call fails, and its message is non-empty, starts
 *    with the called function's name and is current (a different failure
 *    came just before it).
 * 2. Aliasing: every operation refuses the overlaps its header forbids
 *    (the same buffer, views over one memory) with
 *    WARPLAB_ERROR_INVALID_ARGUMENT, writing nothing; what it allows (vecadd
 *    in place) works.
 * Exit 77 when the backend has no device. */
#include "check.h"
#include "warplab_lab.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static warplab_context *context;

/* A failure the next check must not see: UNKNOWN_NAME in the thread's slot,
 * and a failure in the context's. */
static void stale(void)
{
    warplab_backend_kind kind;
    (void)warplab_backend_parse("no-such-backend", &kind);
    if (context)
        (void)warplab_vecadd(context, NULL, NULL, NULL, 1);
}

/* status failed with a current message that starts with "function:". */
#define CHECK_FAILED(call, function, slot)                                                         \
    do {                                                                                           \
        stale();                                                                                   \
        warplab_status status_ = (call);                                                           \
        const char *message_ = warplab_last_error(slot);                                           \
        CHECK_MSG(status_ != WARPLAB_OK, "%s succeeded", #call);                                   \
        CHECK_MSG(message_ &&strncmp(message_, function ": ", strlen(function) + 2) == 0 &&        \
                      strlen(message_) > strlen(function) + 2,                                     \
                  "%s: message '%s' does not name " function, #call, message_ ? message_ : "");    \
    } while (0)

static void failure_paths(warplab_backend_kind backend)
{
    warplab_context *none = NULL;
    float host[16] = {0};
    size_t sizes[3];
    int dims = 0;
    warplab_dtype dtype;
    warplab_reduce_op op;
    warplab_rung_info info;
    size_t count = 0;
    warplab_device_info devices[2];

    /* Context-free calls: the thread's slot. */
    CHECK_FAILED(warplab_context_create(backend, -1, NULL), "warplab_context_create", NULL);
    CHECK_FAILED(warplab_context_create((warplab_backend_kind)99, 0, &none),
                 "warplab_context_create", NULL);
    CHECK_FAILED(warplab_context_create(backend, 1000, &none), "warplab_context_create", NULL);
    CHECK_FAILED(warplab_devices(WARPLAB_BACKEND_AUTO, devices, 2, &count), "warplab_devices",
                 NULL);
    CHECK_FAILED(warplab_parse_size("2^64", sizes, &dims), "warplab_parse_size", NULL);
    CHECK(strstr(warplab_last_error(NULL), "out of range") != NULL);
    CHECK_FAILED(warplab_parse_size("12q", sizes, &dims), "warplab_parse_size", NULL);
    CHECK(strstr(warplab_last_error(NULL), "cannot read") != NULL);
    CHECK_FAILED(warplab_backend_parse("nope", NULL), "warplab_backend_parse", NULL);
    CHECK_FAILED(warplab_dtype_parse("nope", &dtype), "warplab_dtype_parse", NULL);
    CHECK_FAILED(warplab_reduce_op_parse("nope", &op), "warplab_reduce_op_parse", NULL);
    CHECK_FAILED(warplab_rung_describe("gemm", "nope", &info), "warplab_rung_describe", NULL);

    /* A NULL context or buffer: the thread's slot. */
    warplab_bench_options options;
    memset(&options, 0, sizeof options);
    warplab_report *report = NULL;
    warplab_buffer *buffer = NULL;
    warplab_probe_result *probe = NULL;
    float sum = 0;
    CHECK_FAILED(warplab_buffer_create(NULL, 16, &buffer), "warplab_buffer_create", NULL);
    CHECK_FAILED(warplab_buffer_wrap(NULL, host, 16, &buffer), "warplab_buffer_wrap", NULL);
    CHECK_FAILED(warplab_buffer_write(NULL, 0, host, 4), "warplab_buffer_write", NULL);
    CHECK_FAILED(warplab_buffer_read(NULL, 0, host, 4), "warplab_buffer_read", NULL);
    CHECK_FAILED(warplab_buffer_view(NULL, 0, 4, &buffer), "warplab_buffer_view", NULL);
    CHECK_FAILED(warplab_context_synchronize(NULL), "warplab_context_synchronize", NULL);
    CHECK_FAILED(warplab_context_set_stream(NULL, NULL), "warplab_context_set_stream", NULL);
    CHECK_FAILED(warplab_vecadd(NULL, NULL, NULL, NULL, 1), "warplab_vecadd", NULL);
    CHECK_FAILED(warplab_reduce(NULL, WARPLAB_FLOAT32, WARPLAB_REDUCE_SUM, NULL, 1, &sum),
                 "warplab_reduce", NULL);
    CHECK_FAILED(
        warplab_reduce_to_buffer(NULL, WARPLAB_FLOAT32, WARPLAB_REDUCE_SUM, NULL, 1, NULL, 0),
        "warplab_reduce_to_buffer", NULL);
    CHECK_FAILED(warplab_transpose(NULL, WARPLAB_FLOAT32, 1, 1, NULL, 0, NULL, 0),
                 "warplab_transpose", NULL);
    CHECK_FAILED(warplab_scan(NULL, WARPLAB_FLOAT32, WARPLAB_REDUCE_SUM, WARPLAB_SCAN_INCLUSIVE,
                              NULL, NULL, 1),
                 "warplab_scan", NULL);
    CHECK_FAILED(warplab_gemm(NULL, 1, 1, 1, 1, NULL, 0, NULL, 0, 0, NULL, 0), "warplab_gemm",
                 NULL);
    CHECK_FAILED(warplab_gemm_ex(NULL, WARPLAB_OP_N, WARPLAB_OP_N, 1, 1, 1, 1, NULL,
                                 WARPLAB_FLOAT32, 0, NULL, WARPLAB_FLOAT32, 0, 0, NULL,
                                 WARPLAB_FLOAT32, 0, WARPLAB_COMPUTE_FP32),
                 "warplab_gemm_ex", NULL);
    CHECK_FAILED(warplab_bench(NULL, &options, &report), "warplab_bench", NULL);
    CHECK_FAILED(warplab_bench_validate(NULL, &options), "warplab_bench_validate", NULL);
    CHECK_FAILED(warplab_bench_api(NULL, &options, &report), "warplab_bench_api", NULL);
    CHECK_FAILED(warplab_probe_run(NULL, "unroll", NULL, &probe), "warplab_probe_run", NULL);

    /* With a context: the context's slot. */
    warplab_buffer *x = NULL, *y = NULL;
    CHECK(warplab_buffer_create(context, 64, &x) == WARPLAB_OK);
    CHECK(warplab_buffer_create(context, 64, &y) == WARPLAB_OK);
    CHECK_FAILED(warplab_buffer_create(context, 16, NULL), "warplab_buffer_create", context);
    CHECK_FAILED(warplab_buffer_wrap(context, host, 16, NULL), "warplab_buffer_wrap", context);
    CHECK_FAILED(warplab_buffer_wrap(context, NULL, 16, &buffer), "warplab_buffer_wrap", context);
    CHECK_FAILED(warplab_buffer_write(x, 60, host, 8), "warplab_buffer_write", context);
    CHECK_FAILED(warplab_buffer_read(x, 0, NULL, 8), "warplab_buffer_read", context);
    CHECK_FAILED(warplab_buffer_view(x, 32, 64, &buffer), "warplab_buffer_view", context);
    CHECK_FAILED(warplab_buffer_native(x, NULL, NULL), "warplab_buffer_native", context);
    CHECK_FAILED(warplab_bench(context, &options, NULL), "warplab_bench", context);
    options.sizes = "2^64";
    CHECK_FAILED(warplab_bench_validate(context, &options), "warplab_bench_validate", context);
    CHECK(strstr(warplab_last_error(context), "out of range") != NULL);
    options.sizes = NULL;
    CHECK_FAILED(warplab_vecadd(context, x, y, NULL, 4), "warplab_vecadd", context);
    CHECK_FAILED(warplab_vecadd(context, x, y, y, 100), "warplab_vecadd", context);
    CHECK_FAILED(warplab_reduce(context, WARPLAB_BFLOAT16, WARPLAB_REDUCE_SUM, x, 4, &sum),
                 "warplab_reduce", context);
    CHECK_FAILED(
        warplab_reduce_to_buffer(context, WARPLAB_FLOAT32, WARPLAB_REDUCE_SUM, x, 4, y, 62),
        "warplab_reduce_to_buffer", context);
    CHECK_FAILED(warplab_transpose(context, WARPLAB_FLOAT32, 4, 4, x, 0, x, 0), "warplab_transpose",
                 context);
    /* warplab_scan: every argument checked before any work. */
    CHECK_FAILED(warplab_scan(context, WARPLAB_FLOAT32, WARPLAB_REDUCE_SUM, WARPLAB_SCAN_INCLUSIVE,
                              NULL, y, 4),
                 "warplab_scan", context);
    CHECK_FAILED(
        warplab_scan(context, WARPLAB_FLOAT16, WARPLAB_REDUCE_SUM, WARPLAB_SCAN_INCLUSIVE, x, y, 4),
        "warplab_scan", context);
    CHECK_FAILED(warplab_scan(context, WARPLAB_FLOAT32, (warplab_reduce_op)7,
                              WARPLAB_SCAN_INCLUSIVE, x, y, 4),
                 "warplab_scan", context);
    CHECK_FAILED(
        warplab_scan(context, WARPLAB_FLOAT32, WARPLAB_REDUCE_MIN, (warplab_scan_kind)2, x, y, 4),
        "warplab_scan", context);
    CHECK_FAILED(warplab_scan(context, WARPLAB_FLOAT32, WARPLAB_REDUCE_SUM, WARPLAB_SCAN_EXCLUSIVE,
                              x, y, 17),
                 "warplab_scan", context); /* 17 floats: past 64 bytes */
    CHECK_FAILED(warplab_scan(context, WARPLAB_FLOAT64, WARPLAB_REDUCE_SUM, WARPLAB_SCAN_INCLUSIVE,
                              x, y, SIZE_MAX / 4),
                 "warplab_scan", context); /* n x 8 bytes overflows */
    CHECK_FAILED(warplab_scan(context, WARPLAB_FLOAT32, WARPLAB_REDUCE_SUM, WARPLAB_SCAN_INCLUSIVE,
                              x, y, SIZE_MAX),
                 "warplab_scan", context);
    /* warplab_gemm's failures name warplab_gemm, not the call it shares. */
    CHECK_FAILED(warplab_gemm(context, 2, 2, 2, 1, NULL, 0, y, 0, 0, x, 0), "warplab_gemm",
                 context);
    CHECK(strstr(warplab_last_error(context), "warplab_gemm_ex") == NULL);
    CHECK_FAILED(warplab_gemm_ex(context, WARPLAB_OP_N, WARPLAB_OP_N, 2, 2, 2, 1, x,
                                 WARPLAB_FLOAT16, 0, y, WARPLAB_FLOAT32, 0, 0, x, WARPLAB_FLOAT32,
                                 0, WARPLAB_COMPUTE_FP32),
                 "warplab_gemm_ex", context);
    CHECK_FAILED(warplab_probe_run(context, "no-such-probe", NULL, &probe), "warplab_probe_run",
                 context);
    /* A success after a failure clears the message. */
    CHECK(warplab_buffer_write(x, 0, host, 8) == WARPLAB_OK);
    CHECK_STR(warplab_last_error(context), "");
    warplab_buffer_destroy(x);
    warplab_buffer_destroy(y);
}

/* The buffer holds 0, 1, 2, ...: an operation that was refused wrote nothing. */
static bool untouched(const warplab_buffer *buffer, size_t count)
{
    float *values = malloc(count * sizeof *values);
    bool same =
        values && warplab_buffer_read(buffer, 0, values, count * sizeof *values) == WARPLAB_OK;
    for (size_t i = 0; same && i < count; i++)
        same = values[i] == (float)i;
    free(values);
    return same;
}

#define CHECK_REFUSED(call, function)                                                              \
    do {                                                                                           \
        warplab_status status_ = (call);                                                           \
        CHECK_MSG(status_ == WARPLAB_ERROR_INVALID_ARGUMENT, "%s: %s", #call,                      \
                  warplab_status_string(status_));                                                 \
        CHECK_MSG(strncmp(warplab_last_error(context), function ": ", strlen(function) + 2) == 0,  \
                  "%s: '%s'", #call, warplab_last_error(context));                                 \
        CHECK_MSG(untouched(memory, N), "%s wrote into the memory", #call);                        \
    } while (0)

static void aliasing(void)
{
    enum { N = 256 };
    float values[N];
    for (int i = 0; i < N; i++)
        values[i] = (float)i;
    warplab_buffer *memory = NULL, *other = NULL, *head = NULL, *shifted = NULL, *tail = NULL;
    CHECK(warplab_buffer_create(context, sizeof values, &memory) == WARPLAB_OK);
    CHECK(warplab_buffer_create(context, sizeof values, &other) == WARPLAB_OK);
    CHECK(warplab_buffer_write(memory, 0, values, sizeof values) == WARPLAB_OK);
    float ones[N];
    for (int i = 0; i < N; i++)
        ones[i] = 1.0f;
    CHECK(warplab_buffer_write(other, 0, ones, sizeof ones) == WARPLAB_OK);
    /* Views of one memory: [0, 128), [4, 132) and [128, 256) floats. */
    CHECK(warplab_buffer_view(memory, 0, 128 * sizeof(float), &head) == WARPLAB_OK);
    CHECK(warplab_buffer_view(memory, 4 * sizeof(float), 128 * sizeof(float), &shifted) ==
          WARPLAB_OK);
    CHECK(warplab_buffer_view(memory, 128 * sizeof(float), 128 * sizeof(float), &tail) ==
          WARPLAB_OK);
    if (!memory || !other || !head || !shifted || !tail)
        return;

    /* vecadd: c may be a or b exactly, never a shifted view of them. */
    CHECK_REFUSED(warplab_vecadd(context, head, other, shifted, 64), "warplab_vecadd");
    CHECK_REFUSED(warplab_vecadd(context, other, head, shifted, 64), "warplab_vecadd");
    /* reduce_to_buffer: the result never among the elements it reduces. */
    CHECK_REFUSED(warplab_reduce_to_buffer(context, WARPLAB_FLOAT32, WARPLAB_REDUCE_SUM, memory, 8,
                                           memory, 4 * sizeof(float)),
                  "warplab_reduce_to_buffer");
    CHECK_REFUSED(
        warplab_reduce_to_buffer(context, WARPLAB_FLOAT32, WARPLAB_REDUCE_SUM, head, 8, shifted, 0),
        "warplab_reduce_to_buffer");
    /* scan: in place from the same byte, never into a shifted view. */
    CHECK_REFUSED(warplab_scan(context, WARPLAB_FLOAT32, WARPLAB_REDUCE_SUM, WARPLAB_SCAN_INCLUSIVE,
                               head, shifted, 64),
                  "warplab_scan");
    CHECK_REFUSED(warplab_scan(context, WARPLAB_FLOAT32, WARPLAB_REDUCE_MAX, WARPLAB_SCAN_EXCLUSIVE,
                               shifted, head, 64),
                  "warplab_scan");
    /* transpose: out of place. */
    CHECK_REFUSED(warplab_transpose(context, WARPLAB_FLOAT32, 8, 8, head, 0, shifted, 0),
                  "warplab_transpose");
    CHECK_REFUSED(warplab_transpose(context, WARPLAB_FLOAT32, 8, 8, head, 0, head, 0),
                  "warplab_transpose");
    /* gemm and gemm_ex: C a buffer of its own. */
    CHECK_REFUSED(warplab_gemm(context, 4, 4, 4, 1, head, 0, other, 0, 0, head, 0), "warplab_gemm");
    CHECK_REFUSED(warplab_gemm(context, 4, 4, 4, 1, head, 0, other, 0, 0, shifted, 0),
                  "warplab_gemm");
    CHECK_REFUSED(warplab_gemm(context, 4, 4, 4, 1, other, 0, shifted, 0, 0, head, 0),
                  "warplab_gemm");
    CHECK_REFUSED(warplab_gemm_ex(context, WARPLAB_OP_T, WARPLAB_OP_N, 4, 4, 4, 1, head,
                                  WARPLAB_FLOAT32, 0, other, WARPLAB_FLOAT32, 0, 0, shifted,
                                  WARPLAB_FLOAT32, 0, WARPLAB_COMPUTE_FP32),
                  "warplab_gemm_ex");

    /* Allowed: disjoint views of one memory, and vecadd in place. */
    CHECK(warplab_reduce_to_buffer(context, WARPLAB_FLOAT32, WARPLAB_REDUCE_SUM, other, 8, tail,
                                   0) == WARPLAB_OK);
    float result = 0;
    CHECK(warplab_buffer_read(tail, 0, &result, sizeof result) == WARPLAB_OK);
    CHECK_MSG(result == 8.0f, "the sum of 8 ones is %g", (double)result);
    CHECK(warplab_buffer_write(memory, 0, values, sizeof values) == WARPLAB_OK);
    CHECK(warplab_vecadd(context, head, head, head, 128) == WARPLAB_OK);
    float back[N];
    CHECK(warplab_buffer_read(memory, 0, back, sizeof back) == WARPLAB_OK);
    bool in_place = true;
    for (int i = 0; i < N; i++)
        in_place = in_place && back[i] == (i < 128 ? 2.0f * i : (float)i);
    CHECK_MSG(in_place, "vecadd in place");
    CHECK(warplab_buffer_write(memory, 0, values, sizeof values) == WARPLAB_OK);
    CHECK(warplab_gemm(context, 4, 4, 4, 1, head, 0, other, 0, 0, tail, 0) == WARPLAB_OK);
    /* scan in place: the prefix sums of 0, 1, 2, ... (exact in float). */
    CHECK(warplab_buffer_write(memory, 0, values, sizeof values) == WARPLAB_OK);
    CHECK(warplab_scan(context, WARPLAB_FLOAT32, WARPLAB_REDUCE_SUM, WARPLAB_SCAN_EXCLUSIVE, head,
                       head, 128) == WARPLAB_OK);
    CHECK(warplab_buffer_read(memory, 0, back, sizeof back) == WARPLAB_OK);
    in_place = true;
    for (int i = 0; i < N; i++)
        in_place = in_place && back[i] == (i < 128 ? (float)(i * (i - 1) / 2) : (float)i);
    CHECK_MSG(in_place, "scan in place");

    warplab_buffer_destroy(tail);
    warplab_buffer_destroy(shifted);
    warplab_buffer_destroy(head);
    warplab_buffer_destroy(other);
    warplab_buffer_destroy(memory);
}

int main(int argc, char **argv)
{
    warplab_backend_kind backend;
    if (argc != 3 || strcmp(argv[1], "--backend") != 0 ||
        warplab_backend_parse(argv[2], &backend) != WARPLAB_OK) {
        fprintf(stderr, "usage: test_misuse --backend cpu|opencl|cuda\n");
        return 2;
    }
    warplab_status status = warplab_context_create(backend, 0, &context);
    if (status == WARPLAB_ERROR_NO_DEVICE || status == WARPLAB_ERROR_BACKEND_UNAVAILABLE) {
        printf("SKIP: %s\n", warplab_last_error(NULL));
        return TEST_SKIP;
    }
    CHECK_MSG(status == WARPLAB_OK, "%s", warplab_last_error(NULL));
    if (status != WARPLAB_OK)
        return check_report("test_misuse");
    failure_paths(backend);
    aliasing();
    warplab_context_destroy(context);
    return check_report("test_misuse");
}
