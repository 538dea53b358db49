"""The Python layer's cost and warplab.gemm beside torch.matmul, on a CUDA
GPU with PyTorch.

1. Overhead: the host time of one warplab.<call> on torch tensors (torch's
   current stream) against the same call from C (overhead.c, built against
   the same libwarplab.so: pass its path), 64 x 64 problems, medians of
   3000 calls, the stream synchronised every 32 calls (outside the timed
   part) so that the launch queue never fills. "added" = Python - C, for
   each way the package makes the call: the _calls extension (where it was
   built) and ctypes.
2. warplab.gemm against torch.matmul (cuBLAS) on a few shapes: CUDA events,
   warm-up, the median of 20 runs each, alternating, L2 flushed before each
   run (a 512 MiB write), FP32 (torch.backends.cuda.matmul.allow_tf32 off).

    python overhead.py --c-harness ./overhead [--json out.json]
"""

import argparse
import json
import statistics
import subprocess
import sys
import time

import torch

import warplab
from warplab import _lib, _ops

CALLS, WARMUP, BATCH, N = 3000, 200, 32, 64  # as overhead.c


def c_side(path):
    done = subprocess.run([path], capture_output=True, text=True, timeout=300)
    if done.returncode:
        raise SystemExit(f"{path}: {done.stdout}{done.stderr}")
    out = {}
    for line in done.stdout.split("\n"):
        parts = line.split()
        if len(parts) == 4:
            out[parts[0]] = [float(v) for v in parts[1:]]
    return out


def python_side():
    a = torch.zeros(N, N, device="cuda")
    b = torch.zeros(N, N, device="cuda")
    c = torch.zeros(N, N, device="cuda")
    r = torch.zeros(1, device="cuda")
    calls = {
        "vecadd": lambda: warplab.vecadd(a, b, c),
        "reduce_to_buffer": lambda: warplab.reduce(a, out=r),
        "transpose": lambda: warplab.transpose(a, c),
        "gemm": lambda: warplab.gemm(a, b, c),
    }
    pointers = (a.data_ptr(), b.data_ptr(), c.data_ptr())
    out = {}
    clock = time.perf_counter_ns
    for name, fn in calls.items():
        for _ in range(WARMUP):
            fn()
        torch.cuda.synchronize()
        times = []
        for i in range(CALLS):
            t0 = clock()
            fn()
            times.append((clock() - t0) / 1000.0)
            if i % BATCH == BATCH - 1:
                torch.cuda.synchronize()
        torch.cuda.synchronize()
        times.sort()
        out[name] = [times[CALLS // 2], times[CALLS // 10], times[CALLS * 9 // 10]]
    assert (a.data_ptr(), b.data_ptr(), c.data_ptr()) == pointers
    return out


def gemm_table(shapes):
    torch.backends.cuda.matmul.allow_tf32 = False
    flush = torch.empty(128 << 20, device="cuda")  # 512 MiB, past any L2
    rows = []
    for m, n, k in shapes:
        a = torch.randn(m, k, device="cuda")
        b = torch.randn(k, n, device="cuda")
        c = torch.empty(m, n, device="cuda")
        runs = {"warplab": lambda: warplab.gemm(a, b, c), "torch": lambda: torch.matmul(a, b, out=c)}
        times = {name: [] for name in runs}
        for _ in range(3):
            for fn in runs.values():
                fn()
        for _ in range(20):
            for name, fn in runs.items():
                flush.zero_()
                start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                start.record()
                fn()
                stop.record()
                stop.synchronize()
                times[name].append(start.elapsed_time(stop))
        warplab.gemm(a, b, c)
        expected = a.double() @ b.double()
        error = ((c.double() - expected).abs().max() / (a.abs().double() @ b.abs().double()).max()).item()
        w, t = statistics.median(times["warplab"]), statistics.median(times["torch"])
        noise = {name: statistics.pstdev(v) / statistics.mean(v) * 100 for name, v in times.items()}
        rows.append({"shape": f"{m}x{n}x{k}", "warplab_ms": w, "torch_ms": t, "ratio": t / w,
                     "warplab_noise_pct": noise["warplab"], "torch_noise_pct": noise["torch"],
                     "warplab_gflops": 2 * m * n * k / w / 1e6, "max_rel_error": error})
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--c-harness", required=True)
    parser.add_argument("--json")
    args = parser.parse_args()
    device = torch.cuda.get_device_name()
    c = c_side(args.c_harness)
    paths = {"extension": _lib.calls, "ctypes": None} if _lib.calls else {"ctypes": None}
    py = {}
    for path, module in paths.items():
        _ops._use_calls(module)
        py[path] = python_side()
    _ops._use_calls(_lib.calls)
    print(f"device: {device}; warplab {warplab.version()}, torch {torch.__version__}, "
          f"Python {sys.version.split()[0]}; hot calls through {warplab.call_path()}")
    print(f"\nper-call host time, {N}x{N} problems, median (p10-p90) of {CALLS} calls, us")
    print(f"{'call':<18} {'path':<10} {'C':>18} {'Python (torch)':>20} {'added':>8}")
    overhead = []
    for path in py:
        for name in c:
            p = py[path][name]
            added = p[0] - c[name][0]
            overhead.append({"call": name, "path": path, "c_us": c[name], "python_us": p,
                             "added_us": added})
            print(f"{name:<18} {path:<10} {c[name][0]:7.2f} ({c[name][1]:.2f}-{c[name][2]:.2f}) "
                  f"{p[0]:8.2f} ({p[1]:.2f}-{p[2]:.2f}) {added:8.2f}")
    shapes = [(4096, 4096, 4096), (1, 4096, 4096), (16, 4096, 4096), (4096, 4096, 256),
              (513, 1027, 257), (4096, 11008, 4096)]
    table = gemm_table(shapes)
    print("\nwarplab.gemm vs torch.matmul (cuBLAS), FP32, median of 20, L2 flushed")
    print(f"{'m x n x k':<18} {'warplab ms':>11} {'torch ms':>10} {'torch/warplab':>14} "
          f"{'noise w/t %':>12} {'GFLOP/s':>9} {'rel err':>9}")
    for row in table:
        print(f"{row['shape']:<18} {row['warplab_ms']:11.4f} {row['torch_ms']:10.4f} "
              f"{row['ratio']:14.3f} {row['warplab_noise_pct']:5.1f}/{row['torch_noise_pct']:<5.1f} "
              f"{row['warplab_gflops']:9.0f} {row['max_rel_error']:9.2e}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": device, "overhead": overhead, "gemm": table}, f, indent=1)


if __name__ == "__main__":
    main()
