#!/usr/bin/env bash
# Exact near_dupe_pairs and near_dupe_groups beside recall => 0.99 on the
# realistic corpus, at 0.5 to 0.9, one table:
#
#   flock /work/bench.lock bash test/bench/exact_low_threshold.sh [DOCS [THRESHOLDS]]
#
# DOCS defaults to 100,000 (database realistic_<DOCS>, made once by
# realistic_lib.sh); THRESHOLDS to "0.5 0.6 0.7 0.8 0.9".  Each call runs in
# a session of its own, in memory (minhash.group_memory 8GB), and its rows
# go, numbered in the order returned, into a table whose checksum is
# printed: rows and order.  With BEFORE_LIB=path/to/minhash.so (another
# build of this version, e.g. the main branch's), the exact calls are timed
# with it too, in the same run: the script puts it in place of the installed
# library for those sessions (renamed in, never written over, so that a
# backend holding the old file keeps it) and puts the installed one back.
# It fails if a checksum differs between the builds, or if an exact call
# misses a row of the recall call (pairs: a pair; groups: the rows only).
# Needs the PG* variables of a running cluster whose library directory is
# writable when BEFORE_LIB is given.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
source test/bench/realistic_lib.sh
DOCS=${1:-100000}
THRESHOLDS=${2:-0.5 0.6 0.7 0.8 0.9}
realistic_corpus "$DOCS" >/dev/null
libdir=$("${PG_CONFIG:-pg_config}" --pkglibdir)
work=$(mktemp -d)
if [[ -n "${BEFORE_LIB:-}" ]]; then
    cp "$libdir/minhash.so" "$work/after.so"
    trap 'cp "$work/after.so" "$libdir/.minhash.so.new" && mv -f "$libdir/.minhash.so.new" "$libdir/minhash.so"; rm -rf "$work"' EXIT
else
    trap 'rm -rf "$work"' EXIT
fi

use_lib() {
    cp "$1" "$libdir/.minhash.so.new"
    mv -f "$libdir/.minhash.so.new" "$libdir/minhash.so"
}

# run KIND T LABEL ARGS: one call into table r_<label>; prints seconds|rows|md5
run() {
    local kind=$1 t=$2 label=$3 args=$4 table="r_${3//[^a-z0-9]/_}"
    psql -X -q -At -d "$RDB" -v ON_ERROR_STOP=1 <<SQL
SET minhash.group_memory = '8GB';
SET client_min_messages = warning;
DROP TABLE IF EXISTS $table;
SELECT clock_timestamp() AS t0 \gset
CREATE UNLOGGED TABLE $table AS
SELECT * FROM near_dupe_$kind('real_docs', 'id', 'sig', $t$args) WITH ORDINALITY AS r;
SELECT round(extract(epoch FROM clock_timestamp() - :'t0')::numeric, 2) AS seconds \gset
SELECT :'seconds' || '|' || count(*) || '|' || coalesce(md5(string_agg(r::text, ',' ORDER BY ordinality)), '-')
  FROM $table r;
SQL
}

# missing KIND EXACT RECALL: rows of the recall call the exact one lacks
missing() {
    local key
    if [[ $1 == pairs ]]; then key="key_a, key_b"; else key="key"; fi
    psql -X -q -At -d "$RDB" -v ON_ERROR_STOP=1 \
        -c "SELECT count(*) FROM (SELECT $key FROM $3 EXCEPT SELECT $key FROM $2) m"
}

failed=0
printf '%-6s %-5s %9s %9s %9s %9s %9s %s\n' kind t before_s exact_s recall_s rows recall_rows "exact/recall"
for t in $THRESHOLDS; do
    for kind in pairs groups; do
        before="-"
        if [[ -n "${BEFORE_LIB:-}" ]]; then
            use_lib "$BEFORE_LIB"
            IFS='|' read -r before before_rows before_md5 < <(run "$kind" "$t" before "")
            use_lib "$work/after.so"
        fi
        IFS='|' read -r exact rows md5 < <(run "$kind" "$t" exact "")
        args=", NULL::text, recall => 0.99"
        IFS='|' read -r recall recall_rows _ < <(run "$kind" "$t" recall "$args")
        ratio=$(awk -v e="$exact" -v r="$recall" 'BEGIN { printf "%.1f", (r > 0 ? e / r : 0) }')
        printf '%-6s %-5s %9s %9s %9s %9s %9s %s\n' "$kind" "$t" "$before" "$exact" "$recall" "$rows" "$recall_rows" "$ratio"
        if [[ -n "${BEFORE_LIB:-}" && "$before_md5" != "$md5" ]]; then
            echo "FAIL: $kind at $t: the rows differ from BEFORE_LIB's ($before_rows rows against $rows)"
            failed=1
        fi
        lacking=$(missing "$kind" r_exact r_recall)
        if [[ $lacking != 0 ]]; then
            echo "FAIL: $kind at $t: exact lacks $lacking rows of recall => 0.99"
            failed=1
        fi
    done
done
psql -X -q -d "$RDB" -c "DROP TABLE IF EXISTS r_before, r_exact, r_recall"
exit $failed
