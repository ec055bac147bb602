-- The LSH band index against pg_trgm and against a generic GIN index over
-- the same band keys, on the SpamAssassin bodies, side by side in one run.
-- Prints figures; fails only if something cannot run.
\set ON_ERROR_STOP 1
CREATE EXTENSION IF NOT EXISTS minhash;
CREATE EXTENSION IF NOT EXISTS pg_trgm;
SET max_parallel_maintenance_workers = 0;
SET max_parallel_workers_per_gather = 0;
SET jit = off;
SET maintenance_work_mem = '256MB';

-- Unlogged rather than temporary: pg_trgm's lookups pin more buffers than
-- temp_buffers holds.
DROP TABLE IF EXISTS ib_docs;
CREATE UNLOGGED TABLE ib_docs (id int PRIMARY KEY, body text, sig minhash(128));
INSERT INTO ib_docs SELECT id, body FROM spam_messages;

CREATE FUNCTION pg_temp.elapsed_ms(statement text) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE
	started timestamptz := clock_timestamp();
BEGIN
	EXECUTE statement;
	RETURN 1000 * extract(epoch FROM clock_timestamp() - started);
END $$;

-- Build: signatures plus our index, pg_trgm's GIN index, and a plain GIN
-- index over minhash_bands(sig, 28, 4) (the same bands as our default
-- layout, lsh_index_layout(0.8), with full 64-bit keys, as int8[]).
CREATE TEMP TABLE ib_build AS
SELECT 'minhash: signatures' AS what, pg_temp.elapsed_ms('UPDATE ib_docs SET sig = minhash(body)') AS ms
UNION ALL SELECT 'minhash: gin_minhash_ops index', pg_temp.elapsed_ms('CREATE INDEX ib_sig ON ib_docs USING gin (sig)')
UNION ALL SELECT 'generic GIN on minhash_bands(sig, 28, 4)', pg_temp.elapsed_ms('CREATE INDEX ib_bands ON ib_docs USING gin (minhash_bands(sig, 28, 4))')
UNION ALL SELECT 'pg_trgm: gin_trgm_ops index', pg_temp.elapsed_ms('CREATE INDEX ib_trgm ON ib_docs USING gin (body gin_trgm_ops)');
ANALYZE ib_docs;

\echo
\echo 'Index build (ms) and size:'
SELECT what, round(ms::numeric, 1) AS ms,
       pg_size_pretty(CASE what WHEN 'minhash: gin_minhash_ops index' THEN pg_relation_size('ib_sig')
                                WHEN 'generic GIN on minhash_bands(sig, 28, 4)' THEN pg_relation_size('ib_bands')
                                WHEN 'pg_trgm: gin_trgm_ops index' THEN pg_relation_size('ib_trgm')
                                ELSE pg_relation_size('ib_docs') END) AS size
  FROM ib_build;

-- Lookups: "the near-duplicates of document X" for 200 documents.
CREATE TEMP TABLE ib_queries AS SELECT id FROM ib_docs ORDER BY md5(id::text) LIMIT 200;
CREATE FUNCTION pg_temp.lookup_times(method text) RETURNS TABLE (ms float8, hits bigint) LANGUAGE plpgsql AS $$
DECLARE
	q record;
	started timestamptz;
	n bigint;
BEGIN
	PERFORM set_config('enable_seqscan', CASE WHEN method = 'minhash seqscan' THEN 'on' ELSE 'off' END, true);
	PERFORM set_config('enable_bitmapscan', CASE WHEN method = 'minhash seqscan' THEN 'off' ELSE 'on' END, true);
	PERFORM set_config('enable_indexscan', 'off', true);
	-- pg_trgm takes seconds per lookup on these bodies: time the first 10 only.
	FOR q IN SELECT d.id, d.body, d.sig FROM ib_queries JOIN ib_docs d USING (id)
			  ORDER BY md5(d.id::text) LIMIT CASE WHEN method = 'pg_trgm index' THEN 10 ELSE 200 END LOOP
		started := clock_timestamp();
		CASE method
			WHEN 'minhash index' THEN SELECT count(*) INTO n FROM ib_docs WHERE sig % q.sig;
			WHEN 'minhash seqscan' THEN SELECT count(*) INTO n FROM ib_docs WHERE sig % q.sig;
			WHEN 'generic GIN &&' THEN
				SELECT count(*) INTO n FROM ib_docs
				 WHERE minhash_bands(sig, 28, 4) && minhash_bands(q.sig, 28, 4) AND sig % q.sig;
			WHEN 'pg_trgm index' THEN SELECT count(*) INTO n FROM ib_docs WHERE body % q.body;
		END CASE;
		ms := 1000 * extract(epoch FROM clock_timestamp() - started);
		hits := n;
		RETURN NEXT;
	END LOOP;
END $$;

CREATE TEMP TABLE ib_lookups AS
SELECT method, percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS p50,
       percentile_cont(0.95) WITHIN GROUP (ORDER BY ms) AS p95, avg(hits) AS mean_found
  FROM unnest(ARRAY['minhash index', 'generic GIN &&', 'minhash seqscan', 'pg_trgm index']) AS method,
       LATERAL pg_temp.lookup_times(method)
 GROUP BY method;

\echo 'Near-duplicates of one document, 200 documents (pg_trgm: the first 10; ms; pg_trgm at its default threshold 0.3, minhash at 0.8):'
SELECT l.method, round(l.p50::numeric, 3) AS p50_ms, round(l.p95::numeric, 3) AS p95_ms,
       round(l.mean_found, 1) AS mean_rows,
       round((l.p50 / m.p50)::numeric, 1) AS p50_vs_minhash_index
  FROM ib_lookups l, ib_lookups m WHERE m.method = 'minhash index'
 ORDER BY l.p50;
SELECT 'gin_minhash_ops takes ' || round((100 * o.ms / g.ms)::numeric) || '% of the generic index''s build time and ' ||
       round((100.0 * pg_relation_size('ib_sig') / pg_relation_size('ib_bands'))::numeric) || '% of its size' AS against_generic_gin
  FROM ib_build o, ib_build g
 WHERE o.what = 'minhash: gin_minhash_ops index' AND g.what = 'generic GIN on minhash_bands(sig, 28, 4)';
SELECT 'lookups through the minhash index are ' || round((t.p50 / m.p50)::numeric) || 'x faster than pg_trgm at p50 and ' ||
       round((t.p95 / m.p95)::numeric) || 'x at p95 (target: 100x)' AS summary
  FROM ib_lookups t, ib_lookups m WHERE t.method = 'pg_trgm index' AND m.method = 'minhash index';

DROP TABLE ib_docs;
