"""Plots a ladder's rungs against the vendor library, from warplab.bench's
rows, with matplotlib.

    python plot_ladder.py [LADDER] [--backend cuda|opencl|cpu] [--size 2^24]
                          [--out ladder.png]

Each verified rung is a bar of its throughput (GB/s, or GFLOP/s for the
matrix multiply); the vendor's rows (CUB, cuBLAS) are drawn in another
colour, and the bars are in ladder order, so the climb reads left to right.
"""

import argparse
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import warplab  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("ladder", nargs="?", default="reduce", help="a ladder (warplab.ladders())")
    parser.add_argument("--backend", default="auto", help="cuda, opencl, cpu or auto")
    parser.add_argument("--size", default=None, help="one problem size, e.g. 2^24 or 1024x1024")
    parser.add_argument("--max-seconds", type=float, default=0.2, help="time budget per rung")
    parser.add_argument("--out", default=None, help="the PNG to write (default LADDER.png)")
    args = parser.parse_args(argv)

    def progress(p):
        print(f"\r[{p['done']}/{p['total']}] {p['rung']:<24}", end="", file=sys.stderr)

    rows = warplab.bench(args.ladder, sizes=args.size, backend=args.backend,
                         max_seconds=args.max_seconds, progress=progress)
    print(file=sys.stderr)
    problem = rows[0]["problem"]
    ran = [r for r in rows if r["problem"] == problem and r["state"] == "ok"]
    if not ran:
        print(f"no rung of {args.ladder} ran on {rows.meta['backend']}", file=sys.stderr)
        return 1
    compute_bound = any(r["gflops"] > 0 and r["gbs"] == 0 for r in ran) or args.ladder == "gemm"
    key, unit = ("gflops", "GFLOP/s") if compute_bound else ("gbs", "GB/s")
    colours = ["tab:orange" if r["kind"] == "vendor" else
               "tab:gray" if r["kind"] in ("host", "reference") else "tab:blue" for r in ran]
    fig, ax = plt.subplots(figsize=(max(6, 0.5 * len(ran)), 4))
    ax.bar(range(len(ran)), [r[key] for r in ran], color=colours)
    ax.set_xticks(range(len(ran)))
    ax.set_xticklabels([r["rung"] for r in ran], rotation=60, ha="right", fontsize=8)
    ax.set_ylabel(unit)
    ax.set_title(f"{args.ladder}, {problem}: {rows.meta['device']} ({rows.meta['backend']})\n"
                 f"blue: rungs, orange: vendor, grey: host and copy reference", fontsize=9)
    fig.tight_layout()
    out = args.out or f"{args.ladder}.png"
    fig.savefig(out, dpi=100)
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
