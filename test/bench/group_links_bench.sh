#!/usr/bin/env bash
# near_dupe_group_links beside near_dupe_pairs alone, on a two-wave
# production:
#
#   flock /work/bench.lock bash test/bench/group_links_bench.sh [DOCS]
#
# DOCS (default 100,000) realistic documents (test/corpus/
# generate_realistic.sql, in the database realistic_<DOCS>, reused when
# present: test/bench/realistic_lib.sh); the first 10/11 grouped and stored
# as wave 1 (gl_groups, text keys), the rest appended as wave 2 by
# near_dupe_groups_append, as the README's rolling workflow does.  Then, at
# each threshold of GL_THRESHOLDS (default 0.8 0.6), REPS (default 3) rounds
# of: near_dupe_pairs over all DOCS (the engine's part), near_dupe_group_links
# without and with the wave column.  Prints wall seconds and rows; never
# fails on time.  Environment: GL_WORK_MEM (default 64MB), GL_GROUP_MEMORY
# (default 8GB).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
source test/bench/realistic_lib.sh
DOCS=${1:-100000}
FIRST=$((DOCS * 10 / 11))
REPS=${REPS:-3}
THRESHOLDS=${GL_THRESHOLDS:-0.8 0.6}

realistic_corpus "$DOCS"
psql -X -q -d "$RDB" -v ON_ERROR_STOP=1 -c "CREATE EXTENSION IF NOT EXISTS minhash" >/dev/null

for t in $THRESHOLDS; do
    psql -X -q -d "$RDB" -v ON_ERROR_STOP=1 <<SQL
SET client_min_messages = warning;
SET minhash.group_memory = '${GL_GROUP_MEMORY:-8GB}';
DROP TABLE IF EXISTS gl_first, gl_groups;
VACUUM ANALYZE real_docs;
CREATE TABLE gl_first AS SELECT id, sig FROM real_docs WHERE id <= $FIRST;
CREATE TABLE gl_groups AS SELECT *, 1 AS wave FROM near_dupe_groups('gl_first', 'id', 'sig', $t);
INSERT INTO gl_groups SELECT *, 2 FROM near_dupe_groups_append('gl_groups', 'real_docs', 'id', 'sig', $t);
VACUUM ANALYZE gl_groups;
\echo threshold $t: rows, groups by wave
SELECT wave, count(*) AS rows, count(DISTINCT group_id) AS groups FROM gl_groups GROUP BY wave ORDER BY wave;
SQL
    for ((r = 1; r <= REPS; r++)); do
        psql -X -q -At -d "$RDB" -v ON_ERROR_STOP=1 <<SQL
SET work_mem = '${GL_WORK_MEM:-64MB}';
SET minhash.group_memory = '${GL_GROUP_MEMORY:-8GB}';
SELECT minhash_threshold() \g /dev/null
SELECT clock_timestamp() AS t0 \gset
SELECT count(*) AS n FROM near_dupe_pairs('real_docs', 'id', 'sig', $t) \gset
SELECT round(extract(epoch FROM clock_timestamp() - :'t0')::numeric, 2) AS s \gset
\echo 't=$t round $r near_dupe_pairs alone             ' :n rows, :s s
SELECT clock_timestamp() AS t0 \gset
SELECT count(*) AS n FROM near_dupe_group_links('gl_groups', 'real_docs', 'id', 'sig', $t) \gset
SELECT round(extract(epoch FROM clock_timestamp() - :'t0')::numeric, 2) AS s \gset
\echo 't=$t round $r near_dupe_group_links (all)      ' :n rows, :s s
SELECT clock_timestamp() AS t0 \gset
SELECT count(*) AS n FROM near_dupe_group_links('gl_groups', 'real_docs', 'id', 'sig', $t, 'wave') \gset
SELECT round(extract(epoch FROM clock_timestamp() - :'t0')::numeric, 2) AS s \gset
\echo 't=$t round $r near_dupe_group_links (wave)     ' :n rows, :s s
SQL
    done
done
