/* The ordered transpose rungs' block order (src/ladders/transpose/transpose_order.h):
 * for every grid shape and band height, the linear indices 0..items-1 land
 * on every item exactly once; group 1 is the input's row-major order, group
 * items_y the output's; inside a band, consecutive indices go down an item
 * column. And the persistent loop (block b takes b, b + grid, ...) covers
 * every item once for any grid size. */
#include "../check.h"
#include "ladders/transpose/transpose_order.h"

#include <stdint.h>
#include <stdlib.h>

static void check_shape(uint32_t items_x, uint32_t items_y, uint32_t group, unsigned char *seen)
{
    const uint32_t items = items_x * items_y;
    memset(seen, 0, items);
    int bad = 0;
    for (uint32_t linear = 0; linear < items; linear++) {
        uint32_t ix = UINT32_MAX, iy = UINT32_MAX;
        wl_transpose_item(linear, items_x, items_y, group, &ix, &iy);
        if (ix >= items_x || iy >= items_y || seen[iy * items_x + ix]++) {
            bad = 1;
            break;
        }
        if (group == 1 && (ix != linear % items_x || iy != linear / items_x))
            bad = 1;
        if (group == items_y && (iy != linear % items_y || ix != linear / items_y))
            bad = 1;
        /* Down a column inside a band: the next index is the next item row
         * of the same column, unless this one ends the band's column. */
        if (linear + 1 < items) {
            uint32_t nx, ny;
            wl_transpose_item(linear + 1, items_x, items_y, group, &nx, &ny);
            const int column_ends = (iy + 1) % group == 0 || iy + 1 == items_y;
            if (!column_ends && (nx != ix || ny != iy + 1))
                bad = 1;
        }
    }
    CHECK_MSG(!bad, "items %ux%u group %u is not a bijection in the expected order", items_x,
              items_y, group);
}

/* Blocks 0..grid-1 taking items b, b + grid, ... cover each item once. */
static void check_grid_stride(uint32_t items_x, uint32_t items_y, uint32_t group, uint64_t grid,
                              unsigned char *seen)
{
    const uint32_t items = items_x * items_y;
    memset(seen, 0, items);
    uint64_t visits = 0;
    for (uint64_t b = 0; b < grid; b++)
        for (uint64_t item = b; item < items; item += grid) {
            uint32_t ix, iy;
            wl_transpose_item((uint32_t)item, items_x, items_y, group, &ix, &iy);
            seen[iy * items_x + ix]++;
            visits++;
        }
    int once = visits == items;
    for (uint32_t i = 0; i < items; i++)
        once = once && seen[i] == 1;
    CHECK_MSG(once, "items %ux%u group %u grid %llu", items_x, items_y, group,
              (unsigned long long)grid);
}

int main(void)
{
    static const uint32_t sizes[] = {1, 2, 3, 7, 16, 31, 32, 33, 63, 64, 65, 127, 256};
    const size_t n = sizeof sizes / sizeof sizes[0];
    unsigned char *seen = malloc(256 * 256);
    if (!seen)
        return 1;
    for (size_t a = 0; a < n; a++)
        for (size_t b = 0; b < n; b++) {
            const uint32_t x = sizes[a], y = sizes[b];
            static const uint32_t groups[] = {1, 2, 5, 16, 32};
            for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++)
                if (groups[g] <= y)
                    check_shape(x, y, groups[g], seen);
            check_shape(x, y, y, seen);
            const uint32_t group = y < 32 ? y : 32;
            static const uint64_t grids[] = {1, 3, 16, 1056};
            for (size_t g = 0; g < sizeof grids / sizeof grids[0]; g++)
                check_grid_stride(x, y, group, grids[g], seen);
        }
    free(seen);
    printf("%d checks, %d failed\n", check_count, check_failures);
    return check_failures ? 1 : 0;
}
