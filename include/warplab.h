/*
 * warplab: GPU optimisation ladders (vector add, reduction, transpose, matrix
 * multiply) behind a plain C API.
 *
 * Conventions
 * - Every function that can fail returns a warplab_status; WARPLAB_OK is 0.
 *   warplab_status_string() names each code; warplab_last_error() gives the
 *   detail of the last failure in a context (sizes, limits, driver messages),
 *   or with NULL of the thread's last failed call without a context (a NULL
 *   context or buffer included). Each message starts with the name of the
 *   function called ("warplab_gemm: ..."), and a call that succeeds leaves
 *   its slot empty.
 * - The library never prints and never exits. Functions that write text take
 *   the FILE * they write to.
 * - Sizes are element counts unless a name says bytes. GB means 1e9 bytes.
 * - On failure, outputs are left untouched: arguments are validated before
 *   any device work starts.
 */
#ifndef WARPLAB_H
#define WARPLAB_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define WARPLAB_VERSION_MAJOR 0
#define WARPLAB_VERSION_MINOR 1
#define WARPLAB_VERSION_PATCH 0
#define WARPLAB_VERSION_STRING "0.1.0"

/* The version of the library actually linked (the macros give the header's). */
const char *warplab_version(void);

/* ------------------------------------------------------------------------ */
/* Status codes                                                             */

typedef enum warplab_status {
    WARPLAB_OK = 0,
    WARPLAB_ERROR_INVALID_ARGUMENT,     /* a size, pointer or option is out of range */
    WARPLAB_ERROR_UNKNOWN_NAME,         /* no such ladder, rung, probe, type or backend */
    WARPLAB_ERROR_HOST_OUT_OF_MEMORY,   /* malloc failed */
    WARPLAB_ERROR_DEVICE_OUT_OF_MEMORY, /* the device has too little free memory */
    WARPLAB_ERROR_NO_DEVICE,            /* the backend found no usable device */
    WARPLAB_ERROR_BACKEND_UNAVAILABLE,  /* the backend was not compiled in */
    WARPLAB_ERROR_UNSUPPORTED,          /* outside a rung's limits (e.g. the one-block kernel) */
    WARPLAB_ERROR_VERIFICATION_FAILED,  /* a result disagreed with the CPU reference */
    WARPLAB_ERROR_BACKEND,              /* the driver or runtime reported an error */
    WARPLAB_ERROR_IO,                   /* a file could not be written */
    WARPLAB_STATUS_COUNT
} warplab_status;

/* A fixed English description of a status code; never NULL. */
const char *warplab_status_string(warplab_status status);

/* ------------------------------------------------------------------------ */
/* Backends, contexts and devices                                           */

typedef enum warplab_backend_kind {
    WARPLAB_BACKEND_AUTO = 0, /* the best present: cuda, then opencl, then cpu */
    WARPLAB_BACKEND_CUDA,
    WARPLAB_BACKEND_OPENCL,
    WARPLAB_BACKEND_CPU,
    WARPLAB_BACKEND_COUNT
} warplab_backend_kind;

/* "cuda", "opencl", "cpu" ("auto" for AUTO). */
const char *warplab_backend_name(warplab_backend_kind kind);
/* Parses a backend name; WARPLAB_ERROR_UNKNOWN_NAME if it is none of them. */
warplab_status warplab_backend_parse(const char *name, warplab_backend_kind *kind);
/* 1 when the backend was compiled into this build, else 0. */
int warplab_backend_compiled(warplab_backend_kind kind);

typedef struct warplab_device_info {
    warplab_backend_kind backend;
    int index; /* device index within the backend */
    int gpu;   /* 1 for a GPU, 0 for a CPU (PoCL, the cpu backend) */
    char name[256];
    char vendor[128];
    char driver_version[64];
    /* CUDA compute capability; 0.0 elsewhere. */
    int cc_major, cc_minor;
    int multiprocessors; /* SMs (CUDA) or compute units (OpenCL) or cores (cpu) */
    int warp_size;       /* 32 on NVIDIA; 1 where the notion does not apply */
    int max_threads_per_block;
    int max_threads_per_multiprocessor;   /* 0 = unknown */
    int max_blocks_per_multiprocessor;    /* 0 = unknown */
    int registers_per_block;              /* 0 = unknown */
    int registers_per_multiprocessor;     /* 0 = unknown */
    size_t shared_memory_per_block;       /* default limit, bytes */
    size_t shared_memory_per_block_optin; /* with cudaFuncSetAttribute, bytes */
    size_t shared_memory_per_multiprocessor;
    size_t l2_cache_bytes;
    size_t global_memory_bytes;
    int memory_bus_width_bits; /* 0 = unknown */
    int memory_clock_khz;      /* 0 = unknown */
    int core_clock_khz;        /* 0 = unknown */
    /* The course's formula: bus width (bits) x data rate (2 x memory clock) / 8. 0 = unknown. */
    double theoretical_bandwidth_gbs;
    /* Multiprocessors x FP32 lanes per multiprocessor x 2 x core clock. 0 = unknown. */
    double fp32_peak_gflops;
    int max_block_dim[3];
    int max_grid_dim[3];
    int concurrent_kernels;
    int async_engines;
    int managed_memory;
} warplab_device_info;

/* Devices of one backend (not AUTO). *count receives the number present even
 * when it exceeds capacity; a backend not compiled in reports 0 devices. */
warplab_status warplab_devices(warplab_backend_kind kind, warplab_device_info *devices,
                               size_t capacity, size_t *count);

/* The course's theoretical memory bandwidth (seed 004, 'Calculate bandwidth
 * on your GPU'): bus width in bytes x data rate, in GB/s (1e9 bytes). The
 * memory clock is the one CUDA reports (cudaDevAttrMemoryClockRate, kHz) and
 * the data rate is twice it (double data rate): the course's "384-bit memory
 * interface, 900 MHz DDR: 384 * 1800 / 8 = 86.4 GB/s" is (384, 900000), its
 * 1800 MHz being the data rate. CUDA reports half the data rate for GDDR5/6
 * and HBM alike (H200: 6016 bit, 3201000 kHz -> 4814 GB/s), so one formula
 * serves. 0 when either is unknown (<= 0). */
double warplab_theoretical_bandwidth_gbs(int memory_bus_width_bits, int memory_clock_khz);

typedef struct warplab_context warplab_context;

/* Opens a backend on a device. AUTO picks the best backend with a device.
 * device_index < 0 means the first device.
 * Lifetime: buffers (and views and wrapped handles) keep their context alive.
 * warplab_context_destroy waits for the context's queued work and releases
 * its workspace; the backend itself is closed when the last of the context's
 * buffers is destroyed as well, so the two may be destroyed in either order.
 * After warplab_context_destroy the context pointer must not be used again;
 * its buffers may still be read, written and destroyed. */
