"""warplab's operations on the caller's arrays, without copies.

Device arrays (torch, CuPy, anything with __cuda_array_interface__ or
__dlpack__) are wrapped in place with warplab_buffer_wrap and the work is
queued on the producer's stream; host arrays (NumPy, CPU tensors) run in
place on the cpu backend, or through explicit copies on cuda and opencl.
"""

import ctypes
import threading

from . import _lib
from ._lib import Error, check, lib

_vp = ctypes.c_void_p

# cudaStreamLegacy: the legacy default stream's handle (what torch's and
# CuPy's default stream, raw handle 0, means; warplab's NULL is the context's
# own stream).
_CUDA_STREAM_LEGACY = 1
_DTYPE_NAMES = {v: k for k, v in _lib.DTYPES.items()}


def _use_calls(module):
    """Makes the hot calls through the extension (_lib.calls) or, with None,
    through ctypes (the tests run both). With the extension, torch tensors
    take its fast path (_calls.c, "The tensor fast path") where the call is
    the plain case."""
    global _c_vecadd, _c_reduce_to_buffer, _c_transpose, _c_gemm_ex, _c_set_stream, _fast
    _fast = module
    if module is None:
        _c_vecadd, _c_reduce_to_buffer = lib.warplab_vecadd, lib.warplab_reduce_to_buffer
        _c_transpose, _c_gemm_ex = lib.warplab_transpose, lib.warplab_gemm_ex
        _c_set_stream = lib.warplab_context_set_stream
    else:
        _c_vecadd, _c_reduce_to_buffer = module.vecadd, module.reduce_to_buffer
        _c_transpose, _c_gemm_ex = module.transpose, module.gemm_ex
        _c_set_stream = module.set_stream


_use_calls(_lib.calls)
_TYPESTR = {"<i4": 0, "<f4": 1, "<f8": 2, "<f2": 4, "|i4": 0}
_TORCH_DTYPES = {}  # torch.dtype -> warplab dtype code, filled on the first tensor


class Context:
    """A warplab context: one backend on one device.

    Most programs never make one: each call picks a context for its arrays
    (the cuda context of a device array's GPU; the cpu backend for host
    arrays unless backend= says otherwise) and keeps it for the thread."""

    def __init__(self, backend="auto", device=-1):
        if backend not in _lib.BACKENDS:
            raise ValueError(f"backend must be one of {', '.join(_lib.BACKENDS)}, not {backend!r}")
        handle = _vp()
        check(lib.warplab_context_create(_lib.BACKENDS[backend], int(device), ctypes.byref(handle)))
        self._handle = handle
        self.handle = handle.value
        self.backend = {v: k for k, v in _lib.BACKENDS.items()}[
            lib.warplab_context_backend(self.handle)]
        info = lib.warplab_context_device(self.handle).contents
        self.device = _device_dict(info)
        self.device_index = info.index
        self._stream = None  # the stream bound now (None: the context's own)
        self._wrapped = {}  # (pointer, bytes) -> wrapper handle
        self._scratch = None

    def __repr__(self):
        return f"<warplab.Context {self.backend} device {self.device_index}: {self.device['name']}>"

    def close(self):
        """Waits for the context's queued work and releases it."""
        if self.handle:
            for handle in self._wrapped.values():
                lib.warplab_buffer_destroy(handle)
            self._wrapped.clear()
            if self._scratch:
                lib.warplab_buffer_destroy(self._scratch)
                self._scratch = None
            lib.warplab_context_destroy(self.handle)
            self.handle = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def synchronize(self):
        """Waits for all the work queued on the bound stream."""
        check(lib.warplab_context_synchronize(self.handle), self.handle)

    def set_stream(self, stream):
        """Binds a stream (an int handle, a torch/CuPy stream object; None:
        the context's own). Calls do this themselves from their stream=."""
        raw = _stream_handle(stream)
        if raw != self._stream:
            check(_c_set_stream(self.handle, raw), self.handle)
            self._stream = raw

    def _check(self, status):
        if status:
            raise Error(status, _lib.last_error(self.handle))

    def _wrap(self, pointer, nbytes):
        """A wrapper of nbytes at pointer, made once and kept: a wrapper is
        only the pointer and size (checked when made), so the same memory
        reuses it; the oldest of 256 goes first."""
        if not pointer:
            return self._scratch_buffer()
        key = (pointer, nbytes)
        handle = self._wrapped.get(key)
        if handle is not None:
            return handle
        out = _vp()
        self._check(lib.warplab_buffer_wrap(self.handle, pointer, nbytes, ctypes.byref(out)))
        if len(self._wrapped) >= 256:
            lib.warplab_buffer_destroy(self._wrapped.pop(next(iter(self._wrapped))))
        self._wrapped[key] = out.value
        return out.value

    def _scratch_buffer(self):
        # Stands for an empty operand (a NULL data pointer): never read.
        if not self._scratch:
            out = _vp()
            self._check(lib.warplab_buffer_create(self.handle, 16, ctypes.byref(out)))
            self._scratch = out.value
        return self._scratch


