/* Small helpers the ladders share. */
#include "ladder_util.h"

#include <string.h>

const size_t wl_test_sizes_1d[] = {0, 1, 31, 32, 33, 1000, (1u << 20) + 3};
const int wl_test_sizes_1d_count = (int)(sizeof wl_test_sizes_1d / sizeof wl_test_sizes_1d[0]);

void wl_describe_1d(const wl_problem *problem, char *text, size_t len)
{
    wl_format(text, len, "n=%zu %s%s", problem->dim[0], warplab_dtype_name(problem->dtype),
              problem->misalign ? " misaligned" : "");
}

double wl_leading_size_1d(const wl_problem *problem)
{
    return (double)problem->dim[0];
}

warplab_status wl_make_problem_1d(const size_t size[3], int dims, const char *ladder,
                                  wl_problem *problem, char *error, size_t error_len)
{
    if (dims != 1) {
        wl_format(error, error_len, "the %s ladder takes one size (a length), not %d", ladder,
                  dims);
        return WARPLAB_ERROR_INVALID_ARGUMENT;
    }
    memset(problem, 0, sizeof *problem);
    problem->dim[0] = size[0];
    problem->dims = 1;
    problem->dtype = WARPLAB_FLOAT32;
    problem->op = WARPLAB_REDUCE_SUM;
    return WARPLAB_OK;
}

double wl_zero_work(const wl_problem *problem)
{
    (void)problem;
    return 0.0;
}
