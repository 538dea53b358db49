#!/bin/bash
# The GEMM planner's GPU run (developer use): builds main's checkout (the
# repo root, "before") and this tree ("after") side by side, runs the
# decode tuning set (scripts/gemm_decode_bench.c) on both, the GEMM API
# tests and the decode test (tests/cuda/gemm_decode_cuda.cu), and
# compute-sanitizer memcheck on the GEMV family's shapes, memcheck,
# racecheck, synccheck and initcheck on the decode test's short list. VARIANTS=1 also times the GEMV
# kernels' variants alone (scripts/gemv_variants.cu).
# Run from this tree's root: OUT=dir [ALT="-DNAME=1"] [VARIANTS=1] bash scripts/planner-gpu.sh
# [before-tree | before.csv]
set -u
OUT=${OUT:-/tmp/planner-out}
BEFORE=${1:-}
mkdir -p "$OUT" /tmp/logs
L=/tmp/logs
CUDA=/usr/local/cuda
opts="-DCMAKE_BUILD_TYPE=Release -DWARPLAB_WITH_OPENCL=OFF -DWARPLAB_WITH_NCCL=OFF -DCMAKE_CUDA_ARCHITECTURES=90-real"
start=$SECONDS
cmake -S . -B /tmp/after $opts -DWARPLAB_WERROR=ON >"$L/after-config.log" 2>&1
BEFORE_CSV=
case "$BEFORE" in *.csv) BEFORE_CSV=$BEFORE; BEFORE= ;; esac
if [ -n "$BEFORE" ]; then
    cmake -S "$BEFORE" -B /tmp/before $opts >"$L/before-config.log" 2>&1
    (cmake --build /tmp/before -j16 --target warplab >"$L/before-build.log" 2>&1) &
fi
if [ -n "${VARIANTS:-}" ]; then
    (nvcc -O3 -std=c++17 -arch=sm_90 -Iinclude scripts/gemv_variants.cu -o /tmp/gemv_variants \
        >"$L/variants-build.log" 2>&1) &
fi
cmake --build /tmp/after -j16 --target warplab test_gemm_ex_api test_gemm_exact test_gemm_api \
    test_gemm_decode_cuda >"$L/after-build.log" 2>&1 || { tail -40 "$L/after-build.log"; exit 1; }
if [ -n "${ALT:-}" ]; then # a variant of the tree built with ALT (-D flags), timed beside it
    cmake -S . -B /tmp/alt $opts -DCMAKE_C_FLAGS="$ALT" -DCMAKE_CUDA_FLAGS="$ALT" \
        >"$L/alt-config.log" 2>&1
    cmake --build /tmp/alt -j16 --target warplab >"$L/alt-build.log" 2>&1 || tail -20 "$L/alt-build.log"
fi
wait
echo "builds: $((SECONDS - start)) s"
link() { cc -O2 -std=c11 -Iinclude -I$CUDA/include scripts/gemm_decode_bench.c "$1/libwarplab.a" \
    -L$CUDA/lib64 -lcublas -lcudart -lstdc++ -lpthread -lm -o "$2"; }
