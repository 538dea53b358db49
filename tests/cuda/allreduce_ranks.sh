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
# One host: NCCL's bootstrap over the loopback interface (a sandbox's other
# interfaces may lead nowhere); a caller's choice stays.
export NCCL_SOCKET_IFNAME=${NCCL_SOCKET_IFNAME:-lo}
# Each rank gives up after this many seconds (a rank that died leaves the
# other waiting in NCCL's rendezvous).
limit=${WARPLAB_RANKS_TIMEOUT:-240}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

run_pair() { # id spec for rank 0, id spec for rank 1
    timeout "$limit" "$program" --rank 0 --ranks 2 --id "$1" >"$dir/rank0.log" 2>&1 &
    first=$!
    timeout "$limit" "$program" --rank 1 --ranks 2 --id "$2" >"$dir/rank1.log" 2>&1 &
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
# A launcher hands every rank rank 0's address and a port (NCCL_COMM_ID's
# rendezvous; rank 0 serves it).
WARPLAB_TEST_ID=127.0.0.1:$(( 20000 + $$ % 20000 ))
export WARPLAB_TEST_ID
run_pair "env:WARPLAB_TEST_ID" "env:WARPLAB_TEST_ID"
exit $?
