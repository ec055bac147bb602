-- near_dupe_pairs and near_dupe_groups: the self-join through band keys and
-- greedy pivot groups.

-- The NOTICE of a call about to spill is not shown: its sizes differ by
-- PostgreSQL version (test/bench/group_spill_spam.sh checks it).
SET client_min_messages = warning;

-- Families of edited copies: member m of family f (m = 0 .. 5) replaces
-- words 10, 20, .. 10m of 60 (each edit changes 5 of 56 shingles, so
-- neighbours resemble each other about 0.84, members two edits apart 0.70),
-- and members 2 and 5 add a greeting; a few loners, two identical copies
-- and two documents without words, which resemble nothing (no pair, each a
-- group of its own with resemblance 0).
CREATE TABLE gd (id int, body text, sig minhash);
INSERT INTO gd (id, body)
SELECT f * 10 + m,
       CASE WHEN m % 3 = 2 THEN 'hello there ' ELSE '' END ||
       (SELECT string_agg(CASE WHEN w <= m * 10 AND w % 10 = 0 THEN 'edit' || w ELSE 'f' || f || 'w' || w END,
                          ' ' ORDER BY w)
          FROM generate_series(1, 60) w)
  FROM generate_series(1, 6) f, generate_series(0, 5) m;
INSERT INTO gd (id, body) VALUES
	(71, 'a loner with a few words of its own and nothing else at all'),
	(72, 'another loner that shares nothing with any of the others here'),
	(73, 'a copy that exists twice in the table word for word'),
	(74, 'a copy that exists twice in the table word for word'),
	(75, ''),
	(76, '   ...   ');
UPDATE gd SET sig = minhash(body);
ANALYZE gd;

-- The pairs are exactly those of the brute-force self-join, at every threshold.
CREATE FUNCTION pg_temp.pairs_equal_brute_force(t float8) RETURNS TABLE (threshold float8, pairs bigint, missing bigint, extra bigint)
LANGUAGE sql AS $$
	WITH found AS (SELECT key_a::int AS a, key_b::int AS b, resemblance FROM near_dupe_pairs('gd', 'id', 'sig', t)),
	     brute AS (SELECT x.id AS a, y.id AS b, resemblance(x.sig, y.sig) AS resemblance
	                 FROM gd x JOIN gd y ON x.id < y.id WHERE resembles(x.sig, y.sig, t))
	SELECT t, (SELECT count(*) FROM found),
	       (SELECT count(*) FROM (SELECT * FROM brute EXCEPT SELECT * FROM found) m),
	       (SELECT count(*) FROM (SELECT * FROM found EXCEPT SELECT * FROM brute) e)
$$;
SELECT p.* FROM unnest(ARRAY[0.3, 0.5, 0.7, 0.8, 0.9, 0.95, 1.0]) t, pg_temp.pairs_equal_brute_force(t) p;

-- The threshold defaults to minhash.threshold: the pairs of %.
SET minhash.threshold = 0.7;
SELECT (SELECT count(*) FROM near_dupe_pairs('gd', 'id', 'sig')) AS pairs,
       (SELECT count(*) FROM gd x JOIN gd y ON x.id < y.id AND x.sig % y.sig) AS brute_force;
RESET minhash.threshold;

-- What the pairs look like: key_a sorts before key_b in the key's own order.
SELECT * FROM near_dupe_pairs('gd', 'id', 'sig', 0.8) WHERE key_a::int < 30 OR key_a::int > 70;

-- The groups, in full at 0.8.
SELECT * FROM near_dupe_groups('gd', 'id', 'sig', 0.8);

