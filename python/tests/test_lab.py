"""The lab as data: ladders, lessons, rung sources, errata, benchmark rows
(with the progress callback and cancellation), probes, and the example
script where matplotlib is installed."""

import os
import subprocess
import sys

import pytest

import warplab

HERE = os.path.dirname(os.path.abspath(__file__))


def test_ladders_and_lessons():
    ladders = {entry["name"]: entry for entry in warplab.ladders()}
    for name in ("vecadd", "reduce", "transpose", "gemm", "allreduce"):
        assert name in ladders and ladders[name]["title"] and ladders[name]["rungs"]
    lessons = warplab.lessons("reduce")
    assert [rung["id"] for rung in lessons] == ladders["reduce"]["rungs"]
    assert all(rung["lesson"] and rung["title"] for rung in lessons)
    assert any("vendor" in rung["kind"] for rung in lessons)
    with pytest.raises(warplab.Error) as info:
        warplab.lessons("sorting")
    assert info.value.status == warplab.Status.UNKNOWN_NAME


def test_show():
    rung = warplab.show("reduce", "shuffle", backend="cpu")
    assert rung["id"] == "shuffle" and rung["lesson"] and rung["course"]
    assert "shuffle" in rung["source"]
    full = warplab.show("vecadd", "grid_stride")
    assert "grid_stride" in full["source"]
    assert isinstance(full["errata"], list)
    with pytest.raises(warplab.Error) as info:
        warplab.show("reduce", "quantum")
    assert info.value.status == warplab.Status.UNKNOWN_NAME
    with pytest.raises(ValueError):
        warplab.show("reduce", "shuffle", backend="metal")


def test_errata():
    errata = warplab.errata()
    assert errata and all(e["id"] and e["quote"] and e["why"] for e in errata)


def test_bench_rows_progress_and_meta(backend):
    seen = []
    rows = warplab.bench("reduce", sizes=["2^12", 1000], backend=backend, max_seconds=0.01,
                         repeat=3, rungs=["cpu_loop", "shuffle", "cub"], progress=seen.append)
    assert rows.meta["backend"] == backend and rows.meta["device"]
    assert {r["problem"] for r in rows} == {"n=4096 int32 sum", "n=1000 int32 sum"}
    assert {r["rung"] for r in rows} == {"cpu_loop", "shuffle", "cub"}
    ok = [r for r in rows if r["state"] == "ok"]
    assert ok and all(r["median_ms"] > 0 and r["runs"] >= 1 for r in ok)
    # cub is the vendor row: skipped with the reason off cuda.
    assert all(r["note"] for r in rows if r["rung"] == "cub" and r["state"] == "skipped")
    assert seen and seen[-1]["done"] == seen[-1]["total"] == len(rows)
    assert all(set(p) == {"ladder", "rung", "problem", "done", "total"} for p in seen)
    assert "rung" in str(rows).splitlines()[0]


def test_bench_size_forms():
    rows = warplab.bench("transpose", sizes=[(33, 65)], backend="cpu", max_seconds=0.01,
                         repeat=2, rungs="cpu_loop")
    assert rows[0]["problem"].startswith("33x65")


def test_bench_to_pandas():
    pandas = pytest.importorskip("pandas")
    rows = warplab.bench("vecadd", sizes="2^10", backend="cpu", max_seconds=0.01, repeat=2)
    frame = rows.to_pandas()
    assert isinstance(frame, pandas.DataFrame) and len(frame) == len(rows)
    assert {"rung", "median_ms", "gbs", "state"} <= set(frame.columns)


def test_bench_errors():
    with pytest.raises(warplab.Error) as info:
        warplab.bench("sorting", backend="cpu")
    assert info.value.status == warplab.Status.UNKNOWN_NAME and "sorting" in info.value.message
    with pytest.raises(warplab.Error) as info:
        warplab.bench("reduce", backend="cpu", rungs="nonesuch")
    assert info.value.status == warplab.Status.UNKNOWN_NAME
    with pytest.raises(warplab.Error) as info:
        warplab.bench("reduce", backend="cpu", sizes="lots")
    assert info.value.status == warplab.Status.INVALID_ARGUMENT
    with pytest.raises(ValueError):
        warplab.bench("reduce", backend="tpu")


def test_bench_progress_exception_cancels_the_run():
    class Stop(Exception):
        pass

    calls = []

    def progress(p):
        calls.append(p)
        if len(calls) == 2:
            raise Stop

    with pytest.raises(Stop):
        warplab.bench("reduce", sizes="2^12", backend="cpu", max_seconds=0.01, repeat=2,
                      progress=progress)
    assert len(calls) == 2  # nothing reported after the exception


def test_probes(backend):
    names = [p["name"] for p in warplab.probes()]
    assert "unroll" in names and all(p["title"] for p in warplab.probes())
    if backend == "cpu":
        with pytest.raises(warplab.Error) as info:
            warplab.probe("unroll", backend="cpu")
        assert info.value.status == warplab.Status.UNSUPPORTED
        return
    seen = []
    result = warplab.probe("unroll", backend=backend, size=1024, repeat=2, max_seconds=0.01,
                           progress=seen.append)
    assert result["probe"] == "unroll" and result["conclusion"] and result["sections"]
    points = result["points"]
    assert points and all(p["section"] == "unroll" and "value" in p for p in points)
    assert {p["series"] for p in points} >= {"rolled", "pragma"}
    assert seen


def test_probe_unknown():
    with pytest.raises(warplab.Error) as info:
        warplab.probe("warp_drive", backend="cpu")
    assert info.value.status == warplab.Status.UNKNOWN_NAME


def test_example_plots_a_ladder(tmp_path):
    pytest.importorskip("matplotlib")
    out = tmp_path / "reduce.png"
    script = os.path.join(HERE, "..", "examples", "plot_ladder.py")
    done = subprocess.run([sys.executable, script, "reduce", "--backend", "cpu", "--size", "2^14",
                           "--max-seconds", "0.01", "--out", str(out)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert out.stat().st_size > 1000 and out.read_bytes()[:4] == b"\x89PNG"
