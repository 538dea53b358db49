#!/usr/bin/env bash
# Ctrl-C stops a bench promptly on a backend: SIGINT in the middle of a row's
# timed runs (each a few milliseconds, up to a minute of them) must end the
# run with exit 130 within LIMIT seconds (default 5: 2 s past the current run
# plus room for a loaded machine), its finished rows printed.
#   interrupt_test.sh WARPLAB BACKEND [LIMIT]
# Exit 77 when the backend has no device.
W=$1 BACKEND=$2 LIMIT=${3:-5}
case $BACKEND in
cpu) RUNGS=cpu_threads ;;
*) RUNGS=grid_stride ;;
esac
if ! "$W" bench vecadd --backend "$BACKEND" --size 1000 --rung "$RUNGS" --repeat 1 --quiet \
    >/dev/null 2>&1; then
    echo "SKIP: the $BACKEND backend has no device here"
    exit 77
fi
err=$(mktemp) out=$(mktemp)
trap 'rm -f "$err" "$out"' EXIT
"$W" bench vecadd --backend "$BACKEND" --size 2^22 --rung "$RUNGS" --repeat 100000000 \
    --max-seconds 60 --no-flush >"$out" 2>"$err" &
pid=$!
# Wait for the row to start, then for its timed runs to be under way.
for _ in $(seq 600); do grep -q '\[1/' "$err" && break; sleep 0.1; done
sleep 3
start=$(date +%s%N)
kill -INT "$pid"
wait "$pid"
rc=$?
end=$(date +%s%N)
ms=$(((end - start) / 1000000))
echo "SIGINT to exit: ${ms} ms, exit $rc"
tail -2 "$err"
if [ "$rc" != 130 ]; then
    echo "FAIL: exit $rc, expected 130"; exit 1
fi
if [ "$ms" -gt $((LIMIT * 1000)) ]; then
    echo "FAIL: ${ms} ms from SIGINT to exit, past ${LIMIT} s"; exit 1
fi
grep -q "interrupted" "$err" || { echo "FAIL: no 'interrupted' message"; exit 1; }
echo "ok"
