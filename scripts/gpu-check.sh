#!/usr/bin/env bash
# The whole GPU check, on a machine with an NVIDIA GPU:
#   1. build for sm_90 (Release, warnings on);
#   2. every test, the cuda backend's included (ctest; each cuda rung is a
#      test of its own, cuda.LADDER.RUNG, e.g. cuda.reduce.sequential:
#      CTEST_ARGS="-R cuda\.(reduce|transpose)\." runs those two ladders);
#   3. compute-sanitizer memcheck, racecheck, synccheck and initcheck over the
#      cuda backend's rung tests (unsafe rungs left out; racecheck then runs on
#      them alone, to show the race they teach), over warplab_gemm with
#      exact-size buffers (tests/unit/test_gemm_exact.c) and over the probes'
#      kernels; first, whether initcheck sees a TMA store's writes at all
#      (scripts/tma-store-initcheck.cu, informational);
#   4. the full benchmark (every ladder, full sizes) and the probes, with JSON
#      and SVG output;
#   5. one --counters pass (Nsight Compute) over reduce (2^24), transpose
#      (16384^2: 1 GiB each way, well past the L2, so that the DRAM bytes of
#      the best rung are all of them) and gemm's many_blocks and tiled16 at
#      4096^3 (the multi-block kernel's DRAM bytes a flop against seed 002's
#      bound): each lesson's counter, borne out or contradicted.
# Writes logs and results under $RESULTS (default out/gpu-check) and prints a
# summary last; when $OUT is set (the device tool's folder), packs them there
# as gpu-check.tgz beside summary.txt and tables.txt. Never changes the GPU's
# clocks or settings.
#
#   STEPS="build test sanitize bench probe counters"  which steps to run (default: all)
#   LADDERS="vecadd reduce transpose gemm scan histogram"   which ladders to sanitize / bench
#   SANITIZE_MAX_SIZE=N                      largest problem under the sanitizers
#   RACECHECK_ONE_BLOCK_MAX_SIZE=N           largest problem of the scan ladder's one-block
#                                            rungs under racecheck (default 5000: every
#                                            chunk-to-chunk carry of the block; one block
#                                            walking 65537 elements outran 185 s there)
#   SANITIZE_PARALLEL=N                      sanitized programs at once (default: 4 a GPU), each
#                                            on one GPU in turn (CUDA_VISIBLE_DEVICES); the
#                                            ladders go rung by rung
#   DEADLINE=S                               seconds from the start: no sanitized program starts
#                                            past it and a running one is stopped there (the
#                                            summary names what did not finish); default none
#   SANITIZE_TOOLS="memcheck racecheck synccheck initcheck"
#   SANITIZE_SETS="ladders api probes"       what the sanitizers run: the ladders' rungs,
#                                            the library API tests, the probes' kernels
#   BENCH_ARGS="..."                         extra arguments for warplab bench
#   CTEST_ARGS="..."                         extra arguments for ctest (e.g. -E transpose,
#                                            -R 'cuda\.reduce\.' for one ladder's rungs)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
export PATH="$PATH:/usr/local/cuda/bin"
# NVLink multicast stays off (the all-reduce ladder's NCCL rows; docs/MULTIGPU.md).
export NCCL_NVLS_ENABLE=0

RESULTS=${RESULTS:-out/gpu-check}
BUILD=${BUILD:-build-gpu}
STEPS=${STEPS:-build test sanitize bench probe counters}
LADDERS=${LADDERS:-vecadd reduce transpose gemm scan histogram}
SANITIZE_MAX_SIZE=${SANITIZE_MAX_SIZE:-2100000}
RACECHECK_ONE_BLOCK_MAX_SIZE=${RACECHECK_ONE_BLOCK_MAX_SIZE:-5000}
BENCH_ARGS=${BENCH_ARGS:-}
CTEST_ARGS=${CTEST_ARGS:-}
SANITIZE_TOOLS=${SANITIZE_TOOLS:-memcheck racecheck synccheck initcheck}
SANITIZE_SETS=${SANITIZE_SETS:-ladders api probes}
JOBS=$(nproc 2>/dev/null || echo 4)
GPU_COUNT=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
[ "$GPU_COUNT" -ge 1 ] 2>/dev/null || GPU_COUNT=1
SANITIZE_PARALLEL=${SANITIZE_PARALLEL:-$((4 * GPU_COUNT))}
DEADLINE=${DEADLINE:-}
STARTED=$(date +%s)
mkdir -p "$RESULTS"
summary=()
failed=0

