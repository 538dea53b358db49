/* Forwards to src/kernels/cuda/vendor_libs.h (the kernels layer) for the GEMM
 * files that still include it by this path; it goes when they move into
 * their layers. */
#include "kernels/cuda/vendor_libs.h"
