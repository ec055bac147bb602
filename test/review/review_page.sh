#!/usr/bin/env bash
# The review page in a real browser: near_dupe_review_html pages are saved
# the way a user saves them (psql, unaligned, tuples only, \o FILE), opened
# in headless Chromium, and the DOM it dumps is checked by check_dom.py: two
# columns per member, the marks paired by chunk number with the same words
# on both sides, hostile text shown as text (no script or image element),
# what only one side has present and unmarked.
#
#   bash test/review/review_page.sh
#
# Pages: a fixture of hostile text (markup, entities, quotes, a key that is
# markup, several lines, a dropped footer, inserted and replaced words), and
# three groups of the SpamAssassin corpus: the one holding message
# spam-1/00062 (the README's screenshot), the largest, and the largest with
# a <script> in a message.  Expects the PG* variables set and the corpus in
# table spam_messages (test/run_all.sh loads it), and Debian's chromium
# (test/lib/common.sh installs it).  Leaves nothing in the database (temp
# tables only).  MINHASH_REVIEW_SCREENSHOT=FILE.png also writes a screenshot
# of the spam-1/00062 page (how test/review/screenshot.png was made).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

# shellcheck source=browser_lib.sh
source test/review/browser_lib.sh
review_browser_start review_page

say "writing the pages with psql"
psql -X -q -v ON_ERROR_STOP=1 -v work="$WORK" <<'SQL'
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS minhash;
CREATE TEMP TABLE review_docs (id text PRIMARY KEY, body text);
INSERT INTO review_docs VALUES
('<b>pivot</b> & "one"', E'Dear customer, <script>alert(1)</script> your account &amp; balance\n'
	'needs attention today because the bank said so.\n\n'
	'Regards, the team at "Example" & Co''s office\n-- \n'
	'unsubscribe at http://example.com/?a=1&b=2 <img src=x onerror=alert(2)>'),
('member''s <i>one</i>', E'Dear customer, <script>alert(1)</script> your account &amp; balance\n'
	'needs urgent attention today because the bank said so.\n\n'
	'Regards, the team at "Example" & Co''s office'),
('<script>alert("key")</script>', E'Dear customer, <script>alert(1)</script> your account &amp; balance\n'
	'needs attention today because the bank said so.\n'
	'P.S. Reply within <b>24 hours</b>!\n\n'
	'Regards, the people at "Example" & Co''s office\n-- \n'
	'unsubscribe at http://example.com/?a=1&b=2 <img src=x onerror=alert(2)>');
CREATE TEMP TABLE review_groups (group_id bigint, key text, pivot text, resemblance float8);
INSERT INTO review_groups VALUES
	(1, '<b>pivot</b> & "one"', '<b>pivot</b> & "one"', 1),
	(1, 'member''s <i>one</i>', '<b>pivot</b> & "one"', 0.75),
	(1, '<script>alert("key")</script>', '<b>pivot</b> & "one"', 0.5);

CREATE TEMP TABLE messages AS SELECT id, file, body, minhash(body) AS sig FROM spam_messages;
CREATE TEMP TABLE spam_groups AS SELECT * FROM near_dupe_groups('messages', 'id', 'sig');
SELECT
	(SELECT g.group_id FROM spam_groups g JOIN messages m ON m.id = g.key::int
	  WHERE m.file LIKE 'spam-1/00062.%') AS screenshot_group,
	(SELECT s.group_id FROM near_dupe_group_stats('spam_groups') s
	  ORDER BY s.size DESC, s.group_id LIMIT 1) AS largest_group,
	(SELECT g.group_id FROM spam_groups g JOIN messages m ON m.id = g.key::int
	  GROUP BY g.group_id HAVING count(*) > 1 AND bool_or(m.body ~* '<script')
	  ORDER BY count(*) DESC, g.group_id LIMIT 1) AS script_group \gset
\echo review_page: spam groups: :screenshot_group (spam-1/00062), :largest_group (largest), :script_group (a <script> in a message)

