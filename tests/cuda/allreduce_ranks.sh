#!/bin/sh
# One process per GPU on one host: ranks of test_allreduce_cuda join through
# an id in a file and through an environment variable (HOST:PORT), each
# checks its all-reduce; first two ranks, then four where four GPUs are
# present (a rank skips, 77, when there are fewer GPUs than ranks). Exit 77
# when every rank of the two-rank runs skips (fewer than 2 GPUs, or no
# NCCL). NVLink multicast stays off (NCCL_NVLS_ENABLE=0).
#   allreduce_ranks.sh PATH/TO/test_allreduce_cuda
# (WARPLAB_RANKS_COUNTS="2": the two-rank runs only; PATH may be a wrapper
# that starts the program under compute-sanitizer.)
set -u
program=$1
export NCCL_NVLS_ENABLE=0
export WARPLAB_RANKS_ONE_HOST=1
# One host: NCCL's bootstrap over the loopback interface (a sandbox's other
# interfaces may lead nowhere); a caller's choice stays.
export NCCL_SOCKET_IFNAME=${NCCL_SOCKET_IFNAME:-lo}
# Each rank gives up after this many seconds (a rank that died leaves the
# others waiting in NCCL's rendezvous).
limit=${WARPLAB_RANKS_TIMEOUT:-240}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# run_ranks N ID: N processes joined through ID; 77 when all skip.
run_ranks() {
    ranks=$1
    pids=
    r=0
    while [ $r -lt "$ranks" ]; do
        timeout "$limit" "$program" --rank $r --ranks "$ranks" --id "$2" >"$dir/rank$r.log" 2>&1 &
        pids="$pids $!"
        r=$((r + 1))
    done
    skipped=0
    failed=0
    statuses=
    for pid in $pids; do
        wait "$pid"
        status=$?
        statuses="$statuses $status"
        if [ $status -eq 77 ]; then
            skipped=$((skipped + 1))
        elif [ $status -ne 0 ]; then
            failed=1
        fi
    done
    r=0
    while [ $r -lt "$ranks" ]; do
        cat "$dir/rank$r.log"
        r=$((r + 1))
    done
    rm -f "$dir/id" "$dir/id.nccl"
    if [ $skipped -eq "$ranks" ]; then return 77; fi
    if [ $failed -ne 0 ] || [ $skipped -ne 0 ]; then
        echo "ranks exited$statuses"
        return 1
    fi
    return 0
}

# A launcher hands every rank rank 0's address and a port (NCCL_COMM_ID's
# rendezvous; rank 0 serves it): a port of its own for each run.
port=$((20000 + $$ % 20000))
for ranks in ${WARPLAB_RANKS_COUNTS:-2 4}; do
    echo "== $ranks ranks, id through a file"
    run_ranks $ranks "file:$dir/id"
    status=$?
    if [ $status -eq 77 ] && [ $ranks -gt 2 ]; then
        echo "($ranks ranks skipped: fewer GPUs)"
        continue
    fi
    [ $status -ne 0 ] && exit $status

    echo "== $ranks ranks, id through an environment variable"
    WARPLAB_TEST_ID=127.0.0.1:$port
    port=$((port + 1))
    export WARPLAB_TEST_ID
    run_ranks $ranks "env:WARPLAB_TEST_ID"
    status=$?
    [ $status -ne 0 ] && exit $status
done
exit 0
