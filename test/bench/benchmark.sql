-- Signature speed on the corpus already loaded in spam_messages, side by
-- side in one session: md5() (a floor: one pass over the bytes), minhash()
-- at 128 and 256 values, minhash_chars(), and pg_trgm's show_trgm() (what
-- trigram users pay).  Five rounds of all five; each one's best run counts.
\set ON_ERROR_STOP 1
CREATE EXTENSION IF NOT EXISTS minhash;
CREATE EXTENSION IF NOT EXISTS pg_trgm;
SET max_parallel_workers_per_gather = 0;
SET jit = off;

-- Uncompressed, so that decompression does not hide the real differences.
CREATE TEMP TABLE bench_docs (body text);
ALTER TABLE bench_docs ALTER COLUMN body SET STORAGE EXTERNAL;
INSERT INTO bench_docs SELECT body FROM spam_messages;

\ir ../lib/best_times.sql

CREATE TEMP TABLE bench_queries (ord int, name text, query text);
INSERT INTO bench_queries VALUES
	(1, 'md5(body)', 'SELECT count(md5(body)) FROM bench_docs'),
	(2, 'minhash(body) 128', 'SELECT count(minhash(body, 128)) FROM bench_docs'),
	(3, 'minhash(body) 256', 'SELECT count(minhash(body, 256)) FROM bench_docs'),
	(4, 'minhash_chars(body) 128', 'SELECT count(minhash_chars(body, 5, 128)) FROM bench_docs'),
	(5, 'show_trgm(body)', 'SELECT count(show_trgm(body)) FROM bench_docs');

CREATE TEMP TABLE bench_result AS
WITH size AS (SELECT sum(octet_length(body)) / 1e6 AS mb, count(*) AS docs FROM bench_docs),
times AS (SELECT row_number() OVER () AS ord, ms
            FROM pg_temp.best_times(ARRAY(SELECT query FROM bench_queries ORDER BY ord), 5) AS ms)
SELECT q.name, q.ord, round(t.ms::numeric, 1) AS ms, round((mb / (t.ms / 1000))::numeric, 1) AS mb_per_s, docs, round(mb::numeric, 1) AS mb
  FROM bench_queries q JOIN times t USING (ord), size;

\echo
\echo 'Signature speed (corpus: SpamAssassin bodies; best of 5 rounds):'
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
