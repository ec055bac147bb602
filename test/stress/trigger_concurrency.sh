#!/usr/bin/env bash
# minhash_flag_duplicates() and concurrent inserts, two sessions in a fixed
# order (no timing assumptions: each step waits for the previous one's state):
#   1. session 1: BEGIN; INSERT doc A            (not committed)
#   2. session 2: INSERT doc B, a near-duplicate of A; commit
#      -> B's flag is NULL: A is not visible to B's snapshot
#   3. session 1: COMMIT                         (A's flag is NULL too)
#   4. INSERT doc C, another near-duplicate      -> flagged (A, the closer)
#   5. UPDATE B (the remedy)                     -> flagged
# Expects the PG* variables of a running cluster; starts and stops nothing.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
psql_run() { psql -X -P pager=off -v ON_ERROR_STOP=1 "$@"; }

work=$(mktemp -d)
session1_pid=
cleanup() {
    exec 3>&- 2>/dev/null || true
    if [[ -n "$session1_pid" ]]; then kill "$session1_pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

psql_run -q <<'SQL'
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS minhash;
DROP TABLE IF EXISTS flag_conc;
CREATE TABLE flag_conc (id integer PRIMARY KEY, body text, sig minhash(128), dup_of integer);
CREATE INDEX ON flag_conc USING gin (sig);
CREATE TRIGGER flag_dups BEFORE INSERT OR UPDATE ON flag_conc FOR EACH ROW
    EXECUTE FUNCTION minhash_flag_duplicates('sig', 'dup_of', '0.8');
-- Documents of 200 words; B and C change one and two words of A.
CREATE TEMP TABLE words AS SELECT i, 'word' || i AS w FROM generate_series(1, 200) i;
SQL
doc() {   # doc CHANGED_WORD...: A's 200 words with the given ones replaced
    local changed="{${*:-0}}"
    printf "(SELECT string_agg(CASE WHEN i = ANY ('%s'::int[]) THEN 'other' || i ELSE 'word' || i END, ' ' ORDER BY i) FROM generate_series(1, 200) i)" "$changed"
}
insert_sql() {   # insert_sql ID CHANGED_WORD...
    local id="$1"; shift
    printf "INSERT INTO flag_conc (id, body, sig) SELECT %s, d, minhash(d) FROM %s AS t(d);" "$id" "($(doc "$@"))"
}

# Session 1, in the background, reads its commands from a fifo.
mkfifo "$work/session1"
psql -X -q -v ON_ERROR_STOP=1 "application_name=flag_conc_session1" \
    <"$work/session1" >"$work/session1.out" 2>&1 &
session1_pid=$!
exec 3>"$work/session1"

# wait_for_session1 STATE QUERY_PREFIX: until session 1 is in that state
# after that statement (at most 60 s).
wait_for_session1() {
    local i
    for ((i = 0; i < 600; i++)); do
        if [[ "$(psql_run -At -c "SELECT count(*) FROM pg_stat_activity
                 WHERE application_name = 'flag_conc_session1' AND state = '$1'
                   AND query LIKE '$2%'")" == 1 ]]; then
            return 0
        fi
        kill -0 "$session1_pid" 2>/dev/null || { cat "$work/session1.out"; echo "trigger_concurrency: session 1 died"; exit 1; }
        sleep 0.1
    done
    echo "trigger_concurrency: session 1 never reached '$1' after '$2'"; cat "$work/session1.out"; exit 1
}

# 1. Session 1 inserts A and keeps its transaction open.
echo "BEGIN;" >&3
echo "$(insert_sql 1)" >&3
wait_for_session1 'idle in transaction' 'INSERT'
echo "step 1: session 1 inserted A (id 1), not committed"

# 2. Session 2 inserts B, a near-duplicate, and commits.
psql_run -q -c "$(insert_sql 2 100)"
b_flag=$(psql_run -At -c "SELECT coalesce(dup_of::text, 'NULL') FROM flag_conc WHERE id = 2")
echo "step 2: session 2 inserted B (id 2) and committed: B flagged as duplicate of $b_flag (A is invisible to it)"

# 3. Session 1 commits.
echo "COMMIT;" >&3
exec 3>&-
wait "$session1_pid"
session1_pid=
a_flag=$(psql_run -At -c "SELECT coalesce(dup_of::text, 'NULL') FROM flag_conc WHERE id = 1")
echo "step 3: session 1 committed: A flagged as duplicate of $a_flag (B did not exist when A was inserted)"

# 4. A later near-duplicate sees both.
psql_run -q -c "$(insert_sql 3 50)"
c_flag=$(psql_run -At -c "SELECT coalesce(dup_of::text, 'NULL') FROM flag_conc WHERE id = 3")
echo "step 4: C (id 3) inserted afterwards: flagged as duplicate of $c_flag"

# 5. The remedy: an UPDATE flags B again, now that A is visible.
psql_run -q -c "UPDATE flag_conc SET dup_of = NULL WHERE id = 2"
b_after=$(psql_run -At -c "SELECT coalesce(dup_of::text, 'NULL') FROM flag_conc WHERE id = 2")
echo "step 5: B updated: flagged as duplicate of $b_after"

psql_run -At -c "SELECT 'resemblance A-B ' || round(resemblance(a.sig, b.sig)::numeric, 3) ||
                        ', A-C ' || round(resemblance(a.sig, c.sig)::numeric, 3) ||
                        ', B-C ' || round(resemblance(b.sig, c.sig)::numeric, 3)
                   FROM flag_conc a, flag_conc b, flag_conc c WHERE a.id = 1 AND b.id = 2 AND c.id = 3"
psql_run -q -c "DROP TABLE flag_conc"

status=0
[[ "$b_flag" == NULL ]] || { echo "trigger_concurrency: B should not see uncommitted A"; status=1; }
[[ "$a_flag" == NULL ]] || { echo "trigger_concurrency: A cannot have seen B"; status=1; }
[[ "$c_flag" == 1 ]] || { echo "trigger_concurrency: C should be flagged as a duplicate of A"; status=1; }
[[ "$b_after" == 1 ]] || { echo "trigger_concurrency: the UPDATE should flag B as a duplicate of A"; status=1; }
((status == 0)) && echo "trigger_concurrency: passed"
exit "$status"
