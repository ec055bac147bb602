#!/usr/bin/env bash
# near_dupe_groups_append against a full regrouping, side by side:
#
#   flock /work/bench.lock bash test/bench/append_bench.sh [DOCS]
#
# DOCS (default 1,100,000) realistic documents (test/corpus/
# generate_realistic.sql, in the database realistic_<DOCS>, reused when
# present: test/bench/realistic_lib.sh); the first 10/11 of them (id <=
# DOCS * 10 / 11) grouped and stored (ab_groups), then the last 1/11 (10% of
# the stored rows) appended, beside near_dupe_groups over all DOCS.  Exact at
# 0.8, and at 0.6 with recall 0.99.  Each call runs twice, each time in a
# fresh session (warmed up on a tiny table): once timed, once while this
# script samples the backend's private memory (RssAnon in /proc/PID/status,
# every 10 ms, as test/stress/group_memory.sh does); printed: wall seconds,
# the backend's CPU seconds (utime + stime: steadier than wall time on a
# shared machine), peak private memory above the session's before the call,
# rows.  Then the rules of the
# append checked on its rows (test/bench/append_bench.sql).  Prints figures;
# with APPEND_SHORT=1 (the short version in the test command) fails only if
# a rule does not hold, never on time.
# Environment: APPEND_WORK_MEM (default 64MB: bounds the stored keys held to
# find the new ones, or the anti-join's hash of them), APPEND_GROUP_MEMORY (8GB: both calls run, the peak is
# measured, not capped).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
source test/bench/realistic_lib.sh
# shellcheck source=test/lib/peak_memory.sh
source test/lib/peak_memory.sh
DOCS=${1:-1100000}
FIRST=$((DOCS * 10 / 11))
WORK_MEM=${APPEND_WORK_MEM:-64MB}
GROUP_MEMORY=${APPEND_GROUP_MEMORY:-8GB}
SHORT=${APPEND_SHORT:-0}
started=$SECONDS
WORK="$(mktemp -d /tmp/minhash-append-bench.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT

realistic_corpus "$DOCS"
psql -X -q -d "$RDB" -v ON_ERROR_STOP=1 -c "CREATE EXTENSION IF NOT EXISTS minhash" >/dev/null

# timed LABEL STATEMENT: runs STATEMENT twice, each time in a fresh
# session: once for its wall and CPU time, once for its peak private memory,
# sampled.  The sampler (a process started every 10 ms) costs the sampled
# backend CPU time (on this 2-core VM, 0.4-0.55 s on a 2.2 s append, 0.7 s
# on a 10.3 s regrouping), unevenly, so no time is taken while it runs.
# Appends a line "label wall cpu peak_kb" to $WORK/figures.
timed() {
    local label="$1" statement="$2" dir time_dir psql_pid peak base
    time_dir="$(mktemp -d "$WORK/call.XXXXXX")"
    dir="$(mktemp -d "$WORK/call.XXXXXX")"
    for d in "$time_dir" "$dir"; do
        cat >"$d/script.sql" <<SQL
\set ON_ERROR_STOP 1
SET work_mem = '$WORK_MEM';
SET minhash.group_memory = '$GROUP_MEMORY';
SELECT count(*) FROM near_dupe_groups('ab_tiny', 'id', 'sig', 0.8) \g /dev/null
SELECT count(*) FROM near_dupe_groups_append('ab_tiny_groups', 'ab_tiny', 'id', 'sig', 0.8) \g /dev/null
SELECT count(*) FROM (SELECT key FROM ab_groups LIMIT 1) s \g /dev/null
SELECT pg_backend_pid() AS bpid \gset
\setenv AB_BPID :bpid
\! awk '/^RssAnon:/ {print \$2}' /proc/\$AB_BPID/status > $d/base; awk '{print \$14 + \$15}' /proc/\$AB_BPID/stat > $d/cpu0; echo \$AB_BPID > $d/pid
SELECT extract(epoch FROM clock_timestamp()) AS t0 \gset
$statement;
SELECT round((extract(epoch FROM clock_timestamp()) - :t0)::numeric, 2) AS wall \gset
\setenv AB_WALL :wall
\! awk '{print \$14 + \$15}' /proc/\$AB_BPID/stat > $d/cpu1; echo \$AB_WALL > $d/wall; touch $d/done
SQL
    done
    if ! psql -X -q -d "$RDB" -f "$time_dir/script.sql" >"$time_dir/out" 2>&1 || [[ ! -e $time_dir/done ]]; then
        cat "$time_dir/out"
        echo "append_bench: $label failed"
        exit 1
    fi
    psql -X -q -d "$RDB" -f "$dir/script.sql" >"$dir/out" 2>&1 &
    psql_pid=$!
    peak=$(peak_private_memory "$dir" "$psql_pid")
    if ! wait "$psql_pid" || [[ ! -e $dir/done ]]; then
        cat "$dir/out"
        echo "append_bench: $label failed"
        exit 1
    fi
    base=$(cat "$dir/base")
    printf '%s %s %s %s\n' "$label" "$(cat "$time_dir/wall")" \
        "$(awk -v a="$(cat "$time_dir/cpu0")" -v b="$(cat "$time_dir/cpu1")" -v hz="$(getconf CLK_TCK)" 'BEGIN {printf "%.2f", (b - a) / hz}')" \
        $((peak > base ? peak - base : 0)) >>"$WORK/figures"
}