warplab_status warplab_context_create(warplab_backend_kind kind, int device_index,
                                      warplab_context **context);
void warplab_context_destroy(warplab_context *context);
warplab_backend_kind warplab_context_backend(const warplab_context *context);
const warplab_device_info *warplab_context_device(const warplab_context *context);
/* The detail of the last failure in this context ("" if none). Valid until the
 * next call on the context. With NULL: the detail of the last failed context
 * creation or context-free call (occupancy, architectures) on this thread. */
const char *warplab_last_error(const warplab_context *context);

/* ------------------------------------------------------------------------ */
/* Device buffers                                                           */

typedef struct warplab_buffer warplab_buffer;

warplab_status warplab_buffer_create(warplab_context *context, size_t bytes,
                                     warplab_buffer **buffer);
void warplab_buffer_destroy(warplab_buffer *buffer);
size_t warplab_buffer_size(const warplab_buffer *buffer);
warplab_status warplab_buffer_write(warplab_buffer *buffer, size_t offset_bytes, const void *source,
                                    size_t bytes);
warplab_status warplab_buffer_read(const warplab_buffer *buffer, size_t offset_bytes,
                                   void *destination, size_t bytes);

/* ------------------------------------------------------------------------ */
/* The caller's memory and streams (warplab as a drop-in library)           */

/* Wraps memory the caller owns as a warplab buffer of bytes, without a copy:
 * - cuda: a device pointer (cudaMalloc, cudaMallocAsync, managed memory, or
 *   any address inside such an allocation, e.g. base + offset);
 * - opencl: a cl_mem created in the context's cl_context
 *   (warplab_context_native); for an offset into it, wrap the cl_mem and take
 *   a warplab_buffer_view (no sub-buffer alignment rules apply);
 * - cpu: host memory.
 * warplab never frees wrapped memory: warplab_buffer_destroy frees only the
 * wrapper; the memory must outlive it and every operation queued on it.
 * Operations accept any address aligned to their element size (4 bytes for
 * float and int32, 8 for double); where a kernel needs 16-byte alignment, a
 * view that lacks it takes a correct (scalar-edged) path, and no kernel reads
 * or writes a byte outside the views the operation was given. */
warplab_status warplab_buffer_wrap(warplab_context *context, void *handle, size_t bytes,
                                   warplab_buffer **buffer);
/* A buffer that aliases bytes of parent from offset_bytes on (any backend).
 * It never frees anything; parent must outlive it. */
warplab_status warplab_buffer_view(warplab_buffer *parent, size_t offset_bytes, size_t bytes,
                                   warplab_buffer **view);
/* The native handle (device pointer, cl_mem, host pointer) under a buffer and
 * the byte offset of the buffer's first byte in it, for the caller's own
 * kernels and copies. */
warplab_status warplab_buffer_native(const warplab_buffer *buffer, void **handle,
                                     size_t *offset_bytes);
/* opencl: the cl_context warplab runs in (wrapped cl_mems and bound queues
 * must belong to it). NULL on other backends. */
void *warplab_context_native(const warplab_context *context);

/* Streams, ordering and threads
 * - warplab_context_set_stream binds a stream the caller owns: a cudaStream_t
 *   on cuda, a cl_command_queue of the context's cl_context on opencl. NULL
 *   restores the context's own stream. Work warplab queued on the previous
 *   stream comes before anything queued after the call (warplab makes the new
 *   stream wait for it; not while either stream is being captured into a CUDA
 *   graph: order those yourself). The stream must outlive its binding. The cpu
 *   backend has no stream: binding one fails with WARPLAB_ERROR_UNSUPPORTED.
 * - Operations that write buffers (warplab_vecadd, warplab_transpose,
 *   warplab_gemm, warplab_reduce_to_buffer) are asynchronous on cuda and
 *   opencl: they validate their arguments, queue their kernels on the bound
 *   stream and return. They run in the order they were called, after whatever
 *   the caller queued on that stream before, and before what the caller queues
 *   after. A buffer must not be freed, nor its host-side source reused, until
 *   that work is done (warplab_context_synchronize, or the caller's own
 *   stream synchronisation). Errors of a kernel that fails while running
 *   surface at the next synchronising call.
 * - warplab_buffer_write, warplab_buffer_read and every call that returns a
 *   value on the host (warplab_reduce) are synchronous: queued on the bound
 *   stream in order, and complete when they return.
 * - warplab_context_synchronize waits for all the work queued on the bound
 *   stream (the caller's included).
 * - A context keeps per-operation workspace that grows when a larger problem
 *   needs it and is reused after. The first call at a new largest size
 *   allocates (and waits for the stream); later calls allocate nothing and do
 *   not synchronise. The kernels can be captured into a CUDA graph: run each
 *   operation once at its size before capturing (warplab_reduce, being
 *   synchronous, cannot be captured; warplab_reduce_to_buffer can).
 * - Threads: a context and its buffers are used by one thread at a time (no
 *   internal locks); different contexts may be used by different threads at
 *   once, and contexts may be created and destroyed on many threads at once
 *   (the discovery that needs it is serialised inside). Two threads that
 *   share a context must serialise their calls. */
warplab_status warplab_context_set_stream(warplab_context *context, void *stream);
warplab_status warplab_context_synchronize(warplab_context *context);

/* ------------------------------------------------------------------------ */
/* Operations (each runs the fastest rung of its ladder on the context)     */

typedef enum warplab_dtype {
    WARPLAB_INT32 = 0,
    WARPLAB_FLOAT32,
    WARPLAB_FLOAT64,
    WARPLAB_BFLOAT16, /* bfloat16: 8-bit exponent, 7-bit mantissa (warplab_gemm_ex only) */
    WARPLAB_FLOAT16,  /* IEEE binary16 (warplab_gemm_ex only) */
    WARPLAB_DTYPE_COUNT
} warplab_dtype;

/* "int32", "float", "double", "bf16", "fp16" */
const char *warplab_dtype_name(warplab_dtype dtype);
warplab_status warplab_dtype_parse(const char *name, warplab_dtype *dtype);
size_t warplab_dtype_size(warplab_dtype dtype);

/* c[i] = a[i] + b[i] for i < n, float32. c may be a or b (in place: the
 * same memory from the same byte); any other overlap of c with a or b is
 * refused (WARPLAB_ERROR_INVALID_ARGUMENT). */
warplab_status warplab_vecadd(warplab_context *context, const warplab_buffer *a,
                              const warplab_buffer *b, warplab_buffer *c, size_t n);

/* --- all-reduce across GPUs (docs/MULTIGPU.md) --- */

#define WARPLAB_MAX_GPUS 8