-- The invariants, at several thresholds: every row exactly once; each
-- member's resemblance to its pivot reaches the threshold and is the one
-- reported; a document without words is alone in its group; the pivot is
-- its own member with its resemblance to itself (1; 0 without words) and
-- ranks first
-- in its group (most distinct shingles, then smallest key); group ids are
-- 1 .. G in pivot order; and the groups are the greedy walk's: each row's
-- pivot is the best-ranked pivot within the threshold, and no pivot is within
-- the threshold of a better-ranked pivot.
CREATE FUNCTION pg_temp.group_violations(t float8) RETURNS TABLE (threshold float8, groups bigint, rows bigint, violations bigint)
LANGUAGE sql AS $$
	WITH g AS (SELECT group_id, key::int AS id, pivot::int AS pivot, resemblance FROM near_dupe_groups('gd', 'id', 'sig', t)),
	     r AS (SELECT g.*, m.sig, minhash_size(m.sig) AS size, p.sig AS pivot_sig, minhash_size(p.sig) AS pivot_size
	             FROM g JOIN gd m ON m.id = g.id JOIN gd p ON p.id = g.pivot),
	     pivots AS (SELECT DISTINCT group_id, pivot, pivot_sig, pivot_size FROM r)
	SELECT t, (SELECT count(DISTINCT group_id) FROM g), (SELECT count(*) FROM g),
	       (SELECT count(*) FROM gd WHERE id NOT IN (SELECT id FROM g))
	     + (SELECT count(*) - count(DISTINCT id) FROM g)
	     + (SELECT count(*) FROM r WHERE resemblance IS DISTINCT FROM resemblance(sig, pivot_sig) OR (id <> pivot AND resemblance < t))
	     + (SELECT count(*) FROM r WHERE (size = 0 OR pivot_size = 0) AND id <> pivot)
	     + (SELECT count(*) FROM r WHERE size > pivot_size OR (size = pivot_size AND id < pivot))
	     + (SELECT count(*) FROM pivots p WHERE NOT EXISTS (SELECT 1 FROM g WHERE g.id = p.pivot AND g.pivot = p.pivot AND g.resemblance = resemblance(p.pivot_sig, p.pivot_sig)))
	     + (SELECT count(*) FROM (SELECT max(group_id) - count(DISTINCT group_id) AS gap FROM g) x WHERE gap <> 0)
	     + (SELECT count(*) FROM pivots a JOIN pivots b ON a.group_id < b.group_id
	         WHERE (a.pivot_size, -a.pivot) < (b.pivot_size, -b.pivot))
	     + (SELECT count(*) FROM pivots a JOIN pivots b ON a.group_id < b.group_id
	         WHERE resembles(a.pivot_sig, b.pivot_sig, t))
	     + (SELECT count(*) FROM r WHERE r.group_id <> (SELECT min(p.group_id) FROM pivots p WHERE resembles(p.pivot_sig, r.sig, t)))
$$;
SELECT v.* FROM unnest(ARRAY[0.3, 0.5, 0.7, 0.8, 0.9, 1.0]) t, pg_temp.group_violations(t) v;

-- Deterministic: the same rows inserted in another order (and another
-- physical layout) give the same groups.
CREATE TABLE gd_shuffled AS SELECT * FROM gd ORDER BY md5(id::text);
UPDATE gd_shuffled SET body = body WHERE id % 4 = 0;
SELECT t,
       (SELECT count(*) FROM (SELECT group_id, key, pivot, resemblance FROM near_dupe_groups('gd', 'id', 'sig', t)
                              EXCEPT SELECT group_id, key, pivot, resemblance FROM near_dupe_groups('gd_shuffled', 'id', 'sig', t)) x) AS only_in_gd,
       (SELECT count(*) FROM (SELECT group_id, key, pivot, resemblance FROM near_dupe_groups('gd_shuffled', 'id', 'sig', t)
                              EXCEPT SELECT group_id, key, pivot, resemblance FROM near_dupe_groups('gd', 'id', 'sig', t)) x) AS only_in_shuffled
  FROM unnest(ARRAY[0.5, 0.8]) t;
SELECT (SELECT array_agg(p ORDER BY p) FROM near_dupe_pairs('gd', 'id', 'sig', 0.6) p)
     = (SELECT array_agg(p ORDER BY p) FROM near_dupe_pairs('gd_shuffled', 'id', 'sig', 0.6) p) AS same_pairs;

-- Keys keep their own order: 9 before 10 for an integer key, '10' before '9'
-- for a text key.
CREATE TABLE gd_int (k int, sig minhash);
INSERT INTO gd_int VALUES (9, minhash('one two three four five six seven'::text)),
						  (10, minhash('one two three four five six seven'::text)),
						  (100, minhash('one two three four five six'::text));
CREATE TABLE gd_text AS SELECT k::text AS k, sig FROM gd_int;
SELECT * FROM near_dupe_pairs('gd_int', 'k', 'sig', 0.5);
SELECT * FROM near_dupe_pairs('gd_text', 'k', 'sig', 0.5);
SELECT * FROM near_dupe_groups('gd_int', 'k', 'sig', 0.5);
SELECT * FROM near_dupe_groups('gd_text', 'k', 'sig', 0.5);

