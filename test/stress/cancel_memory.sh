#!/usr/bin/env bash
# Cancellation latency and memory of minhash's long-running work.  Prints
# figures, asserts nothing about time.
#
#   bash test/stress/cancel_memory.sh          # manual run, own cluster; 30-60 min on 2 cores
#   MINHASH_CANCEL_MODE=ci bash test/stress/cancel_memory.sh
#                                       # CI-sized: cancels only, on the cluster in PG*
#
# Full run, on a throwaway cluster of its own (initdb in $MINHASH_CANCEL_DIR,
# default /tmp/minhash-cancel; port ${MINHASH_CANCEL_PORT:-5485}), stopped and
# removed on exit (MINHASH_CANCEL_CLUSTER=running uses the cluster in PG*
# instead and leaves its tables there for the next run):
#   1. Cancel latency.  Three workloads, each run once to time it (T), then
#      many times with statement_timeout spread over (0, T), so the cancel
#      lands in every stage: fetching the stored text, tokenizing, hashing,
#      sorting.  Latency = the client's wall time of the statement minus the
#      timeout.  p50/p95/p99/max per workload, and the worst trials:
#        minhash(doc) on a 200 MB text             (MINHASH_CANCEL_TRIALS, default 60)
#        chunk_similarity(a, b) on two 50 MB texts (same count)
#        near_dupe_groups() over 1M rows            (MINHASH_CANCEL_GROUP_TRIALS, default 40)
#      The texts are stored in a table first (STORAGE EXTERNAL: uncompressed
#      out of line, which our functions fetch in slices, with interrupt
#      checks in between: src/minhash_fetch.c), so the timed statement is
#      our function, not building the text.  The 1M corpus is
#      test/corpus/generate_1m.sql (bench_docs; an existing one is reused);
#      MINHASH_CANCEL_GROUP_MS=<T in ms> skips the grouping's untimed run.
#   2. Memory.  Peak backend memory for minhash() of a 1,000,000,000-byte
#      document, beside the floor PostgreSQL itself needs to detoast it
#      (position('' in doc) and md5(doc)) and an idle backend: VmHWM (peak
#      resident, shared buffers included) read from /proc after the
#      statement, and the peak of RssAnon (private memory) sampled every
#      0.1 s.  Then minhash_union(minhash('doc ' || i)) over
#      MINHASH_CANCEL_AGG_ROWS rows (default 10,000,000), sampling the
#      backend's (and any parallel worker's) memory every second.
#
# MINHASH_CANCEL_PARTS picks sections (default "texts groups memory").
# Wall-time latency includes waiting for a CPU: on a loaded machine it says
# more about the load than about the code.
#
# CI mode (MINHASH_CANCEL_MODE=ci): against the cluster in PG* (run_all.sh's),
# the 200 MB minhash() and the 2 x 50 MB chunk_similarity() only, a few
# trials each; every trial must end with SQLSTATE 57014 (query canceled) and
# the session must work afterwards.  Latencies are printed, not checked.
set -euo pipefail

MODE="${MINHASH_CANCEL_MODE:-full}"
[[ "$MODE" == full || "$MODE" == ci ]] || { echo "MINHASH_CANCEL_MODE must be full or ci" >&2; exit 2; }
own_cluster=0
[[ "$MODE" == full && "${MINHASH_CANCEL_CLUSTER:-}" != running ]] && own_cluster=1
caller_env="$(export -p | grep -E '^declare -x PG(HOST|PORT|USER|DATABASE)=' || true)"
# shellcheck source-path=SCRIPTDIR source=../lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
cd "$REPO_ROOT"
((own_cluster)) || eval "$caller_env"   # common.sh points PG* at its own cluster

TRIALS="${MINHASH_CANCEL_TRIALS:-60}"
GROUP_TRIALS="${MINHASH_CANCEL_GROUP_TRIALS:-40}"
GROUP_MS="${MINHASH_CANCEL_GROUP_MS:-}"    # T of the grouping, to skip its untimed run
PARTS=" ${MINHASH_CANCEL_PARTS:-texts groups memory} "
AGG_ROWS="${MINHASH_CANCEL_AGG_ROWS:-10000000}"
[[ "$MODE" == ci ]] && TRIALS="${MINHASH_CANCEL_TRIALS:-4}"
# CI's texts live in a table of their own, dropped at the end; a manual
# run's table is kept for the next run.
TEXTS=cancel_texts
[[ "$MODE" == ci ]] && TEXTS=cancel_texts_ci
WORK="$(mktemp -d /tmp/minhash-cancel-work.XXXXXX)"

