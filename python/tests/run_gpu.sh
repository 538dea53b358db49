#!/usr/bin/env bash
# The Python package on a machine with an NVIDIA GPU, PyTorch and CuPy:
# builds libwarplab.so only (the library target), runs the package's tests
# against it (test_gpu.py: torch/CuPy arrays in place, streams, results
# against torch.matmul and CuPy; the host tests too), measures the Python
# layer's added per-call time against the same C call and warplab.gemm
# against torch.matmul (benchmarks/overhead.py). Outputs under $OUT (default
# ./python-gpu-out): device.txt, pytest-gpu.txt, overhead.txt, overhead.json,
# pytest-host.txt.
#   bash python/tests/run_gpu.sh            # from the repository root
# BUILD (default /tmp/warplab-python-gpu) is the build folder; JOBS the
# build's parallelism (default: every core); LIBRARY a libwarplab.so built
# with the cuda backend already (then nothing is built here).
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="${OUT:-$root/python-gpu-out}"
build="${BUILD:-/tmp/warplab-python-gpu}"
mkdir -p "$out"
export PATH="$PATH:/usr/local/cuda/bin" NCCL_NVLS_ENABLE=0
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/device.txt"
start=$SECONDS
# LIBRARY=path: a libwarplab.so already built with the cuda backend (the
# package's `pip install` build) instead of building one here.
library="${LIBRARY:-}"
if [ -n "$library" ] && [ -f "$library" ]; then
    # libOpenCL.so.1 from the CUDA toolkit where the system has none.
    if ldd "$library" | grep -q "libOpenCL.*not found"; then
        export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    fi
    if ldd "$library" | grep -q "not found"; then
        echo "$library cannot load here:"; ldd "$library" | grep "not found"; library=""
    fi
fi
if [ -z "$library" ]; then
    cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
        -DBUILD_TESTING=OFF >/dev/null || exit 1
    cmake --build "$build" -j "${JOBS:-$(nproc)}" --target warplab_shared warplab_python_calls 2>&1 | grep -E "error|warning" | head -20
    library="$build/libwarplab.so"
    [ -f "$library" ] || { echo "libwarplab.so was not built"; exit 1; }
    echo "library built in $((SECONDS - start)) s"
fi
mkdir -p "$build"
export WARPLAB_LIBRARY="$library" PYTHONPATH="$root/python/src" PYTHONDONTWRITEBYTECODE=1
# pytest where it is installed, else the stand-in in fallback/ (same tests).
run_tests() {
    local log="$1"
    shift
    if python3 -c "import pytest" 2>/dev/null; then
        python3 -m pytest -q -p no:cacheprovider -rs "$@" 2>&1 | tee "$log"
    else
        echo "(no pytest here: python/tests/fallback runs the same test functions)" | tee "$log"
        PYTHONPATH="$root/python/tests/fallback:$PYTHONPATH" python3 -m pytest "$@" 2>&1 | tee -a "$log"
    fi
    return "${PIPESTATUS[0]}"
}
# The GPU tests first, then the measurements, then the host tests (CI runs
# those too), so that a time limit cuts the least.
run_tests "$out/pytest-gpu.txt" "$root/python/tests/test_gpu.py"
status=$?
# The C harness links the library by its soname (libwarplab.so.0).
mkdir -p "$build/harness" && ln -sf "$(readlink -f "$library")" "$build/harness/libwarplab.so.0"
cc -std=c11 -O2 -I"$root/include" "$root/python/benchmarks/overhead.c" "$build/harness/libwarplab.so.0" \
    -Wl,-rpath,"$build/harness" -o "$build/overhead" &&
    python3 -u "$root/python/benchmarks/overhead.py" --c-harness "$build/overhead" \
        --json "$out/overhead.json" 2>&1 | tee "$out/overhead.txt"
run_tests "$out/pytest-host.txt" "$root/python/tests/test_ops.py" "$root/python/tests/test_lab.py" ||
    status=1
ls -l /dev/null
exit "$status"
