"""A stand-in for the few pytest features the package's tests use, for a
machine that has torch and CuPy but no pytest (run_gpu.sh puts this folder
on sys.path only then). `python -m pytest FILE...` runs every test_*
function, expanding parametrize and resolving fixtures by name, and prints
pytest's closing line."""

import contextlib
import inspect
import itertools
import re
import sys
import tempfile
import traceback
from pathlib import Path


class _Skip(Exception):
    pass


def skip(reason=""):
    raise _Skip(reason)


def importorskip(name):
    try:
        return __import__(name)
    except ImportError:
        raise _Skip(f"could not import {name!r}")


class _Info:
    value = None


@contextlib.contextmanager
def raises(kind, match=None):
    info = _Info()
    try:
        yield info
    except kind as e:
        info.value = e
        if match and not re.search(match, str(e)):
            raise AssertionError(f"{match!r} not in {str(e)!r}")
        return
    raise AssertionError(f"did not raise {kind}")


def fixture(fn=None, params=None):
    def mark(f):
        f._fixture_params = params
        return f
    return mark(fn) if fn else mark


class _Mark:
    @staticmethod
    def parametrize(names, values):
        def mark(f):
            f._params = [([n.strip() for n in names.split(",")], values)] + getattr(f, "_params", [])
            return f
        return mark


mark = _Mark()


class _Request:
    def __init__(self, param):
        self.param = param


def _run_file(path, counts):
    import importlib.util

    sys.path.insert(0, str(path.parent))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    conftest = path.parent / "conftest.py"
    fixtures = {}
    modules = []
    if conftest.exists():
        cspec = importlib.util.spec_from_file_location("conftest", conftest)
        cmod = importlib.util.module_from_spec(cspec)
        cspec.loader.exec_module(cmod)
        modules.append(cmod)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    modules.append(module)
    for m in modules:
        for name, f in vars(m).items():
            if hasattr(f, "_fixture_params"):
                fixtures[name] = f
    for name, test in list(vars(module).items()):
        if not name.startswith("test_") or not callable(test):
            continue
        grids = [[dict(zip(names, v if len(names) > 1 else (v,))) for v in values]
                 for names, values in getattr(test, "_params", [])]
        for combo in itertools.product(*grids) if grids else [()]:
            args = {}
            for part in combo:
                args.update(part)
            label = f"{path.name}::{name}" + (f"[{args}]" if args else "")
            try:
                for arg in inspect.signature(test).parameters:
                    if arg in args:
                        continue
                    if arg == "tmp_path":
                        args[arg] = Path(tempfile.mkdtemp())
                    elif arg in fixtures:
                        f = fixtures[arg]
                        params = f._fixture_params
                        args[arg] = f(_Request(params[0])) if params else f()
                test(**args)
                counts["passed"] += 1
            except _Skip as e:
                counts["skipped"] += 1
                print(f"SKIPPED {label}: {e}")
            except Exception:
                counts["failed"] += 1
                print(f"FAILED {label}")
                traceback.print_exc()


def main(argv):
    counts = {"passed": 0, "failed": 0, "skipped": 0}
    files = [Path(a) for a in argv if not a.startswith("-")]
    for path in files:
        _run_file(path.resolve(), counts)
    print(f"{counts['passed']} passed, {counts['failed']} failed, {counts['skipped']} skipped")
    return 1 if counts["failed"] or not counts["passed"] else 0


if __name__ == "__main__":
    sys.modules["pytest"] = sys.modules["__main__"]  # the tests' `import pytest` is this module
    sys.exit(main(sys.argv[1:]))