-- Null signatures are groups of their own (resemblance null) and in no pair.
CREATE TABLE gd_nulls (k text, sig minhash);
INSERT INTO gd_nulls VALUES ('a', minhash('one two three four five six seven'::text)), ('c', minhash('one two three four five six seven'::text)),
							('b', NULL), ('d', NULL);
SELECT * FROM near_dupe_pairs('gd_nulls', 'k', 'sig', 0.5);
SELECT * FROM near_dupe_groups('gd_nulls', 'k', 'sig', 0.5);

-- The result names each row by its key, so the key column must be unique
-- and not null, as a primary key is: two rows of one key (23505, the value
-- named, cut if long) or a null key (23502) are refused, whether the rows
-- have signatures or not, and in every form of the call.
CREATE TABLE gd_kinds AS SELECT id, CASE WHEN id % 2 = 0 THEN 'even' ELSE 'odd' END AS kind, sig FROM gd;
SELECT * FROM near_dupe_groups('gd_kinds', 'kind', 'sig');
SELECT * FROM near_dupe_pairs('gd_kinds', 'kind', 'sig');
SELECT * FROM near_dupe_groups('gd_kinds', 'kind', 'sig', 0.8, NULL::text, recall => 0.9);
SELECT * FROM near_dupe_pairs('gd_kinds', 'kind', 'sig', 0.8, NULL::text, recall => 0.9);
CREATE TABLE gd_twice (k text, n numeric, sig minhash);
INSERT INTO gd_twice VALUES (repeat('a long key ', 20), 1.0, minhash('one two three four five six seven'::text)),
							(repeat('a long key ', 20), 1.00, NULL),
							('short', 2, minhash('one two three four five six'::text));
SELECT * FROM near_dupe_groups('gd_twice', 'k', 'sig');
SELECT * FROM near_dupe_pairs('gd_twice', 'k', 'sig', 0.5, NULL::text);
-- Equal in the key type's order is equal, as for a unique index.
SELECT * FROM near_dupe_groups('gd_twice', 'n', 'sig', 0.5, NULL::numeric);
SELECT * FROM near_dupe_pairs('gd_twice', 'n', 'sig');
CREATE TABLE gd_null_keys (k text, sig minhash);
INSERT INTO gd_null_keys VALUES ('a', minhash('one two three four five six seven'::text)), (NULL, NULL);
SELECT * FROM near_dupe_groups('gd_null_keys', 'k', 'sig');
SELECT * FROM near_dupe_pairs('gd_null_keys', 'k', 'sig', 0.5, NULL::text);

-- No rows, or no signatures: nothing to pair.
CREATE TABLE gd_empty (k bigint, sig minhash(128));
SELECT * FROM near_dupe_pairs('gd_empty', 'k', 'sig');
SELECT * FROM near_dupe_groups('gd_empty', 'k', 'sig');
INSERT INTO gd_empty VALUES (1, NULL), (2, NULL);
SELECT * FROM near_dupe_pairs('gd_empty', 'k', 'sig');
SELECT * FROM near_dupe_groups('gd_empty', 'k', 'sig');

