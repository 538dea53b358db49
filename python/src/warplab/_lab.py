"""The lab as data: ladders, lessons, rung sources, benchmarks and probes
(include/warplab_lab.h), as Python lists and dicts."""

import ctypes
import json

from . import _lib
from ._lib import Error, check, lib
from ._ops import context as _context

_ROW_FLAGS = {"host": 1, "vendor": 2, "reference": 4, "unsafe": 8, "transfer": 64}


def _text(value):
    return value.decode(errors="replace") if value else ""


def _kinds(flags):
    return [name for name, bit in _ROW_FLAGS.items() if flags & bit]


def ladders():
    """Every ladder compiled into the library: [{"name", "title", "rungs"}],
    rungs in ladder order."""
    out = []
    for i in range(lib.warplab_ladder_count()):
        name = _text(lib.warplab_ladder_name(i))
        out.append({"name": name, "title": _text(lib.warplab_ladder_title(i)),
                    "rungs": [r["id"] for r in _rungs(name)]})
    return out


def _rungs(ladder):
    encoded = ladder.encode()
    rungs = []
    title = ctypes.c_char_p()
    index = 0
    while True:
        rung = lib.warplab_ladder_rung(encoded, index, ctypes.byref(title))
        if not rung:
            break
        rungs.append({"id": _text(rung), "title": _text(title.value)})
        index += 1
    if not rungs and ladder not in [_text(lib.warplab_ladder_name(i))
                                    for i in range(lib.warplab_ladder_count())]:
        raise Error(_lib.Status.UNKNOWN_NAME, f"no ladder {ladder!r}; the ladders: " +
                    ", ".join(_text(lib.warplab_ladder_name(i))
                              for i in range(lib.warplab_ladder_count())))
    return rungs


def _describe(ladder, rung):
    info = _lib._RungInfo()
    check(lib.warplab_rung_describe(ladder.encode(), rung.encode(), ctypes.byref(info)))
    out = {"id": _text(info.id), "title": _text(info.title), "lesson": _text(info.lesson),
           "course": _text(info.course), "course_value": info.course_value,
           "course_unit": _text(info.course_unit), "course_device": _text(info.course_device),
           "course_bound": bool(info.course_bound), "course_value2": info.course_value2,
           "course_unit2": _text(info.course_unit2), "course_device2": _text(info.course_device2),
           "kind": _kinds(info.flags), "vendor": _text(info.vendor)}
    return out


def lessons(ladder):
    """What each rung of a ladder teaches, in order: a dict per rung (id,
    title, lesson, the course's reference and figure, kind flags, the vendor
    row it is measured against)."""
    return [_describe(ladder, r["id"]) for r in _rungs(ladder)]


def show(ladder, rung, backend="auto"):
    """One rung as data: its lesson (as lessons() gives it), its errata, and
    `source`: the kernel source regions and the diff against the rung below
    on each backend compiled in (or backend's), as `warplab show` prints
    them."""
    info = _describe(ladder, rung)
    kind = _lib.BACKENDS.get(backend)
    if kind is None:
        raise ValueError(f"backend must be one of {', '.join(_lib.BACKENDS)}, not {backend!r}")
    info["source"] = _lib.write_to_string(
        lambda stream: lib.warplab_show_write(ladder.encode(), rung.encode(), kind, stream))
    info["errata"] = [e for e in errata() if e["topic"] == ladder and e["rung"] in ("", rung)]
    return info


def errata():
    """The course's errata, as data (docs/COURSE.md, "Errata")."""
    out = []
    for i in range(lib.warplab_errata_count()):
        entry = lib.warplab_erratum_get(i).contents
        out.append({name: _text(getattr(entry, name)) for name, _ in entry._fields_})
    return out


class Rows(list):
    """A benchmark's or probe's rows: a list of dicts (the JSON report's
    fields), with the report's header in .meta."""

    def __init__(self, rows, meta=None):
        super().__init__(rows)
        self.meta = meta or {}

    _COLUMNS = (("ladder", "ladder"), ("rung", "rung"), ("backend", "backend"),
                ("problem", "problem"), ("median_ms", "ms"), ("gbs", "GB/s"),
                ("gflops", "GFLOP/s"), ("state", "state"))

    def __str__(self):
        """A compact table (print(rows)); the rows stay dicts."""
        columns = [(key, head) for key, head in self._COLUMNS if any(key in r for r in self)]
        if not columns:
            return super().__repr__()

        def cell(row, key):
            value = row.get(key, "")
            return f"{value:.4g}" if isinstance(value, float) else str(value)

        table = [[head for _, head in columns]] + [[cell(r, k) for k, _ in columns] for r in self]
        widths = [max(len(line[i]) for line in table) for i in range(len(columns))]
        return "\n".join("  ".join(text.ljust(w) for text, w in zip(line, widths)).rstrip()
                         for line in table)

    def to_pandas(self):
        """The rows as a pandas DataFrame (needs pandas)."""
        try:
            import pandas
        except ImportError as e:
            raise ImportError("to_pandas needs pandas (pip install pandas)") from e
        return pandas.DataFrame(list(self))


def _sizes_text(sizes):
    if sizes is None:
        return None
    if isinstance(sizes, (str, int)):
        sizes = [sizes]
    parts = []
    for size in sizes:
        if isinstance(size, (tuple, list)):
            parts.append("x".join(str(int(d)) for d in size))
        else:
            parts.append(str(size))
    return ",".join(parts)


def _names_text(names):
    if names is None:
        return None
    if isinstance(names, str):
        return names
    return ",".join(names)


