#!/usr/bin/env bash
# The Python package's one install command, `pip install ./python`, from this
# tree into a fresh virtual environment (build isolation fetches
# scikit-build-core; CMake builds libwarplab.so), then the package used from
# outside the tree. Extra arguments go to pip, e.g.
#   bash python/tests/install_check.sh -C cmake.define.WARPLAB_WITH_CUDA=OFF
# (CI: the host backends only; the CUDA objects are the same CMake build that
# `make test` compiles).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python3 -m venv "$work/venv"
unset WARPLAB_LIBRARY PYTHONPATH
start=$SECONDS
"$work/venv/bin/pip" install -q --disable-pip-version-check "$root/python" \
    -C build-dir="$work/build" "$@"
echo "pip install ./python: $((SECONDS - start)) s"
cd "$work"
"$work/venv/bin/python" - <<'PY'
import warplab

assert warplab.library_path().startswith(warplab.__file__.rsplit("/", 1)[0]), warplab.library_path()
rows = warplab.bench("reduce", backend="cpu", sizes=["2^20"])
print(rows)
assert any(r["state"] == "ok" for r in rows)
print("installed warplab", warplab.version(), "backends:", ", ".join(warplab.backends()),
      "hot calls:", warplab.call_path())
# Where Python's headers are, the wheel must carry the hot-call extension.
import os, sysconfig
if os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")):
    assert warplab.call_path() == "extension", "the package was built without _calls"
PY
