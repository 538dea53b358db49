"""warplab from Python.

The library's operations on the caller's arrays without copies (torch,
CuPy, anything with __cuda_array_interface__ or __dlpack__; NumPy on the cpu
backend in place, on cuda/opencl through explicit copies), and the lab as
data: ladders, lessons, rung sources, benchmarks and probes.

    import warplab, torch
    a = torch.randn(4096, 4096, device="cuda")
    c = warplab.gemm(a, a.T)                    # on torch's current stream
    rows = warplab.bench("reduce", backend="cpu", sizes=["2^20"])
    rows.to_pandas()

Every failed warplab call raises warplab.Error (status, message).
"""

from ._lib import LIBRARY_ENV, Error, Status, call_path, library_path, version
from ._ops import (
    Context,
    allreduce,
    backends,
    context,
    devices,
    gemm,
    histogram,
    reduce,
    scan,
    transpose,
    vecadd,
)
from ._lab import Rows, bench, errata, ladders, lessons, probe, probes, show

__version__ = version()

__all__ = [
    "Context", "Error", "LIBRARY_ENV", "Rows", "Status", "allreduce", "backends", "bench",
    "call_path", "context", "devices", "errata", "gemm", "histogram", "ladders", "lessons",
    "library_path", "probe", "probes", "reduce", "scan", "show", "transpose", "vecadd", "version",
]
