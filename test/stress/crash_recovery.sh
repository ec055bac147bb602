#!/usr/bin/env bash
# Crash recovery: kill -9 mid-insert into a table with a gin_minhash_ops index
# and the flagging trigger, many times, and check after every restart.
#
#   bash test/stress/crash_recovery.sh [CYCLES]      (default 50; about 5 s a cycle)
#
# A throwaway cluster of its own (initdb in $MINHASH_CRASH_DIR, default
# /tmp/minhash-crash; port ${MINHASH_CRASH_PORT:-5497}; unix socket only;
# restart_after_crash = on), stopped and removed on exit.  Each cycle:
#   - a client inserts rows, one per transaction with a known id, and logs the
#     id only after COMMIT has returned; every 10th transaction rolls back
#     instead (logged as such);
#   - another session holds an open transaction that has inserted 200 rows
#     (ids from 1,000,000,000 up) and never commits;
#   - sometimes a CHECKPOINT first, so that recovery starts at other places;
#   - after a random 0.3 to 2.5 s: kill -9 of the inserting backend (the
#     postmaster then restarts every backend and recovers), or of the
#     postmaster (its backends exit; the cluster is started again with pg_ctl
#     and recovers);
#   - after the restart: every id logged as committed is present, no row of
#     the open or rolled-back transactions is visible, at most one row per
#     cycle is present without having been logged (its COMMIT was under way
#     at the kill: committed, but the client never heard back; it then counts
#     as committed), the index returns the same rows as a sequential scan for
#     20 queries at 0.8 (%) and 20 at 0.5 (%>, a full index scan), a
#     threshold-0 index scan finds every row with a signature (the GIN index
#     holds every row), amcheck's bt_index_check(heapallindexed) passes on the
#     primary key, and the trigger has flagged near-duplicates (once the
#     table has 400 rows: a family's first repeat is id 201).
# Ends with `crash_recovery: N cycles ... lost 0, uncommitted visible 0,
# mismatches 0` and exits non-zero on any failure.  MINHASH_CRASH_SEED sets
# the random seed (printed), to repeat a run.
#
# Durability across a process kill does not depend on fsync (written WAL is
# in the kernel's page cache, which survives), so fsync = off spares the
# disk; synchronous_commit stays on, so COMMIT returns after its WAL is
# written.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
cd "$REPO_ROOT"

CYCLES="${1:-50}"
[[ "$CYCLES" =~ ^[1-9][0-9]*$ ]] || die "usage: $0 [CYCLES]"
CRASH_DIR="${MINHASH_CRASH_DIR:-/tmp/minhash-crash}"
DATA="$CRASH_DIR/data"
SERVER_LOG_FILE="$CRASH_DIR/server.log"
SEED="${MINHASH_CRASH_SEED:-$(( $(date +%s) % 32768 ))}"
RANDOM=$SEED
BINDIR="$(pg_bindir)"
export PGHOST="$CRASH_DIR" PGPORT="${MINHASH_CRASH_PORT:-5497}" PGUSER=postgres PGDATABASE=postgres
OPEN_BASE=1000000000

crash_pg_ctl() { as_pg "$BINDIR/pg_ctl" -D "$DATA" "$@"; }

crash_running() { [[ -f "$DATA/postmaster.pid" ]] && crash_pg_ctl status >/dev/null 2>&1; }

crash_cluster_stop() {
    # Clients first (our own background psql processes, by pid).
    local p
    for p in "${CLIENT_PIDS[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
    if crash_running; then
        crash_pg_ctl -m fast -w -t 60 stop >/dev/null 2>&1 ||
            crash_pg_ctl -m immediate -w -t 30 stop >/dev/null 2>&1 || warn "could not stop the server in $DATA"
    fi
    if [[ "${KEEP_DIR:-0}" == 1 ]]; then
        log "kept $CRASH_DIR (server log: $SERVER_LOG_FILE)"
    else
        rm -rf "$CRASH_DIR"
    fi
}
CLIENT_PIDS=()
trap 'crash_cluster_stop' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# Waits until the server accepts connections (at most $1 seconds).
wait_for_server() {
    local limit="$1" t=0
    until psql -X -At -c 'SELECT 1' >/dev/null 2>&1; do
        sleep 0.2
        t=$((t + 1))
        ((t < limit * 5)) || return 1
    done
}

