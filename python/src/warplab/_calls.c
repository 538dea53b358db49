/*
 * warplab._calls: the package's hot calls (vecadd, reduce to a buffer,
 * transpose, gemm_ex, binding a stream) without ctypes' per-argument
 * conversion, which costs about 0.15 us an argument (warplab_gemm_ex takes
 * 18): docs/DECISIONS.md, "Python: the hot calls through a small extension".
 *
 * It does not link libwarplab: _lib.py hands it the addresses of the
 * functions of the library ctypes loaded (bind()), so that both paths call
 * the same copy of the library with the same context handles, whichever
 * libwarplab.so was loaded ($WARPLAB_LIBRARY or the package's own).
 *
 * Each call takes the C function's arguments in order, as Python ints
 * (handles: int or None; sizes: non-negative ints; enums: ints) and floats,
 * and returns the warplab_status as an int. A wrong argument raises
 * TypeError or OverflowError before any work starts.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "warplab.h"

static warplab_status (*vecadd_fn)(warplab_context *, const warplab_buffer *,
                                   const warplab_buffer *, warplab_buffer *, size_t);
static warplab_status (*reduce_to_buffer_fn)(warplab_context *, warplab_dtype, warplab_reduce_op,
                                             const warplab_buffer *, size_t, warplab_buffer *,
                                             size_t);
static warplab_status (*transpose_fn)(warplab_context *, warplab_dtype, size_t, size_t,
                                      const warplab_buffer *, size_t, warplab_buffer *, size_t);
static warplab_status (*gemm_ex_fn)(warplab_context *, warplab_op, warplab_op, size_t, size_t,
                                    size_t, float, const warplab_buffer *, warplab_dtype, size_t,
                                    const warplab_buffer *, warplab_dtype, size_t, float,
                                    warplab_buffer *, warplab_dtype, size_t, warplab_compute);
static warplab_status (*set_stream_fn)(warplab_context *, void *);

/* The argument readers: each returns 0, or -1 with a Python error set. */
static int read_handle(PyObject *o, void **out)
{
    if (o == Py_None) {
        *out = NULL;
        return 0;
    }
    *out = PyLong_AsVoidPtr(o);
    return *out == NULL && PyErr_Occurred() ? -1 : 0;
}

static int read_size(PyObject *o, size_t *out)
{
    *out = PyLong_AsSize_t(o);
    return *out == (size_t)-1 && PyErr_Occurred() ? -1 : 0;
}

static int read_int(PyObject *o, int *out)
{
    long v = PyLong_AsLong(o);
    if (v == -1 && PyErr_Occurred())
        return -1;
    if (v < 0 || v > 255) {
        PyErr_SetString(PyExc_OverflowError, "an enum argument is out of range");
        return -1;
    }
    *out = (int)v;
    return 0;
}

static int read_float(PyObject *o, float *out)
{
    double v = PyFloat_AsDouble(o);
    if (v == -1.0 && PyErr_Occurred())
        return -1;
    *out = (float)v;
    return 0;
}

static int need(Py_ssize_t nargs, Py_ssize_t expected, const char *name)
{
    if (nargs == expected)
        return 0;
    PyErr_Format(PyExc_TypeError, "%s takes %zd arguments, not %zd", name, expected, nargs);
    return -1;
}

static int need_bound(void *fn)
{
    if (fn)
        return 0;
    PyErr_SetString(PyExc_RuntimeError, "warplab._calls: bind() was not called");
    return -1;
}

/* vecadd(context, a, b, c, n) */
static PyObject *calls_vecadd(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    void *ctx, *a, *b, *c;
    size_t n;
    if (need(nargs, 5, "vecadd") || need_bound((void *)vecadd_fn) || read_handle(args[0], &ctx) ||
        read_handle(args[1], &a) || read_handle(args[2], &b) || read_handle(args[3], &c) ||
        read_size(args[4], &n))
        return NULL;
    return PyLong_FromLong(vecadd_fn(ctx, a, b, c, n));
}

