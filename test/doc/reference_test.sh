#!/usr/bin/env bash
# The README's Reference is the whole API: compared with the catalogs of a
# fresh database with the extension installed.
#
#   bash test/doc/reference_test.sh        (PG* variables name the cluster;
#                                            test/run_all.sh runs it)
#
# Every function of the extension that PUBLIC may execute must be
#   * named in the Reference (a name in backquotes in its table, alone or
#     called: `near_dupe_pairs`, `minhash(doc text, ...)`), or
#   * the support function of a type, operator, opclass, cast or aggregate
#     of the extension (pg_type, pg_operator, pg_amproc, pg_cast,
#     pg_aggregate), which users reach through that object, or
#   * a helper in the schema minhash_internal, which the Reference says is
#     not API;
# and every function, type, opclass or setting name the table's first
# column gives must exist.  Ends with `reference test: N functions, M names checked` and
# exits 1 on any mismatch.  MINHASH_DOC_README overrides the file.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
README="${MINHASH_DOC_README:-README.md}"
DB=minhash_reference_test
command -v python3 >/dev/null 2>&1 || { echo "reference test: python3 not found (apt-get install python3)"; exit 1; }

# The names: "listed" (any name in backquotes, alone or before a "("), and
# "objects" (the first column's, which must exist), one a line as
# "kind<TAB>name".
names=$(python3 - "$README" <<'PY'
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
m = re.search(r"^## Reference\n(.*?)(?=^## )", text, re.S | re.M)
if not m:
    sys.exit("no ## Reference section")
listed, objects = set(), set()
for row in m.group(1).splitlines():
    if not row.startswith("|") or row.startswith("|---"):
        continue
    cells = row.strip("|").split(" | ")
    for i, cell in enumerate(cells[:2]):
        for span in re.findall(r"`([^`]+)`", cell):
            called = re.findall(r"\b([a-z_][a-z0-9_]*)\s*\(", span)
            bare = [span] if re.fullmatch(r"[a-z_][a-z0-9_]*", span) else []
            listed.update(called + bare)
            if i == 0:
                objects.update(called + bare)
for n in sorted(listed):
    print("listed\t" + n)
for n in sorted(objects):
    print("object\t" + n)
PY
) || { echo "reference test: could not read the Reference of $README"; exit 1; }

export PGOPTIONS="${PGOPTIONS:-} -c client_min_messages=warning"
psql -X -q -d postgres -v ON_ERROR_STOP=1 -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB" >/dev/null || exit 1
trap 'psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1 || true' EXIT
out=$(psql -X -q -At -F $'\t' -d "$DB" -v ON_ERROR_STOP=1 2>&1 <<SQL
CREATE EXTENSION minhash;
CREATE TEMP TABLE reference (kind text, name text);
COPY reference FROM STDIN;
$names
\.
CREATE TEMP VIEW members AS
SELECT d.classid, d.objid FROM pg_depend d
 WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
   AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'minhash');
CREATE TEMP VIEW support_functions AS
SELECT f FROM members m JOIN pg_type t ON m.classid = 'pg_type'::regclass AND t.oid = m.objid,
	   unnest(ARRAY[t.typinput, t.typoutput, t.typreceive, t.typsend, t.typmodin, t.typmodout, t.typanalyze]::oid[]) f
UNION SELECT f FROM members m JOIN pg_operator o ON m.classid = 'pg_operator'::regclass AND o.oid = m.objid,
	   unnest(ARRAY[o.oprcode, o.oprrest, o.oprjoin]::oid[]) f
UNION SELECT p.amproc FROM members m JOIN pg_amproc p ON m.classid = 'pg_opfamily'::regclass AND p.amprocfamily = m.objid
UNION SELECT c.castfunc FROM members m JOIN pg_cast c ON m.classid = 'pg_cast'::regclass AND c.oid = m.objid
UNION SELECT f FROM members m JOIN pg_aggregate a ON m.classid = 'pg_proc'::regclass AND a.aggfnoid = m.objid,
	   unnest(ARRAY[a.aggtransfn, a.aggfinalfn, a.aggcombinefn, a.aggserialfn, a.aggdeserialfn,
					a.aggmtransfn, a.aggminvtransfn, a.aggmfinalfn]::oid[]) f;
-- Executable by PUBLIC, outside minhash_internal, in no support role and
-- not in the Reference.
SELECT 'not in the Reference: ' || p.oid::regprocedure
  FROM members m JOIN pg_proc p ON m.classid = 'pg_proc'::regclass AND p.oid = m.objid
 WHERE has_function_privilege('public', p.oid, 'EXECUTE')
   AND p.pronamespace <> 'minhash_internal'::regnamespace
   AND p.oid NOT IN (SELECT f FROM support_functions)
   AND p.proname NOT IN (SELECT name FROM reference WHERE kind = 'listed')
 ORDER BY 1;
-- Named in the Reference's first column, but no function, type or opclass
-- of the extension.
SELECT 'no such object: ' || r.name
  FROM reference r
 WHERE r.kind = 'object'
   AND NOT EXISTS (SELECT FROM members m JOIN pg_proc p ON m.classid = 'pg_proc'::regclass AND p.oid = m.objid
					WHERE p.proname = r.name AND p.pronamespace <> 'minhash_internal'::regnamespace)
   AND NOT EXISTS (SELECT FROM members m JOIN pg_type t ON m.classid = 'pg_type'::regclass AND t.oid = m.objid
					WHERE t.typname = r.name)
   AND NOT EXISTS (SELECT FROM members m JOIN pg_opclass o ON m.classid = 'pg_opclass'::regclass AND o.oid = m.objid
					WHERE o.opcname = r.name)
   AND NOT EXISTS (SELECT FROM pg_settings s WHERE s.name = r.name)
 ORDER BY 1;
-- The helpers' schema is the extension's, and nobody else may create in it.
SELECT 'minhash_internal is not the extension''s' WHERE NOT EXISTS
	(SELECT FROM members WHERE classid = 'pg_namespace'::regclass AND objid = 'minhash_internal'::regnamespace);
SELECT 'PUBLIC may create in minhash_internal' WHERE has_schema_privilege('public', 'minhash_internal', 'CREATE');
SELECT 'counts ' || (SELECT count(*) FROM members WHERE classid = 'pg_proc'::regclass) || ' '
	   || (SELECT count(*) FROM reference WHERE kind = 'object');
SQL
) || { echo "$out"; echo "reference test: psql failed"; exit 1; }
problems=$(grep -v '^counts ' <<<"$out")
read -r _ functions objects <<<"$(grep '^counts ' <<<"$out")"
if [[ -n "$problems" ]]; then
    echo "$problems"
    echo "reference test: $functions functions, $objects names checked, $(wc -l <<<"$problems") problems"
    exit 1
fi
echo "reference test: $functions functions, $objects names checked"
