#!/usr/bin/env bash
# flag_bench.sh: what flagging new rows costs on Citus, where the flagging
# trigger refuses to run on a shard.  By hand, not in CI:
#
#   flock /work/bench.lock bash test/citus/flag_bench.sh [DOCS] [NEW]   # default 1000000 10000
#
# Three clusters of its own (test/citus/lib.sh) in <repo>/.cache/citus-flag,
# ports MINHASH_CITUS_PORT..+2 (default 5581-5583).  DOCS + NEW realistic
# documents (test/corpus/generate_realistic.sql) are generated on the
# coordinator; the first DOCS go into a table distributed by id (8 shards)
# with its GIN index, and are grouped at 0.8 (near_dupe_groups, stored as a
# reference table).  Then the last NEW are inserted, and flagged both ways,
# each timed (wall seconds; the three nodes share this machine):
#   reflag   the alternative citus.sh checks: for each new row, one lookup
#            through the coordinator over every shard (resembles ... ORDER
#            BY sig <%> ... LIMIT 1) and one router UPDATE of its
#            duplicate_of
#   append   near_dupe_groups_append of the new rows to the stored grouping
# and how many new rows each finds a near-duplicate for.  No timing
# assertions; figures in test/citus/README.md.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
REPO_ROOT="$(cd "$HERE/../.." && pwd -P)"
DOCS=${1:-1000000}
NEW=${2:-10000}
rc=0; PGC=$("$HERE/build_citus.sh") || rc=$?
((rc == 77)) && exit 0
((rc == 0)) || { echo "flag_bench: Citus build failed"; exit 1; }
# shellcheck source=test/citus/lib.sh
source "$HERE/lib.sh"
BASE=${MINHASH_CITUS_PORT:-5581}
DIR=$REPO_ROOT/.cache/citus-flag
citus_start "$DIR" "$BASE" "$PGC" "shared_buffers = 1GB
maintenance_work_mem = 512MB
work_mem = 64MB
max_wal_size = 8GB
autovacuum = off"
say() { printf '==> %s\n' "$*"; }
now() { echo "${EPOCHREALTIME/,/.}"; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.1f", b - a}'; }

say "corpus and $((DOCS + NEW)) generated documents on the coordinator"
PGPORT=$BASE bash "$REPO_ROOT/test/corpus/load_spamassassin.sh" spam_messages >"$DIR/corpus.log" 2>&1
psql -X -q -p "$BASE" -v docs="$((DOCS + NEW))" -f "$REPO_ROOT/test/corpus/generate_realistic.sql" >"$DIR/generate.log" 2>&1
t=$(now)
q -o /dev/null -v docs="$DOCS" <<'SQL'
CREATE TABLE dist (id bigint PRIMARY KEY, body text NOT NULL, sig minhash, duplicate_of bigint);
SELECT create_distributed_table('dist', 'id', shard_count => 8);
INSERT INTO dist (id, body, sig) SELECT id, body, sig FROM real_docs WHERE id <= :docs;
SET client_min_messages = warning;
CREATE INDEX dist_sig ON dist USING gin (sig);
VACUUM ANALYZE dist;
SET minhash.group_memory = '8GB';
CREATE TABLE stored_groups AS SELECT * FROM near_dupe_groups('dist', 'id', 'sig', 0.8);
SELECT create_reference_table('stored_groups');
SQL
say "distributed, indexed and grouped in $(secs "$t" "$(now)") s"
q -c "INSERT INTO dist (id, body, sig) SELECT id, body, sig FROM real_docs WHERE id > $DOCS" -c "ANALYZE dist"

t=$(now)
sed "s/@DOCS@/$DOCS/" <<'SQL' | q -o /dev/null
DO $$
DECLARE r record; best bigint;
BEGIN
    FOR r IN SELECT id, sig FROM dist WHERE id > @DOCS@ ORDER BY id LOOP
        SELECT o.id INTO best FROM dist o WHERE resembles(o.sig, r.sig, 0.8) AND o.id <> r.id
         ORDER BY o.sig <%> r.sig, o.id LIMIT 1;
        UPDATE dist SET duplicate_of = best WHERE id = r.id;
    END LOOP;
END
$$;
SQL
reflag=$(secs "$t" "$(now)")
flagged=$(q -c "SELECT count(*) FROM dist WHERE id > $DOCS AND duplicate_of IS NOT NULL")

t=$(now)
q -c "CREATE TABLE appended AS SELECT * FROM near_dupe_groups_append('stored_groups', 'dist', 'id', 'sig', 0.8)"
append=$(secs "$t" "$(now)")
joined=$(q -c "SELECT count(*) FROM appended WHERE group_id <= (SELECT max(group_id) FROM stored_groups)")
paired=$(q -c "SELECT count(*) FROM appended a WHERE group_id <= (SELECT max(group_id) FROM stored_groups)
                 OR EXISTS (SELECT FROM appended b WHERE b.group_id = a.group_id AND b.key <> a.key)")

printf '\n%s stored + %s new documents, 0.8, Citus 8 shards on 2 workers (one machine)\n' "$DOCS" "$NEW"
printf '  %-58s %8s s  %s\n' "re-flag each new row (lookup over every shard + UPDATE)" "$reflag" "$flagged new rows flagged"
printf '  %-58s %8s s  %s\n' "near_dupe_groups_append to the stored grouping" "$append" "$joined joined stored groups, $paired in a group of 2+"
