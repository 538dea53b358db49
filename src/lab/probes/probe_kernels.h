/* Constants the probe kernels and their CPU references must agree on
 * (included by src/lab/probes/probe_*.c and cuda/probe*.cu; the OpenCL
 * kernels receive them as arguments, or repeat them where a compile-time
 * constant is the point, with a comment naming this file). */
#ifndef WARPLAB_PROBE_KERNELS_H
#define WARPLAB_PROBE_KERNELS_H

/* Threads per block of the in-kernel probes (banks, divergence, atomics,
 * intrinsics, unroll) and of the coalescing copies. */
#define WL_PROBE_BLOCK 256
#define WL_PROBE_WARP 32

/* banks: a table of 2048 words per block; each thread follows 4 independent
 * chains w <- table[w] = (w + 32 x stride) mod 2048, chain c starting at
 * lane x stride + 32 x stride x start[warp] + 512 c. */
#define WL_BANKS_WORDS 2048u
#define WL_BANKS_CHAINS 4
#define WL_BANKS_CHAIN_GAP 512u

/* atomics: seed 002's list of atomic functions, the order of the
 * atomic_functions section's series (the OpenCL kernels are one per
 * function, named after them). inc and dec take the limit 0xffffffff. */
typedef enum wl_atomic_function {
    WL_ATOMIC_ADD = 0,
    WL_ATOMIC_SUB,
    WL_ATOMIC_EXCH,
    WL_ATOMIC_MIN,
    WL_ATOMIC_MAX,
    WL_ATOMIC_INC,
    WL_ATOMIC_DEC,
    WL_ATOMIC_AND,
    WL_ATOMIC_OR,
    WL_ATOMIC_XOR
} wl_atomic_function;

/* memories: the table the constant series reads (16 KiB of the 64 KiB of
 * constant memory) and the longest per-thread array. */
#define WL_CONSTANT_WORDS 4096
#define WL_LOCAL_MAX 64

/* memories, section readonly: thread t's k-th read of a table of W words
 * (a power of two) is word WL_GATHER_INDEX(t, k) & (W - 1): a hash, so a
 * warp's 32 lanes scatter over 32 lines (a gather). */
#define WL_GATHER_INDEX(t, k)                                                                      \
    (((unsigned)(t)*2654435761u + (unsigned)(k)*40503u) ^                                          \
     (((unsigned)(t)*2654435761u + (unsigned)(k)*40503u) >> 15))

/* latency: the chase moves WL_CHASE_STRIDE words (132 bytes, a new 128-byte
 * line) a step; the in-flight copy runs blocks of WL_FLIGHT_BLOCK threads
 * (the OpenCL kernels repeat both, naming this file). */
#define WL_CHASE_STRIDE 33u
#define WL_FLIGHT_BLOCK 64

/* The FMA chain y <- fma(y, a, b) of the divergence and overlap probes: with
 * a = 0.9999, a^4096 = 0.66, so the start value stays visible in the result
 * (a chunk or element mix-up fails the check). */
#define WL_CHAIN_A 0.9999f

/* divergence: path q adds b_q = 0.001 x (q + 1) in its FMA chain. */
#define WL_DIVERGENCE_B(q) (0.001f * (float)((q) + 1))

/* overlap (transfers): the per-element kernel is the same FMA chain. */
#define WL_OVERLAP_B 0.001f
#define WL_OVERLAP_CHUNKS 16
/* transfers' latency_bound section: FMAs per element of its small arrays. */
#define WL_LATENCY_K 64

/* intrinsics: arguments on a grid of 2^-18 so that arg + k x 2^-12 stays
 * exact; x = lo + (k_i mod span x 2^18) x 2^-18. */
#define WL_INTRINSICS_GRID (1.0f / 262144.0f) /* 2^-18 */
#define WL_INTRINSICS_STEP (1.0f / 4096.0f)   /* 2^-12 */
#define WL_SIN_LO (-3.140625f)                /* -804/256, within [-pi, pi] */
#define WL_SIN_CELLS 1646592u                 /* 6.28125 x 2^18 */
#define WL_EXP_LO (-10.0f)
#define WL_EXP_CELLS 5242880u /* 20 x 2^18 */
/* division: a / ((c + k)(c + k + 1)), which telescopes (the sum over k is
 * a (1/c - 1/(c + K))); the divisor changes every step, so no reciprocal
 * can be hoisted. c = 1 + floor(w x 99 x 4096) / 4096, in [1, 100). */
#define WL_DIV_LO (-1.0f)
#define WL_DIV_CELLS 524288u     /* 2 x 2^18 */
#define WL_DIV_C_CELLS 405504.0f /* 99 x 4096 */
#define WL_DIV_C_GRID (1.0f / 4096.0f)
#define WL_INT_DIVISOR 32u /* a power of two the compiler is not told about */
#define WL_INT_SHIFT 5
#define WL_INT_STEP 977u

/* unroll: a polynomial of 64 coefficients by Horner, coefficients in shared memory. */
#define WL_UNROLL_DEGREE 64

#endif /* WARPLAB_PROBE_KERNELS_H */
