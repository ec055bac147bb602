#!/usr/bin/env bash
# Interrupts that do not end a query must not disturb it; a cancel must end
# it.  For each function that polls the engine for a cancel (near_dupe_groups,
# near_dupe_pairs, chunk_similarity both ways, common_chunks, highlight,
# shingle_resemblance,
# shingle_hashes, lsh_params) and for minhash_tokens, on data that takes each
# call about a second or more:
#   (a) plain: the result (an md5 of it) and the elapsed time T;
#   (b) with client_connection_check_interval = '10ms' (a timer that raises
#       an interrupt every 10 ms): the same result;
#   (c) under a signal storm: another session calls
#       pg_log_backend_memory_contexts() on the working backend every few
#       milliseconds for as long as the call runs: the same result;
#   (d) a cancel: statement_timeout at 0.4 T (T the time of the call
#       alone, its result not turned into text), the call followed in the
#       same target list by
#       nextval('interrupts_after_call'): SQLSTATE 57014 and the sequence
#       untouched, i.e. the call itself stopped (a call that cannot be
#       cancelled finishes, and the late cancel comes after nextval).
# (b) and (c) need PostgreSQL 14 or later and are skipped, with a message,
# on older servers.  Every call runs under a generous statement_timeout
# (15 T, at least 30 s), so a call that starts over on every interrupt fails
# instead of hanging.  Nothing is timed beyond that guard and the fraction
# of T in (d).
#
#   bash test/stress/interrupts.sh      (PG* pointing at a cluster with minhash)
#
# About 3 minutes on 2 cores; tables interrupts_* are dropped at the end.
# Before the fix (the poll stopped the engine for any interrupt, and the
# glue started it over) (b) and (c) never finished for the polling
# functions, and (d) failed for shingle_hashes, minhash_tokens and
# lsh_params, whose long stretches had no interrupt check.
set -euo pipefail

sql() { psql -X -At -q -v ON_ERROR_STOP=1 "$@"; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }

