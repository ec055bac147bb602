#!/usr/bin/env bash
# ALTER EXTENSION minhash UPDATE from 1.1 names, in a WARNING, the user's
# objects that may hold 1.1's answers for documents without words (columns
# of signatures; indexes, materialized views, generated columns, constraints
# and triggers over the functions whose answers changed), and leaves out
# what computes again on each read (a view, a function).  A fresh CREATE
# EXTENSION and an update with none of those objects say nothing.
#
# Runs against the cluster the PG* variables point at, minhash installed;
# database minhash_update_warning, dropped when it passes.  About 2 s.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
DB=minhash_update_warning
psql_run() { psql -X -q -v ON_ERROR_STOP=1 "$@"; }
fail() { echo "update_warning: FAILED: $*"; exit 1; }
recreate() {
    psql_run -d "${PGDATABASE:-postgres}" -c "SET client_min_messages = warning" \
        -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB TEMPLATE template0"
}

recreate
out=$(psql_run -d "$DB" -c "CREATE EXTENSION minhash" 2>&1)
[[ -z "$out" ]] || fail "a fresh install printed: $out"
echo "ok: a fresh install says nothing"

recreate
out=$(psql_run -d "$DB" -c "CREATE EXTENSION minhash VERSION '1.1'" -c "ALTER EXTENSION minhash UPDATE" 2>&1)
[[ -z "$out" ]] || fail "an update with no objects of the user's printed: $out"
echo "ok: an update with nothing of the user's over minhash says nothing"

recreate
psql_run -d "$DB" <<'SQL'
CREATE EXTENSION minhash VERSION '1.1';
CREATE TABLE docs (id int PRIMARY KEY, body text, sig minhash(128), duplicate_of int,
                   self_resemblance float8 GENERATED ALWAYS AS (resemblance(sig, sig)) STORED,
                   CONSTRAINT contained CHECK (containment(sig, sig) >= 0));
CREATE INDEX docs_self ON docs ((resembles(sig, sig, 0.5)));
CREATE INDEX docs_distance ON docs ((sig <%> sig));
CREATE INDEX docs_sig ON docs USING gin (sig);
CREATE VIEW docs_view AS SELECT id, resemblance(sig, sig) FROM docs;
CREATE MATERIALIZED VIEW docs_matview AS SELECT id, sig <%> sig AS distance FROM docs;
CREATE FUNCTION docs_fn(minhash) RETURNS float8 LANGUAGE sql IMMUTABLE AS 'SELECT resemblance($1, $1)';
CREATE TRIGGER docs_flag BEFORE INSERT OR UPDATE ON docs
    FOR EACH ROW EXECUTE FUNCTION minhash_flag_duplicates('sig', 'duplicate_of', '0.8');
CREATE TABLE plain (id int);
SQL
out=$(psql_run -d "$DB" -c "ALTER EXTENSION minhash UPDATE" 2>&1)
grep -q '^WARNING:  since the minhash 1.2 library was installed, a document without words resembles nothing' <<<"$out" ||
    fail "no warning; the update printed: $out"
detail=$(grep '^DETAIL:' <<<"$out")
for expected in 'column docs.sig' 'constraint contained on table docs' \
                'default value for column self_resemblance of table docs' 'index docs_self' 'index docs_distance' \
                'rule _RETURN on materialized view docs_matview' 'trigger docs_flag on table docs'; do
    grep -qF "$expected" <<<"$detail" || fail "the warning does not name \"$expected\": $detail"
done
for unexpected in docs_view docs_fn plain 'index docs_sig'; do
    ! grep -qF "$unexpected" <<<"$detail" || fail "the warning names \"$unexpected\": $detail"
done
grep -q '^HINT:  .*minhash_size(sig)' <<<"$out" || fail "no hint: $out"
# through 1.2 to the default version (the update runs each script in turn)
[[ "$(psql_run -At -d "$DB" -c "SELECT e.extversion = a.default_version FROM pg_extension e, pg_available_extensions a
                                 WHERE e.extname = 'minhash' AND a.name = 'minhash'")" == t ]] ||
    fail "the update did not reach the default version"
echo "ok: the update from 1.1 names the 7 objects that may hold old answers, not the view, the function, the GIN index or another table"

psql_run -d "${PGDATABASE:-postgres}" -c "DROP DATABASE $DB"
echo "update_warning: passed"
