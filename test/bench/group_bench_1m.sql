-- near_dupe_pairs and near_dupe_groups at scale: the 1,000,000-document
-- corpus of test/bench/bench_1m.sql (100,000 planted families of 10), threshold
-- 0.8.  Prints wall time of each function beside the same grouping as one
-- SQL statement (near_dupe_query(..., groups => true), the baseline), the
-- rows that differ between the two (none), the time, rows and temporary
-- files of each stage of that statement (EXPLAIN ANALYZE), and candidate
-- pairs against true pairs.  Not part of the test run: `bash
-- test/bench/group_bench_1m.sh` runs it on a throwaway cluster and also samples the
-- backend's memory, or
--   psql -f test/bench/group_bench_1m.sql
-- on any cluster with the extension installed (an existing bench_docs table
-- is reused; drop it to regenerate).
\set ON_ERROR_STOP 1
CREATE EXTENSION IF NOT EXISTS minhash;
SET jit = off;
-- A million documents held at 0.8 take about 0.9 GB, beyond the default
-- limit (maintenance_work_mem).
SET minhash.group_memory = '4GB';

\ir ../corpus/generate_1m.sql
SELECT count(*) AS documents, pg_size_pretty(pg_table_size('bench_docs')) AS table_size FROM bench_docs;
SELECT * FROM lsh_index_layout(0.8, 128);
SHOW work_mem;

\ir ../lib/elapsed.sql

