/* Forwards to src/kernels/opencl/opencl_backend.h (the kernels layer) for the GEMM files that
 * still include it by this path; it goes when they move into their layers. */
#include "kernels/opencl/opencl_backend.h"
