-- near_dupe_pairs in the engine (issue 17): exact pairs equal to the
-- brute-force self-join, approximate pairs (recall) a subset of them, the
-- memory cap and cancel.

-- The NOTICE of a call about to spill is not shown: its sizes differ by
-- PostgreSQL version (test/bench/group_spill_spam.sh checks it).
SET client_min_messages = warning;

-- Families of graded edits: member m of family f replaces the last 4m of
-- its 60 words (so members resemble each other from about 0.1 to 0.9),
-- every document starts with one shared sentence (crowded buckets at low
-- thresholds); two identical copies, empty documents, rows without a
-- signature.
CREATE TABLE pd (id int, body text, sig minhash);
INSERT INTO pd (id, body)
SELECT f * 100 + m,
       'this message was sent to the whole list by the robot ' ||
       (SELECT string_agg(CASE WHEN w > 60 - 4 * m THEN 'e' || m || 'w' || w ELSE 'f' || f || 'w' || w END,
                          ' ' ORDER BY w)
          FROM generate_series(1, 60) w)
  FROM generate_series(1, 12) f, generate_series(0, 10) m;
INSERT INTO pd (id, body) VALUES
	(9001, 'a copy that exists twice in the table word for word'),
	(9002, 'a copy that exists twice in the table word for word'),
	(9003, ''),
	(9004, '   ...   '),
	(9005, NULL),
	(9006, 'this message was sent to the whole list by the robot and nothing else'),
	(9007, 'this message was sent to the whole list by the robot and nothing more');
UPDATE pd SET sig = minhash(body) WHERE body IS NOT NULL;
SELECT count(*) AS rows, count(sig) AS signed, count(*) FILTER (WHERE minhash_size(sig) = 0) AS empty FROM pd;

-- Exact: the pairs, resemblances and order of the brute-force self-join
-- (a.id < b.id), at thresholds across the range; with the threshold left
-- out, those of % at the minhash.threshold setting (and minhash_threshold()
-- is that setting).
CREATE FUNCTION pg_temp.out_of_order(source regclass, t float8) RETURNS bigint LANGUAGE sql AS $$
	SELECT count(*) FROM (
		SELECT n, row_number() OVER (ORDER BY a, b) AS m
		  FROM near_dupe_pairs(source, 'id', 'sig', t, NULL::int) WITH ORDINALITY p(a, b, r, n)) o
	 WHERE o.n <> o.m
$$;
CREATE FUNCTION pg_temp.exact_vs_brute_force(t float8)
RETURNS TABLE (threshold float8, pairs bigint, brute_force bigint, missing bigint, extra bigint, out_of_order bigint)
LANGUAGE plpgsql AS $$
BEGIN
	PERFORM pg_catalog.set_config('minhash.threshold', t::text, true);
	CREATE TEMP TABLE found AS SELECT p.* FROM near_dupe_pairs('pd', 'id', 'sig') p;
	CREATE TEMP TABLE brute AS
	SELECT x.id::text AS key_a, y.id::text AS key_b, resemblance(x.sig, y.sig) AS resemblance
	  FROM pd x JOIN pd y ON x.id < y.id
	 WHERE x.sig % y.sig;
	RETURN QUERY SELECT t, (SELECT count(*) FROM found), (SELECT count(*) FROM brute),
	                    (SELECT count(*) FROM (SELECT * FROM brute EXCEPT ALL SELECT * FROM found) m),
	                    (SELECT count(*) FROM (SELECT * FROM found EXCEPT ALL SELECT * FROM brute) e),
	                    pg_temp.out_of_order('pd', minhash_threshold());
	DROP TABLE found, brute;
END $$;
SELECT v.* FROM unnest(ARRAY[0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 0.99, 1.0]) t,
                pg_temp.exact_vs_brute_force(t) v;
RESET minhash.threshold;

