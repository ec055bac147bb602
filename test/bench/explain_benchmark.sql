-- Speed of chunk_similarity() on generated pairs of 10 KB to 10 MB: corpus
-- bodies concatenated (deterministic order), and a copy with every 50th word
-- changed and a paragraph moved.  Compared with resemblance() of the two
-- precomputed signatures and with building them (minhash()).  Best of three
-- interleaved rounds.  Prints only.
\set ON_ERROR_STOP 1
CREATE EXTENSION IF NOT EXISTS minhash;
CREATE TEMP TABLE bench_source AS
SELECT string_agg(body, E'\n' ORDER BY id) AS text FROM (SELECT id, body FROM spam_messages ORDER BY id) s;
CREATE TEMP TABLE bench_pairs AS
SELECT size, a, regexp_replace(substr(a, size / 3) || substr(a, 1, size / 3 - 1), '((\w+\W+){49})\w+', '\1changed', 'g') AS b
  FROM (SELECT size, left(repeat(text, 1 + size / length(text)), size) AS a
          FROM bench_source, (VALUES (10000), (100000), (1000000), (10000000)) AS s(size)) t;
CREATE TEMP TABLE bench_sigs AS SELECT size, minhash(a) AS sa, minhash(b) AS sb FROM bench_pairs;
CREATE TEMP TABLE bench_times (size int, what text, ms float8);

DO $$
DECLARE
	p record;
	t0 timestamptz;
	r float8;
	sig minhash;
BEGIN
	FOR round IN 1..3 LOOP
		FOR p IN SELECT bp.size, bp.a, bp.b, bs.sa, bs.sb FROM bench_pairs bp JOIN bench_sigs bs USING (size) ORDER BY size LOOP
			t0 := clock_timestamp();
			PERFORM * FROM chunk_similarity(p.a, p.b);
			INSERT INTO bench_times VALUES (p.size, 'chunk_similarity', 1000 * extract(epoch FROM clock_timestamp() - t0));
			t0 := clock_timestamp();
			PERFORM * FROM chunk_similarity(p.a, p.b, 5, 'information');
			INSERT INTO bench_times VALUES (p.size, 'chunk_similarity information', 1000 * extract(epoch FROM clock_timestamp() - t0));
			t0 := clock_timestamp();
			r := shingle_resemblance(p.a, p.b);
			INSERT INTO bench_times VALUES (p.size, 'shingle_resemblance', 1000 * extract(epoch FROM clock_timestamp() - t0));
			t0 := clock_timestamp();
			sig := minhash(p.a);
			sig := minhash(p.b);
			INSERT INTO bench_times VALUES (p.size, 'minhash both', 1000 * extract(epoch FROM clock_timestamp() - t0));
			t0 := clock_timestamp();
			FOR i IN 1..1000 LOOP r := resemblance(p.sa, p.sb); END LOOP;
			INSERT INTO bench_times VALUES (p.size, 'resemblance', extract(epoch FROM clock_timestamp() - t0));
		END LOOP;
	END LOOP;
END $$;

\echo 'Best of 3 rounds, milliseconds (resemblance: one call, timed over 1,000):'
SELECT size AS bytes,
       round(min(ms) FILTER (WHERE what = 'chunk_similarity')::numeric, 2) AS chunk_literal_ms,
       round(min(ms) FILTER (WHERE what = 'chunk_similarity information')::numeric, 2) AS chunk_information_ms,
       round(min(ms) FILTER (WHERE what = 'shingle_resemblance')::numeric, 2) AS shingle_resemblance_ms,
       round(min(ms) FILTER (WHERE what = 'minhash both')::numeric, 2) AS minhash_both_ms,
       round(min(ms) FILTER (WHERE what = 'resemblance')::numeric, 5) AS resemblance_ms,
       round((min(ms) FILTER (WHERE what = 'chunk_similarity') / min(ms) FILTER (WHERE what = 'minhash both'))::numeric, 1) AS chunk_vs_minhash,
       round((min(ms) FILTER (WHERE what = 'chunk_similarity') / min(ms) FILTER (WHERE what = 'resemblance'))::numeric, 0) AS chunk_vs_resemblance
  FROM bench_times GROUP BY size ORDER BY size;
