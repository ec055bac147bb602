-- The band index at scale: a deterministic corpus of 1,000,000 documents with
-- planted near-duplicate families, then build time, index size and lookup
-- latency of gin_minhash_ops against a generic GIN index over the same band
-- keys (minhash_bands(sig, 28, 4), int8[], queried with &&) and over the
-- pigeonhole-minimum layout (26, 4).  Not part of the test run (about 12
-- minutes): `bash test/bench/bench_1m.sh` runs it on a throwaway cluster, or
--   psql -f test/bench/bench_1m.sql
-- on any cluster with the extension installed (an existing bench_docs table
-- is reused; drop it to regenerate).
\set ON_ERROR_STOP 1
CREATE EXTENSION IF NOT EXISTS minhash;
SET max_parallel_workers_per_gather = 2;
SET max_parallel_maintenance_workers = 0;
SET maintenance_work_mem = '1GB';
SET jit = off;

\ir ../corpus/generate_1m.sql
SELECT count(*) AS documents, pg_size_pretty(sum(octet_length(body))) AS text FROM bench_docs;
SELECT * FROM lsh_index_layout(0.8, 128);

\ir ../lib/elapsed.sql

-- One index at a time (each is dropped after its lookups), so that every
-- build and every lookup sees the same machine.
CREATE TEMP TABLE bench_queries AS SELECT id, sig FROM bench_docs ORDER BY hashint8(id) LIMIT 1000;
CREATE TEMP TABLE bench_result (method text, build_s float8, size bigint, p50_ms float8, p95_ms float8, mean_rows float8);
-- Lookups are static SQL (plans cached by PL/pgSQL), as an application's
-- prepared statements would be: EXECUTE ... USING would plan every lookup,
-- and planning the generic index's && costs more than its lookup.
CREATE FUNCTION pg_temp.lookup(lookup text, q minhash) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
	n bigint;
BEGIN
	CASE lookup
		WHEN 'minhash %' THEN SELECT count(*) INTO n FROM bench_docs WHERE sig % q;
		WHEN 'bands 28 x 4' THEN
			SELECT count(*) INTO n FROM bench_docs WHERE minhash_bands(sig, 28, 4) && minhash_bands(q, 28, 4) AND sig % q;
		WHEN 'bands 26 x 4' THEN
			SELECT count(*) INTO n FROM bench_docs WHERE minhash_bands(sig, 26, 4) && minhash_bands(q, 26, 4) AND sig % q;
	END CASE;
	RETURN n;
END $$;
CREATE FUNCTION pg_temp.measure(method text, index_definition text, lookup text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	build float8;
	q record;
	started timestamptz;
	n bigint;
	times float8[] := '{}';
	total bigint := 0;
BEGIN
	DROP INDEX IF EXISTS bench_index;
	build := pg_temp.elapsed_s('CREATE INDEX bench_index ON bench_docs USING gin ' || index_definition);
	PERFORM set_config('enable_seqscan', 'off', true);
	PERFORM set_config('enable_indexscan', 'off', true);
	FOR q IN SELECT * FROM bench_queries LOOP
		started := clock_timestamp();
		n := pg_temp.lookup(lookup, q.sig);
		times := times || 1000 * extract(epoch FROM clock_timestamp() - started)::float8;
		total := total + n;
	END LOOP;
	INSERT INTO bench_result
	SELECT method, build, pg_relation_size('bench_index'),
	       percentile_cont(0.5) WITHIN GROUP (ORDER BY t), percentile_cont(0.95) WITHIN GROUP (ORDER BY t),
	       total::float8 / cardinality(times)
	  FROM unnest(times) t;
	DROP INDEX bench_index;
END $$;

SELECT pg_temp.measure('gin_minhash_ops (default: 28 x 4, 20-bit keys)', '(sig)', 'minhash %');
SELECT pg_temp.measure('generic GIN, minhash_bands(sig, 28, 4) &&', '(minhash_bands(sig, 28, 4))', 'bands 28 x 4');
SELECT pg_temp.measure('generic GIN, minhash_bands(sig, 26, 4) &&', '(minhash_bands(sig, 26, 4))', 'bands 26 x 4');

\echo '1M documents: index build, size and "near-duplicates of document X" (1,000 lookups, threshold 0.8):'
SELECT method, round(build_s::numeric, 1) AS build_s, pg_size_pretty(size) AS size,
       round(p50_ms::numeric, 3) AS p50_ms, round(p95_ms::numeric, 3) AS p95_ms, round(mean_rows::numeric, 2) AS mean_rows
  FROM bench_result;
\echo 'gin_minhash_ops against each generic index (target: at most 50% of build time and size; p50 under 1 ms):'
SELECT g.method AS against, round((100 * o.build_s / g.build_s)::numeric, 1) AS build_pct,
       round((100.0 * o.size / g.size)::numeric, 1) AS size_pct,
       round(o.p50_ms::numeric, 3) AS our_p50_ms, o.mean_rows = g.mean_rows AS same_rows
  FROM bench_result o, bench_result g
 WHERE o.method LIKE 'gin_minhash_ops%' AND g.method LIKE 'generic%';
