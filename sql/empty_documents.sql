-- Documents without words: empty, whitespace, punctuation, emoji.  Their
-- signature is the empty one (size 0, every value ffffffff), which
-- resembles nothing, itself included: no pair, no flag, no group by
-- resemblance, through every path (operators, index, trigger, pairs,
-- groups, the SQL statement of the grouping, reports).  A 1.0 empty
-- signature, read from its text and its binary form, is recognized by the
-- same rule.  minhash_document_class tells them, and documents of numbers
-- only, from the text.

CREATE TABLE ed (id int PRIMARY KEY, body text, sig minhash(64));
INSERT INTO ed (id, body) VALUES
	(1, ''), (2, E' \t\n  '), (3, '...!?;--'), (4, '😀🎉👍'),
	(5, 'the quick brown fox jumps over the lazy dog'),
	(6, 'the quick brown fox jumps over the lazy dog'),
	(7, 'the quick brown fox jumps over the lazy dog again'),
	(8, '555-1234 555-1234, 42'), (9, '555-1234 555-1234, 42'), (10, NULL), (11, ''), (12, '');
UPDATE ed SET sig = minhash(body, 64) WHERE id <= 10;
-- 11: a 1.0 empty signature from its text form; 12: from its binary form
-- (COPY BINARY), as 1.0 wrote them.
UPDATE ed SET sig = ('v1:words:k=5:seed=0:size=0:n=64:' || repeat('ffffffff', 64))::minhash WHERE id = 11;
\set ed_file /tmp/minhash_regress_ :PORT _empty.bin
CREATE TEMP TABLE ed_payload (payload bytea);
INSERT INTO ed_payload VALUES (decode('0100000000050000' || '00000000' || '00000040' || repeat('00', 8) || repeat('ff', 256), 'hex'));
COPY ed_payload TO :'ed_file' (FORMAT binary);
CREATE TEMP TABLE ed_received (sig minhash);
COPY ed_received FROM :'ed_file' (FORMAT binary);
UPDATE ed SET sig = (SELECT sig FROM ed_received) WHERE id = 12;
SELECT id, minhash_size(sig) AS size, minhash_document_class(body) AS class,
       sig = minhash(''::text, 64) AS equals_empty
  FROM ed ORDER BY id;

-- The class by the words minhash() sees: 'no words' exactly when the
-- signature is empty; digits of any script are numbers.
-- (The text is shown with its code points escaped: psql's width of an emoji
-- differs between versions.)
SELECT CASE WHEN d ~ '^[ -~]*$' THEN d ELSE (SELECT string_agg(CASE WHEN c ~ '[ -~]' THEN c ELSE format('U+%s', upper(to_hex(ascii(c)))) END, '' ORDER BY o)
                                             FROM regexp_split_to_table(d, '') WITH ORDINALITY t(c, o)) END AS d,
       minhash_document_class(d) AS class, minhash_size(minhash(d)) AS size
  FROM unnest(ARRAY['', '   ', '--- * ---', '😀', '½ ²', '12', '12.50 $', '٣٤٥ ١٢', 'x1', '1st', 'a']) d;
SELECT count(*) AS disagreements
  FROM (SELECT chr(c) || ' ' || chr(c + 1) AS d FROM generate_series(32, 3000) c) t
 WHERE (minhash_document_class(d) = 'no words') <> (minhash_size(minhash(d)) = 0);

-- Between documents without words, and each with itself: resemblance 0,
-- and no operator says they resemble, at any threshold, 0 included.
-- Equality stays byte equality.
SET minhash.threshold = 0;
SELECT count(*) AS comparisons,
       max(resemblance(a.sig, b.sig)) AS max_resemblance,
       max(a.sig <%> b.sig) AS max_distance_is_1,
       bool_or(a.sig % b.sig) AS any_similar,
       bool_or(a.sig %> minhash_query(b.sig, 0)) AS any_query_match,
       bool_or(a.sig %~ minhash_query(b.sig, 0)) AS any_approx_match,
       bool_or(resembles(a.sig, b.sig, 0)) AS any_resembles,
       bool_or(resembles_approx(a.sig, b.sig, 0)) AS any_resembles_approx,
       max(containment(a.sig, b.sig)) AS max_containment,
       bool_and(a.sig = b.sig) AS all_equal
  FROM ed a, ed b WHERE minhash_size(a.sig) = 0 AND minhash_size(b.sig) = 0;
