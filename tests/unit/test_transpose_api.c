/* warplab_transpose(): results on every backend with a device (tight,
 * pitched, odd shapes, float and double), and the argument checks, which
 * must fail before touching the output. */
#include "../check.h"

#include <warplab.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SENTINEL 0x5Au

/* in[r][c] = r * 1000 + c + 0.5: every element distinct, exact in float. */
static double element_value(size_t r, size_t c)
{
    return (double)r * 1000.0 + (double)c + 0.5;
}

static void fill_input(void *in, warplab_dtype dtype, size_t rows, size_t cols, size_t ld_in)
{
    for (size_t r = 0; r < rows; r++)
        for (size_t c = 0; c < cols; c++) {
            if (dtype == WARPLAB_FLOAT32)
                ((float *)in)[r * ld_in + c] = (float)element_value(r, c);
            else
                ((double *)in)[r * ld_in + c] = element_value(r, c);
        }
}

static double read_element(const void *data, warplab_dtype dtype, size_t i)
{
    return dtype == WARPLAB_FLOAT32 ? (double)((const float *)data)[i] : ((const double *)data)[i];
}

/* Transposes one problem through the public API and checks every element,
 * and that the padding after each output row kept the sentinel bytes. */
static void check_transpose(warplab_context *context, warplab_dtype dtype, size_t rows, size_t cols,
                            size_t ld_in, size_t ld_out)
{
    const size_t size = warplab_dtype_size(dtype);
    const size_t in_ld = ld_in ? ld_in : cols, out_ld = ld_out ? ld_out : rows;
    const size_t in_bytes = rows * in_ld * size, out_bytes = cols * out_ld * size;
    unsigned char *in = malloc(in_bytes + 1), *out = malloc(out_bytes + 1);
    warplab_buffer *in_buffer = NULL, *out_buffer = NULL;
    CHECK(in && out);
    if (!in || !out)
        goto done;
    memset(in, 0, in_bytes + 1);
    memset(out, SENTINEL, out_bytes + 1);
    fill_input(in, dtype, rows, cols, in_ld);
    CHECK(warplab_buffer_create(context, in_bytes, &in_buffer) == WARPLAB_OK);
    CHECK(warplab_buffer_create(context, out_bytes, &out_buffer) == WARPLAB_OK);
    if (!in_buffer || !out_buffer)
        goto done;
    CHECK(warplab_buffer_write(in_buffer, 0, in, in_bytes) == WARPLAB_OK);
    CHECK(warplab_buffer_write(out_buffer, 0, out, out_bytes) == WARPLAB_OK);
    warplab_status status =
        warplab_transpose(context, dtype, rows, cols, in_buffer, ld_in, out_buffer, ld_out);
    CHECK_MSG(status == WARPLAB_OK, "%zux%zu %s ld %zu/%zu: %s (%s)", rows, cols,
              warplab_dtype_name(dtype), ld_in, ld_out, warplab_status_string(status),
              warplab_last_error(context));
    CHECK(warplab_buffer_read(out_buffer, 0, out, out_bytes) == WARPLAB_OK);
    size_t wrong = 0, touched = 0;
    for (size_t c = 0; c < cols; c++)
        for (size_t r = 0; r < out_ld; r++) {
            const size_t at = c * out_ld + r;
            if (r < rows) {
                wrong += read_element(out, dtype, at) != element_value(r, c);
            } else {
                for (size_t b = 0; b < size; b++)
                    touched += out[at * size + b] != SENTINEL;
            }
        }
    CHECK_MSG(wrong == 0 && touched == 0,
              "%zux%zu %s ld %zu/%zu on %s: %zu elements wrong, %zu padding bytes written", rows,
              cols, warplab_dtype_name(dtype), ld_in, ld_out,
              warplab_backend_name(warplab_context_backend(context)), wrong, touched);
done:
    warplab_buffer_destroy(in_buffer);
    warplab_buffer_destroy(out_buffer);
    free(in);
    free(out);
}

/* Bad arguments fail with INVALID_ARGUMENT, say why, and leave the output
 * as it was. */