# --- own cluster -------------------------------------------------------------
CANCEL_DIR="${MINHASH_CANCEL_DIR:-/tmp/minhash-cancel}"
DATA="$CANCEL_DIR/data"
BINDIR="$(pg_bindir)"
cancel_pg_ctl() { as_pg "$BINDIR/pg_ctl" -D "$DATA" "$@"; }
cancel_running() { [[ -f "$DATA/postmaster.pid" ]] && cancel_pg_ctl status >/dev/null 2>&1; }

cleanup() {
    local p
    for p in "${CLIENT_PIDS[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
    if ((own_cluster)); then
        if cancel_running; then
            cancel_pg_ctl -m fast -w -t 60 stop >/dev/null 2>&1 ||
                cancel_pg_ctl -m immediate -w -t 30 stop >/dev/null 2>&1 || warn "could not stop the server in $DATA"
        fi
        rm -rf "$CANCEL_DIR"
    elif [[ "$MODE" == ci ]]; then
        psql -X -q -c "DROP TABLE IF EXISTS $TEXTS" >/dev/null 2>&1 || true
    fi
    rm -rf "$WORK"
}
CLIENT_PIDS=()
trap 'cleanup' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

if ((own_cluster)); then
    export PGHOST="$CANCEL_DIR" PGPORT="${MINHASH_CANCEL_PORT:-5485}" PGUSER=postgres PGDATABASE=postgres
    log "cancel_memory: cluster in $DATA (port $PGPORT)"
    new_private_cluster "$CANCEL_DIR" "$CANCEL_DIR" "cancellation and memory cluster (test/stress/cancel_memory.sh)" <<EOF
max_connections = 20
shared_buffers = 256MB
log_min_error_statement = panic
$(throwaway_settings)
EOF
    cancel_pg_ctl -l "$CANCEL_DIR/server.log" -w -t 60 start >/dev/null ||
        { cat "$CANCEL_DIR/server.log" >&2; die "pg_ctl start failed"; }
fi

sql() { psql -X -At -q -v ON_ERROR_STOP=1 "$@"; }
sql -c 'SET client_min_messages = warning' -c 'CREATE EXTENSION IF NOT EXISTS minhash' >/dev/null

# --- the texts ---------------------------------------------------------------
# a50: 7.2M words from a 65,536-word vocabulary (49 MB); b50: the same with
# one word in 32 replaced, so the two share long chunks; doc200: a50 and
# three renamings of it (197 MB, four times as many distinct shingles).
# Stored uncompressed out of line, as a big document read whole would be.
make_texts() {
    [[ "$(sql -c "SELECT count(*) FROM pg_class WHERE relname = '$TEXTS' AND relkind = 'r'")" == 1 ]] && return 0
    log "texts: generating 2 x 50 MB and 200 MB (a minute or two)"
    sql <<SQL
CREATE UNLOGGED TABLE $TEXTS (name text PRIMARY KEY, doc text);
ALTER TABLE $TEXTS ALTER COLUMN doc SET STORAGE EXTERNAL;
INSERT INTO $TEXTS
SELECT v.name, v.doc
  FROM (SELECT string_agg(w, ' ') AS a,
               string_agg(CASE WHEN hashint4(i + 77) & 31 = 0 THEN 'x' || (hashint4(i + 99) & 65535) ELSE w END, ' ') AS b
          FROM (SELECT i, 'w' || (hashint4(i) & 65535) AS w FROM generate_series(1, 7200000) i) words) t,
       LATERAL (VALUES ('a50', a), ('b50', b)) v(name, doc);
INSERT INTO $TEXTS
SELECT 'doc200', doc || ' ' || replace(doc, 'w', 'v') || ' ' || replace(doc, 'w', 'u') || ' ' || replace(doc, 'w', 't')
  FROM $TEXTS WHERE name = 'a50';
SQL
    sql -c "SELECT name || ': ' || octet_length(doc) || ' bytes, stored ' || pg_column_size(doc) FROM $TEXTS ORDER BY name"
}

