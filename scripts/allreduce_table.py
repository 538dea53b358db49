#!/usr/bin/env python3
"""The all-reduce runs as tables and against the targets of the all-reduce
ladder (docs/ladders/allreduce.md): per message size, every rung's algbw,
busbw (algbw x 2(G-1)/G) and ratio to NCCL (NCCL's time / the rung's), the
library call (`dispatch`) against NCCL and against the best of the rungs in
the same run, and the rung the planner's table names for the size
(src/kernels/allreduce_plan.h, every pair with peer access, out of place).
A size is marked T when it is in the planner's tuning set (n = 2^10, 2^12,
.., 2^28 floats) and J otherwise (judged: never fitted on). Then, per G: the
library's geometric mean against NCCL over the sweep's sizes (4 KiB, 16 KiB,
.., 4 GiB) and over every size, its least ratio from 256 KiB on, and its
worst ratio to the best rung.

    scripts/allreduce_table.py [--markdown] RUN.json [RUN.json ...]   # warplab bench --json files

A later file's row replaces an earlier one's for the same G, size and rung.
--markdown prints the tables of docs/ladders/allreduce.md (busbw GB/s and
x NCCL per rung, the library call with its planned rung).
"""
import json
import math
import os
import re
import sys

PLAN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src", "kernels",
                    "allreduce_plan.h")
ROUTES = {"ONE_SHOT": "one_shot", "TWO_SHOT_FLAGS": "two_shot_flags", "NCCL": "nccl"}


def plan_rules():
    """The planner's rows: (gpus_min, gpus_max, bytes_below or None, rung)."""
    try:
        text = open(PLAN).read()
    except OSError:
        return []
    units = {"WL_KIB": 1 << 10, "WL_MIB": 1 << 20}
    rules = []
    pattern = r"\{(\d+), (\w+), ([^,]+), WL_ALLREDUCE_ROUTE_(\w+),"
    for gmin, gmax, below, route in re.findall(pattern, text):
        gmax = 8 if gmax == "WARPLAB_MAX_GPUS" else int(gmax)
        if below.strip() == "SIZE_MAX":
            limit = None
        else:
            value, unit = [t.strip() for t in below.split("*")]
            limit = int(value) * units[unit]
        rules.append((int(gmin), gmax, limit, ROUTES.get(route, route.lower())))
    return rules


def planned(rules, gpus, size):
    for gmin, gmax, limit, rung in rules:
        if gmin <= gpus <= gmax and (limit is None or size < limit):
            return rung
    return "?"


def rows_of(path):
    try:
        with open(path) as f:
            run = json.load(f)
        print(f"{os.path.basename(path)}: {run.get('device', '?')}, {run.get('date', '?')}"
              + (", incomplete" if run.get("incomplete") else ""))
        return run["rows"]
    except (OSError, ValueError, KeyError) as e:
        print(f"{path}: {e}")
        return []


def tuning(n):
    return n & (n - 1) == 0 and 10 <= n.bit_length() - 1 <= 28 and (n.bit_length() - 1) % 2 == 0


def sweep(n):
    return n & (n - 1) == 0 and 10 <= n.bit_length() - 1 <= 30 and (n.bit_length() - 1) % 2 == 0


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def markdown(gpus, sizes, rungs, rules):
    """One G's table in Markdown: busbw and x NCCL per rung, the library's."""
    others = [r for r in rungs if r != "dispatch"]
    print(f"G = {gpus}:\n")
    print("| message | | " + " | ".join(others) +
          " | **library** (its rung) | NCCL busbw | library / best rung |")
    print("|---|---|" + "---|" * len(others) + "---|---|---|")
    for n in sorted(sizes):
        size, by = 4 * n, sizes[n]
        nccl = by.get("nccl")
        cells = []
        for rung in others:
            row = by.get(rung)
            if not row:
                cells.append("-")
            elif nccl:
                cells.append("%.1f, %.2fx" % (row.get("busbw_gbs", 0.0),
                                              nccl["median_ms"] / row["median_ms"]))
            else:
                cells.append("%.1f" % row.get("busbw_gbs", 0.0))
        library = by.get("dispatch")
        ours = [r for k, r in by.items() if k not in ("dispatch", "nccl")]
        lib = "not timed"
        if library and nccl:
            lib = "**%.2fx** (%s)" % (nccl["median_ms"] / library["median_ms"],
                                      planned(rules, gpus, size))
        best = "-"
        if library:
            times = [r["median_ms"] for r in ours] + ([nccl["median_ms"]] if nccl else [])
            if times:
                best = "%.2f" % (min(times) / library["median_ms"])
        print("| %s | %s | %s | %s | %s | %s |" % (
            human(size), "T" if tuning(n) else "J", " | ".join(cells), lib,
            "%.1f" % nccl.get("busbw_gbs", 0.0) if nccl else "-", best))
    print()


