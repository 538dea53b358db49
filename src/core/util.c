/* Utilities shared by every layer: random numbers, statistics, clocks,
 * threads, strings and the element check. */

#include "internal.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------------------ */
/* Random numbers: xoshiro256** seeded through splitmix64.                  */

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

void wl_rng_seed(wl_rng *rng, uint64_t seed)
{
    uint64_t state = seed;
    for (int i = 0; i < 4; i++)
        rng->s[i] = splitmix64(&state);
}

static inline uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t wl_rng_next(wl_rng *rng)
{
    uint64_t *s = rng->s;
    const uint64_t result = rotl(s[1] * 5, 7) * 9;
    const uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double wl_rng_uniform(wl_rng *rng)
{
    return (double)(wl_rng_next(rng) >> 11) * 0x1.0p-53;
}

typedef struct fill_job {
    void *data;
    warplab_dtype dtype;
    size_t count, chunk;
    double lo, hi;
    uint64_t seed;
} fill_job;

static void fill_chunk(size_t task, void *user)
{
    const fill_job *job = user;
    size_t begin = task * job->chunk;
    size_t end = begin + job->chunk < job->count ? begin + job->chunk : job->count;
    wl_rng rng;
    wl_rng_seed(&rng, job->seed ^ (0xD1B54A32D192ED03ull * (task + 1)));
    const double span = job->hi - job->lo;
    switch (job->dtype) {
    case WARPLAB_INT32: {
        int32_t *out = job->data;
        const int64_t lo = (int64_t)job->lo, width = (int64_t)job->hi - lo + 1;
        for (size_t i = begin; i < end; i++)
            out[i] = (int32_t)(lo + (int64_t)(wl_rng_next(&rng) % (uint64_t)width));
        break;
    }
    case WARPLAB_FLOAT32: {
        float *out = job->data;
        for (size_t i = begin; i < end; i++)
            out[i] = (float)(job->lo + span * wl_rng_uniform(&rng));
        break;
    }
    case WARPLAB_FLOAT64: {
        double *out = job->data;
        for (size_t i = begin; i < end; i++)
            out[i] = job->lo + span * wl_rng_uniform(&rng);
        break;
    }
    default: break;
    }
}

void wl_fill_random(void *data, warplab_dtype dtype, size_t count, double lo, double hi,
                    uint64_t seed)
{
    fill_job job = {data, dtype, count, (size_t)1 << 20, lo, hi, seed};
    if (count == 0)
        return;
    size_t tasks = (count + job.chunk - 1) / job.chunk;
    wl_parallel_for(wl_cpu_threads(), tasks, fill_chunk, &job);
}

/* ------------------------------------------------------------------------ */
/* Statistics                                                               */

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void wl_stats_compute(double *samples, size_t n, wl_stats *stats)
{
    memset(stats, 0, sizeof *stats);
    if (n == 0)
        return;
    qsort(samples, n, sizeof *samples, compare_doubles);
    stats->min = samples[0];
    stats->max = samples[n - 1];
    stats->median = n % 2 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
    double sum = 0.0;
    for (size_t i = 0; i < n; i++)
        sum += samples[i];
    stats->mean = sum / (double)n;
    if (n > 1 && stats->mean > 0.0) {
        double squares = 0.0;
        for (size_t i = 0; i < n; i++)
            squares += (samples[i] - stats->mean) * (samples[i] - stats->mean);
        stats->rel_stddev_pct = 100.0 * sqrt(squares / (double)(n - 1)) / stats->mean;
    }
}

warplab_status wl_time_pair(wl_backend *device, const wl_timed_call calls[2], bool host_clock,
                            int repeat, int warmup, double max_seconds, bool flush,
                            wl_stats stats[2], int *runs)
{
    double *samples[2] = {calloc((size_t)repeat, sizeof(double)),
                          calloc((size_t)repeat, sizeof(double))};
    double *event_ms = calloc(2 * (size_t)repeat, sizeof(double));
    warplab_status status = WARPLAB_OK;
    if (!samples[0] || !samples[1] || !event_ms)
        status = wl_fail(device, WARPLAB_ERROR_HOST_OUT_OF_MEMORY, "timing samples");
    if (status == WARPLAB_OK && !host_clock)
        status = device->ops->timers_reserve(device, 2 * repeat);
    for (int w = 0; w < warmup && status == WARPLAB_OK; w++)
        for (int i = 0; i < 2 && status == WARPLAB_OK; i++)
            status = calls[i].run(calls[i].user);
    if (status == WARPLAB_OK)
        status = device->ops->synchronize(device);
    const double start = wl_now_seconds();
    int r = 0;
    for (; r < repeat && status == WARPLAB_OK; r++) {
        if (r >= 3 && wl_now_seconds() - start > max_seconds)
            break;
        for (int i = 0; i < 2 && status == WARPLAB_OK; i++) {
            if (flush)
                status = device->ops->flush_caches(device);
            if (status != WARPLAB_OK)
                break;
            if (host_clock) {
                status = device->ops->synchronize(device);
                const double t0 = wl_now_seconds();
                if (status == WARPLAB_OK)
                    status = calls[i].run(calls[i].user);
                samples[i][r] = (wl_now_seconds() - t0) * 1e3;
            } else {
                status = device->ops->timer_start(device, 2 * r + i);
                if (status == WARPLAB_OK)
                    status = calls[i].run(calls[i].user);
                if (status == WARPLAB_OK)
                    status = device->ops->timer_stop(device, 2 * r + i);
            }
        }
    }
    if (status == WARPLAB_OK && !host_clock) {
        status = device->ops->timers_read(device, 2 * r, event_ms);
        for (int k = 0; k < r; k++)
            for (int i = 0; i < 2; i++)
                samples[i][k] = event_ms[2 * k + i];
    }
    if (status == WARPLAB_OK)
        for (int i = 0; i < 2; i++)
            wl_stats_compute(samples[i], (size_t)r, &stats[i]);
    *runs = r;
    free(samples[0]);
    free(samples[1]);
    free(event_ms);
    return status;
}

/* ------------------------------------------------------------------------ */
/* Clocks and threads                                                       */

double wl_now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

uint64_t wl_clock_seed(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000007ull ^ (uint64_t)ts.tv_nsec;
}

void wl_format_utc_now(char *text, size_t len)
{
    time_t now = time(NULL);
    struct tm utc;
    gmtime_r(&now, &utc);
    strftime(text, len, "%Y-%m-%dT%H:%M:%SZ", &utc);
}

int wl_cpu_threads(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

typedef struct pool_job {
    void (*body)(size_t, void *);
    void *user;
    size_t tasks;
    size_t next;
    pthread_mutex_t lock;
} pool_job;

static void *pool_worker(void *arg)
{
    pool_job *job = arg;
    for (;;) {
        pthread_mutex_lock(&job->lock);
        size_t task = job->next++;
        pthread_mutex_unlock(&job->lock);
        if (task >= job->tasks)
            return NULL;
        job->body(task, job->user);
    }
}

void wl_parallel_for(int threads, size_t tasks, void (*body)(size_t task, void *user), void *user)
{
    if (tasks == 0)
        return;
    if (threads > 256)
        threads = 256;
    if ((size_t)threads > tasks)
        threads = (int)tasks;
    if (threads <= 1) {
        for (size_t t = 0; t < tasks; t++)
            body(t, user);
        return;
    }
    pool_job job = {body, user, tasks, 0, PTHREAD_MUTEX_INITIALIZER};
    pthread_t workers[256];
    int started = 0;
    for (int i = 0; i < threads - 1; i++)
        if (pthread_create(&workers[started], NULL, pool_worker, &job) == 0)
            started++;
    pool_worker(&job); /* the caller works too; a failed create only loses a helper */
    for (int i = 0; i < started; i++)
        pthread_join(workers[i], NULL);
    pthread_mutex_destroy(&job.lock);
}

/* ------------------------------------------------------------------------ */
/* Overflow-checked sizes                                                   */

bool wl_size_mul(size_t a, size_t b, size_t *result)
{
    if (b != 0 && a > SIZE_MAX / b)
        return false;
    *result = a * b;
    return true;
}

bool wl_size_add(size_t a, size_t b, size_t *result)
{
    if (a > SIZE_MAX - b)
        return false;
    *result = a + b;
    return true;
}

/* ------------------------------------------------------------------------ */
/* Strings and errors                                                       */

void wl_copy_string(char *destination, size_t capacity, const char *source)
{
    if (capacity == 0)
        return;
    if (!source)
        source = "";
    size_t n = strlen(source);
    if (n >= capacity)
        n = capacity - 1;
    memcpy(destination, source, n);
    destination[n] = '\0';
}

void wl_format(char *destination, size_t capacity, const char *format, ...)
{
    if (capacity == 0)
        return;
    va_list args;
    va_start(args, format);
    vsnprintf(destination, capacity, format, args);
    va_end(args);
}

void wl_append(char *text, size_t len, const char *format, ...)
{
    size_t used = strnlen(text, len);
    if (used + 1 >= len)
        return;
    va_list args;
    va_start(args, format);
    vsnprintf(text + used, len - used, format, args);
    va_end(args);
}

void wl_format_bytes(char *text, size_t len, double bytes)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int unit = 0;
    while (bytes >= 1024.0 && unit < 4) {
        bytes /= 1024.0;
        unit++;
    }
    if (bytes == floor(bytes))
        wl_format(text, len, "%.0f %s", bytes, units[unit]);
    else
        wl_format(text, len, "%.3g %s", bytes, units[unit]);
}

warplab_status wl_fail(wl_backend *backend, warplab_status status, const char *format, ...)
{
    if (backend) {
        va_list args;
        va_start(args, format);
        vsnprintf(backend->error, sizeof backend->error, format, args);
        va_end(args);
    }
    return status;
}

/* ------------------------------------------------------------------------ */
/* Element checks                                                           */

void wl_check_init(wl_check *check)
{
    memset(check, 0, sizeof *check);
    check->first_bad = (size_t)-1;
}

bool wl_check_value(wl_check *check, size_t index, double got, double expected, double bound)
{
    bool ok;
    double ratio = 0.0;
    check->checked++;
    if (isnan(expected)) {
        ok = isnan(got);
    } else if (isnan(got) || isinf(got) != isinf(expected)) {
        ok = false;
        ratio = INFINITY;
    } else if (isinf(expected)) {
        ok = got == expected;
        ratio = ok ? 0.0 : INFINITY;
    } else {
        double diff = fabs(got - expected);
        ok = diff <= bound;
        ratio = bound > 0.0 ? diff / bound : (diff == 0.0 ? 0.0 : INFINITY);
    }
    if (ratio > check->worst_ratio)
        check->worst_ratio = ratio;
    if (!ok) {
        if (check->bad == 0) {
            check->first_bad = index;
            check->got = got;
            check->expected = expected;
        }
        check->bad++;
    }
    return ok;
}

typedef struct check_job {
    void (*body)(size_t task, wl_check *check, const void *user);
    const void *user;
    wl_check *checks;
} check_job;

static void check_task(size_t task, void *user)
{
    const check_job *job = user;
    job->body(task, &job->checks[task], job->user);
}

void wl_check_parallel(size_t tasks, void (*body)(size_t task, wl_check *check, const void *user),
                       const void *user, wl_check *check)
{
    wl_check *checks = tasks > 1 ? calloc(tasks, sizeof *checks) : NULL;
    if (!checks) { /* one task, or no memory for the parts: in this thread */
        for (size_t t = 0; t < tasks; t++)
            body(t, check, user);
        return;
    }
    for (size_t t = 0; t < tasks; t++)
        wl_check_init(&checks[t]);
    check_job job = {body, user, checks};
    wl_parallel_for(wl_cpu_threads(), tasks, check_task, &job);
    /* Merged in task order: the first bad element is the serial loop's. */
    for (size_t t = 0; t < tasks; t++) {
        const wl_check *part = &checks[t];
        if (part->bad && check->bad == 0) {
            check->first_bad = part->first_bad;
            check->got = part->got;
            check->expected = part->expected;
        }
        check->checked += part->checked;
        check->bad += part->bad;
        if (part->worst_ratio > check->worst_ratio || isnan(part->worst_ratio))
            check->worst_ratio = part->worst_ratio;
    }
    free(checks);
}

void wl_write_wrapped(FILE *stream, const char *first, const char *text, size_t width, size_t hang)
{
    bool first_line = true;
    size_t column = 0;
    for (const char *p = text; *p;) {
        while (*p == ' ')
            p++;
        size_t word = 0;
        while (p[word] && p[word] != ' ')
            word++;
        if (!word)
            break;
        if (first_line) {
            fputs(first, stream);
            column = strlen(first);
            first_line = false;
        } else if (column + 1 + word > width) {
            fprintf(stream, "\n%*s", (int)hang, "");
            column = hang;
        } else {
            fputc(' ', stream);
            column++;
        }
        fwrite(p, 1, word, stream);
        column += word;
        p += word;
    }
    if (!first_line)
        fputc('\n', stream);
}
