"""The two ways the hot calls reach the library: the _calls extension
(python/src/warplab/_calls.c, built where Python's headers are found) and
ctypes. Both give the same results and the same errors; the extension is
in use wherever the build made it; its own argument checks refuse what
ctypes would silently wrap."""

import os

import numpy as np
import pytest

import warplab
from warplab import _lib, _ops

needs_extension = pytest.mark.skipif(_lib.calls is None,
                                     reason="the _calls extension was not built or found")


@pytest.fixture
def both_paths():
    """Yields a function that runs f() under each available path."""
    paths = [("ctypes", None)] + ([("extension", _lib.calls)] if _lib.calls else [])

    def run(f):
        out = {}
        try:
            for name, module in paths:
                _ops._use_calls(module)
                out[name] = f()
        finally:
            _ops._use_calls(_lib.calls)
        return out

    return run


def test_the_extension_is_used_where_the_build_made_it():
    expected = os.environ.get("WARPLAB_EXPECT_PYTHON_CALLS")
    if expected is None:
        pytest.skip("WARPLAB_EXPECT_PYTHON_CALLS is not set (ctest sets it)")
    if os.environ.get("WARPLAB_PYTHON_CALLS") == "0":
        assert warplab.call_path() == "ctypes"
    elif expected == "ON":
        assert warplab.call_path() == "extension", "the build made _calls but the package missed it"
    else:
        assert warplab.call_path() == "ctypes"


def test_both_paths_give_the_same_results(backend, both_paths):
    rng = np.random.default_rng(7)
    a = rng.standard_normal((37, 29)).astype(np.float32)
    b = rng.standard_normal((29, 41)).astype(np.float32)
    ldb = np.zeros((29, 48), np.float32)
    ldb[:, :41] = b

    def calls():
        c = np.full((37, 41), np.nan, np.float32)
        warplab.gemm(a, ldb[:, :41], c, alpha=0.5, beta=0.0, backend=backend)
        t = np.full((29, 37), np.nan, np.float32)
        warplab.transpose(a, t, backend=backend)
        s = np.full(1, np.nan, np.float32)
        warplab.reduce(a, "max", out=s, backend=backend)
        v = np.full(a.shape, np.nan, np.float32)
        warplab.vecadd(a, a, v, backend=backend)
        return c, t, s, v

    results = both_paths(calls)
    first = next(iter(results.values()))
    np.testing.assert_allclose(first[0], 0.5 * a.astype(np.float64) @ b, rtol=1e-4, atol=1e-4)
    np.testing.assert_array_equal(first[1], a.T)
    assert first[2][0] == a.max()
    np.testing.assert_array_equal(first[3], a + a)
    for other in results.values():
        for x, y in zip(first, other):
            np.testing.assert_array_equal(x, y)


def test_both_paths_raise_the_library_error(both_paths):
    x = np.arange(16, dtype=np.float32)

    def overlap():
        with pytest.raises(warplab.Error) as caught:
            warplab.vecadd(x[:8], x[1:9], x[2:10], backend="cpu")
        return caught.value.status

    statuses = both_paths(overlap)
    assert set(statuses.values()) == {warplab.Status.INVALID_ARGUMENT}


@needs_extension
def test_extension_refuses_bad_arguments():
    calls = _lib.calls
    with pytest.raises(TypeError, match="takes 5 arguments"):
        calls.vecadd(None, None, None, None)
    with pytest.raises(OverflowError):
        calls.vecadd(None, None, None, None, -1)  # ctypes would pass 2^64 - 1
    with pytest.raises(TypeError):
        calls.transpose(None, 1, "3", 4, None, 4, None, 3)
    with pytest.raises(OverflowError, match="enum"):
        calls.reduce_to_buffer(None, 1, 999, None, 1, None, 0)
    with pytest.raises(ValueError, match="address is 0"):
        calls.bind(1, 2, 3, 4, 0)
    # Still bound to the library after the refused bind: a NULL context is
    # the library's INVALID_ARGUMENT, not a crash.
    assert calls.vecadd(None, None, None, None, 1) == warplab.Status.INVALID_ARGUMENT
    assert calls.gemm_ex(None, 0, 0, 1, 1, 1, 1.0, None, 1, 1, None, 1, 1, 0.0, None, 1, 1,
                         0) == warplab.Status.INVALID_ARGUMENT


# --- the tensor fast path (_calls.c, "The tensor fast path") ----------------
#
# Without torch, a stand-in tensor type with torch's accessors (dtype, shape,
# stride(), data_ptr(), get_device()) over NumPy memory is bound in torch's
# place, and the cpu context serves the stand-in "device" 99. The fast path
# only reads what the Python path keeps (the context's handle, bound stream
# and wrappers), so a Python-path call on the same NumPy arrays first makes
# the wrappers it looks up.

_F32, _F64, _I32, _F16 = (type(name, (), {})() for name in ("f32", "f64", "i32", "f16"))
_CODES = {_F32: 1, _F64: 2, _I32: 0, _F16: 4}
_DEVICE = 99