-- Bad arguments.
\set SHOW_CONTEXT never
SELECT * FROM near_dupe_pairs('no_such_table', 'id', 'sig');
SELECT * FROM near_dupe_pairs('gd', 'no_such_column', 'sig');
SELECT * FROM near_dupe_groups('gd', 'id', 'no_such_column');
SELECT * FROM near_dupe_pairs('gd', 'id', 'body');
SELECT * FROM near_dupe_groups('gd', 'id', 'id');
SELECT * FROM near_dupe_pairs('gd', 'id', 'sig', -0.1);
SELECT * FROM near_dupe_groups('gd', 'id', 'sig', 1.5);
SELECT * FROM near_dupe_groups('gd', 'id', 'sig', 'NaN');
SELECT * FROM near_dupe_pairs('gd', 'id', 'sig', 0);
SELECT * FROM near_dupe_pairs(NULL, 'id', 'sig');
SELECT * FROM near_dupe_groups('gd', NULL, 'sig');
SELECT * FROM near_dupe_pairs('gd', 'id', NULL);
-- Names are identifiers, never SQL.
SELECT * FROM near_dupe_pairs('gd', 'id', 'x"; DROP TABLE gd; --');
SELECT * FROM near_dupe_groups('gd', 'id); DROP TABLE gd; --', 'sig');
SELECT count(*) AS gd_still_there FROM gd;
-- A column whose name needs quoting is fine.
CREATE TABLE gd_quoted ("the key" int, "Sig; --" minhash);
INSERT INTO gd_quoted SELECT id, sig FROM gd;
SELECT count(*) FROM near_dupe_pairs('gd_quoted', 'the key', 'Sig; --', 0.8);
-- The table is a regclass, read as SQL reads a name: a mixed-case name
-- needs its quotes inside the literal (unquoted, PostgreSQL folds it to
-- lower case and reports that relation missing, before the function runs).
-- Columns are names, taken as written, case and all: the hint says which
-- column a name in another case or in quotes probably meant.
CREATE TABLE "GD_Mixed" ("Key" int, sig minhash);
INSERT INTO "GD_Mixed" SELECT id, sig FROM gd;
SELECT count(*) FROM near_dupe_pairs('GD_Mixed', 'Key', 'sig', 0.8);
SELECT count(*) FROM near_dupe_pairs('"GD_Mixed"', 'Key', 'sig', 0.8);
SELECT * FROM near_dupe_pairs('"GD_Mixed"', 'key', 'sig', 0.8);
SELECT * FROM near_dupe_groups('"GD_Mixed"', '"Key"', 'sig', 0.8);
SELECT * FROM near_dupe_groups('"GD_Mixed"', 'Key', 'SIG', 0.8);
DROP TABLE "GD_Mixed";
-- Only tables and materialized views: rows are addressed by ctid.
CREATE VIEW gd_view AS SELECT * FROM gd;
SELECT * FROM near_dupe_pairs('gd_view', 'id', 'sig');
CREATE TABLE gd_parted (id int, sig minhash) PARTITION BY RANGE (id);
SELECT * FROM near_dupe_groups('gd_parted', 'id', 'sig');
CREATE MATERIALIZED VIEW gd_matview AS SELECT * FROM gd;
SELECT count(*) FROM near_dupe_pairs('gd_matview', 'id', 'sig', 0.8);
-- Rows are ranked by key: a key type without an ordering is refused.
CREATE TABLE gd_point_key (k point, sig minhash);
INSERT INTO gd_point_key VALUES (point(1, 2), minhash('one two three'::text));
SELECT * FROM near_dupe_groups('gd_point_key', 'k', 'sig');
-- Signatures built differently cannot be compared.
CREATE TABLE gd_mixed (id int, sig minhash);
INSERT INTO gd_mixed VALUES (1, minhash('one two three'::text)), (2, minhash('one two three'::text, 64));
SELECT * FROM near_dupe_groups('gd_mixed', 'id', 'sig');
UPDATE gd_mixed SET sig = minhash('one two three'::text, 128, 5, 7) WHERE id = 2;
SELECT * FROM near_dupe_pairs('gd_mixed', 'id', 'sig');

