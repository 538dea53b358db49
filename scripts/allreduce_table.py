#!/usr/bin/env python3
"""The all-reduce runs as tables and against the targets of the all-reduce
ladder (docs/ladders/allreduce.md): per message size, every rung's busbw
(algbw x 2(G-1)/G) and its ratio to NCCL (NCCL's time / the rung's), the
library call (`dispatch`) against NCCL and against the best of the rungs in
the same run. Then, over all the files given for one G: the library's
geometric mean against NCCL, its least ratio from 256 KiB on, and its worst
ratio to the best rung.

    scripts/allreduce_table.py RUN.json [RUN.json ...]   # warplab bench --json files
"""
import json
import math
import sys


def rows_of(path):
    try:
        with open(path) as f:
            return json.load(f)["rows"]
    except (OSError, ValueError, KeyError) as e:
        print(f"{path}: {e}")
        return []


def main(paths):
    groups = {}  # G -> {message bytes: {rung: row}}
    for path in paths:
        for row in rows_of(path):
            if not row.get("median_ms"):
                continue
            problem = row["problem"]  # "n=1024 float x 4 GPUs"
            try:
                gpus = int(problem.split(" x ")[1].split()[0])
                n = int(problem.split()[0][2:])
            except (IndexError, ValueError):
                continue
            groups.setdefault(gpus, {}).setdefault(n * 4, {})[row["rung"]] = row
    for gpus in sorted(groups):
        sizes = groups[gpus]
        rungs = []
        for size in sorted(sizes):
            for rung in sizes[size]:
                if rung not in rungs and rung != "nccl":
                    rungs.append(rung)
        print(f"G = {gpus}: busbw GB/s (x NCCL: NCCL's time / the rung's)")
        print("%10s" % "message" + "".join("%22s" % r for r in rungs + ["nccl"]) + "%14s" % "lib/best")
        ratios, from_256k, to_best = [], [], []
        for size in sorted(sizes):
            by = sizes[size]
            nccl = by.get("nccl")
            line = "%10s" % human(size)
            for rung in rungs + ["nccl"]:
                row = by.get(rung)
                if not row:
                    line += "%22s" % "-"
                    continue
                ratio = nccl["median_ms"] / row["median_ms"] if nccl else float("nan")
                line += "%13.1f %6.2fx " % (row.get("busbw_gbs", 0.0), ratio)
            library = by.get("dispatch")
            ours = [r for k, r in by.items() if k not in ("dispatch",)]
            if library and ours:
                best = min(r["median_ms"] for r in ours)
                share = best / library["median_ms"]
                to_best.append((share, size))
                line += "%13.2fx" % share
            print(line)
            if library and nccl:
                ratio = nccl["median_ms"] / library["median_ms"]
                ratios.append(ratio)
                if size >= 256 << 10:
                    from_256k.append((ratio, size))
        if ratios:
            mean = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
            print(f"  library x NCCL: geometric mean {mean:.3f} over {len(ratios)} sizes "
                  f"({human(min(sizes))} .. {human(max(sizes))})")
        if from_256k:
            worst = min(from_256k)
            print(f"  library x NCCL from 256 KiB: least {worst[0]:.3f} at {human(worst[1])}")
        if to_best:
            worst = min(to_best)
            print(f"  library / best rung: least {worst[0]:.3f} at {human(worst[1])}")
        print()


def human(size):
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if size >= 1 << shift:
            return "%g %s" % (size / (1 << shift), unit)
    return f"{size} B"


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
