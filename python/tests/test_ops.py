"""Every operation on NumPy arrays, on the cpu backend (in place) and on
opencl (PoCL in CI: explicit copies), against NumPy in double precision; and
every error path: TypeError for a dtype, ValueError for strides or shapes,
warplab.Error for what the C library refuses."""

import numpy as np
import pytest

import warplab

rng = np.random.default_rng(1234)


def rand(*shape, dtype=np.float32):
    return rng.standard_normal(shape).astype(dtype)


def poisoned(*shape, dtype=np.float32):
    return np.full(shape, np.nan, dtype=dtype)


# --- vecadd ---------------------------------------------------------------


@pytest.mark.parametrize("n", [1, 7, 1000, 4099])
def test_vecadd(backend, n):
    a, b = rand(n), rand(n)
    out = poisoned(n)
    got = warplab.vecadd(a, b, out, backend=backend)
    assert got is out
    np.testing.assert_array_equal(out, a + b)


def test_vecadd_new_output_and_in_place(backend):
    a, b = rand(3, 5), rand(3, 5)
    c = warplab.vecadd(a, b, backend=backend)
    assert c.shape == (3, 5) and c.dtype == np.float32
    np.testing.assert_array_equal(c, a + b)
    expected = a + b
    pointer = a.ctypes.data
    assert warplab.vecadd(a, b, out=a, backend=backend) is a
    assert a.ctypes.data == pointer
    np.testing.assert_array_equal(a, expected)


def test_vecadd_empty(backend):
    a = np.zeros(0, np.float32)
    assert warplab.vecadd(a, a, backend=backend).shape == (0,)


def test_vecadd_cpu_works_in_place_without_copies():
    # The cpu backend runs on the NumPy memory itself: a view into a larger
    # array is written where it lies, and nothing around it is touched.
    big = poisoned(100)
    a, b = rand(10), rand(10)
    out = big[40:50]
    warplab.vecadd(a, b, out, backend="cpu")
    np.testing.assert_array_equal(big[40:50], a + b)
    assert np.isnan(big[:40]).all() and np.isnan(big[50:]).all()


def test_vecadd_errors():
    a = rand(8)
    with pytest.raises(TypeError, match="float64"):
        warplab.vecadd(a.astype(np.float64), a)
    with pytest.raises(TypeError, match="int32"):
        warplab.vecadd(a, a, np.zeros(8, np.int32))
    with pytest.raises(TypeError, match="must be an array"):
        warplab.vecadd([1.0, 2.0], a)
    with pytest.raises(ValueError, match="not contiguous"):
        warplab.vecadd(rand(16)[::2], a)
    with pytest.raises(ValueError, match="elements"):
        warplab.vecadd(a, rand(9))
    with pytest.raises(ValueError, match="out has"):
        warplab.vecadd(a, a, rand(9))
    frozen = rand(8)
    frozen.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        warplab.vecadd(a, a, frozen)
    with pytest.raises(ValueError, match="backend"):
        warplab.vecadd(a, a, backend="vulkan")


def test_vecadd_partial_overlap_is_a_warplab_error(backend):
    # out overlapping an input without being it: refused by the C library.
    big = rand(20)
    with pytest.raises(warplab.Error) as info:
        warplab.vecadd(big[0:10], rand(10), big[1:11], backend="cpu")
    assert info.value.status == warplab.Status.INVALID_ARGUMENT
    assert "warplab_vecadd" in info.value.message and "overlaps" in info.value.message


# --- reduce ---------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.int32, np.float32, np.float64])
@pytest.mark.parametrize("op", ["sum", "min", "max"])
def test_reduce(backend, dtype, op):
    n = 10007
    if dtype == np.int32:
        x = rng.integers(-1000, 1000, n).astype(np.int32)
    else:
        x = rand(n, dtype=dtype)
    got = warplab.reduce(x, op, backend=backend)
    expected = {"sum": x.astype(np.float64).sum(), "min": x.min(), "max": x.max()}[op]
    if dtype == np.int32 or op != "sum":
        assert got == expected
    else:
        eps = np.finfo(dtype).eps
        assert abs(got - expected) <= n * eps * np.abs(x).astype(np.float64).sum()


def test_reduce_identities_and_nan(backend):
    empty = np.zeros(0, np.float32)
    assert warplab.reduce(empty, "sum", backend=backend) == 0
    assert warplab.reduce(empty, "min", backend=backend) == np.inf
    assert warplab.reduce(np.zeros(0, np.int32), "max", backend=backend) == np.iinfo(np.int32).min
    x = rand(1000)
    x[500] = np.nan
    assert np.isnan(warplab.reduce(x, "max", backend=backend))


