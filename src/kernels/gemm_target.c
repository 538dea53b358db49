/* The planner's target for a backend's device (gemm_problem.h): one
 * target a device, whichever layer plans, with the backend's own facts.
 * A file of its own: the cuda facts live with the cuda launches
 * (gemm_ex.cu), which a program linked without them (the emulated kernel
 * tests: tests/emulate/) must not pull in with gemm_problem.c. */
#include "gemm_problem.h"

wl_gemm_target wl_gemm_target_for(const wl_backend *backend)
{
    /* sm90a: the wgmma kernels' architecture (the launchers check that
     * they were built as well; no row of the table needs it yet). */
    wl_gemm_target t = wl_gemm_target_of(&backend->info, backend->info.cc_major == 9 &&
                                                             backend->info.cc_minor == 0);
#ifdef WARPLAB_HAVE_CUDA
    if (backend->ops && backend->ops->kind == WARPLAB_BACKEND_CUDA)
        wl_gemm_cuda_target_facts(backend, &t);
#endif
    return t;
}
