/* The registry: the ladders (from src/core/ladders.def), their rungs as
 * the public API lists them, and each backend's implementations of them.
 * Names are looked up here, once, where a caller's text (a --rung list, a
 * ladder name) enters; the harness and the library's operations hold the
 * ladder, rung and impl rows themselves. */
#include "internal.h"
#include "ladders/ladders.h"
#include "warplab_lab.h"

#include <string.h>

/* ------------------------------------------------------------------------ */
/* The ladder registry                                                      */

static const wl_ladder *const ladders[] = {
#define WL_LADDER(name) &wl_##name##_ladder,
#include "core/ladders.def"
#undef WL_LADDER
};

size_t wl_ladder_count(void)
{
    return sizeof ladders / sizeof ladders[0];
}

const wl_ladder *wl_ladder_at(size_t index)
{
    return index < wl_ladder_count() ? ladders[index] : NULL;
}

const wl_ladder *wl_ladder_find(const char *name)
{
    for (size_t i = 0; name && i < wl_ladder_count(); i++)
        if (strcmp(ladders[i]->name, name) == 0)
            return ladders[i];
    return NULL;
}

const wl_rung *wl_rung_find(const wl_ladder *ladder, const char *id)
{
    for (size_t i = 0; id && i < ladder->rung_count; i++)
        if (strcmp(ladder->rungs[i].id, id) == 0)
            return &ladder->rungs[i];
    return NULL;
}

size_t warplab_ladder_count(void)
{
    return wl_ladder_count();
}

const char *warplab_ladder_name(size_t index)
{
    const wl_ladder *ladder = wl_ladder_at(index);
    return ladder ? ladder->name : NULL;
}

const char *warplab_ladder_title(size_t index)
{
    const wl_ladder *ladder = wl_ladder_at(index);
    return ladder ? ladder->title : NULL;
}

const char *warplab_ladder_rung(const char *ladder_name, size_t index, const char **title)
{
    const wl_ladder *ladder = wl_ladder_find(ladder_name);
    if (!ladder || index >= ladder->rung_count)
        return NULL;
    if (title)
        *title = ladder->rungs[index].title;
    return ladder->rungs[index].id;
}

unsigned warplab_rung_flags(const char *ladder_name, const char *rung_id)
{
    const wl_ladder *ladder = wl_ladder_find(ladder_name);
    const wl_rung *rung = ladder ? wl_rung_find(ladder, rung_id) : NULL;
    const unsigned public_flags = WARPLAB_ROW_HOST | WARPLAB_ROW_VENDOR | WARPLAB_ROW_REFERENCE |
                                  WARPLAB_ROW_UNSAFE | WARPLAB_ROW_TRANSFER;
    return rung ? rung->flags & public_flags : 0;
}

static const char *or_empty(const char *text)
{
    return text ? text : "";
}

static warplab_status warplab_rung_describe_checked(const char *ladder_name, const char *rung_id,
                                                    warplab_rung_info *info)
{
    if (!ladder_name || !rung_id || !info)
        return wl_detached_fail(WARPLAB_ERROR_INVALID_ARGUMENT, "ladder, rung and info are needed");
    const wl_ladder *ladder = wl_ladder_find(ladder_name);
    const wl_rung *rung = ladder ? wl_rung_find(ladder, rung_id) : NULL;
    if (!rung)
        return wl_detached_fail(WARPLAB_ERROR_UNKNOWN_NAME, "no rung '%s' in ladder '%s'", rung_id,
                                ladder_name);
    info->id = rung->id;
    info->title = or_empty(rung->title);
    info->lesson = or_empty(rung->lesson);
    info->course = or_empty(rung->course);
    info->course_value = rung->course_value;
    info->course_unit = or_empty(rung->course_unit);
    info->course_device = or_empty(rung->course_device);
    info->course_bound = rung->course_bound;
    info->course_value2 = rung->course_value2;
    info->course_unit2 = rung->course_unit2 ? rung->course_unit2 : info->course_unit;
    info->course_device2 = or_empty(rung->course_device2);
    info->flags = warplab_rung_flags(ladder_name, rung_id);
    info->vendor = or_empty(rung->vendor);
    return WARPLAB_OK;
}

warplab_status warplab_rung_describe(const char *ladder_name, const char *rung_id,
                                     warplab_rung_info *info)
{
    wl_api_begin(NULL);
    return wl_api_end(NULL, "warplab_rung_describe",
                      warplab_rung_describe_checked(ladder_name, rung_id, info));
}

const char *warplab_ladder_shape_set(const char *ladder_name)
{
    const wl_ladder *ladder = wl_ladder_find(ladder_name);
    return ladder ? ladder->shape_set : NULL;
}

/* ------------------------------------------------------------------------ */
/* Limits                                                                   */

warplab_status wl_rung_supports(wl_backend *backend, const wl_ladder *ladder, const wl_rung *rung,
                                const wl_impl *impl, const wl_problem *problem, char *reason,
                                size_t reason_len)
{
    warplab_status status = WARPLAB_OK;
    if (ladder->rung_supports)
        status = ladder->rung_supports(rung, problem, reason, reason_len);
    if (status == WARPLAB_OK && rung->supports)
        status = rung->supports(problem, &backend->info, reason, reason_len);
    if (status == WARPLAB_OK && impl->supports)
        status = impl->supports(backend, problem, reason, reason_len);
    return status;
}
