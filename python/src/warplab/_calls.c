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
    return PyModule_Create(&calls_module);
}
