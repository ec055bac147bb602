#!/usr/bin/env bash
# pg_upgrade --link, PostgreSQL 15 to 15, of a cluster with minhash content.
#
#   bash test/upgrade/pg_upgrade.sh            (as root or as the postgres user; ~40 s)
#
# Two throwaway clusters in $MINHASH_UPGRADE_DIR (default
# /tmp/minhash-upgrade, removed at the end; port ${MINHASH_UPGRADE_PORT:-5498},
# unix socket only).  The old one gets the content of
# test/upgrade/roundtrip_content.sql (the same as test/upgrade/dump_restore.sh: signatures of
# every kind, NULLs, the empty signature, a minhash_query column, two
# gin_minhash_ops indexes with options, the flagging trigger); then
# pg_upgrade --check and pg_upgrade --link into a fresh initdb; then on the
# new cluster the same checks as after a dump/restore: the fingerprint of
# test/upgrade/roundtrip_fingerprint.sql (column typmods, index and trigger
# definitions, every signature as text and as minhash_send bytes) and the
# output of test/upgrade/roundtrip_check.sql (indexes used and equal to a sequential
# scan, trigger flags, text and COPY BINARY round trips) must equal the old
# cluster's.  Ends with `pg_upgrade: passed ...`; non-zero exit on failure.
# In run_all.sh's suites (about 20 s); it starts and stops only its own
# clusters.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
cd "$REPO_ROOT"

UP_DIR="${MINHASH_UPGRADE_DIR:-/tmp/minhash-upgrade}"
OLD="$UP_DIR/old"
NEW="$UP_DIR/new"
BINDIR="$(pg_bindir)"
export PGHOST="$UP_DIR" PGPORT="${MINHASH_UPGRADE_PORT:-5498}" PGUSER=postgres PGDATABASE=postgres
DB=minhash_upgrade
t0=$SECONDS

