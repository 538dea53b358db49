/* Contexts on many threads at once, and buffers that outlive their context.
 *   test_threads --backend cpu|opencl|cuda [--threads N] [--rounds R]
 * Each thread creates a context, runs warplab_vecadd and warplab_reduce on
 * buffers of its own, checks the results, and destroys everything, R times;
 * every other round destroys the context before its buffers (buffers keep
 * their context alive: include/warplab.h). CI runs it under AddressSanitizer
 * (the sanitizer build); exit 77 when the backend has no device. */
#include "check.h"
#include "warplab.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static warplab_backend_kind backend;
static int rounds = 4;
static atomic_int thread_failures, no_device;

static void fail(int thread, int round, const char *what, warplab_status status,
                 const warplab_context *context)
{
    fprintf(stderr, "thread %d round %d: %s: %s (%s)\n", thread, round, what,
            warplab_status_string(status), warplab_last_error(context));
    atomic_fetch_add(&thread_failures, 1);
}

/* One round on one thread; false after a failure (already counted). */
static bool one_round(int thread, int round)
{
    enum { N = 4099 };
    warplab_context *context = NULL;
    warplab_status status = warplab_context_create(backend, 0, &context);
    if (status == WARPLAB_ERROR_NO_DEVICE || status == WARPLAB_ERROR_BACKEND_UNAVAILABLE) {
        atomic_fetch_add(&no_device, 1);
        return false;
    }
    if (status != WARPLAB_OK) {
        fail(thread, round, "warplab_context_create", status, NULL);
        return false;
    }
    float *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b), *c = malloc(N * sizeof *c);
    warplab_buffer *da = NULL, *db = NULL, *dc = NULL;
    bool ok = a && b && c;
    for (int i = 0; ok && i < N; i++) {
        a[i] = (float)(i % 97) + (float)thread;
        b[i] = (float)(i % 13) * 0.5f;
    }
    const char *step = "warplab_buffer_create";
    ok = ok && (status = warplab_buffer_create(context, N * sizeof(float), &da)) == WARPLAB_OK &&
         (status = warplab_buffer_create(context, N * sizeof(float), &db)) == WARPLAB_OK &&
         (status = warplab_buffer_create(context, N * sizeof(float), &dc)) == WARPLAB_OK;
    if (ok) {
        step = "warplab_buffer_write";
        ok = (status = warplab_buffer_write(da, 0, a, N * sizeof(float))) == WARPLAB_OK &&
             (status = warplab_buffer_write(db, 0, b, N * sizeof(float))) == WARPLAB_OK;
    }
    if (ok) {
        step = "warplab_vecadd";
        ok = (status = warplab_vecadd(context, da, db, dc, N)) == WARPLAB_OK;
    }
    float sum = 0.0f;
    if (ok) {
        step = "warplab_reduce";
        ok = (status = warplab_reduce(context, WARPLAB_FLOAT32, WARPLAB_REDUCE_SUM, da, N, &sum)) ==
             WARPLAB_OK;
    }
    /* Odd rounds: the context goes first; its buffers still work. */
    if (round % 2 == 1) {
        warplab_context_destroy(context);
        context = NULL;
    }
    if (ok) {
        step = "warplab_buffer_read";
        ok = (status = warplab_buffer_read(dc, 0, c, N * sizeof(float))) == WARPLAB_OK;
    }
    if (!ok) {
        fail(thread, round, step, status, context);
    } else {
        double expected = 0.0;
        for (int i = 0; i < N; i++) {
            expected += a[i];
            if (c[i] != a[i] + b[i]) {
                fprintf(stderr, "thread %d round %d: c[%d] = %g, expected %g\n", thread, round, i,
                        (double)c[i], (double)(a[i] + b[i]));
                atomic_fetch_add(&thread_failures, 1);
                ok = false;
                break;
            }
        }
        if (ok && !(sum > expected * (1 - 1e-4) && sum < expected * (1 + 1e-4))) {
            fprintf(stderr, "thread %d round %d: sum %g, expected %g\n", thread, round, (double)sum,
                    expected);
            atomic_fetch_add(&thread_failures, 1);
            ok = false;
        }
    }
    warplab_buffer_destroy(da);
    warplab_buffer_destroy(db);
    warplab_buffer_destroy(dc);
    warplab_context_destroy(context);
    free(a);
    free(b);
    free(c);
    return ok;
}

static void *thread_main(void *argument)
{
    const int thread = (int)(intptr_t)argument;
    for (int round = 0; round < rounds; round++)
        if (!one_round(thread, round))
            break;
    return NULL;
}

int main(int argc, char **argv)
{
    const char *name = NULL;
    int threads = 8;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--backend") == 0 && i + 1 < argc)
            name = argv[++i];
        else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc)
            threads = atoi(argv[++i]);
        else if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc)
            rounds = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: test_threads --backend B [--threads N] [--rounds R]\n");
            return 2;
        }
    }
    if (!name || warplab_backend_parse(name, &backend) != WARPLAB_OK || threads < 1 ||
        threads > 64 || rounds < 1) {
        fprintf(stderr, "usage: test_threads --backend B [--threads N] [--rounds R]\n");
        return 2;
    }
    /* The threads start first, so that the backend's discovery (PoCL's
     * platform, the CUDA runtime) happens on all of them at once. */
    pthread_t ids[64];
    int started = 0;
    for (int t = 0; t < threads; t++)
        if (pthread_create(&ids[t], NULL, thread_main, (void *)(intptr_t)t) == 0)
            started++;
    CHECK_MSG(started == threads, "%d of %d threads started", started, threads);
    for (int t = 0; t < started; t++)
        pthread_join(ids[t], NULL);
    if (started > 0 && atomic_load(&no_device) == started) {
        printf("SKIP: the %s backend has no device here\n", name);
        return TEST_SKIP;
    }
    CHECK_MSG(atomic_load(&thread_failures) == 0 && atomic_load(&no_device) == 0,
              "%d thread failures, %d without a device", atomic_load(&thread_failures),
              atomic_load(&no_device));

    /* Buffers outlive their context: a view, after the context is
     * destroyed, still reads what was written through its buffer. */
    warplab_context *context = NULL;
    warplab_buffer *buffer = NULL, *view = NULL;
    if (warplab_context_create(backend, 0, &context) == WARPLAB_OK) {
        const int values[4] = {1, 2, 3, 4};
        int back[2] = {0, 0};
        CHECK(warplab_buffer_create(context, sizeof values, &buffer) == WARPLAB_OK);
        CHECK(warplab_buffer_write(buffer, 0, values, sizeof values) == WARPLAB_OK);
        CHECK(warplab_buffer_view(buffer, 2 * sizeof(int), 2 * sizeof(int), &view) == WARPLAB_OK);
        warplab_context_destroy(context);
        CHECK(warplab_buffer_read(view, 0, back, sizeof back) == WARPLAB_OK);
        CHECK(back[0] == 3 && back[1] == 4);
        warplab_buffer_destroy(view);
        warplab_buffer_destroy(buffer);
    }

    printf("%d threads x %d rounds on %s\n", threads, rounds, name);
    return check_report("test_threads");
}
