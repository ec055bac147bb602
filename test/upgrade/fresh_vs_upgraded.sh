#!/usr/bin/env bash
# A fresh install and an upgraded one hold the same extension: CREATE
# EXTENSION minhash in one database; in another, for each older version
# (1.0, 1.1, ...) in turn, CREATE EXTENSION minhash VERSION that one, a
# table with signatures, a GIN index, the flagging trigger and a grouping,
# and a user's objects over the extension
# (test/upgrade/user_objects.sql: a view over every function that returns a
# set or a record, found in pg_proc, and SQL functions that call them), then
# ALTER EXTENSION minhash UPDATE (to the default version).  The update must
# succeed with those objects in place; afterwards they must return what they
# returned before (test/upgrade/user_objects_check.sql: the values 1.1
# changes on purpose compared as it says), every member of the older
# extension must still be one, with its functions' results unchanged, and
# the upgraded database must still work on its data.  test/upgrade/extension_fingerprint.sql describes every object
# of the extension in each (\dx+, every function's definition and
# attributes, aggregates, operators with their estimators and commutators,
# types, casts, operator classes and families with their members, comments,
# initial privileges); the two descriptions must be identical, else the
# script prints the diff and fails.  It first checks that the description
# sees a change: each of a few alterations (a function's search_path, its
# cost, an operator's estimator, a comment), made in a transaction that is
# rolled back, must change it.  Last, a schema minhash_internal made by
# another role before the update stops the update, and is never called into.
#
# Runs against the cluster the PG* variables point at (run_all.sh's, or your
# own) with the extension installed; starts no cluster.  Databases
# minhash_up_fresh and minhash_up_upgraded are dropped when it passes, kept
# when it fails.  MINHASH_UPGRADE_TAMPER='SQL' runs that SQL in the upgraded
# database before the comparison (to see the comparison fail).  About 5 s.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
psql_run() { psql -X -P pager=off -v ON_ERROR_STOP=1 "$@"; }
ADMIN_DB="${PGDATABASE:-postgres}"
FRESH=minhash_up_fresh
UPGRADED=minhash_up_upgraded
FINGERPRINT=test/upgrade/extension_fingerprint.sql
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
t0=$SECONDS
fail() { echo "fresh_vs_upgraded: FAILED: $* (databases $FRESH and $UPGRADED kept)"; exit 1; }