-- The SQLSTATEs.
CREATE FUNCTION pg_temp.sqlstate(statement text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE statement;
	RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
	RETURN SQLSTATE;
END $$;
SELECT s AS statement, pg_temp.sqlstate(s) FROM unnest(ARRAY[
	$$SELECT near_dupe_pairs('gd', 'no_such_column', 'sig')$$,
	$$SELECT near_dupe_pairs('gd', 'id', 'body')$$,
	$$SELECT near_dupe_pairs('gd', 'id', 'sig', 2)$$,
	$$SELECT near_dupe_pairs('gd', 'id', 'sig', 0)$$,
	$$SELECT near_dupe_pairs(NULL, 'id', 'sig')$$,
	$$SELECT near_dupe_pairs('gd_view', 'id', 'sig')$$,
	$$SELECT near_dupe_pairs('gd_mixed', 'id', 'sig')$$]) s;
\set SHOW_CONTEXT errors

-- The query that runs, for EXPLAIN.
SELECT near_dupe_query('gd', 'id', 'sig', 0.8) LIKE '%minhash_bands(s.sig, 28, 4)%' AS uses_bands;

-- Identical signatures go where the best-ranked of them goes, without
-- pairing them: 20,000 copies of one document are one group at once (as
-- pairs they would be 200 million candidates).  The greedy invariants hold
-- with copies of every row of gd, some ranked before their original.
CREATE TABLE gd_copies AS SELECT i AS id, minhash('the same memo sent to everybody in the company'::text) AS sig
  FROM generate_series(1, 20000) i;
SELECT count(*) AS rows, count(DISTINCT group_id) AS groups, min(pivot) AS pivot, min(resemblance) AS resemblance
  FROM near_dupe_groups('gd_copies', 'id', 'sig');
INSERT INTO gd SELECT CASE WHEN c = 2 THEN -id ELSE id + 1000 END, body, sig FROM gd, generate_series(1, 2) c;
SELECT v.* FROM unnest(ARRAY[0.3, 0.8, 1.0]) t, pg_temp.group_violations(t) v;

-- The grouping runs in memory (mh_group_greedy), capped by
-- minhash.group_memory; beyond it, it runs as the same grouping as one SQL
-- statement, near_dupe_query(..., groups => true): the pairs found through
-- band keys, walked by a window function.  So the SQL formulation is
-- checked against the engine's rows under the default cap, and
-- near_dupe_groups itself with the cap at 64kB (where it takes the
-- statement, sql/group_spill.sql: 'no error').  They agree row for row and
-- in order: on gd with its copies, at every threshold (null here: the
-- threshold left out, the minhash.threshold setting, which % reads), with
-- integer, text and null keys and null signatures.
CREATE FUNCTION pg_temp.engine_vs_sql(source regclass, key_column name, t float8)
RETURNS TABLE (relation regclass, threshold float8, rows bigint, engine_at_64kb text, differences bigint)
LANGUAGE plpgsql AS $$
DECLARE
	engine text[];
	engine_refusal text;
	by_sql text[];
BEGIN
	IF t IS NULL THEN
		SELECT array_agg((g.group_id, g.key, g.pivot, g.resemblance)::text ORDER BY n) INTO engine
		  FROM near_dupe_groups(source, key_column, 'sig') WITH ORDINALITY g(group_id, key, pivot, resemblance, n);
	ELSE
		SELECT array_agg((g.group_id, g.key, g.pivot, g.resemblance)::text ORDER BY n) INTO engine
		  FROM near_dupe_groups(source, key_column, 'sig', t) WITH ORDINALITY g(group_id, key, pivot, resemblance, n);
	END IF;
	PERFORM pg_catalog.set_config('minhash.group_memory', '64kB', true);
	-- its NOTICE that it runs as the statement: shown for single calls below
	PERFORM pg_catalog.set_config('client_min_messages', 'warning', true);
	engine_refusal := pg_temp.sqlstate(format('SELECT near_dupe_groups(%L, %L, ''sig''%s)', source, key_column,
											  CASE WHEN t IS NULL THEN '' ELSE format(', %L', t) END));
	PERFORM pg_catalog.set_config('enable_hashagg', 'off', true);
	PERFORM pg_catalog.set_config('enable_mergejoin', 'off', true);
	EXECUTE format('SELECT array_agg((g.group_id, g.key, g.pivot, g.resemblance)::text) FROM (%s) g',
				   near_dupe_query(source, key_column, 'sig', coalesce(t, minhash_threshold()), true)) INTO by_sql;
	RESET minhash.group_memory;
	RESET enable_hashagg;
	RESET enable_mergejoin;
	RETURN QUERY SELECT source, t, count(*), engine_refusal, count(*) FILTER (WHERE a IS DISTINCT FROM b)
	  FROM unnest(engine, by_sql) u(a, b);
END $$;
SET minhash.threshold = 0.65;
SELECT v.* FROM unnest(ARRAY[0.3, 0.5, 0.7, 0.8, 0.9, 1.0, NULL]) t, pg_temp.engine_vs_sql('gd', 'id', t) v;
RESET minhash.threshold;
SELECT v.* FROM (VALUES ('gd_int'::regclass), ('gd_text'), ('gd_nulls'), ('gd_copies')) s(r),
                pg_temp.engine_vs_sql(r, CASE WHEN r = 'gd_copies'::regclass THEN 'id' ELSE 'k' END, 0.5) v;

-- The memory the grouping may hold in memory is capped by
-- minhash.group_memory: a call that would hold more runs as one SQL
-- statement instead (sql/group_spill.sql), without an error.
CREATE FUNCTION pg_temp.error_masked(statement text) RETURNS TABLE (error text, detail text, hint text)
LANGUAGE plpgsql AS $$
DECLARE
	d text;
	h text;
BEGIN
	EXECUTE statement;
	RETURN QUERY SELECT 'no error', NULL::text, NULL::text;
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS d = PG_EXCEPTION_DETAIL, h = PG_EXCEPTION_HINT;
	RETURN QUERY SELECT SQLSTATE || ': ' || regexp_replace(SQLERRM, '[0-9]+', 'N', 'g'),
	                    regexp_replace(d, '[0-9]+', 'N', 'g'), regexp_replace(h, '[0-9]+', 'N', 'g');
END $$;
-- By default (-1) the limit is maintenance_work_mem; other values are at
-- least 64kB.
SHOW minhash.group_memory;
SET minhash.group_memory = '10kB';
SET minhash.group_memory = '64kB';
\x on
SELECT * FROM pg_temp.error_masked($$SELECT count(*) FROM near_dupe_groups('gd', 'id', 'sig', 0.8)$$);
-- -1: maintenance_work_mem, here 1MB for the 20,000 copies.
SET maintenance_work_mem = '1MB';
RESET minhash.group_memory;
SELECT * FROM pg_temp.error_masked($$SELECT count(*) FROM near_dupe_groups('gd_copies', 'id', 'sig')$$);
RESET maintenance_work_mem;
\x off
SET minhash.group_memory = '1MB';
SELECT count(*) FROM near_dupe_groups('gd', 'id', 'sig', 0.8);
RESET minhash.group_memory;

-- At threshold 0 every pair qualifies and no band layout narrows anything:
-- refused, as everywhere a threshold chooses a band layout (near_dupe_pairs,
-- near_dupe_query, lsh_index_layout, the index options), and also when
-- minhash.threshold is 0.
\set SHOW_CONTEXT never
SELECT * FROM near_dupe_groups('gd', 'id', 'sig', 0);
SELECT * FROM near_dupe_groups('gd', 'id', 'sig', 0, NULL::int, recall => 0.99);
SET minhash.threshold = 0;
SELECT * FROM near_dupe_groups('gd', 'id', 'sig');
SELECT near_dupe_query('gd', 'id', 'sig', groups => true);
RESET minhash.threshold;
SELECT near_dupe_query('gd', 'id', 'sig', 0, groups => true);
\set SHOW_CONTEXT errors

-- 20,000 near-copies (one word added to a memo) share nearly every band
-- key: the first pivot takes its whole bucket at once, so they group in one
-- pass over them, not 200 million candidate pairs.
CREATE TABLE gd_near_copies AS
SELECT i AS id, minhash('the same memo sent to everybody in the company about the party on friday evening in the big hall ' || i) AS sig
  FROM generate_series(1, 20000) i;
SELECT count(*) AS rows, count(DISTINCT group_id) AS groups, min(resemblance) >= 0.8 AS all_reach_threshold
  FROM near_dupe_groups('gd_near_copies', 'id', 'sig');

-- Grouping can be cancelled, even in its worst case: 20,000 rows whose
-- value at each position is one of eight, so that every value is shared by
-- thousands of rows (crowded buckets at 0.3, of bands and of prefixes
-- alike) while two rows agree on about 16 of 128 positions, below 0.3:
-- each pivot reads the crowded buckets and takes nobody (about 30 s).  So
-- can listing the pairs of the identical copies.
CREATE TABLE gd_crowded AS
SELECT i AS id, ('v1:words:k=5:seed=0:size=50:n=128:'
                 || (SELECT string_agg(lpad(to_hex(p * 8 + (hashint4(i * 128 + p) & 7)), 8, '0'), '' ORDER BY p)
                       FROM generate_series(0, 127) p))::minhash AS sig
  FROM generate_series(1, 20000) i;
\set SHOW_CONTEXT never
SET statement_timeout = '1s';
SELECT count(*) FROM near_dupe_groups('gd_crowded', 'id', 'sig', 0.3);
SELECT count(*) FROM near_dupe_pairs('gd_copies', 'id', 'sig');
RESET statement_timeout;
\set SHOW_CONTEXT errors

DROP TABLE gd, gd_shuffled, gd_int, gd_text, gd_nulls, gd_kinds, gd_twice, gd_null_keys, gd_empty, gd_quoted, gd_parted, gd_mixed, gd_copies, gd_near_copies, gd_crowded, gd_point_key CASCADE;
