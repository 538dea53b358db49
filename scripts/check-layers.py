#!/usr/bin/env python3
"""Layers read top-down: no #include runs back up (docs/ARCHITECTURE.md, "Layers").

Every source file under src/, cli/ and include/ has a layer, bottom to top:
core, kernels, ops, ladders, lab, report, cli. A file's folder names its layer
(src/core/, src/kernels/<backend>/, src/ops/, src/ladders/, src/lab/,
src/report/, cli/); files that have not moved into a layer's folder yet take
theirs from TODAY below, the map of docs/ARCHITECTURE.md's "Today's files".
An include may reach its own layer or one below.

Upward includes that exist today are listed in scripts/layers-allowed.txt, one
"FILE -> INCLUDED" a line. The check fails on an upward include that is not
listed (a new one), and on a listed one that no longer exists (the list only
shrinks: delete the line). A source file with no layer fails too.

    scripts/check-layers.py            check; exit 1 on a failure
    scripts/check-layers.py --list     every upward include, in the list's format
    scripts/check-layers.py --graph    the include counts between layers
"""
import fnmatch
import os
import re
import sys

LAYERS = ["core", "kernels", "ops", "ladders", "lab", "report", "cli"]  # bottom to top

FOLDERS = [
    ("src/core/", "core"),
    ("src/kernels/", "kernels"),
    ("src/ops/", "ops"),
    ("src/ladders/", "ladders"),
    ("src/lab/", "lab"),
    ("src/report/", "report"),
    ("cli/", "cli"),
]

# Files not yet in their layer's folder (first match wins; patterns match
# whole paths, '*' crosses folders).
TODAY = [
    ("include/warplab.h", "core"),  # the library's public header: below everything
    ("include/warplab_lab.h", "ladders"),  # the lab's: ladders and above implement it
    ("src/internal.h", "core"),
    # The backends' GEMM files (kernels) are still in the backends' old
    # folders, and the headers they include by their old paths (src/cpu/cpu.h,
    # src/cuda/cuda_backend.h, ...) forward to the headers' new places.
    ("src/cpu/*", "kernels"),
    ("src/cuda/*", "kernels"),
    ("src/opencl/*", "kernels"),
]

SOURCE = re.compile(r"\.(c|h|cu|cuh|def|cl)$")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
ROOTS = ["src", "include"]  # the -I paths of the build (CMakeLists.txt)


def layer_of(path):
    for folder, layer in FOLDERS:
        if path.startswith(folder):
            return layer
    for pattern, layer in TODAY:
        if fnmatch.fnmatchcase(path, pattern):
            return layer
    return None


def sources(top):
    for root in ("src", "cli", "include"):
        for folder, _, files in os.walk(os.path.join(top, root)):
            for name in sorted(files):
                if SOURCE.search(name):
                    yield os.path.relpath(os.path.join(folder, name), top).replace(os.sep, "/")


def resolve(top, path, included):
    here = os.path.dirname(path)
    for base in [here] + ROOTS + [os.path.dirname(here)]:
        candidate = os.path.normpath(os.path.join(base, included)).replace(os.sep, "/")
        if os.path.isfile(os.path.join(top, candidate)):
            return candidate
    return None


def edges(top):
    """(file, included file) for every quoted include that names a file of the tree."""
    found, unplaced = [], []
    for path in sources(top):
        if layer_of(path) is None:
            unplaced.append(path)
        with open(os.path.join(top, path), encoding="utf-8", errors="replace") as f:
            text = f.read()
        for included in INCLUDE.findall(text):
            target = resolve(top, path, included)
            if target:
                found.append((path, target))
    return found, unplaced


def upward(found):
    out = []
    for source, target in found:
        a, b = layer_of(source), layer_of(target)
        if a and b and LAYERS.index(b) > LAYERS.index(a):
            out.append((source, target))
    return sorted(set(out))


def main(argv):
    top = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    found, unplaced = edges(top)
    up = upward(found)
    if "--list" in argv:
        for source, target in up:
            print(f"{source} -> {target}")
        return 0
    if "--graph" in argv:
        counts = {}
        for source, target in found:
            key = (layer_of(source), layer_of(target))
            counts[key] = counts.get(key, 0) + 1
        for (a, b), n in sorted(counts.items(), key=lambda kv: (LAYERS.index(kv[0][0]),
                                                               LAYERS.index(kv[0][1]))):
            mark = "  UP" if LAYERS.index(b) > LAYERS.index(a) else ""
            print(f"{a:8} -> {b:8} {n:4}{mark}")
        return 0
    allowed_path = os.path.join(top, "scripts", "layers-allowed.txt")
    allowed = set()
    with open(allowed_path, encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                source, _, target = line.partition(" -> ")
                allowed.add((source.strip(), target.strip()))
    failures = []
    for path in unplaced:
        failures.append(f"{path}: no layer (put it in a layer's folder, or map it in TODAY)")
    for source, target in up:
        if (source, target) not in allowed:
            failures.append(f"{source} -> {target}: {layer_of(source)} includes "
                            f"{layer_of(target)}, a layer above it")
    for source, target in sorted(allowed - set(up)):
        failures.append(f"{source} -> {target}: listed in scripts/layers-allowed.txt but no "
                        "longer an upward include: delete the line")
    for line in failures:
        print(line)
    print(f"layers: {len(found)} includes, {len(up)} upward ({len(allowed)} listed as today's), "
          f"{len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