/* The peer query, in the spirit of nvbandwidth: which GPU can access which
 * one's memory, the link's performance rank, and measured copy bandwidths
 * between every pair (cudaMemcpyPeerAsync, copy engines, best of several
 * runs; GB = 1e9 bytes). [a][b]: from GPU a to GPU b. */
typedef struct warplab_peer_report {
    int gpus;
    char names[WARPLAB_MAX_GPUS][256];
    int access[WARPLAB_MAX_GPUS][WARPLAB_MAX_GPUS];           /* 1: a can map b's memory */
    int performance_rank[WARPLAB_MAX_GPUS][WARPLAB_MAX_GPUS]; /* CUDA's, lower is better */
    double one_way_gbs[WARPLAB_MAX_GPUS][WARPLAB_MAX_GPUS];   /* a -> b alone */
    double two_way_gbs[WARPLAB_MAX_GPUS][WARPLAB_MAX_GPUS];   /* a -> b and b -> a at once, sum */
    size_t bytes;                                             /* per copy; 0: not measured */
} warplab_peer_report;

/* Fills report for the CUDA GPUs present (at most WARPLAB_MAX_GPUS); copies
 * of bytes each are timed when bytes > 0. WARPLAB_ERROR_NO_DEVICE without a
 * CUDA GPU (or without the cuda backend). */
warplab_status warplab_peer_query(warplab_peer_report *report, size_t bytes);

/* The all-reduce across the GPUs of one process, over the caller's device
 * arrays (the all-reduce ladder's best rung, two_shot, where every pair of
 * GPUs has peer access; ncclAllReduce otherwise, where warplab was built
 * with NCCL). A group holds what the calls reuse (streams, events, peer
 * access): made once, never per call. Rank r runs on devices[r], its work
 * queued on streams[r] (a cudaStream_t of that device; streams or an entry
 * NULL: a stream of the group's own). Failures: warplab_last_error(NULL). */
typedef struct warplab_allreduce_group warplab_allreduce_group;
warplab_status warplab_allreduce_group_create(int gpus, const int *devices, void *const *streams,
                                              warplab_allreduce_group **group);
void warplab_allreduce_group_destroy(warplab_allreduce_group *group);
/* recv[r][i] = sum over ranks q of send[q][i], i < count, on every rank r:
 * float or int32 (wrapping) sums, device pointers on the ranks' devices
 * (recv[r] may be send[r]). Queued after the work on every rank's stream
 * (on all of them: it starts when every rank's stream reaches it); returns
 * without waiting; every rank's stream is ordered after all of it. */
warplab_status warplab_allreduce(warplab_allreduce_group *group, warplab_dtype dtype,
                                 void *const *send, void *const *recv, size_t count);
/* Which algorithm the group runs: "two_shot" or "nccl". */
const char *warplab_allreduce_group_algorithm(const warplab_allreduce_group *group);

/* One process per GPU (NCCL; docs/MULTIGPU.md): process `rank` of `ranks`
 * joins a communicator named by id: "file:PATH" (rank 0 makes the id and
 * writes it to PATH, atomically; the others wait for the file up to
 * timeout_seconds), "env:NAME" (environment variable NAME holds HOST:PORT,
 * rank 0's host and a free port: NCCL's NCCL_COMM_ID rendezvous; or the id
 * as hex from warplab_allreduce_id_create, whose process must run until all
 * ranks have joined), or NULL: the environment variable
 * WARPLAB_ALLREDUCE_ID holds one of those. Works across hosts
 * wherever NCCL's network does (a shared file system for "file:"). Sets
 * NCCL_NVLS_ENABLE=0 before NCCL starts. WARPLAB_ERROR_UNSUPPORTED in a
 * build without NCCL. */
#define WARPLAB_ALLREDUCE_ID_HEX 257 /* NCCL's 128-byte id as hex, and the NUL */
typedef struct warplab_comm warplab_comm;
warplab_status warplab_allreduce_id_create(char hex[WARPLAB_ALLREDUCE_ID_HEX]);
warplab_status warplab_comm_join(int device, int rank, int ranks, const char *id,
                                 double timeout_seconds, warplab_comm **comm);
/* This rank's part of an all-reduce of count elements (float or int32 sum)
 * from send into recv (device pointers on the comm's device), queued on
 * stream (a cudaStream_t; NULL: the comm's own). Returns without waiting. */
warplab_status warplab_comm_allreduce(warplab_comm *comm, warplab_dtype dtype, const void *send,
                                      void *recv, size_t count, void *stream);
/* Waits for the comm's own stream. */
warplab_status warplab_comm_synchronize(warplab_comm *comm);
void warplab_comm_destroy(warplab_comm *comm);

/* --- reduction --- */

typedef enum warplab_reduce_op {
    WARPLAB_REDUCE_SUM = 0,
    WARPLAB_REDUCE_MIN,
    WARPLAB_REDUCE_MAX,
    WARPLAB_REDUCE_OP_COUNT
} warplab_reduce_op;

const char *warplab_reduce_op_name(warplab_reduce_op op); /* "sum", "min", "max" */
warplab_status warplab_reduce_op_parse(const char *name, warplab_reduce_op *op);

/* Reduces the first n elements of dtype in input to one value and writes it,
 * one element of dtype, to *result (host memory). What it computes:
 * - int32 sum wraps modulo 2^32 (two's complement), and is exact;
 * - float and double sums accumulate in the element type, in the order the
 *   rung chooses: |result - exact| <= n * epsilon(dtype) * sum |x[i]|;
 * - a NaN anywhere in the input gives NaN, for sum, min and max alike;
 * - n = 0 gives the identity: 0 for sum; +infinity (INT32_MAX for int32) for
 *   min; -infinity (INT32_MIN) for max.
 * Runs the reduction ladder's fastest safe rung on the context's backend (the
 * one-pass kernel on cuda; the best rung the backend has elsewhere). Every
 * argument is checked before any device work; on failure *result is left
 * untouched. */
warplab_status warplab_reduce(warplab_context *context, warplab_dtype dtype, warplab_reduce_op op,
                              const warplab_buffer *input, size_t n, void *result);

/* Like warplab_reduce, but the result (one element of dtype) goes to output
 * at output_offset_bytes (aligned to the element size), on the device and
 * asynchronously on the context's stream: no wait, no copy to the host, and
 * capturable into a CUDA graph. n = 0 writes the identity (with a synchronous
 * copy). output may be any buffer of the context, but the result's place must
 * not overlap the n input elements (WARPLAB_ERROR_INVALID_ARGUMENT). */
warplab_status warplab_reduce_to_buffer(warplab_context *context, warplab_dtype dtype,
                                        warplab_reduce_op op, const warplab_buffer *input, size_t n,
                                        warplab_buffer *output, size_t output_offset_bytes);

/* --- transpose --- */

