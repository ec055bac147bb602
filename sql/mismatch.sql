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
-- The near-duplicate tests (%, %>, resembles) refuse them with the same
-- error: nothing was compared, so "false" would be no answer.  Same
-- documents, so with the same parameters each would be true.
SET minhash.threshold = 0.5;
SELECT minhash('a b c'::text, 64) % minhash('a b c'::text, 32) AS other_num_perm;
SELECT minhash('a b c'::text, 64) % minhash('a b c'::text, 64, 4) AS other_shingle_size;
SELECT minhash('a b c'::text, 64, 5) % minhash_chars('a b c', 5, 64) AS other_kind;
SELECT minhash('a b c'::text, 64) %> minhash_query(minhash('a b c'::text, 64, 5, 7), 0.5) AS other_seed;
-- At threshold 0 too, where every pair of one parameter set qualifies.
SELECT minhash('a b c'::text, 64) %> minhash_query(minhash('a b c'::text, 64, 5, 7), 0) AS other_seed_threshold_0;
SELECT resembles(minhash('a b c'::text, 64), minhash('a b c'::text, 64, 5, 7), 0.5) AS resembles_other_seed;
SELECT minhash('a b c'::text, 64) % minhash('a b c'::text, 64) AS same,
       minhash('a b c'::text, 64) %> minhash_query(minhash('a b c'::text, 64), 0.5) AS same_query,
       resembles(minhash('a b c'::text, 64), minhash('a b c'::text, 64), 0) AS resembles_same;
RESET minhash.threshold;
-- Empty signatures hold the same values (ffffffff) whatever their
-- parameters, but their headers say how they were built: two empty
-- signatures of other parameters are refused too, before the rule that an
-- empty signature resembles nothing (% is false for two of the same
-- parameters).
SELECT minhash(''::text, 4) AS words_k5, minhash(''::text, 4, 3) AS words_k3,
       minhash_chars('', 5, 4) AS chars_q5, minhash('{}'::text[], 4) AS set;
SELECT minhash(''::text, 4) % minhash(''::text, 4) AS same_params,
       minhash_bands(minhash(''::text, 4), 2, 2) = minhash_bands(minhash('{}'::text[], 4), 2, 2) AS same_band_keys;
SELECT minhash(''::text, 4) % minhash(''::text, 4, 3) AS other_shingle_size;
SELECT minhash(''::text, 4) % minhash('{}'::text[], 4) AS other_kind;
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
-- The statistics hold signatures of every parameter set.
SELECT (SELECT count(DISTINCT (minhash_kind(s), minhash_num_perm(s), minhash_shingle_size(s), minhash_seed(s)))
          FROM unnest(histogram_bounds::text::minhash[]) s) AS histogram_parameter_sets,
       (SELECT count(DISTINCT (minhash_kind(s), minhash_num_perm(s), minhash_shingle_size(s), minhash_seed(s)))
          FROM unnest(most_common_vals::text::minhash[]) s) AS common_value_parameter_sets
  FROM pg_stats WHERE tablename = 'mixed' AND attname = 'sig';
-- The queries as literals, so that the planner sees constants: set A's
-- e1 .. e100, the seed-1 signature of the copies 400 to 419, the empty
-- signature of set A, and set A's e1 .. e100 with 16 values (no row has).
SELECT minhash(mixed_elements(1), 64)::text AS query_a, minhash(mixed_elements(1), 64, 1)::text AS query_seed_1,
       minhash('{}'::text[], 64)::text AS query_empty, minhash(mixed_elements(1), 16)::text AS query_16 \gset
