/*
 * warplab: the drop-in library. Contexts, buffers (the library's own or the
 * caller's memory), streams, and the operations: vector add, reduction,
 * transpose, matrix multiply in several precisions, all-reduce across GPUs.
 * The ladders, benchmarks, probes, reports and the occupancy calculator are
 * in warplab_lab.h.
 *
 * Conventions
 * - Every function that can fail returns a warplab_status; WARPLAB_OK is 0.
 *   warplab_status_string() names each code; warplab_last_error() gives the
 *   detail of the last failure in a context (sizes, limits, driver messages),
 *   or with NULL of the thread's last failed call without a context (a NULL
 *   context or buffer included). Each message starts with the name of the
 *   function called ("warplab_gemm: ..."), and a call that succeeds leaves
 *   its slot empty.
 * - The library never prints and never exits.
 * - Sizes are element counts unless a name says bytes. GB means 1e9 bytes.
 * - On failure, outputs are left untouched: arguments are validated before
 *   any device work starts.
 */
#ifndef WARPLAB_H
#define WARPLAB_H

#include <stddef.h>
#include <stdint.h>

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
 * A view keeps parent's storage alive: parent may be destroyed first, and the
 * storage (memory warplab allocated) is freed when the last of parent and
 * its views is destroyed. A view of a wrapped buffer still needs the
 * caller's memory to outlive it. */
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
 *   graph: order those yourself). The stream must outlive its binding. The
 *   context's own stream (cuda) is a blocking stream: it waits for the work
 *   queued before on CUDA's legacy default stream (stream 0: cudaMemcpy,
 *   cudaMemset), and that stream waits for it. The cpu
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
 * arrays. Each call's rung comes from a table of message sizes per number of
 * GPUs (docs/MULTIGPU.md): where every pair of GPUs has peer access, one_shot
 * for small messages (not in place), two_shot_flags above, ncclAllReduce for
 * the largest from 3 GPUs on; ncclAllReduce alone without peer access (where
 * warplab was built with NCCL). A group holds what the calls reuse (streams,
 * events, peer access, flag words, NCCL's communicators where the table
 * names NCCL): made once, never per call. A group's calls come from one
 * thread at a time, queued in the same order on every rank's stream (its
 * kernels meet through flags numbered per call). Rank r runs on devices[r],
 * its work queued on streams[r] (a cudaStream_t of that device; streams or
 * an entry NULL: a blocking stream of the group's own, ordered after the
 * work on that device's legacy default stream). Failures:
 * warplab_last_error(NULL). */
typedef struct warplab_allreduce_group warplab_allreduce_group;
warplab_status warplab_allreduce_group_create(int gpus, const int *devices, void *const *streams,
                                              warplab_allreduce_group **group);
void warplab_allreduce_group_destroy(warplab_allreduce_group *group);
/* recv[r][i] = sum over ranks q of send[q][i], i < count, on every rank r:
 * float or int32 (wrapping) sums, device pointers on the ranks' devices
 * (recv[r] may be send[r]; any other overlap of the two is refused,
 * WARPLAB_ERROR_INVALID_ARGUMENT). Queued after the work on every rank's stream
 * (on all of them: it starts when every rank's stream reaches it); returns
 * without waiting; every rank's stream is ordered after all of it. */
warplab_status warplab_allreduce(warplab_allreduce_group *group, warplab_dtype dtype,
                                 void *const *send, void *const *recv, size_t count);
/* The rung of the group's last call: "one_shot", "two_shot_flags" or
 * "nccl" ("planned" before the first call). */
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
 * stream (a cudaStream_t; NULL: the comm's own, a blocking stream ordered
 * after the work on the legacy default stream). Returns without waiting. */
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

/* --- scan (prefix sum) --- */

typedef enum warplab_scan_kind {
    WARPLAB_SCAN_INCLUSIVE = 0, /* out[i] = x[0] op ... op x[i] */
    WARPLAB_SCAN_EXCLUSIVE,     /* out[0] = identity, out[i] = x[0] op ... op x[i-1] */
    WARPLAB_SCAN_KIND_COUNT
} warplab_scan_kind;

/* The prefix scan of the first n elements of dtype (int32, float or double)
 * in input, by op (sum, min or max), into the first n elements of output.
 * What it computes:
 * - int32 sums wrap modulo 2^32 (two's complement), exactly;
 * - float and double sums accumulate in the element type, in the order the
 *   kernel chooses: |out[i] - exact| <= m * epsilon(dtype) * (sum of the m
 *   |x| it covers), m the number of terms of out[i];
 * - a NaN propagates to every later prefix, for sum, min and max alike;
 * - the identity (an exclusive scan's out[0]): 0 for sum; +infinity
 *   (INT32_MAX) for min; -infinity (INT32_MIN) for max;
 * - n = 0 does nothing (after the checks).
 * output may be input itself (in place: the same memory from the same
 * byte); any other overlap is WARPLAB_ERROR_INVALID_ARGUMENT. Both buffers
 * need n elements, on element boundaries (views, wrapped memory). Like
 * warplab_reduce_to_buffer: asynchronous on the bound stream, workspace from
 * the context (the first call at a new largest size allocates), no
 * allocation or synchronisation after that, capturable into a CUDA graph.
 * Every argument is checked before any work; on failure nothing is written.
 * cuda runs the scan ladder's single pass with decoupled look-back, opencl
 * a reduce-then-scan, cpu the host loop. */
warplab_status warplab_scan(warplab_context *context, warplab_dtype dtype, warplab_reduce_op op,
                            warplab_scan_kind kind, const warplab_buffer *input,
                            warplab_buffer *output, size_t n);

/* --- histogram (docs/ladders/histogram.md) --- */

/* The samples warplab_histogram counts. */
typedef enum warplab_histogram_sample {
    WARPLAB_HISTOGRAM_UINT8 = 0, /* 8-bit unsigned: images, bytes of text */
    WARPLAB_HISTOGRAM_INT32,
    WARPLAB_HISTOGRAM_FLOAT32,
    WARPLAB_HISTOGRAM_SAMPLE_COUNT
} warplab_histogram_sample;

const char *warplab_histogram_sample_name(warplab_histogram_sample sample); /* "uint8", ... */

/* Counts the first n samples of input into bins equal-width bins over
 * [lower, upper), as cub::DeviceHistogram::HistogramEven defines them, and
 * writes bins uint32 counts to counts at counts_offset_bytes (4-aligned):
 * - a sample counts only when lower <= x < upper; a NaN never counts;
 * - uint8 and int32 samples: lower and upper are integers in int32's range,
 *   and bin = (x - lower) * bins / (upper - lower), exactly (64-bit);
 * - float samples: lower and upper are rounded to float, and bin =
 *   (int)((x - lower) * (bins / (upper - lower))), each step in float as CUB
 *   computes it (a sample whose product rounds up to bins counts in the last
 *   bin, where CUB would count past the end);
 * - bins from 1 to 2^31 - 2; n from 0 to 2^32 - 1 (the counts are uint32 and
 *   cannot wrap; more samples: call once per 2^32 - 1 and add the counts);
 *   n = 0 writes zeros.
 * The counts are zeroed by the call itself, in order on the stream, so the
 * buffer needs no clearing. input may be any buffer or view of the context
 * (any byte for uint8, 4-aligned otherwise); the counts must not overlap the
 * samples. Asynchronous on the bound stream, no allocation after the first
 * call, capturable into a CUDA graph. Every argument is checked before any
 * work (WARPLAB_ERROR_INVALID_ARGUMENT: bins 0, lower >= upper, a NaN or
 * infinite bound, a non-integer or out-of-range bound for integer samples, a
 * float range whose width overflows float, sizes past the buffers). */
warplab_status warplab_histogram(warplab_context *context, warplab_histogram_sample sample,
                                 const warplab_buffer *input, size_t n, size_t bins, double lower,
                                 double upper, warplab_buffer *counts, size_t counts_offset_bytes);

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
 * fastest FP32 rung of the gemm ladder (cuda: `dispatch`, which picks a
 * GEMV kernel, small tiles with split-K or the large pipelined tile by a
 * model of each one's time).
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
 *   with u = 2^-23. On cuda, shapes that the FP32 kernels serve faster
 *   than the tensor cores run FP32 products: within that bound. These are
 *   shapes with m or n small in any layout, as the GEMM planner prices
 *   them (the GEMV family), and in op N, N also large k with small m and n
 *   and small squares (warplab_gemm's path).
 *   Other TF32 shapes run, by a model of their time, the TMA + wgmma kernel
 *   or a small-tile mma.sync kernel that reads A and B in either op in place
 *   and splits k over the SMs (partial sums added in a fixed order).
 * - BFLOAT16 / FLOAT16 inputs (FP32 compute): the products of the 16-bit
 *   values are exact (in FP32) and summed in FP32 (u = 2^-23 as for TF32):
 *   |C - alpha * sum_p a_ip b_pj - beta c_ij| <= gamma'_{k+2} * (...) of the
 *   16-bit values themselves.
 * - A 16-bit C receives the FP32 result rounded to nearest even (one more
 *   rounding: 2^-8 relative for BF16, 2^-11 for FP16; FP16 overflows to inf).
 * Every backend computes this function: cuda (m or n small, as the GEMM
 * planner prices it: a bandwidth-bound split-k GEMV that reads every layout
 * in place; else on sm_90a the TMA + wgmma tensor-core kernel
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

/* --- strided-batched matrix multiply (cublasGemmStridedBatchedEx's shape) --- */

/* For i < batch: C_i = alpha * op(A_i) * op(B_i) + beta * C_i, where X_i is
 * the matrix of warplab_gemm_ex's arguments starting stride_x elements
 * after X_{i-1} (X_0 at the buffer's first element). Everything else is
 * warplab_gemm_ex's: the types, computes, accuracy, leading dimensions (0
 * means tight), alpha and beta, the caller's buffers, wrapped memory and
 * views, the bound stream, asynchronous and capturable into a CUDA graph
 * (run it once at its size before capturing), workspace from the context.
 * - stride_a or stride_b 0: one A (or B) for the whole batch (broadcast).
 *   stride_c 0 only with batch 1. Strides may be anything else, C's as long
 *   as its matrices share no element: stride_c >= (m - 1) * ldc + n (one
 *   after the other), or stride_c >= n with (batch - 1) * stride_c + n <=
 *   ldc (side by side, e.g. attention heads in one row); otherwise
 *   WARPLAB_ERROR_INVALID_ARGUMENT. A and B's matrices may overlap.
 * - Each buffer must hold the last element of its last matrix: (batch - 1)
 *   * stride + (rows - 1) * ld + cols elements (every product and sum
 *   overflow-checked); each matrix spans fewer than 2^31 elements; batch <
 *   2^31. C's whole span must not overlap A's or B's.
 * - batch 0, m 0 or n 0 does nothing (after the checks); batch 1 is
 *   warplab_gemm_ex.
 * - Every argument is checked before any work is queued; on failure
 *   nothing is written.
 * On cuda (sm_90a) 16-bit inputs with FP32 compute, A and B's rows, bases
 * and strides on 16 bytes and k > 0 run as one kernel whose grid spans the
 * batch (the TMA + wgmma kernel of warplab_gemm_ex, the matrix index one
 * more dimension of its tiles). Every other call (other devices, types,
 * alignments, and every backend other than cuda) runs as a loop over the
 * matrices, each one a warplab_gemm_ex of its own: correct everywhere, one
 * launch or more a matrix. compute-sanitizer: warplab_gemm_ex's note on
 * initcheck holds here for a C of any type (the batched kernel may write a
 * 16-bit C through the copy engine too). */
warplab_status warplab_gemm_batched_ex(warplab_context *context, warplab_op op_a, warplab_op op_b,
                                       size_t m, size_t n, size_t k, float alpha,
                                       const warplab_buffer *a, warplab_dtype a_type, size_t lda,
                                       size_t stride_a, const warplab_buffer *b,
                                       warplab_dtype b_type, size_t ldb, size_t stride_b,
                                       float beta, warplab_buffer *c, warplab_dtype c_type,
                                       size_t ldc, size_t stride_c, size_t batch,
                                       warplab_compute compute);

#ifdef __cplusplus
}
#endif

#endif /* WARPLAB_H */