-- An empty signature and one with words, either way round.
SELECT bool_or(a.sig % b.sig OR b.sig % a.sig) AS any_similar,
       max(resemblance(a.sig, b.sig)) AS max_resemblance,
       max(containment(a.sig, b.sig)) AS empty_in_words, max(containment(b.sig, a.sig)) AS words_in_empty
  FROM ed a, ed b WHERE minhash_size(a.sig) = 0 AND minhash_size(b.sig) > 0;
RESET minhash.threshold;
SELECT * FROM resemblance_interval(minhash(''::text), minhash('...'::text));
-- The exact measures of a match agree with the estimate for two texts
-- without words (nothing in common, 0), and stay 1 for one word each.
SELECT shingle_resemblance('', '') AS both_empty, shingle_resemblance('...', '😀') AS no_words,
       shingle_resemblance('word', 'word') AS one_word_each;
SELECT * FROM chunk_similarity('', '...');
SELECT * FROM chunk_similarity('', '...', 5, 'information');

-- Through the indexes: an empty query matches nothing, and a column of
-- empty signatures gives through an index scan the rows a sequential scan
-- gives, for every query of the table, at 0.8 and at 0 (where the exact
-- index reads every item).
CREATE FUNCTION pg_temp.ed_scan(index_scan boolean) RETURNS TABLE (q int, t float8, form text, ids int[])
LANGUAGE plpgsql AS $$
BEGIN
	PERFORM set_config('enable_seqscan', (NOT index_scan)::text, true);
	-- a GIN index is read by bitmap scans only; a plain index scan would be
	-- of the primary key, which PostgreSQL 18 prefers here to the GIN index
	PERFORM set_config('enable_indexscan', 'off', true);
	PERFORM set_config('enable_bitmapscan', index_scan::text, true);
	-- EXECUTE: planned now, under these settings, never a cached plan
	RETURN QUERY EXECUTE $q$
	SELECT x.id, th, '%>', (SELECT array_agg(e.id ORDER BY e.id) FROM ed e WHERE e.sig %> minhash_query(x.sig, th))
	  FROM ed x, unnest(ARRAY[0.8, 0]::float8[]) th WHERE x.sig IS NOT NULL
	UNION ALL
	SELECT x.id, th, '%~', (SELECT array_agg(e.id ORDER BY e.id) FROM ed e WHERE e.sig %~ minhash_query(x.sig, th))
	  FROM ed x, unnest(ARRAY[0.8, 0]::float8[]) th WHERE x.sig IS NOT NULL
	UNION ALL
	SELECT x.id, 0.8, '%', (SELECT array_agg(e.id ORDER BY e.id) FROM ed e WHERE e.sig % x.sig)
	  FROM ed x WHERE x.sig IS NOT NULL$q$;