/* out = in^T, out of place: in is a row-major rows x cols matrix of dtype
 * (WARPLAB_FLOAT32 or WARPLAB_FLOAT64) whose rows start ld_in elements apart;
 * out receives the row-major cols x rows transpose, its rows ld_out elements
 * apart. ld_in = 0 means cols and ld_out = 0 means rows (tight); otherwise
 * ld_in >= cols and ld_out >= rows, and the elements between rows (the
 * padding) are left untouched. in needs (rows-1)*ld_in + cols elements, out
 * (cols-1)*ld_out + rows; in and out must be different buffers whose spans
 * do not overlap (WARPLAB_ERROR_INVALID_ARGUMENT). rows or cols
 * of 0 is a valid empty transpose. */
warplab_status warplab_transpose(warplab_context *context, warplab_dtype dtype, size_t rows,
                                 size_t cols, const warplab_buffer *in, size_t ld_in,
                                 warplab_buffer *out, size_t ld_out);

/* --- matrix multiply --- */

/* C = alpha * A * B + beta * C in float32 on the context's device, with the
 * fastest FP32 rung of the gemm ladder (cuda: the tuned sm_90 kernel).
 * Row-major: A is m x k with rows lda >= k elements apart, B is k x n with
 * ldb >= n, C is m x n with ldc >= n (0 means tight: k, n, n). Each buffer
 * must hold its view, (rows - 1) * ld + cols floats; C must be a buffer of
 * its own: C's span overlapping A's or B's (the same buffer, or views of one
 * memory) is refused with WARPLAB_ERROR_INVALID_ARGUMENT. With beta = 0, C
 * is only written (what it held, NaN included, does not matter); k = 0
 * gives C = beta * C; m = 0 or n = 0 does nothing. A and B are read even
 * when alpha = 0. Arguments are checked before any work starts. */
warplab_status warplab_gemm(warplab_context *context, size_t m, size_t n, size_t k, float alpha,
                            const warplab_buffer *a, size_t lda, const warplab_buffer *b,
                            size_t ldb, float beta, warplab_buffer *c, size_t ldc);

/* --- matrix multiply in several precisions, with transposes (cublasGemmEx's shape) --- */

/* How an operand is stored: op(X) = X (N) or X^T (T). Storage is row-major. */
typedef enum warplab_op { WARPLAB_OP_N = 0, WARPLAB_OP_T, WARPLAB_OP_COUNT } warplab_op;

/* How the products are formed. */
typedef enum warplab_compute {
    WARPLAB_COMPUTE_FP32 = 0, /* FP32 fused multiply-adds (16-bit inputs: widened exactly) */
    WARPLAB_COMPUTE_TF32,     /* tensor cores on TF32 operands; FLOAT32 inputs only */
    WARPLAB_COMPUTE_COUNT
} warplab_compute;

/* C = alpha * op(A) * op(B) + beta * C, row-major, op(A) m x k, op(B) k x n,
 * C m x n.
 * - A is stored m x k (op_a N, lda >= k) or k x m (op_a T, lda >= m); B is
 *   stored k x n (op_b N, ldb >= n) or n x k (op_b T, ldb >= k); C m x n,
 *   ldc >= n. A leading dimension of 0 means tight (the stored row length).
 *   Each buffer must hold its view: (rows - 1) * ld + cols elements of its
 *   type (spans are overflow-checked); C must be a buffer of its own (an
 *   overlap with A's or B's span is WARPLAB_ERROR_INVALID_ARGUMENT).
 * - a_type = b_type: WARPLAB_FLOAT32, WARPLAB_BFLOAT16 or WARPLAB_FLOAT16;
 *   c_type: WARPLAB_FLOAT32 or the input type. compute: FP32, or TF32 for
 *   FLOAT32 inputs only. Anything else is WARPLAB_ERROR_INVALID_ARGUMENT.
 * - With beta = 0, C is only written (what it held, NaN included, does not
 *   matter); k = 0 gives C = beta * C; m = 0 or n = 0 does nothing. alpha
 *   and beta must be finite. A NaN in A or B makes NaN the elements of C
 *   whose row (A) or column (B) it touches.
 * Accuracy (u = 2^-24; k + 2 steps: the products' sum, alpha and beta):
 * - FP32 compute, FLOAT32 inputs: as warplab_gemm, |C - C_exact| <=
 *   gamma_{k+2} * (|alpha| sum_p |a_ip b_pj| + |beta c_ij|), gamma_j = j u / (1 - j u).
 * - TF32 compute: each operand is truncated to TF32 (its low 13 mantissa
 *   bits dropped, toward zero: what the tensor cores do with FP32 words; the
 *   other paths drop them explicitly), the products of the truncated values
 *   are exact and summed in FP32 (sums may truncate too: u = 2^-23 there).
 *   Against the unrounded inputs: |C - C_exact| <= (gamma'_{k+2} + 2^-9 +
 *   2^-20) * (|alpha| sum_p |a_ip b_pj|) + gamma'_{k+2} |beta c_ij|, gamma'
 *   with u = 2^-23. On cuda, op N, N shapes that the FP32 kernels serve
 *   faster than the tensor cores (GEMV, small m or n, large k with small m
 *   and n, small squares) run warplab_gemm's FP32 path: within that bound.
 *   Other TF32 shapes run, by a model of their time, the TMA + wgmma kernel
 *   or a small-tile mma.sync kernel that reads A and B in either op in place
 *   and splits k over the SMs (partial sums added in a fixed order).
 * - BFLOAT16 / FLOAT16 inputs (FP32 compute): the products of the 16-bit
 *   values are exact (in FP32) and summed in FP32 (u = 2^-23 as for TF32):
 *   |C - alpha * sum_p a_ip b_pj - beta c_ij| <= gamma'_{k+2} * (...) of the
 *   16-bit values themselves.
 * - A 16-bit C receives the FP32 result rounded to nearest even (one more
 *   rounding: 2^-8 relative for BF16, 2^-11 for FP16; FP16 overflows to inf).
 * Every backend computes this function: cuda (m or n <= 8: a bandwidth-
 * bound split-k kernel; else on sm_90a the TMA + wgmma tensor-core kernel
 * for TF32 and 16-bit inputs, which reads A (op N) and B (op T) in place and
 * transposes the other layouts into the context's workspace first; a simple
 * tiled kernel otherwise), opencl and cpu (plain loops). FP32 compute with
 * op N, N runs warplab_gemm's path. Arguments are checked before any work
 * starts. Sums are accumulated in an order that depends on the path, but a
 * given shape, layout and device always takes the same path.
 * compute-sanitizer: the wgmma kernels may write an FP32 C through the copy
 * engine (TMA bulk stores), whose writes initcheck does not track; a C
 * that was never set before such a call and is then read by a kernel is
 * reported as uninitialized although it is not (initcheck's own test:
 * scripts/tma-store-initcheck.cu). */
