-- Signature speed on realistic text (issue 17), in one session:
--   1. one core: md5(body) (a floor: one pass over the bytes), minhash(body)
--      at 128 and 256 values; rounds of all three, best round each, and each
--      one's time as a multiple of md5's.
--   2. the bulk path: signatures for every row with one core (UPDATE, and
--      CREATE TABLE AS without workers) against CREATE TABLE AS with two
--      workers, and UPDATE split across two sessions.
-- Prints figures; asserts only that the bulk plans are what they claim and
-- that every path stores the same signatures.
--
-- Needs real_docs(id, body) (test/corpus/generate_realistic.sql; the .sh
-- makes it).  Variables: rounds (default 5).
\set ON_ERROR_STOP 1
\if :{?rounds}
\else
\set rounds 5
\endif
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS minhash;
SET jit = off;

-- The bodies, plain (real_docs' are short enough to stay in the row).
DROP TABLE IF EXISTS sigspeed_docs, sigspeed_update, sigspeed_ctas1, sigspeed_ctas2, sigspeed_split;
CREATE TABLE sigspeed_docs AS SELECT id, body FROM real_docs;
ALTER TABLE sigspeed_docs ADD PRIMARY KEY (id);
VACUUM ANALYZE sigspeed_docs;

\echo
\echo 'minhash(doc text) is marked:'
SELECT p.oid::regprocedure AS function, p.provolatile AS volatility, p.proparallel AS parallel, p.procost AS cost
  FROM pg_proc p
 WHERE p.proname = 'minhash' AND p.proargtypes[0] = 'text'::regtype;

-- 1. One core -----------------------------------------------------------------
SET max_parallel_workers_per_gather = 0;

-- Runs the queries in turn, `rounds` times, so that a noisy moment hurts them
-- alike, and keeps each query's best time.
CREATE FUNCTION pg_temp.best_times(queries text[], rounds int) RETURNS SETOF float8
LANGUAGE plpgsql SET search_path = public, pg_catalog, pg_temp AS $$
DECLARE
	best float8[] := array_fill('Infinity'::float8, ARRAY[cardinality(queries)]);
	started timestamptz;
BEGIN
	FOR round IN 1..rounds LOOP
		FOR q IN 1..cardinality(queries) LOOP
			started := clock_timestamp();
			EXECUTE queries[q];
			best[q] := least(best[q], 1000 * extract(epoch FROM clock_timestamp() - started));
		END LOOP;
	END LOOP;
	RETURN QUERY SELECT unnest(best);
END $$;

CREATE TEMP TABLE speed_queries (ord int, name text, query text);
INSERT INTO speed_queries VALUES
	(1, 'md5(body)', 'SELECT count(md5(body)) FROM sigspeed_docs'),
	(2, 'minhash(body), 128 values', 'SELECT count(minhash(body)) FROM sigspeed_docs'),
	(3, 'minhash(body, 256)', 'SELECT count(minhash(body, 256)) FROM sigspeed_docs'),
	(4, 'count(*) (the scan alone)', 'SELECT count(body) FROM sigspeed_docs');

CREATE TEMP TABLE speed_result AS
WITH size AS (SELECT sum(octet_length(body)) / 1e6 AS mb, count(*) AS docs FROM sigspeed_docs),
times AS (SELECT row_number() OVER () AS ord, ms
            FROM pg_temp.best_times(ARRAY(SELECT query FROM speed_queries ORDER BY ord), :rounds) AS ms)
SELECT q.ord, q.name, t.ms, mb, docs
  FROM speed_queries q JOIN times t USING (ord), size;

\echo
\echo 'One core (max_parallel_workers_per_gather = 0), best of' :rounds 'rounds:'
SELECT r.name, r.docs, round(r.mb::numeric, 1) AS mb, round(r.ms::numeric, 1) AS ms,
       round((r.mb / (r.ms / 1000))::numeric, 1) AS mb_per_s,
       round((r.ms / m.ms)::numeric, 2) AS x_md5,
       round(((r.ms - s.ms) / (m.ms - s.ms))::numeric, 2) AS x_md5_without_scan
  FROM speed_result r, speed_result m, speed_result s
 WHERE m.ord = 1 AND s.ord = 4
 ORDER BY r.ord;

-- 2. The bulk path ------------------------------------------------------------
-- Runs a statement under EXPLAIN ANALYZE (so it really runs) and returns its
-- wall time and how many workers ran it.
CREATE FUNCTION pg_temp.timed(statement text, OUT ms float8, OUT workers int, OUT plan text)
LANGUAGE plpgsql SET search_path = public, pg_catalog, pg_temp AS $$
DECLARE
	started timestamptz;
	result json;
BEGIN
	started := clock_timestamp();
	EXECUTE 'EXPLAIN (ANALYZE, TIMING OFF, COSTS OFF, FORMAT JSON) ' || statement INTO result;
	ms := 1000 * extract(epoch FROM clock_timestamp() - started);
	workers := coalesce((SELECT sum((m[1])::int) FROM regexp_matches(result::text, '"Workers Launched": (\d+)', 'g') AS m), 0);
	plan := (SELECT string_agg(m[1], ' > ') FROM regexp_matches(result::text, '"Node Type": "([^"]+)"', 'g') AS m);
END $$;

DROP TABLE IF EXISTS sigspeed_bulk;
CREATE TABLE sigspeed_bulk (ord int, path text, ms float8, workers int, plan text);

-- Each run starts from a checkpoint, so that none pays for another's dirty
-- pages, and from a table whose pages are in shared buffers.
CREATE TABLE sigspeed_update AS SELECT id, body, NULL::minhash AS sig FROM sigspeed_docs;
ALTER TABLE sigspeed_update ADD PRIMARY KEY (id);
VACUUM ANALYZE sigspeed_update;
SELECT count(*) FROM sigspeed_update \gset
CHECKPOINT;
SET max_parallel_workers_per_gather = 0;
INSERT INTO sigspeed_bulk SELECT 1, 'UPDATE t SET sig = minhash(body), one core', * FROM pg_temp.timed('UPDATE sigspeed_update SET sig = minhash(body)');
CHECKPOINT;
INSERT INTO sigspeed_bulk SELECT 2, 'CREATE TABLE AS, no workers', * FROM pg_temp.timed('CREATE TABLE sigspeed_ctas1 AS SELECT id, minhash(body) AS sig FROM sigspeed_docs');
CHECKPOINT;
SET max_parallel_workers_per_gather = 2;
INSERT INTO sigspeed_bulk SELECT 3, 'CREATE TABLE AS, 2 workers', * FROM pg_temp.timed('CREATE TABLE sigspeed_ctas2 AS SELECT id, minhash(body) AS sig FROM sigspeed_docs');
CHECKPOINT;

\echo
\echo 'Bulk path (rows of sigspeed_docs):'
SELECT b.path, round(b.ms::numeric) AS ms, b.workers AS workers_launched, b.plan,
       round((u.ms / b.ms)::numeric, 2) AS speedup_vs_update
  FROM sigspeed_bulk b, sigspeed_bulk u
 WHERE u.ord = 1
 ORDER BY b.ord;

-- Checks (not timings): the two-worker run really ran in parallel, and every
-- path stored the same signatures.
SELECT (SELECT workers FROM sigspeed_bulk WHERE ord = 3) = 2 AS ctas_ran_with_2_workers,
       (SELECT count(*) FROM sigspeed_update u JOIN sigspeed_ctas1 c USING (id) WHERE u.sig::text = c.sig::text) = :count
   AND (SELECT count(*) FROM sigspeed_update u JOIN sigspeed_ctas2 c USING (id) WHERE u.sig::text = c.sig::text) = :count
       AS same_signatures \gset check_
\if :check_ctas_ran_with_2_workers
\else
\echo 'signature_speed: ERROR: CREATE TABLE AS did not run with 2 workers'
SELECT 1/0 AS ctas_not_parallel;
\endif
\if :check_same_signatures
\else
\echo 'signature_speed: ERROR: the bulk paths stored different signatures'
SELECT 1/0 AS signatures_differ;
\endif
