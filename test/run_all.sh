#!/usr/bin/env bash
# The whole test run, as CI does it (.ci/run):
#   packages -> build + install -> core unit tests (make core-test)
#   -> the servers other suites reuse (PREBUILT below, cached outside the clone)
#   -> throwaway cluster -> pg_regress and pg_isolation_regress (make installcheck)
#   -> the extra suites listed below -> cluster stopped.
# Ends with the line `all: N passed, M failed[, K skipped]`; exits non-zero
# if any step or suite failed (a skip is not a failure).
#
#   bash test/run_all.sh
#
# Environment: MINHASH_SUITE_TIMEOUT (seconds per suite, default 1200),
# MINHASH_PREBUILD_TIMEOUT (seconds per server built, default 1200),
# MINHASH_PGPORT (default 5499; names the socket only), PG_CONFIG.
set -euo pipefail

# Extra suites: run after installcheck, each as `bash FILE` from the repository
# top, with PGHOST/PGPORT/PGUSER/PGDATABASE pointing at the running cluster and
# the corpus loaded in table spam_messages of $PGDATABASE. A suite passes if it
# exits 0; it is skipped if it exits 77 (SKIP_STATUS: what it needs is
# absent, and it printed one line saying what), and failed on any other
# status. A missing file is reported as skipped. A suite may
# `source test/lib/common.sh` for its helpers (psql_run, load_corpus, ...) but
# must not start, stop or trap the cluster.
EXTRA_SUITES=(
    test/doc/readme_test.sh
    test/doc/meta_test.sh
    test/doc/reference_test.sh
    test/accuracy/accuracy.sh
    test/accuracy/recall.sh
    test/accuracy/approx_recall.sh
    test/stress/concurrency.sh
    test/stress/trigger_concurrency.sh
    test/stress/concurrency_16_short.sh
    test/bench/benchmark.sh
    test/bench/index_benchmark.sh
    test/accuracy/explain_accuracy.sh
    test/bench/explain_benchmark.sh
    test/accuracy/group_accuracy.sh
    test/fuzz/fuzz.sh
    test/fuzz/fuzz_sql.sh
    test/accuracy/differential.sh
    test/upgrade/dump_restore.sh
    test/upgrade/fresh_vs_upgraded.sh
    test/upgrade/update_warning.sh
    test/upgrade/pg_upgrade.sh
    test/stress/crash_recovery_short.sh
    test/stress/cancel_short.sh
    test/stress/group_memory.sh
    test/stress/interrupts.sh
    test/sharding/sharding.sh
    test/stress/fault_injection.sh
    test/fuzz/sqlsmith.sh
    # issue 17 item 3, short: 100,000 realistic documents, correctness only
    test/bench/realistic_scale_short.sh
    # near_dupe_groups_append beside a regrouping, rules asserted (same corpus)
    test/bench/append_bench_short.sh
    # the spill's NOTICE, its hinted setting and the statement's rows, on the spam corpus
    test/bench/group_spill_spam.sh
    test/accuracy/approx_recall_realistic.sh
    test/clients/clients.sh
    test/review/review_page.sh
    # a two-wave production of 100,000 realistic documents: its pages in Chromium
    test/review/production_pages.sh
    # minhash on Citus (a coordinator and two workers): Citus built once into
    # /var/cache/minhash-citus from ../shared/vendor/citus-13.2.2.tar.gz or
    # MINHASH_CITUS_SRC, skipped in one line without either (test/citus/README.md).
    test/citus/citus.sh
    # PostgreSQL 13 and 18 (built once into /var/cache/minhash-pg, then
    # reused): build + installcheck each; then pg_upgrade 15 -> 18
    # (test/versions/README.md: times, first run and cached).
    test/versions/matrix.sh
    test/versions/pg_upgrade_15_to_18.sh
)

# Servers that suites reuse, built into caches outside the clone before the
# cluster starts, each a step of the summary with a limit of its own, so
# that a suite's limit is the suite's (a first build under load takes up to
# about 17 minutes; cached, a second). A step that exits 77 is skipped.
PREBUILT=(
    "pg13 bash test/versions/build_postgres.sh 13"   # test/versions/matrix.sh
    "pg18 bash test/versions/build_postgres.sh 18"   # matrix.sh, pg_upgrade_15_to_18.sh
    "citus-build bash test/citus/build_citus.sh"     # test/citus/citus.sh (77: no Citus source)
)
# A suite's or a step's exit status meaning "skipped" (as Automake's tests).
SKIP_STATUS=77

# shellcheck source-path=SCRIPTDIR source=lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
install_cluster_traps
cd "$REPO_ROOT"

SUITE_PID=
on_interrupt() {   # stop the running suite (timeout passes the signal on)
    if [[ -n "$SUITE_PID" ]]; then
        kill -TERM "$SUITE_PID" 2>/dev/null || true
        wait "$SUITE_PID" 2>/dev/null || true
    fi
    exit "$1"
}
trap 'on_interrupt 130' INT
trap 'on_interrupt 143' TERM
trap 'on_interrupt 129' HUP

