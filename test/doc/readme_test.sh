#!/usr/bin/env bash
# The README's doc test: every ```sql block of README.md, in order, runs in
# psql against a fresh database holding the fixture (test/doc/fixture.sql),
# one psql per block (state carries over through the database, as it does
# for a reader who runs the examples one after another).
#
#   bash test/doc/readme_test.sh            (PG* variables name the cluster;
#                                             test/run_all.sh runs it)
#
# A block fails when psql reports an ERROR, unless the line just before the
# block is an HTML comment `<!-- doc-test: error SQLSTATE -->`; then it must
# fail with exactly that SQLSTATE. When a ```text block follows a ```sql
# block (blank lines between are allowed), it is the block's shown result:
# psql's output (stdout and stderr as a terminal shows them, without the
# `psql:<stdin>:N:` prefix) must equal it, trailing blanks ignored. psql runs
# with -X and default settings: only what a block itself sets applies. SQL
# under another fence name (```psql, ```postgresql, ...) is refused: it
# would go untested.
#
# First, without a database, test/doc/check_structure.py checks what the
# reader follows rather than runs, in README.md and the READMEs under test/
# it links to: every relative link reaches a file and every #anchor a
# heading of it; every fence is closed and no block is empty; a paragraph
# ending on a colon is followed by the code, table or list it announces; no
# shell block uses sudo (the commands run as root on a fresh Debian, which
# has none).  Each problem is a failure.
#
# Ends with `doc test: N blocks run, M outputs compared[, K failed]`; exits 1
# if any block failed. MINHASH_DOC_README / MINHASH_DOC_DB override the file
# and the database name (readme_doctest, dropped and created each run);
# MINHASH_DOC_PRINT=1 prints every block's output (for writing the README).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
README="${MINHASH_DOC_README:-README.md}"
DB="${MINHASH_DOC_DB:-readme_doctest}"
[[ -f "$README" ]] || { echo "doc test: $README not found"; exit 1; }
command -v python3 >/dev/null 2>&1 || { echo "doc test: python3 not found (apt-get install python3)"; exit 1; }
structure_failed=0
python3 test/doc/check_structure.py "$README" || structure_failed=1
work="$(mktemp -d "${TMPDIR:-/tmp}/minhash-doctest.XXXXXX")"
trap 'rm -rf "$work"' EXIT

# Split the README into blocks: NNN.sql, NNN.line (README line of the fence),
# NNN.error (expected SQLSTATE), NNN.expected (the shown result).
awk -v dir="$work" '
function flush_text() { }
{
    line = $0
    if (state == "sql" || state == "text") {
        if (line ~ /^[ \t]*```[ \t]*$/) { close(out); state = (state == "sql") ? "after" : ""; next }
        sub("^" indent, "", line)
        print line > out
        next
    }
    if (state == "after") {
        if (line ~ /^[ \t]*$/) next
        if (line ~ /^[ \t]*```text[ \t]*$/) {
            match(line, /^[ \t]*/); indent = substr(line, 1, RLENGTH)
            out = sprintf("%s/%03d.expected", dir, n); printf "" > out
            state = "text"; next
        }
        state = ""
    }
    if (line ~ /^[ \t]*```sql[ \t]*$/) {
        n++
        match(line, /^[ \t]*/); indent = substr(line, 1, RLENGTH)
        printf "%d\n", NR > sprintf("%s/%03d.line", dir, n)
        if (marker != "") printf "%s\n", marker > sprintf("%s/%03d.error", dir, n)
        out = sprintf("%s/%03d.sql", dir, n); printf "" > out
        state = "sql"; marker = ""; next
    }
    if (line ~ /^[ \t]*$/) next
    if (match(line, /<!-- doc-test: error [0-9A-Z][0-9A-Z][0-9A-Z][0-9A-Z][0-9A-Z] -->/)) {
        marker = line; sub(/.*<!-- doc-test: error /, "", marker); sub(/ -->.*/, "", marker); next
    }
    marker = ""
}' "$README"

# SQL under another fence name would go untested: refuse it.
if grep -nE '^[[:space:]]*```[[:space:]]*(psql|pgsql|plpgsql|postgres|postgresql|SQL|Sql)[[:space:]]*$' "$README"; then
    echo "doc test: SQL in a fence other than \`\`\`sql (above) is not run; write \`\`\`sql"
    exit 1
fi

psql -X -q -d postgres -v ON_ERROR_STOP=1 -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB" >/dev/null || exit 1
psql -X -q -d "$DB" -v ON_ERROR_STOP=1 -f test/doc/fixture.sql >/dev/null || { echo "doc test: the fixture failed"; exit 1; }

n_run=0 n_compared=0 n_failed=0
for sqlf in "$work"/*.sql; do
    [[ -e "$sqlf" ]] || break
    b="${sqlf%.sql}"
    line="$(cat "$b.line")"
    want_err=""; [[ -f "$b.error" ]] && want_err="$(cat "$b.error")"
    # VERBOSITY=verbose puts the SQLSTATE into each error line; it is taken
    # out again (with the LOCATION line) before the output is compared.
    # in the scratch folder: a block that writes a file (\o) writes it there
    (cd "$work" && psql -X -d "$DB" -v VERBOSITY=verbose <"$sqlf" >"$b.raw" 2>&1)
    n_run=$((n_run + 1))
    mapfile -t states < <(sed -n 's/^\(psql:[^:]*:[0-9]*: \)\{0,1\}ERROR:  \([0-9A-Z]\{5\}\): .*/\2/p' "$b.raw")
    sed -e 's/^psql:<stdin>:[0-9]*: //' \
        -e 's/^\(ERROR\|WARNING\|NOTICE\|INFO\):  [0-9A-Z]\{5\}: /\1:  /' \
        -e '/^LOCATION:  /d' -e 's/[ \t]*$//' "$b.raw" >"$b.out"
    fail=""
    if [[ -z "$want_err" && ${#states[@]} -gt 0 ]]; then
        fail="unexpected error (SQLSTATE ${states[*]})"
    elif [[ -n "$want_err" && "${states[*]}" != "$want_err" ]]; then
        fail="expected one error $want_err, got: ${states[*]:-none}"
    fi
    if [[ -f "$b.expected" ]]; then
        n_compared=$((n_compared + 1))
        sed -e 's/[ \t]*$//' "$b.expected" >"$b.want"
        # a shown result may leave out trailing blank lines
        if ! diff -u <(sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' "$b.want") \
                     <(sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' "$b.out") >"$b.diff"; then
            fail="${fail:+$fail; }shown result differs"
        fi
    fi
    if [[ -n "${MINHASH_DOC_PRINT:-}" ]]; then   # for writing the README: every output
        echo "=== block at $README:$line"; cat "$b.out"
    fi
    if [[ -n "$fail" ]]; then
        n_failed=$((n_failed + 1))
        echo "doc test: FAILED: the sql block at $README:$line: $fail"
        sed 's/^/    | /' "$sqlf"
        echo "    output:"; sed 's/^/    > /' "$b.out"
        [[ -s "$b.diff" ]] && { echo "    diff (shown -> actual):"; sed 's/^/    /' "$b.diff"; }
    fi
done

psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1 || true
summary="doc test: $n_run blocks run, $n_compared outputs compared"
((n_failed == 0)) || summary+=", $n_failed failed"
((structure_failed == 0)) || summary+=", structure checks failed (above)"
echo "$summary"
((n_run > 0 && n_failed == 0 && structure_failed == 0))