# --- cancel trials -----------------------------------------------------------
# One psql session runs the statement once without a timeout, then once per
# trial under statement_timeout; psql's \timing gives each statement's wall
# time.  Writes "timeout_ms elapsed_ms sqlstate" lines to $WORK/<name>.trials
# and the untimed run's milliseconds to stdout.
#   run_trials NAME COUNT STATEMENT [LO_FRACTION HI_FRACTION [T_MS]]
# (T_MS given: no untimed run, T is taken as given.)
# Timeouts: COUNT values evenly spread over (LO, HI) x T, slightly jittered.
parse_timed() {
    # "Time: 1234.567 ms (00:01.235)" then "@run <timeout> <sqlstate>"
    awk '/^Time: / {t = $2} /^@run / {print $2, t, $3}'
}
run_trials() {
    local name="$1" count="$2" statement="$3" lo="${4:-0.02}" hi="${5:-0.98}" full_ms="${6:-}"
    local k timeout_ms
    if [[ -z "$full_ms" ]]; then
        full_ms="$( { printf '\\timing on\n%s \\g /dev/null\n\\echo @run 0 :SQLSTATE\n' "$statement"; } |
                    psql -X -q 2>"$WORK/$name.full.err" | parse_timed | awk '{print $2}')"
        [[ -n "$full_ms" ]] || { cat "$WORK/$name.full.err" >&2; die "$name: the untimed run failed"; }
    fi
    {
        printf '\\timing on\n'
        for ((k = 0; k < count; k++)); do
            timeout_ms="$(awk -v k="$k" -v n="$count" -v lo="$lo" -v hi="$hi" -v t="$full_ms" -v r="$RANDOM" \
                'BEGIN {f = lo + (hi - lo) * (k + 0.25 + 0.5 * r / 32768) / n; printf "%d", f * t + 1}')"
            printf 'SET statement_timeout = %d;\n%s \\g /dev/null\n\\echo @run %d :SQLSTATE\nRESET statement_timeout;\n' \
                "$timeout_ms" "$statement" "$timeout_ms"
        done
        printf 'SELECT 1 AS alive \\g /dev/null\n\\echo @run -1 :SQLSTATE\n'
    } | psql -X -q 2>"$WORK/$name.err" | parse_timed >"$WORK/$name.all"
    grep -v '^-1 ' "$WORK/$name.all" >"$WORK/$name.trials" || true
    grep -q '^-1 [0-9.]* 00000$' "$WORK/$name.all" || die "$name: the session did not work after the trials"
    echo "$full_ms"
}

# Latency figures of $WORK/<name>.trials: nearest-rank percentiles of
# elapsed - timeout over the cancelled trials, and the three worst trials.
report_latency() {
    local name="$1" full_ms="$2" cancelled others
    cancelled="$(awk '$3 == "57014"' "$WORK/$name.trials" | wc -l)"
    others="$(awk '$3 != "57014"' "$WORK/$name.trials" | wc -l)"
    printf '%s: untimed run %.0f ms; %d trials cancelled (57014), %d ended otherwise\n' \
        "$name" "$full_ms" "$cancelled" "$others"
    awk '$3 != "57014" {printf "    not cancelled: timeout %d ms, elapsed %.0f ms, SQLSTATE %s\n", $1, $2, $3}' "$WORK/$name.trials"
    ((cancelled > 0)) || return 0
    awk '$3 == "57014" {printf "%.1f %d %.1f\n", $2 - $1, $1, $2}' "$WORK/$name.trials" | sort -n >"$WORK/$name.lat"
    awk -v n="$cancelled" '
        function rank(p) { r = int(p * n + 0.999999); return r < 1 ? 1 : r }
        {lat[NR] = $1}
        END {printf "    cancel latency ms: p50 %.1f  p95 %.1f  p99 %.1f  max %.1f\n",
                    lat[rank(0.50)], lat[rank(0.95)], lat[rank(0.99)], lat[n]}' "$WORK/$name.lat"
    tail -n 3 "$WORK/$name.lat" | sort -rn |
        awk -v t="$full_ms" '{printf "    worst: %.1f ms after a timeout of %d ms (%.0f%% of the untimed run)\n", $1, $2, 100 * $2 / t}'
}

# CI: every trial cancelled with 57014.
check_all_cancelled() {
    local name="$1" bad
    bad="$(awk '$3 != "57014"' "$WORK/$name.trials")"
    [[ -z "$bad" && -s "$WORK/$name.trials" ]] || die "$name: trials not cancelled with SQLSTATE 57014 (timeout elapsed sqlstate):
$bad"
}

