#!/bin/sh
# One process per GPU on one host: two ranks of test_allreduce_cuda join
# through an id in a file (and, second, through an environment variable),
# each checks its all-reduce. Exit 77 when both skip (fewer than 2 GPUs, or
# no NCCL). NVLink multicast stays off (NCCL_NVLS_ENABLE=0).
#   allreduce_ranks.sh PATH/TO/test_allreduce_cuda
set -u
program=$1
export NCCL_NVLS_ENABLE=0
export WARPLAB_RANKS_ONE_HOST=1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

run_pair() { # id spec for rank 0, id spec for rank 1
    "$program" --rank 0 --ranks 2 --id "$1" >"$dir/rank0.log" 2>&1 &
    first=$!
    "$program" --rank 1 --ranks 2 --id "$2" >"$dir/rank1.log" 2>&1 &
    second=$!
    wait $first; status0=$?
    wait $second; status1=$?
    cat "$dir/rank0.log" "$dir/rank1.log"
    if [ $status0 -eq 77 ] && [ $status1 -eq 77 ]; then return 77; fi
    if [ $status0 -ne 0 ] || [ $status1 -ne 0 ]; then
        echo "ranks exited $status0 and $status1"
        return 1
    fi
    return 0
}

echo "== id through a file"
run_pair "file:$dir/id" "file:$dir/id"
status=$?
[ $status -ne 0 ] && exit $status

echo "== id through an environment variable"
# A launcher makes the id once and hands it to every rank's environment.
WARPLAB_TEST_ID=$("$program" --print-id 2>/dev/null) || exit 1
export WARPLAB_TEST_ID
run_pair "env:WARPLAB_TEST_ID" "env:WARPLAB_TEST_ID"
exit $?