def main(paths):
    as_markdown = "--markdown" in paths
    paths = [p for p in paths if p != "--markdown"]
    rules = plan_rules()
    groups = {}  # G -> {n: {rung: row}}
    failures = []
    for path in paths:
        for row in rows_of(path):
            problem = row["problem"]  # "n=1024 float x 4 GPUs"
            if not row.get("median_ms"):
                failures.append(f"{problem} {row['rung']}: {(row.get('note') or '')[:100]}")
                continue
            try:
                gpus = int(problem.split(" x ")[1].split()[0])
                n = int(problem.split()[0][2:])
            except (IndexError, ValueError):
                continue
            groups.setdefault(gpus, {}).setdefault(n, {})[row["rung"]] = row
    print()
    for gpus in sorted(groups):
        sizes = groups[gpus]
        rungs = []
        for n in sorted(sizes):
            for rung in sizes[n]:
                if rung not in rungs and rung != "nccl":
                    rungs.append(rung)
        if as_markdown:
            markdown(gpus, sizes, rungs, rules)
        print(f"G = {gpus}: algbw and busbw GB/s, x NCCL (NCCL's time / the rung's); "
              "T tuning size, J judged")
        print("%12s  " % "message" + "".join("%26s" % r for r in rungs + ["nccl"]) +
              "%10s %16s" % ("lib/best", "planned"))
        ratios, sweep_ratios, from_256k, to_best, timed = [], [], [], [], []
        for n in sorted(sizes):
            size = 4 * n
            by = sizes[n]
            nccl = by.get("nccl")
            line = "%10s %s " % (human(size), "T" if tuning(n) else "J")
            for rung in rungs + ["nccl"]:
                row = by.get(rung)
                if not row:
                    line += "%26s" % "-"
                    continue
                ratio = nccl["median_ms"] / row["median_ms"] if nccl else float("nan")
                line += "%8.1f %8.1f %6.2fx " % (row.get("gbs", 0.0), row.get("busbw_gbs", 0.0),
                                                 ratio)
            library = by.get("dispatch")
            ours = [r for k, r in by.items() if k != "dispatch"]
            if library and ours:
                best = min(r["median_ms"] for r in ours)
                share = best / library["median_ms"]
                to_best.append((share, size))
                line += "%9.2fx" % share
            else:
                line += "%10s" % "-"
            line += " %16s" % planned(rules, gpus, size)
            print(line)
            if library and nccl:
                ratio = nccl["median_ms"] / library["median_ms"]
                ratios.append(ratio)
                timed.append(size)
                if sweep(n):
                    sweep_ratios.append(ratio)
                if size >= 256 << 10:
                    from_256k.append((ratio, size))
        if sweep_ratios:
            print(f"  library x NCCL: geometric mean {geomean(sweep_ratios):.3f} over the sweep's "
                  f"{len(sweep_ratios)} sizes measured of 11 (4 KiB, 16 KiB, .., 4 GiB)")
        if ratios:
            print(f"  library x NCCL: geometric mean {geomean(ratios):.3f} over all {len(ratios)} "
                  f"sizes ({human(min(timed))} .. {human(max(timed))})")
        if from_256k:
            worst = min(from_256k)
            below = [human(s) for r, s in sorted(from_256k, key=lambda x: x[1]) if r < 1.0]
            print(f"  library x NCCL from 256 KiB: least {worst[0]:.3f} at {human(worst[1])}; "
                  f"below 1.0 at {len(below)} of {len(from_256k)} sizes"
                  + (f" ({', '.join(below)})" if below else ""))
        if to_best:
            worst = min(to_best)
            under = [human(s) for r, s in sorted(to_best, key=lambda x: x[1]) if r < 0.95]
            print(f"  library / best rung: least {worst[0]:.3f} at {human(worst[1])}; "
                  f"under 0.95 at {len(under)} of {len(to_best)} sizes"
                  + (f" ({', '.join(under)})" if under else ""))
        print()
    if failures:
        print("Rows without a time (failed or skipped):")
        for line in failures:
            print("  " + line)


def human(size):
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if size >= 1 << shift:
            return "%.5g %s" % (size / (1 << shift), unit)
    return f"{size} B"


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