-- With the threshold given: resembles(a, b, t); and the same rows in the
-- same order as near_dupe_query(..., groups => false), the SQL formulation.
CREATE FUNCTION pg_temp.exact_vs_sql(t float8)
RETURNS TABLE (threshold float8, pairs bigint, brute_force_differences bigint, sql_differences bigint, out_of_order bigint)
LANGUAGE plpgsql AS $$
BEGIN
	CREATE TEMP TABLE found AS SELECT p.* FROM near_dupe_pairs('pd', 'id', 'sig', t) p;
	CREATE TEMP TABLE brute AS
	SELECT x.id::text AS key_a, y.id::text AS key_b, resemblance(x.sig, y.sig) AS resemblance
	  FROM pd x JOIN pd y ON x.id < y.id
	 WHERE resembles(x.sig, y.sig, t);
	PERFORM pg_catalog.set_config('enable_hashagg', 'off', true);
	EXECUTE 'CREATE TEMP TABLE by_sql AS ' || near_dupe_query('pd', 'id', 'sig', t);
	RESET enable_hashagg;
	RETURN QUERY SELECT t, (SELECT count(*) FROM found),
	                    (SELECT count(*) FROM ((SELECT * FROM brute EXCEPT ALL SELECT * FROM found)
	                                           UNION ALL (SELECT * FROM found EXCEPT ALL SELECT * FROM brute)) d),
	                    (SELECT count(*) FROM ((SELECT * FROM by_sql EXCEPT ALL SELECT * FROM found)
	                                           UNION ALL (SELECT * FROM found EXCEPT ALL SELECT * FROM by_sql)) d),
	                    pg_temp.out_of_order('pd', t);
	DROP TABLE found, brute, by_sql;
END $$;
SELECT v.* FROM unnest(ARRAY[0.1, 0.3, 0.5, 0.7, 0.8, 0.9, 1.0]) t, pg_temp.exact_vs_sql(t) v;

-- What they look like, and typed keys: the same rows.
SELECT * FROM near_dupe_pairs('pd', 'id', 'sig', 0.9) WHERE key_a::int > 1000 OR key_a::int % 100 >= 9;
SELECT count(*) AS differing_typed_rows FROM (
	(SELECT key_a::text, key_b::text, resemblance, row_number() OVER () FROM near_dupe_pairs('pd', 'id', 'sig', 0.6, NULL::int))
	EXCEPT ALL
	(SELECT key_a, key_b, resemblance, row_number() OVER () FROM near_dupe_pairs('pd', 'id', 'sig', 0.6))) x;

-- recall null is the exact result.
SELECT count(*) AS differing_rows FROM (
	(SELECT *, row_number() OVER () FROM near_dupe_pairs('pd', 'id', 'sig', 0.5, NULL::int, NULL))
	EXCEPT ALL
	(SELECT *, row_number() OVER () FROM near_dupe_pairs('pd', 'id', 'sig', 0.5, NULL::int))) x;