-- As the README says to save a page.
\encoding UTF8
\pset format unaligned
\pset tuples_only on
\o :work/fixture.html
SELECT near_dupe_review_html('review_groups', 'review_docs', 'id', 'body', 1, 3);
\o :work/spam-screenshot.html
SELECT near_dupe_review_html('spam_groups', 'messages', 'id', 'body', :screenshot_group);
\o :work/spam-largest.html
SELECT near_dupe_review_html('spam_groups', 'messages', 'id', 'body', :largest_group);
\o :work/spam-script.html
SELECT near_dupe_review_html('spam_groups', 'messages', 'id', 'body', :script_group);
\o
-- Keys of the screenshot group's first member, for the checks below.
\o :work/spam-screenshot.keys
SELECT d.key FROM near_dupe_review('spam_groups', 'messages', 'id', 'body', :screenshot_group) d
 WHERE d.role = 'member' LIMIT 1;
\o
SQL

for page in fixture spam-screenshot spam-largest spam-script; do
    [[ -s "$WORK/$page.html" ]] || die "$page.html was not written"
    chromium_run --dump-dom "file://$WORK/$page.html" >"$WORK/$page.dom" || {
        tail -20 "$WORK/chromium.log" >&2
        die "chromium could not render $page.html"
    }
    [[ -s "$WORK/$page.dom" ]] || die "chromium dumped no DOM for $page.html"
done

say "checking the DOMs"
# The fixture: each member's own text (inserted, replaced) unmarked on the
# right, the pivot's (the footer member 1 drops, the words member 2
# replaced) unmarked on the left; hostile text shown as written.
python3 test/review/check_dom.py "$WORK/fixture.dom" --members 2 --pivot '<b>pivot</b> & "one"' \
    --text '<script>alert(1)</script> your account &amp; balance' \
    --text 'unsubscribe at http://example.com/?a=1&b=2 <img src=x onerror=alert(2)>' \
    --text "Member <script>alert(\"key\")</script>" \
    --text "Member member's <i>one</i>" \
    --text $'the bank said so.\n\nRegards' \
    --unmarked right "member's <i>one</i>" ' urgent ' \
    --unmarked left "member's <i>one</i>" $'-- \nunsubscribe at http://example.com/?a=1&b=2 <img src=x onerror=alert(2)>' \
    --marked left "member's <i>one</i>" 'Dear customer, <script>alert(1)</script> your account' \
    --marked right "member's <i>one</i>" 'Dear customer, <script>alert(1)</script> your account' \
    --unmarked right '<script>alert("key")</script>' 'P.S. Reply within <b>24 hours</b>!' \
    --unmarked right '<script>alert("key")</script>' 'the people ' \
    --unmarked left '<script>alert("key")</script>' 'the team '

# The corpus: structure and pairing; the screenshot group shows text on
# each side that the other lacks (the sellers' names and web sites).
member="$(tr -d '\n' <"$WORK/spam-screenshot.keys")"
python3 test/review/check_dom.py "$WORK/spam-screenshot.dom" \
    --unmarked left "$member" 'Smokes Direct' --unmarked right "$member" 'Cheap Smoking'
python3 test/review/check_dom.py "$WORK/spam-largest.dom"
python3 test/review/check_dom.py "$WORK/spam-script.dom"

# The checks bite: the fixture page spoiled three ways must fail them.
#   pivot-unmarked: the pivot's column without marks (minhash 1.0 marked
#                   the member only);
#   raw-script:     one text not escaped;
#   renumbered:     a chunk number changed in one member column;
#   pivot-repeated: the pivot's column beside a member unfolded (the
#                   pivot's whole text shown again).
python3 - "$WORK" <<'PY'
import re, sys
work = sys.argv[1]
page = open(f"{work}/fixture.html", encoding="utf-8").read()
def unmark_pivot(m):
    return re.sub(r"</?mark[^>]*>", "", m.group(0))
spoiled = {
    "pivot-unmarked": re.sub(r'<div class="side pivot">.*?</div></div>', unmark_pivot, page, flags=re.S),
    "raw-script": page.replace("&lt;script&gt;alert(1)&lt;/script&gt;", "<script>alert(1)</script>", 1),
    "renumbered": re.sub(r'(<div class="side other">.*?data-chunk=")2"', r'\g<1>3"', page, count=1, flags=re.S),
    "pivot-repeated": re.sub(r'<details class="fold"><summary>.*?</summary>|</details>', "", page),
}
for name, html in spoiled.items():
    assert html != page, name
    open(f"{work}/spoiled-{name}.html", "w", encoding="utf-8").write(html)