/* reduce_to_buffer(context, dtype, op, input, n, output, offset) */
static PyObject *calls_reduce_to_buffer(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    void *ctx, *in, *out;
    int dtype, op;
    size_t n, offset;
    if (need(nargs, 7, "reduce_to_buffer") || need_bound((void *)reduce_to_buffer_fn) ||
        read_handle(args[0], &ctx) || read_int(args[1], &dtype) || read_int(args[2], &op) ||
        read_handle(args[3], &in) || read_size(args[4], &n) || read_handle(args[5], &out) ||
        read_size(args[6], &offset))
        return NULL;
    return PyLong_FromLong(
        reduce_to_buffer_fn(ctx, (warplab_dtype)dtype, (warplab_reduce_op)op, in, n, out, offset));
}

/* transpose(context, dtype, rows, cols, in, ld_in, out, ld_out) */
static PyObject *calls_transpose(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    void *ctx, *in, *out;
    int dtype;
    size_t rows, cols, ld_in, ld_out;
    if (need(nargs, 8, "transpose") || need_bound((void *)transpose_fn) ||
        read_handle(args[0], &ctx) || read_int(args[1], &dtype) || read_size(args[2], &rows) ||
        read_size(args[3], &cols) || read_handle(args[4], &in) || read_size(args[5], &ld_in) ||
        read_handle(args[6], &out) || read_size(args[7], &ld_out))
        return NULL;
    return PyLong_FromLong(
        transpose_fn(ctx, (warplab_dtype)dtype, rows, cols, in, ld_in, out, ld_out));
}

/* gemm_ex(context, op_a, op_b, m, n, k, alpha, a, a_type, lda, b, b_type,
 *         ldb, beta, c, c_type, ldc, compute) */
static PyObject *calls_gemm_ex(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    void *ctx, *a, *b, *c;
    int op_a, op_b, a_type, b_type, c_type, compute;
    size_t m, n, k, lda, ldb, ldc;
    float alpha, beta;
    if (need(nargs, 18, "gemm_ex") || need_bound((void *)gemm_ex_fn) ||
        read_handle(args[0], &ctx) || read_int(args[1], &op_a) || read_int(args[2], &op_b) ||
        read_size(args[3], &m) || read_size(args[4], &n) || read_size(args[5], &k) ||
        read_float(args[6], &alpha) || read_handle(args[7], &a) || read_int(args[8], &a_type) ||
        read_size(args[9], &lda) || read_handle(args[10], &b) || read_int(args[11], &b_type) ||
        read_size(args[12], &ldb) || read_float(args[13], &beta) || read_handle(args[14], &c) ||
        read_int(args[15], &c_type) || read_size(args[16], &ldc) || read_int(args[17], &compute))
        return NULL;
    return PyLong_FromLong(gemm_ex_fn(
        ctx, (warplab_op)op_a, (warplab_op)op_b, m, n, k, alpha, a, (warplab_dtype)a_type, lda, b,
        (warplab_dtype)b_type, ldb, beta, c, (warplab_dtype)c_type, ldc, (warplab_compute)compute));
}

/* set_stream(context, stream) */
static PyObject *calls_set_stream(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    void *ctx, *stream;
    if (need(nargs, 2, "set_stream") || need_bound((void *)set_stream_fn) ||
        read_handle(args[0], &ctx) || read_handle(args[1], &stream))
        return NULL;
    return PyLong_FromLong(set_stream_fn(ctx, stream));
}

/* bind(vecadd, reduce_to_buffer, transpose, gemm_ex, set_stream): the
 * addresses of the library's functions (ints, none 0). */
static PyObject *calls_bind(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    void *fn[5];
    if (need(nargs, 5, "bind"))
        return NULL;
    for (int i = 0; i < 5; i++) {
        if (read_handle(args[i], &fn[i]))
            return NULL;
        if (!fn[i]) {
            PyErr_SetString(PyExc_ValueError, "bind: a function address is 0");
            return NULL;
        }
    }
    /* Object pointers to function pointers: POSIX guarantees the
     * conversion (dlsym's contract), which is where these addresses came
     * from. */
    *(void **)&vecadd_fn = fn[0];
    *(void **)&reduce_to_buffer_fn = fn[1];
    *(void **)&transpose_fn = fn[2];
    *(void **)&gemm_ex_fn = fn[3];
    *(void **)&set_stream_fn = fn[4];
    Py_RETURN_NONE;
}

