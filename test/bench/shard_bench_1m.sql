-- One node against a coordinator and two shards (test/bench/shard_bench_1m.sh), on
-- the coordinator: bench_docs is the 1M-document corpus on this node, with
-- its own index (the single node); documents holds the same rows on the
-- shards.  Lookups at 0.8 (%> minhash_query, 1,000 query signatures, static
-- SQL as prepared statements would be) and near_dupe_groups at 0.8.  Every
-- node runs on this machine: the figures show that the sharded plans work at
-- this scale and what the round trips cost, not a speed-up.
\set ON_ERROR_STOP 1
\pset pager off
SET jit = off;
SET work_mem = '64MB';
SET client_min_messages = warning;
\ir ../lib/elapsed.sql

CREATE TEMP TABLE bench_queries AS SELECT id, sig FROM bench_docs ORDER BY hashint8(id) LIMIT 1000;
CREATE FUNCTION pg_temp.lookup(sharded boolean, q minhash) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
	n bigint;
BEGIN
	IF sharded THEN
		SELECT count(*) INTO n FROM documents WHERE sig %> minhash_query(q, 0.8);
	ELSE
		SELECT count(*) INTO n FROM bench_docs WHERE sig %> minhash_query(q, 0.8);
	END IF;
	RETURN n;
END $$;
CREATE FUNCTION pg_temp.measure(sharded boolean)
	RETURNS TABLE(setup text, p50_ms float8, p95_ms float8, mean_rows float8) LANGUAGE plpgsql AS $$
DECLARE
	q record;
	started timestamptz;
	times float8[] := '{}';
	total bigint := 0;
BEGIN
	FOR q IN SELECT * FROM bench_queries LOOP
		started := clock_timestamp();
		total := total + pg_temp.lookup(sharded, q.sig);
		times := times || 1000 * extract(epoch FROM clock_timestamp() - started)::float8;
	END LOOP;
	RETURN QUERY
	SELECT CASE WHEN sharded THEN 'coordinator + 2 shards' ELSE 'one node' END,
		   round(percentile_cont(0.5) WITHIN GROUP (ORDER BY t)::numeric, 2)::float8,
		   round(percentile_cont(0.95) WITHIN GROUP (ORDER BY t)::numeric, 2)::float8,
		   round(total / 1000.0, 3)::float8
	  FROM unnest(times) t;
END $$;
-- A first pass warms the caches and the shard connections; the second counts.
SELECT count(*) FROM pg_temp.measure(false) AS warm_single, pg_temp.measure(true) AS warm_sharded;
SELECT * FROM pg_temp.measure(false) UNION ALL SELECT * FROM pg_temp.measure(true);

-- Grouping at 0.8: on one node; through band keys computed on the shards
-- (test/lib/sharded_groups.sql, layout of 0.8); and from a local copy of
-- every signature.
SELECT round(pg_temp.elapsed_s(
	'CREATE TEMP TABLE single_groups AS SELECT * FROM near_dupe_groups(''bench_docs'', ''id'', ''sig'', 0.8)')::numeric, 1)
	AS "one node: near_dupe_groups, s";
SELECT clock_timestamp() AS started \gset
\set layout_threshold 0.8
\set threshold 0.8
\ir ../lib/sharded_groups.sql
SELECT round(extract(epoch FROM clock_timestamp() - :'started'::timestamptz)::numeric, 1)
	AS "coordinator + 2 shards: groups through shard band keys, s",
	   (SELECT count(*) FROM candidate_docs) AS "candidate rows fetched";
SELECT round(pg_temp.elapsed_s('CREATE TEMP TABLE all_docs AS SELECT id, sig FROM documents')::numeric, 1)
	AS "coordinator + 2 shards: copy every signature, s";
SELECT round(pg_temp.elapsed_s(
	'CREATE TEMP TABLE copy_groups AS SELECT * FROM near_dupe_groups(''all_docs'', ''id'', ''sig'', 0.8)')::numeric, 1)
	AS "coordinator + 2 shards: near_dupe_groups on the copy, s";

SELECT (SELECT count(*) FROM single_groups) AS rows, (SELECT count(DISTINCT group_id) FROM single_groups) AS groups,
	   (SELECT count(*) FROM ((SELECT * FROM sharded_groups EXCEPT SELECT * FROM single_groups)
							  UNION ALL (SELECT * FROM single_groups EXCEPT SELECT * FROM sharded_groups)) d)
		   AS "rows differing: band keys vs one node",
	   (SELECT count(*) FROM ((SELECT * FROM copy_groups EXCEPT SELECT * FROM single_groups)
							  UNION ALL (SELECT * FROM single_groups EXCEPT SELECT * FROM copy_groups)) d)
		   AS "rows differing: copy vs one node";