def _device_dict(info):
    out = {}
    for name, _ in info._fields_:
        value = getattr(info, name)
        if isinstance(value, bytes):
            value = value.decode(errors="replace")
        elif hasattr(value, "__len__"):
            value = list(value)
        out[name] = value
    out["backend"] = {v: k for k, v in _lib.BACKENDS.items()}.get(out["backend"], "?")
    return out


_local = threading.local()


def context(backend="auto", device=-1):
    """The thread's context for a backend and device (made on first use)."""
    contexts = getattr(_local, "contexts", None)
    if contexts is None:
        contexts = _local.contexts = {}
    key = (backend, device)
    ctx = contexts.get(key)
    if ctx is None:
        ctx = contexts[key] = Context(backend, device)
    return ctx


def devices(backend):
    """The devices of a backend, as dicts of warplab_device_info's fields."""
    kind = _lib.BACKENDS[backend]
    count = ctypes.c_size_t()
    check(lib.warplab_devices(kind, None, 0, ctypes.byref(count)))
    infos = (_lib._DeviceInfo * max(count.value, 1))()
    check(lib.warplab_devices(kind, infos, count.value, ctypes.byref(count)))
    return [_device_dict(infos[i]) for i in range(count.value)]


def backends():
    """The backends compiled into the loaded library."""
    return [name for name, kind in _lib.BACKENDS.items()
            if name != "auto" and lib.warplab_backend_compiled(kind)]


# --------------------------------------------------------------------------
# Streams


def _stream_handle(stream):
    if stream is None:
        return None
    if isinstance(stream, int):
        return stream or _CUDA_STREAM_LEGACY
    for attribute in ("cuda_stream", "ptr", "handle"):
        raw = getattr(stream, attribute, None)
        if isinstance(raw, int):
            return raw or _CUDA_STREAM_LEGACY
    raise TypeError(f"stream must be an int handle or a torch/CuPy stream, not {type(stream).__name__}")


def _torch_current_stream(device):
    import torch

    raw_stream = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    raw = raw_stream(device) if raw_stream else torch.cuda.current_stream(device).cuda_stream
    return raw or _CUDA_STREAM_LEGACY


# --------------------------------------------------------------------------
# Arrays


class _Array:
    """One operand: where it lives, its layout and type."""

    __slots__ = ("obj", "device", "pointer", "shape", "strides", "dtype", "itemsize",
                 "stream", "readonly", "keep")

    def __init__(self, obj, device, pointer, shape, strides, dtype, itemsize, stream=None,
                 readonly=False, keep=None):
        self.obj = obj
        self.device = device  # None: host memory; else the CUDA device index
        self.pointer = pointer
        self.shape = shape
        self.strides = strides  # in elements
        self.dtype = dtype  # warplab dtype code, or None (unserved; its name in keep)
        self.itemsize = itemsize
        self.stream = stream
        self.readonly = readonly
        self.keep = keep

    def size(self):
        n = 1
        for d in self.shape:
            n *= d
        return n

    def contiguous(self):
        expected = 1
        for d, s in zip(reversed(self.shape), reversed(self.strides)):
            if d != 1 and s != expected:
                return False
            expected *= d
        return True


