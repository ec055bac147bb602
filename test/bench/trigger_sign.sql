-- Loading documents into a table that flags near-duplicates on insert
-- (test/bench/trigger_sign.sh): the realistic corpus's real_docs, loaded by
-- one INSERT ... SELECT of (id, body) in id order into an empty table with a
-- gin_minhash_ops index (fastupdate = off, as the README makes it), with
-- each way of signing and flagging at 0.8:
--   one trigger:       minhash_sign_and_flag('body', 'sig', 'dup_of', '0.8')
--   plpgsql + flag:    a PL/pgSQL BEFORE trigger (NEW.sig := minhash(NEW.body)),
--                      then minhash_flag_duplicates('sig', 'dup_of', '0.8')
--   statement + flag:  the INSERT computes minhash(body); minhash_flag_duplicates
--   statement, no trigger: the same INSERT without a trigger (what signing
--                      and indexing cost without the lookups)
-- Each setup loads :reps times, alternating (each round starts with the
-- next setup), after one uncounted load that warms the caches; medians of
-- the wall time and of the backend's CPU time (user + system, 10 ms ticks).
-- The setups must give every row the same signature and the same flag.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
\ir ../lib/elapsed.sql
DROP TABLE IF EXISTS bench_sign_docs, bench_sign_results;
DROP FUNCTION IF EXISTS bench_sign_body();
CREATE TABLE bench_sign_docs (id integer PRIMARY KEY, body text, sig minhash(128), dup_of integer);
CREATE INDEX bench_sign_docs_sig ON bench_sign_docs USING gin (sig) WITH (fastupdate = off);
CREATE TABLE bench_sign_results (setup text, id integer, sig minhash, dup_of integer);
CREATE TEMP TABLE bench_sign_times (setup text, wall float8, cpu float8);
CREATE FUNCTION bench_sign_body() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	NEW.sig := minhash(NEW.body);
	RETURN NEW;
END $$;
SELECT set_config('bench.clock_ticks', :'clock_ticks', false) \g /dev/null
CREATE FUNCTION pg_temp.cpu_s() RETURNS float8 LANGUAGE sql AS $$
	SELECT (f[12]::bigint + f[13]::bigint)::float8 / current_setting('bench.clock_ticks')::float8
	  FROM string_to_array(split_part(pg_read_file('/proc/self/stat'), ') ', 2), ' ') f $$;
-- One load: empty the table, set up the triggers, insert every document.
CREATE FUNCTION pg_temp.bench_load(setup text, keep boolean) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	cpu_before float8;
	wall float8;
BEGIN
	TRUNCATE bench_sign_docs;
	DROP TRIGGER IF EXISTS a_sign ON bench_sign_docs;
	DROP TRIGGER IF EXISTS b_flag ON bench_sign_docs;
	IF setup = 'one trigger' THEN
		CREATE TRIGGER b_flag BEFORE INSERT OR UPDATE ON bench_sign_docs FOR EACH ROW
			EXECUTE FUNCTION minhash_sign_and_flag('body', 'sig', 'dup_of', '0.8');
	ELSIF setup <> 'statement, no trigger' THEN
		CREATE TRIGGER b_flag BEFORE INSERT OR UPDATE ON bench_sign_docs FOR EACH ROW
			EXECUTE FUNCTION minhash_flag_duplicates('sig', 'dup_of', '0.8');
	END IF;
	IF setup = 'plpgsql + flag' THEN
		CREATE TRIGGER a_sign BEFORE INSERT OR UPDATE ON bench_sign_docs FOR EACH ROW
			EXECUTE FUNCTION bench_sign_body();
	END IF;
	cpu_before := pg_temp.cpu_s();
	wall := pg_temp.elapsed_s(CASE WHEN setup LIKE 'statement%' THEN
		'INSERT INTO bench_sign_docs (id, body, sig) SELECT id, body, minhash(body) FROM real_docs ORDER BY id'
	ELSE
		'INSERT INTO bench_sign_docs (id, body) SELECT id, body FROM real_docs ORDER BY id'
	END);
	INSERT INTO bench_sign_times VALUES (setup, wall, pg_temp.cpu_s() - cpu_before);
	IF keep THEN
		INSERT INTO bench_sign_results SELECT setup, id, sig, dup_of FROM bench_sign_docs;
	END IF;
END $$;
SELECT set_config('bench.reps', :'reps', false) \g /dev/null
-- no parallel plan for the statements' minhash(body): every setup on one core
SET max_parallel_workers_per_gather = 0;
DO $$
DECLARE
	setups text[] := ARRAY['one trigger', 'plpgsql + flag', 'statement + flag', 'statement, no trigger'];
BEGIN
	PERFORM pg_temp.bench_load('statement + flag', false);
	DELETE FROM bench_sign_times;
	FOR i IN 1..current_setting('bench.reps')::integer LOOP
		FOR j IN 0..3 LOOP
			PERFORM pg_temp.bench_load(setups[(i - 1 + j) % 4 + 1], i = 1 AND (i - 1 + j) % 4 < 3);
		END LOOP;
	END LOOP;
END $$;
CREATE INDEX ON bench_sign_results (id);
ANALYZE bench_sign_results;
WITH m AS (SELECT setup, count(*) AS runs,
				  percentile_cont(0.5) WITHIN GROUP (ORDER BY wall) AS wall,
				  percentile_cont(0.5) WITHIN GROUP (ORDER BY cpu) AS cpu
			 FROM bench_sign_times GROUP BY setup),
	 n AS (SELECT count(*) AS docs FROM real_docs)
SELECT setup, runs, n.docs, round(wall::numeric, 1) AS wall_s, round((n.docs / wall)::numeric) AS rows_per_s,
	   round((1e6 * cpu / n.docs)::numeric, 1) AS cpu_us_per_row, round((n.docs / cpu)::numeric) AS rows_per_cpu_s,
	   round((wall / (SELECT wall FROM m WHERE setup = 'one trigger'))::numeric, 2) AS wall_vs_one_trigger
  FROM m, n
 ORDER BY array_position(ARRAY['one trigger', 'plpgsql + flag', 'statement + flag', 'statement, no trigger'], setup);
-- Every setup gave each row the same signature (minhash(body)) and flag.
SELECT o.setup, count(*) AS rows, count(o.dup_of) AS flagged,
	   count(*) FILTER (WHERE o.sig IS DISTINCT FROM r.sig OR o.sig IS DISTINCT FROM d.sig) AS signatures_differ,
	   count(*) FILTER (WHERE o.dup_of IS DISTINCT FROM r.dup_of) AS flags_differ
  FROM bench_sign_results o
  JOIN bench_sign_results r ON r.id = o.id AND r.setup = 'one trigger'
  JOIN real_docs d ON d.id = o.id
 GROUP BY o.setup ORDER BY o.setup;
DO $$
BEGIN
	IF (SELECT count(*) FROM bench_sign_results) <> 3 * (SELECT count(*) FROM real_docs)
	   OR EXISTS (SELECT FROM bench_sign_results o
				    JOIN bench_sign_results r ON r.id = o.id AND r.setup = 'one trigger'
				    JOIN real_docs d ON d.id = o.id
				   WHERE o.dup_of IS DISTINCT FROM r.dup_of OR o.sig IS DISTINCT FROM r.sig
				      OR o.sig IS DISTINCT FROM d.sig) THEN
		RAISE EXCEPTION 'the setups flagged or signed differently';
	END IF;
END $$;
DROP TABLE bench_sign_docs, bench_sign_results;
DROP FUNCTION bench_sign_body();