link /tmp/after /tmp/bench-after || exit 1
[ -n "$BEFORE" ] && { link /tmp/before /tmp/bench-before || exit 1; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv >"$OUT/gpu.txt"
RUNS=${RUNS:-15}
[ -n "$BEFORE" ] && /tmp/bench-before $RUNS "$OUT/before.csv" >"$L/before.txt" 2>&1
[ -n "$BEFORE_CSV" ] && cp "$BEFORE_CSV" "$OUT/before.csv" && BEFORE=csv
/tmp/bench-after $RUNS "$OUT/after.csv" >"$L/after.txt" 2>&1
if [ -n "${ALT:-}" ] && link /tmp/alt /tmp/bench-alt; then
    /tmp/bench-alt $RUNS "$OUT/alt.csv" >"$L/alt.txt" 2>&1
    python3 - "$OUT/after.csv" "$OUT/alt.csv" <<'PY'
import csv, sys, math
a = {tuple(r[k] for k in ('combo','op_b','m','n','k')): r for r in csv.DictReader(open(sys.argv[1]))}
print("ALT (op_b = T, m <= 16): combo m n k  cuBLAS  this  alt  x_this  x_alt")
for r in csv.DictReader(open(sys.argv[2])):
    key = tuple(r[k] for k in ('combo','op_b','m','n','k'))
    if r['op_b'] == 'T' and int(r['m']) <= 16 and key in a:
        print("ALT %-10s %3s %6s %6s %7.1f %7.1f %7.1f %6.3f %6.3f" % (r['combo'], r['m'], r['n'], r['k'], float(r['cublas_us']), float(a[key]['warplab_us']), float(r['warplab_us']), float(a[key]['ratio']), float(r['ratio'])))
PY
fi
head -1 "$L/after.txt"
grep DIFFERS "$L/after.txt" | head
if [ -n "$BEFORE" ]; then
    python3 - "$OUT/before.csv" "$OUT/after.csv" >"$OUT/table.txt" <<'PY'
import csv, sys, math
b = {tuple(r[k] for k in ('combo','op_b','m','n','k')): r for r in csv.DictReader(open(sys.argv[1]))}
a = list(csv.DictReader(open(sys.argv[2])))
print("%-10s %4s %3s %6s %6s %8s %8s %8s %7s %7s %6s" % ("combo","op_b","m","n","k","cuBLAS","before","after","x_bef","x_aft","%copy"))
groups = {}
for r in a:
    key = tuple(r[k] for k in ('combo','op_b','m','n','k'))
    br = b.get(key)
    rb = float(br['ratio']) if br else float('nan')
    ra = float(r['ratio'])
    g = groups.setdefault((r['combo'], r['op_b']), [[], [], 9, 9])
    g[0].append(math.log(rb)); g[1].append(math.log(ra)); g[2] = min(g[2], rb); g[3] = min(g[3], ra)
    print("%-10s %4s %3s %6s %6s %8.1f %8.1f %8.1f %7.3f %7.3f %6s" % (key + (float(r['cublas_us']), float(br['warplab_us']) if br else float('nan'), float(r['warplab_us']), rb, ra, r['pct_copy'] if r['m'] == '1' else '')))
print("summary (ratio = cuBLAS time / warplab time): geomean before -> after, worst before -> after")
for (c, o), g in groups.items():
    print("  %-10s op_b=%s: %.3f -> %.3f   worst %.3f -> %.3f" % (c, o, math.exp(sum(g[0])/len(g[0])), math.exp(sum(g[1])/len(g[1])), g[2], g[3]))
PY
    cat "$OUT/table.txt"
else
    grep SUMMARY "$L/after.txt"
fi
if [ -n "${VARIANTS:-}" ]; then
    if [ -x /tmp/gemv_variants ]; then
        /tmp/gemv_variants 15 >"$OUT/variants.txt" 2>&1
    else
        tail -20 "$L/variants-build.log" >"$OUT/variants.txt"
    fi
fi
T=/tmp/after/tests
DT=$(find /tmp/after -name test_gemm_decode_cuda -type f | head -1)
timeout 300 $DT >"$OUT/decode-test.log" 2>&1
echo "test_gemm_decode_cuda: exit $? ($(tail -1 $OUT/decode-test.log))" | tee -a "$OUT/tests.log"
for tool in memcheck racecheck synccheck initcheck; do
    timeout 300 compute-sanitizer --tool $tool --error-exitcode 99 $DT \
        --short >"$L/decode-$tool.log" 2>&1
    echo "$tool test_gemm_decode_cuda --short: exit $? ($(grep 'ERROR SUMMARY\|RACECHECK SUMMARY' \
        $L/decode-$tool.log | tail -1); $(tail -2 $L/decode-$tool.log | head -1))" | tee -a "$OUT/tests.log"
    grep -m5 -A8 "Invalid\|Race\|Error" "$L/decode-$tool.log" >>"$OUT/tests.log"
done
for t in test_gemm_ex_api test_gemm_exact test_gemm_api; do
    timeout 120 $T/$t $([ $t = test_gemm_ex_api ] && echo cuda --sanitizer) >"$L/$t.log" 2>&1; echo "$t: exit $? ($(tail -1 $L/$t.log))" | tee -a "$OUT/tests.log"; tail -30 "$L/$t.log" >>"$OUT/tests.log"
done
timeout 200 compute-sanitizer --tool memcheck --error-exitcode 99 $T/test_gemm_ex_api cuda --sanitizer \
    >"$OUT/memcheck.log" 2>&1
echo "memcheck test_gemm_ex_api --sanitizer: exit $? ($(grep -c 'ERROR SUMMARY: 0' $OUT/memcheck.log) clean summaries; $(tail -1 $OUT/memcheck.log))"
echo "total $((SECONDS - start)) s"
