-- Signatures built differently cannot be measured against each other: each
-- measure (resemblance, containment, <%>, resemblance_interval, the union)
-- raises an error naming both parameter sets.
SELECT resemblance(minhash('a b c'::text, 64), minhash('a b c'::text, 128));
SELECT resemblance(minhash('a b c'::text, 64, 5), minhash('a b c'::text, 64, 3));
SELECT resemblance(minhash('a b c'::text, 64, 5, 0), minhash('a b c'::text, 64, 5, 1));
SELECT resemblance(minhash('a b c'::text, 64, 5), minhash_chars('a b c', 5, 64));
SELECT resemblance(minhash(ARRAY['a'], 64), minhash('a'::text, 64, 1));
SELECT minhash('a b c'::text, 64) <%> minhash('a b c'::text, 64, 4);
SELECT containment(minhash_chars('a b c', 3, 64), minhash_chars('a b c', 4, 64));
SELECT * FROM resemblance_interval(minhash('a b c'::text, 64), minhash('a b c'::text, 64, 5, 7));
SELECT minhash_union(minhash(ARRAY['a'], 64), minhash(ARRAY['a'], 32));
-- The near-duplicate tests (%, %>, resembles) say false instead: a signature
-- built with other parameters is not a near-duplicate.  Same documents, so
-- with the same parameters each would be true.
SET minhash.threshold = 0.5;
SELECT minhash('a b c'::text, 64) % minhash('a b c'::text, 32) AS other_num_perm,
       minhash('a b c'::text, 64) % minhash('a b c'::text, 64, 4) AS other_shingle_size,
       minhash('a b c'::text, 64) % minhash('a b c'::text, 64, 5, 7) AS other_seed,
       minhash('a b c'::text, 64, 5) % minhash_chars('a b c', 5, 64) AS other_kind,
       minhash('a b c'::text, 64) % minhash('a b c'::text, 64) AS same;
SELECT minhash('a b c'::text, 64) %> minhash_query(minhash('a b c'::text, 64, 5, 7), 0) AS other_seed_threshold_0,
       resembles(minhash('a b c'::text, 64), minhash('a b c'::text, 64, 5, 7), 0.5) AS resembles_other_seed,
       resembles(minhash('a b c'::text, 64), minhash('a b c'::text, 64), 0) AS resembles_same;