WORK="$(mktemp -d /tmp/minhash-interrupts.XXXXXX)"
cleanup() {
    local p
    for p in $(jobs -p); do kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    sql -c 'DROP TABLE IF EXISTS interrupts_docs, interrupts_pair, interrupts_big, interrupts_params' \
        -c 'DROP SEQUENCE IF EXISTS interrupts_after_call' >/dev/null 2>&1 || true
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

failures=0
checks=0
fail() { printf 'FAIL: %s\n' "$*" >&2; failures=$((failures + 1)); }

sql -c 'SET client_min_messages = warning' -c 'CREATE EXTENSION IF NOT EXISTS minhash' >/dev/null
server_version=$(sql -c 'SHOW server_version_num')
modern=1
if ((server_version < 140000)); then
    modern=0
    echo "NOTE: server $server_version < 14: no client_connection_check_interval and no pg_log_backend_memory_contexts(); (b) and (c) are skipped"
fi

# --- data ---------------------------------------------------------------------
# interrupts_docs: 200,000 signatures in 20,000 families of 10 near-duplicates
# (the shape of test/corpus/generate_1m.sql).  interrupts_pair: two texts of
# 4,000,000 words (27 MB each) from a 65,536-word vocabulary, b with one word
# in 32 replaced.  interrupts_big: the two joined, 8,000,000 words.
t0=$SECONDS
sql <<'SQL'
SET client_min_messages = warning;
DROP TABLE IF EXISTS interrupts_docs, interrupts_pair, interrupts_big, interrupts_params;
DROP SEQUENCE IF EXISTS interrupts_after_call;
CREATE UNLOGGED TABLE interrupts_docs (id bigint PRIMARY KEY, sig minhash(128));
INSERT INTO interrupts_docs
SELECT f::bigint * 10 + m,
       minhash(CASE WHEN m % 2 = 1 THEN
                    (SELECT string_agg('r' || (hashint4(f * 100 + m * 20 + w) & 65535), ' ') FROM generate_series(1, 20) w) || ' '
               ELSE '' END ||
               (SELECT string_agg(CASE WHEN m > 0 AND (hashint4(f * 131 + w) & 63) < m THEN 'x' || (hashint4(f * 7 + m * 80 + w) & 65535)
                                       ELSE 'w' || ((hashint4(f * 80 + w) & 2147483647) % 50000) END
                                  || CASE WHEN m > 0 AND w = 40 THEN ' ' || repeat('ins' || m || ' ', m) ELSE '' END,
                                  ' ' ORDER BY w)
                  FROM generate_series(1, 80) w))
  FROM generate_series(0, 19999) f, generate_series(0, 9) m;
CREATE UNLOGGED TABLE interrupts_pair AS
SELECT string_agg('w' || ((hashint4(i) & 2147483647) % 65536), ' ' ORDER BY i) AS a,
       string_agg(CASE WHEN i % 32 = 0 THEN 'x' || i ELSE 'w' || ((hashint4(i) & 2147483647) % 65536) END,
                  ' ' ORDER BY i) AS b
  FROM generate_series(1, 4000000) i;
CREATE UNLOGGED TABLE interrupts_big AS SELECT a || ' ' || b AS doc FROM interrupts_pair;
-- a column, not a constant: an immutable call on constants runs in the planner
CREATE UNLOGGED TABLE interrupts_params AS SELECT 8192 AS num_perm;
CREATE SEQUENCE interrupts_after_call;
VACUUM ANALYZE interrupts_docs, interrupts_pair, interrupts_big, interrupts_params;
SQL
echo "data: $((SECONDS - t0)) s"

# name | FROM clause (may be empty) | the call, in a target list
CALLS=(
    "near_dupe_groups||near_dupe_groups('interrupts_docs', 'id', 'sig')"
    "near_dupe_pairs||near_dupe_pairs('interrupts_docs', 'id', 'sig', 0.8)"
    "chunk_similarity literal|interrupts_pair|chunk_similarity(a, b, 8)"
    "chunk_similarity information|interrupts_pair|chunk_similarity(a, b, 8, 'information')"
    "common_chunks|interrupts_pair|common_chunks(a, b, 8)"
    "highlight|interrupts_pair|highlight(a, b, 8, 'text')"
    "shingle_resemblance|interrupts_pair|shingle_resemblance(a, b)"
    "shingle_hashes|interrupts_big|shingle_hashes(doc)"
    "minhash_tokens|interrupts_big|minhash_tokens(doc)"
    "lsh_params|interrupts_params|lsh_params(0.8, num_perm)"
)

# run APP GUARD_MS SETTINGS QUERY: run QUERY (which sets psql variable
# `result` through \gset) in a session named APP after SETTINGS; prints
# "SQLSTATE|result|elapsed ms".
run() {
    local app="$1" guard="$2" settings="$3" query="$4" start out
    start=$(now_ms)
    out=$(PGAPPNAME="$app" psql -X -At -q 2>>"$WORK/errors" <<SQL
SET statement_timeout = '${guard}ms';
$settings
\\set result none
$query
\\echo :SQLSTATE'|':result
SQL
    ) || true
    echo "${out:-none|none}|$(($(now_ms) - start))"
}

# storm APP GUARD_MS: while a query of the session named APP runs, ask it to
# log its memory contexts every few milliseconds (an interrupt that does not
# end the query); gives up GUARD_MS after starting.  Prints the number of
# requests sent.
storm() {
    sql 2>>"$WORK/errors" <<SQL
DO \$\$
DECLARE
    deadline timestamptz := clock_timestamp() + interval '$2 ms';
    target int;
    sent int := 0;
    seen boolean := false;
BEGIN
    WHILE clock_timestamp() < deadline LOOP
        PERFORM pg_stat_clear_snapshot();
        SELECT pid INTO target FROM pg_stat_activity
         WHERE application_name = '$1' AND state = 'active' AND query LIKE 'SELECT md5(%';
        IF target IS NULL THEN
            EXIT WHEN seen;
        ELSE
            seen := true;
            IF pg_log_backend_memory_contexts(target) THEN
                sent := sent + 1;
            END IF;
        END IF;
        PERFORM pg_sleep(0.003);
    END LOOP;
    PERFORM set_config('interrupts.sent', sent::text, false);
END
\$\$;
SELECT current_setting('interrupts.sent');
SQL
}

# cancel TIMEOUT_MS CALL FROM_CLAUSE: run CALL followed by nextval() in one
# target list under statement_timeout; prints "SQLSTATE|whether nextval ran".
cancel() {
    psql -X -At -q 2>>"$WORK/errors" <<SQL || echo "none|none"
SELECT setval('interrupts_after_call', 1, false) \g /dev/null
SET statement_timeout = '$1ms';
\o /dev/null
SELECT $2 AS x, nextval('interrupts_after_call') $3;
\o
\set st :SQLSTATE
RESET statement_timeout;
SELECT is_called FROM interrupts_after_call \gset
\echo :st'|':is_called
SQL
}

printf '\n%-30s %-14s %-22s %-30s %-20s\n' function "plain (T)" check_interval storm cancel
for entry in "${CALLS[@]}"; do
    IFS='|' read -r name from call <<<"$entry"
    from_clause=""
    [[ -z "$from" ]] || from_clause="FROM $from"
    result_query="SELECT md5(string_agg(x::text, E'\\n')) AS result FROM (SELECT $call AS x $from_clause) s \\gset"
    app="interrupts_$RANDOM"

    # (a) plain
    IFS='|' read -r st plain ms_plain <<<"$(run "$app" 600000 "" "$result_query")"
    checks=$((checks + 1))
    if [[ "$st" != 00000 ]]; then
        fail "$name: the plain call failed (SQLSTATE $st): $(tail -1 "$WORK/errors")"
        printf "%-30s %-14s\n" "$name" "error"
        continue
    fi
    guard=$((ms_plain * 15 > 30000 ? ms_plain * 15 : 30000))
    # T: the call alone, without turning its result into text (count(x):
    # an unused column of the subquery would not be computed at all)
    IFS='|' read -r st _ ms_call <<<"$(run "$app" "$guard" "" "SELECT count(x) AS result FROM (SELECT $call AS x $from_clause) s \\gset")"
    [[ "$st" == 00000 ]] || fail "$name: the call alone failed (SQLSTATE $st)"
    col_a="${ms_plain} (${ms_call})"

    # (b) client_connection_check_interval
    col_b="skipped (< 14)"
    if ((modern)); then
        checks=$((checks + 1))
        IFS='|' read -r st got ms <<<"$(run "$app" "$guard" "SET client_connection_check_interval = '10ms';" "$result_query")"
        if [[ "$st" == 00000 && "$got" == "$plain" ]]; then
            col_b="same, ${ms} ms"
        elif [[ "$st" == 00000 ]]; then
            col_b="DIFFERENT"; fail "$name: a different result with client_connection_check_interval"
        else
            col_b="$st after ${ms} ms"; fail "$name: with client_connection_check_interval = '10ms' it did not finish in ${guard} ms (SQLSTATE $st)"
        fi
    fi

    # (c) a storm of pg_log_backend_memory_contexts()
    col_c="skipped (< 14)"
    if ((modern)); then
        checks=$((checks + 1))
        storm "$app" "$((guard + 10000))" >"$WORK/sent" &
        storm_pid=$!
        # log_min_messages: the requests are processed as usual, not written out
        IFS='|' read -r st got ms <<<"$(run "$app" "$guard" "SET log_min_messages = fatal;" "$result_query")"
        wait "$storm_pid" || true
        sent=$(cat "$WORK/sent" 2>/dev/null || true)
        sent=${sent:-0}
        if [[ "$st" == 00000 && "$got" == "$plain" && "$sent" -gt 0 ]]; then
            col_c="same, ${ms} ms, $sent signals"
        elif [[ "$st" == 00000 && "$got" == "$plain" ]]; then
            col_c="no signal sent"; fail "$name: the storm never saw the call running"
        elif [[ "$st" == 00000 ]]; then
            col_c="DIFFERENT"; fail "$name: a different result under the signal storm"
        else
            col_c="$st after ${ms} ms"; fail "$name: under the signal storm ($sent signals) it did not finish in ${guard} ms (SQLSTATE $st)"
        fi
    fi

    # (d) a cancel stops the call itself
    checks=$((checks + 1))
    timeout_ms=$((ms_call * 2 / 5))
    ((timeout_ms > 0)) || timeout_ms=1
    IFS='|' read -r st advanced <<<"$(cancel "$timeout_ms" "$call" "$from_clause")"
    if [[ "$st" == 57014 && "$advanced" == f ]]; then
        col_d="57014 at ${timeout_ms} ms"
    elif [[ "$st" == 57014 ]]; then
        col_d="57014, too late"; fail "$name: statement_timeout ${timeout_ms} ms: cancelled only after the call had finished"
    else
        col_d="$st"; fail "$name: statement_timeout ${timeout_ms} ms (0.4 of ${ms_call} ms) gave SQLSTATE $st, not 57014"
    fi
    printf '%-30s %-14s %-22s %-30s %-20s\n' "$name" "$col_a" "$col_b" "$col_c" "$col_d"
done

# The session still works, and no backend died.
checks=$((checks + 1))
[[ "$(sql -c 'SELECT 1')" == 1 ]] || fail "the server does not answer after the run"
echo "interrupts: $checks checks, $failures failed"
((failures == 0))
