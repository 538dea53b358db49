/* The backends' implementation tables (wl_backend_ops.impls): the lookup by
 * name, done once where a name enters (an operation's first call, a
 * --rung list), and one run of an implementation, the sequence the
 * harness's runs and the library's calls share. */
#include "internal.h"

#include <string.h>

const wl_impl *wl_ops_find_impl(const wl_backend_ops *ops, const char *ladder, const char *rung)
{
    for (const wl_impl *const *const *table = ops->impls; table && *table; table++)
        for (const wl_impl *const *impl = *table; *impl; impl++)
            if (strcmp((*impl)->ladder, ladder) == 0 && strcmp((*impl)->rung, rung) == 0)
                return *impl;
    return NULL;
}

const wl_impl *wl_backend_find_impl(const wl_backend *backend, const char *ladder, const char *rung)
{
    return wl_ops_find_impl(backend->ops, ladder, rung);
}

warplab_status wl_impl_run(wl_backend *backend, const wl_impl *impl, const wl_launch *launch,
                           void *state, bool finish)
{
    warplab_status status = WARPLAB_OK;
    if (impl->prepare)
        status = impl->prepare(backend, launch, state);
    if (status == WARPLAB_OK)
        status = impl->launch(backend, launch, state);
    if (status == WARPLAB_OK && finish && impl->finish)
        status = impl->finish(backend, launch, state);
    return status;
}