def test_reduce_2d_contiguous_and_to_out(backend):
    x = rand(64, 33)
    out = np.zeros(1, np.float32)
    assert warplab.reduce(x, "max", out=out, backend=backend) is out
    assert out[0] == x.max()


def test_reduce_errors():
    x = rand(10)
    with pytest.raises(ValueError, match="op must be"):
        warplab.reduce(x, "mean")
    with pytest.raises(TypeError, match="float16"):
        warplab.reduce(x.astype(np.float16))
    with pytest.raises(TypeError, match="int64"):
        warplab.reduce(np.arange(10))
    with pytest.raises(ValueError, match="not contiguous"):
        warplab.reduce(rand(10, 10)[:, 1])
    with pytest.raises(ValueError, match="one element"):
        warplab.reduce(x, out=np.zeros(2, np.float32))
    with pytest.raises(TypeError, match="float64"):
        warplab.reduce(x, out=np.zeros(1, np.float64))
    # The result's place inside the input: the C library refuses it.
    with pytest.raises(warplab.Error) as info:
        warplab.reduce(x, out=x[3:4], backend="cpu")
    assert info.value.status == warplab.Status.INVALID_ARGUMENT


# --- transpose ------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(1, 1), (3, 5), (64, 33), (129, 257)])
def test_transpose(backend, dtype, shape):
    x = rand(*shape, dtype=dtype)
    out = poisoned(shape[1], shape[0], dtype=dtype)
    assert warplab.transpose(x, out, backend=backend) is out
    np.testing.assert_array_equal(out, x.T)


def test_transpose_row_strided_views_in_place(backend):
    # Padded rows on both sides: the padding is left untouched.
    src = rand(20, 40)
    x = src[2:12, 5:25]  # 10 x 20, rows 40 apart
    dst = poisoned(30, 16)
    out = dst[:20, 3:13]  # 20 x 10, rows 16 apart
    warplab.transpose(x, out, backend=backend)
    np.testing.assert_array_equal(out, x.T)
    dst[:20, 3:13] = 0
    assert np.isnan(dst[:20, :3]).all() and np.isnan(dst[20:]).all()
    assert np.isnan(dst[:20, 13:]).all()


def test_transpose_new_output_and_empty(backend):
    x = rand(4, 6)
    np.testing.assert_array_equal(warplab.transpose(x, backend=backend), x.T)
    assert warplab.transpose(np.zeros((0, 5), np.float32), backend=backend).shape == (5, 0)


def test_transpose_errors():
    x = rand(4, 6)
    with pytest.raises(TypeError, match="int32"):
        warplab.transpose(x.astype(np.int32))
    with pytest.raises(ValueError, match="2-D"):
        warplab.transpose(rand(8))
    with pytest.raises(ValueError, match="columns must be adjacent"):
        warplab.transpose(np.asfortranarray(x))
    with pytest.raises(ValueError, match="columns must be adjacent"):
        warplab.transpose(x, np.zeros((6, 4), np.float32, order="F"))
    with pytest.raises(ValueError, match="must be 6x4"):
        warplab.transpose(x, np.zeros((4, 6), np.float32))
    with pytest.raises(TypeError, match="float64"):
        warplab.transpose(x, np.zeros((6, 4), np.float64))
    # out overlapping in: the C library refuses it.
    big = np.zeros(100, np.float32)
    with pytest.raises(warplab.Error, match="overlaps") as info:
        warplab.transpose(big[:24].reshape(4, 6), big[10:34].reshape(6, 4), backend="cpu")
    assert info.value.status == warplab.Status.INVALID_ARGUMENT


# --- gemm -----------------------------------------------------------------


def reference(a, b, alpha=1.0, beta=0.0, c=None):
    out = alpha * (a.astype(np.float64) @ b.astype(np.float64))
    if beta:
        out += beta * c.astype(np.float64)
    return out


def assert_gemm(got, expected, k, dtype=np.float32, scale=None):
    # The header's bound, loosely: k u summed magnitudes (u of the sums' type).
    u = 2.0**-23
    bound = (k + 2) * u * (scale if scale is not None else np.abs(expected)).max() + 1e-6
    if dtype != np.float32 and got.dtype != np.float32:
        bound += np.abs(expected).max() * 2.0**-10
    assert np.all(np.abs(got.astype(np.float64) - expected) <= bound * 4 + 1e-5)


@pytest.mark.parametrize("m,n,k", [(1, 1, 1), (7, 5, 3), (64, 48, 33), (1, 100, 17),
                                   (33, 1, 65), (3, 4, 0)])
