"""The C library through ctypes: loading, prototypes, status codes and errors.

include/warplab.h and include/warplab_lab.h are the stable surface; this
module declares the functions the package calls with their exact C types.
"""

import ctypes
import enum
import os
from ctypes import (
    CFUNCTYPE,
    POINTER,
    Structure,
    c_bool,
    c_char,
    c_char_p,
    c_double,
    c_float,
    c_int,
    c_size_t,
    c_uint,
    c_ulonglong,
    c_void_p,
)

#: The environment variable that names an already built libwarplab.so (for
#: example the one `make` left in build/); it wins over the package's own copy.
LIBRARY_ENV = "WARPLAB_LIBRARY"


class Status(enum.IntEnum):
    """warplab_status (include/warplab.h)."""

    OK = 0
    INVALID_ARGUMENT = 1
    UNKNOWN_NAME = 2
    HOST_OUT_OF_MEMORY = 3
    DEVICE_OUT_OF_MEMORY = 4
    NO_DEVICE = 5
    BACKEND_UNAVAILABLE = 6
    UNSUPPORTED = 7
    VERIFICATION_FAILED = 8
    BACKEND = 9
    IO = 10


class Error(Exception):
    """A warplab call failed: `status` is the Status, `message` the detail
    warplab_last_error gave (sizes, limits, driver messages)."""

    def __init__(self, status, message):
        self.status = Status(status)
        self.message = message
        text = _status_text(status)
        super().__init__(f"{message} [{self.status.name}: {text}]" if message else
                         f"[{self.status.name}: {text}]")


BACKENDS = {"auto": 0, "cuda": 1, "opencl": 2, "cpu": 3}
DTYPES = {"int32": 0, "float32": 1, "float64": 2, "bfloat16": 3, "float16": 4}
DTYPE_SIZES = {0: 4, 1: 4, 2: 8, 3: 2, 4: 2}
REDUCE_OPS = {"sum": 0, "min": 1, "max": 2}
COMPUTE = {"fp32": 0, "tf32": 1}
FORMAT_JSON = 3


class _DeviceInfo(Structure):
    _fields_ = [
        ("backend", c_int),
        ("index", c_int),
        ("gpu", c_int),
        ("name", c_char * 256),
        ("vendor", c_char * 128),
        ("driver_version", c_char * 64),
        ("cc_major", c_int),
        ("cc_minor", c_int),
        ("multiprocessors", c_int),
        ("warp_size", c_int),
        ("max_threads_per_block", c_int),
        ("max_threads_per_multiprocessor", c_int),
        ("max_blocks_per_multiprocessor", c_int),
        ("registers_per_block", c_int),
        ("registers_per_multiprocessor", c_int),
        ("shared_memory_per_block", c_size_t),
        ("shared_memory_per_block_optin", c_size_t),
        ("shared_memory_per_multiprocessor", c_size_t),
        ("l2_cache_bytes", c_size_t),
        ("global_memory_bytes", c_size_t),
        ("memory_bus_width_bits", c_int),
        ("memory_clock_khz", c_int),
        ("core_clock_khz", c_int),
        ("theoretical_bandwidth_gbs", c_double),
        ("fp32_peak_gflops", c_double),
        ("max_block_dim", c_int * 3),
        ("max_grid_dim", c_int * 3),
        ("concurrent_kernels", c_int),
        ("async_engines", c_int),
        ("managed_memory", c_int),
    ]


PROGRESS_FN = CFUNCTYPE(None, c_void_p, c_char_p, c_char_p, c_char_p, c_size_t, c_size_t)
CANCELLED_FN = CFUNCTYPE(c_int, c_void_p)


class _RunOptions(Structure):
    _fields_ = [
        ("ladder", c_char_p),
        ("rungs", c_char_p),
        ("dtype", c_char_p),
        ("op", c_char_p),
        ("sweep", c_int),
        ("sizes", c_char_p),
        ("repeat", c_int),
        ("warmup", c_int),
        ("max_seconds", c_double),
        ("no_flush", c_int),
        ("seed", c_ulonglong),
        ("progress", PROGRESS_FN),
        ("progress_user", c_void_p),
        ("cancelled", CANCELLED_FN),
        ("cancel_user", c_void_p),
    ]


