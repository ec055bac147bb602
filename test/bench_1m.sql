-- The band index at scale: a deterministic corpus of 1,000,000 documents with
-- planted near-duplicate families, then build time, index size and lookup
-- latency.  Not part of the test run (it takes minutes); run it with
--   psql -f test/bench_1m.sql
-- on a cluster where the extension is installed.
\set ON_ERROR_STOP 1
\timing on
CREATE EXTENSION IF NOT EXISTS minhash;
SET max_parallel_workers_per_gather = 2;
SET maintenance_work_mem = '1GB';
SET jit = off;

-- 100,000 families of 10: member 0 is 80 words drawn from a 50,000-word
-- vocabulary by a hash of (family, position); member m > 0 edits it the way
-- documents drift: m words replaced, m words inserted in the middle, and odd
-- members quote it below a reply of 20 words.
DROP TABLE IF EXISTS bench_docs;
CREATE UNLOGGED TABLE bench_docs (id bigint PRIMARY KEY, family int, body text, sig minhash(128));
INSERT INTO bench_docs (id, family, body)
SELECT f::bigint * 10 + m, f,
       CASE WHEN m % 2 = 1 THEN
            (SELECT string_agg('r' || (hashint4(f * 100 + m * 20 + w) & 65535), ' ') FROM generate_series(1, 20) w) || ' '
       ELSE '' END ||
       (SELECT string_agg(CASE WHEN m > 0 AND (hashint4(f * 131 + w) & 63) < m THEN 'x' || (hashint4(f * 7 + m * 80 + w) & 65535)
                               ELSE 'w' || ((hashint4(f * 80 + w) & 2147483647) % 50000) END
                          || CASE WHEN m > 0 AND w = 40 THEN ' ' || repeat('ins' || m || ' ', m) ELSE '' END,
                          ' ' ORDER BY w)
          FROM generate_series(1, 80) w)
  FROM generate_series(0, 99999) f, generate_series(0, 9) m;
SELECT count(*) AS documents, pg_size_pretty(sum(octet_length(body))) AS text FROM bench_docs;

UPDATE bench_docs SET sig = minhash(body);
VACUUM ANALYZE bench_docs;
CREATE INDEX bench_docs_sig ON bench_docs USING gin (sig);
SELECT pg_size_pretty(pg_relation_size('bench_docs_sig')) AS minhash_index_size;
CREATE INDEX bench_docs_bands ON bench_docs USING gin (minhash_bands(sig, 26, 4));
SELECT pg_size_pretty(pg_relation_size('bench_docs_bands')) AS generic_gin_index_size;
\timing off

CREATE TEMP TABLE bench_queries AS SELECT id, sig FROM bench_docs ORDER BY hashint8(id) LIMIT 1000;
CREATE FUNCTION pg_temp.lookup_ms(generic bool) RETURNS SETOF float8 LANGUAGE plpgsql AS $$
DECLARE
	q record;
	started timestamptz;
	n bigint;
BEGIN
	PERFORM set_config('enable_seqscan', 'off', true);
	PERFORM set_config('enable_indexscan', 'off', true);
	FOR q IN SELECT * FROM bench_queries LOOP
		started := clock_timestamp();
		IF generic THEN
			SELECT count(*) INTO n FROM bench_docs WHERE minhash_bands(sig, 26, 4) && minhash_bands(q.sig, 26, 4) AND sig % q.sig;
		ELSE
			SELECT count(*) INTO n FROM bench_docs WHERE sig % q.sig;
		END IF;
		RETURN NEXT 1000 * extract(epoch FROM clock_timestamp() - started);
	END LOOP;
END $$;
SELECT generic, round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::numeric, 3) AS p50_ms,
       round(percentile_cont(0.95) WITHIN GROUP (ORDER BY ms)::numeric, 3) AS p95_ms
  FROM unnest(ARRAY[false, true]) generic, LATERAL pg_temp.lookup_ms(generic) ms GROUP BY generic;