warplab_status warplab_gemm_ex(warplab_context *context, warplab_op op_a, warplab_op op_b, size_t m,
                               size_t n, size_t k, float alpha, const warplab_buffer *a,
                               warplab_dtype a_type, size_t lda, const warplab_buffer *b,
                               warplab_dtype b_type, size_t ldb, float beta, warplab_buffer *c,
                               warplab_dtype c_type, size_t ldc, warplab_compute compute);

/* ------------------------------------------------------------------------ */
/* Ladders and benchmarks                                                   */

/* Row flags in a benchmark report. */
enum {
    WARPLAB_ROW_HOST = 1u << 0,      /* ran on the CPU (the "GPU vs CPU" rows) */
    WARPLAB_ROW_VENDOR = 1u << 1,    /* vendor library (CUB, cuBLAS) */
    WARPLAB_ROW_REFERENCE = 1u << 2, /* speed-of-light reference (a copy) */
    WARPLAB_ROW_UNSAFE = 1u << 3,    /* known unsafe on today's GPUs; never picked */
    WARPLAB_ROW_SKIPPED = 1u << 4,   /* not run: outside its limits, or no form on this backend */
    WARPLAB_ROW_FAILED = 1u << 5,    /* ran, but failed verification or errored */
    WARPLAB_ROW_TRANSFER = 1u << 6,  /* host-device transfer, counted apart from kernels */
    WARPLAB_ROW_EXPECTED_WRONG = 1u << 7, /* failed, and the wrong result is the lesson */
    WARPLAB_ROW_BASELINE = 1u << 8,       /* the vendor row that pct_of_vendor compares with */
    WARPLAB_ROW_PAIRED = 1u << 9 /* compared with the vendor row its rung names (row->vendor) */
};

typedef struct warplab_row {
    char ladder[32];
    char rung[48];
    char title[96];
    char backend[16];
    char problem[64];      /* "n=268435456 float", "4096x4096 float" */
    double size;           /* the problem's leading size, for sweeps and charts */
    unsigned flags;        /* WARPLAB_ROW_* */
    warplab_status status; /* WARPLAB_OK when it ran and verified */
    char note[256];        /* why skipped or failed; a warning for unsafe rungs */
    int runs;              /* timed runs */
    double median_ms, min_ms, max_ms, mean_ms;
    double noise_pct;      /* relative standard deviation of the runs, % */
    double bytes;          /* bytes the rung must move (its own formula) */
    double flops;          /* floating-point operations (its own formula) */
    double gbs;            /* bytes / median time, 1e9 B/s */
    double gflops;         /* flops / median time */
    double pct_of_ceiling; /* gbs / report ceiling (bandwidth), % ; 0 = n/a */
    /* gbs / the GB/s of the fastest copy reference row (WARPLAB_ROW_REFERENCE)
     * for the same problem in the same run, %; 0 = n/a (no such row). */
    double pct_of_reference;
    double step_speedup;       /* median of the previous ladder rung / this one; 0 = n/a */
    double cumulative_speedup; /* first ladder rung / this one; 0 = n/a */
    double max_rel_error;      /* largest |got - expected| / bound seen in verification */
    double course_value;       /* the course's measured figure, 0 = none */
    char course_unit[16];      /* "GB/s", "GFLOP/s" */
    char course_device[32];    /* "K40", "GTX 280", "G80" */
    double course_value2;      /* a second device's figure, same unit; 0 = none */
    char course_device2[32];
    char lesson[320]; /* what changed over the rung below, and why it is faster */
    /* Compute-bound ladders (matrix multiply): this row's speed as % of the
     * group's WARPLAB_ROW_BASELINE row (its time / this row's time), and
     * gflops as % of the device's FP32 peak. 0 = n/a. */
    double pct_of_vendor;
    double pct_of_fp32_peak;
    /* The vendor row pct_of_vendor compares with: the rung's own pairing
     * (e.g. the dispatcher with cuBLAS FP32), else the baseline; "" = none. */
    char vendor[48];
    /* Ladders with a bus bandwidth (all-reduce: nccl-tests' busbw = algbw x
     * 2(G-1)/G, gbs being algbw), 1e9 B/s; 0 = n/a. */
    double busbw_gbs;
} warplab_row;

typedef struct warplab_report {
    warplab_row *rows;
    size_t row_count;
    char device[256];
    char backend[16];
    char date[32];           /* ISO 8601, UTC */
    double ceiling_gbs;      /* bandwidth ceiling used for pct_of_ceiling */
    char ceiling_source[64]; /* "theoretical (bus x rate)", "measured copy" */
    int l2_flushed;          /* caches flushed before each timed run */
    unsigned long long seed;
    double fp32_peak_gflops; /* the device's FP32 peak, for pct_of_fp32_peak; 0 = unknown */
    int incomplete;          /* 1: the run was cancelled; rows holds the rungs that ran */
} warplab_report;

void warplab_report_destroy(warplab_report *report);

typedef void (*warplab_progress_fn)(void *user, const char *ladder, const char *rung,
                                    const char *problem, size_t done, size_t total);

/* What a run takes: one struct for warplab_bench, warplab_bench_api and
 * warplab_probe_run (warplab_bench_options and warplab_probe_options name it
 * too). Zero means the default throughout; the defaults differ by call (a
 * probe times each point 20 times in 0.5 s, a rung 50 times in 2 s). */
typedef struct warplab_run_options {
    /* bench only (a probe rejects them): */
    const char *ladder; /* NULL or "" = every ladder */
    const char *rungs;  /* comma-separated rung ids; NULL = all */
    const char *dtype;  /* ladder-specific element type ("float", "int32", ...); NULL = default */
    const char *op;     /* ladder-specific operation ("sum", "min", "max"); NULL = default */
    /* 1: a sweep of one ladder with a 1-D size: n = 2^10, 2^12, ..., 2^30
     * (sizes leave NULL), for the rungs listed plus the ladder's vendor rows
     * (every rung when rungs is NULL); warplab_report_write_sweep and
     * warplab_report_write_sweep_svg print it as GB/s against n. */
    int sweep;
    /* bench: comma-separated sizes ("2^28", "4096x4096", "1M"); probe: one
     * size (warplab_probe_size_meaning says what it counts); NULL = defaults
     * (smaller on a CPU). */
    const char *sizes;
    /* both: */
    int repeat;              /* timed runs per rung or point; 0 = default */
    int warmup;              /* untimed runs first; 0 = default (3 a rung, 2 a point) */
    double max_seconds;      /* time budget per rung or point; 0 = default */
    int no_flush;            /* 1: do not flush caches between timed runs */
    unsigned long long seed; /* 0 = from the clock */
    /* Called as rows finish (a probe: ladder = probe, rung = series, problem
     * = the point). */
    warplab_progress_fn progress;
    void *progress_user;
    /* Cancellation: when non-NULL, asked
     * before each rung and between timed runs; once it returns non-zero the
     * run stops (the rung being timed keeps the runs it has), and the report
     * holds the rows that ran, marked incomplete. It may be called from the
     * thread that called warplab_bench only; a signal handler can set a flag
     * it reads. */
    int (*cancelled)(void *user);
    void *cancel_user;
} warplab_run_options;