class _RungInfo(Structure):
    _fields_ = [
        ("id", c_char_p),
        ("title", c_char_p),
        ("lesson", c_char_p),
        ("course", c_char_p),
        ("course_value", c_double),
        ("course_unit", c_char_p),
        ("course_device", c_char_p),
        ("course_bound", c_bool),
        ("course_value2", c_double),
        ("course_unit2", c_char_p),
        ("course_device2", c_char_p),
        ("flags", c_uint),
        ("vendor", c_char_p),
    ]


class _Erratum(Structure):
    _fields_ = [(name, c_char_p) for name in
                ("id", "topic", "rung", "seed", "where", "quote", "why", "instead")]


def _package_library():
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.join(here, "libwarplab.so")


def library_path():
    """The libwarplab.so this package loads: $WARPLAB_LIBRARY, else the one
    `pip install` built into the package."""
    return os.environ.get(LIBRARY_ENV) or _package_library()


def _load():
    path = library_path()
    if not os.path.exists(path):
        raise ImportError(
            f"warplab: no libwarplab.so at {path}: install the package with "
            f"`pip install ./python` from the repository (it builds the library), or set "
            f"{LIBRARY_ENV} to a built libwarplab.so (e.g. build/libwarplab.so after `make`)")
    return ctypes.CDLL(path)


lib = _load()
_libc = ctypes.CDLL(None)

vp = c_void_p
sz = c_size_t
_PROTOTYPES = {
    # warplab.h
    "warplab_version": (c_char_p, []),
    "warplab_status_string": (c_char_p, [c_int]),
    "warplab_backend_compiled": (c_int, [c_int]),
    "warplab_devices": (c_int, [c_int, POINTER(_DeviceInfo), sz, POINTER(sz)]),
    "warplab_context_create": (c_int, [c_int, c_int, POINTER(vp)]),
    "warplab_context_destroy": (None, [vp]),
    "warplab_context_backend": (c_int, [vp]),
    "warplab_context_device": (POINTER(_DeviceInfo), [vp]),
    "warplab_last_error": (c_char_p, [vp]),
    "warplab_buffer_create": (c_int, [vp, sz, POINTER(vp)]),
    "warplab_buffer_destroy": (None, [vp]),
    "warplab_buffer_write": (c_int, [vp, sz, vp, sz]),
    "warplab_buffer_read": (c_int, [vp, sz, vp, sz]),
    "warplab_buffer_wrap": (c_int, [vp, vp, sz, POINTER(vp)]),
    "warplab_buffer_view": (c_int, [vp, sz, sz, POINTER(vp)]),
    "warplab_context_native": (vp, [vp]),
    "warplab_context_set_stream": (c_int, [vp, vp]),
    "warplab_context_synchronize": (c_int, [vp]),
    "warplab_vecadd": (c_int, [vp, vp, vp, vp, sz]),
    "warplab_reduce": (c_int, [vp, c_int, c_int, vp, sz, vp]),
    "warplab_reduce_to_buffer": (c_int, [vp, c_int, c_int, vp, sz, vp, sz]),
    "warplab_scan": (c_int, [vp, c_int, c_int, c_int, vp, vp, sz]),
    "warplab_histogram": (c_int, [vp, c_int, vp, sz, sz, c_double, c_double, vp, sz]),
    "warplab_transpose": (c_int, [vp, c_int, sz, sz, vp, sz, vp, sz]),
    "warplab_gemm_ex": (c_int, [vp, c_int, c_int, sz, sz, sz, c_float, vp, c_int, sz, vp, c_int,
                                sz, c_float, vp, c_int, sz, c_int]),
    "warplab_allreduce_group_create": (c_int, [c_int, POINTER(c_int), POINTER(vp), POINTER(vp)]),
    "warplab_allreduce_group_destroy": (None, [vp]),
    "warplab_allreduce": (c_int, [vp, c_int, POINTER(vp), POINTER(vp), sz]),
    "warplab_allreduce_group_algorithm": (c_char_p, [vp]),
    # warplab_lab.h
    "warplab_report_destroy": (None, [vp]),
    "warplab_bench_plan_create": (c_int, [vp, POINTER(_RunOptions), POINTER(vp)]),
    "warplab_bench_plan_rows": (sz, [vp]),
    "warplab_bench_plan_run": (c_int, [vp, POINTER(vp)]),
    "warplab_bench_plan_destroy": (None, [vp]),
    "warplab_report_write": (c_int, [vp, c_int, vp]),
    "warplab_ladder_count": (sz, []),
    "warplab_ladder_name": (c_char_p, [sz]),
    "warplab_ladder_title": (c_char_p, [sz]),
    "warplab_ladder_rung": (c_char_p, [c_char_p, sz, POINTER(c_char_p)]),
    "warplab_rung_describe": (c_int, [c_char_p, c_char_p, POINTER(_RungInfo)]),
    "warplab_ladder_default_sizes": (c_char_p, [c_char_p, c_int]),
    "warplab_ladder_shape_set": (c_char_p, [c_char_p]),
    "warplab_errata_count": (sz, []),
    "warplab_erratum_get": (POINTER(_Erratum), [sz]),
    "warplab_show_write": (c_int, [c_char_p, c_char_p, c_int, vp]),
    "warplab_probe_count": (sz, []),
    "warplab_probe_name": (c_char_p, [sz]),
    "warplab_probe_title": (c_char_p, [sz]),
    "warplab_probe_size_meaning": (c_char_p, [sz]),
    "warplab_probe_supported": (c_int, [c_char_p, c_int, c_char_p, sz]),
    "warplab_probe_run": (c_int, [vp, c_char_p, POINTER(_RunOptions), POINTER(vp)]),
    "warplab_probe_result_destroy": (None, [vp]),
    "warplab_probe_write": (c_int, [POINTER(vp), sz, c_int, vp]),
}
for _name, (_restype, _argtypes) in _PROTOTYPES.items():
    _function = getattr(lib, _name)
    _function.restype = _restype
    _function.argtypes = _argtypes