-- Each stage of a query: EXPLAIN ANALYZE's nodes in plan order, with the
-- time of the node itself (its total less its children's) and the
-- temporary file blocks it wrote.
CREATE FUNCTION pg_temp.stages(query text)
	RETURNS TABLE (node text, rows bigint, self_s numeric, total_s numeric, temp_written text, note text)
LANGUAGE plpgsql AS $$
DECLARE
	plan json;
BEGIN
	EXECUTE 'EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ' || query INTO plan;
	RETURN QUERY
	WITH RECURSIVE n(path, p) AS (
		SELECT ARRAY[1]::int[], plan -> 0 -> 'Plan'
		UNION ALL
		SELECT n.path || c.i::int, c.child FROM n, json_array_elements(n.p -> 'Plans') WITH ORDINALITY AS c(child, i)
	), t AS (
		SELECT n.path, n.p, (n.p ->> 'Actual Total Time')::float8 * (n.p ->> 'Actual Loops')::float8 / 1000 AS total,
			   (SELECT coalesce(sum((c ->> 'Actual Total Time')::float8 * (c ->> 'Actual Loops')::float8 / 1000), 0)
				  FROM json_array_elements(coalesce(n.p -> 'Plans', '[]')) c) AS children
		  FROM n
	)
	SELECT repeat('  ', cardinality(path) - 1) || (p ->> 'Node Type') || coalesce(' (' || (p ->> 'Strategy') || ')', '')
		   || coalesce(' on ' || (p ->> 'Relation Name'), '') || coalesce(' ' || (p ->> 'Function Name'), ''),
		   ((p ->> 'Actual Rows')::float8 * (p ->> 'Actual Loops')::float8)::bigint,
		   round((total - children)::numeric, 1), round(total::numeric, 1),
		   pg_size_pretty((p ->> 'Temp Written Blocks')::bigint * 8192),
		   concat_ws(', ', 'sort ' || (p ->> 'Sort Method') || ' ' || (p ->> 'Sort Space Used') || ' kB ' || (p ->> 'Sort Space Type'),
					 'batches ' || (p ->> 'HashAgg Batches'), 'disk ' || (p ->> 'Disk Usage') || ' kB',
					 'removed ' || coalesce(p ->> 'Rows Removed by Filter', p ->> 'Rows Removed by Join Filter'))
	  FROM t ORDER BY path;
END $$;

CREATE TEMP TABLE bench_times (what text, seconds float8);
CREATE TEMP TABLE bench_groups (group_id bigint, key text, pivot text, resemblance float8);
SELECT sum(temp_bytes) AS temp_bytes_before FROM pg_stat_database \gset

\echo 'near_dupe_groups(bench_docs, id, sig, 0.8) into a table:'
INSERT INTO bench_times
SELECT 'near_dupe_groups', pg_temp.elapsed_s($$INSERT INTO bench_groups SELECT * FROM near_dupe_groups('bench_docs', 'id', 'sig', 0.8)$$);
SELECT pg_sleep(1.5);	-- statistics reach pg_stat_database within a second
SELECT pg_stat_clear_snapshot();
SELECT pg_size_pretty(sum(temp_bytes) - :temp_bytes_before) AS temp_files_written_by_near_dupe_groups FROM pg_stat_database;
\echo 'The same grouping as one SQL statement, near_dupe_query(..., groups => true), into a table (the baseline):'
SELECT near_dupe_query('bench_docs', 'id', 'sig', 0.8, true) AS groups_query \gset
CREATE TEMP TABLE bench_groups_sql (LIKE bench_groups);
SET enable_hashagg = off;
SET enable_mergejoin = off;
INSERT INTO bench_times
SELECT 'near_dupe_query(groups => true)', pg_temp.elapsed_s(format('INSERT INTO bench_groups_sql %s', :'groups_query'));
RESET enable_mergejoin;
RESET enable_hashagg;
\echo 'Rows that differ between the two (must be 0 and 0):'
SELECT (SELECT count(*) FROM (SELECT * FROM bench_groups EXCEPT ALL SELECT * FROM bench_groups_sql) x) AS only_in_memory,
       (SELECT count(*) FROM (SELECT * FROM bench_groups_sql EXCEPT ALL SELECT * FROM bench_groups) x) AS only_sql;
\echo 'near_dupe_pairs(bench_docs, id, sig, 0.8), counted:'
CREATE TEMP TABLE bench_pairs (key_a text, key_b text, resemblance float8);
INSERT INTO bench_times
SELECT 'near_dupe_pairs', pg_temp.elapsed_s($$INSERT INTO bench_pairs SELECT * FROM near_dupe_pairs('bench_docs', 'id', 'sig', 0.8)$$);

SELECT pg_sleep(1.5);	-- statistics reach pg_stat_database within a second
SELECT pg_stat_clear_snapshot();
SELECT pg_size_pretty(sum(temp_bytes) - :temp_bytes_before) AS temp_files_written_by_all_three FROM pg_stat_database;

\echo 'Wall time:'
SELECT what, round(seconds::numeric, 1) AS seconds FROM bench_times;

\echo 'Pairs at resemblance >= 0.8 (the candidates are the rows of the aggregate over pair instances below):'
SELECT count(*) AS pairs, count(*) FILTER (WHERE key_a::bigint / 10 = key_b::bigint / 10) AS within_a_family FROM bench_pairs;

\echo 'Groups:'
SELECT count(*) AS rows, count(DISTINCT group_id) AS groups,
       count(DISTINCT group_id) FILTER (WHERE key <> pivot) AS groups_of_2_plus,
       round(avg(resemblance) FILTER (WHERE key <> pivot)::numeric, 3) AS mean_member_resemblance,
       min(resemblance) AS min_resemblance
  FROM bench_groups;
\echo 'Groups against the planted families (a group is pure when all its rows come from one family):'
WITH g AS (SELECT b.group_id, d.family FROM bench_groups b JOIN bench_docs d ON d.id = b.key::bigint),
     per_group AS (SELECT group_id, count(DISTINCT family) AS families, count(*) AS size FROM g GROUP BY group_id)
SELECT count(*) FILTER (WHERE families = 1) AS pure_groups, count(*) FILTER (WHERE families > 1) AS mixed_groups,
       round(avg(size), 2) AS mean_group_size, max(size) AS largest_group
  FROM per_group;

\echo 'Stages of the SQL groups query (EXPLAIN ANALYZE: per-node timing makes it slower than the run above):'
SET enable_hashagg = off;
SET enable_mergejoin = off;
SELECT * FROM pg_temp.stages(:'groups_query');
