#!/bin/bash
# The all-reduce ladder on a machine with 2 GPUs or more (docs/MULTIGPU.md):
# build what it needs, run its tests, the peer query and the ladder, and
# print a short table (1 MiB, 64 MiB, 1 GiB: algbw, busbw, ratio to NCCL).
#   scripts/allreduce-check.sh BUILD_DIR OUT_DIR [check|sweep|full|full-timings|full-tests]
# (WARPLAB_PREBUILT=1: BUILD_DIR holds a build made elsewhere; no build step.)
# full-timings, full-tests, full: the 4-GPU check, build included, inside
# WARPLAB_CHECK_SECONDS (default 540; every step's limit is cut to what is
# left, and a step with no time left says so). On 4 x H200 (64 cores) the
# build takes about 220 s and a G = 4 row of 1 GiB or more 5-20 s (its
# inputs made and its results checked on the GPU), so one call of 600 s
# holds the build and either the timings or the tests: full-timings in one
# call and full-tests in another; full runs both in that order and drops
# what does not fit (WARPLAB_CHECK_TESTS_SECONDS: the tests' limit, default
# 170). Up to eight files in OUT_DIR:
#   peers.txt       the peer matrix (warplab devices --peers);
#   g4-tuning.json  G = 4 on the planner's tuning set (n = 2^10, 2^12, ..,
#                   2^28 floats: 4 KiB .. 1 GiB) and 4 GiB (2^30, judged):
#                   the flag rungs (two_shot_push last: the row a run cut short
#                   loses), NCCL and the library call (`dispatch`);
#   g4-judged.json  G = 4 on the judged set, never fitted on: the sizes
#                   between (2^11, .., 2^29) and eight sizes drawn once,
#                   log-uniform (seed 37): two_shot_flags, NCCL, the library;
#   comm.txt        warplab_comm_allreduce, one process a GPU (2 and 4
#                   ranks, tests/cuda/allreduce_ranks.sh with
#                   WARPLAB_RANKS_TIMING): a comm on the peer rungs
#                   (WARPLAB_COMM_PEERS=1) timed beside one joined by
#                   default (NCCL) in the same processes, 4 KiB .. 64 MiB;
#   g2.json, g3.json  G = 2 and G = 3 (WARPLAB_ALLREDUCE_GPUS) on the sweep's
#                   sizes 4 KiB .. 4 GiB (G = 3 also 128 KiB and 32 MiB, the
#                   planner's limits);
#   tests.txt       ctest -R allreduce (every rung; the ranks: 2 and 4
#                   processes joined by id file and by HOST:PORT) beside
#                   compute-sanitizer memcheck and racecheck on every rung
#                   (G = every GPU, n up to 1000; memcheck of the rungs
#                   that open NCCL, n up to 31);
#   summary.txt     scripts/allreduce_table.py's tables and the targets.
# NVLink multicast stays off: NCCL_NVLS_ENABLE=0 here and in the program.
set -u -o pipefail
export NCCL_NVLS_ENABLE=0
build=${1:-/tmp/wl-allreduce}
out=${2:-/tmp/wl-allreduce-out}
mode=${3:-check}
case $mode in full | full-timings | full-tests) ;; check | sweep) ;; *)
    echo "unknown mode '$mode' (check, sweep, full, full-timings, full-tests)"; exit 2 ;; esac
mkdir -p "$out"
start=$(date +%s)
budget=${WARPLAB_CHECK_SECONDS:-540}
tests_keep=0 # what the timings leave for the tests and sanitizers
[ "$mode" = full ] && tests_keep=130
# Message sizes in floats (full): the planner's tuning set, the judged set,
# the sweep's.
tuning=2^10,2^12,2^14,2^16,2^18,2^20,2^22,2^24,2^26,2^28
# The sizes between and eight drawn once (python3: r = random.Random(37);
# sorted(int(2 ** r.uniform(10, 30)) for _ in range(8))).
# The largest last (the rows cut first when time runs out).
judged=2^11,2^13,2^15,2^17,2^19,2^21,2^23,2^25
judged=$judged,3645,171113,1291265,5369390,6449515,13073038,108341127,119994920,2^27,2^29
sweep=2^10,2^12,2^14,2^16,2^18,2^20,2^22,2^24,2^26,2^28,2^30
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

# A build made elsewhere (the same sources, sm_90, CTest files pointing
# here) is used as it is: WARPLAB_PREBUILT=1 skips the build step.
if [ -n "${WARPLAB_PREBUILT:-}" ]; then
    echo "== build: prebuilt in $build"
    [ -n "$nccl_root" ] && export LD_LIBRARY_PATH=$nccl_root/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    # The generated list of rung tests names the directory it was built in.
    made=$(sed -n 's#^if(EXISTS "\(.*\)/tests/rung_tests_list.cmake")#\1#p' \
        "$build/tests/rung_tests_include.cmake" 2>/dev/null)
    if [ -n "$made" ] && [ "$made" != "$build" ]; then
        sed -i "s#$made/#$build/#g" "$build"/tests/rung_tests_include.cmake "$build"/tests/rung_tests_list.cmake
    fi
    (cd "$build" && ctest -N -R "cuda\.allreduce\." | tail -1)
