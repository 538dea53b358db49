#!/usr/bin/env python3
"""Generate docs/RESULTS.md from the committed runs in docs/results/<kind>.json.

Each JSON is the output of `warplab bench --json FILE` (the main job) on one device kind
(h100.json, h200.json, ...). The page is generated, never edited by hand: the device, the date
and every figure are read from the JSON.

    scripts/results.py                 # rewrite docs/RESULTS.md from docs/results/*.json
    scripts/results.py --check         # exit 1 when docs/RESULTS.md is out of date
    scripts/results.py --out FILE A.json B.json   # other inputs or output

Exit status: 0 done (or up to date), 1 out of date (--check), 2 bad usage or an unreadable JSON.
Python 3 standard library only.
"""

import argparse
import json
import math
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS_DIR = os.path.join(ROOT, "docs", "results")
OUTPUT = os.path.join(ROOT, "docs", "RESULTS.md")
LADDERS_DEF = os.path.join(ROOT, "src", "ladders", "ladders.def")


class InputError(Exception):
    pass


def registry_ladders():
    """The ladders in run order, from the registry (src/ladders/ladders.def)."""
    try:
        with open(LADDERS_DEF, encoding="utf-8") as f:
            return re.findall(r"^\s*WL_LADDER\((\w+)\)", f.read(), re.M)
    except OSError:
        return []


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError) as e:
        raise InputError("%s: %s" % (path, e))
    if not isinstance(data, dict) or data.get("tool") != "warplab" or not isinstance(
        data.get("rows"), list
    ):
        raise InputError("%s: not the JSON of `warplab bench --json`" % path)
    return data


def fmt_time(ms):
    if not ms or ms <= 0:
        return ""
    if ms < 1.0:
        us = ms * 1000.0
        return "%.2f us" % us if us < 100 else "%.1f us" % us
    if ms < 1000.0:
        return "%.3f ms" % ms if ms < 10 else "%.2f ms" % ms
    return "%.2f s" % (ms / 1000.0)


def fmt_rate(value):
    if not value or value <= 0:
        return ""
    if value >= 100:
        return "%.0f" % value
    if value >= 10:
        return "%.1f" % value
    return "%.2f" % value


def fmt_pct(value):
    if not value or value <= 0:
        return ""
    return "%.1f%%" % value if value < 1000 else "%.0f%%" % value


def fmt_speedup(value):
    if not value or value <= 0:
        return ""
    return "%.2fx" % value if value < 100 else "%.0fx" % value


def fmt_g(value):
    """C's %.4g, as the tool prints a course figure."""
    return "%.4g" % value


def course(row):
    parts = []
    unit = row.get("course_unit", "")
    if row.get("course_value", 0) > 0:
        parts.append(
            " ".join(x for x in (fmt_g(row["course_value"]), unit, row.get("course_device", "")) if x)
        )
    if row.get("course_value2", 0) > 0:
        parts.append(
            " ".join(x for x in (fmt_g(row["course_value2"]), unit, row.get("course_device2", "")) if x)
        )
    return "; ".join(parts)


def cell(text):
    """Markdown table cell: no pipes, no newlines."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def groups(rows):
    """Consecutive rows that share ladder and problem, as the tool's report groups them."""
    out = []
    for row in rows:
        key = (row.get("ladder", ""), row.get("problem", ""))
        if out and out[-1][0] == key:
            out[-1][1].append(row)
        else:
            out.append((key, [row]))
    return out


def is_compute(rows):
    """The tool's rule: a group is compute-bound when some row does > 4 flops per byte."""
    return any(r.get("bytes", 0) > 0 and r.get("flops", 0) / r["bytes"] > 4.0 for r in rows)


def state_text(row):
    state = row.get("state", "")
    if state == "ok":
        return ""
    note = row.get("note", "") or row.get("status", "")
    return "%s: %s" % (state, note) if note else state


def rung_cell(row):
    rung = "`%s`" % row.get("rung", "")
    kind = row.get("kind", "")
    if kind in ("vendor", "reference", "host", "transfer"):
        rung += " (%s)" % kind
    if row.get("unsafe"):
        rung += " (unsafe)"
    return rung


def group_table(rows, data):
    compute = is_compute(rows)
    bus = any(r.get("busbw_gbs") for r in rows)
    head = ["rung", "what", "time", "noise"]
    if compute:
        head += ["GFLOP/s", "% of FP32 peak"]
    else:
        head += ["GB/s"] + (["busbw GB/s"] if bus else []) + ["% of %.0f GB/s" % data.get("ceiling_gbs", 0)]
    head += ["% of vendor", "step", "total", "course", "state"]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join(["---", "---"] + ["---:"] * (len(head) - 4) + ["---", "---"]) + "|"]
    for r in rows:
        cells = [rung_cell(r), cell(r.get("title", "")), fmt_time(r.get("median_ms", 0)),
                 fmt_pct(r.get("noise_pct", 0)) if r.get("median_ms", 0) > 0 else ""]
        if compute:
            cells += [fmt_rate(r.get("gflops", 0)), fmt_pct(r.get("pct_of_fp32_peak", 0))]
        else:
            cells.append(fmt_rate(r.get("gbs", 0)))
            if bus:
                cells.append(fmt_rate(r.get("busbw_gbs", 0) or 0))
            cells.append(fmt_pct(r.get("pct_of_ceiling", 0)))
        vendor = fmt_pct(r.get("pct_of_vendor", 0)) if r.get("kind") not in ("vendor", "reference") else ""
        if vendor and r.get("vendor"):
            vendor += " of `%s`" % r["vendor"]
        cells += [vendor, fmt_speedup(r.get("step_speedup", 0)),
                  fmt_speedup(r.get("cumulative_speedup", 0)), cell(course(r)), cell(state_text(r))]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def pairs_table(pairs):
    lines = ["| rung | vendor | problems | geometric mean | worst | worst problem |",
             "|---|---|---:|---:|---:|---|"]
    for p in pairs:
        lines.append("| `%s` | `%s` | %d | %.3fx | %.3fx | %s |" % (
            p.get("rung", ""), p.get("vendor", ""), p.get("problems", 0),
            p.get("geomean_ratio", 0) or 0, p.get("worst_ratio", 0) or 0,
            cell(p.get("worst_problem", ""))))
    return lines