@pytest.mark.parametrize("trans_a", [False, True])
@pytest.mark.parametrize("trans_b", [False, True])
def test_gemm_layouts(backend, m, n, k, trans_a, trans_b):
    a = rand(m, k)
    b = rand(k, n)
    a_arg = np.ascontiguousarray(a.T) if trans_a else a
    b_arg = np.ascontiguousarray(b.T) if trans_b else b
    out = poisoned(m, n)
    if k == 0:
        out[:] = 1.0
        warplab.gemm(a_arg, b_arg, out, beta=2.0, trans_a=trans_a, trans_b=trans_b,
                     backend=backend)
        np.testing.assert_array_equal(out, 2.0)
        return
    got = warplab.gemm(a_arg, b_arg, out, trans_a=trans_a, trans_b=trans_b, backend=backend)
    assert got is out
    assert_gemm(out, reference(a, b), k,
                scale=np.abs(a).astype(np.float64) @ np.abs(b).astype(np.float64))


def test_gemm_transposed_views_become_op_flags(backend):
    # a.T and a Fortran-ordered array are read in place as op T.
    a = rand(20, 30)
    b = rand(40, 30)
    got = warplab.gemm(a, b.T, backend=backend)  # b.T: column-major view
    assert_gemm(got, reference(a, b.T), 30)
    fa = np.asfortranarray(rand(9, 11))
    got = warplab.gemm(fa, rand(11, 4), backend=backend)
    assert got.shape == (9, 4)


def test_gemm_alpha_beta_and_padded_leading_dimensions(backend):
    m, n, k = 13, 17, 19
    a_full, b_full = rand(m, k + 5), rand(k, n + 3)
    a, b = a_full[:, 2:2 + k], b_full[:, :n]
    c_full = rand(m, n + 7)
    c = c_full[:, 4:4 + n]
    c0 = c.copy()
    pad = c_full.copy()
    warplab.gemm(a, b, c, alpha=0.5, beta=-1.5, backend=backend)
    assert_gemm(c, reference(a, b, 0.5, -1.5, c0), k,
                scale=0.5 * np.abs(a) @ np.abs(b) + 1.5 * np.abs(c0))
    np.testing.assert_array_equal(c_full[:, :4], pad[:, :4])
    np.testing.assert_array_equal(c_full[:, 4 + n:], pad[:, 4 + n:])


def test_gemm_float16_and_float32_out(backend):
    a, b = rand(16, 24, dtype=np.float16), rand(24, 8, dtype=np.float16)
    half = warplab.gemm(a, b, backend=backend)
    assert half.dtype == np.float16
    single = warplab.gemm(a, b, out_dtype="float32", backend=backend)
    assert single.dtype == np.float32
    expected = reference(a, b)
    assert np.abs(single - expected).max() <= 24 * 2.0**-22 * (np.abs(a).astype(float) @ np.abs(b)).max()
    assert np.abs(half.astype(np.float64) - expected).max() <= 2.0**-10 * np.abs(expected).max() + 1e-2


def test_gemm_tf32(backend):
    a, b = rand(32, 64), rand(64, 16)
    got = warplab.gemm(a, b, compute="tf32", backend=backend)
    expected = reference(a, b)
    scale = (np.abs(a).astype(np.float64) @ np.abs(b)).max()
    assert np.abs(got - expected).max() <= (66 * 2.0**-23 + 2.0**-9 + 2.0**-20) * scale


def test_gemm_errors():
    a, b = rand(4, 5), rand(5, 6)
    with pytest.raises(TypeError, match="int32"):
        warplab.gemm(a.astype(np.int32), b)
    with pytest.raises(TypeError, match="float64"):
        warplab.gemm(a.astype(np.float64), b.astype(np.float64))
    with pytest.raises(TypeError, match="b: dtype float16"):
        warplab.gemm(a, b.astype(np.float16))
    with pytest.raises(TypeError, match="out: dtype float64"):
        warplab.gemm(a, b, np.zeros((4, 6), np.float64))
    with pytest.raises(TypeError, match="out_dtype"):
        warplab.gemm(a, b, np.zeros((4, 6), np.float32), out_dtype="float16")
    with pytest.raises(ValueError, match="inner sizes"):
        warplab.gemm(a, rand(4, 6))
    with pytest.raises(ValueError, match="must be 4x6"):
        warplab.gemm(a, b, np.zeros((6, 4), np.float32))
    with pytest.raises(ValueError, match="beta"):
        warplab.gemm(a, b, beta=1.0)
    with pytest.raises(ValueError, match="compute"):
        warplab.gemm(a, b, compute="int8")
    with pytest.raises(ValueError, match="row-major .* or column-major"):
        warplab.gemm(rand(8, 10)[::2, ::2], b)
    with pytest.raises(ValueError, match="columns must be adjacent"):
        warplab.gemm(a, b, np.zeros((4, 6), np.float32, order="F"))
    with pytest.raises(ValueError, match="2-D"):
        warplab.gemm(rand(5), b)
    # What only the C library knows: NaN alpha, TF32 on 16-bit inputs.
    with pytest.raises(warplab.Error, match="finite") as info:
        warplab.gemm(a, b, alpha=float("nan"), backend="cpu")
    assert info.value.status == warplab.Status.INVALID_ARGUMENT
    with pytest.raises(warplab.Error) as info:
        warplab.gemm(a.astype(np.float16), b.astype(np.float16), compute="tf32", backend="cpu")
    assert info.value.status == warplab.Status.INVALID_ARGUMENT
    assert info.value.message.startswith("warplab_gemm_ex")