# Runs a command as the postgres OS user inside $UP_DIR (pg_upgrade writes
# its logs to the current directory).
in_dir_as_pg() {
    if [[ $EUID -eq 0 ]]; then
        (cd "$UP_DIR" && runuser -u postgres -- "$@")
    else
        (cd "$UP_DIR" && "$@")
    fi
}
up_running() { [[ -f "$1/postmaster.pid" ]] && in_dir_as_pg "$BINDIR/pg_ctl" -D "$1" status >/dev/null 2>&1; }
up_start() { in_dir_as_pg "$BINDIR/pg_ctl" -D "$1" -l "$UP_DIR/$(basename "$1").log" -w -t 60 start >/dev/null; }
up_stop() { in_dir_as_pg "$BINDIR/pg_ctl" -D "$1" -m fast -w -t 60 stop >/dev/null; }
cleanup() {
    local d
    for d in "$NEW" "$OLD"; do
        if up_running "$d"; then
            in_dir_as_pg "$BINDIR/pg_ctl" -D "$d" -m immediate -w -t 30 stop >/dev/null 2>&1 || warn "could not stop $d"
        fi
    done
    if [[ "${KEEP_DIR:-0}" == 1 ]]; then log "kept $UP_DIR"; else rm -rf "$UP_DIR"; fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP
fail() { KEEP_DIR=1; die "pg_upgrade: FAILED: $*"; }

new_cluster() {   # new_cluster DIR
    as_pg "$BINDIR/initdb" -D "$1" --auth=trust -E UTF8 --locale=C.UTF-8 -U postgres >"$UP_DIR/initdb.$(basename "$1").log" 2>&1 ||
        { cat "$UP_DIR/initdb.$(basename "$1").log" >&2; fail "initdb $1"; }
    as_pg tee -a "$1/postgresql.conf" >/dev/null <<EOF

# --- pg_upgrade test cluster (test/upgrade/pg_upgrade.sh) ---
listen_addresses = ''
port = $PGPORT
unix_socket_directories = '$UP_DIR'
fsync = off
lc_messages = 'C'
EOF
}

for d in "$NEW" "$OLD"; do
    if up_running "$d"; then in_dir_as_pg "$BINDIR/pg_ctl" -D "$d" -m immediate -w stop >/dev/null 2>&1 || true; fi
done
rm -rf "$UP_DIR"
mkdir -p "$UP_DIR"
[[ $EUID -ne 0 ]] || chown postgres: "$UP_DIR"
chmod 755 "$UP_DIR"

log "pg_upgrade: old cluster in $OLD (port $PGPORT), content in database $DB"
new_cluster "$OLD"
up_start "$OLD" || fail "start the old cluster"
psql_run -q -c "CREATE DATABASE $DB"
psql_run -q -d "$DB" -f test/upgrade/roundtrip_content.sql
psql_run -At -d "$DB" -f test/upgrade/roundtrip_fingerprint.sql >"$UP_DIR/old.fingerprint"
psql_run -q -d "$DB" -v workdir="$UP_DIR" -f test/upgrade/roundtrip_check.sql >"$UP_DIR/old.check" 2>&1 ||
    { cat "$UP_DIR/old.check"; fail "checks on the old cluster"; }
up_stop "$OLD"

log "pg_upgrade: new cluster in $NEW; pg_upgrade --check, then --link"
new_cluster "$NEW"
upgrade=("$BINDIR/pg_upgrade" -b "$BINDIR" -B "$BINDIR" -d "$OLD" -D "$NEW" -p "$PGPORT" -P "$PGPORT" -s "$UP_DIR" -U postgres)
in_dir_as_pg "${upgrade[@]}" --check >"$UP_DIR/pg_upgrade_check.out" 2>&1 ||
    { cat "$UP_DIR/pg_upgrade_check.out"; fail "pg_upgrade --check"; }
in_dir_as_pg "${upgrade[@]}" --link >"$UP_DIR/pg_upgrade.out" 2>&1 ||
    { cat "$UP_DIR/pg_upgrade.out"; fail "pg_upgrade --link"; }
grep -E '^(Linking user relation files|Upgrade Complete)' "$UP_DIR/pg_upgrade.out" | sed 's/  */ /g; s/^/  /'
grep -q '^Linking user relation files' "$UP_DIR/pg_upgrade.out" || fail "pg_upgrade did not link the relation files"

log "pg_upgrade: checks on the new cluster"
up_start "$NEW" || fail "start the new cluster"
# Hard links: the new cluster's table file is the old one's.
relfile=$(psql_run -At -d "$DB" -c "SELECT pg_relation_filepath('rt_docs')")
links=$(stat -c %h "$NEW/$relfile")
echo "  rt_docs: $NEW/$relfile, $links links"
psql_run -At -d "$DB" -f test/upgrade/roundtrip_fingerprint.sql >"$UP_DIR/new.fingerprint"
if ! diff -u "$UP_DIR/old.fingerprint" "$UP_DIR/new.fingerprint" >"$UP_DIR/fingerprint.diff"; then
    head -n 60 "$UP_DIR/fingerprint.diff"
    fail "the upgraded cluster's content differs"
fi
rows=$(grep -c '^row|' "$UP_DIR/new.fingerprint" || true)
echo "  $rows rows, $(wc -l <"$UP_DIR/new.fingerprint") fingerprint lines: identical (text forms and minhash_send bytes)"
psql_run -q -d "$DB" -v workdir="$UP_DIR" -f test/upgrade/roundtrip_check.sql >"$UP_DIR/new.check" 2>&1 ||
    { cat "$UP_DIR/new.check"; fail "checks on the new cluster"; }
sed 's/^/  /' "$UP_DIR/new.check"
diff -u "$UP_DIR/old.check" "$UP_DIR/new.check" || fail "the checks print different results on the new cluster"
echo "  same output as on the old cluster"
up_stop "$NEW"
echo "pg_upgrade: passed: --link 15 -> 15, $rows rows identical, indexes and trigger work, round trips exact ($((SECONDS - t0)) s)"
