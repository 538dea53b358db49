/* A program outside the project, built against the installed library
 * (through CMake's find_package and through pkg-config): c = a + b on the
 * cpu backend, checked; and the lab's header beside the library's (the
 * ladders it lists). */
#include <warplab.h>
#include <warplab_lab.h>

#include <stdio.h>
#include <string.h>

int main(void)
{
    enum { N = 1000 };
    static float a[N], b[N], c[N];
    for (int i = 0; i < N; i++) {
        a[i] = (float)i;
        b[i] = 2.0f;
    }
    warplab_context *ctx = NULL;
    warplab_buffer *da = NULL, *db = NULL, *dc = NULL;
    warplab_status s = warplab_context_create(WARPLAB_BACKEND_CPU, -1, &ctx);
    if (s == WARPLAB_OK)
        s = warplab_buffer_create(ctx, sizeof a, &da);
    if (s == WARPLAB_OK)
        s = warplab_buffer_create(ctx, sizeof b, &db);
    if (s == WARPLAB_OK)
        s = warplab_buffer_create(ctx, sizeof c, &dc);
    if (s == WARPLAB_OK)
        s = warplab_buffer_write(da, 0, a, sizeof a);
    if (s == WARPLAB_OK)
        s = warplab_buffer_write(db, 0, b, sizeof b);
    if (s == WARPLAB_OK)
        s = warplab_vecadd(ctx, da, db, dc, N);
    if (s == WARPLAB_OK)
        s = warplab_buffer_read(dc, 0, c, sizeof c);
    int wrong = 0;
    for (int i = 0; s == WARPLAB_OK && i < N; i++)
        wrong += c[i] != (float)i + 2.0f;
    if (s != WARPLAB_OK)
        fprintf(stderr, "consumer: %s: %s\n", warplab_status_string(s), warplab_last_error(ctx));
    warplab_buffer_destroy(da);
    warplab_buffer_destroy(db);
    warplab_buffer_destroy(dc);
    warplab_context_destroy(ctx);
    if (s != WARPLAB_OK || wrong || strcmp(warplab_version(), WARPLAB_VERSION_STRING) != 0)
        return 1;
    if (warplab_ladder_count() == 0 || !warplab_ladder_name(0))
        return 1;
    printf("consumer: warplab %s, vecadd ok, %zu ladders (cuda %s, opencl %s)\n", warplab_version(),
           warplab_ladder_count(), warplab_backend_compiled(WARPLAB_BACKEND_CUDA) ? "in" : "out",
           warplab_backend_compiled(WARPLAB_BACKEND_OPENCL) ? "in" : "out");
    return 0;
}
