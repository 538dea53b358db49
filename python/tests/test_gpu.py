"""On a CUDA GPU: torch and CuPy arrays wrapped in place (the data pointer
unchanged, no allocation beyond warplab's workspace), the producer's stream
(torch's current stream, CuPy's, non-default ones), asynchrony, and results
against torch.matmul / torch.sum / CuPy. Skipped without torch or CuPy or a
GPU."""

import pytest

import warplab


def _torch():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA GPU (torch.cuda.is_available() is False)")
    if "cuda" not in warplab.backends():
        pytest.skip("the library was built without the cuda backend")
    return torch


@pytest.fixture
def torch():
    return _torch()


@pytest.fixture
def cupy():
    cp = pytest.importorskip("cupy")
    try:
        if cp.cuda.runtime.getDeviceCount() < 1:
            pytest.skip("no CUDA GPU")
    except Exception as e:  # CuPy raises its own error without a driver
        pytest.skip(f"no CUDA GPU: {e}")
    if "cuda" not in warplab.backends():
        pytest.skip("the library was built without the cuda backend")
    return cp


def gemm_bound(torch, a, b, k, u=2.0**-23):
    scale = a.abs().double() @ b.abs().double()
    return (k + 2) * u * scale * 4 + 1e-6


@pytest.mark.parametrize("m,n,k", [(1, 1, 1), (7, 5, 3), (256, 192, 65), (1, 4096, 512),
                                   (1000, 1, 333), (513, 1027, 257), (2048, 2048, 2048)])
def test_gemm_vs_torch_matmul(torch, m, n, k):
    a = torch.randn(m, k, device="cuda")
    b = torch.randn(k, n, device="cuda")
    out = torch.full((m, n), float("nan"), device="cuda")
    pointer = out.data_ptr()
    assert warplab.gemm(a, b, out) is out
    assert out.data_ptr() == pointer
    torch.cuda.synchronize()
    expected = a.double() @ b.double()
    assert ((out.double() - expected).abs() <= gemm_bound(torch, a, b, k)).all()
    got = torch.matmul(a, b)  # beside the vendor: both within the bound
    assert ((got.double() - expected).abs() <= gemm_bound(torch, a, b, k) * 1e3).all()


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_gemm_16bit_and_tf32(torch, dtype):
    dt = getattr(torch, dtype)
    a = torch.randn(300, 200, device="cuda", dtype=dt)
    b = torch.randn(200, 100, device="cuda", dtype=dt)
    c = warplab.gemm(a, b, out_dtype="float32")
    assert c.dtype == torch.float32
    expected = a.double() @ b.double()
    assert ((c.double() - expected).abs() <= gemm_bound(torch, a, b, 200, 2.0**-23)).all()
    c16 = warplab.gemm(a, b)
    assert c16.dtype == dt
    rel = 2.0**-8 if dtype == "bfloat16" else 2.0**-11
    assert ((c16.double() - expected).abs() <= rel * expected.abs() + gemm_bound(torch, a, b, 200)
            * 2).all()
    x = torch.randn(512, 256, device="cuda")
    y = torch.randn(256, 384, device="cuda")
    t = warplab.gemm(x, y, compute="tf32")
    bound = (258 * 2.0**-23 + 2.0**-9 + 2.0**-20) * (x.abs().double() @ y.abs().double())
    assert ((t.double() - x.double() @ y.double()).abs() <= bound).all()


def test_gemm_views_in_place(torch):
    # Transposed views (op flags), padded row-strided views (leading
    # dimensions), alpha/beta: nothing is copied, every pointer is the
    # caller's.
    a_full = torch.randn(96, 80, device="cuda")
    a = a_full[:, 8:72]  # 96 x 64, rows 80 apart
    b = torch.randn(50, 64, device="cuda").T  # 64 x 50, column-major view
    c_full = torch.randn(96, 64, device="cuda")
    c = c_full[:, 7:57]  # 96 x 50, rows 64 apart
    c0 = c.clone()
    before = torch.cuda.memory_allocated()
    warplab.gemm(a, b, c, alpha=0.5, beta=2.0)
    torch.cuda.synchronize()
    assert torch.cuda.memory_allocated() == before
    expected = 0.5 * (a.double() @ b.double()) + 2.0 * c0.double()
    assert ((c.double() - expected).abs() <= 1e-3).all()
    with pytest.raises(ValueError):
        warplab.gemm(a_full[::2, ::2], b[:40])
    with pytest.raises(ValueError, match="columns must be adjacent"):
        warplab.gemm(a, b, torch.empty(50, 96, device="cuda").T)


