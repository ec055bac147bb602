-- Per-row cost of minhash_flag_duplicates() (test/bench/trigger_rows.sh).
-- :rows signatures of 100-word documents, half of them copies of another,
-- are inserted by one INSERT ... SELECT into a table with a GIN index
-- (fastupdate = off, so every row's index entries are written at once),
-- without the trigger and with it; the difference per row is the trigger's
-- cost: its lookup through the index, its SPI call and its bookkeeping.
-- The same rows with NULL signatures show the bookkeeping alone (the
-- trigger runs no lookup for a NULL signature).
-- Each figure is the median of :reps runs, as wall time and as the CPU time
-- of the backend (user + system, from /proc/self/stat, which a superuser
-- may read; 10 ms ticks): other processes on a busy machine disturb it less.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS minhash;
\ir ../lib/elapsed.sql
DROP TABLE IF EXISTS bench_trigger_sigs, bench_trigger_docs;
CREATE TABLE bench_trigger_sigs AS
SELECT i AS id, minhash(array(SELECT 'w' || (i / 2 * 100 + j) FROM generate_series(1, 100) j), 128) AS sig
  FROM generate_series(1, :rows) i;
CREATE TABLE bench_trigger_docs (id integer PRIMARY KEY, sig minhash(128), dup_of integer);
CREATE INDEX ON bench_trigger_docs USING gin (sig) WITH (fastupdate = off);
CREATE TEMP TABLE bench_trigger_times (rows text, trigger boolean, wall float8, cpu float8);
-- The backend's CPU time so far, in seconds (utime + stime of /proc/self/stat).
SELECT set_config('bench.clock_ticks', :'clock_ticks', false) \g /dev/null
CREATE FUNCTION pg_temp.cpu_s() RETURNS float8 LANGUAGE sql AS $$
	SELECT (f[12]::bigint + f[13]::bigint)::float8 / current_setting('bench.clock_ticks')::float8
	  FROM string_to_array(split_part(pg_read_file('/proc/self/stat'), ') ', 2), ' ') f $$;
-- One run: empty the table, create or drop the trigger, insert every row.
CREATE FUNCTION pg_temp.bench_insert(rows text, trigger boolean) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	cpu_before float8;
	wall float8;
BEGIN
	TRUNCATE bench_trigger_docs;
	DROP TRIGGER IF EXISTS flag_dups ON bench_trigger_docs;
	IF trigger THEN
		CREATE TRIGGER flag_dups BEFORE INSERT OR UPDATE ON bench_trigger_docs FOR EACH ROW
			EXECUTE FUNCTION minhash_flag_duplicates('sig', 'dup_of', '0.8');
	END IF;
	cpu_before := pg_temp.cpu_s();
	wall := pg_temp.elapsed_s(format('INSERT INTO bench_trigger_docs (id, sig) SELECT id, %s FROM bench_trigger_sigs ORDER BY id',
									 CASE rows WHEN 'signatures' THEN 'sig' ELSE 'NULL' END));
	INSERT INTO bench_trigger_times VALUES (rows, trigger, wall, pg_temp.cpu_s() - cpu_before);
END $$;
SELECT set_config('bench.reps', :'reps', false) \g /dev/null
DO $$
BEGIN
	FOR i IN 1..current_setting('bench.reps')::integer LOOP
		PERFORM pg_temp.bench_insert('NULL signatures', false);
		PERFORM pg_temp.bench_insert('NULL signatures', true);
		PERFORM pg_temp.bench_insert('signatures', false);
		PERFORM pg_temp.bench_insert('signatures', true);
	END LOOP;
END $$;
SELECT count(*) AS rows, count(dup_of) AS flagged FROM bench_trigger_docs;
WITH m AS (SELECT rows, trigger, percentile_cont(0.5) WITHIN GROUP (ORDER BY wall) AS wall,
				  percentile_cont(0.5) WITHIN GROUP (ORDER BY cpu) AS cpu
			 FROM bench_trigger_times GROUP BY rows, trigger)
SELECT p.rows, round((1e6 * p.wall / :rows)::numeric, 1) AS plain_us,
	   round((1e6 * t.wall / :rows)::numeric, 1) AS trigger_us,
	   round((1e6 * (t.wall - p.wall) / :rows)::numeric, 1) AS trigger_cost_us,
	   round((1e6 * p.cpu / :rows)::numeric, 1) AS plain_cpu_us,
	   round((1e6 * t.cpu / :rows)::numeric, 1) AS trigger_cpu_us,
	   round((1e6 * (t.cpu - p.cpu) / :rows)::numeric, 1) AS trigger_cost_cpu_us
  FROM m p JOIN m t ON t.rows = p.rows AND t.trigger AND NOT p.trigger
 ORDER BY p.rows;
DROP TABLE bench_trigger_sigs, bench_trigger_docs;
