#!/usr/bin/env bash
# A production's pages in a real browser, at 100,000 documents: a two-wave
# production (test/review/production_setup.sql: wave 1 grouped and coded,
# wave 2 appended) written by near_dupe_review_pages the way the README
# saves pages (psql, unaligned, tuples only, one \g FILE per page), opened
# in headless Chromium, the DOM it builds checked by check_production.py
# (with check_dom.py's checks on every page opened) and screenshots checked
# by check_png.py:
#   - the whole index ordered by size (every page): every document counted
#     once, sizes never increasing, every group once;
#   - a coded group that grew in wave 2: its status, its mark, its new
#     members marked, its links back to the index and to its neighbours;
#   - a new group whose members are identical to each other: drawn once,
#     with every label;
#   - an empty document: said to have no words.
#
#   bash test/review/production_pages.sh     # PG* variables set; 2-4 min
#
# Uses the realistic corpus of 100,000 documents (test/bench/realistic_lib.sh:
# made once, reused); MINHASH_REVIEW_KEEP=1 keeps the pages (the path is
# printed).  Figures printed (page counts and sizes, Chromium's times) are
# never asserted.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

die() { printf 'production_pages: ERROR: %s\n' "$*" >&2; exit 1; }
say() { printf 'production_pages: [%3ss] %s\n' "$SECONDS" "$*"; }

CHROMIUM="${CHROMIUM:-chromium}"
command -v "$CHROMIUM" >/dev/null 2>&1 || die "$CHROMIUM not found: apt-get install --no-install-recommends chromium"
command -v python3 >/dev/null 2>&1 || die "python3 not found"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/minhash-production.XXXXXX")"
chmod 755 "$WORK"
trap '[[ -n "${MINHASH_REVIEW_KEEP:-}" ]] && echo "production_pages: pages kept in $WORK" || rm -rf "$WORK"' EXIT

chromium_run() {
    timeout 300 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
        --no-first-run --disable-extensions --hide-scrollbars \
        --user-data-dir="$WORK/profile" "$@" 2>>"$WORK/chromium.log"
}

# shellcheck source=../bench/realistic_lib.sh
source test/bench/realistic_lib.sh
realistic_corpus 100000 >/dev/null || die "could not make the realistic corpus"
say "the production: wave 1 grouped and coded, wave 2 appended"
psql -X -q -d "$RDB" -v ON_ERROR_STOP=1 -f test/review/production_setup.sql >"$WORK/setup.log" \
    || { cat "$WORK/setup.log"; die "production_setup.sql failed"; }
tail -3 "$WORK/setup.log"

# write_pages DIR ARGUMENTS: near_dupe_review_pages(ARGUMENTS) saved into DIR
# as the README says.
write_pages() {
    local dir=$1 arguments=$2 t0
    mkdir -p "$WORK/$dir"
    t0=$SECONDS
    (cd "$WORK/$dir" && psql -X -q -d "$RDB" -v ON_ERROR_STOP=1 >/dev/null) <<SQL || die "writing $dir failed"
\pset format unaligned
\pset tuples_only on
CREATE TEMP TABLE pages AS
SELECT * FROM near_dupe_review_pages($arguments);
CREATE INDEX ON pages (file_name);
\o pages.psql
SELECT format('SELECT html FROM pages WHERE file_name = %L \g %s', file_name, file_name) FROM pages;
\o
\i pages.psql
SQL
    rm -f "$WORK/$dir/pages.psql"
    say "$dir: $(find "$WORK/$dir" -name 'index*.html' | wc -l) index pages, $(find "$WORK/$dir" -name 'group-*.html' | wc -l) group pages, $(du -sh "$WORK/$dir" | cut -f1) in $((SECONDS - t0)) s"
}

COMMON="'production_groups', 'production_docs', 'id', 'body', label_column => 'bates',
        status_table => 'production_status', wave_column => 'wave', sig_column => 'sig', threshold => 0.6"
write_pages all "$COMMON, order_by => 'size', group_pages => false"
write_pages review "$COMMON, order_by => 'size', show => 'to review'"
