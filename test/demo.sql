-- The main job, an e-discovery walkthrough on real mail: the SpamAssassin
-- corpus (6,046 messages, loaded by test/demo.sh into spam_messages) is
-- signed, indexed and grouped into near-duplicate groups; a reviewer's report
-- follows, then one group side by side with its shared text marked, and the
-- production's review pages (HTML).
\set ON_ERROR_STOP 1
\set QUIET on
\pset pager off
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS minhash;
CREATE FUNCTION pg_temp.since(t timestamptz) RETURNS text LANGUAGE sql AS $$
	SELECT to_char(extract(epoch FROM clock_timestamp() - t), 'FM990.00') || ' s'
$$;

\echo '[1/6] signatures: 128 hash values of 5-word shingles per message body'
SELECT clock_timestamp() AS t0 \gset
ALTER TABLE spam_messages ADD COLUMN sig minhash(128);
UPDATE spam_messages SET sig = minhash(body);
SELECT pg_temp.since(:'t0') AS took, count(*) AS messages,
       count(*) FILTER (WHERE minhash_size(sig) = 0) AS without_words,
       pg_size_pretty(sum(pg_column_size(sig))) AS signatures,
       pg_size_pretty(sum(octet_length(body))::bigint) AS bodies
  FROM spam_messages;

\echo '[2/6] LSH band index (gin_minhash_ops: finds every pair at or above 0.8)'
SELECT clock_timestamp() AS t0 \gset
CREATE INDEX spam_messages_sig ON spam_messages USING gin (sig);
ANALYZE spam_messages;
SELECT pg_temp.since(:'t0') AS took, pg_size_pretty(pg_relation_size('spam_messages_sig')) AS index_size,
       l.bands, l.rows, l.min_bands
  FROM lsh_index_layout(0.8) l;

\echo '[3/6] near-duplicate groups at minhash.threshold: one pivot (the most complete message) per group'
SHOW minhash.threshold;
SELECT clock_timestamp() AS t0 \gset
CREATE TEMP TABLE spam_groups AS SELECT * FROM near_dupe_groups('spam_messages', 'id', 'sig');
SELECT pg_temp.since(:'t0') AS took, count(DISTINCT group_id) AS groups, count(*) AS messages FROM spam_groups;

\echo '[4/6] the reviewer''s report'
SELECT * FROM near_dupe_totals('spam_groups');
\echo 'Group sizes:'
SELECT * FROM near_dupe_histogram('spam_groups');
\echo 'The ten largest groups (resemblance of the members to their pivot):'
SELECT s.group_id, s.pivot, m.grp AS pivot_group, s.size,
       round(s.avg_resemblance::numeric, 3) AS avg_resemblance, round(s.min_resemblance::numeric, 3) AS min_resemblance,
       left(regexp_replace(coalesce(substring(m.message FROM '(?n)^Subject: (.*)$'), ''), '\s+', ' ', 'g'), 45) AS pivot_subject
  FROM near_dupe_group_stats('spam_groups') s JOIN spam_messages m ON m.id = s.pivot::int
 ORDER BY s.size DESC, s.group_id LIMIT 10;

\echo '[5/6] how good are the estimates? exact shingle resemblance of every member to its pivot'
SELECT clock_timestamp() AS t0 \gset
CREATE TEMP TABLE spam_check AS
SELECT g.group_id, g.resemblance AS estimated, shingle_resemblance(p.body, m.body) AS exact,
       iv.lower, iv.upper
  FROM spam_groups g
  JOIN spam_messages m ON m.id = g.key::int
  JOIN spam_messages p ON p.id = g.pivot::int
 CROSS JOIN LATERAL resemblance_interval(m.sig, p.sig) iv
 WHERE g.key <> g.pivot;
SELECT pg_temp.since(:'t0') AS took, count(*) AS members, round(avg(abs(estimated - exact))::numeric, 4) AS mean_abs_error,
       round(100 * avg((exact BETWEEN lower AND upper)::int)::numeric, 1) AS pct_inside_95pct_interval,
       count(*) FILTER (WHERE exact < 0.8) AS exactly_below_threshold
  FROM spam_check;

\echo '[6/6] one group side by side: text shared with the pivot marked [N>...<N], the rest is what differs'
SELECT group_id AS shown_group FROM (
	SELECT g.group_id, max(octet_length(p.body)) AS pivot_length
	  FROM spam_groups g JOIN spam_messages p ON p.id = g.pivot::int
	 GROUP BY g.group_id
	HAVING count(*) >= 3 AND min(g.resemblance) < 1
	 ORDER BY pivot_length, g.group_id LIMIT 1) x \gset
\x on
SELECT d.key AS message, m.file, d.role, round(d.resemblance::numeric, 3) AS resemblance,
       d.common_words, round(d.s_l::numeric, 3) AS s_l, d.marked, d.pivot_marked
  FROM near_dupe_review('spam_groups', 'spam_messages', 'id', 'body', :shown_group) d
  JOIN spam_messages m ON m.id = d.key::int;
\x off

-- The same for a reviewer: the whole production as pages, an index of
-- every group (largest first, messages named by their file) and a page per
-- group, each member beside its pivot with shared chunks in the same colour
-- on both sides, written as the README says.  test/demo.sh sets review_dir
-- (default: the current directory).
\if :{?review_dir}
\else
\set review_dir .
\endif
\set t0 `date -u +%FT%T.%N+00`
CREATE INDEX ON spam_groups (group_id);
CREATE TEMP TABLE pages AS
SELECT * FROM near_dupe_review_pages('spam_groups', 'spam_messages', 'id', 'body', label_column => 'file');
CREATE INDEX ON pages (file_name);
\pset format unaligned
\pset tuples_only on
\o :review_dir/pages.psql
SELECT format('SELECT html FROM pages WHERE file_name = %L \g %s/%s', file_name, :'review_dir', file_name) FROM pages;
\o
\i :review_dir/pages.psql
\pset format aligned
\pset tuples_only off
SELECT count(*) AS pages, pg_size_pretty(sum(octet_length(html))) AS bytes, pg_temp.since(:'t0') AS took FROM pages;
SELECT g.group_id AS review_group FROM spam_groups g JOIN spam_messages m ON m.id = g.key::int
 WHERE m.file LIKE 'spam-1/00062.%' \gset
\echo 'The review pages: open' :review_dir'/index.html in a browser; the group holding message spam-1/00062 is' :review_dir'/group-':review_group'.html'
