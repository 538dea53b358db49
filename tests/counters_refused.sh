#!/bin/sh
# warplab bench --counters where Nsight Compute is refused the GPU's
# performance counters (ERR_NVGPUCTRPERM, the default for users other than
# root on many machines): one clear message, exit 0, and the plain table.
# An ncu stand-in on the PATH answers as the real one does when refused.
# Skipped (77) without a CUDA device.
#   counters_refused.sh PATH/TO/warplab
set -u
warplab=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
if ! "$warplab" bench reduce --backend cuda --rung sequential --size 4096 --repeat 2 --quiet \
    >"$dir/plain" 2>&1; then
    echo "counters_refused: no CUDA device here: skipped"
    exit 77
fi
cat >"$dir/ncu" <<'NCU'
#!/bin/sh
case "$*" in
*--version*)
    echo "NVIDIA (R) Nsight Compute Command Line Profiler"
    echo "Version 2099.1.0.0 (build 1) (public-release)"
    exit 0 ;;
esac
echo "==PROF== Connected to process 4242"
echo "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance Counters on the target device 0. For instructions on enabling permissions and to get more information see https://developer.nvidia.com/ERR_NVGPUCTRPERM"
echo "==PROF== Disconnected from process 4242"
exit 1
NCU
chmod +x "$dir/ncu"
PATH="$dir:$PATH" "$warplab" bench reduce --backend cuda --rung sequential --size 4096 \
    --repeat 2 --quiet --counters >"$dir/out" 2>"$dir/err"
status=$?
failed=0
fail() { echo "counters_refused: $*"; failed=1; }
[ $status -eq 0 ] || fail "exit status $status, expected 0"
[ "$(grep -c "may not read the GPU's performance counters" "$dir/err")" -eq 1 ] ||
    fail "the refusal is not said exactly once on stderr"
grep -q "^sequential" "$dir/out" || fail "the plain table is missing"
grep -q "hardware counters" "$dir/out" && fail "a counters table was written without counters"
grep -q "Segmentation\|Aborted" "$dir/err" && fail "crashed"
if [ $failed -ne 0 ]; then
    echo "--- stdout"; cat "$dir/out"; echo "--- stderr"; cat "$dir/err"
    exit 1
fi
echo "counters_refused: one message, exit 0, the plain table"
exit 0
