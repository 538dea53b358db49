"""Shared fixtures: the host backends the loaded library can run (cpu
always; opencl where it was compiled in and has a device, PoCL in CI)."""

import pytest

import warplab


def _opencl_present():
    if "opencl" not in warplab.backends():
        return "the library was built without the opencl backend"
    try:
        warplab.context("opencl")
    except warplab.Error as e:
        return f"no OpenCL device: {e}"
    return None


_OPENCL_MISSING = _opencl_present()


@pytest.fixture(params=["cpu", "opencl"])
def backend(request):
    """A host-array backend: cpu (in place) or opencl (explicit copies)."""
    if request.param == "opencl" and _OPENCL_MISSING:
        pytest.skip(_OPENCL_MISSING)
    return request.param