SUITE_TIMEOUT="${MINHASH_SUITE_TIMEOUT:-1200}"
PREBUILD_TIMEOUT="${MINHASH_PREBUILD_TIMEOUT:-1200}"
SUMMARY=()
n_passed=0 n_failed=0 n_skipped=0

record() {   # record NAME passed|FAILED|skipped SECONDS [NOTE]
    local name="$1" status="$2" secs="$3" note="${4:-}"
    case "$status" in
        passed) n_passed=$((n_passed + 1)) ;;
        FAILED) n_failed=$((n_failed + 1)) ;;
        skipped) n_skipped=$((n_skipped + 1)) ;;
    esac
    SUMMARY+=("$(printf '  %-22s %-8s %5ss  %s' "$name" "$status" "$secs" "$note")")
    printf '==> suite %s: %s (%ss)%s\n' "$name" "$status" "$secs" "${note:+, $note}"
}

# run_suite NAME COMMAND...: runs it under the per-suite timeout.
run_suite() { run_limited "$SUITE_TIMEOUT" "$@"; }

# run_limited LIMIT NAME COMMAND...: runs it, killed after LIMIT seconds.
run_limited() {
    local limit="$1" name="$2"; shift 2
    local t0=$SECONDS rc=0
    printf '\n==> suite %s: %s\n' "$name" "$*"
    # In the background + wait, so that Ctrl-C reaches the script at once
    # (timeout runs the suite in a process group of its own; see on_interrupt).
    timeout --kill-after=30 "$limit" "$@" &
    SUITE_PID=$!
    wait "$SUITE_PID" || rc=$?
    SUITE_PID=
    if ((rc == 0)); then
        record "$name" passed $((SECONDS - t0))
    elif ((rc == SKIP_STATUS)); then
        record "$name" skipped $((SECONDS - t0)) "exit code $rc: skipped itself (its output says why)"
        rc=0
    elif ((rc == 124 || rc == 137)); then
        record "$name" FAILED $((SECONDS - t0)) "timed out after ${limit}s"
    else
        record "$name" FAILED $((SECONDS - t0)) "exit code $rc"
    fi
    return "$rc"
}

show_regression_diffs() {   # pg_regress's, then pg_isolation_regress's
    local f max=3000
    for f in "$REPO_ROOT/regression.diffs" "$REPO_ROOT/output_iso/regression.diffs"; do
        [[ -s "$f" ]] || continue
        printf '\n==> %s (%s lines):\n' "${f#"$REPO_ROOT"/}" "$(wc -l <"$f")"
        head -n "$max" "$f"
        (($(wc -l <"$f") <= max)) || printf '... cut at %s lines, see %s\n' "$max" "$f"
    done
}

T_START=$SECONDS
install_packages

# Build and install the extension.
t0=$SECONDS
if build_and_install; then
    record build passed $((SECONDS - t0))
    built=1
else
    record build FAILED $((SECONDS - t0))
    built=0
fi

# C++ core unit tests (need no server and not the extension build).
run_suite core make core-test || true

if ((built)); then
    for step in "${PREBUILT[@]}"; do
        read -ra step_cmd <<<"$step"
        run_limited "$PREBUILD_TIMEOUT" "${step_cmd[@]}" || true
    done
else
    for step in "${PREBUILT[@]}"; do record "${step%% *}" skipped 0 "build failed"; done
fi

if ((built)); then
    t0=$SECONDS
    # In a background subshell: set -e stays in force inside it (it would not
    # in an if-condition), and the cluster variables are exported already.
    (cluster_start) &
    if wait $!; then
        cluster_up=1
    else
        record cluster FAILED $((SECONDS - t0)) "the test cluster did not start"
        cluster_up=0
    fi
else
    cluster_up=0
fi

if ((cluster_up)); then
    rm -rf regression.diffs regression.out output_iso
    run_suite regress make installcheck PG_CONFIG="$PG_CONFIG" || show_regression_diffs

    present=()
    for s in "${EXTRA_SUITES[@]}"; do
        if [[ -f "$s" ]]; then present+=("$s"); else record "$(basename "$s" .sh)" skipped 0 "$s not found"; fi
    done
    corpus_ok=1
    if ((${#present[@]} > 0)); then
        run_suite corpus bash test/corpus/load_spamassassin.sh spam_messages || corpus_ok=0
    fi
    for s in "${present[@]}"; do
        if ((corpus_ok)); then
            run_suite "$(basename "$s" .sh)" bash "$s" || true
        else
            record "$(basename "$s" .sh)" skipped 0 "corpus not loaded"
        fi
    done
else
    why="build failed"; ((built)) && why="no cluster"
    record regress skipped 0 "$why"
    for s in "${EXTRA_SUITES[@]}"; do record "$(basename "$s" .sh)" skipped 0 "$why"; done
fi

cluster_stop

printf '\n==> summary (%ss in all)\n' $((SECONDS - T_START))
printf '%s\n' "${SUMMARY[@]}"
line="all: $n_passed passed, $n_failed failed"
((n_skipped == 0)) || line+=", $n_skipped skipped"
echo "$line"
((n_failed == 0))