typedef warplab_run_options warplab_bench_options;

/* Runs ladders on the context's backend (host rows on the CPU) and returns a
 * report the caller frees with warplab_report_destroy. Rungs that fail their
 * check are reported as failed rows, and the call still returns WARPLAB_OK;
 * bad options return an error and no report. */
warplab_status warplab_bench(warplab_context *context, const warplab_bench_options *options,
                             warplab_report **report);

/* Each library operation against the vendor call with the same contract,
 * in the same run (cuda only: CUB and cuBLAS): warplab_reduce (host result)
 * against cub::DeviceReduce + a copy to the host, warplab_reduce_to_buffer
 * against CUB alone, warplab_transpose against cublasSgeam, warplab_gemm
 * against cublasSgemm, warplab_vecadd against a plain float4 kernel. Sizes
 * 2^10..2^28 elements (square matrices of as many elements) and the odd
 * shapes 3001x4000 and 4001x3, unless options->sizes says otherwise
 * (options->rungs, comma-separated, picks operations: "reduce",
 * "reduce_device", "transpose", "gemm", "vecadd"; repeat, warmup,
 * max_seconds, no_flush, seed and progress as for warplab_bench). Rows come in pairs: the warplab
 * call (pct_of_vendor = vendor time / warplab time, %) then the vendor's (WARPLAB_ROW_VENDOR |
 * WARPLAB_ROW_BASELINE). Device-side calls are timed with the backend's events after an L2 flush;
 * host-result calls with the host clock from call to value in hand. WARPLAB_ERROR_UNSUPPORTED, with
 * why, on backends without a vendor library. */
warplab_status warplab_bench_api(warplab_context *context, const warplab_bench_options *options,
                                 warplab_report **report);

/* Checks options as warplab_bench would (ladder, rungs, sizes, type, op,
 * sizes whose byte counts overflow) without running anything: the same
 * status and warplab_last_error detail as warplab_bench's. */
warplab_status warplab_bench_validate(warplab_context *context,
                                      const warplab_bench_options *options);

/* Ladders compiled into the library. */
size_t warplab_ladder_count(void);
const char *warplab_ladder_name(size_t index);
const char *warplab_ladder_title(size_t index);
/* Rungs of a ladder, in ladder order; NULL when index is past the end. */
const char *warplab_ladder_rung(const char *ladder, size_t index, const char **title);
/* The WARPLAB_ROW_* kind flags of a rung (HOST, VENDOR, REFERENCE, UNSAFE,
 * TRANSFER); 0 for an unknown rung. */
unsigned warplab_rung_flags(const char *ladder, const char *rung);

/* What a rung teaches, as its ladder declares it. The strings are static and
 * never NULL ("" where the ladder gives none). */
typedef struct warplab_rung_info {
    const char *id;            /* "grid_stride" */
    const char *title;         /* "grid-stride loop" */
    const char *lesson;        /* what changed over the rung below, and why it is faster */
    const char *course;        /* where the course teaches it: "seed 001, 'Vector Add'" */
    double course_value;       /* the course's figure; 0 = none */
    const char *course_unit;   /* "GB/s" */
    const char *course_device; /* "K40" */
    double course_value2;      /* a second device's figure, same unit; 0 = none */
    const char *course_device2;
    unsigned flags; /* as warplab_rung_flags */
    /* The vendor rung it is measured against when it names one ("cublas_fp32"),
     * else "" (the ladder's baseline row). */
    const char *vendor;
} warplab_rung_info;

/* A ladder's named set of benchmark shapes ("m x n x k, ..." for gemm: GEMV,
 * small m, small squares, LLM projections, large k, tall-skinny, odd sizes),
 * what `warplab bench LADDER --shapes` runs; NULL when it has none. */
const char *warplab_ladder_shape_set(const char *ladder);

/* WARPLAB_ERROR_UNKNOWN_NAME for an unknown ladder or rung. */
warplab_status warplab_rung_describe(const char *ladder, const char *rung, warplab_rung_info *info);

/* ------------------------------------------------------------------------ */
/* Report output (to a stream the caller owns)                              */

typedef enum warplab_format {
    WARPLAB_FORMAT_TABLE = 0, /* aligned terminal table */
    WARPLAB_FORMAT_MARKDOWN,
    WARPLAB_FORMAT_CSV,
    WARPLAB_FORMAT_JSON
} warplab_format;

warplab_status warplab_report_write(const warplab_report *report, warplab_format format,
                                    FILE *stream);
/* A bar chart per ladder and problem: GB/s per rung against the ceiling, as SVG. */
warplab_status warplab_report_write_svg(const warplab_report *report, FILE *stream);
/* For a sweep (one ladder, one rung list, many sizes): GB/s against n, as a
 * table (a row per n, a column per rung) and as an SVG line chart (log2 n on
 * x, a line per rung, the ceiling dashed). */
warplab_status warplab_report_write_sweep(const warplab_report *report, FILE *stream);
warplab_status warplab_report_write_sweep_svg(const warplab_report *report, FILE *stream);

/* ------------------------------------------------------------------------ */
/* Occupancy: the course's block-granularity arithmetic (seed 000)          */

/* What bounds the resident blocks per SM. */
typedef enum warplab_occupancy_limit {
    WARPLAB_LIMIT_THREADS = 0,   /* threads (warps) per SM */
    WARPLAB_LIMIT_BLOCKS,        /* resident blocks per SM */
    WARPLAB_LIMIT_REGISTERS,     /* the register file */
    WARPLAB_LIMIT_SHARED_MEMORY, /* shared memory per SM */
    WARPLAB_LIMIT_COUNT
} warplab_occupancy_limit;

/* "threads", "blocks", "registers", "shared memory". */
const char *warplab_occupancy_limit_name(warplab_occupancy_limit limit);

