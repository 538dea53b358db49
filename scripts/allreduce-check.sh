#!/bin/bash
# The all-reduce ladder on a machine with 2 GPUs or more (docs/MULTIGPU.md):
# build what it needs, run its tests, the peer query and the ladder, and
# print a short table (1 MiB, 64 MiB, 1 GiB: algbw, busbw, ratio to NCCL).
#   scripts/allreduce-check.sh BUILD_DIR OUT_DIR [check|sweep|full]
# full (one call on a 4-GPU machine, under 10 minutes; six files in OUT_DIR):
# the peer matrix; the sweep 4 KiB .. 4 GiB at G = 4 (the planner's tuning
# sizes, every flag rung, two_shot, the library call through `dispatch`,
# NCCL) and the sizes between (the planner's judged set); the sweep at
# G = 2; then ctest -R allreduce (the ranks: 2 and 4 processes), memcheck
# and racecheck on every rung at small sizes, and the Python package's GPU
# tests on the same build; summary.txt holds the tables and the targets.
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
targets="warplab-cli test_ladders test_allreduce_cuda"
[ "$mode" = full ] && targets="$targets warplab_shared warplab_python_calls"
cmake --build "$build" -j"$(nproc)" --target $targets 2>&1 | grep -E "error|warning" | head -20
echo "build: $(( $(date +%s) - start )) s"
[ -x "$build/warplab" ] || { echo "no warplab binary"; exit 1; }

if [ "$mode" = full ]; then
    # Timings first, alone on the GPUs; the checks after, side by side.
    timeout 20 "$build/warplab" devices --peers > "$out/peers.txt" 2>&1
    echo "== G=4 sweep (tuning sizes 2^10, 2^12, .., 2^30 floats)"
    timeout 150 "$build/warplab" bench allreduce --sweep --rung one_shot,two_shot_flags,dispatch \
        --max-seconds 0.05 -q --json "$out/sweep4.json" > /dev/null 2>&1
    echo "sweep exit $?"
    echo "== G=4, the judged sizes between"
    timeout 60 "$build/warplab" bench allreduce --size 2^11,2^13,2^15,2^17,2^19,2^21,2^23,2^25,2^27,2^29 \
        --rung one_shot,two_shot_flags,nccl,dispatch --max-seconds 0.05 -q --json "$out/judged4.json" > /dev/null 2>&1
    echo "judged exit $?"
    echo "== G=2 sweep (two_shot: the library's rung before the planner)"
    WARPLAB_ALLREDUCE_GPUS=2 timeout 50 "$build/warplab" bench allreduce --sweep \
        --rung two_shot,dispatch --max-seconds 0.03 -q --json "$out/sweep2.json" > /dev/null 2>&1
    echo "G=2 sweep exit $?"
    echo "== tests, sanitizers, Python"
    (cd "$build" && timeout 170 ctest -R allreduce --output-on-failure --timeout 160 > /tmp/ar-ctest.txt 2>&1) &
    tests=$!
    (
        # Every rung under both tools at once (the GPUs time-slice the
        # processes); a rung whose flags never arrive would hang: each run
        # has its limit (exit 124).
        rungs="one_shot two_shot_flags dispatch two_shot ring peer_read through_one host_staging nccl"
        for rung in $rungs; do
            for tool in memcheck racecheck; do
                (timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 "$build/tests/test_ladders" \
                    --backend cuda --ladder allreduce --rung $rung --max-size 1000 --no-timing \
                    > /tmp/ar-san-$tool-$rung.txt 2>&1; echo "exit $?" >> /tmp/ar-san-$tool-$rung.txt) &
            done
        done
        wait
        for rung in $rungs; do
            for tool in memcheck racecheck; do
                echo "$tool $rung: $(grep -E 'ERROR SUMMARY|checked|^exit' /tmp/ar-san-$tool-$rung.txt | tr -s ' ' | tr '\n' ' ')"
            done
        done
    ) > /tmp/ar-san.txt 2>&1 &
    sanitizers=$!
    LIBRARY="$build/libwarplab.so" OUT=/tmp/allreduce-python timeout 170 bash python/tests/run_gpu.sh \
        > /tmp/ar-python.txt 2>&1
    echo "python exit $?"
    wait $tests $sanitizers
    {
        echo "== ctest -R allreduce"; tail -25 /tmp/ar-ctest.txt
        echo "== compute-sanitizer, G = every GPU, sizes up to 1000"; cat /tmp/ar-san.txt
        echo "== python (python/tests/run_gpu.sh)"; tail -15 /tmp/allreduce-python/pytest-gpu.txt
    } > "$out/tests.txt" 2>&1
    cat "$out/tests.txt"
    python3 scripts/allreduce_table.py "$out/sweep4.json" "$out/judged4.json" "$out/sweep2.json" \
        > "$out/summary.txt" 2>&1
    cat "$out/summary.txt" "$out/peers.txt"
    exit 0
fi

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
