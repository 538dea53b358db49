/* The context's internals live in src/core/context.h (the core layer). This
 * header forwards to it for the GEMM files that still include it by this
 * path; it goes when they move into their layers. */
#include "core/context.h"
