#!/usr/bin/env bash
# pg_upgrade --link from PostgreSQL 15 to 18 of a database with minhash
# content: the path users take when they upgrade PostgreSQL.
#
#   bash test/versions/pg_upgrade_15_to_18.sh      (as root; 20-60 s cached)
#
# The old cluster runs the PostgreSQL 15 of PG_CONFIG (default: pg_config,
# Debian's; the extension must be installed there, as test/run_all.sh does,
# or in a private copy: PG_CONFIG=/work/pg-NAME/.../pg_config) -- unless
# that server cannot be upgraded to the cached 18 at all (Debian's 15.20
# cannot, see below): then PostgreSQL 15 built from Debian's source package
# into the version cache, with the extension built from this tree.  The new one
# runs PostgreSQL 18 from the version cache (test/versions/build_postgres.sh,
# built on first use), with the extension built from this tree and installed
# into that cache.  The old cluster gets the content of
# $ROUNDTRIP/roundtrip_content.sql (signatures of every kind, NULLs, the empty
# signature, a minhash_query column, two gin_minhash_ops indexes with options,
# the flagging trigger); then pg_upgrade --check and --link with 18's
# pg_upgrade; then on 18 the fingerprint ($ROUNDTRIP/roundtrip_fingerprint.sql:
# column typmods, index and trigger definitions, every signature as text and
# as minhash_send bytes) and the checks ($ROUNDTRIP/roundtrip_check.sql:
# signatures recomputed by 18 equal the stored ones, both indexes used and
# equal to a sequential scan, the trigger flags on INSERT and UPDATE, text
# and COPY BINARY round trips) must print what they printed on 15.
#
# Ends with `pg_upgrade 15 -> 18: passed ...`; non-zero exit on failure.
# Scratch data in $MINHASH_UPGRADE18_DIR (default .cache/pg_upgrade_15_18 in
# this tree, removed at the end unless it failed); unix socket only, port
# $MINHASH_UPGRADE18_PORT (default 5518).  Starts and stops only its own
# clusters.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
REPO="$(cd "$HERE/../.." && pwd -P)"
# Where the round-trip scripts shared with pg_upgrade.sh and dump_restore.sh
# live (test/upgrade/ once test/ is grouped by purpose, test/ before).
ROUNDTRIP="${MINHASH_ROUNDTRIP_DIR:-$REPO/test/upgrade}"
[[ -f "$ROUNDTRIP/roundtrip_content.sql" || -n "${MINHASH_ROUNDTRIP_DIR:-}" ]] || ROUNDTRIP="$REPO/test"

# shellcheck source=test/lib/common.sh
source "$REPO/test/lib/common.sh"
# shellcheck source=test/versions/lib.sh
source "$HERE/lib.sh"
cd "$REPO"

UP_DIR="${MINHASH_UPGRADE18_DIR:-$REPO/.cache/pg_upgrade_15_18}"
OLD="$UP_DIR/old"
NEW="$UP_DIR/new"
OLD_PG_CONFIG="${PG_CONFIG:-pg_config}"
export PGHOST="$UP_DIR" PGPORT="${MINHASH_UPGRADE18_PORT:-5518}" PGUSER=postgres PGDATABASE=postgres
DB=minhash_upgrade
t0=$SECONDS

for f in roundtrip_content.sql roundtrip_fingerprint.sql roundtrip_check.sql; do
    [[ -f "$ROUNDTRIP/$f" ]] || die "pg_upgrade 15 -> 18: $ROUNDTRIP/$f not found (set MINHASH_ROUNDTRIP_DIR)"
done

# --- the two servers ------------------------------------------------------
NEW_PG_CONFIG="$(bash "$HERE/build_postgres.sh" 18 | tail -n 1)" || die "pg_upgrade 15 -> 18: could not build PostgreSQL 18"
NEW_BIN="$("$NEW_PG_CONFIG" --bindir)"
log "pg_upgrade 15 -> 18: the extension built for $("$NEW_PG_CONFIG" --version), installed into its prefix"
build_into "$NEW_PG_CONFIG" "$REPO/.cache/versions/upgrade-18" || die "pg_upgrade 15 -> 18: extension build for 18"

