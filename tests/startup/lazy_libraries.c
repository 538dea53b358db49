/* The cuda backend's vendor libraries (cuBLAS with cuBLASLt, NCCL; the CUDA
 * runtime is linked statically) are loaded on first use, never at start-up.
 *
 *   lazy_libraries host missing|present
 *     No CUDA library is mapped at start-up, nor after work on the cpu
 *     backend. "missing" (run with the libraries hidden or named wrongly):
 *     warplab_allreduce_id_create refuses with WARPLAB_ERROR_UNSUPPORTED and
 *     a message naming NCCL and its library, and (built against the static
 *     library) the loader says why cuBLAS cannot be had, naming it, with the
 *     dynamic loader's reason; nothing crashes. "present": the loader finds
 *     both and calls through them.
 *   lazy_libraries cuda missing|present
 *     On the GPU (77 without one): the transpose and matrix-multiply cuBLAS
 *     rows are skipped, saying why ("missing"), or run and verify
 *     ("present"), through warplab_bench.
 *
 * Built twice: against the static library (LAZY_INTERNAL: the loader's own
 * functions too) and against libwarplab.so (the public API alone). */
#include "check.h"

#include <warplab.h>
#include <warplab_lab.h>

#ifdef LAZY_INTERNAL
#include "kernels/cuda/vendor_libs.h"
#endif

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The vendor libraries, as they appear in /proc/self/maps. */
static const char *const vendor_names[] = {"libcudart.so", "libcublas.so", "libcublasLt.so",
                                           "libnccl.so"};

/* The first vendor library mapped into this process (into found), or false. */
static bool vendor_mapped(char *found, size_t len)
{
    FILE *maps = fopen("/proc/self/maps", "r");
    if (!maps)
        return false;
    char line[4096];
    bool any = false;
    while (!any && fgets(line, sizeof line, maps)) {
        const char *slash = strrchr(line, '/');
        for (size_t i = 0; slash && i < sizeof vendor_names / sizeof *vendor_names; i++)
            if (strncmp(slash + 1, vendor_names[i], strlen(vendor_names[i])) == 0) {
                snprintf(found, len, "%s", slash + 1);
                found[strcspn(found, "\n")] = '\0';
                any = true;
            }
    }
    fclose(maps);
    return any;
}

static void check_nothing_mapped(const char *when)
{
    char found[256] = "";
    CHECK_MSG(!vendor_mapped(found, sizeof found), "%s is mapped %s", found, when);
}

/* NCCL through the public API: refused with why where it cannot be loaded
 * (and nothing about NCCL to check where it was left out of the build). */
static void nccl_missing(void)
{
    char id[WARPLAB_ALLREDUCE_ID_HEX];
    warplab_status s = warplab_allreduce_id_create(id);
    const char *message = warplab_last_error(NULL);
    printf("warplab_allreduce_id_create: %s: %s\n", warplab_status_string(s), message);
    CHECK(s == WARPLAB_ERROR_UNSUPPORTED);
    CHECK_MSG(strstr(message, "NCCL") != NULL, "'%s' names NCCL", message);
#ifdef WARPLAB_HAVE_NCCL
    CHECK_MSG(strstr(message, "NCCL cannot be loaded") != NULL, "'%s'", message);
    CHECK_MSG(strstr(message, "libnccl.so") != NULL, "'%s' names libnccl.so", message);
#endif
}

#ifdef LAZY_INTERNAL
/* The loader itself: cuBLAS (and NCCL) found or not, as expected. */
static void loader(bool present)
{
    char reason[1024] = "";
    const wl_cublas_api *cublas = wl_cublas_load(reason, sizeof reason);
    printf("cuBLAS (%s): %s\n", wl_cublas_soname(), cublas ? "loaded" : reason);
    if (present) {
        CHECK_MSG(cublas != NULL, "%s", reason);
        if (cublas) {
            const char *text = cublas->status_string(CUBLAS_STATUS_NOT_INITIALIZED);
            printf("cublasGetStatusString(CUBLAS_STATUS_NOT_INITIALIZED): %s\n", text);
            CHECK(text && *text);
            CHECK(cublas->create && cublas->destroy && cublas->set_stream &&
                  cublas->set_math_mode && cublas->sgemm && cublas->gemm_ex && cublas->sgeam &&
                  cublas->dgeam);
        }
    } else {
        CHECK(cublas == NULL);
        CHECK_MSG(strstr(reason, "cuBLAS cannot be loaded") != NULL, "'%s'", reason);
        CHECK_MSG(strstr(reason, "libcublas") != NULL, "'%s' names libcublas", reason);
        /* The dynamic loader's own words. */
        CHECK_MSG(strstr(reason, "cannot open shared object file") != NULL, "'%s'", reason);
        /* Asked again: the same answer, the same table. */
        char again[1024] = "";
        CHECK(wl_cublas_load(again, sizeof again) == NULL);
        CHECK_STR(again, reason);
    }
    /* Another call finds what the first found. */
    CHECK(wl_cublas_load(NULL, 0) == cublas);
#ifdef WARPLAB_HAVE_NCCL
    const wl_nccl_api *nccl = wl_nccl_load(reason, sizeof reason);
    printf("NCCL (%s): %s\n", wl_nccl_soname(), nccl ? "loaded" : reason);
    if (present) {
        CHECK_MSG(nccl != NULL, "%s", reason);
        if (nccl) {
            const char *text = nccl->error_string(ncclInvalidArgument);
            CHECK(text && *text);
        }
    } else {
        CHECK(nccl == NULL);
        CHECK_MSG(strstr(reason, "libnccl") != NULL, "'%s' names libnccl", reason);
    }
#endif
}
#endif

