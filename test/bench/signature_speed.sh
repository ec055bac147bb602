#!/usr/bin/env bash
# Signature speed on realistic text against md5(), one core, and the bulk
# path on two cores (test/bench/signature_speed.sql), then UPDATE split across
# two sessions.  Prints figures; fails only if the benchmark cannot run, a
# parallel plan did not run in parallel, or two paths store different
# signatures.  Against the cluster the PG* variables point at (superuser).
#
#   DOCS=100000 ROUNDS=5 bash test/bench/signature_speed.sh
#
# Makes real_docs (test/corpus/generate_realistic.sql, DOCS documents) unless
# it has DOCS rows already; leaves the sigspeed_* tables behind.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
DOCS="${DOCS:-100000}"
ROUNDS="${ROUNDS:-5}"
PSQL=(psql -X -q -P pager=off -v ON_ERROR_STOP=1)

have=$("${PSQL[@]}" -At -c "SELECT CASE WHEN to_regclass('real_docs') IS NULL THEN 0 ELSE (SELECT count(*) FROM real_docs) END")
if [ "$have" != "$DOCS" ]; then
    echo "signature_speed: making real_docs with $DOCS documents"
    if [ "$("${PSQL[@]}" -At -c "SELECT to_regclass('spam_messages') IS NOT NULL")" != t ]; then
        bash test/corpus/load_spamassassin.sh spam_messages
    fi
    "${PSQL[@]}" -v docs="$DOCS" -f test/corpus/generate_realistic.sql >/dev/null
fi

"${PSQL[@]}" -v rounds="$ROUNDS" -f test/bench/signature_speed.sql

# UPDATE split across two sessions (the rows of each session are its own, so
# neither waits for the other's locks).
"${PSQL[@]}" <<'SQL'
SET client_min_messages = warning;
DROP TABLE IF EXISTS sigspeed_split;
CREATE TABLE sigspeed_split AS SELECT id, body, NULL::minhash AS sig FROM sigspeed_docs;
ALTER TABLE sigspeed_split ADD PRIMARY KEY (id);
VACUUM ANALYZE sigspeed_split;
CHECKPOINT;
SQL
start=$(date +%s%N)
"${PSQL[@]}" -c "UPDATE sigspeed_split SET sig = minhash(body) WHERE id % 2 = 0" &
first=$!
"${PSQL[@]}" -c "UPDATE sigspeed_split SET sig = minhash(body) WHERE id % 2 = 1" &
second=$!
wait "$first"
wait "$second"
ms=$(( ($(date +%s%N) - start) / 1000000 ))
"${PSQL[@]}" -v ms="$ms" <<'SQL'
INSERT INTO sigspeed_bulk VALUES (4, 'UPDATE, two sessions (id % 2 = 0 and = 1)', :ms, 0, 'two Update > Seq Scan');
\echo
\echo 'Bulk path, with UPDATE in two sessions:'
SELECT b.path, round(b.ms::numeric) AS ms, round((u.ms / b.ms)::numeric, 2) AS speedup_vs_update
  FROM sigspeed_bulk b, sigspeed_bulk u WHERE u.ord = 1 ORDER BY b.ord;
SELECT count(*) = (SELECT count(*) FROM sigspeed_update) AS split_update_same_signatures
  FROM sigspeed_split s JOIN sigspeed_update u USING (id) WHERE s.sig::text = u.sig::text \gset
\if :split_update_same_signatures
\else
\echo 'signature_speed: ERROR: the two-session UPDATE stored different signatures'
SELECT 1/0;
\endif
SQL