note() { summary+=("$1"); echo "== $1"; }
has_step() { case " $STEPS " in *" $1 "*) return 0 ;; esac; return 1; }
has_set() { case " $SANITIZE_SETS " in *" $1 "*) return 0 ;; esac; return 1; }

nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem,clocks.max.sm \
    --format=csv >"$RESULTS/gpu.txt" 2>&1 || true
device=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)
note "device: ${device:-unknown} ($(date -u +%Y-%m-%dT%H:%M:%SZ))"

if has_step build; then
    start=$SECONDS
    if cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
        -DWARPLAB_WERROR=ON >"$RESULTS/build.log" 2>&1 &&
        cmake --build "$BUILD" -j "$JOBS" >>"$RESULTS/build.log" 2>&1; then
        note "build: ok ($((SECONDS - start)) s, sm_90, warnings as errors)"
    else
        note "build: FAILED (see build.log)"
        tail -n 40 "$RESULTS/build.log"
        printf '%s\n' "${summary[@]}" >"$RESULTS/summary.txt"
        exit 1
    fi
fi
BIN="$BUILD/warplab"
TESTS="$BUILD/tests"

if has_step test; then
    start=$SECONDS
    if (cd "$BUILD" && ctest --output-on-failure -j 4 --timeout 1500 $CTEST_ARGS) >"$RESULTS/ctest.log" 2>&1; then
        result="ok"
    else
        result="FAILED"
        failed=1
    fi
    line=$(grep -E "tests passed|tests failed" "$RESULTS/ctest.log" | tail -n 1)
    skipped=$(grep -c "(Skipped)" "$RESULTS/ctest.log" || true)
    note "ctest: $result: $line; $skipped skipped ($((SECONDS - start)) s)"
    grep -E "^\s*[0-9]+/[0-9]+ Test" "$RESULTS/ctest.log" | grep -v "Passed" | head -n 20
fi

