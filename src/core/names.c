/* Names, status strings and size parsing: the small vocabulary of the API. */
#include "internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *warplab_version(void)
{
    return WARPLAB_VERSION_STRING;
}

static const char *const backend_names[WARPLAB_BACKEND_COUNT] = {"auto", "cuda", "opencl", "cpu"};

const char *warplab_backend_name(warplab_backend_kind kind)
{
    return (unsigned)kind < WARPLAB_BACKEND_COUNT ? backend_names[kind] : "unknown";
}

static warplab_status warplab_backend_parse_checked(const char *name, warplab_backend_kind *kind)
{
    if (!name || !kind)
        return wl_detached_fail(WARPLAB_ERROR_INVALID_ARGUMENT, "name and kind are needed");
    for (int i = 0; i < WARPLAB_BACKEND_COUNT; i++)
        if (strcasecmp(name, backend_names[i]) == 0) {
            *kind = (warplab_backend_kind)i;
            return WARPLAB_OK;
        }
    return wl_detached_fail(WARPLAB_ERROR_UNKNOWN_NAME, "no backend '%s' (cuda, opencl, cpu, auto)",
                            name);
}

warplab_status warplab_backend_parse(const char *name, warplab_backend_kind *kind)
{
    wl_api_begin(NULL);
    return wl_api_end(NULL, "warplab_backend_parse", warplab_backend_parse_checked(name, kind));
}

static const char *const dtype_names[WARPLAB_DTYPE_COUNT] = {"int32", "float", "double", "bf16",
                                                             "fp16"};

const char *warplab_dtype_name(warplab_dtype dtype)
{
    return (unsigned)dtype < WARPLAB_DTYPE_COUNT ? dtype_names[dtype] : "unknown";
}

static warplab_status warplab_dtype_parse_checked(const char *name, warplab_dtype *dtype)
{
    static const struct {
        const char *name;
        warplab_dtype dtype;
    } aliases[] = {{"int32", WARPLAB_INT32},
                   {"int", WARPLAB_INT32},
                   {"i32", WARPLAB_INT32},
                   {"float", WARPLAB_FLOAT32},
                   {"float32", WARPLAB_FLOAT32},
                   {"f32", WARPLAB_FLOAT32},
                   {"fp32", WARPLAB_FLOAT32},
                   {"double", WARPLAB_FLOAT64},
                   {"float64", WARPLAB_FLOAT64},
                   {"f64", WARPLAB_FLOAT64},
                   {"fp64", WARPLAB_FLOAT64},
                   /* The 16-bit types of warplab_gemm_ex. */
                   {"bf16", WARPLAB_BFLOAT16},
                   {"bfloat16", WARPLAB_BFLOAT16},
                   {"fp16", WARPLAB_FLOAT16},
                   {"half", WARPLAB_FLOAT16},
                   {"float16", WARPLAB_FLOAT16},
                   {"f16", WARPLAB_FLOAT16}};
    if (!name || !dtype)
        return wl_detached_fail(WARPLAB_ERROR_INVALID_ARGUMENT, "name and dtype are needed");
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (strcasecmp(name, aliases[i].name) == 0) {
            *dtype = aliases[i].dtype;
            return WARPLAB_OK;
        }
    return wl_detached_fail(WARPLAB_ERROR_UNKNOWN_NAME, "no element type '%s'", name);
}

warplab_status warplab_dtype_parse(const char *name, warplab_dtype *dtype)
{
    wl_api_begin(NULL);
    return wl_api_end(NULL, "warplab_dtype_parse", warplab_dtype_parse_checked(name, dtype));
}

size_t warplab_dtype_size(warplab_dtype dtype)
{
    switch (dtype) {
    case WARPLAB_INT32: return 4;
    case WARPLAB_FLOAT32: return 4;
    case WARPLAB_FLOAT64: return 8;
    case WARPLAB_BFLOAT16: return 2;
    case WARPLAB_FLOAT16: return 2;
    default: return 0;
    }
}

/* One dimension: digits, optional "^exponent" (base^exp), optional K/M/G
 * suffix in units of 2^10. Overflow past SIZE_MAX is an error. */
static warplab_status parse_dimension(const char *text, size_t length, size_t *value,
                                      bool *overflow)
{
    char buffer[64];
    if (length == 0 || length >= sizeof buffer)
        return WARPLAB_ERROR_INVALID_ARGUMENT;
    memcpy(buffer, text, length);
    buffer[length] = '\0';
    if (!isdigit((unsigned char)buffer[0]))
        return WARPLAB_ERROR_INVALID_ARGUMENT;
    errno = 0;
    char *end = NULL;
    unsigned long long base = strtoull(buffer, &end, 10);
    if (errno) {
        *overflow = errno == ERANGE;
        return WARPLAB_ERROR_INVALID_ARGUMENT;
    }
    unsigned long long result = base;
    if (*end == '^') {
        const char *exponent_text = end + 1;
        if (!isdigit((unsigned char)*exponent_text))
            return WARPLAB_ERROR_INVALID_ARGUMENT;
        unsigned long long exponent = strtoull(exponent_text, &end, 10);
        if (errno || exponent > 64) {
            *overflow = true;
            return WARPLAB_ERROR_INVALID_ARGUMENT;
        }
        result = 1;
        for (unsigned long long i = 0; i < exponent; i++) {
            if (base != 0 && result > SIZE_MAX / base) {
                *overflow = true;
                return WARPLAB_ERROR_INVALID_ARGUMENT;
            }
            result *= base;
        }
    }
    unsigned long long multiplier = 1;
    switch (*end) {
    case 'k':
    case 'K':
        multiplier = 1ull << 10;
        end++;
        break;
    case 'm':
    case 'M':
        multiplier = 1ull << 20;
        end++;
        break;
    case 'g':
    case 'G':
        multiplier = 1ull << 30;
        end++;
        break;
    default: break;
    }
    if (*end != '\0')
        return WARPLAB_ERROR_INVALID_ARGUMENT;
    if (result != 0 && multiplier > SIZE_MAX / result) {
        *overflow = true;
        return WARPLAB_ERROR_INVALID_ARGUMENT;
    }
    *value = (size_t)(result * multiplier);
    return WARPLAB_OK;
}

warplab_status wl_parse_size(const char *text, size_t sizes[3], int *dims, bool *overflow)
{
    *overflow = false;
    size_t parsed[3] = {0, 0, 0};
    int count = 0;
    const char *start = text;
    for (;;) {
        const char *sep = start;
        while (*sep && *sep != 'x' && *sep != 'X' && *sep != '*')
            sep++;
        if (count == 3)
            return WARPLAB_ERROR_INVALID_ARGUMENT;
        warplab_status status =
            parse_dimension(start, (size_t)(sep - start), &parsed[count], overflow);
        if (status != WARPLAB_OK)
            return status;
        count++;
        if (*sep == '\0')
            break;
        start = sep + 1;
    }
    for (int i = 0; i < 3; i++)
        sizes[i] = parsed[i];
    *dims = count;
    return WARPLAB_OK;
}