# --- the cluster ------------------------------------------------------------
log "crash_recovery: $CYCLES cycles, seed $SEED, cluster in $DATA (port $PGPORT)"
new_private_cluster "$CRASH_DIR" "$CRASH_DIR" "crash-recovery test cluster (test/stress/crash_recovery.sh)" <<EOF
restart_after_crash = on
fsync = off
synchronous_commit = on
shared_buffers = 32MB
max_wal_size = 256MB
checkpoint_timeout = 30s
max_connections = 20
jit = off
log_min_messages = warning
lc_messages = 'C'
EOF
crash_pg_ctl -l "$SERVER_LOG_FILE" -w -t 60 start >/dev/null || { cat "$SERVER_LOG_FILE" >&2; die "pg_ctl start failed"; }

psql_run -q <<'SQL'
CREATE EXTENSION minhash;
CREATE EXTENSION amcheck;
CREATE TABLE crash_docs (id bigint PRIMARY KEY, body text, sig minhash(128), dup_of bigint);
-- A small pending list: GIN moves it into the main tree often, also mid-crash.
CREATE INDEX crash_docs_sig ON crash_docs USING gin (sig) WITH (gin_pending_list_limit = 64);
CREATE TRIGGER crash_flag BEFORE INSERT OR UPDATE ON crash_docs
	FOR EACH ROW EXECUTE FUNCTION minhash_flag_duplicates('sig', 'dup_of', '0.8');
-- The document of an id: 200 families of 40 words, one word edited per id.
CREATE FUNCTION crash_body(id bigint) RETURNS text LANGUAGE sql IMMUTABLE AS $$
	SELECT string_agg(CASE WHEN w = 1 + id % 40 THEN 'edit' || id
	                       ELSE 'w' || ((hashint4(((id % 200) * 40 + w)::int) & 2147483647) % 5000) END, ' ' ORDER BY w)
	  FROM generate_series(1, 40) w
$$;
CREATE TABLE crash_known (id bigint PRIMARY KEY);      -- committed, as far as the client knows
CREATE TABLE crash_rolled_back (id bigint PRIMARY KEY);
SQL

# The inserting client's script: one transaction per id, the id logged after
# COMMIT returned.
insert_script() {
    local first="$1" count="$2" i
    for ((i = first; i < first + count; i++)); do
        if ((i % 10 == 0)); then
            printf 'BEGIN;\nINSERT INTO crash_docs (id, body, sig) SELECT %d, b, minhash(b) FROM crash_body(%d) b;\nROLLBACK;\n\\echo rolledback %d\n' "$i" "$i" "$i"
        else
            printf 'BEGIN;\nINSERT INTO crash_docs (id, body, sig) SELECT %d, b, minhash(b) FROM crash_body(%d) b;\nCOMMIT;\n\\echo committed %d\n' "$i" "$i" "$i"
        fi
    done
}

# pid of the backend of a session with this application_name, waiting for it.
backend_pid() {
    local app="$1" extra="${2:-true}" pid="" t=0
    while [[ -z "$pid" ]]; do
        pid=$(psql -X -At -c "SELECT pid FROM pg_stat_activity WHERE application_name = '$app' AND $extra LIMIT 1" 2>/dev/null || true)
        [[ -n "$pid" ]] && break
        sleep 0.1
        t=$((t + 1))
        ((t < 300)) || return 1
    done
    echo "$pid"
}

next_id=1
total_committed=0 total_lost=0 total_uncommitted=0 total_rolled_back_visible=0
total_mismatches=0 total_ambiguous=0 n_backend=0 n_postmaster=0 failures=0
T0=$SECONDS