/* The per-SM resources of an architecture. */
typedef struct warplab_arch {
    char name[48]; /* "Fermi (sm_20)" */
    int cc_major, cc_minor;
    int warp_size;
    int max_threads_per_block;
    int max_threads_per_sm;
    int max_blocks_per_sm;
    int registers_per_sm;
    int max_registers_per_thread;
    int register_allocation_unit;       /* registers, allocated per warp in these units */
    size_t shared_memory_per_sm;        /* bytes available to blocks */
    size_t max_shared_memory_per_block; /* with the opt-in, where there is one */
    size_t shared_allocation_unit;      /* bytes */
    size_t reserved_shared_per_block;   /* bytes the runtime keeps per block (1 KiB on sm_80+) */
    int registers_per_block;            /* the most registers one block may hold */
    /* Warps take registers in groups of this many: the register file is split
     * between the SM's sub-partitions (4; 2 on Fermi, sm_1x and sm_60), so the
     * warps the registers allow are rounded down to a multiple of it. */
    int warp_allocation_granularity;
    /* 1 on sm_1x: registers are allocated per block (in register_allocation_unit
     * steps), not per warp. */
    int register_allocation_per_block;
    size_t default_shared_memory_per_block; /* without the opt-in (48 KiB since Fermi) */
} warplab_arch;

typedef struct warplab_occupancy {
    int blocks_per_sm; /* resident blocks per SM */
    int warps_per_sm;
    int threads_per_sm;
    double occupancy;              /* resident warps / the SM's maximum, 0..1 */
    warplab_occupancy_limit limit; /* the binding limit (the first, in enum order, on a tie) */
    /* Blocks per SM each resource alone would allow; INT_MAX where the
     * resource does not bound them (no registers or no shared memory given). */
    int blocks_by_threads, blocks_by_blocks, blocks_by_registers, blocks_by_shared;
    int warps_per_block; /* threads rounded up to whole warps */
    int max_warps_per_sm;
    int registers_per_block; /* registers the block is allocated (after rounding) */
    size_t shared_per_block; /* shared bytes the block is allocated (reserved part and
                                rounding included) */
} warplab_occupancy;

/* An architecture by name: "fermi", "kepler", "maxwell", "pascal", "volta",
 * "turing", "ampere", "ada", "hopper", "blackwell", the course's "g80" and
 * "gt200", a few boards ("k40", "a100", "h100", ...), or "sm_XY" / "X.Y" for a
 * compute capability in the table. WARPLAB_ERROR_UNKNOWN_NAME for others
 * (warplab_last_error(NULL) lists the known ones). */
warplab_status warplab_arch_by_name(const char *name, warplab_arch *arch);
/* The architectures in the table, oldest first: index 0, 1, ... until
 * WARPLAB_ERROR_INVALID_ARGUMENT. *names (may be NULL) receives the names
 * warplab_arch_by_name accepts for it ("fermi, sm_20, 2.0"). */
warplab_status warplab_arch_at(size_t index, warplab_arch *arch, const char **names);
/* The architecture of a CUDA device: the limits it reports (threads, blocks,
 * registers and shared memory per SM, shared memory per block with and
 * without the opt-in) over the table's entry for its compute capability (or
 * the nearest older one), which gives the allocation granularities.
 * WARPLAB_ERROR_UNSUPPORTED for a device without a compute capability. */
warplab_status warplab_arch_from_device(const warplab_device_info *device, warplab_arch *arch);
/* Blocks, warps and threads per SM for a block size, registers per thread
 * (0 = not counted) and shared memory per block (static + dynamic, bytes),
 * computed the way the CUDA occupancy calculator does: warps per block rounded
 * up, registers allocated per warp in register_allocation_unit steps and
 * warps per sub-partition, shared memory plus the reserved part rounded up to
 * shared_allocation_unit, the largest shared-memory carveout.
 * WARPLAB_ERROR_INVALID_ARGUMENT (with no result, and the reason in
 * warplab_last_error(NULL)) when the block cannot run at all (too many
 * threads, registers or bytes). */
warplab_status warplab_occupancy_compute(const warplab_arch *arch, int threads_per_block,
                                         int registers_per_thread, size_t shared_per_block,
                                         warplab_occupancy *result);

/* ------------------------------------------------------------------------ */
/* Probes: the course's experiments                                        */

/* The measured experiments behind the course's claims (seeds 000, 002, 003,
 * 004): coalescing, shared-memory banks, divergence, atomics, fast
 * intrinsics, unrolling, block size, host-device transfers. A probe has one
 * or more sections; a section sweeps a parameter x (an offset, a stride, a
 * number of paths, ...) over a few series (kernels), or, for a comparison,
 * measures each series once. Every kernel's output is verified through the
 * same harness as the ladders' rungs before it is timed. */

size_t warplab_probe_count(void);
const char *warplab_probe_name(size_t index);  /* "coalescing"; NULL past the end */
const char *warplab_probe_title(size_t index); /* one line: what it measures */
/* What warplab_probe_options.sizes means for the probe ("elements per array"). */
const char *warplab_probe_size_meaning(size_t index);

/* WARPLAB_OK when the probe has at least one series on the backend (AUTO: the
 * best compiled in); WARPLAB_ERROR_UNKNOWN_NAME for no such probe;
 * WARPLAB_ERROR_UNSUPPORTED when it has none there, with why ("cuda only: ...")
 * written into reason (may be NULL). */
warplab_status warplab_probe_supported(const char *name, warplab_backend_kind backend, char *reason,
                                       size_t reason_len);

/* A probe takes warplab_run_options: sizes (one size), repeat, warmup,
 * max_seconds, no_flush, seed, progress and cancelled. */
typedef warplab_run_options warplab_probe_options;

typedef struct warplab_probe_section {
    char name[32]; /* "coalescing"; "bandwidth" and "overlap" for transfers */
    char title[128];
    char x_label[64]; /* "offset or stride (elements)" */
    char unit[16];    /* the figure: "GB/s", "Gop/s", "GFLOP/s" (higher is better) */
    int log_x;        /* x grows geometrically: charted on a log axis */
    int x_is_bytes;   /* x is a size in bytes (printed as 4 KiB .. 1 GiB) */
    int x_powers;     /* x printed as 2^k where it is a power of two (a sweep's n) */
    int comparison;   /* one point per series: a row per series, a bar chart */
    size_t first_row; /* its rows in the report: [first_row, first_row + row_count) */
    size_t row_count;
} warplab_probe_section;

/* A report row seen as a point of its section. */
typedef struct warplab_probe_point {
    size_t section;
    double x;
    double value;         /* the figure in the section's unit; 0 when not measured */
    double low, high;     /* the figure of the slowest and of the fastest timed run */
    double error;         /* largest error verification found (intrinsics), in error_kind */
    char error_kind[8];   /* "abs" or "rel" error, "exact" (checked equal), or "": none */
    char baseline[48];    /* the series it is compared with (comparisons), or "" */
    char annotation[128]; /* e.g. the occupancy predicted for a block size, or "" */
} warplab_probe_point;

typedef struct warplab_probe_result {
    char probe[32];
    char title[128];
    char course[160];            /* where the course teaches it */
    char setup[256];             /* sizes and launch shapes, one line */
    char conclusion[512];        /* what the numbers show, computed from them */
    char missing[256];           /* series with no form on this backend, and why; or "" */
    warplab_report *report;      /* rows: ladder = section's series set, rung = series, size = x */
    warplab_probe_point *points; /* one per report row, in the same order */
    warplab_probe_section sections[4];
    size_t section_count;
} warplab_probe_result;