def _find_calls():
    """The hot-call extension (_calls.c): the package's own (pip install),
    else one built beside $WARPLAB_LIBRARY (a CMake build's); None where
    neither is there or WARPLAB_PYTHON_CALLS=0 (then ctypes makes every
    call)."""
    if os.environ.get("WARPLAB_PYTHON_CALLS", "1") == "0":
        return None
    try:
        from . import _calls as module
    except ImportError:
        import importlib.machinery
        import importlib.util

        module = None
        folder = os.path.dirname(os.path.abspath(library_path()))
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            path = os.path.join(folder, "_calls" + suffix)
            if os.path.exists(path):
                spec = importlib.util.spec_from_file_location("warplab._calls", path)
                module = importlib.util.module_from_spec(spec)
                spec.loader.exec_module(module)
                break
        if module is None:
            return None
    module.bind(*[ctypes.cast(getattr(lib, name), c_void_p).value for name in
                  ("warplab_vecadd", "warplab_reduce_to_buffer", "warplab_transpose",
                   "warplab_gemm_ex", "warplab_context_set_stream")])
    return module


#: The extension that makes the hot calls (None: ctypes makes them).
calls = _find_calls()


def call_path():
    """How the hot calls (vecadd, reduce to a buffer, transpose, gemm,
    binding a stream) reach the library: "extension" or "ctypes"."""
    return "extension" if calls is not None else "ctypes"


_libc.open_memstream.restype = vp
_libc.open_memstream.argtypes = [POINTER(vp), POINTER(sz)]
_libc.fclose.restype = c_int
_libc.fclose.argtypes = [vp]
_libc.free.restype = None
_libc.free.argtypes = [vp]


def _status_text(status):
    text = lib.warplab_status_string(int(status))
    return text.decode() if text else "unknown status"


def last_error(context=None):
    text = lib.warplab_last_error(context)
    return text.decode(errors="replace") if text else ""


def check(status, context=None):
    """Raises Error for a failed status, with warplab_last_error's detail of
    the context (or of the thread, for context-free calls)."""
    if status:
        raise Error(status, last_error(context))


def write_to_string(writer):
    """Calls writer(FILE *) on an in-memory stream and returns what it wrote.
    The status it returns is checked (context-free detail)."""
    data = vp()
    size = sz()
    stream = _libc.open_memstream(ctypes.byref(data), ctypes.byref(size))
    if not stream:
        raise MemoryError("open_memstream failed")
    try:
        status = writer(stream)
    finally:
        _libc.fclose(stream)
        text = ctypes.string_at(data, size.value).decode(errors="replace") if data else ""
        _libc.free(data)
    check(status)
    return text


def version():
    """The linked library's version string."""
    return lib.warplab_version().decode()