PY
for spoiled in pivot-unmarked raw-script renumbered pivot-repeated; do
    chromium_run --dump-dom "file://$WORK/spoiled-$spoiled.html" >"$WORK/spoiled-$spoiled.dom"
    if python3 test/review/check_dom.py "$WORK/spoiled-$spoiled.dom" 2>"$WORK/spoiled-$spoiled.err"; then
        die "check_dom.py passed the spoiled page $spoiled"
    fi
    say "spoiled page $spoiled fails as it should: $(head -1 "$WORK/spoiled-$spoiled.err" | sed 's/^check_dom: [^:]*: //')"
done

# A production as a reviewer gets it: labels, identical members, a 10 MB
# pair, and the page of the whole group table with every group's page saved
# beside it, the way the README saves them.
say "writing a production's pages with psql"
mkdir -p "$WORK/production"
psql -X -q -v ON_ERROR_STOP=1 -v work="$WORK" <<'SQL'
SET client_min_messages = warning;
-- A group whose members are two exact copies of the pivot (one line that
-- lists them), a copy that differs only in spacing, and a revision saved
-- four times (drawn once, its four names listed); an empty mail alone.
CREATE TEMP TABLE prod_docs (id int PRIMARY KEY, path text, body text);
INSERT INTO prod_docs VALUES
(1, 'mail/2019/<budget>.eml', E'Subject: Q3 budget\n\nThe third quarter budget is attached for review by the finance team.\nPlease send comments to the controller before Friday so that we can close the books.\n\nThanks, Dana'),
(2, 'mail/2019/budget copy.eml', E'Subject: Q3 budget\n\nThe third quarter budget is attached for review by the finance team.\nPlease send comments to the controller before Friday so that we can close the books.\n\nThanks, Dana'),
(3, 'backup/budget.eml', E'Subject: Q3 budget\n\nThe third quarter budget is attached for review by the finance team.\nPlease send comments to the controller before Friday so that we can close the books.\n\nThanks, Dana'),
(4, 'mail/2019/budget-reflowed.eml', E'Subject: Q3 budget\n\nThe third quarter budget is attached for review by the finance team.  Please send comments\nto the controller before Friday so that we can close the books.\n\nThanks, Dana'),
(5, 'mail/2019/budget-revised.eml', E'Subject: Q3 budget (revised)\n\nThe third quarter budget is attached for review by the finance team.\nPlease send comments to the controller before Monday so that we can close the books.\n\nThanks, Dana'),
(9, 'mail/2019/empty.eml', '');
INSERT INTO prod_docs SELECT i, format('backup/%s/budget-revised.eml', i), body FROM prod_docs, generate_series(6, 8) i WHERE id = 5;
CREATE TEMP TABLE prod_groups (group_id bigint, key int, pivot int, resemblance float8);
INSERT INTO prod_groups VALUES (1, 1, 1, 1), (1, 2, 1, 1), (1, 3, 1, 1), (1, 4, 1, 1), (1, 5, 1, 0.7),
	(1, 6, 1, 0.7), (1, 7, 1, 0.7), (1, 8, 1, 0.7), (2, 9, 9, 0);

-- Two 10 MB documents (the second has a line changed every 20,000 lines).
CREATE TEMP TABLE big_docs (id int PRIMARY KEY, path text, body text);
INSERT INTO big_docs
SELECT v, format('big/%s.txt', v),
	   string_agg(CASE WHEN v = 2 AND i % 20000 = 0 THEN 'this line was changed in the revision'
				  ELSE substr(m, 1, 7) || ' ' || substr(m, 8, 5) || ' ' || substr(m, 13, 9) || ' ' || substr(m, 22, 6) END
				  || E'\n', '' ORDER BY i)
  FROM (SELECT i, md5(i::text) AS m FROM generate_series(1, 345000) i) w, (VALUES (1), (2)) v(v)
 GROUP BY v;
CREATE TEMP TABLE big_groups (group_id bigint, key int, pivot int, resemblance float8);
INSERT INTO big_groups VALUES (1, 1, 1, 1), (1, 2, 1, 0.95);
SELECT min(octet_length(body)) AS big_bytes FROM big_docs \gset
\echo review_page: the pair: :big_bytes bytes each
\timing on

\encoding UTF8
\pset format unaligned
\pset tuples_only on
\o :work/identical.html
SELECT near_dupe_review_html('prod_groups', 'prod_docs', 'id', 'body', 1, 5, 'path');
\o :work/empty.html
SELECT near_dupe_review_html('prod_groups', 'prod_docs', 'id', 'body', 2, 5, 'path');
\o :work/big.html
SELECT near_dupe_review_html('big_groups', 'big_docs', 'id', 'body', 1, 5, 'path');
\o