/* ------------------------------------------------------------------------ */
/* The tensor fast path: one call that reads a torch tensor's layout, finds
 * the thread's context and the buffer wrappers the package keeps, and makes
 * the C call, with no Python frame in between. It only recognises the plain
 * valid case: anything else (another array type, a subclass, another
 * layout, an empty problem, a wrapper not made yet, an unbound stream)
 * returns None, and the package's Python path runs the call as before,
 * checks everything and raises its errors. So the fast path decides no
 * error, and gives the same results as the Python path (test_calls.py). */

static PyObject *tensor_type;  /* torch.Tensor (bind_tensors) */
static PyObject *tensor_codes; /* dict: torch dtype -> warplab dtype */
static PyObject *raw_stream;   /* callable: device index -> the current raw stream */
static PyObject *s_dtype, *s_shape, *s_stride, *s_data_ptr, *s_get_device, *s_handle, *s_stream,
    *s_wrapped, *s_contexts;

enum { FAST_MAX_DIMS = 8 };

static size_t dtype_size(int dtype)
{
    switch (dtype) {
    case WARPLAB_INT32:
    case WARPLAB_FLOAT32: return 4;
    case WARPLAB_FLOAT64: return 8;
    case WARPLAB_BFLOAT16:
    case WARPLAB_FLOAT16: return 2;
    default: return 0;
    }
}

typedef struct operand {
    long device;
    int dtype;
    int dims;
    Py_ssize_t shape[FAST_MAX_DIMS];
    Py_ssize_t strides[FAST_MAX_DIMS]; /* elements */
    void *pointer;
} operand;

/* Reads a sequence of ints (torch.Size, a tuple) into out[]; 0 when it
 * cannot. */
static int read_dims(PyObject *seq, Py_ssize_t *out, int *dims)
{
    if (!seq || !PyTuple_Check(seq) || PyTuple_GET_SIZE(seq) > FAST_MAX_DIMS)
        return 0;
    *dims = (int)PyTuple_GET_SIZE(seq);
    for (int i = 0; i < *dims; i++) {
        out[i] = PyLong_AsSsize_t(PyTuple_GET_ITEM(seq, i));
        if (out[i] < 0)
            return 0;
    }
    return 1;
}

/* A CUDA tensor of exactly torch.Tensor's type, of a dtype warplab serves;
 * 0 otherwise (any Python error is cleared: the Python path will say it). */
static int read_tensor(PyObject *t, operand *op)
{
    if (!tensor_type || (PyObject *)Py_TYPE(t) != tensor_type)
        return 0;
    int ok = 0, dims_shape = 0;
    PyObject *device = NULL, *dtype = NULL, *shape = NULL, *stride = NULL, *ptr = NULL;
    device = PyObject_CallMethodNoArgs(t, s_get_device);
    if (!device || (op->device = PyLong_AsLong(device)) < 0)
        goto done;
    dtype = PyObject_GetAttr(t, s_dtype);
    PyObject *code = dtype ? PyDict_GetItemWithError(tensor_codes, dtype) : NULL;
    if (!code)
        goto done;
    op->dtype = (int)PyLong_AsLong(code);
    shape = PyObject_GetAttr(t, s_shape);
    stride = PyObject_CallMethodNoArgs(t, s_stride);
    if (!read_dims(shape, op->shape, &dims_shape) || !read_dims(stride, op->strides, &op->dims) ||
        op->dims != dims_shape)
        goto done;
    ptr = PyObject_CallMethodNoArgs(t, s_data_ptr);
    if (!ptr)
        goto done;
    op->pointer = PyLong_AsVoidPtr(ptr);
    ok = op->pointer != NULL;
done:
    Py_XDECREF(device);
    Py_XDECREF(dtype);
    Py_XDECREF(shape);
    Py_XDECREF(stride);
    Py_XDECREF(ptr);
    if (PyErr_Occurred())
        PyErr_Clear();
    return ok;
}

static size_t elements(const operand *op)
{
    size_t n = 1;
    for (int i = 0; i < op->dims; i++)
        n *= (size_t)op->shape[i];
    return n;
}

static int contiguous(const operand *op)
{
    Py_ssize_t expected = 1;
    for (int i = op->dims - 1; i >= 0; i--) {
        if (op->shape[i] != 1 && op->strides[i] != expected)
            return 0;
        expected *= op->shape[i];
    }
    return 1;
}

/* A 2-D operand stored row-major (stride 1 along a row) with rows *ld
 * apart; 0 otherwise (the Python path's _row_major). */
