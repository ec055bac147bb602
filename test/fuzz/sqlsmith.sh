#!/usr/bin/env bash
# sqlsmith: random queries against a database that uses the extension
# everywhere (test/fuzz/sqlsmith.sql), and not one backend crash.
#
#   bash test/fuzz/sqlsmith.sh [QUERIES]   (default $MINHASH_SQLSMITH_QUERIES, else
#                                      5000: the CI run; the full run: 100000)
#
# sqlsmith
# (Debian package, installed with apt-get if missing) builds its queries from
# the catalog: it reads every table's columns and every function and operator
# with their types, and nests them at random (SELECT, CTEs, INSERT, UPDATE,
# DELETE, MERGE, each rolled back), as a plain user (role smith). Two runs:
#   catalog    a tenth of the queries: all tables, system catalogs
#              included, and every function: the extension among everything
#              else PostgreSQL has;
#   extension  the rest: --exclude-catalog (only the tables and views of
#              test/fuzz/sqlsmith.sql) and a stand-in pg_proc that offers the
#              extension's functions and a dozen built-ins, so that nearly
#              every query calls the extension.
# Each run is MINHASH_SQLSMITH_JOBS (default 2) sqlsmith processes at once.
# A throwaway cluster of its own (initdb in $MINHASH_SQLSMITH_DIR, default
# <repo>/.cache/sqlsmith; port ${MINHASH_SQLSMITH_PORT:-5487}; unix socket
# only; restart_after_crash = on so that a run counts every crash), stopped
# and removed on exit (MINHASH_SQLSMITH_KEEP=1 keeps it and its logs).
#
# Fails on any backend crash: a "terminated by signal" / "was terminated" /
# TRAP / PANIC line in the server log, a connection sqlsmith lost, or a new
# postmaster start time. Errors are expected (random arguments); it prints
# their SQLSTATEs, those raised by the extension's code apart, and fails on
# an internal error (XX000) raised there. It prints how many generated
# queries touch the extension: call one of its functions, read a column of
# its types, or scan a view over its set-returning functions.
# MINHASH_SQLSMITH_SEED sets sqlsmith's seed (printed), to repeat a run.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
cd "$REPO_ROOT"