if has_step sanitize; then
    if ! command -v compute-sanitizer >/dev/null 2>&1; then
        note "compute-sanitizer: NOT FOUND"
        failed=1
    else
        # One sanitized program, queued: tool, name, WARPLAB_TEST_SMALL (- for
        # none) and the command, a line of sanitize-jobs.txt (| between them;
        # the command's own are quoted); run_sanitized runs the queue
        # (SANITIZE_PARALLEL at once, GPUs in turn), each program's log
        # ending in "exit N" (77: not in this build, or no device for it;
        # 124: stopped at DEADLINE; "not started": DEADLINE had passed).
        jobs_file="$RESULTS/sanitize-jobs.txt"
        : >"$jobs_file"
        sanitize() {
            local tool=$1 name=$2
            shift 2
            printf '%s|%s|%s|%s\n' "$tool" "$name" "${WARPLAB_TEST_SMALL:--}" \
                "$(printf '%q ' compute-sanitizer --tool "$tool" --error-exitcode 99 "$@")" >>"$jobs_file"
        }
        sanitize_one() { # the job's line number, then its line
            local tool name small command
            IFS='|' read -r tool name small command <<<"$2"
            [ "$small" = - ] && small=
            local log="$RESULTS/sanitize-$tool-$name.log" limit=86400
            if [ -n "$DEADLINE" ]; then
                limit=$((DEADLINE - ($(date +%s) - STARTED)))
                if [ "$limit" -lt 5 ]; then echo "not started (DEADLINE)" >"$log"; return; fi
            fi
            (export CUDA_VISIBLE_DEVICES=$(($1 % GPU_COUNT)) ${small:+WARPLAB_TEST_SMALL=$small}
                eval "timeout $limit $command" >"$log" 2>&1
                echo "exit $?" >>"$log")
        }
        run_sanitized() {
            export -f sanitize_one
            export RESULTS DEADLINE STARTED GPU_COUNT
            awk '{print NR "|" $0}' "$jobs_file" | tr '\n' '\0' |
                xargs -0 -P "$SANITIZE_PARALLEL" -I{} bash -c 'sanitize_one "${1%%|*}" "${1#*|}"' _ {}
        }
        # Does initcheck see what the copy engine (a TMA store) writes? A
        # self-test of the tool, not of the library (scripts/tma-store-initcheck.cu;
        # docs/DECISIONS.md, "initcheck does not see the copy engine's writes"): a fully written box stored by TMA,
        # clipped or not, against the same written by st.global. Informational;
        # it runs beside the queue (serially before it, it took about 4 minutes
        # of a 2 x H200 call), its verdict noted after.
        tma_self_test() {
            self_test="$RESULTS/tma-store-initcheck" # (per RESULTS: two checks may share a BUILD)
            log="$RESULTS/sanitize-initcheck-tma-self-test.log"
            if nvcc -arch=sm_90a -o "$self_test" scripts/tma-store-initcheck.cu -lcuda >"$log" 2>&1 &&
                "$self_test" >>"$log" 2>&1; then
                verdict=""
                modes="plain tma edge"
                compute-sanitizer --help 2>/dev/null | grep -q -- --check-bulk-copy && modes="$modes bulk"
                for mode in $modes; do
                    case $mode in
                    plain | edge) args=("$self_test" "$mode") ;;
                    tma) args=("$self_test") ;;
                    bulk) args=(--check-bulk-copy yes "$self_test") ;;
                    esac
                    echo "== initcheck $mode" >>"$log"
                    if compute-sanitizer --tool initcheck --error-exitcode 99 "${args[@]}" >>"$log" 2>&1; then
                        verdict="$verdict $mode clean,"
                    else
                        verdict="$verdict $mode REPORTS,"
                    fi
                done
                echo "initcheck self-test on TMA stores (st.global = plain):${verdict%,}"
            else
                echo "initcheck self-test on TMA stores: not run (no sm_90a build or run; see $(basename "$log"))"
            fi >"$RESULTS/tma-self-test.txt"
        }
        self_test_pid=""
        case " $SANITIZE_TOOLS " in *" initcheck "*)
            tma_self_test &
            self_test_pid=$! ;;
        esac
        start=$SECONDS
        # The library API tests and the probes first, then the ladders, racecheck's
        # programs before the other tools': the longest programs start first, so that
        # none of them begins near the end of the queue (racecheck of the API set
        # takes minutes; racecheck of the scan ladder's one-block rungs at 2.1M
        # elements outran 360 s, below).
        for tool in $SANITIZE_TOOLS; do
            if has_set api; then
                # (FP32 compute on transposed operands: the op T operands
                # transposed into the workspace, the FP32 dispatcher on them.
                # First: under racecheck it takes minutes, and racecheck runs
                # its short list, without the 2600 x 2300 x 1100 cases, which
                # outran 360 s; the other tools run them.)
                if [ "$tool" = racecheck ]; then
                    sanitize "$tool" gemm-ex-fp32-copy "$TESTS/test_gemm_ex_api" --fp32-copy --sanitizer
                else
                    sanitize "$tool" gemm-ex-fp32-copy "$TESTS/test_gemm_ex_api" --fp32-copy
                fi
                # The library as users call it, exact-size buffers (no guard
                # zones): every path of the FP32 dispatcher (warplab_gemm), every
                # op, type and output type of warplab_gemm_ex; wrapped
                # cudaMalloc / cudaMallocAsync / managed memory, unaligned views,
                # the caller's streams, device results, a replayed graph.
                sanitize "$tool" gemm-exact "$TESTS/test_gemm_exact" --backend cuda
                # (gemm_ex: its short list, every path and op; the full list
                # runs unsanitized in ctest.)
                sanitize "$tool" gemm-ex-api "$TESTS/test_gemm_ex_api" cuda --sanitizer
                # (The decode regime, m or n up to 32: the tensor-core and
                # register-tiled GEMV rows, every type, views off 16 bytes.)
                sanitize "$tool" gemm-decode "$TESTS/cuda/test_gemm_decode_cuda" --short
                # (Strided batches: the batch in one kernel's grid, strides of
                # 0 and padded, views off 16 bytes and the loop over matrices.)
                sanitize "$tool" gemm-batched "$TESTS/cuda/test_gemm_batched_cuda" --short
                # (The large cases: TF32 copies onto 128-byte lines, 16-bit over many tiles;
                # memory tools only.)
                case "$tool" in memcheck | initcheck)
                    sanitize "$tool" gemm-ex-lines "$TESTS/test_gemm_ex_api" cuda --lines ;;
                esac
                # (The 192 x 128 16-bit tile: every layout, both Cs, beta, a
                # split; racecheck its short list, N, N and T, T.)
                if [ "$tool" = racecheck ]; then
                    sanitize "$tool" gemm-ex-tall "$TESTS/test_gemm_ex_api" cuda --tall-short
                else
                    sanitize "$tool" gemm-ex-tall "$TESTS/test_gemm_ex_api" cuda --tall
                fi
                # (The swapped 16-bit product: 128 x 96 tiles of C^T, C written
                # transposed, a split; racecheck its first shape.)
                if [ "$tool" = racecheck ]; then
                    sanitize "$tool" gemm-ex-swapped "$TESTS/test_gemm_ex_api" cuda --swapped-short
                else
                    sanitize "$tool" gemm-ex-swapped "$TESTS/test_gemm_ex_api" cuda --swapped
                fi
                # (ex16_thin as planned: 8- and 4-byte rows, Y strided and
                # along k, m small; racecheck the first shape.)
                if [ "$tool" = racecheck ]; then
                    sanitize "$tool" gemm-ex-thin "$TESTS/test_gemm_ex_api" cuda --thin-short
                else
                    sanitize "$tool" gemm-ex-thin "$TESTS/test_gemm_ex_api" cuda --thin
                fi
                WARPLAB_TEST_SMALL=1 sanitize "$tool" dropin-cuda "$TESTS/cuda/test_dropin_cuda"
                WARPLAB_TEST_SMALL=1 sanitize "$tool" scan-cuda "$TESTS/cuda/test_scan_cuda"
                WARPLAB_TEST_SMALL=1 sanitize "$tool" dropin "$TESTS/test_dropin" --backend cuda
                WARPLAB_TEST_SMALL=1 sanitize "$tool" example-cuda-stream \
                    "$TESTS/cuda/example_cuda_stream"
                # (warplab_histogram: wrapped unaligned samples, counts at an
                # offset, every sample type; a captured graph against CUB.)
                WARPLAB_TEST_SMALL=1 sanitize "$tool" histogram-api "$TESTS/test_histogram_api" \
                    --backend cuda
                WARPLAB_TEST_SMALL=1 sanitize "$tool" histogram-graph "$TESTS/cuda/test_histogram_cuda"
            fi
            if has_set probes; then
                # The probes' kernels, on their small test problems (no timing, no end-to-end run).
                sanitize "$tool" probes "$TESTS/test_probes" --backend cuda --no-timing --no-run
            fi
        done
        for tool in $SANITIZE_TOOLS; do
            if has_set ladders; then
                # Rung by rung (the host loops have no kernel), so that the
                # rungs run side by side and a failure names its rung.
                for ladder in $LADDERS; do
                    for rung in $("$BIN" ladders "$ladder" 2>/dev/null | awk 'NR > 1 && $1 !~ /^cpu_/ {print $1}'); do
                        size=$SANITIZE_MAX_SIZE
                        case "$tool $ladder $rung" in "racecheck scan hillis_steele" | "racecheck scan blelloch" | \
                            "racecheck scan conflict_free" | "racecheck scan warp_shuffle")
                            size=$RACECHECK_ONE_BLOCK_MAX_SIZE ;;
                        esac
                        sanitize "$tool" "$ladder-$rung" "$TESTS/test_ladders" --backend cuda \
                            --ladder "$ladder" --rung "$rung" --skip-unsafe --no-timing \
                            --max-size "$size"
                    done
                done
                # The persistent TMA rungs on problems of more tiles than SMs (each
                # block walks several tiles; 4096x4096x1, 4100x2100x40 with beta;
                # the clusters' odd tile rows: 4100x2100x40, 2175x2047x509; stream-K's
                # shares, 4 to a tile, the last written in the workspace: 2175x2047x509).
                case " $LADDERS " in *" gemm "*)
                    for rung in bf16_wgmma_tma tf32_wgmma_tma bf16_wgmma_tma_store \
                        bf16_wgmma_cluster fp16_wgmma_tma_store fp16_wgmma_cluster \
                        tf32_wgmma_tma_store tf32_wgmma_cluster bf16_wgmma_streamk \
                        fp16_wgmma_streamk tf32_wgmma_streamk; do
                        sanitize "$tool" "gemm-$rung-multitile" "$TESTS/test_ladders" \
                            --backend cuda --ladder gemm --rung "$rung" --no-timing --max-size 4e8
                    done ;;
                esac
            fi
        done
        { grep "^racecheck|" "$jobs_file"; grep -v "^racecheck|" "$jobs_file"; } >"$jobs_file.sorted"
        mv "$jobs_file.sorted" "$jobs_file"
        run_sanitized
        if [ -n "$self_test_pid" ]; then
            wait "$self_test_pid"
            note "$(cat "$RESULTS/tma-self-test.txt")"
        fi
        for tool in $SANITIZE_TOOLS; do
            bad="" unfinished="" programs=0
            while IFS='|' read -r job_tool name _; do
                [ "$job_tool" = "$tool" ] || continue
                programs=$((programs + 1))
                rc=$(sed -n 's/^exit \([0-9]*\)$/\1/p' "$RESULTS/sanitize-$tool-$name.log" | tail -n 1)
                case "$rc" in
                0 | 77) ;;
                124 | "") unfinished="$unfinished $name" ;;
                *) bad="$bad $name(rc=$rc)" ;;
                esac
            done <"$jobs_file"
            if [ -n "$bad" ]; then
                note "compute-sanitizer $tool: ERRORS in$bad"
                failed=1
            elif [ -n "$unfinished" ]; then
                note "compute-sanitizer $tool: NOT FINISHED by DEADLINE:$unfinished"
                failed=1
            else
                note "compute-sanitizer $tool: clean ($SANITIZE_SETS; $programs programs)"
            fi
        done
        note "compute-sanitizer: $((SECONDS - start)) s, $SANITIZE_PARALLEL at once on $GPU_COUNT GPU(s)"
        # The rungs whose race is the lesson: racecheck is expected to speak.
        unsafe=""
        has_set ladders && case " $SANITIZE_TOOLS " in *" racecheck "*)
            unsafe=$("$BIN" ladders --unsafe 2>/dev/null || true) ;;
        esac
        for entry in $unsafe; do
            ladder=${entry%%/*}
            rung=${entry##*/}
            log="$RESULTS/sanitize-racecheck-unsafe-$ladder-$rung.log"
            compute-sanitizer --tool racecheck --racecheck-report hazard \
                "$TESTS/test_ladders" --backend cuda --ladder "$ladder" --rung "$rung" \
                --no-timing --max-size 70000 >"$log" 2>&1
            hazards=$(grep -cE "Race reported|hazard" "$log" || true)
            note "racecheck on unsafe $ladder/$rung: $hazards hazard lines (expected > 0)"
        done
    fi
