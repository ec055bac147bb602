-- Reports readable in a terminal, keys joinable in SQL (issue 15, item 3).
-- A table keyed by bigint: 200 singletons, two families of 5 near-copies
-- and one of 7.
CREATE TABLE reports_docs (id bigint PRIMARY KEY, body text, sig minhash);
INSERT INTO reports_docs (id, body)
SELECT 9000000000 + i, 'singleton document number ' || i || ' with words ' || md5(i::text) || ' ' || md5((i * 7)::text)
  FROM generate_series(1, 200) i;
INSERT INTO reports_docs (id, body)
SELECT 9000001000 + f * 10 + m,
	   (SELECT string_agg(md5(f || '/' || w), ' ') FROM generate_series(1, 30) w) || ' variant ' || m
  FROM generate_series(1, 3) f, generate_series(1, CASE WHEN f = 3 THEN 7 ELSE 5 END) m;
UPDATE reports_docs SET sig = minhash(body);

-- Typed keys: the key columns take the type of the key_type argument, so
-- the result joins the source without a cast.
CREATE TABLE reports_groups AS SELECT * FROM near_dupe_groups('reports_docs', 'id', 'sig', 0.5, NULL::bigint);
SELECT attname, atttypid::regtype FROM pg_attribute
 WHERE attrelid = 'reports_groups'::regclass AND attnum > 0 ORDER BY attnum;
SELECT count(*) AS joined, count(DISTINCT g.group_id) AS groups
  FROM reports_docs d JOIN near_dupe_groups('reports_docs', 'id', 'sig', 0.5, NULL::bigint) g ON d.id = g.key
  JOIN reports_docs p ON p.id = g.pivot;
SELECT count(*) AS joined
  FROM reports_docs d JOIN near_dupe_pairs('reports_docs', 'id', 'sig', 0.5, NULL::bigint) p ON d.id = p.key_a
  JOIN reports_docs b ON b.id = p.key_b;
SELECT pg_typeof(key_a) FROM near_dupe_pairs('reports_docs', 'id', 'sig', 0.5, NULL::bigint) LIMIT 1;
-- The same rows as the text keys give, in the same order.
SELECT count(*) AS differing_group_rows FROM (
	(SELECT group_id, key::text, pivot::text, resemblance, row_number() OVER () FROM near_dupe_groups('reports_docs', 'id', 'sig', 0.5, NULL::bigint))
	EXCEPT ALL
	(SELECT group_id, key, pivot, resemblance, row_number() OVER () FROM near_dupe_groups('reports_docs', 'id', 'sig', 0.5))) x;
SELECT count(*) AS differing_pair_rows FROM (
	(SELECT key_a::text, key_b::text, resemblance, row_number() OVER () FROM near_dupe_pairs('reports_docs', 'id', 'sig', 0.5, NULL::bigint))
	EXCEPT ALL
	(SELECT key_a, key_b, resemblance, row_number() OVER () FROM near_dupe_pairs('reports_docs', 'id', 'sig', 0.5))) x;
-- Rows without a signature come through in the key's type.
CREATE TABLE reports_nulls (k date, sig minhash);
INSERT INTO reports_nulls VALUES ('2024-01-02', minhash('a b c d e f g h i j'::text)), ('2024-01-03', minhash('a b c d e f g h i k'::text)),
								 ('2024-01-01', NULL);
SELECT * FROM near_dupe_groups('reports_nulls', 'k', 'sig', 0.5, NULL::date);
SELECT * FROM near_dupe_pairs('reports_nulls', 'k', 'sig', 0.5, NULL::date);
-- The setting's threshold: threshold null.
SELECT count(*) FROM near_dupe_groups('reports_nulls', 'k', 'sig', NULL, NULL::date);
-- key_type must be the key column's type.
SELECT * FROM near_dupe_groups('reports_docs', 'id', 'sig', 0.5, NULL::integer);
SELECT * FROM near_dupe_pairs('reports_docs', 'id', 'sig', 0.5, NULL::integer);
SELECT * FROM near_dupe_groups('reports_docs', 'id', 'sig', 0.5, NULL);
-- key_type text: the keys as text, whatever the column's type (the way to
-- text keys with a recall); the same rows as the text version.
SELECT count(*) AS pairs, min(pg_typeof(key_a)::text) AS key_type,
       count(*) FILTER (WHERE (key_a, key_b, resemblance) NOT IN (SELECT * FROM near_dupe_pairs('reports_docs', 'id', 'sig', 0.5))) AS differing
  FROM near_dupe_pairs('reports_docs', 'id', 'sig', 0.5, NULL::text);