MINHASH_200="SELECT minhash(doc) FROM $TEXTS WHERE name = 'doc200'"
CHUNKS_2X50="SELECT chunk_similarity(a.doc, b.doc) FROM $TEXTS a, $TEXTS b WHERE a.name = 'a50' AND b.name = 'b50'"
GROUPS_1M="SELECT count(*) FROM near_dupe_groups('bench_docs', 'id', 'sig', 0.8)"

make_texts
# What PostgreSQL's own detoast costs (textpos fetches the whole value, with
# no interrupt check, before it looks at the empty needle); minhash() and
# chunk_similarity() fetch an uncompressed value in slices instead.
report_fetch_time() {
    local fetch_ms
    fetch_ms="$(printf '\\timing on\n%s \\g /dev/null\n\\echo @run 0 :SQLSTATE\n' \
                "SELECT position('' in doc) FROM $TEXTS WHERE name = 'doc200'" | psql -X -q | parse_timed | awk '{print $2}')"
    printf "PostgreSQL's own fetch of the stored 200 MB text (position('' in doc)): %.0f ms\n" "$fetch_ms"
}

if [[ "$MODE" == ci ]]; then
    report_fetch_time
    # Timeouts within the first 60% of the run: cancelled even on a fast machine.
    full="$(run_trials minhash_200mb "$TRIALS" "$MINHASH_200" 0.05 0.6)"
    report_latency minhash_200mb "$full"
    check_all_cancelled minhash_200mb
    full="$(run_trials chunk_similarity_2x50mb "$TRIALS" "$CHUNKS_2X50" 0.05 0.6)"
    report_latency chunk_similarity_2x50mb "$full"
    check_all_cancelled chunk_similarity_2x50mb
    log "cancel_memory (ci): every trial cancelled with SQLSTATE 57014"
    exit 0
fi

[[ "$PARTS" == *" texts "* || "$PARTS" == *" groups "* ]] &&
    log "1. cancel latency (wall time: the machine's load is part of every figure)"
if [[ "$PARTS" == *" texts "* ]]; then
    report_fetch_time
    full="$(run_trials minhash_200mb "$TRIALS" "$MINHASH_200")"
    report_latency minhash_200mb "$full"
    full="$(run_trials chunk_similarity_2x50mb "$TRIALS" "$CHUNKS_2X50")"
    report_latency chunk_similarity_2x50mb "$full"
fi
if [[ "$PARTS" == *" groups "* ]]; then
    if [[ "$(sql -c "SELECT to_regclass('bench_docs') IS NULL")" == t ]]; then
        log "generating the 1M corpus (test/corpus/generate_1m.sql, a few minutes)"
        (cd test && psql -X -q -v ON_ERROR_STOP=1 -f corpus/generate_1m.sql >/dev/null)
    fi
    # A million rows held take about 0.9 GB, beyond maintenance_work_mem.
    full="$(PGOPTIONS='-c minhash.group_memory=4GB' \
            run_trials near_dupe_groups_1m "$GROUP_TRIALS" "$GROUPS_1M" 0.02 0.98 "$GROUP_MS")"
    report_latency near_dupe_groups_1m "$full"
fi
[[ "$PARTS" == *" memory "* ]] || { log "cancel_memory: done"; exit 0; }

