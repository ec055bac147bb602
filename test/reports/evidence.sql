-- Before/after evidence for issue 15 item 3: run in a scratch database with
-- psql -X (default aligned mode); writes /tmp/ev_*.txt.

CREATE EXTENSION IF NOT EXISTS minhash;
DROP TABLE IF EXISTS ev_docs, ev_groups;
CREATE TABLE ev_docs (id bigint PRIMARY KEY, body text, sig minhash);
-- 200 singletons, 2 families of 5 near-copies, 1 family of 7.
INSERT INTO ev_docs (id, body)
SELECT i, 'singleton document number ' || i || ' with words ' || md5(i::text) || ' ' || md5((i * 7)::text)
  FROM generate_series(1, 200) i;
INSERT INTO ev_docs (id, body)
SELECT 1000 + f * 10 + m, (SELECT string_agg(md5(f || '/' || w), ' ') FROM generate_series(1, 30) w) || ' variant ' || m
  FROM generate_series(1, 3) f, generate_series(1, CASE WHEN f = 3 THEN 7 ELSE 5 END) m;
UPDATE ev_docs SET sig = minhash(body);
CREATE TABLE ev_groups AS SELECT * FROM near_dupe_groups('ev_docs', 'id', 'sig', 0.5);
\d ev_groups
\o /tmp/ev_summary.txt
SELECT * FROM near_dupe_totals('ev_groups');
\o /tmp/ev_histogram.txt
SELECT * FROM near_dupe_histogram('ev_groups');
\o /tmp/ev_stats.txt
SELECT * FROM near_dupe_group_stats('ev_groups');
\o /tmp/ev_detail.txt
SELECT * FROM near_dupe_review('ev_groups', 'ev_docs', 'id', 'body', 1);
\o
\! for f in summary histogram stats detail; do printf '%-10s widest line %s\n' $f "$(awk '{ if (length($0) > m) m = length($0) } END { print m }' /tmp/ev_$f.txt)"; done
\! cat /tmp/ev_summary.txt /tmp/ev_histogram.txt /tmp/ev_stats.txt
\! head -4 /tmp/ev_detail.txt | cut -c1-150
SELECT d.id FROM ev_docs d JOIN near_dupe_groups('ev_docs', 'id', 'sig', 0.5) g ON d.id = g.key LIMIT 1;
SELECT d.id FROM ev_docs d JOIN near_dupe_pairs('ev_docs', 'id', 'sig', 0.5) p ON d.id = p.key_a LIMIT 1;
-- Typed keys (1.1 after this change):
SELECT count(*) AS joined FROM ev_docs d JOIN near_dupe_groups('ev_docs', 'id', 'sig', 0.5, NULL::bigint) g ON d.id = g.key;
SELECT count(*) AS joined FROM ev_docs d JOIN near_dupe_pairs('ev_docs', 'id', 'sig', 0.5, NULL::bigint) p ON d.id = p.key_a;
CREATE TABLE ev_bad (id int, x int);
SELECT * FROM near_dupe_totals('ev_bad');
SELECT * FROM near_dupe_group_stats('ev_bad');
DROP TABLE ev_bad;