fi

if has_step bench; then
    start=$SECONDS
    # The library's calls against CUB, cuBLAS and a float4 kernel, same run.
    if "$BIN" bench api --backend cuda --quiet --json "$RESULTS/bench-api.json" \
        >"$RESULTS/bench-api.txt" 2>&1; then
        note "bench api: ok"
    else
        note "bench api: FAILED rows or error (see bench-api.txt)"
        failed=1
    fi
    for ladder in $LADDERS; do
        if "$BIN" bench "$ladder" --backend cuda --quiet --json "$RESULTS/bench-$ladder.json" \
            --plot "$RESULTS/bench-$ladder.svg" $BENCH_ARGS >"$RESULTS/bench-$ladder.txt" 2>&1; then
            note "bench $ladder: ok"
        else
            note "bench $ladder: FAILED rows or error (see bench-$ladder.txt)"
            failed=1
        fi
    done
    # The gemm shape set: the dispatcher against cuBLAS FP32 per shape, with
    # the geometric mean and the worst shape at the end.
    case " $LADDERS " in *" gemm "*)
        if "$BIN" bench gemm --shapes --backend cuda --quiet --max-seconds 0.25 --repeat 15 \
            --json "$RESULTS/bench-gemm-shapes.json" >"$RESULTS/bench-gemm-shapes.txt" 2>&1; then
            note "bench gemm --shapes: ok; $(grep -E '^dispatch vs' "$RESULTS/bench-gemm-shapes.txt")"
        else
            note "bench gemm --shapes: FAILED rows or error (see bench-gemm-shapes.txt)"
            failed=1
        fi ;;
    esac
    note "bench: $((SECONDS - start)) s"