def test_no_allocation_beyond_workspace(torch):
    a = torch.randn(1024, 1024, device="cuda")
    out = torch.empty_like(a)
    warplab.gemm(a, a, out)  # grows the workspace once
    warplab.vecadd(a, a, out)
    warplab.transpose(a, out)
    torch.cuda.synchronize()
    free_before = torch.cuda.mem_get_info()[0]
    allocated = torch.cuda.memory_allocated()
    for _ in range(10):
        warplab.gemm(a, a, out)
        warplab.vecadd(a, a, out)
        warplab.transpose(a, out)
    torch.cuda.synchronize()
    assert torch.cuda.mem_get_info()[0] == free_before
    assert torch.cuda.memory_allocated() == allocated


def test_vecadd_reduce_transpose_vs_torch(torch):
    x = torch.randn(1 << 20, device="cuda")
    y = torch.randn(1 << 20, device="cuda")
    assert torch.equal(warplab.vecadd(x, y), x + y)
    total = warplab.reduce(x)
    assert abs(total - x.double().sum().item()) <= (1 << 20) * 2.0**-23 * x.abs().sum().item()
    assert warplab.reduce(x, "max") == x.max().item()
    i = torch.randint(-1000, 1000, (12345,), device="cuda", dtype=torch.int32)
    assert warplab.reduce(i) == i.sum().item()
    out = torch.zeros(1, device="cuda", dtype=torch.int32)
    warplab.reduce(i, "min", out=out)
    assert out.item() == i.min().item()
    m = torch.randn(1001, 333, device="cuda", dtype=torch.float64)
    assert torch.equal(warplab.transpose(m), m.T)
    padded = torch.randn(100, 80, device="cuda")[:, 3:70]
    assert torch.equal(warplab.transpose(padded), padded.T)


def test_errors_on_gpu(torch):
    x = torch.randn(16, device="cuda")
    with pytest.raises(TypeError, match="int64"):
        warplab.reduce(torch.arange(4, device="cuda"))
    with pytest.raises(TypeError, match="float64"):
        warplab.vecadd(x.double(), x.double())
    with pytest.raises(ValueError, match="contiguous"):
        warplab.vecadd(torch.randn(32, device="cuda")[::2], x)
    with pytest.raises(ValueError, match="different devices"):
        warplab.vecadd(x, x.cpu())
    with pytest.raises(warplab.Error, match="finite") as info:
        warplab.gemm(x.view(4, 4), x.view(4, 4), alpha=float("inf"))
    assert info.value.status == warplab.Status.INVALID_ARGUMENT


def test_torch_current_stream_orders_and_is_asynchronous(torch):
    # On a non-default stream, the stream is busy (a sleep kernel), then
    # torch fills x: warplab's call must run after both, on that stream
    # (else it reads the zeros), and return before the work is done.
    stream = torch.cuda.Stream()
    x = torch.zeros(1 << 22, device="cuda")
    out = torch.full_like(x, float("nan"))
    total = torch.zeros(1, device="cuda")
    with torch.cuda.stream(stream):  # workspace grown at these sizes first (that call may wait)
        warplab.vecadd(x, x, out)
        warplab.reduce(x, out=total)
    torch.cuda.synchronize()
    out.fill_(float("nan"))
    with torch.cuda.stream(stream):
        torch.cuda._sleep(200_000_000)
        x.fill_(1.0)
        warplab.vecadd(x, x, out)
        done = torch.cuda.Event()
        done.record(stream)
    assert not done.query()  # returned while the stream still sleeps
    stream.synchronize()
    assert (out == 2.0).all()
    # A reduction into a device tensor, on the same stream, after the sleep.
    with torch.cuda.stream(stream):
        torch.cuda._sleep(100_000_000)
        x.fill_(0.5)
        warplab.reduce(x, out=total)
    stream.synchronize()
    assert total.item() == 0.5 * x.numel()
    # An explicit stream= wins.
    other = torch.cuda.Stream()
    with torch.cuda.stream(other):
        torch.cuda._sleep(100_000_000)
        x.fill_(3.0)
    warplab.vecadd(x, x, out, stream=other)
    other.synchronize()
    assert (out == 6.0).all()


def test_plain_torch_calls_take_the_fast_path(torch):
    # The extension's fast path (_calls.c) runs the plain call once the
    # Python path has wrapped the memory; its result is the Python path's.
    from warplab import _lib

    if _lib.calls is None:
        pytest.skip("the _calls extension was not built or found")
    a = torch.randn(300, 200, device="cuda")
    b = torch.randn(128, 200, device="cuda").T  # op T read in place
    c = torch.full((300, 128), float("nan"), device="cuda")
    warplab.gemm(a, b, c)
    expected = c.clone()
    c.fill_(float("nan"))
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        assert _lib.calls.fast_gemm(a, b, c, 1.0, 0.0, False, False, 0) == 0
    stream.synchronize()
    assert torch.equal(c, expected)
    total = torch.zeros(1, device="cuda")
    warplab.reduce(a, out=total)
    assert _lib.calls.fast_reduce(a, 0, total) == 0
    t = torch.empty(200, 300, device="cuda")
    warplab.transpose(a, t)
    assert _lib.calls.fast_transpose(a, t) == 0
    assert torch.equal(t, a.T)
    # Not the plain case: a float64 gemm is the Python path's TypeError.
    assert _lib.calls.fast_gemm(a.double(), b.double(), c.double(), 1.0, 0.0, False, False,
                                0) is None