else
    echo "== build"
    cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DWARPLAB_WERROR=ON \
        ${nccl_root:+-DNCCL_ROOT=$nccl_root} 2>&1 | grep -E "NCCL|backends"
    targets="warplab-cli test_ladders test_allreduce_cuda"
    case $mode in full*) targets="$targets test_allreduce_plan" ;; esac
    cmake --build "$build" -j"$(nproc)" --target $targets 2>&1 | grep -E "error|warning" | head -20
    echo "build done at $(( $(date +%s) - start )) s"
fi
[ -x "$build/warplab" ] || { echo "no warplab binary"; exit 1; }

if [ "$mode" = full ] || [ "$mode" = full-timings ]; then
    # Timings first, alone on the GPUs, then the checks side by side. Every
    # step has its limit, cut to what is left of the call's budget
    # (WARPLAB_CHECK_SECONDS from the start, build included) less what the
    # tests keep for themselves, so that the call ends inside its limit and
    # a step cut short still leaves the files of the steps before it.
    timeout 20 "$build/warplab" devices --peers > "$out/peers.txt" 2>&1
    bench() { # bench SECONDS FILE.json ARGS...: one bench run, at most SECONDS (and the budget)
        local want=$1 file=$2 limit
        shift 2
        limit=$(( budget - tests_keep - ($(date +%s) - start) ))
        [ "$limit" -gt "$want" ] && limit=$want
        if [ "$limit" -lt 10 ]; then echo "$file: no time left (budget)"; return; fi
        local t0=$(date +%s)
        timeout "$limit" "$build/warplab" bench allreduce --max-seconds 0.03 -q --json "$out/$file" \
            "$@" > /tmp/ar-bench.txt 2>&1
        local status=$?
        echo "$file: exit $status in $(( $(date +%s) - t0 )) s (limit $limit s)"
        [ $status -ne 0 ] && tail -4 /tmp/ar-bench.txt
    }
    # A row costs seconds whatever its size (its buffers, checks, and for
    # nccl and dispatch NCCL's communicators): 6 rungs x 10 sizes at G = 4
    # outran 150 s on 4 x H200. So the rows are few: the library call and
    # NCCL at every size, beside the rungs the planner picks from, in that
    # order (a size's rows run in the order named: a run cut short keeps
    # the library's and NCCL's).
    echo "== G=4, the tuning set (the planner's limits were fitted on these) and 4 GiB"
    bench 130 g4-tuning.json --size "$tuning,2^30" --rung nccl,dispatch,two_shot_flags,one_shot,two_shot_push
    echo "== warplab_comm_allreduce (one process a GPU), its peer rungs beside NCCL"
    limit=$(( budget - tests_keep - ($(date +%s) - start) ))
    [ "$limit" -gt 75 ] && limit=75
    if [ "$limit" -lt 20 ]; then
        echo "comm.txt: no time left (budget)"
    else
        rm -f "$out/comm.txt"
        t0=$(date +%s)
        WARPLAB_RANKS_TIMING=$out/comm.txt WARPLAB_RANKS_TIMEOUT=$((limit - 5)) NCCL_DEBUG=WARN \
            timeout "$limit" sh tests/cuda/allreduce_ranks.sh "$build/tests/cuda/test_allreduce_cuda" \
            > /tmp/ar-ranks-timing.txt 2>&1
        status=$?
        echo "comm.txt: exit $status in $(( $(date +%s) - t0 )) s (limit $limit s)"
        [ $status -ne 0 ] && grep -v "^comm\|^nccl comm" /tmp/ar-ranks-timing.txt | tail -20
    fi
    echo "== G=2 (the planner's G=2 rows)"
    WARPLAB_ALLREDUCE_GPUS=2 bench 90 g2.json --size "$sweep" \
        --rung nccl,dispatch,two_shot_flags,one_shot,two_shot_push
    echo "== G=4, the judged set (never fitted on; 4 GiB is in the first run)"
    bench 100 g4-judged.json --size "$judged" --rung nccl,dispatch,two_shot_flags
    echo "== G=3 (GPUs 0-2: the planner's G=3-4 rows, fitted at G=4)"
    WARPLAB_ALLREDUCE_GPUS=3 bench 70 g3.json --size "$sweep,2^15,2^23" \
        --rung nccl,dispatch,two_shot_flags
