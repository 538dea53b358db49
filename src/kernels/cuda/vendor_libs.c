/* cuBLAS and NCCL through dlopen at first use (vendor_libs.h says why and
 * where each is looked for). */
#define _GNU_SOURCE /* secure_getenv: a set-user-ID program ignores the overrides */
#include "vendor_libs.h"

#include "internal.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define WL_TEXT(x) #x
#define WL_NUMBER_TEXT(x) WL_TEXT(x)

/* The directories the build found the libraries in (CMakeLists.txt); empty
 * where unknown. */
#ifndef WARPLAB_CUBLAS_DIR
#define WARPLAB_CUBLAS_DIR ""
#endif
#ifndef WARPLAB_NCCL_DIR
#define WARPLAB_NCCL_DIR ""
#endif

typedef struct vendor_lib {
    const char *title;    /* "cuBLAS" */
    const char *soname;   /* "libcublas.so.13" */
    const char *variable; /* the override, "WARPLAB_CUBLAS_LIBRARY" */
    const char *build_dir;
    void *handle;      /* kept for the process once loaded */
    char reason[1024]; /* why not, when handle is NULL */
} vendor_lib;

/* Opens the library: the override alone where set, else the SONAME through
 * the loader's search, then in the build's directory. */
static bool vendor_open(vendor_lib *lib)
{
    const char *override = secure_getenv(lib->variable);
    char path[4096];
    const char *names[2] = {NULL, NULL};
    if (override && *override) {
        names[0] = override;
        /* The loader's message names the file. */
        wl_format(lib->reason, sizeof lib->reason, "%s cannot be loaded (%s): ", lib->title,
                  lib->variable);
    } else {
        names[0] = lib->soname;
        if (lib->build_dir[0]) {
            wl_format(path, sizeof path, "%s/%s", lib->build_dir, lib->soname);
            names[1] = path;
        }
        wl_format(lib->reason, sizeof lib->reason, "%s cannot be loaded: ", lib->title);
    }
    for (int i = 0; i < 2 && names[i]; i++) {
        dlerror();
        lib->handle = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (lib->handle)
            return true;
        const char *why = dlerror();
        wl_append(lib->reason, sizeof lib->reason, "%s%s", i ? "; " : "", why ? why : names[i]);
    }
    return false;
}

/* The address of one entry point into *slot (a function pointer of the
 * table); false, with why in lib->reason, where the library lacks it. */
static bool vendor_symbol(vendor_lib *lib, const char *name, void *slot, size_t slot_size)
{
    if (!lib->handle)
        return false;
    dlerror();
    void *address = dlsym(lib->handle, name);
    const char *why = dlerror();
    if (!address || why || slot_size != sizeof address) {
        wl_format(lib->reason, sizeof lib->reason, "%s (%s) lacks %s: %s", lib->title, lib->soname,
                  name, why ? why : "no address");
        dlclose(lib->handle);
        lib->handle = NULL;
        return false;
    }
    /* POSIX: a function's address from dlsym converts through its bytes. */
    memcpy(slot, &address, sizeof address);
    return true;
}

/* One entry point into api->field, where the table's type must be the
 * header's (the sizeof compares the two types without referring to the
 * library's symbol, which is never linked). */
#define WL_RESOLVE(lib, api, field, function)                                                      \
    ((void)sizeof(1 ? &function : (api)->field),                                                   \
     vendor_symbol((lib), #function, &(api)->field, sizeof(api)->field))

/* ------------------------------------------------------------------------ */
/* cuBLAS                                                                   */

static vendor_lib cublas_lib = {.title = "cuBLAS",
                                .soname = "libcublas.so." WL_NUMBER_TEXT(CUBLAS_VER_MAJOR),
                                .variable = "WARPLAB_CUBLAS_LIBRARY",
                                .build_dir = WARPLAB_CUBLAS_DIR};
static wl_cublas_api cublas_api;
static pthread_once_t cublas_once = PTHREAD_ONCE_INIT;

static void cublas_open(void)
{
    vendor_lib *lib = &cublas_lib;
    wl_cublas_api *api = &cublas_api;
    if (vendor_open(lib) && WL_RESOLVE(lib, api, create, cublasCreate_v2) &&
        WL_RESOLVE(lib, api, destroy, cublasDestroy_v2) &&
        WL_RESOLVE(lib, api, set_stream, cublasSetStream_v2) &&
        WL_RESOLVE(lib, api, set_math_mode, cublasSetMathMode) &&
        WL_RESOLVE(lib, api, status_string, cublasGetStatusString) &&
        WL_RESOLVE(lib, api, sgemm, cublasSgemm_v2) &&
        WL_RESOLVE(lib, api, gemm_ex, cublasGemmEx) &&
        WL_RESOLVE(lib, api, gemm_strided_batched_ex, cublasGemmStridedBatchedEx) &&
        WL_RESOLVE(lib, api, sgeam, cublasSgeam) && WL_RESOLVE(lib, api, dgeam, cublasDgeam))
        lib->reason[0] = '\0';
}

const wl_cublas_api *wl_cublas_load(char *reason, size_t reason_len)
{
    pthread_once(&cublas_once, cublas_open);
    if (cublas_lib.handle)
        return &cublas_api;
    if (reason)
        wl_copy_string(reason, reason_len, cublas_lib.reason);
    return NULL;
}

const char *wl_cublas_soname(void)
{
    return cublas_lib.soname;
}

/* ------------------------------------------------------------------------ */
/* NCCL                                                                     */

#ifdef WARPLAB_HAVE_NCCL
static vendor_lib nccl_lib = {.title = "NCCL",
                              .soname = "libnccl.so." WL_NUMBER_TEXT(NCCL_MAJOR),
                              .variable = "WARPLAB_NCCL_LIBRARY",
                              .build_dir = WARPLAB_NCCL_DIR};
static wl_nccl_api nccl_api;
static pthread_once_t nccl_once = PTHREAD_ONCE_INIT;

static void nccl_open(void)
{
    vendor_lib *lib = &nccl_lib;
    wl_nccl_api *api = &nccl_api;
    if (vendor_open(lib) && WL_RESOLVE(lib, api, get_unique_id, ncclGetUniqueId) &&
        WL_RESOLVE(lib, api, comm_init_rank, ncclCommInitRank) &&
        WL_RESOLVE(lib, api, comm_init_all, ncclCommInitAll) &&
        WL_RESOLVE(lib, api, comm_destroy, ncclCommDestroy) &&
        WL_RESOLVE(lib, api, all_reduce, ncclAllReduce) &&
        WL_RESOLVE(lib, api, group_start, ncclGroupStart) &&
        WL_RESOLVE(lib, api, group_end, ncclGroupEnd) &&
        WL_RESOLVE(lib, api, error_string, ncclGetErrorString))
        lib->reason[0] = '\0';
}

const wl_nccl_api *wl_nccl_load(char *reason, size_t reason_len)
{
    pthread_once(&nccl_once, nccl_open);
    if (nccl_lib.handle)
        return &nccl_api;
    if (reason)
        wl_copy_string(reason, reason_len, nccl_lib.reason);
    return NULL;
}

const char *wl_nccl_soname(void)
{
    return nccl_lib.soname;
}
#endif
