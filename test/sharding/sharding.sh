#!/usr/bin/env bash
# Sharded near-duplicate search on PostgreSQL's own distribution: a
# coordinator and two shards (three throwaway clusters, unix sockets only,
# ports ${MINHASH_SHARD_PORTS:-5490 5491 5492}, in $MINHASH_SHARD_DIR, default
# .cache/sharding), the documents table hash-partitioned on the coordinator
# into postgres_fdw foreign tables on the shards (server option extensions
# 'minhash'), each shard with its own gin_minhash_ops index.  Checks
# (test/sharding/sharding.sql, then here):
#   - %> minhash_query(q, t), resembles(), resemblance() and <%> ORDER BY are
#     in each shard's Remote SQL (EXPLAIN VERBOSE) for a literal, an initplan
#     value and a prepared statement's parameter; % (STABLE) stays local;
#   - lookups (%>, resembles, %), <%> top-k and minhash_union (whole table,
#     per family, per shard combined) equal the same queries on a local
#     single-node copy of the data;
#   - near_dupe_groups/near_dupe_pairs through band keys computed on the
#     shards (test/lib/sharded_groups.sql) equal the single-node results, with
#     groups spanning both shards;
#   - each shard answers the shipped lookups with its index: the Remote SQL,
#     EXPLAINed on a shard as postgres_fdw runs it, is a Bitmap Index Scan,
#     and each shard backend counts 40 index scans and no sequential scan for
#     40 lookups.
# About 3 minutes on the shared 2-core machine (load average 30-45 at the
# time).  Run by test/run_all.sh (needs nothing of its cluster), or
#   bash test/sharding/sharding.sh
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
cd "$REPO_ROOT"

SHARD_DIR="${MINHASH_SHARD_DIR:-$CACHE_DIR/sharding}"
read -r -a SHARD_PORTS <<<"${MINHASH_SHARD_PORTS:-5490 5491 5492}"
((${#SHARD_PORTS[@]} == 3)) || die "MINHASH_SHARD_PORTS: three ports, coordinator first"
# shellcheck source-path=SCRIPTDIR source=../lib/shard_clusters.sh
source test/lib/shard_clusters.sh
trap 'shard_clusters_stop' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP
fail() { KEEP_DIR=1; die "sharding: FAILED: $*"; }

LOOKUPS=40   # index-use check: lookups in one coordinator session

log "sharding: coordinator on port ${SHARD_PORTS[0]}, shards on ${SHARD_PORTS[1]} and ${SHARD_PORTS[2]}, in $SHARD_DIR"
shard_clusters_start
shard_clusters_topology
shard_documents_schema 0.8

# The corpus: 1,000 families of 10 drifting copies (test/corpus/generate_1m.sql,
# smaller) and 5 rows without a signature; the single-node copy
# documents_local (with its index) is the reference.
psql_node 0 -q -v families=1000 <<'SQL' || fail "loading the corpus"
\set ON_ERROR_STOP 1
\i test/corpus/generate_1m.sql
CREATE TABLE documents_local (id bigint PRIMARY KEY, family integer, sig minhash(128));
INSERT INTO documents_local (id, family, sig) SELECT id, family, sig FROM bench_docs;
DROP TABLE bench_docs;
INSERT INTO documents_local (id, family, sig) SELECT 100000 + i, -1, NULL FROM generate_series(1, 5) i;
CREATE INDEX ON documents_local USING gin (sig);
VACUUM ANALYZE documents_local;
INSERT INTO documents SELECT * FROM documents_local;
SQL
shard_documents_index

psql_node 0 -v ON_ERROR_STOP=1 -f test/sharding/sharding.sql || fail "test/sharding/sharding.sql"

# --- each shard answers with its index ------------------------------------
# The Remote SQL of a literal lookup, EXPLAINed on the shard itself as
# postgres_fdw runs it: a cursor, in a session with the server's options.
q="$(psql_node 0 -At -c 'SELECT sig FROM documents_local WHERE id = 1234')"
remote_sql="$(psql_node 0 -At -v q="$q" <<'SQL' | sed -n 's/^ *Remote SQL: //p' | head -n 1
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM documents WHERE sig %> minhash_query(:'q'::minhash, 0.8)
SQL
)"
[[ "$remote_sql" == *'OPERATOR(public.%>)'* ]] || fail "no %> in the Remote SQL: $remote_sql"
for i in 1 2; do
    shard_plan="$(PGOPTIONS='-c cursor_tuple_fraction=1' psql_node "$i" -At -c 'BEGIN' \
                  -c "EXPLAIN (COSTS OFF) DECLARE c1 CURSOR FOR $remote_sql" -c 'ROLLBACK')"
    grep -q 'Bitmap Index Scan on documents_sig' <<<"$shard_plan" ||
        fail "shard $i does not plan the shipped lookup with its index: $shard_plan"
done
echo "ok - shipped lookup is a Bitmap Index Scan on documents_sig on both shards"

# Counters: $LOOKUPS lookups (a prepared statement's parameter) in one
# transaction of a new coordinator session, then, in the same transaction and
# so over the same shard connections, each shard backend's own counts
# (pg_stat_xact_user_tables: this backend's scans not yet flushed, which
# happens only outside a transaction; a new backend starts from zero).
# Sequential scans are off in these shard sessions: on shards of 5,000 rows,
# a query whose signature is in the shard's histogram is estimated to match
# 1% of the rows, and then a sequential scan costs less than the index (one
# of the 40 here; at scale the index wins by far).  What is checked is that
# every shipped lookup can be and is answered by the index.
counts="$(psql_node 0 -q -At -F ' ' -v lookups="$LOOKUPS" <<'SQL'
ALTER SERVER shard1 OPTIONS (SET options '-c cursor_tuple_fraction=1 -c enable_seqscan=off');
ALTER SERVER shard2 OPTIONS (SET options '-c cursor_tuple_fraction=1 -c enable_seqscan=off');
CREATE FOREIGN TABLE shard1_scans (relname name, seq_scan bigint, idx_scan bigint)
	SERVER shard1 OPTIONS (schema_name 'pg_catalog', table_name 'pg_stat_xact_user_tables');
CREATE FOREIGN TABLE shard2_scans (relname name, seq_scan bigint, idx_scan bigint)
	SERVER shard2 OPTIONS (schema_name 'pg_catalog', table_name 'pg_stat_xact_user_tables');
PREPARE lookup(minhash) AS SELECT count(*) FROM documents WHERE sig %> minhash_query($1, 0.8);
BEGIN;
\o /dev/null
SELECT format('EXECUTE lookup(%L)', sig) FROM documents_local WHERE sig IS NOT NULL ORDER BY hashint8(id) LIMIT :lookups \gexec
\o
SELECT 1, idx_scan, seq_scan FROM shard1_scans WHERE relname = 'documents'
UNION ALL SELECT 2, idx_scan, seq_scan FROM shard2_scans WHERE relname = 'documents';
COMMIT;
SQL
)" || fail "lookup session"
for i in 1 2; do
    read -r _ idx seq <<<"$(grep "^$i " <<<"$counts" || true)"
    [[ -n "${idx:-}" ]] || fail "shard $i: no scan counts ($counts)"
    ((idx >= LOOKUPS)) || fail "shard $i: $idx index scans for $LOOKUPS lookups"
    ((seq == 0)) || fail "shard $i: $seq sequential scans during the lookups"
    echo "ok - shard $i: $idx index scans, no sequential scan, for $LOOKUPS lookups"
done
log "sharding: all checks passed"