old_version="$("$OLD_PG_CONFIG" --version)"
[[ "$old_version" == "PostgreSQL 15."* ]] || die "pg_upgrade 15 -> 18: PG_CONFIG is $old_version, not 15"
# Debian's 15.20 (bookworm-security, November 2026) tags every column of
# every table with the attribute option pg_attver, which the newest 18 in
# Debian's archive (18.6) does not know: pg_upgrade's restore fails on
# ALTER COLUMN ... SET (pg_attver=...) for any table, with minhash or
# without, and ALTER ... RESET does not remove the tag.  Until an 18 that
# knows it is packaged, the old cluster then runs PostgreSQL 15 built from
# Debian's source package (upstream, in the version cache), and the run says
# so.
if grep -q pg_attver "$("$OLD_PG_CONFIG" --bindir)/postgres" && ! grep -q pg_attver "$NEW_BIN/postgres"; then
    echo "  NOTE: $old_version tags every column with pg_attver, which $("$NEW_PG_CONFIG" --version) cannot restore (any table fails): the old cluster runs PostgreSQL 15 from the version cache instead"
    OLD_PG_CONFIG="$(bash "$HERE/build_postgres.sh" 15 | tail -n 1)" || die "pg_upgrade 15 -> 18: could not build PostgreSQL 15"
    old_version="$("$OLD_PG_CONFIG" --version)"
    build_into "$OLD_PG_CONFIG" "$REPO/.cache/versions/upgrade-15" || die "pg_upgrade 15 -> 18: extension build for 15"
fi
OLD_BIN="$("$OLD_PG_CONFIG" --bindir)"
[[ -f "$("$OLD_PG_CONFIG" --sharedir)/extension/minhash.control" ]] ||
    die "pg_upgrade 15 -> 18: minhash is not installed into $old_version ($OLD_PG_CONFIG): make install PG_CONFIG=$OLD_PG_CONFIG"