-- The arguments are checked first, as for text keys.
SELECT * FROM near_dupe_groups('reports_docs', 'no_such_key', 'sig', 0.5, NULL::bigint);
SELECT * FROM near_dupe_pairs('reports_docs', 'no_such_key', 'sig', 0.5, NULL::bigint);
-- A key column of a domain: the domain or its base type.
CREATE DOMAIN reports_code AS text CHECK (VALUE <> '');
CREATE TABLE reports_coded (code reports_code, sig minhash);
INSERT INTO reports_coded SELECT coalesce(k::text, 'none'), sig FROM reports_nulls;
SELECT group_id, key, pg_typeof(key) FROM near_dupe_groups('reports_coded', 'code', 'sig', 0.5, NULL::reports_code);
SELECT group_id, key, pg_typeof(key) FROM near_dupe_groups('reports_coded', 'code', 'sig', 0.5, NULL::text);
SELECT key_a, key_b, pg_typeof(key_a) FROM near_dupe_pairs('reports_coded', 'code', 'sig', 0.5, NULL::reports_code);
SELECT key_a, key_b, pg_typeof(key_a) FROM near_dupe_pairs('reports_coded', 'code', 'sig', 0.5, NULL::text);
SELECT * FROM near_dupe_groups('reports_coded', 'code', 'sig', 0.5, NULL::varchar);
DROP TABLE reports_coded, reports_nulls;
DROP DOMAIN reports_code;

-- Summary, histogram and stats fit 120 columns in psql's default aligned
-- mode: each is written to a file and its longest line measured.
CREATE TABLE reports_text_groups AS SELECT * FROM near_dupe_groups('reports_docs', 'id', 'sig', 0.5);
\o results/reports_width.txt
SELECT * FROM near_dupe_summary('reports_text_groups');
SELECT * FROM near_dupe_histogram('reports_text_groups');
SELECT * FROM near_dupe_group_stats('reports_text_groups');
SELECT * FROM near_dupe_summary('reports_groups');
SELECT * FROM near_dupe_histogram('reports_groups');
SELECT * FROM near_dupe_group_stats('reports_groups');
\o
\! awk '{ if (length($0) > widest) widest = length($0) } END { print (NR > 20 && widest <= 120) ? "summary, histogram and stats fit in 120 columns" : "too wide: " widest " columns" }' results/reports_width.txt

-- The summary: no column repeats another.
SELECT * FROM near_dupe_summary('reports_text_groups');
-- Bars on a log scale: sizes 5 (2 groups) and 7 (1 group) differ, and
-- each differs from the singletons.
SELECT * FROM near_dupe_histogram('reports_text_groups');
SELECT count(DISTINCT bar) = count(*) AS bars_differ FROM near_dupe_histogram('reports_text_groups');
-- Resemblances rounded to 3 decimals.
SELECT * FROM near_dupe_group_stats('reports_text_groups');
-- The reports read typed and text group tables alike.
SELECT count(*) AS differing_summary FROM (
	(SELECT * FROM near_dupe_summary('reports_groups')) EXCEPT ALL (SELECT * FROM near_dupe_summary('reports_text_groups'))) x;
SELECT count(*) AS differing_histogram FROM (
	(SELECT * FROM near_dupe_histogram('reports_groups')) EXCEPT ALL (SELECT * FROM near_dupe_histogram('reports_text_groups'))) x;
SELECT count(*) AS differing_stats FROM (
	(SELECT * FROM near_dupe_group_stats('reports_groups')) EXCEPT ALL (SELECT * FROM near_dupe_group_stats('reports_text_groups'))) x;
SELECT key, role, resemblance, common_words, s_l FROM near_dupe_group_detail('reports_text_groups', 'reports_docs', 'id', 'body', 1);
SELECT count(*) AS differing_detail FROM (
	(SELECT * FROM near_dupe_group_detail('reports_groups', 'reports_docs', 'id', 'body', 1))
	EXCEPT ALL (SELECT * FROM near_dupe_group_detail('reports_text_groups', 'reports_docs', 'id', 'body', 1))) x;
SELECT bool_and(resemblance = round(resemblance::numeric, 3) AND (s_l IS NULL OR s_l = round(s_l::numeric, 3))) AS rounded
  FROM near_dupe_group_detail('reports_text_groups', 'reports_docs', 'id', 'body', 3);

-- Group tables the reports cannot read: a clear error each, with a hint.
CREATE TABLE reports_no_group_id (id int, x int);
CREATE TABLE reports_text_group_id (group_id text, key text, pivot text, resemblance float8);
CREATE TABLE reports_no_pivot (group_id bigint, key text, resemblance float8);
CREATE TABLE reports_mixed_keys (group_id int, key bigint, pivot text, resemblance float8);
CREATE TABLE reports_text_resemblance (group_id bigint, key text, pivot text, resemblance text);
CREATE SEQUENCE reports_sequence;
SELECT * FROM near_dupe_summary('reports_no_group_id');
SELECT * FROM near_dupe_histogram('reports_text_group_id');
SELECT * FROM near_dupe_group_stats('reports_no_pivot');
SELECT * FROM near_dupe_group_stats('reports_mixed_keys');
SELECT * FROM near_dupe_group_detail('reports_text_resemblance', 'reports_docs', 'id', 'body', 1);
SELECT * FROM near_dupe_summary('reports_sequence');
-- The summary and histogram need group_id only; a view serves.
CREATE VIEW reports_view AS SELECT group_id::integer AS group_id FROM reports_groups;
SELECT documents, groups FROM near_dupe_summary('reports_view');
SELECT group_size, groups FROM near_dupe_histogram('reports_view');
DROP VIEW reports_view;
DROP SEQUENCE reports_sequence;
DROP TABLE reports_no_group_id, reports_text_group_id, reports_no_pivot, reports_mixed_keys, reports_text_resemblance;
DROP TABLE reports_docs, reports_groups, reports_text_groups;