static void check_rejections(warplab_context *context)
{
    const size_t rows = 5, cols = 7;
    warplab_buffer *in = NULL, *out = NULL, *small = NULL;
    CHECK(warplab_buffer_create(context, rows * cols * 4, &in) == WARPLAB_OK);
    CHECK(warplab_buffer_create(context, rows * cols * 4, &out) == WARPLAB_OK);
    CHECK(warplab_buffer_create(context, rows * cols * 4 - 4, &small) == WARPLAB_OK);
    if (!in || !out || !small)
        goto done;
    unsigned char marks[5 * 7 * 4];
    memset(marks, SENTINEL, sizeof marks);
    CHECK(warplab_buffer_write(out, 0, marks, sizeof marks) == WARPLAB_OK);

    const warplab_status invalid = WARPLAB_ERROR_INVALID_ARGUMENT;
    CHECK(warplab_transpose(NULL, WARPLAB_FLOAT32, rows, cols, in, 0, out, 0) == invalid);
    CHECK(warplab_transpose(context, WARPLAB_FLOAT32, rows, cols, NULL, 0, out, 0) == invalid);
    CHECK(warplab_transpose(context, WARPLAB_FLOAT32, rows, cols, in, 0, NULL, 0) == invalid);
    CHECK(warplab_transpose(context, WARPLAB_INT32, rows, cols, in, 0, out, 0) == invalid);
    CHECK(warplab_transpose(context, WARPLAB_DTYPE_COUNT, rows, cols, in, 0, out, 0) == invalid);
    CHECK(warplab_transpose(context, WARPLAB_BFLOAT16, rows, cols, in, 0, out, 0) == invalid);
    CHECK(warplab_transpose(context, WARPLAB_FLOAT16, rows, cols, in, 0, out, 0) == invalid);
    CHECK(warplab_transpose(context, WARPLAB_FLOAT32, rows, cols, in, 0, in, 0) == invalid);
    /* A pitch shorter than a row. */
    CHECK(warplab_transpose(context, WARPLAB_FLOAT32, rows, cols, in, cols - 1, out, 0) == invalid);
    CHECK(warplab_transpose(context, WARPLAB_FLOAT32, rows, cols, in, 0, out, rows - 1) == invalid);
    /* Buffers one element too small, on either side, and through a pitch. */
    CHECK(warplab_transpose(context, WARPLAB_FLOAT32, rows, cols, small, 0, out, 0) == invalid);
    CHECK(warplab_transpose(context, WARPLAB_FLOAT32, rows, cols, in, 0, small, 0) == invalid);
    CHECK(warplab_transpose(context, WARPLAB_FLOAT64, rows, cols, in, 0, out, 0) == invalid);
    CHECK(warplab_transpose(context, WARPLAB_FLOAT32, rows, cols, in, cols + 1, out, 0) == invalid);
    CHECK(strstr(warplab_last_error(context), "bytes") != NULL);
    /* Sizes whose byte counts overflow. */
    CHECK(warplab_transpose(context, WARPLAB_FLOAT32, SIZE_MAX / 2, 3, in, 0, out, 0) == invalid);

    unsigned char after[sizeof marks];
    CHECK(warplab_buffer_read(out, 0, after, sizeof after) == WARPLAB_OK);
    CHECK_MSG(memcmp(after, marks, sizeof marks) == 0, "a rejected call wrote its output");

    /* Empty matrices are valid and write nothing; the last row needs no pitch
     * padding after it. */
    CHECK(warplab_transpose(context, WARPLAB_FLOAT32, 0, cols, in, 0, out, 0) == WARPLAB_OK);
    CHECK(warplab_transpose(context, WARPLAB_FLOAT32, rows, 0, in, 0, out, 0) == WARPLAB_OK);
    CHECK(warplab_buffer_read(out, 0, after, sizeof after) == WARPLAB_OK);
    CHECK(memcmp(after, marks, sizeof marks) == 0);
    CHECK(warplab_transpose(context, WARPLAB_FLOAT32, 2, 3, in, 16, out, 2) == WARPLAB_OK);
done:
    warplab_buffer_destroy(in);
    warplab_buffer_destroy(out);
    warplab_buffer_destroy(small);
}

int main(void)
{
    static const size_t shapes[][4] = {
        /* rows, cols, ld_in, ld_out */
        {1, 1, 0, 0},         {1, 37, 0, 0},    {37, 1, 0, 0},           {33, 31, 0, 0},
        {64, 64, 0, 0},       {65, 130, 0, 0},  {31, 37, 40, 36},        {33, 31, 35, 34},
        {257, 300, 304, 260}, {300, 257, 0, 0}, {1000, 999, 1001, 1003},
    };
    static const warplab_dtype types[] = {WARPLAB_FLOAT32, WARPLAB_FLOAT64};
    int backends = 0;
    for (int kind = WARPLAB_BACKEND_CUDA; kind < WARPLAB_BACKEND_COUNT; kind++) {
        warplab_context *context = NULL;
        if (warplab_context_create((warplab_backend_kind)kind, 0, &context) != WARPLAB_OK)
            continue; /* not compiled in, or no device */
        backends++;
        printf("%s: %s\n", warplab_backend_name((warplab_backend_kind)kind),
               warplab_context_device(context)->name);
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
            for (int t = 0; t < 2; t++)
                check_transpose(context, types[t], shapes[s][0], shapes[s][1], shapes[s][2],
                                shapes[s][3]);
        check_rejections(context);
        warplab_context_destroy(context);
    }
    CHECK_MSG(backends > 0, "no backend could be opened (the cpu backend always should)");
    return check_report("test_transpose_api");
}