RESET minhash.threshold;
-- Empty signatures hold the same values (ffffffff) whatever their
-- parameters, so they share band keys, but their headers say how they were
-- built: two empty signatures of other parameters are not near-duplicates
-- either (and the index's recheck drops them, below).
SELECT minhash(''::text, 4) AS words_k5, minhash(''::text, 4, 3) AS words_k3,
       minhash_chars('', 5, 4) AS chars_q5, minhash('{}'::text[], 4) AS set;
SELECT minhash(''::text, 4) % minhash(''::text, 4) AS same_params,
       minhash(''::text, 4) % minhash(''::text, 4, 3) AS other_shingle_size,
       minhash(''::text, 4) % minhash('{}'::text[], 4) AS other_kind,
       minhash_bands(minhash(''::text, 4), 2, 2) = minhash_bands(minhash('{}'::text[], 4), 2, 2) AS same_band_keys;
SELECT resemblance(minhash(''::text, 4), minhash(''::text, 4, 3));
-- Equality is not an estimate: differently built signatures are just unequal.
SELECT minhash('a b c'::text, 64) = minhash('a b c'::text, 64, 3) AS equal;

-- A column of mixed signatures.  Parameter set A (set, 64 values, seed 0):
-- row i holds e(i+1) .. e(i+100), resemblance (100 - i) / (100 + i) with the
-- query e1 .. e100.  The same sets with seed 1, with 32 values, and as
-- 3-word shingles; copies of one seed-1 signature (most common values); and
-- empty signatures of two parameter sets.
CREATE TABLE mixed (id integer PRIMARY KEY, sig minhash);
CREATE FUNCTION mixed_elements(first integer) RETURNS text[] LANGUAGE sql IMMUTABLE
	AS $$ SELECT array(SELECT 'e' || j FROM generate_series(first, first + 99) j) $$;
INSERT INTO mixed SELECT i, minhash(mixed_elements(i + 1), 64) FROM generate_series(0, 59) i;
INSERT INTO mixed SELECT 100 + i, minhash(mixed_elements(i + 1), 64, 1) FROM generate_series(0, 59) i;
INSERT INTO mixed SELECT 200 + i, minhash(mixed_elements(i + 1), 32) FROM generate_series(0, 39) i;
INSERT INTO mixed SELECT 300 + i, minhash(array_to_string(mixed_elements(i + 1), ' '), 64, 3) FROM generate_series(0, 39) i;
INSERT INTO mixed SELECT 400 + i, minhash(mixed_elements(1), 64, 1) FROM generate_series(0, 19) i;
INSERT INTO mixed SELECT 420 + i, minhash(''::text, 64, 3) FROM generate_series(0, 19) i;
INSERT INTO mixed SELECT 450 + i, minhash('{}'::text[], 64) FROM generate_series(0, 4) i;
CREATE INDEX mixed_sig ON mixed USING gin (sig);
ANALYZE mixed;
-- The statistics hold signatures of every parameter set: the planner's
-- estimate of % runs the operator on each of them.
SELECT (SELECT count(DISTINCT (minhash_kind(s), minhash_num_perm(s), minhash_shingle_size(s), minhash_seed(s)))
          FROM unnest(histogram_bounds::text::minhash[]) s) AS histogram_parameter_sets,
       (SELECT count(DISTINCT (minhash_kind(s), minhash_num_perm(s), minhash_shingle_size(s), minhash_seed(s)))
          FROM unnest(most_common_vals::text::minhash[]) s) AS common_value_parameter_sets
  FROM pg_stats WHERE tablename = 'mixed' AND attname = 'sig';
-- The queries as literals, so that the planner sees constants.
SELECT minhash(mixed_elements(1), 64)::text AS query_a, minhash('{}'::text[], 64)::text AS query_empty \gset
-- A plan, its literals shortened (and without the heap blocks, which a
-- parallel worker does not report).  PostgreSQL 18 prints whole actual row
-- counts with two decimals (rows=5.00), adds an Index Searches line and
-- reports buffers under ANALYZE unless told not to (BUFFERS OFF below): the
-- count is printed as before 18, the line left out, so that one expected
-- file serves every major.
CREATE FUNCTION mixed_plan(query text, options text DEFAULT 'COSTS OFF') RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (' || options || ') ' || query LOOP
		CONTINUE WHEN line LIKE '%Heap Blocks:%' OR line LIKE '%Index Searches:%';
		line := regexp_replace(line, '(actual rows=[0-9]+)\.00 ', '\1 ', 'g');
		RETURN NEXT regexp_replace(line, '''[^'']*''', '''...''', 'g');
	END LOOP;
END $$;
-- Planning never raises (1.0 raised "cannot compare minhash signatures
-- built with different parameters" here, in EXPLAIN), and every plan returns
-- the rows of parameter set A at or above the threshold: rows 0 to 12 for
-- the query (row 12's estimate reaches 0.8, its exact resemblance 0.79),
-- the empty rows 450 to 454 of set A (not the empty rows 420 to 439 of
-- words k=3, whose band keys are the same) for the empty query.
SELECT mixed_plan(format('SELECT id FROM mixed WHERE sig %% %L::minhash', :'query_a'));
CREATE FUNCTION mixed_matches(plan_name text, q minhash) RETURNS TABLE(plan text, operator text, ids integer[]) LANGUAGE plpgsql AS $$
BEGIN
	-- EXECUTE with the signature pasted in: planned with a constant, each time
	RETURN QUERY EXECUTE format('SELECT %L, ''%%'', array_agg(id ORDER BY id) FROM mixed WHERE sig %% %L::minhash', plan_name, q);
	RETURN QUERY EXECUTE format('SELECT %L, ''%%>'', array_agg(id ORDER BY id) FROM mixed WHERE sig %%> minhash_query(%L::minhash, 0.8)', plan_name, q);
	RETURN QUERY EXECUTE format('SELECT %L, ''resembles'', array_agg(id ORDER BY id) FROM mixed WHERE resembles(sig, %L::minhash, 0.8)', plan_name, q);
END $$;
-- Every plan for one query: through the index, and sequentially.
CREATE FUNCTION mixed_every_plan(q minhash) RETURNS TABLE(plan text, operator text, ids integer[]) LANGUAGE plpgsql AS $$
BEGIN
	SET LOCAL enable_seqscan = off;
	RETURN QUERY SELECT * FROM mixed_matches('index', q);
	SET LOCAL enable_seqscan = on;
	SET LOCAL enable_bitmapscan = off;
	SET LOCAL enable_indexscan = off;
	RETURN QUERY SELECT * FROM mixed_matches('sequential', q);
END $$;
PREPARE mixed_similar(minhash) AS SELECT array_agg(id ORDER BY id) FROM mixed WHERE sig % $1;
PREPARE mixed_query(minhash) AS SELECT array_agg(id ORDER BY id) FROM mixed WHERE sig %> minhash_query($1, 0.8);
SET minhash.threshold = 0.8;
SELECT * FROM mixed_every_plan(:'query_a');
SELECT * FROM mixed_every_plan(:'query_empty');
-- The same rows through the index (the plans say so) and the prepared
-- statements, planned for their parameter (custom) or not (generic).
SET enable_seqscan = off;
SELECT mixed_plan(format('SELECT id FROM mixed WHERE sig %% %L::minhash', :'query_a'));
-- The index proposes the 20 empty rows of words k=3 too; the recheck drops them.
SELECT mixed_plan(format('SELECT id FROM mixed WHERE sig %%> minhash_query(%L::minhash, 0.8)', :'query_empty'),
                  'ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF');
RESET enable_seqscan;
SET plan_cache_mode = force_custom_plan;
EXECUTE mixed_similar(:'query_a');
EXECUTE mixed_query(:'query_a');
EXECUTE mixed_similar(:'query_empty');
EXECUTE mixed_query(:'query_empty');
SET plan_cache_mode = force_generic_plan;
EXECUTE mixed_similar(:'query_a');
EXECUTE mixed_query(:'query_a');
EXECUTE mixed_similar(:'query_empty');
EXECUTE mixed_query(:'query_empty');
RESET plan_cache_mode;
-- The measures over the column still refuse the pairs of other parameters:
-- that is an error, not a number.
SELECT id, resemblance(sig, :'query_a'::minhash) FROM mixed ORDER BY id;
-- ... and give numbers for the rows % selects.
SELECT id, round(resemblance(sig, :'query_a'::minhash)::numeric, 2) AS resemblance
  FROM mixed WHERE sig % :'query_a'::minhash ORDER BY id LIMIT 3;
RESET minhash.threshold;

-- The flagging trigger on a column of mixed signatures: its lookup (%>) is
-- planned with the new signature as a constant (custom plans) or not
-- (generic), and in both a row is only flagged against rows of its own
-- parameters.
CREATE TABLE mixed_flags (id integer PRIMARY KEY, sig minhash, dup_of integer);
INSERT INTO mixed_flags (id, sig) SELECT id, sig FROM mixed;
CREATE INDEX mixed_flags_sig ON mixed_flags USING gin (sig);
ANALYZE mixed_flags;
CREATE TRIGGER flag_dups BEFORE INSERT OR UPDATE ON mixed_flags FOR EACH ROW
	EXECUTE FUNCTION minhash_flag_duplicates('sig', 'dup_of', '0.8');
-- Custom plans: 1000 is flagged with row 0 (set A, the same set), 1001 with
-- row 100 (seed 1, the same set; the copies 400 to 419 tie, the smallest
-- key wins), 1003 with row 450 (empty of set A, not the empty words 420);
-- 1002 (16 values) with nothing: no row has its parameters.  Generic plans:
-- the same, and 2002 with 1002.
SET plan_cache_mode = force_custom_plan;
INSERT INTO mixed_flags (id, sig) VALUES
	(1000, minhash(mixed_elements(1), 64)), (1001, minhash(mixed_elements(1), 64, 1)),
	(1002, minhash(mixed_elements(1), 16)), (1003, minhash('{}'::text[], 64));
SET plan_cache_mode = force_generic_plan;
INSERT INTO mixed_flags (id, sig) VALUES
	(2000, minhash(mixed_elements(1), 64)), (2001, minhash(mixed_elements(1), 64, 1)),
	(2002, minhash(mixed_elements(1), 16)), (2003, minhash('{}'::text[], 64));
RESET plan_cache_mode;
SELECT id, dup_of FROM mixed_flags WHERE id >= 1000 ORDER BY id;

DROP TABLE mixed_flags;
DROP TABLE mixed;
DROP FUNCTION mixed_every_plan(minhash);
DROP FUNCTION mixed_matches(text, minhash);
DROP FUNCTION mixed_plan(text, text);
DROP FUNCTION mixed_elements(integer);
DEALLOCATE mixed_similar;
DEALLOCATE mixed_query;