static int row_major(const operand *op, size_t *ld)
{
    if (op->dims != 2)
        return 0;
    Py_ssize_t rows = op->shape[0], cols = op->shape[1];
    if (cols > 1 && op->strides[1] != 1)
        return 0;
    Py_ssize_t l = rows > 1 ? op->strides[0] : cols;
    if (l < cols)
        return 0;
    *ld = (size_t)l;
    return 1;
}

/* A 2-D operand stored row-major or column-major (the Python path's
 * _matrix): *transposed, *ld. */
static int matrix(const operand *op, int *transposed, size_t *ld)
{
    if (op->dims != 2)
        return 0;
    Py_ssize_t rows = op->shape[0], cols = op->shape[1], s0 = op->strides[0], s1 = op->strides[1];
    if ((s1 == 1 || cols <= 1) && (s0 >= cols || rows <= 1)) {
        *transposed = 0;
        *ld = (size_t)(rows > 1 ? s0 : cols);
        return 1;
    }
    if ((s0 == 1 || rows <= 1) && (s1 >= rows || cols <= 1)) {
        *transposed = 1;
        *ld = (size_t)(cols > 1 ? s1 : rows);
        return 1;
    }
    return 0;
}

/* The thread's context of a device (set_context) and its handle; NULL when
 * there is none yet. Borrowed. */
static PyObject *thread_context(long device, void **handle)
{
    PyObject *state = PyThreadState_GetDict();
    PyObject *contexts = state ? PyDict_GetItemWithError(state, s_contexts) : NULL;
    PyObject *key = contexts ? PyLong_FromLong(device) : NULL;
    PyObject *ctx = key ? PyDict_GetItemWithError(contexts, key) : NULL;
    Py_XDECREF(key);
    if (!ctx)
        return NULL;
    PyObject *h = PyObject_GetAttr(ctx, s_handle);
    *handle = h && h != Py_None ? PyLong_AsVoidPtr(h) : NULL;
    Py_XDECREF(h);
    return *handle ? ctx : NULL;
}

/* The wrapper the context keeps for bytes at pointer (the Python path makes
 * it on first use); NULL when there is none yet. */
static void *wrapper(PyObject *ctx, void *pointer, size_t bytes)
{
    PyObject *wrapped = PyObject_GetAttr(ctx, s_wrapped);
    PyObject *key = Py_BuildValue("(NN)", PyLong_FromVoidPtr(pointer), PyLong_FromSize_t(bytes));
    PyObject *handle = wrapped && key ? PyDict_GetItemWithError(wrapped, key) : NULL;
    void *out = handle ? PyLong_AsVoidPtr(handle) : NULL;
    Py_XDECREF(key);
    Py_XDECREF(wrapped);
    return out;
}

/* Binds the current stream of the device (torch's) to the context, as the
 * Python path does; 0 when that cannot be done here. */
static int bind_stream(PyObject *ctx, void *handle, long device)
{
    PyObject *index = PyLong_FromLong(device);
    PyObject *raw = index ? PyObject_CallOneArg(raw_stream, index) : NULL;
    Py_XDECREF(index);
    if (!raw)
        return 0;
    void *stream = PyLong_AsVoidPtr(raw);
    Py_DECREF(raw);
    if (PyErr_Occurred())
        return 0;
    if (!stream)
        stream = (void *)1; /* cudaStreamLegacy, as the Python path */
    PyObject *bound = PyObject_GetAttr(ctx, s_stream);
    if (!bound)
        return 0;
    void *current = bound == Py_None ? NULL : PyLong_AsVoidPtr(bound);
    Py_DECREF(bound);
    if (current == stream)
        return 1;
    if (set_stream_fn(handle, stream) != WARPLAB_OK)
        return 0;
    PyObject *value = PyLong_FromVoidPtr(stream);
    int ok = value && PyObject_SetAttr(ctx, s_stream, value) == 0;
    Py_XDECREF(value);
    return ok;
}

/* What a fast call returns: 0, or (status, context handle) for a failure
 * the library reported (the package raises it with warplab_last_error). */
static PyObject *fast_result(warplab_status status, void *handle)
{
    if (status == WARPLAB_OK)
        return PyLong_FromLong(0);
    return Py_BuildValue("(iN)", (int)status, PyLong_FromVoidPtr(handle));
}