# --- helpers --------------------------------------------------------------
# Runs a command as the postgres OS user inside $UP_DIR (pg_upgrade writes
# its logs to the current directory).
in_dir_as_pg() {
    if [[ $EUID -eq 0 ]]; then
        (cd "$UP_DIR" && runuser -u postgres -- "$@")
    else
        (cd "$UP_DIR" && "$@")
    fi
}
up_running() { [[ -f "$2/postmaster.pid" ]] && in_dir_as_pg "$1/pg_ctl" -D "$2" status >/dev/null 2>&1; }
up_start() { in_dir_as_pg "$1/pg_ctl" -D "$2" -l "$UP_DIR/$(basename "$2").log" -w -t 60 start >/dev/null; }
up_stop() { in_dir_as_pg "$1/pg_ctl" -D "$2" -m fast -w -t 60 stop >/dev/null; }
stop_all() {
    local pair bin dir
    for pair in "$NEW_BIN:$NEW" "$OLD_BIN:$OLD"; do
        bin="${pair%%:*}" dir="${pair#*:}"
        if up_running "$bin" "$dir"; then
            in_dir_as_pg "$bin/pg_ctl" -D "$dir" -m immediate -w -t 30 stop >/dev/null 2>&1 || warn "could not stop $dir"
        fi
    done
}
cleanup() {
    stop_all
    if [[ "${KEEP_DIR:-0}" == 1 ]]; then log "kept $UP_DIR"; else rm -rf "$UP_DIR"; fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP
fail() { KEEP_DIR=1; die "pg_upgrade 15 -> 18: FAILED: $*"; }
# psql of the running server's major (psql 15 would do, but use each own).
psql_with() { local bin="$1"; shift; "$bin/psql" -X -P pager=off -v ON_ERROR_STOP=1 "$@"; }

new_cluster() {   # new_cluster BINDIR DIR [INITDB OPTION...]
    local bin="$1" dir="$2"; shift 2
    as_pg "$bin/initdb" -D "$dir" --auth=trust -E UTF8 --locale=C.UTF-8 -U postgres "$@" >"$UP_DIR/initdb.$(basename "$dir").log" 2>&1 ||
        { cat "$UP_DIR/initdb.$(basename "$dir").log" >&2; fail "initdb $dir"; }
    as_pg tee -a "$dir/postgresql.conf" >/dev/null <<EOF

# --- pg_upgrade 15 -> 18 test cluster (test/versions/pg_upgrade_15_to_18.sh) ---
listen_addresses = ''
port = $PGPORT
unix_socket_directories = '$UP_DIR'
fsync = off
lc_messages = 'C'
EOF
}

# --- the old cluster (15) -------------------------------------------------
stop_all
rm -rf "$UP_DIR"
mkdir -p "$UP_DIR"
[[ $EUID -ne 0 ]] || chown postgres: "$UP_DIR"
chmod 755 "$UP_DIR"

log "pg_upgrade 15 -> 18: old cluster ($old_version) in $OLD, content in database $DB"
# Debian's clusters have no data checksums; 18's initdb turns them on by
# default, and pg_upgrade needs both sides alike.
new_cluster "$OLD_BIN" "$OLD"
up_start "$OLD_BIN" "$OLD" || fail "start the old cluster"
psql_with "$OLD_BIN" -q -c "CREATE DATABASE $DB"
psql_with "$OLD_BIN" -q -d "$DB" -f "$ROUNDTRIP/roundtrip_content.sql"
psql_with "$OLD_BIN" -At -d "$DB" -c "SELECT 'library', setting FROM pg_config WHERE name = 'PKGLIBDIR'" | sed 's/^/  old /'
psql_with "$OLD_BIN" -At -d "$DB" -f "$ROUNDTRIP/roundtrip_fingerprint.sql" >"$UP_DIR/old.fingerprint"
psql_with "$OLD_BIN" -q -d "$DB" -v workdir="$UP_DIR" -f "$ROUNDTRIP/roundtrip_check.sql" >"$UP_DIR/old.check" 2>&1 ||
    { cat "$UP_DIR/old.check"; fail "checks on the old cluster"; }
up_stop "$OLD_BIN" "$OLD"

# --- pg_upgrade -----------------------------------------------------------
log "pg_upgrade 15 -> 18: new cluster ($("$NEW_PG_CONFIG" --version)) in $NEW; pg_upgrade --check, then --link"
checksum_opt=()
"$NEW_BIN/initdb" --help | grep -- '--no-data-checksums' >/dev/null && checksum_opt=(--no-data-checksums)
new_cluster "$NEW_BIN" "$NEW" "${checksum_opt[@]}"
upgrade=("$NEW_BIN/pg_upgrade" -b "$OLD_BIN" -B "$NEW_BIN" -d "$OLD" -D "$NEW" -p "$PGPORT" -P "$PGPORT" -s "$UP_DIR" -U postgres)
in_dir_as_pg "${upgrade[@]}" --check >"$UP_DIR/pg_upgrade_check.out" 2>&1 ||
    { cat "$UP_DIR/pg_upgrade_check.out"; fail "pg_upgrade --check"; }
in_dir_as_pg "${upgrade[@]}" --link >"$UP_DIR/pg_upgrade.out" 2>&1 ||
    { cat "$UP_DIR/pg_upgrade.out"; fail "pg_upgrade --link"; }
grep -E '^(Checking for presence of required libraries|Linking user relation files|Upgrade Complete)' "$UP_DIR/pg_upgrade.out" | sed 's/  */ /g; s/^/  /'
grep -q '^Linking user relation files' "$UP_DIR/pg_upgrade.out" || fail "pg_upgrade did not link the relation files"

# --- the new cluster (18) -------------------------------------------------
log "pg_upgrade 15 -> 18: checks on the new cluster"
up_start "$NEW_BIN" "$NEW" || fail "start the new cluster"
psql_with "$NEW_BIN" -At -d "$DB" -c "SELECT 'server', current_setting('server_version')" -c "SELECT 'library', setting FROM pg_config WHERE name = 'PKGLIBDIR'" | sed 's/^/  new /'
# Hard links: the new cluster's table and index files are the old ones.
for rel in rt_docs rt_docs_sig rt_docs_sig256; do
    relfile=$(psql_with "$NEW_BIN" -At -d "$DB" -c "SELECT pg_relation_filepath('$rel')")
    links=$(stat -c %h "$NEW/$relfile")
    echo "  $rel: $relfile, $links links"
    ((links >= 2)) || fail "$rel was not linked from the old cluster"
done
psql_with "$NEW_BIN" -At -d "$DB" -f "$ROUNDTRIP/roundtrip_fingerprint.sql" >"$UP_DIR/new.fingerprint"
if ! diff -u "$UP_DIR/old.fingerprint" "$UP_DIR/new.fingerprint" >"$UP_DIR/fingerprint.diff"; then
    head -n 60 "$UP_DIR/fingerprint.diff"
    fail "the upgraded cluster's content differs"
fi
rows=$(grep -c '^row|' "$UP_DIR/new.fingerprint" || true)
echo "  $rows rows, $(wc -l <"$UP_DIR/new.fingerprint") fingerprint lines: identical (text forms and minhash_send bytes, index and trigger definitions)"
psql_with "$NEW_BIN" -q -d "$DB" -v workdir="$UP_DIR" -f "$ROUNDTRIP/roundtrip_check.sql" >"$UP_DIR/new.check" 2>&1 ||
    { cat "$UP_DIR/new.check"; fail "checks on the new cluster"; }
sed 's/^/  /' "$UP_DIR/new.check"
diff -u "$UP_DIR/old.check" "$UP_DIR/new.check" || fail "the checks print different results on the new cluster"
echo "  same output as on the old cluster"
up_stop "$NEW_BIN" "$NEW"
echo "pg_upgrade 15 -> 18: passed: --link, $rows rows identical, both gin_minhash_ops indexes used and equal to a sequential scan, trigger flags, round trips exact ($((SECONDS - t0)) s)"
