#!/usr/bin/env bash
# Several clients insert into an LSH-indexed table and query it at once
# (pgbench, two custom scripts).  Passes when no transaction fails, no
# inserted row is lost, and afterwards the index and a sequential scan return
# the same rows.  Expects the corpus in spam_messages and the PG* variables.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
PGBENCH="$("${PG_CONFIG:-pg_config}" --bindir)/pgbench"
psql_run() { psql -X -P pager=off -v ON_ERROR_STOP=1 "$@"; }

psql_run -q <<'SQL'
CREATE EXTENSION IF NOT EXISTS minhash;
DROP TABLE IF EXISTS conc_docs;
CREATE TABLE conc_docs (id bigserial PRIMARY KEY, source int, body text, sig minhash(128));
INSERT INTO conc_docs (source, body, sig) SELECT id, body, minhash(body) FROM spam_messages WHERE id % 3 = 0;
CREATE INDEX conc_docs_sig ON conc_docs USING gin (sig);
ANALYZE conc_docs;
SQL
before=$(psql_run -At -c "SELECT count(*) FROM conc_docs")

# Four clients insert exactly 4 x 400 rows while four others query.
insert_log=$(mktemp) query_log=$(mktemp)
"$PGBENCH" -n -c 4 -j 1 -t 400 -f test/stress/concurrency/insert.sql >"$insert_log" 2>&1 &
insert_pid=$!
"$PGBENCH" -n -c 4 -j 1 -t 400 -f test/stress/concurrency/query.sql >"$query_log" 2>&1 &
query_pid=$!
status=0
wait "$insert_pid" || status=1
wait "$query_pid" || status=1
for log in "$insert_log" "$query_log"; do
    grep -E 'number of (transactions actually processed|failed transactions)|tps = ' "$log" | sed 's/^/  /' || true
done
failed=$(cat "$insert_log" "$query_log" | awk '/number of failed transactions/{n += $5} END {print n + 0}')
((status == 0)) || { cat "$insert_log" "$query_log"; echo "concurrency: pgbench failed"; exit 1; }
rm -f "$insert_log" "$query_log"

after=$(psql_run -At -c "SELECT count(*) FROM conc_docs")
echo "rows before: $before, inserted: 1600, rows after: $after, failed transactions: $failed"
[[ "$failed" == 0 ]] || { echo "concurrency: $failed transactions failed"; exit 1; }
((before + 1600 == after)) || { echo "concurrency: rows lost or duplicated"; exit 1; }

# Index and sequential scan agree on 300 queries.
psql_run <<'SQL'
CREATE TEMP TABLE conc_queries AS SELECT id, minhash(body) AS sig FROM spam_messages ORDER BY md5(id::text) LIMIT 300;
SET enable_seqscan = off; SET enable_indexscan = off;
CREATE TEMP TABLE conc_by_index AS SELECT q.id AS query, d.id FROM conc_queries q JOIN conc_docs d ON d.sig % q.sig;
RESET enable_seqscan; SET enable_bitmapscan = off;
CREATE TEMP TABLE conc_by_scan AS SELECT q.id AS query, d.id FROM conc_queries q JOIN conc_docs d ON d.sig % q.sig;
SELECT (SELECT count(*) FROM conc_by_scan) AS rows_found,
       (SELECT count(*) FROM (SELECT * FROM conc_by_index EXCEPT ALL SELECT * FROM conc_by_scan) a) +
       (SELECT count(*) FROM (SELECT * FROM conc_by_scan EXCEPT ALL SELECT * FROM conc_by_index) b) AS differences \gset
\echo index and sequential scan: :rows_found rows, :differences differences
SELECT :differences = 0 AS ok \gset
\if :ok
\else
	\echo 'concurrency: index and sequential scan differ'
	SELECT 1/0;
\endif
DROP TABLE conc_docs;
SQL
