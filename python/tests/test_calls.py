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
