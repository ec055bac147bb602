-- Checks of test/sharding/sharding.sh on the coordinator: documents is hash-partitioned
-- into postgres_fdw foreign tables on two shards; documents_local holds the
-- same rows on this node, the single-node reference.
\set ON_ERROR_STOP 1
\pset pager off
SET client_min_messages = warning;

CREATE FUNCTION pg_temp.expect(ok boolean, what text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	IF ok IS NOT TRUE THEN
		RAISE EXCEPTION 'sharding check failed: %', what;
	END IF;
	RETURN 'ok - ' || what;
END $$;

-- EXPLAIN (VERBOSE) of a statement, one text.
CREATE FUNCTION pg_temp.plan(statement text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	line text;
	result text := '';
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (VERBOSE, COSTS OFF) ' || statement LOOP
		result := result || line || E'\n';
	END LOOP;
	RETURN result;
END $$;

-- The Remote SQL lines of a plan that match a pattern.
CREATE FUNCTION pg_temp.remote_sql_matching(plan text, pattern text) RETURNS integer LANGUAGE sql AS $$
	SELECT count(*)::integer FROM regexp_split_to_table(plan, E'\n') l
	 WHERE l ~ '^\s*Remote SQL: ' AND l ~ pattern
$$;

SELECT pg_temp.expect((SELECT count(*) FROM documents_1) > 0 AND (SELECT count(*) FROM documents_2) > 0
					  AND (SELECT count(*) FROM documents) = (SELECT count(*) FROM documents_local),
					  'both shards hold rows, all of documents_local');

-------------------------------------------------------------------------------
-- Pushdown, as EXPLAIN (VERBOSE) shows it
-------------------------------------------------------------------------------
SELECT sig AS q FROM documents_local WHERE id = 1234 \gset

SELECT pg_temp.expect(pg_temp.remote_sql_matching(pg_temp.plan(format(
	'SELECT id FROM documents WHERE sig %%> minhash_query(%L::minhash, 0.8)', :'q')),
	$re$WHERE \(\(sig OPERATOR\(public\.%>\) '0\.8:v1:$re$) = 2,
	'%> minhash_query(literal, 0.8) is in both Remote SQLs (folded into a minhash_query constant)');
SELECT pg_temp.expect(pg_temp.remote_sql_matching(pg_temp.plan(format(
	'SELECT id FROM documents WHERE resembles(sig, %L::minhash, 0.8)', :'q')),
	$re$WHERE \(\(sig OPERATOR\(public\.%>\) '0\.8:v1:$re$) = 2,
	'resembles(sig, literal, 0.8) is inlined and in both Remote SQLs');
SELECT pg_temp.expect(pg_temp.remote_sql_matching(pg_temp.plan(
	'SELECT id FROM documents WHERE sig %> minhash_query((SELECT sig FROM documents_local WHERE id = 1234), 0.8)'),
	$re$WHERE \(\(sig OPERATOR\(public\.%>\) public\.minhash_query\(\$1::public\.minhash\(128\), 0\.8::double precision\)\)\)$re$) = 2,
	'%> minhash_query(subquery value, 0.8) ships the value as a parameter');
PREPARE lookup(minhash, float8) AS SELECT id FROM documents WHERE sig %> minhash_query($1, $2);
SET plan_cache_mode = force_generic_plan;
SELECT pg_temp.expect(pg_temp.remote_sql_matching(pg_temp.plan(format('EXECUTE lookup(%L, 0.8)', :'q')),
	$re$WHERE \(\(sig OPERATOR\(public\.%>\) public\.minhash_query\(\$1::public\.minhash, \$2::double precision\)\)\)$re$) = 2,
	'a prepared statement''s generic plan ships %> minhash_query($1, $2)');
RESET plan_cache_mode;
SELECT pg_temp.expect(pg_temp.remote_sql_matching(pg_temp.plan(format(
	'SELECT id FROM documents WHERE resemblance(sig, %L::minhash) >= 0.8', :'q')),
	$re$WHERE \(\(public\.resemblance\(sig, 'v1:.*\) >= 0\.8::double precision\)\)$re$) = 2,
	'resemblance(sig, literal) >= 0.8 is in both Remote SQLs');
SELECT pg_temp.expect(pg_temp.remote_sql_matching(pg_temp.plan(format(
	'SELECT id FROM documents ORDER BY sig <%%> %L::minhash, id LIMIT 5', :'q')),
	$re$ORDER BY \(sig OPERATOR\(public\.<%>\) 'v1:.*\) ASC NULLS LAST, id ASC NULLS LAST$re$) = 2
	AND pg_temp.plan(format('SELECT id FROM documents ORDER BY sig <%%> %L::minhash, id LIMIT 5', :'q'))
		~ '^\s*Limit\s.*\n\s*->  Merge Append',
	'<%> ORDER BY ... LIMIT: each shard sorts (Remote SQL ORDER BY), the coordinator merges and limits');
-- % reads minhash.threshold (STABLE): postgres_fdw ships IMMUTABLE only.
SELECT pg_temp.expect(pg_temp.remote_sql_matching(pg_temp.plan(format(
	'SELECT id FROM documents WHERE sig %% %L::minhash', :'q')), '%') = 0
	AND pg_temp.plan(format('SELECT id FROM documents WHERE sig %% %L::minhash', :'q')) ~ 'Filter: \(documents_1\.sig % ',
	'% (STABLE) is not shipped: a local Filter over every row');
SET enable_partitionwise_aggregate = on;
SELECT pg_temp.expect(pg_temp.remote_sql_matching(pg_temp.plan(
	'SELECT minhash_union(u) FROM (SELECT minhash_union(sig) FROM documents_1
								  UNION ALL SELECT minhash_union(sig) FROM documents_2) s(u)'),
	'^\s*Remote SQL: SELECT public\.minhash_union\(sig\) FROM public\.documents$') = 2,
	'minhash_union over one shard''s foreign table is computed on the shard');
-- PostgreSQL 15's postgres_fdw pushes whole aggregates only: over the
-- partitioned table the partial aggregates run here (printed, not asserted).
SELECT pg_temp.plan('SELECT minhash_union(sig) FROM documents') AS "minhash_union over the partitioned table";

-------------------------------------------------------------------------------
-- Results equal the single-node run
-------------------------------------------------------------------------------
-- Lookups as an application runs them (PL/pgSQL static SQL: the query is a
-- parameter), sharded and local, for 40 query signatures (20 with a
-- near-duplicate at 0.8, 20 at random) and three thresholds; % (which ships
-- every row) and the top 10 by <%> for the first 10 of them, at 0.8.
CREATE TEMP TABLE local_pairs AS SELECT * FROM near_dupe_pairs('documents_local', 'id', 'sig', 0.8);
CREATE TEMP TABLE lookup_queries AS
(SELECT DISTINCT ON (hashint8(key_a::bigint)) key_a::bigint AS id, hashint8(key_a::bigint) AS h
   FROM local_pairs ORDER BY hashint8(key_a::bigint) LIMIT 20)
UNION ALL
(SELECT id, hashint8(id) FROM documents_local WHERE sig IS NOT NULL AND id % 10 = 7 ORDER BY hashint8(id) LIMIT 20);
ALTER TABLE lookup_queries ADD COLUMN sig minhash;
UPDATE lookup_queries q SET sig = l.sig FROM documents_local l WHERE l.id = q.id;
CREATE FUNCTION pg_temp.lookups(sharded boolean, form text, threshold float8)
	RETURNS TABLE(query_id bigint, ids bigint[]) LANGUAGE plpgsql AS $$
DECLARE
	q record;
BEGIN
	PERFORM set_config('minhash.threshold', threshold::text, true);
	FOR q IN SELECT * FROM lookup_queries ORDER BY h LIMIT CASE WHEN form IN ('%', 'top10') THEN 10 END LOOP
		query_id := q.id;
		CASE form || sharded
			WHEN '%>true' THEN SELECT array_agg(d.id ORDER BY d.id) INTO ids FROM documents d WHERE d.sig %> minhash_query(q.sig, threshold);
			WHEN '%>false' THEN SELECT array_agg(d.id ORDER BY d.id) INTO ids FROM documents_local d WHERE d.sig %> minhash_query(q.sig, threshold);
			WHEN 'resemblestrue' THEN SELECT array_agg(d.id ORDER BY d.id) INTO ids FROM documents d WHERE resembles(d.sig, q.sig, threshold);
			WHEN 'resemblesfalse' THEN SELECT array_agg(d.id ORDER BY d.id) INTO ids FROM documents_local d WHERE resembles(d.sig, q.sig, threshold);
			WHEN '%true' THEN SELECT array_agg(d.id ORDER BY d.id) INTO ids FROM documents d WHERE d.sig % q.sig;
			WHEN '%false' THEN SELECT array_agg(d.id ORDER BY d.id) INTO ids FROM documents_local d WHERE d.sig % q.sig;
			WHEN 'top10true' THEN
				SELECT array_agg(t.id ORDER BY t.d, t.id) INTO ids
				  FROM (SELECT d.id, d.sig <%> q.sig AS d FROM documents d ORDER BY d.sig <%> q.sig, d.id LIMIT 10) t;
			WHEN 'top10false' THEN
				SELECT array_agg(t.id ORDER BY t.d, t.id) INTO ids
				  FROM (SELECT d.id, d.sig <%> q.sig AS d FROM documents_local d ORDER BY d.sig <%> q.sig, d.id LIMIT 10) t;
		END CASE;
		RETURN NEXT;
	END LOOP;
END $$;
CREATE TEMP TABLE lookup_checks AS
SELECT form, threshold,
	   count(*) AS lookups, count(*) FILTER (WHERE s.ids IS DISTINCT FROM l.ids) AS differing,
	   sum(coalesce(cardinality(l.ids), 0)) AS rows_found
  FROM (VALUES ('%>'), ('resembles'), ('%'), ('top10')) f(form),
	   (VALUES (0.5::float8), (0.8), (0.9)) t(threshold),
	   LATERAL pg_temp.lookups(true, form, threshold) s
	   JOIN LATERAL pg_temp.lookups(false, form, threshold) l USING (query_id)
 WHERE form IN ('%>', 'resembles') OR threshold = 0.8
 GROUP BY form, threshold ORDER BY form, threshold;
SELECT * FROM lookup_checks;
SELECT pg_temp.expect(bool_and(differing = 0), format('%s lookups (%s rows) equal the single-node ones',
													 sum(lookups), sum(rows_found)))
  FROM lookup_checks;
SELECT pg_temp.expect(bool_and(rows_found > lookups), 'lookups at 0.5 and 0.8 find near-duplicates beyond the query row')
  FROM lookup_checks WHERE threshold < 0.9 AND form <> 'top10';

SELECT pg_temp.expect((SELECT minhash_union(sig)::text FROM documents) = (SELECT minhash_union(sig)::text FROM documents_local),
	'minhash_union(sig) over the partitioned table equals the single-node union, byte for byte');
SELECT pg_temp.expect((SELECT minhash_union(u)::text FROM (SELECT minhash_union(sig) FROM documents_1
															UNION ALL SELECT minhash_union(sig) FROM documents_2) s(u))
					  = (SELECT minhash_union(sig)::text FROM documents_local),
	'the union of the per-shard unions equals the single-node union, byte for byte');
SELECT pg_temp.expect(count(*) = 0 AND (SELECT count(DISTINCT family) FROM documents_local) = 1001,
	'minhash_union(sig) GROUP BY family equals the single-node result for all 1,001 families')
  FROM ((SELECT family, minhash_union(sig)::text FROM documents GROUP BY family
		 EXCEPT SELECT family, minhash_union(sig)::text FROM documents_local GROUP BY family)
		UNION ALL
		(SELECT family, minhash_union(sig)::text FROM documents_local GROUP BY family
		 EXCEPT SELECT family, minhash_union(sig)::text FROM documents GROUP BY family)) d;
RESET enable_partitionwise_aggregate;

-------------------------------------------------------------------------------
-- Groups and pairs
-------------------------------------------------------------------------------
DO $$
BEGIN
	PERFORM * FROM near_dupe_groups('documents', 'id', 'sig', 0.8);
	RAISE EXCEPTION 'near_dupe_groups accepted a partitioned table';
EXCEPTION WHEN wrong_object_type THEN
	NULL;
END $$;
SELECT pg_temp.expect(true, 'near_dupe_groups refuses the partitioned table (42809)');

-- Through band keys computed on the shards (layout of 0.8, as the shards'
-- views documents_lsh are defined), at 0.8 and at 0.9.
CREATE TEMP TABLE local_groups AS SELECT * FROM near_dupe_groups('documents_local', 'id', 'sig', 0.8);
\set layout_threshold 0.8
\set threshold 0.8
\ir ../lib/sharded_groups.sql
SELECT (SELECT count(*) FROM candidate_docs) AS candidate_rows, count(*) AS rows,
	   count(DISTINCT group_id) AS groups, count(*) FILTER (WHERE key <> pivot) AS members_joining_a_pivot
  FROM local_groups;
SELECT pg_temp.expect(count(*) = 0 AND (SELECT count(*) FROM sharded_groups) = (SELECT count(*) FROM documents_local),
	'groups at 0.8 through shard band keys equal the single-node groups (group ids, pivots, resemblances)')
  FROM ((SELECT * FROM sharded_groups EXCEPT SELECT * FROM local_groups)
		UNION ALL (SELECT * FROM local_groups EXCEPT SELECT * FROM sharded_groups)) d;
SELECT pg_temp.expect(count(*) >= 10, format('%s groups at 0.8 have members on both shards', count(*)))
  FROM (SELECT g.group_id FROM sharded_groups g JOIN documents d ON d.id = g.key::bigint
		 GROUP BY g.group_id HAVING count(DISTINCT d.tableoid) = 2) spanning;
SELECT pg_temp.expect((SELECT count(*) FROM local_groups WHERE resemblance IS NULL) = 5
					  AND (SELECT count(*) FROM sharded_groups WHERE resemblance IS NULL) = 5,
	'rows without a signature are groups of their own in both');
CREATE TEMP TABLE candidate_pairs AS SELECT * FROM near_dupe_pairs('candidate_docs', 'id', 'sig', 0.8);
SELECT pg_temp.expect(count(*) = 0 AND (SELECT count(*) FROM local_pairs) >= 50,
	format('pairs at 0.8 from the candidate rows equal the %s single-node pairs', (SELECT count(*) FROM local_pairs)))
  FROM ((SELECT * FROM candidate_pairs EXCEPT SELECT * FROM local_pairs)
		UNION ALL (SELECT * FROM local_pairs EXCEPT SELECT * FROM candidate_pairs)) d;
\set threshold 0.9
\ir ../lib/sharded_groups.sql
CREATE TEMP TABLE local_groups_09 AS SELECT * FROM near_dupe_groups('documents_local', 'id', 'sig', 0.9);
SELECT pg_temp.expect(count(*) = 0 AND (SELECT count(*) FROM sharded_groups WHERE key <> pivot) > 0,
	'groups at 0.9 (above the layout''s threshold) through shard band keys equal the single-node groups')
  FROM ((SELECT * FROM sharded_groups EXCEPT SELECT * FROM local_groups_09)
		UNION ALL (SELECT * FROM local_groups_09 EXCEPT SELECT * FROM sharded_groups)) d;

-- Simplest: a local copy of every signature (ships them all).
CREATE TEMP TABLE all_docs AS SELECT id, sig FROM documents;
CREATE TEMP TABLE copy_groups AS SELECT * FROM near_dupe_groups('all_docs', 'id', 'sig', 0.8);
SELECT pg_temp.expect(count(*) = 0, 'near_dupe_groups on a local copy of the sharded rows equals the single-node groups')
  FROM ((SELECT * FROM copy_groups EXCEPT SELECT * FROM local_groups)
		UNION ALL (SELECT * FROM local_groups EXCEPT SELECT * FROM copy_groups)) d;