END $$;
-- The table rewritten: a HOT chain left by the UPDATEs above whose old
-- version is still recently dead (a snapshot older than the UPDATE lives,
-- such as autovacuum's ANALYZE of another table) would make CREATE INDEX
-- hide its index from the planner until the transactions older than it end
-- (pg_index.indcheckxmin), so that the index scans below would be
-- sequential ones, by the timing of others.
VACUUM FULL ed;
CREATE TEMP TABLE ed_seq AS SELECT * FROM pg_temp.ed_scan(false);
-- Each index scan run reads the index, once for each query it serves (a
-- scan of the index each, counted by the statistics of this transaction),
-- so that comparing its rows with the sequential scan's compares the
-- index's: the exact index serves every form, the approximate one %~.
CREATE INDEX ed_exact ON ed USING gin (sig gin_minhash_ops (threshold = 0.5));
BEGIN;
SELECT pg_stat_get_xact_numscans('ed_exact'::regclass) AS ed_scans \gset
CREATE TEMP TABLE ed_exact_scan AS SELECT * FROM pg_temp.ed_scan(true);
SELECT pg_stat_get_xact_numscans('ed_exact'::regclass) - :ed_scans >= count(*) AS exact_read
  FROM ed_exact_scan;
COMMIT;
DROP INDEX ed_exact;
CREATE INDEX ed_approx ON ed USING gin (sig gin_minhash_approx_ops (threshold = 0.5));
BEGIN;
SELECT pg_stat_get_xact_numscans('ed_approx'::regclass) AS ed_scans \gset
CREATE TEMP TABLE ed_approx_scan AS SELECT * FROM pg_temp.ed_scan(true);
SELECT pg_stat_get_xact_numscans('ed_approx'::regclass) - :ed_scans >= count(*) AS approx_read
  FROM ed_approx_scan WHERE form = '%~';
COMMIT;
DROP INDEX ed_approx;
-- The exact index returns what the sequential scan returns; the
-- approximate one a subset (it may miss a pair below its target); no scan
-- returns a row without words, nor any row for a query without words.
SELECT s.form, count(*) AS queries,
       count(*) FILTER (WHERE s.ids IS DISTINCT FROM e.ids) AS exact_differs,
       count(*) FILTER (WHERE s.form = '%~' AND NOT coalesce(a.ids, '{}') <@ coalesce(s.ids, '{}')) AS approx_extra,
       count(*) FILTER (WHERE s.ids && ARRAY[1, 2, 3, 4, 11, 12] OR e.ids && ARRAY[1, 2, 3, 4, 11, 12]
                        OR (s.form = '%~' AND a.ids && ARRAY[1, 2, 3, 4, 11, 12])) AS rows_without_words_found,
       count(*) FILTER (WHERE s.q IN (1, 2, 3, 4, 11, 12)
                        AND (s.ids IS NOT NULL OR e.ids IS NOT NULL OR (s.form = '%~' AND a.ids IS NOT NULL))) AS empty_queries_matching
  FROM ed_seq s JOIN ed_exact_scan e USING (q, t, form) JOIN ed_approx_scan a USING (q, t, form)
 GROUP BY s.form ORDER BY s.form;
SELECT q, t, form, ids FROM ed_seq WHERE q IN (1, 5, 8) ORDER BY q, t, form;

-- The flagging trigger: a row without words is never flagged, and never
-- named as another row's duplicate, in either mode.
CREATE TABLE ed_flags (id int PRIMARY KEY, sig minhash(64), dup_of int);
CREATE INDEX ON ed_flags USING gin (sig) WITH (fastupdate = off);
CREATE TRIGGER flag_dups BEFORE INSERT OR UPDATE ON ed_flags FOR EACH ROW
	EXECUTE FUNCTION minhash_flag_duplicates('sig', 'dup_of', '0.5');
INSERT INTO ed_flags (id, sig) SELECT id, sig FROM ed ORDER BY id;
UPDATE ed_flags SET sig = sig;
SELECT id, dup_of FROM ed_flags ORDER BY id;
DROP TRIGGER flag_dups ON ed_flags;
CREATE TRIGGER flag_dups BEFORE INSERT OR UPDATE ON ed_flags FOR EACH ROW
	EXECUTE FUNCTION minhash_flag_duplicates('sig', 'dup_of', '0', 'id', 'lock');
UPDATE ed_flags SET sig = sig;
SELECT id, dup_of FROM ed_flags ORDER BY id;
DROP TABLE ed_flags;

-- Pairs: none with a side without words, exact or approximate, nor from the
-- SQL statement.
SELECT * FROM near_dupe_pairs('ed', 'id', 'sig', 0.5);
SELECT * FROM near_dupe_pairs('ed', 'id', 'sig', 0.5, NULL::int, 0.9);
SET enable_hashagg = off;
SET enable_mergejoin = off;
SELECT near_dupe_query('ed', 'id', 'sig', 0.5) AS pairs_query \gset
:pairs_query;

-- Groups: each row without words is a group of its own, its own pivot,
-- with resemblance 0 (its resemblance to itself); the engine, the
-- approximate grouping and the SQL statement alike.
SELECT * FROM near_dupe_groups('ed', 'id', 'sig', 0.5);
SELECT * FROM near_dupe_groups('ed', 'id', 'sig', 0.5, NULL::int, 0.9);
SELECT near_dupe_query('ed', 'id', 'sig', 0.5, groups => true) AS groups_query \gset
:groups_query;
RESET enable_hashagg;
RESET enable_mergejoin;

-- The union is unaffected: an empty signature is its identity.
SELECT minhash_union(e.sig, w.sig) = w.sig AS union_is_other, minhash_union(e.sig, e.sig) = e.sig AS union_of_empties
  FROM ed e, ed w WHERE e.id = 11 AND w.id = 7;
SELECT minhash_union(sig) = (SELECT minhash_union(sig) FROM ed WHERE id IN (5, 7)) AS aggregate_unaffected
  FROM ed WHERE id IN (1, 2, 5, 7, 11, 12);

-- Reports: documents without words counted apart from near-duplicate
-- groups; with the text, documents of numbers only too.
CREATE TABLE ed_groups AS SELECT * FROM near_dupe_groups('ed', 'id', 'sig', 0.5);
SELECT * FROM near_dupe_classes('ed_groups');
SELECT * FROM near_dupe_classes('ed_groups', 'ed', 'id', 'body');
SELECT * FROM near_dupe_totals('ed_groups');
SELECT * FROM near_dupe_group_stats('ed_groups');
-- A user's own classes, by the text.
SELECT minhash_document_class(body) AS class, count(*) FROM ed GROUP BY 1 ORDER BY 1;
-- Review of one group: the pivot's row says the group table's
-- resemblance, 0 for a document without words, null for a row without a
-- signature, 1 for a pivot with words; near_dupe_group_detail alike.  The
-- group's page claims no resemblance for a pivot alone.
SELECT g.key, g.resemblance AS group_table, r.role, r.resemblance AS review, d.resemblance AS detail
  FROM ed_groups g
  JOIN LATERAL near_dupe_review('ed_groups', 'ed', 'id', 'body', g.group_id) r ON r.key = g.key
  JOIN LATERAL near_dupe_group_detail('ed_groups', 'ed', 'id', 'body', g.group_id) d ON d.key = g.key
 WHERE g.key IN ('1', '5', '6', '7', '10', '11') ORDER BY g.key::int;
SELECT g.key, substring(near_dupe_review_html('ed_groups', 'ed', 'id', 'body', g.group_id) FROM '<dt>Mean resemblance</dt>.*?<dt>Text') AS six,
       substring(near_dupe_review_html('ed_groups', 'ed', 'id', 'body', g.group_id, 5, 'id') FROM '<dt>Mean resemblance</dt>.*?<dt>Text') AS seven
  FROM ed_groups g WHERE g.key IN ('1', '10') ORDER BY g.key::int;
-- The index page counts the groups of one by class, as near_dupe_classes
-- does.
SELECT near_dupe_review_index_html('ed_groups', 'ed', 'id', 'id') AS ed_index \gset
SELECT substring(:'ed_index' FROM '<p class="singletons">.*?</p>') AS groups_of_one;
SELECT c.class, c.documents,
       substring(:'ed_index' FROM format('<span class="%s">([0-9]+)</span>', s.span))::bigint AS on_the_page
  FROM near_dupe_classes('ed_groups') c
  JOIN (VALUES ('singletons', 'alone'), ('no words', 'no-words'), ('no signature', 'no-signature')) s(class, span) USING (class)
 ORDER BY c.class;
SELECT * FROM near_dupe_classes('ed_missing_table');
SELECT * FROM near_dupe_classes('ed_groups', 'ed', 'id', 'no_such_column');

DROP TABLE ed, ed_groups;