-- A plan, its literals shortened.
CREATE FUNCTION mixed_plan(query text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
		RETURN NEXT regexp_replace(line, '''[^'']*''', '''...''', 'g');
	END LOOP;
END $$;
-- The planner's estimate of a query's rows (the top node's).
CREATE FUNCTION mixed_estimate(query text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
	plan json;
BEGIN
	EXECUTE 'EXPLAIN (FORMAT JSON) ' || query INTO plan;
	RETURN (plan -> 0 -> 'Plan' ->> 'Plan Rows')::bigint;
END $$;
-- Planning never raises over these statistics: the estimators of % and %>
-- (so of resembles) count a statistics value of other parameters as not
-- matching, where matchingsel would run the operator on it and raise.  The
-- estimate follows the rows of the query's parameters: 13 rows of set A
-- match the set A query at 0.8, the 20 copies and row 100 the seed-1 query,
-- no row the 16-value query (an estimate is at least one row).
SELECT mixed_plan(format('SELECT id FROM mixed WHERE sig %% %L::minhash', :'query_a'));
SET minhash.threshold = 0.8;
SELECT q.name,
       mixed_estimate(format('SELECT id FROM mixed WHERE sig %% %L::minhash', q.sig)) AS similar,
       mixed_estimate(format('SELECT id FROM mixed WHERE sig %%> minhash_query(%L::minhash, 0.8)', q.sig)) AS query,
       mixed_estimate(format('SELECT id FROM mixed WHERE resembles(sig, %L::minhash, 0.8)', q.sig)) AS resembles
  FROM (VALUES ('set A', :'query_a'), ('seed 1', :'query_seed_1'), ('16 values', :'query_16')) q(name, sig);
-- What a sequential scan and an index scan compare.
CREATE FUNCTION mixed_matches(plan_name text, q minhash) RETURNS TABLE(plan text, operator text, ids integer[]) LANGUAGE plpgsql AS $$
BEGIN
	-- EXECUTE with the signature pasted in: planned with a constant, each time
	RETURN QUERY EXECUTE format('SELECT %L, ''%%'', array_agg(id ORDER BY id) FROM mixed WHERE sig %% %L::minhash', plan_name, q);
	RETURN QUERY EXECUTE format('SELECT %L, ''%%>'', array_agg(id ORDER BY id) FROM mixed WHERE sig %%> minhash_query(%L::minhash, 0.8)', plan_name, q);
	RETURN QUERY EXECUTE format('SELECT %L, ''resembles'', array_agg(id ORDER BY id) FROM mixed WHERE resembles(sig, %L::minhash, 0.8)', plan_name, q);
END $$;
CREATE FUNCTION mixed_index_plan(q minhash) RETURNS TABLE(plan text, operator text, ids integer[]) LANGUAGE plpgsql AS $$
BEGIN
	SET LOCAL enable_seqscan = off;
	-- GIN serves only bitmap scans; from PostgreSQL 16 on, a plain index scan
	-- of the primary key (presorted for array_agg's ORDER BY) with a filter
	-- would read every row
	SET LOCAL enable_indexscan = off;
	RETURN QUERY SELECT * FROM mixed_matches('index', q);
END $$;
PREPARE mixed_similar(minhash) AS SELECT array_agg(id ORDER BY id) FROM mixed WHERE sig % $1;
PREPARE mixed_query(minhash) AS SELECT array_agg(id ORDER BY id) FROM mixed WHERE sig %> minhash_query($1, 0.8);
PREPARE mixed_resembles(text) AS SELECT array_agg(id ORDER BY id) FROM mixed WHERE resembles(sig, $1, 0.8);
-- A sequential scan compares the query with every row, so it meets row 100
-- (seed 1) and raises, in every form.
SET enable_bitmapscan = off;
SET enable_indexscan = off;
SELECT array_agg(id) FROM mixed WHERE sig % :'query_a'::minhash;
SELECT array_agg(id) FROM mixed WHERE sig %> minhash_query(:'query_a'::minhash, 0.8);
SELECT array_agg(id) FROM mixed WHERE resembles(sig, :'query_a', 0.8);
PREPARE mixed_similar_sequential(minhash) AS SELECT array_agg(id ORDER BY id) FROM mixed WHERE sig % $1;
PREPARE mixed_query_sequential(minhash) AS SELECT array_agg(id ORDER BY id) FROM mixed WHERE sig %> minhash_query($1, 0.8);
SET plan_cache_mode = force_custom_plan;
EXECUTE mixed_similar_sequential(:'query_a');
SET plan_cache_mode = force_generic_plan;
EXECUTE mixed_query_sequential(:'query_a');
RESET plan_cache_mode;
RESET enable_bitmapscan;
RESET enable_indexscan;
-- An index scan compares the query with the rows that share band keys with
-- it: set A's rows 0 to 12 (row 12's estimate reaches 0.8, its exact
-- resemblance 0.79), none of other parameters.
SELECT * FROM mixed_index_plan(:'query_a');
SET enable_seqscan = off;
SET enable_indexscan = off;
SELECT mixed_plan(format('SELECT id FROM mixed WHERE sig %% %L::minhash', :'query_a'));
SET plan_cache_mode = force_custom_plan;
EXECUTE mixed_similar(:'query_a');
EXECUTE mixed_query(:'query_a');
EXECUTE mixed_resembles(:'query_a');
SET plan_cache_mode = force_generic_plan;
EXECUTE mixed_similar(:'query_a');
EXECUTE mixed_query(:'query_a');
EXECUTE mixed_resembles(:'query_a');
RESET plan_cache_mode;
-- The empty query resembles nothing and has no band keys: the index returns
-- no row and compares nothing, where a sequential scan would compare it
-- with the empty rows of words k=3 (420 to 439) and raise.
SELECT mixed_plan(format('SELECT id FROM mixed WHERE sig %%> minhash_query(%L::minhash, 0.8)', :'query_empty'));
SELECT array_agg(id) FROM mixed WHERE sig %> minhash_query(:'query_empty'::minhash, 0.8);
SELECT array_agg(id) FROM mixed WHERE resembles(sig, :'query_empty', 0.8);
RESET enable_seqscan;
RESET enable_indexscan;
-- The measures over the column refuse the pairs of other parameters too ...
SELECT id, resemblance(sig, :'query_a'::minhash) FROM mixed ORDER BY id;
-- ... and give numbers for the rows of the query's parameters.
SELECT id, round(resemblance(sig, :'query_a'::minhash)::numeric, 2) AS resemblance
  FROM (SELECT id, sig FROM mixed WHERE id < 60 OFFSET 0) set_a ORDER BY id LIMIT 3;
RESET minhash.threshold;

-- The flagging trigger compares the new row's signature with the column's
-- through %>: a row of other parameters that its lookup compares is refused
-- with the same error, a context line saying which trigger compared and
-- that the second signature is the new row's.  The table holds set A only,
-- then the other parameter sets too.  Its key is named, not a primary key,
-- so that with sequential scans off the lookup can only take the GIN index.
CREATE TABLE mixed_flags (id integer, sig minhash, dup_of integer);
INSERT INTO mixed_flags (id, sig) SELECT id, sig FROM mixed WHERE id < 60;
CREATE TRIGGER flag_dups BEFORE INSERT OR UPDATE ON mixed_flags FOR EACH ROW
	EXECUTE FUNCTION minhash_flag_duplicates('sig', 'dup_of', '0.8', 'id');
-- Without an index the lookup reads every row: a new row of set A is
-- flagged with row 0 (the same set); one of seed 1 meets row 0 and raises,
-- on INSERT and on UPDATE, under custom and generic plans.
INSERT INTO mixed_flags (id, sig) VALUES (1000, minhash(mixed_elements(1), 64));
INSERT INTO mixed_flags (id, sig) VALUES (1001, minhash(mixed_elements(1), 64, 1));
UPDATE mixed_flags SET sig = minhash(mixed_elements(1), 64, 1) WHERE id = 1000;
SET plan_cache_mode = force_generic_plan;
INSERT INTO mixed_flags (id, sig) VALUES (2000, minhash(mixed_elements(1), 64));
INSERT INTO mixed_flags (id, sig) VALUES (2001, minhash(mixed_elements(1), 64, 1));
RESET plan_cache_mode;
-- With the index the lookup compares the rows that share band keys with
-- the new row.  The other parameter sets join the column (with the trigger
-- disabled, as for rebuilding a column's signatures with other parameters):
-- a new row of set A meets set A's rows only; a new empty row of set A
-- resembles nothing, so it is not looked up: no flag, and no comparison
-- with the empty rows of words k=3.
ALTER TABLE mixed_flags DISABLE TRIGGER flag_dups;
INSERT INTO mixed_flags (id, sig) SELECT id, sig FROM mixed WHERE id >= 60;
ALTER TABLE mixed_flags ENABLE TRIGGER flag_dups;
CREATE INDEX mixed_flags_sig ON mixed_flags USING gin (sig) WITH (fastupdate = off);
ANALYZE mixed_flags;
SET enable_seqscan = off;
SET enable_indexscan = off;
INSERT INTO mixed_flags (id, sig) VALUES (3000, minhash(mixed_elements(1), 64));
INSERT INTO mixed_flags (id, sig) VALUES (3003, minhash('{}'::text[], 64));
RESET enable_seqscan;
RESET enable_indexscan;
SELECT id, dup_of FROM mixed_flags WHERE id >= 1000 ORDER BY id;

DROP TABLE mixed_flags;
DROP TABLE mixed;
DROP FUNCTION mixed_index_plan(minhash);
DROP FUNCTION mixed_matches(text, minhash);
DROP FUNCTION mixed_estimate(text);
DROP FUNCTION mixed_plan(text);
DROP FUNCTION mixed_elements(integer);
DEALLOCATE mixed_similar;
DEALLOCATE mixed_query;
DEALLOCATE mixed_resembles;
DEALLOCATE mixed_similar_sequential;
DEALLOCATE mixed_query_sequential;