echo "append_bench: $DOCS documents, the first $FIRST grouped and stored, $((DOCS - FIRST)) appended; work_mem $WORK_MEM"
for config in "0.8 null" "0.6 0.99"; do
    read -r t recall <<<"$config"
    if [[ $recall == null ]]; then args="$t"; else args="$t, NULL::text, $recall"; fi
    psql -X -q -P pager=off -d "$RDB" -v step=setup -v first="$FIRST" -v t="$t" -v recall="$recall" \
        -f test/bench/append_bench.sql
    : >"$WORK/figures"
    timed regroup "DROP TABLE IF EXISTS ab_regroup; CREATE TABLE ab_regroup AS SELECT * FROM near_dupe_groups('real_docs', 'id', 'sig', $args)"
    timed append "DROP TABLE IF EXISTS ab_appended; CREATE TABLE ab_appended AS SELECT * FROM near_dupe_groups_append('ab_groups', 'real_docs', 'id', 'sig', $args)"
    # The floor of an append that reads the stored signatures from the
    # table: one serial scan of them, in a fresh session as the calls run,
    # and the new rows grouped among themselves (near_dupe_groups over a
    # table of them alone), which the append does too.
    timed scan "SET max_parallel_workers_per_gather = 0; SELECT count(*) FROM real_docs WHERE sig IS NOT NULL"
    timed new_alone "DROP TABLE IF EXISTS ab_new_groups; CREATE TABLE ab_new_groups AS SELECT * FROM near_dupe_groups('ab_new', 'id', 'sig', $args)"
    psql -X -q -P pager=off -d "$RDB" -c "ANALYZE ab_appended" -c "ANALYZE ab_regroup"
    rows_regroup=$(psql -X -At -d "$RDB" -c "SELECT count(*) FROM ab_regroup")
    rows_append=$(psql -X -At -d "$RDB" -c "SELECT count(*) FROM ab_appended")
    awk -v t="$t" -v recall="$recall" -v rr="$rows_regroup" -v ra="$rows_append" '
        {wall[$1] = $2; cpu[$1] = $3; peak[$1] = $4}
        END {
            printf "threshold %s, recall %s\n", t, recall
            printf "  %-10s %9s %9s %12s %10s\n", "call", "wall s", "cpu s", "peak MB", "rows"
            printf "  %-10s %9.2f %9.2f %12.1f %10d\n", "regroup", wall["regroup"], cpu["regroup"], peak["regroup"] / 1024, rr
            printf "  %-10s %9.2f %9.2f %12.1f %10d\n", "append", wall["append"], cpu["append"], peak["append"] / 1024, ra
            printf "  %-10s %9.2f %9.2f %12.1f %10d\n", "scan", wall["scan"], cpu["scan"], peak["scan"] / 1024, rr
            printf "  %-10s %9.2f %9.2f %12.1f %10d\n", "new_alone", wall["new_alone"], cpu["new_alone"], peak["new_alone"] / 1024, ra
            printf "  append / regroup: wall %.2f, cpu %.2f, peak memory %.2f\n",
                wall["append"] / wall["regroup"], cpu["append"] / (cpu["regroup"] > 0 ? cpu["regroup"] : 1),
                peak["append"] / (peak["regroup"] > 0 ? peak["regroup"] : 1)
            printf "  floor (scan + new_alone) / regroup: wall %.2f, cpu %.2f; append above the floor: cpu %.2f s\n",
                (wall["scan"] + wall["new_alone"]) / wall["regroup"],
                (cpu["scan"] + cpu["new_alone"]) / (cpu["regroup"] > 0 ? cpu["regroup"] : 1),
                cpu["append"] - cpu["scan"] - cpu["new_alone"]
        }' "$WORK/figures"
    psql -X -q -P pager=off -d "$RDB" -v step=check -v t="$t" -v recall="$recall" -v short="$SHORT" \
        -f test/bench/append_bench.sql
done
echo "append_bench: $DOCS documents, $((SECONDS - started)) s in all"