# --- contexts, devices, errors ---------------------------------------------


def test_context_and_devices(backend):
    with warplab.Context(backend) as ctx:
        assert ctx.backend == backend
        assert ctx.device["name"]
        x = rand(100)
        assert warplab.reduce(x, "max", context=ctx) == x.max()
        ctx.synchronize()
    assert warplab.devices(backend)[0]["backend"] == backend


def test_unavailable_backends_raise_warplab_error():
    missing = [b for b in ("cuda", "opencl") if b not in warplab.backends()]
    if "cuda" in warplab.backends():
        try:
            warplab.Context("cuda")
            pytest.skip("a CUDA GPU is present")
        except warplab.Error as e:
            assert e.status in (warplab.Status.NO_DEVICE, warplab.Status.BACKEND,
                                warplab.Status.BACKEND_UNAVAILABLE)
            assert e.message
    for name in missing:
        with pytest.raises(warplab.Error) as info:
            warplab.Context(name)
        assert info.value.status == warplab.Status.BACKEND_UNAVAILABLE


def test_cpu_has_no_stream():
    with pytest.raises(warplab.Error) as info:
        warplab.context("cpu").set_stream(5)
    assert info.value.status == warplab.Status.UNSUPPORTED
    assert "stream" in info.value.message
    with pytest.raises(TypeError, match="stream"):
        warplab.context("cpu").set_stream("fast")


def test_error_carries_status_and_text():
    e = warplab.Error(warplab.Status.UNSUPPORTED, "warplab_x: why")
    assert e.status is warplab.Status.UNSUPPORTED and e.message == "warplab_x: why"
    assert "UNSUPPORTED" in str(e) and "why" in str(e)
    assert warplab.version() == warplab.__version__


# --- interchange protocols on the host --------------------------------------


class DLPackOnly:
    """An array seen through __dlpack__ alone (as a JAX CPU array would be)."""

    def __init__(self, array):
        self.array = array

    def __dlpack__(self, stream=None):
        return self.array.__dlpack__()

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()


class InterfaceOnly:
    def __init__(self, array):
        self.__array_interface__ = array.__array_interface__
        self.array = array


def test_dlpack_and_array_interface_inputs():
    x = rand(4, 6)
    out = poisoned(6, 4)
    warplab.transpose(DLPackOnly(x), InterfaceOnly(out), backend="cpu")
    np.testing.assert_array_equal(out, x.T)
    strided = rand(8, 12)[::2, :6]
    assert warplab.transpose(DLPackOnly(strided), backend="cpu").shape == (6, 4)
    with pytest.raises(TypeError, match="int64"):
        warplab.reduce(DLPackOnly(np.arange(5)))


def test_cuda_array_interface_without_gpu():
    # A device array on a machine without a usable CUDA GPU: a warplab.Error
    # from the context, never a crash.
    if "cuda" in warplab.backends():
        try:
            warplab.Context("cuda")
            pytest.skip("a CUDA GPU is present (tests/test_gpu.py covers it)")
        except warplab.Error:
            pass

    class Fake:
        __cuda_array_interface__ = {"shape": (4,), "typestr": "<f4", "data": (1 << 40, False),
                                    "version": 3, "strides": None, "stream": None}

    with pytest.raises(warplab.Error):
        warplab.reduce(Fake())


def test_mixed_devices_are_refused():
    class Fake:
        __cuda_array_interface__ = {"shape": (4,), "typestr": "<f4", "data": (1 << 40, False),
                                    "version": 3, "strides": None}

    with pytest.raises(ValueError, match="different devices"):
        warplab.vecadd(rand(4), Fake())
