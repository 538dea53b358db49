/* The README's library example, compiled and run by the test suite:
 * c = a + b on the best backend present, checked on the host. */
#include <warplab.h>

#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    const size_t n = 1000003;
    warplab_context *ctx = NULL;
    if (warplab_context_create(WARPLAB_BACKEND_AUTO, -1, &ctx) != WARPLAB_OK) {
        fprintf(stderr, "%s\n", warplab_last_error(NULL));
        return 1;
    }
    float *host_a = malloc(n * sizeof *host_a), *host_b = malloc(n * sizeof *host_b),
          *host_c = malloc(n * sizeof *host_c);
    warplab_buffer *a = NULL, *b = NULL, *c = NULL;
    warplab_status s = host_a && host_b && host_c ? WARPLAB_OK : WARPLAB_ERROR_HOST_OUT_OF_MEMORY;
    for (size_t i = 0; s == WARPLAB_OK && i < n; i++) {
        host_a[i] = (float)i;
        host_b[i] = 0.5f * (float)(i % 7);
    }
    if (s == WARPLAB_OK)
        s = warplab_buffer_create(ctx, n * sizeof(float), &a);
    if (s == WARPLAB_OK)
        s = warplab_buffer_create(ctx, n * sizeof(float), &b);
    if (s == WARPLAB_OK)
        s = warplab_buffer_create(ctx, n * sizeof(float), &c);
    if (s == WARPLAB_OK)
        s = warplab_buffer_write(a, 0, host_a, n * sizeof(float));
    if (s == WARPLAB_OK)
        s = warplab_buffer_write(b, 0, host_b, n * sizeof(float));
    if (s == WARPLAB_OK)
        s = warplab_vecadd(ctx, a, b, c, n); /* the ladder's fastest rung here */
    if (s == WARPLAB_OK)
        s = warplab_buffer_read(c, 0, host_c, n * sizeof(float));
    size_t wrong = 0;
    for (size_t i = 0; s == WARPLAB_OK && i < n; i++)
        wrong += host_c[i] != host_a[i] + host_b[i];
    if (s != WARPLAB_OK)
        fprintf(stderr, "%s: %s\n", warplab_status_string(s), warplab_last_error(ctx));
    else
        printf("vecadd of %zu floats on %s (%s): %zu wrong\n", n, warplab_context_device(ctx)->name,
               warplab_backend_name(warplab_context_backend(ctx)), wrong);
    warplab_buffer_destroy(a);
    warplab_buffer_destroy(b);
    warplab_buffer_destroy(c);
    warplab_context_destroy(ctx);
    free(host_a);
    free(host_b);
    free(host_c);
    return s != WARPLAB_OK || wrong != 0;
}