#define NOT_FAST()                                                                                 \
    do {                                                                                           \
        if (PyErr_Occurred())                                                                      \
            PyErr_Clear();                                                                         \
        Py_RETURN_NONE;                                                                            \
    } while (0)

/* fast_gemm(a, b, out, alpha, beta, trans_a, trans_b, compute) */
static PyObject *calls_fast_gemm(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    operand A, B, C;
    float alpha, beta;
    int compute;
    if (need(nargs, 8, "fast_gemm") || !gemm_ex_fn)
        return NULL;
    if (!read_tensor(args[0], &A) || !read_tensor(args[1], &B) || !read_tensor(args[2], &C) ||
        A.device != B.device || A.device != C.device || read_float(args[3], &alpha) ||
        read_float(args[4], &beta) || read_int(args[7], &compute))
        NOT_FAST();
    int trans_a = PyObject_IsTrue(args[5]), trans_b = PyObject_IsTrue(args[6]);
    int a_t, b_t;
    size_t lda, ldb, ldc;
    if (trans_a < 0 || trans_b < 0 || !matrix(&A, &a_t, &lda) || !matrix(&B, &b_t, &ldb) ||
        !row_major(&C, &ldc))
        NOT_FAST();
    if (!(A.dtype == WARPLAB_FLOAT32 || A.dtype == WARPLAB_BFLOAT16 ||
          A.dtype == WARPLAB_FLOAT16) ||
        B.dtype != A.dtype || !(C.dtype == WARPLAB_FLOAT32 || C.dtype == A.dtype))
        NOT_FAST();
    size_t m = (size_t)(trans_a ? A.shape[1] : A.shape[0]);
    size_t k = (size_t)(trans_a ? A.shape[0] : A.shape[1]);
    size_t k2 = (size_t)(trans_b ? B.shape[1] : B.shape[0]);
    size_t n = (size_t)(trans_b ? B.shape[0] : B.shape[1]);
    if (k != k2 || m == 0 || n == 0 || k == 0 || (size_t)C.shape[0] != m || (size_t)C.shape[1] != n)
        NOT_FAST();
    int ta = trans_a != a_t, tb = trans_b != b_t;
    /* The stored matrices: A is m x k (N) or k x m (T); B k x n or n x k. */
    size_t a_rows = ta ? k : m, a_cols = ta ? m : k, b_rows = tb ? n : k, b_cols = tb ? k : n;
    size_t size = dtype_size(A.dtype);
    void *handle;
    PyObject *ctx = thread_context(A.device, &handle);
    if (!ctx)
        NOT_FAST();
    void *wa = wrapper(ctx, A.pointer, ((a_rows - 1) * lda + a_cols) * size);
    void *wb = wrapper(ctx, B.pointer, ((b_rows - 1) * ldb + b_cols) * size);
    void *wc = wrapper(ctx, C.pointer, ((m - 1) * ldc + n) * dtype_size(C.dtype));
    if (!wa || !wb || !wc || !bind_stream(ctx, handle, A.device))
        NOT_FAST();
    return fast_result(gemm_ex_fn(handle, (warplab_op)ta, (warplab_op)tb, m, n, k, alpha, wa,
                                  (warplab_dtype)A.dtype, lda, wb, (warplab_dtype)B.dtype, ldb,
                                  beta, wc, (warplab_dtype)C.dtype, ldc, (warplab_compute)compute),
                       handle);
}

/* fast_vecadd(a, b, out) */
static PyObject *calls_fast_vecadd(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    operand A, B, C;
    if (need(nargs, 3, "fast_vecadd") || !vecadd_fn)
        return NULL;
    if (!read_tensor(args[0], &A) || !read_tensor(args[1], &B) || !read_tensor(args[2], &C) ||
        A.device != B.device || A.device != C.device || A.dtype != WARPLAB_FLOAT32 ||
        B.dtype != WARPLAB_FLOAT32 || C.dtype != WARPLAB_FLOAT32 || !contiguous(&A) ||
        !contiguous(&B) || !contiguous(&C))
        NOT_FAST();
    size_t n = elements(&A);
    if (n == 0 || elements(&B) != n || elements(&C) != n)
        NOT_FAST();
    void *handle;
    PyObject *ctx = thread_context(A.device, &handle);
    if (!ctx)
        NOT_FAST();
    void *wa = wrapper(ctx, A.pointer, 4 * n), *wb = wrapper(ctx, B.pointer, 4 * n);
    void *wc = wrapper(ctx, C.pointer, 4 * n);
    if (!wa || !wb || !wc || !bind_stream(ctx, handle, A.device))
        NOT_FAST();
    return fast_result(vecadd_fn(handle, wa, wb, wc, n), handle);
}