-- The whole production, as the README saves it: the index page, then one
-- page per group of two or more through a script that psql writes.
CREATE TEMP TABLE messages AS SELECT id, file, body, minhash(body) AS sig FROM spam_messages;
CREATE TEMP TABLE spam_groups AS SELECT * FROM near_dupe_groups('messages', 'id', 'sig');
\cd :work/production
\o index.html
SELECT near_dupe_review_index_html('spam_groups', 'messages', 'id', 'file');
\o pages.psql
SELECT format('SELECT near_dupe_review_html(%L, %L, %L, %L, %s, 5, %L) \g group-%s.html',
			  'spam_groups', 'messages', 'id', 'body', group_id, 'file', group_id)
  FROM near_dupe_group_stats('spam_groups');
\o
\timing off
\i pages.psql
SQL

# Each page rendered, its DOM checked, and a screenshot of it checked: not
# blank, the mark colours drawn, the boxes that carry the news drawn (the
# identical members' line, the note of what was cut, the index's links).
say "rendering the production's pages"
for page in identical empty big; do
    start=$(date +%s.%N)
    chromium_run --dump-dom "file://$WORK/$page.html" >"$WORK/$page.dom" || die "chromium could not render $page.html"
    end=$(date +%s.%N)
    chromium_run --screenshot="$WORK/$page.png" --window-size=1200,900 "file://$WORK/$page.html" >/dev/null \
        || die "chromium could not take a screenshot of $page.html"
    say "$page.html: $(stat -c %s "$WORK/$page.html") bytes, DOM in $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }') s"
done
python3 test/review/check_dom.py "$WORK/identical.dom" --members 2 --identical 2 --copies 4 --labels --differences \
    --pivot 'mail/2019/<budget>.eml 1' \
    --text 'mail/2019/budget copy.eml' --text 'backup/budget.eml' --text 'backup/8/budget-revised.eml' \
    --unmarked right 5 'Monday' --unmarked left 5 'Friday'
python3 test/review/check_png.py "$WORK/identical.png" --size 1200 900 \
    --colour '#ffd1a3' 300 --colour '#1a7f37' 100
# An empty document: its class by its name, a note in place of an empty box.
python3 test/review/check_dom.py "$WORK/empty.dom" --members 0 --doc-class 'no words' \
    --text 'no words: this document is empty or has no letters or digits'
python3 test/review/check_png.py "$WORK/empty.png" --size 1200 900 --colour '#e4e8ee' 100
# The 10 MB pair: the page within its 2 MB cap (max_text_bytes' default),
# saying what it left out, every difference still listed and linked.
python3 test/review/check_dom.py "$WORK/big.dom" --members 1 --labels --differences --cut-note \
    --page "$WORK/big.html" --max-bytes 2097152 \
    --unmarked right 2 'this line was changed in the revision'
python3 test/review/check_png.py "$WORK/big.png" --size 1200 900 \
    --colour '#bf8700' 100 --colour '#ffd1a3' 100

pages=$(ls "$WORK/production"/group-*.html | wc -l)
chromium_run --dump-dom "file://$WORK/production/index.html" >"$WORK/index.dom" || die "chromium could not render index.html"
chromium_run --screenshot="$WORK/index.png" --window-size=1200,900 "file://$WORK/production/index.html" >/dev/null
python3 test/review/check_dom.py "$WORK/index.dom" --index "$WORK/production"
python3 test/review/check_png.py "$WORK/index.png" --size 1200 900 --colour '#0000ee' 200
say "index.html: $(stat -c %s "$WORK/production/index.html") bytes, links to $pages group pages"
# One group page of the production, as the index links to it.
first="$(grep -m1 -o 'href="group-[0-9]*\.html"' "$WORK/production/index.html" | sed 's/href="\(.*\)"/\1/')"
chromium_run --dump-dom "file://$WORK/production/$first" >"$WORK/first.dom"
python3 test/review/check_dom.py "$WORK/first.dom" --labels --differences

if [[ -n "${MINHASH_REVIEW_SCREENSHOT:-}" ]]; then
    chromium_run --screenshot="$MINHASH_REVIEW_SCREENSHOT" --window-size=1200,1300 \
        "file://$WORK/spam-screenshot.html" >/dev/null
    say "screenshot: $MINHASH_REVIEW_SCREENSHOT"
fi
say "ok"