QUERIES="${1:-${MINHASH_SQLSMITH_QUERIES:-5000}}"
[[ "$QUERIES" =~ ^[1-9][0-9]*$ ]] || die "usage: $0 [QUERIES]"
SEED="${MINHASH_SQLSMITH_SEED:-$(( $(date +%s) % 100000 ))}"
SMITH_DIR="${MINHASH_SQLSMITH_DIR:-$CACHE_DIR/sqlsmith}"
DATA="$SMITH_DIR/data"
SMITH_LOG="$SMITH_DIR/server.log"
BINDIR="$(pg_bindir)"
DB=minhash_smith
SOCK="$SMITH_DIR/socket"
(( ${#SOCK} < 90 )) || SOCK="/tmp/minhash-sqlsmith.$(printf '%s' "$SMITH_DIR" | cksum | cut -d' ' -f1)"
export PGHOST="$SOCK" PGPORT="${MINHASH_SQLSMITH_PORT:-5487}" PGUSER=postgres PGDATABASE=postgres

# --- sqlsmith ---------------------------------------------------------------
if ! command -v sqlsmith >/dev/null 2>&1; then
    [[ $EUID -eq 0 ]] || die "sqlsmith missing; run as root or: apt-get install sqlsmith"
    mkdir -p "$LOG_DIR"
    log "sqlsmith: apt-get install sqlsmith (log: $LOG_DIR/apt-sqlsmith.log)"
    { export DEBIAN_FRONTEND=noninteractive
      apt-get install -y -q --no-install-recommends sqlsmith ||
          { apt-get update -q && apt-get install -y -q --no-install-recommends sqlsmith; }
    } >"$LOG_DIR/apt-sqlsmith.log" 2>&1 || { cat "$LOG_DIR/apt-sqlsmith.log" >&2; die "apt-get install sqlsmith failed"; }
fi

# --- the cluster ------------------------------------------------------------
smith_pg_ctl() { as_pg "$BINDIR/pg_ctl" -D "$DATA" "$@"; }
smith_running() { [[ -f "$DATA/postmaster.pid" ]] && smith_pg_ctl status >/dev/null 2>&1; }
SMITH_PIDS=()
smith_cluster_stop() {
    # sqlsmith first (by pid): it would retry its connection forever.
    local p
    for p in "${SMITH_PIDS[@]}"; do pkill -TERM -P "$p" 2>/dev/null || true; kill -TERM "$p" 2>/dev/null || true; done
    if smith_running; then
        smith_pg_ctl -m fast -w -t 60 stop >/dev/null 2>&1 ||
            smith_pg_ctl -m immediate -w -t 30 stop >/dev/null 2>&1 || warn "could not stop the server in $DATA"
    fi
    if [[ "${MINHASH_SQLSMITH_KEEP:-0}" == 1 ]]; then
        log "kept $SMITH_DIR (server log: $SMITH_LOG)"
    else
        rm -rf "$SMITH_DIR"
        [[ "$SOCK" == "$SMITH_DIR/socket" ]] || rm -rf "$SOCK"
    fi
}
trap 'smith_cluster_stop' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

log "sqlsmith: $QUERIES queries, seed $SEED, cluster in $DATA (port $PGPORT)"
# Every error logged with its SQLSTATE (%e) and source location (verbose),
# to tell the extension's errors from PostgreSQL's.
new_private_cluster "$SMITH_DIR" "$SOCK" "sqlsmith test cluster (test/fuzz/sqlsmith.sh)" <<EOF
restart_after_crash = on
fsync = off
synchronous_commit = off
shared_buffers = 128MB
work_mem = 16MB
max_connections = 20
jit = off
log_min_messages = warning
log_min_error_statement = error
log_error_verbosity = verbose
log_line_prefix = '%m [%p] %e '
lc_messages = 'C'
EOF
smith_pg_ctl -l "$SMITH_LOG" -w -t 60 start >/dev/null || { cat "$SMITH_LOG" >&2; die "pg_ctl start failed"; }

# --- the database -----------------------------------------------------------
psql_run -q -c "CREATE DATABASE $DB"
load_corpus spam_all "$DB" >"$SMITH_DIR/corpus.log" 2>&1 || { cat "$SMITH_DIR/corpus.log" >&2; die "corpus load failed"; }
psql_run -q -d "$DB" <<'SQL'
-- 150 messages are enough: the point is realistic text.
CREATE TABLE spam_source AS SELECT id, body FROM spam_all WHERE id % 40 = 0;
DROP TABLE spam_all;
SQL
psql_run -q -d "$DB" -f test/fuzz/sqlsmith.sql
# sqlsmith sets its own 1 s statement timeout too; this covers its catalog
# queries and any session it opens otherwise.
psql_run -q -c "ALTER DATABASE $DB SET statement_timeout = '1s'"
psql_run -d "$DB" -At -F ' ' -c "SELECT 'objects: ' || (SELECT count(*) FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relkind IN ('r', 'v')) || ' tables and views, '
       || (SELECT count(*) FROM corpus_docs) || ' documents'"

# Names the touch count looks for: the extension's functions (sqlsmith
# writes them schema-qualified), the columns of its types, the views over
# its set-returning functions.
ext_functions=$(psql_run -d "$DB" -At -c "SELECT string_agg(DISTINCT p.proname, '|')
    FROM pg_proc p JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
   WHERE d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'minhash')")
ext_columns=$(psql_run -d "$DB" -At -c "SELECT string_agg(DISTINCT a.attname, '|')
    FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
   WHERE c.relnamespace = 'public'::regnamespace AND NOT a.attisdropped
     AND a.atttypid IN ('minhash'::regtype, 'minhash_query'::regtype)")
ext_views="doc_pairs|group_summary|group_totals|group_histogram|group_stats|group_detail|group_review|doc_chunks|doc_highlights|doc_intervals|doc_similar"

start_time() { psql -X -At -d "$DB" -c 'SELECT pg_postmaster_start_time()'; }
START_BEFORE=$(start_time)
LOG_START=$(stat -c %s "$SMITH_LOG")
JOBS="${MINHASH_SQLSMITH_JOBS:-2}"
[[ "$JOBS" =~ ^[1-9][0-9]*$ ]] || die "MINHASH_SQLSMITH_JOBS must be a positive integer"

# count_touches: reads the generated queries (each ends with ";\n") and
# prints "total touching calls columns views".
count_touches() {
    awk -v fn="^(${ext_functions})$" -v col="^(${ext_columns})$" -v vw="^(${ext_views})$" '
        BEGIN { RS = ";\n" }
        NF == 0 { next }
        {
            total++; f = c = v = 0; s = $0
            # A function call is "public.NAME(", a column "ref_N.NAME", a
            # view "public.NAME".
            while (match(s, /[A-Za-z_][A-Za-z_0-9]*\.[A-Za-z_][A-Za-z_0-9]*\(?/)) {
                tok = substr(s, RSTART, RLENGTH); s = substr(s, RSTART + RLENGTH)
                split(tok, part, ".")
                id = part[2]; call = sub(/\($/, "", id)
                if (call && part[1] == "public" && id ~ fn) f = 1
                else if (!call && part[1] == "public" && id ~ vw) v = 1
                else if (!call && id ~ col) c = 1
            }
            nf += f; nc += c; nv += v; any += (f || c || v)
        }
        END { printf "%d %d %d %d %d\n", total, any, nf, nc, nv }'
}

# run_sqlsmith NAME QUERIES CONNINFO [OPTIONS...]: JOBS sqlsmith processes
# at once (seeds SEED, SEED+1, ...; the queries shared out among them), each
# with its progress (one character a query: . ok, e error, t timeout, S
# syntax, C connection lost) and final report in NAME.J.err and its touch
# counts in NAME.J.touch.
run_sqlsmith() {
    local name="$1" n="$2" conninfo="$3"; shift 3
    local t0=$SECONDS j pids=() rc=0 each
    log "sqlsmith run '$name': $n queries in $JOBS processes, $*"
    for ((j = 0; j < JOBS; j++)); do
        each=$(( n / JOBS + (j < n % JOBS ? 1 : 0) ))
        ((each > 0)) || continue
        sqlsmith --target="$conninfo" --seed="$((SEED + j))" --max-queries="$each" \
                 --verbose --dump-all-queries "$@" 2>"$SMITH_DIR/$name.$j.err" |
            count_touches >"$SMITH_DIR/$name.$j.touch" &
        pids+=($!)
        SMITH_PIDS+=($!)
    done
    for j in "${pids[@]}"; do wait "$j" || rc=$?; done
    local secs=$((SECONDS - t0))
    ((rc == 0)) || { tail -n 30 "$SMITH_DIR/$name".*.err >&2; die "sqlsmith run '$name' failed (exit $rc)"; }
    local ran=0 total=0 any=0 nf=0 nc=0 nv=0 lost=0 errs=0 f r a b c d e
    for f in "$SMITH_DIR/$name".*.err; do
        r=$(sed -n 's/^queries: \([0-9]*\)$/\1/p' "$f" | tail -n 1)
        [[ -n "$r" ]] || { tail -n 30 "$f" >&2; die "sqlsmith ($f) ended without its report"; }
        ran=$((ran + r))
        lost=$((lost + $(grep -E '^[.etSC]+$' "$f" | tr -cd 'C' | wc -c)))
        errs=$((errs + $(grep -E '^[.etSC]+$' "$f" | tr -cd 'etSC' | wc -c)))
    done
    for f in "$SMITH_DIR/$name".*.touch; do
        read -r a b c d e <"$f"
        total=$((total + a)) any=$((any + b)) nf=$((nf + c)) nc=$((nc + d)) nv=$((nv + e))
    done
    printf '  %s: %s queries in %ss (%s/s), errors %s, connections lost %s\n' "$name" "$ran" "$secs" \
        "$(awk -v n="$ran" -v s="$secs" 'BEGIN { printf("%.0f", (s > 0) ? n / s : n) }')" "$errs" "$lost"
    printf '  %s: touching the extension %s of %s generated (%s%%): call its functions %s, read its columns %s, scan its views %s\n' \
        "$name" "$any" "$total" "$(awk -v a="$any" -v t="$total" 'BEGIN { printf("%.1f", t ? 100 * a / t : 0) }')" "$nf" "$nc" "$nv"
    TOTAL_RAN=$((TOTAL_RAN + ran)) TOTAL_LOST=$((TOTAL_LOST + lost))
    TOTAL_GEN=$((TOTAL_GEN + total)) TOTAL_ANY=$((TOTAL_ANY + any))
}

# A tenth of the queries among everything PostgreSQL has (catalog tables
# and all functions; slower queries, few of which reach the extension), the
# rest on the extension's tables and functions.
TOTAL_RAN=0 TOTAL_LOST=0 TOTAL_GEN=0 TOTAL_ANY=0
# CPU time of the server's processes (the postmaster's reaped children) and
# of this script's (sqlsmith), for a figure independent of the machine's load.
server_cpu_ticks() { awk '{ print $14 + $15 + $16 + $17 }' "/proc/$(head -n 1 "$DATA/postmaster.pid")/stat"; }
CPU_SERVER0=$(server_cpu_ticks)
T0=$SECONDS
tenth=$(( (QUERIES + 9) / 10 ))
conn="host=$PGHOST port=$PGPORT dbname=$DB user=smith"
run_sqlsmith catalog "$tenth" "$conn"
run_sqlsmith extension "$((QUERIES - tenth))" "$conn options='-csearch_path=smith_catalog,pg_catalog,public'" --exclude-catalog
DURATION=$((SECONDS - T0))
CPU_SERVER=$(( $(server_cpu_ticks) - CPU_SERVER0 ))
times >"$SMITH_DIR/times.txt"   # not in $(...): a subshell's children are its own
CPU_CLIENT=$(sed -n 2p "$SMITH_DIR/times.txt")

# --- verdict ------------------------------------------------------------------
fail=0
smith_running || { warn "the server is down"; fail=1; }
START_AFTER=$(start_time 2>/dev/null || echo unknown)
[[ "$START_AFTER" == "$START_BEFORE" ]] || { warn "postmaster start time changed: $START_BEFORE -> $START_AFTER"; fail=1; }
RUN_LOG="$SMITH_DIR/run.log"
tail -c +"$((LOG_START + 1))" "$SMITH_LOG" >"$RUN_LOG"
crash_lines=$(grep -cE 'terminated by signal|server process .* was terminated|TRAP:|PANIC:' "$RUN_LOG" || true)
if ((crash_lines > 0)); then
    warn "$crash_lines crash line(s) in the server log:"
    grep -E -B2 -A8 'terminated by signal|server process .* was terminated|TRAP:|PANIC:' "$RUN_LOG" | head -n 80 >&2
    fail=1
fi
((TOTAL_LOST == 0)) || { warn "sqlsmith lost its connection $TOTAL_LOST time(s)"; fail=1; }

# Errors by SQLSTATE. With log_error_verbosity = verbose an error is
#   <time> [<pid>] <SQLSTATE> ERROR:  <SQLSTATE>: message
#   <time> [<pid>] <SQLSTATE> LOCATION:  function, file.c:line
# and it is the extension's when that file is one of src/*.c or the context
# names one of its PL/pgSQL functions.
our_files="$(cd src && printf '%s\n' *.c | paste -sd'|')"
awk -v ours="^(${our_files}):" '
    function flush() {
        if (state == "") return
        all[state]++
        if (mine) { ext[state]++; if (state == "XX000") internal = internal msg "\n    at " where "\n" }
        state = ""
    }
    / ERROR:  / {
        flush()
        state = $0; sub(/ ERROR:  .*/, "", state); n = split(state, w, " "); state = w[n]
        mine = 0; msg = $0; sub(/.* ERROR:  [0-9A-Z]*: /, "", msg); where = ""; next }
    state != "" && / LOCATION:  / {
        where = $0; sub(/.* LOCATION:  /, "", where)
        split(where, loc, ", "); if (loc[2] ~ ours) mine = 1
        next }
    state != "" && / CONTEXT:  PL\/pgSQL function (near_dupe|minhash)/ { mine = 1; next }
    state != "" && / (STATEMENT|CONTEXT|DETAIL|HINT):  / { next }
    state != "" && /^[0-9][0-9][0-9][0-9]-/ { flush() }
    END {
        flush()
        for (s in all) printf "  %s %7d  of which the extension %d\n", s, all[s], ext[s] + 0 | "sort -k2,2nr"
        close("sort -k2,2nr")
        if (internal != "") printf "INTERNAL\n%s", internal
    }' "$RUN_LOG" >"$SMITH_DIR/sqlstates.txt"
log "errors by SQLSTATE (server log):"
sed '/^INTERNAL$/,$d' "$SMITH_DIR/sqlstates.txt"
if grep -q '^INTERNAL$' "$SMITH_DIR/sqlstates.txt"; then
    warn "internal errors (XX000) raised by the extension:"
    sed '1,/^INTERNAL$/d' "$SMITH_DIR/sqlstates.txt" | sort | uniq -c | sort -nr | head -n 20 >&2
    fail=1
fi

rate=$(awk -v n="$TOTAL_RAN" -v s="$DURATION" 'BEGIN { printf("%.0f", (s > 0) ? n / s : n) }')
share=$(awk -v a="$TOTAL_ANY" -v t="$TOTAL_GEN" 'BEGIN { printf("%.1f", t ? 100 * a / t : 0) }')
log "CPU: server processes $(awk -v t="$CPU_SERVER" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf("%.0f", t / hz) }')s, this script's children (sqlsmith, awk, psql) user+system: $CPU_CLIENT"
log "sqlsmith: $TOTAL_RAN queries in ${DURATION}s ($rate/s, $JOBS processes), seed $SEED, touching the extension $share%, crash lines $crash_lines, connections lost $TOTAL_LOST"
if ((fail)); then
    export MINHASH_SQLSMITH_KEEP=1
    die "sqlsmith: FAILED (cluster and logs kept in $SMITH_DIR)"
fi
log "sqlsmith: ok, no backend crashed"
