#!/bin/bash
# The all-reduce ladder on a machine with 2 GPUs or more (docs/MULTIGPU.md):
# build what it needs, run its tests, the peer query and the ladder, and
# print a short table (1 MiB, 64 MiB, 1 GiB: algbw, busbw, ratio to NCCL).
#   scripts/allreduce-check.sh BUILD_DIR OUT_DIR [sweep]
# NVLink multicast stays off: NCCL_NVLS_ENABLE=0 here and in the program.
set -u -o pipefail
export NCCL_NVLS_ENABLE=0
build=${1:-/tmp/wl-allreduce}
out=${2:-/tmp/wl-allreduce-out}
mode=${3:-check}
mkdir -p "$out"
export PATH=$PATH:/usr/local/cuda/bin

echo "== NCCL and topology"
ls /usr/local/cuda/lib64/libnccl* 2>&1 | head -3
nccl_root=
if ! ls /usr/local/cuda/lib64/libnccl.so* >/dev/null 2>&1; then
    nccl_root=$(python3 -c 'import nvidia.nccl,os;print(os.path.dirname(nvidia.nccl.__file__))' 2>/dev/null)
    echo "NCCL from pip: ${nccl_root:-none}"
fi
nvidia-smi topo -m 2>&1 | head -8
nvidia-smi --query-gpu=index,name --format=csv,noheader

echo "== build"
start=$(date +%s)
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DWARPLAB_WERROR=ON \
    ${nccl_root:+-DNCCL_ROOT=$nccl_root} 2>&1 | grep -E "NCCL|backends" 
cmake --build "$build" -j16 --target warplab-cli test_ladders test_allreduce_cuda 2>&1 | grep -E "error|warning" | head -20
echo "build: $(( $(date +%s) - start )) s"
[ -x "$build/warplab" ] || { echo "no warplab binary"; exit 1; }

if [ "$mode" = check ]; then
    echo "== tests"
    # (each all-reduce rung is a test of its own: cuda.allreduce.RUNG)
    (cd "$build" && timeout 180 ctest -R "cuda\.allreduce" --output-on-failure --timeout 55 2>&1 | tail -40) | tee "$out/tests.txt"
    echo "== peers"
    timeout 20 "$build/warplab" devices --peers 2>&1 | tee "$out/peers.txt"
    echo "== ladder"
    timeout 75 "$build/warplab" bench allreduce --max-seconds 0.2 -q --json "$out/allreduce.json" \
        2>&1 | tee "$out/bench.txt" | tail -60
else
    echo "== api test"
    (cd "$build" && timeout 30 ctest -R "cuda\.allreduce_api" --output-on-failure 2>&1 | tail -12) | tee "$out/tests.txt"
    echo "== sweep"
    timeout 110 "$build/warplab" bench allreduce --sweep --max-seconds 0.1 -q --json "$out/allreduce.json" \
        > "$out/bench.txt" 2>&1
    echo "sweep exit $?"
    grep -A4 "against nccl" "$out/bench.txt" | head -3
    tail -14 "$out/bench.txt"
    echo "== two processes"
    NCCL_DEBUG=WARN WARPLAB_RANKS_TIMEOUT=30 timeout 70 sh tests/cuda/allreduce_ranks.sh \
        "$build/tests/cuda/test_allreduce_cuda" 2>&1 | tee "$out/ranks.txt" | tail -25
    echo "ranks exit ${PIPESTATUS[0]}"
    echo "== memcheck, small problems"
    timeout 30 compute-sanitizer --tool memcheck --error-exitcode 9 "$build/tests/test_ladders" --backend cuda \
        --ladder allreduce --rung two_shot --max-size 70000 --no-timing 2>&1 | tail -6
fi

echo "== table"
python3 - "$out/allreduce.json" <<'EOF'
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
nccl = {r["problem"]: r for r in rows if r["rung"] == "nccl" and r.get("median_ms", 0) > 0}
print("%-40s %-13s %10s %10s %8s" % ("problem", "rung", "algbw", "busbw", "x nccl"))
for r in rows:
    if not r.get("median_ms"):
        print("%-40s %-13s %s" % (r["problem"], r["rung"], (r.get("note") or "")[:60]))
        continue
    v = nccl.get(r["problem"])
    ratio = v["median_ms"] / r["median_ms"] if v else 0
    print("%-40s %-13s %10.1f %10.1f %8.2f" % (r["problem"], r["rung"], r["gbs"], r.get("busbw_gbs", 0), ratio))
EOF
cat "$out/peers.txt" 2>/dev/null | tail -6
