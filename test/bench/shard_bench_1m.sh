#!/usr/bin/env bash
# The 1M-document corpus (test/corpus/generate_1m.sql) on one node against a
# coordinator and two shards (postgres_fdw foreign partitions, each shard
# with its own gin_minhash_ops index): lookup p50/p95 and grouping time
# (test/bench/shard_bench_1m.sql).  Three throwaway clusters on this machine (ports
# ${MINHASH_SHARD_PORTS:-5490 5491 5492}, in $MINHASH_SHARD_BENCH_DIR, default
# .cache/shard_bench); the coordinator is also the single node.  All three
# share the machine's cores and disk: a functional figure, not a speed-up.
# 1M rows took about 30 minutes on a shared 2-core machine (100,000 rows: 7).
# Not part of test/run_all.sh.  Needs the extension installed (make install).
#
#   bash test/bench/shard_bench_1m.sh
#   MINHASH_SHARD_BENCH_FAMILIES=10000 bash test/bench/shard_bench_1m.sh
#                        # the same generator, 10,000 families of 10 (100k rows)
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
cd "$REPO_ROOT"

SHARD_DIR="${MINHASH_SHARD_BENCH_DIR:-$CACHE_DIR/shard_bench}"
FAMILIES="${MINHASH_SHARD_BENCH_FAMILIES:-100000}"
[[ "$FAMILIES" =~ ^[1-9][0-9]*$ ]] || die "MINHASH_SHARD_BENCH_FAMILIES: a positive number"
read -r -a SHARD_PORTS <<<"${MINHASH_SHARD_PORTS:-5490 5491 5492}"
((${#SHARD_PORTS[@]} == 3)) || die "MINHASH_SHARD_PORTS: three ports, coordinator first"
SHARD_CONF="shared_buffers = 256MB
max_wal_size = 4GB
checkpoint_timeout = 30min"
# shellcheck source-path=SCRIPTDIR source=../lib/shard_clusters.sh
source test/lib/shard_clusters.sh
trap 'shard_clusters_stop' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

log "shard_bench_1m: coordinator on port ${SHARD_PORTS[0]}, shards on ${SHARD_PORTS[1]} and ${SHARD_PORTS[2]}, in $SHARD_DIR"
shard_clusters_start
shard_clusters_topology
shard_documents_schema 0.8

log "corpus ($FAMILIES families of 10) on the coordinator (the single node), its index, then a copy to the shards"
psql_node 0 -q -v families="$FAMILIES" <<'SQL'
\set ON_ERROR_STOP 1
SET maintenance_work_mem = '1GB';
SET jit = off;
\i test/corpus/generate_1m.sql
\timing on
CREATE INDEX bench_docs_sig ON bench_docs USING gin (sig);
INSERT INTO documents SELECT id, family, sig FROM bench_docs;
SQL
start=$SECONDS
shard_documents_index
log "shard indexes and statistics: $((SECONDS - start)) s"
psql_node 0 -c "SELECT count(*) AS shard1 FROM documents_1" -c "SELECT count(*) AS shard2 FROM documents_2"

psql_node 0 -f test/bench/shard_bench_1m.sql