def render_kind(kind, data, source):
    rows = data["rows"]
    out = []
    out.append("## %s: %s" % (kind, data.get("device", "unknown device")))
    out.append("")
    facts = [
        "Run: `%s`, `warplab %s`, backend `%s`, %s." % (source, data.get("version", "?"),
                                                      data.get("backend", "?"), data.get("date", "no date")),
        "Bandwidth ceiling %.0f GB/s (%s); FP32 peak %.1f TFLOP/s." % (
            data.get("ceiling_gbs", 0), data.get("ceiling_source", ""),
            data.get("fp32_peak_gflops", 0) / 1000.0),
        "L2 %s before each timed run; GB = %s; seed %s." % (
            "flushed" if data.get("caches_flushed") else "not flushed", data.get("gb", "1e9 bytes"),
            data.get("seed", "?")),
    ]
    if data.get("incomplete"):
        facts.append("**The run was interrupted: the JSON is marked incomplete.**")
    out.append(" ".join(facts))
    out.append("")
    present = []
    for row in rows:
        if row.get("ladder") not in present:
            present.append(row.get("ladder"))
    missing = [name for name in registry_ladders() if name not in present]
    if missing:
        out.append("Ladders not in this run: %s. A run of `make bench` with `--json` "
                   "replaces this file with one that has them." % ", ".join(missing))
        out.append("")
    pairs = data.get("vendor_pairs") or []
    for ladder in present:
        out.append("### %s" % ladder)
        out.append("")
        for (lad, problem), grows in groups(rows):
            if lad != ladder:
                continue
            out.append("%s, %s:" % (ladder, problem))
            out.append("")
            out.extend(group_table(grows, data))
            out.append("")
        lpairs = [p for p in pairs if p.get("ladder") == ladder]
        if lpairs:
            out.append("Each paired rung against its vendor row (vendor time / our time, over the "
                       "problems above):")
            out.append("")
            out.extend(pairs_table(lpairs))
            out.append("")
    return out


def render(inputs):
    out = ["# Results", "",
           "<!-- Generated by scripts/results.py from docs/results/*.json: do not edit. -->", "",
           "One run of `warplab bench --json FILE` per device kind, committed as "
           "`docs/results/<kind>.json`. Every figure below is read from that file: medians of the "
           "timed runs after warm-up, the noise (relative standard deviation), the vendor row timed "
           "in the same run, the course's figure on its own GPU beside today's. Compare ratios, "
           "not absolute times across machines. Columns: `% of vendor` is the vendor row's time "
           "over the rung's (the rung's paired vendor where it names one, else the group's "
           "vendor baseline); `step` and `total` are the course's speedups over the ladder row "
           "timed before it and over the first ladder row timed (vendor and reference rows and "
           "rungs off the ladder have none). How the figures are taken: `README.md`, "
           "`docs/ARCHITECTURE.md` (the harness).", "",
           "To regenerate after a new run: `scripts/results.py`; `scripts/results.py --check` "
           "(CTest `docs.results_current`) fails when this page and the JSONs disagree.", ""]
    if not inputs:
        out += ["No run is committed yet.", ""]
    for kind, source, data in inputs:
        out += render_kind(kind, data, source)
    while out and out[-1] == "":
        out.pop()
    return "\n".join(out) + "\n"


def main(argv):
    parser = argparse.ArgumentParser(description="Generate docs/RESULTS.md from docs/results/<kind>.json.")
    parser.add_argument("--check", action="store_true",
                        help="exit 1 when the output file is not what the JSONs generate")
    parser.add_argument("--out", default=OUTPUT, help="the page to write (default docs/RESULTS.md)")
    parser.add_argument("json", nargs="*",
                        help="runs, one per device kind, named <kind>.json (default docs/results/*.json)")
    args = parser.parse_args(argv)
    paths = args.json
    if not paths:
        try:
            paths = sorted(os.path.join(RESULTS_DIR, f) for f in os.listdir(RESULTS_DIR)
                           if f.endswith(".json"))
        except OSError:
            paths = []
    inputs = []
    try:
        for path in paths:
            kind = os.path.splitext(os.path.basename(path))[0]
            source = os.path.relpath(os.path.abspath(path), ROOT)
            inputs.append((kind, source, load(path)))
    except InputError as e:
        print("results.py: %s" % e, file=sys.stderr)
        return 2
    text = render(inputs)
    if args.check:
        try:
            with open(args.out, encoding="utf-8") as f:
                current = f.read()
        except OSError:
            current = None
        if current != text:
            print("results.py: %s is out of date with %s; run scripts/results.py" % (
                os.path.relpath(args.out, ROOT), ", ".join(s for _, s, _ in inputs) or "no JSON"),
                file=sys.stderr)
            return 1
        return 0
    tmp = args.out + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
