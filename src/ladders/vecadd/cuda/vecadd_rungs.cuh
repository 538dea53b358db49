/* What the cuda backend's vector-add rungs share (seed 001): the launch's
 * views as floats, the float4 rungs' alignment plan, and the host-side
 * staging of the transfer and managed-memory rungs. Each rung's own kernel,
 * launcher and impl row are in the numbered file beside this one
 * (NN_<rung>.cu, NN = its place in `warplab ladders vecadd`; 01 and 02 are
 * the CPU loops); vecadd_rungs.cu includes them in ladder order and lists
 * their impl rows for the backend. Every kernel is correct for any n (0
 * launches nothing) and for views that are not 16-byte aligned. */
#ifndef WARPLAB_VECADD_RUNGS_CUH
#define WARPLAB_VECADD_RUNGS_CUH

#include "kernels/cuda/cuda_backend.h"
#include "kernels/vecadd.h"

#include <cstdint>
#include <cstdlib>

namespace
{

/* The launch's buffer i, as floats. */
inline float *view_of(const wl_launch *launch, int i)
{
    return (float *)wl_view_ptr(launch->buf[i]);
}

/* The float4 rungs' plan: float4 needs the three arrays equally misaligned
 * (otherwise no common head exists and the scalar loop is the honest
 * fallback: false); *head receives the elements before the first 16-byte
 * boundary (at most n). */
inline bool float4_head(const float *a, const float *b, const float *c, size_t n, size_t *head)
{
    const uintptr_t misalign = (uintptr_t)a % 16;
    if ((uintptr_t)b % 16 != misalign || (uintptr_t)c % 16 != misalign || misalign % 4)
        return false;
    *head = misalign ? (16 - misalign) / 4 : 0;
    if (*head > n)
        *head = n;
    return true;
}

/* The transfer and managed rungs' host state: a page-locked array (h2d,
 * d2h) or three managed arrays (managed, managed_prefetch). */
typedef struct staging {
    float *host; /* page-locked */
    float *managed[3];
} staging;

inline void staging_teardown(wl_backend *backend, void *state)
{
    (void)backend;
    staging *s = (staging *)state;
    if (!s)
        return;
    if (s->host)
        cudaFreeHost(s->host);
    for (int i = 0; i < 3; i++)
        if (s->managed[i])
            cudaFree(s->managed[i]);
    free(s);
}

/* One array of n floats copied between a view and host (or managed) memory
 * on the backend's stream. */
inline warplab_status copy_array(wl_backend *backend, void *to, const void *from, size_t n,
                                 cudaMemcpyKind kind, const char *what)
{
    return wl_cuda_check(
        backend, cudaMemcpyAsync(to, from, n * sizeof(float), kind, wl_cuda_stream(backend)), what);
}

} // namespace

#endif
