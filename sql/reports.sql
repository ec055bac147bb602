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
-- The setting's threshold: minhash_threshold().  A null threshold is
-- refused, here and in every form.
SELECT count(*) FROM near_dupe_groups('reports_nulls', 'k', 'sig', minhash_threshold(), NULL::date);
SELECT count(*) FROM near_dupe_groups('reports_nulls', 'k', 'sig', NULL, NULL::date);
SELECT count(*) FROM near_dupe_pairs('reports_nulls', 'k', 'sig', NULL, NULL::date, recall => 0.9);
-- The key type in the threshold's place: the four-argument form takes it
-- as a null threshold (bigint converts to double precision), and says so.
SELECT * FROM near_dupe_groups('reports_docs', 'id', 'sig', NULL::bigint);
SELECT * FROM near_dupe_pairs('reports_docs', 'id', 'sig', NULL::bigint);
SELECT near_dupe_query('reports_docs', 'id', 'sig', NULL);
-- Left out, the threshold is the setting, exactly as % reads it; SHOW and
-- current_setting() round it to six digits.
SET minhash.threshold = 0.123456789;
SELECT current_setting('minhash.threshold'), minhash_threshold() = 0.123456789 AS exact;
RESET minhash.threshold;
SET minhash.threshold = 0.5;
SELECT (SELECT count(*) FROM near_dupe_pairs('reports_docs', 'id', 'sig')) AS pairs_at_setting,
	   (SELECT count(*) FROM reports_docs a JOIN reports_docs b ON a.id < b.id AND a.sig % b.sig) AS self_join,
	   (SELECT count(*) FROM near_dupe_groups('reports_docs', 'id', 'sig') WHERE key <> pivot) AS members_at_setting,
	   (SELECT count(*) FROM near_dupe_groups('reports_docs', 'id', 'sig', 0.5) WHERE key <> pivot) AS members_at_half;
RESET minhash.threshold;
-- Every numeric key type given after the threshold resolves to the typed
-- form (here: a key_type that does not match the bigint column).  That is
-- why there is no form taking recall without key_type: a (..., threshold
-- float8, recall float8) overload would take these calls, float8 being the
-- preferred numeric type.  recall without a key type does not exist.
\set VERBOSITY terse
SELECT * FROM near_dupe_groups('reports_docs', 'id', 'sig', 0.5, NULL::smallint);
SELECT * FROM near_dupe_groups('reports_docs', 'id', 'sig', 0.5, NULL::numeric);
SELECT * FROM near_dupe_groups('reports_docs', 'id', 'sig', 0.5, NULL::real);
SELECT * FROM near_dupe_pairs('reports_docs', 'id', 'sig', 0.5, NULL::double precision);
SELECT * FROM near_dupe_groups('reports_docs', 'id', 'sig', 0.5, recall => 0.99);
\set VERBOSITY default
SELECT count(*) FROM near_dupe_groups('reports_docs', 'id', 'sig', 0.5, NULL::text, recall => 0.99);
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
SELECT * FROM near_dupe_totals('reports_text_groups');
SELECT * FROM near_dupe_histogram('reports_text_groups');
SELECT * FROM near_dupe_group_stats('reports_text_groups');
SELECT * FROM near_dupe_totals('reports_groups');
SELECT * FROM near_dupe_histogram('reports_groups');
SELECT * FROM near_dupe_group_stats('reports_groups');
\o
\! awk '{ if (length($0) > widest) widest = length($0) } END { print (NR > 20 && widest <= 120) ? "summary, histogram and stats fit in 120 columns" : "too wide: " widest " columns" }' results/reports_width.txt

-- The summary: no column repeats another.
SELECT * FROM near_dupe_totals('reports_text_groups');
-- Bars on a log scale: sizes 5 (2 groups) and 7 (1 group) differ, and
-- each differs from the singletons.
SELECT * FROM near_dupe_histogram('reports_text_groups');
SELECT count(DISTINCT bar) = count(*) AS bars_differ FROM near_dupe_histogram('reports_text_groups');
-- Resemblances rounded to 3 decimals.
SELECT * FROM near_dupe_group_stats('reports_text_groups');
-- The reports read typed and text group tables alike.
SELECT count(*) AS differing_summary FROM (
	(SELECT * FROM near_dupe_totals('reports_groups')) EXCEPT ALL (SELECT * FROM near_dupe_totals('reports_text_groups'))) x;