/* Runs a probe on the context's device. Kernels that fail their check become
 * failed rows and the call still returns WARPLAB_OK; an unknown probe, a probe
 * with no form on the backend or bad options return an error and no result. */
warplab_status warplab_probe_run(warplab_context *context, const char *name,
                                 const warplab_probe_options *options,
                                 warplab_probe_result **result);
void warplab_probe_result_destroy(warplab_probe_result *result);

/* Writes one or several probes' results: terminal tables with their
 * conclusions, Markdown, CSV (one line per point) or JSON. */
warplab_status warplab_probe_write(const warplab_probe_result *const *results, size_t count,
                                   warplab_format format, FILE *stream);
/* One probe's charts as SVG: a line chart per sweep (x against the figure,
 * one line per series), a bar chart per comparison. */
warplab_status warplab_probe_write_svg(const warplab_probe_result *result, FILE *stream);

/* ------------------------------------------------------------------------ */
/* Sizes                                                                    */

/* Parses "268435456", "2^28", "256M" (2^20 units: K, M, G), "4096x4096",
 * "64x64x64" into up to 3 dimensions. *dims receives how many were given. */
warplab_status warplab_parse_size(const char *text, size_t sizes[3], int *dims);

/* ------------------------------------------------------------------------ */
/* Rung sources (warplab show)                                              */

/* What a rung teaches and the code that does it, as compiled into this
 * build: the title, lesson, the course's reference and figure, then per
 * backend (backend AUTO: every backend compiled in, else that one) the
 * rung's marked kernel source regions and a unified diff against the rung
 * below on that backend. rung NULL or "": every rung of the ladder. Needs no
 * device. WARPLAB_ERROR_UNKNOWN_NAME for an unknown ladder or rung. */
warplab_status warplab_show_write(const char *ladder, const char *rung,
                                  warplab_backend_kind backend, FILE *stream);

/* ------------------------------------------------------------------------ */
/* Hardware counters (warplab bench --counters, cuda): Nsight Compute's      */
/* measurements of one launch of each rung, beside the lessons' claims       */

/* One launch of a rung as Nsight Compute measured it (summed over the
 * launch's kernels; percentages weighted by each kernel's duration). */
typedef struct warplab_counters {
    int valid;                     /* 1: measured */
    int kernels;                   /* kernels in the launch */
    double duration_ns;            /* the kernels' GPU time */
    double dram_read_bytes;        /* dram__bytes_read.sum */
    double dram_write_bytes;       /* dram__bytes_write.sum */
    double shared_bank_conflicts;  /* l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{ld,st} */
    double achieved_occupancy_pct; /* sm__warps_active.avg.pct_of_peak_sustained_active */
    double branch_efficiency_pct;  /* smsp__sass_average_branch_targets_threads_uniform.pct */
    double divergent_branches;     /* smsp__sass_branch_targets_threads_divergent.sum */
    double l2_hit_rate_pct;        /* lts__t_sector_hit_rate.pct */
    /* Lane use: of the 32 lanes of each warp instruction executed, the share
     * that was active (smsp__thread_inst_executed / 32 x smsp__inst_executed)
     * and the share that was active and not predicated off (..._pred_on).
     * A branch the compiler turned into predicated instructions shows in the
     * second, not in divergent_branches. NAN when not measured. */
    double warp_instructions;       /* smsp__inst_executed.sum */
    double active_lanes_pct;        /* smsp__thread_inst_executed.sum */
    double predicated_on_lanes_pct; /* smsp__thread_inst_executed_pred_on.sum */
    /* The device's L2 size, set by the caller (0: unknown). Output still
     * dirty in L2 when the kernel ends is written back to DRAM after it, so
     * dram__bytes_write may fall short of the bytes written by up to this. */
    double l2_cache_bytes;
    int refused;    /* 1: the profiler was refused the counters (ERR_NVGPUCTRPERM) */
    char note[160]; /* why not measured */
} warplab_counters;

/* The environment variable under which a bench run opens the profiler
 * window (cudaProfilerStart/Stop) around each rung's first timed launch
 * only, for `ncu --profile-from-start off` ("1" to ask). */
#define WARPLAB_PROFILE_ENV "WARPLAB_PROFILE_LAUNCH"

/* The metric list to pass to `ncu --metrics`. */
const char *warplab_counters_metrics(void);
/* Parses the CSV of `ncu --csv --page raw --print-units base --metrics
 * <warplab_counters_metrics()>` (other lines of a log around it are
 * skipped) into one launch's counters. WARPLAB_ERROR_INVALID_ARGUMENT, with
 * why in counters->note, when it holds no kernel or lacks a metric (the
 * lane-use metrics are optional: NAN when absent); counters->refused is set
 * when the output says that the user may not read the counters. */
warplab_status warplab_counters_parse(const char *csv, warplab_counters *counters);
/* The counters table: for each ladder's first problem, each row with
 * counters[i] (one per report row; invalid ones show their note): DRAM
 * bytes read + written beside the rung's own "moved" count, shared-memory
 * bank conflicts, achieved occupancy, branch efficiency and divergent
 * branches, L2 hit rate; then each lesson's prediction (the counter it
 * says moves, against which rung) with the verdict, a contradicted one
 * flagged. tool: the profiler's name and version for the heading. */
warplab_status warplab_counters_write(const warplab_report *report,
                                      const warplab_counters *counters, const char *tool,
                                      FILE *stream);
/* How many lesson predictions the counters contradicted (those that could
 * be judged); *judged receives how many were judged. */
size_t warplab_counters_contradictions(const warplab_report *report,
                                       const warplab_counters *counters, size_t *judged);
/* A ladder's default sizes ("2^28", "4096x4096, ..."), for a GPU (gpu 1) or
 * a CPU-class device; NULL for an unknown ladder. */
const char *warplab_ladder_default_sizes(const char *ladder, int gpu);

/* ------------------------------------------------------------------------ */
/* The course handout (warplab bench --html)                                */

/* One self-contained HTML page (no script, no fetch: every chart, style
 * and code listing inline): the device and the run's settings (settings: the
 * command line or any text, may be NULL), the bar charts, each ladder's
 * table, each rung's lesson and course reference, its kernel source on the
 * report's backend and the diff against the rung below (collapsible), and
 * the counters table when counters is given (one per row, may be NULL). */
warplab_status warplab_report_write_html(const warplab_report *report,
                                         const warplab_counters *counters, const char *settings,
                                         FILE *stream);

#ifdef __cplusplus
}
#endif

#endif /* WARPLAB_H */
