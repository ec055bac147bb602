#!/usr/bin/env bash
# near_dupe_groups beyond minhash.group_memory (spilled to a temporary file) beside
# the same call in memory, on the SpamAssassin corpus: a minute or two,
# where group_spill_bench.sh takes the realistic corpus of a million.
#
#   bash test/bench/group_spill_spam.sh [RUNS]     # on the cluster in PG*
#
# The corpus (spam_messages, test/corpus/load_spamassassin.sh) is signed
# into a table of its own (id, minhash(body)); then at each threshold of
# SPAM_THRESHOLDS (default 0.8 and 0.5), RUNS times (default 3), the two
# calls in turn, each in a fresh session warmed up on a tiny table:
# minhash.group_memory at SPAM_CAP (default 1MB), where the call keeps its
# rows and arrays in a temporary file, and at its default (-1:
# maintenance_work_mem), in memory.
# Printed: each setting's best wall time of the call (into a temporary
# table), the ratio, rows and whether both results are the same rows in the
# same order; the NOTICE the spilling call raised, and whether the setting
# its hint names keeps the call in memory.  Fails unless the spilling call
# says so (and the other does not), the rows agree, and the hint's setting
# keeps the call in memory; the times are not checked.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
RUNS=${1:-3}
THRESHOLDS=${SPAM_THRESHOLDS:-0.8 0.5}
CAP=${SPAM_CAP:-1MB}
WORK="$(mktemp -d /tmp/minhash-spill-spam.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT

psql -X -q -v ON_ERROR_STOP=1 <<'SQL'
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS minhash;
DROP TABLE IF EXISTS spill_spam, spill_spam_tiny;
CREATE TABLE spill_spam AS SELECT id, minhash(body) AS sig FROM spam_messages;
ALTER TABLE spill_spam ADD PRIMARY KEY (id);
CREATE TABLE spill_spam_tiny AS SELECT * FROM spill_spam ORDER BY id LIMIT 100;
VACUUM ANALYZE spill_spam, spill_spam_tiny;
SQL

# One call in a fresh session: prints "seconds rows md5" (the rows in order).
call() {
    local setting="$1" t="$2" out="$3"
    psql -X -q -At -F " " -v ON_ERROR_STOP=1 2>"$out.notice" <<SQL
$setting
SELECT count(*) FROM near_dupe_groups('spill_spam_tiny', 'id', 'sig', $t) \g /dev/null
SELECT extract(epoch FROM clock_timestamp()) AS t0 \gset
CREATE TEMP TABLE r AS SELECT * FROM near_dupe_groups('spill_spam', 'id', 'sig', $t) WITH ORDINALITY g;
SELECT round((extract(epoch FROM clock_timestamp()) - :t0)::numeric, 3),
       count(*), md5(string_agg(g::text, ',' ORDER BY g.ordinality)) FROM r g;
SQL
}

echo "group_spill_spam: $(psql -X -At -c 'SELECT count(*) FROM spill_spam') documents, minhash.group_memory $CAP (spilled) and -1 = maintenance_work_mem $(psql -X -At -c 'SHOW maintenance_work_mem') (in memory), best of $RUNS"
printf '  %-9s %12s %12s %8s %7s %s\n' threshold "spilled s" "in memory s" ratio rows "same rows"
failures=0
for t in $THRESHOLDS; do
    best_s='' best_m=''
    for _ in $(seq "$RUNS"); do
        read -r s rows_s md5_s < <(call "SET minhash.group_memory = '$CAP';" "$t" "$WORK/s")
        read -r m rows_m md5_m < <(call "RESET minhash.group_memory;" "$t" "$WORK/m")
        if ! grep -q "NOTICE:.*it keeps its rows and arrays in a temporary file" "$WORK/s.notice" || grep -q NOTICE "$WORK/m.notice"; then
            echo "group_spill_spam: expected the NOTICE at $CAP only"; cat "$WORK/s.notice" "$WORK/m.notice"; exit 1
        fi
        best_s=$(awk -v a="$s" -v b="$best_s" 'BEGIN {print (b == "" || a < b) ? a : b}')
        best_m=$(awk -v a="$m" -v b="$best_m" 'BEGIN {print (b == "" || a < b) ? a : b}')
    done
    printf '  %-9s %12s %12s %8s %7s %s\n' "$t" "$best_s" "$best_m" \
        "$(awk -v a="$best_s" -v b="$best_m" 'BEGIN {printf "%.1f", a / b}')" "$rows_m" \
        "$([[ $md5_s == "$md5_m" && $rows_s == "$rows_m" ]] && echo true || echo false)"
    sed 's/^/    /' "$WORK/s.notice"
    # the setting the NOTICE's hint names keeps the call in memory
    hinted=$(sed -n "s/^HINT:  SET minhash.group_memory = '\([^']*\)'.*/\1/p" "$WORK/s.notice")
    read -r _ _ md5_h < <(call "SET minhash.group_memory = '$hinted';" "$t" "$WORK/h")
    echo "    at the hint's '$hinted': $(grep -q NOTICE "$WORK/h.notice" && echo "spilled again" || echo "in memory"), same rows $([[ $md5_h == "$md5_m" ]] && echo true || echo false)"
    if [[ -z $hinted || $md5_s != "$md5_m" || $md5_h != "$md5_m" ]] || grep -q NOTICE "$WORK/h.notice"; then
        failures=$((failures + 1))
    fi
done
psql -X -q -c 'DROP TABLE spill_spam, spill_spam_tiny'
if ((failures > 0)); then
    echo "group_spill_spam: $failures failed"
    exit 1
fi
echo "group_spill_spam: ok"