for ((cycle = 1; cycle <= CYCLES; cycle++)); do
    tc=$SECONDS
    out="$CRASH_DIR/cycle.out"
    : >"$out"

    # The open transaction: 200 rows inserted, never committed.
    open_first=$((OPEN_BASE + cycle * 1000))
    PGAPPNAME=crash_open psql -X -q -v ON_ERROR_STOP=1 \
        -c "BEGIN" \
        -c "INSERT INTO crash_docs (id, body, sig) SELECT $open_first + i, b, minhash(b) FROM generate_series(0, 199) i, crash_body($open_first + i) b" \
        -c "SELECT pg_sleep(3600)" >/dev/null 2>&1 &
    open_client=$!
    CLIENT_PIDS=("$open_client")
    backend_pid crash_open "query LIKE '%pg_sleep%'" >/dev/null || die "cycle $cycle: the open transaction did not start"

    # The inserting client.
    insert_script "$next_id" 20000 | PGAPPNAME=crash_inserter psql -X -q -v ON_ERROR_STOP=1 >"$out" 2>&1 &
    inserter=$!
    CLIENT_PIDS+=("$inserter")
    backend=$(backend_pid crash_inserter) || die "cycle $cycle: the inserting client did not connect"

    checkpointed=""
    if ((RANDOM % 3 == 0)); then
        sleep "0.$((RANDOM % 10))"
        psql -X -q -c CHECKPOINT >/dev/null 2>&1 && checkpointed=", checkpoint"
    fi
    sleep "$((RANDOM % 2)).$((3 + RANDOM % 7))"

    if ((RANDOM % 2 == 0)); then
        target=backend
        n_backend=$((n_backend + 1))
        kill -9 "$backend" 2>/dev/null || warn "cycle $cycle: backend $backend already gone"
        tk=$SECONDS
        # The postmaster kills the other backends and recovers by itself.
        sleep 0.5
        wait_for_server 60 || die "cycle $cycle: the server did not come back after kill -9 of a backend"
    else
        target=postmaster
        n_postmaster=$((n_postmaster + 1))
        pm=$(head -n 1 "$DATA/postmaster.pid")
        children=$(grep -l "^PPid:[[:space:]]*$pm\$" /proc/[0-9]*/status 2>/dev/null | cut -d/ -f3 | tr '\n' ' ' || true)
        kill -9 "$pm"
        tk=$SECONDS
        # Its children notice and exit; stragglers (still attached to shared
        # memory, which would keep a new postmaster from starting) get kill -9.
        for ((t = 0; t < 50; t++)); do
            alive=""
            for c in $children; do kill -0 "$c" 2>/dev/null && alive+="$c "; done
            [[ -z "$alive" ]] && break
            sleep 0.2
        done
        for c in $alive; do kill -9 "$c" 2>/dev/null || true; done
        crash_pg_ctl -l "$SERVER_LOG_FILE" -w -t 60 start >"$CRASH_DIR/pg_ctl.log" 2>&1 ||
            { tail -n 30 "$SERVER_LOG_FILE" >&2; die "cycle $cycle: pg_ctl start failed after kill -9 of the postmaster"; }
    fi
    recovery=$((SECONDS - tk))
    wait "$inserter" 2>/dev/null || true
    kill -TERM "$open_client" 2>/dev/null || true
    wait "$open_client" 2>/dev/null || true
    CLIENT_PIDS=()

    # What the client knows.
    committed_ids=$(grep -c '^committed ' "$out" || true)
    last=$(grep -oE '^(committed|rolledback) [0-9]+' "$out" | tail -n 1 | cut -d' ' -f2 || true)
    grep '^committed ' "$out" | cut -d' ' -f2 >"$CRASH_DIR/cycle.known" || true
    grep '^rolledback ' "$out" | cut -d' ' -f2 >"$CRASH_DIR/cycle.rolled" || true
    psql_run -q -c "\\copy crash_known FROM '$CRASH_DIR/cycle.known'" \
        -c "\\copy crash_rolled_back FROM '$CRASH_DIR/cycle.rolled'" ||
        die "cycle $cycle: could not record the client's log"

    # The checks.
    result=$(psql_run -q -At -F ' ' -v open_base="$OPEN_BASE" -v next_id="$next_id" 2>&1 <<'SQL'
SET client_min_messages = warning;
-- Rows present that the client never heard committed: their COMMIT was under
-- way at the kill.  From now on they count as committed.
CREATE TEMP TABLE ambiguous AS
SELECT d.id FROM crash_docs d WHERE d.id >= :next_id AND d.id < :open_base
   AND NOT EXISTS (SELECT 1 FROM crash_known k WHERE k.id = d.id);
INSERT INTO crash_known SELECT id FROM ambiguous;
-- Every known id present, through a sequential scan and through the key.
SET enable_indexscan = off; SET enable_bitmapscan = off;
SELECT count(*) AS lost_seq FROM crash_known k WHERE NOT EXISTS (SELECT 1 FROM crash_docs d WHERE d.id = k.id) \gset
RESET enable_indexscan; RESET enable_bitmapscan; SET enable_seqscan = off; SET enable_hashjoin = off; SET enable_mergejoin = off;
SELECT count(*) AS lost_idx FROM crash_known k WHERE NOT EXISTS (SELECT 1 FROM crash_docs d WHERE d.id = k.id) \gset
RESET enable_seqscan; RESET enable_hashjoin; RESET enable_mergejoin;
SELECT count(*) AS uncommitted FROM crash_docs WHERE id >= :open_base \gset
SELECT count(*) AS rolled_back FROM crash_docs d JOIN crash_rolled_back r USING (id) \gset
SELECT count(*) AS rows_now, count(sig) AS sigs_now, count(dup_of) AS flagged FROM crash_docs \gset
-- Index = sequential scan: 20 query signatures at 0.8 (%), 20 at 0.5 (%>).
CREATE TEMP TABLE queries AS SELECT id, sig FROM crash_docs ORDER BY random() LIMIT 20;
CREATE FUNCTION pg_temp.hits(use_index bool) RETURNS TABLE (form text, q bigint, id bigint) LANGUAGE plpgsql AS $$
BEGIN
	PERFORM set_config('enable_seqscan', CASE WHEN use_index THEN 'off' ELSE 'on' END, true);
	PERFORM set_config('enable_bitmapscan', CASE WHEN use_index THEN 'on' ELSE 'off' END, true);
	PERFORM set_config('enable_indexscan', 'off', true);
	PERFORM set_config('minhash.threshold', '0.8', true);
	RETURN QUERY SELECT '%', q.id, d.id FROM queries q JOIN crash_docs d ON d.sig % q.sig;
	RETURN QUERY SELECT '%>', q.id, d.id FROM queries q JOIN crash_docs d ON d.sig %> minhash_query(q.sig, 0.5);
END $$;
CREATE TEMP TABLE by_index AS SELECT * FROM pg_temp.hits(true);
CREATE TEMP TABLE by_scan AS SELECT * FROM pg_temp.hits(false);
SELECT (SELECT count(*) FROM (SELECT * FROM by_index EXCEPT ALL SELECT * FROM by_scan) a) +
       (SELECT count(*) FROM (SELECT * FROM by_scan EXCEPT ALL SELECT * FROM by_index) b) AS mismatches,
       (SELECT count(*) FROM by_scan) AS compared \gset
-- Threshold 0 through the index reads every item: every row with a signature.
SET enable_seqscan = off; SET enable_indexscan = off;
SELECT count(*) AS gin_rows FROM crash_docs WHERE sig %> minhash_query((SELECT sig FROM queries LIMIT 1), 0) \gset
RESET enable_seqscan; RESET enable_indexscan;
SELECT bt_index_check('crash_docs_pkey', true) \gset
SELECT :lost_seq, :lost_idx, :uncommitted, :rolled_back, :mismatches, :compared, :gin_rows, :sigs_now, :rows_now, :flagged,
       (SELECT count(*) FROM ambiguous), (SELECT count(*) FROM crash_known);
SQL
) || { echo "$result"; die "cycle $cycle: the checks failed to run"; }
    result=$(tail -n 1 <<<"$result")
    read -r lost_seq lost_idx uncommitted rolled_back mismatches compared gin_rows sigs_now rows_now flagged ambiguous known <<<"$result"

    ok=1
    lost=$((lost_seq > lost_idx ? lost_seq : lost_idx))
    ((lost == 0 && uncommitted == 0 && rolled_back == 0 && mismatches == 0 && gin_rows == sigs_now && ambiguous <= 1 && (flagged > 0 || rows_now <= 400))) || ok=0
    total_lost=$((total_lost + lost))
    total_uncommitted=$((total_uncommitted + uncommitted))
    total_rolled_back_visible=$((total_rolled_back_visible + rolled_back))
    total_mismatches=$((total_mismatches + mismatches + (gin_rows != sigs_now)))
    total_ambiguous=$((total_ambiguous + ambiguous))
    total_committed=$known
    printf '  cycle %2d: kill -9 %-10s after %5d commits%s; back in %2ss; rows %6d, lost %d, uncommitted visible %d, rolled back visible %d, index vs scan %d/%d rows differ, gin rows %d/%d, commit under way %d, flagged %d; %ss%s\n' \
        "$cycle" "$target" "$committed_ids" "$checkpointed" "$recovery" "$rows_now" "$lost" "$uncommitted" "$rolled_back" \
        "$mismatches" "$compared" "$gin_rows" "$sigs_now" "$ambiguous" "$flagged" $((SECONDS - tc)) "$( ((ok)) || echo '  <-- FAILED')"
    if ((!ok)); then
        failures=$((failures + 1))
        KEEP_DIR=1
    fi
    [[ -n "$last" ]] && next_id=$((last + 1))
    # Past anything the killed client may have sent after its last log line.
    next_id=$((next_id + 10))
done

elapsed=$((SECONDS - T0))
n_rolled_back=$(psql_run -At -c "SELECT count(*) FROM crash_rolled_back")
per_cycle=$(awk -v e="$elapsed" -v n="$CYCLES" 'BEGIN { printf "%.1f", e / n }')
summary="crash_recovery: $CYCLES cycles ($n_backend backend, $n_postmaster postmaster kills), $total_committed committed rows, lost $total_lost; uncommitted visible $total_uncommitted (of $((CYCLES * 200)) in open transactions), rolled back visible $total_rolled_back_visible (of $n_rolled_back); index mismatches $total_mismatches, commits under way at the kill $total_ambiguous; ${elapsed}s (${per_cycle}s per cycle), seed $SEED"
if ((failures == 0)); then
    echo "$summary: passed"
else
    echo "$summary: FAILED in $failures cycles (cluster kept in $CRASH_DIR)"
    exit 1
fi