fi

if has_step counters; then
    start=$SECONDS
    # Each rung once more under ncu; the verdicts ("borne out", "CONTRADICTED")
    # follow each ladder's table.
    # gemm: seed 002's multi-block kernel against its 4-bytes-a-flop bound,
    # and what 16 x 16 tiles save (two rungs only: ncu replays every kernel).
    for spec in "reduce 2^24" "transpose 16384x16384" "gemm 4096x4096x4096 --rung many_blocks,tiled16"; do
        set -- $spec
        if "$BIN" bench "$1" --backend cuda --size "$2" "${@:3}" --quiet --counters --max-seconds 0.2 \
            >"$RESULTS/counters-$1.txt" 2>&1; then
            note "counters $1 ($2): ok; $(grep -c 'borne out' "$RESULTS/counters-$1.txt") borne out, $(grep -c 'CONTRADICTED' "$RESULTS/counters-$1.txt") contradicted"
        else
            note "counters $1: FAILED or ncu unavailable (see counters-$1.txt)"
            failed=1
        fi
    done
    note "counters: $((SECONDS - start)) s"
fi

if has_step probe; then
    start=$SECONDS
    if "$BIN" probe all --backend cuda --quiet --json "$RESULTS/probes.json" --plot "$RESULTS" \
        >"$RESULTS/probes.txt" 2>&1; then
        note "probes: ok ($((SECONDS - start)) s)"
    else
        note "probes: FAILED (see probes.txt)"
        failed=1
    fi
fi

printf '%s\n' "${summary[@]}" >"$RESULTS/summary.txt"
cat "$RESULTS"/bench-*.txt "$RESULTS"/probes.txt >"$RESULTS/tables.txt" 2>/dev/null
if [ -n "${OUT:-}" ] && [ "$OUT" != "$RESULTS" ]; then
    tar czf "$OUT/gpu-check.tgz" --exclude=tma-store-initcheck -C "$RESULTS" . 2>/dev/null
    cp "$RESULTS/summary.txt" "$RESULTS/tables.txt" "$OUT/" 2>/dev/null
fi
echo
echo "==================== gpu-check summary ===================="
printf '%s\n' "${summary[@]}"
exit $failed