# --- memory --------------------------------------------------------------------
log "2. memory"
# Peak memory of one statement in a fresh session: VmHWM from /proc after it,
# and the highest RssAnon of the backend plus its parallel workers, sampled
# every $interval s while it runs.  Prints one line; with SAMPLES_TO=<file>
# also writes "seconds kB" samples there.
#   peak_memory LABEL INTERVAL STATEMENT
peak_memory() {
    local label="$1" interval="$2" statement="$3" app="cancel_memory_$$" psql_pid t0 now kb peak=0 pids pid v
    local out="$WORK/peak.out" samples="${SAMPLES_TO:-/dev/null}"
    : >"$samples"
    {
        printf 'SELECT pg_backend_pid() AS bpid \\gset\n\\setenv CANCEL_BPID :bpid\n'
        printf '%s \\g /dev/null\n' "$statement"
        printf '%s\n' "\\! awk '/^(VmHWM|VmRSS|RssAnon|RssShmem):/ {printf \"%s %s \", \$1, \$2} END {print \"\"}' /proc/\$CANCEL_BPID/status"
    } | PGAPPNAME="$app" psql -X -q -v ON_ERROR_STOP=1 >"$out" &
    psql_pid=$!
    CLIENT_PIDS+=("$psql_pid")
    t0="$(date +%s.%N)"
    while kill -0 "$psql_pid" 2>/dev/null; do
        pids="$(psql -X -At -c "SELECT pid FROM pg_stat_activity WHERE application_name = '$app'
                                   OR leader_pid IN (SELECT pid FROM pg_stat_activity WHERE application_name = '$app')" 2>/dev/null || true)"
        kb=0
        for pid in $pids; do
            v="$(awk '/^RssAnon:/ {print $2; exit}' "/proc/$pid/status" 2>/dev/null || true)"
            kb=$((kb + ${v:-0}))
        done
        ((kb > peak)) && peak=$kb
        now="$(date +%s.%N)"
        ((kb > 0)) && awk -v a="$now" -v b="$t0" -v kb="$kb" 'BEGIN {printf "%.1f %d\n", a - b, kb}' >>"$samples"
        sleep "$interval"
    done
    wait "$psql_pid" || die "$label: statement failed"
    awk -v label="$label" -v peak="$peak" '{
            for (i = 1; i < NF; i += 2) m[$i] = $(i + 1)
            printf "%-44s VmHWM %5.0f MB  (RssShmem at end %4.0f MB)  peak RssAnon sampled %5.0f MB\n",
                   label, m["VmHWM:"] / 1024, m["RssShmem:"] / 1024, peak / 1024}' "$out"
}

if [[ "$(sql -c "SELECT count(*) FROM pg_class WHERE relname = 'cancel_gb' AND relkind = 'r'")" == 0 ]]; then
    log "1 GB document: generating (doc200 five times and the start of b50: 1,000,000,000 bytes)"
    sql <<SQL
CREATE UNLOGGED TABLE cancel_gb (doc text);
ALTER TABLE cancel_gb ALTER COLUMN doc SET STORAGE EXTERNAL;
INSERT INTO cancel_gb
SELECT repeat(d.doc || ' ', 5) || left(b.doc, 1000000000 - 5 * (octet_length(d.doc) + 1))
  FROM $TEXTS d, $TEXTS b WHERE d.name = 'doc200' AND b.name = 'b50';
SQL
fi
sql -c "SELECT '1 GB document: ' || octet_length(doc) || ' bytes, stored ' || pg_column_size(doc) FROM cancel_gb"
peak_memory 'idle backend (SELECT 1)' 0.1 'SELECT 1'
peak_memory "position('' in doc) (detoast only)" 0.1 "SELECT position('' in doc) FROM cancel_gb"
peak_memory 'md5(doc)' 0.1 'SELECT md5(doc) FROM cancel_gb'
peak_memory 'minhash(doc)' 0.1 'SELECT minhash(doc) FROM cancel_gb'

printf '\nminhash_union(minhash(...)) over %d rows, plan:\n' "$AGG_ROWS"
AGG="SELECT minhash_union(minhash('doc ' || i)) FROM (SELECT generate_series(1, $AGG_ROWS) AS i) s"
sql -c "EXPLAIN (COSTS OFF) $AGG"
SAMPLES_TO="$WORK/agg.samples" peak_memory "aggregate over $AGG_ROWS rows" 1 "$AGG"
n="$(wc -l <"$WORK/agg.samples")"
if ((n > 0)); then
    echo "    RssAnon of the backend (+ workers) during the aggregate, sampled every second:"
    for pct in 5 10 25 50 75 90 100; do
        line=$(( (n * pct + 99) / 100 ))
        ((line < 1)) && line=1
        sed -n "${line}p" "$WORK/agg.samples" |
            awk -v p="$pct" '{printf "      at %3d%% of the run (t = %6.1f s): %6.1f MB\n", p, $1, $2 / 1024}'
    done
    awk 'NR == 1 {mn = mx = $2} {if ($2 < mn) mn = $2; if ($2 > mx) mx = $2}
         END {printf "      min %.1f MB, max %.1f MB over %d samples\n", mn / 1024, mx / 1024, NR}' "$WORK/agg.samples"
fi
log "cancel_memory: done"
