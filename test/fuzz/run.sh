#!/usr/bin/env bash
# Fuzz the C++ engine with libFuzzer (harnesses test/fuzz/fuzz_*.cpp).
#
#   bash test/fuzz/run.sh [SECONDS_PER_HARNESS] [HARNESS...]
#
# Builds the harnesses (make fuzz: clang++-14, ASan + UBSan), then runs each
# for SECONDS_PER_HARNESS (default 60) on its seed corpus
# (test/fuzz/corpus/<harness>) and its regression corpus
# (test/fuzz/regressions/<harness>), growing a working corpus in
# test/fuzz/build/corpus/<harness>.  Prints, per harness, the executions,
# executions per second, coverage at start and end, and findings.  A finding
# (crash, violated invariant, leak, timeout, out-of-memory) is written to
# test/fuzz/build/artifacts/<harness>/; add it to the regression corpus with
#   cp test/fuzz/build/artifacts/<harness>/crash-... test/fuzz/regressions/<harness>/
# Exits 1 if any harness found something.
#
# Harnesses: text_parse binary_recv builder band_keys chunk_match (default:
# all).  Environment: FUZZ_JOBS (harnesses run at once, default 1),
# FUZZ_TIMEOUT (seconds one input may take, default 10), FUZZ_ARGS (more
# libFuzzer flags).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

ALL_HARNESSES=(text_parse binary_recv builder band_keys chunk_match)
SECONDS_PER_HARNESS="${1:-60}"
[[ "$SECONDS_PER_HARNESS" =~ ^[0-9]+$ ]] || { echo "usage: $0 [SECONDS_PER_HARNESS] [HARNESS...]" >&2; exit 2; }
(($# > 0)) && shift
HARNESSES=("$@")
((${#HARNESSES[@]} > 0)) || HARNESSES=("${ALL_HARNESSES[@]}")
for h in "${HARNESSES[@]}"; do
    [[ " ${ALL_HARNESSES[*]} " == *" $h "* ]] || { echo "unknown harness: $h (one of: ${ALL_HARNESSES[*]})" >&2; exit 2; }
done
JOBS="${FUZZ_JOBS:-1}"
BUILD=test/fuzz/build

echo "==> fuzz: building harnesses (make fuzz)"
mkdir -p "$BUILD"
make -s fuzz >"$BUILD/make.log" 2>&1 || { cat "$BUILD/make.log" >&2; echo "fuzz: build failed" >&2; exit 1; }

# fuzz_one HARNESS: one libFuzzer run; its summary line goes to $BUILD/logs/HARNESS.summary
fuzz_one() {
    local h="$1"
    local work="$BUILD/corpus/$h" artifacts="$BUILD/artifacts/$h" log="$BUILD/logs/$h.log"
    mkdir -p "$work" "$artifacts" "$BUILD/logs" "test/fuzz/regressions/$h"
    local before rc=0
    before=$(find "$artifacts" -type f | wc -l)
    # shellcheck disable=SC2086
    "$BUILD/fuzz_$h" -max_total_time="$SECONDS_PER_HARNESS" -timeout="${FUZZ_TIMEOUT:-10}" \
        -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$artifacts/" ${FUZZ_ARGS:-} \
        "$work" "test/fuzz/corpus/$h" "test/fuzz/regressions/$h" >"$log" 2>&1 || rc=$?
    local execs rate cov_start cov_end ft_end units findings
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    cov_start=$(grep -m1 -E 'INITED cov: ' "$log" | sed -E 's/.* cov: ([0-9]+).*/\1/' || true)
    cov_end=$(grep -E '^#[0-9]+.* cov: ' "$log" | tail -1 | sed -E 's/.* cov: ([0-9]+).*/\1/' || true)
    ft_end=$(grep -E '^#[0-9]+.* ft: ' "$log" | tail -1 | sed -E 's/.* ft: ([0-9]+).*/\1/' || true)
    units=$(find "$work" -type f | wc -l)
    findings=$(($(find "$artifacts" -type f | wc -l) - before))
    local line
    line=$(printf '%-12s %6ss  execs %12s  exec/s %7s  cov %5s -> %5s  ft %6s  corpus %5s  findings %s  (exit %s)' \
        "$h" "$SECONDS_PER_HARNESS" "${execs:-?}" "${rate:-?}" "${cov_start:-?}" "${cov_end:-?}" \
        "${ft_end:-?}" "$units" "$findings" "$rc")
    if ((rc != 0 || findings > 0)); then
        line+=$'\n'"    log: $log; artifacts: $artifacts/"$'\n'"$(grep -E 'ERROR|invariant violated|runtime error|SUMMARY' "$log" | head -5 | sed 's/^/    /')"
    fi
    printf '%s\n' "$line" >"$BUILD/logs/$h.summary"
    printf '%s\n' "$line"
    ((rc == 0 && findings == 0))
}

echo "==> fuzz: ${HARNESSES[*]}, ${SECONDS_PER_HARNESS}s each, $JOBS at a time"
failed=0 running=0
for h in "${HARNESSES[@]}"; do
    if ((running >= JOBS)); then
        wait -n || failed=1
        running=$((running - 1))
    fi
    fuzz_one "$h" &
    running=$((running + 1))
done
while ((running > 0)); do
    wait -n || failed=1
    running=$((running - 1))
done
if ((failed)); then echo "fuzz: FINDINGS (see above)"; exit 1; fi
echo "fuzz: no findings"
