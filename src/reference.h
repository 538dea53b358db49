/* The device references live in src/lab/reference.h (the lab layer). This
 * header forwards to it for the GEMM files that still include it by this
 * path; it goes when they move into their layers. */
#include "lab/reference.h"