SELECT count(*) AS differing_histogram FROM (
	(SELECT * FROM near_dupe_histogram('reports_groups')) EXCEPT ALL (SELECT * FROM near_dupe_histogram('reports_text_groups'))) x;
SELECT count(*) AS differing_stats FROM (
	(SELECT * FROM near_dupe_group_stats('reports_groups')) EXCEPT ALL (SELECT * FROM near_dupe_group_stats('reports_text_groups'))) x;
SELECT key, role, resemblance, common_words, s_l FROM near_dupe_review('reports_text_groups', 'reports_docs', 'id', 'body', 1);
SELECT count(*) AS differing_detail FROM (
	(SELECT * FROM near_dupe_review('reports_groups', 'reports_docs', 'id', 'body', 1))
	EXCEPT ALL (SELECT * FROM near_dupe_review('reports_text_groups', 'reports_docs', 'id', 'body', 1))) x;
SELECT bool_and(resemblance = round(resemblance::numeric, 3) AND (s_l IS NULL OR s_l = round(s_l::numeric, 3))) AS rounded
  FROM near_dupe_review('reports_text_groups', 'reports_docs', 'id', 'body', 3);

-- near_dupe_summary and near_dupe_group_detail keep their columns (a view
-- of the user's depends on them), each value what near_dupe_totals and
-- near_dupe_review return, the rows in the same order.
SELECT * FROM near_dupe_summary('reports_text_groups');
SELECT (SELECT ROW(t.documents, t.groups, t.singletons, t.documents_in_groups, t.documents, t.groups, t.review_saved_pct)::text
		  FROM near_dupe_totals('reports_groups') t)
	   = (SELECT s::text FROM near_dupe_summary('reports_groups') s) AS summary_is_totals;
SELECT key, role, resemblance, common_words, s_l FROM near_dupe_group_detail('reports_text_groups', 'reports_docs', 'id', 'body', 1);
SELECT count(*) AS detail_rows,
	   (SELECT array_agg(ROW(r.key, r.role, r.resemblance, r.common_words, r.s_l, r.marked)::text ORDER BY r.n)
		  FROM near_dupe_review('reports_text_groups', 'reports_docs', 'id', 'body', 3, 3, 'html')
			   WITH ORDINALITY r(key, role, resemblance, common_words, s_l, marked, pivot_marked, n))
	   = array_agg(ROW(d.key, d.role, d.resemblance, d.common_words, d.s_l, d.marked)::text ORDER BY d.n) AS detail_is_review
  FROM near_dupe_group_detail('reports_text_groups', 'reports_docs', 'id', 'body', 3, 3, 'html')
	   WITH ORDINALITY d(key, role, resemblance, common_words, s_l, marked, n);
SELECT count(*) AS summary_of_null FROM near_dupe_summary(NULL);
SELECT count(*) AS detail_of_null FROM near_dupe_group_detail('reports_text_groups', 'reports_docs', 'id', 'body', NULL);
\set VERBOSITY terse
SELECT * FROM near_dupe_summary('reports_docs');
SELECT * FROM near_dupe_group_detail('reports_text_groups', 'reports_docs', 'id', 'body', 999);
\set VERBOSITY default

-- Group tables the reports cannot read: a clear error each, with a hint.
CREATE TABLE reports_no_group_id (id int, x int);
CREATE TABLE reports_text_group_id (group_id text, key text, pivot text, resemblance float8);
CREATE TABLE reports_no_pivot (group_id bigint, key text, resemblance float8);
CREATE TABLE reports_mixed_keys (group_id int, key bigint, pivot text, resemblance float8);
CREATE TABLE reports_text_resemblance (group_id bigint, key text, pivot text, resemblance text);
CREATE SEQUENCE reports_sequence;
SELECT * FROM near_dupe_totals('reports_no_group_id');
SELECT * FROM near_dupe_histogram('reports_text_group_id');
-- (Without the context lines: PostgreSQL 13 prints one fewer for the
-- 1.0 form's RETURN QUERY.)
\set SHOW_CONTEXT never
SELECT * FROM near_dupe_group_stats('reports_no_pivot');
SELECT * FROM near_dupe_group_stats('reports_mixed_keys');
\set SHOW_CONTEXT errors
SELECT * FROM near_dupe_review('reports_text_resemblance', 'reports_docs', 'id', 'body', 1);
SELECT * FROM near_dupe_totals('reports_sequence');
-- The summary and histogram need group_id only; a view serves.
CREATE VIEW reports_view AS SELECT group_id::integer AS group_id FROM reports_groups;
SELECT documents, groups FROM near_dupe_totals('reports_view');
SELECT group_size, groups FROM near_dupe_histogram('reports_view');
DROP VIEW reports_view;
DROP SEQUENCE reports_sequence;
DROP TABLE reports_no_group_id, reports_text_group_id, reports_no_pivot, reports_mixed_keys, reports_text_resemblance;
DROP TABLE reports_docs, reports_groups, reports_text_groups;

-- Reports on unusual keys.  Three documents whose numeric keys are equal
-- but written differently (1.0, 1.00, 1.000) form one group of three: the
-- pivot's row is the one row whose key is the pivot's as written, every
-- other row is a member, and each document is the one whose key is written
-- as the group table holds it.
CREATE TABLE reports_equal_keys (k numeric, body text, sig minhash);
INSERT INTO reports_equal_keys (k, body)
SELECT ('1.' || repeat('0', i))::numeric,
	   'the same long memo about the budget review of the third quarter with the figures attached variant ' || i
  FROM generate_series(1, 3) i;
INSERT INTO reports_equal_keys (k, body) VALUES (2, 'something else entirely, about the weather in spring');
UPDATE reports_equal_keys SET sig = minhash(body);
CREATE TABLE reports_equal_groups AS SELECT * FROM near_dupe_groups('reports_equal_keys', 'k', 'sig', 0.5, NULL::numeric);
CREATE TABLE reports_equal_text_groups AS SELECT * FROM near_dupe_groups('reports_equal_keys', 'k', 'sig', 0.5);
SELECT * FROM reports_equal_groups;
SELECT key, role, resemblance, right(marked, 1) AS variant
  FROM near_dupe_group_detail('reports_equal_groups', 'reports_equal_keys', 'k', 'body', 1);
SELECT count(*) AS differing_detail FROM (
	(SELECT * FROM near_dupe_group_detail('reports_equal_groups', 'reports_equal_keys', 'k', 'body', 1))
	EXCEPT ALL (SELECT * FROM near_dupe_group_detail('reports_equal_text_groups', 'reports_equal_keys', 'k', 'body', 1))) x;
-- The averages leave out the pivot's own row only.
SELECT * FROM near_dupe_group_stats('reports_equal_groups');
SELECT round(avg(resemblance)::numeric, 3) AS members_avg FROM reports_equal_groups WHERE group_id = 1 AND key::text <> pivot::text;
-- Null keys: a pivot whose key is null, a member whose key is null.  A null
-- key names the one row of the source whose key is null.
CREATE TABLE reports_null_pivot (k integer, body text, sig minhash);
INSERT INTO reports_null_pivot (k, body) VALUES
	(NULL, 'the pivot has no key and the most words of all the memos in this table'),
	(7, 'the pivot has no key and the most words of all the memos in this');
CREATE TABLE reports_null_member (k integer, body text, sig minhash);
INSERT INTO reports_null_member (k, body) VALUES
	(8, 'a member without a key, and a pivot with one and more words than it'),
	(NULL, 'a member without a key, and a pivot with one and more words than');
UPDATE reports_null_pivot SET sig = minhash(body);
UPDATE reports_null_member SET sig = minhash(body);
-- (near_dupe_groups refuses a null key: each grouping is made with 0 in
-- its place, then 0 is made null again, as 1.0 stored them.)
CREATE TABLE reports_null_keyed AS SELECT coalesce(k, 0) AS k, sig FROM reports_null_pivot;
CREATE TABLE reports_null_pivot_groups AS
SELECT group_id, nullif(key, 0) AS key, nullif(pivot, 0) AS pivot, resemblance
  FROM near_dupe_groups('reports_null_keyed', 'k', 'sig', 0.5, NULL::integer);
TRUNCATE reports_null_keyed;
INSERT INTO reports_null_keyed SELECT coalesce(k, 0), sig FROM reports_null_member;
CREATE TABLE reports_null_member_groups AS
SELECT group_id, nullif(key, '0') AS key, nullif(pivot, '0') AS pivot, resemblance
  FROM near_dupe_groups('reports_null_keyed', 'k', 'sig', 0.5);
DROP TABLE reports_null_keyed;
SELECT * FROM reports_null_pivot_groups;
SELECT key, role, resemblance, left(marked, 20) AS text
  FROM near_dupe_group_detail('reports_null_pivot_groups', 'reports_null_pivot', 'k', 'body', 1);
SELECT key, role, resemblance, left(marked, 20) AS text
  FROM near_dupe_group_detail('reports_null_member_groups', 'reports_null_member', 'k', 'body', 1);
-- A key that names more than one row, or none: an error each.
INSERT INTO reports_null_member (k, body) VALUES (NULL, 'another row without a key');
SELECT * FROM near_dupe_group_detail('reports_null_member_groups', 'reports_null_member', 'k', 'body', 1);
DELETE FROM reports_null_member WHERE k IS NULL;
SELECT * FROM near_dupe_group_detail('reports_null_member_groups', 'reports_null_member', 'k', 'body', 1);
-- A key column that is not unique: the member's document cannot be told,
-- and a key in several rows of the group table would be counted as many
-- times (sql/report_keys.sql tries every report).
CREATE TABLE reports_kinds (kind text, body text);
INSERT INTO reports_kinds VALUES ('memo', 'one'), ('memo', 'two'), ('memo', 'three');
CREATE TABLE reports_kind_groups (group_id bigint, key text, pivot text, resemblance float8);
INSERT INTO reports_kind_groups VALUES (1, 'memo', 'memo', 1), (1, 'memo', 'memo', 0.9), (1, 'memo', 'memo', 0.8);
SELECT * FROM near_dupe_group_detail('reports_kind_groups', 'reports_kinds', 'kind', 'body', 1);
-- (no context: PostgreSQL 13 shows one line fewer of it for RETURN QUERY)
\set SHOW_CONTEXT never
SELECT * FROM near_dupe_group_stats('reports_kind_groups');
\set SHOW_CONTEXT errors
DELETE FROM reports_kind_groups;
-- The stats leave out exactly one row per group, the pivot's own (none if
-- no row has the pivot's key).  Against that definition, written with a
-- window, on groups of every shape: the pivot's row below its members, no
-- pivot's row, null resemblances, a null pivot.
CREATE TABLE reports_shapes (group_id bigint, key text, pivot text, resemblance float8);
INSERT INTO reports_shapes VALUES
	(1, 'p1', 'p1', 1), (1, 'a1', 'p1', 0.9), (1, 'b1', 'p1', 0.7),
	(2, 'p2', 'p2', 0.6), (2, 'a2', 'p2', 0.8), (2, 'c2', 'p2', 0.9),
	(3, 'a3', 'p3', 0.9), (3, 'b3', 'p3', 0.5),
	(4, 'p4', 'p4', NULL), (4, 'a4', 'p4', 0.4),
	(5, 'p5', 'p5', 1), (5, 'a5', 'p5', NULL), (5, 'b5', 'p5', 0.75),
	(6, 'p6', 'p6', 1), (6, 'a6', 'p6', 1),
	(7, NULL, NULL, 1), (7, 'x7', NULL, 0.5), (7, 'y7', NULL, 0.6),
	(8, 'q', 'q', 1);
SELECT * FROM near_dupe_group_stats('reports_shapes') ORDER BY group_id;
SELECT count(*) AS differing_from_definition FROM (
	(SELECT * FROM near_dupe_group_stats('reports_shapes'))
	EXCEPT ALL
	(SELECT group_id, min(pivot), count(*),
			round(avg(resemblance) FILTER (WHERE NOT pivot_row)::numeric, 3)::float8,
			round(min(resemblance) FILTER (WHERE NOT pivot_row)::numeric, 3)::float8
	   FROM (SELECT g.*, g.key IS NOT DISTINCT FROM g.pivot
						 AND row_number() OVER (PARTITION BY g.group_id, g.key IS NOT DISTINCT FROM g.pivot
												ORDER BY g.resemblance DESC) = 1 AS pivot_row
			   FROM reports_shapes g) w
	  GROUP BY group_id HAVING count(*) > 1)) x;
DROP TABLE reports_shapes;
-- A group with two pivots is no group of near_dupe_groups.
INSERT INTO reports_kind_groups VALUES (2, 'a', 'a', 1), (2, 'b', 'b', 1);
SELECT * FROM near_dupe_group_detail('reports_kind_groups', 'reports_kinds', 'kind', 'body', 2);
DROP TABLE reports_kinds, reports_kind_groups;

-- Keys whose operators are not in pg_catalog: contrib isn's isbn13.  The
-- reports run with search_path pinned to pg_catalog, and find the key's
-- equality by the type's operator class.
CREATE EXTENSION isn;
CREATE TABLE reports_books (isbn isbn13 PRIMARY KEY, body text, sig minhash);
INSERT INTO reports_books (isbn, body) VALUES
	('978-0-306-40615-7', 'a book about the history of the printing press in europe, first edition'),
	('978-1-4028-9462-6', 'a book about the history of the printing press in europe, second edition'),
	('978-3-16-148410-0', 'a cookery book of soups');
UPDATE reports_books SET sig = minhash(body);
CREATE TABLE reports_book_groups AS SELECT * FROM near_dupe_groups('reports_books', 'isbn', 'sig', 0.5, NULL::isbn13);
SELECT key, role, resemblance FROM near_dupe_group_detail('reports_book_groups', 'reports_books', 'isbn', 'body', 1);
SELECT * FROM near_dupe_group_stats('reports_book_groups');
SELECT strpos(near_dupe_review_html('reports_book_groups', 'reports_books', 'isbn', 'body', 1), 'Member <span class="key">978-1-4028-9462-6</span>') > 0 AS member_shown;
SELECT count(*) AS lines FROM regexp_split_to_table(near_dupe_query('reports_books', 'isbn', 'sig', 0.5, true), E'\n');

-- near_dupe_group_stats with a key_type: the pivot in the key's type, so
-- that it joins the source without a cast; NULL::text gives text.
SELECT s.group_id, s.pivot, pg_typeof(s.pivot), b.body
  FROM near_dupe_group_stats('reports_book_groups', NULL::isbn13) s JOIN reports_books b ON b.isbn = s.pivot;
SELECT pivot, pg_typeof(pivot) FROM near_dupe_group_stats('reports_equal_groups', NULL::numeric);
SELECT count(*) AS differing_stats FROM (
	(SELECT * FROM near_dupe_group_stats('reports_book_groups', NULL::text))
	EXCEPT ALL (SELECT * FROM near_dupe_group_stats('reports_book_groups'))) x;
SELECT * FROM near_dupe_group_stats('reports_book_groups', NULL::bigint);
SELECT * FROM near_dupe_group_stats(NULL, NULL::bigint);
DROP TABLE reports_equal_keys, reports_equal_groups, reports_equal_text_groups, reports_null_pivot, reports_null_member,
	reports_null_pivot_groups, reports_null_member_groups, reports_books, reports_book_groups;
DROP EXTENSION isn;