class _Callbacks:
    """The progress and cancellation callbacks of one run. An exception in
    the progress callback (a KeyboardInterrupt included) cancels the run and
    is raised once it has stopped."""

    def __init__(self, progress):
        self.user = progress
        self.error = None
        self.progress = _lib.PROGRESS_FN(self._progress) if progress else _lib.PROGRESS_FN()
        self.cancelled = _lib.CANCELLED_FN(self._cancelled)

    def _progress(self, _user, ladder, rung, problem, done, total):
        if self.error is not None:
            return
        try:
            self.user({"ladder": _text(ladder), "rung": _text(rung), "problem": _text(problem),
                       "done": done, "total": total})
        except BaseException as e:  # noqa: B036 - raised again after the run stops
            self.error = e

    def _cancelled(self, _user):
        try:
            return 1 if self.error is not None else 0
        except BaseException as e:  # noqa: B036 - a Ctrl-C that lands here stops the run too
            self.error = e
            return 1


def _options(callbacks, *, ladder=None, rungs=None, dtype=None, op=None, sizes=None, repeat=0,
             warmup=0, max_seconds=0.0, flush=True, seed=0, sweep=False):
    keep = []

    def enc(value):
        if value is None:
            return None
        data = str(value).encode()
        keep.append(data)
        return data

    options = _lib._RunOptions()
    options.ladder = enc(ladder)
    options.rungs = enc(rungs)
    options.dtype = enc(dtype)
    options.op = enc(op)
    options.sweep = 1 if sweep else 0
    options.sizes = enc(sizes)
    options.repeat = int(repeat)
    options.warmup = int(warmup)
    options.max_seconds = float(max_seconds)
    options.no_flush = 0 if flush else 1
    options.seed = int(seed)
    options.progress = callbacks.progress
    options.cancelled = callbacks.cancelled
    return options, keep


def _json_report(report):
    text = _lib.write_to_string(
        lambda stream: lib.warplab_report_write(report, _lib.FORMAT_JSON, stream))
    return json.loads(text)


def bench(ladder=None, sizes=None, backend="auto", rungs=None, *, dtype=None, op=None, repeat=0,
          warmup=0, max_seconds=0.0, flush=True, seed=0, sweep=False, progress=None, device=-1):
    """Runs a ladder (or every ladder: None) beside the vendor, as
    `warplab bench` does, and returns its rows: a list of dicts with the JSON
    report's fields (rung, problem, median_ms, gbs, gflops, pct_of_vendor,
    status, ...), .meta (device, backend, date, ...) and .to_pandas().

    sizes: "2^20", ["2^20", "4096x4096"] or [(4096, 4096)]; rungs: names;
    progress(dict(ladder, rung, problem, done, total)) is called as rows
    finish; raising in it (Ctrl-C included) stops the run."""
    ctx = _context(backend, device)
    callbacks = _Callbacks(progress)
    options, keep = _options(callbacks, ladder=ladder, rungs=_names_text(rungs), dtype=dtype,
                             op=op, sizes=_sizes_text(sizes), repeat=repeat, warmup=warmup,
                             max_seconds=max_seconds, flush=flush, seed=seed, sweep=sweep)
    plan = ctypes.c_void_p()
    ctx._check(lib.warplab_bench_plan_create(ctx.handle, ctypes.byref(options),
                                             ctypes.byref(plan)))
    report = ctypes.c_void_p()
    try:
        status = lib.warplab_bench_plan_run(plan, ctypes.byref(report))
    finally:
        lib.warplab_bench_plan_destroy(plan)
    del keep
    try:
        ctx._check(status)
        if callbacks.error is not None:
            raise callbacks.error
        data = _json_report(report)
    finally:
        lib.warplab_report_destroy(report)
    rows = data.pop("rows")
    return Rows(rows, data)


def probes():
    """The course's experiments: [{"name", "title", "size_meaning"}]."""
    return [{"name": _text(lib.warplab_probe_name(i)), "title": _text(lib.warplab_probe_title(i)),
             "size_meaning": _text(lib.warplab_probe_size_meaning(i))}
            for i in range(lib.warplab_probe_count())]


def probe(name, backend="auto", *, size=None, repeat=0, warmup=0, max_seconds=0.0, flush=True,
          seed=0, progress=None, device=-1):
    """Runs one of the course's experiments and returns its result as a dict:
    probe, title, course, setup, conclusion, missing, sections, and points
    (Rows: one dict per measured point, with .to_pandas()); as `warplab
    probe NAME --json` writes it."""
    ctx = _context(backend, device)
    callbacks = _Callbacks(progress)
    options, keep = _options(callbacks, sizes=None if size is None else str(size), repeat=repeat,
                             warmup=warmup, max_seconds=max_seconds, flush=flush, seed=seed)
    result = ctypes.c_void_p()
    status = lib.warplab_probe_run(ctx.handle, name.encode(), ctypes.byref(options),
                                   ctypes.byref(result))
    del keep
    try:
        ctx._check(status)
        if callbacks.error is not None:
            raise callbacks.error
        one = (ctypes.c_void_p * 1)(result.value)
        text = _lib.write_to_string(
            lambda stream: lib.warplab_probe_write(one, 1, _lib.FORMAT_JSON, stream))
    finally:
        if result:
            lib.warplab_probe_result_destroy(result)
    data = json.loads(text)["probes"][0]
    data["points"] = Rows([dict(point, section=section["name"])
                           for section in data.get("sections", [])
                           for point in section.get("points", [])])
    return data