/* One row through warplab_bench: it runs and verifies, or (a cuBLAS row
 * where cuBLAS is missing) it is skipped, saying why. */
static void bench_row(warplab_context *ctx, const char *ladder, const char *rung, const char *size,
                      bool present)
{
    warplab_bench_options options;
    memset(&options, 0, sizeof options);
    options.ladder = ladder;
    options.rungs = rung;
    options.sizes = size;
    options.repeat = 3;
    options.max_seconds = 0.2;
    warplab_report *report = NULL;
    warplab_status s = warplab_bench(ctx, &options, &report);
    CHECK_MSG(s == WARPLAB_OK, "warplab_bench %s/%s: %s: %s", ladder, rung,
              warplab_status_string(s), warplab_last_error(ctx));
    const warplab_row *row = NULL;
    for (size_t i = 0; report && i < report->row_count; i++)
        if (strcmp(report->rows[i].rung, rung) == 0)
            row = &report->rows[i];
    CHECK_MSG(row != NULL, "no %s row", rung);
    if (row) {
        printf("%s/%s %s: %s%s\n", ladder, rung, row->problem,
               row->flags & WARPLAB_ROW_SKIPPED  ? "skipped: "
               : row->flags & WARPLAB_ROW_FAILED ? "FAILED: "
                                                 : "ran",
               row->note);
        if (present) {
            CHECK_MSG(!(row->flags & (WARPLAB_ROW_SKIPPED | WARPLAB_ROW_FAILED)) &&
                          row->status == WARPLAB_OK && row->median_ms > 0,
                      "%s: %s", rung, row->note);
        } else {
            CHECK(row->flags & WARPLAB_ROW_SKIPPED);
            CHECK_MSG(strstr(row->note, "cuBLAS cannot be loaded") != NULL, "'%s'", row->note);
            CHECK_MSG(strstr(row->note, "libcublas") != NULL, "'%s'", row->note);
        }
    }
    warplab_report_destroy(report);
}

/* Work on the cpu backend: vector add, verified by the harness. */
static void cpu_work(void)
{
    warplab_context *ctx = NULL;
    warplab_status s = warplab_context_create(WARPLAB_BACKEND_CPU, -1, &ctx);
    CHECK_MSG(s == WARPLAB_OK, "cpu context: %s: %s", warplab_status_string(s),
              warplab_last_error(NULL));
    if (s == WARPLAB_OK)
        bench_row(ctx, "vecadd", "cpu_loop", "4099", true);
    warplab_context_destroy(ctx);
}

int main(int argc, char **argv)
{
    if (argc != 3 || (strcmp(argv[1], "host") && strcmp(argv[1], "cuda")) ||
        (strcmp(argv[2], "missing") && strcmp(argv[2], "present"))) {
        fprintf(stderr, "usage: %s host|cuda missing|present\n", argv[0]);
        return 2;
    }
    const bool present = strcmp(argv[2], "present") == 0;
    check_nothing_mapped("at start-up");
    cpu_work();
    check_nothing_mapped("after work on the cpu backend");
    if (strcmp(argv[1], "host") == 0) {
        if (!present && warplab_backend_compiled(WARPLAB_BACKEND_CUDA))
            nccl_missing();
#ifdef LAZY_INTERNAL
        if (warplab_backend_compiled(WARPLAB_BACKEND_CUDA))
            loader(present);
#endif
        cpu_work(); /* still fine after a failed load */
        return check_report("lazy_libraries host");
    }
    warplab_context *ctx = NULL;
    if (!warplab_backend_compiled(WARPLAB_BACKEND_CUDA) ||
        warplab_context_create(WARPLAB_BACKEND_CUDA, 0, &ctx) != WARPLAB_OK) {
        printf("lazy_libraries cuda: no CUDA device (%s): skipped\n", warplab_last_error(NULL));
        return TEST_SKIP;
    }
    check_nothing_mapped("after a cuda context is made");
    bench_row(ctx, "transpose", "cublas", "1000x777", present);
    bench_row(ctx, "gemm", "cublas_fp32", "257x130x99", present);
    if (!present)
        nccl_missing();
    warplab_context_destroy(ctx);
    return check_report("lazy_libraries cuda");
}
