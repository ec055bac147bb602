#!/usr/bin/env bash
# A production's pages in a real browser, at 100,000 documents: a two-wave
# production (test/review/production_setup.sql: wave 1 grouped and coded,
# wave 2 appended) written by near_dupe_review_pages the way the README
# saves pages (psql, unaligned, tuples only, one \g FILE per page), opened
# in headless Chromium; every page saved checked by check_pages.py, the
# DOM Chromium builds of the pages opened by check_dom.py, and their
# screenshots by check_png.py:
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

# shellcheck source=browser_lib.sh
source test/review/browser_lib.sh
review_browser_start production_pages

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

# The facts the checks expect, from the tables (never written here).
IFS='|' read -r DOCUMENTS NO_WORDS NUMBERS_ONLY < <(psql -X -At -d "$RDB" -c "
    SELECT count(*), count(*) FILTER (WHERE minhash_document_class(body) = 'no words'),
           count(*) FILTER (WHERE minhash_document_class(body) = 'numbers only')
      FROM production_docs")
IFS='|' read -r GREW GREW_STATUS GREW_NEW < <(psql -X -At -d "$RDB" -c "SELECT group_id, status, new_members FROM production_planted WHERE what = 'grew'")
COPIES=$(psql -X -At -d "$RDB" -c "SELECT group_id FROM production_planted WHERE what = 'copies'")
EMPTY=$(psql -X -At -d "$RDB" -c "SELECT group_id FROM production_planted WHERE what = 'empty'")
IFS='|' read -r LINK LINKED < <(psql -X -At -d "$RDB" -c "SELECT group_id, linked_group FROM production_planted WHERE what = 'link'")
say "to open: group $GREW (coded $GREW_STATUS, $GREW_NEW new members), $COPIES (copies), $EMPTY (empty), $LINK (links to $LINKED)"

# Every page as saved: nothing active, links to pages of the folder, the
# index pages numbered and linked in turn, every group once, the group
# pages linked to their index page and neighbours (check_pages.py); the
# whole production's index, largest first, holds every document of the table.
python3 test/review/check_pages.py "$WORK/all" --index-only --documents "$DOCUMENTS" --order size \
    --class 'no words' "$NO_WORDS" --class 'numbers only' "$NUMBERS_ONLY"
python3 test/review/check_pages.py "$WORK/review" --order size

# open NAME DIR PAGE [CHECK_PNG OPTIONS...]: PAGE of DIR in Chromium, its
# DOM dumped to NAME.dom and a 1200x900 screenshot to NAME.png, checked.
open_page() {
    local name=$1 dir=$2 page=$3 t0
    shift 3
    t0=$(date +%s.%N)
    chromium_run --dump-dom "file://$WORK/$dir/$page" >"$WORK/$name.dom" || die "Chromium could not open $dir/$page"
    say "$dir/$page: $(stat -c %s "$WORK/$dir/$page") bytes, DOM in $(printf '%.1f' "$(echo "$(date +%s.%N) - $t0" | bc)") s"
    chromium_run --window-size=1200,900 --screenshot="$WORK/$name.png" "file://$WORK/$dir/$page" >/dev/null \
        || die "Chromium could not take a screenshot of $dir/$page"
    python3 test/review/check_png.py "$WORK/$name.png" --size 1200 900 --min-ink 0.05 "$@"
}

# The index by size: status badges drawn.
open_page index all index.html --colour '#dbeafe' 50
python3 test/review/check_dom.py "$WORK/index.dom" --pages "$WORK/all" --production-index
# A coded group that grew: its status, its mark, its new members (badges drawn).
open_page grew review "group-$GREW.html" --colour '#ffd8a8' 50
python3 test/review/check_dom.py "$WORK/grew.dom" --pages "$WORK/review" --status "$GREW_STATUS" --new-members "$GREW_NEW"
# Members identical to each other: one text, three names (the line's border drawn).
open_page copies review "group-$COPIES.html" --colour '#0969da' 50
python3 test/review/check_dom.py "$WORK/copies.dom" --pages "$WORK/review" --new-group --copies 3
# An empty document: its badge and note.
open_page empty review "group-$EMPTY.html" --colour '#e4e8ee' 50
python3 test/review/check_dom.py "$WORK/empty.dom" --pages "$WORK/review" --new-group --doc-class 'no words'
# A new document near a member of a coded group: the link to that group.
open_page link review "group-$LINK.html"
python3 test/review/check_dom.py "$WORK/link.dom" --pages "$WORK/review" --new-group --link-to "$LINKED"

# The checks bite: the index to review with its largest and last rows
# swapped, and with a row taken out, must fail.
spoil() {
    local name=$1 how=$2
    rm -rf "$WORK/spoiled" && mkdir "$WORK/spoiled" && cp "$WORK"/review/index*.html "$WORK/spoiled/"
    python3 - "$WORK/spoiled/index.html" "$how" <<'PY'
import re, sys
path, how = sys.argv[1], sys.argv[2]
page = open(path, encoding="utf-8").read()
rows = re.findall(r"<tr><td class=\"group\">.*?</tr>", page)
if how == "swap":
    page = page.replace(rows[0], "\0").replace(rows[-1], rows[0]).replace("\0", rows[-1])
else:
    page = page.replace(rows[1] + "\n", "", 1)
open(path, "w", encoding="utf-8").write(page)
PY
    if python3 test/review/check_pages.py "$WORK/spoiled" --index-only --order size >/dev/null 2>"$WORK/spoiled.err"; then
        die "the index spoiled ($name) passed check_pages.py"
    fi
    say "spoiled ($name) fails as it should: $(head -1 "$WORK/spoiled.err")"
}
spoil "the largest group last" swap
spoil "a row taken out" drop
say "passed"