/* fast_reduce(x, op, out) */
static PyObject *calls_fast_reduce(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    operand X, O;
    int op;
    if (need(nargs, 3, "fast_reduce") || !reduce_to_buffer_fn)
        return NULL;
    if (!read_tensor(args[0], &X) || !read_tensor(args[2], &O) || read_int(args[1], &op) ||
        X.device != O.device || X.dtype > WARPLAB_FLOAT64 || O.dtype != X.dtype ||
        !contiguous(&X) || elements(&O) != 1)
        NOT_FAST();
    size_t n = elements(&X), size = dtype_size(X.dtype);
    void *handle;
    PyObject *ctx = thread_context(X.device, &handle);
    if (!ctx)
        NOT_FAST();
    void *wx = wrapper(ctx, X.pointer, size * n), *wo = wrapper(ctx, O.pointer, size);
    if (!wx || !wo || !bind_stream(ctx, handle, X.device))
        NOT_FAST();
    return fast_result(
        reduce_to_buffer_fn(handle, (warplab_dtype)X.dtype, (warplab_reduce_op)op, wx, n, wo, 0),
        handle);
}

/* fast_transpose(x, out) */
static PyObject *calls_fast_transpose(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    operand X, O;
    size_t ld_in, ld_out;
    if (need(nargs, 2, "fast_transpose") || !transpose_fn)
        return NULL;
    if (!read_tensor(args[0], &X) || !read_tensor(args[1], &O) || X.device != O.device ||
        !(X.dtype == WARPLAB_FLOAT32 || X.dtype == WARPLAB_FLOAT64) || O.dtype != X.dtype ||
        !row_major(&X, &ld_in) || !row_major(&O, &ld_out))
        NOT_FAST();
    size_t rows = (size_t)X.shape[0], cols = (size_t)X.shape[1], size = dtype_size(X.dtype);
    if (rows == 0 || cols == 0 || (size_t)O.shape[0] != cols || (size_t)O.shape[1] != rows)
        NOT_FAST();
    void *handle;
    PyObject *ctx = thread_context(X.device, &handle);
    if (!ctx)
        NOT_FAST();
    void *wx = wrapper(ctx, X.pointer, ((rows - 1) * ld_in + cols) * size);
    void *wo = wrapper(ctx, O.pointer, ((cols - 1) * ld_out + rows) * size);
    if (!wx || !wo || !bind_stream(ctx, handle, X.device))
        NOT_FAST();
    return fast_result(
        transpose_fn(handle, (warplab_dtype)X.dtype, rows, cols, wx, ld_in, wo, ld_out), handle);
}

/* bind_tensors(tensor_type, dtype_codes, raw_stream): what the fast path
 * recognises (torch.Tensor, {torch dtype: warplab dtype}) and how it reads
 * the device's current stream. */
static PyObject *calls_bind_tensors(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (need(nargs, 3, "bind_tensors"))
        return NULL;
    if (args[0] == Py_None) { /* unbound: the fast path declines everything */
        Py_CLEAR(tensor_type);
        Py_CLEAR(tensor_codes);
        Py_CLEAR(raw_stream);
        Py_RETURN_NONE;
    }
    if (!PyType_Check(args[0]) || !PyDict_Check(args[1]) || !PyCallable_Check(args[2])) {
        PyErr_SetString(PyExc_TypeError,
                        "bind_tensors(type, dict, callable), or (None, None, None)");
        return NULL;
    }
    Py_INCREF(args[0]);
    Py_INCREF(args[1]);
    Py_INCREF(args[2]);
    Py_XSETREF(tensor_type, args[0]);
    Py_XSETREF(tensor_codes, args[1]);
    Py_XSETREF(raw_stream, args[2]);
    Py_RETURN_NONE;
}

/* set_context(device, context): the calling thread's context for a CUDA
 * device (the package's Context: handle, _stream, _wrapped); None forgets
 * it. */
