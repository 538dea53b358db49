#!/usr/bin/env bash
# Compares the JSON of two warplab runs (bench, bench --sweep, probe), timings
# aside: the same rows, in the same order, with the same verdicts, problems,
# bytes, flops, notes, lessons and course figures. What depends on the clock
# (times, rates, percentages, speedups, run counts, dates, the measured
# ceiling, the probes' conclusions computed from the figures) is dropped.
#
#   scripts/compare-json.sh OLD.json NEW.json     exit 0 when they agree
#   scripts/compare-json.sh --run OLD_WARPLAB NEW_WARPLAB BACKEND [OUTDIR]
#       runs both binaries (bench, bench vecadd --sweep, probe all) at small
#       sizes with a fixed seed on BACKEND and compares each pair. bench runs
#       at the ladders' CPU-class defaults on cpu and opencl, at --size
#       1000,2049 on cuda (WL_COMPARE_SIZES overrides); the sweep is left out
#       on opencl (PoCL takes minutes at 2^30).
#
# WL_COMPARE_COMMON=1 compares only the rows (ladder, rung, problem, backend)
# that both runs have: for an old build that predates rungs added since. A
# row's inputs come from the run's seed and its place in the run, so rows
# that moved get other random inputs: their max_rel_error is left out.
#
# On the GPU machine, old against new (two checkouts, each built with
# -DCMAKE_CUDA_ARCHITECTURES=90 into BUILD_OLD and BUILD_NEW):
#   scripts/compare-json.sh --run BUILD_OLD/warplab BUILD_NEW/warplab cuda out/
set -euo pipefail

normalize() {
    jq -S 'def timeless:
             walk(if type == "object" then
                    del(.date, .ceiling_gbs, .median_ms, .min_ms, .max_ms, .mean_ms,
                        .noise_pct, .gbs, .gflops, .pct_of_ceiling, .pct_of_reference,
                        .pct_of_vendor, .pct_of_fp32_peak, .step_speedup,
                        .cumulative_speedup, .vendor_ratio, .vendor_pairs, .runs,
                        .value, .low, .high, .conclusion)
                  elif type == "string" then
                    gsub("[0-9.]+ GB free"; "N GB free") | gsub("[0-9.]+ GiB free"; "N GiB free")
                  else . end);
           timeless' "$1"
}

# The rows of $1 whose (ladder, rung, problem, backend) $2 has too.
common_rows() {
    jq --slurpfile other "$2" '
        def key: [.ladder, .rung, .problem, .backend] | tostring;
        ([$other[0].rows // [] | .[] | key]) as $keys
        | if has("rows") then .rows |= map(select(key as $k | $keys | index($k) != null)
                                            | del(.max_rel_error))
          else . end' "$1"
}

compare() {
    local old=$1 new=$2 file
    for file in "$old" "$new"; do
        if ! jq -e . "$file" >/dev/null 2>&1; then
            echo "MISSING OR INVALID: $file"
            return 1
        fi
    done
    if [ "${WL_COMPARE_COMMON:-0}" = 1 ]; then
        local dir
        dir=$(mktemp -d)
        common_rows "$old" "$new" >"$dir/old.json"
        common_rows "$new" "$old" >"$dir/new.json"
        echo "common rows: $(jq '.rows // [] | length' "$dir/old.json") of $(jq '.rows // [] | length' "$old") old, $(jq '.rows // [] | length' "$new") new"
        old=$dir/old.json new=$dir/new.json
    fi
    if diff <(normalize "$old") <(normalize "$new") >/dev/null; then
        echo "same: $old $new"
    else
        echo "DIFFERENT: $old $new"
        diff <(normalize "$old") <(normalize "$new") | head -40
        return 1
    fi
}

if [ "${1:-}" = "--run" ]; then
    old_bin=$2 new_bin=$3 backend=$4 dir=${5:-$(mktemp -d)}
    mkdir -p "$dir"
    common=(-b "$backend" --seed 7 -n 1 --warmup 1 -q)
    sizes=${WL_COMPARE_SIZES-}
    [ -z "${WL_COMPARE_SIZES+set}" ] && [ "$backend" = cuda ] && sizes=1000,2049
    size_args=()
    [ -n "$sizes" ] && size_args=(--size "$sizes")
    status=0
    for bin in old new; do
        exe=$old_bin
        [ $bin = new ] && exe=$new_bin
        "$exe" bench "${common[@]}" "${size_args[@]}" --json "$dir/bench-$bin.json" >"$dir/bench-$bin.txt" || true
        [ "$backend" = opencl ] || "$exe" bench vecadd --sweep "${common[@]}" --max-seconds 0.05 \
            --json "$dir/sweep-$bin.json" >"$dir/sweep-$bin.txt" || true
        "$exe" probe all "${common[@]}" --json "$dir/probe-$bin.json" >"$dir/probe-$bin.txt" || true
    done
    for what in bench sweep probe; do
        if [ -f "$dir/$what-old.json" ] || [ -f "$dir/$what-new.json" ]; then
            compare "$dir/$what-old.json" "$dir/$what-new.json" || status=1
        fi
    done
    exit $status
fi

[ $# -eq 2 ] || { sed -n '2,20p' "$0"; exit 2; }
compare "$1" "$2"
