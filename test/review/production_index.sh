#!/usr/bin/env bash
# The production's index pages (near_dupe_review_pages) at scale: a
# realistic corpus of DOCS documents (test/bench/realistic_lib.sh) grouped
# in two waves (10/11 grouped at 0.8, half of the groups of two or more
# coded, the rest appended as wave 2), then the index pages written the way
# the README saves them, their sizes, and the time Chromium takes to open
# the largest (--dump-dom and --screenshot).  Figures only, nothing
# asserted; see README.md beside this script.
#
#   bash test/review/production_index.sh [DOCS] [GROUP_PAGES]
#     DOCS         100000 by default
#     GROUP_PAGES  true to draw every group page too (false by default)
# Needs the PG* variables of a running cluster with the extension
# installed; run it under flock /work/bench.lock or alone on the machine.
set -euo pipefail
cd "$(dirname "$0")/../.."
source test/lib/common.sh
source test/bench/realistic_lib.sh

DOCS="${1:-100000}"
GROUP_PAGES="${2:-false}"
# shellcheck source=browser_lib.sh
source test/review/browser_lib.sh
review_browser_start production_index
realistic_corpus "$DOCS"

psql -X -q -d "$RDB" -v ON_ERROR_STOP=1 -v first=$((DOCS * 10 / 11)) <<'SQL'
SET client_min_messages = warning;
SET minhash.group_memory = '8GB';
DROP TABLE IF EXISTS rb_first, rb_groups, rb_status CASCADE;
DROP VIEW IF EXISTS rb_docs;
CREATE TABLE rb_first AS SELECT id, sig FROM real_docs WHERE id <= :first;
CREATE TABLE rb_groups AS SELECT *, 1 AS wave FROM near_dupe_groups('rb_first', 'id', 'sig', 0.8);
-- half of the first wave's groups of two or more coded, with every column
CREATE TABLE rb_status (group_id bigint PRIMARY KEY, status text, note text, reviewed_by text, reviewed_at timestamptz);
INSERT INTO rb_status
SELECT group_id, (ARRAY['responsive', 'not responsive', 'privileged'])[group_id % 3 + 1],
       'checked against the pivot', 'reviewer-' || group_id % 7, timestamptz '2026-11-01 10:00+00' + group_id * interval '1 minute'
  FROM rb_groups GROUP BY group_id HAVING count(*) > 1 AND group_id % 2 = 0;
INSERT INTO rb_groups SELECT *, 2 FROM near_dupe_groups_append('rb_groups', 'real_docs', 'id', 'sig', 0.8);
-- labels as a production has them: a path per document
CREATE VIEW rb_docs AS SELECT id, body, sig, format('mail/%s/%s-%s.eml', family, role, id) AS path FROM real_docs;
-- group pages read one group at a time, by group_id
CREATE INDEX ON rb_groups (group_id);
VACUUM ANALYZE rb_groups;
VACUUM ANALYZE rb_status;
SQL
psql -X -d "$RDB" -c "SELECT count(*) AS documents, count(DISTINCT group_id) AS groups,
                             count(*) FILTER (WHERE wave = 2) AS wave_2, (SELECT count(*) FROM rb_status) AS coded
                        FROM rb_groups"

# The pages as the README saves them: one psql line per page, \g FILE.
t0=$(date +%s.%N)
psql -X -q -d "$RDB" -v ON_ERROR_STOP=1 -v work="$WORK" -v group_pages="$GROUP_PAGES" <<'SQL'
\pset format unaligned
\pset tuples_only on
\cd :work
CREATE TEMP TABLE pages AS
SELECT * FROM near_dupe_review_pages('rb_groups', 'rb_docs', 'id', 'body', label_column => 'path',
                                     status_table => 'rb_status', wave_column => 'wave',
                                     group_pages => :group_pages);
CREATE INDEX ON pages (file_name);
\o pages.psql
SELECT format('SELECT html FROM pages WHERE file_name = %L \g %s', file_name, file_name) FROM pages;
\o
\i pages.psql
SQL
t1=$(date +%s.%N)
python3 - "$WORK" "$t0" "$t1" <<'PY'
import os, sys
work, t0, t1 = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
index = [os.path.getsize(os.path.join(work, f)) for f in os.listdir(work) if f.startswith("index")]
groups = [os.path.getsize(os.path.join(work, f)) for f in os.listdir(work) if f.startswith("group-")]
print(f"pages written in {t1 - t0:.1f} s (the call and psql): {len(index)} index pages, "
      f"max {max(index)} bytes, mean {sum(index) // len(index)} bytes, total {sum(index)} bytes")
if groups:
    print(f"{len(groups)} group pages, max {max(groups)} bytes, mean {sum(groups) // len(groups)} bytes")
PY
# The call alone, timed in the server.
psql -X -d "$RDB" -c '\timing on' -c "SELECT count(*), sum(octet_length(html)) FROM near_dupe_review_pages('rb_groups', 'rb_docs', 'id', 'body', label_column => 'path', status_table => 'rb_status', wave_column => 'wave', group_pages => $GROUP_PAGES)" | grep -v '^$'

# Chromium: the largest index page, DOM then screenshot.
largest=$(ls -S "$WORK"/index*.html | sed -n 1p)
chromium_run --dump-dom about:blank >/dev/null   # a first start, not timed
for what in dump-dom screenshot; do
    t0=$(date +%s.%N)
    if [[ $what == dump-dom ]]; then
        chromium_run --dump-dom "file://$largest" >"$WORK/dom.html"
    else
        chromium_run --screenshot="$WORK/shot.png" --window-size=1200,900 "file://$largest" >/dev/null
    fi
    t1=$(date +%s.%N)
    echo "chromium --$what $(basename "$largest") ($(stat -c %s "$largest") bytes): $(python3 -c "print(f'{$t1 - $t0:.1f}')") s"
done