-- Approximate: every pair returned is an exact pair, with its resemblance,
-- in the same order; the pairs missed are those near the threshold (at
-- recall 0.99, none of those at or above t + 0.05, the recall's target).
CREATE FUNCTION pg_temp.approx_vs_exact(t float8, r float8)
RETURNS TABLE (threshold float8, recall float8, exact bigint, found bigint, not_exact bigint, out_of_order bigint,
               missed_above_target bigint)
LANGUAGE sql AS $$
	WITH e AS (SELECT * FROM near_dupe_pairs('pd', 'id', 'sig', t, NULL::int)),
	     a AS (SELECT p.* FROM near_dupe_pairs('pd', 'id', 'sig', t, NULL::int, r) WITH ORDINALITY p(key_a, key_b, resemblance, n))
	SELECT t, r, (SELECT count(*) FROM e), (SELECT count(*) FROM a),
	       (SELECT count(*) FROM (SELECT a.key_a, a.key_b, a.resemblance FROM a EXCEPT ALL SELECT * FROM e) x),
	       (SELECT count(*) FROM (SELECT a.n, row_number() OVER (ORDER BY a.key_a, a.key_b) AS m FROM a) y WHERE y.n <> y.m),
	       (SELECT count(*) FROM (SELECT * FROM e WHERE e.resemblance >= t + 0.05 EXCEPT ALL SELECT a.key_a, a.key_b, a.resemblance FROM a) x)
$$;
SELECT v.threshold, v.recall, v.exact, v.found, v.not_exact, v.out_of_order, v.missed_above_target
  FROM unnest(ARRAY[0.3, 0.5, 0.7, 0.9]::float8[]) t, unnest(ARRAY[0.5, 0.99]::float8[]) r, pg_temp.approx_vs_exact(t, r) v
 ORDER BY v.recall, v.threshold;
-- Text keys with a recall: key_type text.
SELECT count(*) > 0 AS found, min(pg_typeof(key_a)::text) AS key_type
  FROM near_dupe_pairs('pd', 'id', 'sig', 0.8, NULL::text, recall => 0.99);

-- A recall must lie strictly between 0 and 1 (null: exact).
\set SHOW_CONTEXT never
SELECT * FROM near_dupe_pairs('pd', 'id', 'sig', 0.8, NULL::int, 0);
SELECT * FROM near_dupe_pairs('pd', 'id', 'sig', 0.8, NULL::int, 1);
SELECT * FROM near_dupe_pairs('pd', 'id', 'sig', 0.8, NULL::int, recall => 'NaN');
SELECT * FROM near_dupe_pairs('pd', 'id', 'sig', 0.8, NULL::int, recall => 1.5);
-- Too few hash values for the recall asked.
CREATE TABLE pd_short AS SELECT id, minhash(body, 4) AS sig FROM pd WHERE body IS NOT NULL;
SELECT * FROM near_dupe_pairs('pd_short', 'id', 'sig', 0.9, NULL::int, recall => 0.999999);
-- Positionally, a fifth number is a key_type: recall goes by name.
SELECT * FROM near_dupe_pairs('pd', 'id', 'sig', 0.8, 0.99);

-- Memory: the keys, the signatures and the pairs are held up to
-- minhash.group_memory; beyond it the same pairs come from one SQL
-- statement (sql/group_spill.sql), whether the rows do not fit (64kB) or
-- only the pairs do not (512kB: 300 rows, 44,850 pairs of copies).
CREATE TABLE pd_copies AS SELECT i AS id, minhash('the same memo sent to everybody in the company'::text) AS sig
  FROM generate_series(1, 300) i;
CREATE TEMP TABLE pd_in_memory AS SELECT * FROM near_dupe_pairs('pd_copies', 'id', 'sig', 0.8) WITH ORDINALITY;
SET minhash.group_memory = '64kB';
SELECT count(*) AS rows, count(*) FILTER (WHERE m::text IS DISTINCT FROM s::text) AS differences
  FROM pd_in_memory m FULL JOIN (SELECT * FROM near_dupe_pairs('pd_copies', 'id', 'sig', 0.8) WITH ORDINALITY) s USING (ordinality);
SET minhash.group_memory = '512kB';
SELECT count(*) AS rows, count(*) FILTER (WHERE m::text IS DISTINCT FROM s::text) AS differences
  FROM pd_in_memory m FULL JOIN (SELECT * FROM near_dupe_pairs('pd_copies', 'id', 'sig', 0.8) WITH ORDINALITY) s USING (ordinality);
RESET minhash.group_memory;
SELECT count(*) AS pairs, min(resemblance) FROM near_dupe_pairs('pd_copies', 'id', 'sig', 0.8);

-- A cancel ends it, even inside one bucket of 20,000 identical signatures
-- (200 million pairs; the cap stops it first if the cancel is late).
CREATE TABLE pd_crowded AS SELECT i AS id, minhash('the same memo sent to everybody in the company'::text) AS sig
  FROM generate_series(1, 20000) i;
SET statement_timeout = '500ms';
SELECT count(*) FROM near_dupe_pairs('pd_crowded', 'id', 'sig', 0.5);
RESET statement_timeout;
\set SHOW_CONTEXT errors

-- The Citus forms (near_dupe_pairs_distributed, near_dupe_groups_distributed;
-- test/citus/citus.sh runs them on Citus) check the arguments as
-- near_dupe_pairs does, then refuse a table that is not distributed: here,
-- without Citus, every table.  Nothing is created.
CREATE FUNCTION pg_temp.error_of(statement text) RETURNS TABLE (error text, detail text, hint text)
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
\x on
SELECT * FROM pg_temp.error_of($$SELECT * FROM near_dupe_pairs_distributed('pd', 'id', 'sig', 0.8)$$);
SELECT * FROM pg_temp.error_of($$SELECT * FROM near_dupe_groups_distributed('pd', 'id', 'sig')$$);
SELECT * FROM pg_temp.error_of($$SELECT * FROM near_dupe_groups_distributed('pd', 'id', 'sig', NULL)$$);
SELECT * FROM pg_temp.error_of($$SELECT * FROM near_dupe_pairs_distributed('pd', 'id', 'sig', 0.8, recall => 1)$$);
SELECT * FROM pg_temp.error_of($$SELECT * FROM near_dupe_pairs_distributed('pd', 'ID', 'sig', 0.8)$$);
\x off
SELECT count(*) FROM pg_class WHERE relname LIKE 'minhash\_work\_%';

DROP TABLE pd, pd_short, pd_copies, pd_crowded;