fi
if [ "$mode" = full ] || [ "$mode" = full-tests ]; then
    echo "== tests and sanitizers (side by side)"
    left=$(( budget - ($(date +%s) - start) - 10 ))
    cap=${WARPLAB_CHECK_TESTS_SECONDS:-170}
    [ "$left" -gt "$cap" ] && left=$cap
    echo "tests limit: $left s"
    (cd "$build" && WARPLAB_RANKS_TIMEOUT=$((left - 10)) timeout "$left" ctest -R allreduce -j6 \
        --output-on-failure --timeout "$left" > /tmp/ar-ctest.txt 2>&1; echo "ctest exit $?" >> /tmp/ar-ctest.txt) &
    tests=$!
    # Every rung under both tools at once (the GPUs time-slice the
    # processes), G = every GPU, the ladder's test problems up to n = 1000;
    # a rung whose flags never arrive would hang: each run has the limit
    # (exit 124).
    # memcheck over NCCL's communicators (nccl; dispatch, whose group opens
    # them from G = 3) outran 115 s at n <= 1000 on 4 x H200 (racecheck took
    # less): those two run the problems up to n = 31.
    # NCCL's own threads make CUDA calls that fail by design and that NCCL
    # handles: cudaFuncGetAttributes on its kernels not built for this GPU
    # (no kernel image), and cudaGetLastError after its peer enable finds
    # ours (already enabled). memcheck counts those API errors in its
    # summary (16 and 200 of them at G = 4, every one in libnccl.so), so the
    # programs that open NCCL run with --report-api-errors no: memory errors
    # are still reported.
    rungs="one_shot two_shot_flags two_shot_push dispatch two_shot ring peer_read through_one host_staging nccl"
    for rung in $rungs; do
        for tool in memcheck racecheck; do
            largest=1000
            api=()
            { [ $rung = nccl ] || [ $rung = dispatch ]; } && api=(--report-api-errors no)
            [ $tool = memcheck ] && [ ${#api[@]} -gt 0 ] && largest=31
            (timeout $((left - 5)) compute-sanitizer --tool $tool "${api[@]}" --error-exitcode 9 "$build/tests/test_ladders" \
                --backend cuda --ladder allreduce --rung $rung --max-size $largest --no-timing \
                > /tmp/ar-san-$tool-$rung.txt 2>&1; echo "exit $?" >> /tmp/ar-san-$tool-$rung.txt) &
        done
    done
    # One process a GPU (warplab_comm_allreduce through the mapped staging
    # areas) under memcheck: two ranks, by file and by HOST:PORT, the counts
    # up to 65537 (one_shot, two_shot_flags and the comm kept on NCCL).
    # (A comm opens NCCL: --report-api-errors no, as above.)
    printf '#!/bin/sh\nexec compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9 "%s" "$@"\n' \
        "$build/tests/cuda/test_allreduce_cuda" > /tmp/ar-san-rank.sh
    chmod +x /tmp/ar-san-rank.sh
    (WARPLAB_RANKS_COUNTS=2 WARPLAB_RANKS_LARGEST=65537 WARPLAB_RANKS_TIMEOUT=$((left - 10)) \
        timeout $((left - 5)) sh tests/cuda/allreduce_ranks.sh /tmp/ar-san-rank.sh \
        > /tmp/ar-san-memcheck-ranks.txt 2>&1; echo "exit $?" >> /tmp/ar-san-memcheck-ranks.txt) &
    wait
    {
        echo "== ctest -R allreduce"; grep -E "tests passed|Passed|Failed|Not Run|Skipped|\*\*\*|ctest exit|== [0-9] ranks|ranks exited" /tmp/ar-ctest.txt | head -40
        echo "== compute-sanitizer (G = every GPU, the test problems up to n = 1000; memcheck of nccl and dispatch to n = 31)"
        for rung in $rungs; do
            for tool in memcheck racecheck; do
                echo "$tool $rung: $(grep -E 'ERROR SUMMARY|checked|^exit' /tmp/ar-san-$tool-$rung.txt | tr -s ' ' | tr '\n' ' ')"
            done
        done
        echo "memcheck ranks (2 processes, n <= 65537): $(grep -E 'ERROR SUMMARY|^exit' /tmp/ar-san-memcheck-ranks.txt | tr -s ' ' | tr '\n' ' ')"
        echo "== failures in full"
        grep -B2 -A25 -E "FAILED|Failed  |\*\*\*Timeout|\*\*\*Exception" /tmp/ar-ctest.txt | head -80
        for f in /tmp/ar-san-*.txt; do
            grep -qE "^exit 0$" "$f" || { echo "-- $f"; grep -v "^=========     " "$f" | head -30; }
        done
    } > "$out/tests.txt" 2>&1
    head -60 "$out/tests.txt"
fi
if [ "${mode%%-*}" = full ]; then
    if [ "$mode" != full-tests ]; then
        { python3 scripts/allreduce_table.py "$out"/g4-tuning.json "$out"/g4-judged.json \
            "$out"/g3.json "$out"/g2.json; echo; cat "$out/comm.txt"; } > "$out/summary.txt" 2>&1
        cat "$out/summary.txt" "$out/peers.txt"
    fi
    echo "$mode: $(( $(date +%s) - start )) s"
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