default_version=$(psql_run -At -d "$ADMIN_DB" -c "SELECT default_version FROM pg_available_extensions WHERE name = 'minhash'")
[[ -n "$default_version" ]] || fail "the minhash extension is not installed"
# Every version a user may have installed: each one older than the default.
mapfile -t SHIPPED_VERSIONS < <(psql_run -At -d "$ADMIN_DB" -c "SELECT version FROM pg_available_extension_versions
    WHERE name = 'minhash' AND version <> '$default_version' ORDER BY string_to_array(version, '.')::int[]")
(( ${#SHIPPED_VERSIONS[@]} > 0 )) || fail "no version older than $default_version is installed"
psql_run -q -d "$ADMIN_DB" -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $FRESH" -c "DROP DATABASE IF EXISTS $UPGRADED" \
    -c "CREATE DATABASE $FRESH TEMPLATE template0"

echo "==> $FRESH: CREATE EXTENSION minhash ($default_version)"
psql_run -q -d "$FRESH" -c "CREATE EXTENSION minhash"

# Version FROM in use in $UPGRADED, with data and a user's objects over
# it, then updated to the default version; the checks of the header.
upgrade_from() {
    local from=$1
    echo "==> $UPGRADED: version $from in use, with a user's objects over it"
    psql_run -q -d "$ADMIN_DB" -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $UPGRADED" \
        -c "CREATE DATABASE $UPGRADED TEMPLATE template0"
    # Every third memo has one word more: resemblances below 1 in the groups.
    psql_run -q -d "$UPGRADED" -c "CREATE EXTENSION minhash VERSION '$from'"
    psql_run -q -d "$UPGRADED" <<'SQL'
CREATE TABLE docs (id int PRIMARY KEY, body text, sig minhash(128), duplicate_of int);
CREATE INDEX docs_sig ON docs USING gin (sig gin_minhash_ops (threshold = 0.7));
CREATE TRIGGER docs_flag BEFORE INSERT OR UPDATE ON docs
    FOR EACH ROW EXECUTE FUNCTION minhash_flag_duplicates('sig', 'duplicate_of', '0.8');
INSERT INTO docs (id, body, sig)
SELECT i, b, minhash(b)
  FROM generate_series(1, 200) i,
       LATERAL (SELECT 'memo ' || (i % 40) || ' on the budget, the travel policy and the review of every office'
                       || CASE WHEN i % 3 = 0 THEN ' today' ELSE '' END AS b) x;
CREATE TABLE doc_groups AS SELECT * FROM near_dupe_groups('docs', 'id', 'sig', 0.8);
SELECT count(*) FROM near_dupe_pairs('docs', 'id', 'sig', 0.8) \g /dev/null
SELECT * FROM near_dupe_summary('doc_groups') \g /dev/null
SELECT count(*) FROM near_dupe_groups('docs', 'id', 'sig') \g /dev/null
SQL
    # 1.0's near_dupe_groups (threshold DEFAULT NULL) on this library: a
    # threshold left out or null is still the setting, not an error.
    if [[ "$from" == 1.0 ]]; then
        psql_run -q -d "$UPGRADED" -c "SELECT count(*) FROM near_dupe_groups('docs', 'id', 'sig', NULL)" >/dev/null
    fi
    psql_run -q -At -d "$UPGRADED" -f test/upgrade/user_objects.sql | sed 's/^/  /'

    echo "==> $UPGRADED: ALTER EXTENSION minhash UPDATE (from $from)"
    if ! psql_run -q -d "$UPGRADED" -c "ALTER EXTENSION minhash UPDATE" 2>"$work/update_error"; then
        sed 's/^/  /' "$work/update_error"
        fail "ALTER EXTENSION minhash UPDATE from $from failed with the user's objects in place"
    fi
    user_checks=$(psql_run -q -At -d "$UPGRADED" -f test/upgrade/user_objects_check.sql)
    echo "$user_checks" | sed 's/^/  /'
    if grep -q '^problem|' <<<"$user_checks"; then
        fail "the user's objects or the $from members did not survive the update from $from as they were"
    fi
    if [[ -n "${MINHASH_UPGRADE_TAMPER:-}" ]]; then
        psql_run -q -d "$UPGRADED" -c "$MINHASH_UPGRADE_TAMPER"
    fi
    version=$(psql_run -At -d "$UPGRADED" -c "SELECT extversion FROM pg_extension WHERE extname = 'minhash'")
    [[ "$version" == "$default_version" ]] || fail "updated to $version, not $default_version"
    # The upgraded database still works on its data.
    checks=$(psql_run -q -At -d "$UPGRADED" <<'SQL'
SET enable_seqscan = off;
SELECT 'index ' || ((SELECT count(*) FROM docs WHERE sig % (SELECT sig FROM docs WHERE id = 1))
                    = (SELECT count(*) FROM docs a
                        WHERE resemblance(a.sig, (SELECT sig FROM docs WHERE id = 1)) >= current_setting('minhash.threshold')::float8));
RESET enable_seqscan;
INSERT INTO docs (id, body, sig) VALUES (1000, 'x', minhash('memo 1 on the budget, the travel policy and the review of every office'::text));
SELECT 'trigger ' || (duplicate_of IS NOT NULL) FROM docs WHERE id = 1000;
SELECT 'groups ' || ((SELECT count(*) FROM near_dupe_groups('docs', 'id', 'sig', 0.8)) = 201);
SQL
    )
    echo "$checks" | sed 's/^/  /'
    if grep -q false <<<"$checks"; then
        fail "the database upgraded from $from does not work on its data"
    fi
}

# The database updated from FROM holds exactly what a fresh install holds.
compare_with_fresh() {
    local from=$1
    echo "==> fresh and upgraded from $from: every object identical"
    psql_run -At -d "$FRESH" -f "$FINGERPRINT" >"$work/fresh"
    psql_run -At -d "$UPGRADED" -f "$FINGERPRINT" >"$work/upgraded"
    if ! diff -u --label "$FRESH (CREATE EXTENSION)" --label "$UPGRADED ($from, then UPDATE)" \
            "$work/fresh" "$work/upgraded" >"$work/diff"; then
        cat "$work/diff"
        fail "the extension upgraded from $from differs from a fresh install"
    fi
    echo "  $(grep -c '^member|' "$work/fresh") objects, $(wc -l <"$work/fresh") lines: identical"
}

upgrade_from "${SHIPPED_VERSIONS[0]}"

echo "==> the description of the extension sees a change"
psql_run -At -d "$UPGRADED" -f "$FINGERPRINT" >"$work/baseline"
tampers=(
    "ALTER FUNCTION near_dupe_pairs(regclass, name, name, double precision) RESET search_path"
    "ALTER FUNCTION minhash_size(minhash) COST 5"
    "ALTER OPERATOR %(minhash, minhash) SET (RESTRICT = eqsel)"
    "COMMENT ON TYPE minhash_query IS 'changed'"
    "GRANT CREATE ON SCHEMA minhash_internal TO PUBLIC"
)
for tamper in "${tampers[@]}"; do
    psql_run -q -At -d "$UPGRADED" -c "BEGIN" -c "$tamper" -f "$FINGERPRINT" -c "ROLLBACK" >"$work/tampered"
    if diff -q "$work/baseline" "$work/tampered" >/dev/null; then
        fail "the description does not change with: $tamper"
    fi
    echo "  sees: $tamper"
done

compare_with_fresh "${SHIPPED_VERSIONS[0]}"
for from in "${SHIPPED_VERSIONS[@]:1}"; do
    upgrade_from "$from"
    compare_with_fresh "$from"
done

# A schema minhash_internal that someone else made before the update to 1.2
# stops it, and the library never calls into it meanwhile.
echo "==> a schema minhash_internal made by another role"
psql_run -q -d "$ADMIN_DB" -c "DROP DATABASE $UPGRADED" -c "CREATE DATABASE $UPGRADED"
hostile=$(psql -X -q -At -d "$UPGRADED" 2>&1 <<'SQL' || true
DO $$ BEGIN
	IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'minhash_squatter') THEN CREATE ROLE minhash_squatter; END IF;
END $$;
CREATE SCHEMA minhash_internal AUTHORIZATION minhash_squatter;
CREATE EXTENSION minhash VERSION '1.1';
CREATE FUNCTION minhash_internal.near_dupe_check_arguments(regclass, name, name, double precision) RETURNS regtype
	LANGUAGE plpgsql AS $f$ BEGIN RAISE NOTICE 'planted helper ran'; RETURN 'integer'::regtype; END $f$;
ALTER FUNCTION minhash_internal.near_dupe_check_arguments(regclass, name, name, double precision) OWNER TO minhash_squatter;
CREATE TABLE docs AS SELECT i AS id, minhash('one two three four five six ' || i % 3) AS sig FROM generate_series(1, 9) i;
SELECT 'rows ' || count(*) FROM near_dupe_groups('docs', 'id', 'sig', 0.8);
ALTER EXTENSION minhash UPDATE;
SELECT 'version ' || extversion FROM pg_extension WHERE extname = 'minhash';
DROP SCHEMA minhash_internal CASCADE;
SQL
)
echo "$hostile" | sed 's/^/  /'
[[ "$hostile" == *"rows 9"* && "$hostile" == *'schema "minhash_internal" already exists'* &&
   "$hostile" == *"version 1.1"* && "$hostile" != *"planted helper ran"* ]] ||
    fail "a squatted minhash_internal: the update must stop and the planted helper never run"
psql_run -q -d "$ADMIN_DB" -c "DROP ROLE minhash_squatter"

psql_run -q -d "$ADMIN_DB" -c "DROP DATABASE $FRESH" -c "DROP DATABASE $UPGRADED"
echo "fresh_vs_upgraded: passed ($((SECONDS - t0)) s)"