def _strides_in_elements(byte_strides, itemsize, shape, what):
    out = []
    for s, d in zip(byte_strides, shape):
        if s % itemsize:
            raise ValueError(f"{what}: a stride of {s} bytes is not a whole number of "
                             f"{itemsize}-byte elements; warplab cannot take it")
        out.append(s // itemsize)
    return tuple(out)


def _c_strides(shape):
    if len(shape) == 1:
        return (1,)
    if len(shape) == 2:
        return (shape[1], 1)
    strides = []
    step = 1
    for d in reversed(shape):
        strides.append(step)
        step *= d
    return tuple(reversed(strides))


def _typestr_name(typestr):
    kinds = {"i": "int", "u": "uint", "f": "float", "c": "complex", "b": "bool"}
    kind, size = typestr[1:2], typestr[2:]
    if kind in kinds and size.isdigit():
        return "bool" if kind == "b" else f"{kinds[kind]}{int(size) * 8}"
    return typestr


_TYPESTRS = {}  # typestr -> (warplab dtype or None, itemsize, name)


def _typestr(typestr):
    known = _TYPESTRS.get(typestr)
    if known is None:
        size = typestr[2:]
        itemsize = int(size) if size.isdigit() else 1
        known = _TYPESTRS[typestr] = (_TYPESTR.get(typestr), itemsize, _typestr_name(typestr))
    return known


def _from_interface(obj, iface, device, what, stream):
    shape = iface["shape"]
    dtype, itemsize, name = _typestr(iface["typestr"])
    data = iface.get("data")
    pointer, readonly = data if data else (0, False)
    byte_strides = iface.get("strides")
    if byte_strides is None:
        strides = _c_strides(shape)
    else:
        strides = _strides_in_elements(byte_strides, itemsize, shape, what)
    if iface.get("mask") is not None:
        raise ValueError(f"{what}: masked arrays are not served")
    return _Array(obj, device, pointer or 0, shape, strides, dtype, itemsize, stream, readonly,
                  name if dtype is None else None)


_libcuda = None


def _cuda_pointer_device(pointer):
    """The CUDA device a pointer belongs to (the driver's
    CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL); 0 when it cannot be told."""
    global _libcuda
    if not pointer:
        return 0
    try:
        if _libcuda is None:
            _libcuda = ctypes.CDLL("libcuda.so.1")
        ordinal = ctypes.c_int(0)
        if _libcuda.cuPointerGetAttribute(ctypes.byref(ordinal), 9, ctypes.c_void_p(pointer)) == 0:
            return ordinal.value
    except OSError:
        pass
    return 0


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", _DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


_PyCapsule_GetPointer = ctypes.pythonapi.PyCapsule_GetPointer
_PyCapsule_GetPointer.restype = ctypes.c_void_p
_PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_DL_CPU, _DL_CUDA, _DL_CUDA_HOST, _DL_CUDA_MANAGED = 1, 2, 3, 13
_DL_DTYPES = {(0, 32): 0, (2, 32): 1, (2, 64): 2, (4, 16): 3, (2, 16): 4}


def _from_dlpack(obj, what, stream):
    device_type, device_id = obj.__dlpack_device__()
    device_type = int(device_type)
    if device_type in (_DL_CUDA, _DL_CUDA_MANAGED):
        # The stream warplab will run on, so that the producer orders its
        # work before it (the DLPack protocol).
        consumer = stream if stream is not None else _CUDA_STREAM_LEGACY
        capsule = obj.__dlpack__(stream=consumer)
        device = int(device_id)
        stream = consumer
    elif device_type in (_DL_CPU, _DL_CUDA_HOST):
        capsule = obj.__dlpack__()
        device = None
    else:
        raise TypeError(f"{what}: a DLPack device of type {device_type} is not served "
                        f"(CUDA and CPU memory are)")
    # The capsule is read, not consumed: it keeps the producer's tensor alive
    # for as long as this operand holds it, then its own destructor frees it.
    tensor = _DLTensor.from_address(_PyCapsule_GetPointer(capsule, b"dltensor"))
    ndim = tensor.ndim
    shape = tuple(tensor.shape[i] for i in range(ndim))
    if tensor.strides:
        strides = tuple(tensor.strides[i] for i in range(ndim))
    else:
        strides = _c_strides(shape)
    code = (tensor.dtype.code, tensor.dtype.bits)
    dtype = _DL_DTYPES.get(code) if tensor.dtype.lanes == 1 else None
    itemsize = max(tensor.dtype.bits // 8, 1)
    pointer = (tensor.data or 0) + tensor.byte_offset
    array = _Array(obj, device, pointer, shape, strides, dtype, itemsize, stream, False, capsule)
    if dtype is None:
        kinds = {0: "int", 1: "uint", 2: "float", 4: "bfloat", 5: "complex", 6: "bool"}
        array.keep = (f"{kinds.get(tensor.dtype.code, 'code%d' % tensor.dtype.code)}"
                      f"{tensor.dtype.bits}" + (f"x{tensor.dtype.lanes}" if tensor.dtype.lanes > 1
                                                else ""))
    return array


def _adapt_torch(obj, what, stream):
    dtype = _TORCH_DTYPES.get(obj.dtype)
    if obj.is_cuda:
        array = _Array(obj, obj.get_device(), obj.data_ptr(), obj.shape, obj.stride(), dtype,
                       _lib.DTYPE_SIZES[dtype] if dtype is not None else obj.element_size(),
                       stream)
        if stream is None:
            array.keep = _TORCH_STREAM  # the current stream is read once per call (_Call)
    else:
        array = _Array(obj, None, obj.data_ptr(), obj.shape, obj.stride(), dtype,
                       obj.element_size())
    if dtype is None:
        array.keep = str(obj.dtype).replace("torch.", "")
    return array


def _adapt_cuda_interface(obj, what, stream):
    iface = obj.__cuda_array_interface__
    device = getattr(getattr(obj, "device", None), "id", None)
    pointer = iface["data"][0] if iface.get("data") else 0
    if device is None:
        device = _cuda_pointer_device(pointer)
    if stream is None:
        stream = iface.get("stream")  # v3: the producer's stream (None: no ordering needed)
    return _from_interface(obj, iface, device, what, stream)


def _adapt_dlpack(obj, what, stream):
    if int(obj.__dlpack_device__()[0]) == _DL_CPU and hasattr(obj, "__array_interface__"):
        return _from_interface(obj, obj.__array_interface__, None, what, None)
    return _from_dlpack(obj, what, stream)


def _adapt_array_interface(obj, what, stream):
    return _from_interface(obj, obj.__array_interface__, None, what, None)


def _adapt_self(obj, what, stream):
    return obj


_ADAPTERS = {_Array: _adapt_self}  # type -> how to read it, decided on first sight
_TORCH_STREAM = object()
_torch_raw_stream = None


def _choose_adapter(obj):
    module = type(obj).__module__
    if (module == "torch" or module.startswith("torch.")) and hasattr(obj, "is_cuda"):
        global _torch_raw_stream
        import torch

        if not _TORCH_DTYPES:
            _TORCH_DTYPES.update({torch.int32: 0, torch.float32: 1, torch.float64: 2,
                                  torch.bfloat16: 3, torch.float16: 4})
        _torch_raw_stream = getattr(torch._C, "_cuda_getCurrentRawStream", None) or (
            lambda device: torch.cuda.current_stream(device).cuda_stream)
        if _lib.calls is not None:
            _lib.calls.bind_tensors(torch.Tensor, _TORCH_DTYPES, _torch_raw_stream)
        return _adapt_torch
    if hasattr(obj, "__cuda_array_interface__"):
        return _adapt_cuda_interface
    if hasattr(obj, "__array_interface__"):
        return _adapt_array_interface
    if hasattr(obj, "__dlpack_device__") and hasattr(obj, "__dlpack__"):
        return _adapt_dlpack
    return None


def _array(obj, what, stream=None):
    """Reads an operand's memory, layout and type; raises TypeError for
    objects that are no array."""
    kind = type(obj)
    adapt = _ADAPTERS.get(kind)
    if adapt is None:
        adapt = _choose_adapter(obj)
        if adapt is None:
            raise TypeError(f"{what} must be an array (torch.Tensor, cupy.ndarray, numpy.ndarray, "
                            f"or an object with __cuda_array_interface__ or __dlpack__), not "
                            f"{kind.__name__}")
        _ADAPTERS[kind] = adapt
    return adapt(obj, what, stream)


def _need_dtype(array, what, allowed):
    if array.dtype is None or array.dtype not in allowed:
        name = (array.keep or "?") if array.dtype is None else _DTYPE_NAMES[array.dtype]
        served = ", ".join(_DTYPE_NAMES[d] for d in allowed)
        raise TypeError(f"{what}: dtype {name} is not served here ({served})")


def _need_contiguous(array, what):
    if not array.contiguous():
        raise ValueError(f"{what}: strides {array.strides} (elements) are not contiguous; this "
                         f"call takes contiguous memory (warplab never copies it behind your back: "
                         f"pass a contiguous array)")


def _need_writable(array, what):
    if array.readonly:
        raise ValueError(f"{what} is read-only")


def _empty_like(template, shape, dtype_code):
    """A new output array of the template's kind (an output, not a copy)."""
    obj = template.obj
    module = type(obj).__module__
    if module == "torch" or module.startswith("torch."):
        import torch

        dtype = {v: k for k, v in _TORCH_DTYPES.items()}[dtype_code] if _TORCH_DTYPES else None
        return torch.empty(shape, dtype=dtype, device=obj.device)
    if module.startswith("cupy"):
        import cupy

        with cupy.cuda.Device(template.device):
            return cupy.empty(shape, dtype=_numpy_dtype(dtype_code))
    if template.device is None:
        import numpy

        return numpy.empty(shape, dtype=_numpy_dtype(dtype_code))
    raise TypeError(f"cannot make an output array like a {type(obj).__name__}: pass out=")


def _numpy_dtype(code):
    import numpy

    if code == 3:
        raise TypeError("NumPy has no bfloat16: pass out= (a torch or CuPy array)")
    return numpy.dtype({0: "int32", 1: "float32", 2: "float64", 4: "float16"}[code])


class _Call:
    """The context, stream and buffers of one call. Device operands are
    wrapped in place (wrappers kept by the context); host operands run in
    place on the cpu backend, or on cuda/opencl through explicit copies: in
    before the call, out after it."""

    __slots__ = ("ctx", "handle", "copy", "copies", "owned")

    def __init__(self, arrays, backend, ctx, stream):
        device = arrays[0].device
        for other in arrays:
            if other.device != device:
                where = ", ".join(sorted({"host" if a.device is None else f"cuda:{a.device}"
                                          for a in arrays}))
                raise ValueError(f"the arrays are on different devices ({where})")
        self.copy = False
        if device is not None:
            if backend is not None and backend not in ("auto", "cuda"):
                raise ValueError(f"CUDA arrays run on the cuda backend, not {backend}")
            if ctx is None:
                cuda = getattr(_local, "cuda", None)
                ctx = cuda.get(device) if cuda else None
                if ctx is None:
                    ctx = _cuda_context(device)
            elif ctx.backend != "cuda":
                raise ValueError(f"CUDA arrays need a cuda context, not {ctx.backend}")
            if stream is None:
                stream = _producer_stream(arrays, device)
            elif not isinstance(stream, int):
                stream = _stream_handle(stream)
            elif stream == 0:
                stream = _CUDA_STREAM_LEGACY
            if stream != ctx._stream:
                ctx._check(_c_set_stream(ctx.handle, stream))
                ctx._stream = stream
        else:
            if ctx is None:
                ctx = context(backend or "cpu", -1)
            if stream is not None:
                ctx.set_stream(stream)
            self.copy = ctx.backend != "cpu"
            self.copies = []
            self.owned = []
        self.ctx = ctx
        self.handle = ctx.handle

    def buffer(self, array, span_elements, output=False, read=True):
        """The warplab buffer for an operand's span (elements from its data
        pointer)."""
        nbytes = span_elements * array.itemsize
        ctx = self.ctx
        if not self.copy:
            return ctx._wrapped.get((array.pointer, nbytes)) or ctx._wrap(array.pointer, nbytes)
        handle = _vp()
        ctx._check(lib.warplab_buffer_create(ctx.handle, max(nbytes, 1), ctypes.byref(handle)))
        self.owned.append(handle.value)
        if nbytes and read:
            ctx._check(lib.warplab_buffer_write(handle.value, 0, array.pointer, nbytes))
        if output:
            self.copies.append((handle.value, array.pointer, nbytes))
        return handle.value

    def finish(self, status):
        """Raises for a failed status; copies host outputs back (explicit
        copies: cuda/opencl with host arrays) and frees the call's own
        buffers."""
        if self.copy:
            try:
                if not status:
                    for handle, pointer, nbytes in self.copies:
                        if nbytes:
                            self.ctx._check(lib.warplab_buffer_read(handle, 0, pointer, nbytes))
            finally:
                for handle in self.owned:
                    lib.warplab_buffer_destroy(handle)
                self.owned = []
        if status:
            raise Error(status, _lib.last_error(self.handle))


def _producer_stream(arrays, device):
    """The stream the arrays' producer names: the first array's that names
    one (torch: its current stream; __cuda_array_interface__ v3: its
    stream), else the legacy default stream."""
    for a in arrays:
        if a.stream is not None:
            return a.stream or _CUDA_STREAM_LEGACY
        if a.keep is _TORCH_STREAM:
            return _torch_raw_stream(device) or _CUDA_STREAM_LEGACY
    return _CUDA_STREAM_LEGACY


def _cuda_context(device):
    ctx = context("cuda", device)
    if getattr(_local, "cuda", None) is None:
        _local.cuda = {}
    _local.cuda[device] = ctx
    if _lib.calls is not None:
        _lib.calls.set_context(device, ctx)  # the fast path's (per thread, as _local)
    return ctx


def _fast_binding():
    """What the fast path was bound to (torch.Tensor, its dtypes, its
    stream), or None before a torch tensor was seen."""
    if _torch_raw_stream is None:
        return None
    import torch

    return torch.Tensor, _TORCH_DTYPES, _torch_raw_stream


def _fast_done(result, out):
    """out after a fast call that ran (0), or the library's error."""
    if result:
        raise Error(result[0], _lib.last_error(result[1]))
    return out


def _span(shape, strides):
    """Elements from the first to one past the last (0 for an empty array)."""
    if any(d == 0 for d in shape):
        return 0
    return 1 + sum((d - 1) * s for d, s in zip(shape, strides))


# --------------------------------------------------------------------------
# The operations


def vecadd(a, b, out=None, *, stream=None, backend=None, context=None):
    """out = a + b, float32, elementwise over contiguous arrays of one size
    (out may be a or b). Returns out (a new array when not given)."""
    if (_fast is not None and out is not None and
            stream is None and backend is None and context is None):
        result = _fast.fast_vecadd(a, b, out)
        if result is not None:
            return _fast_done(result, out)
    A = _array(a, "a", stream)
    B = _array(b, "b", stream)
    for name, X in (("a", A), ("b", B)):
        _need_dtype(X, name, (1,))
        _need_contiguous(X, name)
    if A.size() != B.size():
        raise ValueError(f"vecadd: a has {A.size()} elements, b {B.size()}")
    if out is None:
        out = _empty_like(A, A.shape, 1)
    C = _array(out, "out", stream)
    _need_dtype(C, "out", (1,))
    _need_contiguous(C, "out")
    _need_writable(C, "out")
    n = A.size()
    if C.size() != n:
        raise ValueError(f"vecadd: out has {C.size()} elements, a and b {n}")
    call = _Call((A, B, C), backend, context, stream)
    if n == 0:
        return out
    ba = call.buffer(A, n)
    bb = call.buffer(B, n)
    bc = call.buffer(C, n, output=True, read=(C.pointer in (A.pointer, B.pointer)))
    call.finish(_c_vecadd(call.handle, ba, bb, bc, n))
    return out


def reduce(x, op="sum", *, out=None, stream=None, backend=None, context=None):
    """Reduces every element of a contiguous int32, float32 or float64 array
    with op ("sum", "min", "max"). Without out: returns the value (a
    synchronous call). With out (a one-element array of x's dtype on x's
    device): writes it there asynchronously and returns out."""
    code = _lib.REDUCE_OPS.get(op)
    if code is None:
        raise ValueError(f"op must be one of {', '.join(_lib.REDUCE_OPS)}, not {op!r}")
    if (_fast is not None and out is not None and
            stream is None and backend is None and context is None):
        result = _fast.fast_reduce(x, code, out)
        if result is not None:
            return _fast_done(result, out)
    X = _array(x, "x", stream)
    _need_dtype(X, "x", (0, 1, 2))
    _need_contiguous(X, "x")
    n = X.size()
    if out is None:
        call = _Call((X,), backend, context, stream)
        bx = call.buffer(X, n)
        result = (ctypes.c_int32 if X.dtype == 0 else
                  ctypes.c_float if X.dtype == 1 else ctypes.c_double)()
        call.finish(lib.warplab_reduce(call.handle, X.dtype, code, bx, n,
                                      ctypes.byref(result)))
        return result.value
    O = _array(out, "out", stream)
    _need_dtype(O, "out", (X.dtype,))
    _need_writable(O, "out")
    if O.size() != 1:
        raise ValueError(f"reduce: out must hold one element, not {O.size()}")
    call = _Call((X, O), backend, context, stream)
    bx = call.buffer(X, n)
    bo = call.buffer(O, 1, output=True, read=False)
    call.finish(_c_reduce_to_buffer(call.handle, X.dtype, code, bx, n, bo, 0))
    return out


_SCAN_KINDS = {"inclusive": 0, "exclusive": 1}


def scan(x, op="sum", *, exclusive=False, out=None, stream=None, backend=None, context=None):
    """The prefix scan of a contiguous int32, float32 or float64 array by op
    ("sum", "min", "max"), inclusive (out[i] covers x[0..i]) or, with
    exclusive=True, exclusive (out[0] is op's identity). out: an array of
    x's dtype and size (x itself scans in place). int32 sums wrap modulo
    2^32. Asynchronous on the producer's stream. Returns out (a new array
    when not given)."""
    code = _lib.REDUCE_OPS.get(op)
    if code is None:
        raise ValueError(f"op must be one of {', '.join(_lib.REDUCE_OPS)}, not {op!r}")
    X = _array(x, "x", stream)
    _need_dtype(X, "x", (0, 1, 2))
    _need_contiguous(X, "x")
    n = X.size()
    if out is None:
        out = _empty_like(X, X.shape, X.dtype)
    O = _array(out, "out", stream)
    _need_dtype(O, "out", (X.dtype,))
    _need_contiguous(O, "out")
    _need_writable(O, "out")
    if O.size() != n:
        raise ValueError(f"scan: out has {O.size()} elements, x {n}")
    call = _Call((X, O), backend, context, stream)
    if n == 0:
        return out
    bx = call.buffer(X, n)
    bo = call.buffer(O, n, output=True, read=False)  # x itself: the same wrapper (in place)
    call.finish(lib.warplab_scan(call.handle, X.dtype, code, int(bool(exclusive)), bx, bo, n))
    return out


# Histogram samples: warplab_histogram_sample by element type name.
_HISTOGRAM_SAMPLES = {"uint8": 0, "int32": 1, "float32": 2}


def _element_name(array):
    return _DTYPE_NAMES[array.dtype] if array.dtype is not None else (array.keep or "?")


def histogram(x, bins, lower, upper, *, out=None, stream=None, backend=None, context=None):
    """Counts the samples of a contiguous uint8, int32 or float32 array in
    bins equal-width bins over [lower, upper), as CUB's HistogramEven does
    (samples outside the range and NaN are not counted). out: a uint32
    array of bins counts (zeroed by the call). Asynchronous on the
    producer's stream. Returns out (a new uint32 array when not given)."""
    X = _array(x, "x", stream)
    name = _element_name(X)
    sample = _HISTOGRAM_SAMPLES.get(name)
    if sample is None:
        raise TypeError(f"x: dtype {name} is not served here (uint8, int32, float32)")
    _need_contiguous(X, "x")
    bins = int(bins)
    if bins < 1:
        raise ValueError(f"histogram: bins must be at least 1, not {bins}")
    if out is None:
        out = _empty_counts(X, bins)
    O = _array(out, "out", stream)
    if _element_name(O) != "uint32":
        raise TypeError(f"out: dtype {_element_name(O)} is not served here (uint32 counts)")
    _need_contiguous(O, "out")
    _need_writable(O, "out")
    if O.size() != bins:
        raise ValueError(f"histogram: out has {O.size()} counts, bins is {bins}")
    n = X.size()
    call = _Call((X, O), backend, context, stream)
    bx = call.buffer(X, n) if n else call.ctx._scratch_buffer()
    bo = call.buffer(O, bins, output=True, read=False)
    call.finish(lib.warplab_histogram(call.handle, sample, bx, n, bins, float(lower),
                                      float(upper), bo, 0))
    return out


def _empty_counts(template, bins):
    """A new uint32 array of bins counts of the template's kind."""
    obj = template.obj
    module = type(obj).__module__
    if module == "torch" or module.startswith("torch."):
        import torch

        if not hasattr(torch, "uint32"):
            raise TypeError("this torch has no uint32: pass out= (a uint32 array)")
        return torch.empty(bins, dtype=torch.uint32, device=obj.device)
    if module.startswith("cupy"):
        import cupy

        with cupy.cuda.Device(template.device):
            return cupy.empty(bins, dtype="uint32")
    if template.device is None:
        import numpy

        return numpy.empty(bins, dtype=numpy.uint32)
    raise TypeError(f"cannot make a counts array like a {type(obj).__name__}: pass out=")

def _row_major(array, what):
    """(ld) for a 2-D operand stored row-major with rows ld elements apart;
    ValueError for other strides."""
    if len(array.shape) != 2:
        raise ValueError(f"{what} must be 2-D, not {len(array.shape)}-D")
    rows, cols = array.shape
    s0, s1 = array.strides
    if cols > 1 and s1 != 1:
        raise ValueError(f"{what}: strides {array.strides} (elements): the columns must be "
                         f"adjacent (stride 1); warplab takes row-major matrices with any row "
                         f"stride >= the row length")
    ld = s0 if rows > 1 else cols
    if ld < cols or ld < 0:
        raise ValueError(f"{what}: a row stride of {s0} elements is shorter than a row of "
                         f"{cols}: rows would overlap")
    return ld


def _matrix(array, what):
    """How a 2-D operand is stored: (transposed, ld). Row-major (stride 1
    along a row) is stored as it is; column-major (a transposed view) is the
    row-major transpose."""
    if len(array.shape) != 2:
        raise ValueError(f"{what} must be 2-D, not {len(array.shape)}-D")
    rows, cols = array.shape
    s0, s1 = array.strides
    if (s1 == 1 or cols <= 1) and (s0 >= cols or rows <= 1):
        return False, (s0 if rows > 1 else cols)
    if (s0 == 1 or rows <= 1) and (s1 >= rows or cols <= 1):
        return True, (s1 if cols > 1 else rows)
    raise ValueError(f"{what}: strides {array.strides} (elements) for shape {array.shape}: "
                     f"warplab takes row-major (stride 1 along a row) or column-major "
                     f"(stride 1 along a column) matrices, with any leading dimension")


def transpose(x, out=None, *, stream=None, backend=None, context=None):
    """out = x^T for a 2-D float32 or float64 array, out of place. x and out
    are row-major with any row stride (padded rows, row slices). Returns out
    (a new contiguous array when not given)."""
    if (_fast is not None and out is not None and
            stream is None and backend is None and context is None):
        result = _fast.fast_transpose(x, out)
        if result is not None:
            return _fast_done(result, out)
    X = _array(x, "x", stream)
    _need_dtype(X, "x", (1, 2))
    ld_in = _row_major(X, "x")
    rows, cols = X.shape
    if out is None:
        out = _empty_like(X, (cols, rows), X.dtype)
    O = _array(out, "out", stream)
    _need_dtype(O, "out", (X.dtype,))
    _need_writable(O, "out")
    if O.shape != (cols, rows):
        raise ValueError(f"transpose: out must be {cols}x{rows}, not {O.shape}")
    ld_out = _row_major(O, "out")
    call = _Call((X, O), backend, context, stream)
    if rows == 0 or cols == 0:
        return out
    bx = call.buffer(X, (rows - 1) * ld_in + cols)
    bo = call.buffer(O, (cols - 1) * ld_out + rows, output=True, read=ld_out != rows)
    call.finish(_c_transpose(call.handle, X.dtype, rows, cols, bx, ld_in, bo, ld_out))
    return out


def gemm(a, b, out=None, *, alpha=1.0, beta=0.0, trans_a=False, trans_b=False, compute="fp32",
         out_dtype=None, stream=None, backend=None, context=None):
    """out = alpha * op(a) @ op(b) + beta * out (warplab_gemm_ex).

    op(x) is x, or x.T with trans_x. a and b: float32, bfloat16 or float16
    (the same); out: float32 or their type (default: their type). Any
    row-major or column-major layout with any leading dimension is read in
    place (a transposed view becomes the op flag, not a copy); out must be
    row-major. compute: "fp32" or "tf32" (float32 inputs). With beta != 0,
    out must be given."""
    if (_fast is not None and out is not None and out_dtype is None and
            stream is None and backend is None and context is None and compute in _lib.COMPUTE):
        result = _fast.fast_gemm(a, b, out, alpha, beta, trans_a, trans_b, _lib.COMPUTE[compute])
        if result is not None:
            return _fast_done(result, out)
    A = _array(a, "a", stream)
    B = _array(b, "b", stream)
    _need_dtype(A, "a", (1, 3, 4))
    _need_dtype(B, "b", (A.dtype,))
    if compute not in _lib.COMPUTE:
        raise ValueError(f"compute must be fp32 or tf32, not {compute!r}")
    a_stored_t, lda = _matrix(A, "a")
    b_stored_t, ldb = _matrix(B, "b")
    ta = bool(trans_a) != a_stored_t
    tb = bool(trans_b) != b_stored_t
    m, k = (A.shape[1], A.shape[0]) if trans_a else A.shape
    k2, n = (B.shape[1], B.shape[0]) if trans_b else B.shape
    if k != k2:
        raise ValueError(f"gemm: op(a) is {m}x{k} and op(b) {k2}x{n}: the inner sizes differ")
    if out is None:
        if beta != 0:
            raise ValueError("gemm: beta != 0 needs out= (C is read)")
        code = A.dtype if out_dtype is None else _dtype_code(out_dtype)
        out = _empty_like(A, (m, n), code)
    C = _array(out, "out", stream)
    _need_dtype(C, "out", (1, A.dtype))
    if out_dtype is not None and C.dtype != _dtype_code(out_dtype):
        raise TypeError(f"gemm: out is {_DTYPE_NAMES[C.dtype]}, out_dtype says {out_dtype}")
    _need_writable(C, "out")
    if C.shape != (m, n):
        raise ValueError(f"gemm: out must be {m}x{n}, not {C.shape}")
    ldc = _row_major(C, "out")
    call = _Call((A, B, C), backend, context, stream)
    if m == 0 or n == 0:
        return out
    # The stored matrices: A is m x k (N) or k x m (T); B k x n (N) or n x k (T).
    a_rows, a_cols = (k, m) if ta else (m, k)
    b_rows, b_cols = (n, k) if tb else (k, n)
    ba = call.buffer(A, (a_rows - 1) * lda + a_cols if a_rows and a_cols else 0)
    bb = call.buffer(B, (b_rows - 1) * ldb + b_cols if b_rows and b_cols else 0)
    bc = call.buffer(C, (m - 1) * ldc + n, output=True, read=beta != 0 or ldc != n)
    call.finish(_c_gemm_ex(call.handle, int(ta), int(tb), m, n, k, alpha, ba, A.dtype,
                                   lda or 1, bb, B.dtype, ldb or 1, beta, bc, C.dtype, ldc,
                                   _lib.COMPUTE[compute]))
    return out


def _dtype_code(dtype):
    name = str(dtype).replace("torch.", "")
    aliases = {"float": "float32", "double": "float64", "bf16": "bfloat16", "fp16": "float16",
               "half": "float16", "int": "int32"}
    name = aliases.get(name, name)
    if name not in _lib.DTYPES:
        raise TypeError(f"dtype {dtype} is not served")
    return _lib.DTYPES[name]


_groups = {}


def allreduce(tensors, out=None, *, streams=None):
    """Sums per-GPU device arrays across GPUs, in place or into out (a list
    like tensors): after it, every out[r] holds the elementwise sum of all
    tensors. One contiguous float32 or int32 array per GPU, all of one size,
    on different GPUs. Asynchronous on each array's producer stream (or
    streams[r]). Returns out (tensors when in place)."""
    arrays = [_array(t, f"tensors[{r}]", None if streams is None else streams[r])
              for r, t in enumerate(tensors)]
    outs = arrays if out is None else [_array(t, f"out[{r}]") for r, t in enumerate(out)]
    if not arrays:
        raise ValueError("allreduce needs one array per GPU")
    if len(outs) != len(arrays):
        raise ValueError(f"allreduce: {len(arrays)} inputs and {len(outs)} outputs")
    dtype = arrays[0].dtype
    n = arrays[0].size()
    for r, (x, y) in enumerate(zip(arrays, outs)):
        _need_dtype(x, f"tensors[{r}]", (0, 1))
        _need_dtype(y, f"out[{r}]", (dtype,))
        if x.dtype != dtype:
            raise TypeError(f"allreduce: tensors[{r}] is {_DTYPE_NAMES[x.dtype]}, tensors[0] "
                            f"{_DTYPE_NAMES[dtype]}")
        _need_contiguous(x, f"tensors[{r}]")
        _need_contiguous(y, f"out[{r}]")
        if x.size() != n or y.size() != n:
            raise ValueError(f"allreduce: every array must have {n} elements (rank {r} differs)")
        if x.device is None or y.device != x.device:
            raise ValueError(f"allreduce: rank {r}'s arrays must be on one CUDA device")
    devices = [x.device for x in arrays]
    if len(set(devices)) != len(devices):
        raise ValueError(f"allreduce: one array per GPU (devices {devices})")
    raw_streams = tuple(_stream_handle(s) if s is not None else _producer_stream([x], x.device)
                        for s, x in zip(streams or [None] * len(arrays), arrays))
    key = (tuple(devices), raw_streams)
    group = _groups.get(key)
    if group is None:
        handle = _vp()
        dev = (ctypes.c_int * len(devices))(*devices)
        strm = (_vp * len(devices))(*raw_streams)
        check(lib.warplab_allreduce_group_create(len(devices), dev, strm, ctypes.byref(handle)))
        group = _groups[key] = handle.value
    send = (_vp * len(arrays))(*[x.pointer for x in arrays])
    recv = (_vp * len(arrays))(*[y.pointer for y in outs])
    if n:
        check(lib.warplab_allreduce(group, dtype, send, recv, n))
    return tensors if out is None else out
