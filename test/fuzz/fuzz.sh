#!/usr/bin/env bash
# Fuzzing smoke test, one of run_all.sh's extra suites (needs no server):
#   1. builds the libFuzzer harnesses (make fuzz: clang++-14, ASan + UBSan);
#   2. replays every input of the regression corpora
#      (test/fuzz/regressions/<harness>/: each crash input ever found) and
#      the seed corpora once through their harness;
#   3. fuzzes each harness for FUZZ_SMOKE_SECONDS (default 7; 35 s in all)
#      from its seeds and regressions, in a throwaway working corpus.
# Passes if nothing crashes and no invariant is violated.  For long runs:
# bash test/fuzz/run.sh SECONDS (see test/fuzz/README).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

HARNESSES=(text_parse binary_recv builder band_keys chunk_match)
SMOKE_SECONDS="${FUZZ_SMOKE_SECONDS:-7}"
t_start=$SECONDS

command -v "${FUZZ_CXX:-clang++-14}" >/dev/null 2>&1 ||
    { echo "fuzz: ${FUZZ_CXX:-clang++-14} not found (Debian: apt-get install clang-14 libclang-rt-14-dev)" >&2; exit 1; }
echo "==> fuzz: building harnesses (make fuzz)"
buildlog=$(mktemp)
scratch=$(mktemp -d)
trap 'rm -rf "$buildlog" "$scratch"' EXIT
make -s fuzz >"$buildlog" 2>&1 || { cat "$buildlog" >&2; echo "fuzz: build failed" >&2; exit 1; }

failed=0
for h in "${HARNESSES[@]}"; do
    bin="test/fuzz/build/fuzz_$h"
    mapfile -t inputs < <(find "test/fuzz/regressions/$h" "test/fuzz/corpus/$h" -type f ! -name .keep ! -name README | sort)
    nreg=$(find "test/fuzz/regressions/$h" -type f ! -name .keep ! -name README | wc -l)
    log="$scratch/$h.log"
    rc=0
    if ((${#inputs[@]} > 0)); then
        # Files given as arguments are each run once; libFuzzer does not fuzz.
        "$bin" -timeout=10 -rss_limit_mb=2048 "${inputs[@]}" >"$log.replay" 2>&1 || rc=$?
    fi
    if ((rc != 0)); then
        printf '%-12s replay of %d inputs (%d regressions): FAILED (exit %d)\n' "$h" "${#inputs[@]}" "$nreg" "$rc"
        grep -E 'Running:|ERROR|invariant violated|runtime error|SUMMARY' "$log.replay" | tail -8 | sed 's/^/    /'
        failed=1
        continue
    fi
    mkdir -p "$scratch/$h/work" "$scratch/$h/artifacts"
    "$bin" -max_total_time="$SMOKE_SECONDS" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$scratch/$h/artifacts/" \
        "$scratch/$h/work" "test/fuzz/corpus/$h" "test/fuzz/regressions/$h" >"$log" 2>&1 || rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    cov=$(grep -E '^#[0-9]+.* cov: ' "$log" | tail -1 | sed -E 's/.* cov: ([0-9]+).*/\1/' || true)
    if ((rc != 0)); then
        printf '%-12s replay of %d inputs (%d regressions) ok; fuzzing %ss: FAILED (exit %d)\n' \
            "$h" "${#inputs[@]}" "$nreg" "$SMOKE_SECONDS" "$rc"
        grep -E 'ERROR|invariant violated|runtime error|SUMMARY|Test unit written' "$log" | head -8 | sed 's/^/    /'
        for a in "$scratch/$h/artifacts"/*; do
            [[ -f "$a" ]] && printf '    input (base64): %s\n' "$(base64 -w0 "$a" | head -c 2000)"
        done
        echo "    save it as test/fuzz/regressions/$h/<name> and fix the cause"
        failed=1
    else
        printf '%-12s replay of %d inputs (%d regressions) ok; fuzzing %ss: %s executions, cov %s, no findings\n' \
            "$h" "${#inputs[@]}" "$nreg" "$SMOKE_SECONDS" "${execs:-?}" "${cov:-?}"
    fi
done
echo "fuzz: $((SECONDS - t_start))s in all"
if ((failed)); then echo "fuzz: FAILED"; exit 1; fi
echo "fuzz: passed"
