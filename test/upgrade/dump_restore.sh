#!/usr/bin/env bash
# Round trips: pg_dump -Fc of a database with minhash content, pg_restore into
# a fresh database, then the checks of test/upgrade/roundtrip_check.sql in both.
#
#   content  test/upgrade/roundtrip_content.sql: signatures of minhash(text),
#            minhash(text, 256), minhash_chars, minhash(text[]), another
#            shingle size and seed, NULLs, the empty signature, a union
#            (estimated size), a minhash_query column, two gin_minhash_ops
#            indexes with options, the flagging trigger with flags set;
#   same     test/upgrade/roundtrip_fingerprint.sql: column types and typmods, index
#            and trigger definitions, every value as text and as minhash_send
#            bytes: identical in the source and the restored database;
#   works    test/upgrade/roundtrip_check.sql: stored = recomputed signatures, text
#            and COPY BINARY round trips, both indexes used and equal to a
#            sequential scan, the trigger flags on INSERT and UPDATE; its
#            output must be the same in both databases.
#
# Runs against the cluster the PG* variables point at (run_all.sh's, or your
# own); starts no cluster.  Databases minhash_rt_src and minhash_rt_dst are
# dropped when it passes, kept when it fails.  About 10 s.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
if [[ -z "${PG_CONFIG:-}" ]]; then
    PG_CONFIG=pg_config
    [[ -x /usr/lib/postgresql/15/bin/pg_config ]] && PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config
fi
BINDIR="$("$PG_CONFIG" --bindir)"
psql_run() { psql -X -P pager=off -v ON_ERROR_STOP=1 "$@"; }
ADMIN_DB="${PGDATABASE:-postgres}"
SRC=minhash_rt_src
DST=minhash_rt_dst
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
t0=$SECONDS
fail() { echo "dump_restore: FAILED: $* (databases $SRC and $DST kept)"; exit 1; }

echo "==> dump_restore: content in $SRC"
psql_run -q -d "$ADMIN_DB" -c "DROP DATABASE IF EXISTS $SRC" -c "DROP DATABASE IF EXISTS $DST" \
    -c "CREATE DATABASE $SRC"
psql_run -q -d "$SRC" -f test/upgrade/roundtrip_content.sql

echo "==> pg_dump -Fc $SRC, pg_restore into a fresh $DST"
"$BINDIR/pg_dump" -Fc -d "$SRC" -f "$work/src.dump"
psql_run -q -d "$ADMIN_DB" -c "CREATE DATABASE $DST TEMPLATE template0"
"$BINDIR/pg_restore" --exit-on-error -d "$DST" "$work/src.dump" || fail "pg_restore"
echo "  dump: $(stat -c %s "$work/src.dump") bytes"

echo "==> identical content (text forms and minhash_send bytes)"
psql_run -At -d "$SRC" -f test/upgrade/roundtrip_fingerprint.sql >"$work/src.fingerprint"
psql_run -At -d "$DST" -f test/upgrade/roundtrip_fingerprint.sql >"$work/dst.fingerprint"
rows=$(grep -c '^row|' "$work/src.fingerprint" || true)
if ! diff -u "$work/src.fingerprint" "$work/dst.fingerprint" >"$work/fingerprint.diff"; then
    head -n 60 "$work/fingerprint.diff"
    fail "the restored database differs from the source"
fi
echo "  $rows rows, $(wc -l <"$work/src.fingerprint") lines: identical"
grep -E '^(index|trigger)\|' "$work/dst.fingerprint" | sed 's/^/  /'

echo "==> checks in the source and in the restored database"
psql_run -q -d "$SRC" -v workdir="$work" -f test/upgrade/roundtrip_check.sql >"$work/src.check" 2>&1 ||
    { cat "$work/src.check"; fail "checks on the source database"; }
psql_run -q -d "$DST" -v workdir="$work" -f test/upgrade/roundtrip_check.sql >"$work/dst.check" 2>&1 ||
    { cat "$work/dst.check"; fail "checks on the restored database"; }
sed 's/^/  /' "$work/dst.check"
diff -u "$work/src.check" "$work/dst.check" || fail "the checks print different results"
echo "  same output in both databases"

# The restored database is a plain copy: a second dump must equal the first
# one's restore (pg_restore -l lists the same objects).
"$BINDIR/pg_dump" -Fc -d "$DST" -f "$work/dst.dump"
diff <("$BINDIR/pg_restore" -l "$work/src.dump" | grep -v '^;' | sed 's/^[0-9]*; [0-9]* [0-9]* //' | sort) \
     <("$BINDIR/pg_restore" -l "$work/dst.dump" | grep -v '^;' | sed 's/^[0-9]*; [0-9]* [0-9]* //' | sort) >/dev/null ||
    fail "a dump of the restored database lists other objects"

psql_run -q -d "$ADMIN_DB" -c "DROP DATABASE $SRC" -c "DROP DATABASE $DST"
echo "dump_restore: passed: $rows rows identical after pg_dump -Fc / pg_restore, indexes and trigger work, text and binary round trips exact ($((SECONDS - t0)) s)"