static PyObject *calls_set_context(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (need(nargs, 2, "set_context"))
        return NULL;
    PyObject *state = PyThreadState_GetDict();
    if (!state) {
        PyErr_SetString(PyExc_RuntimeError, "set_context: no thread state");
        return NULL;
    }
    PyObject *contexts = PyDict_GetItemWithError(state, s_contexts);
    if (!contexts) {
        if (PyErr_Occurred())
            return NULL;
        contexts = PyDict_New();
        if (!contexts || PyDict_SetItem(state, s_contexts, contexts) < 0) {
            Py_XDECREF(contexts);
            return NULL;
        }
        Py_DECREF(contexts);
    }
    if (args[1] == Py_None) { /* forgotten */
        if (PyDict_DelItem(contexts, args[0]) < 0 && PyErr_ExceptionMatches(PyExc_KeyError))
            PyErr_Clear();
        if (PyErr_Occurred())
            return NULL;
        Py_RETURN_NONE;
    }
    if (PyDict_SetItem(contexts, args[0], args[1]) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyMethodDef calls_methods[] = {
    {"bind", (PyCFunction)(void (*)(void))calls_bind, METH_FASTCALL,
     "bind(vecadd, reduce_to_buffer, transpose, gemm_ex, set_stream): function addresses"},
    {"vecadd", (PyCFunction)(void (*)(void))calls_vecadd, METH_FASTCALL,
     "warplab_vecadd's arguments in order; returns the status"},
    {"reduce_to_buffer", (PyCFunction)(void (*)(void))calls_reduce_to_buffer, METH_FASTCALL,
     "warplab_reduce_to_buffer's arguments in order; returns the status"},
    {"transpose", (PyCFunction)(void (*)(void))calls_transpose, METH_FASTCALL,
     "warplab_transpose's arguments in order; returns the status"},
    {"gemm_ex", (PyCFunction)(void (*)(void))calls_gemm_ex, METH_FASTCALL,
     "warplab_gemm_ex's arguments in order; returns the status"},
    {"set_stream", (PyCFunction)(void (*)(void))calls_set_stream, METH_FASTCALL,
     "warplab_context_set_stream's arguments; returns the status"},
    {"fast_gemm", (PyCFunction)(void (*)(void))calls_fast_gemm, METH_FASTCALL,
     "fast_gemm(a, b, out, alpha, beta, trans_a, trans_b, compute): 0, (status, context), or None"},
    {"fast_vecadd", (PyCFunction)(void (*)(void))calls_fast_vecadd, METH_FASTCALL,
     "fast_vecadd(a, b, out): 0, (status, context), or None (not the plain case)"},
    {"fast_reduce", (PyCFunction)(void (*)(void))calls_fast_reduce, METH_FASTCALL,
     "fast_reduce(x, op, out): 0, (status, context), or None (not the plain case)"},
    {"fast_transpose", (PyCFunction)(void (*)(void))calls_fast_transpose, METH_FASTCALL,
     "fast_transpose(x, out): 0, (status, context), or None (not the plain case)"},
    {"bind_tensors", (PyCFunction)(void (*)(void))calls_bind_tensors, METH_FASTCALL,
     "bind_tensors(tensor_type, dtype_codes, raw_stream)"},
    {"set_context", (PyCFunction)(void (*)(void))calls_set_context, METH_FASTCALL,
     "set_context(device, context): the calling thread's context of a CUDA device"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef calls_module = {
    .m_base = PyModuleDef_HEAD_INIT,
    .m_name = "_calls",
    .m_doc = "warplab's hot calls without ctypes' argument conversion (bound by warplab._lib)",
    .m_size = -1,
    .m_methods = calls_methods,
};

PyMODINIT_FUNC PyInit__calls(void);
PyMODINIT_FUNC PyInit__calls(void)
{
    struct {
        PyObject **slot;
        const char *text;
    } names[] = {{&s_dtype, "dtype"},
                 {&s_shape, "shape"},
                 {&s_stride, "stride"},
                 {&s_data_ptr, "data_ptr"},
                 {&s_get_device, "get_device"},
                 {&s_handle, "handle"},
                 {&s_stream, "_stream"},
                 {&s_wrapped, "_wrapped"},
                 {&s_contexts, "warplab._calls.contexts"}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!*names[i].slot && !(*names[i].slot = PyUnicode_InternFromString(names[i].text)))
            return NULL;
    return PyModule_Create(&calls_module);
}