def test_scan_and_histogram_vs_torch(torch):
    x = torch.randn(1 << 20, device="cuda")
    got = warplab.scan(x)
    exact = torch.cumsum(x.double(), 0)
    bound = torch.arange(1, x.numel() + 1, device="cuda") * 2.0**-23 * torch.cumsum(
        x.abs().double(), 0)
    assert ((got.double() - exact).abs() <= bound + 1e-30).all()
    i = torch.randint(-1000, 1000, (70001,), device="cuda", dtype=torch.int32)
    expected = torch.cummax(i, 0).values
    warplab.scan(i, "max", out=i)  # in place, on torch's current stream
    assert torch.equal(i, expected)
    b = torch.randint(0, 256, (1 << 22,), device="cuda", dtype=torch.uint8)
    if not hasattr(torch, "uint32"):
        with pytest.raises(TypeError, match="uint32"):
            warplab.histogram(b, 256, 0, 256)
        return
    counts = warplab.histogram(b, 256, 0, 256)
    assert counts.dtype == torch.uint32
    assert torch.equal(counts.view(torch.int32).long(), torch.bincount(b.long(), minlength=256))


def test_default_stream(torch):
    a = torch.randn(256, 256, device="cuda")
    c = warplab.gemm(a, a)  # torch's default stream (the legacy one)
    d = c + 1.0  # a torch kernel on the default stream, after warplab's
    torch.cuda.synchronize()
    assert torch.allclose(d - 1.0, a @ a, rtol=1e-4, atol=1e-3)


class DLPackOnly:
    def __init__(self, array):
        self.array = array

    def __dlpack__(self, stream=None):
        return self.array.__dlpack__(stream=stream)

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()


def test_dlpack_producer(torch):
    x = torch.randn(1000, 300, device="cuda")
    out = torch.empty(300, 1000, device="cuda")
    warplab.transpose(DLPackOnly(x), DLPackOnly(out))
    torch.cuda.synchronize()
    assert torch.equal(out, x.T)
    with pytest.raises(TypeError, match="int64"):
        warplab.reduce(DLPackOnly(torch.arange(5, device="cuda")))


def test_cupy_arrays_and_streams(cupy):
    cp = cupy
    a = cp.random.standard_normal((333, 129), dtype=cp.float32)
    b = cp.random.standard_normal((129, 257), dtype=cp.float32)
    out = cp.full((333, 257), cp.nan, dtype=cp.float32)
    pointer = out.data.ptr
    warplab.gemm(a, b, out)
    cp.cuda.Device().synchronize()
    assert out.data.ptr == pointer
    expected = a.astype(cp.float64) @ b.astype(cp.float64)
    assert float(cp.abs(out - expected).max()) <= 1e-3
    stream = cp.cuda.Stream(non_blocking=True)
    with stream:
        x = cp.arange(1 << 20, dtype=cp.float32)
        y = warplab.vecadd(x, x)  # CuPy's current stream, from its __cuda_array_interface__
        total = warplab.reduce(x)
    stream.synchronize()
    assert bool((y == 2 * x).all())
    assert abs(total - float(x.astype(cp.float64).sum())) <= 1e-6 * float(x.sum()) + 1
    t = warplab.transpose(a)
    cp.cuda.Device().synchronize()
    assert bool((t == a.T).all())


def test_allreduce_across_gpus(torch):
    count = torch.cuda.device_count()
    if count < 2:
        pytest.skip(f"all-reduce needs 2 GPUs ({count} here)")
    tensors = [torch.full((100003,), float(r + 1), device=f"cuda:{r}") for r in range(count)]
    warplab.allreduce(tensors)
    for t in tensors:
        torch.cuda.synchronize(t.device)
        assert (t == count * (count + 1) / 2).all()


def test_allreduce_errors_single_gpu(torch):
    x = torch.randn(16, device="cuda")
    with pytest.raises(ValueError, match="one array per GPU"):
        warplab.allreduce([x, torch.randn(16, device="cuda")])
    with pytest.raises(TypeError, match="float64"):
        warplab.allreduce([x.double()])


def test_numpy_on_cuda_through_copies(torch):
    np = pytest.importorskip("numpy")
    a = np.random.default_rng(5).standard_normal((130, 70)).astype(np.float32)
    b = np.random.default_rng(6).standard_normal((70, 90)).astype(np.float32)
    c = warplab.gemm(a, b, backend="cuda")
    assert isinstance(c, np.ndarray)
    assert np.abs(c - a.astype(np.float64) @ b).max() <= 1e-3
    np.testing.assert_array_equal(warplab.transpose(a, backend="cuda"), a.T)
    assert warplab.reduce(a, "max", backend="cuda") == a.max()