class _Tensor:
    def __init__(self, array, device=_DEVICE):
        self.array = array
        self.dtype = {np.float32: _F32, np.float64: _F64, np.int32: _I32,
                      np.float16: _F16}[array.dtype.type]
        self.shape = tuple(array.shape)
        self._device = device
        self._strides = tuple(s // array.itemsize for s in array.strides)
        self._pointer = array.ctypes.data

    def stride(self):
        return self._strides

    def data_ptr(self):
        return self._pointer

    def get_device(self):
        return self._device

    @property
    def __array_interface__(self):  # what the Python path reads (host memory)
        return self.array.__array_interface__


class _Context:
    """The cpu context seen as the stand-in device's: its handle and
    wrappers, and the stream the fast path binds (1, the legacy stream's
    handle, which the cpu backend never sees: it is bound already)."""

    def __init__(self, ctx):
        self.handle, self._wrapped, self._stream = ctx.handle, ctx._wrapped, 1


@pytest.fixture
def fast():
    calls = _lib.calls
    calls.bind_tensors(_Tensor, _CODES, lambda device: 0)
    calls.set_context(_DEVICE, _Context(warplab.context("cpu")))
    _ops._use_calls(calls)
    try:
        yield calls
    finally:
        calls.set_context(_DEVICE, None)
        binding = _ops._fast_binding()
        calls.bind_tensors(*binding) if binding else calls.bind_tensors(None, None, None)


@needs_extension
def test_fast_path_runs_the_plain_calls(fast):
    rng = np.random.default_rng(11)
    a = rng.standard_normal((33, 20)).astype(np.float32)
    b_full = rng.standard_normal((40, 27)).astype(np.float32)
    b = b_full[:, :20].T  # 20 x 40 stored column-major with ld 27: op T in place
    c = np.full((33, 40), np.nan, np.float32)
    warplab.gemm(a, b, c, backend="cpu")  # the Python path: makes the wrappers
    expected = a.astype(np.float64) @ b.astype(np.float64)
    c[:] = np.nan
    assert warplab.gemm(_Tensor(a), _Tensor(b), _Tensor(c)).array is c
    np.testing.assert_allclose(c, expected, rtol=1e-4, atol=1e-4)
    c[:] = np.nan
    assert fast.fast_gemm(_Tensor(a), _Tensor(b), _Tensor(c), 0.5, 0.0, False, False, 0) == 0
    np.testing.assert_allclose(c, 0.5 * expected, rtol=1e-4, atol=1e-4)

    v = np.full(a.shape, np.nan, np.float32)
    warplab.vecadd(a, a, v, backend="cpu")
    v[:] = np.nan
    warplab.vecadd(_Tensor(a), _Tensor(a), _Tensor(v))
    np.testing.assert_array_equal(v, a + a)

    t = np.full((20, 33), np.nan, np.float32)
    warplab.transpose(a, t, backend="cpu")
    t[:] = np.nan
    warplab.transpose(_Tensor(a), _Tensor(t))
    np.testing.assert_array_equal(t, a.T)

    s = np.full(1, np.nan, np.float32)
    warplab.reduce(a, "min", out=s, backend="cpu")
    s[:] = np.nan
    warplab.reduce(_Tensor(a), "min", out=_Tensor(s))
    assert s[0] == a.min()


@needs_extension
def test_fast_path_declines_what_is_not_the_plain_case(fast):
    a = np.ones((8, 8), np.float32)
    c = np.zeros((8, 8), np.float32)
    warplab.gemm(a, a, c, backend="cpu")
    A, C = _Tensor(a), _Tensor(c)
    assert fast.fast_gemm(A, A, C, 1.0, 0.0, False, False, 0) == 0
    declined = [
        (a, A, C),  # not the tensor type
        (A, _Tensor(a, device=98), C),  # another device
        (A, _Tensor(a.astype(np.float64)), C),  # mixed dtypes
        (A, A, _Tensor(np.zeros((8, 9), np.float32))),  # the wrong shape (and no wrapper)
        (A, A, _Tensor(np.zeros((8, 8), np.float32))),  # memory not wrapped yet
        (A, _Tensor(a[:, ::2]), C),  # strides warplab cannot take in place
        (_Tensor(np.ones((8, 0), np.float32)), _Tensor(np.ones((0, 8), np.float32)), C),  # k = 0
    ]
    for x, y, z in declined:
        assert fast.fast_gemm(x, y, z, 1.0, 0.0, False, False, 0) is None
    assert fast.fast_vecadd(_Tensor(a[:, ::2]), _Tensor(a[:, ::2]), _Tensor(c[:, :4])) is None
    assert fast.fast_transpose(A, _Tensor(c[:, :4])) is None
    assert fast.fast_reduce(A, 0, _Tensor(np.zeros(2, np.float32))) is None
    # Declined calls still give the Python path's errors.
    with pytest.raises(ValueError, match="inner sizes"):
        warplab.gemm(A, _Tensor(np.ones((7, 8), np.float32)), C)


@needs_extension
def test_fast_path_returns_the_library_error(fast):
    x = np.arange(16, dtype=np.float32)
    ctx = warplab.context("cpu")
    for view in (x[:8], x[1:9], x[2:10]):
        ctx._wrap(view.ctypes.data, 32)
    result = fast.fast_vecadd(_Tensor(x[:8]), _Tensor(x[1:9]), _Tensor(x[2:10]))
    assert result[0] == warplab.Status.INVALID_ARGUMENT and result[1] == ctx.handle
    with pytest.raises(warplab.Error, match="overlaps"):
        warplab.vecadd(_Tensor(x[:8]), _Tensor(x[1:9]), _Tensor(x[2:10]))
