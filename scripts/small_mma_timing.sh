#!/bin/bash
# The small_mma rows (src/cuda/gemm/small_mma.cuh: one launch at any row
# alignment) timed beside the path they replace and cuBLAS, on the shapes of
# the small-odd measurement set, through scripts/gemm_grid_timing.cu (its
# timing: warplab_gemm_ex and cublasGemmEx alternately, events, L2 flushed,
# the median of 15; tight operands, so odd k or n puts the rows off 16
# bytes):
#   16-bit (BF16 and FP16, C FP32 and the input type, N,N and N,T): 75^3
#     91^3 109^3 123^3 150^3 201^3 279^3 333^3 65x1000x77
#   TF32 (float operands, C FP32, N,N and N,T): 91^3 109^3 279^3
# Each cell: the planner's pick ("pick": small_mma where the rule takes it),
# then each row forced: small_mma / small_mma_tf32 (the new path),
# ex16_chooser (the 16-bit pick before it), tf32_chooser, fp32_dispatch and
# fp32_tiles (the TF32 picks before it). A row that cannot take a cell says
# why, with no time. The CSV (seed,class,m,n,k,ops,type,c,who,warplab_us,
# cublas_us,max_rel_error,why) is what the rows' modelled constants
# (gemm_plan.c, "modelled, not measured") are to be refitted on.
#
# Usage: scripts/small_mma_timing.sh BUILD|TIMER [OUT]
#   BUILD: a CUDA build directory of this tree (its libwarplab.a, sm_90),
#   the timer compiled from it (about 20 s); or TIMER: that timer already
#   built (nvcc -O2 -std=c++17 -arch=sm_90 -I include -I scripts
#   scripts/gemm_grid_timing.cu BUILD/libwarplab.a -lcublas -lcuda);
#   OUT: where small_mma.csv and small_mma.txt go ($OUT, or /tmp/small-mma).
# 10-20 s to run on an H200. From a checkout on the H200, with the GPU test:
#   cmake -S . -B /tmp/so -DCMAKE_BUILD_TYPE=Release -DWARPLAB_WITH_OPENCL=OFF \
#     -DWARPLAB_WITH_NCCL=OFF -DCMAKE_CUDA_ARCHITECTURES=90-real >/dev/null &&
#   cmake --build /tmp/so -j16 --target warplab test_gemm_ex_api >/dev/null &&
#   scripts/small_mma_timing.sh /tmp/so "$OUT";
#   /tmp/so/tests/test_gemm_ex_api --small-mma | tail -3
set -u
BUILD=${1:?usage: small_mma_timing.sh BUILD|TIMER [OUT]}
OUT=${2:-${OUT:-/tmp/small-mma}}
CUDA=${CUDA:-/usr/local/cuda}
mkdir -p "$OUT"
TIMER=/tmp/small_mma_ggt
if [ -f "$BUILD" ] && [ -x "$BUILD" ]; then
    TIMER=$BUILD
else
    (cd "$(dirname "$0")/.." && nvcc -O2 -std=c++17 -arch=sm_90 -I include -I scripts \
        -o "$TIMER" scripts/gemm_grid_timing.cu "$BUILD/libwarplab.a" -L"$CUDA/lib64" \
        -lcublas -lcuda) || exit 1
fi
export GGT_CANDIDATES=small_mma,small_mma_tf32,ex16_chooser,tf32_chooser,fp32_dispatch,fp32_tiles
SIXTEEN="75x75x75 91x91x91 109x109x109 123x123x123 150x150x150 201x201x201 279x279x279"
SIXTEEN="$SIXTEEN 333x333x333 65x1000x77"
{
    # shellcheck disable=SC2086 # the shapes are one argument each
    GGT_CSV="$OUT/small_mma_16.csv" "$TIMER" 29 fp16,bf16 $SIXTEEN
    GGT_CSV="$OUT/small_mma_tf32.csv" "$TIMER" 29 tf32 91x91x91 109x109x109 279x279x279
} >"$OUT/small_mma.txt" 2>&1
status=$?
cat "$OUT/small_mma_16.csv" >"$OUT/small_mma.csv"
tail -n +2 "$OUT/small_mma_tf32.csv" >>"$OUT/small_mma.csv"
# One line a cell: cuBLAS, the pick, each row (us), and each over cuBLAS.
python3 - "$OUT/small_mma.csv" <<'PY'
import csv, sys
cells = {}
for r in csv.DictReader(open(sys.argv[1])):
    key = (r['type'], r['c'], r['ops'], int(r['m']), int(r['n']), int(r['k']))
    cell = cells.setdefault(key, {'cublas': float(r['cublas_us'] or 0)})
    us = float(r['warplab_us'] or 0)
    cell[r['who']] = us if us > 0 else None
rows = ['pick', 'small_mma', 'small_mma_tf32', 'ex16_chooser', 'tf32_chooser', 'fp32_dispatch',
        'fp32_tiles']
print('%-5s %-3s %-3s %-13s %7s ' % ('type', 'c', 'ops', 'shape', 'cuBLAS') +
      ' '.join('%14s' % w for w in rows) + '   (us; x = cuBLAS / ours)')
for key in sorted(cells):
    cell = cells[key]
    line = '%-5s %-3s %-3s %-13s %7.1f ' % (key[0], key[1], key[2], '%dx%dx%d' % key[3:],
                                             cell['cublas'])
    for w in rows:
        us = cell.get(w)
        line += ' %14s' % ('-' if not us else '%6.1f %5.2fx' % (us, cell['cublas'] / us))
    print(line)
PY
exit $status
