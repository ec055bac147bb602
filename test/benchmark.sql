-- Signature speed on the corpus already loaded in spam_messages, side by
-- side in one session: md5() (a floor: one pass over the bytes), minhash()
-- at 128 and 256 values, minhash_chars(), and pg_trgm's show_trgm() (what
-- trigram users pay).  Each is timed over three runs; the best run counts.
\set ON_ERROR_STOP 1
CREATE EXTENSION IF NOT EXISTS minhash;
CREATE EXTENSION IF NOT EXISTS pg_trgm;
SET max_parallel_workers_per_gather = 0;
SET jit = off;

-- Uncompressed, so that decompression does not hide the real differences.
CREATE TEMP TABLE bench_docs (body text);
ALTER TABLE bench_docs ALTER COLUMN body SET STORAGE EXTERNAL;
INSERT INTO bench_docs SELECT body FROM spam_messages;

CREATE FUNCTION pg_temp.best_ms(query text, runs int DEFAULT 3) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE
	best float8 := 'Infinity';
	started timestamptz;
BEGIN
	FOR i IN 1..runs LOOP
		started := clock_timestamp();
		EXECUTE query;
		best := least(best, 1000 * extract(epoch FROM clock_timestamp() - started));
	END LOOP;
	RETURN best;
END $$;

CREATE TEMP TABLE bench_result AS
WITH size AS (SELECT sum(octet_length(body)) / 1e6 AS mb, count(*) AS docs FROM bench_docs),
runs AS (
	SELECT name, ord, pg_temp.best_ms(query) AS ms FROM (VALUES
		('md5(body)', 1, 'SELECT count(md5(body)) FROM bench_docs'),
		('minhash(body) 128', 2, 'SELECT count(minhash(body, 128)) FROM bench_docs'),
		('minhash(body) 256', 3, 'SELECT count(minhash(body, 256)) FROM bench_docs'),
		('minhash_chars(body) 128', 4, 'SELECT count(minhash_chars(body, 5, 128)) FROM bench_docs'),
		('show_trgm(body)', 5, 'SELECT count(show_trgm(body)) FROM bench_docs')) AS q(name, ord, query))
SELECT name, ord, round(ms::numeric, 1) AS ms, round((mb / (ms / 1000))::numeric, 1) AS mb_per_s, docs, round(mb::numeric, 1) AS mb
  FROM runs, size;

\echo
\echo 'Signature speed (corpus: SpamAssassin bodies; best of 3 runs):'
SELECT r.name, r.ms, r.mb_per_s,
       round(r.ms / m.ms, 2) AS x_md5,
       round(t.ms / r.ms, 2) AS show_trgm_over_this
  FROM bench_result r, bench_result m, bench_result t
 WHERE m.ord = 1 AND t.ord = 5
 ORDER BY r.ord;
SELECT 'minhash at 128 values costs ' || round(r.ms / m.ms, 2) || 'x md5 and is ' || round(t.ms / r.ms, 1) ||
       'x faster than show_trgm (target: at most 4x md5)' AS summary
  FROM bench_result r, bench_result m, bench_result t
 WHERE r.ord = 2 AND m.ord = 1 AND t.ord = 5;
